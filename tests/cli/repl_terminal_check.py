"""kith repl on a pseudo-terminal, as a person uses it: the banner names the policy,
an expression's value is printed, an unclosed block continues at a '... ' prompt,
an error leaves the session and its globals working, the up arrow recalls the last
line (libedit's history), and Ctrl-D ends the session with exit 0; bare `kith` on a
terminal starts the REPL too, and `exit` ends it with exit 0. Ctrl-C (issue 40, item 9)
stops running code with "interrupted" and where it stopped, and the session goes on
with its globals; at a continuation prompt it drops the unfinished input, on a
half-written line the line, at an empty prompt it shows a fresh one; a loop that
catches every error cannot keep it out.

Usage: repl_terminal_check.py KITH. Prints "ok" on success."""
import os
import re
import select
import sys
import termios
import time

ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\x07")


class Terminal:
    def __init__(self, argv):
        self.pid, self.fd = os.forkpty()
        if self.pid == 0:
            os.environ["TERM"] = "dumb"
            os.execv(argv[0], argv)
        self.seen = b""  # everything the terminal showed, escape sequences removed
        self.checked = 0  # how much of it an expectation has consumed

    def read_some(self, deadline):
        ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the child closed the terminal
            return False
        self.seen += ESCAPE.sub(b"", data).replace(b"\r", b"")
        return bool(data)

    def expect(self, pattern, what, timeout=20):
        """Waits for pattern after what the last expectation matched."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern.encode(), re.DOTALL)
        while True:
            match = regex.search(self.seen, self.checked)
            if match:
                self.checked = match.end()
                return
            if time.monotonic() >= deadline or not self.read_some(deadline):
                if not regex.search(self.seen, self.checked):
                    sys.exit(f"FAIL: {what}: no {pattern!r} in the terminal after:\n"
                             f"{self.seen[self.checked:].decode(errors='replace')}")

    def type(self, text):
        """Types once libedit is reading: it turns canonical mode off while it edits a
        line (the pty's master sees the same settings). Typed earlier, the kernel would
        take Ctrl-D as its own end of file and echo the line a second time."""
        deadline = time.monotonic() + 20
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if time.monotonic() >= deadline:
                sys.exit(f"FAIL: the line editor never took the terminal, to type {text!r}")
            time.sleep(0.01)
        os.write(self.fd, text.encode())

    def interrupt_running(self):
        """Ctrl-C while code runs: once the line editor has given the terminal back
        (canonical mode again), the terminal driver turns it into SIGINT."""
        deadline = time.monotonic() + 20
        while not termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if time.monotonic() >= deadline:
                sys.exit("FAIL: the line editor kept the terminal while the input ran")
            time.sleep(0.01)
        time.sleep(0.2)  # well inside the loop
        os.write(self.fd, b"\x03")


# What is typed at each prompt, and what the terminal must show after it.
SESSION = [
    ("1 + 2\n", r"1 \+ 2\n3\n> ", "an expression's value"),
    ("let x = 40\n", r"let x = 40\n> ", "a statement prints nothing"),
    ("fn twice(a) {\n", r"\.\.\. ", "an unclosed block continues"),
    ("  return a * 2;\n", r"\.\.\. ", "still in the block"),
    ("}\n", r"\}\n> ", "the block closed, the prompt is back"),
    ("twice(x + 1)\n", r"\n82\n> ", "the function defined over three lines, called"),
    ("1 + nil\n", r"error: unsupported operand types for \+: int and nil\n.*> ", "a runtime error is reported"),
    ("twice(x)\n", r"\n80\n> ", "after the error the session and its globals go on"),
    ('System.heapStats().get("policy")\n', r"\nknuth\n> ", "--heap applies to the session"),
    ("\x1b[A\n", r"\nknuth\n> ", "the up arrow recalls the last line (libedit's history)"),
]


# Ctrl-C: what is typed (None: Ctrl-C while the input runs), and what the terminal shows.
INTERRUPTS = [
    ("let kept = 41\n", r"\n> ", "a global"),
    ("fn spin() {\n  while (true) {}\n}\n", r"\}\n> ", "a function that never returns"),
    ("spin()\n", r"spin\(\)\n", "it runs"),
    (None, r"interrupted\n  at spin \(<repl>:2\)\n  at <script> \(<repl>:1\)\n> ", "Ctrl-C stops it, and says where"),
    ("kept + 1\n", r"\n42\n> ", "the globals are kept"),
    ("fn half() {\n", r"\.\.\. ", "a block half typed"),
    ("\x03", r"\n> ", "Ctrl-C at the continuation prompt: a fresh prompt"),
    ("half\n", r"undefined variable 'half'.*\n> ", "the unfinished input was dropped"),
    ("kept +", r"kept \+", "a line half written"),
    ("\x03", r"\n> ", "Ctrl-C on it: a fresh prompt"),
    ("kept\n", r"kept\n41\n> ", "the half-written line was dropped"),
    ("\x03", r"\n> ", "Ctrl-C at an empty prompt: a fresh prompt"),
    ("while (true) { try { spin(); } catch (e) {} }\n", r"\}\n", "a loop that catches every error"),
    (None, r"interrupted\n  at spin \(<repl>:2\)\n  at <script> \(<repl>:1\)\n> ", "is stopped too"),
    ("kept\n", r"kept\n41\n> ", "and the session goes on"),
]


def main():
    kith = sys.argv[1]
    term = Terminal([kith, "repl"])
    term.expect(r"heap estranged.*\n> ", "the banner, then the prompt")
    for typed, shown, what in INTERRUPTS:
        if typed is None:
            term.interrupt_running()
        else:
            term.type(typed)
        term.expect(shown, what)
    term.type("\x04")
    expect_exit(term, "Ctrl-D after Ctrl-C")
    main_session(kith)


def main_session(kith):
    term = Terminal([kith, "repl", "--heap=knuth"])
    term.expect(r"heap knuth.*\n> ", "the banner names the policy, then the prompt")
    for typed, shown, what in SESSION:
        term.type(typed)
        term.expect(shown, what)
    term.type("\x04")  # Ctrl-D at an empty prompt
    expect_exit(term, "Ctrl-D")
    # Bare kith on a terminal starts the same prompt; `exit` ends it.
    bare = Terminal([kith])
    bare.expect(r"^kith repl: heap estranged.*\n> ", "bare kith on a terminal starts the REPL")
    bare.type("exit\n")
    expect_exit(bare, "exit")
    print("ok")


def expect_exit(term, how):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pid, status = os.waitpid(term.pid, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            if code != 0:
                sys.exit(f"FAIL: {how} ended the session with exit {code}, not 0")
            return
        term.read_some(time.monotonic() + 0.1)
    os.kill(term.pid, 9)
    sys.exit(f"FAIL: {how} did not end the session")


main()

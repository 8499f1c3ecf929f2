"""A failed import in kith repl leaves the session as it was (issue 40, item 10): it pops
what it pushed and forgets the module, so that
- under --max-depth=5, six imports of a module with a compile error leave no frame
  behind: a later error's trace has no phantom frame and nothing overflows the stack;
- once the module is fixed, importing it runs it (it was kept as imported, and the
  import did nothing);
- a module whose top-level code throws is forgotten too: fixed, it runs when imported.
The session is driven line by line: after each step a print() marks where the output
is, so the module file is rewritten only once kith has read it.

Usage: repl_import_check.py KITH. Prints "ok" on success."""
import os
import subprocess
import sys
import tempfile


class Session:
    def __init__(self, kith, folder):
        self.p = subprocess.Popen([kith, "repl", "--max-depth=5"], cwd=folder, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.marks = 0

    def step(self, lines):
        """Types the lines, then waits for their output: what they printed (stdout and stderr)."""
        self.marks += 1
        mark = f"-- mark {self.marks} --"
        self.p.stdin.write("".join(line + "\n" for line in lines) + f'print("{mark}")\n')
        self.p.stdin.flush()
        shown = []
        for line in self.p.stdout:
            if line.rstrip("\n") == mark:
                return "".join(shown)
            shown.append(line)
        sys.exit(f"FAIL: the session ended before {mark}:\n{''.join(shown)}")


def expect(what, shown, present=(), absent=()):
    for text in present:
        if text not in shown:
            sys.exit(f"FAIL: {what}: no {text!r} in:\n{shown}")
    for text in absent:
        if text in shown:
            sys.exit(f"FAIL: {what}: {text!r} in:\n{shown}")


def main():
    kith = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        module = os.path.join(folder, "m.kith")
        with open(module, "w") as f:
            f.write("let x = 1 2;\n")
        s = Session(kith, folder)
        shown = s.step(['import "m.kith"'] * 6)
        expect("six imports that do not compile", shown, ["error: expected ';'"], ["stack overflow"])
        shown = s.step(["fn f() { return g(); }", "f()"])
        expect("a later error's trace", shown, ["  at f (<repl>:1)\n  at <script> (<repl>:1)\n"],
               ["stack overflow", "repeated"])
        with open(module, "w") as f:
            f.write('print("m runs"); let mx = 7; boom();\n')
        shown = s.step(['import "m.kith"'])
        expect("the fixed module is imported", shown, ["m runs\n", "error: undefined variable 'boom'"])
        with open(module, "w") as f:
            f.write('print("m runs again");\n')
        shown = s.step(['import "m.kith"', 'import "m.kith"', "mx"])
        expect("a module whose code threw is forgotten; a module that ran is not run twice",
               shown, ["m runs again\n7\n"])
        if shown.count("m runs again") != 1:
            sys.exit(f"FAIL: the module ran twice:\n{shown}")
        s.p.stdin.close()
        code = s.p.wait(timeout=60)
        if code != 70:  # the last input that failed: the runtime error
            sys.exit(f"FAIL: exit {code}, not 70")
    print("ok")


main()

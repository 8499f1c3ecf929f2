"""kith repl reading standard input that is not a terminal, where a row of cases.py
cannot say it: endless or failing input, and a long paste.

Usage: repl_stdin_check.py KITH CHECK. Prints "ok" on success.
  line_cap    `kith repl < /dev/zero` (a line without end): "kith: cannot read '<stdin>':
              a line over 256 MiB", exit 66, within seconds (run under a 2 GiB address-space
              limit, so a reader without a cap fails fast instead of eating memory; not
              under AddressSanitizer).
  input_cap   an input that never closes its bracket, in 4 MiB lines: "an input over
              256 MiB", exit 66.
  read_error  standard input a directory: the read fails, and that is no end of input:
              "kith: cannot read '<stdin>': Is a directory", exit 66.
  paste       a function of 20,000 lines piped in: defined and called within 30 s (it was
              quadratic: 8,000 lines took 29 s). The count of compiles is checked in
              repl_input_test (InputScanner).
"""
import os
import resource
import subprocess
import sys
import threading

MIB = 1 << 20


def memory_limit(kith):
    """A 2 GiB address-space limit for kith, so a reader without a cap fails fast; none
    under AddressSanitizer, whose shadow memory alone is terabytes of address space."""
    with open(kith, "rb") as f:
        if b"__asan_init" in f.read():
            return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(kith, stdin, timeout, feed=None):
    """Runs kith repl on stdin (a file or descriptor), or on the chunks of `feed` written
    to a pipe by a thread (kith may stop reading early)."""
    writer = None
    if feed is not None:
        stdin, end = os.pipe()

        def write():
            with open(end, "wb") as pipe:
                try:
                    for chunk in feed:
                        pipe.write(chunk)
                except BrokenPipeError:
                    pass  # kith stopped reading, as it should
        writer = threading.Thread(target=write, daemon=True)
    p = subprocess.Popen([kith, "repl"], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=memory_limit(kith))
    if writer:
        os.close(stdin)
        writer.start()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit(f"FAIL: kith repl did not end within {timeout} s")
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def expect(code, out, err, want_code, want_err, want_out=""):
    if (code, err, out) != (want_code, want_err, want_out):
        sys.exit(f"FAIL: exit {code}, stderr {err[:300]!r}, stdout {out[:300]!r}; expected exit {want_code}, "
                 f"stderr {want_err!r}, stdout {want_out!r}")


def main():
    kith, check = sys.argv[1], sys.argv[2]
    if check == "line_cap":
        with open("/dev/zero", "rb") as zero:
            result = run(kith, zero, timeout=60)
        expect(*result, 66, "kith: cannot read '<stdin>': a line over 256 MiB\n")
    elif check == "input_cap":
        line = b"(" + b" " * (4 * MIB) + b"\n"
        result = run(kith, subprocess.PIPE, timeout=60, feed=(line for _ in range(80)))
        expect(*result, 66, "kith: cannot read '<stdin>': an input over 256 MiB\n")
    elif check == "read_error":
        fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
        try:
            result = run(kith, fd, timeout=60)
        finally:
            os.close(fd)
        expect(*result, 66, "kith: cannot read '<stdin>': Is a directory\n")
    elif check == "paste":
        body = "".join(f"  total = total + {i};\n" for i in range(20000))
        source = f"fn sum() {{\n  let total = 0;\n{body}  return total;\n}}\nsum()\n"
        result = run(kith, subprocess.PIPE, timeout=30, feed=[source.encode()])
        expect(*result, 0, "", f"{sum(range(20000))}\n")
    else:
        sys.exit(f"unknown check {check}")
    print("ok")


main()

#!/usr/bin/env python3
"""A file with 100,000 compile errors: kith shows the first 20 (each with its source
excerpt) and one line counting the rest, exit 65, a couple of KB of stderr -- not
10 MB in 25 s. A limit passed (too many locals) is one error, not one per later
local. Not timed: the counts and sizes tell; the subprocess timeout is only a guard.
usage: many_compile_errors_check.py KITH"""
import os
import subprocess
import sys
import tempfile

LINES = 100_000
SHOWN = 20  # kMaxErrorsShown, vm/compiler.h; docs/RELIABILITY.md
MAX_STDERR = 4096

CASES = {
    # name: (source, error lines shown, errors not shown, text every error line has)
    "syntax": ("let = ;\n" * LINES, SHOWN, LINES - SHOWN, "error: expected a variable name after 'let'"),
    "locals": ("{\n" + "".join(f"let a{i} = 0;\n" for i in range(LINES)) + "}\n", 1, 0,
               "error: too many local variables in one function (256 at most)"),
}


def check(kith, d, name, source, shown, not_shown, text):
    path = os.path.join(d, name + ".kith")
    with open(path, "w") as f:
        f.write(source)
    p = subprocess.run([kith, "run", path], capture_output=True, text=True, timeout=120)
    lines = p.stderr.splitlines()
    errors = [line for line in lines if ": error: " in line]
    count_line = f"{path}: {not_shown} more errors not shown (the first {SHOWN} are)"
    problems = []
    if p.returncode != 65:
        problems.append(f"exit {p.returncode}, not 65")
    if len(errors) != shown or not all(text in e for e in errors):
        problems.append(f"{len(errors)} error lines, not {shown} of {text!r}")
    if not_shown and (not lines or lines[-1] != count_line):
        problems.append(f"last line {lines[-1:]!r}, not {count_line!r}")
    if not not_shown and "not shown" in p.stderr:
        problems.append("a count line with every error shown")
    if len(p.stderr.encode()) > MAX_STDERR:
        problems.append(f"{len(p.stderr.encode())} bytes of stderr, more than {MAX_STDERR}")
    print(f"{'FAIL' if problems else 'ok  '} {name}: {'; '.join(problems) or f'{len(errors)} shown'}")
    return not problems


def main():
    kith = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        passed = [check(kith, d, name, *case) for name, case in CASES.items()]
    if all(passed):
        print("ok")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())

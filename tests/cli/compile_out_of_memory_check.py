#!/usr/bin/env python3
"""Out of memory while compiling is running out of memory, exit 70 (CLI.md), not a
compile error of the source (65). A script of many string constants is run with
--fail-alloc=N for every N up to past its compile, so some N fails the allocation of
a constant the compiler is placing; every such run must exit 70 with the message.

usage: compile_out_of_memory_check.py KITH
Prints "ok", or one line per failed run (exit 1).
"""
import os
import subprocess
import sys
import tempfile

MESSAGE = "out of memory while compiling: the heap is too small for the program's constants"
CONSTANTS = 40  # each one a string the compiler allocates on the heap


def main():
    kith = sys.argv[1]
    failures, compile_failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "constants.kith")
        with open(script, "w") as f:
            f.writelines(f'let s{i} = "constant {i}";\n' for i in range(CONSTANTS))
            f.write('print("compiled");\n')
        for n in range(1, 100):
            p = subprocess.run([kith, "run", f"--fail-alloc={n}", script], capture_output=True, text=True, timeout=60)
            if MESSAGE not in p.stderr:
                if p.returncode not in (0, 70):
                    failures.append(f"--fail-alloc={n}: exit {p.returncode}: {p.stderr[:200]!r}")
                continue
            compile_failures += 1
            if p.returncode != 70 or p.stdout:
                failures.append(f"--fail-alloc={n}: out of memory while compiling exits {p.returncode}, expected 70")
    if compile_failures == 0:
        failures.append("no --fail-alloc=N failed a constant's allocation: the check tests nothing")
    print("\n".join(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

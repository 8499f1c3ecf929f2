#!/usr/bin/env python3
"""Source nested far past the limit (40,000 parentheses or braces, 100,000 unary
operators, a 100,000-long assignment chain) is the compile error "nesting too deep",
exit 65 -- never a crash of the recursive-descent compiler.  usage: deep_nesting_check.py KITH"""
import os
import subprocess
import sys
import tempfile

CASES = {
    "parentheses": "print(" + "(" * 40000 + "1" + ")" * 40000 + ");",
    "braces": "{" * 40000 + "}" * 40000,
    "minus": "print(" + "-" * 100000 + "1);",
    "bang": "print(" + "!" * 100000 + "true);",
    "brackets": "print(" + "[" * 40000 + "]" * 40000 + ");",
    "functions": "let f = " + "fn () { return " * 5000 + "1" + "; }" * 5000 + ";",
    "assignments": "let a = 1;\n" + "a = " * 100000 + "1;",
}


def main():
    kith = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for name, source in CASES.items():
            path = os.path.join(d, name + ".kith")
            with open(path, "w") as f:
                f.write(source + "\n")
            p = subprocess.run([kith, "run", path], capture_output=True, text=True, timeout=60)
            ok = p.returncode == 65 and "error: nesting too deep" in p.stderr
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {p.returncode} {p.stderr.strip()[:100]!r}")
    print(f"{len(CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

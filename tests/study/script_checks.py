"""What the script-style study tests (`test_X.py KITH WORK_DIR`, run by CTest) share: every
check runs and is reported, and the exit code says at the end whether any failed; a fresh
work folder; CTest's skip (77) where valgrind is missing."""

import os
import shutil
import sys

failures = []  # mutated, never rebound: importers may hold it


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def skip_without_valgrind():
    if not shutil.which("valgrind"):
        print("valgrind is not installed: skipped")
        sys.exit(77)


def finish(name):
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print(f"{name}: all checks passed")

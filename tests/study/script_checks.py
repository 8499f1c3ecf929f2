"""What the script-style study tests (`test_X.py KITH WORK_DIR`, run by CTest) share: every
check runs and is reported, and the exit code says at the end whether any failed; a fresh
work folder; CTest's skip (77) where valgrind is missing."""

import os
import re
import shutil
import subprocess
import sys

failures = []  # mutated, never rebound: importers may hold it


def draft_unless_clean(kith):
    """["--draft"] for a kith built with uncommitted changes (or outside git): a study refuses
    to write its results from such a build without it (study/builds.py); [] for a clean one."""
    version = subprocess.run([kith, "--version"], capture_output=True, text=True).stdout
    return [] if re.search(r"\([0-9a-f]{7,40}\)", version) else ["--draft"]


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

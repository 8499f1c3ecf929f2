"""The study's core modules type-check: mypy with study/mypy.ini (the modules it names,
fully annotated, their untyped defs checked too), from the source tree.

    /usr/bin/python3 check_types.py CACHE_DIR

Exits mypy's code (0: no errors), or 77 (skipped, saying so) where mypy is not installed
(Debian: python3-mypy; scripts/setup installs it). CTest: study.types."""

import importlib.util
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SKIPPED = 77


def main(argv):
    if len(argv) != 1:
        print("usage: check_types.py CACHE_DIR", file=sys.stderr)
        return 2
    if importlib.util.find_spec("mypy") is None:
        print(f"skipped: mypy is not installed for {sys.executable} (Debian package python3-mypy; "
              "scripts/setup installs it)")
        return SKIPPED
    config = os.path.join("study", "mypy.ini")
    return subprocess.run([sys.executable, "-m", "mypy", f"--config-file={config}", f"--cache-dir={argv[0]}"],
                          cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

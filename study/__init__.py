"""The allocation study behind `kith study`: run as `/usr/bin/python3 -m study ARGS` from the
source tree (__main__.py), or by path as study/kith_study.py (what `kith study` execs).
Modules import each other relative to this package."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

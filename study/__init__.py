"""The allocation study behind `kith study`. Its one entry point is __main__.py: run as
`/usr/bin/python3 -m study ARGS` from the source tree, as `/usr/bin/python3 <source>/study ARGS`
from anywhere, or through the shim study/kith_study.py (what `kith study` execs today).
Modules import each other relative to this package; their layers: docs/ARCHITECTURE.md."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

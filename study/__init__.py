"""The allocation study behind `kith study`. Its one entry point is __main__.py: run as
`/usr/bin/python3 -m study ARGS` from the source tree, or as `/usr/bin/python3 <source>/study ARGS`
from anywhere (what `kith study` execs).
Modules import each other relative to this package; their layers: docs/ARCHITECTURE.md."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

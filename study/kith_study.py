#!/usr/bin/python3
"""Compatibility: the path cli/study_command.cpp execs for `kith study` (`/usr/bin/python3
<source>/study/kith_study.py --kith=<kith> ARGS`). It runs the package's one entry point,
__main__.py, as `python3 -m study ARGS` does; once the C++ execs the package folder (or
`-m study`) itself, this file goes."""

import sys

if not __package__:  # run by path: load this folder as the package
    import by_path  # noqa: F401
    __package__ = "study"
from .__main__ import entry  # noqa: E402

entry(sys.argv[1:])

"""`/usr/bin/python3 -m study ARGS` (from the source tree): the same driver `kith study` runs."""

from .kith_study import entry

entry()

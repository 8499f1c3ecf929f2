"""One row of a CLI case table: a kith command line and what it must do.

A table (tests/cli/cases.py, tests/vm/cli_cases.py) is a Python file that calls
case() once per row; run_case.py loads it and runs one row as one CTest test.

    case(NAME, ARGV, exit=0, stdout=EMPTY, stderr=EMPTY, output=None,
         stdin=None, files=None, absent=None, given=None)

ARGV is kith's arguments as shell words (shlex), with {source} for the project's
source directory and {tmp} for a fresh directory of the case's own. stdin names a
file fed to standard input (the same placeholders); otherwise kith reads nothing.

The expectations are Python regular expressions searched with re.DOTALL, as CMake's
PASS_REGULAR_EXPRESSION was: '.' also matches a newline, and anchor with '^' and
'$' ('$' at the end of a pattern is the end of the stream, nothing after it).
- exit: the exit code.
- stdout, stderr: each stream on its own; EMPTY (the default) means nothing may be
  written there, ANY leaves the stream unchecked.
- output: instead of stdout and stderr, both streams as one, in the order written:
  for the cases about that order (a script's output, then its error).
- files: {PATH: PATTERN} for the files the command writes (or leaves as they were);
  a PATTERN of None: nothing may be at PATH.
- absent: a pattern that must match in neither stream.
- given: {PATH: TEXT}, files made before the command runs (their folders too; a
  PATH ending in '/' is an empty folder), e.g. an earlier output it must not destroy.
"""
from __future__ import annotations

import dataclasses
import re

EMPTY = "^$"
ANY = None


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    argv: str
    exit: int
    stdout: str | None
    stderr: str | None
    output: str | None
    stdin: str | None
    files: dict[str, str | None]
    absent: str | None
    given: dict[str, str]


CASES: list[Case] = []


def case(name, argv, *, exit=0, stdout=EMPTY, stderr=EMPTY, output=None, stdin=None,
         files=None, absent=None, given=None):
    """Adds one row to the table being loaded."""
    if output is not None:
        if (stdout, stderr) != (EMPTY, EMPTY):
            raise ValueError(f"{name}: output= checks both streams; stdout= and stderr= cannot be given too")
        stdout = stderr = ANY
    if any(c.name == name for c in CASES):
        raise ValueError(f"{name}: a second case of this name")
    row = Case(name, argv, exit, stdout, stderr, output, stdin, dict(files or {}), absent, dict(given or {}))
    for pattern in [stdout, stderr, output, absent, *row.files.values()]:
        if pattern is not None:
            compile_pattern(pattern)  # a malformed pattern fails when the table is loaded
    CASES.append(row)


def compile_pattern(pattern):
    """A pattern as CMake's regular expressions read it: '.' matches a newline, and a
    final '$' is the end of the stream (Python's '$' would also match before a last newline)."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, re.DOTALL)

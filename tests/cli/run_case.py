#!/usr/bin/env python3
"""Runs one row of a CLI case table (the rows: cli_case.py).

usage: run_case.py TABLE --list
       run_case.py TABLE NAME --kith KITH --source DIR

--list prints the table's case names, one a line (CMake registers one test each).
Otherwise runs case NAME and prints "ok", or the command and every expectation it
missed (the exit code, which stream and pattern, what the stream held); exit 1 then.
"""
import argparse
import os
import runpy
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_case  # noqa: E402  (found beside this file, for the tables too)

SHOWN_CHARS = 4000  # of a stream that did not match: enough to see why, not a whole --help


def load(table):
    cli_case.CASES.clear()
    runpy.run_path(table)
    return {c.name: c for c in cli_case.CASES}


def make_given(row, where):
    """The files and folders the row gives before its command runs."""
    for path, text in row.given.items():
        path = path.format(**where)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not path.endswith("/"):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


def run(row, kith, where):
    """Runs the row's command in {tmp}; returns (argv, exit code, stdout, stderr or None if merged)."""
    make_given(row, where)
    argv = [os.path.abspath(kith)] + [word.format(**where) for word in shlex.split(row.argv)]
    merged = row.output is not None
    with open(row.stdin.format(**where), "rb") if row.stdin else open(os.devnull, "rb") as stdin:
        p = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merged else subprocess.PIPE, cwd=where["tmp"])
    text = lambda b: b.decode("utf-8", errors="replace")  # noqa: E731
    return argv, p.returncode, text(p.stdout), None if merged else text(p.stderr)


def read_file(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        return e


def shown(text):
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + f"\n... ({len(text) - SHOWN_CHARS} more characters)"
    return "".join(f"    | {line}\n" for line in text.splitlines()) or "    (empty)\n"


def mismatch(what, pattern, text):
    """The message for a stream or file that pattern does not match, or None if it does."""
    if cli_case.compile_pattern(pattern).search(text):
        return None
    return f"{what} does not match {pattern}\n{shown(text)}"


def misses(row, code, out, err, where):
    """What the run did that the row does not allow, one message each."""
    found = []
    if code != row.exit:
        got = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        found.append(f"{got}, expected exit code {row.exit}")
    for what, pattern, text in (("stdout", row.stdout, out), ("stderr", row.stderr, err),
                                ("output", row.output, out)):
        if pattern is not None:
            found.append(mismatch(what, pattern, text))
    for path, pattern in row.files.items():
        if pattern is None:
            if os.path.lexists(path.format(**where)):
                found.append(f"file {path} exists; nothing may be there")
            continue
        text = read_file(path.format(**where))
        if isinstance(text, OSError):
            found.append(f"file {path}: cannot read it: {text.strerror}")
        else:
            found.append(mismatch(f"file {path}", pattern, text))
    if row.absent is not None:
        for what, text in (("stdout", out), ("stderr", err)):
            if text is not None and cli_case.compile_pattern(row.absent).search(text):
                found.append(f"{what} matches {row.absent}, which must be absent\n{shown(text)}")
    return [message for message in found if message]


def main():
    parser = argparse.ArgumentParser(description="Runs one row of a CLI case table.")
    parser.add_argument("table")
    parser.add_argument("name", nargs="?")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--kith")
    parser.add_argument("--source")
    args = parser.parse_args()
    rows = load(args.table)
    if args.list:
        print("\n".join(rows))
        return 0
    if args.name not in rows or not args.kith or not args.source:
        parser.error(f"needs a case of {args.table}, --kith and --source")
    row = rows[args.name]
    with tempfile.TemporaryDirectory(prefix="kith-cli-") as tmp:
        where = {"source": args.source, "tmp": tmp}
        argv, code, out, err = run(row, args.kith, where)
        found = misses(row, code, out, err, where)
    if not found:
        print("ok")
        return 0
    print(f"{row.name}: {shlex.join(argv)}")
    for message in found:
        print(f"  FAIL: {message.rstrip()}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The published native study (docs/native/, docs/native/awfy/) made again from its own
files: `kith study --native --report-only` on a copy must write the very tables and report
that are committed, so each number in them comes from the run's data.

  check_native_published.py KITH DOCS_NATIVE WORK"""
import filecmp
import os
import shutil
import subprocess
import sys

DERIVED = ["native_report.md", "native_summary.csv", "figure6.csv", "native_collectors.csv"]


def check(kith, published, work):
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(published, work, ignore=shutil.ignore_patterns("awfy"))
    p = subprocess.run([kith, "study", "--native", "--report-only", f"--out={work}"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 70):
        return [f"{published}: --report-only exited {p.returncode}: {p.stderr.strip()}"]
    return [f"{published}/{name} differs from the one made again from its files"
            for name in DERIVED if os.path.exists(os.path.join(published, name))
            and not filecmp.cmp(os.path.join(published, name), os.path.join(work, name), shallow=False)]


def main():
    kith, docs, work = sys.argv[1:4]
    problems = check(kith, docs, os.path.join(work, "native"))
    if os.path.isdir(os.path.join(docs, "awfy")):  # the AWFY Lua runs, a study of their own
        problems += check(kith, os.path.join(docs, "awfy"), os.path.join(work, "awfy"))
    for p in problems:
        print(f"FAIL {p}")
    if not problems:
        print("ok: the published native study is its data's")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

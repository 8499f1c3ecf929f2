#!/usr/bin/python3
"""docs/STUDY.md is its data's: made again from docs/study/'s CSV files and the template
(study/STUDY.md.in, by study/prose.py) it must be the very file committed, so no number in it
is typed or stale; and the template's prose holds no typed number (prose.py's lint: a digit
outside a placeholder, unless its phrase is one of the few ALLOWED). Prints the first line
that differs. CTest: study.study_md_numbers.

  check_study_md.py [DOCS_DIR]   (default: this source tree's docs/)"""
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True
from study import prose  # noqa: E402


def first_difference(published, made):
    """(line number, published line, made line, lines that differ) of the first line that
    differs, or None."""
    a, b = published.split("\n"), made.split("\n")
    differ = [i for i in range(max(len(a), len(b))) if (a[i:i + 1] or [None]) != (b[i:i + 1] or [None])]
    if not differ:
        return None
    i = differ[0]
    return i + 1, (a[i] if i < len(a) else "<end of file>"), (b[i] if i < len(b) else "<end of file>"), len(differ)


def main():
    docs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs")
    problems = []
    with open(prose.TEMPLATE) as f:
        for number, text in prose.lint(f.read()):
            problems.append(f"{prose.TEMPLATE}:{number}: {text}")
    published_path = os.path.join(docs, "STUDY.md")
    try:
        made = prose.make(os.path.join(docs, "study"), docs)
    except prose.ProseError as e:
        problems.append(f"STUDY.md cannot be made from {docs}/study: {e}")
        made = None
    if made is not None:
        with open(published_path) as f:
            published = f.read()
        diff = first_difference(published, made)
        if diff:
            line, was, now, count = diff
            problems.append(f"{published_path} is not what its data gives (`python3 -m study prose docs/study "
                            f"--out=docs/STUDY.md` writes it); {count} lines differ, the first at line {line}:\n"
                            f"  committed: {was}\n  from data: {now}")
    for p in problems:
        print(f"FAIL {p}")
    if not problems:
        print("ok: docs/STUDY.md is its data's, and its template types no number")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

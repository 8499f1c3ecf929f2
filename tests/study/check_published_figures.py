#!/usr/bin/python3
"""The published figures (docs/study/figures/) fit a page: every PNG at most
figure_files.FIGURE_MAX_HEIGHT px tall (1,050 px, 7 in at 150 dpi, leaving a 9-in text block
room for the caption), and the figures drawn as panels of every workload
(figure_files.HALF_PAGE_FIGURES: speedup, allocator cost, replay time) at most HALF_PAGE
(675 px, half a page); every figure plot_study.py draws is there, none else, each valid in
PNG, SVG and PDF. Sizes are read from the PNG's IHDR chunk (standard library only).
CTest: study.published_figures.

  check_published_figures.py [STUDY_DIR]   (default: docs/study)"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from figure_files import FIGURES, figure_problems  # noqa: E402


def main():
    study = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "docs", "study")
    problems = figure_problems(study, FIGURES)
    for p in problems:
        print(f"FAIL {p}")
    if not problems:
        print(f"ok: the {len(FIGURES)} published figures fit their pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks a study directory's figures: each in PNG, SVG and PDF, valid, at most 2000 px wide
(a column at 150 dpi), at most FIGURE_MAX_HEIGHT px tall (HALF_PAGE for the figures drawn as
panels that must fit half a page), with no text below 8 pt."""

import os
import re
import struct
import xml.etree.ElementTree as ET

# Every figure plot_study.py draws, with the CSV it is drawn from.
FIGURES = {
    "fig-worst-case-request": "contrived_summary.csv",
    "fig-speedup": "speedup.csv",
    "fig-speedup-continuous": "speedup.csv",
    "fig-satisfied": "satisfied.csv",
    "fig-satisfied-vs-heap": "tradeoff.csv",
    "fig-request-sizes": "sizes.csv",
    "fig-pauses": "pause_summary.csv",
    "fig-mmu": "mmu.csv",
    "fig-time-space": "tradeoff_summary.csv",
    "fig-time-space-workloads": "tradeoff.csv",
    "fig-min-heap": "minheap.csv",
    "fig-alloc-cost": "alloc_cost.csv",
    "fig-alloc-cost-continuous": "alloc_cost.csv",
    "fig-alloc-misses": "alloc_cost.csv",
    "fig-replay-time": "replay_time.csv",
    "fig-predicted": "predicted.csv",
    "fig-lifetimes": "lifetimes.csv",
    "fig-frag-timeline": "frag_timeline.csv",
    "fig-alloc-rate": "alloc_rate.csv",
    "fig-size-class-free": "size_class_free.csv",
    "fig-size-class-gap": "size_class_summary.csv",
}
FORMATS = ("png", "svg", "pdf")
MAX_PNG_WIDTH = 2000
MIN_FONT_PT = 8
# Heights at 150 dpi: a figure with its caption fits a page whose text block is 9 in tall
# (7 in, 1,050 px); the figures of many workloads are drawn as panels, one a file, that each
# fit half a page (4.5 in, 675 px) in a page's width.
FIGURE_MAX_HEIGHT = 1050
HALF_PAGE = 675
HALF_PAGE_FIGURES = {"fig-speedup", "fig-speedup-continuous", "fig-alloc-cost", "fig-alloc-cost-continuous",
                     "fig-replay-time"}


def png_size(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR" or b"IEND" not in data[-12:]:
        return None
    return struct.unpack(">II", data[16:24])


def height_limit(name):
    return HALF_PAGE if name in HALF_PAGE_FIGURES else FIGURE_MAX_HEIGHT


def png_problem(path):
    size = png_size(path)
    if size is None:
        return "not a complete PNG"
    width, height = size
    if width < 50 or height < 50:
        return f"implausible size {width}x{height}"
    if width > MAX_PNG_WIDTH:
        return f"{width} px wide (a column at 150 dpi is at most {MAX_PNG_WIDTH})"
    limit = height_limit(os.path.splitext(os.path.basename(path))[0])
    if height > limit:
        return f"{height} px tall (at most {limit}: {'half ' if limit == HALF_PAGE else ''}a page at 150 dpi)"
    return None


def svg_problem(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return f"not XML: {e}"
    if not root.tag.endswith("svg"):
        return f"root element is {root.tag}"
    # Text is kept as text (svg.fonttype none); an SVG unit is a point at print size.
    sizes = [float(s) for s in re.findall(r"font: (?:[a-z]+ )*([0-9.]+)px", open(path).read())]
    if not sizes:
        return "no text"
    if min(sizes) < MIN_FONT_PT:
        return f"text at {min(sizes):g} pt (at least {MIN_FONT_PT})"
    return None


def pdf_problem(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-32:]:
        return "not a complete PDF"
    return None


def figures_written(out_dir):
    d = os.path.join(out_dir, "figures")
    if not os.path.isdir(d):
        return set()
    return {os.path.splitext(n)[0] for n in os.listdir(d)}


def figure_problems(out_dir, expected=None):
    """Problems with the figures in out_dir/figures: each one there must come in every format
    and pass its checks; `expected` (names), when given, must be exactly the figures written.
    Without it, at least one figure must have been written."""
    problems = []
    written = figures_written(out_dir)
    if expected is None and not written:
        problems.append(f"no figures in {out_dir}/figures")
    if expected is not None:
        for name in sorted(set(expected) - written):
            problems.append(f"{name} not drawn")
        for name in sorted(written - set(expected)):
            problems.append(f"{name} drawn, but its data was not there")
    for name in sorted(written):
        for ext, check in (("png", png_problem), ("svg", svg_problem), ("pdf", pdf_problem)):
            path = os.path.join(out_dir, "figures", f"{name}.{ext}")
            if not os.path.exists(path):
                problems.append(f"missing {path}")
                continue
            p = check(path)
            if p:
                problems.append(f"{path}: {p}")
    return problems

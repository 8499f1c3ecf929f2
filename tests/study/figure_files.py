"""Checks that a study directory has every figure as a valid PNG and SVG."""

import os
import struct
import xml.etree.ElementTree as ET

FIGURES = ["fig1-workloads", "fig2-worst-case-request", "fig3-speedup", "fig4-satisfied", "fig5-request-sizes",
           "fig6-pauses-mmu", "fig7-time-space", "fig8-min-heap", "fig9-fragmentation"]


def png_problem(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "no PNG signature"
    if data[12:16] != b"IHDR":
        return "no IHDR chunk first"
    width, height = struct.unpack(">II", data[16:24])
    if width < 50 or height < 50:
        return f"implausible size {width}x{height}"
    if b"IEND" not in data[-12:]:
        return "no IEND chunk at the end"
    return None


def svg_problem(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return f"not XML: {e}"
    if not root.tag.endswith("svg"):
        return f"root element is {root.tag}"
    return None


def figure_problems(out_dir):
    problems = []
    for name in FIGURES:
        for ext, check in (("png", png_problem), ("svg", svg_problem)):
            path = os.path.join(out_dir, "figures", f"{name}.{ext}")
            if not os.path.exists(path):
                problems.append(f"missing {path}")
                continue
            p = check(path)
            if p:
                problems.append(f"{path}: {p}")
    return problems

#!/usr/bin/python3
"""Draws the study's figures from its CSV files alone: `/usr/bin/python3 -m study plot DIR`.

Every figure is sized for a paper's column (3.4 in single, 7 in double; PNG at 150 dpi, so at
most ~1050 px wide), with 8 pt text at print size, in PNG, SVG and PDF under DIR/figures/.
A panel holds at most 8 series, each with its own colour and marker from the Okabe-Ito
palette (colour-blind safe), and a policy keeps its colour and marker in every figure.
Intervals are drawn only where a value rests on two or more runs; otherwise the figure says
"single run". A figure whose CSV is missing or empty is skipped with one line on stderr (and
an older copy of it removed); columns an older study lacks leave out what they would draw.
Needs matplotlib (Debian: python3-matplotlib; scripts/setup installs it).
"""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study plot DIR` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import csv
import math
import os
import statistics
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import (FixedLocator, FuncFormatter, LogFormatterSciNotation, LogLocator, NullFormatter,
                                   NullLocator)
except ImportError:
    sys.exit("plot_study.py: matplotlib is missing (apt-get install python3-matplotlib; scripts/setup does it)")
from . import plot_predicted  # noqa: E402
from . import stats  # noqa: E402
from . import size_class_plot  # noqa: E402

SINGLE, DOUBLE = 3.4, 7.0  # column widths (in)
TALLEST = 6.6  # in: the tallest figure, legend below it included, under FIGURE_MAX_HEIGHT's 7 in
DPI = 150
MAX_SERIES = 8
CONFIDENCE_LABEL = "95% CI"
PAPER_CONTRIVED_SPEEDUP = 72  # the paper's Figure 8
# The clock `kith bench contrived` reads ticks in about 10 ns on the study's machine
# (study/prose_values.py checks contrived.csv's samples against it): a median of at most
# CLOCK_BOUND_TICKS ticks moves by a fifth or more with one tick, and so does its ratio.
CLOCK_NS, CLOCK_BOUND_TICKS = 10, 5

# Okabe & Ito (2008): eight colours told apart under every common colour-vision deficiency.
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
# A series' style: colour and marker both differ, so a series is found without colour too.
SERIES_STYLES = [(BLUE, "o"), (ORANGE, "s"), (GREEN, "^"), (VERMILLION, "D"), (PURPLE, "v"), (SKY, "P"),
                 (BLACK, "X"), (YELLOW, "*")]
POLICY_STYLE = {"list": (BLACK, "o"), "knuth": (ORANGE, "s"), "estranged": (BLUE, "^"), "tlsf": (GREEN, "D"),
                "kingsley": (VERMILLION, "v"), "lea": (PURPLE, "P"), "malloc": (SKY, "X"), "boehm": (YELLOW, "*")}
POLICY_ORDER = list(POLICY_STYLE)
COLLECTOR_ORDER = ["occasional", "continuous", "none"]
OUTCOMES = [("immediate", BLUE), ("split", ORANGE), ("glue", GREEN), ("defrag", VERMILLION), ("failed", BLACK)]
# Figure 10's immediate bar, split where the policy tracks where the block came from: a
# free (recycling) or a split's leftover (the floor), drawn hatched in the same blue.
IMMEDIATE_SOURCES = [("recycled", BLUE), ("leftover", SKY)]
UNTRACKED = ("immediate", PURPLE)  # beside tracked policies, one that does not say where its blocks came from

plt.rcParams.update({
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "legend.fontsize": 8, "figure.titlesize": 9, "legend.title_fontsize": 8,
    "figure.dpi": DPI, "savefig.dpi": DPI, "lines.markersize": 4, "lines.linewidth": 1.0,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "axes.linewidth": 0.6,
    "svg.hashsalt": "kith-study", "svg.fonttype": "none", "pdf.fonttype": 42,
    "legend.frameon": False, "legend.handletextpad": 0.3, "legend.columnspacing": 1.0,
})


class Skip(Exception):
    """A figure with nothing to draw; the message says why."""


# --- reading ----------------------------------------------------------------------------

def read(out_dir, name):
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def need(out_dir, name, keep=lambda r: True):
    """The rows of DIR/name that keep() accepts; Skip when the file is missing or has none."""
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        raise Skip(f"no {name}")
    rows = [r for r in read(out_dir, name) if keep(r)]
    if not rows:
        raise Skip(f"{name} has no rows to draw")
    return rows


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or math.isinf(x) else x


def policy_series(rows):
    """The policies the rows hold, in the usual order, at most MAX_SERIES, and their styles."""
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)[:MAX_SERIES]
    return policies, policy_styles(policies)


def col(r, key):
    return num(r.get(key)) if r else None


def truthy(v):
    return str(v).strip().lower() in ("true", "1", "yes")


def ordered(values, order):
    values = list(dict.fromkeys(values))
    return sorted(values, key=lambda v: (order.index(v) if v in order else len(order), v))


def interval(r, low, high, runs_key=None):
    """(low, high) of a row's interval, or None when it rests on fewer than two runs."""
    lo, hi = col(r, low), col(r, high)
    if lo is None or hi is None:
        return None
    if runs_key and col(r, runs_key) is not None and col(r, runs_key) < 2:
        return None
    return lo, hi


def ci_note(any_interval):
    return CONFIDENCE_LABEL if any_interval else "single run, no interval"


def mean_t(xs):
    """(mean, low, high) with the 95% t interval of the mean (stats.mean_ci), Nones left out."""
    return stats.mean_ci(x for x in xs if x is not None)


def mib(x):
    return x / (1 << 20)


# --- styles and saving ------------------------------------------------------------------

def policy_styles(policies):
    """Each policy's fixed (colour, marker); a policy outside the known eight gets a style
    no policy in this figure uses."""
    styles = {p: POLICY_STYLE[p] for p in policies if p in POLICY_STYLE}
    free = [s for s in SERIES_STYLES if s not in styles.values()]
    for p in policies:
        if p not in styles:
            styles[p] = free.pop(0) if free else SERIES_STYLES[len(styles) % len(SERIES_STYLES)]
    return styles


def series_styles(names):
    return {n: SERIES_STYLES[i % len(SERIES_STYLES)] for i, n in enumerate(names)}


def marker_kw(style, filled=True, size=4):
    colour, marker = style
    edge = BLACK if colour == YELLOW else colour  # yellow alone is faint on white
    return {"marker": marker, "color": colour, "markersize": size, "markeredgecolor": edge,
            "markeredgewidth": 0.7, "markerfacecolor": colour if filled else "white"}


def handle(label, style, line=False):
    return Line2D([], [], linestyle="-" if line else "none", label=label, **marker_kw(style))


FIGURE_FORMATS = ("png", "svg", "pdf")


def figure_paths(out_dir, name):
    return [os.path.join(out_dir, "figures", f"{name}.{ext}") for ext in FIGURE_FORMATS]


def compact(v, _pos=None):
    """A tick label without exponents: 0.01, 1, 300, 2k, 10M."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def plain_log_labels(fig):
    """Log axes label 10^-1 as 0.1 (a superscript would print below 8 pt), with ticks at 1, 2,
    5 or 1, 3 per decade where the axis spans few decades, and no labelled minor ticks (they
    crowd a narrow panel)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not isinstance(axis.get_major_formatter(), LogFormatterSciNotation):
                continue
            axis.set_major_formatter(FuncFormatter(compact))
            axis.set_minor_formatter(NullFormatter())
            lo, hi = sorted(axis.get_view_interval())
            if getattr(axis.get_transform(), "base", 10) == 10 and lo > 0:
                decades = math.log10(hi / lo)
                subs = (1, 2, 5) if decades < 1.5 else (1, 3) if decades < 3 else (1,)
                axis.set_major_locator(LogLocator(10, subs=subs))


DRAFT = {"stamp": ""}  # builds.csv's stamp of a study whose runs are not one build (main sets it)


def save(fig, out_dir, name):
    if DRAFT["stamp"]:  # above everything, so no crop of a draft's figure passes for a published one
        fig.text(0.5, 1.0, DRAFT["stamp"].upper(), ha="center", va="bottom", color=VERMILLION, fontweight="bold")
    plain_log_labels(fig)
    os.makedirs(os.path.join(out_dir, "figures"), exist_ok=True)
    png, svg, pdf = figure_paths(out_dir, name)
    kw = {"bbox_inches": "tight", "pad_inches": 0.03}
    fig.savefig(png, metadata={"Software": None}, **kw)
    fig.savefig(svg, metadata={"Date": None}, **kw)
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None}, **kw)
    plt.close(fig)


def legend_below(fig, handles, ncol=4, y=0.0):
    if handles:
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, y), ncol=min(ncol, len(handles)))


# --- the dot plot: one row per workload, series offset within a row ----------------------

def row_height(n_series):
    return max(0.2, 0.055 * n_series + 0.06)


def dot_rows(ax, labels, series, log=True, reference=None, summary_label=None, across=False):
    """Rows top to bottom in labels order; series: [(label, style, {row: (value, interval or
    None, filled)})]. A summary row (summary_label) is set off by a line. across=True turns
    the plot a quarter: labels left to right, values up (a wide, short panel that fits half
    a page with many labels). Returns whether any row other than the summary drew an
    interval."""
    n, k = len(labels), max(len(series), 1)
    step = min(0.8 / k, 0.22)
    drew_interval = False
    # (position along the labels, value) -> (x, y): the one place the orientation is decided.
    at = (lambda pos, v: (pos, v)) if across else (lambda pos, v: (v, pos))
    for i in range(n):
        if i % 2 == 0:
            (ax.axvspan if across else ax.axhspan)(position(i, n, across) - 0.5, position(i, n, across) + 0.5,
                                                   color="#f2f2f2", lw=0, zorder=0)
    for s, (_, style, points) in enumerate(series):
        offset = (s - (k - 1) / 2) * step
        for i, row in enumerate(labels):
            p = points.get(row)
            if not p or p[0] is None or (log and p[0] <= 0):
                continue
            v, iv, filled = p
            pos = position(i, n, across) + (offset if across else -offset)
            if iv is not None:
                lo, hi = iv
                if log:
                    lo = max(lo, v / 1e6)
                (x0, y0), (x1, y1) = at(pos, lo), at(pos, hi)
                ax.plot([x0, x1], [y0, y1], color=style[0] if style[0] != YELLOW else "#b8a800", lw=0.9, zorder=2)
                drew_interval |= row != summary_label
            x, y = at(pos, v)
            ax.plot([x], [y], linestyle="none", zorder=3, **marker_kw(style, filled))
    if reference is not None:
        (ax.axhline if across else ax.axvline)(reference, color="#555555", lw=0.8, zorder=1)
    if summary_label in labels:
        edge = position(labels.index(summary_label), n, across) + (-0.5 if across else 0.5)
        (ax.axvline if across else ax.axhline)(edge, color="#555555", lw=0.6)
    label_axis = ax.xaxis if across else ax.yaxis
    if log:
        (ax.set_yscale if across else ax.set_xscale)("log")
    ax.margins(**({"y": 0.06} if across else {"x": 0.06}))  # a marker at the end of the range stays whole
    label_axis.set_ticks(range(n))
    label_axis.set_ticklabels(labels if across else list(reversed(labels)),
                              **({"rotation": 60, "ha": "right", "rotation_mode": "anchor"} if across else {}))
    (ax.set_xlim if across else ax.set_ylim)(-0.6, n - 0.4)
    ax.grid(axis="x" if across else "y", visible=False)
    ax.tick_params(axis="x" if across else "y", length=0)
    return drew_interval


def position(i, n, across):
    """Where the i-th of n labels sits: left to right across, top to bottom otherwise."""
    return i if across else n - 1 - i


def ratio_axis(ax, points, intervals=(), axis="x"):
    """A log axis around 1.0 for ratios, with plain tick labels (0.5, 0.8, 1, 1.25, 2). An
    interval may stretch the axis to half or twice its points' range, no further: beyond
    that it runs off the panel's edge. axis: "x", or "y" for a panel drawn across."""
    pts = [v for v in points if v and v > 0] or [0.5, 2]
    ivs = [v for v in intervals if v and v > 0]
    lo = max(min(pts + ivs), min(pts) / 2, 1 / 16)
    hi = min(max(pts + ivs), max(pts) * 2, 16)
    lo, hi = min(lo / 1.08, 0.9), max(hi * 1.08, 1.1)
    getattr(ax, f"set_{axis}scale")("log")
    getattr(ax, f"set_{axis}lim")(lo, hi)
    fine = (0.5, 0.67, 0.8, 1, 1.25, 1.5, 2) if hi / lo < 5 else ()
    coarse = (1 / 16, 1 / 8, 0.25, 0.5, 1, 2, 4, 8, 16)
    ticks = sorted(t for t in set(fine + coarse) if lo <= t <= hi)
    which = getattr(ax, f"{axis}axis")
    which.set_major_locator(FixedLocator(ticks))
    getattr(ax, f"set_{axis}ticklabels")([f"{t:g}" for t in ticks])
    which.set_minor_locator(NullLocator())
    which.set_minor_formatter(NullFormatter())


def limits_of(series):
    """(points, interval ends) of dot_rows series, for ratio_axis."""
    points, ends = [], []
    for _, _, pts in series:
        for v, iv, _ in pts.values():
            if v is not None:
                points.append(v)
            if iv:
                ends += [iv[0], iv[1]]
    return points, ends


# --- the worst-case request (the paper's Figure 8) --------------------------------------

def fig_worst_case_request(out_dir):
    rows = need(out_dir, "contrived_summary.csv", lambda r: col(r, "median_ns"))
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)
    styles = policy_styles(policies)
    has_steps = any(col(r, "steps") is not None for r in rows)
    n = 3 if has_steps else 2
    fig, axes = plt.subplots(1, n, figsize=(DOUBLE, 2.4), layout="constrained")
    any_iv = clock_bound = False
    for p in policies:
        mine = sorted((r for r in rows if r["policy"] == p), key=lambda r: col(r, "heap_size"))
        xs = [mib(col(r, "heap_size")) for r in mine]
        # Each run times the request many times (`samples`, pooled over the runs of a size).
        runs_key = "samples" if any(col(r, "samples") is not None for r in mine) else "repeats"
        ivs = [interval(r, "ci_low_ns", "ci_high_ns", runs_key) for r in mine]
        ys = [col(r, "mean_ns") if iv is not None and col(r, "mean_ns") else col(r, "median_ns")
              for r, iv in zip(mine, ivs)]
        axes[0].plot(xs, ys, **marker_kw(styles[p]))
        for x, iv in zip(xs, ivs):
            if iv:
                axes[0].plot([x, x], iv, color=styles[p][0], lw=0.9)
                any_iv = True
        if p != "list":
            sp = [(mib(col(r, "heap_size")), col(r, "speedup_over_list"),
                   interval(r, "speedup_ci_low", "speedup_ci_high", runs_key),
                   col(r, "median_ns") > CLOCK_BOUND_TICKS * CLOCK_NS) for r in mine
                  if col(r, "speedup_over_list")]
            axes[1].plot([x for x, _, _, _ in sp], [y for _, y, _, _ in sp], color=styles[p][0], lw=1)
            for x, y, iv, resolved in sp:  # hollow: a ratio over a median of a few clock ticks
                axes[1].plot([x], [y], linestyle="none", **marker_kw(styles[p], filled=resolved))
                clock_bound |= not resolved
                if iv:
                    axes[1].plot([x, x], [max(iv[0], 1e-3), iv[1]], color=styles[p][0], lw=0.9)
                    any_iv = True
        if has_steps:
            st = [(mib(col(r, "heap_size")), col(r, "steps")) for r in mine if col(r, "steps") is not None]
            axes[2].plot([x for x, _ in st], [max(y, 0.5) for _, y in st], **marker_kw(styles[p]))
    axes[1].axhline(PAPER_CONTRIVED_SPEEDUP, color="#555555", linestyle=":", lw=1)
    axes[1].annotate("paper: 72x", (0.02, PAPER_CONTRIVED_SPEEDUP), xycoords=("axes fraction", "data"),
                     xytext=(0, 3), textcoords="offset points", ha="left", va="bottom", color="#555555")
    titles = ["(a) one 1 KiB request", "(b) list's median / policy's median", "(c) steps per request (counted)"]
    ylabels = ["time (ns)", "ratio of the median times", "steps (blocks, levels or bins)"]
    for ax, t, yl in zip(axes, titles, ylabels):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("heap size (MiB)")
        ax.set_ylabel(yl)
        ax.set_title(t)
    note = ("(a) mean with " + CONFIDENCE_LABEL + "; (b) ratio of medians (line: " + CONFIDENCE_LABEL +
            " of the ratio of means)" if any_iv else "(a) median, (b) ratio of medians; single run, no interval")
    fig.suptitle(f"The worst-case request against heap size\n{note}")
    handles = [handle(p, styles[p], line=True) for p in policies]
    if clock_bound:
        handles.append(Line2D([], [], linestyle="none", label=f"hollow: a median of at most {CLOCK_BOUND_TICKS} "
                              f"ticks of the {CLOCK_NS}-ns clock", **marker_kw(("#777777", "o"), False)))
    legend_below(fig, handles, ncol=len(policies))
    save(fig, out_dir, "fig-worst-case-request")


# --- speedup (the paper's Figure 9) -----------------------------------------------------

SPEEDUP_PANEL_HEIGHTS = (1.55, 0.95)  # in: the speedup and GC-time panels of one collector's file


def the_collector(rows, which):
    """The collector a per-collector figure draws: which="first", the study's first
    (fig-speedup, fig-alloc-cost), or "continuous" when it is not the first (its own file);
    Skip otherwise."""
    collectors = ordered([r.get("collector", "") for r in rows], COLLECTOR_ORDER)
    if which == "first":
        return collectors[0]
    if which not in collectors:
        raise Skip(f"no {which} collection")
    if collectors[0] == which:
        raise Skip(f"{which} collection is the first figure's")
    return which


def same_set(series, defining=None):
    """The labels every defining series has (default: those with the most points, the
    policies that ran everywhere): the workloads a geometric mean is taken over for every
    policy; and the policies with fewer of them, {policy: how many}. The report's twin is
    stats.same_set_geomeans."""
    have = {name: {w for w, p in pts.items() if p and p[0] is not None and p[0] > 0} for name, _, pts in series}
    if defining is None:
        most = max((len(x) for x in have.values()), default=0)
        defining = [name for name, x in have.items() if len(x) == most]
    sets = [have[name] for name in defining if name in have]
    common = set.intersection(*sets) if sets else set()
    fewer = {name: len(x & common) for name, x in have.items() if len(x & common) < len(common)}
    return common, fewer


def ran_everywhere(rows, collector):
    """The policies with a row for every workload of that collector's rows."""
    mine = [r for r in rows if r.get("collector", "") == collector]
    workloads = {r["workload"] for r in mine}
    return [p for p in dict.fromkeys(r["policy"] for r in mine)
            if {r["workload"] for r in mine if r["policy"] == p} == workloads]


def geomean_note(common, fewer):
    return f"geomean: the same {len(common)} workloads" + (
        " (" + ", ".join(f"{p} {n}" for p, n in fewer.items()) + ")" if fewer else "")


def fig_speedup(out_dir, which="first"):
    rows = need(out_dir, "speedup.csv", lambda r: r.get("policy") != "list")
    c = the_collector(rows, which)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies, styles = policy_series(rows)
    holm = any(r.get("holm_significant") not in (None, "") for r in rows)
    gc = any(col(r, "gc_ms_policy") is not None for r in rows)
    geo = "geomean"
    labels = workloads + [geo]
    cell = {(r["workload"], r["collector"], r["policy"]): r for r in rows}
    heights = SPEEDUP_PANEL_HEIGHTS if gc else SPEEDUP_PANEL_HEIGHTS[:1]
    fig, axes = plt.subplots(len(heights), 1, sharex=True, squeeze=False, layout="constrained",
                             figsize=(DOUBLE, 1.5 + sum(heights)), gridspec_kw={"height_ratios": heights})
    ax = axes[0][0]
    series = []
    for p in policies:
        pts = {}
        for w in workloads:
            r = cell.get((w, c, p))
            v = col(r, "speedup")
            if v is not None and v > 0:
                pts[w] = (v, interval(r, "ci_low", "ci_high", "runs"),
                          truthy(r.get("holm_significant")) if holm else True)
        series.append((p, styles[p], pts))
    common, fewer = same_set(series)
    for _, _, pts in series:
        logs = [pts[w][0] for w in common if w in pts]
        if len(logs) >= 2:
            g, lo, hi = stats.geomean_ci(logs)
            pts[geo] = (g, (lo, hi) if lo is not None else None, True)
    any_iv = dot_rows(ax, labels, series, reference=1.0, summary_label=geo, across=True)
    # One range for every collector's file: the speedups of them all.
    every = [(p, styles[p], {w: (col(r, "speedup"), interval(r, "ci_low", "ci_high", "runs"), True)
                             for (w, _, q), r in cell.items() if q == p and col(r, "speedup")}) for p in policies]
    ratio_axis(ax, *limits_of(every), axis="y")
    for w in workloads:  # a workload without a baseline says so where its points would be
        if not any(w in pts for _, _, pts in series):
            ax.text(labels.index(w), 1.0, "no list baseline / no run", rotation=90, va="bottom", ha="center",
                    color="#555555")
    ax.set_ylabel("speedup over list (log)")
    ax.set_title(f"(a) speedup over list (>1: faster); {geomean_note(common, fewer)}", loc="left")
    if gc:
        gc_panel(axes[1][0], rows, c, workloads, labels, policies, styles)
    handles = [handle(p, styles[p]) for p in policies]
    if gc:
        handles.insert(0, handle("list", POLICY_STYLE["list"]))
    if holm:
        grey = ("#777777", "o")
        handles += [Line2D([], [], linestyle="none", label="filled: significant (Holm)", **marker_kw(grey)),
                    Line2D([], [], linestyle="none", label="hollow: not significant", **marker_kw(grey, False))]
    fig.suptitle(f"Speedup over list, {c} collection (each workload: {ci_note(any_iv)}; "
                 f"geomean: {CONFIDENCE_LABEL} across workloads)")
    legend_below(fig, handles, ncol=5 if len(handles) > 6 else len(handles))
    save(fig, out_dir, "fig-speedup" if which == "first" else f"fig-speedup-{c}")


def gc_panel(ax, rows, c, workloads, labels, policies, styles):
    """GC time of each policy and of list, on a scale linear below 1 ms and logarithmic
    above it, so a run that never collected sits at a labelled 0, not at the panel's edge;
    one range for every collector's file."""
    gseries = [("list", POLICY_STYLE["list"], {})] + [(p, styles[p], {}) for p in policies]
    for r in rows:
        if r["collector"] != c or r["policy"] not in policies:
            continue
        if col(r, "gc_ms_policy") is not None:
            gseries[1 + policies.index(r["policy"])][2][r["workload"]] = (col(r, "gc_ms_policy"), None, True)
        if col(r, "gc_ms_list") is not None:
            gseries[0][2][r["workload"]] = (col(r, "gc_ms_list"), None, True)
    dot_rows(ax, labels, gseries, log=False, across=True)
    top = max([col(r, k) or 0 for r in rows for k in ("gc_ms_policy", "gc_ms_list")] + [1])
    ax.set_yscale("symlog", linthresh=1, linscale=0.5)
    ax.set_ylim(-0.35, top * 1.4)
    ticks = [0] + [t for t in (1, 3, 10, 30, 100, 300, 1000, 3000, 10000) if t <= top * 1.4]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.set_yticklabels([compact(t) for t in ticks])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylabel("GC time (ms)")
    ax.set_title("(b) GC time (ms; linear below 1, logarithmic above)", loc="left")


def fig_speedup_continuous(out_dir):
    fig_speedup(out_dir, "continuous")


# --- how requests were satisfied (the paper's Figure 10) --------------------------------

def recycling_workloads(rows):
    """The (workload, collector) pairs the analysis classified as recycling memory (its
    `recycling` column), or every pair when an older study lacks the column."""
    if not any(r.get("recycling") not in (None, "") for r in rows):
        return {(r["workload"], r["collector"]) for r in rows}, "all"
    return {(r["workload"], r["collector"]) for r in rows if truthy(r.get("recycling"))}, "recycling"


def fig_satisfied(out_dir):
    rows = need(out_dir, "satisfied.csv", lambda r: col(r, "requests"))
    workloads, kind = recycling_workloads(rows)
    if not workloads:
        raise Skip("satisfied.csv: no workload recycles memory")
    rows = [r for r in rows if (r["workload"], r["collector"]) in workloads]
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)
    outcomes = [(o, c) for o, c in OUTCOMES if any(col(r, f"{o}_pct") for r in rows)]
    sourced = any(col(r, "recycled_pct") is not None for r in rows)
    fig, axes = plt.subplots(len(collectors), 1, squeeze=False, sharex=True, layout="constrained",
                             figsize=(SINGLE, 0.45 + len(collectors) * (0.45 + 0.22 * len(policies))))
    for ax, c in zip(axes[:, 0], collectors):
        ps = [p for p in policies if any(r["policy"] == p and r["collector"] == c for r in rows)]
        for i, p in enumerate(ps):
            mine = [r for r in rows if r["policy"] == p and r["collector"] == c]
            # A policy whose every workload says where its immediate blocks came from gets
            # the two parts; one that does not track it, one "immediate" bar.
            split = all(col(r, "recycled_pct") is not None for r in mine)
            parts = [x for o in outcomes for x in (IMMEDIATE_SOURCES if o[0] == "immediate" and split else
                                                   [UNTRACKED] if o[0] == "immediate" and sourced else [o])]
            left = 0
            for o, colour in parts:
                v = statistics.fmean([col(r, f"{o}_pct") or 0 for r in mine])
                ax.barh(len(ps) - 1 - i, v, left=left, color=colour, height=0.7, edgecolor="white", lw=0.4,
                        hatch="////" if o == "leftover" else None)
                if v >= 12:
                    ax.text(left + v / 2, len(ps) - 1 - i, f"{v:.0f}", ha="center", va="center",
                            color="white" if colour in (BLUE, VERMILLION, BLACK, GREEN, PURPLE) else BLACK)
                left += v
        ax.set_yticks(range(len(ps)))
        ax.set_yticklabels(list(reversed(ps)))
        ax.set_xlim(0, 100)
        ax.grid(axis="y", visible=False)
        n = len({r["workload"] for r in rows if r["collector"] == c})
        ax.set_title(f"{c} collection: mean over {'all ' if kind == 'all' else ''}{n} "
                     f"{'recycling ' if kind == 'recycling' else ''}workload{'' if n == 1 else 's'}")
    axes[-1, 0].set_xlabel("% of requests (each workload weighs the same)")
    labels = {"recycled": "immediate: recycled (a free's block)", "leftover": "immediate: a split's leftover",
              "immediate": "immediate" + (" (source not tracked)" if sourced else "")}
    untracked = any(col(r, "recycled_pct") is None for r in rows)
    keys = [x for o in outcomes for x in ((IMMEDIATE_SOURCES + ([UNTRACKED] if untracked else []))
                                          if o[0] == "immediate" and sourced else [o])]
    legend_below(fig, [Patch(facecolor=c, label=labels.get(o, o), hatch="////" if o == "leftover" else None,
                             edgecolor="white") for o, c in keys], ncol=2)
    save(fig, out_dir, "fig-satisfied")


def tradeoff_rows(out_dir):
    """tradeoff.csv, or an older study's trade-off rows in summary.csv."""
    rows = read(out_dir, "tradeoff.csv")
    if rows:
        return rows, "tradeoff.csv"
    rows = [r for r in read(out_dir, "summary.csv") if r.get("kind") == "tradeoff"]
    if rows:
        return rows, "summary.csv"
    raise Skip("no tradeoff.csv (nor trade-off rows in summary.csv)")


def usable(r):
    return r.get("status", "ok") in ("", "ok", "found") or r.get("status") is None


def multiple_axis(ax, multiples):
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(multiples))
    ax.set_xticklabels([f"{m:g}" for m in multiples])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def fig_satisfied_vs_heap(out_dir):
    rows = need(out_dir, "tradeoff.csv", lambda r: col(r, "immediate_pct") is not None and col(r, "multiple"))
    rows = [r for r in rows if usable(r)] or rows
    sat = read(out_dir, "satisfied.csv")
    if sat:
        keep, kind = recycling_workloads(sat)
        rows = [r for r in rows if (r["workload"], r["collector"]) in keep] or rows
    else:
        kind = "all"
    kind = "all workloads" if kind == "all" else "the recycling workloads"
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)
    policies, styles = policy_series(rows)
    multiples = sorted({col(r, "multiple") for r in rows})
    fig, axes = plt.subplots(1, len(collectors), squeeze=False, sharey=True, layout="constrained",
                             figsize=(SINGLE if len(collectors) == 1 else DOUBLE, 2.4))
    any_iv = False
    for ax, c in zip(axes[0], collectors):
        for p in policies:
            mine = [r for r in rows if r["collector"] == c and r["policy"] == p]
            # Every multiple averages the same workloads: those run at all of them.
            common = set.intersection(*[{r["workload"] for r in mine if col(r, "multiple") == m}
                                        for m in multiples]) if mine else set()
            pts = []
            for m in multiples:
                vals = [col(r, "immediate_pct") for r in mine if col(r, "multiple") == m and r["workload"] in common]
                mean, lo, hi = mean_t(vals)
                if mean is not None:
                    pts.append((m, mean, lo, hi))
            if not pts:
                continue
            ax.plot([x for x, *_ in pts], [y for _, y, *_ in pts], **marker_kw(styles[p]))
            for m, _, lo, hi in pts:
                if lo is not None:
                    ax.plot([m, m], [max(lo, 0), min(hi, 100)], color=styles[p][0], lw=0.9)
                    any_iv = True
        multiple_axis(ax, multiples)
        ax.set_ylim(0, 100)
        ax.set_xlabel("heap / the policy's own minimum heap")
        ax.set_title(f"{c} collection")
    axes[0, 0].set_ylabel("immediate (% of requests)")
    fig.suptitle(f"Requests satisfied immediately against heap size: mean over {kind}"
                 + (f", {CONFIDENCE_LABEL} across workloads" if any_iv else ""))
    legend_below(fig, [handle(p, styles[p], line=True) for p in policies], ncol=len(policies))
    save(fig, out_dir, "fig-satisfied-vs-heap")


# --- request sizes (the paper's Figure 11) ----------------------------------------------

def size_label(s):
    return f"{s >> 20}M" if s >= 1 << 20 else f"{s >> 10}K" if s >= 1024 else str(s)


def fig_request_sizes(out_dir):
    rows = need(out_dir, "sizes.csv", lambda r: col(r, "size_class") and col(r, "fraction") is not None)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    classes = sorted({int(col(r, "size_class")) for r in rows})
    grid = [[None] * len(classes) for _ in workloads]
    first_policy = {}
    for r in rows:
        w = r["workload"]
        if first_policy.setdefault(w, r.get("policy")) != r.get("policy"):
            continue  # sizes are the program's: one policy's histogram stands for all
        f = col(r, "fraction")
        if f > 0:
            grid[workloads.index(w)][classes.index(int(col(r, "size_class")))] = 100 * f
    fig, ax = plt.subplots(figsize=(DOUBLE, 0.9 + 0.2 * len(workloads)), layout="constrained")
    data = [[v if v is not None else float("nan") for v in row] for row in grid]
    cmap = plt.get_cmap("Blues").copy()  # one hue: rare sizes pale, common ones dark
    cmap.set_bad("white")
    im = ax.imshow(data, cmap=cmap, norm=LogNorm(vmin=0.01, vmax=100), aspect="auto", interpolation="nearest")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v is not None and v >= 1:
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", color="white" if v >= 10 else BLACK)
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels([size_label(s) for s in classes])
    ax.set_yticks(range(len(workloads)))
    ax.set_yticklabels(workloads)
    ax.grid(False)
    ax.tick_params(length=0)
    ax.set_xlabel("request size class (bytes, rounded up to a power of two)")
    bar = fig.colorbar(im, ax=ax, shrink=0.6, pad=0.01)
    bar.set_label("% of requests (log)")
    ax.set_title("Request sizes by power-of-two class (numbers: % of the workload's requests, shown from 1%)")
    save(fig, out_dir, "fig-request-sizes")


# --- pauses and MMU ---------------------------------------------------------------------

# The clocks a pause is measured by: wall time, and (pause files of format 2) the
# thread's CPU time, which leaves out the time the host took away. (column suffix,
# label, line style)
PAUSE_CLOCKS = [("", "wall time", "-"), ("_cpu", "CPU time", "--")]


def pause_clocks(rows, key):
    """The clocks some row has `key{suffix}` for: wall time always, CPU time when measured."""
    return [c for c in PAUSE_CLOCKS if c[0] == "" or any(col(r, key.format(c[0])) is not None for r in rows)]


def fig_pauses(out_dir):
    rows = need(out_dir, "pause_summary.csv", lambda r: col(r, "max_ms") is not None)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)[:MAX_SERIES]
    clocks = pause_clocks(rows, "max{}_ms")
    styles = series_styles(collectors)
    series = [(c, clock) for c in collectors for clock in clocks]
    fig, ax = plt.subplots(figsize=(SINGLE, min(TALLEST, 0.9 + row_height(len(series)) * len(workloads))),
                           layout="constrained")
    n, step = len(workloads), min(0.8 / len(series), 0.3)
    for i in range(0, n, 2):
        ax.axhspan(n - 1 - i - 0.5, n - 1 - i + 0.5, color="#f2f2f2", lw=0, zorder=0)
    for k, (c, (suffix, _, linestyle)) in enumerate(series):
        dy = (k - (len(series) - 1) / 2) * step
        for i, w in enumerate(workloads):
            r = next((r for r in rows if r["workload"] == w and r["collector"] == c), None)
            top = col(r, f"max{suffix}_ms")
            if not r or not top:
                continue
            y = n - 1 - i - dy
            lo = col(r, f"p50{suffix}_ms") or top
            ax.plot([max(lo, 1e-4), top], [y, y], color=styles[c][0], lw=0.9, linestyle=linestyle, zorder=2)
            if col(r, f"p99{suffix}_ms"):
                ax.plot([col(r, f"p99{suffix}_ms")], [y], linestyle="none", zorder=3,
                        **marker_kw(styles[c], filled=suffix == ""))
            ax.plot([top], [y], linestyle="none", marker="|", color=styles[c][0], markersize=6)
    ax.set_xscale("log")
    ax.set_yticks(range(n))
    ax.set_yticklabels(list(reversed(workloads)))
    ax.set_ylim(-0.6, n - 0.4)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("GC pause (ms, log)")
    by = " by " + " and ".join(label for _, label, _ in clocks) if len(clocks) > 1 else ""
    ax.set_title(f"GC pauses{by}: median to maximum (line),\n99th percentile (marker)")
    handles = [handle(c, styles[c]) for c in collectors]
    if len(clocks) > 1:
        handles += [Line2D([], [], color="#777777", linestyle=ls, label=label) for _, label, ls in clocks]
    legend_below(fig, handles, ncol=len(handles))
    save(fig, out_dir, "fig-pauses")


def representative(workloads_by_weight, k):
    return [w for w, _ in sorted(workloads_by_weight.items(), key=lambda x: -x[1])[:k]]


def fig_mmu(out_dir):
    rows = need(out_dir, "mmu.csv", lambda r: col(r, "window_ms") and col(r, "mmu") is not None)
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)
    clocks = [("mmu" + suffix, label, ls) for suffix, label, ls in pause_clocks(rows, "mmu{}")]
    # The workloads that pause longest in all (the pause summary's total), at most six.
    weight = {}
    for r in read(out_dir, "pause_summary.csv"):
        weight[r["workload"]] = weight.get(r["workload"], 0) + (col(r, "total_ms") or 0)
    for r in rows:
        weight.setdefault(r["workload"], 0)
    chosen = representative(weight, 6)
    chosen = [w for w in dict.fromkeys(r["workload"] for r in rows) if w in chosen]
    styles = series_styles(chosen)
    fig, axes = plt.subplots(1, len(collectors), squeeze=False, sharey=True, layout="constrained",
                             figsize=(SINGLE if len(collectors) == 1 else DOUBLE, 2.4))
    for ax, c in zip(axes[0], collectors):
        for w in chosen:
            mine = [r for r in rows if r["workload"] == w and r["collector"] == c]
            first = min((r.get("repeat", "0") for r in mine), default=None)
            for key, _, linestyle in clocks:
                pts = sorted((col(r, "window_ms"), col(r, key)) for r in mine
                             if r.get("repeat", "0") == first and col(r, key) is not None)
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle=linestyle,
                            **marker_kw(styles[w], filled=key == "mmu", size=3.5))
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("window (ms, log)")
        ax.set_title(f"{c} collection")
    axes[0, 0].set_ylabel("minimum mutator utilization")
    subset = f"the {len(chosen)} workloads with the most GC pause time" if len(weight) > len(chosen) else ""
    by = " by " + " (solid) and ".join(label for _, label, _ in clocks) + " (dashed)" if len(clocks) > 1 else ""
    fig.suptitle("Minimum mutator utilization" + (f": {subset}" if subset else "") + by + " (one run each)")
    legend_below(fig, [handle(w, styles[w], line=True) for w in chosen],
                 ncol=min(len(chosen), 3 if len(collectors) == 1 else 6))
    save(fig, out_dir, "fig-mmu")


# --- time and space ---------------------------------------------------------------------

def fig_time_space(out_dir):
    """(a) time relative to each workload's fastest configuration, (b) speedup over list at the
    same multiple, each a geometric mean over the workloads with its 95% interval across them;
    (b) says how many of the per-workload tests against list are significant (Holm), and a
    point with any marks them: filled where some are, hollow where none is."""
    rows = need(out_dir, "tradeoff_summary.csv",
                lambda r: col(r, "geomean_relative_time") and col(r, "multiple"))
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)
    policies, styles = policy_series(rows)
    multiples = sorted({col(r, "multiple") for r in rows})
    versus = [p for p in policies if p != "list" and any(col(r, "geomean_speedup_vs_list") for r in rows
                                                          if r["policy"] == p)]
    n_rows = 2 if versus else 1
    fig, axes = plt.subplots(n_rows, len(collectors), squeeze=False, sharey="row", layout="constrained",
                             figsize=(SINGLE if len(collectors) == 1 else DOUBLE, 2.5 * n_rows))
    any_iv = False
    tested = faster = slower = 0

    def dodged(r, p, among):  # the policies' intervals side by side at each multiple, not on top of each other
        return col(r, "multiple") * 1.025 ** (among.index(p) - (len(among) - 1) / 2)

    for j, c in enumerate(collectors):
        ax = axes[0][j]
        for p in policies:
            mine = sorted((r for r in rows if r["collector"] == c and r["policy"] == p),
                          key=lambda r: col(r, "multiple"))
            if not mine:
                continue
            ax.plot([dodged(r, p, policies) for r in mine], [col(r, "geomean_relative_time") for r in mine],
                    **marker_kw(styles[p]))
            for r in mine:
                iv = interval(r, "ci_low", "ci_high", "workloads")
                if iv:
                    ax.plot([dodged(r, p, policies)] * 2, iv, color=styles[p][0], lw=0.9)
                    any_iv = True
        ax.axhline(1, color="#555555", lw=0.8)
        multiple_axis(ax, multiples)
        n = max((col(r, "workloads") or 0 for r in rows if r["collector"] == c), default=0)
        ax.set_title(f"(a) time, {c} collection" + (f" ({n:.0f} workloads)" if n else ""))
        if not versus:
            ax.set_xlabel("heap / the policy's own minimum heap")
            continue
        ax = axes[1][j]
        for p in versus:
            mine = sorted((r for r in rows if r["collector"] == c and r["policy"] == p
                           and col(r, "geomean_speedup_vs_list")), key=lambda r: col(r, "multiple"))
            ax.plot([dodged(r, p, versus) for r in mine], [col(r, "geomean_speedup_vs_list") for r in mine],
                    color=styles[p][0], lw=1.0)
            for r in mine:
                m, significant = dodged(r, p, versus), (col(r, "faster") or 0) + (col(r, "slower") or 0)
                tested += col(r, "tested") or 0
                faster += col(r, "faster") or 0
                slower += col(r, "slower") or 0
                ax.plot([m], [col(r, "geomean_speedup_vs_list")], linestyle="none",
                        **marker_kw(styles[p], filled=significant > 0 or col(r, "tested") is None))
                iv = interval(r, "speedup_ci_low", "speedup_ci_high", "workloads")
                if iv:
                    ax.plot([m] * 2, iv, color=styles[p][0], lw=0.9)
                    any_iv = True
        ax.axhline(1, color="#555555", lw=0.8)
        multiple_axis(ax, multiples)
        ax.set_xlabel("heap / the policy's own minimum heap")
        ax.set_title(f"(b) speedup over list at the same multiple, {c}")
    axes[0, 0].set_ylabel("run time / best policy's\n(geometric mean)")
    if versus:
        axes[1, 0].set_ylabel("speedup over list\n(geometric mean; >1: faster)")
    tests = (f"\n(b) per workload, {faster:.0f} of {tested:.0f} tests faster than list and {slower:.0f} slower "
             f"after Holm; filled: some significant" if tested else "")
    fig.suptitle("Time against space at multiples of each policy's own minimum heap"
                 + (f"; {CONFIDENCE_LABEL} across workloads" if any_iv else "") + tests)
    legend_below(fig, [handle(p, styles[p], line=True) for p in policies], ncol=len(policies))
    save(fig, out_dir, "fig-time-space")


def fig_time_space_workloads(out_dir):
    rows, source = tradeoff_rows(out_dir)
    rows = [r for r in rows if usable(r) and col(r, "multiple") and col(r, "wall_s_mean")]
    if not rows:
        raise Skip(f"{source} has no finished trade-off runs")
    collectors = ordered([r["collector"] for r in rows], COLLECTOR_ORDER)[:2]
    per = max(1, 6 // len(collectors))
    # Where collection matters most: the largest share of run time spent in GC.
    share = {}
    for r in rows:
        s = (col(r, "gc_ms_mean") or 0) / 1000 / col(r, "wall_s_mean")
        share[r["workload"]] = max(share.get(r["workload"], 0), s)
    chosen = [w for w in dict.fromkeys(r["workload"] for r in rows) if w in representative(share, per)]
    policies, styles = policy_series(rows)
    multiples = sorted({col(r, "multiple") for r in rows})
    fig, axes = plt.subplots(len(chosen), len(collectors), squeeze=False, layout="constrained",
                             figsize=(SINGLE if len(collectors) == 1 else DOUBLE, 0.6 + 1.75 * len(chosen)))
    any_iv = False
    for i, w in enumerate(chosen):
        for j, c in enumerate(collectors):
            ax = axes[i][j]
            for p in policies:
                mine = sorted((r for r in rows if r["workload"] == w and r["collector"] == c and r["policy"] == p),
                              key=lambda r: col(r, "multiple"))
                if not mine:
                    continue
                ax.plot([col(r, "multiple") for r in mine], [1000 * col(r, "wall_s_mean") for r in mine],
                        **marker_kw(styles[p], size=3.5))
                for r in mine:
                    iv = interval(r, "wall_s_ci_low", "wall_s_ci_high", "runs")
                    if iv:
                        ax.plot([col(r, "multiple")] * 2, [1000 * iv[0], 1000 * iv[1]], color=styles[p][0], lw=0.9)
                        any_iv = True
            multiple_axis(ax, multiples)
            ax.set_title(f"{w}, {c}")
            if j == 0:
                ax.set_ylabel("run time (ms)")
            if i == len(chosen) - 1:
                ax.set_xlabel("heap / own minimum heap" if source == "tradeoff.csv" else "heap / minimum heap")
    fig.suptitle(f"Run time against heap size: the {len(chosen)} workloads with the largest GC share"
                 f" ({'mean, ' + CONFIDENCE_LABEL if any_iv else 'single run, no interval'})")
    legend_below(fig, [handle(p, styles[p], line=True) for p in policies], ncol=len(policies))
    save(fig, out_dir, "fig-time-space-workloads")


# --- minimum heap and fragmentation -----------------------------------------------------

def fig_min_heap(out_dir):
    rows = need(out_dir, "minheap.csv", lambda r: col(r, "min_heap_bytes"))
    collectors = ordered([r.get("collector", "") for r in rows], COLLECTOR_ORDER)
    rows = [r for r in rows if r.get("collector", "") == collectors[0]]
    frag = {(r["workload"], r["policy"]): r for r in read(out_dir, "fragmentation.csv")}
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies, styles = policy_series(rows)
    panels = [("minimum heap (MiB, log)", lambda r, f: mib(col(r, "min_heap_bytes")), True, None),
              ("minimum heap / peak live (log)",
               lambda r, f: col(r, "min_heap_over_live") or col(f, "fragmentation"), True, 1.0)]
    if any(col(f, "internal_pct") is not None for f in frag.values()):
        panels.append(("internal fragmentation (%)", lambda r, f: col(f, "internal_pct"), False, None))
    # Stacked, workloads across: a page's width holds every workload, and the figure fits
    # under FIGURE_MAX_HEIGHT (tests/study/figure_files.py).
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                             figsize=(DOUBLE, 1.45 + 1.1 * len(panels)), layout="constrained")
    for ax, (label, value, log, ref) in zip(axes[:, 0], panels):
        series = []
        for p in policies:
            pts = {}
            for r in rows:
                if r["policy"] == p:
                    v = value(r, frag.get((r["workload"], p)))
                    if v is not None:
                        pts[r["workload"]] = (v, None, True)
            series.append((p, styles[p], pts))
        dot_rows(ax, workloads, series, log=log, reference=ref, across=True)
        if ref == 1.0:
            ratio_axis(ax, *limits_of(series), axis="y")
        ax.set_ylabel(label.split(" (")[1].rstrip(")"))
        ax.set_title(f"({'abc'[panels.index((label, value, log, ref))]}) {label.split(' (')[0]}", loc="left")
    fig.suptitle(f"Minimum heap per workload and policy ({collectors[0] or 'occasional'} collection)")
    legend_below(fig, [handle(p, styles[p]) for p in policies], ncol=len(policies))
    save(fig, out_dir, "fig-min-heap")


# --- exact allocator cost and replay time -----------------------------------------------

COST_PANEL_HEIGHT = 1.3  # in: one panel of a cost figure, workloads across


def cost_figure(out_dir, name, rows, metrics, title, collectors):
    """Dot panels stacked, a panel per metric and collector (of `collectors`): workloads left
    to right and a geometric-mean column over the same workloads for every policy. A
    metric's value axis has one range in every file drawn from the same rows."""
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies, styles = policy_series(rows)
    geo = "geomean"
    labels = workloads + [geo]
    panels = [(m, c) for c in collectors for m in metrics]
    fig, axes = plt.subplots(len(panels), 1, squeeze=False, sharex=True, layout="constrained",
                             figsize=(DOUBLE, 1.45 + COST_PANEL_HEIGHT * len(panels)))
    any_iv = False
    for i, (ax, ((key, what, label, low, high), c)) in enumerate(zip(axes[:, 0], panels)):
        mine = [r for r in rows if r.get("collector", "") == c and (col(r, key) or 0) > 0]
        series = [(p, styles[p], {r["workload"]: (col(r, key), interval(r, low, high, "repeats") if low else None,
                                                  True) for r in mine if r["policy"] == p}) for p in policies]
        common, fewer = same_set(series, ran_everywhere(rows, c))
        for _, _, pts in series:
            xs = [pts[w][0] for w in common if w in pts]
            if len(xs) >= 2:
                pts[geo] = (stats.geomean_ci(xs)[0], None, True)
        any_iv |= dot_rows(ax, labels, series, summary_label=geo, across=True)
        everywhere = [col(r, key) for r in rows if (col(r, key) or 0) > 0]
        ax.set_ylim(min(everywhere) / 1.4, max(everywhere) * 1.4)
        ax.set_ylabel(label)
        what = ", ".join(x for x in (what, f"{c} collection" if c else "") if x)
        ax.set_title(f"({'abcdefgh'[i]}) {what}; {geomean_note(common, fewer)}", loc="left")
    fig.suptitle(title.format(ci=ci_note(any_iv)))
    legend_below(fig, [handle(p, styles[p]) for p in policies], ncol=len(policies))
    save(fig, out_dir, name)


ALLOC_COST_METRICS = [("ir_per_malloc", "malloc", "instructions (log)", None, None),
                      ("ir_per_free", "free", "instructions (log)", None, None)]


def fig_alloc_cost(out_dir, which="first"):
    rows = need(out_dir, "alloc_cost.csv", lambda r: col(r, "ir_per_malloc") is not None)
    c = the_collector(rows, which)
    cost_figure(out_dir, "fig-alloc-cost" if which == "first" else f"fig-alloc-cost-{c}", rows, ALLOC_COST_METRICS,
                "The allocator's own instructions per request (callgrind, baseline subtracted; exact counts)", [c])


def fig_alloc_cost_continuous(out_dir):
    fig_alloc_cost(out_dir, "continuous")


def fig_alloc_misses(out_dir):
    rows = need(out_dir, "alloc_cost.csv", lambda r: col(r, "d1_per_malloc") is not None)
    metrics = [(k, f"{lvl} misses per {op}") for k, lvl, op in
               (("d1_per_malloc", "D1", "malloc"), ("d1_per_free", "D1", "free"),
                ("ll_per_malloc", "LL", "malloc"), ("ll_per_free", "LL", "free")) if any(col(r, k) is not None
                                                                                        for r in rows)]
    collectors = ordered([r.get("collector", "") for r in rows], COLLECTOR_ORDER)
    policies, styles = policy_series(rows)
    # Compact: a row per policy, a small grey dot per workload, the policy's marker at the mean.
    fig, axes = plt.subplots(len(collectors), len(metrics), squeeze=False, sharey=True, layout="constrained",
                             figsize=(DOUBLE, 0.6 + len(collectors) * (0.5 + 0.22 * len(policies))))
    for i, c in enumerate(collectors):
        for j, (key, label) in enumerate(metrics):
            ax = axes[i][j]
            for k, p in enumerate(policies):
                vals = [col(r, key) for r in rows if r.get("collector", "") == c and r["policy"] == p
                        and col(r, key) is not None]
                y = len(policies) - 1 - k
                if vals:
                    ax.plot(vals, [y] * len(vals), linestyle="none", marker="|", color="#888888", markersize=6)
                    ax.plot([statistics.fmean(vals)], [y], linestyle="none", **marker_kw(styles[p], size=5))
            ax.set_yticks(range(len(policies)))
            ax.set_yticklabels(list(reversed(policies)))
            ax.set_ylim(-0.6, len(policies) - 0.4)
            ax.set_xlim(left=0)
            ax.grid(axis="y", visible=False)
            if j == 0 and len(collectors) > 1:
                ax.set_title(c, loc="left")
            if i == len(collectors) - 1:
                ax.set_xlabel(label)
    fig.suptitle("Simulated cache misses per request (callgrind cache simulation, exact; ticks: workloads, marker: their mean)")
    save(fig, out_dir, "fig-alloc-misses")


def fig_replay_time(out_dir):
    rows = need(out_dir, "replay_time.csv", lambda r: col(r, "ns_per_event_mean") and col(r, "ns_per_event_mean") > 0)
    metrics = [("ns_per_event_mean", "", "ns per malloc or free (log)", "ci_low", "ci_high")]
    cost_figure(out_dir, "fig-replay-time", rows, metrics, "Wall-clock replay of each policy's own trace: mean, {ci}",
                ordered([r.get("collector", "") for r in rows], COLLECTOR_ORDER))


# --- demographics -----------------------------------------------------------------------

def fig_lifetimes(out_dir):
    rows = need(out_dir, "lifetimes.csv", lambda r: col(r, "age_bytes_le") is not None
                and col(r, "cum_fraction_objects") is not None)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    per = math.ceil(len(workloads) / math.ceil(len(workloads) / MAX_SERIES))  # balanced panels
    groups = [workloads[i:i + per] for i in range(0, len(workloads), per)]
    has_bytes = any(col(r, "cum_fraction_bytes") is not None for r in rows)
    kinds = [("cum_fraction_objects", "objects")] + ([("cum_fraction_bytes", "bytes")] if has_bytes else [])
    fig, axes = plt.subplots(len(groups), len(kinds) + 1, squeeze=False, sharex=True, sharey=True,
                             figsize=(DOUBLE, 0.5 + 2.0 * len(groups)),
                             layout="constrained", gridspec_kw={"width_ratios": [1] * len(kinds) + [0.45]})
    for g, group in enumerate(groups):
        styles = series_styles(group)
        for k, (key, what) in enumerate(kinds):
            ax = axes[g][k]
            for w in group:
                pts = sorted((max(col(r, "age_bytes_le"), 1), col(r, key)) for r in rows
                             if r["workload"] == w and col(r, key) is not None)
                if pts:
                    ax.step([x for x, _ in pts], [y for _, y in pts], where="post", color=styles[w][0], lw=1)
                    mark = pts[:: max(1, len(pts) // 6)]
                    ax.plot([x for x, _ in mark], [y for _, y in mark], linestyle="none",
                            **marker_kw(styles[w], size=3.5))
            ax.set_xscale("log")
            ax.set_ylim(-0.02, 1.02)
            if g == 0:
                ax.set_title(f"fraction of {what} dead by age x")
            if g == len(groups) - 1:
                ax.set_xlabel("age at death (bytes allocated since birth, log)")
        axes[g][0].set_ylabel("cumulative fraction")
        leg = axes[g][-1]
        leg.axis("off")
        leg.legend(handles=[handle(w, styles[w], line=True) for w in group], loc="center left", borderaxespad=0)
    fig.suptitle("Object lifetimes (cumulative distributions)")
    save(fig, out_dir, "fig-lifetimes")


def fig_frag_timeline(out_dir):
    # The occasional runs (a timeline without a collector column has no others): one line per policy.
    rows = need(out_dir, "frag_timeline.csv", lambda r: col(r, "free") and col(r, "largest_free") is not None
                and col(r, "bytes_allocated") is not None and r.get("collector") in (None, "", "occasional"))
    ratio = {}
    for r in rows:
        ratio.setdefault(r["workload"], []).append(col(r, "largest_free") / col(r, "free"))
    # The most fragmented workloads: the lowest mean largest-free-block share.
    chosen = [w for w, _ in sorted(ratio.items(), key=lambda x: statistics.fmean(x[1]))[:6]]
    chosen = [w for w in dict.fromkeys(r["workload"] for r in rows) if w in chosen]
    policies, styles = policy_series(rows)
    cols = 1 if len(chosen) == 1 else 2 if len(chosen) <= 4 else 3
    nrows = math.ceil(len(chosen) / cols)
    fig, axes = plt.subplots(nrows, cols, squeeze=False, sharey=True, layout="constrained",
                             figsize=(SINGLE if cols == 1 else DOUBLE, 0.7 + 1.8 * nrows))
    for ax in axes.flat[len(chosen):]:
        ax.axis("off")
    for ax, w in zip(axes.flat, chosen):
        for p in policies:
            pts = sorted((mib(col(r, "bytes_allocated")), col(r, "largest_free") / col(r, "free")) for r in rows
                         if r["workload"] == w and r["policy"] == p)
            if pts:
                every = max(1, len(pts) // 8)
                ax.plot([x for x, _ in pts], [y for _, y in pts], color=styles[p][0], lw=0.9)
                ax.plot([x for x, _ in pts[::every]], [y for _, y in pts[::every]], linestyle="none",
                        **marker_kw(styles[p], size=3.5))
        ax.set_ylim(-0.02, 1.05)
        ax.set_title(w)
        ax.set_xlabel("allocated so far (MiB)")
    for row in axes:
        row[0].set_ylabel("largest free block /\nall free bytes")
    fig.suptitle(f"Fragmentation at each collection: the {len(chosen)} workloads with the smallest"
                 " largest-block share" if len(ratio) > len(chosen) else "Fragmentation at each collection")
    legend_below(fig, [handle(p, styles[p], line=True) for p in policies], ncol=len(policies))
    save(fig, out_dir, "fig-frag-timeline")


def fig_alloc_rate(out_dir):
    rows = need(out_dir, "alloc_rate.csv", lambda r: col(r, "mb_per_s") and col(r, "mb_per_s") > 0)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    collectors = ordered([r.get("collector", "") for r in rows], COLLECTOR_ORDER)[:MAX_SERIES]
    styles = series_styles(collectors)
    # The rate is the program's; policies differ only a little: their median, and their range.
    series, ranges = [], False
    for c in collectors:
        pts = {}
        for w in workloads:
            vals = [col(r, "mb_per_s") for r in rows if r["workload"] == w and r.get("collector", "") == c]
            if vals:
                spread = (min(vals), max(vals)) if len(vals) > 1 else None
                ranges |= spread is not None
                pts[w] = (statistics.median(vals), spread, True)
        series.append((c or "all runs", styles[c], pts))
    fig, ax = plt.subplots(figsize=(SINGLE, 0.9 + row_height(len(collectors)) * len(workloads)), layout="constrained")
    dot_rows(ax, workloads, series)
    ax.set_xlabel("MB allocated per second of mutator time (log)")
    ax.set_title("Allocation rate"
                 + (": median over policies,\nline from the slowest to the fastest" if ranges else ""))
    legend_below(fig, [handle(name, style) for name, style, _ in series], ncol=len(series))
    save(fig, out_dir, "fig-alloc-rate")


FIGURES = [
    ("fig-worst-case-request", fig_worst_case_request),
    ("fig-speedup", fig_speedup),
    ("fig-speedup-continuous", fig_speedup_continuous),
    ("fig-satisfied", fig_satisfied),
    ("fig-satisfied-vs-heap", fig_satisfied_vs_heap),
    ("fig-request-sizes", fig_request_sizes),
    ("fig-pauses", fig_pauses),
    ("fig-mmu", fig_mmu),
    ("fig-time-space", fig_time_space),
    ("fig-time-space-workloads", fig_time_space_workloads),
    ("fig-min-heap", fig_min_heap),
    ("fig-alloc-cost", fig_alloc_cost),
    ("fig-alloc-cost-continuous", fig_alloc_cost_continuous),
    ("fig-alloc-misses", fig_alloc_misses),
    ("fig-replay-time", fig_replay_time),
    *plot_predicted.figures(sys.modules[__name__]),  # predicted against measured change
    ("fig-lifetimes", fig_lifetimes),
    ("fig-frag-timeline", fig_frag_timeline),
    ("fig-alloc-rate", fig_alloc_rate),
]
FIGURES += size_class_plot.figures(sys.modules[__name__])  # free bytes in the requested class


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m study plot STUDY_DIR", file=sys.stderr)
        return 2
    out_dir = argv[0]
    if not os.path.isdir(out_dir):
        print(f"plot_study.py: {out_dir}: no such directory", file=sys.stderr)
        return 2
    builds = read(out_dir, "builds.csv")
    DRAFT["stamp"] = builds[0].get("draft", "") if builds else ""
    failed = 0
    for name, draw in FIGURES:
        try:
            draw(out_dir)
            continue
        except Skip as e:
            print(f"plot_study.py: {name} skipped: {e}", file=sys.stderr)
        except Exception as e:  # one broken figure must not cost the others
            failed += 1
            print(f"plot_study.py: {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
        plt.close("all")
        for path in figure_paths(out_dir, name):  # no stale copy from an earlier study
            if os.path.exists(path):
                os.remove(path)
    return 1 if failed else 0

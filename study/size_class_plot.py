"""The figures of study/size_class_free.py, drawn by study/plot_study.py from the CSVs alone.

  fig-size-class-free  small multiples, one panel per workload with at least MIN_CYCLES
                       collections: the free bytes in the requested class after each
                       collection (size_class_free.csv), knuth against estranged, one line
                       style per collector, on a log axis (symmetric: zero is drawn as zero)
  fig-size-class-gap   (a) estranged's requested-class free bytes over knuth's, over the run,
                       against the difference in requests met immediately; (b) the same
                       difference against the coverage difference, with the line the
                       split floor predicts (size_class_summary.csv; r from
                       size_class_correlation.csv)

figures(ps) returns [(name, draw)] for plot_study.py's FIGURES; ps is plot_study itself,
whose helpers (reading, styles, saving) these use, so every figure looks alike."""

import math

from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

MIN_CYCLES = 3          # a panel needs a line: at least three collections
COLUMNS = 5             # panels per row: 7 in wide, so each is 1.4 in
LINEAR_BELOW = 16       # the symmetric log axis is linear below one 16-byte block
COLLECTOR_LINES = {"occasional": "-", "continuous": "--"}
POLICIES = ("knuth", "estranged")


def figures(ps):
    return [("fig-size-class-free", lambda out_dir: draw_free(ps, out_dir)),
            ("fig-size-class-gap", lambda out_dir: draw_gap(ps, out_dir))]


def draw_free(ps, out_dir):
    rows = ps.need(out_dir, "size_class_free.csv",
                   lambda r: ps.col(r, "requested_class_free_bytes") is not None and r["policy"] in POLICIES)
    runs = {}
    for r in rows:
        runs.setdefault((r["workload"], r["collector"], r["policy"]), []).append(
            (ps.col(r, "cycle"), ps.col(r, "requested_class_free_bytes")))
    workloads = [w for w in dict.fromkeys(k[0] for k in runs)
                 if max(len(v) for k, v in runs.items() if k[0] == w) >= MIN_CYCLES]
    if not workloads:
        raise ps.Skip(f"no workload has {MIN_CYCLES} collections")
    collectors = ps.ordered([k[1] for k in runs], ps.COLLECTOR_ORDER)
    cols = min(COLUMNS, len(workloads))
    nrows = math.ceil(len(workloads) / cols)
    fig, axes = ps.plt.subplots(nrows, cols, squeeze=False, sharey=True, layout="constrained",
                                figsize=(ps.DOUBLE if cols > 2 else ps.SINGLE, 0.6 + 1.15 * nrows))
    for ax in axes.flat[len(workloads):]:
        ax.axis("off")
    styles = ps.policy_styles(list(POLICIES))
    top = max(y for v in runs.values() for _, y in v)
    for ax, w in zip(axes.flat, workloads):
        for c in collectors:
            for p in POLICIES:
                pts = sorted(runs.get((w, c, p), []))
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], color=styles[p][0],
                            linestyle=COLLECTOR_LINES.get(c, ":"), lw=0.9)
        ax.set_title(w, pad=2)
        ax.set_yscale("symlog", linthresh=LINEAR_BELOW, linscale=0.3)
        ax.set_ylim(0, top * 2)
        decades = int(math.log10(max(top, 10)))
        ticks = [0] + [10 ** k for k in range(decades % 2 or 2, decades + 1, 2 if decades > 4 else 1)]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_major_formatter(FuncFormatter(ps.compact))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(3, integer=True))
        ax.xaxis.set_major_formatter(FuncFormatter(ps.compact))
    for row in axes:
        row[0].set_ylabel("free bytes in the\nrequested class")
    for ax in axes[-1]:
        ax.set_xlabel("collection")
    fig.suptitle("Free bytes in the requested class after each collection (symmetric log scale)")
    handles = [Line2D([], [], color=styles[p][0], lw=1.2, label=p) for p in POLICIES]
    if len(collectors) > 1:
        handles += [Line2D([], [], color=ps.BLACK, linestyle=COLLECTOR_LINES.get(c, ":"), lw=1, label=c)
                    for c in collectors]
    ps.legend_below(fig, handles, ncol=len(handles))
    ps.save(fig, out_dir, "fig-size-class-free")


def correlation_text(ps, out_dir, collector, x):
    """'r = 0.94, ρ = 0.88, n = 19' from size_class_correlation.csv, or ''."""
    for r in ps.read(out_dir, "size_class_correlation.csv"):
        if r["collector"] == collector and r["x"] == x and ps.col(r, "pearson_r") is not None:
            return f"r = {ps.col(r, 'pearson_r'):.2f}, ρ = {ps.col(r, 'spearman_rho'):.2f}, n = {r['n']}"
    return ""


def draw_gap(ps, out_dir):
    rows = ps.need(out_dir, "size_class_summary.csv", lambda r: ps.col(r, "immediate_diff") is not None)
    collectors = ps.ordered([r["collector"] for r in rows], ps.COLLECTOR_ORDER)
    styles = {c: (ps.BLACK, "o") for c in collectors}  # filled: the first collector, open: the others
    fig, axes = ps.plt.subplots(1, 2, figsize=(ps.DOUBLE, 2.9), layout="constrained", sharey=True)
    panels = [(axes[0], "log10_ratio_run", lambda v: 10 ** v,
               "estranged / knuth, requested-class free bytes over the run (log)"),
              (axes[1], "coverage_diff", lambda v: v, "coverage, estranged minus knuth")]
    for ax, key, to_x, label in panels:
        notes = []
        for c in collectors:
            pts = [(to_x(ps.col(r, key)), ps.col(r, "immediate_diff"), r["workload"]) for r in rows
                   if r["collector"] == c and ps.col(r, key) is not None]
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], linestyle="none",
                    **ps.marker_kw(styles[c], filled=c == collectors[0]))
            if c == collectors[0]:
                label_points(ax, pts, log=key.startswith("log"))
            text = correlation_text(ps, out_dir, c, key)
            if text:
                notes.append(f"{c}: {text}" if len(collectors) > 1 else text)
        ax.set_xlabel(label)
        ax.set_title("\n".join(notes) if notes else "", loc="left")
        if key.startswith("log"):
            ax.set_xscale("log")
    axes[1].plot([0, 1], [0, 50], color=ps.BLACK, lw=0.6, linestyle=":")
    axes[1].annotate("dotted: the split floor's prediction,\nhalf the coverage difference", (0.98, 0.04),
                     xycoords="axes fraction", ha="right", va="bottom")
    axes[0].set_ylabel("immediate, estranged minus\nknuth (percentage points)")
    handles = [Line2D([], [], linestyle="none", label=c, **ps.marker_kw(styles[c], filled=c == collectors[0]))
               for c in collectors] if len(collectors) > 1 else []
    ps.legend_below(fig, handles, ncol=len(handles))
    fig.suptitle("What explains estranged's immediate advantage (each point a workload)")
    ps.save(fig, out_dir, "fig-size-class-gap")


def label_points(ax, pts, log):
    """Names beside the points, skipping one that would sit on a name already placed."""
    placed = []
    xs = [math.log10(x) if log else x for x, _, _ in pts if not log or x > 0]
    ys = [y for _, y, _ in pts]
    if not xs:
        return
    span_x, span_y = (max(xs) - min(xs)) or 1, (max(ys) - min(ys)) or 1
    for x, y, name in sorted(pts, key=lambda p: -p[1]):
        if log and x <= 0:
            continue
        u, v = ((math.log10(x) if log else x) - min(xs)) / span_x, (y - min(ys)) / span_y
        if any(abs(u - a) < 0.15 and abs(v - b) < 0.07 for a, b in placed):
            continue
        placed.append((u, v))
        ax.annotate(name, (x, y), xytext=(3, 1), textcoords="offset points", fontsize=8)

#!/usr/bin/python3
"""Draws the study's figures from its CSV files alone: `/usr/bin/python3 study/plot_study.py DIR`.

Reads DIR/{workloads,contrived_summary,speedup,satisfied,sizes,pauses,mmu,summary,minheap,
fragmentation}.csv (written by kith_study.py) and writes DIR/figures/figN-*.png and .svg. A
figure whose CSV has no rows is still written, saying so, so that every figure file exists.
Needs matplotlib (Debian: python3-matplotlib; scripts/setup installs it).
"""

import csv
import math
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_study.py: matplotlib is missing (apt-get install python3-matplotlib; scripts/setup does it)")

POLICY_ORDER = ["list", "knuth", "estranged", "tlsf", "kingsley", "lea", "malloc", "boehm"]
COLLECTOR_STYLE = {"occasional": "-", "continuous": "--", "none": ":"}
OUTCOMES = [("immediate", "#4c72b0"), ("split", "#dd8452"), ("glue", "#55a868"), ("defrag", "#c44e52"),
            ("failed", "#333333")]
PAPER_CONTRIVED_SPEEDUP = 72  # the paper's Figure 8

plt.rcParams.update({"font.size": 8, "axes.titlesize": 9, "figure.dpi": 110, "svg.hashsalt": "kith-study",
                     "axes.grid": True, "grid.alpha": 0.3})


def read(out_dir, name):
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def ordered(values, order):
    values = list(dict.fromkeys(values))
    return sorted(values, key=lambda v: (order.index(v) if v in order else len(order), v))


def colour(policy):
    cmap = plt.get_cmap("tab10")
    i = POLICY_ORDER.index(policy) if policy in POLICY_ORDER else len(POLICY_ORDER)
    return cmap(i % 10)


def save(fig, out_dir, name):
    d = os.path.join(out_dir, "figures")
    os.makedirs(d, exist_ok=True)
    fig.savefig(os.path.join(d, name + ".png"), bbox_inches="tight", metadata={"Software": None})
    fig.savefig(os.path.join(d, name + ".svg"), bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)


def empty(out_dir, name, title, why):
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.set_title(title)
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    save(fig, out_dir, name)


def grid(n, cols, w=3.6, h=2.6):
    cols = max(1, min(cols, n))
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for a in flat[n:]:
        a.axis("off")
    return fig, flat[:n]


def mib(x):
    return x / (1 << 20)


# --- 1 ----------------------------------------------------------------------------------

def fig_workloads(out_dir):
    name, title = "fig1-workloads", "Workloads (cf. the paper's Figure 7)"
    rows = read(out_dir, "workloads.csv")
    if not rows:
        return empty(out_dir, name, title, "no workload runs")
    cells = []
    for r in rows:
        objects, byts = num(r["objects"]), num(r["bytes"])
        mean, live, t = num(r["mean_object_bytes"]), num(r["peak_live_bytes"]), num(r["run_time_s"])
        cells.append([r["workload"], r["args"], f"{objects:,.0f}" if objects is not None else "",
                      f"{mib(byts):,.1f} MiB" if byts is not None else "", f"{mean:.1f}" if mean else "",
                      f"{mib(live):,.2f} MiB" if live else "", f"{t:.3f}" if t is not None else ""])
    fig, ax = plt.subplots(figsize=(9, 0.45 + 0.28 * len(cells)))
    ax.axis("off")
    ax.set_title(title)
    table = ax.table(cellText=cells, colLabels=["workload", "args", "objects", "bytes requested", "mean size (B)",
                                                "peak live", "run time (s)"], loc="center", cellLoc="right")
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1, 1.3)
    save(fig, out_dir, name)


# --- 2 ----------------------------------------------------------------------------------

def fig_contrived(out_dir):
    name, title = "fig2-worst-case-request", "The worst-case request against heap size (cf. Figure 8)"
    rows = read(out_dir, "contrived_summary.csv")
    rows = [r for r in rows if num(r["median_ns"])]
    if not rows:
        return empty(out_dir, name, title, "no contrived runs")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for p in ordered([r["policy"] for r in rows], POLICY_ORDER):
        pts = sorted((num(r["heap_size"]), num(r["median_ns"])) for r in rows if r["policy"] == p)
        a1.plot([mib(x) for x, _ in pts], [y for _, y in pts], "o-", color=colour(p), label=p)
        if p == "list":
            continue
        sp = sorted((num(r["heap_size"]), num(r["speedup_over_list"]), num(r["speedup_ci_low"]),
                     num(r["speedup_ci_high"])) for r in rows if r["policy"] == p and num(r["speedup_over_list"]))
        if sp:
            xs = [mib(x[0]) for x in sp]
            ys = [x[1] for x in sp]
            lo = [max(y - x[2], 0) if x[2] is not None else 0 for x, y in zip(sp, ys)]
            hi = [max(x[3] - y, 0) if x[3] is not None else 0 for x, y in zip(sp, ys)]
            a2.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", color=colour(p), label=p, capsize=2)
    a1.set_xscale("log", base=2)
    a1.set_yscale("log")
    a1.set_xlabel("heap size (MiB)")
    a1.set_ylabel("one 1 KiB request (ns, median)")
    a1.set_title("request time")
    a1.legend()
    a2.axhline(PAPER_CONTRIVED_SPEEDUP, color="grey", linestyle=":", label="paper: 72x")
    a2.set_xscale("log", base=2)
    a2.set_yscale("log")
    a2.set_xlabel("heap size (MiB)")
    a2.set_ylabel("speedup over list")
    a2.set_title("speedup over list (95% CI)")
    a2.legend()
    fig.suptitle(title)
    save(fig, out_dir, name)


# --- 3 ----------------------------------------------------------------------------------

def fig_speedup(out_dir):
    name, title = "fig3-speedup", "Speedup over list (cf. Figure 9), mean with 95% CI"
    rows = [r for r in read(out_dir, "speedup.csv") if r["policy"] != "list" and num(r["speedup"])]
    if not rows:
        return empty(out_dir, name, title, "no speedup data (needs list and another policy)")
    collectors = ordered([r["collector"] for r in rows], list(COLLECTOR_STYLE))
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)
    fig, axes = plt.subplots(len(collectors), 1, figsize=(max(6, 1.1 * len(workloads) * len(policies) / 3 + 2),
                                                          2.8 * len(collectors)), squeeze=False)
    width = 0.8 / len(policies)
    for ax, col in zip([a[0] for a in axes], collectors):
        for i, p in enumerate(policies):
            xs, ys, lo, hi = [], [], [], []
            for j, w in enumerate(workloads):
                r = next((r for r in rows if r["workload"] == w and r["collector"] == col and r["policy"] == p), None)
                if not r:
                    continue
                y = num(r["speedup"])
                xs.append(j + (i - (len(policies) - 1) / 2) * width)
                ys.append(y)
                lo.append(y - num(r["ci_low"]) if num(r["ci_low"]) is not None else 0)
                hi.append(num(r["ci_high"]) - y if num(r["ci_high"]) is not None else 0)
            ax.bar(xs, ys, width, yerr=[lo, hi], color=colour(p), label=p, capsize=1.5, error_kw={"lw": 0.7})
        ax.axhline(1, color="black", lw=0.8)
        ax.set_xticks(range(len(workloads)))
        ax.set_xticklabels(workloads, rotation=30, ha="right")
        ax.set_ylabel("speedup over list")
        ax.set_title(f"collector: {col}")
    h, lab = axes[0][0].get_legend_handles_labels()
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.legend(h, lab, ncol=len(policies), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.955))
    save(fig, out_dir, name)


# --- 4 ----------------------------------------------------------------------------------

def fig_satisfied(out_dir):
    name, title = "fig4-satisfied", "How requests were satisfied (cf. Figure 10): knuth vs estranged"
    rows = [r for r in read(out_dir, "satisfied.csv") if r["policy"] in ("knuth", "estranged") and num(r["requests"])]
    if not rows:
        return empty(out_dir, name, title, "no knuth/estranged runs")
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    combos = []
    for p in ("knuth", "estranged"):
        for c in ordered([r["collector"] for r in rows], list(COLLECTOR_STYLE)):
            if any(r["policy"] == p and r["collector"] == c for r in rows):
                combos.append((p, c))
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(workloads) * len(combos) + 1.5), 3.8))
    width = 0.8 / len(combos)
    labels_done = set()
    for i, (p, c) in enumerate(combos):
        for j, w in enumerate(workloads):
            r = next((r for r in rows if r["workload"] == w and r["policy"] == p and r["collector"] == c), None)
            if not r:
                continue
            x = j + (i - (len(combos) - 1) / 2) * width
            bottom = 0
            for o, colr in OUTCOMES:
                v = num(r[f"{o}_pct"]) or 0
                ax.bar(x, v, width * 0.92, bottom=bottom, color=colr, hatch="//" if p == "knuth" else None,
                       edgecolor="white", lw=0.3, label=o if o not in labels_done else None)
                labels_done.add(o)
                bottom += v
            ax.text(x, 101, f"{p[0].upper()}/{c[:4]}", rotation=90, ha="center", va="bottom", fontsize=6)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, rotation=30, ha="right")
    ax.set_ylim(0, 125)
    ax.set_ylabel("% of requests")
    ax.legend(ncol=5, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    ax.set_title(title + "\n(K = knuth, hatched; E = estranged; occa = occasional, cont = continuous)")
    save(fig, out_dir, name)


# --- 5 ----------------------------------------------------------------------------------

def fig_sizes(out_dir):
    name, title = "fig5-request-sizes", "Request sizes by power-of-two class (cf. Figure 11)"
    rows = read(out_dir, "sizes.csv")
    if not rows:
        return empty(out_dir, name, title, "no size histograms")
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    fig, axes = grid(len(workloads), 3)
    for ax, w in zip(axes, workloads):
        pts = sorted((int(r["size_class"]), num(r["fraction"]) or 0) for r in rows if r["workload"] == w)
        ax.bar(range(len(pts)), [100 * f for _, f in pts], color="#4c72b0")
        ax.set_xticks(range(len(pts)))
        ax.set_xticklabels([(f"{s >> 10}K" if s >= 1024 else str(s)) for s, _ in pts], rotation=90, fontsize=6)
        ax.set_yscale("log")
        ax.set_ylabel("% of requests")
        ax.set_title(w)
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, out_dir, name)


# --- 6 ----------------------------------------------------------------------------------

def fig_pauses(out_dir):
    name, title = "fig6-pauses-mmu", "GC pauses (CDF) and minimum mutator utilization"
    pauses = read(out_dir, "pauses.csv")
    mmu = read(out_dir, "mmu.csv")
    if not pauses and not mmu:
        return empty(out_dir, name, title, "no pause runs")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    workloads = list(dict.fromkeys([r["workload"] for r in mmu] + [r["workload"] for r in pauses]))
    cmap = plt.get_cmap("tab10")
    for wi, w in enumerate(workloads):
        for c in ordered({r["collector"] for r in mmu + pauses if r["workload"] == w}, list(COLLECTOR_STYLE)):
            ds = sorted(num(r["duration_ms"]) for r in pauses if r["workload"] == w and r["collector"] == c
                        and r["repeat"] == "0")
            if ds:
                step = max(1, len(ds) // 1500)
                xs = ds[::step] + [ds[-1]]
                ys = [min(1.0, (i * step + 1) / len(ds)) for i in range(len(xs) - 1)] + [1.0]
                a1.step(xs, ys, where="post", color=cmap(wi % 10), linestyle=COLLECTOR_STYLE.get(c, "-"),
                        label=f"{w} / {c}")
            pts = sorted((num(r["window_ms"]), num(r["mmu"])) for r in mmu if r["workload"] == w
                         and r["collector"] == c and r["repeat"] == "0")
            if pts:
                a2.plot([x for x, _ in pts], [y for _, y in pts], marker=".", color=cmap(wi % 10),
                        linestyle=COLLECTOR_STYLE.get(c, "-"), label=f"{w} / {c}")
    a1.set_xscale("log")
    a1.set_xlabel("pause (ms)")
    a1.set_ylabel("fraction of pauses ≤ x")
    a1.set_title("pause CDF (solid: occasional, dashed: continuous)")
    a2.set_xscale("log")
    a2.set_ylim(-0.02, 1.02)
    a2.set_xlabel("window (ms)")
    a2.set_ylabel("MMU")
    a2.set_title("minimum mutator utilization")
    h, lab = a2.get_legend_handles_labels()
    if h:
        a2.legend(h, lab, fontsize=6, loc="lower right")
    fig.suptitle(title)
    save(fig, out_dir, name)


# --- 7 ----------------------------------------------------------------------------------

def fig_tradeoff(out_dir):
    name, title = "fig7-time-space", "Time-space trade-off: run time and GC time against heap size"
    rows = [r for r in read(out_dir, "summary.csv") if r["kind"] == "tradeoff"]
    if not rows:
        return empty(out_dir, name, title, "no trade-off runs (they follow the minimum-heap search)")
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    collectors = ordered([r["collector"] for r in rows], list(COLLECTOR_STYLE))
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)
    ncols = 2 * len(collectors)
    fig, axes = plt.subplots(len(workloads), ncols, figsize=(3.1 * ncols, 2.5 * len(workloads)), squeeze=False)
    for i, w in enumerate(workloads):
        for j, c in enumerate(collectors):
            for k, (metric, label) in enumerate((("wall_s", "run time (s)"), ("gc_ms", "GC time (ms)"))):
                ax = axes[i][2 * j + k]
                for p in policies:
                    pts = sorted((num(r["multiple"]), num(r[f"{metric}_median"]), num(r[f"{metric}_ci_low"]),
                                  num(r[f"{metric}_ci_high"])) for r in rows
                                 if r["workload"] == w and r["collector"] == c and r["policy"] == p
                                 and num(r[f"{metric}_median"]) is not None)
                    if not pts:
                        continue
                    ax.plot([x[0] for x in pts], [x[1] for x in pts], "o-", ms=3, color=colour(p), label=p)
                ax.set_xscale("log")
                xs = sorted({num(r["multiple"]) for r in rows})
                ax.set_xticks(xs)
                ax.set_xticklabels([f"{x:g}" for x in xs])
                ax.minorticks_off()
                ax.set_title(f"{w} / {c}: {label.split(' (')[0]}")
                ax.set_ylabel(label)
                if i == len(workloads) - 1:
                    ax.set_xlabel("heap / minimum heap")
    h, lab = axes[0][0].get_legend_handles_labels()
    top = 1 - 0.5 / (2.5 * len(workloads))
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, top))
    if h:
        fig.legend(h, lab, ncol=len(policies), loc="upper center", bbox_to_anchor=(0.5, top + 0.2 / (2.5 * len(workloads))))
    save(fig, out_dir, name)


# --- 8, 9 -------------------------------------------------------------------------------

def grouped_bars(out_dir, name, title, rows, value, ylabel, log=False, line=None):
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies = ordered([r["policy"] for r in rows], POLICY_ORDER)
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(workloads) * len(policies) + 1.5), 3.6))
    width = 0.8 / max(len(policies), 1)
    for i, p in enumerate(policies):
        xs, ys = [], []
        for j, w in enumerate(workloads):
            r = next((r for r in rows if r["workload"] == w and r["policy"] == p), None)
            v = value(r) if r else None
            if v is not None:
                xs.append(j + (i - (len(policies) - 1) / 2) * width)
                ys.append(v)
        ax.bar(xs, ys, width, color=colour(p), label=p)
    if line is not None:
        ax.axhline(line, color="black", lw=0.8)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.legend(ncol=len(policies), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    ax.set_title(title)
    fig.tight_layout()
    save(fig, out_dir, name)


def fig_minheap(out_dir):
    name, title = "fig8-min-heap", "Minimum heap per workload and policy"
    rows = [r for r in read(out_dir, "minheap.csv") if num(r["min_heap_bytes"])]
    if not rows:
        return empty(out_dir, name, title, "no finished minimum-heap search")
    grouped_bars(out_dir, name, title, rows, lambda r: mib(num(r["min_heap_bytes"])), "minimum heap (MiB)", log=True)


def fig_fragmentation(out_dir):
    name, title = "fig9-fragmentation", "Fragmentation (Johnstone & Wilson): minimum heap / peak live bytes"
    rows = [r for r in read(out_dir, "fragmentation.csv") if num(r["fragmentation"])]
    if not rows:
        return empty(out_dir, name, title, "no finished minimum-heap search with a known peak live size")
    grouped_bars(out_dir, name, title, rows, lambda r: num(r["fragmentation"]), "heap needed / peak live", line=1)


FIGURES = [fig_workloads, fig_contrived, fig_speedup, fig_satisfied, fig_sizes, fig_pauses, fig_tradeoff,
           fig_minheap, fig_fragmentation]


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: plot_study.py STUDY_DIR")
    out_dir = argv[0]
    failed = 0
    for draw in FIGURES:
        try:
            draw(out_dir)
        except Exception as e:  # one broken figure must not cost the others
            failed += 1
            print(f"plot_study.py: {draw.__name__}: {type(e).__name__}: {e}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

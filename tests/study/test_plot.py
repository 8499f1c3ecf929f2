"""study/plot_study.py (`python3 -m study plot DIR`) under /usr/bin/python3, from CSV files alone:
- a fake study's CSVs plus synthetic ones for every newer table (allocator cost, replay time,
  trade-off, demographics): every figure is drawn in PNG, SVG and PDF, at most 2000 px wide,
  no text under 8 pt, and redrawing gives the same SVG;
- a directory with a few CSVs in an older layout, from a single run: just those figures,
  saying "single run" and no 95% interval, a one-line note per skipped figure, no traceback,
  and an older copy of a skipped figure removed;
- an empty directory: no figure, exit 0.
Exits non-zero on failure. CTest: study.plot."""

import csv
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from figure_files import FIGURES, figure_problems  # noqa: E402

DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")
PYTHON = "/usr/bin/python3"

WORKLOADS = ["alpha", "beta", "gamma", "delta"]
POLICIES = ["list", "knuth", "estranged"]
COLLECTORS = ["occasional", "continuous"]
MULTIPLES = [1.25, 1.5, 2, 3, 4, 6]
DRAFT = "draft: runs from 2 builds"

failures = []


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def rewrite(path, change, extra=(), keep=None):
    """Rewrites a CSV row by row: change(row) edits a dict; extra names new columns; keep,
    when given, the only columns left (an older layout)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0].keys()) + [c for c in extra if c not in rows[0]] if rows else list(extra)
    if keep is not None:
        header = [c for c in header if c in keep]
    for r in rows:
        change(r)
    write(path, header, [[r.get(c, "") for c in header] for r in rows])


def synthetic_tables(d):
    """The newer tables, shaped as the study writes them, with plausible numbers."""
    rnd = random.Random(25)
    cost, replay, trade, rate, frag, pred = [], [], [], [], [], []
    for w in WORKLOADS:
        for c in COLLECTORS:
            for i, p in enumerate(POLICIES):
                change = (i - 1) * 0.03 + rnd.random() * 0.02
                if p != "list":
                    pred.append([w, c, p, "list", change, change + 0.01, change - 0.02, change + 0.04, i % 2 == 0])
                ir = 40 + 60 * i + rnd.random() * 20
                cost.append([w, c, p, 10000, 9000, ir, ir * 0.8, 0.3 + 0.1 * i, 0.2, 0.01 * i, 0.0])
                ns = 20 + 10 * i + rnd.random() * 5
                replay.append([w, c, p, 10, ns, ns * 0.97, ns * 1.03])
                rate.append([w, p, c, 5 << 20, 0.05 + rnd.random() / 10, 100 + 50 * rnd.random()])
                for m in MULTIPLES:
                    s = 0.2 * (1 + 1 / m) * (1 + 0.1 * i)
                    imm = 40 + 10 * i + 5 * math.log(m)
                    trade.append([w, p, c, m, int(m * (1 << 20)), 3, "ok", s, s * 0.98, s * 1.02, 30 / m, int(20 / m),
                                  1 + 0.1 * i, 1 / (1 + 0.1 * i), imm, 100 - imm - 5, 4, 1, 0])
        for p in POLICIES:
            for cycle in range(12):
                free = (4 << 20) - cycle * 1000
                frag.append([w, p, cycle, cycle * (1 << 20), (1 << 20) + cycle * 100, free,
                             int(free * (0.9 - 0.05 * cycle * (p == "list")))])
    write(os.path.join(d, "alloc_cost.csv"),
          ["workload", "collector", "policy", "allocations", "frees", "ir_per_malloc", "ir_per_free", "d1_per_malloc",
           "d1_per_free", "ll_per_malloc", "ll_per_free"], cost)
    write(os.path.join(d, "predicted.csv"),
          ["workload", "collector", "policy", "base", "predicted", "measured", "ci_low", "ci_high", "agrees"],
          pred + [[w, c, "estranged", "knuth", -0.02, 0.01, -0.01, 0.03, False] for w in WORKLOADS for c in COLLECTORS])
    write(os.path.join(d, "replay_time.csv"),
          ["workload", "collector", "policy", "repeats", "ns_per_event_mean", "ci_low", "ci_high"], replay)
    write(os.path.join(d, "alloc_rate.csv"),
          ["workload", "policy", "collector", "bytes_allocated", "mutator_s", "mb_per_s"], rate)
    write(os.path.join(d, "frag_timeline.csv"),
          ["workload", "policy", "cycle", "bytes_allocated", "in_use", "free", "largest_free"], frag)
    write(os.path.join(d, "tradeoff.csv"),
          ["workload", "policy", "collector", "multiple", "heap_size", "runs", "status", "wall_s_mean",
           "wall_s_ci_low", "wall_s_ci_high", "gc_ms_mean", "gc_cycles", "relative_time", "speedup_vs_list",
           "immediate_pct", "split_pct", "glue_pct", "defrag_pct", "retried"], trade)
    summary = []
    for c in COLLECTORS:
        for i, p in enumerate(POLICIES):
            for m in MULTIPLES:
                g = 1 + 0.1 * i + 0.2 / m
                tests = [len(WORKLOADS), 1, 0] if p == "knuth" else [len(WORKLOADS), 0, 0] if i else ["", "", ""]
                summary.append([c, p, m, len(WORKLOADS), g, g * 0.95, g * 1.05, 1 / g, 0.9 / g, 1.1 / g] + tests)
    write(os.path.join(d, "tradeoff_summary.csv"),
          ["collector", "policy", "multiple", "workloads", "geomean_relative_time", "ci_low", "ci_high",
           "geomean_speedup_vs_list", "speedup_ci_low", "speedup_ci_high", "tested", "faster", "slower"], summary)
    # Runs of two builds, written as a draft (--draft): every figure says so.
    write(os.path.join(d, "builds.csv"), ["kind", "commit", "build", "runs", "draft"],
          [["main", "0123abc", "0123abc", 10, DRAFT], ["main", "fedcba9", "fedcba9", 2, DRAFT]])
    # Ten workloads: more than one panel's eight series.
    lifetimes = []
    for k in range(10):
        cum_o = cum_b = 0.0
        for age in (0, 64, 1 << 10, 1 << 14, 1 << 18, 1 << 22):
            cum_o = min(1.0, cum_o + 0.2 + 0.02 * k)
            cum_b = min(1.0, cum_b + 0.15 + 0.03 * k)
            lifetimes.append([f"w{k}", age, 100, 3200, cum_o, cum_b])
    write(os.path.join(d, "lifetimes.csv"),
          ["workload", "age_bytes_le", "objects", "bytes", "cum_fraction_objects", "cum_fraction_bytes"], lifetimes)


def plot(d):
    return subprocess.Popen([PYTHON, DRIVER, "plot", d], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def check_run(d, proc, expected):
    _, err = proc.communicate()
    if proc.returncode != 0:
        failures.append(f"plot_study.py {d}: exit {proc.returncode}: {err[-2000:]}")
    if "Traceback" in err:
        failures.append(f"plot_study.py {d}: a traceback: {err[-2000:]}")
    skipped = [line for line in err.splitlines() if " skipped: " in line]
    if len(skipped) != len(FIGURES) - len(expected):
        failures.append(f"{d}: {len(skipped)} skip notes for {len(FIGURES) - len(expected)} skipped figures:\n{err}")
    failures.extend(figure_problems(d, expected))
    return err


def svg_text(d, name):
    with open(os.path.join(d, "figures", f"{name}.svg")) as f:
        return f.read()


tmp = tempfile.mkdtemp(prefix="kith-study-plot-")
try:
    out = os.path.join(tmp, "study")
    r = subprocess.run([PYTHON, DRIVER, f"--kith={FAKE}", f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}",
                        "--policies=list,knuth,estranged", "--collectors=occasional,continuous", "--repeat=2",
                        "--no-figures", "--contrived-sizes=1M,2M", "--heap-multiples=1.5,3", f"--out={out}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"fake study exit {r.returncode}: {r.stderr[-2000:]}")

    # 1. Every table: the fake study's CSVs, the newer columns added, the newer tables made up.
    full = os.path.join(tmp, "full")
    os.makedirs(full)
    for name in os.listdir(out):
        if name.endswith(".csv"):
            shutil.copy(os.path.join(out, name), full)
    older_speedup = os.path.join(tmp, "speedup-older.csv")
    shutil.copy(os.path.join(full, "speedup.csv"), older_speedup)

    def newer_speedup(row):
        row["holm_significant"] = "True" if row["policy"] == "knuth" else "False"
        row["gc_ms_policy"], row["gc_ms_list"] = "12.5", "3.0"

    rewrite(os.path.join(full, "speedup.csv"), newer_speedup, ["holm_significant", "gc_ms_policy", "gc_ms_list"])
    rewrite(os.path.join(full, "contrived_summary.csv"),
            lambda row: row.update(steps=str(int(row["heap_size"]) // 2048), ci_low_ns=str(float(row["mean_ns"]) * 0.9),
                                   ci_high_ns=str(float(row["mean_ns"]) * 1.1), samples="20"),
            ["steps", "ci_low_ns", "ci_high_ns", "samples"])
    # One workload recycles memory: Figure 10 averages it alone.
    recycles = sorted({r["workload"] for r in csv.DictReader(open(os.path.join(full, "satisfied.csv")))})[:1]
    rewrite(os.path.join(full, "satisfied.csv"), lambda row: row.update(recycling=str(row["workload"] in recycles)),
            ["recycling"])
    synthetic_tables(full)
    # Drawn twice at once (the test has two processors): the redrawn SVG must equal the
    # first (no dates or random ids in it).
    redrawn = os.path.join(tmp, "full-again")
    shutil.copytree(full, redrawn)
    procs = [(d, plot(d)) for d in (full, redrawn)]
    for d, proc in procs:
        check_run(d, proc, FIGURES)
    for name in FIGURES:
        if all(os.path.exists(os.path.join(d, "figures", f"{name}.svg")) for d in (full, redrawn)) \
                and svg_text(full, name) != svg_text(redrawn, name):
            failures.append(f"redrawing {name}.svg changed it")
    if os.path.exists(os.path.join(full, "figures", "fig-speedup.svg")):
        speedup = svg_text(full, "fig-speedup")
        for text in ("significant (Holm)", "GC time", "geomean", "95% CI"):
            if text not in speedup:
                failures.append(f"fig-speedup.svg lacks {text!r}")
    for name in FIGURES:
        if os.path.exists(os.path.join(full, "figures", f"{name}.svg")) and \
                DRAFT.upper() not in svg_text(full, name):
            failures.append(f"{name}.svg of a draft does not say '{DRAFT.upper()}'")
    if os.path.exists(os.path.join(full, "figures", "fig-time-space.svg")):
        # The trade-off against list: the speedups with their intervals, the tests counted.
        time_space = svg_text(full, "fig-time-space")
        for text in ("(b) speedup over list at the same multiple", f"{2 * len(MULTIPLES)} of "
                     f"{2 * 2 * len(MULTIPLES) * len(WORKLOADS)} tests faster than list and 0 slower after Holm"):
            if text not in time_space:
                failures.append(f"fig-time-space.svg lacks {text!r}")
    if os.path.exists(os.path.join(full, "figures", "fig-satisfied.svg")) and \
            "mean over 1 recycling workload<" not in svg_text(full, "fig-satisfied"):
        failures.append("fig-satisfied does not say it averages the one recycling workload")

    # 2. A few tables, an older speedup.csv from a single run, a stale figure from before.
    partial = os.path.join(tmp, "partial")
    os.makedirs(os.path.join(partial, "figures"))
    shutil.copy(older_speedup, os.path.join(partial, "speedup.csv"))
    rewrite(os.path.join(partial, "speedup.csv"),
            lambda row: row.update(runs="1", list_runs="1", ci_low="", ci_high=""),
            keep=["workload", "collector", "policy", "runs", "list_runs", "speedup", "ci_low", "ci_high"])
    shutil.copy(os.path.join(full, "lifetimes.csv"), partial)
    open(os.path.join(partial, "alloc_cost.csv"), "w").close()  # empty: skipped, not a failure
    stale = os.path.join(partial, "figures", "fig-mmu.png")
    shutil.copy(os.path.join(full, "figures", "fig-mmu.png"), stale)
    err = check_run(partial, plot(partial), ["fig-speedup", "fig-speedup-continuous", "fig-lifetimes"])
    if os.path.exists(stale):
        failures.append("a skipped figure's older PNG was left in figures/")
    if "fig-alloc-cost skipped: alloc_cost.csv has no rows" not in err or \
            "fig-alloc-cost-continuous skipped: alloc_cost.csv has no rows" not in err:
        failures.append(f"no note that alloc_cost.csv is empty:\n{err}")
    if os.path.exists(os.path.join(partial, "figures", "fig-speedup.svg")):
        speedup = svg_text(partial, "fig-speedup")
        # The geometric mean's interval spans workloads, not repeats: it stays.
        if "single run" not in speedup or "95%" in speedup.replace("geomean: 95% CI across workloads", ""):
            failures.append("fig-speedup from single runs must say 'single run' and claim no 95% interval")
        if "significant" in speedup or "GC time" in speedup:
            failures.append("fig-speedup shows Holm or GC columns its CSV does not have")
        if "DRAFT" in speedup:
            failures.append("fig-speedup of a study without builds.csv is stamped a draft")

    # 3. Nothing at all.
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    check_run(empty, plot(empty), [])
    if os.environ.get("KITH_PLOT_TEST_KEEP"):  # to look at the figures: a directory to copy them to
        shutil.copytree(tmp, os.environ["KITH_PLOT_TEST_KEEP"], dirs_exist_ok=True)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"plot_study.py: all {len(FIGURES)} figures valid; partial and empty studies handled")

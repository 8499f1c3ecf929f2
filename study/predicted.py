"""Predicted against measured time: the run-time difference the exact allocator costs
predict for a pair of policies, beside the difference the timed runs measured.

Reads four CSVs of a study directory, nothing else: alloc_cost.csv (the exact costs per
malloc and free of each policy's replay, and its run's numbers of mallocs and frees),
alloc_share.csv (the allocator's instrumented share of run time), summary.csv (the main
runs' mean wall time and 95% interval) and speedup.csv (their GC time and cycles).
Writes predicted.csv (write_tables, from analysis.write_results, or
`/usr/bin/python3 -m study predicted DIR` on a directory of those CSVs alone), and the
report's lines: weighted_lines (the exact-cost section's headline) and report_lines (the
section "Predicted against measured time").

The pairs: every policy against `list`, and `estranged` against `knuth` (BASES).

Cost of a run's allocator, from its exact per-call costs weighted by its own calls:
    cost = allocations x (Ir + D1_PENALTY D1 + LL_PENALTY LL per malloc)
         + frees x (the same per free)
in estimated cycles: one per instruction, and the cachegrind manual's "an L1 miss will
typically cost around 10 cycles, an LL miss can cost as much as 200".

Prediction, for policy P against base B on one workload and collector:
    predicted = share_B x (cost_P / cost_B - 1)
the relative change of the run time t_P / t_B - 1 if the allocator's time is its cost
times one rate for both policies (the rate of B's instrumented run: share_B of its wall
time for cost_B) and nothing else in the run changes: the same mutator, the same
collections. share_B is measured with a clock read around every malloc and free, which
adds time to the allocator's part alone, so share_B is the larger side of the true share
and the predicted magnitude the larger side of the model's.
Measured: t_P / t_B - 1 from the main runs' means, with Fieller's 95% interval (the
variance of each mean recovered from summary.csv's interval and run count); `agrees` when
the predicted value is inside it. mde, the minimum detectable effect: half the interval's
width, the smallest relative difference whose interval would leave zero out (detected at
95% confidence half of the time; for 80% power about 1.4x it). `resolvable`: |predicted|
is at least mde. Where they disagree, the GC columns say how much of the measured change
is collection: gc_change = (GC ms of P - GC ms of B) / B's wall time."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study predicted DIR` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import collections
import math
import os
import sys

from . import stats
from .common import EXIT_MISSING, EXIT_USAGE, markdown_table, number, read_csv, write_csv

READS = ["alloc_cost.csv", "alloc_share.csv", "summary.csv", "speedup.csv"]
WHOLE_RUN_CSV = "whole_run.csv"  # read too where it is (whole_run.py: the opt-in wholerun runs)
D1_PENALTY = 10   # cycles an L1 data miss costs (the cachegrind manual, "around 10")
LL_PENALTY = 200  # cycles a last-level miss costs ("can cost as much as 200")
BASELINE = "list"
# A pair beside the policies against list: the paper's delayed against eager recombination.
EXTRA_PAIRS = [("estranged", "knuth")]
PREDICTED_COLUMNS = ["workload", "collector", "policy", "base", "share_base_pct", "ir_policy", "ir_base",
                     "cost_policy", "cost_base", "cost_ratio", "predicted", "measured", "ci_low", "ci_high", "mde",
                     "agrees", "resolvable", "runs_policy", "runs_base", "runs_to_resolve", "gc_cycles_policy",
                     "gc_cycles_base", "gc_ms_policy", "gc_ms_base", "gc_change", "agrees_with_gc",
                     "whole_ir_change", "whole_cycles_change", "alloc_ir_change", "whole_agrees", "note"]


# --- the exact cost of a run's allocator ------------------------------------------------

def weighted(row, event):
    """allocations x <event>_per_malloc + frees x <event>_per_free of an alloc_cost.csv row
    (a run that never frees has no per-free cost and needs none); None when a needed cost
    is missing."""
    per_malloc, per_free = number(row.get(f"{event}_per_malloc")), number(row.get(f"{event}_per_free"))
    allocations, frees = number(row.get("allocations")) or 0, number(row.get("frees")) or 0
    if per_malloc is None or (frees and per_free is None):
        return None
    return allocations * per_malloc + (frees * per_free if frees else 0.0)


def per_pair(row):
    """ir_per_malloc + ir_per_free: one malloc and one free, whatever the run's numbers of
    each (None where the run never freed, so there is no per-free cost)."""
    m, f = number(row.get("ir_per_malloc")), number(row.get("ir_per_free"))
    return m + f if m is not None and f is not None else None


def cycles(row):
    """The run's allocator cost in estimated cycles (the module docstring); None when a
    count is missing."""
    parts = [weighted(row, "ir"), weighted(row, "d1"), weighted(row, "ll")]
    if None in parts:
        return None
    return parts[0] + D1_PENALTY * parts[1] + LL_PENALTY * parts[2]


def frees_something(row):
    return (number(row.get("frees")) or 0) > 0


def pairs_of(policies):
    """[(policy, base)]: each policy against list, then EXTRA_PAIRS whose two policies ran."""
    out = [(p, BASELINE) for p in policies if p != BASELINE and BASELINE in policies]
    return out + [(p, b) for p, b in EXTRA_PAIRS if p in policies and b in policies]


def cheaper_counts(cost_rows, policy, base):
    """{collector: counts} of the workloads on which `policy` executes fewer allocator
    instructions than `base`: "weighted" (by each run's own mallocs and frees) and
    "unweighted" (per malloc-plus-free pair) as (cheaper, compared) over the workloads where
    both runs free, "weighted_all" over every workload (those that never free count their
    mallocs alone), and "ratio": the geometric mean of the weighted ratio over those."""
    cells = {(r["collector"], r["workload"], r["policy"]): r for r in cost_rows}
    out = {}
    for col in dict.fromkeys(r["collector"] for r in cost_rows):
        counts = {"weighted": [0, 0], "unweighted": [0, 0], "weighted_all": [0, 0]}
        ratios = []
        for w in dict.fromkeys(r["workload"] for r in cost_rows if r["collector"] == col):
            p, b = cells.get((col, w, policy)), cells.get((col, w, base))
            if not p or not b:
                continue
            wp, wb = weighted(p, "ir"), weighted(b, "ir")
            if wp is not None and wb is not None and wb > 0:
                tally(counts["weighted_all"], wp < wb)
                ratios.append(wp / wb)
                if frees_something(p) and frees_something(b):
                    tally(counts["weighted"], wp < wb)
            up, ub = per_pair(p), per_pair(b)
            if up is not None and ub is not None:
                tally(counts["unweighted"], up < ub)
        if counts["weighted_all"][1]:
            out[col] = {k: tuple(v) for k, v in counts.items()}
            out[col]["ratio"] = geomean(ratios)
    return out


def tally(count, cheaper):
    count[0] += bool(cheaper)
    count[1] += 1


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# --- predicted and measured -------------------------------------------------------------

def predicted_change(share_pct, cost_policy, cost_base):
    """share_B x (cost_P / cost_B - 1): the relative change of run time the costs predict."""
    if share_pct is None or cost_policy is None or not cost_base or cost_base <= 0:
        return None
    return share_pct / 100.0 * (cost_policy / cost_base - 1.0)


def mean_and_variance(summary_row):
    """(mean wall time, variance of that mean, runs) of a summary.csv row: the variance
    from its 95% interval, which is mean -+ critical_value(n) sqrt(variance); None for the
    variance of a single run."""
    mean = number(summary_row.get("wall_s_mean"))
    lo, hi = number(summary_row.get("wall_s_ci_low")), number(summary_row.get("wall_s_ci_high"))
    n = int(number(summary_row.get("runs")) or 0) - int(number(summary_row.get("failed")) or 0)
    if mean is None or n < 1:
        return None, None, 0
    if n < 2 or lo is None or hi is None:
        return mean, None, n
    return mean, ((hi - lo) / 2 / stats.critical_value(n)) ** 2, n


def measured_change(summary_policy, summary_base):
    """(t_P / t_B - 1, low, high), Fieller's 95% interval; Nones where a side has no runs."""
    mp, vp, np_ = mean_and_variance(summary_policy)
    mb, vb, nb = mean_and_variance(summary_base)
    if mp is None or mb is None:
        return None, None, None
    q, lo, hi = stats.ratio_ci_of_means(mp, vp, np_, mb, vb, nb)
    if q is None:
        return None, None, None
    return q - 1, (lo - 1 if lo is not None else None), (hi - 1 if hi is not None else None)


def minimum_detectable(ci_low, ci_high):
    """Half the width of the measured interval (the module docstring), or None."""
    return (ci_high - ci_low) / 2 if ci_low is not None and ci_high is not None else None


def runs_to_resolve(predicted, mde, runs_policy, runs_base):
    """The runs of each side for an MDE of |predicted|: the MDE shrinks as one over the square
    root of the runs, so both sides' runs times (mde / predicted)^2, the larger of the two
    (None for a prediction of zero: no number of runs resolves it)."""
    if not predicted:
        return None
    return math.ceil(max(runs_policy, runs_base) * (mde / predicted) ** 2)


# What a pair's row is made of: each {(workload, collector, policy): row} of one CSV
# (whole: whole_run.csv, empty when the study ran no wholerun runs).
Tables = collections.namedtuple("Tables", "cost share summary speedup whole")


def pair_row(w, col, policy, base, t):
    """One row of predicted.csv, from the Tables t."""
    key_p, key_b = (w, col, policy), (w, col, base)
    row = {"workload": w, "collector": col, "policy": policy, "base": base}
    notes = predicted_part(row, t.cost.get(key_p), t.cost.get(key_b), t.share.get(key_b))
    notes += measured_part(row, t.summary.get(key_p), t.summary.get(key_b))
    gc_part(row, t.speedup.get(key_p, {}), t.speedup.get(key_b, {}), t.summary.get(key_b))
    whole_part(row, t.whole.get(key_p), t.whole.get(key_b))
    row["note"] = "; ".join(notes)
    return row


def predicted_part(row, cost_p, cost_b, share_b):
    """The costs, the share and the prediction; returns the notes on what is missing."""
    notes = []
    row["ir_policy"], row["ir_base"] = (weighted(c, "ir") if c else None for c in (cost_p, cost_b))
    row["cost_policy"], row["cost_base"] = (cycles(c) if c else None for c in (cost_p, cost_b))
    if row["cost_policy"] is None or row["cost_base"] is None:
        notes.append("no exact cost for " + " and ".join(p for p, c in ((row["policy"], cost_p), (row["base"], cost_b))
                                                          if not c or cycles(c) is None))
    elif row["cost_base"] > 0:
        row["cost_ratio"] = row["cost_policy"] / row["cost_base"]
    row["share_base_pct"] = number((share_b or {}).get("share_pct"))
    if row["share_base_pct"] is None:
        notes.append(f"no instrumented share for {row['base']}")
    row["predicted"] = predicted_change(row["share_base_pct"], row["cost_policy"], row["cost_base"])
    return notes


def measured_part(row, summary_p, summary_b):
    """The measured change, its interval, the MDE and how the prediction stands against
    them; returns the notes on what is missing."""
    notes = []
    row["runs_policy"] = mean_and_variance(summary_p)[2] if summary_p else 0
    row["runs_base"] = mean_and_variance(summary_b)[2] if summary_b else 0
    if summary_p and summary_b:
        row["measured"], row["ci_low"], row["ci_high"] = measured_change(summary_p, summary_b)
    if row.get("measured") is None:
        notes.append("no timed runs of " + " and ".join(
            p for p, s in ((row["policy"], summary_p), (row["base"], summary_b))
            if not s or mean_and_variance(s)[0] is None))
    elif row.get("ci_low") is None:
        notes.append("no interval: " + ("a single run" if min(row["runs_policy"], row["runs_base"]) < 2 else
                                        f"unbounded (Fieller: {row['base']}'s mean not known to be nonzero)"))
    row["mde"] = minimum_detectable(row.get("ci_low"), row.get("ci_high"))
    if row["predicted"] is not None and row["mde"] is not None:
        row["agrees"] = inside(row, row["predicted"])
        row["resolvable"] = abs(row["predicted"]) >= row["mde"]
        row["runs_to_resolve"] = runs_to_resolve(row["predicted"], row["mde"], row["runs_policy"], row["runs_base"])
    return notes


def inside(row, value):
    """Whether value is inside the row's measured interval (None without one)."""
    if value is None or row.get("ci_low") is None or row.get("ci_high") is None:
        return None
    return row["ci_low"] <= value <= row["ci_high"]


def gc_part(row, speedup_p, speedup_b, summary_b):
    """Both runs' collections (speedup.csv) and the GC time's change over B's run time."""
    row["gc_cycles_policy"] = speedup_p.get("gc_cycles_policy")
    row["gc_cycles_base"] = speedup_b.get("gc_cycles_policy")
    row["gc_ms_policy"] = number(speedup_p.get("gc_ms_policy"))
    row["gc_ms_base"] = number(speedup_b.get("gc_ms_policy"))
    wall_b = mean_and_variance(summary_b)[0] if summary_b else None
    if row["gc_ms_policy"] is not None and row["gc_ms_base"] is not None and wall_b:
        row["gc_change"] = (row["gc_ms_policy"] - row["gc_ms_base"]) / 1000.0 / wall_b
        if row["predicted"] is not None:
            row["agrees_with_gc"] = inside(row, row["predicted"] + row["gc_change"])


def whole_part(row, whole_p, whole_b):
    """The whole runs' counts under cachegrind (whole_run.csv): the change of instructions
    and of estimated cycles, the allocator's part of that change (its exact instructions
    saved over B's whole run), and whether the cycles' change is inside the measured interval."""
    ir_p, ir_b = number((whole_p or {}).get("ir")), number((whole_b or {}).get("ir"))
    cyc_p, cyc_b = number((whole_p or {}).get("cycles")), number((whole_b or {}).get("cycles"))
    if ir_p is not None and ir_b:
        row["whole_ir_change"] = ir_p / ir_b - 1
        if row["ir_policy"] is not None and row["ir_base"] is not None:
            row["alloc_ir_change"] = (row["ir_policy"] - row["ir_base"]) / ir_b
    if cyc_p is not None and cyc_b:
        row["whole_cycles_change"] = cyc_p / cyc_b - 1
        row["whole_agrees"] = inside(row, row["whole_cycles_change"])


def keyed(rows, kind=None):
    """{(workload, collector, policy): row}, of one kind of run where rows have a kind."""
    return {(r["workload"], r["collector"], r["policy"]): r for r in rows if kind is None or r.get("kind") == kind}


def predicted_rows(out_dir):
    """predicted.csv's rows, from the directory's CSVs: every pair (pairs_of) on every
    workload and collector with an exact cost for either policy, in alloc_cost.csv's order."""
    cost_rows = read_csv(os.path.join(out_dir, "alloc_cost.csv"))
    t = Tables(keyed(cost_rows), keyed(read_csv(os.path.join(out_dir, "alloc_share.csv"))),
               keyed(read_csv(os.path.join(out_dir, "summary.csv")), "main"),
               keyed(read_csv(os.path.join(out_dir, "speedup.csv"))),
               keyed(read_csv(os.path.join(out_dir, WHOLE_RUN_CSV))))
    policies = list(dict.fromkeys(r["policy"] for r in cost_rows))
    rows = []
    for w, col in dict.fromkeys((r["workload"], r["collector"]) for r in cost_rows):
        for policy, base in pairs_of(policies):
            if (w, col, policy) in t.cost or (w, col, base) in t.cost:
                rows.append(pair_row(w, col, policy, base, t))
    return rows


def write_tables(out_dir):
    """Writes predicted.csv; returns {"predicted": (rows, columns)}."""
    rows = predicted_rows(out_dir)
    write_csv(os.path.join(out_dir, "predicted.csv"), rows, PREDICTED_COLUMNS)
    return {"predicted": (rows, PREDICTED_COLUMNS)}


# --- the report -------------------------------------------------------------------------

def signed_pct(x, digits=1):
    return "" if x is None else f"{100 * x:+.{digits}f}%"


def pair_name(policy, base):
    return f"`{policy}` vs `{base}`"


def weighted_lines(out_dir):
    """The exact-cost section's headline: on how many workloads each policy executes fewer
    allocator instructions than its base, weighted by the run's calls first, then per
    malloc-plus-free pair; from alloc_cost.csv alone (empty without it)."""
    cost_rows = read_csv(os.path.join(out_dir, "alloc_cost.csv"))
    policies = list(dict.fromkeys(r["policy"] for r in cost_rows))
    body = []
    for policy, base in sorted(pairs_of(policies), key=lambda pb: pb[1] == BASELINE):
        for col, c in cheaper_counts(cost_rows, policy, base).items():
            body.append([pair_name(policy, base), col, count_text(c["weighted"]), count_text(c["weighted_all"]),
                         f"{c['ratio']:.3g}x" if c["ratio"] else "", count_text(c["unweighted"])])
    if not body:
        return []
    L = ["**Cheaper on how many workloads, weighted by calls.** A policy is cheaper on a workload when its run's "
         "allocator executes fewer instructions in all: allocations x instructions per malloc + frees x "
         "instructions per free, each run's own numbers (`allocations`, `frees` and the per-call costs of "
         "`alloc_cost.csv`). Over the workloads where both runs free; then over every workload (one that never "
         "frees counts its mallocs alone), with the geometric mean of the weighted ratio there; last, the "
         "count per malloc-plus-free pair, unweighted (instructions per malloc + per free, whatever the "
         "numbers of each), over the workloads where both runs free.", ""]
    L += markdown_table(["pair", "collector", "weighted, workloads that free", "weighted, all workloads",
                         "weighted ratio (geomean, all)", "per malloc-plus-free pair, unweighted"], body)
    L.append("")
    return L


def count_text(count):
    cheaper, compared = count
    return f"{cheaper} of {compared}" if compared else ""


def report_lines(out_dir, figure=()):
    """The section "Predicted against measured time" (Markdown lines) from predicted.csv
    alone, with the figure's lines after its summary; empty when it has no row with both a
    prediction and a measurement."""
    rows = read_csv(os.path.join(out_dir, "predicted.csv"))
    both = [r for r in rows if number(r.get("predicted")) is not None and number(r.get("measured")) is not None]
    if not both:
        return []
    L = ["## Predicted against measured time", ""]
    L.append("What the exact costs predict for the run time, beside what the timed runs measured. A run's allocator "
             f"costs allocations x (instructions + {D1_PENALTY} x D1 misses + {LL_PENALTY} x LL misses per malloc) "
             "+ frees x (the same per free), in estimated cycles (the cachegrind manual: an L1 miss costs about "
             f"{D1_PENALTY} cycles, an LL miss up to {LL_PENALTY}). For policy P against base B, "
             "**predicted** = share of B's run spent in the allocator (`alloc_share.csv`) x (cost of P / cost of "
             "B − 1): the change of run time if the allocator's time follows its cost at one rate and the rest of "
             "the run (mutator, collections) does not change. The share is measured with a clock read around "
             "every call, which lengthens the allocator's part alone, so the predictions are on the large side. "
             "**Measured** = mean wall time of P / of B − 1 (main runs, Fieller's 95% interval). **MDE** (minimum "
             "detectable effect) = half the interval's width: a smaller true change leaves zero inside the "
             "interval. Every pair: `predicted.csv`.")
    L.append("")
    body = []
    for group, members in pair_groups(both):
        agree = [r for r in members if r.get("agrees") == "True"]
        interval = [r for r in members if r.get("agrees") in ("True", "False")]
        resolvable = [r for r in members if r.get("resolvable") == "True"]
        mdes = sorted(number(r["mde"]) for r in members if number(r.get("mde")) is not None)
        preds = [number(r["predicted"]) for r in members]
        body.append([group[0], group[1], len(members), f"{len(agree)} of {len(interval)}",
                     f"{len(resolvable)} of {len(interval)}",
                     f"{signed_pct(min(preds))} to {signed_pct(max(preds))}",
                     f"{100 * mdes[0]:.1f}% to {100 * mdes[-1]:.1f}% (median {100 * stats.median(mdes):.1f}%)"
                     if mdes else ""])
    L += markdown_table(["pair", "collector", "pairs", "prediction inside the interval", "|predicted| ≥ MDE",
                         "predicted", "MDE"], body)
    L.append("")
    L += figure
    L += pair_table(both, "estranged", "knuth")
    L += whole_run_lines(both)
    resolvable = [r for r in both if r.get("resolvable") == "True"]
    if resolvable:
        L.append(f"**Resolvable on this machine** (|predicted| ≥ MDE), {len(resolvable)} of "
                 f"{len([r for r in both if r.get('resolvable') in ('True', 'False')])} pairs: " +
                 "; ".join(f"{r['workload']}/{r['collector']} {pair_name(r['policy'], r['base'])} "
                           f"{signed_pct(number(r['predicted']))}" for r in resolvable) +
                 ". The others need more runs than they had (`runs_to_resolve` in `predicted.csv`: the runs of "
                 "each side for an MDE of the prediction, from the MDE shrinking as one over the square root of "
                 "the runs).")
        L.append("")
    findings = [r for r in both if r.get("agrees") == "False"]
    if findings:
        gc = [r for r in findings if r.get("agrees_with_gc") == "True"]
        L.append(f"**Findings to explain** ({len(findings)} pairs whose measured interval leaves the prediction "
                 "out), with the collections of both runs (GC cycles and mean GC ms of the main runs, "
                 "`speedup.csv`) and the change of GC time as a share of B's run time (GC change). On "
                 f"{len(gc)} of them the prediction plus the GC change falls inside the interval (last column): "
                 "collection, not the allocator, makes the difference there; the rest are the mutator's locality, "
                 "page faults, or what else a run does differently, which these counts do not see.")
        L.append("")
        body = [[r["workload"], r["collector"], pair_name(r["policy"], r["base"]), signed_pct(number(r["predicted"])),
                 measured_text(r), f"{r.get('gc_cycles_policy') or '?'} / {r.get('gc_cycles_base') or '?'}",
                 f"{ms(r.get('gc_ms_policy'))} / {ms(r.get('gc_ms_base'))}", signed_pct(number(r.get("gc_change"))),
                 {"True": "yes", "False": "no"}.get(r.get("agrees_with_gc"), "")]
                for r in findings]
        L += markdown_table(["workload", "collector", "pair", "predicted", "measured [95% CI]",
                             "GC cycles P / B", "GC ms P / B", "GC change", "with GC change inside"], body)
        L.append("")
    return L


def pair_groups(rows):
    """[((pair name, collector), rows)] in the order of first appearance."""
    groups = {}
    for r in rows:
        groups.setdefault((pair_name(r["policy"], r["base"]), r["collector"]), []).append(r)
    return list(groups.items())


def pair_table(rows, policy, base):
    """Every workload of one pair: predicted, measured with its interval, MDE, agrees; and
    the whole runs' counted changes where the study has them."""
    mine = [r for r in rows if r["policy"] == policy and r["base"] == base]
    if not mine:
        return []
    whole = any(r.get("whole_cycles_change") for r in mine)
    body = []
    for r in mine:
        line = [r["workload"], r["collector"], signed_pct(number(r["predicted"])), measured_text(r),
                f"{100 * number(r['mde']):.1f}%" if number(r.get("mde")) is not None else "",
                {"True": "yes", "False": "**no**"}.get(r.get("agrees"), "")]
        if whole:
            line += [signed_pct(number(r.get("whole_cycles_change"))), signed_pct(number(r.get("whole_ir_change"))),
                     signed_pct(number(r.get("alloc_ir_change")))]
        body.append(line)
    L = [f"{pair_name(policy, base)}, per workload:", ""]
    L += markdown_table(["workload", "collector", "predicted", "measured [95% CI]", "MDE", "inside"] +
                        (["whole run: cycles", "whole run: Ir", "allocator's Ir"] if whole else []), body)
    L.append("")
    return L


def whole_run_lines(rows):
    """How the whole runs' counted changes (whole_run.py) stand against the measured ones."""
    counted = [r for r in rows if r.get("whole_agrees") in ("True", "False")]
    if not counted:
        return []
    agree = [r for r in counted if r["whole_agrees"] == "True"]
    return [f"**Whole runs under cachegrind** (`whole_run.csv`: each main configuration once, its whole process "
            f"counted with the same simulated caches; cycles = instructions + {D1_PENALTY} x L1 misses + "
            f"{LL_PENALTY} x LL misses): on {len(agree)} of {len(counted)} pairs the change of the whole run's "
            "estimated cycles is inside the measured interval. Beside it in `predicted.csv`: `whole_ir_change`, the "
            "change of the whole run's instructions, and `alloc_ir_change`, the allocator's own instructions saved "
            "(the exact costs, weighted by calls) over the base's whole-run instructions: the part of the "
            "instruction change the allocator accounts for; the rest is the mutator and the collector.", ""]


def measured_text(r):
    text = signed_pct(number(r.get("measured")))
    lo, hi = number(r.get("ci_low")), number(r.get("ci_high"))
    return text + (f" [{signed_pct(lo)}, {signed_pct(hi)}]" if lo is not None and hi is not None else "")


def ms(x):
    x = number(x)
    return "?" if x is None else f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m study predicted STUDY_DIR (a directory with alloc_cost.csv, alloc_share.csv, summary.csv and "
              "speedup.csv)", file=sys.stderr)
        return EXIT_USAGE
    missing = [name for name in READS if not os.path.isfile(os.path.join(argv[0], name))]
    if missing:
        print(f"predicted.py: {argv[0]} has no {', '.join(missing)}", file=sys.stderr)
        return EXIT_MISSING
    rows, _ = write_tables(argv[0])["predicted"]
    print(f"predicted.py: {len(rows)} pairs in {os.path.join(argv[0], 'predicted.csv')}", file=sys.stderr)
    return 0

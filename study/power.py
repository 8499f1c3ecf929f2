"""Power where it matters: the workloads whose allocator share is largest, run long enough
and repeated until the measured time difference of a pair of policies can resolve the one
the exact costs predict, or a cap; which pairs this machine can and cannot resolve.

The kind `power`, not in the default --experiments (`--experiments=...,power` adds it):
- Which workloads: the --power-workloads (default 4) with the largest allocator share,
  a workload's share the largest share_pct (alloc_share.csv's: the instrumented trace
  run) over its trace runs of the pairs' policies and the study's collectors. They are
  chosen once every such trace run is done, so the choice does not move between rounds.
- Which pairs (PAIRS): estranged against knuth, and each of them against list, under
  every collector of the study; those whose two policies the study runs.
- How long: the suite's power_args (suite.py; default_args where a row has none): the
  study-size run repeated to last 1-2 s (docs/RUNNING_THE_STUDY.md says how they were
  chosen). The runs' argset field is `power`.
- What heap: the main heap's rule (--main-heap times the smallest minimum heap) for the
  scaled run, its minimum heap searched again by the study's own search (plan.Study's
  minheap machinery on the `power` argset: probes of kind minheap), over the pairs'
  policies. Without --experiments' minheap, the suite's heap_size, as the main runs.
- How many runs: timed like main runs (alone, --pretouch, --stats-timers=off, continuous
  paced by work), at least --repeat (and two), interleaved (repeat 0 of every
  configuration, then repeat 1, ...); then, one round at a time, one more run of both
  sides of every pair whose 95% interval of the ratio does not yet resolve the prediction
  (RESOLVE_FRACTION: its half-width, the MDE, at least half |predicted|), up to
  --power-max-repeat (default 30). A configuration in two pairs runs as long as either
  needs. Without a prediction (no exact cost for a side) a pair stops at the minimum.
- The prediction: predicted.py's model and numbers, share_B x (cost_P / cost_B - 1), from
  the exact costs of the study-size traces (cost runs) and B's study-size share. The
  scaled run's allocator share and cost ratio are assumed equal to the study-size run's:
  the scaled run repeats the study-size run, but it also repeats collections and may
  keep a different heap, which that assumption ignores.

power.csv (write_tables), per pair, workload and collector: the choice (rank, the
workload's share), the scaled run (args, heap, mean wall times and the study-size run's,
so the scale), runs of each side, predicted, measured (mean P / mean B - 1, Fieller's 95%
interval), mde (half the interval's width), mde_target (RESOLVE_FRACTION x |predicted|),
resolved, agrees (the prediction inside the interval), Welch's test on the log times with
Holm over the power family, runs_to_resolve (the runs of each side for an MDE of the
target, from the MDE shrinking as one over the square root of the runs) and the verdict:
agrees, disagrees (resolved), unresolved (the cap reached: cannot be resolved on this
machine within it), no_prediction, or unfinished (fewer runs than the cap, unresolved:
the study was stopped, or a run failed). report_lines: the report's section from the CSV."""

import math
import os

from . import alloc_cost
from . import predicted
from . import stats
from .common import markdown_table, number, read_csv, write_csv

KIND = "power"
ARGSET = "power"  # the power runs' and their minimum-heap probes' argset: the suite's power_args
PAIRS = [("estranged", "knuth"), ("estranged", "list"), ("knuth", "list")]  # (policy, base)
DEFAULT_WORKLOADS = 4
DEFAULT_MAX_REPEAT = 30
RESOLVE_FRACTION = 0.5  # resolved: the interval's half-width is below this fraction of |predicted|
VERDICTS = {"agrees": "resolved: agrees with the prediction",
            "disagrees": "resolved: disagrees with the prediction",
            "unresolved": "cannot be resolved on this machine within the cap",
            "no_prediction": "no prediction (no exact cost or share)",
            "unfinished": "unfinished (below the cap, unresolved)"}
POWER_COLUMNS = ["workload", "rank", "workload_share_pct", "collector", "policy", "base", "args", "heap_size",
                 "runs_policy", "runs_base", "max_repeat", "wall_s_policy", "wall_s_base", "study_wall_s_base",
                 "share_base_pct", "predicted", "measured", "ci_low", "ci_high", "mde", "mde_target", "resolved",
                 "agrees", "log_ratio", "p_value", "p_holm", "holm_significant", "runs_to_resolve", "verdict",
                 "note"]


# --- which workloads and pairs ------------------------------------------------------------

def pairs_of(policies):
    """The PAIRS whose two policies are among `policies`."""
    return [(p, b) for p, b in PAIRS if p in policies and b in policies]


def policies_of(pairs):
    return list(dict.fromkeys(x for pair in pairs for x in pair))


def minimum_repeat(config):
    """Runs of every power configuration at least: --repeat, and two (an interval needs them)."""
    return max(config["repeat"], 2)


def max_repeat(config):
    return max(config.get("power_max_repeat") or DEFAULT_MAX_REPEAT, minimum_repeat(config))


def trace_share(study, run):
    """The allocator's share (%) of a done trace run, from its statistics; None without."""
    s = study.stats_cache.get(run.id) if study.done.get(run.id) == 0 else None
    return stats.allocator_share_pct(stats.flatten(s)) if s else None


def ranking(study):
    """(ready, [(workload, share)] largest share first): ready once every workload's main
    heap is known and every trace run of the pairs' policies is done; a workload's share is
    the largest over those runs (workloads without any, left out)."""
    policies = policies_of(pairs_of(study.config["policies"]))
    if "trace" not in study.config["experiments"] or not policies:
        return True, []
    shares = {}
    for w in study.workloads:
        if not study.min_heap_base(w)[0]:
            return False, []
    for w, heap, col, p in study.main_configurations():
        if p not in policies:
            continue
        t = study.make("trace", w, p, col, heap, 0)
        if t.id not in study.done:
            return False, []
        share = trace_share(study, t)
        if share is not None:
            shares[w.name] = max(shares.get(w.name, share), share)
    order = [w.name for w in study.workloads]
    return True, sorted(shares.items(), key=lambda kv: (-kv[1], order.index(kv[0])))


def chosen(study):
    """(ready, [(workload, share)]): the --power-workloads of the ranking."""
    ready, ranked = ranking(study)
    return ready, ranked[:study.config.get("power_workloads") or DEFAULT_WORKLOADS]


def power_study(study, names):
    """A Study of the chosen workloads at the power argset, over the pairs' policies: its
    minimum-heap search, main heap and runs are the study's own machinery on the scaled runs."""
    config = dict(study.config, argset=ARGSET, policies=policies_of(pairs_of(study.config["policies"])))
    sub = type(study)(config, [study.by_name[n] for n in names], study.kith)
    sub.refresh(study.out)
    return sub


# --- the predictions, as predicted.py makes them --------------------------------------------

def predictions(study, names):
    """(ready, {(workload, collector, policy, base): predicted change}) from the study-size
    traces' exact costs (cost runs) and the bases' trace shares, by predicted.py's model.
    ready once every cost run the study plans for those workloads is done (or it plans none)."""
    pairs = pairs_of(study.config["policies"])
    policies = policies_of(pairs)
    configs = [(w, heap, col, p) for w, heap, col, p in study.main_configurations()
               if w.name in names and p in policies]
    if "cost" in study.config["experiments"]:
        for w, heap, col, p in configs:
            for policy in (p, alloc_cost.BASELINE_PREFIX + p):
                trace = study.make("trace", w, p, col, heap, 0)
                if study.done.get(trace.id) == 0 and study.make("cost", w, policy, col, heap, 0).id not in study.done:
                    return False, {}
    mine = {k: rc for k, rc in study.done.items()
            if k.startswith("cost__") and k.split("__")[1] in names}
    cost_rows, _ = alloc_cost.alloc_cost_rows(study, study.out, mine)
    cost = {(r["workload"], r["collector"], r["policy"]): r for r in cost_rows}
    share = {(w.name, col, p): trace_share(study, study.make("trace", w, p, col, heap, 0))
             for w, heap, col, p in configs}
    out = {}
    for w, col in dict.fromkeys((w.name, col) for w, _, col, _ in configs):
        for p, b in pairs:
            row = {"policy": p, "base": b}
            predicted.predicted_part(row, cost.get((w, col, p)), cost.get((w, col, b)),
                                     {"share_pct": share.get((w, col, b))})
            out[(w, col, p, b)] = row["predicted"]
    return True, out


# --- the runs -----------------------------------------------------------------------------

def measure(walls_p, walls_b):
    """(measured change, low, high, mde) of P against B: mean P / mean B - 1 with Fieller's
    95% interval, and half its width; Nones where there is none."""
    q, lo, hi = stats.ratio_ci(walls_p, walls_b)
    if q is None:
        return None, None, None, None
    if lo is None or hi is None:
        return q - 1, None, None, None
    return q - 1, lo - 1, hi - 1, predicted.minimum_detectable(lo, hi)


def target(prediction):
    """The MDE that resolves a prediction: RESOLVE_FRACTION of its size (None without one)."""
    return None if prediction is None else RESOLVE_FRACTION * abs(prediction)


def resolved(prediction, mde):
    goal = target(prediction)
    return goal is not None and mde is not None and mde < goal


def pair_wants_more(sub, runs_p, runs_b, prediction):
    """Whether a pair whose runs so far are runs_p and runs_b needs one more of each: all
    done and exited 0, a prediction to resolve, and the interval not resolving it yet."""
    walls = {}
    for r in runs_p + runs_b:
        if sub.done.get(r.id) != 0 or sub.wall(r.id) is None:
            return False
        walls[r.id] = sub.wall(r.id)
    if prediction is None:
        return False
    mde = measure([walls[r.id] for r in runs_p], [walls[r.id] for r in runs_b])[3]
    return not resolved(prediction, mde)


def repeat_counts(sub, w, col, heap, pairs, preds):
    """{policy: runs} of one workload and collector: the minimum, then, replaying the rounds
    from what is done, one more of each side at its pair's lower count while the pair wants
    more, up to the cap. A round's new runs are not done, so the replay stops where the
    study is: those are the runs to make now."""
    c = sub.config
    top = max_repeat(c)
    counts = {p: minimum_repeat(c) for p in policies_of(pairs)}

    def runs(policy):
        return [sub.make(KIND, w, policy, col, heap, rep) for rep in range(counts[policy])]

    while True:
        grow = {}
        for p, b in pairs:
            n = min(counts[p], counts[b])
            if n < top and pair_wants_more(sub, runs(p), runs(b), preds.get((w.name, col, p, b))):
                grow.update({side: n + 1 for side in (p, b) if counts[side] == n})
        if not grow:
            return counts
        for side, n in grow.items():
            counts[side] = max(counts[side], n)


def plan_runs(study):
    """The power experiment's runs that can be planned now (plan.Study.plan filters those
    done): the scaled workloads' minimum-heap probes once the workloads are chosen, then,
    once their heaps and the predictions are known, the timed runs, repeat by repeat."""
    if KIND not in study.config["experiments"]:
        return []
    ready, top = chosen(study)
    if not ready or not top:
        return []
    names = [n for n, _ in top]
    sub = power_study(study, names)
    runs = sub.minheap_runs() if sub.searching() else []
    known, preds = predictions(study, names)
    if not known:
        return runs
    pairs = pairs_of(sub.config["policies"])
    timed = []
    for w, heap in sub.main_heaps():
        for col in sub.config["collectors"]:
            for policy, n in repeat_counts(sub, w, col, heap, pairs, preds).items():
                timed += [sub.make(KIND, w, policy, col, heap, rep) for rep in range(n)]
    timed.sort(key=lambda r: r.repeat)  # interleaved: repeat 0 of every configuration, then 1, ...
    return runs + timed


def merges(run, config):
    """Whether --merge takes a run of another argset than the study's: the power runs and
    their minimum-heap probes, when the study has the power experiment."""
    return run.argset == ARGSET and run.kind in (KIND, "minheap") and KIND in config["experiments"]


def expected_runs(config, workloads):
    """The power runs at their minimum, for the driver's estimate of the runs to come."""
    if KIND not in config["experiments"]:
        return 0
    n = min(config.get("power_workloads") or DEFAULT_WORKLOADS, len(workloads))
    return n * len(policies_of(pairs_of(config["policies"]))) * len(config["collectors"]) * minimum_repeat(config)


# --- power.csv ----------------------------------------------------------------------------

def power_rows(study, out_dir, rows):
    """power.csv's rows from the results rows (analysis.collect_rows) and the CSVs written
    before it (predicted.csv, alloc_share.csv, summary.csv)."""
    c = study.config
    runs = {}
    for r in rows:
        if r["kind"] == KIND and r["argset"] == ARGSET:
            runs.setdefault((r["workload"], r["collector"], r["policy"]), []).append(r)
    if not runs:
        return []
    share = {(r["workload"], r["collector"], r["policy"]): number(r.get("share_pct"))
             for r in read_csv(os.path.join(out_dir, "alloc_share.csv"))}
    pred = {(r["workload"], r["collector"], r["policy"], r["base"]): number(r.get("predicted"))
            for r in read_csv(os.path.join(out_dir, "predicted.csv"))}
    study_wall = {(r["workload"], r["collector"], r["policy"]): number(r.get("wall_s_mean"))
                  for r in read_csv(os.path.join(out_dir, "summary.csv")) if r["kind"] == "main"}
    workloads = list(dict.fromkeys(w for w, _, _ in runs))
    rank = {w: i + 1 for i, w in enumerate(sorted(workloads, key=lambda w: -workload_share(share, w, c)))}
    out = []
    for w in sorted(workloads, key=rank.get):
        for col in c["collectors"]:
            for p, b in pairs_of(c["policies"]):
                rp, rb = runs.get((w, col, p), []), runs.get((w, col, b), [])
                if not rp and not rb:
                    continue
                row = {"workload": w, "rank": rank[w], "workload_share_pct": workload_share(share, w, c),
                       "collector": col, "policy": p, "base": b, "max_repeat": max_repeat(c),
                       "args": (rp or rb)[0].get("args"), "heap_size": (rp or rb)[0]["heap_size"],
                       "share_base_pct": share.get((w, col, b)), "predicted": pred.get((w, col, p, b)),
                       "study_wall_s_base": study_wall.get((w, col, b))}
                pair_numbers(row, walls(rp), walls(rb), len(rp), len(rb))
                out.append(row)
    significant, adjusted = stats.holm_bonferroni([r.get("p_value") for r in out])
    for r, sig, adj in zip(out, significant, adjusted):
        r["p_holm"] = adj
        r["holm_significant"] = sig if r.get("p_value") is not None else None
    return out


def workload_share(share, workload, config):
    """The share the workload was chosen by: the largest of its pairs' policies' (0 without)."""
    values = [share.get((workload, col, p)) for col in config["collectors"]
              for p in policies_of(pairs_of(config["policies"]))]
    return max([v for v in values if v is not None], default=0.0)


def walls(runs):
    xs = [number(r.get("vm.wall_s")) for r in runs if r["exit_code"] == 0]
    return [x for x in xs if x is not None]


def pair_numbers(row, xp, xb, planned_p, planned_b):
    """The measured side of a row (xp, xb: the wall times of the runs that exited 0) and its
    verdict."""
    row["runs_policy"], row["runs_base"] = len(xp), len(xb)
    row["wall_s_policy"] = sum(xp) / len(xp) if xp else None
    row["wall_s_base"] = sum(xb) / len(xb) if xb else None
    row["measured"], row["ci_low"], row["ci_high"], row["mde"] = measure(xp, xb) if xp and xb else (None,) * 4
    row["log_ratio"], row["p_value"] = stats.welch_log_test(xp, xb) if xp and xb else (None, None)
    prediction = row["predicted"]
    row["mde_target"] = target(prediction)
    notes = []
    if len(xp) < planned_p or len(xb) < planned_b:
        notes.append(f"{planned_p - len(xp) + planned_b - len(xb)} runs did not exit 0")
    if prediction is None:
        row["verdict"] = "no_prediction"
    else:
        row["resolved"] = resolved(prediction, row["mde"])
        row["agrees"] = predicted.inside(row, prediction)
        if row["mde"] and prediction:
            row["runs_to_resolve"] = math.ceil(max(len(xp), len(xb)) * (row["mde"] / row["mde_target"]) ** 2)
        if row["resolved"]:
            row["verdict"] = "agrees" if row["agrees"] else "disagrees"
        else:
            row["verdict"] = "unresolved" if min(len(xp), len(xb)) >= row["max_repeat"] else "unfinished"
    if row.get("ci_low") is None and xp and xb:
        notes.append("no interval")
    row["note"] = "; ".join(notes)


def write_tables(study, out_dir, rows):
    """Writes power.csv when the study has power runs (or had: no stale file is left);
    returns {"power": (rows, columns)}."""
    table = power_rows(study, out_dir, rows)
    path = os.path.join(out_dir, "power.csv")
    if table or os.path.exists(path):
        write_csv(path, table, POWER_COLUMNS)
    return {"power": (table, POWER_COLUMNS)}


# --- the report -----------------------------------------------------------------------------

def pct(x, digits=1):
    return "" if x is None else f"{100 * x:.{digits}f}%"


def report_lines(out_dir, experiments=()):
    """The section "Power: runs long enough to resolve the prediction", from power.csv alone
    (with a line saying why there is nothing when the study has the experiment and no rows)."""
    rows = read_csv(os.path.join(out_dir, "power.csv"))
    if not rows:
        if KIND not in experiments:
            return []
        return ["## Power: runs long enough to resolve the prediction", "",
                "No power runs: they need two of list, knuth and estranged among the policies and their trace "
                "runs (`--experiments` with `trace`, and `cost` for the predictions), and start once those are "
                "done.", ""]
    cap = rows[0]["max_repeat"]
    workloads = list(dict.fromkeys((r["workload"], r["workload_share_pct"], r["args"]) for r in rows))
    L = ["## Power: runs long enough to resolve the prediction", ""]
    L.append(f"The {plural(len(workloads), 'workload')} with the largest allocator share (the largest `share_pct` "
             "of their trace runs, `alloc_share.csv`), each at its `power_args` (the study-size run repeated; "
             "`workloads/suite.tsv`), at the main heap's rule for the scaled run (its own minimum heap searched "
             "again; `heap_size`): " +
             "; ".join(f"{w} ({float(s):.1f}%: `{a}`)" for w, s, a in workloads) + ". Each pair's runs are "
             "timed alone and interleaved, repeated until the 95% interval of the ratio resolves the predicted "
             f"change (its half-width, the MDE, below {RESOLVE_FRACTION:g} x |predicted|) or {cap} runs of each "
             "side. The prediction is `predicted.csv`'s, from the study-size traces: the scaled run's allocator "
             "share and cost ratio are assumed equal to the study-size run's. Every pair: `power.csv`.")
    L.append("")
    body = [[r["workload"], r["collector"], predicted.pair_name(r["policy"], r["base"]),
             f"{r['runs_policy']} / {r['runs_base']}", seconds(r.get("wall_s_base")),
             predicted.signed_pct(number(r.get("predicted"))), predicted.measured_text(r),
             pct(number(r.get("mde"))), pct(number(r.get("mde_target"))),
             {"True": "yes", "False": "no"}.get(r.get("holm_significant"), ""), VERDICTS.get(r["verdict"], "")]
            for r in rows]
    L += markdown_table(["workload", "collector", "pair", "runs P / B", "run time B", "predicted",
                         "measured [95% CI]", "MDE", "MDE to resolve", "≠ 0 (Holm)", "verdict"], body)
    L.append("")
    L += verdict_lines(rows, cap)
    return L


def plural(n, noun):
    return f"{n} {noun}" + ("" if n == 1 else "s")


def seconds(x):
    x = number(x)
    return "" if x is None else f"{x:.2f} s"


def verdict_lines(rows, cap):
    """The counts of each verdict, and the pairs this machine cannot resolve with their MDE."""
    count = {v: [r for r in rows if r["verdict"] == v] for v in VERDICTS}
    resolved_rows = count["agrees"] + count["disagrees"]
    L = [f"**Resolved** {len(resolved_rows)} of {len(rows)} pairs: the prediction inside the interval on "
         f"{len(count['agrees'])}, outside on {len(count['disagrees'])}. Significantly different from zero after "
         f"Holm over the {len([r for r in rows if r.get('p_value')])} tests of the power family: "
         f"{len([r for r in rows if r.get('holm_significant') == 'True'])}."]
    if count["unresolved"]:
        L.append(f"**Cannot be resolved on this machine within {cap} runs** "
                 f"({plural(len(count['unresolved']), 'pair')}; the MDE reached, against the MDE the prediction "
                 "needs, and the runs of each side that would reach it, `runs_to_resolve`): " +
                 "; ".join(f"{r['workload']}/{r['collector']} {predicted.pair_name(r['policy'], r['base'])} "
                           f"MDE {pct(number(r['mde']))} against {pct(number(r['mde_target']))}"
                           + (f", about {r['runs_to_resolve']} runs" if r.get("runs_to_resolve") else "")
                           for r in count["unresolved"]) + ".")
    for v in ("no_prediction", "unfinished"):
        if count[v]:
            L.append(f"**{VERDICTS[v][0].upper() + VERDICTS[v][1:]}**: " +
                     "; ".join(f"{r['workload']}/{r['collector']} {predicted.pair_name(r['policy'], r['base'])}"
                               for r in count[v]) + ".")
    return [x for line in L for x in (line, "")]

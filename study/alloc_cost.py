"""The study's exact allocator cost: each policy replays the trace of its own run.

Three kinds of run (plan.py plans them through plan_runs; their ids follow the study's
scheme, the policy field of a baseline run is `nothing-on-<P>`):
  trace   per workload x policy x collector of the main configuration (same heap, same
          flags as the main run), `kith run --trace=runs/trace/<id>.trace
          --trace-format=binary --stats-file=...` with per-operation timers on: the
          recording, and the study's instrumented latency run.
  cost    once the trace is done: `valgrind --tool=callgrind --cache-sim=yes kith replay --bare`
          of it on the same policy, and on the `nothing` baseline (heap/layers/nothing_heap.h),
          through `python3 -m study cost measure` (below), which writes runs/cost/<id>.json:
          events, allocations, frees and, per function (allocateOne, freeOne: the replay
          loop's only calls into the heap, cli/replay.h), calls and inclusive costs,
          and the command (the callgrind.out file is not kept: ~200 KB each; rerun
          the command on the kept trace to read it with callgrind_annotate).
          Counts are exact: the same trace gives the same numbers on any run, and the
          simulated caches are fixed (CACHES), not the host's.
  replay  the same two replays timed: `kith replay --bare --pretouch
          --stats-file=...`, REPLAY_REPEAT repeats interleaved (timed runs: alone).

Then alloc_cost.csv (per request, the baseline subtracted) and replay_time.csv (ns per
event with 95% intervals), and a report section. Usage as a tool:
  python3 -m study cost measure --kith=KITH --policy=P [--heap-size=BYTES] --out=JSON
                                [--callgrind-out=FILE] TRACE
exits 0, 69 without valgrind, or the replay's own exit code; 64 before anything runs when
--out or --callgrind-out names TRACE or KITH (it would replace it) or both name one file."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study cost measure ...` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from . import predicted
from . import stats
from .common import (ENTRY, PYTHON, fmt, markdown_table, measured_to, number, read_csv, refuse_output_naming_an_input,
                     same_file, usage_error, write_csv)
from .runs import Run, load_stats, run_files

KINDS = ("trace", "cost", "replay")
BASELINE = "nothing"
BASELINE_PREFIX = "nothing-on-"
REPLAY_REPEAT = 10
NO_REPLAY = {"boehm"}  # collects garbage itself: its trace has no frees, replay refuses it
# The simulated caches, fixed so that the counts do not depend on the host: 32 KiB 8-way
# L1 (instructions and data), 8 MiB 16-way last level, 64-byte lines.
CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]
# The replay loop's calls into the heap (cli/replay.h, "Measuring a policy's cost").
# An allocation's cost is allocateOne's plus retryAllocation's (called only when the
# first call fails), per call of allocateOne.
FUNCTIONS = {"allocateOne": "kith::cli::TraceReplayer::allocateOne(",
             "retryAllocation": "kith::cli::TraceReplayer::retryAllocation(",
             "freeOne": "kith::cli::TraceReplayer::freeOne("}


# --- the runs ---------------------------------------------------------------------------

def replay_policy(run):
    """The policy a cost or replay run replays on: its own, or the baseline."""
    return BASELINE if run.policy.startswith(BASELINE_PREFIX) else run.policy


def traced_policy(run):
    """The policy whose trace a cost or replay run replays."""
    return run.policy[len(BASELINE_PREFIX):] if run.policy.startswith(BASELINE_PREFIX) else run.policy


def trace_path(run):
    """runs/trace/<id of the trace run>.trace, relative to the study directory."""
    parts = run.id.split("__")
    parts[0], parts[3], parts[6] = "trace", traced_policy(run), "r0"
    return os.path.join("runs", "trace", "__".join(parts) + ".trace")


def replay_argv(run: Run, kith: str) -> list[str]:
    """The command of a cost or replay run (a trace run is a `kith run`: Run.argv)."""
    if run.kind == "cost":
        return [PYTHON, ENTRY, "cost", "measure", f"--kith={kith}", f"--policy={replay_policy(run)}",
                f"--heap-size={run.heap}", f"--out={run.path('json')}", trace_path(run)]
    return [kith, "replay", "--bare", f"--heap={replay_policy(run)}", f"--heap-size={run.heap}", "--pretouch",
            f"--stats-file={run.path('json')}", trace_path(run)]


def plan_runs(study):
    """The trace runs of every workload whose main heap is known; the cost and replay runs
    of every trace done (exit 0, file present). Replays interleave: repeat 0 of every
    configuration, then repeat 1, ..."""
    c = study.config
    traces, costs, replays = [], [], []
    for w, heap, col, p in study.main_configurations():
        if p in NO_REPLAY:
            continue
        t = study.make("trace", w, p, col, heap, 0)
        traces.append(t)
        if study.done.get(t.id) != 0 or not os.path.exists(os.path.join(study.out, t.path("trace"))):
            continue
        for policy in (p, BASELINE_PREFIX + p):
            costs.append(study.make("cost", w, policy, col, heap, 0))
            for rep in range(c.get("replay_repeat", REPLAY_REPEAT)):
                replays.append(study.make("replay", w, policy, col, heap, rep))
    replays.sort(key=lambda r: r.repeat)
    return traces + costs + replays


# --- measuring one replay under callgrind -----------------------------------------------

def parse_callgrind(path, functions=FUNCTIONS):
    """{short name: {"calls": n, <event>: inclusive cost}} of each function whose name
    contains functions[short name], summed over its call sites, from a callgrind.out file
    (a call's cost line, after `calls=`, is its inclusive cost); also "events" and
    "totals" (the program's). Names may be compressed: `(id) name` defines, `(id)` refers."""
    names = {}
    events, positions = [], 1
    out = {k: {"calls": 0} for k in functions}
    totals = None
    callee = None       # the short name of the function the current cfn= names, or None
    call_pending = False
    with open(path, errors="replace") as f:
        for line in f:
            if not line or line[0] == "#":
                continue
            c0 = line[0]
            if c0.isdigit() or c0 in "+-*":
                if call_pending:
                    call_pending = False
                    if callee:
                        values = line.split()[positions:]
                        d = out[callee]
                        for e, v in zip(events, values):
                            d[e] = d.get(e, 0) + int(v)
                continue
            if line.startswith(("fn=", "cfn=")):
                is_call = line[0] == "c"
                spec = line.split("=", 1)[1].strip()
                m = re.match(r"\((\d+)\)\s*(.*)", spec)
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    name = names.get(m.group(1), "")
                else:
                    name = spec
                if is_call:
                    callee = next((k for k, v in functions.items() if v in name), None)
            elif line.startswith("calls="):
                call_pending = True
                if callee:
                    out[callee]["calls"] += int(line[6:].split()[0])
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("positions:"):
                positions = len(line.split()[1:])
            elif line.startswith(("totals:", "summary:")):
                totals = dict(zip(events, (int(x) for x in line.split()[1:])))
    for d in out.values():
        for e in events:
            d.setdefault(e, 0)
        d["D1miss"] = d.get("D1mr", 0) + d.get("D1mw", 0)
        d["LLmiss"] = d.get("DLmr", 0) + d.get("DLmw", 0)
    return {"functions": out, "events": events, "totals": totals}


REPLAYED = re.compile(r"replayed (\d+) events on \S+ in \S+ s \([^)]*\): (\d+) allocations \((\d+) failed here\), "
                      r"(\d+) frees")


VALGRIND_LINE = re.compile(r"(==|--)\d+(==|--)")


class ReplayFailed(RuntimeError):
    """The replay under callgrind exited with `code` (kith's own exit code)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def valgrind_env():
    """The environment of kith under valgrind: room for jemalloc's static TLS
    (cli/static_tls.h), as kith cannot start itself again with it under valgrind. Every
    policy gets it, so they start alike."""
    tunables = ":".join(filter(None, [os.environ.get("GLIBC_TUNABLES"), "glibc.rtld.optional_static_tls=8192"]))
    return dict(os.environ, GLIBC_TUNABLES=tunables)


def measure(kith, policy, trace, heap_size=None, callgrind_out=None, valgrind="valgrind"):
    """Replays `trace` on `policy` under callgrind; returns the cost record (see the module
    docstring) or raises RuntimeError (ReplayFailed when the replay exited non-zero) with
    a one-line reason."""
    if not shutil.which(valgrind):
        raise FileNotFoundError("valgrind is not installed (Debian package valgrind; scripts/setup installs it)")
    keep = callgrind_out is not None
    if not keep:  # in the temporary directory, not beside the trace (whose directory may not be ours)
        fd, callgrind_out = tempfile.mkstemp(prefix=f"alloc_cost.{policy}.", suffix=".callgrind")
        os.close(fd)
    cmd = [valgrind, "--tool=callgrind", "--cache-sim=yes", *CACHES, f"--callgrind-out-file={callgrind_out}",
           kith, "replay", "--bare", f"--heap={policy}"] + ([f"--heap-size={heap_size}"] if heap_size else []) + [trace]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=valgrind_env())
    seconds = time.monotonic() - start
    try:
        m = REPLAYED.search(p.stdout)
        if p.returncode != 0 or not m:
            if "ASan runtime" in p.stderr or "AddressSanitizer" in p.stderr:
                raise RuntimeError(f"valgrind cannot run {kith}: it is a sanitizer build; measure with a release "
                                   "build (build/release/cli/kith)")
            # kith's own message, not valgrind's lines (which start "==PID==" or "--PID--").
            own = [line for line in p.stderr.strip().splitlines() if line.strip() and not VALGRIND_LINE.match(line)]
            if p.returncode == 0:
                raise RuntimeError(f"replay on {policy} under callgrind printed no summary line")
            raise ReplayFailed(f"replay on {policy} under callgrind exited {p.returncode}: "
                               f"{own[0] if own else 'no message'}", p.returncode)
        parsed = parse_callgrind(callgrind_out)
    finally:
        if not keep and os.path.exists(callgrind_out):
            os.remove(callgrind_out)
    return {"policy": policy, "trace": trace, "heap_size": heap_size, "events": int(m.group(1)),
            "allocations": int(m.group(2)), "failed_allocations": int(m.group(3)), "frees": int(m.group(4)),
            "functions": parsed["functions"], "callgrind_events": parsed["events"], "totals": parsed["totals"],
            "caches": CACHES, "valgrind_s": seconds, "command": cmd}


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m study cost",
                                 description="Replay TRACE on a policy under callgrind; write the cost JSON.")
    ap.add_argument("what", choices=["measure"])
    ap.add_argument("--kith", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--heap-size", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--callgrind-out", default=None)
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    for option, path in (("--out", a.out), ("--callgrind-out", a.callgrind_out)):
        if path is not None:
            refuse_output_naming_an_input("cost measure", option, path, [a.trace, a.kith])
    if a.callgrind_out is not None and same_file(a.out, a.callgrind_out):
        raise usage_error(f"cost measure: --out and --callgrind-out name one file ({a.out})")
    code, record = measured_to(a.out, "alloc_cost",
                               lambda: measure(a.kith, a.policy, a.trace, a.heap_size, a.callgrind_out), ReplayFailed)
    if code:
        return code
    print(f"{a.policy}: {record['allocations']} allocations, {record['frees']} frees; Ir per malloc "
          f"{fmt(per_call(record, 'allocateOne', 'Ir'), 4)}, per free {fmt(per_call(record, 'freeOne', 'Ir'), 4)}; "
          f"callgrind {record['valgrind_s']:.1f} s")
    return 0


# --- the CSVs ---------------------------------------------------------------------------

def per_call(record, function, event):
    """Inclusive cost per call; an allocation's includes the retries' (FUNCTIONS)."""
    fns = record["functions"]
    d = fns[function]
    if not d.get("calls"):
        return None
    extra = fns.get("retryAllocation", {}).get(event, 0) if function == "allocateOne" else 0
    return (d[event] + extra) / d["calls"]


def sub(a, b):
    return a - b if a is not None and b is not None else None


COST_EVENTS = {"ir": "Ir", "d1": "D1miss", "ll": "LLmiss"}


def net_costs(own, base):
    """A policy's own cost per call: {"<ir|d1|ll>_per_<malloc|free>": own minus the baseline's,
    "baseline_<...>": the baseline's}, from two cost records of the same trace."""
    row = {}
    for short, event in COST_EVENTS.items():
        for op, fn in (("malloc", "allocateOne"), ("free", "freeOne")):
            b = per_call(base, fn, event)
            row[f"{short}_per_{op}"] = sub(per_call(own, fn, event), b)
            row[f"baseline_{short}_per_{op}"] = b
    return row


ALLOC_COST_COLUMNS = ["workload", "collector", "policy", "allocations", "frees", "ir_per_malloc", "ir_per_free",
                      "d1_per_malloc", "d1_per_free", "ll_per_malloc", "ll_per_free", "baseline_ir_per_malloc",
                      "baseline_ir_per_free", "ir_per_request", "d1_per_request", "ll_per_request",
                      "ir_ratio_vs_list", "d1_ratio_vs_list", "ll_ratio_vs_list", "baseline_d1_per_malloc",
                      "baseline_d1_per_free", "baseline_ll_per_malloc", "baseline_ll_per_free", "events",
                      "trace_bytes", "valgrind_s", "baseline_valgrind_s"]
REPLAY_TIME_COLUMNS = ["workload", "collector", "policy", "repeats", "ns_per_event_mean", "ci_low", "ci_high",
                       "ns_per_event_median", "baseline_repeats", "baseline_ns_per_event_mean",
                       "net_ns_per_event_mean", "net_ci_low", "net_ci_high", "net_ns_per_event_median", "events"]


def diff_ci(a, b, confidence=stats.CONFIDENCE):
    """(mean(a) - mean(b), low, high): Welch's interval of a difference of means."""
    if not a or not b:
        return None, None, None
    d = sum(a) / len(a) - sum(b) / len(b)
    if len(a) < 2 or len(b) < 2:
        return d, None, None
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    if va + vb == 0:
        return d, d, d
    df = stats.welch_df(va, len(a), vb, len(b))
    t = stats.t_quantile(1 - (1 - confidence) / 2, df if math.isfinite(df) else 1e6)
    half = t * math.sqrt(va + vb)
    return d, d - half, d + half


def alloc_cost_rows(study, out_dir, done):
    cost, replay_ns = {}, {}
    for run_id, rc in done.items():
        r = Run.parse(run_id)
        if not r or r.kind not in ("cost", "replay") or r.argset != study.argset or rc != 0:
            continue
        s = load_stats(out_dir, r)
        if not s:
            continue
        key = (r.workload, r.collector, traced_policy(r), replay_policy(r) == BASELINE)
        if r.kind == "cost":
            cost[key] = (r, s)
        else:
            rp = s.get("replay", {})
            if rp.get("events") and rp.get("wall_s") is not None:
                replay_ns.setdefault(key, []).append((r.repeat, 1e9 * float(rp["wall_s"]) / int(rp["events"]),
                                                      int(rp["events"])))
    workloads = [w.name for w in study.workloads]
    order = {p: i for i, p in enumerate(study.config["policies"])}
    keys = sorted({k[:3] for k in list(cost) + list(replay_ns)},
                  key=lambda k: (workloads.index(k[0]) if k[0] in workloads else len(workloads), k[0], k[1],
                                 order.get(k[2], len(order)), k[2]))
    ac = []
    for w, col, p in keys:
        if (w, col, p, False) not in cost or (w, col, p, True) not in cost:
            continue
        run, own = cost[(w, col, p, False)]
        _, base = cost[(w, col, p, True)]
        row = {"workload": w, "collector": col, "policy": p, "allocations": own["allocations"],
               "frees": own["frees"], "events": own["events"], "valgrind_s": own.get("valgrind_s"),
               "baseline_valgrind_s": base.get("valgrind_s")}
        try:
            row["trace_bytes"] = os.path.getsize(os.path.join(out_dir, trace_path(run)))
        except OSError:
            row["trace_bytes"] = None
        row.update(net_costs(own, base))
        for short in COST_EVENTS:
            m, f = row[f"{short}_per_malloc"], row[f"{short}_per_free"]
            row[f"{short}_per_request"] = m + f if m is not None and f is not None else None
        ac.append(row)
    for row in ac:
        ref = next((x for x in ac if x["workload"] == row["workload"] and x["collector"] == row["collector"]
                    and x["policy"] == "list"), None)
        for short in ("ir", "d1", "ll"):
            num, den = row[f"{short}_per_request"], ref[f"{short}_per_request"] if ref else None
            row[f"{short}_ratio_vs_list"] = num / den if num is not None and den else None
    rt = []
    for w, col, p in keys:
        xs = [x for _, x, _ in sorted(replay_ns.get((w, col, p, False), []))]
        bs = [x for _, x, _ in sorted(replay_ns.get((w, col, p, True), []))]
        if not xs:
            continue
        mean, lo, hi = stats.mean_ci(xs)
        bmean = sum(bs) / len(bs) if bs else None
        net, nlo, nhi = diff_ci(xs, bs)
        rt.append({"workload": w, "collector": col, "policy": p, "repeats": len(xs), "ns_per_event_mean": mean,
                   "ci_low": lo, "ci_high": hi, "ns_per_event_median": stats.median(xs),
                   "baseline_repeats": len(bs), "baseline_ns_per_event_mean": bmean, "net_ns_per_event_mean": net,
                   "net_ci_low": nlo, "net_ci_high": nhi,
                   "net_ns_per_event_median": sub(stats.median(xs), stats.median(bs) if bs else None),
                   "events": replay_ns[(w, col, p, False)][0][2]})
    return ac, rt


def write_tables(study, out_dir):
    """Writes alloc_cost.csv and replay_time.csv; returns them as {name: (rows, columns)}."""
    ac, rt = alloc_cost_rows(study, out_dir, run_files(out_dir))
    write_csv(os.path.join(out_dir, "alloc_cost.csv"), ac, ALLOC_COST_COLUMNS)
    write_csv(os.path.join(out_dir, "replay_time.csv"), rt, REPLAY_TIME_COLUMNS)
    return {"alloc_cost": (ac, ALLOC_COST_COLUMNS), "replay_time": (rt, REPLAY_TIME_COLUMNS)}


# --- the report -------------------------------------------------------------------------

def geomean(xs):
    """The geometric mean of the positive values (None and non-positive left out), or None."""
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def report_lines(out_dir):
    """The report's section on exact allocator cost and replay wall time (Markdown lines),
    from alloc_cost.csv and replay_time.csv alone; empty when neither has rows."""
    ac, rt = read_csv(os.path.join(out_dir, "alloc_cost.csv")), read_csv(os.path.join(out_dir, "replay_time.csv"))
    failed = []
    for kind in ("trace", "cost", "replay"):
        d = os.path.join(out_dir, "runs", kind)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(".rc"):
                with open(os.path.join(d, name)) as f:
                    rc = f.read().strip()
                if rc != "0":
                    failed.append((name[:-3], rc))
    if not ac and not rt and not failed:
        return []
    L = ["## Exact allocator cost (replay under callgrind)", ""]
    L.append("Each policy replays the allocation trace of its own main-configuration run (`trace` runs: same heap, "
             "same collector schedule, so the replay makes exactly the run's allocator calls) under `valgrind "
             "--tool=callgrind --cache-sim=yes` with fixed simulated caches (32 KiB 8-way L1, 8 MiB 16-way LL, "
             "64-byte lines). The figures are the inclusive cost of `TraceReplayer::allocateOne` and `freeOne` "
             "(cli/replay.h) per call, replayed `--bare` (the statistics layer counts nothing: its bookkeeping, "
             "20-35 instructions a request, is the study's instrument, not the policy), minus the same on "
             "`--heap=nothing` (a policy that returns addresses with no memory and frees nothing): the policy's own instructions (Ir) and data-cache misses (D1 = D1mr + "
             "D1mw, LL = DLmr + DLmw). Counts are exact: identical on every run of the same trace. Per request = "
             "one malloc plus one free. Per-malloc and per-free figures: `alloc_cost.csv`.")
    L.append("")
    L += predicted.weighted_lines(out_dir)  # the headline: cheaper on how many workloads, weighted by calls
    if failed:
        L.append("**Trace, cost or replay runs that did not exit 0** (their `.log` says why; exit 69: valgrind "
                 "is not installed):")
        L.append("")
        L += [f"- `{run_id}`: exit {rc}" for run_id, rc in failed]
        L.append("")
    tdir = os.path.join(out_dir, "runs", "trace")
    traces = [os.path.join(tdir, n) for n in os.listdir(tdir) if n.endswith(".trace")] if os.path.isdir(tdir) else []
    cpu = sum((number(r["valgrind_s"]) or 0) + (number(r["baseline_valgrind_s"]) or 0) for r in ac)
    L.append(f"Traces kept under `runs/trace`: {len(traces)} files, "
             f"{sum(os.path.getsize(t) for t in traces) / 1e6:.1f} MB (about a byte an event; delete them when "
             f"the study is done). The callgrind replays took {cpu:.0f} s in all (policy and baseline).")
    L.append("")
    policies = list(dict.fromkeys(r["policy"] for r in ac + rt))
    for col in dict.fromkeys(r["collector"] for r in ac):
        rows = [r for r in ac if r["collector"] == col]
        workloads = list(dict.fromkeys(r["workload"] for r in rows))
        cells = {(r["workload"], r["policy"]): r for r in rows}
        L.append(f"Per request, collector `{col}`: instructions / D1 misses / LL misses (baseline subtracted)")
        L.append("")
        body = []
        for w in workloads:
            line = [w]
            for p in policies:
                r = cells.get((w, p))
                line.append(" / ".join(fmt(number(r[f"{s}_per_request"])) for s in ("ir", "d1", "ll")) if r else "")
            body.append(line)
        # The same workloads for every policy: those every policy that ran them all has a
        # cost on (stats.same_set_geomeans); a policy that did not run them all, marked.
        ran_all = [p for p in policies if all((w, p) in cells for w in workloads)]
        gm, commons = [None] * len(policies), []
        for s in ("ir", "d1", "ll"):
            means, common = stats.same_set_geomeans(
                {p: {w: number(cells[(w, p)][f"{s}_per_request"]) for w in workloads if (w, p) in cells}
                 for p in policies}, ran_all)
            for i, p in enumerate(policies):
                g, _, _, n = means[p]
                part = fmt(g) + (f" ({n} of {common})" if n < common else "") if g else ""
                gm[i] = part if gm[i] is None else gm[i] + " / " + part
            commons.append(str(common))
        body.append([f"**geometric mean** (over {' / '.join(commons)} workloads)"] + gm)
        L += markdown_table(["workload"] + [f"`{p}`" for p in policies], body)
        L.append("")
        ratios = [(p, [number(cells[(w, p)]["ir_ratio_vs_list"]) for w in workloads if (w, p) in cells])
                  for p in policies if p != "list"]
        ratios = [(p, geomean(xs), len([x for x in xs if x and x > 0])) for p, xs in ratios]
        ratios = [(p, g, n) for p, g, n in ratios if g]
        if ratios:
            L.append("Instructions per request against `list` (geometric mean over the workloads both have, how "
                     "many in parentheses): " + ", ".join(f"`{p}` {g:.3g}x ({n})" for p, g, n in ratios) + ".")
            L.append("")
    if rt:
        L.append("Wall-clock replay (`kith replay --bare --pretouch`, timed alone, repeats "
                 "interleaved): ns per trace event minus the `nothing` baseline's mean (Welch 95% interval of the "
                 "difference), so the policy's own time per event; `replay_time.csv` has the raw means and medians.")
        L.append("")
        for col in dict.fromkeys(r["collector"] for r in rt):
            rows = [r for r in rt if r["collector"] == col]
            workloads = list(dict.fromkeys(r["workload"] for r in rows))
            cells = {(r["workload"], r["policy"]): r for r in rows}
            body = []
            for w in workloads:
                line = [w]
                for p in policies:
                    r = cells.get((w, p))
                    if not r:
                        line.append("")
                        continue
                    v, lo, hi = number(r["net_ns_per_event_mean"]), number(r["net_ci_low"]), number(r["net_ci_high"])
                    line.append((f"{v:.3g}" if v is not None else "") +
                                (f" [{lo:.3g}, {hi:.3g}]" if lo is not None and hi is not None else "") +
                                f" (n={r['repeats']})")
                body.append(line)
            L.append(f"Collector `{col}`, ns per event:")
            L.append("")
            L += markdown_table(["workload"] + [f"`{p}`" for p in policies], body)
            L.append("")
    return L

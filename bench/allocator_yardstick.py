#!/usr/bin/python3
"""The allocators' yardstick: each policy's own cost per request on every workload trace
of the suite, exactly, against the allocators people use (mimalloc, jemalloc, glibc).

One trace per workload, the same for every policy: the workload's study size
(workloads/suite.tsv's study_args) run on estranged under occasional collection at twice
estranged's minimum heap (docs/study/minheap.csv, as the study's main runs), recorded with
`kith run --trace-format=binary` (Kith's runs are deterministic, so the traces are too).
Each trace is replayed on each policy under callgrind's fixed cache simulation
(study/alloc_cost.measure, `python3 -m study cost measure`: `kith replay --bare`, the statistics layer counting
nothing), and the same replay on `nothing` (a policy that does nothing) is subtracted:
what is left is the policy's own instructions and simulated misses per malloc and per
free. Every policy replays on the same heap (--replay-heap, or four times the recording
heap, at least 64 MiB), so no request fails for lack of room.

--wall=N adds wall-clock ns per event: N rounds of `kith replay --bare --pretouch`,
every policy and the baseline once per round (interleaved), the baseline's mean
subtracted, with Welch intervals (timed: run it on a quiet machine).

Writes yardstick.csv (and yardstick_wall.csv with --wall) into --out and prints a
Markdown table of instructions per request (malloc + free), with the ratio of each
policy's geometric mean to mimalloc's; --before=CSV (an earlier yardstick.csv) puts
before -> after in each cell.

Exit codes (docs/CLI.md): 0; 64 bad usage; 65 a malformed --before; 66 a missing
input; 69 no valgrind; 70 a replay that failed; 73 --out cannot be written."""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from study import alloc_cost  # noqa: E402
from study.common import StudyError, fmt, number, parse_size, read_csv, write_csv  # noqa: E402
from study.suite import read_suite  # noqa: E402

POLICIES = ["list", "knuth", "estranged", "tlsf", "lea", "kingsley", "malloc", "jemalloc", "mimalloc"]
YARDSTICK = "mimalloc"
RECORDING_POLICY = "estranged"
COLUMNS = ["workload", "policy", "allocations", "frees", "replay_heap", "ir_per_malloc", "ir_per_free",
           "ir_per_request", "d1_per_request", "ll_per_request", "baseline_ir_per_malloc", "baseline_ir_per_free"]
WALL_COLUMNS = ["workload", "policy", "repeats", "events", "net_ns_per_event", "ci_low", "ci_high",
                "baseline_ns_per_event"]
EXIT_USAGE, EXIT_MALFORMED, EXIT_MISSING, EXIT_UNAVAILABLE, EXIT_SOFTWARE, EXIT_CANNOT_CREATE = 64, 65, 66, 69, 70, 73


class Failure(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def recording_heaps(minheap_csv):
    """{workload: bytes}: twice estranged's minimum heap under occasional collection."""
    heaps = {}
    for row in read_csv(minheap_csv):
        if row.get("policy") == RECORDING_POLICY and row.get("collector") == "occasional" \
                and row.get("status") == "found" and number(row.get("min_heap_bytes")):
            heaps[row["workload"]] = int(math.ceil(2 * number(row["min_heap_bytes"]) / 1024) * 1024)
    return heaps


def record(kith, workload, heap, path):
    cmd = [kith, "run", f"--heap={RECORDING_POLICY}", f"--heap-size={heap}", "--gc=occasional",
           f"--trace={path}", "--trace-format=binary", workload.script, *workload.study_args]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise Failure(EXIT_SOFTWARE, f"recording {workload.name} exited {p.returncode}: {tail}")


def replay_heap(args, recorded):
    if args.replay_heap:
        return args.replay_heap
    return max(64 << 20, 4 * recorded)


def cost_row(workload, policy, heap, own, base):
    row = {"workload": workload, "policy": policy, "allocations": own["allocations"], "frees": own["frees"],
           "replay_heap": heap, **alloc_cost.net_costs(own, base)}
    for short in alloc_cost.COST_EVENTS:
        # A request is one malloc and, where the trace frees, one free.
        m, f = row[f"{short}_per_malloc"], row[f"{short}_per_free"]
        row[f"{short}_per_request"] = None if m is None else m + (f or 0)
    return row


def measure_all(args, jobs):
    """[(workload, policy, heap, trace)] -> rows, measured `args.jobs` at a time."""
    from concurrent.futures import ThreadPoolExecutor
    wanted = sorted({(w, heap, trace) for w, _, heap, trace in jobs})
    tasks = [(w, "nothing", heap, trace) for w, heap, trace in wanted] + jobs

    def one(task):
        w, policy, heap, trace = task
        try:
            return task, alloc_cost.measure(args.kith, policy, trace, str(heap))
        except FileNotFoundError as e:
            raise Failure(EXIT_UNAVAILABLE, str(e))
        except RuntimeError as e:
            raise Failure(EXIT_SOFTWARE, f"{w} on {policy}: {e}")

    records = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (w, policy, heap, trace), rec in pool.map(one, tasks):
            records[(w, policy)] = (heap, rec)
            print(f"  {w} on {policy}: {rec['allocations']} allocations, {rec['frees']} frees", file=sys.stderr)
    return [cost_row(w, p, heap, records[(w, p)][1], records[(w, "nothing")][1]) for w, p, heap, _ in jobs]


def wall_rows(args, traces, policies):
    """N interleaved rounds of bare replays; ns per event minus the baseline's."""
    samples, events = {}, {}
    for _ in range(args.wall):
        for w, heap, trace in traces:
            for policy in ["nothing", *policies]:
                with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                    cmd = [args.kith, "replay", "--bare", "--pretouch", f"--heap={policy}", f"--heap-size={heap}",
                           f"--stats-file={tmp.name}", trace]
                    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    if p.returncode != 0:
                        raise Failure(EXIT_SOFTWARE, f"replay of {w} on {policy} exited {p.returncode}")
                    with open(tmp.name) as f:
                        rp = json.load(f).get("replay", {})
                samples.setdefault((w, policy), []).append(1e9 * float(rp["wall_s"]) / int(rp["events"]))
                events[w] = int(rp["events"])
    rows = []
    for w, _, _ in traces:
        base = samples[(w, "nothing")]
        for policy in policies:
            net, lo, hi = alloc_cost.diff_ci(samples[(w, policy)], base)
            rows.append({"workload": w, "policy": policy, "repeats": args.wall, "events": events[w],
                         "net_ns_per_event": net, "ci_low": lo, "ci_high": hi,
                         "baseline_ns_per_event": sum(base) / len(base)})
    return rows


def cell(after, before):
    if before is None:
        return fmt(after, 3)
    return f"{fmt(before, 3)} → {fmt(after, 3)}"


def workload_label(w, rows):
    """The workload's name, and how few frees its trace has when they are under 1% of its
    allocations: its per-request cells add that handful of frees to the mean malloc (read
    ir_per_malloc there), or measure malloc alone when there are none."""
    r = next((r for r in rows if r["workload"] == w), {})
    frees, allocations = int(number(r.get("frees")) or 0), number(r.get("allocations")) or 0
    if frees == 0:
        return f"{w} (no frees)"
    if frees * 100 < allocations:
        return f"{w} ({frees} free{'' if frees == 1 else 's'})"
    return w


def table(rows, before, policies, key="ir_per_request"):
    """Markdown: one row per workload, a cell per policy; then geometric means and ratios."""
    by = {(r["workload"], r["policy"]): number(r.get(key)) for r in rows}
    was = {(r["workload"], r["policy"]): number(r.get(key)) for r in before}
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    lines = ["| workload | " + " | ".join(policies) + " |", "|---|" + "---:|" * len(policies)]
    for w in workloads:
        lines.append(f"| {workload_label(w, rows)} | " + " | ".join(cell(by.get((w, p)), was.get((w, p)) if before else None)
                                              for p in policies) + " |")
    # Means over the workloads that free (a trace without frees measures malloc alone).
    freeing = [w for w in workloads if any(r["workload"] == w and number(r.get("frees")) for r in rows)]
    means = {p: alloc_cost.geomean([by.get((w, p)) for w in freeing]) for p in policies}
    old = {p: alloc_cost.geomean([was.get((w, p)) for w in freeing]) for p in policies} if before else {}
    lines.append("| **geometric mean** (workloads that free) | " +
                 " | ".join(cell(means[p], old.get(p)) for p in policies) + " |")
    ref, old_ref = means.get(YARDSTICK), old.get(YARDSTICK)
    if ref:
        lines.append(f"| **÷ {YARDSTICK}** | " + " | ".join(
            cell(means[p] / ref if means[p] else None,
                 old[p] / old_ref if before and old.get(p) and old_ref else None) for p in policies) + " |")
    return "\n".join(lines)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="allocator_yardstick.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--kith", default=os.path.join(ROOT, "build", "release", "cli", "kith"))
    ap.add_argument("--suite", default=os.path.join(ROOT, "workloads", "suite.tsv"))
    ap.add_argument("--minheap", default=os.path.join(ROOT, "docs", "study", "minheap.csv"),
                    help="estranged's minimum heaps (the study's minheap.csv)")
    ap.add_argument("--traces", default=None, help="where the traces are kept (recorded there when missing)")
    ap.add_argument("--out", default=".", help="directory for yardstick.csv (default: .)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--workloads", default=None, help="comma-separated names (default: every workload)")
    ap.add_argument("--replay-heap", default=None, help="one heap for every replay (default: 4x the recording heap, at least 64M)")
    ap.add_argument("--jobs", default="2", help="callgrind replays at once (default 2)")
    ap.add_argument("--wall", default="0", help="N interleaved timed rounds (default 0: none)")
    ap.add_argument("--before", default=None, help="an earlier yardstick.csv: cells show before -> after")

    def error(message):
        raise Failure(EXIT_USAGE, f"{message} (see --help)")
    ap.error = error
    a = ap.parse_args(argv)
    for name in ("jobs", "wall"):
        v = getattr(a, name)
        if not v.isdigit() or (name == "jobs" and int(v) < 1):
            raise Failure(EXIT_USAGE, f"--{name}={v}: expected a {'positive' if name == 'jobs' else 'non-negative'} integer")
        setattr(a, name, int(v))
    if a.replay_heap is not None:
        try:
            a.replay_heap = parse_size(a.replay_heap)
        except ValueError as e:
            raise Failure(EXIT_USAGE, f"--replay-heap: {e}")
    a.policies = [p for p in a.policies.split(",") if p]
    if not a.policies or len(set(a.policies)) != len(a.policies):
        raise Failure(EXIT_USAGE, "--policies: expected distinct policy names, comma-separated")
    return a


def check_policies(kith, policies):
    p = subprocess.run([kith, "policies"], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(EXIT_MISSING, f"{kith} policies exited {p.returncode}")
    known = {line.split()[0] for line in p.stdout.splitlines() if line.strip() and not line.startswith(" ")}
    unknown = [x for x in policies if x not in known]
    if unknown:
        raise Failure(EXIT_USAGE, f"--policies: {', '.join(unknown)} not among {kith}'s policies")


def run(argv):
    a = parse_args(argv)
    if not (os.path.isfile(a.kith) and os.access(a.kith, os.X_OK)):
        raise Failure(EXIT_MISSING, f"--kith={a.kith}: no such executable (build it: ninja -C build/release kith)")
    if not shutil.which("valgrind"):
        raise Failure(EXIT_UNAVAILABLE, "valgrind is not installed (Debian package valgrind; scripts/setup installs it)")
    check_policies(a.kith, a.policies)
    for path, what in ((a.suite, "--suite"), (a.minheap, "--minheap")):
        if not os.path.isfile(path):
            raise Failure(EXIT_MISSING, f"{what}={path}: no such file")
    before = []
    if a.before:
        if not os.path.isfile(a.before):
            raise Failure(EXIT_MISSING, f"--before={a.before}: no such file")
        before = read_csv(a.before)
        if not before or not {"workload", "policy", "ir_per_request"} <= set(before[0]):
            raise Failure(EXIT_MALFORMED, f"--before={a.before}: not a yardstick.csv (no workload, policy, "
                                          "ir_per_request columns)")
    try:
        workloads, _ = read_suite(a.suite)
    except StudyError as e:
        raise Failure(e.code, str(e))
    if a.workloads:
        names = a.workloads.split(",")
        missing = [n for n in names if n not in {w.name for w in workloads}]
        if missing:
            raise Failure(EXIT_USAGE, f"--workloads: {', '.join(missing)} not in {a.suite}")
        workloads = [w for w in workloads if w.name in names]
    heaps = recording_heaps(a.minheap)
    try:
        os.makedirs(a.out, exist_ok=True)
        trace_dir = a.traces or os.path.join(a.out, "traces")
        os.makedirs(trace_dir, exist_ok=True)
    except OSError as e:
        raise Failure(EXIT_CANNOT_CREATE, f"cannot create {e.filename}: {e.strerror}")
    traces = []
    for w in workloads:
        if w.name not in heaps:
            print(f"allocator_yardstick: {w.name}: no minimum heap for {RECORDING_POLICY} in {a.minheap}; left out",
                  file=sys.stderr)
            continue
        path = os.path.join(trace_dir, f"{w.name}.trace")
        if not os.path.exists(path):
            record(a.kith, w, heaps[w.name], path)
        traces.append((w.name, replay_heap(a, heaps[w.name]), path))
    jobs = [(w, p, heap, trace) for w, heap, trace in traces for p in a.policies]
    rows = measure_all(a, jobs)
    try:
        write_csv(os.path.join(a.out, "yardstick.csv"), rows, COLUMNS)
        if a.wall:
            write_csv(os.path.join(a.out, "yardstick_wall.csv"), wall_rows(a, traces, a.policies), WALL_COLUMNS)
    except OSError as e:
        raise Failure(EXIT_CANNOT_CREATE, f"cannot write into {a.out}: {e.strerror}")
    print(table(rows, before, a.policies))
    return 0


def main(argv):
    try:
        return run(argv)
    except Failure as e:
        print(f"allocator_yardstick: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

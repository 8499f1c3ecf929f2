"""The study's golden numbers: a small subset of its runs whose exact numbers are committed,
so that a change to a policy or a collector that moves a published number cannot go
unnoticed (CTest study.golden_counts and study.golden_costs).

docs/study/golden.csv, the counts: 5 workloads at small sizes x every policy the study runs
(common.DEFAULT_POLICIES) x 2 collectors (continuous with --gc-pacing=work, whose counts are
identical run to run), each at a fixed heap that makes every run collect several times
(twice it for kingsley, which never coalesces). Kept: the requests by outcome, allocations,
frees, bytes, cycles, and the steps per request (steps.csv's numbers: count, mean, max and
the whole histogram, from which the 99th percentile comes), never times.

docs/study/golden_costs.csv, the exact allocator costs: binary_trees' trace recorded on each
policy (as the study's trace runs record it) and replayed under callgrind on that policy
and on the `nothing` baseline (alloc_cost.measure, as the study's cost runs do): the calls
and inclusive instructions of the replay's calls into the heap, which alloc_cost.csv divides.

  python3 -m study golden --check KITH [--golden CSV]            rerun the counts, compare
  python3 -m study golden --costs --check KITH [--golden CSV]    rerun the costs under callgrind, compare
  python3 -m study golden --update KITH                          rerun both and rewrite both CSVs
Exit codes: 0 match/written, 1 numbers differ or a run failed, 2 usage, 77 --costs without
valgrind (skipped, saying so: never passed)."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study golden ...` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from . import alloc_cost
from .common import DEFAULT_POLICIES, SOURCE_DIR

GOLDEN = os.path.join(SOURCE_DIR, "docs", "study", "golden.csv")
GOLDEN_COSTS = os.path.join(SOURCE_DIR, "docs", "study", "golden_costs.csv")
SKIPPED = 77  # CTest's SKIP_RETURN_CODE

# (workload, script, arguments, heap bytes): heaps that make every configuration collect
# several times and none fail. The AWFY benchmarks run through golden_awfy.kith, not the
# harness, whose timing lines make byte counts vary with the clock.
WORKLOADS = [
    ("binary_trees", "examples/binary_trees.kith", ["10"], 1 << 20),
    ("json", "study/golden_awfy.kith", ["Json", "3"], 1 << 20),
    ("storage", "study/golden_awfy.kith", ["Storage", "8"], 1 << 20),
    ("sieve", "study/golden_awfy.kith", ["Sieve", "30"], 256 << 10),
    # Arrays longer than the continuous marker's piece (256 slots), marked a piece at a
    # time: its slice count depends on the marking order, which the other three did not
    # show (the markers' prefetch FIFO moved cd's continuous counts, not theirs).
    ("cd", "study/golden_awfy.kith", ["CD", "100"], 400 << 10),
]
POLICIES = list(DEFAULT_POLICIES)  # every policy the study runs
# Kingsley rounds every block up to a power of two and never coalesces, so it runs out at
# the heaps above; at twice them it still collects at least twice in every run.
HEAP_FACTOR = {"kingsley": 2}
COLLECTORS = ["occasional", "continuous"]
KEY_COLUMNS = ["workload", "args", "policy", "collector", "heap_size"]
COUNTS = ["heap.allocations", "heap.frees", "heap.bytes_requested", "heap.bytes_allocated", "heap.peak_bytes_in_use",
          "heap.satisfied.immediate", "heap.satisfied.split", "heap.satisfied.glue", "heap.satisfied.defrag",
          "heap.satisfied.failed", "gc.cycles", "gc.objects_freed", "gc.bytes_freed"]
# Steps per request (heap/statistics/step_histogram.h), as steps.csv reads them; a policy
# that counts none (malloc; free on list and kingsley) leaves them empty.
STEPS = [f"heap.steps.{op}.{k}" for op in ("malloc", "free") for k in ("count", "mean", "max", "histogram")]
COLUMNS = KEY_COLUMNS + COUNTS + STEPS
# The system allocator's block sizes (malloc_usable_size) depend on the state of the C
# library's heap, which the whole process shares (stdio, the C++ runtime): they vary run to
# run (cd: bytes allocated by +-0.03%, even without address randomisation), and so does the
# collection schedule they pace. malloc's golden row holds the requests alone; its other
# counts say VARIES and are not compared.
VARIES = "varies"
NOT_REPRODUCIBLE = {"malloc": [c for c in COUNTS if c not in ("heap.allocations", "heap.bytes_requested")]}

# The replays costed: binary_trees' trace on each policy that replays (a collector that
# frees nothing itself, boehm, does not), under occasional collection at the counts' heap.
COST_WORKLOAD = WORKLOADS[0]
COST_COLLECTOR = "occasional"
COST_KEYS = ["workload", "args", "traced_on", "replayed_on", "collector", "heap_size"]
COST_COUNTS = ["events", "allocations", "frees", "malloc_calls", "malloc_ir", "free_calls", "free_ir"]
COST_COLUMNS = COST_KEYS + COST_COUNTS
REGENERATE = (f"/usr/bin/python3 study/golden.py --update build/release/cli/kith (then regenerate docs/study and "
              f"docs/STUDY.md: the published numbers no longer hold)")


class RunFailed(Exception):
    pass


def lookup(stats, dotted):
    v = stats
    for part in dotted.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


def cell(column, value):
    """A statistic as the CSV holds it: counts as integers, a mean as the JSON prints it, a
    histogram as 'bucket:requests ...' in bucket order; '' when the run did not count it."""
    if value is None:
        return ""
    if column.endswith(".histogram"):
        return " ".join(f"{b}:{value[b]}" for b in sorted(value, key=int))
    if column.endswith(".mean"):
        return repr(float(value))
    return str(int(value))


def kith_run(kith, argv, what):
    """Runs `kith ARGV` in the source tree; RunFailed naming `what` unless it exits 0."""
    try:
        r = subprocess.run([kith] + argv, capture_output=True, text=True, timeout=300, cwd=SOURCE_DIR)
    except (OSError, subprocess.SubprocessError) as e:
        raise RunFailed(f"cannot run {kith}: {e}")
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        raise RunFailed(f"{what}: kith exited {r.returncode}: {tail[0]}")


def run_argv(policy, collector, heap, script, args, *extra):
    argv = ["run", f"--heap={policy}", f"--gc={collector}", f"--heap-size={heap}", *extra]
    if collector == "continuous":
        argv.append("--gc-pacing=work")
    return argv + [os.path.join(SOURCE_DIR, script)] + args


def run_counts(kith, workload, script, args, heap, policy, collector, tmp):
    """The counts of one run, as strings (as the CSV holds them)."""
    stats_file = os.path.join(tmp, f"{workload}-{policy}-{collector}.json")
    kith_run(kith, run_argv(policy, collector, heap, script, args, "--stats-timers=off", f"--stats-file={stats_file}"),
             f"{workload}/{policy}/{collector}")
    with open(stats_file) as f:
        stats = json.load(f)
    row = {"workload": workload, "args": " ".join(args), "policy": policy, "collector": collector,
           "heap_size": str(heap)}
    for c in COUNTS + STEPS:
        row[c] = VARIES if c in NOT_REPRODUCIBLE.get(policy, ()) else cell(c, lookup(stats, c))
    return row


def current_counts(kith):
    rows = []
    with tempfile.TemporaryDirectory(prefix="kith-golden-") as tmp:
        for workload, script, args, heap in WORKLOADS:
            for policy in POLICIES:
                for collector in COLLECTORS:
                    rows.append(run_counts(kith, workload, script, args, heap * HEAP_FACTOR.get(policy, 1), policy,
                                           collector, tmp))
    return rows


def cost_row(record, workload, args, traced_on, heap):
    fns = record["functions"]
    return {"workload": workload, "args": " ".join(args), "traced_on": traced_on, "replayed_on": record["policy"],
            "collector": COST_COLLECTOR, "heap_size": str(heap), "events": str(record["events"]),
            "allocations": str(record["allocations"]), "frees": str(record["frees"]),
            "malloc_calls": str(fns["allocateOne"]["calls"]),
            "malloc_ir": str(fns["allocateOne"]["Ir"] + fns["retryAllocation"]["Ir"]),  # as alloc_cost.per_call
            "free_calls": str(fns["freeOne"]["calls"]), "free_ir": str(fns["freeOne"]["Ir"])}


def current_costs(kith):
    """The exact costs: each policy's own trace replayed on it and on the baseline."""
    workload, script, args, heap = COST_WORKLOAD
    rows = []
    with tempfile.TemporaryDirectory(prefix="kith-golden-costs-") as tmp:
        for policy in POLICIES:
            if policy in alloc_cost.NO_REPLAY:
                continue
            h = heap * HEAP_FACTOR.get(policy, 1)
            trace = os.path.join(tmp, f"{policy}.trace")
            kith_run(kith, run_argv(policy, COST_COLLECTOR, h, script, args, f"--trace={trace}",
                                    "--trace-format=binary"), f"{workload}/{policy} trace")
            for replayed_on in (policy, alloc_cost.BASELINE):
                try:
                    record = alloc_cost.measure(kith, replayed_on, trace, h)
                except RuntimeError as e:
                    raise RunFailed(f"{workload}/{policy} trace on {replayed_on}: {e}")
                rows.append(cost_row(record, workload, args, policy, h))
    return rows


def differences(golden, current, keys=KEY_COLUMNS, values=COUNTS + STEPS, name_keys=("policy", "collector"),
                close=None):
    """Every cell that differs, as 'workload/policy/collector column: golden X, now Y'.
    close: {(column of the row's policy, policy): (columns, relative tolerance)}, the cells
    compared within a tolerance instead of exactly."""
    def key(row):
        return tuple(row.get(k, "") for k in keys)

    def name(row):
        return "/".join([row["workload"]] + [row[k] for k in name_keys])

    out = []
    now = {key(r): r for r in current}
    then = {key(r): r for r in golden}
    for k, g in then.items():
        c = now.get(k)
        if c is None:
            out.append(f"{name(g)} (args {g['args']}, heap {g['heap_size']}): in the golden file, no longer run")
            continue
        for col in values:
            if g.get(col, "") != c[col] and g.get(col) != VARIES and not within(g, c, col, close or {}):
                out.append(f"{name(g)} {col}: golden {g.get(col, '') or '(none)'}, now {c[col] or '(none)'}")
    for k, c in now.items():
        if k not in then:
            out.append(f"{name(c)} (args {c['args']}, heap {c['heap_size']}): run now, not in the golden file")
    return out


def within(golden, current, col, close):
    """Whether a cell that differs is one compared within a tolerance, and inside it."""
    for (policy_column, policy), (columns, tolerance) in close.items():
        if golden.get(policy_column) == policy and col in columns:
            try:
                g, c = float(golden[col]), float(current[col])
            except (TypeError, ValueError):
                return False
            return abs(c - g) <= tolerance * abs(g)
    return False


def write(path, rows, columns):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def check(path, current, what, **how):
    """0 when `current` equals the golden rows in path, else 1 naming every differing cell."""
    try:
        with open(path, newline="") as f:
            golden = list(csv.DictReader(f))
    except OSError as e:
        print(f"golden: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 1
    diffs = differences(golden, current, **how)
    if diffs:
        print(f"golden: {len(diffs)} {what} differ from {os.path.relpath(path, SOURCE_DIR)} "
              f"(the study's published numbers are stale):", file=sys.stderr)
        for d in diffs:
            print(f"  {d}", file=sys.stderr)
        print(f"If the change is intended, regenerate: {REGENERATE}", file=sys.stderr)
        return 1
    print(f"golden: {len(current)} rows of {what} match {path}")
    return 0


# glibc malloc's own instructions depend, as its block sizes do (NOT_REPRODUCIBLE above),
# on the C library's heap, which the replaying process shares: a change to how kith itself
# allocates (its option tables, say) moves them by a few hundred in millions: 134 in 18.5M
# with the option tables, 275 with issue 44's interpreter (its larger opcode tables and
# frames). Its costs are compared within one part in 10,000 (1,853 of binary_trees'
# 18.5M), which a change of one instruction a call in Kith's adapter (135,896 malloc calls
# there) still exceeds 70-fold.
COST_TOLERANCE = {("replayed_on", "malloc"): (["malloc_ir", "free_ir"], 1e-4)}
COST_HOW = {"keys": COST_KEYS, "values": COST_COUNTS, "name_keys": ("traced_on", "replayed_on"),
            "close": COST_TOLERANCE}


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m study golden", description="Check or update the study's golden numbers.")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", metavar="KITH", help="rerun the golden subset with KITH and compare")
    mode.add_argument("--update", metavar="KITH", help="rerun the golden subset with KITH and rewrite both CSVs")
    ap.add_argument("--costs", action="store_true",
                    help="--check the exact costs under callgrind (golden_costs.csv), not the counts")
    ap.add_argument("--golden", default=None,
                    help="the golden CSV to check (default docs/study/golden.csv, with --costs golden_costs.csv)")
    a = ap.parse_args(argv)
    kith = os.path.abspath(a.check or a.update)
    if not os.access(kith, os.X_OK):
        print(f"golden: {kith} is not an executable kith", file=sys.stderr)
        return 2
    if a.update and (a.costs or a.golden):
        print("golden: --update rewrites both docs/study/golden.csv and golden_costs.csv; no --costs or --golden",
              file=sys.stderr)
        return 2
    valgrind = shutil.which("valgrind")
    try:
        if a.check and a.costs:
            if not valgrind:
                print("golden: skipped: valgrind is not installed (Debian package valgrind; scripts/setup installs "
                      "it), so the exact costs cannot be measured")
                return SKIPPED
            return check(a.golden or GOLDEN_COSTS, current_costs(kith), "exact costs", **COST_HOW)
        if a.check:
            return check(a.golden or GOLDEN, current_counts(kith), "counts")
        counts = current_counts(kith)
        costs = current_costs(kith) if valgrind else None
    except RunFailed as e:
        print(f"golden: a golden run failed: {e}", file=sys.stderr)
        return 1
    write(GOLDEN, counts, COLUMNS)
    print(f"golden: wrote {len(counts)} configurations x {len(COUNTS + STEPS)} counts to {GOLDEN}")
    if costs is None:
        print(f"golden: valgrind is not installed: {GOLDEN_COSTS} kept as it was", file=sys.stderr)
        return 1
    write(GOLDEN_COSTS, costs, COST_COLUMNS)
    print(f"golden: wrote {len(costs)} replays' exact costs to {GOLDEN_COSTS}")
    return 0

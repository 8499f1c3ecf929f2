#!/usr/bin/python3
"""The study's golden counts: a small subset of its runs whose counts are committed in
docs/study/golden.csv, so that a change to a policy or a collector that moves a
published number cannot go unnoticed (CTest study.golden_counts runs --check).

The subset: 5 workloads at small sizes x 5 policies x 2 collectors (continuous with
--gc-pacing=work, whose counts are identical run to run), each at a fixed heap that
makes every run collect several times (twice it for kingsley). Only counts are kept
(requests by outcome, allocations, frees, bytes, cycles), never times.

  golden.py --check KITH [--golden CSV]    rerun, compare; exit 1 naming every differing cell
  golden.py --update KITH [--golden CSV]   rerun and rewrite the CSV
Exit codes: 0 match/written, 1 counts differ or a run failed, 2 usage."""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(SOURCE_DIR, "docs", "study", "golden.csv")

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
POLICIES = ["list", "knuth", "estranged", "lea", "kingsley"]
# Kingsley rounds every block up to a power of two and never coalesces, so it runs out at
# the heaps above; at twice them it still collects at least twice in every run.
HEAP_FACTOR = {"kingsley": 2}
COLLECTORS = ["occasional", "continuous"]
KEY_COLUMNS = ["workload", "args", "policy", "collector", "heap_size"]
COUNTS = ["heap.allocations", "heap.frees", "heap.bytes_requested", "heap.bytes_allocated", "heap.peak_bytes_in_use",
          "heap.satisfied.immediate", "heap.satisfied.split", "heap.satisfied.glue", "heap.satisfied.defrag",
          "heap.satisfied.failed", "gc.cycles", "gc.objects_freed", "gc.bytes_freed"]
REGENERATE = (f"/usr/bin/python3 study/golden.py --update build/release/cli/kith (then regenerate docs/study and "
              f"docs/STUDY.md: the published counts no longer hold)")


def lookup(stats, dotted):
    v = stats
    for part in dotted.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


def run_counts(kith, workload, script, args, heap, policy, collector, tmp):
    """The counts of one run, as strings (as the CSV holds them)."""
    stats_file = os.path.join(tmp, f"{workload}-{policy}-{collector}.json")
    argv = [kith, "run", f"--heap={policy}", f"--gc={collector}", f"--heap-size={heap}", "--stats-timers=off",
            f"--stats-file={stats_file}"]
    if collector == "continuous":
        argv.append("--gc-pacing=work")
    argv += [os.path.join(SOURCE_DIR, script)] + args
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=SOURCE_DIR)
    except (OSError, subprocess.SubprocessError) as e:
        raise SystemExit(f"golden: cannot run {kith}: {e}")
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        raise RunFailed(f"{workload}/{policy}/{collector}: kith exited {r.returncode}: {tail[0]}")
    with open(stats_file) as f:
        stats = json.load(f)
    row = {"workload": workload, "args": " ".join(args), "policy": policy, "collector": collector,
           "heap_size": str(heap)}
    for c in COUNTS:
        v = lookup(stats, c)
        row[c] = "" if v is None else str(int(v))
    return row


class RunFailed(Exception):
    pass


def current_counts(kith):
    rows = []
    with tempfile.TemporaryDirectory(prefix="kith-golden-") as tmp:
        for workload, script, args, heap in WORKLOADS:
            for policy in POLICIES:
                for collector in COLLECTORS:
                    rows.append(run_counts(kith, workload, script, args, heap * HEAP_FACTOR.get(policy, 1), policy,
                                           collector, tmp))
    return rows


def key(row):
    return tuple(row[k] for k in KEY_COLUMNS)


def differences(golden, current):
    """Every cell that differs, as 'workload/policy/collector column: golden X, now Y'."""
    out = []
    now = {key(r): r for r in current}
    then = {key(r): r for r in golden}
    for k, g in then.items():
        name = f"{g['workload']}/{g['policy']}/{g['collector']}"
        c = now.get(k)
        if c is None:
            out.append(f"{name} (args {g['args']}, heap {g['heap_size']}): in the golden file, no longer run")
            continue
        for col in COUNTS:
            if g.get(col, "") != c[col]:
                out.append(f"{name} {col}: golden {g.get(col, '') or '(none)'}, now {c[col] or '(none)'}")
    for k, c in now.items():
        if k not in then:
            out.append(f"{c['workload']}/{c['policy']}/{c['collector']} (args {c['args']}, heap {c['heap_size']}): "
                       f"run now, not in the golden file")
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="golden.py", description="Check or update the study's golden counts.")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", metavar="KITH", help="rerun the golden subset with KITH and compare")
    mode.add_argument("--update", metavar="KITH", help="rerun the golden subset with KITH and rewrite the CSV")
    ap.add_argument("--golden", default=GOLDEN, help="the golden CSV (default docs/study/golden.csv)")
    a = ap.parse_args(argv)
    kith = os.path.abspath(a.check or a.update)
    if not os.access(kith, os.X_OK):
        print(f"golden: {kith} is not an executable kith", file=sys.stderr)
        return 2
    try:
        current = current_counts(kith)
    except RunFailed as e:
        print(f"golden: a golden run failed: {e}", file=sys.stderr)
        return 1
    if a.update:
        tmp = a.golden + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, KEY_COLUMNS + COUNTS)
            w.writeheader()
            w.writerows(current)
        os.replace(tmp, a.golden)
        print(f"golden: wrote {len(current)} configurations x {len(COUNTS)} counts to {a.golden}")
        return 0
    try:
        with open(a.golden, newline="") as f:
            golden = list(csv.DictReader(f))
    except OSError as e:
        print(f"golden: cannot read {a.golden}: {e.strerror}", file=sys.stderr)
        return 1
    diffs = differences(golden, current)
    if diffs:
        print(f"golden: {len(diffs)} counts differ from {os.path.relpath(a.golden, SOURCE_DIR)} "
              f"(the study's published numbers are stale):", file=sys.stderr)
        for d in diffs:
            print(f"  {d}", file=sys.stderr)
        print(f"If the change is intended, regenerate: {REGENERATE}", file=sys.stderr)
        return 1
    print(f"golden: {len(current)} configurations x {len(COUNTS)} counts match {a.golden}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""A stand-in for the kith binary with known answers, for testing the study driver
(`python3 -m study --kith=fake_kith.py`) fast and exactly.

`run` succeeds iff --heap-size is at least MIN_HEAP[script name] * FACTOR[policy], else
prints "error: out of memory: ..." and exits 70, like kith. It writes a statistics JSON
(CLI.md's keys) whose wall time depends only on policy, collector and heap size (times the
script's second argument where it has one: a repeat count, as the suite's power_args), whose
peak_live_bytes is LIVE[script name], and, with --gc-pauses-file, a pause list.
`bench contrived --json`, `policies` and `--version` answer as kith does.
Environment, for tests of the driver's analysis: FAKE_KITH_NOISE=w1,w2 makes those
workloads' wall times 20% faster or slower on alternate repeats (from the run id in
--stats-file), never inside +-3% (w:0.05: by that fraction instead); FAKE_KITH_SHARE=w=0.3,...
makes the allocator's share of those workloads' wall time (alloc_ns and free_ns x the calls)
that fraction; FAKE_KITH_SPANS=FILE appends "begin|end KIND TIME" of every run, with 50 ms
between, to see which runs overlapped; FAKE_KITH_FACTORS=list=2.0,... overrides FACTOR;
FAKE_KITH_RUNLOG=FILE appends "PID ARGS" of every `run` as it starts and FAKE_KITH_SLEEP=S makes
each `run` take S seconds more, to see which runs ran and which processes outlive a signal;
FAKE_KITH_SIGBLK=FILE appends the signal mask each `run` starts with (/proc/self/status's
SigBlk, hex), to see that the driver hands its runs no blocked signal; FAKE_KITH_COMMIT=C makes
--version name commit C (as kith names the commit it was built from; empty: "commit unknown"),
which is COMMIT otherwise: one clean build, whatever the state of the source tree. With --frag-file
it writes a kith-frag file (frag_lines: FRAG_CYCLES collections) whose free bytes in the
requested classes (32 and 64 bytes, as in the size histogram) depend on policy and
collector, as the study's demog runs need."""

import json
import os
import re
import sys
import time

COMMIT = "5ca1ab1e0000"
MIN_HEAP = {"alpha": 3_000_000, "beta": 700_000}
LIVE = {"alpha": 2_000_000, "beta": 400_000}
FACTOR = {"list": 1.0, "knuth": 1.5, "estranged": 1.5, "tlsf": 1.1, "kingsley": 2.0, "lea": 1.05, "malloc": 0.0}
# Where the immediate requests' blocks came from, for the policies kith tracks it for (else null).
IMMEDIATE_SOURCE = {"estranged": {"recycled": 850, "leftover": 50}, "knuth": {"recycled": 40, "leftover": 460},
                    "kingsley": {"recycled": 500, "leftover": 0}}
SPEED = {"list": 1.0, "knuth": 0.9, "estranged": 0.8, "tlsf": 0.85, "kingsley": 0.7, "lea": 0.95, "malloc": 1.2}


def stats_json(policy, collector, heap, workload, wall, share=None, sources=True):
    # the mean latency of a malloc and of a free: 20 and 15 ns, or both what makes the share
    # (the run's 1000 mallocs and 900 frees take that fraction of its wall time)
    per_call = share * wall * 1e9 / (1000 + 900) if share is not None else None
    return {"policy": policy, "collector": collector, "heap_size": heap,
            "heap": {"allocations": 1000, "frees": 900, "bytes_requested": 48000, "bytes_allocated": 64000,
                     "bytes_in_use": 6400, "peak_bytes_in_use": min(heap, 2 * LIVE[workload]),
                     "failed_allocations": 0, "size_histogram": {"32": 300, "64": 600, "4096": 100},
                     "satisfied": {"immediate": 900 if policy == "estranged" else 500,
                                   "split": 100 if policy == "estranged" else 500, "glue": 0, "defrag": 0,
                                   "failed": 0},
                     "immediate_source": IMMEDIATE_SOURCE.get(policy) if sources else None,
                     "alloc_ns": {"mean": per_call or 20.0, "p50": 18, "p99": 40, "max": 900},
                     "free_ns": {"mean": per_call or 15.0, "p50": 14, "p99": 30, "max": 700},
                     "fragmentation": {"internal_bytes": 16000, "external_at_failure": 0}},
            "gc": {"cycles": 10, "objects_freed": 900, "bytes_freed": 57600,
                   "pause_ms": {"total": 12.5, "mean": 1.25, "p99": 2.0, "max": 2.0},
                   "mmu": {"1ms": 0, "10ms": 0.5, "100ms": 0.9}, "peak_live_bytes": LIVE[workload]},
            "handle_table": {"bytes": 4096, "chunks": 1, "live": 100},
            "vm": {"instructions": 123456, "objects_created": 1000, "wall_s": wall}}


FRAG_CYCLES = 5
FRAG_CLASSES = [16 << k for k in range(9)]  # 16 B ... 4 KiB


def frag_lines(policy, collector, heap):
    """A --frag-file: after each collection, estranged keeps 100 blocks of 32 and of 64 bytes
    free, knuth 10 under continuous collection and none under occasional; the rest of the
    free space is one 4 KiB block."""
    kept = 100 if policy == "estranged" else 10 if collector == "continuous" else 0
    lines = ["# kith-frag 1", f"# policy {policy}", f"# heap_bytes {heap}", "# by_class yes",
             "\t".join(["cycle", "bytes_allocated", "in_use", "free", "largest_free"] +
                       [f"free_{k}" for k in FRAG_CLASSES])]
    for cycle in range(FRAG_CYCLES):
        free = {k: 0 for k in FRAG_CLASSES}
        free[32], free[64], free[4096] = kept * 32, kept * 64, 4096
        values = [cycle, (cycle + 1) * 10000, 6400, sum(free.values()), 4096] + [free[k] for k in FRAG_CLASSES]
        lines.append("\t".join(str(v) for v in values))
    return "\n".join(lines) + "\n"


def named_values(variable, default=None):
    """{name: value} of an environment variable "name[:value],..." or "name=value,..."."""
    out = {}
    for item in filter(None, os.environ.get(variable, "").split(",")):
        name, _, value = item.replace("=", ":").partition(":")
        out[name] = float(value) if value else default
    return out


def run(args):
    opts = {"--heap": "estranged", "--gc": "occasional", "--heap-size": str(64 << 20)}
    i = 0
    while i < len(args) and args[i].startswith("--"):
        k, _, v = args[i].partition("=")
        opts[k] = v
        i += 1
    script = args[i]
    workload = os.path.splitext(os.path.basename(script))[0]
    heap = int(opts["--heap-size"])
    policy, collector = opts["--heap"], opts["--gc"]
    factors = dict(FACTOR)
    for item in filter(None, os.environ.get("FAKE_KITH_FACTORS", "").split(",")):
        name, _, value = item.partition("=")
        factors[name] = float(value)
    ok = heap >= MIN_HEAP[workload] * factors[policy]
    wall = SPEED[policy] * (1.0 + (0.5 if collector == "continuous" else 0.0)) * (1 + 1_000_000 / heap)
    if len(args) > i + 2:  # a repeat count
        wall *= float(args[i + 2])
    noise = named_values("FAKE_KITH_NOISE", 0.2)
    if workload in noise:
        m = re.search(r"__r(\d+)", opts.get("--stats-file", ""))
        wall *= 1 + noise[workload] if m and int(m.group(1)) % 2 else 1 - noise[workload]
    print(f"{workload} {' '.join(args[i + 1:])}")
    runlog = os.environ.get("FAKE_KITH_RUNLOG")
    if runlog:
        with open(runlog, "a") as f:
            f.write(f"{os.getpid()} {' '.join(args)}\n")
    sigblk = os.environ.get("FAKE_KITH_SIGBLK")
    if sigblk:
        with open("/proc/self/status") as status, open(sigblk, "a") as f:
            f.write(next(line.split()[1] for line in status if line.startswith("SigBlk:")) + "\n")
    time.sleep(float(os.environ.get("FAKE_KITH_SLEEP", "0")))
    spans = os.environ.get("FAKE_KITH_SPANS")
    if spans:
        kind = os.path.basename(os.path.dirname(opts.get("--stats-file", "runs/none/x")))
        with open(spans, "a") as f:
            f.write(f"begin {kind} {time.monotonic()}\n")
        time.sleep(0.05)
        with open(spans, "a") as f:
            f.write(f"end {kind} {time.monotonic()}\n")
    if "--stats-file" in opts:
        with open(opts["--stats-file"], "w") as f:
            share = named_values("FAKE_KITH_SHARE").get(workload)
            json.dump(stats_json(policy, collector, heap, workload, wall, share,
                                 opts.get("--stats-sources") != "off"), f)
    if "--frag-file" in opts:
        with open(opts["--frag-file"], "w") as f:
            f.write(frag_lines(policy, collector, heap))
    if "--gc-pauses-file" in opts:
        with open(opts["--gc-pauses-file"], "w") as f:
            # Occasional's in format 1 (wall time alone), continuous's in format 2 (and the
            # thread's CPU time, a little less, and the work units): the study reads both.
            if collector == "occasional":
                f.write(f"# kith-gc-pauses 1\n# collector {collector}\n# run_ns 100000000\n# start_ns duration_ns\n")
                for k in range(10):
                    f.write(f"{k * 10_000_000} 1000000\n")
            else:
                f.write(f"# kith-gc-pauses 2\n# collector {collector}\n# run_ns 100000000\n# run_cpu_ns 90000000\n"
                        "# start_ns duration_ns cpu_start_ns cpu_ns work\n")
                for k in range(10):
                    f.write(f"{k * 10_000_000} 100000 {k * 9_000_000} 60000 1024\n")
    if not ok:
        print("error: out of memory: requested 64 bytes", file=sys.stderr)
        return 70
    return 0


def main(argv):
    if argv[:1] == ["--version"]:
        commit = os.environ.get("FAKE_KITH_COMMIT", COMMIT)
        print(f"kith 0.0.0-fake ({commit or 'commit unknown'})")
        return 0
    if argv[:1] == ["policies"]:
        for p in FACTOR:
            print(f"{p:<10} a policy")
        for c in ("occasional", "continuous", "none"):
            print(f"{c:<10} collector: a collector")
        return 0
    if argv[:2] == ["bench", "contrived"]:
        heap = int([a for a in argv if a.startswith("--heap-size=")][0].split("=")[1])
        print(json.dumps({"n": heap // 64, "object_bytes": 32, "request_bytes": 1024, "repetitions": 5,
                          "list_ns": heap / 100, "knuth_ns": 1000.0, "estranged_ns": 900.0, "tlsf_ns": 500.0}))
        return 0
    if argv[:1] == ["run"]:
        return run(argv[1:])
    print(f"fake kith: unexpected {argv}", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

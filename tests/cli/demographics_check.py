#!/usr/bin/env python3
"""Object demographics from the command line: `kith trace lifetimes` and
`kith run --frag-file` agree with the run they describe.

usage: demographics_check.py KITH SCRIPT [ARGS...]

lifetimes: records SCRIPT with --trace (estranged, occasional collection at a
small heap) and --stats-file; `kith trace lifetimes --json` on the trace must
count the run's allocations and frees, its allocation clock must be the run's
bytes requested, and the histogram must hold every freed object, sorted by age.

frag-file: runs SCRIPT on knuth, estranged, list, tlsf, lea and kingsley under
both collectors with --frag-file; the file has its header, one line per cycle
the statistics count, and every line keeps free + in_use <= heap, largest_free
<= free, the free_<S> columns summing to free, bytes_allocated never falling.

Prints "ok" or the first problem (exit 1).
"""
import json
import os
import subprocess
import sys
import tempfile

HEAP = "2M"
HEAP_BYTES = 2 << 20


def fail(message):
    sys.exit("FAIL: " + message)


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p


def check_lifetimes(kith, script, tmp):
    trace, stats = os.path.join(tmp, "run.trace"), os.path.join(tmp, "run.json")
    p = run([kith, "run", "--heap=estranged", "--heap-size=" + HEAP, "--trace=" + trace,
             "--stats-file=" + stats] + script)
    if p.returncode != 0:
        fail(f"kith run --trace exited {p.returncode}: {p.stderr.strip()}")
    with open(stats) as f:
        heap = json.load(f)["heap"]
    p = run([kith, "trace", "lifetimes", "--json", trace])
    if p.returncode != 0:
        fail(f"kith trace lifetimes exited {p.returncode}: {p.stderr.strip()}")
    got = json.loads(p.stdout)
    expect = {"objects": heap["allocations"], "freed": heap["frees"],
              "live_at_end": heap["allocations"] - heap["frees"],
              "bytes_allocated": heap["bytes_requested"]}
    for key, value in expect.items():
        if got[key] != value:
            fail(f"lifetimes {key} is {got[key]}, the run says {value}")
    if heap["frees"] == 0:
        fail("the workload freed nothing: pick one that collects at " + HEAP)
    ages = [b["age_bytes_le"] for b in got["histogram"]]
    if ages != sorted(set(ages)):
        fail("histogram not sorted by age")
    if sum(b["objects"] for b in got["histogram"]) != got["freed"]:
        fail("histogram objects do not add up to freed")
    if sum(b["bytes"] for b in got["histogram"]) != got["freed_bytes"]:
        fail("histogram bytes do not add up to freed_bytes")
    if got["freed_bytes"] + got["live_at_end_bytes"] != got["bytes_allocated"]:
        fail("freed_bytes + live_at_end_bytes != bytes_allocated")
    # The table form reads the same trace, from standard input.
    with open(trace, "rb") as f:
        p = subprocess.run([kith, "trace", "lifetimes", "-"], stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if p.returncode != 0 or f"freed            {got['freed']} " not in p.stdout:
        fail("kith trace lifetimes - (stdin) disagrees with the file: " + p.stdout[:200] + p.stderr)


def check_frag(kith, script, tmp, policy, collector):
    frag, stats = os.path.join(tmp, "frag.tsv"), os.path.join(tmp, "frag.json")
    p = run([kith, "run", "--heap=" + policy, "--heap-size=" + HEAP, "--gc=" + collector,
             "--gc-pacing=work", "--frag-file=" + frag, "--stats-file=" + stats] + script)
    where = f"{policy}/{collector}"
    if p.returncode not in (0, 70):  # 70: out of memory (kingsley never coalesces)
        fail(f"{where}: kith run --frag-file exited {p.returncode}: {p.stderr.strip()}")
    with open(stats) as f:
        cycles = json.load(f)["gc"]["cycles"]
    with open(frag) as f:
        lines = f.read().splitlines()
    if lines[:4] != ["# kith-frag 1", "# policy " + policy, f"# heap_bytes {HEAP_BYTES}", "# by_class yes"]:
        fail(f"{where}: header is {lines[:4]}")
    columns = lines[4].split("\t")
    classes = [c for c in columns if c.startswith("free_")]
    if columns[:5] != ["cycle", "bytes_allocated", "in_use", "free", "largest_free"] or \
            classes != [f"free_{1 << k}" for k in range(4, 22)]:
        fail(f"{where}: columns are {columns}")
    rows = [dict(zip(columns, map(int, line.split("\t")))) for line in lines[5:]]
    if len(rows) != cycles or cycles == 0:
        fail(f"{where}: {len(rows)} lines for {cycles} cycles")
    previous = 0
    for i, r in enumerate(rows):
        if r["cycle"] != i:
            fail(f"{where}: line {i} is cycle {r['cycle']}")
        if r["free"] + r["in_use"] > HEAP_BYTES:
            fail(f"{where} cycle {i}: free {r['free']} + in_use {r['in_use']} > heap")
        if r["largest_free"] > r["free"]:
            fail(f"{where} cycle {i}: largest_free {r['largest_free']} > free {r['free']}")
        if sum(r[c] for c in classes) != r["free"]:
            fail(f"{where} cycle {i}: classes add up to {sum(r[c] for c in classes)}, free is {r['free']}")
        if r["bytes_allocated"] < previous:
            fail(f"{where} cycle {i}: bytes_allocated fell")
        previous = r["bytes_allocated"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kith, script = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        check_lifetimes(kith, script, tmp)
        for policy in ["knuth", "estranged", "list", "tlsf", "lea", "kingsley"]:
            for collector in ["occasional", "continuous"]:
                check_frag(kith, script, tmp, policy, collector)
    print("ok")


if __name__ == "__main__":
    main()

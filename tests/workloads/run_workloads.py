#!/usr/bin/env python3
"""The workload suite (workloads/suite.tsv) at its small size, as tests.

usage: run_workloads.py KITH SUITE_TSV REPO_ROOT [--only=NAME,...] [--policies=P,...]
                        [--collection-policies=P,...] [--no-stress] [--jobs=N]

For each workload:
  1. policies: runs on every heap policy `kith policies` lists (default collector);
     stdout must be identical on all (timings masked: `123us`, `45 msec`, `0.5 ms`);
  2. collectors: on estranged and knuth, with occasional and continuous collection, in
     a heap small enough that at least 3 collections happen (the first of 4M, 2M, 1M,
     512K, 256K, 128K, 96K, 80K, 64K, 8M, 16M, 32M that runs with >= 3 cycles, read from --stats-file;
     sizes above twice the bytes the reference run allocated are tried last; continuous
     collection paced by work, so the cycles do not depend on the host's load); same
     stdout again;
  3. stress: once with --gc-stress (estranged, continuous: a slice before every
     allocation) in that heap, with the row's `stress_args` column if it has one ("-"
     skips it: a workload whose smallest verified size is too big for stress in CI).
Each run must exit 0. Prints one line per check and `N passed, M failed`.
--policies narrows step 1 to those policies, --collection-policies step 2 (default
estranged,knuth); the sanitizer build's CTest uses both: the whole matrix runs in the
release build, and CI has a time budget. --no-stress leaves out step 3 (the sanitizer
build: --gc-stress under ASan takes minutes per workload; the release build runs it).
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "study"))
from common import parse_size  # noqa: E402  (the study's reading of 64M, 512K, ...)

TIMING = re.compile(r"\d+(\.\d+)?\s*(us|msec|ms|s)\b")
COLLECTION_HEAPS = ["4M", "2M", "1M", "512K", "256K", "128K", "96K", "80K", "64K", "8M", "16M", "32M"]  # small first


def read_suite(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def masked(text):
    return TIMING.sub("<time>", text)


def run(kith, root, row, flags, stats=False, timeout=600):
    cmd = [kith, "run", *flags]
    stats_file = None
    if stats:
        stats_file = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
        cmd.append(f"--stats-file={stats_file}")
    cmd += [os.path.join(root, row["script"]), *row["small_args"].split()]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=root)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s", None
    out = p.stdout.decode("utf-8", errors="replace")
    err = p.stderr.decode("utf-8", errors="replace").strip()[:300]
    stats_json = None
    if stats_file:
        try:
            with open(stats_file) as f:
                stats_json = json.load(f)
        except (OSError, ValueError):
            pass
        os.unlink(stats_file)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {err!r}", stats_json
    return masked(out), None, stats_json


def cycles_of(stats_json):
    try:
        return stats_json["gc"]["cycles"]
    except (TypeError, KeyError):
        return None


def heaps_to_try(bytes_allocated):
    """COLLECTION_HEAPS, with the sizes that could hold three collections first.

    A heap of more than twice what the whole run allocates cannot fill three times,
    so those sizes come last (still tried: the estimate is the reference run's)."""
    if not bytes_allocated:
        return COLLECTION_HEAPS
    likely = [s for s in COLLECTION_HEAPS if parse_size(s) <= 2 * bytes_allocated]
    return likely + [s for s in COLLECTION_HEAPS if s not in likely]


def policies(kith):
    out = subprocess.run([kith, "policies"], capture_output=True, text=True).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return [n for n in names if n not in ("occasional", "continuous", "none")]


def check_workload(kith, root, row, all_policies, collection_policies, stress=True):
    results = []  # (ok, description)
    reference, error, reference_stats = run(kith, root, row, ["--heap=estranged"], stats=True)
    if error:
        return [(False, f"{row['name']} estranged: {error}")]
    bytes_allocated = (reference_stats or {}).get("heap", {}).get("bytes_allocated")
    for policy in all_policies:
        if policy == "estranged":  # the reference run itself
            results.append((True, f"{row['name']} --heap=estranged"))
            continue
        out, error, _ = run(kith, root, row, [f"--heap={policy}"])
        ok = error is None and out == reference
        results.append((ok, f"{row['name']} --heap={policy}" + ("" if ok else f": {error or 'output differs'}")))
    stress_heap = "4M"
    for policy in collection_policies:
        for collector in ("occasional", "continuous"):
            chosen = None
            for size in heaps_to_try(bytes_allocated):
                # The continuous collector paced by work, not time: the cycles it completes are then
                # the same on a loaded host (time pacing did fewer, and treeadd on knuth found no heap
                # with three while a study ran beside the tests).
                pacing = ["--gc-pacing=work"] if collector == "continuous" else []
                out, error, stats_json = run(kith, root, row, [f"--heap={policy}", f"--gc={collector}",
                                                               f"--heap-size={size}", *pacing], stats=True)
                cycles = cycles_of(stats_json)
                if error is None and cycles is not None and cycles >= 3:
                    chosen = (size, out, cycles)
                    break
            if chosen is None:
                results.append((False, f"{row['name']} {policy}+{collector}: no heap of "
                                       f"{'/'.join(COLLECTION_HEAPS)} ran with >= 3 collections"))
                continue
            size, out, cycles = chosen
            if policy == "estranged" and collector == "continuous":
                stress_heap = size
            ok = out == reference
            results.append((ok, f"{row['name']} {policy}+{collector} --heap-size={size} ({cycles} cycles)" +
                                ("" if ok else ": output differs")))
    if not stress:
        return results
    stress_args = row.get("stress_args", "")
    if stress_args == "-":
        results.append((True, f"{row['name']} --gc-stress: skipped (stress_args '-')"))
        return results
    stress_row = dict(row, small_args=stress_args or row["small_args"])
    reference_row = reference if not stress_args else run(kith, root, stress_row, ["--heap=estranged"])[0]
    out, error, _ = run(kith, root, stress_row, ["--heap=estranged", "--gc=continuous", f"--heap-size={stress_heap}",
                                                 "--gc-stress"])
    ok = error is None and out == reference_row
    results.append((ok, f"{row['name']} --gc-stress --heap-size={stress_heap}" +
                        ("" if ok else f": {error or 'output differs'}")))
    return results


def main(argv):
    kith, suite, root = argv[0], argv[1], argv[2]
    only, jobs, wanted_policies, collection_policies, stress = None, 2, None, ["estranged", "knuth"], True
    for a in argv[3:]:
        if a.startswith("--only="):
            only = set(a[len("--only="):].split(","))
        elif a.startswith("--policies="):
            wanted_policies = a[len("--policies="):].split(",")
        elif a.startswith("--collection-policies="):
            collection_policies = a[len("--collection-policies="):].split(",")
        elif a == "--no-stress":
            stress = False
        elif a.startswith("--jobs="):
            jobs = int(a[len("--jobs="):])
    rows = [r for r in read_suite(suite) if only is None or r["name"] in only]
    if not rows:
        print("0 passed, 0 failed (no workloads listed)")
        return 0
    all_policies = policies(kith)
    if wanted_policies:
        all_policies = [p for p in all_policies if p in wanted_policies]
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(lambda r: check_workload(kith, root, r, all_policies, collection_policies, stress), rows):
            for ok, text in results:
                print(("ok   " if ok else "FAIL ") + text, flush=True)
                passed += ok
                failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

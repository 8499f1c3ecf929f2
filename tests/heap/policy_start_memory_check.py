#!/usr/bin/env python3
"""A policy's fixed cost follows what the program uses, not the heap's size: under
every policy `kith policies` lists, `print("ok");` run with --heap-size=16G keeps at
most GROWTH more resident memory (peak RSS, measured by max_rss) than with
--heap-size=16M, and stays under LIMIT. Defero's per-page tables of every size class
once took 2.4 GB (and 3 s) of a 16 GiB heap before the first allocation; Velox's and
Medius's page tables 16-19 MB.  usage: policy_start_memory_check.py MAX_RSS KITH"""
import os
import subprocess
import sys
import tempfile

GROWTH = 4 << 20  # bytes the 16G run may hold beyond the 16M run
LIMIT = 64 << 20  # bytes either run may hold


def policies(kith):
    """The first word of each `kith policies` line up to the collectors."""
    out = subprocess.run([kith, "policies"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.split() and "collector:" not in line]


def run(max_rss, kith, policy, size):
    """Exit code, stdout, stderr and peak resident bytes of one run of print("ok");."""
    with tempfile.TemporaryDirectory() as d:
        peak = os.path.join(d, "peak")
        p = subprocess.run([max_rss, peak, kith, "run", f"--heap={policy}", f"--heap-size={size}", "-"],
                           input=b'print("ok");\n', capture_output=True, timeout=120)
        with open(peak) as f:
            return p.returncode, p.stdout, p.stderr, int(f.read()) * 1024  # Linux gives KiB


def main():
    max_rss, kith = sys.argv[1], sys.argv[2]
    failures = []
    for policy in policies(kith):
        small = run(max_rss, kith, policy, "16M")
        large = run(max_rss, kith, policy, "16G")
        line = f"{policy}: max RSS {small[3] >> 10} KiB at 16M, {large[3] >> 10} KiB at 16G"
        print(line)
        for code, out, err, _ in (small, large):
            if code != 0 or out != b"ok\n":
                failures.append(f"{policy}: exit {code}, stdout {out!r}, stderr {err[:200]!r}")
        if large[3] - small[3] > GROWTH or max(small[3], large[3]) > LIMIT:
            failures.append(line + f" (at most {GROWTH >> 20} MiB more, {LIMIT >> 20} MiB in all)")
    for f in failures:
        print("FAIL", f)
    if not failures:
        print("ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

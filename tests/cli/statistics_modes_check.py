#!/usr/bin/env python3
"""A run that asks for no statistics keeps only the heap's bytes in use; it must behave
as a run that keeps every count.

usage: statistics_modes_check.py KITH SCRIPT [ARGS...]

Runs SCRIPT under the continuous collector with work pacing (its schedule depends only on
bytes in use and bytes allocated) and --gc-log, once without statistics and once with
--stats-file --stats-timers=off, and checks the same program output and the same
collections: each --gc-log line the same but for its times. Then that a script reading
System.heapStats() without --stats sees real counts. Prints "ok" or what differs; exit 1
on a difference.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TIMES = re.compile(r"\[[0-9.]+s\]|[0-9.]+ms")


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(argv)} exited {p.returncode}\n{p.stderr}")
    return p


def main():
    kith, script, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    common = [kith, "run", "--heap=kingsley", "--heap-size=2M", "--gc=continuous", "--gc-pacing=work", "--gc-log"]
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        plain = run(common + [script] + args)
        counted = run(common + ["--stats-file=" + stats_path, "--stats-timers=off", script] + args)
        with open(stats_path) as f:
            stats = json.load(f)
        probe = os.path.join(tmp, "probe.kith")
        with open(probe, "w") as f:
            f.write('let a = [1, 2, 3];\nlet s = System.heapStats();\n'
                    'print(s.get("allocations") > 0, s.get("bytes_allocated") >= s.get("bytes_in_use"));\n')
        shown = run([kith, "run", "--heap=kingsley", probe])
    problems = []
    if plain.stdout != counted.stdout:
        problems.append("the program's output differs with --stats-file")
    plain_log = [TIMES.sub("T", line) for line in plain.stderr.splitlines()]
    counted_log = [TIMES.sub("T", line) for line in counted.stderr.splitlines()]
    if plain_log != counted_log:
        problems.append(f"the collections differ:\n  without: {plain_log[:3]}\n  with: {counted_log[:3]}")
    cycles = stats["gc"]["cycles"]
    if cycles < 2 or len(counted_log) != cycles:
        problems.append(f"expected one --gc-log line per cycle and at least 2 cycles: {len(counted_log)} lines, "
                        f"{cycles} cycles")
    if stats["heap"]["allocations"] == 0:
        problems.append("--stats-file reported no allocations")
    if shown.stdout != "true true\n":
        problems.append(f"System.heapStats() without --stats: {shown.stdout!r}")
    if problems:
        print("FAIL: " + "\n".join(problems))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Replay matches the run it was recorded from.

usage: replay_vs_run.py KITH POLICY HEAP_SIZE SCRIPT [ARGS...]

Runs SCRIPT with `kith run --heap=POLICY --heap-size=HEAP_SIZE --gc=none
--trace=T --stats-file=R`, replays T with `kith replay` on the same policy and
heap, and checks that every count of the `heap` block is identical: allocations,
frees, bytes requested and allocated, peak in use, failed allocations, the size
histogram, and how each request was satisfied. Then the same for the trace as
text (`kith trace dump`), and for a second run recording text directly
(--trace-format=text). Prints "ok" or what differs; exit 1 on a difference,
77 (skipped) when this build does not have POLICY.
"""
import json
import os
import subprocess
import sys
import tempfile

COUNTS = ["allocations", "frees", "bytes_requested", "bytes_allocated", "bytes_in_use",
          "peak_bytes_in_use", "failed_allocations", "size_histogram", "satisfied"]


def run(argv, **kwargs):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(argv)} exited {p.returncode}\n{p.stderr}")
    return p


def heap_block(path):
    with open(path) as f:
        stats = json.load(f)
    return stats


# glibc's malloc shares its heap with the rest of the process (the VM's handle table
# and compiler in the run, the trace reader in the replay), so the usable size of a
# block it hands out depends on what else the process allocated: for `malloc` only
# the counts that do not depend on block sizes are compared.
BLOCK_SIZE_COUNTS = {"bytes_allocated", "bytes_in_use", "peak_bytes_in_use", "size_histogram"}


def compare(what, run_stats, replay_stats):
    problems = []
    for key in COUNTS:
        if run_stats["policy"] == "malloc" and key in BLOCK_SIZE_COUNTS:
            continue
        a, b = run_stats["heap"].get(key), replay_stats["heap"].get(key)
        if a != b:
            problems.append(f"{what}: heap.{key}: run {a}, replay {b}")
    return problems


def main():
    kith, policy, heap_size, script, *args = sys.argv[1:]
    listed = subprocess.run([kith, "policies"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    if policy not in [line.split()[0] for line in listed.splitlines() if line.split()]:
        print(f"SKIP: {policy} is not in this build (kith policies)")
        return 77
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "run.trace")
        text_trace = os.path.join(tmp, "run.txt")
        common = [f"--heap={policy}", f"--heap-size={heap_size}"]
        run_json = os.path.join(tmp, "run.json")
        run([kith, "run", *common, "--gc=none", f"--trace={trace}", f"--stats-file={run_json}", script, *args])
        run_stats = heap_block(run_json)
        if run_stats["heap"]["allocations"] == 0:
            problems.append("the run allocated nothing")

        replay_json = os.path.join(tmp, "replay.json")
        out = run([kith, "replay", *common, f"--stats-file={replay_json}", trace]).stdout
        replay_stats = heap_block(replay_json)
        problems += compare("binary", run_stats, replay_stats)
        if "gc" in replay_stats or "vm" in replay_stats:
            problems.append("replay's JSON has a gc or vm block")
        if replay_stats["replay"]["format"] != "binary":
            problems.append(f"replay read the trace as {replay_stats['replay']['format']}")
        if not out.startswith("replayed "):
            problems.append(f"replay's summary line: {out!r}")

        with open(text_trace, "w") as f:
            subprocess.run([kith, "trace", "dump", trace], stdout=f, check=True)
        replay_text_json = os.path.join(tmp, "replay_text.json")
        run([kith, "replay", *common, f"--stats-file={replay_text_json}", text_trace])
        problems += compare("dumped text", run_stats, heap_block(replay_text_json))

        # The run recording text itself (a second run: compared with its own counts,
        # since a script that prints times may allocate other string sizes).
        recorded_text = os.path.join(tmp, "recorded.txt")
        run_text_json = os.path.join(tmp, "run_text.json")
        run([kith, "run", *common, "--gc=none", f"--trace={recorded_text}", "--trace-format=text",
             f"--stats-file={run_text_json}", script, *args])
        with open(recorded_text) as f:
            if f.readline() != "# kith-trace 1\n":
                problems.append("--trace-format=text did not write the text encoding")
        replay_recorded_json = os.path.join(tmp, "replay_recorded.json")
        run([kith, "replay", *common, f"--stats-file={replay_recorded_json}", recorded_text])
        problems += compare("recorded text", heap_block(run_text_json), heap_block(replay_recorded_json))

    if problems:
        print("\n".join(problems))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

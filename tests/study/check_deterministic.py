"""Reproducible runs: with --gc-pacing=work (continuous) and with occasional, running
one workload three times gives identical counts — every number in the statistics JSON
except times (alloc_ns, free_ns, pause_ms, pause_cpu_ms, mmu, mmu_cpu, wall_s, startup_s, arena_s,
and host_gap: what the host took from the pauses). The heap is small, so the
collectors run many cycles. Usage: check_deterministic.py KITH SCRIPT [ARGS...].
Exits non-zero on failure. CTest: study.deterministic_counts."""

import json
import os
import subprocess
import sys
import tempfile

TIME_KEYS = {"alloc_ns", "free_ns", "pause_ms", "pause_cpu_ms", "mmu", "mmu_cpu", "host_gap", "wall_s", "startup_s",
             "arena_s"}


def counts(d):
    if isinstance(d, dict):
        return {k: counts(v) for k, v in d.items() if k not in TIME_KEYS}
    return d


def differences(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += differences(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if a == b else [f"{path}: {a} vs {b}"]


kith, script, args = sys.argv[1], sys.argv[2], sys.argv[3:]
failed = False
with tempfile.TemporaryDirectory() as tmp:
    for collector in ("occasional", "continuous"):
        for policy in ("estranged", "list"):
            runs = []
            for i in range(3):
                path = os.path.join(tmp, f"{collector}-{policy}-{i}.json")
                cmd = [kith, "run", f"--heap={policy}", f"--gc={collector}", "--heap-size=2M", f"--stats-file={path}"]
                if collector == "continuous":
                    cmd.append("--gc-pacing=work")
                r = subprocess.run(cmd + [script] + args, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr[-500:]}")
                    failed = True
                    continue
                runs.append(counts(json.load(open(path))))
            if len(runs) < 3:
                continue
            cycles = runs[0]["gc"]["cycles"]
            if cycles < 5:
                print(f"FAIL: {collector}/{policy}: only {cycles} cycles; the check needs a busy collector")
                failed = True
            for i in (1, 2):
                d = differences(runs[0], runs[i])
                if d:
                    print(f"FAIL: {collector}/{policy}: run {i + 1} differs from run 1: " + "; ".join(d[:8]))
                    failed = True
            if collector == "continuous" and runs[0]["gc"].get("deferred_slices", 0) != 0:
                print(f"FAIL: work pacing deferred slices: {runs[0]['gc']['deferred_slices']}")
                failed = True
            print(f"{collector}/{policy}: {cycles} cycles, "
                  f"{runs[0]['gc'].get('slices', '-')} slices, counts {'identical' if not failed else 'checked'}")
sys.exit(1 if failed else 0)

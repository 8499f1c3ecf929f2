"""Whole-run counts: each main configuration run once under cachegrind, so that a timed
difference between two policies has a counted companion for the whole run, not only for
the allocator (predicted.py compares the three).

The kind `wholerun`, not in the default --experiments (each run costs 20-100 times its
native time; `--experiments=...,wholerun` adds it): per workload x policy x collector of
the main configuration, one `kith run` with the main runs' flags (the same heap,
--pretouch, --stats-timers=off, the continuous collector paced by work, so it does the
main runs' work) under `valgrind --tool=cachegrind --cache-sim=yes` with alloc_cost.py's
fixed simulated caches, through
  python3 -m study whole-run measure --out=JSON -- KITH run ARGS...
which adds --stats-file (a temporary file) to the kith command, and writes JSON: kith's
statistics with "cachegrind" (the whole process's totals: Ir, I1mr, ILmr, Dr, D1mr, DLmr,
Dw, D1mw, DLmw) and "valgrind_s". It exits 0, 69 without valgrind, or kith's own code;
64 before anything runs when --out names a file of the kith command (kith, the script,
an argument or an option's value), which it would replace.
The counts cover the whole process (start-up, compiling, running, writing the
statistics); they repeat to within a few hundred instructions in millions, as the run
writes its own times, whose digits vary.

whole_run.csv (write_tables): per configuration, the run's allocations, frees and GC
cycles, counts_match_main (they equal the main runs' repeat 0: the same work was
counted), instructions, I1, D1 and LL misses, and estimated cycles with predicted.py's
penalties: Ir + D1_PENALTY (I1 + D1 misses) + LL_PENALTY LL misses."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study whole-run measure ...` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .alloc_cost import CACHES, VALGRIND_LINE, parse_callgrind, valgrind_env
from .common import ENTRY, PYTHON, measured_to, num, refuse_output_naming_an_input, write_csv
from .predicted import D1_PENALTY, LL_PENALTY
from .runs import Run

KIND = "wholerun"
WHOLE_RUN_COLUMNS = ["workload", "collector", "policy", "heap_size", "exit_code", "allocations", "frees", "gc_cycles",
                     "counts_match_main", "ir", "i1_misses", "d1_misses", "ll_misses", "cycles", "valgrind_s"]
MATCHED_COUNTS = ("heap.allocations", "heap.frees", "gc.cycles")


# --- the runs ---------------------------------------------------------------------------

def plan_runs(study):
    """One run per main configuration of every workload whose main heap is known."""
    return [study.make(KIND, w, p, col, heap, 0) for w, heap, col, p in study.main_configurations()]


def measure_argv(run: Run, kith_argv: list[str]) -> list[str]:
    """The run's command: this module measuring `kith_argv` (a kith run without --stats-file)."""
    return [PYTHON, ENTRY, "whole-run", "measure", f"--out={run.path('json')}", "--"] + list(kith_argv)


# --- one run under cachegrind -----------------------------------------------------------

class RunFailed(RuntimeError):
    """kith under cachegrind exited with `code`."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def measure(kith_argv, valgrind="valgrind"):
    """Runs kith_argv (`KITH run OPTIONS... SCRIPT ARGS...`) under cachegrind; returns kith's
    statistics with "cachegrind" and "valgrind_s", or raises FileNotFoundError (no valgrind),
    RunFailed (kith exited non-zero) or RuntimeError, each with a one-line reason."""
    if len(kith_argv) < 3 or kith_argv[1] != "run":
        raise RuntimeError("wants a kith run command: KITH run OPTIONS... SCRIPT [ARGS...]")
    if not shutil.which(valgrind):
        raise FileNotFoundError("valgrind is not installed (Debian package valgrind; scripts/setup installs it)")
    with tempfile.TemporaryDirectory(prefix="kith-wholerun.") as tmp:
        out, stats_file = os.path.join(tmp, "cachegrind.out"), os.path.join(tmp, "stats.json")
        cmd = [valgrind, "--tool=cachegrind", "--cache-sim=yes", *CACHES, f"--cachegrind-out-file={out}",
               kith_argv[0], "run", f"--stats-file={stats_file}", *kith_argv[2:]]
        print(" ".join(cmd), flush=True)  # the exact command, in the run's .log
        start = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=valgrind_env())
        seconds = time.monotonic() - start
        if p.returncode != 0:
            own = [line for line in p.stderr.strip().splitlines() if line.strip() and not VALGRIND_LINE.match(line)]
            raise RunFailed(f"kith under cachegrind exited {p.returncode}: {own[0] if own else 'no message'}",
                            p.returncode)
        totals = parse_callgrind(out, functions={})["totals"]
        if not totals or "Ir" not in totals:
            raise RuntimeError("cachegrind wrote no totals")
        with open(stats_file) as f:
            record = json.load(f)
    record["cachegrind"] = totals
    record["valgrind_s"] = seconds
    return record


def named_files(kith_argv):
    """Every path the kith command (`KITH run OPTIONS... SCRIPT ARGS...`) may name: kith
    itself, its operands (the script and the script's arguments) and the values of its
    options; a word that names no file is harmless here (--out is compared with each)."""
    words = kith_argv[:1] + [w.partition("=")[2] if w.startswith("-") else w for w in kith_argv[2:]]
    return [w for w in words if w]


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m study whole-run",
                                 description="Run a kith run under cachegrind; write its statistics and counts.")
    ap.add_argument("what", choices=["measure"])
    ap.add_argument("--out", required=True)
    split = argv.index("--") if "--" in argv else len(argv)  # the kith command follows `--`
    a = ap.parse_args(argv[:split])
    kith_argv = argv[split + 1:]
    refuse_output_naming_an_input("whole-run measure", "--out", a.out, named_files(kith_argv))
    code, record = measured_to(a.out, "whole_run", lambda: measure(kith_argv), RunFailed)
    if code:
        return code
    print(f"{record['cachegrind']['Ir']:,} instructions; cachegrind {record['valgrind_s']:.1f} s")
    return 0


# --- the CSV ----------------------------------------------------------------------------

def misses(row, *events):
    values = [num(row, f"cachegrind.{e}") for e in events]
    return None if None in values else int(sum(values))


def whole_run_rows(rows, argset):
    """whole_run.csv's rows from results rows (analysis.collect_rows): one per wholerun run."""
    mains = {(r["workload"], r["collector"], r["policy"]): r for r in rows
             if r["kind"] == "main" and r["argset"] == argset and int(r["repeat"]) == 0 and r["exit_code"] == 0}
    out = []
    for r in rows:
        if r["kind"] != KIND or r["argset"] != argset:
            continue
        row = {"workload": r["workload"], "collector": r["collector"], "policy": r["policy"],
               "heap_size": r["heap_size"], "exit_code": r["exit_code"]}
        ir = num(r, "cachegrind.Ir")
        if r["exit_code"] == 0 and ir is not None:
            main = mains.get((r["workload"], r["collector"], r["policy"]))
            i1, d1 = misses(r, "I1mr"), misses(r, "D1mr", "D1mw")
            ll = misses(r, "ILmr", "DLmr", "DLmw")
            row.update({"allocations": r.get("heap.allocations"), "frees": r.get("heap.frees"),
                        "gc_cycles": r.get("gc.cycles"), "ir": int(ir), "i1_misses": i1, "d1_misses": d1,
                        "ll_misses": ll, "valgrind_s": num(r, "valgrind_s"),
                        "counts_match_main": (all(num(main, k) == num(r, k) for k in MATCHED_COUNTS)
                                              if main else None)})
            if None not in (i1, d1, ll):
                row["cycles"] = row["ir"] + D1_PENALTY * (i1 + d1) + LL_PENALTY * ll
        out.append(row)
    return out


def write_tables(out_dir, rows, argset):
    """Writes whole_run.csv when the study has wholerun runs; returns {"whole_run": (rows, columns)}."""
    wr = whole_run_rows(rows, argset)
    path = os.path.join(out_dir, "whole_run.csv")
    if wr or os.path.exists(path):  # no stale file from an earlier study in the same directory
        write_csv(path, wr, WHOLE_RUN_COLUMNS)
    return {"whole_run": (wr, WHOLE_RUN_COLUMNS)}

"""Whole-run counts (study/whole_run.py) with the real kith and valgrind, on the tiny suite:
`kith study --experiments=minheap,main,wholerun` runs each main configuration once under
cachegrind, with the main runs' flags (the continuous collector paced by work), and
whole_run.csv has every configuration: instructions and misses counted, the run's
allocations, frees and GC cycles those of its main runs (counts_match_main), cycles from
the counts; a default study plans no wholerun runs; the wrapper measures a command twice
to within 0.1% (the run writes its own times); a kith that fails under it keeps kith's
exit code and message, and a command that is not a kith run is refused.
Usage: test_whole_run.py KITH WORK_DIR. Exit 77 (skipped) without valgrind. CTest: study.whole_run."""

import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)  # the repo root: the study package
from study import predicted, whole_run  # noqa: E402
from script_checks import check, draft_unless_clean, finish, fresh_dir, skip_without_valgrind  # noqa: E402

kith, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
skip_without_valgrind()
fresh_dir(work)
suite = os.path.join(HERE, "workloads", "suite.tsv")
out = os.path.join(work, "study")
WRAPPER = [sys.executable, whole_run.ENTRY, "whole-run", "measure"]  # the wholerun runs' command

# 1. A study with the wholerun kind: every main configuration under cachegrind.
r = subprocess.run([kith, "study", f"--suite={suite}", "--workloads=tiny_trees", "--policies=list,estranged",
                    "--collectors=occasional,continuous", "--repeat=2", "--max-repeat=2", "--jobs=2",
                    "--main-heap=4", "--experiments=minheap,main,wholerun", "--no-figures", f"--out={out}",
                    *draft_unless_clean(kith)],
                   capture_output=True, text=True, timeout=900)
check(r.returncode == 0, f"kith study exit {r.returncode}: {r.stderr[-2000:]}")
rows = list(csv.DictReader(open(os.path.join(out, "whole_run.csv"))))
check(sorted((x["collector"], x["policy"]) for x in rows) ==
      [("continuous", "estranged"), ("continuous", "list"), ("occasional", "estranged"), ("occasional", "list")],
      f"whole_run.csv: a row per configuration: {[(x['collector'], x['policy']) for x in rows]}")
for x in rows:
    what = f"{x['collector']}/{x['policy']}"
    check(x["exit_code"] == "0" and int(x["ir"]) > 1_000_000, f"{what}: exit {x['exit_code']}, Ir {x['ir']}")
    check(x["counts_match_main"] == "True", f"{what}: the main runs' allocations, frees and GC cycles")
    check(int(x["allocations"]) > 0 and int(x["gc_cycles"]) > 0, f"{what}: allocates and collects")
    cycles = (int(x["ir"]) + predicted.D1_PENALTY * (float(x["i1_misses"]) + float(x["d1_misses"])) +
              predicted.LL_PENALTY * float(x["ll_misses"]))
    check(abs(float(x["cycles"]) - cycles) < 1e-6 * cycles, f"{what}: cycles {x['cycles']} against {cycles}")
commands = open(os.path.join(out, "commands.txt")).read()
wholerun_lines = [line for line in commands.splitlines() if "runs/wholerun" in line]
check(len(wholerun_lines) == 4 and all("study whole-run measure" in line and "--gc-pacing=work" in line
                                       for line in wholerun_lines if "__continuous__" in line),
      "commands.txt: the wholerun runs, continuous ones paced by work")
state = json.load(open(os.path.join(out, "study.json")))
check("wholerun" in state["config"]["experiments"], "study.json keeps --experiments")
check(os.path.exists(os.path.join(out, "predicted.csv")), "predicted.csv written (no costs: no rows)")

# 2. A default study does not plan them (opt-in).
p = subprocess.run([kith, "study", f"--suite={suite}", "--workloads=tiny_trees", "--policies=list",
                    "--collectors=occasional", "--plan", f"--out={os.path.join(work, 'default')}"],
                   capture_output=True, text=True, timeout=300)
check(p.returncode == 0 and "runs/minheap" in p.stdout and "wholerun" not in p.stdout,
      f"a default study plans no wholerun runs: exit {p.returncode} {p.stderr[-500:]}")

# 3. The wrapper: the same command twice gives the same counts to within 0.1%.
script = os.path.join(HERE, "workloads", "tiny_mix.kith")
run = [kith, "run", "--heap=estranged", "--gc=continuous", "--heap-size=1M", "--pretouch", "--gc-pacing=work",
       "--stats-timers=off", script, "100"]
counts = []
for i in range(2):
    target = os.path.join(work, f"twice{i}.json")
    q = subprocess.run(WRAPPER + [f"--out={target}", "--"] + run, capture_output=True, text=True, timeout=300)
    check(q.returncode == 0, f"measure exit {q.returncode}: {q.stderr}")
    if q.returncode == 0:
        data = json.load(open(target))
        counts.append((data["cachegrind"]["Ir"], data["heap"]["allocations"], data["gc"]["cycles"]))
if len(counts) == 2:
    check(counts[0][1:] == counts[1][1:], f"the same allocations and cycles: {counts}")
    check(abs(counts[0][0] - counts[1][0]) <= 1e-3 * counts[0][0], f"Ir within 0.1%: {counts}")

# 4. Failures: kith's code and message; not a kith run: refused, nothing written.
bad = os.path.join(work, "bad.json")
q = subprocess.run(WRAPPER + [f"--out={bad}", "--", kith, "run", os.path.join(work, "missing.kith")],
                   capture_output=True, text=True, timeout=300)
check(q.returncode == 66 and "whole_run: kith under cachegrind exited 66: kith:" in q.stderr
      and not os.path.exists(bad), f"a missing script: exit {q.returncode}, {q.stderr!r}")
q = subprocess.run(WRAPPER + [f"--out={bad}", "--", kith, "replay", "x.trace"], capture_output=True, text=True)
check(q.returncode == 70 and "wants a kith run command" in q.stderr and not os.path.exists(bad),
      f"not a kith run: exit {q.returncode}, {q.stderr!r}")

finish("whole-run counts")

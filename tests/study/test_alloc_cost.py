"""The study's exact allocator cost (study/alloc_cost.py) with the real kith and valgrind:
records binary_trees 8 on list, measures the replay of that trace under callgrind on
list, estranged and the `nothing` baseline, twice each, and checks that the counts are
identical run to run (exact), that allocations and frees are the trace's, that the
parsed inclusive costs agree with callgrind_annotate's, and that alloc_cost.csv's rows
subtract the baseline (list's per-malloc instructions > 0 after it). Also: `kith run
--heap=nothing` is refused with exit 64, `kith replay --heap=nothing` works.
Usage: test_alloc_cost.py KITH WORK_DIR. Exit 77 (skipped) without valgrind.
CTest: study.alloc_cost."""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the repo root: the study package
from study import alloc_cost  # noqa: E402
from study.runs import Run  # noqa: E402
from script_checks import check, finish, fresh_dir, skip_without_valgrind  # noqa: E402

kith, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
script = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "binary_trees.kith")
skip_without_valgrind()
fresh_dir(work)


# The baseline is a replay policy only.
r = subprocess.run([kith, "run", "--heap=nothing", script, "4"], capture_output=True, text=True)
check(r.returncode == 64 and "replay baseline" in r.stderr, f"run --heap=nothing: exit {r.returncode} {r.stderr!r}")

# Record, as a study trace run does.
heap = 1 << 20
trace = os.path.join(work, "bt8.trace")
r = subprocess.run([kith, "run", "--heap=list", "--gc=occasional", f"--heap-size={heap}", f"--trace={trace}",
                    "--trace-format=binary", script, "8"], capture_output=True, text=True)
check(r.returncode == 0, f"recording exited {r.returncode}: {r.stderr}")
dump = subprocess.run([kith, "trace", "dump", trace], capture_output=True, text=True).stdout.splitlines()
trace_allocs = sum(1 for line in dump if line.startswith("A "))
trace_frees = sum(1 for line in dump if line.startswith("F "))
check(trace_allocs > 1000 and trace_frees > 1000, f"trace has {trace_allocs} allocations, {trace_frees} frees")

r = subprocess.run([kith, "replay", "--heap=nothing", trace], capture_output=True, text=True)
check(r.returncode == 0 and f"{trace_allocs} allocations (0 failed here), {trace_frees} frees" in r.stdout,
      f"replay --heap=nothing: exit {r.returncode}: {r.stdout} {r.stderr}")

EVENTS = ("Ir", "D1miss", "LLmiss", "calls")
records = {}
for policy in ("list", "estranged", "nothing"):
    runs = []
    for attempt in range(2):
        out = os.path.join(work, f"{policy}.{attempt}.callgrind")
        runs.append(alloc_cost.measure(kith, policy, trace, heap, callgrind_out=out))
    a, b = runs
    records[policy] = a
    check(a["allocations"] == trace_allocs and a["frees"] == trace_frees,
          f"{policy}: {a['allocations']} allocations, {a['frees']} frees; the trace has {trace_allocs}, {trace_frees}")
    fa, ff = a["functions"]["allocateOne"], a["functions"]["freeOne"]
    check(fa["calls"] == trace_allocs and ff["calls"] == trace_frees,
          f"{policy}: calls {fa['calls']} allocateOne, {ff['calls']} freeOne")
    for fn in ("allocateOne", "freeOne"):
        same = all(a["functions"][fn][e] == b["functions"][fn][e] for e in EVENTS)
        check(same, f"{policy}: {fn} counts differ between two runs: {a['functions'][fn]} vs {b['functions'][fn]}")
    # The parser against callgrind_annotate's inclusive costs (Ir, the first column).
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", os.path.join(work, f"{policy}.0.callgrind")],
                         capture_output=True, text=True).stdout
    for fn in ("allocateOne", "freeOne"):
        m = re.search(r"^\s*([\d,]+)\s.*TraceReplayer::" + fn + r"\(", ann, re.M)
        check(m and int(m.group(1).replace(",", "")) == a["functions"][fn]["Ir"],
              f"{policy}: {fn} Ir {a['functions'][fn]['Ir']} vs callgrind_annotate {m and m.group(1)}")

# A replay that fails: the tool exits with the replay's own code and kith's own message
# (not valgrind's lines).
missing = os.path.join(work, "absent", "none.trace")
r = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "study"), "cost", "measure",
                    f"--kith={kith}", "--policy=list", f"--out={os.path.join(work, 'absent.json')}", missing],
                   capture_output=True, text=True)
check(r.returncode == 66 and "cannot read trace" in r.stderr and "==" not in r.stderr,
      f"measure of a missing trace: exit {r.returncode}: {r.stderr!r}")
r = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "study"), "cost", "measure",
                    f"--kith={kith}", "--policy=nope", f"--out={os.path.join(work, 'nope.json')}", trace],
                   capture_output=True, text=True)
check(r.returncode == 64 and "unknown heap policy 'nope'" in r.stderr, f"measure on policy nope: exit {r.returncode}: "
      f"{r.stderr!r}")

# alloc_cost.csv from cost-run files laid out as the study lays them out.
out_dir = os.path.join(work, "study")


class Workload:
    name = "binary_trees"


class FakeStudy:
    argset = "small"
    workloads = [Workload()]
    config = {"policies": ["list", "estranged"]}


done = {}
for p in ("list", "estranged"):
    for replayed, record in ((p, records[p]), (alloc_cost.BASELINE_PREFIX + p, records["nothing"])):
        run = Run("cost", "binary_trees", "small", replayed, "occasional", heap, 0)
        os.makedirs(os.path.dirname(os.path.join(out_dir, run.path("json"))), exist_ok=True)
        with open(os.path.join(out_dir, run.path("json")), "w") as f:
            json.dump(record, f)
        done[run.id] = 0
rows, _ = alloc_cost.alloc_cost_rows(FakeStudy(), out_dir, done)
by = {r["policy"]: r for r in rows}
check(set(by) == {"list", "estranged"}, f"alloc_cost rows: {sorted(by)}")
if "list" in by:
    lst, base = by["list"], records["nothing"]["functions"]["allocateOne"]
    own = records["list"]["functions"]["allocateOne"]
    expect = own["Ir"] / own["calls"] - base["Ir"] / base["calls"]
    check(abs(lst["ir_per_malloc"] - expect) < 1e-9, f"list ir_per_malloc {lst['ir_per_malloc']} vs {expect}")
    check(lst["ir_per_malloc"] > 0 and lst["ir_per_free"] > 0, f"list per-request instructions {lst}")
    check(lst["baseline_ir_per_malloc"] > 0, "the baseline costs something (the call and StatsHeap)")
    check(lst["ir_ratio_vs_list"] == 1.0, "list against itself: 1")
if "estranged" in by:
    check(by["estranged"]["ir_ratio_vs_list"] is not None and by["estranged"]["ir_ratio_vs_list"] > 0,
          "estranged has a ratio against list")
alloc_cost.write_csv(os.path.join(out_dir, "alloc_cost.csv"), rows, alloc_cost.ALLOC_COST_COLUMNS)
report = "\n".join(alloc_cost.report_lines(out_dir))
check(re.search(r"^\| binary_trees \| [\d.]+ / [\d.e-]+ / [\d.e-]+ \| [\d.]+ / ", report, re.M),
      f"the report's table has binary_trees' row:\n{report}")
check("**geometric mean**" in report, "the report's table has a geometric mean row")

finish("alloc cost")

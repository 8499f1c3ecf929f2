"""`kith study` end to end with the real kith: two tiny workloads (workloads/suite.tsv
here), two policies, one collector, two repeats. Checks the exit code, the columns of
results.csv (every statistic of CLI.md's JSON, flattened, plus the run's identity),
summary.csv, that every run exited 0, that counts are identical across repeats, that
the MMU computed from the pause list agrees with the run's own, that report.md names
the machine, the commands and the commit, and that every figure is a valid PNG and SVG.
Usage: test_end_to_end.py KITH WORK_DIR. Exits non-zero on failure. CTest: study.end_to_end."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from figure_files import figure_problems  # noqa: E402
from script_checks import check, draft_unless_clean, finish, fresh_dir  # noqa: E402

kith, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
out = os.path.join(work, "study")
fresh_dir(work)


cmd = [kith, "study", f"--suite={os.path.join(HERE, 'workloads', 'suite.tsv')}", "--workloads=tiny_trees,tiny_mix",
       "--policies=list,estranged", "--collectors=continuous", "--repeat=2", "--max-repeat=2", "--jobs=2",
       "--contrived-sizes=1M,2M", "--heap-multiples=1.5,3",
       # 4x, not the default 2x: the pause runs pace the continuous collector by the clock,
       # and under ASan on a loaded machine tiny_trees at 2x its (work-paced) minimum heap
       # once ran out of memory (the thrashing limit) -- a timing result, not a failure
       "--main-heap=4", f"--out={out}"]
# valgrind cannot run a sanitizer build (ASan's runtime must come first): under ASan the
# study runs without its callgrind cost runs (tests/study/CMakeLists.txt sets KITH_SANITIZED).
sanitized = bool(os.environ.get("KITH_SANITIZED"))
if sanitized:
    cmd.append("--experiments=contrived,main,sources,pauses,minheap,tradeoff,demog,trace,replay")
# A kith built with uncommitted changes (or outside git) makes a draft: the study refuses to
# write its results without --draft (study/builds.py). A clean build's study is one build.
version = subprocess.run([kith, "--version"], capture_output=True, text=True).stdout
cmd += draft_unless_clean(kith)
clean_build = "--draft" not in cmd
r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
print(r.stderr[-3000:])
check(r.returncode == 0, f"kith study exit {r.returncode}")

rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
cols = rows[0].keys() if rows else []
cli_keys = ["heap.allocations", "heap.frees", "heap.bytes_requested", "heap.bytes_allocated", "heap.peak_bytes_in_use",
            "heap.failed_allocations", "heap.satisfied.immediate", "heap.satisfied.split", "heap.satisfied.glue",
            "heap.satisfied.defrag", "heap.satisfied.failed", "heap.alloc_ns.mean", "heap.alloc_ns.p50",
            "heap.alloc_ns.p99", "heap.alloc_ns.max", "heap.free_ns.mean", "heap.free_ns.p50", "heap.free_ns.p99",
            "heap.free_ns.max", "heap.fragmentation.internal_bytes", "heap.fragmentation.external_at_failure",
            "gc.cycles", "gc.objects_freed", "gc.bytes_freed", "gc.pause_ms.total", "gc.pause_ms.mean",
            "gc.pause_ms.p99", "gc.pause_ms.max", "gc.peak_live_bytes", "vm.instructions", "vm.objects_created",
            "vm.wall_s"]
identity = ["run_id", "kind", "workload", "args", "policy", "collector", "pacing", "heap_size", "repeat", "exit_code"]
for c in identity + cli_keys:
    check(c in cols, f"results.csv has column {c}")
check(any(c.startswith("heap.size_histogram.") for c in cols), "results.csv has the size histogram")
kinds = {r["kind"] for r in rows}
check(kinds == {"main", "sources", "pauses", "minheap", "tradeoff", "demog", "trace"}, f"kinds of run: {kinds}")
main = [r for r in rows if r["kind"] == "main"]
check(len(main) == 2 * 2 * 2, f"main runs: {len(main)} (2 workloads x 2 policies x 2 repeats)")
check(all(r["exit_code"] == "0" for r in main + [r for r in rows if r["kind"] == "pauses"]),
      "every main and pause run exited 0")
check({r["pacing"] for r in main} == {"work"}, "main runs use --gc-pacing=work")
check({r["pacing"] for r in rows if r["kind"] == "pauses"} == {"time"}, "pause runs use --gc-pacing=time")
results_json = json.load(open(os.path.join(out, "results.json")))
check(len(results_json) == len(rows), "results.json has a row per run")

count_keys = [k for k in cli_keys if not k.endswith(("_ns.mean", "_ns.p50", "_ns.p99", "_ns.max", "wall_s"))
              and not k.startswith("gc.pause_ms")]
for w in ("tiny_trees", "tiny_mix"):
    for p in ("list", "estranged"):
        reps = [r for r in main if r["workload"] == w and r["policy"] == p]
        check(len(reps) == 2 and all(reps[0][k] == reps[1][k] for k in count_keys),
              f"{w}/{p}: counts identical across repeats")
        check(int(reps[0]["gc.cycles"] or 0) > 0, f"{w}/{p}: the main runs collect (heap at 4x the minimum)")

summary = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
for c in ("kind", "workload", "policy", "collector", "heap_size", "runs", "wall_s_median", "wall_s_ci_low",
          "wall_s_ci_high", "gc_ms_median", "gc_ms_ci_low", "alloc_ns_median", "free_ns_median", "free_ns_ci_high"):
    check(c in summary[0], f"summary.csv has column {c}")
for s in summary:
    if s["kind"] == "main":
        check(s["runs"] == "2" and s["wall_s_ci_low"] != "" and float(s["wall_s_ci_low"]) <= float(s["wall_s_mean"])
              <= float(s["wall_s_ci_high"]), f"summary interval of {s['workload']}/{s['policy']}")

# MMU from the pause list against the run's own (windows shorter than the run).
mmu = list(csv.DictReader(open(os.path.join(out, "mmu.csv"))))
for r in rows:
    if r["kind"] != "pauses":
        continue
    for window, key in ((1, "gc.mmu.1ms"), (10, "gc.mmu.10ms")):
        m = [x for x in mmu if x["workload"] == r["workload"] and float(x["window_ms"]) == window]
        if m and r.get(key) not in (None, "") and float(m[0]["run_ms"]) > 2 * window:
            check(abs(float(m[0]["mmu"]) - float(r[key])) < 0.02,
                  f"{r['workload']}: MMU {window} ms from pauses {m[0]['mmu']} vs the run's {r[key]}")

# The pause runs' files are format 2: the pause tables carry the thread's CPU time beside
# wall time (what the CPU columns hold is timing; only that they are there is checked).
summary_rows = list(csv.DictReader(open(os.path.join(out, "pause_summary.csv"))))
check(summary_rows and all(r["max_cpu_ms"] not in ("", None) and r["mmu_cpu_1ms"] not in ("", None)
                           for r in summary_rows), f"pause_summary.csv by both clocks: {summary_rows}")
check(all(x["mmu_cpu"] not in ("", None) for x in mmu), "mmu.csv has MMU by CPU time")

for name in ("workloads.csv", "contrived.csv", "contrived_summary.csv", "speedup.csv", "satisfied.csv", "sizes.csv",
             "pauses.csv", "mmu.csv", "minheap.csv", "fragmentation.csv", "commands.txt", "study.json"):
    check(os.path.exists(os.path.join(out, name)), f"{name} written")
minheap = list(csv.DictReader(open(os.path.join(out, "minheap.csv"))))
check(len(minheap) == 4 and all(m["status"] == "found" for m in minheap), "every minimum-heap search finished")
report = open(os.path.join(out, "report.md")).read()
for text in ("## Machine and build", "git commit", "kith study", "--suite=", "kith run --heap=", "cores",
             "figures/fig-min-heap.png"):
    check(text in report, f"report.md mentions {text!r}")
for p in figure_problems(out):
    check(False, p)
# Every run of every kind counted (runs.csv), and its build: one, or a draft that says so.
run_table = {x["kind"]: x for x in csv.DictReader(open(os.path.join(out, "runs.csv")))}
rc_files = [n for _, _, files in os.walk(os.path.join(out, "runs")) for n in files if n.endswith(".rc")]
check(int(run_table["total"]["runs"]) == len(rc_files), f"runs.csv counts all {len(rc_files)} runs: {run_table}")
check(f"| **total** | {len(rc_files):,} |" in report, "report.md gives the total of runs")
check(("> **Draft: runs" in report) != clean_build, f"report.md a draft iff the build is ({version})")
# The trade-off repeated as the main runs are (--repeat=2): an interval on every row.
trade = list(csv.DictReader(open(os.path.join(out, "tradeoff.csv"))))
check(trade and all(x["runs"] == "2" and x["wall_s_ci_low"] != "" for x in trade if x["status"] == "ok"),
      "tradeoff.csv: two runs and an interval per configuration")
check(os.path.exists(os.path.join(out, "tradeoff_vs_list.csv")), "tradeoff_vs_list.csv written")
# Object demographics (study/demographics.py) from the demog runs of both workloads.
demog = list(csv.DictReader(open(os.path.join(out, "demographics.csv"))))
check(sorted(d["workload"] for d in demog) == ["tiny_mix", "tiny_trees"], "demographics.csv: one row per workload")
lifetimes = list(csv.DictReader(open(os.path.join(out, "lifetimes.csv"))))
check(lifetimes and all(0 < float(x["cum_fraction_objects"]) <= 1 for x in lifetimes), "lifetimes.csv: a CDF")
check(len(list(csv.DictReader(open(os.path.join(out, "frag_timeline.csv"))))) > 0, "frag_timeline.csv has cycles")
check("## Object demographics" in report, "report.md has the demographics section")
# Exact allocator cost (study/alloc_cost.py): each policy's own trace under callgrind, and
# timed replays (10 repeats each), both against the `nothing` baseline.
replay_time = list(csv.DictReader(open(os.path.join(out, "replay_time.csv"))))
check(sorted((r["workload"], r["policy"]) for r in replay_time) ==
      [("tiny_mix", "estranged"), ("tiny_mix", "list"), ("tiny_trees", "estranged"), ("tiny_trees", "list")]
      and all(r["repeats"] == "10" and r["baseline_repeats"] == "10" for r in replay_time),
      "replay_time.csv: every workload x policy, 10 repeats each")
if shutil.which("valgrind") and not sanitized:
    alloc = list(csv.DictReader(open(os.path.join(out, "alloc_cost.csv"))))
    check(len(alloc) == 4 and all(float(r["ir_per_malloc"]) > 0 for r in alloc),
          "alloc_cost.csv: every workload x policy, the policy's own instructions per malloc > 0")
    check("## Exact allocator cost" in report, "report.md has the allocator cost section")
    # Predicted against measured time (study/predicted.py), from those costs and the main runs.
    pred = list(csv.DictReader(open(os.path.join(out, "predicted.csv"))))
    check(sorted((r["workload"], r["policy"], r["base"]) for r in pred) ==
          [("tiny_mix", "estranged", "list"), ("tiny_trees", "estranged", "list")]
          and all(r["predicted"] and r["measured"] and (r["mde"] or "no interval" in r["note"]) for r in pred),
          "predicted.csv: estranged against list on both workloads, predicted, measured and MDE (or why none: "
          "runs of a millisecond can leave Fieller's interval unbounded)")
    check("**Cheaper on how many workloads, weighted by calls.**" in report and
          "## Predicted against measured time" in report and "figures/fig-predicted.png" in report,
          "report.md leads the exact cost with the weighted count and has the predicted section and figure")

finish("kith study end to end")

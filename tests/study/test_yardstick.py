"""The allocators' yardstick (bench/allocator_yardstick.py) with the real kith and valgrind:
towers (a small trace that frees) on list and kingsley, twice: the counts are identical run
to run (exact), the baseline is subtracted (each policy's own instructions > 0 and below the
raw replay's), the table has a row per workload and the mean and ratio rows, --before puts
"before → after" in the cells; and hostile input gets CLI.md's exit codes with one line.
Usage: test_yardstick.py KITH WORK_DIR. Exit 77 (skipped) without valgrind.
CTest: study.yardstick."""

import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "bench", "allocator_yardstick.py")
sys.path.insert(0, HERE)
from script_checks import check, failures, finish, fresh_dir, skip_without_valgrind  # noqa: E402

kith, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
skip_without_valgrind()
fresh_dir(work)


def yardstick(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, f"--kith={kith}", *args], capture_output=True, text=True,
                          cwd=work)


def rows(out):
    with open(os.path.join(out, "yardstick.csv"), newline="") as f:
        return list(csv.DictReader(f))


common = ["--workloads=towers", "--policies=list,kingsley", f"--traces={work}/traces"]
first = yardstick(*common, f"--out={work}/a")
check(first.returncode == 0, f"first run exits 0 (got {first.returncode}: {first.stderr.strip()[-300:]})")
second = yardstick(*common, f"--out={work}/b", f"--before={work}/a/yardstick.csv")
check(second.returncode == 0, f"second run exits 0 (got {second.returncode}: {second.stderr.strip()[-300:]})")
if not failures:
    a, b = rows(f"{work}/a"), rows(f"{work}/b")
    check([r["policy"] for r in a] == ["list", "kingsley"], f"one row per policy: {a}")
    check(a == b, "identical counts run to run")
    for r in a:
        own, base = float(r["ir_per_malloc"]), float(r["baseline_ir_per_malloc"])
        check(0 < own and base > 0, f"{r['policy']}: own malloc cost {own} > 0 after the baseline {base}")
        check(int(r["frees"]) > 0, f"towers frees ({r['frees']})")
    lines = first.stdout.splitlines()
    check(lines[0] == "| workload | list | kingsley |", f"table header: {lines[:1]}")
    check(any(line.startswith("| towers |") for line in lines), "a row for towers")
    check(any(line.startswith("| **÷ mimalloc**") for line in lines) is False, "no ratio row without mimalloc")
    check(any("→" in line for line in second.stdout.splitlines()), "--before shows before → after")

# A trace with a handful of frees, or none, says so in its row: its per-request cell is
# mostly the mean malloc plus those few frees (perimeter frees one block).
sys.path.insert(0, os.path.dirname(SCRIPT))
import allocator_yardstick  # noqa: E402
synthetic = [{"workload": w, "policy": "list", "ir_per_request": "10", "frees": f, "allocations": "1000"}
             for w, f in (("one", "1"), ("seven", "7"), ("none", "0"), ("many", "500"))]
text = allocator_yardstick.table(synthetic, [], ["list"])
for row in ("| one (1 free) |", "| seven (7 frees) |", "| none (no frees) |", "| many |"):
    check(row in text, f"row {row!r} in:\n{text}")

# Hostile input: one line, CLI.md's code, nothing measured.
cases = [(["--jobs=0"], 64), (["--wall=x"], 64), (["--policies=list,list"], 64), (["--policies=nope"], 64),
         (["--workloads=nope"], 64), (["--replay-heap=lots"], 64), (["--nonsense"], 64),
         ([f"--before={work}/missing.csv"], 66), ([f"--suite={work}/missing.tsv"], 66),
         ([f"--before={HERE}/test_yardstick.py"], 65), (["--out=/proc/yardstick"], 73)]
for args, code in cases:
    r = yardstick("--workloads=towers", "--policies=list", f"--traces={work}/traces", *args)
    check(r.returncode == code, f"{args}: exit {code} (got {r.returncode})")
    check(len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("allocator_yardstick: "),
          f"{args}: one line on stderr (got {r.stderr.strip()[-300:]!r})")
r = subprocess.run(["/usr/bin/python3", SCRIPT, "--kith=/nonexistent/kith"], capture_output=True, text=True)
check(r.returncode == 66, f"a missing --kith: exit 66 (got {r.returncode})")

finish("allocator yardstick")

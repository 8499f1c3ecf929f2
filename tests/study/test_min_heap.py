"""The study's minimum-heap search on synthetic workloads with known answers
(fake_kith.py: a run fits iff its heap is at least a known size per workload and
policy), run through the whole driver, locally and as a batch (--plan, then --merge,
round after round). Exits non-zero on failure. CTest: study.min_heap."""

import csv
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")
sys.path.insert(0, HERE)
import fake_kith  # noqa: E402
from script_checks import check, finish  # noqa: E402

POLICIES = ["list", "knuth", "tlsf", "malloc"]


def study(out, *extra):
    cmd = [sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}",
           f"--policies={','.join(POLICIES)}", "--collectors=occasional", "--repeat=1", "--no-figures",
           "--contrived-sizes=1M", "--heap-multiples=1.5", f"--out={out}", *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


def check_answers(out, label):
    rows = list(csv.DictReader(open(os.path.join(out, "minheap.csv"))))
    check({r["policy"] for r in rows} == {"list", "knuth", "tlsf"}, f"{label}: malloc has no minimum heap")
    for r in rows:
        answer = fake_kith.MIN_HEAP[r["workload"]] * fake_kith.FACTOR[r["policy"]]
        found, low = int(r["min_heap_bytes"] or 0), int(r["too_small_bytes"] or 0)
        check(r["status"] == "found", f"{label}: {r['workload']}/{r['policy']} status {r['status']}")
        check(low < answer <= found, f"{label}: {r['workload']}/{r['policy']}: {low} < {answer} <= {found}")
        check(found <= max(low * 1.02, low + 1024) + 1, f"{label}: {r['workload']}/{r['policy']}: within 2%")
    # The main runs are sized from the smallest minimum heap of each workload (the common
    # heap); the trade-off runs from each policy's own (malloc, which has none: the smallest).
    mins, own = {}, {}
    for r in rows:
        mins[r["workload"]] = min(mins.get(r["workload"], 1 << 62), int(r["min_heap_bytes"]))
        own[(r["workload"], r["policy"])] = int(r["min_heap_bytes"])
    results = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
    for r in results:
        if r["kind"] == "main":
            check(int(r["heap_size"]) == -(-mins[r["workload"]] * 2 // 1024) * 1024,
                  f"{label}: main run at 2x the minimum heap: {r['run_id']}")
        if r["kind"] == "tradeoff":
            base = own.get((r["workload"], r["policy"]), mins[r["workload"]])
            check(int(r["heap_size"]) == -(-int(base * 1.5) // 1024) * 1024,
                  f"{label}: trade-off run at 1.5x its policy's own minimum: {r['run_id']}")
    check({r["policy"] for r in results if r["kind"] == "tradeoff"} == set(POLICIES),
          f"{label}: every policy has trade-off runs")
    kinds = {r["kind"] for r in results}
    check(kinds >= {"main", "pauses", "minheap", "tradeoff"}, f"{label}: kinds of run {kinds}")
    return rows


tmp = tempfile.mkdtemp(prefix="kith-study-minheap-")
try:
    # Locally.
    local = os.path.join(tmp, "local")
    r = study(local)
    check(r.returncode == 0, f"local study exit {r.returncode}: {r.stderr[-2000:]}")
    local_rows = check_answers(local, "local")

    # As a batch: --plan, run the lines elsewhere with sh, --merge, until --plan prints nothing.
    batch, remote = os.path.join(tmp, "batch"), os.path.join(tmp, "remote")
    os.makedirs(remote)
    rounds = 0
    while True:
        p = study(batch, "--plan", "--probes-per-round=3")
        check(p.returncode == 0, f"--plan exit {p.returncode}: {p.stderr[-2000:]}")
        lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
        if not lines:
            break
        rounds += 1
        check(all(not ln.startswith("#") for ln in lines), "--plan prints only commands on stdout")
        for ln in lines:
            subprocess.run(["sh", "-c", ln], cwd=remote, check=False)
        m = study(batch, "--merge", remote, "--probes-per-round=3")
        check(m.returncode == 0, f"--merge exit {m.returncode}: {m.stderr[-2000:]}")
        if rounds > 30:
            check(False, "the plan never ends")
            break
    check(rounds >= 3, f"batch rounds: {rounds}")
    batch_rows = check_answers(batch, "batch")
    for a, b in zip(local_rows, batch_rows):
        check(int(b["min_heap_bytes"]) <= int(a["min_heap_bytes"]) * 1.02 + 1024, "batch agrees with local")

    # --merge without the options continues the study that is there (its study.json).
    m = subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", f"--out={batch}", "--merge", remote],
                       capture_output=True, text=True)
    check(m.returncode == 0, f"bare --merge exit {m.returncode}: {m.stderr[-2000:]}")
    check_answers(batch, "bare merge")
    p = subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", f"--out={batch}", "--plan"], capture_output=True,
                       text=True)
    check(p.returncode == 0 and p.stdout.strip() == "", f"bare --plan on a finished study prints nothing: {p.stdout}")

    # --resume does nothing more on a finished study; a fresh one starts over.
    r = study(local, "--resume")
    check("running" not in r.stderr, f"--resume on a finished study runs nothing: {r.stderr[-500:]}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish("min-heap search")

"""A study run on a cluster engine, GNU parallel (Debian `parallel`): `kith study --plan`
prints the runs that can run now, `parallel` runs them in a batch directory, `kith study
--merge` folds that directory in, round after round until --plan prints nothing; the
merged counts (minheap.csv, satisfied.csv) must equal a local study's. A tiny study on
fake_kith.py. Exits 77 (skipped) without `parallel`, non-zero on failure.
Run: /usr/bin/python3 test_gnu_parallel.py (CTest: study.gnu_parallel)."""

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
import fake_kith  # noqa: E402  (its COMMIT: the build --version names)
OPTIONS = [f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}", "--experiments=minheap,main,tradeoff",
           "--policies=list,knuth,tlsf", "--collectors=occasional", "--repeat=1", "--heap-multiples=1.5",
           "--no-figures"]


def study(*args, **kw):
    p = subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", *args], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"FAIL: kith study {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def commits_in(out, table):
    with open(os.path.join(out, table)) as f:
        return {row.get("commit") for row in csv.DictReader(f)}


def compare(local, merged):
    """The merged counts equal the local study's (the failures, none when they do), and so does
    the build beside them: each planned command records the kith's (fake_kith.COMMIT), as a
    local run does. test_slurm.py checks its cluster the same way."""
    failures = []
    for table in ("minheap.csv", "satisfied.csv"):
        with open(os.path.join(local, table)) as a, open(os.path.join(merged, table)) as b:
            expected, got = a.read(), b.read()
        if len(expected.splitlines()) < 2:
            failures.append(f"{table}: the local study has no rows")
        if table == "satisfied.csv" and commits_in(merged, table) != {fake_kith.COMMIT}:
            failures.append(f"{table}: the merged runs' commit column says {commits_in(merged, table)}, not the "
                            f"build of the kith that ran them ({fake_kith.COMMIT})")
        if expected != got:
            failures.append(f"{table}: merged differs from local:\n{got}\nvs\n{expected}")
    return failures


def plan_run_merge(tmp, run_round, how):
    """The loop of docs/RUNNING_THE_STUDY.md's "How long, and beyond one machine": a local
    study in tmp/local, then round after round `--plan` (the study's options on the first
    only: the later ones continue the study in --out), run_round(commands, batch) running
    them in tmp/batch (it returns how many ran), and `--merge`, until --plan prints
    nothing; then the merged counts against the local ones. The test's exit code."""
    local, merged, batch = (os.path.join(tmp, d) for d in ("local", "merged", "batch"))
    os.makedirs(batch)
    study(*OPTIONS, "--jobs=2", f"--out={local}")
    rounds, runs = 0, 0
    options = OPTIONS
    while True:
        commands = study("--plan", f"--out={merged}", *options).stdout
        options = []
        if not commands.strip():
            break
        rounds += 1
        if rounds > 40:
            sys.exit("FAIL: --plan still prints runs after 40 rounds")
        runs += run_round(commands, batch)
        study("--merge", batch, f"--out={merged}", "--no-figures")
    failures = compare(local, merged)
    for f in failures:
        print("FAIL:", f)
    print(f"{rounds} rounds, {runs} runs {how}; " + ("FAILED" if failures else "counts equal"))
    return 1 if failures else 0


def main():
    parallel = shutil.which("parallel")
    if not parallel:
        print("skipped: GNU parallel is not installed (Debian package parallel; scripts/setup installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="kith-study-parallel-")
    try:
        env = dict(os.environ, HOME=tmp, PARALLEL_SHELL="/bin/sh")

        def run_round(commands, batch):
            p = subprocess.run([parallel, "--will-cite", "--jobs", "2"], input=commands, cwd=batch, env=env,
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"FAIL: parallel exited {p.returncode}:\n{p.stderr}")
            return len(commands.splitlines())
        return plan_run_merge(tmp, run_round, "through GNU parallel")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

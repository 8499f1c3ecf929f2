#!/usr/bin/env python3
"""Differential testing of generated programs (docs/RELIABILITY.md):

    differential.py --kith PATH/TO/kith --seeds 1-20 [--jobs 2] [--full]

For each seed, gen_program.py writes a program; it runs on every heap policy
(`kith policies`) x collector (occasional, continuous) in a 4M heap and in a
256K heap (1M for kingsley, velox, medius, defero: no coalescing), on boehm (its own collector), and under --gc-stress and
--gc-stress=move in the small heap (on two policies per seed, rotating, or on all
with --full). Every run must exit 0 with empty stderr and print the same stdout
as the first, ending in "done". A failing seed is printed as one line that
reproduces it; the exit status is 1 if any seed failed.

--seconds N instead keeps drawing seeds (from the first of --seeds on) for N
seconds: the long run, scripts/fuzz differential.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_program  # noqa: E402

NORMAL = "4M"
SMALL = "256K"
# Kingsley and the Allotheque policies (velox, medius, defero) never split or
# coalesce blocks, so a program's mix of sizes needs several times the room there
# (256K runs out of memory on some seeds, correctly).
SMALL_FOR = {"kingsley": "1M", "velox": "1M", "medius": "1M", "defero": "1M"}


def small(policy):
    return SMALL_FOR.get(policy, SMALL)
TIMEOUT = 300


def policies(kith):
    out = subprocess.run([kith, "policies"], capture_output=True, text=True, check=True).stdout
    studied, baselines = [], []
    for line in out.splitlines():
        if not line.strip() or "collector:" in line:
            continue
        name = line.split()[0]
        (baselines if "baseline only" in line else studied).append(name)
    return studied, baselines


def configs(seed, studied, baselines, full):
    runs = []
    for tier in ("normal", "small"):
        for policy in studied:
            heap = NORMAL if tier == "normal" else small(policy)
            for gc in ("occasional", "continuous"):
                runs.append([f"--heap={policy}", f"--gc={gc}", f"--heap-size={heap}"])
    for policy in baselines:
        runs.append([f"--heap={policy}", f"--heap-size={NORMAL}"])
    stressed = studied if full else [studied[seed % len(studied)], studied[(seed * 7 + 3) % len(studied)]]
    for i, policy in enumerate(dict.fromkeys(stressed)):
        for gc in ("occasional", "continuous"):
            runs.append([f"--heap={policy}", f"--gc={gc}", f"--heap-size={small(policy)}", "--gc-stress"])
        gc = "continuous" if (seed + i) % 2 else "occasional"
        runs.append([f"--heap={policy}", f"--gc={gc}", f"--heap-size={small(policy)}", "--gc-stress=move"])
    return runs


def run(kith, args, path):
    try:
        p = subprocess.run([kith, "run", *args, path], capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def check_seed(kith, seed, studied, baselines, full, workdir):
    """"" when every run agrees, else what differs."""
    path = os.path.join(workdir, f"gen_{seed}.kith")
    with open(path, "w") as f:
        f.write(gen_program.generate(seed))
    reference = None
    for args in configs(seed, studied, baselines, full):
        code, out, err = run(kith, args, path)
        what = None
        if code != 0:
            what = f"exit {code}: {err.decode(errors='replace').strip()[-600:]}"
        elif err:
            what = f"stderr: {err.decode(errors='replace').strip()[-600:]}"
        elif not out.endswith(b"done\n"):
            what = "output does not end in 'done'"
        elif reference is None:
            reference = (args, out)
        elif out != reference[1]:
            a, b = reference[1].decode(errors="replace").splitlines(), out.decode(errors="replace").splitlines()
            i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            what = (f"stdout differs from {' '.join(reference[0])} at line {i + 1}: "
                    f"{a[i] if i < len(a) else '<end>'!r} vs {b[i] if i < len(b) else '<end>'!r}")
        if what:
            repro = (f"python3 {os.path.relpath(os.path.join(HERE, 'gen_program.py'))} {seed} > /tmp/kith_seed{seed}.kith"
                     f" && {kith} run {' '.join(args)} /tmp/kith_seed{seed}.kith")
            return f"seed {seed} FAILED ({what})\n  reproduce: {repro}"
    os.unlink(path)
    return ""


def parse_seeds(text):
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kith", required=True)
    ap.add_argument("--seeds", default="1-10", help="A-B or a,b,c")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="stress every policy, not two per seed")
    ap.add_argument("--seconds", type=float, default=0, help="keep drawing seeds for this long")
    opts = ap.parse_args()
    kith = os.path.abspath(opts.kith)
    studied, baselines = policies(kith)
    seeds = parse_seeds(opts.seeds)
    start = time.monotonic()
    failures, done = [], 0
    with tempfile.TemporaryDirectory(prefix="kith-diff-") as workdir, \
            concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        if opts.seconds > 0:
            def seed_stream():
                s = seeds[0]
                while time.monotonic() - start < opts.seconds:
                    yield s
                    s += 1
            pending = set()
            stream = seed_stream()
            for s in stream:
                pending.add(pool.submit(check_seed, kith, s, studied, baselines, opts.full, workdir))
                if len(pending) >= opts.jobs:
                    finished, pending = concurrent.futures.wait(pending, return_when="FIRST_COMPLETED")
                    for f in finished:
                        done += 1
                        if f.result():
                            failures.append(f.result())
                            print(f.result(), flush=True)
                    # Progress, so a run stopped early still says how far it got.
                    print(f"{done} seeds checked, {len(failures)} failed, {time.monotonic() - start:.0f} s",
                          flush=True)
            for f in pending:
                done += 1
                if f.result():
                    failures.append(f.result())
                    print(f.result(), flush=True)
        else:
            for result in pool.map(lambda s: check_seed(kith, s, studied, baselines, opts.full, workdir), seeds):
                done += 1
                if result:
                    failures.append(result)
                    print(result, flush=True)
    runs = len(configs(0, studied, baselines, opts.full))
    print(f"{done} seeds x {runs} runs each ({len(studied)} policies + {len(baselines)} baseline), "
          f"{len(failures)} failed, {time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

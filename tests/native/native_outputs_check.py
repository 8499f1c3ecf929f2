#!/usr/bin/python3
"""Every program of the native suite (workloads/native/suite.tsv), on its small input, under
one policy through `kith exec`, prints what it prints on glibc without kith: the policy
serves a real program's whole allocation API correctly (docs/NATIVE.md).

  native_outputs_check.py --kith=KITH --policy=P --third-party=DIR [--programs=a,b]

A program whose command is not installed here, or (cfrac, espresso) not built because
../shared/third_party is missing, is named as skipped; at least one must run."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, SOURCE)
from study import native_suite  # noqa: E402


def run(argv, env):
    p = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, **env), timeout=600,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kith", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--third-party", required=True)
    ap.add_argument("--programs", default=None)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kith-native-check.")
    try:
        places = native_suite.places_for(a.third_party, "/nonexistent", work)
        programs = native_suite.load(places, quick=True)
        if a.programs:
            programs = [p for p in programs if p.name in a.programs.split(",")]
        failures, ran = [], 0
        for p in programs:
            if not shutil.which(p.command[0]):
                print(f"skipped {p.name}: {p.command[0]} is not here")
                continue
            for step in [p.prepare] if p.prepare else []:
                subprocess.run(step, check=True)
            code, want, err = run(p.command, p.env)
            if code:
                failures.append(f"{p.name} fails on glibc without kith (exit {code}): {err.strip()[:200]}")
                continue
            stats = os.path.join(work, f"{p.name}.json")
            code, got, err = run([a.kith, "exec", f"--heap={a.policy}", f"--stats-file={stats}", "--",
                                  *p.command], p.env)
            ran += 1
            if code:
                failures.append(f"{p.name} on {a.policy}: exit {code}: {err.strip()[:300]}")
            elif p.masked(got) != p.masked(want):
                failures.append(f"{p.name} on {a.policy}: output differs from glibc's\n--- glibc\n{want[:400]}"
                                f"\n--- {a.policy}\n{got[:400]}")
            elif not os.path.exists(stats):
                failures.append(f"{p.name} on {a.policy}: no statistics written to {stats}")
            else:
                print(f"ok {p.name} on {a.policy}")
        for f in failures:
            print(f"FAIL {f}")
        if not ran and not failures:
            print("FAIL no program ran")
            return 1
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

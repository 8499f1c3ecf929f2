#!/usr/bin/python3
"""A policy preloaded through `kith exec` costs cfrac at most BOUND times the instructions
glibc alone costs it (docs/EXEC.md, "Where a preloaded policy's time goes"): the library's
entry path must not add more than the policy's own work. Instructions, not time: callgrind
counts them exactly, where a 2-core VM's clock would not tell 5% from noise.

  preload_cost_check.py --kith=KITH --policy=P --third-party=DIR [--bound=1.10]

cfrac runs its small input (workloads/native/suite.tsv, 1.27M requests) under
`valgrind --tool=callgrind` once alone (glibc) and once under `kith exec --heap=P`. Exits 0
within the bound, 1 beyond it, 77 (skipped) without valgrind or without cfrac (built only
where ../shared/third_party is, bench/third_party)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, SOURCE)
from study import native_suite  # noqa: E402

SKIPPED = 77


def instructions(prefix, command, out):
    """The client's instructions (callgrind's totals) for `command` run under `prefix`."""
    argv = [*prefix, "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    if p.returncode:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    with open(out) as f:
        totals = re.search(r"^(?:totals|summary): (\d+)", f.read(), re.M)
    if not totals:
        raise RuntimeError(f"{out}: no totals line")
    return int(totals.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kith", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--third-party", required=True)
    ap.add_argument("--bound", type=float, default=1.10)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("skipped: valgrind is not here")
        return SKIPPED
    work = tempfile.mkdtemp(prefix="kith-preload-cost.")
    try:
        places = native_suite.places_for(a.third_party, "/nonexistent", work)
        cfrac = next(p for p in native_suite.load(places, quick=True) if p.name == "cfrac")
        if not os.access(cfrac.command[0], os.X_OK):
            print(f"skipped: {cfrac.command[0]} is not built (no ../shared/third_party)")
            return SKIPPED
        glibc = instructions([], cfrac.command, os.path.join(work, "glibc.callgrind"))
        policy = instructions([a.kith, "exec", f"--heap={a.policy}", "--"], cfrac.command,
                              os.path.join(work, f"{a.policy}.callgrind"))
        ratio = policy / glibc
        verdict = "ok" if ratio <= a.bound else "FAIL"
        print(f"{verdict} cfrac on {a.policy}: {policy} instructions, glibc {glibc}: {ratio:.3f}x "
              f"(bound {a.bound:.2f}x)")
        return 0 if ratio <= a.bound else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

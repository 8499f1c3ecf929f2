#!/usr/bin/env python3
"""Allocation-failure injection over the script suite.

usage: fail_alloc_sweep.py KITH [--heap=P ...] [--points=N] [--jobs=N] PATHS...

For every script under PATHS (the run_scripts.py layout; compile-error scripts are
skipped), counts its allocation requests with one plain run (--stats-file), then runs
it with --fail-alloc=N for N at `--points` places spread over that count (always
including the first three requests) and with --fail-alloc-every=K for two K, on each
--heap policy (default: estranged and tlsf); scripts marked `// kith-not-with: --fail-alloc`
are left out. Every run must end cleanly: exit 0, the
script's own exit code, 70 with stderr's first line `error: ...`, or 70 with "out of
memory while compiling" (a failure injected into a constant's allocation: running out
of memory, not an error in the source, so never 65) -- never a signal,
a timeout, a sanitizer report or a heap verifier failure. Prints one line per failure
and `N passed, M failed`.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_scripts  # noqa: E402  (collect(), Expectation)

# What a sanitizer, the heap verifier or the VM's freed-object guard print.
BAD_WORDS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", ": runtime error: ",
             "heap verifier", "kith: fatal", "Assertion")


def allocation_count(kith, path, flags):
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        p = subprocess.run([kith, "run", *flags, f"--stats-file={stats.name}", path],
                           capture_output=True, timeout=120)
        try:
            return json.load(open(stats.name))["heap"]["allocations"], p.returncode
        except (OSError, ValueError, KeyError):
            return 0, p.returncode


def points(count, wanted):
    picks = {1, 2, 3}
    for i in range(wanted):
        picks.add(1 + (count - 1) * i // max(1, wanted - 1))
    return sorted(n for n in picks if 1 <= n <= max(count, 1))


def check(kith, path, flags, normal_exit):
    try:
        p = subprocess.run([kith, "run", *flags, path], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    err = p.stderr.decode("utf-8", errors="replace")
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}: {err.strip()[:200]!r}"
    if any(w in err for w in BAD_WORDS):
        return f"sanitizer, verifier or guard report: {err.strip()[:200]!r}"
    if "out of memory while compiling" in err:
        # The failure hit a constant the compiler was placing: out of memory, exit 70 (CLI.md).
        return None if p.returncode == 70 else f"out of memory while compiling exits {p.returncode}, not 70"
    if p.returncode not in (0, 70, normal_exit):
        return f"exit {p.returncode}: {err.strip()[:200]!r}"
    if p.returncode == 70 and not err.startswith("error: "):
        return f"exit 70 without an error line: {err.strip()[:200]!r}"
    return None


def main(argv):
    kith, heaps, wanted, jobs, paths = argv[0], [], 8, os.cpu_count() or 2, []
    for a in argv[1:]:
        if a.startswith("--heap="):
            heaps.append(a[len("--heap="):])
        elif a.startswith("--points="):
            wanted = int(a[len("--points="):])
        elif a.startswith("--jobs="):
            jobs = int(a[len("--jobs="):])
        else:
            paths.append(a)
    heaps = heaps or ["estranged", "tlsf"]
    files = [f for f in run_scripts.collect(paths)
             if not run_scripts.Expectation(f).compile_errors
             and not run_scripts.Expectation(f).skipped_with(["--fail-alloc"])]
    work = []
    for heap in heaps:
        for f in files:
            # 16M unless the script asks for a size: start-up populates the whole heap.
            flags = [f"--heap={heap}", "--heap-size=16M", *run_scripts.Expectation(f).flags]
            count, normal_exit = allocation_count(kith, f, flags)
            for n in points(count, wanted):
                work.append((f, flags + [f"--fail-alloc={n}"], normal_exit))
            for k in (max(2, count // 3), 7):
                work.append((f, flags + [f"--fail-alloc-every={k}"], normal_exit))
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda w: (w, check(kith, *w)), work)
        for (f, flags, _), error in results:
            if error:
                failed += 1
                print(f"FAIL {f} [{' '.join(flags)}]: {error}", flush=True)
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

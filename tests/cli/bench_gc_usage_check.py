"""scripts/bench-gc on bad input: one line on stderr and docs/CLI.md's exit code,
never a traceback or a table of empty cells. Prints "ok" when every case holds.
Run: python3 bench_gc_usage_check.py KITH BENCH_GC"""
import subprocess
import sys

kith, bench_gc = sys.argv[1], sys.argv[2]
CASES = [  # (arguments, exit code, what stderr's last line says)
    (["--runs=x"], 64, "--runs wants a whole number"),
    (["--runs=0"], 64, "--runs wants a whole number"),
    (["--size=big"], 64, "--size is default, small or study"),
    (["--bogus=1"], 64, "bad option '--bogus=1'"),
    (["--only=nosuch"], 64, "no workload named nosuch"),
    (["--heap=nosuch", "--runs=1", "--only=richards"], 64, "unknown heap policy 'nosuch'"),
    (["--pacing=fast", "--runs=1", "--only=richards"], 64, "--gc-pacing wants time or work"),
    (["--collectors=stw"], 64, "--collectors takes occasional and continuous; got 'stw'"),
    (["--host-probe-ms=0", "--runs=1", "--only=richards"], 64, "--host-probe-ms wants a number from 1"),
    (["--gc-step=0", "--runs=1", "--only=richards", "--collectors=continuous"], 64, "--gc-step"),
    (["--kith=/nonexistent/kith"], 66, "no kith binary at /nonexistent/kith"),
]
failures = []
for args, code, says in CASES:
    argv = [sys.executable, bench_gc] + ([f"--kith={kith}"] if not any(a.startswith("--kith") for a in args) else []) + args
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    errors = [line for line in p.stderr.splitlines() if not line.startswith("run ")]  # progress lines
    if p.returncode != code or len(errors) != 1 or says not in errors[0] or p.stdout:
        failures.append(f"{args}: exit {p.returncode}, stderr {p.stderr[-300:]!r}, stdout {p.stdout[-200:]!r}")
print("\n".join(failures) if failures else "ok")

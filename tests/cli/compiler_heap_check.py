#!/usr/bin/env python3
"""--compiler-heap changes where the compiler keeps its scratch data, never what it
compiles: `kith disasm` prints the same bytecode (and the same errors, exit code)
under every scratch heap for every script in tests/scripts and every file of the
fuzz corpus. The heaps that free (reap, lea, malloc) hold fewer scratch bytes than
the region on average, over the same requests; a bad name is a usage error (64).
usage: compiler_heap_check.py KITH SOURCE_DIR"""
import json
import pathlib
import subprocess
import sys

HEAPS = ["zone", "reap", "lea", "malloc"]


def disasm(kith, heap, path):
    p = subprocess.run([kith, "disasm", "--compiler-heap=" + heap, str(path)], capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def scratch_stats(kith, heap, path):
    p = subprocess.run([kith, "run", "--compile-only", "--compiler-stats", "--compiler-heap=" + heap, str(path)],
                       capture_output=True, text=True, timeout=60)
    lines = [l for l in p.stderr.splitlines() if l.startswith("{")]
    return p.returncode, json.loads(lines[-1]) if lines else None


def main():
    kith, root = sys.argv[1], pathlib.Path(sys.argv[2])
    failures = []
    files = sorted(root.glob("tests/scripts/**/*.kith")) + sorted(
        f for f in (root / "tests/fuzz/corpus").rglob("*") if f.is_file())
    compiled = []
    for path in files:
        expected = disasm(kith, "zone", path)
        if expected[0] == 0:
            compiled.append(path)
        for heap in HEAPS[1:]:
            if disasm(kith, heap, path) != expected:
                failures.append(f"{path}: --compiler-heap={heap} disassembles differently from zone")
    if len(compiled) < len(files) // 2:
        failures.append(f"only {len(compiled)} of {len(files)} files compiled: the comparison proves little")

    sample = max((f for f in compiled if f.suffix == ".kith"), key=lambda f: f.stat().st_size)
    stats = {h: scratch_stats(kith, h, sample) for h in HEAPS}
    zone = stats["zone"][1]
    for heap, (rc, s) in stats.items():
        if rc != 0 or s is None:
            failures.append(f"{sample}: --compiler-stats under {heap} gave exit {rc}, stats {s}")
            continue
        if s["requests"] != zone["requests"] or s["frees"] != zone["frees"]:
            failures.append(f"{heap}: {s['requests']} requests, {s['frees']} frees; zone: {zone['requests']}, {zone['frees']}")
        if heap != "zone" and not (s["mean_bytes"] < zone["mean_bytes"] and s["peak_bytes"] <= zone["peak_bytes"]):
            failures.append(f"{heap} holds no fewer scratch bytes than the region: {s} against {zone}")
    if zone and zone["frees"] == 0:
        failures.append(f"{sample}: the compiler freed nothing")

    for argv in (["disasm", "--compiler-heap=arena", str(sample)], ["run", "--compiler-heap=Zone", str(sample)]):
        p = subprocess.run([kith] + argv, capture_output=True, text=True, timeout=60)
        first = p.stderr.splitlines()[0] if p.stderr else ""
        if p.returncode != 64 or not first.startswith("kith: --compiler-heap wants zone, reap, lea, malloc"):
            failures.append(f"kith {' '.join(argv)}: exit {p.returncode}, stderr {p.stderr!r}")

    p = subprocess.run([kith, "repl", "--compiler-heap=reap"], input="", capture_output=True, text=True, timeout=60)
    if p.returncode != 64 or "'repl' takes no compiler experiment options" not in p.stderr:
        failures.append(f"kith repl --compiler-heap=reap: exit {p.returncode}, stderr {p.stderr!r}")

    for f in failures:
        print(f)
    if not failures:
        print(f"ok: {len(files)} files, {len(HEAPS)} scratch heaps")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

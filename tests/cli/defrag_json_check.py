#!/usr/bin/env python3
"""`kith bench defrag --json` against its contract: one row per k = 4 ... 12 with
integer moves, bytes_moved and optimal_bytes; every object in the experiment is 16
bytes, so bytes_moved is 16 per move (up to the rounding of the means) and lies
between the optimum and twice it (the defragmenter reaches the optimum here).
Usage: defrag_json_check.py KITH [ARGS...]; prints "ok" or what is wrong, exit 0/1."""
import json
import subprocess
import sys


def main():
    out = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return f"exit {out.returncode}: {out.stderr.strip()}"
    doc = json.loads(out.stdout)
    if list(doc) != ["rows"]:
        return f"top-level keys {list(doc)}, want ['rows']"
    rows = doc["rows"]
    if [r.get("k") for r in rows] != list(range(4, 13)):
        return f"k values {[r.get('k') for r in rows]}"
    for r in rows:
        if list(r) != ["k", "moves", "bytes_moved", "optimal_bytes"]:
            return f"row keys {list(r)}"
        if not all(isinstance(r[f], int) and r[f] >= 0 for f in r):
            return f"row {r}: not non-negative integers"
        if abs(r["bytes_moved"] - 16 * r["moves"]) > 16:
            return f"row {r}: bytes_moved is not 16 per move"
        if not r["optimal_bytes"] <= r["bytes_moved"] <= 2 * r["optimal_bytes"]:
            return f"row {r}: bytes_moved is not within [optimal, 2 x optimal]"
    return None


if __name__ == "__main__":
    fault = main()
    print(fault or "ok")
    sys.exit(1 if fault else 0)

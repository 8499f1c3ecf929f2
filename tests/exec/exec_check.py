#!/usr/bin/env python3
"""Checks of `kith exec` that need more than one command line, a side effect or a
comparison (the single command lines are rows of tests/exec/cases.py).

    exec_check.py --kith PATH --programs DIR --source DIR CHECK [POLICY]

CHECK is one of
  same_output POLICY  real programs (a shell, ls, sort, awk, perl, Python) print
                      the same and exit the same under kith exec --heap=POLICY as
                      without it
  misuse              --check on a double free, a write past the end, an interior
                      pointer and a double free of an aligned block: one line
                      `kith: WHAT of 0x... (N bytes)`, a backtrace, abort (134)
  output_first        an unwritable --stats-file or --trace is exit 73 before
                      COMMAND runs: what COMMAND would do has not happened
  per_process         --stats-file and --trace from a shell that starts other
                      programs: the shell's in PATH, each other process's in PATH.PID,
                      every statistics file one JSON object, every trace replayable
  replay_matches POLICY  a real program's trace replayed on its own policy makes
                      the same requests: every count of the heap block is the same,
                      and its reallocs are in place and moved exactly as in the run
  library_lookup      kith finds libkith_malloc.so where installed (bin/kith,
                      lib/kith/), and without it says where it looked (69)
DIR of --programs holds the test programs of tests/exec (misuse, ...).
Prints "ok" and exits 0, or names what differed and exits 1.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Real programs: a shell that runs others, each allocating in its own way.
SCRIPT = (
    "ls -l {source}/heap | sed 's/  */ /g' | cut -d' ' -f1,5,9; "
    "sort -r {source}/workloads/suite.tsv | head -5; "
    "seq 1 20000 | sort -R --random-source={source}/README.md | sort -n | md5sum; "
    "awk '{{ n[$1]++ }} END {{ for (k in n) c++; print c }}' {source}/README.md; "
    "perl -e 'my %h; $h{{$_}} = [1 .. ($_ % 20)] for 1 .. 50000; print scalar(keys %h), qq(\\n)'; "
    "/usr/bin/python3 -c 'import json; print(len(json.dumps([{{str(i): list(range(i % 40))}} for i in range(20000)])))'"
)


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, **kwargs)


def fail(message):
    print(message)
    return 1


def same_output(args):
    script = SCRIPT.format(source=args.source)
    plain = run(["sh", "-c", script])
    under = run([args.kith, "exec", f"--heap={args.policy}", "--", "sh", "-c", script])
    if plain.returncode != 0:
        return fail(f"the programs fail without kith ({plain.returncode}): {plain.stderr}")
    if (under.returncode, under.stdout, under.stderr) != (plain.returncode, plain.stdout, plain.stderr):
        return fail(f"under {args.policy}: exit {under.returncode} (want {plain.returncode})\n"
                    f"stdout:\n{under.stdout}\nwant:\n{plain.stdout}\nstderr:\n{under.stderr}")
    return 0


MISUSES = {
    "double-free": r"kith: double free of 0x[0-9a-f]+ \(24 bytes\)\n",
    "past-end": r"kith: write past the end of 0x[0-9a-f]+ \(24 bytes\)\n",
    "interior": r"kith: interior pointer 0x[0-9a-f]+ \(inside a live block of 24 bytes, not its start\)\n",
    "aligned-double-free": r"kith: double free of 0x[0-9a-f]+ \(64 bytes\)\n",
}


def misuse(args):
    program = os.path.join(args.programs, "misuse")
    for what, line in MISUSES.items():
        # One line, then the backtrace (a frame a line, naming an object file), then abort.
        expected = "^" + line + r"(\S+\(.*\)\[0x[0-9a-f]+\]\n)+$"
        r = run([args.kith, "exec", "--check", "--heap=tlsf", "--", program, what])
        if r.returncode != 134 or not re.search(expected, r.stderr) or "survived" in r.stdout:
            return fail(f"--check, {what}: exit {r.returncode} (want 134)\nstderr:\n{r.stderr}\nstdout: {r.stdout}")
    return 0


def output_first(args):
    with tempfile.TemporaryDirectory() as tmp:
        ran = os.path.join(tmp, "ran")
        for option in ("--stats-file", "--trace"):
            target = os.path.join(tmp, "no", "such", "dir", "out")
            r = run([args.kith, "exec", f"{option}={target}", "--", "touch", ran])
            if r.returncode != 73 or not re.fullmatch(rf"kith: {re.escape(target)}: No such file or directory\n", r.stderr):
                return fail(f"{option} unwritable: exit {r.returncode} (want 73), stderr {r.stderr!r}")
            if os.path.exists(ran):
                return fail(f"{option} unwritable: COMMAND ran (it touched {ran})")
    return 0


def per_process(args):
    with tempfile.TemporaryDirectory() as tmp:
        stats, trace = os.path.join(tmp, "s.json"), os.path.join(tmp, "t.trace")
        # The options' paths are relative: each process must write where kith was started.
        r = run([args.kith, "exec", "--heap=lea", "--stats-file=s.json", "--trace=t.trace", "--",
                 "sh", "-c", "cd /; ls >/dev/null; sort /dev/null; echo done"], cwd=tmp)
        if r.returncode != 0 or r.stdout != "done\n":
            return fail(f"exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
        reports = {path: json.load(open(path)) for path in sorted(glob.glob(stats + "*"))}
        traces = sorted(glob.glob(trace + "*"))
        if stats not in reports or reports[stats]["process"]["command"] != "sh":
            return fail(f"the shell's statistics are not in {stats}: {sorted(reports)}")
        children = {p: r["process"] for p, r in reports.items() if p != stats}
        if sorted(c["command"] for c in children.values()) != ["ls", "sort"]:
            return fail(f"want ls's and sort's statistics beside the shell's: {children}")
        for path, process in children.items():
            if path != f"{stats}.{process['pid']}":
                return fail(f"{path} holds process {process['pid']}: want {stats}.{process['pid']}")
        if [os.path.basename(t).replace("t.trace", "") for t in traces] != \
                [os.path.basename(s).replace("s.json", "") for s in sorted(reports)]:
            return fail(f"a trace for each statistics file: {traces}")
        for path in traces:
            replay = run([args.kith, "replay", "--heap=lea", "--heap-size=1G", path])
            if replay.returncode != 0:
                return fail(f"kith replay {path}: exit {replay.returncode}: {replay.stderr}")
        for path, report in reports.items():
            heap = report["heap"]
            for key in ("allocations", "frees", "peak_bytes_in_use", "memory_consumption_bytes"):
                if not isinstance(heap.get(key), int) or heap[key] <= 0:
                    return fail(f"{path}: heap.{key} is {heap.get(key)!r}")
            if set(heap["reallocs"]) != {"in_place", "moved"}:
                return fail(f"{path}: reallocs {heap['reallocs']}")
    return 0


def library_lookup(args):
    library = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.kith))), "preload", "libkith_malloc.so")
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bin"))
        kith = os.path.join(tmp, "bin", "kith")
        shutil.copy(args.kith, kith)
        r = run([kith, "exec", "--", "true"])
        want = (rf"kith: exec: cannot find libkith_malloc.so \(looked for {re.escape(tmp)}/bin/../preload/libkith_malloc.so, "
                rf"{re.escape(tmp)}/bin/../lib[^/]*/kith/libkith_malloc.so\)\n")
        if r.returncode != 69 or not re.fullmatch(want, r.stderr):
            return fail(f"without the library: exit {r.returncode} (want 69), stderr {r.stderr!r}")
        installed = re.search(r"bin/\.\./(lib[^/]*)/kith", r.stderr).group(1)
        os.makedirs(os.path.join(tmp, installed, "kith"))
        shutil.copy(library, os.path.join(tmp, installed, "kith", "libkith_malloc.so"))
        r = run([kith, "exec", "--heap=tlsf", "--", "sh", "-c", "echo $LD_PRELOAD"])
        if r.returncode != 0 or r.stdout != os.path.join(tmp, installed, "kith", "libkith_malloc.so") + "\n":
            return fail(f"installed: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    return 0


COUNTS = ("allocations", "frees", "bytes_requested", "bytes_allocated", "peak_bytes_in_use",
          "failed_allocations", "satisfied")


def replay_matches(args):
    with tempfile.TemporaryDirectory() as tmp:
        stats, trace = os.path.join(tmp, "s.json"), os.path.join(tmp, "t.trace")
        program = ["/usr/bin/python3", "-c", "import json; print(len(json.dumps([list(range(i % 300)) for i in range(3000)])))"]
        r = run([args.kith, "exec", f"--heap={args.policy}", "--heap-size=256M", f"--stats-file={stats}",
                 f"--trace={trace}", "--"] + program)
        if r.returncode != 0:
            return fail(f"exec: exit {r.returncode}: {r.stderr}")
        recorded = json.load(open(stats))["heap"]
        replayed_file = os.path.join(tmp, "replayed.json")
        r = run([args.kith, "replay", f"--heap={args.policy}", "--heap-size=256M", f"--stats-file={replayed_file}", trace])
        if r.returncode != 0:
            return fail(f"replay: exit {r.returncode}: {r.stderr}")
        replayed_run = json.load(open(replayed_file))
        replayed = replayed_run["heap"]
        differ = [k for k in COUNTS if recorded[k] != replayed[k]]
        # Each realloc is in the trace as what it was, and the replay, deciding for
        # itself, resizes in place exactly where the run did.
        resized = {"in_place": replayed_run["replay"]["resized_in_place"],
                   "moved": replayed_run["replay"]["resized_moved"]}
        if resized != recorded["reallocs"]:
            differ.append("reallocs")
            replayed["reallocs"] = resized
        # The peak of requested bytes live, kept by the library as the program ran, is the
        # trace's own, found again from its events by `kith trace lifetimes`.
        r = run([args.kith, "trace", "lifetimes", "--json", trace])
        replayed["peak_requested_bytes"] = json.loads(r.stdout)["peak_live_bytes"] if r.returncode == 0 else r.stderr
        if replayed["peak_requested_bytes"] != recorded["peak_requested_bytes"]:
            differ.append("peak_requested_bytes")
        if differ:
            return fail("the replay differs from the run in " +
                        ", ".join(f"{k}: {recorded[k]} (run) vs {replayed[k]} (replay)" for k in differ))
        if recorded["allocations"] < 1000 or sum(recorded["reallocs"].values()) < 100:
            return fail(f"only {recorded['allocations']} allocations and {recorded['reallocs']} reallocs: "
                        "the program was meant to make many of both")
    return 0


CHECKS = {"same_output": same_output, "misuse": misuse, "output_first": output_first,
          "per_process": per_process, "replay_matches": replay_matches, "library_lookup": library_lookup}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kith", required=True)
    parser.add_argument("--programs", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("check", choices=sorted(CHECKS))
    parser.add_argument("policy", nargs="?", default="estranged")
    args = parser.parse_args()
    status = CHECKS[args.check](args)
    if status == 0:
        print("ok")
    return status


if __name__ == "__main__":
    sys.exit(main())

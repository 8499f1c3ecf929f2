#!/usr/bin/env python3
"""The documentation's shell examples, run: an example that fails fails the build.

    doc_commands.py --kith PATH --source DIR [--list] DOC...

Every line of every ```sh block in each DOC (a trailing backslash joins lines; a
`# comment` after a command is dropped) is one command. It runs with `sh -e` in a
fresh folder per DOC (so a later example can use what an earlier one wrote, as a
reader would), where examples/, workloads/, bench/, study/ and scripts/ are links to
the source tree, `kith` is the binary under test on PATH and build/release/cli/kith
names it too. What may not run here is in SKIPPED with the reason; what is too long
for a test runs as written in SCALED instead. Both tables must match commands the
docs still hold, so they cannot outlive what they excuse.

Exits 0 when every command exited 0, 1 naming each that did not (its output's end),
2 on bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Commands that do not run here, by the start of the command, with the reason.
SKIPPED = {
    "./scripts/demo": "is CI's own set-up and the quick study (the README's first command)",
    "./scripts/test": "is CI itself",
    "./scripts/setup": "installs packages",
    "git clone": "needs the network",
    "scripts/bench-vm --awfy": "needs the AWFY checkout (network) and minutes per language",
    "scripts/bench-vm --size=small": "builds the release preset in the source tree and times Lua and Python too",
    "scripts/bench-vm --merge": "merges the files of the runs above",
    "scripts/locality-bench": "a benchmark of minutes",
    "scripts/fuzz": "fuzzes for minutes",
    "cmake --preset fuzz": "builds the clang fuzz preset",
    "build/release/bench/heap_bench": "Google Benchmark over seconds per case",
    "kith study --out=build/study": "the whole study (about 45 minutes)",
    "build/release/cli/kith study --out=build/study": "the whole study (about 45 minutes)",
    "kith study --plan": "part of the batch example below, which needs a cluster",
    "kith study --merge": "part of the batch example, which needs a cluster",
    "mkdir -p batch": "part of the batch example, which needs a cluster",
    "(cd batch && parallel": "part of the batch example, which needs a cluster",
    "parallel --jobs 2 --sshloginfile": "needs ssh nodes",
    "n=$(kith study --plan": "a Slurm job",
    "sbatch": "a Slurm job",
    "valgrind --tool=callgrind": "minutes under callgrind (the study's cost runs test it: study.cost)",
    "callgrind_annotate": "reads the callgrind run above",
    "/usr/bin/python3 -m study cost measure": "callgrind again (study.cost tests it)",
    "/usr/bin/python3 bench/allocator_yardstick.py": "callgrind over every trace of the suite, ~25 minutes (study.yardstick tests it)",
    "kith trace dump bt.trace | less": "pages to a terminal (cli.trace_dump tests dump)",
}

# Commands too long for a test, by their exact text, and what runs instead.
SCALED = {
    "kith study --quick --out=build/study-quick":
        "kith study --quick --workloads=binary_trees --policies=estranged --collectors=occasional "
        "--experiments=main --no-figures --out=build/study-quick",
    "kith study --workloads=binary_trees --policies=list,knuth,estranged --collectors=occasional --repeat=3":
        "kith study --workloads=binary_trees --policies=list,estranged --collectors=occasional --repeat=1 "
        "--max-repeat=1 --experiments=main --sizes=small --no-figures --out=build/study-readme",
}

LINKED = ("examples", "workloads", "bench", "study", "scripts", "tests")


def commands(doc):
    """The commands of a document's sh blocks, in order."""
    out, block, pending = [], False, ""
    with open(doc, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if re.match(r"^```(sh|bash|shell)\s*$", line):
                block = True
                continue
            if block and line.startswith("```"):
                block = False
                continue
            if not block:
                continue
            line = pending + line.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            command = re.sub(r"\s+#.*$", "", line) if not line.startswith("#") else ""
            if command.strip():
                out.append(re.sub(r"\s+", " ", command.strip()))
    return out


def skipped(command):
    return next((reason for start, reason in SKIPPED.items() if command.startswith(start)), None)


def prepare(folder, kith, source):
    for name in LINKED:
        os.symlink(os.path.join(source, name), os.path.join(folder, name))
    bindir = os.path.join(folder, ".bin")
    os.makedirs(bindir)
    os.symlink(kith, os.path.join(bindir, "kith"))
    os.makedirs(os.path.join(folder, "build", "release", "cli"))
    os.symlink(kith, os.path.join(folder, "build", "release", "cli", "kith"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    return env


def main(argv):
    parser = argparse.ArgumentParser(description="Runs the documentation's shell examples.")
    parser.add_argument("--kith", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--list", action="store_true", help="print what would run, skip or scale")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args(argv)
    kith, source = os.path.abspath(args.kith), os.path.abspath(args.source)
    if not os.access(kith, os.X_OK) or not os.path.isdir(source):
        print("doc_commands.py: --kith must be an executable and --source a folder", file=sys.stderr)
        return 2
    failures, used = [], set()
    for doc in args.docs:
        folder = tempfile.mkdtemp(prefix="kith-doc-")
        try:
            env = prepare(folder, kith, source)
            for command in commands(doc):
                reason = skipped(command)
                if reason:
                    used.update(s for s in SKIPPED if command.startswith(s))
                    if args.list:
                        print(f"skip   {command}    ({reason})")
                    continue
                run = SCALED.get(command, command)
                if command in SCALED:
                    used.add(command)
                if args.list:
                    print(f"{'scaled' if run != command else 'run':6} {run}")
                    continue
                p = subprocess.run(["sh", "-ec", run], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
                if p.returncode != 0:
                    tail = p.stdout.decode(errors="replace").strip().splitlines()[-5:]
                    failures.append(f"{os.path.basename(doc)}: `{run}` exited {p.returncode}\n    " + "\n    ".join(tail))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    stale = sorted((set(SKIPPED) | set(SCALED)) - used)
    for entry in stale:
        failures.append(f"no documented command matches the table entry `{entry}`: remove it")
    for failure in failures:
        print(failure)
    if failures:
        return 1
    if not args.list:
        print(f"every documented command ran ({len(args.docs)} documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

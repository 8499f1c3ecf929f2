#!/usr/bin/env python3
"""Checks of kith's outputs that a case row cannot express (CLI.md, exit 73): standard
output that cannot be written (/dev/full), a trace piped from `run --trace=-` into
`replay -`, and the commit `--version` names.

usage: output_check.py KITH SOURCE_DIR
Prints "ok", or one line per failed check (exit 1).
"""
import json
import os
import subprocess
import sys
import tempfile

FULL_STDOUT = "kith: standard output: No space left on device\n"


def to_dev_full(kith, args):
    """kith ARGS with standard output on /dev/full: (exit code, stderr)."""
    with open("/dev/full", "wb") as full:
        p = subprocess.run([kith] + args, stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode()


def check_full_stdout(kith, source, failures):
    scripts = os.path.join(source, "tests/cli/scripts")
    small = os.path.join(source, "tests/replay/fixtures/small.txt")
    commands = {
        "a script's output, flushed at exit": ["run", os.path.join(scripts, "prints_first.kith")],
        "a script's output, failing mid-run": [os.path.join(scripts, "prints_a_lot.kith")],
        "--stats-file=-": ["run", "--stats-file=-", os.path.join(scripts, "allocates_quietly.kith")],
        "--trace=-": ["run", "--trace=-", os.path.join(scripts, "allocates_quietly.kith")],
        "replay's summary": ["replay", small],
        "trace dump": ["trace", "dump", small],
        "trace lifetimes": ["trace", "lifetimes", small],
        "--help": ["--help"],
        "--version": ["--version"],
    }
    for what, args in commands.items():
        code, err = to_dev_full(kith, args)
        if (code, err) != (73, FULL_STDOUT):
            failures.append(f"{what} > /dev/full: exit {code}, stderr {err!r}; expected 73, {FULL_STDOUT!r}")
    # A script's own failure keeps its exit code; the lost output is still reported.
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "exits.kith")
        with open(script, "w") as f:
            f.write('print("bye"); System.exit(3);\n')
        code, err = to_dev_full(kith, [script])
        if (code, err) != (3, FULL_STDOUT):
            failures.append(f"System.exit(3) > /dev/full: exit {code}, stderr {err!r}; expected 3, {FULL_STDOUT!r}")


def check_trace_pipe(kith, source, failures):
    """run --trace=- | replay -: the replay sees every allocation the run made."""
    script = os.path.join(source, "tests/cli/scripts/allocates_quietly.kith")
    with tempfile.TemporaryDirectory() as tmp:
        run_stats, replay_stats = os.path.join(tmp, "run.json"), os.path.join(tmp, "replay.json")
        recorder = subprocess.Popen([kith, "run", "--gc=none", "--trace=-", f"--stats-file={run_stats}", script],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        replay = subprocess.run([kith, "replay", f"--stats-file={replay_stats}", "-"], stdin=recorder.stdout,
                                capture_output=True)
        recorder.stdout.close()
        recorder.wait()
        if recorder.returncode != 0 or replay.returncode != 0:
            failures.append(f"run --trace=- | replay -: exits {recorder.returncode} and {replay.returncode}: "
                            f"{recorder.stderr.read().decode()!r} {replay.stderr.decode()!r}")
            return
        with open(run_stats) as f:
            recorded = json.load(f)["heap"]["allocations"]
        with open(replay_stats) as f:
            replayed = json.load(f)["replay"]["allocations"]
        if recorded < 2000 or recorded != replayed:
            failures.append(f"run --trace=- | replay -: the run allocated {recorded}, the replay {replayed}")


def check_version_commit(kith, source, failures):
    """--version names a commit of this checkout: HEAD, or one before it when the build
    predates the last commit (the commit is looked up at build time)."""
    line = subprocess.run([kith, "--version"], capture_output=True).stdout.decode()
    git = ["git", "-c", "safe.directory=*", "-C", source]
    try:
        subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return  # not built from git: cli.version checks the "commit unknown" shape
    commit = line.rpartition("(")[2].split(")")[0].removesuffix("-dirty")
    named = subprocess.run(git + ["merge-base", "--is-ancestor", commit, "HEAD"], capture_output=True)
    if len(commit) < 7 or named.returncode != 0:
        failures.append(f"--version says {line.strip()!r}, which names no commit of HEAD's history")


def main():
    kith, source = sys.argv[1], sys.argv[2]
    failures = []
    check_full_stdout(kith, source, failures)
    check_trace_pipe(kith, source, failures)
    check_version_commit(kith, source, failures)
    print("\n".join(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Which finished runs a code change made stale, and which builds ran the same code.

A run's build is the commit its .commit names (run_commits.py). `kith study --resume`
redoes every finished run whose build is not the current one, unless nothing that shapes
a run changed between the two: `git diff --quiet OLD NEW -- CODE_PATHS` in the repository
the kith binary was built in (Code.same). Where no repository can compare them (none
found, git missing, a commit it does not hold), a different commit is stale. A build
with uncommitted changes ("-dirty"), or one not recorded, is the same as no other build
(what it ran cannot be known); a run recorded under exactly the current build's name is
never stale. --keep-stale keeps them all (the report is then a draft, builds.py).

The same relation groups a study's builds for the one-build rule (builds.py): commits
with the same code are one build."""

import os
import re
import subprocess

from . import run_commits
from .common import SOURCE_DIR
from .runs import run_files

# What shapes a run's numbers: the kith binary's sources and how it is built, the programs
# it runs, and the study's files that make each run's command. Not the files that only
# read finished runs (analysis, report, figures: they run again at every report), not the
# tests, documents, benchmarks or the native study's preload library.
CODE_PATHS = (
    "heap", "gc", "vm", "stdlib", "cli",  # the kith binary
    "CMakeLists.txt", "CMakePresets.json",  # its compiler flags
    "workloads", "examples",  # the suite and its programs
    # each run's command line (cost runs run alloc_cost.py itself)
    "study/plan.py", "study/runs.py", "study/run_command.py", "study/runner.py", "study/alloc_cost.py",
    "study/demographics.py", "study/common.py", "study/suite.py",
)
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
GIT_TIMEOUT = 60


def is_commit(build):
    """Whether a recorded build names a commit with no uncommitted changes."""
    return bool(_COMMIT.fullmatch(build or ""))


def git(where, *args):
    """(exit code, standard output) of git in `where`; (None, "") when git cannot run."""
    try:
        p = subprocess.run(["git", "-C", where, *args], capture_output=True, text=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None, ""
    return p.returncode, p.stdout.strip()


def repository(kith):
    """The git work tree the kith binary was built in: the one holding the binary (its build
    directory is inside the source tree, as build/release/cli/kith), else the study's own
    source tree (`kith study` runs the driver of the tree it was built from); None when
    neither is in a git repository."""
    for where in (os.path.dirname(os.path.realpath(kith)), SOURCE_DIR):
        rc, top = git(where, "rev-parse", "--show-toplevel")
        if rc == 0 and top:
            return top
    return None


class Code:
    """Whether two builds ran the same code, from the repository (None: no repository)."""

    def __init__(self, repo):
        self.repo = repo
        self.known = {}

    def same(self, a, b):
        if a == b:
            return True
        if not (self.repo and is_commit(a) and is_commit(b)):
            return False
        key = tuple(sorted((a, b)))
        if key not in self.known:  # 0: no change in CODE_PATHS; 1: changed; else a commit it lacks
            rc, _ = git(self.repo, "diff", "--quiet", a, b, "--", *CODE_PATHS)
            self.known[key] = rc == 0
        return self.known[key]

    def why(self, old, new):
        """Why a run of build `old` is stale against `new`, in a few words."""
        if not is_commit(old) or not is_commit(new):
            which = old if not is_commit(old) else new
            return "uncommitted changes" if which.endswith("-dirty") else "build not recorded"
        if not self.repo:
            return "no git repository to compare them in"
        rc, _ = git(self.repo, "diff", "--quiet", old, new, "--", *CODE_PATHS)
        if rc == 1:
            return "the code changed"
        return f"commit not in {self.repo}"


def run_build(out_dir, run_id, legacy):
    """The build recorded for a finished run: its .commit, or, for a run from before the
    .commit files, its kind's one commit in the study's old per-kind ledger."""
    kind = run_id.split("__", 1)[0]
    commit = run_commits.read(os.path.join(out_dir, "runs", kind, run_id))
    if commit:
        return commit
    ledger = legacy.get(kind) or []
    return ledger[0] if len(ledger) == 1 else run_commits.NOT_RECORDED


def stale_runs(out_dir, current, legacy, code):
    """{run id: its build} of the finished runs whose build's code is not the current
    build's."""
    stale = {}
    for run_id in sorted(run_files(out_dir)):
        build = run_build(out_dir, run_id, legacy)
        if not code.same(build, current):
            stale[run_id] = build
    return stale


def set_aside(out_dir, run_ids):
    """Makes finished runs not done, so that the plan runs them again: their .rc (what marks a
    run done) and .commit go; the runner replaces the rest when it runs them."""
    for run_id in run_ids:
        kind = run_id.split("__", 1)[0]
        for ext in ("rc", run_commits.EXTENSION):
            try:
                os.remove(os.path.join(out_dir, "runs", kind, f"{run_id}.{ext}"))
            except FileNotFoundError:
                pass


def summary(stale, current, code):
    """One line per build of the stale runs: its runs by kind, and why they are stale."""
    by_build = {}
    for run_id, build in stale.items():
        kind = run_id.split("__", 1)[0]
        kinds = by_build.setdefault(build, {})
        kinds[kind] = kinds.get(kind, 0) + 1
    lines = []
    for build, kinds in sorted(by_build.items()):
        n = sum(kinds.values())
        lines.append(f"{n} runs of build {run_commits.short(build)} redone ({code.why(build, current)}): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return lines

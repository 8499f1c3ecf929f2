"""Which build ran each run: a study continued with --resume after a change, or given
runs by --merge, holds runs of more than one build, and its report and CSVs say which
(common.kind_commit, report.commits_by_kind).

Each finished run carries its build beside its exit code: runs/<kind>/<id>.commit, one
line, written just before the .rc by the driver that ran it (runner.execute), or by
--merge ("merged, commit not recorded" when the incoming run brought none). The
study's per-kind list (study.json's run_commits) is read back from the runs that are
there, so a run set aside and redone no longer lists the build that made the old one.
Runs from before these files existed count as their kind's commits in the per-kind
ledger the study kept then (study.json's unrecorded_run_commits)."""

import os
import re

from .common import open_regular
from .runs import run_files

EXTENSION = "commit"
MERGED = "merged, commit not recorded"
NOT_RECORDED = "commit not recorded"
# What a .commit may say: a commit (perhaps -dirty), "unknown", or the merge's note;
# anything else (a damaged or hostile file) reads as not recorded.
_READABLE = re.compile(r"(?:[0-9a-f]{7,40}|unknown)(?:-dirty)?|" + re.escape(MERGED) + "|" + re.escape(NOT_RECORDED))


def write(run_path_without_ext, commit):
    """Records `commit` for the run whose files start with run_path_without_ext."""
    with open(f"{run_path_without_ext}.{EXTENSION}", "w") as f:
        f.write(f"{commit}\n")


def read(run_path_without_ext):
    """The run's recorded commit; None when it has no .commit; NOT_RECORDED when the
    file cannot be read or says something else than a commit."""
    try:
        with open_regular(f"{run_path_without_ext}.{EXTENSION}", errors="replace") as f:
            text = f.read(200).strip()
    except FileNotFoundError:
        return None
    except OSError:
        return NOT_RECORDED
    return text if _READABLE.fullmatch(text) else NOT_RECORDED


def legacy_ledger(value):
    """A per-kind ledger ({kind: [commit, ...]}) as study.json kept it, with anything
    malformed dropped (a damaged study.json is not a traceback)."""
    if not isinstance(value, dict):
        return {}
    return {kind: [x if _READABLE.fullmatch(x) else NOT_RECORDED for x in commits if isinstance(x, str)]
            for kind, commits in value.items() if isinstance(kind, str) and isinstance(commits, list)}


def counts(out_dir, legacy):
    """{kind: {commit: runs}} over the finished runs (runs.run_files) under out_dir/runs. A
    run without a .commit counts as each of its kind's commits in `legacy`, or
    NOT_RECORDED."""
    found = {}
    for run_id in sorted(run_files(out_dir)):
        kind = run_id.split("__", 1)[0]
        commit = read(os.path.join(out_dir, "runs", kind, run_id))
        kind_counts = found.setdefault(kind, {})
        for c in ([commit] if commit else legacy.get(kind) or [NOT_RECORDED]):
            kind_counts[c] = kind_counts.get(c, 0) + 1
    return found


def scan(out_dir, legacy):
    """{kind: [commit, ...]} (counts), the commit that ran most runs of a kind first."""
    return {kind: sorted(c, key=lambda x: (-c[x], x)) for kind, c in counts(out_dir, legacy).items()}


def short(commit):
    """A recorded build as people read it: a commit cut to 12 digits (as `kith --version`
    prints it), its -dirty kept; anything else as it is."""
    m = re.fullmatch(r"([0-9a-f]{7,40})(-dirty)?", commit or "")
    return m.group(1)[:12] + (m.group(2) or "") if m else commit

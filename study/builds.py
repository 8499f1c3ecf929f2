"""The study's runs by kind and by build, and the one-build rule.

Published numbers come from one build: a report of runs that more than one build made (or a
build with uncommitted changes, or one not recorded) is a draft. `kith study` refuses to
write one (StudyError 65, naming the kinds and the builds) unless --draft (or --keep-stale)
allows it, and then every section of report.md and every figure says "draft: runs from N
builds". Builds whose commits differ only outside the code that shapes a run
(stale.CODE_PATHS) are one build.

What it writes (write_tables, from analysis.write_results):
  runs.csv    kind, runs, failed (exit code not 0: for minheap probes and trade-off runs
              below a policy's needs, "out of memory" is a result), then a total row:
              every run of every kind, the callgrind cost and replay runs included
  builds.csv  kind, commit, build (the commit its code is counted under: the first of the
              commits with the same code), runs, draft (the stamp, the same on every row;
              empty for one clean build)"""

import os

from . import run_commits
from .common import read_csv, write_csv
from .runs import run_files
from .stale import is_commit

RUNS_COLUMNS = ["kind", "runs", "failed"]
BUILDS_COLUMNS = ["kind", "commit", "build", "runs", "draft"]


class Verdict:
    """The builds behind a study's runs: classes (lists of commits with the same code, the
    first naming the class), and what keeps them from being one clean build."""

    def __init__(self, counts, same):
        commits = sorted({c for kind in counts.values() for c in kind},
                         key=lambda c: (-sum(k.get(c, 0) for k in counts.values()), c))
        self.counts = counts
        self.classes = []
        for c in commits:
            home = next((cls for cls in self.classes if same(cls[0], c)), None)
            if home is None:
                self.classes.append([c])
            else:
                home.append(c)
        self.dirty = sorted(c for c in commits if c.endswith("-dirty"))
        self.unnamed = sorted(c for c in commits if not is_commit(c) and not c.endswith("-dirty"))

    def build_of(self, commit):
        return next(cls[0] for cls in self.classes if commit in cls)

    @property
    def named(self):
        """The number of builds the runs name (commits with the same code one build)."""
        return len([cls for cls in self.classes if cls[0] not in self.unnamed])

    @property
    def draft(self):
        return self.named > 1 or bool(self.dirty) or bool(self.unnamed)

    def stamp(self):
        """'draft: runs from N builds[, ...]', or '' for one clean build."""
        if not self.draft:
            return ""
        n = self.named
        text = f"draft: runs from {n} build{'s' if n != 1 else ''}" if n else "draft: runs"
        if self.unnamed:
            text += " and builds not recorded" if n else " whose build is not recorded"
        if self.dirty:
            text += ", with uncommitted changes"
        return text

    def hint(self):
        """What to do instead."""
        if self.dirty:
            return ("commit the changes, rebuild and `kith study --resume` (it redoes the runs of other builds); "
                    "--draft writes the report stamped as a draft")
        return "`kith study --resume` redoes the runs of other builds; --draft writes the report stamped as a draft"

    def refusal(self):
        """The one-line error of a study that is not one build: the kinds and their builds."""
        why = []
        if self.named > 1:
            why.append(f"{self.named} builds")
        if self.dirty:
            why.append("uncommitted changes")
        if self.unnamed:
            why.append("runs whose build is not recorded")
        kinds = "; ".join(f"{kind}: " + ", ".join(f"{run_commits.short(c)} ({n})" for c, n in
                                                  sorted(c.items(), key=lambda x: (-x[1], x[0])))
                          for kind, c in sorted(self.counts.items()))
        return (f"the runs are not of one clean build: {', '.join(why)} ({kinds}); no results, figures or report "
                "written (published numbers come from one build)")


def run_rows(out_dir):
    """runs.csv's rows: per kind, the finished runs and those that did not exit 0, and the total."""
    by_kind = {}
    for run_id, rc in run_files(out_dir).items():
        kind = run_id.split("__", 1)[0]
        row = by_kind.setdefault(kind, {"kind": kind, "runs": 0, "failed": 0})
        row["runs"] += 1
        row["failed"] += rc != 0
    rows = [by_kind[k] for k in sorted(by_kind)]
    rows.append({"kind": "total", "runs": sum(r["runs"] for r in rows), "failed": sum(r["failed"] for r in rows)})
    return rows


def build_rows(verdict):
    stamp = verdict.stamp()
    return [{"kind": kind, "commit": c, "build": verdict.build_of(c), "runs": n, "draft": stamp}
            for kind, commits in sorted(verdict.counts.items())
            for c, n in sorted(commits.items(), key=lambda x: (-x[1], x[0]))]


def write_tables(out_dir, verdict):
    """runs.csv and builds.csv; {name: (rows, columns)} for the report."""
    runs = run_rows(out_dir)
    write_csv(os.path.join(out_dir, "runs.csv"), runs, RUNS_COLUMNS)
    builds = build_rows(verdict) if verdict else []
    write_csv(os.path.join(out_dir, "builds.csv"), builds, BUILDS_COLUMNS)
    return {"runs": (runs, RUNS_COLUMNS), "builds": (builds, BUILDS_COLUMNS)}


def stamp_of(out_dir):
    """The draft stamp builds.csv records ('' for one clean build, or no builds.csv)."""
    rows = read_csv(os.path.join(out_dir, "builds.csv"))
    return rows[0]["draft"] if rows else ""


def report_lines(tables):
    """The report's table of runs by kind, and the builds behind them."""
    runs, _ = tables.get("runs", ([], []))
    if not runs:
        return []
    total = next((r for r in runs if r["kind"] == "total"), None)
    L = ["**Runs.** Every run of every kind (each a separate process; `runs.csv`), and those that did not exit 0 "
         "(for the minimum-heap probes, out of memory is the search's answer):", ""]
    L += ["| kind | runs | failed |", "|---|---:|---:|"]
    for r in runs:
        name = "**total**" if r is total else f"`{r['kind']}`"
        L.append(f"| {name} | {int(r['runs']):,} | {int(r['failed']):,} |")
    L.append("")
    builds, _ = tables.get("builds", ([], []))
    names = sorted({b["build"] for b in builds})
    if len(names) == 1 and not builds[0]["draft"]:
        commits = sorted({run_commits.short(b["commit"]) for b in builds})
        L.append(f"Every run is of one build, `{run_commits.short(names[0])}`"
                 + (f" (recorded as {', '.join(f'`{c}`' for c in commits)}: commits with the same code)"
                    if len(commits) > 1 else "") + " (`builds.csv`).")
        L.append("")
    return L

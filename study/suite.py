"""The workload suite: workloads/suite.tsv (tab-separated, a header line: name script
default_args small_args heap_size stresses stress_args study_args), read when the study
runs, so rows others append are picked up; an empty suite falls back to
examples/binary_trees.kith."""

import os
import shlex

from common import FALLBACK_ROW, QUICK_WORKLOADS, SOURCE_DIR, parse_size, safe_name

class Workload:
    def __init__(self, row, base_dirs):
        self.name = safe_name(row["name"])
        self.script = self.resolve(row["script"], base_dirs)
        self.default_args = shlex.split(row.get("default_args") or "")
        self.small_args = shlex.split(row.get("small_args") or "") or self.default_args
        # the full study's size: it runs each workload hundreds of times and replays its
        # traces under callgrind, so a fraction of a second a run, not the benchmark's
        # default (up to 17 s)
        self.study_args = shlex.split(row.get("study_args") or "") or self.default_args
        heap_size = row.get("heap_size") or "-"  # suite.tsv's "-": kith run's default heap
        self.heap_size = parse_size("64M" if heap_size == "-" else heap_size)
        self.stresses = (row.get("stresses") or "").strip()

    @staticmethod
    def resolve(script, base_dirs):
        if os.path.isabs(script):
            return script
        for d in base_dirs:
            p = os.path.join(d, script)
            if os.path.exists(p):
                return os.path.abspath(p)
        return os.path.abspath(os.path.join(base_dirs[0], script))

    def args(self, argset):
        return {"small": self.small_args, "study": self.study_args}.get(argset, self.default_args)


def read_suite(path):
    """The suite file's rows (tab-separated, a header line; '#' lines are comments). An
    empty suite gives the built-in binary_trees row."""
    suite_dir = os.path.dirname(os.path.abspath(path))
    bases = [suite_dir, os.path.dirname(suite_dir), SOURCE_DIR]
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            header = [h.strip() for h in lines[0].split("\t")]
            for ln in lines[1:]:
                cells = ln.split("\t")
                row = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
                if row.get("name") and row.get("script"):
                    rows.append(row)
    if not rows:
        return [Workload(FALLBACK_ROW, [SOURCE_DIR])], True
    seen, out = set(), []
    for r in rows:
        w = Workload(r, bases)
        if w.name in seen:
            continue
        seen.add(w.name)
        out.append(w)
    return out, False


def quick_subset(workloads, count=QUICK_WORKLOADS):
    """A few workloads that stress different things: the first of each distinct `stresses`
    value in suite order, then the next rows in order."""
    chosen, kinds = [], set()
    for w in workloads:
        key = w.stresses.lower()
        if key not in kinds and len(chosen) < count:
            kinds.add(key)
            chosen.append(w)
    for w in workloads:
        if len(chosen) >= count:
            break
        if w not in chosen:
            chosen.append(w)
    return [w for w in workloads if w in chosen]

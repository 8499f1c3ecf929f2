"""The workload suite: workloads/suite.tsv (tab-separated, a header line: name script
default_args small_args heap_size stresses stress_args study_args power_args), read when the study
runs, so rows others append are picked up, and checked whole before any run."""

import os
import shlex
from collections.abc import Mapping, Sequence

from .common import (EXIT_MALFORMED, EXIT_MISSING, HEAP_CAP, MIN_HEAP, QUICK_WORKLOADS, SOURCE_DIR, StudyError,
                     format_size, open_regular, parse_size, safe_name)

MAX_BYTES = 1 << 20  # a suite is a few kilobytes; more is not a suite (and /dev/zero never ends)

class Workload:
    """One row of the suite: a script and its arguments at each size, and its heap size."""

    def __init__(self, row: Mapping[str, str], base_dirs: Sequence[str]) -> None:
        self.name = safe_name(row["name"])
        self.script = self.resolve(row["script"], base_dirs)
        self.default_args = shlex.split(row.get("default_args") or "")
        self.small_args = shlex.split(row.get("small_args") or "") or self.default_args
        # the full study's size: it runs each workload hundreds of times and replays its
        # traces under callgrind, so a fraction of a second a run, not the benchmark's
        # default (up to 17 s)
        self.study_args = shlex.split(row.get("study_args") or "") or self.default_args
        # the power runs' size (power.py): the study's run repeated to last 1-2 s, so that
        # few repeats resolve a difference of a few percent
        self.power_args = shlex.split(row.get("power_args") or "") or self.default_args
        heap_size = row.get("heap_size") or "-"  # suite.tsv's "-": kith run's default heap
        self.heap_size = parse_size("64M" if heap_size == "-" else heap_size)
        self.heap_size_text = heap_size  # as written in the suite ("-" or like 64M), for tables
        self.stresses = (row.get("stresses") or "").strip()

    @staticmethod
    def resolve(script: str, base_dirs: Sequence[str]) -> str:
        if os.path.isabs(script):
            return script
        for d in base_dirs:
            p = os.path.join(d, script)
            if os.path.exists(p):
                return os.path.abspath(p)
        return os.path.abspath(os.path.join(base_dirs[0], script))

    def args(self, argset: str) -> list[str]:
        return {"small": self.small_args, "study": self.study_args, "power": self.power_args}.get(argset,
                                                                                                  self.default_args)


COLUMNS = ["name", "script", "default_args", "small_args", "heap_size", "stresses", "stress_args", "study_args",
           "power_args"]
REQUIRED = ["name", "script"]


def read_suite(path: str) -> tuple[list[Workload], bool]:
    """The suite file's workloads (tab-separated, a header line naming COLUMNS, name and
    script required; '#' lines are comments). The whole file is checked before anything
    runs: a missing or unreadable file is StudyError 66, anything malformed (header,
    a row without name or script, a script that does not exist, a bad heap_size, a name
    twice, no workloads at all) StudyError 65 naming file:line. Returns (workloads,
    False): the second value said a built-in row was used; there is no such fallback."""
    suite_dir = os.path.dirname(os.path.abspath(path))
    bases = [suite_dir, os.path.dirname(suite_dir), SOURCE_DIR]
    text = read_text(path)

    def bad(number: int, what: str) -> StudyError:
        return StudyError(EXIT_MALFORMED, f"{path}:{number}: {what}")

    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines())
             if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise StudyError(EXIT_MALFORMED, f"{path}: empty; want a tab-separated header line: {chr(9).join(COLUMNS)}")
    number, line = lines[0]
    header = [h.strip() for h in line.split("\t")]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown or any(c not in header for c in REQUIRED) or len(set(header)) != len(header):
        what = ("one column; columns are separated by tabs, not spaces" if len(header) == 1 and " " in line else
                f"unknown column '{unknown[0]}'" if unknown else
                "a column twice" if len(set(header)) != len(header) else "no name and script columns")
        raise bad(number, f"bad header ({what}); want tab-separated columns from: {' '.join(COLUMNS)}")
    out: list[Workload] = []
    seen: dict[str, int] = {}
    for number, line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > len(header):
            raise bad(number, f"{len(cells)} tab-separated cells, the header has {len(header)} columns")
        row = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
        if len(cells) == 1 and " " in line.strip():
            raise bad(number, "one cell; cells are separated by tabs, not spaces")
        for c in REQUIRED:
            if not row[c]:
                raise bad(number, f"no {c}")
        heap_size = row.get("heap_size") or "-"
        if heap_size != "-":
            try:
                size = parse_size(heap_size)
            except ValueError:
                raise bad(number, f"heap_size '{heap_size}' is not a size (like 512K, 64M, 1G) or -")
            if not MIN_HEAP <= size <= HEAP_CAP:
                raise bad(number, f"heap_size '{heap_size}' is outside {format_size(MIN_HEAP)} (kith's "
                                  f"smallest heap) to {format_size(HEAP_CAP)} (the study's largest)")
        w = Workload(row, bases)
        if not os.path.isfile(w.script):
            raise bad(number, f"script '{row['script']}' does not exist (relative to "
                              f"{suite_dir} or {os.path.dirname(suite_dir)})")
        if w.name in seen:
            raise bad(number, f"workload '{w.name}' again (first on line {seen[w.name]})")
        seen[w.name] = number
        out.append(w)
    if not out:
        raise StudyError(EXIT_MALFORMED, f"{path}: has no workloads, only a header")
    return out, False


def read_text(path: str) -> str:
    """The suite file's text. It must be a regular file (a named pipe would block, a
    device like /dev/zero never end: StudyError 66) of at most MAX_BYTES of UTF-8 (else 65)."""
    try:
        with open_regular(path, newline="") as f:
            text = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise StudyError(EXIT_MISSING, f"{path}: no such suite file")
    except UnicodeDecodeError:
        raise StudyError(EXIT_MALFORMED, f"{path}: not a text file (a suite is tab-separated text)")
    except OSError as e:
        if os.path.isdir(path):
            raise StudyError(EXIT_MISSING, f"{path}: is a directory, not a suite file")
        if e.errno is None:  # open_regular's refusal of a pipe or device
            raise StudyError(EXIT_MISSING, f"{path}: not a regular file (a suite is a tab-separated text file)")
        raise StudyError(EXIT_MISSING, f"{path}: cannot read: {e.strerror or e}")
    if len(text) > MAX_BYTES:
        raise StudyError(EXIT_MALFORMED, f"{path}: larger than {format_size(MAX_BYTES)}; not a suite "
                                         "(a suite is a few kilobytes of tab-separated text)")
    return text


def quick_subset(workloads: Sequence[Workload], count: int = QUICK_WORKLOADS) -> list[Workload]:
    """A few workloads that stress different things: the first of each distinct `stresses`
    value in suite order, then the next rows in order."""
    chosen: list[Workload] = []
    kinds: set[str] = set()
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

"""Constants and small helpers shared by the study's modules (driver.py is the driver)."""

import csv
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The package's folder: `python3 ENTRY ARGS` runs its __main__.py, the study's one entry
# point, from any directory, as `python3 -m study ARGS` does from the source tree; the
# study's own commands (the cost and wholerun runs, drawing the figures) run it so.
ENTRY = os.path.join(SOURCE_DIR, "study")
PYTHON = "/usr/bin/python3"

DEFAULT_POLICIES = ["list", "knuth", "estranged", "tlsf", "kingsley", "lea", "malloc"]
DEFAULT_COLLECTORS = ["occasional", "continuous"]
NOT_FIXED_SIZE = {"malloc", "boehm"}  # no minimum heap: the heap size only paces the collector
FULL_MULTIPLES = [1.25, 1.5, 2, 3, 4, 6]
QUICK_MULTIPLES = [1.5, 3]
FULL_CONTRIVED = ["1M", "2M", "4M", "8M", "16M", "32M", "64M", "128M", "256M"]
QUICK_CONTRIVED = ["1M", "4M", "16M"]
QUICK_WORKLOADS = 3
KINDS = ["contrived", "main", "sources", "pauses", "minheap", "tradeoff", "demog", "trace", "cost", "replay",
         "wholerun", "power"]
# Kinds a study runs only when --experiments names them: each wholerun run is a main run
# under cachegrind (whole_run.py), 20-100 times its native time; the power runs
# (power.py) are main runs of a few workloads at larger sizes, up to 30 repeats each.
OPT_IN_KINDS = {"wholerun", "power"}
DEFAULT_KINDS = [k for k in KINDS if k not in OPT_IN_KINDS]
TIMEOUT_EXIT = 124  # as timeout(1)
# Runs whose wall time is a result: they run alone (no other run beside them) by default,
# and with --stats-timers=off where they are study runs (main, tradeoff). Pause runs
# always run alone (Run.exclusive) and with timers off too: two clock reads around every
# free of a sweep would be part of the pauses they measure.
TIMED_KINDS = {"contrived", "main", "tradeoff", "replay", "power"}
TIMERS_OFF_KINDS = {"main", "sources", "tradeoff", "pauses", "wholerun", "power"}  # count, but read no clock per malloc/free
# Every kith run but these leaves out where immediate blocks came from (--stats-sources=off),
# which costs the counting path 8-13 instructions a malloc: the sources runs, one untimed run
# per main configuration, give Figure 10's recycled/leftover split (analysis.satisfied_tables).
SOURCES_KINDS = {"sources"}
DEFAULT_MAX_REPEAT = 15
DEFAULT_TARGET_CI = 0.03  # the 95% interval's half-width, as a fraction of the mean
MIN_HEAP = 16 << 10  # `kith run --heap-size=` wants at least 16K (cli/run_options.cpp)
HEAP_CAP = 4 << 30  # the largest heap any run of the study is given (the minimum-heap search stops there)
CONTRIVED_MIN = 1 << 20  # `kith bench contrived --heap-size=` wants at least 1M (cli/main.cpp)


# --- small helpers ----------------------------------------------------------------------

def open_regular(path: str, encoding: str | None = None, errors: str | None = None,
                 newline: str | None = None) -> TextIO:
    """open(path) for reading a text file that must be a regular one: a named pipe, device or
    directory in its place (a hostile merge directory, a tampered study) is an OSError,
    not a read that blocks forever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a pipe does not wait for a writer
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "r", encoding=encoding, errors=errors, newline=newline)
    except BaseException:
        os.close(fd)
        raise


def is_regular(path: str) -> bool:
    """Whether path is a regular file (following a symbolic link), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def kind_commit(config: Mapping[str, Any], kind: str) -> str:
    """The commit(s) whose kith ran the study's runs of `kind` (study.json's run_commits,
    kept across --resume and --merge), or the study's one commit when none is recorded
    ("" if that is unknown too)."""
    commits = (config.get("run_commits") or {}).get(kind) or []
    return ", ".join(commits) if commits else config.get("commit", "")


def parse_size(text: object) -> int:
    """'64M' -> 67108864 (binary units, as kith's --heap-size, which takes T too)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)B?\s*", str(text), re.I)
    if not m:
        raise ValueError(f"not a size: {text!r} (like 512K, 64M, 1G)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]


def format_size(n: int | str | None) -> str:
    if n is None or n == "":
        return ""
    n = int(n)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f}M"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f}K"
    return str(n)


def format_duration(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def safe_name(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9.-]+", "_", name)
    return re.sub(r"_+", "_", s).strip("_") or "w"


def number(x: Any) -> float | None:
    """x as a float, or None where a CSV cell is empty or a JSON value missing or not a number."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def num(row: Mapping[str, Any], key: str) -> float | None:
    """A row's field (a CSV row or a flattened statistics row) as a number, or None."""
    return number(row.get(key))


def fmt(x: object, digits: int = 3) -> str:
    if x is None or x == "":
        return ""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return ""
        return f"{x:.{digits}g}" if abs(x) < 1e6 else f"{x:.0f}"
    return str(x)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines: the header, the rule, a line per row (cells as str())."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def write_csv(path: str, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
    os.replace(tmp, path)


def read_csv(path: str) -> list[dict[str, str]]:
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def warn(message: str) -> None:
    print(f"kith study: {message}", file=sys.stderr)


def exit_codes(path: str = os.path.join(SOURCE_DIR, "cli", "exit_codes.h")) -> dict[str, int]:
    """The kith command's exit codes (docs/CLI.md), read from the C++ header that defines
    them, so the study driver and the tool cannot disagree: {'kExitUsage': 64, ...}."""
    with open(path) as f:
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"constexpr int (kExit\w+) = (\d+);", f.read())}


_CODES = exit_codes()
EXIT_USAGE, EXIT_MALFORMED, EXIT_MISSING = _CODES["kExitUsage"], _CODES["kExitDataError"], _CODES["kExitNoInput"]
EXIT_CANNOT_CREATE = _CODES["kExitCantCreate"]
EXIT_SOFTWARE = _CODES["kExitSoftware"]  # a failure of ours
EXIT_UNAVAILABLE = _CODES["kExitUnavailable"]  # a program the study needs (valgrind) is missing


def measured_to(out: str, tool: str, measure: Any, failed: type[Exception]) -> tuple[int, Any]:
    """A measuring command's end (`python3 -m study cost|whole-run measure`): runs measure()
    and writes the record it returns to `out` as JSON (a temporary file renamed when
    complete). (0, the record), or (the exit code, None) with a one-line `tool: ...` on
    stderr: 69 a program missing, a `failed` exception's own .code (the measured run's),
    70 otherwise."""
    try:
        record = measure()
    except FileNotFoundError as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return EXIT_UNAVAILABLE, None
    except failed as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return int(getattr(e, "code", EXIT_SOFTWARE)), None
    except (RuntimeError, OSError, ValueError) as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return EXIT_SOFTWARE, None
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, out)
    return 0, record


class StudyError(Exception):
    """An error the driver reports as one line `kith study: MESSAGE` and exits with code;
    a hint ("did you mean 'list'?", suggestion.py) is a second line."""

    def __init__(self, code: int, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.hint = hint


def usage_error(message: str, hint: str = "") -> StudyError:
    return StudyError(EXIT_USAGE, message, hint)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: os.path.samefile when both exist (a symlink or a
    hard link to it too), their real paths otherwise (a file not made yet)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_output_naming_an_input(command: str, option: str, out: str, inputs: Iterable[str]) -> None:
    """A usage error, raised before anything runs, when the file `option` names is one the
    command reads: the command replaces its output whole (a temporary file renamed), so
    it would silently replace the user's input with its result."""
    for path in inputs:
        if same_file(out, path):
            raise usage_error(f"{command}: {option} names the input {path}; write the result to another file")


def name_list(option: str, text: str, valid: Sequence[str] | None = None) -> list[str]:
    """A comma-separated --option value: not empty, no name twice, each in valid (if given)."""
    from .suggestion import did_you_mean  # here: some tools import this module on its own (tests/workloads)
    names = [x.strip() for x in text.split(",")]
    if not text.strip() or "" in names:
        raise usage_error(f"--{option} wants comma-separated names; got '{text}'")
    for x in names:
        if valid is not None and x not in valid:
            raise usage_error(f"--{option}: unknown name '{x}'; valid: {', '.join(valid)}", did_you_mean(x, valid))
        if names.count(x) > 1:
            raise usage_error(f"--{option}: '{x}' given twice")
    return names

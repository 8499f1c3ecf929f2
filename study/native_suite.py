"""The one reader of workloads/native/suite.tsv: real programs run with a Kith policy as
their malloc through `kith exec` (the file's header says what each column means).

A malformed suite is StudyError 65 naming the line; a missing one 66; the file is read only
if it is a regular file of at most MAX_SUITE_BYTES (a FIFO or /dev/zero in its place is
refused, not read forever)."""

import os
import re
import shlex
from dataclasses import dataclass, field

from .common import EXIT_MALFORMED, EXIT_MISSING, PYTHON, SOURCE_DIR, StudyError, open_regular

NATIVE_SUITE = os.path.join(SOURCE_DIR, "workloads", "native", "suite.tsv")
COLUMNS = ["name", "command", "prepare", "quick", "quick_prepare", "env", "mask", "what"]
MAX_SUITE_BYTES = 1 << 20
PLACEHOLDERS = ("cfrac", "espresso", "third_party", "native", "repo", "work", "python")


@dataclass
class Program:
    name: str
    command: list          # argv, placeholders filled
    prepare: list          # argv or [] (writes the command's input into the work folder)
    env: dict = field(default_factory=dict)
    mask: re.Pattern = None  # cut from the output before comparing with glibc's
    what: str = ""
    text: str = ""           # the command as the suite writes it, placeholders unfilled (for reports)

    def masked(self, text):
        return self.mask.sub("", text) if self.mask else text


def read_rows(path=NATIVE_SUITE):
    """[(line number, {column: text})] of the suite, checked for shape."""
    try:
        with open_regular(path, encoding="utf-8") as f:
            text = f.read(MAX_SUITE_BYTES + 1)
    except FileNotFoundError:
        raise StudyError(EXIT_MISSING, f"{path}: no such file")
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(EXIT_MISSING, f"cannot read {path}: {e}")
    if len(text) > MAX_SUITE_BYTES:
        raise StudyError(EXIT_MALFORMED, f"{path}: larger than {MAX_SUITE_BYTES} bytes, not a suite")
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    if not lines or lines[0][1].split("\t") != COLUMNS:
        raise StudyError(EXIT_MALFORMED, f"{path}: the first row must name the columns {' '.join(COLUMNS)}")
    rows, names = [], set()
    for n, line in lines[1:]:
        cells = line.split("\t")
        if len(cells) != len(COLUMNS):
            raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: {len(cells)} columns, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells))
        if not re.fullmatch(r"[a-z][a-z0-9_]*", row["name"]) or row["name"] in names:
            raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: '{row['name']}' is not a new name of "
                                             "lower-case letters, digits and _")
        names.add(row["name"])
        rows.append((n, row))
    return rows


def fill(path, n, text, places):
    """`text` with its {placeholders} filled, split into words; [] for '-'."""
    if text == "-":
        return []
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: {e}")
    unknown = {m for w in words for m in re.findall(r"\{([a-z_]+)\}", w)} - set(PLACEHOLDERS)
    if unknown:
        raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: unknown placeholder {{{sorted(unknown)[0]}}}")
    return [re.sub(r"\{([a-z_]+)\}", lambda m: places[m.group(1)], w) for w in words]


def parse_env(path, n, text):
    if text == "-":
        return {}
    env = {}
    for pair in text.split(","):
        key, eq, value = pair.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: '{pair}' is not VAR=VALUE")
        env[key] = value
    return env


def places_for(third_party_bin, third_party_src, work):
    return {"cfrac": os.path.join(third_party_bin, "cfrac"), "espresso": os.path.join(third_party_bin, "espresso"),
            "third_party": third_party_src, "native": os.path.dirname(NATIVE_SUITE), "repo": SOURCE_DIR,
            "work": work, "python": PYTHON}


def load(places, quick, path=NATIVE_SUITE):
    """[Program] of the suite, its study commands or (quick) its small ones."""
    programs = []
    for n, row in read_rows(path):
        try:
            mask = re.compile(row["mask"]) if row["mask"] != "-" else None
        except re.error as e:
            raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: mask: {e}")
        command = fill(path, n, row["quick" if quick else "command"], places)
        if not command:
            raise StudyError(EXIT_MALFORMED, f"{path}: line {n}: no command")
        programs.append(Program(row["name"], command, fill(path, n, row["quick_prepare" if quick else "prepare"], places),
                                parse_env(path, n, row["env"]), mask, row["what"], row["quick" if quick else "command"]))
    return programs


# --- the Are We Fast Yet suite's own Lua code --------------------------------------------

AWFY_MASK = r"(runtime|average|total|Total Runtime): [0-9]+us"
GENERATIONAL = 'collectgarbage("generational")'


def awfy_programs(awfy, quick, names=None):
    """The AWFY benchmarks of Kith's own suite (workloads/suite.tsv's rows that run
    workloads/awfy/harness.kith), as the AWFY checkout at `awfy` runs them under lua5.4, with
    the same arguments as the Kith runs (the study's, or quick: the small ones), each under
    Lua's incremental collector (awfy_NAME) and its generational one (awfy_NAME_gen)."""
    from .suite import read_suite
    lua_dir = os.path.join(awfy, "benchmarks", "Lua")
    if not os.path.isfile(os.path.join(lua_dir, "harness.lua")):
        raise StudyError(EXIT_MISSING, f"--awfy={awfy} is not a checkout of are-we-fast-yet "
                                       "(no benchmarks/Lua/harness.lua)")
    programs = []
    workloads, _ = read_suite(os.path.join(SOURCE_DIR, "workloads", "suite.tsv"))
    for w in workloads:
        if not w.script.endswith(os.path.join("awfy", "harness.kith")) or (names and w.name not in names):
            continue
        args = w.args("small" if quick else "study")
        same = "runs the same benchmark"
        if not os.path.isfile(os.path.join(lua_dir, args[0].lower() + ".lua")):
            # A smaller variant of Kith's own (HavlakShort): the checkout has only the
            # benchmark it shrinks (Havlak), run here for one iteration.
            full = [f[:-4] for f in sorted(os.listdir(lua_dir))
                    if f.endswith(".lua") and args[0].lower().startswith(f[:-4]) and len(f) > 4]
            if not full:
                continue
            same = f"runs its smaller variant {args[0]}"
            args = [args[0][:len(full[-1])], "1", "1"]
        env = {"LUA_PATH": os.path.join(lua_dir, "?.lua") + ";;"}
        for suffix, extra, what in (("", [], "incremental"), ("_gen", ["-e", GENERATIONAL], "generational")):
            argv = ["lua5.4", *extra, os.path.join(lua_dir, "harness.lua"), *args]
            text = shlex.join(["lua5.4", *extra, "{awfy}/benchmarks/Lua/harness.lua", *args])
            programs.append(Program(f"awfy_{w.name}{suffix}", argv, [], env, re.compile(AWFY_MASK),
                                    f"Are We Fast Yet's {args[0]} in Lua 5.4, {what} collection "
                                    f"(Kith's `{w.name}` {same})", text))
    return programs

"""A study's state, DIR/study.json: the options it was started with, its configuration,
the commands that made it and which builds ran its runs (driver.py writes it).

--resume, --merge and --plan continue the study in DIR: the options not given come from
study.json (fill_options), so they must be there, each of its type (read). A study.json
of another shape is not a study's, and no study continues from it."""

import json
import os

from .common import DEFAULT_KINDS, SOURCE_DIR, open_regular

# The options that shape a study, and their defaults (those of a study started afresh).
STUDY_OPTIONS = {"workloads": "all", "policies": None, "collectors": None, "repeat": None, "max_repeat": None,
                 "target_ci": None, "jobs": None, "timing_jobs": None, "quick": False, "sizes": None,
                 "suite": os.path.join(SOURCE_DIR, "workloads", "suite.tsv"), "experiments": ",".join(DEFAULT_KINDS),
                 "main_heap": "2", "pause_policy": None, "min_heap_collector": None, "min_heap_precision": 0.02,
                 "probes_per_round": 1, "heap_multiples": None, "tradeoff_repeat": None, "tradeoff_max_repeat": None,
                 "contrived_sizes": None, "timeout": 3600, "no_figures": False, "power_workloads": None,
                 "power_max_repeat": None}
# Each option's type in study.json (None is the value of an option left at its default
# where that default is None).
OPTION_TYPES = {"repeat": int, "max_repeat": int, "jobs": int, "timing_jobs": int, "probes_per_round": int,
                "tradeoff_repeat": int, "tradeoff_max_repeat": int, "timeout": int, "target_ci": float,
                "power_workloads": int, "power_max_repeat": int,
                "min_heap_precision": float, "quick": bool, "no_figures": bool}  # the others are text
SIZES = ("study", "small", "default")  # --sizes
# Every study.json since options were saved holds these (the options added later may be
# missing: they take their defaults).
FIRST_OPTIONS = ("workloads", "policies", "collectors", "repeat", "jobs", "timing_jobs", "quick", "suite",
                 "experiments", "main_heap", "pause_policy", "min_heap_collector", "min_heap_precision",
                 "probes_per_round", "heap_multiples", "tradeoff_repeat", "contrived_sizes", "timeout")
MAX_BYTES = 16 << 20  # a study.json is kilobytes


def read(path):
    """The state in path; OSError when it cannot be read, ValueError saying why it is not
    a study's."""
    with open_regular(path) as f:
        if os.fstat(f.fileno()).st_size > MAX_BYTES:
            raise ValueError("larger than any study's state")
        try:
            state = json.load(f)
        except RecursionError:
            raise ValueError("nested too deep")
    why = problem(state)
    if why:
        raise ValueError(why)
    return state


def problem(state):
    """Why a JSON value is not a study's state, or None."""
    if not isinstance(state, dict):
        return "not a JSON object"
    options = state.get("options")
    if not isinstance(options, dict):
        return "no options"
    if not isinstance(state.get("config"), dict):
        return "no config"
    missing = [name for name in FIRST_OPTIONS if name not in options]
    if missing:
        return f"no option {missing[0]}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
    for name, value in options.items():
        if name in STUDY_OPTIONS and not of_its_type(name, value):
            return f"option {name} is {json.dumps(value)[:40]}, not {type_name(name)}"
    invocations = state.get("invocations", [])
    if not isinstance(invocations, list) or not all(isinstance(x, str) for x in invocations):
        return "invocations is not a list of commands"
    if not isinstance(state.get("load_start", ""), (str, type(None))):
        return "load_start is not text"
    return None


def of_its_type(name, value):
    if value is None:
        return STUDY_OPTIONS[name] is None
    want = OPTION_TYPES.get(name, str)
    if want is float:
        ok = isinstance(value, (int, float))
    elif want is int:
        ok = isinstance(value, int)
    else:
        ok = isinstance(value, want)
    if name == "sizes":
        ok = ok and value in SIZES
    return ok and (want is bool or not isinstance(value, bool))


def type_name(name):
    want = OPTION_TYPES.get(name, str)
    what = {int: "an integer", float: "a number", bool: "true or false", str: "text"}[want]
    if name == "sizes":
        what = " or ".join(SIZES)
    return what + (" or null" if STUDY_OPTIONS[name] is None else "")


def fill_options(a, previous, continuing):
    """Sets the options not given on the command line (None in a): from the previous
    study's when continuing it, else the defaults. Returns the study's options, as saved."""
    before = previous.get("options", {}) if continuing else {}
    given = {}
    for name, default in STUDY_OPTIONS.items():
        if getattr(a, name) is None:
            setattr(a, name, before.get(name, default))
        given[name] = getattr(a, name)
    if a.suite:
        a.suite = os.path.abspath(a.suite)
        given["suite"] = a.suite
    return given

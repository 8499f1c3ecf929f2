"""A run's JSON (runs/<kind>/<id>.json), checked before any of its numbers is counted:
by --merge before a run is copied in (merge.py), and by the analysis for every run in
the study's directory (analysis.py), so a run brought in before these checks, or edited
since, is refused with its reason rather than a traceback in the statistics.

Every number must be finite (Python's json reads NaN, Infinity and 1e309; kith never
writes them). Each kind's JSON must hold the keys the analysis reads (SHAPES); its
counts must be non-negative integers, its times non-negative numbers, and where the kind
says which values may be text (a kith run's statistics, ../shared/CLI.md, the contrived
benchmark), every other value a number or null (kith's "not measured")."""

import fnmatch
import json
import math
import os

from .common import format_size, open_regular

MAX_BYTES = 64 << 20  # a run's JSON is kilobytes; a bigger one is not read


class Shape:
    """What one kind of run's JSON holds; keys are dotted paths, patterns fnmatch's."""

    def __init__(self, required=(), counts=(), times=(), text=None):
        self.required = required  # keys that must be there
        self.counts = counts      # non-negative integers
        self.times = times        # non-negative numbers
        self.text = text          # the only keys whose value may be other than a number or null; None: any

    def may_be_text(self, key):
        return self.text is None or matches(key, self.text)


STATS = Shape(required=("heap.allocations", "heap.satisfied", "gc.cycles", "vm.wall_s"),
              counts=("heap.allocations", "heap.frees", "heap.satisfied.*", "gc.cycles"), times=("vm.wall_s",),
              text=("policy", "collector", "gc.pacing", "heap.op_timers", "gc.parameters.*"))
SHAPES = {
    **{kind: STATS for kind in ("main", "tradeoff", "trace", "pauses", "minheap", "demog", "power")},
    "contrived": Shape(required=("n",), counts=("n",), text=()),  # `kith bench contrived --json`
    "wholerun": Shape(required=STATS.required + ("cachegrind.Ir",), counts=STATS.counts + ("cachegrind.*",),
                      times=STATS.times + ("valgrind_s",), text=STATS.text),  # whole_run.py measure
    "replay": Shape(counts=("replay.events",), times=("replay.wall_s",)),  # `kith replay --stats-file`
    "cost": Shape(required=("functions.allocateOne", "functions.freeOne", "allocations", "frees", "events"),
                  counts=("allocations", "frees", "events", "failed_allocations", "functions.*.*"),
                  times=("valgrind_s",)),  # alloc_cost.py measure
}
OTHERS = Shape()  # a kind without a shape: an object whose numbers are finite


def read(path, kind):
    """(data, why) for the JSON at path of a run of `kind`: why is None when its numbers
    can be counted, else the reason (data is None when it is not a JSON object)."""
    try:
        with open_regular(path) as f:
            if os.fstat(f.fileno()).st_size > MAX_BYTES:
                return None, f"its .json is larger than {format_size(MAX_BYTES)}"
            data = json.load(f)
    except FileNotFoundError:
        return None, "it exited 0 but has no .json"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None, "its .json is not JSON"
    if not isinstance(data, dict):
        return None, "its .json is not a JSON object"
    return data, problem(data, kind)


def problem(data, kind):
    """Why a run's JSON object cannot be counted, or None."""
    shape = SHAPES.get(kind, OTHERS)
    for key in shape.required:
        if not has(data, key):
            return f"its .json has no {key}"
    for key, value in leaves(data):
        why = bad_value(shape, key, value)
        if why:
            return f"its .json has {key} = {json_text(value)}, {why}"
    return None


def has(data, key):
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def matches(key, patterns):
    return any(fnmatch.fnmatchcase(key, p) for p in patterns)


def leaves(value, key=""):
    """(dotted key, value) of every value in a JSON tree that is not an object or array
    (an array's elements as key[i])."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{key}[{i}]")
    else:
        yield key, value


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def bad_value(shape, key, value):
    """Why one value of a run's JSON is not what its shape wants, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if matches(key, shape.counts):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return "not a count (a non-negative integer)"
    elif matches(key, shape.times):
        if not is_number(value) or value < 0:
            return "not a time (a non-negative number)"
    elif not shape.may_be_text(key) and not (is_number(value) or value is None):
        return "not a number"  # null is kith's "not measured" (alloc_ns without timers)
    return None


def json_text(value):
    """A value as the JSON it came from (NaN and infinities as Python reads them), short."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."

"""How STUDY.md prints what it says, and how it refuses to (prose.py renders the template,
prose_values.py computes the values): the values a placeholder may hold beyond a number or
text (Range, Names, Table), the units a placeholder's spec may name (UNITS), and the errors
that stop a rendering (MissingData, FalseClaim). Imports nothing of the study: both
prose.py and prose_values.py use it."""


class ProseError(Exception):
    """Why STUDY.md could not be made (one line)."""


class MissingData(ProseError):
    """The study lacks a file, row or value the narrative speaks of."""


class FalseClaim(ProseError):
    """A sentence of the narrative no longer holds in the data."""


def claim(holds, what):
    """Raises FalseClaim(what) unless holds: a sentence that must not be printed false."""
    if not holds:
        raise FalseClaim(f"no longer true in this study's data: {what}")


# --- values and how they print ----------------------------------------------------------

MIB, KIB = 1 << 20, 1 << 10


def three_digits(x):
    """x to three significant digits, trailing zeros kept (3.00, 18.5, 596, 1,304)."""
    return f"{x:#.3g}" if x < 100 else f"{x:,.0f}"


def format_ns(ns):
    """A time in ns as the worst-case table writes it: 40 ns, 1.52 µs, 18.5 µs, 3.00 ms."""
    if ns < 1000:
        return f"{ns:,.0f} ns"
    if ns < 1e6:
        return f"{three_digits(ns / 1e3)} µs"
    return f"{three_digits(ns / 1e6)} ms"


def format_size(n):
    """A size in its largest binary unit when exact (1 MiB, 64 KiB), else in MiB or KiB."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n / MIB:,.1f} MiB" if n >= MIB else f"{n / KIB:,.0f} KiB"


# Specs beyond Python's: sizes in binary units (the study's unit, said in STUDY.md) and times.
UNITS = {
    "MiB": lambda b: f"{b / MIB:,.1f} MiB",
    "KiB": lambda b: f"{b / KIB:,.0f} KiB",
    "size": format_size,
    "ns": format_ns,
}


def format_value(value, spec):
    """A value as the placeholder's spec prints it: UNITS, a Python format spec, or a value's
    own __format__ (Range, Table, Names)."""
    if isinstance(value, bool) or value is None:
        raise ProseError(f"not a number or text: {value!r}")
    if spec in UNITS and isinstance(value, (int, float)):
        return UNITS[spec](value)
    return format(value, spec or "")


class Range:
    """lo–hi, each end printed by the placeholder's spec; one number when they print alike."""

    def __init__(self, values):
        values = [v for v in values if v is not None]
        if not values:
            raise MissingData("a range of no values")
        self.lo, self.hi = min(values), max(values)

    def __format__(self, spec):
        lo, hi = format_value(self.lo, spec), format_value(self.hi, spec)
        if lo == hi:
            return lo
        if spec in ("MiB", "KiB"):  # 49.3–68.3 MiB, not 49.3 MiB–68.3 MiB
            lo = lo.rsplit(" ", 1)[0]
        elif spec.endswith("%"):  # 93.6–99.8%
            lo = lo[:-1]
        return f"{lo}–{hi}"


class Names:
    """Names as prose: 'a', 'a and b', 'a, b and c'."""

    def __init__(self, names):
        self.names = list(names)

    def __len__(self):
        return len(self.names)

    def __format__(self, spec):
        if not self.names:
            raise MissingData("an empty list of names")
        if len(self.names) == 1:
            return self.names[0]
        return ", ".join(self.names[:-1]) + " and " + self.names[-1]


class Table:
    """A Markdown table made by a function of the spec (e.g. the workloads it shows)."""

    def __init__(self, make):
        self.make = make

    def __format__(self, spec):
        return self.make(spec)

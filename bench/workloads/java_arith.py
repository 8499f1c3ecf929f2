"""Java's int arithmetic for the Python ports of JOlden (bench/workloads/*.py): the
ports import these instead of each carrying its own copy."""


def java_int(x):
    """x wrapped to a 32-bit two's-complement int, as Java's int arithmetic wraps."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= (1 << 31) else x


def java_div(a, b):
    """Java's int division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def java_d2i(x):
    """Java's (int) cast of a double: NaN is 0, out-of-range values saturate."""
    if x != x:
        return 0
    if x >= 2147483647.0:
        return 2147483647
    if x <= -2147483648.0:
        return -2147483648
    return int(x)

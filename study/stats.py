"""The study's arithmetic, in one place and without dependencies (standard library only).

- Confidence intervals after Georges, Buytaert and Eeckhout, "Statistically rigorous Java
  performance evaluation" (OOPSLA 2007): the 95% interval of a mean from n runs uses
  Student's t with n - 1 degrees of freedom for n < 30 and the normal distribution from
  n >= 30 (their §3.2); two alternatives are compared through the interval of their
  ratio (Fieller's theorem with Welch's degrees of freedom), never by overlap alone.
- Minimum mutator utilization (Cheng and Blelloch, PLDI 2001) from a list of pauses, for
  any window; the same definition as gc/pause_recorder.h.
- The minimum-heap search: a bracketing search on heap size, pure (it only proposes
  sizes and reads verdicts), so it is tested on synthetic verdicts.
- Flattening the statistics JSON into CSV columns.
"""

import bisect
import dataclasses
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

CONFIDENCE = 0.95
# (estimate, low, high) of an interval; low and high None where it is unknown (one sample)
Interval = tuple[float | None, float | None, float | None]


# --- Student's t ------------------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df (> 0, not necessarily whole) degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom (bisection on t_cdf)."""
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def critical_value(n: int, confidence: float = CONFIDENCE, df: float | None = None) -> float:
    """Two-sided critical value for a mean of n samples: t (n - 1 df) below 30, z from 30."""
    p = 1 - (1 - confidence) / 2
    if df is None:
        df = n - 1
    if n >= 30:
        return statistics.NormalDist().inv_cdf(p)
    return t_quantile(p, df)


# --- summaries --------------------------------------------------------------------------

def median(xs: Sequence[float]) -> float | None:
    return statistics.median(xs) if xs else None


def mean_ci(xs: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
    """(mean, low, high): the confidence interval of the mean (Georges et al. 2007).
    With one sample the interval is unknown: (x, None, None)."""
    values = list(xs)
    if not values:
        return None, None, None
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, None, None
    s = statistics.stdev(values)
    half = critical_value(len(values), confidence) * s / math.sqrt(len(values))
    return m, m - half, m + half


def welch_df(va: float, na: int, vb: float, nb: int) -> float:
    """Welch–Satterthwaite degrees of freedom; va, vb are the variances of the means."""
    num = (va + vb) ** 2
    den = 0.0
    if va > 0:
        den += va * va / (na - 1)
    if vb > 0:
        den += vb * vb / (nb - 1)
    return num / den if den > 0 else float("inf")


def ratio_ci(a: Iterable[float], b: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
    """(mean(a) / mean(b), low, high) by Fieller's theorem for two independent samples
    (ratio_ci_of_means on their means and the variances of those means)."""
    xa, xb = list(a), list(b)
    if not xa or not xb:
        return None, None, None
    va = statistics.variance(xa) / len(xa) if len(xa) > 1 else None
    vb = statistics.variance(xb) / len(xb) if len(xb) > 1 else None
    return ratio_ci_of_means(statistics.fmean(xa), va, len(xa), statistics.fmean(xb), vb, len(xb), confidence)


def ratio_ci_of_means(ma: float, va: float | None, na: int, mb: float, vb: float | None, nb: int,
                      confidence: float = CONFIDENCE) -> Interval:
    """(ma / mb, low, high) by Fieller's theorem, from two independent means of na and nb
    samples and the variances of those means (va, vb; None with one sample).

    With q the ratio and t the critical value at Welch's degrees of freedom,
    g = t^2 vb / mb^2 and the bounds are
        (q -+ (t / mb) sqrt((1 - g) va + q^2 vb)) / (1 - g).
    g >= 1 (the denominator is not known to be nonzero) gives unbounded (None) limits,
    as does a sample of one."""
    if mb == 0:
        return None, None, None
    q = ma / mb
    if na < 2 or nb < 2 or va is None or vb is None:
        return q, None, None
    if va == 0 and vb == 0:
        return q, q, q
    df = welch_df(va, na, vb, nb)
    n = min(na, nb) if math.isfinite(df) else 30
    p = 1 - (1 - confidence) / 2
    t = statistics.NormalDist().inv_cdf(p) if n >= 30 or not math.isfinite(df) else t_quantile(p, df)
    g = t * t * vb / (mb * mb)
    if g >= 1:
        return q, None, None
    root = math.sqrt((1 - g) * va + q * q * vb)
    lo = (q - t / abs(mb) * root) / (1 - g)
    hi = (q + t / abs(mb) * root) / (1 - g)
    return q, lo, hi


def power_law_fit(xs: Iterable[float], ys: Iterable[float]) -> tuple[float | None, float | None]:
    """Least-squares fit of y = c * x^alpha on log-log axes: (alpha, c)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None, None
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None, None
    alpha = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    return alpha, math.exp(my - alpha * mx)


def log_fit(xs: Iterable[float], ys: Iterable[float]) -> tuple[float | None, float | None]:
    """Least-squares fit of y = a + b * log2(x): (a, b)."""
    pts = [(math.log2(x), y) for x, y in zip(xs, ys) if x > 0]
    if len(pts) < 2:
        return None, None
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None, None
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    return my - b * mx, b


# --- MMU --------------------------------------------------------------------------------

class PauseList:
    """Pauses (begin_ns, duration_ns) in time order, not overlapping, in a run of run_ns."""

    def __init__(self, pauses: Iterable[tuple[int, int]], run_ns: int) -> None:
        self.begins: list[int] = []
        self.ends: list[int] = []
        self.cum = [0]
        last_end = 0
        for begin, duration in pauses:
            b = max(int(begin), last_end)  # as PauseRecorder: never overlap the previous pause
            e = max(int(begin) + int(duration), b)
            self.begins.append(b)
            self.ends.append(e)
            self.cum.append(self.cum[-1] + e - b)
            last_end = e
        self.run_ns = max(int(run_ns), last_end, 1)
        self.total = self.cum[-1]

    def gc_between(self, x: int, y: int) -> int:
        """GC time inside [x, y]."""
        i = bisect.bisect_right(self.ends, x)  # first pause ending after x
        j = bisect.bisect_left(self.begins, y) - 1  # last pause beginning before y
        if j < i:
            return 0
        total = self.cum[j + 1] - self.cum[i]
        if self.begins[i] < x:
            total -= x - self.begins[i]
        if self.ends[j] > y:
            total -= self.ends[j] - y
        return max(total, 0)

    def mmu(self, window_ns: float) -> float:
        """Minimum mutator utilization over windows of window_ns (a run shorter than the
        window counts as one window of its own length, as in gc/pause_recorder.h)."""
        w = int(window_ns)
        if self.run_ns <= w:
            return 1.0 - min(self.total, self.run_ns) / self.run_ns
        worst = self.gc_between(0, w)
        last_start = self.run_ns - w
        for b, e in zip(self.begins, self.ends):
            for start in (min(b, last_start), max(0, min(e - w, last_start))):
                worst = max(worst, self.gc_between(start, start + w))
        return 1.0 - min(worst, w) / w


@dataclasses.dataclass
class PauseFile:
    """A `kith run --gc-pauses-file` file. Version 1: each pause's start and duration by
    wall time. Version 2 (gc/pause_recorder.h) adds, per pause, its start and duration on
    the thread's CPU clock and its work units, and the run's CPU time: then cpu_pauses,
    run_cpu_ns and work are set (else None)."""
    collector: str
    run_ns: int
    pauses: list[tuple[int, int]]  # (begin_ns, duration_ns), wall clock
    run_cpu_ns: int | None = None
    cpu_pauses: list[tuple[int, int]] | None = None  # (begin_ns, duration_ns), the thread's CPU clock
    work: list[int] | None = None


def read_pause_columns(path: str) -> PauseFile:
    """Every column of a pause file, version 1 or 2 (the columns decide: 2 or 5 a line)."""
    collector, run_ns, run_cpu_ns = "", 0, None
    pauses: list[tuple[int, int]] = []
    cpu: list[tuple[int, int]] = []
    work: list[int] = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                parts = line[1:].split()
                if len(parts) == 2 and parts[0] == "collector":
                    collector = parts[1]
                elif len(parts) == 2 and parts[0] == "run_ns":
                    run_ns = int(parts[1])
                elif len(parts) == 2 and parts[0] == "run_cpu_ns":
                    run_cpu_ns = int(parts[1])
                continue
            fields = [int(x) for x in line.split()]
            if len(fields) not in (2, 5):
                raise ValueError(f"{path}: a pause line has 2 (version 1) or 5 (version 2) numbers: {line!r}")
            pauses.append((fields[0], fields[1]))
            if len(fields) == 5:
                cpu.append((fields[2], fields[3]))
                work.append(fields[4])
    with_cpu = run_cpu_ns is not None and len(cpu) == len(pauses)
    return PauseFile(collector, run_ns, pauses, run_cpu_ns if with_cpu else None, cpu if with_cpu else None,
                     work if with_cpu else None)


def pause_floor_cpu(runs: list[PauseFile]) -> tuple[int, int] | None:
    """The longest pause by CPU time with the host's share taken out, where that can be
    done: over runs whose pauses did the same work in the same order (a collector whose
    schedule is a function of the program's allocation alone: occasional, continuous
    under work pacing; docs/COLLECTORS.md), pause i is the same work in every run, so
    the least CPU time any run charged it is the closest reading of its own cost (the
    host adds to the thread's CPU clock, never takes from it). Returns (index, ns) of
    the pause whose least CPU time is the largest; None when fewer than two runs have
    CPU columns or their work sequences differ (time pacing: slices follow the clock)."""
    with_cpu = [r for r in runs if r.cpu_pauses is not None and r.work is not None]
    if len(with_cpu) < 2 or len(with_cpu) != len(runs):
        return None
    work = with_cpu[0].work
    if any(r.work != work for r in with_cpu[1:]) or not work:
        return None
    floors = [min(r.cpu_pauses[i][1] for r in with_cpu) for i in range(len(work))]  # type: ignore[index]
    longest = max(range(len(floors)), key=floors.__getitem__)
    return longest, floors[longest]


def read_pause_file(path: str) -> tuple[str, int, list[tuple[int, int]]]:
    """A `kith run --gc-pauses-file` file, version 1 or 2, by wall time:
    (collector, run_ns, [(begin_ns, duration_ns)])."""
    p = read_pause_columns(path)
    return p.collector, p.run_ns, p.pauses


MMU_WINDOWS_MS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


# --- minimum heap -----------------------------------------------------------------------

def next_probes(low: int, high: int, precision: float = 0.02, probes: int = 1, granularity: int = 1024) -> list[int]:
    """The heap sizes to try next in a search for the smallest heap that works.

    `low` is a size known (or assumed) too small, `high` one known to work; the answer is
    found when high <= low * (1 + precision). Returns [] then, else `probes` sizes that
    split [low, high] into equal ratios (geometric: a bisection in log space), rounded up
    to `granularity` bytes and strictly between low and high."""
    if high <= low * (1 + precision) or high - low <= granularity:
        return []
    ratio = (high / low) ** (1.0 / (probes + 1))
    sizes: list[int] = []
    for k in range(1, probes + 1):
        s = int(math.ceil(low * ratio ** k / granularity) * granularity)
        if low < s < high and s not in sizes:
            sizes.append(s)
    if not sizes:
        return []
    return sizes


def narrow(low: int, high: int, verdicts: Mapping[int, bool]) -> tuple[int, int]:
    """New (low, high) from {size: works?} verdicts of probes inside (low, high)."""
    for size in sorted(verdicts):
        if not low < size < high:
            continue
        if verdicts[size]:
            high = min(high, size)
        else:
            low = max(low, size)
    return low, high


def search_min_heap(works: Callable[[int], bool], low: int, high: int, precision: float = 0.02, probes: int = 1,
                    granularity: int = 1024) -> tuple[int, int, int]:
    """Runs the whole search with a verdict function (tests, and a batch of rounds
    done at once): returns (smallest working size found, last too-small size, probes run)."""
    count = 0
    while True:
        sizes = next_probes(low, high, precision, probes, granularity)
        if not sizes:
            return high, low, count
        verdicts = {s: works(s) for s in sizes}
        count += len(sizes)
        low, high = narrow(low, high, verdicts)


# --- flattening -------------------------------------------------------------------------

def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """{"heap": {"alloc_ns": {"mean": 1}}} -> {"heap.alloc_ns.mean": 1}."""
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            out.update(flatten(v, key))
    else:
        out[prefix] = obj
    return out


def column_order(keys: Iterable[str]) -> list[str]:
    """Flattened statistics columns in a stable order: numeric histogram keys by value."""
    def key(k: str) -> tuple[tuple[int, int, str], ...]:
        parts = k.split(".")
        return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)
    return sorted(keys, key=key)


# --- tests of many speedups at once -------------------------------------------------------

def welch_log_test(a: Iterable[float | None], b: Iterable[float | None]) -> tuple[float | None, float | None]:
    """Welch's t test on the logarithms of two samples of positive times (a: the baseline,
    b: the alternative). Returns (log_ratio, p_value): log_ratio = mean(log a) - mean(log b),
    the log of the geometric-mean speedup of b over a; p_value two-sided, None when either
    sample has fewer than two values. Logs, because a ratio of times is what is compared and
    run times are skewed (Georges et al. 2007 compare by intervals; this is the test behind
    an interval on the log scale, which Holm's correction needs as a p-value)."""
    la = [math.log(x) for x in a if x and x > 0]
    lb = [math.log(x) for x in b if x and x > 0]
    if not la or not lb:
        return None, None
    d = statistics.fmean(la) - statistics.fmean(lb)
    if len(la) < 2 or len(lb) < 2:
        return d, None
    va = statistics.variance(la) / len(la)
    vb = statistics.variance(lb) / len(lb)
    if va + vb == 0:
        return d, (1.0 if d == 0 else 0.0)
    t = d / math.sqrt(va + vb)
    df = welch_df(va, len(la), vb, len(lb))
    if not math.isfinite(df):
        df = 1e9
    return d, 2 * (1 - t_cdf(abs(t), df))


def holm_bonferroni(p_values: Sequence[float | None],
                    alpha: float = 1 - CONFIDENCE) -> tuple[list[bool], list[float | None]]:
    """Holm's step-down correction (Holm 1979) of m tests at family-wise level alpha.

    Sorted ascending, p_(k) (k = 1..m) is rejected while p_(k) <= alpha / (m - k + 1);
    the first that is not stops the rejections. Returns (significant, adjusted), in the
    input's order: whether each test is significant after correction, and its adjusted
    p-value max_{j<=k} min(1, (m - j + 1) p_(j)). None p-values are not tests: they are
    not counted in m and come back (False, None)."""
    tested = [(p, i) for i, p in enumerate(p_values) if p is not None]
    m = len(tested)
    significant = [False] * len(p_values)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    rejecting = True
    for k, (p, i) in enumerate(sorted(tested)):
        running = max(running, min(1.0, (m - k) * p))
        adjusted[i] = running
        if rejecting and p <= alpha / (m - k):
            significant[i] = True
        else:
            rejecting = False
    return significant, adjusted


def geomean_ci(xs: Iterable[float | None], confidence: float = CONFIDENCE) -> Interval:
    """(geometric mean, low, high) of positive values: the t interval of the mean of
    their logs, exponentiated (one value: no interval)."""
    logs = [math.log(x) for x in xs if x and x > 0]
    m, lo, hi = mean_ci(logs, confidence)
    if m is None:
        return None, None, None
    return math.exp(m), (math.exp(lo) if lo is not None else None), (math.exp(hi) if hi is not None else None)


def allocator_share_pct(flat: Mapping[str, Any]) -> float | None:
    """The allocator's share of a run's wall time, in percent, from its flattened statistics
    (flatten): (heap.alloc_ns.mean x heap.allocations + heap.free_ns.mean x heap.frees) /
    vm.wall_s; None when a number is missing (a run with timers off has no alloc_ns)."""
    def value(key: str) -> float | None:
        try:
            return float(flat[key])
        except (KeyError, TypeError, ValueError):
            return None
    a, f = value("heap.allocations"), value("heap.frees")
    an, fn, wall = value("heap.alloc_ns.mean"), value("heap.free_ns.mean"), value("vm.wall_s")
    if a is None or f is None or an is None or fn is None or not wall:
        return None
    return 100.0 * (an * a + fn * f) / (wall * 1e9)


def relative_half_width(xs: Iterable[float], confidence: float = CONFIDENCE) -> float | None:
    """Half the confidence interval of the mean over the mean (None with fewer than two values)."""
    m, lo, hi = mean_ci(xs, confidence)
    if m is None or lo is None or hi is None or m == 0:
        return None
    return (hi - lo) / 2 / abs(m)


# --- correlation across workloads ---------------------------------------------------------

def pearson(xs: Iterable[float | None], ys: Iterable[float | None]) -> tuple[float | None, float | None, int]:
    """(r, p, n): Pearson's correlation of paired values and its two-sided p-value from
    t = r sqrt((n - 2) / (1 - r^2)) on n - 2 degrees of freedom (exact for bivariate
    normal data; scipy.stats.pearsonr gives the same). Pairs with a None are left out.
    r and p are None with fewer than three pairs or when either side is constant."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    n = len(pairs)
    if n < 3:
        return None, None, n
    mx = statistics.fmean(x for x, _ in pairs)
    my = statistics.fmean(y for _, y in pairs)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    if sxx == 0 or syy == 0:
        return None, None, n
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    if abs(r) == 1.0:
        return r, 0.0, n
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return r, 2 * (1 - t_cdf(abs(t), n - 2)), n


def ranks(xs: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: Iterable[float | None], ys: Iterable[float | None]) -> tuple[float | None, float | None, int]:
    """(rho, p, n): Spearman's rank correlation (Pearson's on the ranks, ties averaged) and
    its two-sided p-value by the same t approximation (scipy.stats.spearmanr's default).
    Pairs with a None are left out; None with fewer than three pairs or a constant side."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    return pearson(ranks([x for x, _ in pairs]), ranks([y for _, y in pairs]))


GeoMean = tuple[float | None, float | None, float | None, int]  # (mean, low, high, items it is over)


def same_set_geomeans(values: Mapping[str, Mapping[str, float | None]], defining: Iterable[str] | None = None,
                      confidence: float = CONFIDENCE) -> tuple[dict[str, GeoMean], int]:
    """Geometric means over the same items for every key. values: {key: {item: value}} (a
    value of None or <= 0 is no value). The common set is the items every defining key has
    (default: the keys with the most items, those that ran everywhere); each key's mean is
    over the common items it has: all of them, or fewer for a key that lacks some, which
    its n says. Returns ({key: (mean, low, high, n)}, number of common items)."""
    have = {k: {i for i, v in vs.items() if v is not None and v > 0} for k, vs in values.items()}
    if defining is None:
        most = max((len(s) for s in have.values()), default=0)
        defining = [k for k, s in have.items() if len(s) == most]
    sets = [have[k] for k in defining if k in have]
    common = set.intersection(*sets) if sets else set()
    means = {}
    for k, s in have.items():
        items = sorted(s & common)
        g, lo, hi = geomean_ci([values[k][i] for i in items], confidence)
        means[k] = (g, lo, hi, len(items))
    return means, len(common)

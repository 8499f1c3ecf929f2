"""The named values of STUDY.md (study/STUDY.md.in), computed from a study directory's CSV
files: one function per part of the narrative, each returning {name: value}. A value is a
number, a prose_format.Range, Names, Table or text; a sentence whose claim the data
decides either takes its words from here or is checked with prose_format.claim. The thresholds
that sort workloads into the narrative's groups are named below, and printed where the
text uses them."""

import collections
import math
import statistics

from . import analysis
from . import predicted
from . import stats
from . import steps
from .common import KINDS
from .prose_format import KIB, MIB, FalseClaim, MissingData, Names, Range, Table, claim, format_ns, format_size

POLICY_ORDER = ["list", "knuth", "estranged", "tlsf", "lea", "kingsley", "malloc"]
BUDDIES = ["knuth", "estranged"]
COLLECTORS = ["occasional", "continuous"]
# Figure 7: a workload requesting fewer bytes than this hardly allocates (a control), and
# one of at least HEAVY_OBJECTS objects is object-heavy.
CONTROL_BYTES = 512 * KIB
HEAVY_OBJECTS = 100_000
# Figure 8: kith's steady_clock on the study's machine ticks in 10 ns (checked against
# contrived.csv's samples); a ratio over a median of at most CLOCK_BOUND_TICKS ticks is as
# uncertain as one tick in it (plot_study.py marks the same ones).
CLOCK_NS = 10
CLOCK_BOUND_TICKS = 5
# Figure 9: list's first fit walks where its malloc takes more instructions than this.
WALK_IR = 100
# Figure 10 against the paper: "agrees" while within this many points of its ~50% and ~90%.
PAPER_IMMEDIATE = {"knuth": 50, "estranged": 90}
PAPER_CONTRIVED_SPEEDUP = 72  # Figure 8: the buddy over the list, one heap
AGREES_WITHIN = 10
CHANGES_LITTLE = 2  # points: continuous against occasional collection
# Figure 11: one class dominates at this fraction of requests; two share a workload when
# each takes at least SHARE and together at least DOMINANT.
DOMINANT, SHARE = 0.9, 0.25
ALMOST_NONE = 0.01
# Pauses: an MMU at 1 ms this high is a usable one; a stop-the-world pause this long (ms)
# is what continuous collection is for.
GOOD_MMU, LONG_PAUSE_MS = 0.5, 1.0
# The continuous collector's targets (issue 44): slices of at most 100 µs of CPU time, an MMU
# at 1 ms of at least 0.55 by CPU time.
SLICE_TARGET_MS, MMU_TARGET = analysis.SLICE_TARGET_MS, 0.55
# Demographics: most objects die young where this fraction dies within 1 MiB; almost none
# where under ALMOST_NONE does. Delayed recombination keeps blocks where estranged's
# largest free block is this much smaller a share of its free bytes than knuth's.
DIE_YOUNG = 0.93
PIECES = 0.05


# --- small helpers ----------------------------------------------------------------------

def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        raise MissingData("a geometric mean of no values")
    return math.exp(statistics.fmean(math.log(x) for x in xs))


def claimed(value, holds, what):
    """value, once claim(holds(value), what) has passed."""
    claim(holds(value), what)
    return value


def keyed(rows, *keys):
    return {tuple(r[k] for k in keys): r for r in rows}


def ordered_policies(present):
    return [p for p in POLICY_ORDER if p in present] + sorted(set(present) - set(POLICY_ORDER))


def short(commit):
    return commit[:7]


def pct_points(x):
    return f"{x:.1f}"


def markdown(header, rows, align=None):
    align = align or ["---"] * len(header)
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] +
                     ["| " + " | ".join(row) + " |" for row in rows])


def significant(rows):
    return [r for r in rows if r.get("holm_significant") is True]


def by_collector_phrase(pairs):
    """'a and b under both collectors, c (continuous), d (occasional)' from (workload, collector)
    pairs, in the order the workloads first appear."""
    collectors = collections.defaultdict(set)
    for w, c in pairs:
        collectors[w].add(c)
    both = [w for w, cs in collectors.items() if len(cs) > 1]
    parts = [f"{Names(both):}" + " under both collectors"] if both else []
    for c in COLLECTORS:
        one = [w for w, cs in collectors.items() if cs == {c}]
        if one:
            parts.append(f"{Names(one):} ({c})")
    return ", ".join(parts)


# --- how the study was made -------------------------------------------------------------

def run_values(f):
    """The runs by kind and in all (runs.csv: every run of every kind), and the one build
    they come from (builds.csv)."""
    config = f.config()
    per_kind = {r["kind"]: r["runs"] for r in f.rows("runs")}
    v = {f"runs.{k}": per_kind.get(k, 0) for k in KINDS}
    v["runs.total"] = per_kind["total"]
    claim(v["runs.total"] == sum(n for k, n in per_kind.items() if k != "total"), "runs.csv's total is its kinds' sum")
    claim(not set(per_kind) - set(KINDS) - {"total"}, "the paragraph names every kind of run the study made")
    v.update({
        "runs.workloads": len(f.rows("workloads")),
        "runs.policies": Names(config["policies"]), "runs.collectors": Names(config["collectors"]),
        "runs.repeat": config["repeat"], "runs.max_repeat": config["max_repeat"],
        "runs.target_ci": 100 * config["target_ci"], "runs.main_heap": float(config["main_heap"]),
        "runs.multiples": Range(config["multiples"]), "runs.multiple_min": min(config["multiples"]),
        "runs.multiple_max": max(config["multiples"]),
    })
    builds = f.rows("builds")
    claim(all(not r["draft"] for r in builds) and len({r["build"] for r in builds}) == 1,
          "the study's runs are of one clean build (builds.csv)")
    v["runs.commit"] = short(builds[0]["build"])
    machine = f.machine()
    for key, name in (("cores", "cores"), ("cpu", "CPU"), ("os", "OS / kernel"), ("compiler", "compiler (kith build)")):
        if not machine.get(name):
            raise MissingData(f"report.md's machine table has no {name}")
        v[f"machine.{key}"] = machine[name]
    v["machine.os"] = v["machine.os"].split(" / ")[0]  # the kernel's build name is not the point
    v["machine.compiler"] = " ".join(v["machine.compiler"].split())
    v["stats.confidence"], v["stats.alpha"] = stats.CONFIDENCE, 1 - stats.CONFIDENCE
    return v


def timing_values(f, target_pct):
    main = [r for r in f.rows("summary") if r["kind"] == "main" and r["wall_s_median"] is not None]
    widths = [100 * (r["wall_s_ci_high"] - r["wall_s_ci_low"]) / 2 / r["wall_s_mean"] for r in main
              if r["wall_s_ci_low"] is not None]
    missed = [x for x in widths if x > target_pct]
    return {
        "timing.configs": len(widths), "timing.median_half_width": statistics.median(widths),
        "timing.missed": len(missed), "timing.missed_max": max(missed, default=0),
        "timing.main_wall": Range(r["wall_s_median"] for r in main),
        "timing.main_wall_median": statistics.median(r["wall_s_median"] for r in main),
    }


# --- Figure 7: the workloads ------------------------------------------------------------

def workload_values(f):
    rows = f.rows("workloads")
    controls = [r for r in rows if r["bytes"] < CONTROL_BYTES]
    heavy = [r for r in rows if r["objects"] >= HEAVY_OBJECTS]
    small = min(heavy, key=lambda r: r["mean_object_bytes"])
    large = max(heavy, key=lambda r: r["mean_object_bytes"])
    fewest = min(rows, key=lambda r: r["objects"])
    most = max(rows, key=lambda r: r["objects"])
    return {
        "fig7.objects_min": fewest["objects"], "fig7.objects_max_millions": most["objects"] / 1e6,
        "fig7.controls": Names(sorted(r["workload"] for r in controls)), "fig7.control_bytes": CONTROL_BYTES,
        "fig7.heavy_objects": HEAVY_OBJECTS, "fig7.heavy_count": len(heavy),
        "fig7.mean_min": small["mean_object_bytes"], "fig7.mean_min_workload": small["workload"],
        "fig7.mean_max": large["mean_object_bytes"], "fig7.mean_max_workload": large["workload"],
    }


# --- Figure 8: the worst-case request ---------------------------------------------------

def clock_bound(r):
    """Whether a policy's median is within CLOCK_BOUND_TICKS ticks of the clock."""
    return r["median_ns"] <= CLOCK_BOUND_TICKS * CLOCK_NS


def check_clock(f):
    """Every short sample (under 20 ticks, where a tick's drift from CLOCK_NS is under 1 ns)
    is within 1 ns of a tick: the clock's counter runs at about 1 / CLOCK_NS."""
    samples = []
    for r in f.rows("contrived"):
        for p in ("knuth", "estranged", "tlsf"):
            samples += [float(x) for x in str(r.get(f"{p}_ns_samples") or "").split()]
    small = [x for x in samples if x < 20 * CLOCK_NS]
    off = [x for x in small if min(x % CLOCK_NS, CLOCK_NS - x % CLOCK_NS) > 1]
    claim(small and not off,
          f"the clock ticks in {CLOCK_NS} ns ({len(off)} of {len(small)} short samples are not near a tick)")


def contrived_values(f):
    rows = f.rows("contrived_summary")
    check_clock(f)
    heaps = sorted({r["heap_size"] for r in rows})
    cells = keyed(rows, "heap_size", "policy")
    first_run = f.rows("contrived")[0]
    samples_per_run = len(str(first_run["list_ns_samples"]).split())
    lst = [cells[(h, "list")] for h in heaps]
    for r in lst:
        claim(r["steps"] == r["n_objects"] // 2 + 1, "list walks exactly N/2 + 1 blocks at every heap size")
    alpha, _ = stats.power_law_fit([r["heap_size"] for r in lst], [r["median_ns"] for r in lst])
    bounded = [r for r in rows if r["policy"] in ("knuth", "estranged", "tlsf")]
    buddies = [r for r in rows if r["policy"] in BUDDIES]
    knuth = [cells[(h, "knuth")] for h in heaps]
    widest = max(bounded, key=lambda r: (r["ci_high_ns"] - r["ci_low_ns"]) / r["median_ns"])
    coarse = [r for r in buddies if clock_bound(r)]
    claim(min(r["speedup_over_list"] for r in buddies) > PAPER_CONTRIVED_SPEEDUP,
          f"the paper's {PAPER_CONTRIVED_SPEEDUP}x is below every heap's ratio")
    return {
        "fig8.object_bytes": first_run["object_bytes"], "fig8.fill": first_run["fill"],
        "fig8.request_bytes": first_run["request_bytes"], "fig8.heap_min": heaps[0], "fig8.heap_max": heaps[-1],
        "fig8.samples_per_run": samples_per_run, "fig8.runs": lst[0]["repeats"], "fig8.samples": lst[0]["samples"],
        "fig8.table": Table(lambda spec: contrived_table(rows, spec)),
        "fig8.list_exponent": alpha, "fig8.bounded_steps": Range(r["steps"] for r in bounded),
        "fig8.bounded_max_median": max(r["median_ns"] for r in bounded),
        "fig8.knuth_x_first": knuth[0]["speedup_over_list"], "fig8.knuth_x_last": knuth[-1]["speedup_over_list"],
        "fig8.clock_ns": CLOCK_NS, "fig8.clock_ticks": CLOCK_BOUND_TICKS, "fig8.one_tick": 1 / CLOCK_BOUND_TICKS,
        "fig8.clock_bound_ns": CLOCK_BOUND_TICKS * CLOCK_NS, "fig8.clock_bound_count": len(coarse),
        "fig8.buddy_bisect_steps": Range(r["steps"] for r in buddies if r["steps"] > 1),
        "fig8.widest": f"{widest['policy']} at {format_size(widest['heap_size'])}",
        "fig8.widest_samples_note": widest["samples"],
    }


def contrived_table(rows, spec):
    """The worst-case table at the heap sizes the spec names (1M,4M,...): median [95%
    interval of the mean] (steps) per policy, and the buddies' ratios over list; a ratio
    over a median within CLOCK_BOUND_TICKS of the clock is marked ≈."""
    cells = keyed(rows, "heap_size", "policy")
    sizes = [parse_size(s) for s in spec.split(",")] if spec else sorted({r["heap_size"] for r in rows})
    policies = [p for p in ("list", "knuth", "estranged", "tlsf") if any(r["policy"] == p for r in rows)]
    body = []
    for h in sizes:
        if (h, "list") not in cells:
            raise MissingData(f"contrived_summary.csv has no heap of {h} bytes")
        line = [format_size(h).replace(" ", ""), f"{cells[(h, 'list')]['n_objects']:,}"]
        for p in policies:
            r = cells[(h, p)]
            line.append(f"{format_ns(r['median_ns'])} [{format_ns_bare(r['ci_low_ns'], r['median_ns'])}, "
                        f"{format_ns_bare(r['ci_high_ns'], r['median_ns'])}] ({r['steps']:,})")
        for p in BUDDIES:
            r = cells[(h, p)]
            line.append(("≈" if clock_bound(r) else "") + f"{r['speedup_over_list']:,.0f}x")
        body.append(line)
    header = ["heap", "N"] + policies + [f"{p} over list" for p in BUDDIES]
    return markdown(header, body, ["---", "---:"] + ["---"] * len(policies) + ["---:"] * len(BUDDIES))


def format_ns_bare(ns, like):
    """ns in the unit format_ns gives `like`, without the unit (the interval beside it)."""
    text = format_ns(like)
    unit = text.rsplit(" ", 1)[1]
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6}[unit]
    digits = len(text.split(" ")[0].split(".")[1]) if "." in text.split(" ")[0] else 0
    return f"{ns / scale:,.{digits}f}"


def parse_size(text):
    units = {"K": KIB, "M": MIB, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


# --- Figure 9: the exact cost per request -----------------------------------------------

def cost_cells(f, collector):
    return {(r["workload"], r["policy"]): r for r in f.rows("alloc_cost") if r["collector"] == collector}


def frees(r):
    return r is not None and (r["frees"] or 0) > 0


def pair_ratios(cells, a, b, column):
    """{workload: a's column / b's} where both free."""
    return {w: r[column] / cells[(w, b)][column] for (w, p), r in cells.items()
            if p == a and frees(r) and frees(cells.get((w, b))) and cells[(w, b)][column]}


def cost_values(f):
    v = {}
    for c in COLLECTORS:
        cells = cost_cells(f, c)
        est_knuth = pair_ratios(cells, "estranged", "knuth", "ir_per_request")
        v[f"cost.{c}.est_over_knuth"] = geomean(est_knuth.values())
        v[f"cost.{c}.est_cheaper"] = sum(1 for x in est_knuth.values() if x < 1)
        v[f"cost.{c}.both_free"] = len(est_knuth)
        v[f"cost.{c}.est_over_knuth_range"] = Range(est_knuth.values())
        v[f"cost.{c}.est_over_knuth_free"] = geomean(pair_ratios(cells, "estranged", "knuth", "ir_per_free").values())
        v[f"cost.{c}.est_over_knuth_malloc"] = geomean(
            pair_ratios(cells, "estranged", "knuth", "ir_per_malloc").values())
        for p in ordered_policies({p for _, p in cells}):
            if p != "list":
                v[f"cost.{c}.{p}_over_list"] = geomean(pair_ratios(cells, p, "list", "ir_per_request").values())
    occ = cost_cells(f, "occasional")
    for miss in ("d1", "ll"):
        v[f"cost.occasional.est_over_knuth_{miss}"] = geomean(
            pair_ratios(occ, "estranged", "knuth", f"{miss}_per_request").values())
    over_list = {p: v[f"cost.occasional.{p}_over_list"] for p in ordered_policies({p for _, p in occ}) if p != "list"}
    claim(max(over_list, key=over_list.get) == "malloc", "glibc malloc is the dearest per request")
    claim(over_list["estranged"] < 1, "estranged executes fewer instructions per request than list")
    for c in COLLECTORS:
        dearer = [w for w, x in pair_ratios(cost_cells(f, c), "estranged", "knuth", "ir_per_request").items() if x >= 1]
        v[f"cost.{c}.est_dearer"] = f"not on {Names(dearer)}" if dearer else "every one"
    never = sorted(w for (w, p), r in occ.items() if p == "estranged" and not any(
        frees(occ.get((w, q))) for q in POLICY_ORDER))
    for w in never:
        claim(occ[(w, "estranged")]["ir_per_malloc"] > occ[(w, "knuth")]["ir_per_malloc"],
              f"where nothing is freed ({w}) estranged's malloc is dearer than knuth's")
    v["cost.never_freed"] = Names(never)
    v["cost.table"] = Table(lambda spec: cost_table(occ, spec))
    v["cost.geo_table"] = Table(lambda spec: cost_geo_table(f))
    v.update(walk_values(f, occ))
    return v


def weighted_cost_values(f):
    """Figure 9's headline: estranged against knuth by each run's whole allocator
    instructions (its own numbers of mallocs and frees), over the workloads both free on."""
    rows = f.rows("alloc_cost")
    counts = predicted.cheaper_counts(rows, "estranged", "knuth")
    cells = {(r["collector"], r["workload"], r["policy"]): r for r in rows}
    v = {}
    for c in COLLECTORS:
        cheaper, compared = counts[c]["weighted"]
        v[f"cost.{c}.est_cheaper_weighted"] = cheaper
        v[f"cost.{c}.both_free_weighted"] = compared
        v[f"cost.{c}.est_over_knuth_weighted"] = counts[c]["ratio"]
        dearer = []
        for (col, w, p), r in cells.items():
            k = cells.get((col, w, "knuth"))
            if col == c and p == "estranged" and k and predicted.frees_something(r) and predicted.frees_something(k) \
                    and predicted.weighted(r, "ir") >= predicted.weighted(k, "ir"):
                dearer.append(w)
        claim(len(dearer) == compared - cheaper, f"the workloads where estranged is not cheaper, weighted ({c})")
        v[f"cost.{c}.est_dearer_weighted"] = Names(dearer) if dearer else "none"
    return v


def predicted_values(f):
    """Predicted against measured time (predicted.csv): how many pairs' measured intervals
    hold the prediction, how many predictions the runs could resolve at all, the MDE's range."""
    rows = [r for r in f.rows("predicted") if r.get("predicted") is not None and r.get("measured") is not None]
    interval = [r for r in rows if r.get("agrees") in (True, False)]
    mdes = [r["mde"] for r in interval if r.get("mde") is not None]
    v = {"predicted.pairs": len(interval),
         "predicted.agree": sum(1 for r in interval if r["agrees"] is True),
         "predicted.resolvable": sum(1 for r in interval if r.get("resolvable") is True),
         "predicted.mde": Range(100 * x for x in mdes),
         "predicted.mde_median": 100 * statistics.median(mdes),
         "predicted.with_gc": sum(1 for r in interval if r["agrees"] is False and r.get("agrees_with_gc") is True)}
    v["predicted.disagree"] = v["predicted.pairs"] - v["predicted.agree"]
    for c in COLLECTORS:
        ek = [r for r in interval if (r["policy"], r["base"], r["collector"]) == ("estranged", "knuth", c)]
        v[f"predicted.{c}.est_knuth.pairs"] = len(ek)
        v[f"predicted.{c}.est_knuth.agree"] = sum(1 for r in ek if r["agrees"] is True)
        v[f"predicted.{c}.est_knuth.resolvable"] = sum(1 for r in ek if r.get("resolvable") is True)
        v[f"predicted.{c}.est_knuth.lo"] = min(100 * r["predicted"] for r in ek)
        v[f"predicted.{c}.est_knuth.hi"] = max(100 * r["predicted"] for r in ek)
    return v


def walk_values(f, occ):
    """Where list's first fit walks: its malloc's instructions, and the longest walk."""
    lst = {w: r["ir_per_malloc"] for (w, p), r in occ.items() if p == "list"}
    walks = [w for w in lst if lst[w] > WALK_IR]
    rest = [w for w in lst if lst[w] <= WALK_IR]
    longest = max((r for r in f.rows("steps") if r["policy"] == "list"), key=lambda r: r["malloc_max"])
    return {"cost.walk_ir": WALK_IR, "cost.list_walks": Names(walks), "cost.list_walk_ir": Range(lst[w] for w in walks),
            "cost.list_rest_ir": Range(lst[w] for w in rest), "cost.list_longest": longest["malloc_max"],
            "cost.list_longest_workload": longest["workload"]}


def cost_table(cells, spec):
    """Instructions per malloc / per free, occasional, for the workloads the spec names."""
    policies = ordered_policies({p for _, p in cells})
    body = []
    for w in spec.split(","):
        if not any(k[0] == w for k in cells):
            raise MissingData(f"alloc_cost.csv has no workload {w}")
        line = [w]
        for p in policies:
            r = cells.get((w, p))
            line.append("" if r is None else f"{r['ir_per_malloc']:.0f} / " +
                        (f"{r['ir_per_free']:.0f}" if frees(r) else "–"))
        body.append(line)
    return markdown(["workload"] + policies, body)


def cost_geo_table(f):
    """Per request, geometric means over the same workloads for every policy (those every
    policy that ran them all frees on); a policy that did not run them all, over the ones
    it ran, marked (n of N)."""
    rows, header_n = [], []
    policies = ordered_policies({r["policy"] for r in f.rows("alloc_cost")})
    for c, what, column in (("occasional", "instructions", "ir"), ("continuous", "instructions", "ir"),
                            ("occasional", "D1 misses", "d1"), ("occasional", "LL misses", "ll")):
        cells = cost_cells(f, c)
        workloads = {w for w, _ in cells}
        ran_all = [p for p in policies if all((w, p) in cells for w in workloads)]
        values = {p: {w: r[f"{column}_per_request"] for (w, q), r in cells.items() if q == p and frees(r)}
                  for p in policies}
        means, n = stats.same_set_geomeans(values, ran_all)
        line = [f"{what}, {c} ({n})"]
        for p in policies:
            g, _, _, k = means[p]
            line.append(f"{g:.3g}" + (f" ({k} of {n})" if k < n else ""))
        rows.append(line)
        header_n.append(n)
    return markdown(["per request (workloads)"] + policies, rows, ["---"] + ["---:"] * len(policies))


def replay_values(f):
    rows = f.rows("replay_time")
    v = {}
    for c in COLLECTORS:
        cells = {(r["workload"], r["policy"]): r for r in rows if r["collector"] == c}
        policies = ordered_policies({p for _, p in cells})
        workloads = {w for w, _ in cells}
        ran_all = [p for p in policies if all((w, p) in cells for w in workloads)]
        means, n = stats.same_set_geomeans(
            {p: {w: r["net_ns_per_event_mean"] for (w, q), r in cells.items() if q == p} for p in policies}, ran_all)
        v[f"replay.{c}.workloads"] = n
        for p in policies:
            v[f"replay.{c}.{p}"] = means[p][0]
            v[f"replay.{c}.{p}.n"] = means[p][3]
            if p == "list":
                continue
            pairs = [(cells[(w, p)], cells[(w, "list")]) for w, q in cells if q == p and (w, "list") in cells]
            ratios = [a["net_ns_per_event_mean"] / b["net_ns_per_event_mean"] for a, b in pairs
                      if a["net_ns_per_event_mean"] > 0 and b["net_ns_per_event_mean"] > 0]
            v[f"replay.{c}.{p}_over_list"] = geomean(ratios)
            v[f"replay.{c}.{p}.above_list"] = sum(1 for a, b in pairs if a["net_ci_low"] > b["net_ci_high"])
            v[f"replay.{c}.{p}.below_list"] = sum(1 for a, b in pairs if a["net_ci_high"] < b["net_ci_low"])
            v[f"replay.{c}.{p}.pairs"] = len(pairs)
        v[f"replay.{c}.clear"] = ", ".join(
            f"{p} {v[f'replay.{c}.{p}.above_list']} / {v[f'replay.{c}.{p}.below_list']} of {v[f'replay.{c}.{p}.pairs']}"
            for p in policies if p != "list")
    v["replay.repeats"] = Range(r["repeats"] for r in rows)
    half = statistics.median((r["net_ci_high"] - r["net_ci_low"]) / 2 for r in rows)
    for p in ("knuth", "estranged", "tlsf"):
        claim(abs(v[f"replay.occasional.{p}"] - v["replay.occasional.list"]) <= half,
              f"the replay's median half-width is as large as {p}'s difference from list")
    v["replay.median_half_width"] = statistics.median((r["net_ci_high"] - r["net_ci_low"]) / 2 for r in rows)
    return v


# --- Figure 9: whole runs ---------------------------------------------------------------

def speedup_values(f):
    """The main comparisons with list (speedup.csv), significant after Holm: the slower
    and the faster, each with its collection time beside list's, for the narrative's
    bullets; the faster split into where list's first fit walks and where the policy's
    collections take less time."""
    rows = [r for r in f.rows("speedup") if r["policy"] != "list"]
    tested = [r for r in rows if r.get("p_value") is not None]
    sig = significant(tested)
    slower = [r for r in sig if r["speedup"] < 1]
    faster = [r for r in sig if r["speedup"] > 1]
    malloc = [r for r in slower if r["policy"] == "malloc"]
    fixed = [r for r in slower if r["policy"] != "malloc"]
    more_gc = [r for r in fixed if r["gc_ms_policy"] > r["gc_ms_list"]]
    claim(faster, "some policy is significantly faster than list")
    claim(2 * len(more_gc) > len(fixed), "most fixed-size policies slower than list spend more time collecting")
    walks = walk_values(f, cost_cells(f, "occasional"))["cost.list_walks"].names
    at_walks = [r for r in faster if r["workload"] in walks]
    less_gc = [r for r in faster if r["workload"] not in walks and r["gc_ms_policy"] < r["gc_ms_list"]]
    other = [r for r in faster if r not in at_walks and r not in less_gc]
    v = {
        "speedup.tests": len(tested), "speedup.significant": len(sig), "speedup.slower": len(slower),
        "speedup.faster": len(faster), "speedup.slower_malloc": len(malloc), "speedup.slower_fixed": len(fixed),
        "speedup.slower_more_gc": len(more_gc),
        "speedup.slower_malloc_where": by_collector_phrase((r["workload"], r["collector"]) for r in malloc),
        "speedup.slower_list": comparison_bullets(f, sorted(fixed, key=lambda r: r["speedup"])),
        "speedup.faster_walks": len(at_walks), "speedup.faster_less_gc": len(less_gc),
        "speedup.faster_other": (f" The other {len(other)} collect no faster than list: "
                                 + ", ".join(f"{r['policy']} on {r['workload']} ({r['collector']})" for r in other) + "."
                                 if other else ""),
        "speedup.faster_list": comparison_bullets(f, sorted(faster, key=lambda r: -r["speedup"])),
        "speedup.geo_table": Table(lambda spec: speedup_geo_table(rows)),
    }
    return v


def comparison_bullets(f, comparisons):
    """A bullet per comparison with list: the speedup and its interval, the collections and
    their time against list's, and the allocator's instructions per malloc and per free
    against list's (alloc_cost.csv; a sweep's work is mostly frees)."""
    costs = {(r["workload"], r["collector"], r["policy"]): r for r in f.rows("alloc_cost")}
    lines = []
    for r in comparisons:
        mine, lists = costs.get((r["workload"], r["collector"], r["policy"])), \
            costs.get((r["workload"], r["collector"], "list"))
        parts = [f"{r['speedup']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]",
                 f"GC {r['gc_ms_policy']:.1f} ms, {r['gc_cycles_policy']:,} cycles completed, against list's "
                 f"{r['gc_ms_list']:.1f} ms, {r['gc_cycles_list']:,}"]
        if mine and lists and mine.get("ir_per_malloc") is not None and lists.get("ir_per_malloc") is not None:
            ir = f"{mine['ir_per_malloc']:.0f} instructions a malloc against {lists['ir_per_malloc']:.0f}"
            if mine.get("ir_per_free") is not None and lists.get("ir_per_free") is not None:
                ir += f", {mine['ir_per_free']:.0f} a free against {lists['ir_per_free']:.0f}"
            parts.append(ir)
        lines.append(f"  - {r['policy']} on {r['workload']} ({r['collector']}): " + "; ".join(parts) + ".")
    return "\n".join(lines)


def speedup_geo_table(rows):
    """Geometric mean speedup per collector over the same workloads for every policy; a
    policy that did not run them all, over those it ran, marked (n of N)."""
    policies = ordered_policies({r["policy"] for r in rows})
    body = []
    for c in COLLECTORS:
        values = {p: {r["workload"]: r["speedup"] for r in rows if r["collector"] == c and r["policy"] == p}
                  for p in policies}
        means, n = stats.same_set_geomeans(values)
        body.append([f"{c} ({n})"] + [f"{means[p][0]:.3f}" + (f" ({means[p][3]} of {n})" if means[p][3] < n else "")
                                      for p in policies])
    return markdown(["collector (workloads)"] + policies, body, ["---"] + ["---:"] * len(policies))


def tradeoff_values(f):
    rows = [r for r in f.rows("tradeoff_summary") if r["collector"] == "occasional"]
    v = {}
    policies = ordered_policies({r["policy"] for r in rows})
    most = max(r["workloads"] for r in rows)
    v["tradeoff.workloads"] = most
    for p in policies:
        mine = [r for r in rows if r["policy"] == p]
        v[f"tradeoff.{p}.relative"] = Range(r["geomean_relative_time"] for r in mine)
        v[f"tradeoff.{p}.speedup"] = Range(r["geomean_speedup_vs_list"] for r in mine)
        n = min(r["workloads"] for r in mine)
        v[f"tradeoff.{p}.over"] = "" if n == most else f" (over {n} of the {most})"
    multiples = sorted({r["multiple"] for r in rows})
    cells = keyed(rows, "multiple", "policy")
    coalescing = [p for p in policies if p not in BUDDIES + ["malloc"]]
    slowest = sum(1 for m in multiples if min(cells[(m, b)]["geomean_relative_time"] for b in BUDDIES) >
                  max(cells[(m, p)]["geomean_relative_time"] for p in coalescing))
    overlap = sum(1 for m in multiples if cells[(m, "estranged")]["ci_low"] <= cells[(m, "list")]["ci_high"])
    v.update({"tradeoff.multiples": len(multiples), "tradeoff.buddies_slowest": slowest,
              "tradeoff.est_list_overlap": overlap, "tradeoff.others": Names(coalescing)})
    claim(2 * slowest > len(multiples), "the buddies are the slowest of the other policies at most multiples")
    cost = cost_cells(f, "occasional")
    for p in ("list", "tlsf"):
        claim(geomean(pair_ratios(cost, "estranged", p, "ir_per_request").values()) < 1,
              f"estranged executes fewer instructions per request than {p}")
    return v


def tradeoff_test_values(f):
    """The trade-off's tests against list (tradeoff_vs_list.csv, Holm over the family) and
    the repeats behind them."""
    rows = [r for r in f.rows("tradeoff_vs_list") if r.get("p_value") is not None]
    sig = significant(rows)
    v = {"tradeoff_tests.tests": len(rows), "tradeoff_tests.significant": len(sig),
         "tradeoff_tests.runs": Range(n for r in rows for n in (r["runs"], r["list_runs"]))}
    for c in COLLECTORS:
        for p in ordered_policies({r["policy"] for r in rows}):
            mine = [r for r in rows if r["collector"] == c and r["policy"] == p]
            faster = [r for r in significant(mine) if r["log_ratio"] > 0]
            slower = [r for r in significant(mine) if r["log_ratio"] < 0]
            v[f"tradeoff_tests.{c}.{p}.tests"] = len(mine)
            v[f"tradeoff_tests.{c}.{p}.faster"] = len(faster)
            v[f"tradeoff_tests.{c}.{p}.slower"] = len(slower)
            v[f"tradeoff_tests.{c}.{p}.faster_workloads"] = len({r["workload"] for r in faster})
            v[f"tradeoff_tests.{c}.{p}.slower_workloads"] = len({r["workload"] for r in slower})
    summary = [r for r in f.rows("tradeoff_summary") if r["collector"] == "occasional" and r["policy"] == "estranged"]
    v["tradeoff_tests.est_speedup_ci"] = Range(x for r in summary for x in (r["speedup_ci_low"], r["speedup_ci_high"]))
    return v


def power_values(f):
    """Power where it matters (power.csv): the pairs, their verdicts, the workloads and the
    runs it took."""
    rows = f.rows("power")
    count = collections.Counter(r["verdict"] for r in rows)
    v = {"power.pairs": len(rows), "power.workloads": Names(sorted({r["workload"] for r in rows},
                                                                   key=lambda w: min(r["rank"] for r in rows if r["workload"] == w))),
         "power.resolved": count["agrees"] + count["disagrees"], "power.agrees": count["agrees"],
         "power.disagrees": count["disagrees"], "power.unresolved": count["unresolved"],
         "power.unfinished": count["unfinished"], "power.no_prediction": count["no_prediction"],
         "power.significant": len(significant(rows)),
         "power.tests": sum(1 for r in rows if r.get("p_value") is not None),
         "power.max_repeat": max(r["max_repeat"] for r in rows),
         "power.runs": Range(n for r in rows for n in (r["runs_policy"], r["runs_base"])),
         "power.wall": Range(x for r in rows for x in (r["wall_s_policy"], r["wall_s_base"])),
         "power.mde": Range(100 * r["mde"] for r in rows if r.get("mde") is not None)}
    unresolved = [r for r in rows if r["verdict"] == "unresolved"]
    v["power.unresolved_sentence"] = (
        f"The other {len(unresolved)} cannot be resolved on this machine within {v['power.max_repeat']} runs: their MDE "
        f"reached {Range(100 * r['mde'] for r in unresolved):.1f}% against the "
        f"{Range(100 * r['mde_target'] for r in unresolved):.1f}% they need (`runs_to_resolve` says how many runs would do)."
        if unresolved else "Every pair resolved within the cap.")
    claim(v["power.resolved"] + len(unresolved) == len(rows), "every power pair resolved or reached the cap")
    ek = [r for r in rows if (r["policy"], r["base"]) == ("estranged", "knuth") and r["verdict"] in ("agrees", "disagrees")]
    claim(ek and all(r["measured"] < 0 for r in ek), "where estranged against knuth resolves, estranged is faster")
    v["power.est_knuth_resolved"] = Names(
        f"{r['workload']} ({r['collector']}) {100 * r['measured']:+.1f}% [{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}] "
        f"against a predicted {100 * r['predicted']:+.1f}%" for r in ek)
    return v


# The workloads that print how long they took: their byte counts follow the clock.
PRINTS_TIMINGS = {"gcbench", "richards", "deltablue", "json", "cd", "havlak", "bounce", "list", "mandelbrot", "nbody",
                  "permute", "queens", "sieve", "storage", "towers"}


def whole_run_values(f):
    """Whole runs under cachegrind (whole_run.csv) and what they say beside the prediction
    (predicted.csv's whole_* columns)."""
    rows = [r for r in f.rows("whole_run") if r["exit_code"] == 0]
    pred = [r for r in f.rows("predicted") if r.get("whole_agrees") in (True, False)]
    v = {"whole.configs": len(f.rows("whole_run")), "whole.ran": len(rows),
         "whole.counts_match": sum(1 for r in rows if r["counts_match_main"] is True),
         "whole.pairs": len(pred), "whole.agree": sum(1 for r in pred if r["whole_agrees"] is True)}
    # Where they differ: glibc malloc is valgrind's own allocator under cachegrind (its block
    # sizes pace the collector), and a program that prints its timings builds longer strings
    # in a slower run.
    differ = [r for r in rows if r["counts_match_main"] is not True]
    others = sorted({r["workload"] for r in differ if r["policy"] != "malloc"})
    claim(set(others) <= PRINTS_TIMINGS, "the fixed-size policies' whole runs differ from their main runs only on "
                                          "workloads that print their timings")
    v["whole.differ_malloc"] = sum(1 for r in differ if r["policy"] == "malloc")
    v["whole.differ_others"] = (f" and {sum(1 for r in differ if r['policy'] != 'malloc')} runs of {Names(others)}, which "
                                "prints its timings (longer strings in a run slowed by cachegrind: a free or two more)"
                                if others else "")
    for c in COLLECTORS:
        ek = [r for r in pred if (r["policy"], r["base"], r["collector"]) == ("estranged", "knuth", c)]
        v[f"whole.{c}.est_knuth.ir"] = Range(100 * r["whole_ir_change"] for r in ek if r.get("whole_ir_change") is not None)
        v[f"whole.{c}.est_knuth.cycles"] = Range(100 * r["whole_cycles_change"] for r in ek
                                                 if r.get("whole_cycles_change") is not None)
    return v


def share_values(f):
    rows = [r for r in f.rows("alloc_share") if r["policy"] == "estranged" and r["collector"] == "occasional"
            and r["share_pct"] is not None]
    top = max(rows, key=lambda r: r["share_pct"])
    return {"share.max": top["share_pct"], "share.max_workload": top["workload"]}


def overall_values(v, f):
    """Estranged against knuth over whole runs: the ratio of their geometric mean speedups."""
    sp = [r for r in f.rows("speedup") if r["policy"] in BUDDIES]
    out = {}
    for c in COLLECTORS:
        values = {p: {r["workload"]: r["speedup"] for r in sp if r["collector"] == c and r["policy"] == p}
                  for p in BUDDIES}
        means, _ = stats.same_set_geomeans(values)
        out[f"overall.{c}.est_over_knuth"] = means["estranged"][0] / means["knuth"][0]
    out["overall.instruction_saving"] = 100 * (1 - v["cost.occasional.est_over_knuth"])
    return out


# --- steps per request ------------------------------------------------------------------

def step_values(f):
    rows = f.rows("steps")
    v = {"steps.lea_capacity": steps.LEA_QUICK_LIST_CAPACITY, "steps.lea_quick_max": steps.LEA_QUICK_LIST_MAX_SMALL}
    over = [r for r in rows for op in ("malloc", "free") if r[f"{op}_bound"] is not None and
            r[f"{op}_max"] is not None and r[f"{op}_max"] > r[f"{op}_bound"]]
    claim(not over, "no request exceeded its bound")
    for p in ("knuth", "estranged", "tlsf", "kingsley", "lea"):
        for op in ("malloc", "free"):
            mine = [r for r in rows if r["policy"] == p and r[f"{op}_max"] is not None and r[f"{op}_bound"]]
            if not mine:
                continue
            top = max(mine, key=lambda r: (r[f"{op}_max"], r[f"{op}_max"] / r[f"{op}_bound"]))
            v[f"steps.{p}.{op}"] = top[f"{op}_max"]
            v[f"steps.{p}.{op}_bound"] = top[f"{op}_bound"]
            v[f"steps.{p}.{op}_where"] = f"{top['workload']} under {top['collector']} collection"
            v[f"steps.{p}.{op}_then"] = (", in a run that then ran out of memory" if top["exit_code"] == 70 else
                                         "" if top["exit_code"] == 0 else f", in a run that exited {top['exit_code']}")
    return v


# --- Figure 10: how requests were satisfied ---------------------------------------------

def satisfied_values(f):
    means = keyed(f.rows("satisfied_means"), "collector", "policy", "subset")
    sat = f.rows("satisfied")
    v = {"fig10.table": Table(lambda spec: satisfied_table(f))}
    for c in COLLECTORS:
        v[f"fig10.{c}.recycling"] = means[(c, "list", "recycling")]["workloads"]
    none = sorted({r["workload"] for r in sat} - {r["workload"] for r in sat if r["recycling"]})
    v["fig10.never_recycle"] = Names(none)
    for p, paper in PAPER_IMMEDIATE.items():
        x = means[("occasional", p, "recycling")]["immediate_pct_weighted"]
        claim(abs(x - paper) <= AGREES_WITHIN, f"{p} meets about {paper}% of requests immediately, as in the paper")
    est = [means[(c, "estranged", "recycling")]["immediate_pct_weighted"] for c in COLLECTORS]
    knuth = [means[(c, "knuth", "recycling")]["immediate_pct_weighted"] for c in COLLECTORS]
    claim(abs(est[1] - est[0]) < CHANGES_LITTLE, "continuous collection changes little for estranged")
    claim(knuth[1] - knuth[0] >= CHANGES_LITTLE, "continuous collection helps knuth")
    retried = [r for r in sat if (r["retried"] or 0) > 0]
    most = max(retried, key=lambda r: r["retried"])
    there = [r for r in retried if (r["workload"], r["collector"]) == (most["workload"], most["collector"])]
    v["fig10.retried_most"] = f"{most['workload']} under {most['collector']} collection"
    v["fig10.retried_most_range"] = Range(r["retried"] for r in there)
    v["fig10.retried_elsewhere"] = max((r["retried"] for r in retried if r not in there), default=0)
    v.update(satisfied_vs_heap(f, sat))
    sizes = collections.Counter()
    for r in f.rows("sizes"):
        sizes[r["size_class"]] += r["count"]
    v["fig10.top_classes"] = Names(f"{s}" for s, _ in sorted(sizes.most_common(2)))
    return v


def recycled_values(f):
    """Figure 10 without its split floor: of the requests met immediately, those met by a
    block a free returned (recycled) and by a split's leftover, over the recycling workloads
    (satisfied_means.csv's recycled_pct_* and leftover_pct_*, from the sources runs)."""
    means = keyed(f.rows("satisfied_means"), "collector", "policy", "subset")
    v = {"fig10.recycled_table": Table(lambda spec: recycled_table(f))}
    for c in COLLECTORS:
        for p in BUDDIES:
            r = means[(c, p, "recycling")]
            for part in ("recycled", "leftover"):
                v[f"fig10.{c}.{p}.{part}"] = r[f"{part}_pct_weighted"]
                v[f"fig10.{c}.{p}.{part}_per_workload"] = r[f"{part}_pct_unweighted"]
    v["fig10.sources_left_out"] = sources_left_out(f, means)
    occ = {p: means[("occasional", p, "recycling")] for p in BUDDIES}
    claim(occ["knuth"]["leftover_pct_weighted"] > occ["knuth"]["recycled_pct_weighted"],
          "most of knuth's immediate requests take a split's leftover (occasional)")
    claim(occ["estranged"]["recycled_pct_weighted"] > occ["estranged"]["leftover_pct_weighted"],
          "most of estranged's immediate requests take a freed block (occasional)")
    ratio = occ["estranged"]["recycled_pct_weighted"] / occ["knuth"]["recycled_pct_weighted"]
    v["fig10.occasional.recycled_ratio"] = ratio
    v["fig10.immediate_ratio"] = occ["estranged"]["immediate_pct_weighted"] / occ["knuth"]["immediate_pct_weighted"]
    v["fig10.rule_min_frees"] = analysis.RECYCLING_MIN_FREES
    return v


def sources_left_out(f, means):
    """A sentence: which recycling workloads the recycled/leftover means leave out (their
    sources run did not count what their main runs counted), and why, from satisfied.csv."""
    sat = keyed(f.rows("satisfied"), "workload", "collector", "policy")
    groups = {}  # (workload, collector, why, of): policies
    for (c, p, subset), r in means.items():
        if subset != "recycling" or not r.get("sources_left_out"):
            continue
        for w in str(r["sources_left_out"]).split():
            row = sat[(w, c, p)]
            why = ("its main runs' counts differ from one another" if not row["counts_identical"] else
                   "its sources run counted otherwise than its main runs" if row["sources_match"] is False else
                   "it has no sources run")
            of = f"the other {r['sources_workloads']} of {r['workloads']}"
            groups.setdefault((w, c, why, of), []).append(p)
    if not groups:
        return "Every recycling workload's sources run counted what its main runs counted."
    parts = [f"{w} under {c} collection on {Names(ps)} ({why}; the mean is over {of} recycling workloads)"
             for (w, c, why, of), ps in groups.items()]
    return f"A cell marked * leaves out {Names(parts)}."


def recycled_table(f):
    """Recycled / leftover, request-weighted, over the recycling workloads; a policy that
    does not say where its blocks came from, empty."""
    means = keyed(f.rows("satisfied_means"), "collector", "policy", "subset")
    policies = ordered_policies({p for _, p, _ in means if p != "malloc"})
    body = []
    for c in COLLECTORS:
        line = [c]
        for p in policies:
            r = means.get((c, p, "recycling"))
            known = r is not None and r.get("recycled_pct_weighted") is not None
            mark = " *" if known and r.get("sources_left_out") else ""
            line.append(f"{r['recycled_pct_weighted']:.1f} / {r['leftover_pct_weighted']:.1f}{mark}" if known else "")
        body.append(line)
    return markdown(["collector"] + policies, body, ["---"] + ["---:"] * len(policies))


def satisfied_table(f):
    """Percent met immediately, request-weighted / per-workload mean, over the recycling
    workloads; a policy recycling on fewer of them than list, its number."""
    means = keyed(f.rows("satisfied_means"), "collector", "policy", "subset")
    policies = ordered_policies({p for _, p, _ in means})
    body = []
    for c in COLLECTORS:
        n = means[(c, "list", "recycling")]["workloads"]
        line = [c]
        for p in policies:
            r = means.get((c, p, "recycling"))
            line.append("" if r is None else f"{r['immediate_pct_weighted']:.1f} / {r['immediate_pct_unweighted']:.1f}"
                        + (f" ({r['workloads']})" if r["workloads"] != n else ""))
        body.append(line)
    return markdown(["collector"] + policies, body, ["---"] + ["---:"] * len(policies))


def satisfied_vs_heap(f, sat):
    """Per-workload mean met immediately over the recycling workloads (occasional) at the
    smallest and the largest multiple of each buddy's own minimum heap."""
    trade = [r for r in f.rows("tradeoff") if r["collector"] == "occasional" and r["immediate_pct"] is not None]
    v = {}
    for p in BUDDIES:
        recycling = {r["workload"] for r in sat if r["policy"] == p and r["collector"] == "occasional"
                     and r["recycling"]}
        mine = [r for r in trade if r["policy"] == p and r["workload"] in recycling]
        multiples = sorted({r["multiple"] for r in mine})
        at = [statistics.fmean(r["immediate_pct"] for r in mine if r["multiple"] == m) for m in multiples]
        claim(at[0] > at[-1], f"{p} meets fewer requests immediately in a larger heap")
        v[f"fig10.{p}.at_smallest"], v[f"fig10.{p}.at_largest"] = at[0], at[-1]
        v[f"fig10.{p}.recycling"] = len(recycling)
    return v


# --- Figure 11: request sizes -----------------------------------------------------------

def size_class_values(f):
    """Why estranged recycles more (size_class_summary.csv): on how many workloads the
    requested-class free bytes and the lifetimes account for the gap, and where lifetimes
    do not."""
    v = {}
    for c in COLLECTORS:
        rows = [r for r in f.rows("size_class_summary") if r["collector"] == c]
        by_class = [r for r in rows if r["size_class_explains"] is True]
        by_lifetime = [r for r in rows if r["lifetime_explains"] is True]
        v[f"size_class.{c}.workloads"] = len(rows)
        v[f"size_class.{c}.explains"] = len(by_class)
        v[f"size_class.{c}.lifetime_explains"] = len(by_lifetime)
        v[f"size_class.{c}.lifetime_fails"] = Names(
            f"{r['workload']} ({r['dead_by_1m']:.0%} dead by 1 MB, a gap of {r['immediate_diff']:.0f} points)"
            for r in rows if r["lifetime_explains"] is not True)
        claim(len(by_class) >= len(by_lifetime), f"the size classes account for the gap at least as often as lifetimes ({c})")
    both = [r for r in f.rows("demographics")
            if r.get("largest_over_free_estranged") is not None and r.get("largest_over_free_knuth") is not None]
    v["size_class.largest_compared"] = len(both)
    v["size_class.largest_same"] = sum(1 for r in both if round(r["largest_over_free_estranged"], 2) ==
                                       round(r["largest_over_free_knuth"], 2))
    return v


def size_values(f):
    rows = f.rows("sizes")
    heavy = {r["workload"] for r in f.rows("workloads") if r["objects"] >= HEAVY_OBJECTS}
    by_workload = collections.defaultdict(dict)
    for r in rows:
        by_workload[r["workload"]][r["size_class"]] = r["fraction"]
    one = collections.defaultdict(list)
    two = []
    for w, classes in by_workload.items():
        if w not in heavy:
            continue
        top = sorted(classes.items(), key=lambda x: -x[1])
        if top[0][1] >= DOMINANT:
            one[top[0][0]].append(w)
        elif len(top) > 1 and top[1][1] >= SHARE and top[0][1] + top[1][1] >= DOMINANT:
            two.append((w, tuple(sorted((top[0][0], top[1][0])))))
    pairs = list(dict.fromkeys(p for _, p in two))
    largest = {w: max(c) for w, c in by_workload.items()}
    return {
        "fig11.one_class": "; ".join(f"{Names(ws)} ({s}-byte blocks)" for s, ws in sorted(one.items())),
        "fig11.two_classes": Names(f"{Names(w for w, q in two if q == p)} ({p[0]} and {p[1]})" for p in pairs),
        "fig11.sieve_largest": format_size(largest["sieve"]),
        "fig11.em3d_class": format_size(max(by_workload["em3d"], key=by_workload["em3d"].get)),
        "fig11.class16_max": claimed(max((c.get(16, 0) for c in by_workload.values())), lambda x: x < ALMOST_NONE,
                                     "the 16-byte class gets almost none of any workload's requests"),
        "fig11.dominant": DOMINANT,
    }


# --- beyond the paper -------------------------------------------------------------------

def minheap_values(f):
    rows = [r for r in f.rows("minheap") if r["collector"] == "occasional" and r["min_heap_bytes"]]
    mh = {(r["workload"], r["policy"]): r["min_heap_bytes"] for r in rows}
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    v = {}
    ratio = {w: mh[(w, "estranged")] / mh[(w, "knuth")] for w in workloads}
    dearer = sorted((w for w in workloads if ratio[w] > 1), key=lambda w: -ratio[w])
    cheaper = [w for w in workloads if ratio[w] < 1]
    v["minheap.est_over_knuth_max"] = max(ratio.values()) - 1
    v["minheap.est_dearer"] = Names(f"{w} {ratio[w] - 1:.0%}" for w in dearer)
    v["minheap.est_equal"] = sum(1 for w in workloads if ratio[w] == 1)
    v["minheap.est_cheaper"] = (Names(f"{w} {1 - ratio[w]:.0%}" for w in cheaper)) if cheaper else None
    claim(not cheaper, "estranged never needs a smaller minimum heap than knuth")
    for w in ("treeadd", "mst"):
        claim(mh[(w, "knuth")] > mh[(w, "list")], f"the buddies need more heap than list on {w}")
    for w in ("binary_trees", "deltablue", "voronoi"):
        claim(mh[(w, "knuth")] < mh[(w, "list")], f"the buddies need less heap than list on {w}")
    kingsley = {w: mh[(w, "kingsley")] for w in workloads if (w, "kingsley") in mh}
    v["minheap.kingsley_most"] = sum(1 for w in kingsley if kingsley[w] == max(x for (u, _), x in mh.items() if u == w))
    v["minheap.kingsley_workloads"] = len(kingsley)
    top = max(kingsley, key=lambda w: kingsley[w] / mh[(w, "knuth")])
    v["minheap.kingsley_top"], v["minheap.kingsley_top_ratio"] = top, kingsley[top] / mh[(top, "knuth")]
    v["minheap.kingsley_top_bytes"] = kingsley[top]
    claim(2 * v["minheap.kingsley_most"] > len(kingsley), "kingsley needs the largest minimum heap on most workloads")
    lea = sorted(((mh[(w, "lea")] / mh[(w, "estranged")], w) for w in workloads if (w, "lea") in mh), reverse=True)
    v["minheap.lea_top"], v["minheap.lea_top_ratio"] = lea[0][1], lea[0][0]
    v["minheap.lea_next"] = Names(f"{w} {x:.1f}x" for x, w in lea[1:4])
    notes = [r for r in f.rows("speedup") if r.get("note")]
    v["minheap.kingsley_did_not_run"] = sum(1 for r in notes if r["policy"] == "kingsley")
    v["minheap.lea_did_not_run"] = Names(f"{r['workload']} ({r['collector']})" for r in notes if r["policy"] == "lea")
    cd = f.row("workloads", workload="cd")["heap_size"]
    claim(mh[("cd", "lea")] < cd and any(r["policy"] == "lea" and r["workload"] == "cd" for r in notes),
          "lea runs cd at its own minimum heap but not at the larger common heap")
    return v


def pause_values(f):
    """Figure 6 by the thread's CPU time (the collector's own work; the host's stalls are in
    the wall-clock columns, and host_gap says how much), with the slice target."""
    rows = keyed(f.rows("pause_summary"), "workload", "collector")
    workloads = list(dict.fromkeys(w for w, _ in rows))
    occ = {w: rows[(w, "occasional")] for w in workloads if (w, "occasional") in rows}
    cont = {w: rows[(w, "continuous")] for w in workloads if (w, "continuous") in rows}
    long = [w for w in occ if occ[w]["max_cpu_ms"] > LONG_PAUSE_MS and w in cont]
    good = [w for w in long if cont[w]["mmu_cpu_1ms"] >= GOOD_MMU]
    poor = [w for w in long if cont[w]["mmu_cpu_1ms"] < GOOD_MMU]
    sliced = {w: r for w, r in cont.items() if r["max_slice_cpu_ms"] is not None}
    over = [w for w, r in sliced.items() if r["max_slice_cpu_ms"] > SLICE_TARGET_MS]
    full = [w for w, r in cont.items() if r["full_pauses"]]
    short = [w for w, r in cont.items() if r["mmu_cpu_1ms"] < MMU_TARGET]
    by_host = [w for w, r in cont.items() if r["max_ms"] > LONG_PAUSE_MS and r["max_cpu_ms"] < SLICE_TARGET_MS]
    claim(len(over) <= 2 and all(sliced[w]["slices_over_100us_cpu"] <= 2 for w in over),
          "slices pass 100 µs of CPU time on at most two workloads, once or twice each")
    v = {
        "pauses.cont_p50": Range(r["p50_cpu_ms"] for r in cont.values()),
        "pauses.occ_p50_min": min(r["p50_cpu_ms"] for r in occ.values()),
        "pauses.occ_p50_max": max(r["p50_cpu_ms"] for r in occ.values()),
        "pauses.long_pause_ms": LONG_PAUSE_MS, "pauses.good": Names(good),
        "pauses.good_mmu": Range(cont[w]["mmu_cpu_1ms"] for w in good),
        "pauses.poor": Names(poor),
        "pauses.slice_target_us": SLICE_TARGET_MS * 1000,
        "pauses.slice_under": len(sliced) - len(over), "pauses.sliced": len(sliced),
        "pauses.slice_max_under_us": 1000 * max(r["max_slice_cpu_ms"] for w, r in sliced.items() if w not in over),
        "pauses.slice_over": Names(f"{w} ({1000 * sliced[w]['max_slice_cpu_ms']:.0f} µs; "
                                   f"{sliced[w]['slices_over_100us_cpu']:,} of {sliced[w]['slices']:,} slices)"
                                   for w in over) if over else "none",
        "pauses.full": Names(f"{w}'s {cont[w]['full_pauses']} (the longest {cont[w]['max_cpu_ms']:.2f} ms)"
                             for w in full),
        "pauses.mmu_target": MMU_TARGET, "pauses.mmu_met": len(cont) - len(short), "pauses.mmu_n": len(cont),
        "pauses.mmu_short": Names(f"{w} {cont[w]['mmu_cpu_1ms']:.2f}" for w in short),
        "pauses.by_host": Names(f"{w} {cont[w]['max_ms']:.1f} ms ({1000 * cont[w]['max_cpu_ms']:.0f} µs of CPU)"
                                for w in by_host),
        "pauses.host_gap_max": max(r["host_gap_max_ms"] for r in cont.values() if r["host_gap_max_ms"] is not None),
    }
    claim(set(poor) == {"em3d", "havlak"}, "em3d and havlak are the workloads whose MMU at 1 ms stays low")
    claim(occ["deltablue"]["max_cpu_ms"] <= LONG_PAUSE_MS, "deltablue's occasional pause is under a millisecond")
    havlak = cont["havlak"]
    claim(havlak["full_pauses"] > 0 and havlak["max_cpu_ms"] > LONG_PAUSE_MS,
          "havlak has long full pauses under continuous collection")
    heap = f.row("workloads", workload="havlak")
    v["pauses.havlak_heap_over_live"] = heap["heap_size"] / heap["peak_live_bytes"]
    return v


def demographics_values(f):
    rows = {r["workload"]: r for r in f.rows("demographics")}
    sat = keyed(f.rows("satisfied"), "workload", "collector", "policy")
    controls = {r["workload"] for r in f.rows("workloads") if r["bytes"] < CONTROL_BYTES}
    young = [w for w, r in rows.items() if r["within_1m"] >= DIE_YOUNG]
    old = [w for w, r in rows.items() if r["within_1m"] < ALMOST_NONE and w not in controls]
    pieces = [w for w, r in rows.items() if r["largest_over_free_estranged"] is not None and
              r["largest_over_free_knuth"] - r["largest_over_free_estranged"] >= PIECES]
    return {
        "demog.die_young": DIE_YOUNG, "demog.young": Names(young), "demog.young_range": Range(
            rows[w]["within_1m"] for w in young),
        "demog.young_immediate": Range(sat[(w, "occasional", "estranged")]["immediate_pct"] for w in young),
        "demog.old": Names(old), "demog.almost_none": ALMOST_NONE,
        "demog.old_immediate_max": max(sat[(w, "occasional", "estranged")]["immediate_pct"] for w in old),
        "demog.pieces": Names(pieces),
        "demog.pieces_estranged": Names(f"{rows[w]['largest_over_free_estranged']:.2f}" for w in pieces),
        "demog.pieces_knuth": Names(f"{rows[w]['largest_over_free_knuth']:.2f}" for w in pieces),
    }


# --- all of them ------------------------------------------------------------------------

# What the narrative speaks of by name: a study without one of them cannot tell it.
NAMED_WORKLOADS = ["binary_trees", "deltablue", "json", "cd", "havlak", "gcbench", "treeadd", "em3d", "sieve",
                   "storage", "mst", "health", "bh", "voronoi"]


def check_coverage(files):
    """MissingData unless the study ran the policies, collectors and workloads the narrative
    names (a quick study, or one of a few workloads, has no STUDY.md)."""
    config = files.config()
    lacking = ([f"policy {p}" for p in POLICY_ORDER if p not in config.get("policies", [])] +
               [f"collector {c}" for c in COLLECTORS if c not in config.get("collectors", [])] +
               [f"workload {w}" for w in NAMED_WORKLOADS if w not in config.get("workload_names", [])])
    if lacking:
        more = f" and {len(lacking) - 4} more" if len(lacking) > 4 else ""
        raise MissingData(f"the narrative speaks of {', '.join(lacking[:4])}{more}, which this study did not run")


def compute(files):
    """Every named value of the narrative (MissingData, FalseClaim when it cannot be told)."""
    check_coverage(files)
    v = {}
    parts = [run_values, lambda f: timing_values(f, v["runs.target_ci"]), workload_values, contrived_values,
             cost_values, weighted_cost_values, predicted_values, replay_values, speedup_values, tradeoff_values, tradeoff_test_values, power_values, whole_run_values, share_values,
             step_values, satisfied_values, recycled_values, size_class_values, size_values, minheap_values, pause_values, demographics_values,
             lambda f: overall_values(v, f)]
    for part in parts:
        try:
            v.update(part(files))
        except (KeyError, ValueError, IndexError, TypeError, ZeroDivisionError) as e:
            # A row or cell the study lacks (a run that failed, a table left short).
            raise MissingData(f"{getattr(part, '__name__', 'a value')}: the study lacks a row or value it needs "
                              f"({type(e).__name__}: {e})")
    return {k: x for k, x in v.items() if x is not None}


__all__ = ["compute", "FalseClaim", "MissingData"]

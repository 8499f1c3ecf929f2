"""Steps per request: the worst case observed on real programs against the proven bound.

Every policy that counts its work (lastSteps() / lastFreeSteps(): blocks examined,
levels split or glued, bins searched) fills the `heap.steps.malloc` and
`heap.steps.free` blocks of a run's statistics: count, mean, max and a histogram
(heap/statistics/step_histogram.h: one bucket per step count 0..63, then powers of two; results.csv
flattens them to heap.steps.malloc.max, heap.steps.malloc.histogram.3, ...). list and
kingsley count malloc steps only; knuth, estranged, tlsf and lea count both; malloc none.

What it writes (write_tables, from analysis.write_results):
  steps.csv  one row per workload x collector x policy of the main runs (the lowest
             repeat: the counts are identical across repeats): malloc_count,
             malloc_mean, malloc_p99, malloc_max, malloc_bound and the same for free,
             top_level (L, the buddies' largest block level), defrag_requests and
             bound_note (what the bound does not cover, or why there is none)
and report_lines() the report's section.

The bounds are those the heaps prove, in the same units, computed here as the C++
computes them (each function names the header it follows; tests/study/test_steps.py
checks values worked out from those headers). A bound is per request, so for the
buddies it is the largest over every request level k the heap can serve."""

import math
import os

from .common import DEFAULT_POLICIES, format_size, num, read_csv, write_csv

STEPS_COLUMNS = ["workload", "argset", "collector", "policy", "heap_size", "exit_code", "top_level",
                 "malloc_count", "malloc_mean", "malloc_p99", "malloc_max", "malloc_bound",
                 "free_count", "free_mean", "free_p99", "free_max", "free_bound",
                 "defrag_requests", "bound_note"]
QUANTILE = 0.99
NO_BOUND_NOTE = {"list": "none (linear in free blocks)",
                 "malloc": "none (the system allocator counts no steps)"}


# --- the bounds, as the heaps compute them ----------------------------------------------

MIN_BLOCK = 16      # heap/layer.h kMinBlock: level 0 is a 16-byte block
MAX_LEVEL = 31      # heap/buddy/buddy_block_table.h kMaxLevel


def buddy_top_level(heap_size):
    """L = topLevel(): the level of the largest maximal block of an arena of heap_size bytes.
    FixedArena and BuddyBlockTable::adopt round the arena down to 16 bytes; topLevel_ =
    min(kMaxLevel, bit_width(granules) - 1) (heap/buddy/buddy_block_table.h)."""
    granules = int(heap_size) // MIN_BLOCK
    return min(MAX_LEVEL, granules.bit_length() - 1) if granules else 0


def knuth_malloc_step_bound(k, top):
    """heap/buddy/knuth_buddy_heap.h KnuthBuddyHeap::mallocStepBound."""
    return 0 if k > top else 2 * (top - k) + 1


def knuth_free_step_bound(top):
    """heap/buddy/knuth_buddy_heap.h KnuthBuddyHeap::freeStepBound."""
    return top + 1


def estranged_malloc_step_bound(k, top):
    """heap/buddy/estranged_buddy_heap.h EstrangedBuddyHeap::mallocStepBound."""
    return 0 if k > top else 2 + (2 if k > 0 else 0) + 3 * (top - k) + 2 * k


ESTRANGED_FREE_STEP_BOUND = 2  # heap/buddy/estranged_buddy_heap.h freeStepBound
TLSF_MALLOC_STEPS, TLSF_FREE_STEPS = 5, 3  # heap/classic/tlsf_heap.h kMaxMallocSteps, kMaxFreeSteps
KINGSLEY_MALLOC_STEPS, KINGSLEY_FREE_STEPS = 2, 1  # heap/layers/strict_seg_heap.h kMaxMallocSteps, kMaxFreeSteps
KINGSLEY_COALESCING_STEPS = 3  # heap/layers/segregated_list_heap.h kMaxMallocSteps = kMaxFreeSteps


def lea_bins_bounds():
    """(kMaxMallocSteps, kMaxFreeSteps) of LeaBinsHeap (heap/classic/lea_bins_heap.h): the trie path
    P = SizeTrie::pathNodes(kLargeTopBit = 47) = 47 - kLowestKeyBit (4) + 2 (heap/layers/size_trie.h)."""
    path = 47 - 4 + 2
    return (2 * path - 1) + path + 1 + path + (path + 1), 2 * path + (path + 1)


# LeaPolicy's quick lists (heap/policies.h): requests up to 160 B, at most 2^18 blocks
# cached on all lists together. tests/study/test_steps.py reads both from the header.
LEA_QUICK_LIST_MAX_SMALL, LEA_QUICK_LIST_CAPACITY = 160, 1 << 18


def lea_bounds():
    """(maxMallocSteps, maxFreeSteps) of LeaPolicy's QuickListHeap over the Lea bins
    (heap/layers/quick_list_heap.h): 1 + Capacity x (1 + the bins' free bound) + 2 x their
    malloc bound, since one consolidation frees every cached block into the bins and the
    request is then tried again."""
    malloc, free = lea_bins_bounds()
    return 1 + LEA_QUICK_LIST_CAPACITY * (1 + free) + 2 * malloc, max(1, free)


def step_bounds(policy, heap_size):
    """(malloc bound, free bound, top level or None, note) for one run's heap; a bound is
    None where the policy has none."""
    if policy in ("knuth", "estranged"):
        top = buddy_top_level(heap_size)
        if policy == "knuth":
            malloc = max(knuth_malloc_step_bound(k, top) for k in range(top + 1))
            free = knuth_free_step_bound(top)
        else:
            malloc = max(estranged_malloc_step_bound(k, top) for k in range(top + 1))
            free = ESTRANGED_FREE_STEP_BOUND
        return malloc, free, top, (f"L = {top}; a request that defragments is not covered (its region search "
                                   "depends on the free blocks: heap/buddy/buddy_defragmenter.h)")
    if policy == "tlsf":
        return TLSF_MALLOC_STEPS, TLSF_FREE_STEPS, None, ""
    if policy == "kingsley":
        return KINGSLEY_MALLOC_STEPS, KINGSLEY_FREE_STEPS, None, "free steps are not counted"
    if policy == "kingsley-coalescing":
        return KINGSLEY_COALESCING_STEPS, KINGSLEY_COALESCING_STEPS, None, ""
    if policy == "lea":
        malloc, free = lea_bounds()
        return malloc, free, None, ("malloc includes one consolidation of the quick lists "
                                     f"(up to {LEA_QUICK_LIST_CAPACITY:,} blocks) and a retry")
    return None, None, None, NO_BOUND_NOTE.get(policy, "none known to the study")


# --- the observed steps -----------------------------------------------------------------

def histogram_of(row, op):
    """{bucket lower bound: requests} of heap.steps.<op>.histogram.* in a flattened row."""
    prefix = f"heap.steps.{op}.histogram."
    hist = {}
    for key, v in row.items():
        if key.startswith(prefix) and v not in (None, ""):
            hist[int(key[len(prefix):])] = int(float(v))
    return hist


def quantile_bucket(hist, q=QUANTILE):
    """The lower bound of the bucket where the cumulative count first reaches q of all
    requests (rank ceil(q * n)): the exact q-quantile below 64 steps, where buckets are
    single step counts; None for an empty histogram."""
    n = sum(hist.values())
    if n == 0:
        return None
    rank = max(1, math.ceil(q * n))
    cumulative = 0
    for lower in sorted(hist):
        cumulative += hist[lower]
        if cumulative >= rank:
            return lower
    return max(hist)


def observed(row, op):
    """{count, mean, p99, max} of heap.steps.<op>, or None when the run counted none."""
    count = num(row, f"heap.steps.{op}.count")
    if count is None:
        return None
    maximum = num(row, f"heap.steps.{op}.max")
    return {"count": int(count), "mean": num(row, f"heap.steps.{op}.mean"),
            "p99": quantile_bucket(histogram_of(row, op)), "max": int(maximum) if maximum is not None else None}


def _int(v, default=0):
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return default


def steps_rows(rows):
    """steps.csv's rows from the flattened run rows (results.csv): the main runs, one per
    workload x argset x collector x policy (its lowest repeat)."""
    chosen = {}
    for r in rows:
        if r.get("kind") != "main":
            continue
        key = (r["workload"], r.get("argset", ""), r["collector"], r["policy"])
        if key not in chosen or _int(r.get("repeat")) < _int(chosen[key].get("repeat")):
            chosen[key] = r
    order = {p: i for i, p in enumerate(DEFAULT_POLICIES)}
    out = []
    for key in sorted(chosen, key=lambda k: (k[0], k[1], k[2], order.get(k[3], len(order)), k[3])):
        r = chosen[key]
        malloc_bound, free_bound, top, note = step_bounds(r["policy"], _int(r.get("heap_size")))
        defrag = num(r, "heap.satisfied.defrag")
        if top is not None and defrag:
            note += f"; {int(defrag)} requests here moved blocks"
        row = {"workload": key[0], "argset": key[1], "collector": key[2], "policy": key[3],
               "heap_size": _int(r.get("heap_size"), None), "exit_code": r.get("exit_code"), "top_level": top,
               "malloc_bound": malloc_bound, "free_bound": free_bound,
               "defrag_requests": int(defrag) if defrag is not None else None, "bound_note": note}
        for op in ("malloc", "free"):
            s = observed(r, op)
            for field in ("count", "mean", "p99", "max"):
                v = s[field] if s else None
                row[f"{op}_{field}"] = round(v, 4) if field == "mean" and v is not None else v
        out.append(row)
    return out


def write_tables(out_dir, rows):
    """Writes steps.csv; returns {"steps": (rows, columns)}."""
    table = steps_rows(rows)
    write_csv(os.path.join(out_dir, "steps.csv"), table, STEPS_COLUMNS)
    return {"steps": (table, STEPS_COLUMNS)}


# --- the report -------------------------------------------------------------------------

def _cell(r, op):
    count = num(r, f"{op}_count")
    if count is None:
        return "not counted"
    bound = num(r, f"{op}_bound")
    mx = num(r, f"{op}_max")
    mean, p99 = num(r, f"{op}_mean"), num(r, f"{op}_p99")
    text = (f"{mean:.2f} / {int(p99)} / {int(mx)}" if count else "no requests") if mx is not None else "?"
    text += f" (bound {int(bound):,})" if bound is not None else " (no bound)"
    if bound is not None and mx is not None and mx > bound:
        text += " **exceeds**"
    if str(r.get("exit_code", "0")) not in ("0", ""):
        text += f" (exit {r['exit_code']})"
    return text


def _policies(rows):
    """The policies of rows, in the study's order (DEFAULT_POLICIES), others after."""
    order = {p: i for i, p in enumerate(DEFAULT_POLICIES)}
    return sorted({r["policy"] for r in rows}, key=lambda p: (order.get(p, len(order)), p))


def _table(rows, op, policies):
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    out = ["| workload | heap | " + " | ".join(policies) + " |", "|" + "---|" * (len(policies) + 2)]
    for w in workloads:
        cells = {r["policy"]: _cell(r, op) for r in rows if r["workload"] == w}
        heap = next((format_size(r["heap_size"]) for r in rows if r["workload"] == w and r.get("heap_size")), "")
        out.append(f"| {w} | {heap} | " + " | ".join(cells.get(p, "") for p in policies) + " |")
    return out


def summary_lines(rows):
    """One line per policy: for malloc and for free, the largest max over all workloads and
    collectors, the bound of that run's heap, and max / bound."""
    lines = []
    for policy in _policies(rows):
        parts = []
        for op in ("malloc", "free"):
            counted = [r for r in rows if r["policy"] == policy and num(r, f"{op}_max") is not None]
            if not counted:
                continue
            # the largest max; among equal ones, the run with the tightest bound
            worst = max(counted, key=lambda r: (num(r, f"{op}_max"), -(num(r, f"{op}_bound") or 0)))
            mx, bound = int(num(worst, f"{op}_max")), num(worst, f"{op}_bound")
            text = f"{op} max {mx:,} ({worst['workload']}, {worst['collector']})"
            if bound is None:
                text += f", bound {worst['bound_note']}"
            else:
                text += f" against the bound {int(bound):,}: max / bound = {mx / bound:.3g}"
                if mx > bound:
                    text += " — **exceeds the bound**"
            parts.append(text)
        if parts:
            lines.append(f"- **{policy}**: " + "; ".join(parts) + ".")
    return lines


def report_lines(out_dir):
    """The report's section (Markdown lines) from steps.csv alone; empty when no run counted steps."""
    rows = read_csv(os.path.join(out_dir, "steps.csv"))
    rows = [r for r in rows if r.get("malloc_count") or r.get("free_count")]
    if not rows:
        return []
    L = ["## Steps per request: observed worst case against the bound", ""]
    L.append("The steps each request took in the main runs, in the units the policies' bounds count (blocks "
             "examined, levels split or glued, bins or lists looked at, links made): `mean / p99 / max (bound B)`, "
             "p99 the step count at or below which 99% of the requests fall (`heap.steps` histograms, exact below "
             "64 steps). The bound is the one the heap proves for any request on that heap size, from its header: "
             "knuth 2L + 1 per malloc and L + 1 per free, estranged max over k of 2 + [k>0]2 + 3(L - k) + 2k "
             "(3L + 3) per malloc and 2 per free, with L the level of the heap's largest block (16 << L bytes); "
             "tlsf 5 and 3; kingsley 2 (its frees are not counted); lea the quick lists' worst malloc, which "
             f"consolidates up to {LEA_QUICK_LIST_CAPACITY:,} cached blocks, and the bins' worst free. list has "
             "none: its first-fit walk is "
             "linear in the free blocks. A buddy request that defragments is outside its bound (`bound_note` in "
             "`steps.csv`).")
    L.append("")
    for collector in list(dict.fromkeys(r["collector"] for r in rows)):
        mine = [r for r in rows if r["collector"] == collector]
        for op in ("malloc", "free"):
            policies = _policies([r for r in mine if r.get(f"{op}_count")])
            if not policies:
                continue
            L.append(f"Steps per {op}, {collector} collection:")
            L.append("")
            L += _table(mine, op, policies)
            L.append("")
    L.append("Worst case over all workloads and collectors:")
    L.append("")
    L += summary_lines(rows)
    L.append("")
    return L

"""Why estranged recycles more: free bytes in the requested size class.

A buddy request is met immediately when the free list of its own size class (its block
size, a power of two) holds a block. After a collection, knuth's eager recombination has
glued the freed blocks back into large ones; estranged's delayed recombination leaves them
on the lists of their own classes. The `demog` runs' timelines (frag_timeline.csv: the
free bytes in each power-of-two class after every collection, per workload, policy and
collector) measure that directly, and the request-size histogram (sizes.csv) says which
classes the requests need. Definitions, per workload, collector, policy and collection c
(f_K: the fraction of the workload's requests whose block is of class K; free_K(c): the
free bytes in blocks of class K after collection c; A(c): block bytes allocated before c):

  requested_class_free_bytes   R(c) = sum_K f_K free_K(c): the free bytes in the class a
                               request needs, averaged over the workload's requests
  requested_class_free_blocks  sum_K f_K free_K(c) / K: the same in blocks
  requested_class_share        R(c) / all free bytes
  allocated_until_next         a(c) = A(c+1) - A(c), the block bytes allocated until the next
                               collection (the last: until the run's end, alloc_rate.csv's
                               bytes_allocated of the demog run)
  coverage                     sum_K min(f_K, free_K(c) / (K n(c))) with n(c) = a(c) / m and
                               m = sum_K f_K K the mean block: the fraction of the requests
                               until the next collection that the requested-class blocks
                               free after c could meet, at most 1

and over the run: mid-run (R at the middle collection, index n // 2 of n in order), mean
(over the collections), run (R weighted by a(c) over all block bytes the run allocated;
those before the first collection count as 0: nothing has been freed yet) and coverage
weighted the same way. If the requests that the free blocks cannot meet split a larger
block, half of them leave the buddy of the split for the next request of the class (the
split floor: 50% immediate on workloads that never free), so the immediate fraction it
predicts is coverage + (1 - coverage) / 2. Under continuous collection objects are freed
during the cycle's sweep, so the free bytes after it are what the sweep's own requests left:
coverage is a lower bound there.

What it writes (write_tables, from analysis.write_results; `python3 -m study size-class-free DIR` makes
them from a study's CSVs alone):
  size_class_free.csv         one row per workload x collector x policy x collection
  size_class_summary.csv      one row per workload x collector: the values over the run for
                              knuth and estranged, the immediate fraction (satisfied.csv),
                              the fraction of objects dead by 1 MB (demographics.csv, from
                              the occasional trace), and which explanation accounts for the
                              workload's gap
  size_class_correlation.csv  per collector, Pearson and Spearman (stats.py) across workloads
and report_lines(out_dir) the report's section, from those CSVs and satisfied_means.csv,
alloc_cost.csv and demographics.csv."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study size-class-free DIR` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import math
import os
import sys

from . import stats
from .common import EXIT_MISSING, EXIT_USAGE, markdown_table, number, read_csv, write_csv

POLICIES = ("knuth", "estranged")  # eager and delayed recombination: the demog runs' policies
TIMELINE_COLLECTOR = "occasional"  # a timeline without a collector column is the occasional runs'
GAP_POINTS = 10.0   # a gap: estranged meets at least 10 percentage points more requests immediately
YOUNG = 0.5         # the lifetime story: at least half of the objects dead within 1 MB
SPLIT_FLOOR = 0.5   # a request that splits leaves the buddy for the next one of its class

TIMELINE_COLUMNS = ["workload", "collector", "policy", "cycle", "bytes_allocated", "allocated_until_next", "free",
                    "requested_class_free_bytes", "requested_class_free_blocks", "requested_class_share",
                    "coverage"]
PER_POLICY = ["cycles", "mid_free_bytes", "mean_free_bytes", "run_free_bytes", "coverage",
              "predicted_immediate_pct", "immediate_pct", "recycled_pct"]
FROM_SATISFIED = ["immediate_pct", "recycled_pct"]  # the rest of PER_POLICY is the timeline's
SUMMARY_COLUMNS = (["workload", "collector", "main_class", "main_class_fraction"] +
                   [f"{c}_{p}" for c in PER_POLICY for p in POLICIES] +
                   ["log10_ratio_mid", "log10_ratio_run", "coverage_diff", "predicted_immediate_diff",
                    "immediate_diff", "recycled_diff", "dead_by_1m", "observed_gap", "size_class_predicts_gap",
                    "lifetime_predicts_gap", "size_class_explains", "lifetime_explains"])
CORRELATION_COLUMNS = ["collector", "x", "y", "n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p", "left_out"]
# What is correlated with what, across workloads: (x, y, pooled over both policies).
CORRELATIONS = [("log10_ratio_run", "immediate_diff", False),
                ("log10_ratio_mid", "immediate_diff", False),
                ("coverage_diff", "immediate_diff", False),
                ("coverage", "immediate_pct", True),
                ("dead_by_1m", "immediate_diff", False)]
# With the sources runs' split of Figure 10 (satisfied.csv's recycled_pct): coverage against
# the requests met by a freed block, which the split floor does not blur.
RECYCLED_CORRELATIONS = [("coverage_diff", "recycled_diff", False),
                         ("coverage", "recycled_pct", True)]
DESCRIBE = {"log10_ratio_run": "log10 of estranged's requested-class free bytes over knuth's, over the run",
            "log10_ratio_mid": "the same at mid-run",
            "coverage_diff": "coverage, estranged minus knuth",
            "coverage": "coverage (each policy a point)",
            "dead_by_1m": "fraction of objects dead by 1 MB (the lifetime story)",
            "immediate_diff": "immediate, estranged minus knuth (points)",
            "immediate_pct": "immediate (%)",
            "recycled_diff": "recycled (a freed block), estranged minus knuth (points)",
            "recycled_pct": "recycled (%)"}


# --- the arithmetic ---------------------------------------------------------------------

def class_weights(size_rows):
    """{workload: {class: fraction of its requests}} from sizes.csv (counts, normalised)."""
    counts = {}
    for r in size_rows:
        n, k = number(r.get("count")), number(r.get("size_class"))
        if n and k:
            counts.setdefault(r["workload"], {})[int(k)] = counts.get(r["workload"], {}).get(int(k), 0) + n
    return {w: {k: n / sum(h.values()) for k, n in sorted(h.items())} for w, h in counts.items()}


def requested(frag_row, weights):
    """(R, blocks): the free bytes, and blocks, in the class a request needs, averaged over
    the requests (weights: {class: fraction}); a class without a column has none free."""
    free_bytes = {k: number(frag_row.get(f"free_{k}")) or 0.0 for k in weights}
    return (sum(f * free_bytes[k] for k, f in weights.items()),
            sum(f * free_bytes[k] / k for k, f in weights.items()))


def coverage(frag_row, weights, allocated):
    """The fraction of the requests of `allocated` block bytes (classes in proportion
    `weights`) that the free blocks of their classes in frag_row could meet; None when
    nothing is allocated."""
    if not allocated or allocated <= 0:
        return None
    requests = allocated / sum(f * k for k, f in weights.items())
    return sum(min(f, (number(frag_row.get(f"free_{k}")) or 0.0) / (k * requests)) for k, f in weights.items())


def timeline_rows(workload, collector, policy, frag_rows, weights, total):
    """size_class_free.csv rows of one run: frag_rows its collections, total the block bytes
    the run allocated (None when unknown: then the last collection's a(c) is unknown)."""
    frag_rows = sorted(frag_rows, key=lambda r: int(number(r["cycle"])))
    marks = [number(r.get("bytes_allocated")) for r in frag_rows] + [total]
    out = []
    for i, r in enumerate(frag_rows):
        R, blocks = requested(r, weights)
        a = marks[i + 1] - marks[i] if marks[i + 1] is not None and marks[i] is not None else None
        free = number(r.get("free"))
        out.append({"workload": workload, "collector": collector, "policy": policy, "cycle": int(number(r["cycle"])),
                    "bytes_allocated": marks[i], "allocated_until_next": a, "free": free,
                    "requested_class_free_bytes": R, "requested_class_free_blocks": blocks,
                    "requested_class_share": R / free if free else None,
                    "coverage": coverage(r, weights, a)})
    return out


def over_run(rows, total):
    """One run's values over the run, from its timeline_rows: cycles, mid-run R, mean R,
    R and coverage weighted by the bytes allocated after each collection over `total`
    (None without the total), and the immediate fraction the coverage predicts."""
    if not rows:
        return {}
    rs = [r["requested_class_free_bytes"] for r in rows]
    out = {"cycles": len(rows), "mid_free_bytes": rs[len(rs) // 2], "mean_free_bytes": sum(rs) / len(rs)}
    if total and all(r["allocated_until_next"] is not None for r in rows):
        out["run_free_bytes"] = sum(r["requested_class_free_bytes"] * r["allocated_until_next"] for r in rows) / total
        out["coverage"] = sum((r["coverage"] or 0.0) * r["allocated_until_next"] for r in rows) / total
        out["predicted_immediate_pct"] = 100 * (out["coverage"] + (1 - out["coverage"]) * SPLIT_FLOOR)
    return out


def log10_ratio(a, b):
    return math.log10(a / b) if a and b and a > 0 and b > 0 else None


def diff(a, b):
    return a - b if a is not None and b is not None else None


def at_least(x, threshold):
    return None if x is None else x >= threshold


def same(a, b):
    return None if a is None or b is None else a == b


def summary_row(workload, collector, weights, runs, satisfied, dead_by_1m):
    """size_class_summary.csv's row: runs {policy: over_run}, satisfied {policy: {column: pct}}
    (FROM_SATISFIED)."""
    main = max(weights, key=weights.get)
    row = {"workload": workload, "collector": collector, "main_class": main, "main_class_fraction": weights[main]}
    for p in POLICIES:
        for c in PER_POLICY:
            row[f"{c}_{p}"] = (satisfied.get(p, {}) if c in FROM_SATISFIED else runs.get(p, {})).get(c)
    k, e = "knuth", "estranged"
    row["log10_ratio_mid"] = log10_ratio(row[f"mid_free_bytes_{e}"], row[f"mid_free_bytes_{k}"])
    row["log10_ratio_run"] = log10_ratio(row[f"run_free_bytes_{e}"], row[f"run_free_bytes_{k}"])
    row["coverage_diff"] = diff(row[f"coverage_{e}"], row[f"coverage_{k}"])
    row["predicted_immediate_diff"] = diff(row[f"predicted_immediate_pct_{e}"], row[f"predicted_immediate_pct_{k}"])
    row["immediate_diff"] = diff(row[f"immediate_pct_{e}"], row[f"immediate_pct_{k}"])
    row["recycled_diff"] = diff(row[f"recycled_pct_{e}"], row[f"recycled_pct_{k}"])
    row["dead_by_1m"] = dead_by_1m
    row["observed_gap"] = at_least(row["immediate_diff"], GAP_POINTS)
    row["size_class_predicts_gap"] = at_least(row["predicted_immediate_diff"], GAP_POINTS)
    row["lifetime_predicts_gap"] = at_least(dead_by_1m, YOUNG)
    row["size_class_explains"] = same(row["size_class_predicts_gap"], row["observed_gap"])
    row["lifetime_explains"] = same(row["lifetime_predicts_gap"], row["observed_gap"])
    return row


def correlation_rows(summary):
    """size_class_correlation.csv: each of CORRELATIONS per collector, over the workloads
    that have both values (the others named in left_out)."""
    out = []
    recycled = any(number(r.get("recycled_diff")) is not None for r in summary)
    for collector in dict.fromkeys(r["collector"] for r in summary):
        rows = [r for r in summary if r["collector"] == collector]
        for x, y, pooled in CORRELATIONS + (RECYCLED_CORRELATIONS if recycled else []):
            pairs, left_out = [], []
            for r in rows:
                keys = [(f"{x}_{p}", f"{y}_{p}") for p in POLICIES] if pooled else [(x, y)]
                got = [(number(r.get(kx)), number(r.get(ky))) for kx, ky in keys]
                got = [(a, b) for a, b in got if a is not None and b is not None]
                pairs += got
                if len(got) < len(keys):
                    left_out.append(r["workload"])
            r_, p_, n = stats.pearson([a for a, _ in pairs], [b for _, b in pairs])
            rho, p_rho, _ = stats.spearman([a for a, _ in pairs], [b for _, b in pairs])
            out.append({"collector": collector, "x": x, "y": y, "n": n, "pearson_r": r_, "pearson_p": p_,
                        "spearman_rho": rho, "spearman_p": p_rho, "left_out": ";".join(left_out)})
    return out


# --- the tables -------------------------------------------------------------------------

def tables_from(out_dir):
    """(timeline, summary, correlations) from the study's CSVs in out_dir."""
    weights = class_weights(read_csv(os.path.join(out_dir, "sizes.csv")))
    runs = {}
    for r in read_csv(os.path.join(out_dir, "frag_timeline.csv")):
        key = (r["workload"], r.get("collector") or TIMELINE_COLLECTOR, r["policy"])
        if key[2] in POLICIES:
            runs.setdefault(key, []).append(r)
    totals = {(r["workload"], r["collector"], r["policy"]): number(r.get("bytes_allocated"))
              for r in read_csv(os.path.join(out_dir, "alloc_rate.csv")) if r.get("kind") == "demog"}
    satisfied = {(r["workload"], r["collector"], r["policy"]): {c: number(r.get(c)) for c in FROM_SATISFIED}
                 for r in read_csv(os.path.join(out_dir, "satisfied.csv"))}
    dead = {r["workload"]: number(r.get("within_1m")) for r in read_csv(os.path.join(out_dir, "demographics.csv"))}
    timeline, summary = [], []
    pairs = list(dict.fromkeys((w, c) for w, c, _ in runs))
    collectors = [TIMELINE_COLLECTOR] + sorted({c for _, c in pairs} - {TIMELINE_COLLECTOR})
    for workload, collector in sorted(pairs, key=lambda wc: collectors.index(wc[1])):  # stable: workloads in order
        if workload not in weights:
            continue
        over = {}
        for p in POLICIES:
            rows = timeline_rows(workload, collector, p, runs.get((workload, collector, p), []), weights[workload],
                                 totals.get((workload, collector, p)))
            timeline += rows
            over[p] = over_run(rows, totals.get((workload, collector, p)))
        summary.append(summary_row(workload, collector, weights[workload], over,
                                   {p: satisfied.get((workload, collector, p), {}) for p in POLICIES},
                                   dead.get(workload)))
    return timeline, summary, correlation_rows(summary)


def write_tables(out_dir):
    """Writes the three CSVs from the study's CSVs; returns them as {name: (rows, columns)}."""
    timeline, summary, correlations = tables_from(out_dir)
    tables = {"size_class_free": (timeline, TIMELINE_COLUMNS), "size_class_summary": (summary, SUMMARY_COLUMNS),
              "size_class_correlation": (correlations, CORRELATION_COLUMNS)}
    for name, (rows, columns) in tables.items():
        write_csv(os.path.join(out_dir, f"{name}.csv"), rows, columns)
    return tables


# --- the report -------------------------------------------------------------------------

HEADING = "## Why estranged recycles more: free bytes in the requested class"


def num_text(x, digits=0):
    return "" if x is None else f"{x:,.{digits}f}"


def pair(r, column, text):
    """'knuth / estranged' of a summary column."""
    return " / ".join(text(number(r.get(f"{column}_{p}"))) for p in POLICIES)


def truth(r, column):
    v = r.get(column)
    return None if v in (None, "") else str(v) == "True"


def definition_lines():
    return [HEADING, "",
            "A buddy request is met immediately when the free list of its own block size holds a block. After a "
            "collection, knuth's eager recombination has glued the freed blocks back into large ones; estranged's "
            "delayed recombination leaves them on the lists of their own sizes. The `demog` runs' timelines "
            "(`frag_timeline.csv`: the free bytes in every power-of-two class after each collection) measure this "
            "directly. **Requested-class free bytes**: after a collection, the free bytes in the class a request "
            "needs, averaged over the workload's requests (each class weighted by its share of the requests, "
            "`sizes.csv`); mid-run at the middle collection, and over the run weighted by the bytes allocated "
            "until the next collection (before the first, nothing has been freed: 0). **Coverage**: the fraction "
            "of the requests until the next collection that the blocks free in their classes could meet (at most "
            "1; the requests are taken to keep the workload's class mix throughout), over the run the same way. "
            "The requests the free blocks cannot meet split a larger block, and half of those leave the split's "
            "buddy for the next request of the class (the 50% floor of workloads that never free), so coverage "
            f"predicts **coverage + (1 - coverage) / 2** immediate. A *gap*: estranged meets at least "
            f"{GAP_POINTS:g} points more requests immediately than knuth (`satisfied.csv`); the lifetime story "
            f"predicts one where at least {100 * YOUNG:g}% of objects die within 1 MB of allocation "
            "(`demographics.csv`, from the occasional trace), the size-class story where the predicted "
            f"immediate fractions differ by at least {GAP_POINTS:g} points. Files: `size_class_free.csv` (every "
            "collection), `size_class_summary.csv`, `size_class_correlation.csv`.", ""]


def workload_table(rows):
    body = []
    for r in rows:
        body.append([r["workload"], f"{int(number(r['main_class']))} B ({100 * number(r['main_class_fraction']):.0f}%)",
                     pair(r, "mid_free_bytes", num_text), pair(r, "run_free_bytes", num_text),
                     pair(r, "coverage", lambda x: num_text(x, 2)),
                     pair(r, "predicted_immediate_pct", lambda x: num_text(x, 1)),
                     pair(r, "immediate_pct", lambda x: num_text(x, 1)),
                     "" if number(r.get("dead_by_1m")) is None else f"{100 * number(r['dead_by_1m']):.1f}%",
                     " / ".join({True: "yes", False: "**no**", None: "–"}[truth(r, c)]
                                for c in ("size_class_explains", "lifetime_explains"))])
    return markdown_table(["workload", "main class", "requested-class free B, mid-run (knuth / estranged)",
                           "over the run", "coverage", "predicted immediate %", "observed immediate %",
                           "dead by 1 MB", "gap explained: size class / lifetime"], body)


def correlation_table(rows):
    def rp(r, p):
        v, pv = number(r.get(r_key(p))), number(r.get(p_key(p)))
        return "" if v is None else f"{v:.2f} (p = {pv:.2g})"

    def r_key(p):
        return "pearson_r" if p == "pearson" else "spearman_rho"

    def p_key(p):
        return "pearson_p" if p == "pearson" else "spearman_p"
    body = [[DESCRIBE.get(r["x"], r["x"]), DESCRIBE.get(r["y"], r["y"]), r["n"], rp(r, "pearson"),
             rp(r, "spearman"), r["left_out"].replace(";", ", ")] for r in rows]
    return markdown_table(["x", "y", "n", "Pearson r", "Spearman ρ", "left out (a value missing)"], body)


def verdict_lines(rows):
    """Where each story accounts for the gap, and where it does not, by name."""
    L = []
    for column, story, why in (("lifetime_explains", "Lifetimes", lambda r: f"{100 * number(r['dead_by_1m']):.1f}% "
                                "dead by 1 MB"),
                               ("size_class_explains", "The requested-class free bytes", lambda r:
                                f"predicted {num_text(number(r['predicted_immediate_diff']), 1)} points")):
        judged = [r for r in rows if truth(r, column) is not None]
        wrong = [r for r in judged if not truth(r, column)]
        text = (f"{story} account for the gap or its absence on {len(judged) - len(wrong)} of {len(judged)} "
                "workloads")
        if wrong:
            text += "; not on " + ", ".join(f"{r['workload']} ({why(r)}, observed gap "
                                            f"{num_text(number(r['immediate_diff']), 1)} points)" for r in wrong)
        L += [text + ".", ""]
    return L


def largest_block_line(out_dir):
    """How often the largest-free-block ratio tells the buddies apart (demographics.csv)."""
    rows = [r for r in read_csv(os.path.join(out_dir, "demographics.csv"))
            if all(number(r.get(f"largest_over_free_{p}")) is not None for p in POLICIES)]
    if not rows:
        return []
    same_ = [r for r in rows if round(number(r["largest_over_free_knuth"]), 2) ==
             round(number(r["largest_over_free_estranged"]), 2)]
    return [f"The largest free block over all free bytes (`demographics.csv`) is the same for both buddies, to two "
            f"decimals, on {len(same_)} of {len(rows)} workloads: how much memory is free in large pieces does not "
            "tell them apart; which classes hold it does.", ""]


def prediction_line(rows):
    parts = []
    for p in POLICIES:
        errs = [(r["workload"], number(r[f"immediate_pct_{p}"]) - number(r[f"predicted_immediate_pct_{p}"]))
                for r in rows if number(r.get(f"immediate_pct_{p}")) is not None
                and number(r.get(f"predicted_immediate_pct_{p}")) is not None]
        if errs:
            w, worst = max(errs, key=lambda e: abs(e[1]))
            parts.append(f"{p} {sum(abs(e) for _, e in errs) / len(errs):.1f} points (largest: {w}, "
                         f"{worst:+.1f})")
    return [f"Observed minus predicted immediate, mean absolute over the workloads: {'; '.join(parts)}.", ""] \
        if parts else []


def geomean_cost_ratio(cost_rows, collector):
    """(estranged / knuth instructions per request, geometric mean, n) over the workloads
    both free memory on under `collector` (alloc_cost.csv)."""
    cells = {(r["workload"], r["policy"]): r for r in cost_rows if r["collector"] == collector}
    ratios = []
    for w in dict.fromkeys(w for w, _ in cells):
        k, e = cells.get((w, "knuth")), cells.get((w, "estranged"))
        if k and e and (number(k.get("frees")) or 0) > 0 and (number(e.get("frees")) or 0) > 0 \
                and number(k.get("ir_per_request")) and number(e.get("ir_per_request")):
            ratios.append(number(e["ir_per_request"]) / number(k["ir_per_request"]))
    if not ratios:
        return None, 0
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)), len(ratios)


def immediate_means(out_dir):
    """{(collector, policy): (request-weighted immediate %, workloads)} of the recycling
    workloads (satisfied_means.csv; all workloads where it has no recycling subset)."""
    rows = read_csv(os.path.join(out_dir, "satisfied_means.csv"))
    subset = "recycling" if any(r.get("subset") == "recycling" for r in rows) else "all"
    return subset, {(r["collector"], r["policy"]): (number(r["immediate_pct_weighted"]), r["workloads"])
                    for r in rows if r.get("subset") == subset and r["policy"] in POLICIES}


def continuous_lines(out_dir, summary):
    """The comparison with the paper's §2.6: continuous collection against occasional."""
    subset, means = immediate_means(out_dir)
    cost = read_csv(os.path.join(out_dir, "alloc_cost.csv"))
    have = all((c, p) in means for c in ("occasional", "continuous") for p in POLICIES)
    if not have:
        return []
    L = ["### Continuous collection, against the paper's §2.6", ""]
    (ko, n_occasional), (kc, n_continuous) = means[("occasional", "knuth")], means[("continuous", "knuth")]
    (eo, _), (ec, _) = means[("occasional", "estranged")], means[("continuous", "estranged")]
    ro, no = geomean_cost_ratio(cost, "occasional")
    rc, nc = geomean_cost_ratio(cost, "continuous")
    text = (f"The paper expects delayed recombination to matter most under continuous collection, where objects "
            f"come back in a trickle. Kith finds the opposite. Over the {subset} workloads ({n_occasional} under "
            f"occasional collection, {n_continuous} under continuous; request-weighted, `satisfied_means.csv`), "
            f"continuous collection takes knuth's immediate fraction from {ko:.1f}% to {kc:.1f}% "
            f"({kc - ko:+.1f} points) and estranged's from {eo:.1f}% to {ec:.1f}% ({ec - eo:+.1f}); "
            f"estranged had {100 - eo:.1f} points left to gain, knuth {100 - ko:.1f}.")
    if (kc - ko) > (ec - eo):
        text = text.replace("Kith finds the opposite.", "Kith finds the opposite: it helps knuth more.")
    else:
        text = text.replace("Kith finds the opposite.", "Kith agrees: it helps estranged more.")
    if ro and rc:
        text += (f" Estranged's instructions per request over knuth's (`alloc_cost.csv`, geometric mean over the "
                 f"workloads both free memory on) go from {ro:.2f} ({no}) to {rc:.2f} ({nc}): its advantage "
                 f"{'narrows' if rc > ro else 'widens' if rc < ro else 'stays'}.")
    L += [text, ""]
    return L + continuous_timeline_lines(summary)


def more_or_less(before, after):
    return "more" if after > before else "less" if after < before else "as much"


def continuous_timeline_lines(summary):
    """What the continuous timeline says (the change in the immediate fraction split into
    what the cycle-end lists predict and the rest), or that the study has none."""
    by = {(r["workload"], r["collector"]): r for r in summary}
    both = [w for w, c in by if c == "occasional" and (w, "continuous") in by]
    if not both:
        return ["This study's size-class timeline has the occasional demog runs only (the continuous ones came "
                "later): `kith study --resume` on the study's directory runs the continuous ones, for the continuous side "
                "of the explanation.",
                ""]

    def mean_change(column):
        """Mean over the workloads of continuous minus occasional, and the occasional mean."""
        pairs = [(number(by[(w, "occasional")].get(column)), number(by[(w, "continuous")].get(column))) for w in both]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        if not pairs:
            return None, None
        return sum(a for a, _ in pairs) / len(pairs), sum(b - a for a, b in pairs) / len(pairs)

    parts, coverage = [], []
    for p in POLICIES:
        cov_before, cov_change = mean_change(f"coverage_{p}")
        _, observed = mean_change(f"immediate_pct_{p}")
        _, predicted = mean_change(f"predicted_immediate_pct_{p}")
        if None in (cov_before, observed, predicted):
            continue
        coverage.append((p, cov_before, cov_before + cov_change))
        parts.append(f"{p} {observed:+.1f} points, of which the cycle-end lists predict {predicted:+.1f} and "
                     f"{observed - predicted:+.1f} is requests they do not account for")
    if not parts:
        return []
    words = "/".join(dict.fromkeys(more_or_less(before, after) for _, before, after in coverage))
    coverage_text = ", ".join(f"{p} {before:.2f} → {after:.2f}" for p, before, after in coverage)
    text = (f"The timelines of both collectors ({len(both)} workloads; means over them, each workload counted "
            f"once): after a collection the requested classes hold {words} under continuous collection "
            f"than under occasional (mean coverage {coverage_text}). The change in the immediate "
            f"fraction, continuous minus occasional: {'; '.join(parts)} — requests met by blocks freed during "
            "the cycle itself, which a list sampled at the end of the cycle cannot show. Under occasional "
            "collection every free happens at the collection, so the cycle-end lists are all there is. A reading "
            "of this (an inference: the timeline is not sampled within a cycle): in a trickle, a freed block's "
            "buddy is often still in use (allocated since the cycle began, or not swept yet), so knuth cannot "
            "glue it back either, and it waits on its own class's list as under estranged; in a burst, whole dead "
            "structures come back with their buddies, and knuth glues them up. Delayed recombination pays most "
            "where frees come in bursts.")
    return [text, ""]


def report_lines(out_dir):
    """The report's section (Markdown lines) from the CSVs in out_dir; [] without a summary."""
    summary = read_csv(os.path.join(out_dir, "size_class_summary.csv"))
    if not summary:
        return []
    correlations = read_csv(os.path.join(out_dir, "size_class_correlation.csv"))
    L = definition_lines()
    for collector in dict.fromkeys(r["collector"] for r in summary):
        rows = [r for r in summary if r["collector"] == collector]
        L += [f"Collector `{collector}`, per workload:", ""] + workload_table(rows) + [""]
        L += [f"Correlation across workloads, collector `{collector}` (two-sided p from t on n - 2 degrees of "
              "freedom):", ""] + correlation_table([r for r in correlations if r["collector"] == collector]) + [""]
        L += verdict_lines(rows) + prediction_line(rows)
    L += largest_block_line(out_dir)
    return L + continuous_lines(out_dir, summary)


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m study size-class-free STUDY_DIR (writes size_class_*.csv from its CSVs)", file=sys.stderr)
        return EXIT_USAGE
    if not os.path.isdir(argv[0]):
        print(f"size_class_free.py: {argv[0]}: no such directory", file=sys.stderr)
        return EXIT_MISSING
    tables = write_tables(argv[0])
    print(f"size_class_free.py: {len(tables['size_class_summary'][0])} workload x collector rows in {argv[0]}")
    return 0

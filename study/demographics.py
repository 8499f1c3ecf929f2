"""Object demographics per workload — why a policy wins, not only that it does.

The `demog` runs: per workload, one run on estranged and one on knuth at the main heap
under occasional collection and under every other collector of the study that collects
(continuous, paced by work: deterministic), each with `--frag-file` (the free space after
every collection); the estranged run under occasional collection also records `--trace`,
from which `kith trace lifetimes --json` gives every object's age at death in bytes
allocated since its birth (cached beside the trace as <id>.lifetimes.json). A trace
another kind of run recorded (runs/trace/, estranged, occasional) serves when the demog
trace is absent. The lifetimes and demographics.csv are of the occasional runs; the
timeline has every collector's (size_class_free.py compares them).

What it writes (write_demographics, from analysis.write_results):
  lifetimes.csv      workload, age_bytes_le, objects, bytes, cum_fraction_objects,
                     cum_fraction_bytes — the lifetime CDF; fractions are of ALL objects
                     (and bytes) allocated, so objects never freed keep it below 1
  alloc_rate.csv     workload, kind, policy, collector, runs, bytes_requested,
                     bytes_allocated, mutator_s, mb_per_s — from the main runs (and the
                     demog runs): mutator time is vm.wall_s less the GC pause total, the
                     rate is bytes requested per mutator second, MB = 10^6 bytes
  frag_timeline.csv  workload, policy, collector, cycle, bytes_allocated, in_use, free,
                     largest_free, free_16, free_32, ... (free bytes by block size class);
                     a timeline without the collector column (before the continuous
                     demog runs) is all occasional
  demographics.csv   one row per workload: the report's table
and report_section() the report's section."""

import json
import os
import subprocess

from .common import fmt, format_size, num, warn, write_csv
from .runs import Run

DEMOG_POLICIES = ["estranged", "knuth"]
DEMOG_COLLECTOR = "occasional"
TRACE_POLICY = "estranged"
WITHIN = [("within_1k", 1 << 10), ("within_64k", 1 << 16), ("within_1m", 1 << 20)]

LIFETIME_COLUMNS = ["workload", "age_bytes_le", "objects", "bytes", "cum_fraction_objects", "cum_fraction_bytes"]
RATE_COLUMNS = ["workload", "kind", "policy", "collector", "runs", "bytes_requested", "bytes_allocated",
                "mutator_s", "mb_per_s"]
FRAG_COLUMNS = ["workload", "policy", "collector", "cycle", "bytes_allocated", "in_use", "free", "largest_free"]
SUMMARY_COLUMNS = ["workload", "objects", "bytes_requested", "median_age_bytes", "within_1k", "within_64k",
                   "within_1m", "never_freed", "mb_per_s", "rate_kind"] + \
                  [f"largest_over_free_{p}" for p in DEMOG_POLICIES] + [f"cycles_{p}" for p in DEMOG_POLICIES]


# --- the runs (plan.py's hooks) ---------------------------------------------------------

def run_options(run: Run) -> list[str]:
    """kith run options of a demog run, paths relative to the study directory."""
    options = [f"--frag-file={run.path('frag')}"]
    if run.policy == TRACE_POLICY and run.collector == DEMOG_COLLECTOR:
        options.append(f"--trace={run.path('trace')}")
    return options


def demog_collectors(collectors):
    """The collectors of the demog runs: occasional (the lifetimes and the table), then
    each other collector of the study that collects (a run without collections has no
    timeline)."""
    return [DEMOG_COLLECTOR] + [c for c in collectors if c not in (DEMOG_COLLECTOR, "none")]


def plan_runs(study, ready):
    """The demog runs of every workload whose main heap is known (ready: {name: base})."""
    runs = []
    for w in study.workloads:
        if w.name not in ready:
            continue
        heap = study.main_heap(w, ready[w.name])
        for col in demog_collectors(study.config["collectors"]):
            for p in DEMOG_POLICIES:
                runs.append(study.make("demog", w, p, col, heap, 0))
    return runs


# --- reading the files ------------------------------------------------------------------

def read_frag(path):
    """A --frag-file: ({header key: value}, [row dicts]); numbers as int, NA as None.
    None when the file is missing or not a kith-frag file."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or lines[0] != "# kith-frag 1":
        return None
    meta, columns, rows = {}, None, []
    for line in lines[1:]:
        if line.startswith("# "):
            key, _, value = line[2:].partition(" ")
            meta[key] = value
        elif columns is None:
            columns = line.split("\t")
        elif line:
            values = line.split("\t")
            if len(values) != len(columns):
                return None
            try:
                rows.append({c: (None if v == "NA" else int(v)) for c, v in zip(columns, values)})
            except ValueError:
                return None
    return meta, rows


def lifetimes_of(study, out_dir, trace_path):
    """`kith trace lifetimes --json` of a trace, cached beside it (<trace>.lifetimes.json
    without the .trace); None when neither the cache nor the trace is there."""
    cache = os.path.splitext(trace_path)[0] + ".lifetimes.json"
    for attempt in (0, 1):
        try:
            stale = os.path.exists(trace_path) and os.path.getmtime(trace_path) > os.path.getmtime(cache)
            if not stale:
                with open(cache) as f:
                    return json.load(f)
        except (OSError, ValueError):
            pass
        if attempt or not os.path.exists(trace_path):
            return None
        try:
            p = subprocess.run([study.kith, "trace", "lifetimes", "--json", trace_path], capture_output=True,
                               text=True, timeout=3600)
        except (OSError, subprocess.SubprocessError) as e:
            warn(f"kith trace lifetimes {trace_path}: {e}")
            return None
        if p.returncode != 0:
            warn(f"kith trace lifetimes {trace_path} exited {p.returncode}: {p.stderr.strip()}")
            return None
        with open(cache + ".tmp", "w") as f:
            f.write(p.stdout)
        os.replace(cache + ".tmp", cache)
    return None


def trace_for(study, out_dir, workload, demog_rows):
    """The trace of `workload` to take lifetimes from: the demog run's, else one
    recorded by another kind of run on the same policy and collector."""
    for r in demog_rows:
        if (r["workload"], r["policy"], r["collector"]) == (workload, TRACE_POLICY, DEMOG_COLLECTOR):
            path = os.path.join(out_dir, "runs", "demog", r["run_id"] + ".trace")
            if os.path.exists(path) or os.path.exists(os.path.join(out_dir, "runs", "demog",
                                                                   r["run_id"] + ".lifetimes.json")):
                return path
    other = os.path.join(out_dir, "runs", "trace")
    if os.path.isdir(other):
        for name in sorted(os.listdir(other)):
            parts = name.split("__")
            if (name.endswith(".trace") and len(parts) >= 5 and parts[1] == workload and parts[2] == study.argset
                    and parts[3] == TRACE_POLICY and parts[4] == DEMOG_COLLECTOR):
                return os.path.join(other, name)
    return None


# --- the tables -------------------------------------------------------------------------

def lifetime_rows(workload, lt):
    """lifetimes.csv rows of one workload: the histogram with cumulative fractions of
    all objects and bytes allocated (the never-freed remainder keeps them below 1)."""
    objects, total_bytes = lt.get("objects") or 0, lt.get("bytes_allocated") or 0
    rows, cum_objects, cum_bytes = [], 0, 0
    for b in lt.get("histogram", []):
        cum_objects += b["objects"]
        cum_bytes += b["bytes"]
        rows.append({"workload": workload, "age_bytes_le": b["age_bytes_le"], "objects": b["objects"],
                     "bytes": b["bytes"],
                     "cum_fraction_objects": cum_objects / objects if objects else None,
                     "cum_fraction_bytes": cum_bytes / total_bytes if total_bytes else None})
    return rows


def fraction_within(rows, age):
    """Fraction of all objects dead by `age` bytes (rows: one workload's lifetime_rows)."""
    f = 0.0
    for r in rows:
        if r["age_bytes_le"] > age:
            break
        f = r["cum_fraction_objects"] or 0.0
    return f


def median_age(rows):
    """The age by which half of all objects have died (a bucket's upper bound, within
    1/8 of the age); None when fewer than half ever die."""
    for r in rows:
        if (r["cum_fraction_objects"] or 0) >= 0.5:
            return r["age_bytes_le"]
    return None


def alloc_rate_rows(rows):
    """Per workload x kind x policy x collector of the main and demog runs that exited
    0: the means of bytes requested and allocated and of mutator time, and the rate."""
    groups = {}
    for r in rows:
        if r.get("kind") not in ("main", "demog") or str(r.get("exit_code")) != "0":
            continue
        wall, gc_ms = num(r, "vm.wall_s"), num(r, "gc.pause_ms.total")
        requested = num(r, "heap.bytes_requested")
        if wall is None or requested is None:
            continue
        key = (r["workload"], r["kind"], r["policy"], r["collector"])
        groups.setdefault(key, []).append((requested, num(r, "heap.bytes_allocated") or 0.0,
                                           wall - (gc_ms or 0.0) / 1000))
    out = []
    for (workload, kind, policy, collector), g in sorted(groups.items()):
        n = len(g)
        requested, allocated = sum(x[0] for x in g) / n, sum(x[1] for x in g) / n
        mutator = sum(x[2] for x in g) / n
        out.append({"workload": workload, "kind": kind, "policy": policy, "collector": collector, "runs": n,
                    "bytes_requested": round(requested), "bytes_allocated": round(allocated),
                    "mutator_s": mutator, "mb_per_s": requested / mutator / 1e6 if mutator > 0 else None})
    return out


def pick_rate(rate_rows, workload):
    """The workload's allocation rate for the report: estranged under occasional
    collection, from the main runs when there are any, else the demog run."""
    for kind in ("main", "demog"):
        for r in rate_rows:
            if (r["workload"], r["kind"], r["policy"], r["collector"]) == (workload, kind, TRACE_POLICY,
                                                                             DEMOG_COLLECTOR):
                return r["mb_per_s"], kind
    return None, ""


def write_demographics(study, out_dir, rows):
    """Writes lifetimes.csv, alloc_rate.csv, frag_timeline.csv and demographics.csv;
    returns them as analysis tables {name: (rows, columns)}."""
    demog = [r for r in rows if r.get("kind") == "demog" and r.get("argset") == study.argset]
    workloads = [w.name for w in study.workloads]
    workloads += sorted({r["workload"] for r in demog} - set(workloads))

    lifetimes, life_by_workload, life_json = [], {}, {}
    for w in workloads:
        trace = trace_for(study, out_dir, w, demog)
        lt = lifetimes_of(study, out_dir, trace) if trace else None
        if lt:
            life_json[w] = lt
            life_by_workload[w] = lifetime_rows(w, lt)
            lifetimes += life_by_workload[w]

    rate = alloc_rate_rows(rows)

    timeline, class_columns, ratio, cycles = [], set(), {}, {}
    for r in demog:
        parsed = read_frag(os.path.join(out_dir, "runs", "demog", r["run_id"] + ".frag"))
        if not parsed:
            continue
        _, frag = parsed
        ratios = []
        for f in frag:
            row = {"workload": r["workload"], "policy": r["policy"], "collector": r["collector"], **f}
            class_columns.update(k for k in f if k.startswith("free_"))
            timeline.append(row)
            if f.get("free") and f.get("largest_free") is not None:
                ratios.append(f["largest_free"] / f["free"])
        if r["collector"] != DEMOG_COLLECTOR:
            continue  # the table is of the occasional runs; the timeline has every collector
        ratio[(r["workload"], r["policy"])] = sum(ratios) / len(ratios) if ratios else None
        cycles[(r["workload"], r["policy"])] = len(frag)
    frag_columns = FRAG_COLUMNS + sorted(class_columns, key=lambda c: int(c[5:]))

    summary = []
    for w in workloads:
        lt, lrows = life_json.get(w), life_by_workload.get(w, [])
        mb_per_s, rate_kind = pick_rate(rate, w)
        if not lt and mb_per_s is None and not any(k[0] == w for k in ratio):
            continue
        row = {"workload": w, "mb_per_s": mb_per_s, "rate_kind": rate_kind}
        if lt:
            objects = lt.get("objects") or 0
            row.update({"objects": objects, "bytes_requested": lt.get("bytes_allocated"),
                        "median_age_bytes": median_age(lrows),
                        "never_freed": lt.get("live_at_end", 0) / objects if objects else None})
            for name, age in WITHIN:
                row[name] = fraction_within(lrows, age)
        for p in DEMOG_POLICIES:
            row[f"largest_over_free_{p}"] = ratio.get((w, p))
            row[f"cycles_{p}"] = cycles.get((w, p))
        summary.append(row)

    tables = {"lifetimes": (lifetimes, LIFETIME_COLUMNS), "alloc_rate": (rate, RATE_COLUMNS),
              "frag_timeline": (timeline, frag_columns), "demographics": (summary, SUMMARY_COLUMNS)}
    for name, (table_rows, columns) in tables.items():
        write_csv(os.path.join(out_dir, f"{name}.csv"), table_rows, columns)
    return tables


# --- the report -------------------------------------------------------------------------

def pct(x):
    return "" if x is None else f"{100 * x:.1f}%"


def report_section(tables):
    """The report's lines on object demographics (from write_demographics' tables)."""
    summary, _ = tables.get("demographics", ([], []))
    L = ["## Object demographics", ""]
    if not summary:
        L += ["No `demog` runs in this study (`--experiments` without `demog`), so no lifetimes, allocation "
              "rates or fragmentation timelines.", ""]
        return L
    L.append("Why a policy wins, per workload. **Lifetime**: the age at death of every object in bytes "
             "allocated since its birth (`kith trace lifetimes` on the trace of the `demog` run on "
             f"`{TRACE_POLICY}`, occasional collection, at the main heap); the median and the fractions are of "
             "all objects allocated, so objects never freed (still live when the program ended) count as "
             "not dead within any age — the median is blank when fewer than half ever die. Ages are bucket "
             "bounds, within 1/8 of the true age. An object dies, in the trace, when the collector frees it: "
             "this is the lifetime the allocator sees (what its free lists and recombination work with), an "
             "upper bound on when the object became unreachable, and under occasional collection it includes "
             "the wait for the next cycle. **Alloc rate**: bytes requested per second of mutator time "
             "(wall time less GC pauses; MB = 10^6 bytes), estranged under occasional collection. "
             "**Largest/free**: the largest free block over the free bytes after each collection "
             "(`--frag-file`), averaged over the collections; 1 means all free memory is one block, small "
             "values mean the free memory is in pieces. Files: `lifetimes.csv` (the CDF), `alloc_rate.csv`, "
             "`frag_timeline.csv` (every collection, free bytes by block size class), `demographics.csv`.")
    L.append("")
    head = ["workload", "objects", "median age", "dead by 1 KB", "by 64 KB", "by 1 MB", "never freed",
            "alloc MB/s"] + [f"largest/free {p}" for p in DEMOG_POLICIES] + ["GCs"]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---|" * len(head))
    for r in summary:
        median = r.get("median_age_bytes")
        cells = [r["workload"], fmt(r.get("objects")),
                 "" if median is None else format_size(median) if median >= 1024 else f"{median} B",
                 pct(r.get("within_1k")), pct(r.get("within_64k")), pct(r.get("within_1m")),
                 pct(r.get("never_freed")),
                 "" if r.get("mb_per_s") is None else f"{r['mb_per_s']:.0f}"]
        cells += ["" if r.get(f"largest_over_free_{p}") is None else f"{r[f'largest_over_free_{p}']:.2f}"
                  for p in DEMOG_POLICIES]
        cells.append(" / ".join("" if r.get(f"cycles_{p}") is None else str(r[f"cycles_{p}"])
                                for p in DEMOG_POLICIES))
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    return L

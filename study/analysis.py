"""From the run files to the CSVs: results.csv/json (one row per run, every statistic of
the JSON flattened), summary.csv (median, mean and 95% interval per configuration) and one
CSV per figure. The figures (plot_study.py) and report.md (report.py) read only these."""

import collections
import json
import os

from . import alloc_cost
from . import builds
from . import demographics
from . import size_class_free
from . import power
from . import predicted
from . import run_json
from . import stats
from . import whole_run
from . import steps
from .runs import Run, load_stats, run_files
from .common import kind_commit, num, write_csv

META_COLUMNS = ["run_id", "kind", "workload", "argset", "args", "policy", "collector", "pacing", "heap_size",
                "multiple", "repeat", "exit_code"]


def refused_runs(out_dir, done):
    """{run id: why} of the finished runs that exited 0 but whose JSON cannot be counted
    (run_json.py: e.g. a wall time of NaN, merged before --merge checked numbers, or
    edited since). They are left out of every table, and the driver names them."""
    refused = {}
    for run_id, rc in done.items():
        r = Run.parse(run_id)
        if r and rc == 0:
            why = run_json.read(os.path.join(out_dir, r.path("json")), r.kind)[1]
            if why:
                refused[run_id] = why
    return refused


def collect_rows(study, out_dir, refused):
    rows, contrived = [], []
    done = run_files(out_dir)
    for run_id in sorted(done):
        r = Run.parse(run_id)
        if not r or run_id in refused:
            continue
        rc = done[run_id]
        if r.kind in ("cost", "replay"):
            continue  # replays, not runs: alloc_cost.csv and replay_time.csv
        if r.kind == "contrived":
            s = load_stats(out_dir, r) or {}
            contrived.append({"run_id": run_id, "heap_size": r.heap, "repeat": r.repeat, "exit_code": rc,
                              "n": s.get("n"), "object_bytes": s.get("object_bytes"),
                              "request_bytes": s.get("request_bytes"), "fill": s.get("fill"),
                              **{f"{p}_{k}": s.get(f"{p}_{k}") for p in ("list", "knuth", "estranged", "tlsf")
                                 for k in ("ns", "steps", "ns_ci_low", "ns_ci_high")},
                              # the request's time in each of the run's fresh heaps, space-separated
                              **{f"{p}_ns_samples": " ".join(f"{x:g}" for x in s.get(f"{p}_ns_samples") or [])
                                 for p in ("list", "knuth", "estranged", "tlsf")}})
            continue
        w = study.by_name.get(r.workload)
        row = {"run_id": run_id, "kind": r.kind, "workload": r.workload, "argset": r.argset,
               "args": " ".join(w.args(r.argset)) if w else "", "policy": r.policy, "collector": r.collector,
               "pacing": r.pacing, "heap_size": r.heap, "multiple": r.multiple, "repeat": r.repeat,
               "exit_code": rc}
        s = load_stats(out_dir, r)
        if s:
            flat = stats.flatten(s)
            flat.pop("policy", None)
            flat.pop("collector", None)
            flat.pop("heap_size", None)
            row.update(flat)
        rows.append(row)
    return rows, contrived


SUMMARY_METRICS = [("wall_s", "vm.wall_s"), ("gc_ms", "gc.pause_ms.total"), ("alloc_ns", "heap.alloc_ns.mean"),
                   ("free_ns", "heap.free_ns.mean")]


def summarize(rows, argset):
    groups = {}
    for r in rows:
        if r["kind"] not in ("main", "tradeoff", "pauses") or r["argset"] != argset:
            continue
        key = (r["kind"], r["workload"], r["policy"], r["collector"], r["pacing"], r["heap_size"], r["multiple"])
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        ok = [r for r in rs if r["exit_code"] == 0]
        row = dict(zip(["kind", "workload", "policy", "collector", "pacing", "heap_size", "multiple"], key))
        row["runs"] = len(rs)
        row["failed"] = len(rs) - len(ok)
        for name, col in SUMMARY_METRICS:
            xs = [num(r, col) for r in ok]
            xs = [x for x in xs if x is not None]
            mean, lo, hi = stats.mean_ci(xs)
            row[f"{name}_median"] = stats.median(xs)
            row[f"{name}_mean"] = mean
            row[f"{name}_ci_low"] = lo
            row[f"{name}_ci_high"] = hi
        out.append(row)
    cols = ["kind", "workload", "policy", "collector", "pacing", "heap_size", "multiple", "runs", "failed"]
    for name, _ in SUMMARY_METRICS:
        cols += [f"{name}_median", f"{name}_mean", f"{name}_ci_low", f"{name}_ci_high"]
    return out, cols


def main_rows(rows, argset):
    return [r for r in rows if r["kind"] == "main" and r["argset"] == argset]


def analyse(study, out_dir, rows, contrived):
    """Writes the per-figure CSVs, one function per figure or table, in this order;
    returns {name: (rows, columns)} for the report."""
    argset = study.argset
    study.refresh(out_dir)  # for out_of_memory (reads the runs' logs)
    mains = main_rows(rows, argset)
    workloads = [w.name for w in study.workloads]
    workloads += sorted({r["workload"] for r in mains} - set(workloads))

    def pick(ws, policy=None, collector=None, kind="main"):
        cands = [r for r in rows if r["kind"] == kind and r["argset"] == argset and r["workload"] == ws
                 and (policy is None or r["policy"] == policy) and (collector is None or r["collector"] == collector)
                 and r["exit_code"] == 0]
        return sorted(cands, key=lambda r: (r["repeat"], r["policy"], r["collector"]))

    a = Inputs(study, out_dir, rows, contrived, argset, mains, study.config["policies"], study.config["collectors"],
               workloads, pick, {})
    for write in (workloads_table, contrived_tables, speedup_table, satisfied_tables,
                  tradeoff_tables, alloc_share_table, timing_table, sizes_table,
                  pause_tables, minheap_tables):
        write(a)
    return a.tables


# What the figure functions read: the study, its rows at the study's argset, the main runs,
# the names in order, pick(workload, policy, collector, kind) (the successful runs of a
# configuration by repeat), and tables, which each function adds its tables to.
Inputs = collections.namedtuple("Inputs", "study out_dir rows contrived argset mains policies collectors workloads "
                                          "pick tables")


def workloads_table(a):
    """Figure 1: the workloads (workloads.csv)."""
    study, out_dir, rows, argset = a.study, a.out_dir, a.rows, a.argset
    workloads, pick, tables = a.workloads, a.pick, a.tables
    wl = []
    for name in workloads:
        w = study.by_name.get(name)
        ref = pick(name, "list", "occasional") or pick(name, None, "occasional") or pick(name)
        if not ref and not w:
            continue
        peak = 0
        for r in rows:
            # Not the pause runs: their time-paced cycles find a different peak run to run,
            # and the figure would move with the host.
            if r["workload"] == name and r["argset"] == argset and r["kind"] != "pauses":
                peak = max(peak, int(num(r, "gc.peak_live_bytes") or 0))
        objects = int(num(ref[0], "heap.allocations") or 0) if ref else None
        byts = int(num(ref[0], "heap.bytes_requested") or 0) if ref else None
        walls = [num(r, "vm.wall_s") for r in ref if r["policy"] == ref[0]["policy"]
                 and r["collector"] == ref[0]["collector"]] if ref else []
        wl.append({"workload": name, "args": " ".join(w.args(argset)) if w else "",
                   "stresses": w.stresses if w else "", "objects": objects, "bytes": byts,
                   "mean_object_bytes": (byts / objects) if objects else None,
                   "peak_live_bytes": peak or None, "heap_size": ref[0]["heap_size"] if ref else None,
                   "run_time_s": stats.median([x for x in walls if x is not None]),
                   "arena_s": mean_of(ref, "vm.arena_s", ref[0]) if ref else None,
                   "startup_s": mean_of(ref, "vm.startup_s", ref[0]) if ref else None,
                   "timed_on": f"{ref[0]['policy']}/{ref[0]['collector']}" if ref else ""})
    cols = ["workload", "args", "stresses", "objects", "bytes", "mean_object_bytes", "peak_live_bytes", "heap_size",
            "run_time_s", "arena_s", "startup_s", "timed_on"]
    write_csv(os.path.join(out_dir, "workloads.csv"), wl, cols)
    tables["workloads"] = (wl, cols)


def contrived_tables(a):
    """Figure 2: the contrived worst case (contrived.csv, contrived_summary.csv)."""
    out_dir, contrived, tables = a.out_dir, a.contrived, a.tables
    # Figure 2: the worst-case request against heap size. Each run repeats the request on
    # fresh heaps (its *_ns_samples); the summary pools them over the runs of a heap size
    # (runs without samples count with their median). steps: the policy's own count.
    policies2 = ("list", "knuth", "estranged", "tlsf")
    cols = (["run_id", "heap_size", "repeat", "exit_code", "n", "object_bytes", "request_bytes", "fill"] +
            [f"{p}_ns" for p in policies2] + [f"{p}_{k}" for p in policies2
                                              for k in ("steps", "ns_ci_low", "ns_ci_high", "ns_samples")])
    write_csv(os.path.join(out_dir, "contrived.csv"), contrived, cols)

    def samples_of(c, p):
        if c.get(f"{p}_ns_samples"):
            return [float(x) for x in str(c[f"{p}_ns_samples"]).split()]
        return [float(c[f"{p}_ns"])] if c.get(f"{p}_ns") not in (None, "") else []

    cs = []
    for heap in sorted({c["heap_size"] for c in contrived}):
        reps = [c for c in contrived if c["heap_size"] == heap and c["exit_code"] == 0 and c.get("list_ns")]
        if not reps:
            continue
        base = [x for c in reps for x in samples_of(c, "list")]
        for p in policies2:
            xs = [x for c in reps for x in samples_of(c, p)]
            q, lo, hi = stats.ratio_ci(base, xs)
            mean, ci_low, ci_high = stats.mean_ci(xs)
            steps = [int(c[f"{p}_steps"]) for c in reps if c.get(f"{p}_steps") not in (None, "")]
            cs.append({"heap_size": heap, "n_objects": reps[0]["n"], "policy": p, "repeats": len(reps),
                       "samples": len(xs), "median_ns": stats.median(xs), "mean_ns": mean,
                       "ci_low_ns": ci_low, "ci_high_ns": ci_high, "steps": max(steps) if steps else None,
                       "speedup_over_list": (stats.median(base) / stats.median(xs)) if xs and stats.median(xs) else None,
                       "speedup_ci_low": lo, "speedup_ci_high": hi})
    cols = ["heap_size", "n_objects", "policy", "repeats", "samples", "median_ns", "mean_ns", "ci_low_ns",
            "ci_high_ns", "steps", "speedup_over_list", "speedup_ci_low", "speedup_ci_high"]
    write_csv(os.path.join(out_dir, "contrived_summary.csv"), cs, cols)
    tables["contrived"] = (cs, cols)


def speedup_table(a):
    """Figure 3: speedup over list (speedup.csv)."""
    study, out_dir, rows, policies = a.study, a.out_dir, a.rows, a.policies
    collectors, workloads, tables = a.collectors, a.workloads, a.tables
    sp = speedup_rows(study, rows, workloads, policies, collectors)
    cols = ["workload", "collector", "policy", "heap_size", "runs", "list_runs", "speedup", "ci_low", "ci_high",
            "median_speedup", "gc_ms_policy", "gc_ms_list", "gc_cycles_policy", "gc_cycles_list", "log_ratio",
            "p_value", "p_holm", "holm_significant", "note", "gc_parameters", "commit"]
    write_csv(os.path.join(out_dir, "speedup.csv"), sp, cols)
    tables["speedup"] = (sp, cols)


def satisfied_tables(a):
    """Figure 4: how requests were satisfied (satisfied.csv, satisfied_means.csv)."""
    study, out_dir, mains, policies = a.study, a.out_dir, a.mains, a.policies
    collectors, workloads, tables = a.collectors, a.workloads, a.tables
    # Figure 4: how requests were satisfied (counts: repeat 0; checked identical across repeats).
    recycling = recycling_workloads(mains)
    sat = []
    for name in workloads:
        for col in collectors:
            for p in policies:
                rs = [r for r in mains if r["workload"] == name and r["policy"] == p and r["collector"] == col
                      and r["exit_code"] == 0]
                row = satisfied_row(rs, a.pick(name, p, col, kind="sources"))
                if row is None:
                    continue  # no run, or the policy does not say how it met requests (malloc)
                row.update({"workload": name, "collector": col, "policy": p, "heap_size": rs[0]["heap_size"],
                            "recycling": recycling.get((name, col), False), "gc_parameters": gc_parameters(rs[0]),
                            "commit": kind_commit(study.config, "main")})
                sat.append(row)
    cols = (["workload", "collector", "policy", "pacing", "heap_size", "runs", "requests"] + OUTCOMES +
            [f"{o}_pct" for o in OUTCOMES] + IMMEDIATE_SOURCES + [f"{s}_pct" for s in IMMEDIATE_SOURCES] +
            ["retried", "counts_identical", "sources_match", "recycling", "gc_parameters", "commit"])
    write_csv(os.path.join(out_dir, "satisfied.csv"), sat, cols)
    tables["satisfied"] = (sat, cols)
    means = satisfied_means(sat)
    cols = ["collector", "policy", "subset", "workloads", "requests"] + \
        [f"{o}_pct_{w}" for o in OUTCOMES + IMMEDIATE_SOURCES for w in ("weighted", "unweighted")] + \
        ["sources_workloads", "sources_left_out"]
    write_csv(os.path.join(out_dir, "satisfied_means.csv"), means, cols)
    tables["satisfied_means"] = (means, cols)


def tradeoff_tables(a):
    """Figures 7 and 10: the space-time trade-off (tradeoff.csv, tradeoff_summary.csv) and its
    comparisons with list (tradeoff_vs_list.csv)."""
    study, out_dir, rows, policies = a.study, a.out_dir, a.rows, a.policies
    collectors, workloads, tables = a.collectors, a.workloads, a.tables
    # Figure 7 (and Figure 10 against heap multiple): the trade-off at multiples of each
    # policy's own minimum heap.
    tr, trs = tradeoff_rows(study, rows, workloads, policies, collectors)
    tests = tradeoff_tests(study, rows, workloads, policies, collectors)
    for r in trs:  # each point's tests against list (tradeoff_vs_list.csv), significant after Holm
        r["tested"], r["faster"], r["slower"] = tradeoff_test_counts(tests, r["collector"], r["policy"], r["multiple"])
    write_csv(os.path.join(out_dir, "tradeoff_vs_list.csv"), tests, TRADEOFF_TEST_COLUMNS)
    tables["tradeoff_vs_list"] = (tests, TRADEOFF_TEST_COLUMNS)
    write_csv(os.path.join(out_dir, "tradeoff.csv"), tr, TRADEOFF_COLUMNS)
    tables["tradeoff"] = (tr, TRADEOFF_COLUMNS)
    write_csv(os.path.join(out_dir, "tradeoff_summary.csv"), trs, TRADEOFF_SUMMARY_COLUMNS)
    tables["tradeoff_summary"] = (trs, TRADEOFF_SUMMARY_COLUMNS)


def alloc_share_table(a):
    """The allocator's share of run time (alloc_share.csv)."""
    out_dir, rows, argset, policies = a.out_dir, a.rows, a.argset, a.policies
    collectors, workloads, tables = a.collectors, a.workloads, a.tables
    share = allocator_share(rows, argset, workloads, policies, collectors)
    cols = ["workload", "collector", "policy", "allocations", "frees", "alloc_ns_mean", "free_ns_mean", "wall_s",
            "share_pct", "source"]
    write_csv(os.path.join(out_dir, "alloc_share.csv"), share, cols)
    tables["alloc_share"] = (share, cols)


def timing_table(a):
    """The configurations off the timing target (no CSV; for the report)."""
    study, rows, argset, tables = a.study, a.rows, a.argset, a.tables
    tables["timing_target"] = timing_target(rows, argset, study.config)


def sizes_table(a):
    """Figure 5: request sizes (sizes.csv)."""
    out_dir, workloads, pick, tables = a.out_dir, a.workloads, a.pick, a.tables
    sizes = []
    for name in workloads:
        ref = []
        for p in ("estranged", "knuth", "kingsley", "list", "tlsf", "lea", "malloc"):
            ref = pick(name, p)
            if ref:
                break
        if not ref:
            ref = pick(name)
        if not ref:
            continue
        r = ref[0]
        hist = {}
        for k, v in r.items():
            if k.startswith("heap.size_histogram.") and v not in (None, ""):
                size = int(k.rsplit(".", 1)[1])
                cls = 16
                while cls < size:
                    cls *= 2
                hist[cls] = hist.get(cls, 0) + int(float(v))
        total = sum(hist.values())
        for cls in sorted(hist):
            sizes.append({"workload": name, "policy": r["policy"], "size_class": cls, "count": hist[cls],
                          "fraction": hist[cls] / total if total else None})
    cols = ["workload", "policy", "size_class", "count", "fraction"]
    write_csv(os.path.join(out_dir, "sizes.csv"), sizes, cols)
    tables["sizes"] = (sizes, cols)


def pause_tables(a):
    """Figure 6: pauses and MMU (pauses.csv, mmu.csv, pause_summary.csv), by wall time and,
    where the pause files have them (format 2), by the thread's CPU time too: the
    collector's own work without the time the host took away (the *_cpu columns; empty
    for a version-1 file)."""
    out_dir, rows, argset = a.out_dir, a.rows, a.argset
    collectors, workloads, tables = a.collectors, a.workloads, a.tables
    pauses, mmu = [], []
    runs = collections.defaultdict(list)  # (workload, collector): the pause runs read
    for r in rows:
        if r["kind"] != "pauses" or r["argset"] != argset or r["exit_code"] != 0:
            continue
        path = os.path.join(out_dir, "runs", "pauses", f"{r['run_id']}.pauses")
        if not os.path.exists(path):
            continue
        runs[(r["workload"], r["collector"])].append(r)
        pf = stats.read_pause_columns(path)
        identity = {"workload": r["workload"], "policy": r["policy"], "collector": r["collector"],
                    "pacing": r["pacing"], "repeat": r["repeat"]}
        kinds = pause_kinds(pf.work, num(r, "gc.slices"))
        for i, (b, d) in enumerate(pf.pauses):
            row = dict(identity, start_ms=b / 1e6, duration_ms=d / 1e6, kind=kinds[i] if kinds else None)
            if pf.cpu_pauses is not None and pf.work is not None:
                row.update(cpu_start_ms=pf.cpu_pauses[i][0] / 1e6, cpu_ms=pf.cpu_pauses[i][1] / 1e6,
                           work=pf.work[i])
            pauses.append(row)
        pl = stats.PauseList(pf.pauses, pf.run_ns)
        cpu_pl = stats.PauseList(pf.cpu_pauses, pf.run_cpu_ns) if pf.cpu_pauses is not None and pf.run_cpu_ns else None
        for wms in stats.MMU_WINDOWS_MS:
            mmu.append(dict(identity, window_ms=wms, mmu=pl.mmu(wms * 1e6),
                            mmu_cpu=cpu_pl.mmu(wms * 1e6) if cpu_pl else None, pauses=len(pf.pauses),
                            run_ms=pf.run_ns / 1e6, run_cpu_ms=pf.run_cpu_ns / 1e6 if pf.run_cpu_ns else None))
    write_csv(os.path.join(out_dir, "pauses.csv"), pauses,
              ["workload", "policy", "collector", "pacing", "repeat", "start_ms", "duration_ms", "cpu_start_ms",
               "cpu_ms", "work", "kind"])
    cols = ["workload", "policy", "collector", "pacing", "repeat", "window_ms", "mmu", "mmu_cpu", "pauses", "run_ms",
            "run_cpu_ms"]
    write_csv(os.path.join(out_dir, "mmu.csv"), mmu, cols)
    ps = []
    for name in workloads:
        for col in collectors:
            mine = [p for p in pauses if p["workload"] == name and p["collector"] == col]
            if not mine:
                continue
            mm = {m["window_ms"]: m for m in mmu if m["workload"] == name and m["collector"] == col
                  and m["repeat"] == 0}
            row = {"workload": name, "collector": col, "pauses": len(mine)}
            for suffix, key, mmu_key in (("", "duration_ms", "mmu"), ("_cpu", "cpu_ms", "mmu_cpu")):
                ds = sorted(p[key] for p in mine if p.get(key) is not None)
                if not ds:
                    continue
                q = lambda f: ds[min(len(ds) - 1, int(f * len(ds)))]  # noqa: E731
                row.update({f"total{suffix}_ms": sum(ds), f"p50{suffix}_ms": q(0.5), f"p99{suffix}_ms": q(0.99),
                            f"max{suffix}_ms": ds[-1]})
                for w in (1, 10, 100):
                    row[f"{mmu_key}_{w}ms"] = mm[w][mmu_key] if w in mm else None
            row.update(slice_summary(mine, runs[(name, col)]))
            ps.append(row)
    cols = ["workload", "collector", "pauses", "total_ms", "p50_ms", "p99_ms", "max_ms", "mmu_1ms", "mmu_10ms",
            "mmu_100ms", "total_cpu_ms", "p50_cpu_ms", "p99_cpu_ms", "max_cpu_ms", "mmu_cpu_1ms", "mmu_cpu_10ms",
            "mmu_cpu_100ms", "slices", "max_slice_ms", "max_slice_cpu_ms", "max_slice_work", "slices_over_100us_cpu",
            "full_pauses",
            "host_gap_max_ms", "long_by_host"]
    write_csv(os.path.join(out_dir, "pause_summary.csv"), ps, cols)
    tables["pauses"] = (ps, cols)
    tables["pause_list"] = (pauses, ["workload", "collector", "duration_ms", "cpu_ms", "work", "kind"])


SLICE_TARGET_MS = 0.1  # the continuous collector's slice target: 100 µs of CPU time


def pause_kinds(work, slices):
    """Each pause of a run as "slice" (a continuous collector's bounded step) or "full" (a
    whole collection, or the rest of a cycle finished at once), or None without the work
    column. The pause file does not say which; the run's statistics count its slices
    (gc.slices; none for the occasional collector), and a full pause does a whole cycle's
    work, so the pauses that are not slices are those of the most work."""
    if work is None:
        return None
    full = len(work) - int(slices or 0)
    if full < 0:
        return None  # more slices counted than pauses recorded: not this run's file
    order = sorted(range(len(work)), key=lambda i: (-work[i], i))
    kinds = ["slice"] * len(work)
    for i in order[:full]:
        kinds[i] = "full"
    return kinds


def slice_summary(pauses, runs):
    """pause_summary.csv's slice columns from the pauses of a workload and collector: how
    many were slices, the longest by each clock, the most work of one and how many passed
    100 µs of CPU time (the slice target), how many were full ones; and from its runs'
    statistics, the host beside them: the most wall time it took from one pause
    (host_gap.max_ms) and the pauses over 100 µs by wall time but not by CPU time
    (host_gap.pauses_long_by_host, summed over the runs)."""
    slices = [p for p in pauses if p.get("kind") == "slice"]
    gaps = [g for g in (num(r, "gc.host_gap.max_ms") for r in runs) if g is not None]
    long = [n for n in (num(r, "gc.host_gap.pauses_long_by_host") for r in runs) if n is not None]
    known = any(p.get("kind") for p in pauses)
    return {"slices": len(slices) if known else None,
            "max_slice_ms": max((p["duration_ms"] for p in slices), default=None),
            "max_slice_cpu_ms": max((p["cpu_ms"] for p in slices if p.get("cpu_ms") is not None), default=None),
            "max_slice_work": max((p["work"] for p in slices if p.get("work") is not None), default=None),
            "slices_over_100us_cpu": sum(1 for p in slices if (p.get("cpu_ms") or 0) > SLICE_TARGET_MS) if known else None,
            "full_pauses": sum(p.get("kind") == "full" for p in pauses) if known else None,
            "host_gap_max_ms": max(gaps) if gaps else None, "long_by_host": int(sum(long)) if long else None}


def minheap_tables(a):
    """Figures 8 and 9: minimum heap and fragmentation (minheap.csv, fragmentation.csv)."""
    study, out_dir, pick, tables = a.study, a.out_dir, a.pick, a.tables
    wl = tables["workloads"][0]
    study.refresh(out_dir)
    mh, frag = [], []
    for w in study.workloads:
        peak = next((x["peak_live_bytes"] for x in wl if x["workload"] == w.name), None)
        for p in study.minheap_policies():
            status, low, high, _ = study.minheap_state(w, p)
            probes = len(study.probes.get((w.name, p, study.config["minheap_collector"]), {}))
            mh.append({"workload": w.name, "policy": p, "collector": study.config["minheap_collector"],
                       "status": status, "min_heap_bytes": high if status == "found" else None,
                       "too_small_bytes": low if status == "found" else None, "probes": probes,
                       "peak_live_bytes": peak,
                       "min_heap_over_live": (high / peak) if status == "found" and peak else None})
            if status == "found" and peak:
                ref = pick(w.name, p, "occasional") or pick(w.name, p)
                internal = None
                if ref:
                    req = num(ref[0], "heap.bytes_requested")
                    internal = 100.0 * (num(ref[0], "heap.fragmentation.internal_bytes") or 0) / req if req else None
                frag.append({"workload": w.name, "policy": p, "min_heap_bytes": high, "peak_live_bytes": peak,
                             "fragmentation": high / peak, "fragmentation_pct": 100.0 * (high / peak - 1),
                             "internal_pct": internal})
    cols = ["workload", "policy", "collector", "status", "min_heap_bytes", "too_small_bytes", "probes",
            "peak_live_bytes", "min_heap_over_live"]
    write_csv(os.path.join(out_dir, "minheap.csv"), mh, cols)
    tables["minheap"] = (mh, cols)
    cols = ["workload", "policy", "min_heap_bytes", "peak_live_bytes", "fragmentation", "fragmentation_pct",
            "internal_pct"]
    write_csv(os.path.join(out_dir, "fragmentation.csv"), frag, cols)
    tables["fragmentation"] = (frag, cols)


# --- speedups with their GC time and a corrected test, how
# requests were met (retries apart), the trade-off at each policy's own minimum heap ------

OUTCOMES = ["immediate", "split", "glue", "defrag"]  # a successful request is met one of these ways
IMMEDIATE_SOURCES = ["recycled", "leftover"]  # an immediate request's block: a free's, or a split's leftover


def mean_of(runs, key, like=None):
    """Mean of a column over runs (those of like's configuration when like is given)."""
    xs = [num(r, key) for r in runs if like is None or (r["policy"], r["collector"]) == (like["policy"],
                                                                                         like["collector"])]
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def first_ok(runs):
    return next(r for r in runs if r["exit_code"] == 0)


def int_or_none(x):
    return None if x is None else int(x)


def gc_parameters(row):
    """The collector's parameters of a run ('pacing=work start_occupancy=0.5 ...'), from the
    JSON's gc.parameters block; empty when the kith that ran it did not report them."""
    items = sorted((k[len("gc.parameters."):], v) for k, v in row.items()
                   if k.startswith("gc.parameters.") and v not in (None, ""))
    return " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in items)


def config_runs(rows, argset, kind, workload, policy, collector, multiple=None):
    return sorted((r for r in rows if r["kind"] == kind and r["argset"] == argset and r["workload"] == workload
                   and r["policy"] == policy and r["collector"] == collector
                   and (multiple is None or r["multiple"] == multiple)), key=lambda r: r["repeat"])


def run_status(study, runs):
    """(status, why) of a configuration's runs: ok (every run exited 0), out_of_memory or
    failed (from its first failed run), not_run (none)."""
    if not runs:
        return "not_run", "not run"
    bad = [r for r in runs if r["exit_code"] != 0]
    if not bad:
        return "ok", ""
    r = bad[0]
    run = Run.parse(r["run_id"])
    if run and study.out_of_memory(run):
        return "out_of_memory", f"out of memory at {r['heap_size']} bytes"
    return "failed", f"exit {r['exit_code']} at {r['heap_size']} bytes"


def ok_walls(runs):
    xs = [num(r, "vm.wall_s") for r in runs if r["exit_code"] == 0]
    return [x for x in xs if x is not None]


def speedup_rows(study, rows, workloads, policies, collectors):
    """speedup.csv: per workload x collector x policy at the common heap, list's mean wall
    time over the policy's (Fieller interval), with both GC times and cycle counts beside
    it; log_ratio and p_value from Welch's t test on the log wall times; Holm-Bonferroni
    over every test of a policy against list. A configuration that could not run (list,
    or the policy) keeps its row, with an empty speedup and a note saying why."""
    argset = study.argset
    sp = []
    for name in workloads:
        for col in collectors:
            base_runs = config_runs(rows, argset, "main", name, "list", col)
            base = ok_walls(base_runs)
            for p in policies:
                runs = config_runs(rows, argset, "main", name, p, col)
                if not runs and not base_runs:
                    continue
                xs = ok_walls(runs)
                row = {"workload": name, "collector": col, "policy": p,
                       "heap_size": (runs or base_runs)[0]["heap_size"], "runs": len(xs), "list_runs": len(base),
                       "gc_ms_policy": mean_of([r for r in runs if r["exit_code"] == 0], "gc.pause_ms.total"),
                       "gc_ms_list": mean_of([r for r in base_runs if r["exit_code"] == 0], "gc.pause_ms.total"),
                       "gc_cycles_policy": int_or_none(num(first_ok(runs), "gc.cycles")) if xs else None,
                       "gc_cycles_list": int_or_none(num(first_ok(base_runs), "gc.cycles")) if base else None,
                       "gc_parameters": gc_parameters(runs[0]) if runs else "",
                       "note": comparison_note(study, p, runs, base_runs),
                       "commit": kind_commit(study.config, "main")}
                if base and xs:
                    row.update(against_list(base, xs, tested=p != "list"))
                sp.append(row)
    holm_columns(sp)
    return sp


def comparison_note(study, policy, runs, base_runs):
    """Why a comparison with list lacks runs: list's, or the policy's, that did not run or failed."""
    notes = []
    sides = [("list", base_runs, "list runs")] + ([(policy, runs, "runs")] if policy != "list" else [])
    for name, rs, failed in sides:
        status, why = run_status(study, rs)
        n = len(ok_walls(rs))
        if not n:
            notes.append(f"{name} did not run: {why}")
        elif status != "ok":
            notes.append(f"{len(rs) - n} of {len(rs)} {failed} failed: {why}")
    return "; ".join(notes)


def against_list(base, xs, tested=True):
    """A policy's wall times `xs` against list's `base`: list's mean over the policy's (the
    speedup) with its Fieller interval, the ratio of medians, and (when tested) Welch's t
    test on the log times: log_ratio and p_value."""
    q, lo, hi = stats.ratio_ci(base, xs)
    row = {"speedup": q, "ci_low": lo, "ci_high": hi, "median_speedup": stats.median(base) / stats.median(xs)}
    if tested:
        row["log_ratio"], row["p_value"] = stats.welch_log_test(base, xs)
    return row


def holm_columns(rows):
    """p_holm and holm_significant of every row with a p_value: Holm-Bonferroni over the
    rows, one family."""
    significant, adjusted = stats.holm_bonferroni([r.get("p_value") for r in rows])
    for r, sig, adj in zip(rows, significant, adjusted):
        r["p_holm"] = adj
        r["holm_significant"] = sig if r.get("p_value") is not None else None


# A workload recycles memory under a collector when its frees are at least this fraction of
# its requests: perimeter frees 1 object in 224,176 and em3d 7 in 8,090, so nearly every
# request they make is met by a block no free returned, and their "immediate" is the split
# floor alone (the report states the rule).
RECYCLING_MIN_FREES = 0.01


def recycling_workloads(mains):
    """{(workload, collector): recycles?} from the data: a workload recycles memory under a
    collector when a run of it there freed at least RECYCLING_MIN_FREES of its requests
    (heap.frees against heap.allocations) in collections that freed memory (gc.cycles > 0
    and gc.bytes_freed > 0)."""
    out = {}
    for r in mains:
        if r["exit_code"] != 0:
            continue
        key = (r["workload"], r["collector"])
        frees, requests = num(r, "heap.frees") or 0, num(r, "heap.allocations") or 0
        recycles = (frees > 0 and frees >= RECYCLING_MIN_FREES * requests and (num(r, "gc.cycles") or 0) > 0
                    and (num(r, "gc.bytes_freed") or 0) > 0)
        out[key] = out.get(key, False) or recycles
    return out


def satisfied_row(runs, sources=()):
    """How the requests of a configuration's runs were met (counts from its first repeat),
    or None when there is no successful run or the policy does not say. The percentages'
    denominator is the successful requests (immediate + split + glue + defrag): a request
    that fails (heap.satisfied.failed) is collected for and retried, so it would count
    twice; those are the `retried` column, outside the percentages. The immediate ones'
    split into recycled and leftover comes from the configuration's sources run (the main
    runs leave it out to count cheaply), kept only when its counts are the main runs'
    (`sources_match`)."""
    runs = sorted((r for r in runs if r["exit_code"] == 0), key=lambda r: r["repeat"])
    if not runs:
        return None
    first = runs[0]
    counts = {o: int(num(first, f"heap.satisfied.{o}") or 0) for o in OUTCOMES}
    total = sum(counts.values())
    if total == 0:
        return None
    keys = [f"heap.satisfied.{o}" for o in OUTCOMES + ["failed"]] + \
        [f"heap.immediate_source.{s}" for s in IMMEDIATE_SOURCES] + ["heap.allocations", "heap.frees", "gc.cycles",
                                                                     "heap.peak_bytes_in_use"]
    row = {"pacing": first["pacing"], "runs": len(runs), "requests": total,
           "retried": int(num(first, "heap.satisfied.failed") or 0),
           "counts_identical": all(all(num(r, k) == num(first, k) for k in keys) for r in runs)}
    for o in OUTCOMES:
        row[o] = counts[o]
        row[f"{o}_pct"] = 100.0 * counts[o] / total
    # Immediate split by where the block came from (a free, or a split's leftover: the
    # floor); None where the policy does not track it (heap.immediate_source is null), or
    # no sources run matched the main runs' counts.
    src = next(iter(sources), None)
    row["sources_match"] = (all(num(src, k) == num(first, k) for k in keys if not k.startswith("heap.immediate_source"))
                            if src is not None else None)
    for source in IMMEDIATE_SOURCES:
        v = num(src, f"heap.immediate_source.{source}") if row["sources_match"] else None
        row[source] = int(v) if v is not None else None
        row[f"{source}_pct"] = 100.0 * v / total if v is not None else None
    return row


def satisfied_means(sat):
    """Per collector x policy, over all workloads and over the recycling ones: the
    request-weighted mean of each outcome's share (every request counts once) and the
    per-workload mean (every workload counts once). The recycled/leftover split is over the
    workloads that have it (their sources run counted what their main runs counted):
    `sources_workloads` says how many, `sources_left_out` names the others; empty where the
    policy does not say where its blocks came from."""
    out = []
    keys = []
    for r in sat:
        if (r["collector"], r["policy"]) not in keys:
            keys.append((r["collector"], r["policy"]))
    for col, p in keys:
        for subset in ("all", "recycling"):
            rs = [r for r in sat if r["collector"] == col and r["policy"] == p and (subset == "all" or r["recycling"])]
            if not rs:
                continue
            total = sum(r["requests"] for r in rs)
            row = {"collector": col, "policy": p, "subset": subset, "workloads": len(rs), "requests": total}
            for o in OUTCOMES:
                row[f"{o}_pct_weighted"] = 100.0 * sum(r[o] for r in rs) / total if total else None
                row[f"{o}_pct_unweighted"] = sum(r[f"{o}_pct"] for r in rs) / len(rs)
            row.update(sources_means(rs))
            out.append(row)
    return out


def sources_means(rs):
    """The recycled/leftover means of satisfied_means over the rows whose sources run
    matched their main runs; none where the policy does not track it (a matched sources
    run without the split) or no row has it."""
    untracked = any(r.get("sources_match") and r.get(IMMEDIATE_SOURCES[0]) is None for r in rs)
    known = [] if untracked else [r for r in rs if r.get(IMMEDIATE_SOURCES[0]) is not None]
    total = sum(r["requests"] for r in known)
    row = {"sources_workloads": len(known),
           "sources_left_out": " ".join(r["workload"] for r in rs if r not in known) if known else ""}
    for o in IMMEDIATE_SOURCES:
        row[f"{o}_pct_weighted"] = 100.0 * sum(r[o] for r in known) / total if total else None
        row[f"{o}_pct_unweighted"] = sum(r[f"{o}_pct"] for r in known) / len(known) if known else None
    return row


TRADEOFF_COLUMNS = ["workload", "policy", "collector", "multiple", "heap_size", "runs", "status", "wall_s_mean",
                    "wall_s_ci_low", "wall_s_ci_high", "gc_ms_mean", "gc_cycles", "relative_time", "speedup_vs_list",
                    "immediate_pct", "split_pct", "glue_pct", "defrag_pct", "retried", "note", "gc_parameters",
                    "commit"]
TRADEOFF_SUMMARY_COLUMNS = ["collector", "policy", "multiple", "workloads", "geomean_relative_time", "ci_low", "ci_high",
                            "geomean_speedup_vs_list", "speedup_ci_low", "speedup_ci_high", "tested", "faster",
                            "slower"]


def tradeoff_rows(study, rows, workloads, policies, collectors):
    """tradeoff.csv (one row per workload x policy x collector x multiple of the policy's
    own minimum heap) and tradeoff_summary.csv (per collector x policy x multiple: the
    geometric mean over workloads of the time relative to the workload's best, with the
    t interval of the mean log, and of the speedup over list at the same multiple)."""
    argset = study.argset
    out = []
    for name in workloads:
        for col in collectors:
            group = []
            for m in study.config["multiples"]:
                for p in policies:
                    runs = config_runs(rows, argset, "tradeoff", name, p, col, multiple=m)
                    if not runs:
                        continue
                    status, why = run_status(study, runs)
                    ok = [r for r in runs if r["exit_code"] == 0]
                    mean, lo, hi = stats.mean_ci(ok_walls(runs))
                    row = {"workload": name, "policy": p, "collector": col, "multiple": f"{float(m):g}",
                           "heap_size": runs[0]["heap_size"], "runs": len(runs), "status": status,
                           "wall_s_mean": mean, "wall_s_ci_low": lo, "wall_s_ci_high": hi,
                           "gc_ms_mean": mean_of(ok, "gc.pause_ms.total"),
                           "gc_cycles": int_or_none(num(ok[0], "gc.cycles")) if ok else None,
                           "note": why if status != "ok" else "", "gc_parameters": gc_parameters(runs[0]),
                           "commit": kind_commit(study.config, "tradeoff")}
                    sat = satisfied_row(ok)
                    if sat:
                        row.update({f"{o}_pct": sat[f"{o}_pct"] for o in OUTCOMES})
                        row["retried"] = sat["retried"]
                    group.append(row)
            best = min((r["wall_s_mean"] for r in group if r["wall_s_mean"]), default=None)
            for r in group:
                if best and r["wall_s_mean"]:
                    r["relative_time"] = r["wall_s_mean"] / best
                base = next((b for b in group if b["policy"] == "list" and b["multiple"] == r["multiple"]), None)
                if base and base["wall_s_mean"] and r["wall_s_mean"]:
                    r["speedup_vs_list"] = base["wall_s_mean"] / r["wall_s_mean"]
                elif base is not None and r["policy"] != "list" and not base["wall_s_mean"]:
                    r["note"] = "; ".join(x for x in (r["note"], f"list did not run: {base['note']}") if x)
            out += group
    summary = []
    for col in collectors:
        for p in policies:
            for m in study.config["multiples"]:
                rs = [r for r in out if r["collector"] == col and r["policy"] == p
                      and r["multiple"] == f"{float(m):g}" and r.get("relative_time")]
                if not rs:
                    continue
                g, lo, hi = stats.geomean_ci([r["relative_time"] for r in rs])
                sg, slo, shi = stats.geomean_ci([r["speedup_vs_list"] for r in rs if r.get("speedup_vs_list")])
                summary.append({"collector": col, "policy": p, "multiple": f"{float(m):g}", "workloads": len(rs),
                                "geomean_relative_time": g, "ci_low": lo, "ci_high": hi,
                                "geomean_speedup_vs_list": sg, "speedup_ci_low": slo, "speedup_ci_high": shi})
    return out, summary


TRADEOFF_TEST_COLUMNS = ["workload", "collector", "multiple", "policy", "heap_size", "list_heap_size", "runs",
                         "list_runs", "speedup", "ci_low", "ci_high", "median_speedup", "log_ratio", "p_value",
                         "p_holm", "holm_significant", "note", "commit"]


def tradeoff_tests(study, rows, workloads, policies, collectors):
    """tradeoff_vs_list.csv: each policy against list at the same multiple of each one's own
    minimum heap, per workload and collector, as speedup.csv compares them at the common
    heap: list's mean wall time over the policy's (Fieller interval), Welch's t test on the
    log times, and Holm-Bonferroni over every such test of the trade-off (a family of its
    own; speedup.csv's is the main runs'). A comparison that cannot be made keeps its row,
    with a note saying why."""
    argset = study.argset
    out = []
    for name in workloads:
        for col in collectors:
            for m in study.config["multiples"]:
                base_runs = config_runs(rows, argset, "tradeoff", name, "list", col, multiple=m)
                base = ok_walls(base_runs)
                for p in policies:
                    runs = config_runs(rows, argset, "tradeoff", name, p, col, multiple=m)
                    if p == "list" or not (runs or base_runs):
                        continue
                    xs = ok_walls(runs)
                    row = {"workload": name, "collector": col, "multiple": f"{float(m):g}", "policy": p,
                           "heap_size": runs[0]["heap_size"] if runs else None,
                           "list_heap_size": base_runs[0]["heap_size"] if base_runs else None,
                           "runs": len(xs), "list_runs": len(base),
                           "note": comparison_note(study, p, runs, base_runs),
                           "commit": kind_commit(study.config, "tradeoff")}
                    if base and xs:
                        row.update(against_list(base, xs))
                    out.append(row)
    holm_columns(out)
    return out


def tradeoff_test_counts(tests, collector, policy, multiple):
    """(tested, significantly faster than list, significantly slower) among the trade-off
    tests of a policy at a multiple under a collector."""
    mine = [t for t in tests if t["collector"] == collector and t["policy"] == policy and t["multiple"] == multiple
            and t.get("p_value") is not None]
    faster = sum(1 for t in mine if t["holm_significant"] and t["log_ratio"] > 0)
    slower = sum(1 for t in mine if t["holm_significant"] and t["log_ratio"] < 0)
    return len(mine), faster, slower


def allocator_share(rows, argset, workloads, policies, collectors):
    """The allocator's share of run time, from means: (alloc_ns.mean x allocations +
    free_ns.mean x frees) / wall_s of the instrumented `trace` run of each configuration
    (the only runs that time every malloc and free); source n/a without one."""
    out = []
    for name in workloads:
        for col in collectors:
            for p in policies:
                mains = config_runs(rows, argset, "main", name, p, col)
                traced = [r for r in config_runs(rows, argset, "trace", name, p, col) if r["exit_code"] == 0]
                if not mains and not traced:
                    continue
                row = {"workload": name, "collector": col, "policy": p, "source": "n/a"}
                if traced:
                    t = traced[0]
                    a, f = num(t, "heap.allocations"), num(t, "heap.frees")
                    an, fn, wall = num(t, "heap.alloc_ns.mean"), num(t, "heap.free_ns.mean"), num(t, "vm.wall_s")
                    row.update({"allocations": a, "frees": f, "alloc_ns_mean": an, "free_ns_mean": fn,
                                "wall_s": wall, "source": t["run_id"], "share_pct": stats.allocator_share_pct(t)})
                out.append(row)
    return out


TIMING_TARGET_COLUMNS = ["kind", "workload", "policy", "collector", "heap_size", "multiple", "runs",
                         "half_width_pct"]


def timing_target(rows, argset, config):
    """Every timed configuration (main, tradeoff) whose 95% interval of the mean wall time
    is wider than +-target_ci of the mean after its repeats (or has one run, so no
    interval): ([rows], columns)."""
    target = 100.0 * config.get("target_ci", 0.03)
    groups = {}
    for r in rows:
        if r["kind"] in ("main", "tradeoff") and r["argset"] == argset:
            key = (r["kind"], r["workload"], r["policy"], r["collector"], r["heap_size"], r["multiple"])
            groups.setdefault(key, []).append(r)
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        ws = ok_walls(rs)
        if not ws:
            continue
        half = stats.relative_half_width(ws)
        if half is None or 100.0 * half > target:
            out.append(dict(zip(TIMING_TARGET_COLUMNS, key + (len(ws), None if half is None else 100.0 * half))))
    return out, TIMING_TARGET_COLUMNS


def write_results(study, out_dir, verdict=None):
    """Writes every table; returns {name: (rows, columns)}, and "refused": {run id: why}
    (refused_runs). verdict: the builds behind the runs (builds.Verdict), for builds.csv."""
    refused = refused_runs(out_dir, run_files(out_dir))
    rows, contrived = collect_rows(study, out_dir, refused)
    stat_cols = set()
    for r in rows:
        stat_cols.update(k for k in r if k not in META_COLUMNS)
    cols = META_COLUMNS + stats.column_order(stat_cols)
    write_csv(os.path.join(out_dir, "results.csv"), rows, cols)
    with open(os.path.join(out_dir, "results.json.tmp"), "w") as f:
        json.dump(rows, f, indent=0)
    os.replace(os.path.join(out_dir, "results.json.tmp"), os.path.join(out_dir, "results.json"))
    summary, scols = summarize(rows, study.argset)
    write_csv(os.path.join(out_dir, "summary.csv"), summary, scols)
    tables = analyse(study, out_dir, rows, contrived)
    tables["summary"] = (summary, scols)
    tables["results"] = (rows, cols)
    write_csv(os.path.join(out_dir, "timing_target.csv"), *tables["timing_target"])
    tables.update(demographics.write_demographics(study, out_dir, rows))  # lifetimes, alloc rate, fragmentation
    tables.update(size_class_free.write_tables(out_dir))  # free bytes in the requested class, from the CSVs above
    tables.update(alloc_cost.write_tables(study, out_dir))  # alloc_cost.csv, replay_time.csv
    tables.update(whole_run.write_tables(out_dir, rows, study.argset))  # whole_run.csv (opt-in kind)
    tables.update(predicted.write_tables(out_dir))  # predicted.csv: the exact costs' prediction against the times
    tables.update(power.write_tables(study, out_dir, rows))  # power.csv: longer runs until resolved (opt-in kind)
    tables.update(steps.write_tables(out_dir, rows))  # steps.csv: steps per request against the bounds
    tables.update(builds.write_tables(out_dir, verdict))  # runs.csv (every run, by kind), builds.csv
    tables["refused"] = refused
    return tables


CONTINUOUS_HEADROOM = 2  # see split_out_of_memory


def split_out_of_memory(failed, minheap_rows, ran_out_of_memory):
    """Splits failed runs into real failures and runs that did not fit: out of memory
    (ran_out_of_memory(row), e.g. Study.out_of_memory on the run's log: exit 70 alone is
    any uncaught error) on a heap smaller than the minimum heap measured for that
    workload and policy. The main heap is 2x the smallest minimum over the policies, so
    a policy that needs more (kingsley, which never coalesces) cannot run there; that
    is a result (the minimum-heap figure shows it), not a failure of the study.
    The minimum is measured with one collector (occasional by default); a continuous
    run is held to CONTINUOUS_HEADROOM times it when its own was not measured:
    incremental collection keeps a cycle's floating garbage (snapshot at the
    beginning) and spreads the cycle over the free space, so it needs room the
    stop-the-world minimum does not have.
    Returns ([(run_id, exit)], [(run_id, heap, policy minimum)])."""
    minimum = {}
    for m in minheap_rows:
        if m.get("status") == "found" and m.get("min_heap_bytes"):
            key = (m["workload"], m["policy"], m.get("collector"))
            minimum[key] = max(minimum.get(key, 0), int(float(m["min_heap_bytes"])))
    failures, did_not_fit = [], []
    for r in failed:
        need = minimum.get((r["workload"], r["policy"], r.get("collector")))
        if need is None:
            measured = [v for (w, p, _), v in minimum.items() if w == r["workload"] and p == r["policy"]]
            if measured:
                need = max(measured) * (CONTINUOUS_HEADROOM if r.get("collector") == "continuous" else 1)
        heap = int(float(r["heap_size"])) if r.get("heap_size") not in (None, "") else None
        if need and heap and heap < need and ran_out_of_memory(r):
            did_not_fit.append((r["run_id"], heap, need))
        else:
            failures.append((r["run_id"], r["exit_code"]))
    return failures, did_not_fit

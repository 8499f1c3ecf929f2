"""From the run files to the CSVs: results.csv/json (one row per run, every statistic of
the JSON flattened), summary.csv (median, mean and 95% interval per configuration) and one
CSV per figure. The figures (plot_study.py) and report.md (report.py) read only these."""

import json
import os

import stats
from plan import Run, load_stats, run_files
from common import write_csv

META_COLUMNS = ["run_id", "kind", "workload", "argset", "args", "policy", "collector", "pacing", "heap_size",
                "multiple", "repeat", "exit_code"]


def collect_rows(study, out_dir):
    rows, contrived = [], []
    done = run_files(out_dir)
    for run_id in sorted(done):
        r = Run.parse(run_id)
        if not r:
            continue
        rc = done[run_id]
        if r.kind == "contrived":
            s = load_stats(out_dir, r) or {}
            contrived.append({"run_id": run_id, "heap_size": r.heap, "repeat": r.repeat, "exit_code": rc,
                              "n": s.get("n"), "object_bytes": s.get("object_bytes"),
                              "request_bytes": s.get("request_bytes"),
                              **{f"{p}_ns": s.get(f"{p}_ns") for p in ("list", "knuth", "estranged", "tlsf")}})
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


def num(row, key):
    v = row.get(key)
    if v is None or v == "":
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


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
    """Writes the per-figure CSVs; returns {name: (rows, columns)} for the report."""
    argset = study.argset
    tables = {}
    mains = main_rows(rows, argset)
    policies = study.config["policies"]
    collectors = study.config["collectors"]
    workloads = [w.name for w in study.workloads]
    names_seen = sorted({r["workload"] for r in mains} - set(workloads))
    workloads += names_seen

    def pick(ws, policy=None, collector=None, kind="main"):
        cands = [r for r in rows if r["kind"] == kind and r["argset"] == argset and r["workload"] == ws
                 and (policy is None or r["policy"] == policy) and (collector is None or r["collector"] == collector)
                 and r["exit_code"] == 0]
        return sorted(cands, key=lambda r: (r["repeat"], r["policy"], r["collector"]))

    # Figure 1: the workloads.
    wl = []
    for name in workloads:
        w = study.by_name.get(name)
        ref = pick(name, "list", "occasional") or pick(name, None, "occasional") or pick(name)
        if not ref and not w:
            continue
        peak = 0
        for r in rows:
            if r["workload"] == name and r["argset"] == argset:
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
                   "timed_on": f"{ref[0]['policy']}/{ref[0]['collector']}" if ref else ""})
    cols = ["workload", "args", "stresses", "objects", "bytes", "mean_object_bytes", "peak_live_bytes", "heap_size",
            "run_time_s", "timed_on"]
    write_csv(os.path.join(out_dir, "workloads.csv"), wl, cols)
    tables["workloads"] = (wl, cols)

    # Figure 2: the worst-case request against heap size.
    cols = ["run_id", "heap_size", "repeat", "exit_code", "n", "object_bytes", "request_bytes", "list_ns", "knuth_ns",
            "estranged_ns", "tlsf_ns"]
    write_csv(os.path.join(out_dir, "contrived.csv"), contrived, cols)
    cs = []
    for heap in sorted({c["heap_size"] for c in contrived}):
        reps = [c for c in contrived if c["heap_size"] == heap and c["exit_code"] == 0 and c.get("list_ns")]
        if not reps:
            continue
        base = [float(c["list_ns"]) for c in reps]
        for p in ("list", "knuth", "estranged", "tlsf"):
            xs = [float(c[f"{p}_ns"]) for c in reps if c.get(f"{p}_ns")]
            q, lo, hi = stats.ratio_ci(base, xs)
            cs.append({"heap_size": heap, "n_objects": reps[0]["n"], "policy": p, "repeats": len(xs),
                       "median_ns": stats.median(xs), "mean_ns": sum(xs) / len(xs) if xs else None,
                       "speedup_over_list": (stats.median(base) / stats.median(xs)) if xs and stats.median(xs) else None,
                       "speedup_ci_low": lo, "speedup_ci_high": hi})
    cols = ["heap_size", "n_objects", "policy", "repeats", "median_ns", "mean_ns", "speedup_over_list",
            "speedup_ci_low", "speedup_ci_high"]
    write_csv(os.path.join(out_dir, "contrived_summary.csv"), cs, cols)
    tables["contrived"] = (cs, cols)

    # Figure 3: speedup over list.
    sp = []
    for name in workloads:
        for col in collectors:
            base = [num(r, "vm.wall_s") for r in pick(name, "list", col)]
            base = [x for x in base if x is not None]
            if not base:
                continue
            for p in policies:
                xs = [num(r, "vm.wall_s") for r in pick(name, p, col)]
                xs = [x for x in xs if x is not None]
                if not xs:
                    continue
                q, lo, hi = stats.ratio_ci(base, xs)
                sp.append({"workload": name, "collector": col, "policy": p, "runs": len(xs), "list_runs": len(base),
                           "speedup": q, "ci_low": lo, "ci_high": hi,
                           "median_speedup": stats.median(base) / stats.median(xs)})
    cols = ["workload", "collector", "policy", "runs", "list_runs", "speedup", "ci_low", "ci_high", "median_speedup"]
    write_csv(os.path.join(out_dir, "speedup.csv"), sp, cols)
    tables["speedup"] = (sp, cols)

    # Figure 4: how requests were satisfied (counts: repeat 0; checked identical across repeats).
    sat = []
    outcomes = ["immediate", "split", "glue", "defrag", "failed"]
    count_keys = [f"heap.satisfied.{o}" for o in outcomes] + ["heap.allocations", "heap.frees", "gc.cycles",
                                                             "heap.peak_bytes_in_use"]
    for name in workloads:
        for col in collectors:
            for p in policies:
                rs = [r for r in mains if r["workload"] == name and r["policy"] == p and r["collector"] == col
                      and r["exit_code"] == 0]
                if not rs:
                    continue
                rs.sort(key=lambda r: r["repeat"])
                first = rs[0]
                total = sum(int(num(first, f"heap.satisfied.{o}") or 0) for o in outcomes)
                if total == 0:
                    continue  # the policy does not say how it met requests (malloc)
                row = {"workload": name, "collector": col, "policy": p, "pacing": first["pacing"], "runs": len(rs),
                       "requests": total,
                       "counts_identical": all(all(num(r, k) == num(first, k) for k in count_keys) for r in rs)}
                for o in outcomes:
                    n = int(num(first, f"heap.satisfied.{o}") or 0)
                    row[o] = n
                    row[f"{o}_pct"] = 100.0 * n / total if total else None
                sat.append(row)
    cols = (["workload", "collector", "policy", "pacing", "runs", "requests"] + outcomes +
            [f"{o}_pct" for o in outcomes] + ["counts_identical"])
    write_csv(os.path.join(out_dir, "satisfied.csv"), sat, cols)
    tables["satisfied"] = (sat, cols)

    # Figure 5: request sizes (block sizes of a buddy policy = requests by power-of-two class).
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

    # Figure 6: pauses and MMU.
    pauses, mmu = [], []
    for r in rows:
        if r["kind"] != "pauses" or r["argset"] != argset or r["exit_code"] != 0:
            continue
        path = os.path.join(out_dir, "runs", "pauses", f"{r['run_id']}.pauses")
        if not os.path.exists(path):
            continue
        _, run_ns, plist = stats.read_pause_file(path)
        for b, d in plist:
            pauses.append({"workload": r["workload"], "policy": r["policy"], "collector": r["collector"],
                           "pacing": r["pacing"], "repeat": r["repeat"], "start_ms": b / 1e6, "duration_ms": d / 1e6})
        pl = stats.PauseList(plist, run_ns)
        for wms in stats.MMU_WINDOWS_MS:
            mmu.append({"workload": r["workload"], "policy": r["policy"], "collector": r["collector"],
                        "pacing": r["pacing"], "repeat": r["repeat"], "window_ms": wms, "mmu": pl.mmu(wms * 1e6),
                        "pauses": len(plist), "run_ms": run_ns / 1e6})
    write_csv(os.path.join(out_dir, "pauses.csv"), pauses,
              ["workload", "policy", "collector", "pacing", "repeat", "start_ms", "duration_ms"])
    cols = ["workload", "policy", "collector", "pacing", "repeat", "window_ms", "mmu", "pauses", "run_ms"]
    write_csv(os.path.join(out_dir, "mmu.csv"), mmu, cols)
    ps = []
    for name in workloads:
        for col in collectors:
            ds = sorted(p["duration_ms"] for p in pauses if p["workload"] == name and p["collector"] == col)
            if not ds:
                continue
            q = lambda f: ds[min(len(ds) - 1, int(f * len(ds)))]  # noqa: E731
            mm = {m["window_ms"]: m["mmu"] for m in mmu if m["workload"] == name and m["collector"] == col
                  and m["repeat"] == 0}
            ps.append({"workload": name, "collector": col, "pauses": len(ds), "total_ms": sum(ds), "p50_ms": q(0.5),
                       "p99_ms": q(0.99), "max_ms": ds[-1], "mmu_1ms": mm.get(1), "mmu_10ms": mm.get(10),
                       "mmu_100ms": mm.get(100)})
    cols = ["workload", "collector", "pauses", "total_ms", "p50_ms", "p99_ms", "max_ms", "mmu_1ms", "mmu_10ms",
            "mmu_100ms"]
    write_csv(os.path.join(out_dir, "pause_summary.csv"), ps, cols)
    tables["pauses"] = (ps, cols)

    # Figure 8: minimum heap; Figure 9: fragmentation.
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
    return tables


def write_results(study, out_dir):
    rows, contrived = collect_rows(study, out_dir)
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

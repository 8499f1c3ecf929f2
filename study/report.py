"""report.md: the machine, the build, the exact commands, and every figure with its
numbers as tables, all from the CSVs analysis.py wrote."""

import collections
import os
import platform
import re
import subprocess
import time

from . import alloc_cost
from .analysis import RECYCLING_MIN_FREES, SLICE_TARGET_MS
from . import builds
from . import demographics
from . import size_class_free
from . import power
from . import predicted
from . import stats
from . import steps
from .common import ENTRY, PYTHON, SOURCE_DIR, fmt, format_size, kind_commit, warn

FIGURES = [  # (section title, the figures of study/plot_study.py it shows)
    ("Workloads (the paper's Figure 7)", []),
    ("The worst-case request against heap size (Figure 8)", ["fig-worst-case-request"]),
    ("Speedup over `list` (Figure 9)", ["fig-speedup", "fig-speedup-continuous"]),
    ("How requests were satisfied (Figure 10)", ["fig-satisfied", "fig-satisfied-vs-heap"]),
    ("Request sizes (Figure 11)", ["fig-request-sizes"]),
    ("GC pauses and minimum mutator utilization", ["fig-pauses", "fig-mmu"]),
    ("Time-space trade-off", ["fig-time-space", "fig-time-space-workloads"]),
    ("Minimum heap", ["fig-min-heap"]),
    ("Fragmentation (Johnstone & Wilson)", []),
]
# Figures drawn for the sections study/alloc_cost.py and study/demographics.py write.
ALLOC_COST_FIGURES = ["fig-alloc-cost", "fig-alloc-cost-continuous", "fig-alloc-misses", "fig-replay-time"]
DEMOGRAPHICS_FIGURES = ["fig-lifetimes", "fig-frag-timeline", "fig-alloc-rate"]
SIZE_CLASS_FIGURES = ["fig-size-class-free", "fig-size-class-gap"]  # study/size_class_plot.py


def machine_info():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / (1 << 20):.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "os": osname, "memory": mem,
            "python": platform.python_version(), "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg())}


VERSION_COMMIT = re.compile(r"\(([0-9a-f]{7,40})(-dirty)?\)")  # `kith --version`: "kith 0.1.0 (abc1234def56-dirty)"


def version_info(kith, build):
    """The kith binary's version line and build: the commit its --version names (the build
    that runs the study's runs), else the study's source tree's HEAD (and whether that has
    uncommitted changes)."""
    try:
        version = subprocess.run([kith, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = "?"
    info = {"version": version, "build": build, "kith": kith}
    m = VERSION_COMMIT.search(version)
    if m:
        return dict(info, commit=m.group(1), dirty=bool(m.group(2)))
    commit, dirty = "", False
    try:
        commit = subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=30).stdout.strip()
        st = subprocess.run(["git", "-C", SOURCE_DIR, "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=30).stdout
        dirty = bool(st.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return dict(info, commit=commit, dirty=dirty)


def md_table(rows, columns, headers=None, formats=None):
    headers = headers or columns
    formats = formats or {}
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            f = formats.get(c)
            if v is None or v == "":
                cells.append("")
            elif f:
                try:
                    cells.append(f(float(v)) if not isinstance(v, str) or v.replace(".", "", 1).replace("-", "", 1)
                                 .replace("e", "", 1).isdigit() else str(v))
                except ValueError:
                    cells.append(str(v))
            else:
                cells.append(fmt(v) if isinstance(v, float) else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def pct(x):
    return f"{x:.1f}%"


def ci_text(v, lo, hi, digits=3):
    if v is None:
        return ""
    s = f"{v:.{digits}g}"
    if lo is not None and hi is not None:
        s += f" [{lo:.{digits}g}, {hi:.{digits}g}]"
    return s


def write_report(study, out_dir, tables, info, figures_ok):
    """report.md: one function per section, in this order, each appending its lines to L."""
    page = Page(study, out_dir, tables, info, figures_ok, study.config)
    L = []
    for section in (intro_section, commands_section, workloads_figure, contrived_figure,
                    speedup_figure, predicted_section, power_section, satisfied_figure, sizes_figure, pauses_figure,
                    tradeoff_figure, minheap_figure, fragmentation_figure, size_class_section, files_section):
        section(L, page)
    L = stamped(L, builds.stamp_of(out_dir))
    with open(os.path.join(out_dir, "report.md.tmp"), "w") as f:
        f.write("\n".join(L))
    os.replace(os.path.join(out_dir, "report.md.tmp"), os.path.join(out_dir, "report.md"))


def stamped(L, stamp):
    """The report's lines with a draft's stamp (builds.py) under its title and every section's
    heading, so that no part of it passes for published numbers; L itself without one."""
    if not stamp:
        return L
    line = f"> **{stamp[0].upper() + stamp[1:]}** (`builds.csv`): not the published numbers of one build."
    out = []
    for i, text in enumerate(L):
        out.append(text)
        if i == 0 or text.startswith("## "):
            out += ["", line]
    return out


# What the sections read: the study, its directory, the tables of analysis.analyse, the run
# information (machine, version, invocations, failures), whether the figures were drawn,
# and the study's configuration (c).
Page = collections.namedtuple("Page", "study out_dir tables info figures_ok c")


def embed(L, page, names):
    """Each figure that was drawn: the PNG inline, links to its SVG and PDF."""
    for name in names:
        if page.figures_ok and os.path.exists(os.path.join(page.out_dir, "figures", f"{name}.png")):
            L.append(f"![{name}](figures/{name}.png)")
            L.append("")
            L.append(f"[SVG](figures/{name}.svg) · [PDF](figures/{name}.pdf)")
            L.append("")


def figure_heading(L, page, idx):
    """Figure idx's section heading and its drawn figures."""
    title, names = FIGURES[idx]
    L.append(f"## {idx + 1}. {title}")
    L.append("")
    embed(L, page, names)


def intro_section(L, page):
    """The title, the machine and the build."""
    out_dir, info = page.out_dir, page.info
    L.append("# Kith allocation study")
    L.append("")
    L.append(f"Generated by `kith study` on {time.strftime('%Y-%m-%d %H:%M:%S %Z')}. Every number below comes from "
             f"the CSV files next to this report, which come from the runs under `runs/`; "
             f"`/usr/bin/python3 {ENTRY} plot {out_dir}` redraws the figures from the CSVs alone.")
    L.append("")
    L.append("## Machine and build")
    L.append("")
    m, v = info["machine"], info["version"]
    commit = v["commit"] + (" (with uncommitted changes)" if v["dirty"] else "") if v["commit"] else "unknown"
    L.append(md_table([
        {"k": "CPU", "v": m["cpu"]}, {"k": "cores", "v": str(m["cores"])}, {"k": "memory", "v": m["memory"]},
        {"k": "OS / kernel", "v": f"{m['os']} / {m['kernel']}"}, {"k": "compiler (kith build)", "v": v["build"]},
        {"k": "kith", "v": f"{v['version']} ({v['kith']})"}, {"k": "git commit", "v": commit},
        {"k": "load average at start / end", "v": f"{info['load_start']} / {info['load_end']}"},
        {"k": "python", "v": m["python"]}], ["k", "v"], ["", ""]))
    L.append("")
    L += builds.report_lines(page.tables)
    mixed = commits_by_kind(page.c) if builds.stamp_of(out_dir) else ""  # else: one build's code
    if mixed:
        L.append(f"**The runs come from more than one build** (`--resume` or `--merge` after a change), by kind "
                 f"of run: {mixed}. Each section's numbers are from the runs of its kind.")
        L.append("")
    L.append("Timing figures (3, 6, 7, and 2) depend on the machine's load; count figures (4, 5, 8, 9) do not: "
             "the continuous collector runs with `--gc-pacing=work` in every run except the pause runs, so its "
             "counts are identical run to run (the `counts_identical` column of `satisfied.csv` checks it)"
             + counts_differ(page.tables) + ".")
    L.append("")


def slice_lines(ps, pauses):
    """The slice target, from pause_summary.csv and pauses.csv: the longest slice by CPU time
    against 100 µs (naming the workloads above it), the full pauses, and the slices over
    100 µs by wall time that the host made long (under 100 µs of CPU time)."""
    cont = [r for r in ps if r["collector"] == "continuous" and r.get("max_slice_cpu_ms") is not None]
    if not cont:
        return []
    over = [r for r in cont if r["max_slice_cpu_ms"] > SLICE_TARGET_MS]
    under = [r for r in cont if r not in over]
    text = (f"**Slices against the {SLICE_TARGET_MS * 1000:.0f} µs target (continuous):** the longest slice by CPU "
            f"time is at most {max(r['max_slice_cpu_ms'] for r in under) * 1000:.0f} µs on {len(under)} of the "
            f"{len(cont)} workloads" if under else
            f"**Slices against the {SLICE_TARGET_MS * 1000:.0f} µs target (continuous):** no workload's longest "
            f"slice is under it")
    if over:
        text += "; above it: " + "; ".join(
            f"{r['workload']} {r['max_slice_cpu_ms'] * 1000:.0f} µs ("
            f"{r['slices_over_100us_cpu']:,} of its {r['slices']:,} slices; the host took up to "
            f"{r['host_gap_max_ms']:.2f} ms from one pause of the run, and the CPU clock is charged part of a "
            f"host's stall: docs/COLLECTORS.md)" for r in over)
    L = [text + "."]
    full = [r for r in cont if r.get("full_pauses")]
    if full:
        L.append("Full pauses under continuous collection (a cycle finished at once: the heap had no room left "
                 "for the rest of it): " + ", ".join(f"{r['workload']} {r['full_pauses']} (longest "
                                                      f"{r['max_cpu_ms']:.2f} ms CPU)" for r in full) + ".")
    by_wall = [p for p in pauses if p.get("kind") == "slice" and p["duration_ms"] > SLICE_TARGET_MS]
    if by_wall:
        host = [p for p in by_wall if p.get("cpu_ms") is not None and p["cpu_ms"] <= SLICE_TARGET_MS]
        stalled = (f": the host stalled the thread during them (wall − CPU up to "
                   f"{max(p['duration_ms'] - p['cpu_ms'] for p in host):.2f} ms)" if host else "")
        L.append(f"By wall time {len(by_wall):,} slices passed {SLICE_TARGET_MS * 1000:.0f} µs; {len(host):,} of "
                 f"them did not by CPU time{stalled}.")
    return [" ".join(L), ""]


def counts_differ(tables):
    """The configurations whose runs' counts are not identical (satisfied.csv), as a clause."""
    rows, _ = tables.get("satisfied", ([], []))
    differ = {}
    for r in rows:
        if r.get("counts_identical") is False:
            differ.setdefault((r["workload"], r["collector"]), []).append(r["policy"])
    if not differ:
        return ""
    where = "; ".join(f"{w} under {c} collection on {', '.join(ps)}" for (w, c), ps in differ.items())
    return (f", except where they are not: {where} (the program's allocations depend on something outside it, "
            f"such as the clock: docs/RUNNING_THE_STUDY.md, \"Counts that vary\")")


def commands_section(L, page):
    """The study's commands and configuration, one run of each kind, the runs that failed or did not fit."""
    study, info, c = page.study, page.info, page.c
    L.append("## Commands")
    L.append("")
    L.append("The study (each invocation on this directory):")
    L.append("")
    L.append("```sh")
    for inv in info.get("invocations", []):
        L.append(inv)
    L.append("```")
    L.append("")
    L.append(f"Configuration: workloads {', '.join(w.name for w in study.workloads)} "
             f"(the suite's {study.argset}_args"
             f"{'; the suite file was empty, so the built-in binary_trees row' if info.get('fallback') else ''}); "
             f"policies {', '.join(c['policies'])}; collectors {', '.join(c['collectors'])}; {c['repeat']} to "
             f"{c.get('max_repeat', c['repeat'])} repeats (interleaved: after the first {c['repeat']}, one more run "
             f"per round of every configuration whose 95% interval is wider than "
             f"±{100 * c.get('target_ci', 0.03):g}% of its mean); main and pause runs at the common heap, "
             f"{'the suite' + chr(39) + 's heap_size' if c['main_heap'] == 'suite' else c['main_heap'] + 'x the smallest minimum heap over the policies'}"
             f"; pause runs on `{c['pause_policy']}`; minimum heap with `{c['minheap_collector']}` to "
             f"{100 * c['precision']:g}%; trade-off at {', '.join(f'{x:g}x' for x in c['multiples'])} of "
             f"each policy's own minimum heap (malloc, which has none: the workload's smallest), "
             f"{c['tradeoff_repeat']} to {c.get('tradeoff_max_repeat', c['tradeoff_repeat'])} repeats as the main "
             f"runs'; jobs {c['jobs']}, timed runs (main, trade-off, contrived, "
             f"replay) {c['timing_jobs']} at a time with nothing else beside them, pause runs alone; main, trade-off "
             f"and pause runs with `--stats-timers=off` (counts, no clock read per malloc and free).")
    L.append("")
    L.append("One run of each kind, exactly as run (every run's command is in `commands.txt`):")
    L.append("")
    L.append("```sh")
    for line in info.get("examples", []):
        L.append(line)
    L.append("```")
    L.append("")
    if info.get("failures"):
        L.append("**Runs that did not exit 0** (workload output in their `.log`):")
        L.append("")
        for run_id, rc in info["failures"]:
            L.append(f"- `{run_id}`: exit {rc}")
        L.append("")
    if info.get("did_not_fit"):
        L.append("**Runs that did not fit**: out of memory (exit 70) on a heap below the minimum "
                 "measured for their policy (figure 8) — for a continuous run whose own minimum was not "
                 "measured, twice the occasional one (incremental collection keeps a cycle's floating "
                 "garbage) — as expected:")
        L.append("")
        for run_id, heap, need in info["did_not_fit"]:
            L.append(f"- `{run_id}`: heap {heap} B, the policy's minimum {need} B")
        L.append("")


def workloads_figure(L, page):
    """Figure 1: the workloads."""
    tables = page.tables
    figure_heading(L, page, 0)
    wl, _ = tables["workloads"]
    L.append(md_table(wl, ["workload", "args", "objects", "bytes", "mean_object_bytes", "peak_live_bytes",
                           "heap_size", "run_time_s", "arena_s", "startup_s", "timed_on", "stresses"],
                      ["workload", "args", "objects", "bytes", "mean size (B)", "peak live", "heap", "run time (s)",
                       "arena (s)", "start-up (s)", "timed on", "stresses"],
                      {"objects": lambda x: f"{x:,.0f}", "bytes": lambda x: f"{x:,.0f}",
                       "mean_object_bytes": lambda x: f"{x:.1f}", "peak_live_bytes": lambda x: format_size(int(x)),
                       "heap_size": lambda x: format_size(int(x)),
                       "run_time_s": lambda x: f"{x:.3f}", "arena_s": lambda x: f"{x:.3f}",
                       "startup_s": lambda x: f"{x:.3f}"}))
    L.append("")
    L.append("Objects and bytes as requested from the heap; peak live is the most bytes any collection found "
             "reachable in any run of the workload (a lower bound on the true peak); run time is the median wall "
             "time (`vm.wall_s`: the program alone) of the main runs on the policy/collector named, which count but "
             "do not time each malloc and free (`--stats-timers=off`); reserving and populating the arena (arena) "
             "and the rest of start-up are measured apart and not in it.")
    L.append("")



def contrived_figure(L, page):
    """Figure 2: the contrived worst case against heap size."""
    tables = page.tables
    figure_heading(L, page, 1)
    cs, _ = tables["contrived"]
    heaps = sorted({r["heap_size"] for r in cs})
    crow = []
    for h in heaps:
        row = {"heap": format_size(h)}
        for r in cs:
            if r["heap_size"] == h:
                row["n"] = f"{int(r['n_objects']):,}" if r["n_objects"] else ""
                row[r["policy"]] = f"{r['median_ns']:,.0f}" if r["median_ns"] else ""
                if r["policy"] != "list" and r["speedup_over_list"]:
                    row[r["policy"] + "_x"] = f"{r['speedup_over_list']:,.0f}x"
        crow.append(row)
    L.append(md_table(crow, ["heap", "n", "list", "knuth", "estranged", "tlsf", "knuth_x", "estranged_x", "tlsf_x"],
                      ["heap", "objects", "list ns", "knuth ns", "estranged ns", "tlsf ns", "knuth speedup",
                       "estranged speedup", "tlsf speedup"]))
    L.append("")
    for line in growth_law(cs):
        L.append(line)
    L.append("")



def speedup_figure(L, page):
    """Figure 3: speedup over list; the exact allocator cost and steps per request."""
    out_dir, tables, c = page.out_dir, page.tables, page.c
    figure_heading(L, page, 2)
    speedup_section(L, c, tables)
    L += alloc_cost.report_lines(out_dir)  # exact allocator cost, replay wall time: Figure 9 resolved
    embed(L, page, ALLOC_COST_FIGURES)
    L += steps.report_lines(out_dir)  # steps per request: observed worst case against the bound



def predicted_section(L, page):
    """After Figure 3: the time the exact costs predict against the measured time (predicted.py)."""
    figure = []
    embed(figure, page, ["fig-predicted"])
    L += predicted.report_lines(page.out_dir, figure)


def power_section(L, page):
    """After the prediction: the power runs, long enough to resolve it (power.py, opt-in)."""
    L += power.report_lines(page.out_dir, page.c["experiments"])


def satisfied_figure(L, page):
    """Figure 4: how requests were satisfied."""
    tables, c = page.tables, page.c
    figure_heading(L, page, 3)
    satisfied_section(L, c, tables)



def sizes_figure(L, page):
    """Figure 5: request sizes."""
    tables = page.tables
    figure_heading(L, page, 4)
    sizes, _ = tables["sizes"]
    L.append("Requests by power-of-two size class (the block sizes of the buddy policies; fraction of requests).")
    L.append("")
    L.append(pivot(sizes, "workload", None, "size_class", lambda r: f"{100 * r['fraction']:.1f}%",
                   sorted({r["size_class"] for r in sizes})))
    L.append("")



def pauses_figure(L, page):
    """Figure 6: pauses and MMU."""
    tables, c = page.tables, page.c
    figure_heading(L, page, 5)
    ps, _ = tables["pauses"]
    L.append(f"Pause runs on `{c['pause_policy']}`, continuous with `--gc-pacing=time`; MMU from the whole pause "
             "list (`mmu.csv` has windows from 0.1 ms to 1 s). Each pause by wall time and by the thread's CPU "
             "time (the collector's work without the time the host took from it); a pause is a continuous "
             "collector's slice or a full one (a whole collection, or a cycle finished at once when an "
             "allocation failed mid-cycle: `kind` in `pauses.csv`); `host gap` is the most wall time the host "
             "took from one pause (wall − CPU).")
    L.append("")
    ms3 = lambda x: f"{x:.3f}"  # noqa: E731
    mmu2 = lambda x: f"{x:.2f}"  # noqa: E731
    L.append(md_table(ps, ["workload", "collector", "pauses", "full_pauses", "p99_cpu_ms", "max_ms", "max_cpu_ms",
                           "max_slice_cpu_ms", "mmu_1ms", "mmu_cpu_1ms", "mmu_cpu_10ms", "host_gap_max_ms"],
                      ["workload", "collector", "pauses", "full", "p99 CPU ms", "max ms", "max CPU ms",
                       "longest slice, CPU ms", "MMU 1 ms", "MMU 1 ms CPU", "MMU 10 ms CPU", "host gap ms"],
                      {"p99_cpu_ms": ms3, "max_ms": ms3, "max_cpu_ms": ms3, "max_slice_cpu_ms": ms3,
                       "mmu_1ms": mmu2, "mmu_cpu_1ms": mmu2, "mmu_cpu_10ms": mmu2, "host_gap_max_ms": ms3}))
    L.append("")
    L += slice_lines(ps, tables.get("pause_list", ([], []))[0])



def tradeoff_figure(L, page):
    """Figure 7: the space-time trade-off, the allocator's share, the timing target."""
    tables, c = page.tables, page.c
    figure_heading(L, page, 6)
    tradeoff_section(L, c, tables)
    share_section(L, tables)
    timing_section(L, c, tables)



def minheap_figure(L, page):
    """Figure 8: minimum heap."""
    study, tables, c = page.study, page.tables, page.c
    figure_heading(L, page, 7)
    mh, _ = tables["minheap"]
    L.append(f"Smallest heap (searched to within {100 * c['precision']:g}%) in which the workload completes, "
             f"collector `{c['minheap_collector']}`.")
    L.append("")
    L.append(pivot(mh, "workload", None, "policy",
                   lambda r: format_size(r["min_heap_bytes"]) if r["min_heap_bytes"] else r["status"],
                   study.minheap_policies()))
    L.append("")



def fragmentation_figure(L, page):
    """Figure 9: fragmentation; the object demographics."""
    study, tables = page.study, page.tables
    figure_heading(L, page, 8)
    fr, _ = tables["fragmentation"]
    L.append("Johnstone & Wilson's measure for a fixed heap: the memory the policy needs (its minimum heap) over "
             "the peak live bytes; 1.00 would be no fragmentation at all. Internal: block bytes over requested "
             "bytes, minus one, in the main run.")
    L.append("")
    L.append(pivot(fr, "workload", None, "policy",
                   lambda r: f"{r['fragmentation']:.2f}" + (f" ({r['internal_pct']:.0f}% int.)"
                                                           if r["internal_pct"] is not None else ""),
                   study.minheap_policies()))
    L.append("")
    L += demographics.report_section(tables)
    embed(L, page, DEMOGRAPHICS_FIGURES)


def size_class_section(L, page):
    """Why estranged recycles more: free bytes in the requested class (size_class_free.py)."""
    lines = size_class_free.report_lines(page.out_dir)
    L += lines
    if lines:
        embed(L, page, SIZE_CLASS_FIGURES)


def files_section(L, page):
    """The files of the study directory."""
    L.append("## Files")
    L.append("")
    L.append("`results.csv` / `results.json` (one row per `kith run`: every statistic of the JSON, flattened), "
             "`summary.csv` (median, mean and 95% interval per configuration), `workloads.csv`, "
             "`contrived.csv` + `contrived_summary.csv`, `speedup.csv`, `satisfied.csv` + `satisfied_means.csv`, "
             "`tradeoff.csv` + `tradeoff_summary.csv` + `tradeoff_vs_list.csv`, `alloc_share.csv`, "
             "`predicted.csv` (+ `whole_run.csv` with `wholerun` runs), `timing_target.csv`, `sizes.csv`, "
             "`pauses.csv` + `mmu.csv` + `pause_summary.csv`, `minheap.csv`, `fragmentation.csv`, "
             "`size_class_free.csv` + `size_class_summary.csv` + `size_class_correlation.csv`, "
             "`runs.csv` (the runs by kind), `builds.csv` (by build), `commands.txt`, "
             "`study.json`, `runs/` (every run's statistics, output and exit code).")
    L.append("")


def speedup_section(L, c, tables):
    """Figure 3's numbers: speedup with GC time beside it, the missing baselines where their
    rows would be, and every result significant after Holm-Bonferroni, by name."""
    sp, _ = tables["speedup"]
    others = [p for p in c["policies"] if p != "list"]
    L.append(f"At the common heap ({c['main_heap']}x the smallest minimum heap over the policies, so each policy "
             "runs at its own multiple of its needs; the trade-off section compares them at equal multiples). "
             "Speedup = mean wall time on `list` / mean wall time on the policy, same workload and collector; "
             "95% interval by Fieller's theorem. In parentheses, GC time on the policy / on `list` (ms, mean): "
             "a speedup with very different GC times is collection frequency, not allocator speed.")
    L.append("")

    def cell(r):
        if r.get("speedup") in (None, ""):
            return f"— ({r['note']})" if r.get("note") else "—"
        text = ci_text(r["speedup"], r["ci_low"], r["ci_high"])
        if r.get("gc_ms_policy") is not None and r.get("gc_ms_list") is not None:
            text += f" (gc {fmt_ms(r['gc_ms_policy'])}/{fmt_ms(r['gc_ms_list'])})"
        if r.get("holm_significant"):
            text = f"**{text}**"
        return text

    L.append(pivot(sp, "workload", "collector", "policy", cell, others))
    L.append("")
    missing = [r for r in sp if r.get("speedup") in (None, "") and r.get("note")]
    if missing:
        L.append("Configurations without a speedup (the row stays, with why):")
        L.append("")
        for r in missing:
            L.append(f"- {r['workload']} / {r['collector']} / `{r['policy']}`: {r['note']}")
        L.append("")
    tested = [r for r in sp if r.get("p_value") is not None]
    sig = [r for r in tested if r.get("holm_significant")]
    L.append(f"**Significance.** Each policy against `list` is tested by Welch's t test on the logarithms of the "
             f"wall times (the log of the ratio of geometric means; its p-value is what Holm's method needs, "
             f"which Fieller's interval does not give). Holm–Bonferroni over all {len(tested)} tests at a "
             f"family-wise 5%: {len(sig)} significant (bold above)" + (":" if sig else "."))
    L.append("")
    for r in sorted(sig, key=lambda r: r["p_holm"]):
        faster = "faster" if r["log_ratio"] > 0 else "slower"
        L.append(f"- {r['workload']} / {r['collector']}: `{r['policy']}` {faster} than `list`, speedup "
                 f"{ci_text(r['speedup'], r['ci_low'], r['ci_high'])}, GC {fmt_ms(r.get('gc_ms_policy'))} vs "
                 f"{fmt_ms(r.get('gc_ms_list'))} ms, p = {r['p_value']:.2g} (Holm-adjusted {r['p_holm']:.2g})")
    if sig:
        L.append("")
    geo = []
    for col in c["collectors"]:
        values = {p: {r["workload"]: r["speedup"] for r in sp if r["collector"] == col and r["policy"] == p
                      and r.get("speedup")} for p in others}
        means, common = stats.same_set_geomeans(values)  # the same workloads for every policy
        for p in others:
            g, lo, hi, n = means[p]
            if n:
                geo.append({"collector": f"{col} ({common})", "policy": p,
                            "g": ci_text(g, lo, hi) + (f" ({n} of {common})" if n < common else "")})
    if geo:
        L.append("Geometric mean of the speedups, 95% interval across workloads, over the same workloads for every "
                 "policy (in parentheses how many: those every policy that ran them all has); a policy that did not "
                 "run them all, over the ones it ran, marked (n of N):")
        L.append("")
        L.append(pivot(geo, "collector", None, "policy", lambda r: r["g"], others))
        L.append("")
    params = sorted({(r["collector"], r["gc_parameters"]) for r in sp if r.get("gc_parameters")})
    if params:
        L.append("Collector parameters of these runs (from each run's JSON `gc.parameters`): " +
                 "; ".join(f"{col}: `{p}`" for col, p in params) +
                 f"; kith commit `{kind_commit(c, 'main') or '?'}`.")
        L.append("")


def commits_by_kind(c):
    """'A: main, minheap; B: pauses' when the runs come from more than one commit, else ''."""
    kinds_of = {}
    for kind, commits in sorted((c.get("run_commits") or {}).items()):
        for x in commits:
            kinds_of.setdefault(x, []).append(kind)
    if len(kinds_of) < 2:
        return ""
    return "; ".join(f"{x}: {', '.join(kinds)}" for x, kinds in kinds_of.items())


def fmt_ms(x):
    return "?" if x is None else f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def satisfied_section(L, c, tables):
    sat, _ = tables["satisfied"]
    L.append("Percent of successful requests met immediately / by splitting / by gluing / by defragmenting, from "
             "repeat 0 at the common heap (`identical`: every repeat gave the same counts). A request that fails "
             "is collected for and retried, so it would count twice: such requests are the `retried` column, "
             "outside the percentages. `recycled` / `leftover`: of the immediate requests, those met by a block "
             "a free returned and those met by a block no free had returned (a split's other half, or unused "
             "memory: on a program that never frees, a buddy system meets half its requests so); empty where the "
             "policy does not track it. `recycling`: under that collector the workload freed at least "
             f"{RECYCLING_MIN_FREES:.0%} as many objects as it requested, in collections that freed memory "
             "(from the runs' counts, not a list); the others' immediate requests are the split floor alone.")
    L.append("")
    L.append(md_table(sat, ["workload", "collector", "policy", "requests", "immediate_pct", "recycled_pct",
                            "leftover_pct", "split_pct", "glue_pct", "defrag_pct", "retried", "recycling",
                            "counts_identical"],
                      ["workload", "collector", "policy", "requests", "immediate", "recycled", "leftover", "split",
                       "glue", "defrag", "retried", "recycling", "identical"],
                      {"requests": lambda x: f"{x:,.0f}", "immediate_pct": pct, "split_pct": pct, "glue_pct": pct,
                       "defrag_pct": pct, "recycled_pct": pct, "leftover_pct": pct,
                       "retried": lambda x: f"{x:,.0f}"}))
    L.append("")
    means, _ = tables.get("satisfied_means", ([], []))
    if means:
        L.append("Requests met immediately: request-weighted mean (every request counts once) / per-workload mean "
                 "(every workload counts once), over all workloads and over the recycling ones (number of "
                 "workloads):")
        L.append("")
        rows = [dict(r, key=f"{r['collector']} ({r['subset']})") for r in means]
        L.append(pivot(rows, "key", None, "policy",
                       lambda r: f"{r['immediate_pct_weighted']:.1f}% / {r['immediate_pct_unweighted']:.1f}% "
                                 f"({r['workloads']})", c["policies"]))
        L.append("")
        if any(r.get("recycled_pct_weighted") is not None for r in means):
            L.append("Of those, **recycled** (met by a block a free returned; the rest took a split's leftover), "
                     "weighted / per workload; empty where the policy does not track it. This is the paper's "
                     "comparison without the split floor:")
            L.append("")
            L.append(pivot(rows, "key", None, "policy",
                           lambda r: (f"{r['recycled_pct_weighted']:.1f}% / {r['recycled_pct_unweighted']:.1f}%"
                                      if r.get("recycled_pct_weighted") is not None else ""), c["policies"]))
            L.append("")
    params = sorted({(r["collector"], r["gc_parameters"]) for r in sat if r.get("gc_parameters")})
    if params:
        L.append("Collector parameters of these counts: " + "; ".join(f"{col}: `{p}`" for col, p in params) +
                 f"; kith commit `{kind_commit(c, 'main') or '?'}`.")
        L.append("")
    tr, _ = tables.get("tradeoff", ([], []))
    buddy = [r for r in tr if r["policy"] in ("knuth", "estranged") and r.get("immediate_pct") is not None]
    if buddy:
        L.append("**Against heap multiple** (Figure 10 at each multiple of the policy's own minimum heap): percent "
                 "met immediately / by gluing, trade-off runs (empty: did not run at that size).")
        L.append("")
        rows = [dict(r, m=f"{float(r['multiple']):g}x") for r in buddy]
        L.append(pivot(rows, "workload", "collector", "m",
                       lambda r: f"{r['immediate_pct']:.1f}% / {r['glue_pct']:.1f}%",
                       [f"{x:g}x" for x in c["multiples"]], extra_key="policy"))
        L.append("")


def tradeoff_section(L, c, tables):
    tr, _ = tables.get("tradeoff", ([], []))
    trs, _ = tables.get("tradeoff_summary", ([], []))
    if trs:
        L.append("Each policy at multiples of its own minimum heap. Time relative to the workload's fastest "
                 "configuration (any policy, any multiple; same collector; means of each configuration's runs), "
                 "geometric mean over the workloads that ran, with the 95% interval across workloads (t on the "
                 "logs); in parentheses the geometric mean speedup over `list` at the same multiple, with its "
                 "interval across workloads.")
        L.append("")
        rows = [dict(r, m=f"{float(r['multiple']):g}x") for r in trs]
        L.append(pivot(rows, "collector", None, "m",
                       lambda r: ci_text(r["geomean_relative_time"], r["ci_low"], r["ci_high"]) +
                       (f" ({ci_text(r['geomean_speedup_vs_list'], r.get('speedup_ci_low'), r.get('speedup_ci_high'))})"
                        if r.get("geomean_speedup_vs_list") else "") + f" n={r['workloads']}",
                       [f"{x:g}x" for x in c["multiples"]], extra_key="policy"))
        L.append("")
    L += tradeoff_test_lines(c, tables)
    if tr:
        L.append("Per workload: mean wall time (s) ± the half-width of its 95% interval (% of the mean; none for a "
                 "single run) / mean GC time (ms); `oom`: out of memory at that multiple, `failed`: another error "
                 "(`tradeoff.csv` has the heap sizes, the intervals, the runs and the notes).")
        L.append("")

        def cell(r):
            if r["status"] == "out_of_memory":
                return "oom"
            if r["status"] != "ok" or r["wall_s_mean"] is None:
                return r["status"]
            half = ""
            if r.get("wall_s_ci_high") is not None and r["wall_s_mean"]:
                half = f" ±{50 * (r['wall_s_ci_high'] - r['wall_s_ci_low']) / r['wall_s_mean']:.1f}%"
            return f"{r['wall_s_mean']:.3f}{half} / {(r['gc_ms_mean'] or 0):.1f}"
        rows = [dict(r, m=f"{float(r['multiple']):g}x") for r in tr]
        L.append(pivot(rows, "workload", "collector", "m", cell, [f"{x:g}x" for x in c["multiples"]],
                       extra_key="policy"))
        L.append("")
        no_list = sorted({(r["workload"], r["collector"], f"{float(r['multiple']):g}x") for r in tr
                          if r["policy"] == "list" and r["status"] != "ok"})
        if no_list:
            L.append("Where `list` did not run, no speedup over it exists at that multiple: " +
                     "; ".join(f"{w}/{col} at {m}" for w, col, m in no_list) + ".")
            L.append("")


def tradeoff_test_lines(c, tables):
    """The trade-off's comparisons with list (tradeoff_vs_list.csv): how many are significant
    after Holm, each way, overall and per policy."""
    tests, _ = tables.get("tradeoff_vs_list", ([], []))
    tested = [t for t in tests if t.get("p_value") is not None]
    if not tests:
        return []
    sig = [t for t in tested if t.get("holm_significant")]
    faster = [t for t in sig if t["log_ratio"] > 0]
    untested = len(tests) - len(tested)
    L = [f"**Against `list` at equal multiples.** Each policy against `list` at the same multiple of each one's own "
         f"minimum heap, per workload and collector, tested as the main comparisons are: Welch's t test on the "
         f"logarithms of the wall times, Holm–Bonferroni over all {len(tested)} such tests of the trade-off "
         f"(a family of its own) at a family-wise 5% (`tradeoff_vs_list.csv`"
         + (f"; {untested} comparisons without two runs on each side are not tests" if untested else "")
         + f"): {len(sig)} significant, {len(faster)} faster than `list` and {len(sig) - len(faster)} slower.", ""]
    rows = []
    for p in [p for p in c["policies"] if p != "list"]:
        mine = [t for t in tested if t["policy"] == p]
        if not mine:
            continue
        speedups = [t["speedup"] for t in mine if t.get("speedup")]
        f = sum(1 for t in mine if t.get("holm_significant") and t["log_ratio"] > 0)
        s = sum(1 for t in mine if t.get("holm_significant") and t["log_ratio"] < 0)
        rows.append({"policy": f"`{p}`", "tests": len(mine), "faster": f, "slower": s,
                     "range": f"{min(speedups):.3f}–{max(speedups):.3f}" if speedups else "",
                     "geomean": ci_text(*stats.geomean_ci(speedups)) if speedups else ""})
    if rows:
        L.append(md_table(rows, ["policy", "tests", "faster", "slower", "geomean", "range"],
                          ["policy", "tests", "significantly faster than list", "significantly slower",
                           "speedup over list: geometric mean over the tests [95% interval]", "smallest–largest"]))
        L.append("")
    return L


def share_section(L, tables):
    share, _ = tables.get("alloc_share", ([], []))
    if not share:
        return
    L.append("**The allocator's share of run time**, from means: (mean malloc ns × allocations + mean free ns × "
             "frees) / wall time, of the instrumented `trace` run of each configuration (the runs that time every "
             "operation); n/a where there is none.")
    L.append("")
    policies = []
    for r in share:
        if r["policy"] not in policies:
            policies.append(r["policy"])
    L.append(pivot(share, "workload", "collector", "policy",
                   lambda r: "n/a" if r.get("share_pct") is None else f"{r['share_pct']:.1f}%", policies))
    L.append("")


def timing_section(L, c, tables):
    tt, _ = tables.get("timing_target", ([], []))
    target = 100 * c.get("target_ci", 0.03)
    L.append(f"**Timing target.** Configurations whose 95% interval of the mean wall time is wider than "
             f"±{target:g}% of the mean after their repeats (up to {c.get('max_repeat', c['repeat'])}):")
    L.append("")
    wide = [r for r in tt if r["half_width_pct"] is not None]
    single = [r for r in tt if r["half_width_pct"] is None]
    if not wide:
        L.append("none.")
    for r in wide:
        where = f" at {float(r['multiple']):g}x" if r.get("multiple") not in (None, "") else ""
        L.append(f"- {r['kind']} {r['workload']} / {r['collector']} / `{r['policy']}`{where}: ±"
                 f"{r['half_width_pct']:.1f}% after {r['runs']} runs")
    L.append("")
    if single:
        kinds = sorted({r["kind"] for r in single})
        L.append(f"{len(single)} configurations ({', '.join(kinds)}) have one run, so no interval "
                 f"(`timing_target.csv` lists them; `--tradeoff-repeat` gives the trade-off runs more).")
        L.append("")


def pivot(rows, row_key, group_key, col_key, cell, col_values, extra_key=None):
    """A Markdown table with one row per (row_key, group_key[, extra_key]) and one column per col_values."""
    keys = []
    cells = {}
    for r in rows:
        k = (r[row_key],) + ((r[group_key],) if group_key else ()) + ((r[extra_key],) if extra_key else ())
        if k not in cells:
            keys.append(k)
            cells[k] = {}
        cells[k][r[col_key]] = cell(r)
    headers = [row_key] + ([group_key] if group_key else []) + ([extra_key] if extra_key else []) + \
        [str(v) for v in col_values]
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for k in keys:
        out.append("| " + " | ".join([str(x) for x in k] + [cells[k].get(v, "") for v in col_values]) + " |")
    return "\n".join(out)


def growth_law(cs):
    lines = []
    by = {}
    for r in cs:
        if r["median_ns"]:
            by.setdefault(r["policy"], []).append((r["heap_size"], r["median_ns"]))
    if "list" in by and len(by["list"]) >= 2:
        xs, ys = zip(*sorted(by["list"]))
        alpha, c = stats.power_law_fit(xs, ys)
        if alpha is not None:
            lines.append(f"Growth law, fitted to the medians: `list` ≈ {c * (1 << 20) ** alpha:,.0f} ns × "
                         f"(heap / 1 MiB)^{alpha:.2f} — the request walks a free list whose length grows with the "
                         f"heap.")
    for p in ("knuth", "estranged", "tlsf"):
        if p in by and len(by[p]) >= 2:
            xs, ys = zip(*sorted(by[p]))
            alpha, _ = stats.power_law_fit(xs, ys)
            a, b = stats.log_fit(xs, ys)
            if alpha is not None:
                lines.append(f"`{p}`: exponent {alpha:.2f} on log-log axes; as a + b·log2(heap): "
                             f"b = {b:,.0f} ns per doubling.")
    if "list" in by and "knuth" in by:
        sp = [r for r in cs if r["policy"] == "knuth" and r["speedup_over_list"]]
        if sp:
            lo, hi = min(sp, key=lambda r: r["heap_size"]), max(sp, key=lambda r: r["heap_size"])
            lines.append(f"The paper's single number (72x, buddy over list) becomes a curve: knuth over list "
                         f"{lo['speedup_over_list']:,.0f}x at {format_size(lo['heap_size'])}, "
                         f"{hi['speedup_over_list']:,.0f}x at {format_size(hi['heap_size'])}.")
    return [ln + "  " for ln in lines]


def draw_figures(out_dir):
    plot_module = os.path.join(ENTRY, "plot_study.py")
    if not os.path.exists(plot_module):
        warn(f"the plotting module {plot_module} is missing; no figures")
        return False
    r = subprocess.run([PYTHON, ENTRY, "plot", out_dir])
    if r.returncode != 0:
        warn("drawing the figures failed (matplotlib: apt-get install python3-matplotlib; scripts/setup does it)")
        return False
    return True

"""`kith study --native`: Kith's heaps under real programs (docs/NATIVE.md).

Every program of workloads/native/suite.tsv (native_suite.py) runs on every policy through
`kith exec` (the policy is the program's malloc), and the study answers what the Heap
Layers paper's Figure 6 and Tables 5 and 6 asked of Kingsley and Lea, for every policy:

  reference  each program once on glibc without kith: the output every run must match
  timed      `kith exec --heap=P --stats-file=...` per program x policy x repeat, repeats
             interleaved (repeat 0 of everything, then repeat 1, ...) and the policies in a
             rotated order each repeat; wall time and the peak resident memory (wait4's
             ru_maxrss), the process's statistics (peak bytes in use, the arena's high-water
             mark: the paper's memory consumption). glibc is `--heap=malloc` (the same
             kith exec, no Kith heap), the yardstick every time is normalised to.
  trace      each program once on its small input (the suite's quick command: callgrind
             runs a replay some 50 times slower than the machine, and cfrac's study input
             makes ~10^8 requests) under `kith exec --heap=lea --trace=...` (a program's
             requests do not depend on its allocator, except where it hashes addresses)
  replay     each trace replayed on each policy with --stats-file: Figure 10's satisfied
             breakdown and the worst steps per request against the policy's proven bound
  cost       each trace replayed under callgrind on each policy and on the `nothing`
             baseline (alloc_cost.measure): exact instructions and simulated cache misses
             per malloc and per free, as the main study measures Kith's own workloads

Outputs in --out (default build/native-study): runs/ (every run's statistics and output),
native_runs.csv (one row a timed run), native_summary.csv, figure6.csv, native_costs.csv,
native_replay.csv and native_report.md. The folder must be new, empty, or an earlier native
study (it holds native.json); nothing else is deleted or overwritten, and every table is
written beside its place and renamed into it."""

if __name__ == "__main__":  # run as a file or with -m: its command is the entry point's now
    import sys
    print(f"{sys.argv[0]}: this is a module of the study package now: run `python3 -m study --native ...  (or kith study --native)` (`python3 -m study help` lists the commands)", file=sys.stderr)
    sys.exit(64)

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import alloc_cost, native_suite, stats, steps
from .suggestion import did_you_mean
from .common import (EXIT_CANNOT_CREATE, EXIT_MISSING, EXIT_SOFTWARE, StudyError, fmt, format_size, markdown_table,
                     name_list, number, parse_size, read_csv, usage_error, write_csv)

MARKER = "native.json"
GLIBC = "malloc"
PHASES = ("timed", "counts", "costs")
# The runs/ folders each phase writes: a phase run again replaces its own, and only its own.
PHASE_DIRS = {"timed": ["timed"], "counts": ["counts"], "costs": ["trace", "replay"]}
PHASE_CSVS = {"timed": ["native_runs.csv"], "counts": ["native_counts.csv"],
              "costs": ["native_replay.csv", "native_costs.csv"]}
TRACED_ON = "lea"
NOT_REPLAYED = {"boehm"}
DEFAULT_REPEAT, QUICK_REPEAT = 5, 1
DEFAULT_HEAP = "2G"
RUN_TIMEOUT = 600  # seconds: a policy that cannot finish a program in that is recorded as failed (137)
# The Heap Layers paper (PLDI 2001), Tables 5 and 6: runtime in seconds and memory
# consumption in bytes of its two benchmarks that Kith runs too.
PAPER_RUNTIME = {"cfrac": {"Kingsley": 19.02, "KingsleyHeap": 19.75, "KingsleyHeap + coal.": 25.94,
                           "Lea": 19.09, "LeaHeap": 20.14},
                 "espresso": {"Kingsley": 40.66, "KingsleyHeap": 40.91, "KingsleyHeap + coal.": 44.56,
                              "Lea": 41.12, "LeaHeap": 46.33}}
PAPER_MEMORY = {"cfrac": {"Kingsley": 270336, "KingsleyHeap": 280640, "KingsleyHeap + coal.": 271944,
                          "Lea": 208896, "LeaHeap": 241272},
                "espresso": {"Kingsley": 974848, "KingsleyHeap": 992032, "KingsleyHeap + coal.": 541696,
                             "Lea": 462848, "LeaHeap": 448808}}
# The paper's allocators and what stands for each here. Lea's own allocator is glibc's
# (ptmalloc descends from Doug Lea's malloc 2.7).
PAPER_COUNTERPARTS = [("Kingsley", "kingsley-bsd"), ("KingsleyHeap", "kingsley"),
                      ("KingsleyHeap + coal.", "kingsley-coalescing"), ("Lea", GLIBC), ("LeaHeap", "lea")]


# --- options ----------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise usage_error(message)


def parse_args(argv):
    ap = Parser(prog="kith study --native", description=__doc__.split("\n\n")[0])
    ap.add_argument("--kith", required=True, help=argparse.SUPPRESS)
    ap.add_argument("--out", default="build/native-study", help="results directory (default build/native-study)")
    ap.add_argument("--quick", action="store_true", help="the suite's small inputs, one repeat, no callgrind")
    ap.add_argument("--programs", default=None, help="comma-separated names from the suite (default: all)")
    ap.add_argument("--policies", default=None, help="comma-separated policies (default: every explicit-free one)")
    ap.add_argument("--repeat", type=int, default=None, help=f"timed repeats (default {DEFAULT_REPEAT}, quick 1)")
    ap.add_argument("--heap-size", default=DEFAULT_HEAP, help=f"each process's arena (default {DEFAULT_HEAP})")
    ap.add_argument("--no-costs", action="store_true", help="skip the callgrind replays")
    ap.add_argument("--phases", default=",".join(PHASES),
                    help="which of timed, counts, costs to run (default all); in an earlier native study's --out "
                         "the others' tables are kept and the report is made from all of them")
    ap.add_argument("--third-party", default=None,
                    help="where cfrac and espresso were built (default: third_party/ beside kith's build)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: make the tables and report again from an earlier native study's in --out")
    ap.add_argument("--awfy", default=None, metavar="PATH",
                    help="an are-we-fast-yet checkout: adds its Lua benchmarks (those of Kith's suite) under "
                         "lua5.4, incremental and generational")
    ap.add_argument("--third-party-sources", default=None,
                    help="their sources (default: ../shared/third_party beside the source tree)")
    a = ap.parse_args(argv)
    if not a.out:
        raise usage_error("--out wants a directory")
    if a.repeat is not None and a.repeat < 1:
        raise usage_error("--repeat wants at least 1")
    try:
        a.heap_bytes = parse_size(a.heap_size)
    except ValueError:
        raise usage_error(f"--heap-size wants a size like 512M or 2G, got '{a.heap_size}'")
    a.repeat = a.repeat or (QUICK_REPEAT if a.quick else DEFAULT_REPEAT)
    a.phases = [x for x in a.phases.split(",") if x]
    bad = [x for x in a.phases if x not in PHASES] or ([] if a.phases else [""])
    if bad:
        raise usage_error(f"--phases: '{bad[0]}' is not one of {', '.join(PHASES)}", did_you_mean(bad[0], PHASES))
    return a


def exec_policies(kith):
    """The policies `kith exec` serves, in `kith policies` order (boehm is refused there),
    then the references that command notes on stderr (kingsley-bsd)."""
    p = subprocess.run([kith, "policies"], capture_output=True, text=True)
    rows = [line.split() for line in p.stdout.splitlines() if line.strip()]
    names = [r[0] for r in rows if len(r) < 2 or r[1] != "collector:"]
    names += re.findall(r"note: (\S+) is a reference", p.stderr)
    return [n for n in names if n not in NOT_REPLAYED]


# --- the output folder ------------------------------------------------------------------

def claim_out_dir(out, phases):
    """Creates `out`, or takes it when it is empty or an earlier native study; anything else
    is refused (73) naming what is there, so nothing of the user's is touched. An earlier
    study's runs are removed for the phases run now only."""
    try:
        os.makedirs(out, exist_ok=True)
        entries = sorted(os.listdir(out))
    except OSError as e:
        raise StudyError(EXIT_CANNOT_CREATE, f"cannot use --out={out}: {e.strerror or e}")
    if entries and MARKER not in entries:
        raise StudyError(EXIT_CANNOT_CREATE, f"--out={out} holds files that are not a native study's "
                                             f"({', '.join(entries[:3])}{', ...' if len(entries) > 3 else ''}); "
                                             "name a new or empty directory")
    for phase in phases:
        for sub in PHASE_DIRS[phase]:
            runs = os.path.join(out, "runs", sub)
            if os.path.isdir(runs) and not os.path.islink(runs):
                shutil.rmtree(runs)  # an earlier native study's own runs (the marker says so)
            os.makedirs(runs)
    os.makedirs(os.path.join(out, "work"), exist_ok=True)


def write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# --- running ----------------------------------------------------------------------------

def run_reaped(argv, env, out_path, timeout=RUN_TIMEOUT):
    """As run_program, with the child's own rusage (os.wait4 reaps it)."""
    with open(out_path, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, dict(os.environ, **env),
                              file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
                                            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)])
        deadline = start + timeout
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() > deadline:
                os.kill(pid, 9)
            time.sleep(0.002)
        wall = time.perf_counter() - start
        err.seek(0)
        message = err.read(4096).decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    return (128 - code if code < 0 else code), wall, usage.ru_maxrss, message


def exec_argv(kith, policy, heap_bytes, program, stats_file=None, trace=None):
    argv = [kith, "exec", f"--heap={policy}", f"--heap-size={heap_bytes}"]
    if stats_file:
        argv.append(f"--stats-file={stats_file}")
    if trace:
        argv.append(f"--trace={trace}")
    return argv + ["--", *program.command]


def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode(errors="replace")


def process_stats(stats_file):
    """The statistics every process of a run wrote (STATS, STATS.PID, ...), parsed."""
    folder, base = os.path.split(stats_file)
    found = []
    for name in sorted(os.listdir(folder)):
        if name == base or (name.startswith(base + ".") and name[len(base) + 1:].isdigit()):
            try:
                with open(os.path.join(folder, name)) as f:
                    found.append(json.load(f))
            except (OSError, ValueError):
                pass
    return found


def heap_figures(records):
    """Per run, from its processes' statistics: the largest process's requests and peaks."""
    best = {}
    for r in records:
        h = r.get("heap", {})
        if not best or h.get("allocations", 0) > best.get("allocations", 0):
            best = h
    rss = [r.get("process", {}).get("peak_rss_bytes") for r in records]
    rss = [x for x in rss if isinstance(x, int)]
    return {"allocations": best.get("allocations"), "frees": best.get("frees"),
            "peak_bytes_in_use": best.get("peak_bytes_in_use"),
            "peak_requested_bytes": best.get("peak_requested_bytes"),
            "memory_consumption": best.get("memory_consumption_bytes"),
            "peak_rss_bytes": max(rss) if rss else None, "processes": len(records)}


def prepare(programs):
    for p in programs:
        if p.prepare:
            r = subprocess.run(p.prepare, capture_output=True, text=True)
            if r.returncode:
                raise StudyError(70, f"{p.name}: preparing its input failed: {r.stderr.strip() or r.returncode}")


def reference(programs, out):
    """Each program once on glibc, without kith: the output every run must match."""
    refs = {}
    for p in programs:
        path = os.path.join(out, "runs", f"{p.name}.reference.out")
        code, _, _, err = run_reaped(p.command, p.env, path)
        if code:
            raise StudyError(70, f"{p.name} fails without kith (exit {code}): {err.strip()[:200]}")
        refs[p.name] = p.masked(read_text(path))
    return refs


def timed_runs(a, programs, policies, refs, out, log):
    """The timed runs: no statistics kept (no counting, no clock read per request; and
    `--heap=malloc` then preloads nothing: glibc itself), output checked against glibc's."""
    rows = []
    for rep in range(a.repeat):
        order = policies[rep % len(policies):] + policies[:rep % len(policies)]
        for p in programs:
            for policy in order:
                stem = os.path.join(out, "runs", "timed", f"{p.name}.{policy}.{rep}")
                code, wall, _, err = run_reaped(exec_argv(a.kith, policy, a.heap_bytes, p), p.env, stem + ".out")
                same = code == 0 and p.masked(read_text(stem + ".out")) == refs[p.name]
                if not same:
                    log(f"{p.name} on {policy}: exit {code}, "
                        f"{'output differs from glibc' if code == 0 else err.strip()[:160]}")
                rows.append({"program": p.name, "policy": policy, "repeat": rep, "exit_code": code, "wall_s": wall,
                             "output_ok": int(same)})
        log(f"repeat {rep + 1} of {a.repeat} done")
    return rows


def count_runs(a, programs, policies, refs, out, log):
    """One untimed run per program x policy with --stats-file: the heap's figures (requests,
    peak bytes in use, memory consumption) and each process's own peak RSS (VmHWM: wait4's
    would count this Python driver's pages, which a spawned child holds until it execs).
    Two at a time: nothing here is a time."""
    from concurrent.futures import ThreadPoolExecutor

    def one(job):
        p, policy = job
        stem = os.path.join(out, "runs", "counts", f"{p.name}.{policy}")
        code, _, _, err = run_reaped(exec_argv(a.kith, policy, a.heap_bytes, p, stem + ".json"), p.env,
                                     stem + ".out")
        same = code == 0 and p.masked(read_text(stem + ".out")) == refs[p.name]
        if not same:
            log(f"{p.name} on {policy} (counting): exit {code}, "
                f"{'output differs from glibc' if code == 0 else err.strip()[:160]}")
        figures = heap_figures(process_stats(stem + ".json"))
        rss = figures.pop("peak_rss_bytes", None)
        return {"program": p.name, "policy": policy, "exit_code": code, "output_ok": int(same),
                "max_rss_kib": rss // 1024 if rss else None, **figures}

    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(one, [(p, policy) for p in programs for policy in policies]))
    log("counting runs done")
    return rows


def trace_and_replay(a, programs, policies, out, log):
    """Each program's trace (on lea), replayed on every policy: satisfied and steps, and
    under callgrind its exact costs."""
    replay_rows, cost_rows = [], []
    for p in programs:
        trace = os.path.join(out, "runs", "trace", f"{p.name}.trace")
        code, _, _, err = run_reaped(exec_argv(a.kith, TRACED_ON, a.heap_bytes, p, trace=trace), p.env,
                                     trace + ".out")
        traces = [os.path.join(out, "runs", "trace", n) for n in os.listdir(os.path.join(out, "runs", "trace"))
                  if re.fullmatch(re.escape(p.name) + r"\.trace(\.[0-9]+)?", n)]
        if code or not traces:
            log(f"{p.name}: tracing on {TRACED_ON} failed (exit {code}): {err.strip()[:160]}")
            continue
        biggest = max(traces, key=os.path.getsize)  # gcc: cc1's, not the driver's
        base = None
        for policy in policies:
            stats_file = os.path.join(out, "runs", "replay", f"{p.name}.{policy}.json")
            r = subprocess.run([a.kith, "replay", f"--heap={policy}", f"--heap-size={a.heap_bytes}",
                                f"--stats-file={stats_file}", biggest], capture_output=True, text=True)
            row = {"program": p.name, "policy": policy, "trace": os.path.basename(biggest), "exit_code": r.returncode}
            if r.returncode == 0:
                with open(stats_file) as f:
                    row.update(replay_figures(json.load(f), policy, a.heap_bytes))
            replay_rows.append(row)
            if a.no_costs or a.quick:
                continue
            try:
                if base is None:
                    base = alloc_cost.measure(a.kith, alloc_cost.BASELINE, biggest, a.heap_bytes)
                own = alloc_cost.measure(a.kith, policy, biggest, a.heap_bytes)
                cost_rows.append({"program": p.name, "policy": policy, **alloc_cost.net_costs(own, base)})
            except (RuntimeError, OSError) as e:
                log(f"{p.name} on {policy}: callgrind replay failed: {e}")
        log(f"{p.name}: traced and replayed")
    return replay_rows, cost_rows


def replay_figures(record, policy, heap_bytes):
    h = record.get("heap", {})
    sat = h.get("satisfied", {})
    bounds = steps.step_bounds(policy, heap_bytes)
    row = {f"satisfied_{k}": sat.get(k) for k in ("immediate", "split", "glue", "defrag", "failed")}
    row.update({"allocations": h.get("allocations"), "frees": h.get("frees"),
                "peak_bytes_in_use": h.get("peak_bytes_in_use"),
                "malloc_steps_max": h.get("steps", {}).get("malloc", {}).get("max"),
                "free_steps_max": h.get("steps", {}).get("free", {}).get("max")})
    row["malloc_bound"], row["free_bound"] = bounds[0], bounds[1]
    return row


# --- analysis ---------------------------------------------------------------------------

SUMMARY_COLUMNS = ["program", "policy", "runs", "ok", "wall_s", "wall_low", "wall_high", "time_vs_glibc",
                   "time_vs_glibc_low", "time_vs_glibc_high", "max_rss_kib", "rss_vs_glibc", "allocations",
                   "frees", "peak_bytes_in_use", "peak_requested_bytes", "memory_consumption", "fragmentation",
                   "rss_excess_kib"]


def summarize(rows, counts, programs, policies):
    """One row per program x policy: the mean wall time with its 95% interval and its ratio
    to glibc's (Fieller), from the timed runs; peak RSS and the heap's figures from the
    counting run."""
    counted = {(c["program"], c["policy"]): c for c in counts}
    out = []
    for prog in programs:
        walls = {pol: [float(r["wall_s"]) for r in rows if r["program"] == prog and r["policy"] == pol
                       and int(r["output_ok"])] for pol in policies}
        base = walls.get(GLIBC, [])
        glibc_rss = number(counted.get((prog, GLIBC), {}).get("max_rss_kib"))
        for pol in policies:
            mine = [r for r in rows if r["program"] == prog and r["policy"] == pol]
            m, lo, hi = stats.mean_ci(walls[pol])
            q, qlo, qhi = stats.ratio_ci(walls[pol], base) if base and walls[pol] else (None, None, None)
            c = counted.get((prog, pol), {})
            rss = number(c.get("max_rss_kib"))
            peak, consumed = whole(c.get("peak_bytes_in_use")), whole(c.get("memory_consumption"))
            requested = whole(c.get("peak_requested_bytes"))
            out.append({"program": prog, "policy": pol, "runs": len(mine), "ok": len(walls[pol]), "wall_s": m,
                        "wall_low": lo, "wall_high": hi, "time_vs_glibc": q, "time_vs_glibc_low": qlo,
                        "time_vs_glibc_high": qhi, "max_rss_kib": rss,
                        "rss_vs_glibc": rss / glibc_rss if rss and glibc_rss else None,
                        "allocations": whole(c.get("allocations")), "frees": whole(c.get("frees")),
                        "peak_bytes_in_use": peak, "peak_requested_bytes": requested, "memory_consumption": consumed,
                        "fragmentation": consumed / requested if consumed and requested else None,
                        "rss_excess_kib": rss_excess(rss, glibc_rss, consumed, requested)})
    return out


BUDDIES = ("knuth", "estranged")  # their side table: heap/buddy/buddy_block_table.h


def side_table_note(row):
    """For a buddy policy: how much of its resident excess its side table (a byte per 16
    bytes of the arena it used) accounts for."""
    if row["policy"] not in BUDDIES or not row.get("memory_consumption"):
        return ""
    return f"; its side table alone {row['memory_consumption'] / 16 / 1024:,.0f} KiB"


def rss_excess(rss, glibc_rss, consumed, requested):
    """The issue's resident-memory target, in KiB: a program's peak RSS under a policy less
    its peak RSS on glibc and less what the policy's own fragmentation costs (its memory
    consumption less the peak of the bytes the program had asked for, live); within 1 MiB
    (1024) is the target. None where RSS or (for a policy with an arena) either peak is not
    known."""
    if rss is None or glibc_rss is None or consumed is None or requested is None:
        return None
    return rss - glibc_rss - max(consumed - requested, 0) / 1024


def whole(x):
    """A count read back from a CSV cell, as an int; None where there is none."""
    x = number(x)
    return int(x) if x is not None else None


def cell(x, digits=3):
    return fmt(x, digits) if x is not None else "–"


def ratio_cell(r):
    if r.get("time_vs_glibc") is None:
        return "–"
    if r.get("time_vs_glibc_low") is None:
        return f"{r['time_vs_glibc']:.3f}"
    return f"{r['time_vs_glibc']:.3f} [{r['time_vs_glibc_low']:.3f}, {r['time_vs_glibc_high']:.3f}]"


def figure6_rows(summary):
    """The paper's Figure 6 on Kith: for each of its allocators present here, each program's
    runtime normalised to glibc, and memory consumption (the arena's high-water mark; peak
    RSS for glibc, which keeps no arena of ours)."""
    by = {(r["program"], r["policy"]): r for r in summary}
    rows = []
    for prog in sorted({r["program"] for r in summary}):
        for paper_name, policy in PAPER_COUNTERPARTS:
            r = by.get((prog, policy))
            if not r:
                continue
            rows.append({"program": prog, "allocator": paper_name, "policy": policy,
                         "time_vs_glibc": r["time_vs_glibc"], "time_vs_glibc_low": r["time_vs_glibc_low"],
                         "time_vs_glibc_high": r["time_vs_glibc_high"], "wall_s": r["wall_s"],
                         "memory_consumption": r["memory_consumption"], "max_rss_kib": r["max_rss_kib"],
                         "paper_runtime_s": PAPER_RUNTIME.get(prog, {}).get(paper_name),
                         "paper_memory_bytes": PAPER_MEMORY.get(prog, {}).get(paper_name)})
    return rows


def paper_comparison(summary):
    """The paper's three claims set beside Kith's numbers, as (claim, paper, kith) lines."""
    by = {(r["program"], r["policy"]): r for r in summary}
    progs = sorted({r["program"] for r in summary})

    def mean_ratio(a, b, key):
        rs = [by[(p, a)][key] / by[(p, b)][key] for p in progs
              if (p, a) in by and (p, b) in by and by[(p, a)][key] and by[(p, b)][key]]
        return (sum(rs) / len(rs), {p: by[(p, a)][key] / by[(p, b)][key] for p in progs
                if (p, a) in by and (p, b) in by and by[(p, a)][key] and by[(p, b)][key]}) if rs else (None, {})

    lines = []
    k, per = mean_ratio("kingsley", "kingsley-bsd", "wall_s")
    if k is not None:
        detail = ", ".join(f"{p} {100 * (v - 1):+.1f}%" for p, v in per.items())
        lines.append(("KingsleyHeap against the hand-written Kingsley (time)",
                      "+1.9% on average (cfrac +3.8%, espresso +0.6%)", f"{100 * (k - 1):+.1f}% on average ({detail})"))
    k, per = mean_ratio("lea", GLIBC, "wall_s")
    if k is not None:
        detail = ", ".join(f"{p} {100 * (v - 1):+.1f}%" for p, v in per.items())
        lines.append(("LeaHeap against Lea's allocator (time; here glibc's, which descends from it)",
                      "+7% on average (cfrac +5.5%, espresso +12.7%)", f"{100 * (k - 1):+.1f}% on average ({detail})"))
    k, per = mean_ratio("kingsley-coalescing", "kingsley", "memory_consumption")
    if k is not None:
        detail = ", ".join(f"{p} {100 * (v - 1):+.1f}%" for p, v in per.items())
        lines.append(("Coalescing's effect on KingsleyHeap's memory consumption",
                      "about half on average (espresso -45%, cfrac -3%)", f"{100 * (k - 1):+.1f}% on average ({detail})"))
    return lines


def report(programs, policies, summary, replay_rows, cost_rows, marker):
    phases = marker.get("phases", {})
    heap_text = ", ".join(sorted({format_size(m["heap_size"]) for m in phases.values() if m.get("heap_size")}))

    def said(phase, what):
        m = phases.get(phase)
        return f"{what}: kith {m['commit']}" + (f", {m['repeat']} interleaved repeat(s)" if phase == "timed" else "") \
            if m else f"{what}: not run"
    out = ["# Kith's heaps under real programs", "",
           f"`kith exec --heap=P --heap-size={heap_text}`; glibc is `--heap=malloc` (with no statistics asked, "
           "kith exec preloads nothing: the program on glibc itself). "
           + "; ".join([said("timed", "Timed runs (no statistics kept)"), said("counts", "counting runs"),
                        said("costs", "traces, replays and callgrind")])
           + ". Every number below is generated from the CSVs beside this file.", "",
           "## Programs", ""]
    known = marker.get("programs", {})

    def command(name, key):
        return f"`{known[name][key]}`" if known.get(name, {}).get(key) else "–"
    out += markdown_table(["program", "what", "timed and counted (workloads/native/suite.tsv)", "traced (its small input)"],
                 [[p, known.get(p, {}).get("what", ""), command(p, "timed"), command(p, "traced")] for p in programs])
    out += ["", "## Runtime normalised to glibc (mean and 95% interval, Fieller)", ""]
    progs = list(programs)
    by = {(r["program"], r["policy"]): r for r in summary}
    out += markdown_table(["policy"] + progs, [[pol] + [ratio_cell(by.get((pr, pol), {})) for pr in progs] for pol in policies])
    out += ["", "## Memory: consumption / peak RSS, in KiB", "",
            "Memory consumption is the Heap Layers paper's high-water mark of memory taken from the system: "
            "here the highest offset of the policy's arena a block reached (glibc, jemalloc and mimalloc keep no "
            "arena of Kith's: –). Peak RSS is the program's own (VmHWM), the library's pages included; for "
            "gcc, the largest process's (cc1).", ""]

    def kib(x, scale=1):
        return f"{x / scale:,.0f}" if x is not None else "–"
    out += markdown_table(["policy"] + progs,
                 [[pol] + [f"{kib((by.get((pr, pol)) or {}).get('memory_consumption'), 1024)} / "
                           f"{kib((by.get((pr, pol)) or {}).get('max_rss_kib'))}"
                           for pr in progs] for pol in policies])
    out += ["", "Fragmentation: memory consumption over the peak of the bytes the program had asked for, live "
            "(`peak_requested_bytes`, kept by the library as the program runs): the policy's rounding and its "
            "free space both, where the heap block's peak of bytes in use counts a rounded block as in use.", ""]
    with_arena = [pol for pol in policies if any((by.get((pr, pol)) or {}).get("memory_consumption") for pr in progs)]
    out += markdown_table(["policy"] + progs, [[pol] + [cell((by.get((pr, pol)) or {}).get("fragmentation"))
                                               for pr in progs] for pol in with_arena])
    out += ["", "Resident memory beyond glibc's: peak RSS under the policy, less peak RSS on glibc, less what "
            "the policy's fragmentation costs (memory consumption less that peak of requested bytes), in KiB. "
            "The target is at most 1,024 (1 MiB); a negative number is less than glibc's.", ""]
    out += markdown_table(["policy"] + progs, [[pol] + [kib((by.get((pr, pol)) or {}).get("rss_excess_kib"))
                                               for pr in progs] for pol in with_arena])
    excess = [r for r in summary if r.get("rss_excess_kib") is not None]
    over = [r for r in excess if r["rss_excess_kib"] > 1024]
    if excess:
        out += ["", f"{len(excess) - len(over)} of {len(excess)} program x policy pairs are within 1 MiB" +
                (": over it, " + ", ".join(f"{r['program']} on {r['policy']} ({r['rss_excess_kib']:,.0f} KiB"
                                           + side_table_note(r) + ")" for r in over) if over else "") + "."]
        if any(r["policy"] in BUDDIES for r in over):
            out += ["", "The buddy policies keep their metadata beside the arena, not in it: one side-table byte "
                    "per 16-byte granule (`heap/buddy/buddy_block_table.h`), 1/16 of the arena they use, resident "
                    "with it. It is neither fragmentation nor the program's, and the library's resident memory "
                    "counts it."]
    out += ["", "## The Heap Layers paper's Figure 6 and Tables 5 and 6, on Kith", ""]
    out += markdown_table(["claim", "paper", "Kith"], [list(c) for c in paper_comparison(summary)])
    out += ["", "Where the two set-ups differ, so where the numbers may: the paper's Lea allocator is "
            "dlmalloc 2.7.0, and glibc's malloc (2.36 here) descends from it but adds per-thread caches "
            "(tcache) and arenas, so `lea` is set against another yardstick than LeaHeap was. The paper's "
            "allocators took memory from the system with sbrk and mmap as they grew; Kith's policies carve "
            "one fixed arena reserved up front (an embedded heap), so their memory consumption is the "
            "highest arena offset a block reached, the same high-water mark measured another way, and "
            "glibc's is its peak RSS. Every Kith policy here also pays what a preloaded malloc pays: a "
            "call through the PLT, the library's single-threaded check in place of a lock, and one "
            "virtual call into the policy. The paper's programs were built with Visual C++ 6.0 and ran under "
            "Windows 2000 on a 366 MHz Pentium II (its Section 5), each the average of three runs; here GCC "
            "12 -O2 on Linux, inputs sized for a few seconds on glibc.", ""]
    fig = figure6_rows(summary)
    out += [""] + markdown_table(["program", "allocator (Kith policy)", "time vs glibc", "paper's time (s)",
                         "memory consumption (B)", "paper's (B)"],
                        [[r["program"], f"{r['allocator']} (`{r['policy']}`)", cell(r["time_vs_glibc"]),
                          cell(r["paper_runtime_s"]), cell(r["memory_consumption"]), cell(r["paper_memory_bytes"])]
                         for r in fig])
    if replay_rows:
        out += ["", "## Requests satisfied (Figure 10) and worst steps against the bound", "",
                "Each program traced once on its small input (the suite's `quick` command) on `lea`, and the "
                "trace replayed on every policy (`kith replay`).", ""]
        out += markdown_table(["program", "policy", "allocations", "immediate", "split", "glue", "defrag", "failed",
                      "malloc steps max / bound", "free steps max / bound"],
                     [[r["program"], r["policy"], cell(r.get("allocations")), cell(r.get("satisfied_immediate")),
                       cell(r.get("satisfied_split")), cell(r.get("satisfied_glue")), cell(r.get("satisfied_defrag")),
                       cell(r.get("satisfied_failed")),
                       f"{cell(r.get('malloc_steps_max'))} / {cell(r.get('malloc_bound'))}",
                       f"{cell(r.get('free_steps_max'))} / {cell(r.get('free_bound'))}"] for r in replay_rows])
    if cost_rows:
        out += ["", "## Exact cost per request (callgrind on the replay, minus the `nothing` baseline)", "",
                "The same replays under callgrind with fixed simulated caches (`study/alloc_cost.py`): "
                "instructions and D1 misses a request are exact, the same on any host.", ""]
        out += markdown_table(["program", "policy", "instructions a malloc", "a free", "D1 misses a malloc", "a free"],
                     [[r["program"], r["policy"], cell(r.get("ir_per_malloc")), cell(r.get("ir_per_free")),
                       cell(r.get("d1_per_malloc")), cell(r.get("d1_per_free"))] for r in cost_rows])
    side = collector_rows(cost_rows, replay_rows)
    if side:
        out += ["", "## One benchmark, a production collector's frees beside Kith's", "",
                "The same benchmark freed by Lua 5.4's incremental and generational collectors or by CPython's "
                "reference counting (this study's replays) and by Kith's occasional and continuous collectors "
                "(the published study, `docs/study/`, at its own commit and the suite's study arguments, "
                "which are smaller). Immediate: requests met from a free list of their size, no split or glue.", ""]
        out += markdown_table(["benchmark", "policy", "freed by", "instructions a malloc", "a free", "immediate %"],
                     [[r["benchmark"], r["policy"], r["runtime"], cell(r["ir_per_malloc"]), cell(r["ir_per_free"]),
                       cell(r["immediate_pct"])] for r in side])
    return "\n".join(out) + "\n"


# Programs that run a benchmark Kith's own suite runs too, and that workload's name there.
SAME_BENCHMARK = {"lua": "gcbench", "lua_generational": "gcbench", "python": "gcbench"}
PUBLISHED_STUDY = os.path.join(native_suite.SOURCE_DIR, "docs", "study")


def same_benchmark(program):
    if program in SAME_BENCHMARK:
        return SAME_BENCHMARK[program]
    m = re.fullmatch(r"awfy_([a-z0-9_]+?)(_gen)?", program)
    return m.group(1) if m else None


def collector_rows(cost_rows, replay_rows, published=PUBLISHED_STUDY):
    """One benchmark under a production collector's frees (Lua's incremental and generational
    collectors, CPython's reference counting) beside Kith's own runs of it under occasional and
    continuous collection (the published study, docs/study: alloc_cost.csv, satisfied.csv):
    instructions a malloc and a free, and the share of requests met without a split or glue."""
    kith_cost = {(r["workload"], r["collector"], r["policy"]): r for r in read_csv(os.path.join(published,
                                                                                         "alloc_cost.csv"))}
    kith_sat = {(r["workload"], r["collector"], r["policy"]): r for r in read_csv(os.path.join(published,
                                                                                        "satisfied.csv"))}
    sat = {(r["program"], r["policy"]): r for r in replay_rows}
    rows = []
    for c in cost_rows:
        workload = same_benchmark(c["program"])
        if not workload:
            continue
        r = sat.get((c["program"], c["policy"]), {})
        allocations = r.get("allocations") or 0
        rows.append({"benchmark": workload, "runtime": c["program"], "policy": c["policy"],
                     "ir_per_malloc": c.get("ir_per_malloc"), "ir_per_free": c.get("ir_per_free"),
                     "immediate_pct": 100 * r["satisfied_immediate"] / allocations if allocations and
                     r.get("satisfied_immediate") is not None else None})
        for collector in ("occasional", "continuous"):
            key = (workload, collector, c["policy"])
            if key in kith_cost and not any(x["runtime"] == f"kith {collector}" and x["policy"] == c["policy"]
                                            and x["benchmark"] == workload for x in rows):
                k, ks = kith_cost[key], kith_sat.get(key, {})
                rows.append({"benchmark": workload, "runtime": f"kith {collector}", "policy": c["policy"],
                             "ir_per_malloc": number(k.get("ir_per_malloc")), "ir_per_free": number(k.get("ir_per_free")),
                             "immediate_pct": number(ks.get("immediate_pct"))})
    return sorted(rows, key=lambda x: (x["benchmark"], x["policy"], x["runtime"]))


# --- the driver -------------------------------------------------------------------------

def kith_commit(kith):
    p = subprocess.run([kith, "--version"], capture_output=True, text=True)
    m = re.search(r"\(([^)]*)\)", p.stdout)
    return m.group(1) if m else "unknown"


def third_party_dirs(a):
    build = a.third_party or os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(a.kith))), "third_party")
    sources = a.third_party_sources or os.path.join(os.path.dirname(native_suite.SOURCE_DIR), "shared", "third_party")
    return build, sources


def run(a, log):
    valid = exec_policies(a.kith)
    policies = name_list("policies", a.policies, valid) if a.policies is not None else list(valid)
    if GLIBC not in policies:
        policies.insert(0, GLIBC)  # every time is normalised to glibc's
    build, sources = third_party_dirs(a)
    out = os.path.abspath(a.out)
    places = native_suite.places_for(build, sources, os.path.join(out, "work"))
    suite = native_suite.load(places, a.quick)
    awfy = native_suite.awfy_programs(os.path.abspath(a.awfy), a.quick) if a.awfy else []
    suite += awfy
    programs_by = {p.name: p for p in suite}
    names = name_list("programs", a.programs, list(programs_by)) if a.programs is not None else list(programs_by)
    missing = [n for n in ("cfrac", "espresso") if n in names and not os.access(places[n], os.X_OK)]
    if missing:
        raise StudyError(EXIT_MISSING, f"{places[missing[0]]} is not built (cfrac and espresso build from "
                             f"{sources}; --programs leaves them out)")
    programs = [programs_by[n] for n in names]
    small = {p.name: p for p in native_suite.load(places, True) +
             (native_suite.awfy_programs(os.path.abspath(a.awfy), True) if a.awfy else [])}
    traced = [small[n] for n in names]  # the small inputs: see "trace" above
    if a.report_only:
        marker = read_marker(out)
        if not marker.get("phases"):
            raise StudyError(EXIT_MISSING, f"--report-only: {out} holds no native study ({MARKER} with its phases)")
        return make_report(out, marker, log)
    claim_out_dir(out, a.phases)
    commit = kith_commit(a.kith)
    marker = read_marker(out)
    for phase in a.phases:
        marker.setdefault("phases", {})[phase] = {"commit": commit, "programs": names, "policies": policies,
                                                 "repeat": a.repeat, "quick": a.quick, "heap_size": a.heap_bytes}
    for phase_programs, phase in ((programs, ("timed", "counts")), (traced, ("costs",))):
        if any(x in a.phases for x in phase):  # what each program is, for the report made from this folder
            for p in phase_programs:
                marker.setdefault("programs", {}).setdefault(p.name, {})["what"] = p.what
                marker["programs"][p.name]["timed" if phase != ("costs",) else "traced"] = p.text
    write_text(os.path.join(out, MARKER), json.dumps(marker, indent=1) + "\n")
    timed_or_counted = [x for x in a.phases if x in ("timed", "counts")]
    prepare(programs if timed_or_counted else [])
    prepare(traced if "costs" in a.phases and not a.quick else [])
    refs = reference(programs, out) if timed_or_counted else {}
    tables = {}
    if "timed" in a.phases:
        tables["timed"] = timed_runs(a, programs, policies, refs, out, log)
        write_csv(os.path.join(out, "native_runs.csv"), tables["timed"], list(tables["timed"][0]))
    if "counts" in a.phases:
        tables["counts"] = count_runs(a, programs, policies, refs, out, log)
        write_csv(os.path.join(out, "native_counts.csv"), tables["counts"], COUNT_COLUMNS)
    if "costs" in a.phases:
        replayed = [p for p in policies if p not in NOT_REPLAYED]
        replay_rows, cost_rows = trace_and_replay(a, traced, replayed, out, log)
        write_csv(os.path.join(out, "native_replay.csv"), replay_rows,
                  sorted({k for r in replay_rows for k in r}, key=lambda k: (k not in ("program", "policy"), k)))
        write_csv(os.path.join(out, "native_costs.csv"), cost_rows,
                  sorted({k for r in cost_rows for k in r}, key=lambda k: (k not in ("program", "policy"), k)))
    return make_report(out, marker, log)


def make_report(out, marker, log):
    """The summary, Figure 6 and collectors tables and the report, from the phases' tables in
    `out` (native_runs.csv, native_counts.csv, native_replay.csv, native_costs.csv) and its
    marker: a function of those files, so a published report can be made again from them."""
    rows = read_csv(os.path.join(out, "native_runs.csv"))
    counts = read_csv(os.path.join(out, "native_counts.csv"))
    replay_rows = [numbers(r) for r in read_csv(os.path.join(out, "native_replay.csv"))]
    cost_rows = [numbers(r) for r in read_csv(os.path.join(out, "native_costs.csv"))]
    report_names = list(dict.fromkeys([r["program"] for r in rows + counts + replay_rows]))
    report_policies = list(dict.fromkeys([r["policy"] for r in rows + counts + replay_rows]))
    summary = summarize(rows, counts, report_names, report_policies)
    write_csv(os.path.join(out, "native_summary.csv"), summary, SUMMARY_COLUMNS)
    fig = figure6_rows(summary)
    write_csv(os.path.join(out, "figure6.csv"), fig, list(fig[0]) if fig else ["program"])
    side = collector_rows(cost_rows, replay_rows)
    write_csv(os.path.join(out, "native_collectors.csv"), side,
              ["benchmark", "runtime", "policy", "ir_per_malloc", "ir_per_free", "immediate_pct"])
    write_text(os.path.join(out, "native_report.md"),
               report(report_names, report_policies, summary, replay_rows, cost_rows, marker))
    bad = [r for r in rows + counts if not int(r["output_ok"])]
    log(f"wrote {out}/native_report.md ({len(rows)} timed and {len(counts)} counting runs, "
        f"{len(bad)} failed or differing from glibc)")
    return EXIT_SOFTWARE if bad else 0


COUNT_COLUMNS = ["program", "policy", "exit_code", "output_ok", "max_rss_kib", "allocations", "frees",
                 "peak_bytes_in_use", "peak_requested_bytes", "memory_consumption", "processes"]


def numbers(row):
    """A CSV row with its numeric cells as numbers (the tables are read back for the report)."""
    return {k: (number(v) if k not in ("program", "policy", "trace") and number(v) is not None else v or None)
            for k, v in row.items()}


def read_marker(out):
    try:
        with open(os.path.join(out, MARKER)) as f:
            marker = json.load(f)
        return marker if isinstance(marker, dict) and isinstance(marker.get("phases", {}), dict) else {}
    except (OSError, ValueError):
        return {}


def main(argv):
    def log(message):
        print(f"kith study --native: {message}", file=sys.stderr, flush=True)
    try:
        return run(parse_args(argv), log)
    except StudyError as e:
        log(str(e) + (f"\nkith study --native: {e.hint}" if getattr(e, "hint", "") else ""))
        return e.code
    except KeyboardInterrupt:
        return 130

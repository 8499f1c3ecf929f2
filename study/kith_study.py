#!/usr/bin/python3
"""`kith study`: the allocation study — the workload suite across heap policies x collectors.

`kith study ARGS` execs `/usr/bin/python3 study/kith_study.py --kith=<that kith> ARGS`
(cli/study_command.cpp). Standard library only; the figures are drawn by
study/plot_study.py (matplotlib), which reads nothing but the CSVs this writes.

What runs (each a separate process, written under DIR/runs/<kind>/<run id>.*):
  contrived  `kith bench contrived --json --heap-size=S` for S = 1M ... 256M (Figure 8)
  main       every workload x policy x collector x repeat at the suite's heap size, with
             --stats-file (continuous collector with --gc-pacing=work: deterministic counts)
  pauses     every workload x collector on one policy with --gc-pacing=time and
             --gc-pauses-file: the pause distribution and MMU curves
  minheap    per workload x fixed-heap policy, a bracketing search for the smallest heap
             the run completes in (to within --min-heap-precision, default 2%)
  tradeoff   every workload x policy x collector at multiples of the workload's minimum heap
Repeats are interleaved (repeat 0 of every configuration, then repeat 1, ...), so slow
drift of the machine hits every configuration alike. A run is done when its .rc file
(the exit code) exists; --resume keeps what is done, --plan prints what is left as
shell commands, --merge folds run files made elsewhere into DIR.
Then: results.csv/json (one row per run), summary.csv and the per-figure CSVs, the
figures (plot_study.py) and report.md.
"""

import argparse
import csv
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOT_SCRIPT = os.path.join(SOURCE_DIR, "study", "plot_study.py")
PYTHON = "/usr/bin/python3"

DEFAULT_POLICIES = ["list", "knuth", "estranged", "tlsf", "kingsley", "lea", "malloc"]
DEFAULT_COLLECTORS = ["occasional", "continuous"]
NOT_FIXED_SIZE = {"malloc", "boehm"}  # no minimum heap: the heap size only paces the collector
FULL_MULTIPLES = [1.25, 1.5, 2, 3, 4, 6]
QUICK_MULTIPLES = [1.5, 3]
FULL_CONTRIVED = ["1M", "2M", "4M", "8M", "16M", "32M", "64M", "128M", "256M"]
QUICK_CONTRIVED = ["1M", "4M", "16M"]
QUICK_WORKLOADS = 3
KINDS = ["contrived", "main", "pauses", "minheap", "tradeoff"]
TIMEOUT_EXIT = 124  # as timeout(1)
FALLBACK_ROW = {"name": "binary_trees", "script": "examples/binary_trees.kith", "default_args": "16",
                "small_args": "10", "heap_size": "64M", "stresses": "short-lived binary trees (fallback row)"}


# --- small helpers ----------------------------------------------------------------------

def parse_size(text):
    """'64M' -> 67108864 (binary units, as kith's --heap-size)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", str(text), re.I)
    if not m:
        raise ValueError(f"not a size: {text!r} (like 512K, 64M, 1G)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def format_size(n):
    if n is None or n == "":
        return ""
    n = int(n)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f}M"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f}K"
    return str(n)


def format_duration(seconds):
    seconds = int(max(seconds, 0))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def safe_name(name):
    s = re.sub(r"[^A-Za-z0-9.-]+", "_", name)
    return re.sub(r"_+", "_", s).strip("_") or "w"


def fmt(x, digits=3):
    if x is None or x == "":
        return ""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return ""
        return f"{x:.{digits}g}" if abs(x) < 1e6 else f"{x:.0f}"
    return str(x)


def write_csv(path, rows, columns):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
    os.replace(tmp, path)


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def warn(message):
    print(f"kith study: {message}", file=sys.stderr)


# --- the suite --------------------------------------------------------------------------

class Workload:
    def __init__(self, row, base_dirs):
        self.name = safe_name(row["name"])
        self.script = self.resolve(row["script"], base_dirs)
        self.default_args = shlex.split(row.get("default_args") or "")
        self.small_args = shlex.split(row.get("small_args") or "") or self.default_args
        self.heap_size = parse_size(row.get("heap_size") or "64M")
        self.stresses = (row.get("stresses") or "").strip()

    @staticmethod
    def resolve(script, base_dirs):
        if os.path.isabs(script):
            return script
        for d in base_dirs:
            p = os.path.join(d, script)
            if os.path.exists(p):
                return os.path.abspath(p)
        return os.path.abspath(os.path.join(base_dirs[0], script))

    def args(self, argset):
        return self.small_args if argset == "small" else self.default_args


def read_suite(path):
    """The suite file's rows (tab-separated, a header line; '#' lines are comments). An
    empty suite gives the built-in binary_trees row."""
    suite_dir = os.path.dirname(os.path.abspath(path))
    bases = [suite_dir, os.path.dirname(suite_dir), SOURCE_DIR]
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            header = [h.strip() for h in lines[0].split("\t")]
            for ln in lines[1:]:
                cells = ln.split("\t")
                row = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
                if row.get("name") and row.get("script"):
                    rows.append(row)
    if not rows:
        return [Workload(FALLBACK_ROW, [SOURCE_DIR])], True
    seen, out = set(), []
    for r in rows:
        w = Workload(r, bases)
        if w.name in seen:
            continue
        seen.add(w.name)
        out.append(w)
    return out, False


def quick_subset(workloads, count=QUICK_WORKLOADS):
    """A few workloads that stress different things: the first of each distinct `stresses`
    value in suite order, then the next rows in order."""
    chosen, kinds = [], set()
    for w in workloads:
        key = w.stresses.lower()
        if key not in kinds and len(chosen) < count:
            kinds.add(key)
            chosen.append(w)
    for w in workloads:
        if len(chosen) >= count:
            break
        if w not in chosen:
            chosen.append(w)
    return [w for w in workloads if w in chosen]


# --- runs -------------------------------------------------------------------------------

class Run:
    """One process of the study. Its id names everything the results need."""

    def __init__(self, kind, workload="-", argset="-", policy="-", collector="-", heap=0, repeat=0,
                 multiple=None):
        self.kind, self.workload, self.argset = kind, workload, argset
        self.policy, self.collector, self.heap, self.repeat = policy, collector, int(heap), int(repeat)
        self.multiple = multiple
        self.timeout = None
        self.script, self.args = None, []

    @property
    def id(self):
        parts = [self.kind, self.workload, self.argset, self.policy, self.collector, f"h{self.heap}",
                 f"r{self.repeat}"]
        if self.multiple is not None:
            parts.append(f"m{self.multiple:g}")
        return "__".join(parts)

    @staticmethod
    def parse(run_id):
        parts = run_id.split("__")
        if len(parts) not in (7, 8) or parts[0] not in KINDS:
            return None
        try:
            r = Run(parts[0], parts[1], parts[2], parts[3], parts[4], int(parts[5][1:]), int(parts[6][1:]))
            if len(parts) == 8:
                r.multiple = float(parts[7][1:])
        except ValueError:
            return None
        return r

    @property
    def timing(self):
        return self.kind != "minheap"  # probes only ask "does it fit?"

    @property
    def pacing(self):
        if self.collector != "continuous":
            return ""
        return "time" if self.kind == "pauses" else "work"

    def path(self, ext):
        return os.path.join("runs", self.kind, f"{self.id}.{ext}")

    def argv(self, kith):
        if self.kind == "contrived":
            return [kith, "bench", "contrived", "--json", f"--heap-size={self.heap}"]
        argv = [kith, "run", f"--heap={self.policy}", f"--gc={self.collector}", f"--heap-size={self.heap}"]
        if self.collector == "continuous":
            argv.append(f"--gc-pacing={self.pacing}")
        if self.kind == "pauses":
            argv.append(f"--gc-pauses-file={self.path('pauses')}")
        argv.append(f"--stats-file={self.path('json')}")
        return argv + [self.script] + list(self.args)

    def shell_command(self, kith):
        """One self-contained line: run it in any directory, then --merge that directory."""
        q = shlex.quote
        timeout = f"timeout {int(self.timeout)} " if self.timeout else ""
        argv = " ".join(q(a) for a in self.argv(kith))
        if self.kind == "contrived":
            redirect = f">{q(self.path('json'))} 2>{q(self.path('log'))}"
        else:
            redirect = f">{q(self.path('log'))} 2>&1"
        return (f"mkdir -p runs/{self.kind} && {timeout}{argv} {redirect}; "
                f"echo $? >{q(self.path('rc'))}")


def run_files(out_dir):
    """{run id: exit code} of every finished run under out_dir/runs."""
    done = {}
    runs_dir = os.path.join(out_dir, "runs")
    if not os.path.isdir(runs_dir):
        return done
    for kind in os.listdir(runs_dir):
        d = os.path.join(runs_dir, kind)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if name.endswith(".rc"):
                try:
                    with open(os.path.join(d, name)) as f:
                        done[name[:-3]] = int(f.read().strip() or "-1")
                except (OSError, ValueError):
                    pass
    return done


def load_stats(out_dir, run):
    path = os.path.join(out_dir, run.path("json"))
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# --- the plan ---------------------------------------------------------------------------

class Study:
    def __init__(self, config, workloads, kith):
        self.config = config
        self.workloads = workloads
        self.by_name = {w.name: w for w in workloads}
        self.kith = kith
        self.argset = config["argset"]

    def make(self, kind, w, policy="-", collector="-", heap=0, repeat=0, multiple=None):
        r = Run(kind, w.name if w else "-", self.argset if w else "-", policy, collector, heap, repeat, multiple)
        if w:
            r.script, r.args = w.script, w.args(self.argset)
        r.timeout = self.config["timeout"]
        return r

    def minheap_policies(self):
        return [p for p in self.config["policies"] if p not in NOT_FIXED_SIZE]

    def searching(self):
        """Whether the study searches minimum heaps (and so sizes heaps from them)."""
        return "minheap" in self.config["experiments"] and bool(self.minheap_policies())

    def refresh(self, out_dir):
        """Reads what is done in out_dir: exit codes, the probes of each search, and the
        most live bytes any run of each workload saw at a collection (a lower bound on its
        peak live data, hence on its minimum heap). Statistics files are read once."""
        self.out = out_dir
        self.done = run_files(out_dir)
        self.probes = {}
        self.live_floor = {}
        if not hasattr(self, "stats_cache"):
            self.stats_cache = {}
        for run_id, rc in self.done.items():
            r = Run.parse(run_id)
            if not r or r.kind == "contrived" or r.argset != self.argset:
                continue
            if r.kind == "minheap":
                self.probes.setdefault((r.workload, r.policy, r.collector), {})[r.heap] = rc
            if run_id not in self.stats_cache:
                self.stats_cache[run_id] = load_stats(out_dir, r)
            s = self.stats_cache[run_id]
            if s:
                live = int(s.get("gc", {}).get("peak_live_bytes", 0) or 0)
                self.live_floor[r.workload] = max(self.live_floor.get(r.workload, 0), live)
        return self.done

    def out_of_memory(self, run):
        try:
            with open(os.path.join(self.out, run.path("log")), errors="replace") as f:
                return "out of memory" in f.read()
        except OSError:
            return False

    def minheap_state(self, w, policy):
        """The search for the smallest heap w completes in on `policy`, from the probes
        done: (status, low, high, wall). It starts with a probe at the suite's heap size
        (whose wall time sets the later probes' timeout), doubles while nothing works,
        then bisects between the largest size that failed (or the peak live bytes) and
        the smallest that worked. status: 'searching', 'found', 'none' (nothing up to
        the cap works) or 'error' (the first probe failed, and not for want of memory)."""
        col = self.config["minheap_collector"]
        probes = self.probes.get((w.name, policy, col), {})
        first = self.make("minheap", w, policy, col, w.heap_size, 0)
        if w.heap_size not in probes:
            return "searching", None, None, None
        s = self.stats_cache.get(first.id)
        wall = float(s["vm"]["wall_s"]) if s and "vm" in s else None
        if probes[w.heap_size] != 0 and not self.out_of_memory(first):
            return "error", None, None, wall
        works = [h for h, rc in probes.items() if rc == 0]
        fails = [h for h, rc in probes.items() if rc != 0]
        floor = max(self.live_floor.get(w.name, 0), 16 << 10)
        if not works:
            top = max(fails)
            if top >= self.config["heap_cap"]:
                return "none", top, None, wall
            return "searching", top, None, wall
        high = min(works)
        low = max([h for h in fails if h < high] + [floor - 1])
        if not stats.next_probes(low, high, self.config["precision"], 1):
            return "found", low, high, wall
        return "searching", low, high, wall

    def minheap_runs(self):
        runs = []
        for w in self.workloads:
            for p in self.minheap_policies():
                status, low, high, wall = self.minheap_state(w, p)
                if status != "searching":
                    continue
                timeout = self.config["timeout"]
                if low is None:
                    sizes = [w.heap_size]
                elif high is None:
                    sizes = [min(low * 2, self.config["heap_cap"])]  # nothing works yet: double
                else:
                    sizes = stats.next_probes(low, high, self.config["precision"], self.config["probes"])
                if wall is not None:
                    timeout = min(timeout, max(self.config["probe_timeout_min"],
                                               self.config["probe_timeout_factor"] * wall))
                for h in sizes:
                    r = self.make("minheap", w, p, self.config["minheap_collector"], h, 0)
                    r.timeout = int(math.ceil(timeout))
                    if r.id not in self.done:
                        runs.append(r)
        return runs

    def min_heap_base(self, w):
        """(ready, base): the workload's minimum heap, the smallest over the fixed-size
        policies; ready is False while a search is unfinished, base None when none was
        found (or the study does not search)."""
        if not self.searching():
            return True, None
        found = []
        for p in self.minheap_policies():
            status, _, high, _ = self.minheap_state(w, p)
            if status == "searching":
                return False, None
            if status == "found":
                found.append(high)
        return True, (min(found) if found else None)

    def sized(self, base, multiple):
        return int(math.ceil(base * multiple / 1024) * 1024)

    def main_heap(self, w, base):
        """The heap of the main and pause runs: --main-heap times the minimum heap, or the
        suite's heap_size (--main-heap=suite, or no minimum heap known)."""
        factor = self.config["main_heap"]
        if factor == "suite" or base is None:
            return w.heap_size
        return self.sized(base, float(factor))

    def sized_runs(self):
        """Main, pause and trade-off runs of the workloads whose heap sizes are known."""
        c = self.config
        ready = {}
        for w in self.workloads:
            ok, base = self.min_heap_base(w)
            if ok:
                ready[w.name] = base
        runs = []
        for rep in range(c["repeat"]):
            for w in self.workloads:
                if w.name not in ready:
                    continue
                heap = self.main_heap(w, ready[w.name])
                for col in c["collectors"]:
                    for p in c["policies"]:
                        runs.append(self.make("main", w, p, col, heap, rep))
        for rep in range(c["pause_repeat"]):
            for w in self.workloads:
                if w.name not in ready:
                    continue
                heap = self.main_heap(w, ready[w.name])
                for col in c["collectors"]:
                    if col != "none":
                        runs.append(self.make("pauses", w, c["pause_policy"], col, heap, rep))
        for rep in range(c["tradeoff_repeat"]):
            for m in c["multiples"]:
                for w in self.workloads:
                    if ready.get(w.name) is None:
                        continue
                    heap = self.sized(ready[w.name], m)
                    for col in c["collectors"]:
                        for p in c["policies"]:
                            runs.append(self.make("tradeoff", w, p, col, heap, rep, multiple=m))
        return runs

    def plan(self, out_dir):
        """The runs not done yet that can run now: the contrived runs and the minimum-heap
        probes at once, the rest of a workload's runs once its minimum heap is known."""
        self.refresh(out_dir)
        c = self.config
        runs = []
        for rep in range(c["contrived_repeat"]):
            for size in c["contrived_sizes"]:
                runs.append(self.make("contrived", None, heap=size, repeat=rep))
        if self.searching():
            runs += self.minheap_runs()
        runs += self.sized_runs()
        return [r for r in runs if r.kind in c["experiments"] and r.id not in self.done]

    def estimate_remaining(self, planned):
        """Runs still to come after `planned` (later rounds of the searches, and the runs
        that wait for them), roughly."""
        c = self.config
        have = {}
        for k in list(self.done) + [r.id for r in planned]:
            kind = k.split("__", 1)[0]
            have[kind] = have.get(kind, 0) + 1
        w, pol, col = len(self.workloads), len(c["policies"]), len(c["collectors"])
        expected = {"main": c["repeat"] * w * pol * col,
                    "pauses": c["pause_repeat"] * w * len([x for x in c["collectors"] if x != "none"]),
                    "tradeoff": c["tradeoff_repeat"] * len(c["multiples"]) * w * pol * col if self.searching() else 0,
                    "minheap": 0}
        if self.searching():
            rounds = 1 + math.ceil(math.log2(max(math.log(4096) / math.log1p(c["precision"]), 2)))
            expected["minheap"] = w * len(self.minheap_policies()) * rounds
        return sum(max(expected[k] - have.get(k, 0), 0) for k in expected if k in c["experiments"])


# --- running ----------------------------------------------------------------------------

class Progress:
    def __init__(self, enabled):
        self.enabled = enabled
        self.start = time.monotonic()
        self.done = 0
        self.durations = {}
        self.last = 0

    def finished(self, run, seconds):
        self.done += 1
        self.durations.setdefault(run.kind, []).append(seconds)

    def mean(self, kind):
        d = self.durations.get(kind) or [x for v in self.durations.values() for x in v]
        return sum(d) / len(d) if d else None

    def show(self, pending, running, extra, jobs, label):
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and pending:
            return
        self.last = now
        work = 0.0
        known = True
        for r in list(pending) + list(running):
            m = self.mean(r.kind)
            if m is None:
                known = False
                break
            work += m
        m = self.mean("minheap") or self.mean("main")
        if m is not None:
            work += extra * m
        total = self.done + len(pending) + len(running) + extra
        eta = f"ETA ~{format_duration(work / max(jobs, 1))}" if known and self.done else "ETA ?"
        line = (f"[{self.done:>5}/{total:<5}] {100 * self.done // max(total, 1):>3}%  "
                f"elapsed {format_duration(now - self.start)}  {eta}  {label}")
        cols = shutil.get_terminal_size((100, 20)).columns
        sys.stderr.write("\r\x1b[K" + line[:cols - 1])
        sys.stderr.flush()

    def end(self):
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def execute(runs, out_dir, kith, jobs, timing_jobs, progress, extra, log):
    """Runs `runs` in order, `jobs` at a time; a timing run never runs beside more than
    timing_jobs - 1 others. Each run's exit code goes to its .rc file last."""
    pending = list(runs)
    running = []  # (run, process, start, log file)
    failures = []
    for kind in {r.kind for r in runs}:
        os.makedirs(os.path.join(out_dir, "runs", kind), exist_ok=True)

    def can_start(r):
        n = len(running)
        if n >= jobs:
            return False
        if r.timing or any(x[0].timing for x in running):
            return n < timing_jobs
        return True

    def finish(item, rc):
        r, proc, start, logf = item
        logf.close()
        seconds = time.monotonic() - start
        with open(os.path.join(out_dir, r.path("rc")), "w") as f:
            f.write(f"{rc}\n")
        progress.finished(r, seconds)
        if rc != 0 and r.kind in ("main", "pauses", "contrived"):
            failures.append((r, rc))
            progress.end()
            warn(f"{r.id} exited {rc} (see {os.path.join(out_dir, r.path('log'))})")
        log.append(r)

    try:
        while pending or running:
            while pending and can_start(pending[0]):
                r = pending.pop(0)
                for ext in ("json", "pauses", "log"):
                    try:
                        os.remove(os.path.join(out_dir, r.path(ext)))
                    except FileNotFoundError:
                        pass
                if r.kind == "contrived":
                    logf = open(os.path.join(out_dir, r.path("json")), "w")
                    errf = open(os.path.join(out_dir, r.path("log")), "w")
                else:
                    logf = open(os.path.join(out_dir, r.path("log")), "w")
                    errf = subprocess.STDOUT
                proc = subprocess.Popen(r.argv(kith), cwd=out_dir, stdout=logf, stderr=errf,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
                if errf is not subprocess.STDOUT:
                    errf.close()
                running.append((r, proc, time.monotonic(), logf))
            label = f"{running[-1][0].kind} {running[-1][0].workload} {running[-1][0].policy}/" \
                    f"{running[-1][0].collector}" if running else ""
            progress.show(pending, [x[0] for x in running], extra, jobs, label)
            time.sleep(0.02)
            for item in list(running):
                r, proc, start, _ = item
                rc = proc.poll()
                if rc is None and r.timeout and time.monotonic() - start > r.timeout:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    rc = TIMEOUT_EXIT
                if rc is not None:
                    running.remove(item)
                    finish(item, rc if rc >= 0 else 128 - rc)
    except KeyboardInterrupt:
        for r, proc, _, logf in running:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            logf.close()
        progress.end()
        warn("interrupted; finished runs are kept (continue with --resume)")
        raise
    progress.end()
    return failures


# --- results ----------------------------------------------------------------------------

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


# --- report -----------------------------------------------------------------------------

FIGURES = [
    ("fig1-workloads", "Workloads (the paper's Figure 7)"),
    ("fig2-worst-case-request", "The worst-case request against heap size (Figure 8)"),
    ("fig3-speedup", "Speedup over `list` (Figure 9)"),
    ("fig4-satisfied", "How requests were satisfied (Figure 10)"),
    ("fig5-request-sizes", "Request sizes (Figure 11)"),
    ("fig6-pauses-mmu", "GC pauses and minimum mutator utilization"),
    ("fig7-time-space", "Time-space trade-off"),
    ("fig8-min-heap", "Minimum heap"),
    ("fig9-fragmentation", "Fragmentation (Johnstone & Wilson)"),
]


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


def version_info(kith, build):
    try:
        version = subprocess.run([kith, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = "?"
    commit, dirty = "", False
    try:
        commit = subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=30).stdout.strip()
        st = subprocess.run(["git", "-C", SOURCE_DIR, "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=30).stdout
        dirty = bool(st.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return {"version": version, "commit": commit, "dirty": dirty, "build": build, "kith": kith}


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
    c = study.config
    L = []
    L.append("# Kith allocation study")
    L.append("")
    L.append(f"Generated by `kith study` on {time.strftime('%Y-%m-%d %H:%M:%S %Z')}. Every number below comes from "
             f"the CSV files next to this report, which come from the runs under `runs/`; "
             f"`/usr/bin/python3 {PLOT_SCRIPT} {out_dir}` redraws the figures from the CSVs alone.")
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
    L.append("Timing figures (3, 6, 7, and 2) depend on the machine's load; count figures (4, 5, 8, 9) do not: "
             "the continuous collector runs with `--gc-pacing=work` in every run except the pause runs, so its "
             "counts are identical run to run (the `counts_identical` column of `satisfied.csv` checks it).")
    L.append("")
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
             f"({'small' if study.argset == 'small' else 'default'} arguments"
             f"{'; the suite file was empty, so the built-in binary_trees row' if info.get('fallback') else ''}); "
             f"policies {', '.join(c['policies'])}; collectors {', '.join(c['collectors'])}; {c['repeat']} repeats "
             f"(interleaved); main and pause runs at "
             f"{'the suite' + chr(39) + 's heap_size' if c['main_heap'] == 'suite' else c['main_heap'] + 'x the workload' + chr(39) + 's minimum heap'}"
             f"; pause runs on `{c['pause_policy']}`; minimum heap with `{c['minheap_collector']}` to "
             f"{100 * c['precision']:g}%; trade-off at {', '.join(f'{x:g}x' for x in c['multiples'])} of the "
             f"smallest minimum heap of each workload, {c['tradeoff_repeat']} repeat(s); jobs {c['jobs']} "
             f"(timing runs {c['timing_jobs']} at a time).")
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

    def figure(idx):
        name, title = FIGURES[idx]
        L.append(f"## {idx + 1}. {title}")
        L.append("")
        if figures_ok:
            L.append(f"![{title}](figures/{name}.png)")
            L.append("")
            L.append(f"[SVG](figures/{name}.svg)")
            L.append("")

    figure(0)
    wl, _ = tables["workloads"]
    L.append(md_table(wl, ["workload", "args", "objects", "bytes", "mean_object_bytes", "peak_live_bytes",
                           "heap_size", "run_time_s", "timed_on", "stresses"],
                      ["workload", "args", "objects", "bytes", "mean size (B)", "peak live", "heap", "run time (s)",
                       "timed on", "stresses"],
                      {"objects": lambda x: f"{x:,.0f}", "bytes": lambda x: f"{x:,.0f}",
                       "mean_object_bytes": lambda x: f"{x:.1f}", "peak_live_bytes": lambda x: format_size(int(x)),
                       "heap_size": lambda x: format_size(int(x)),
                       "run_time_s": lambda x: f"{x:.3f}"}))
    L.append("")
    L.append("Objects and bytes as requested from the heap; peak live is the most bytes any collection found "
             "reachable in any run of the workload (a lower bound on the true peak); run time is the median wall "
             "time of the main runs on the policy/collector named (with `--stats-file`, which times every malloc "
             "and free).")
    L.append("")

    figure(1)
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

    figure(2)
    sp, _ = tables["speedup"]
    L.append("Speedup = mean wall time on `list` / mean wall time on the policy, same workload and collector; "
             "95% interval by Fieller's theorem (Georges et al. 2007 for the per-configuration intervals).")
    L.append("")
    L.append(pivot(sp, "workload", "collector", "policy", lambda r: ci_text(r["speedup"], r["ci_low"], r["ci_high"]),
                   [p for p in c["policies"] if p != "list"]))
    L.append("")

    figure(3)
    sat, _ = tables["satisfied"]
    L.append("Percent of requests met immediately / by splitting / by gluing / by defragmenting, from repeat 0 "
             "(`counts_identical`: every repeat gave the same counts).")
    L.append("")
    L.append(md_table(sat, ["workload", "collector", "policy", "requests", "immediate_pct", "split_pct", "glue_pct",
                            "defrag_pct", "failed_pct", "counts_identical"],
                      ["workload", "collector", "policy", "requests", "immediate", "split", "glue", "defrag",
                       "failed", "identical"],
                      {"requests": lambda x: f"{x:,.0f}", "immediate_pct": pct, "split_pct": pct, "glue_pct": pct,
                       "defrag_pct": pct, "failed_pct": pct}))
    L.append("")

    figure(4)
    sizes, _ = tables["sizes"]
    L.append("Requests by power-of-two size class (the block sizes of the buddy policies; fraction of requests).")
    L.append("")
    L.append(pivot(sizes, "workload", None, "size_class", lambda r: f"{100 * r['fraction']:.1f}%",
                   sorted({r["size_class"] for r in sizes})))
    L.append("")

    figure(5)
    ps, _ = tables["pauses"]
    L.append(f"Pause runs on `{c['pause_policy']}`, continuous with `--gc-pacing=time`; MMU from the whole pause "
             "list (`mmu.csv` has windows from 0.1 ms to 1 s).")
    L.append("")
    L.append(md_table(ps, ["workload", "collector", "pauses", "total_ms", "p50_ms", "p99_ms", "max_ms", "mmu_1ms",
                           "mmu_10ms", "mmu_100ms"],
                      ["workload", "collector", "pauses", "total ms", "p50 ms", "p99 ms", "max ms", "MMU 1 ms",
                       "MMU 10 ms", "MMU 100 ms"],
                      {"total_ms": lambda x: f"{x:.1f}", "p50_ms": lambda x: f"{x:.3f}",
                       "p99_ms": lambda x: f"{x:.3f}", "max_ms": lambda x: f"{x:.3f}",
                       "mmu_1ms": lambda x: f"{x:.2f}", "mmu_10ms": lambda x: f"{x:.2f}",
                       "mmu_100ms": lambda x: f"{x:.2f}"}))
    L.append("")

    figure(6)
    summ, _ = tables["summary"]
    tr = [r for r in summ if r["kind"] == "tradeoff"]
    L.append("Median wall time (s) / median GC time (ms) at each multiple of the workload's minimum heap "
             "(empty: the run did not complete at that size).")
    L.append("")
    trows = []
    for r in tr:
        trows.append({"workload": r["workload"], "collector": r["collector"], "policy": r["policy"],
                      "m": f"{float(r['multiple']):g}x",
                      "v": "" if r["wall_s_median"] is None else f"{r['wall_s_median']:.3f} / {r['gc_ms_median']:.1f}"})
    L.append(pivot(trows, "workload", "collector", "m", lambda r: r["v"],
                   [f"{x:g}x" for x in c["multiples"]], extra_key="policy"))
    L.append("")

    figure(7)
    mh, _ = tables["minheap"]
    L.append(f"Smallest heap (searched to within {100 * c['precision']:g}%) in which the workload completes, "
             f"collector `{c['minheap_collector']}`.")
    L.append("")
    L.append(pivot(mh, "workload", None, "policy",
                   lambda r: format_size(r["min_heap_bytes"]) if r["min_heap_bytes"] else r["status"],
                   study.minheap_policies()))
    L.append("")

    figure(8)
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
    L.append("## Files")
    L.append("")
    L.append("`results.csv` / `results.json` (one row per `kith run`: every statistic of the JSON, flattened), "
             "`summary.csv` (median, mean and 95% interval per configuration), `workloads.csv`, "
             "`contrived.csv` + `contrived_summary.csv`, `speedup.csv`, `satisfied.csv`, `sizes.csv`, "
             "`pauses.csv` + `mmu.csv` + `pause_summary.csv`, `minheap.csv`, `fragmentation.csv`, "
             "`commands.txt`, `study.json`, `runs/` (every run's statistics, output and exit code).")
    L.append("")
    with open(os.path.join(out_dir, "report.md.tmp"), "w") as f:
        f.write("\n".join(L))
    os.replace(os.path.join(out_dir, "report.md.tmp"), os.path.join(out_dir, "report.md"))


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
    if not os.path.exists(PLOT_SCRIPT):
        warn(f"the plotting script {PLOT_SCRIPT} is missing; no figures")
        return False
    r = subprocess.run([PYTHON, PLOT_SCRIPT, out_dir])
    if r.returncode != 0:
        warn("drawing the figures failed (matplotlib: apt-get install python3-matplotlib; scripts/setup does it)")
        return False
    return True


# --- the command line -------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="kith study",
        description="Runs the workload suite (workloads/suite.tsv) across heap policies x collectors, each run "
                    "a separate `kith run` process, and writes raw results, a summary with 95% confidence "
                    "intervals, figures and report.md into --out.",
        epilog="Batch systems: `kith study --plan` prints every run that can run now, one shell command per line "
               "(run them anywhere, each in the same directory), `kith study --merge THAT_DIR... --out=DIR` folds "
               "their files in and redraws; --plan again for the next round of the minimum-heap search, until it "
               "prints nothing. See the README.")
    ap.add_argument("--kith", required=True, help=argparse.SUPPRESS)
    ap.add_argument("--kith-build", default="", help=argparse.SUPPRESS)
    ap.add_argument("--workloads", default="all", help="comma-separated names from the suite, or all (default)")
    ap.add_argument("--policies", default=None,
                    help=f"comma-separated heap policies (default {','.join(DEFAULT_POLICIES)})")
    ap.add_argument("--collectors", default=None,
                    help=f"comma-separated collectors (default {','.join(DEFAULT_COLLECTORS)})")
    ap.add_argument("--repeat", type=int, default=None, help="runs of each configuration (default 5; quick 1)")
    ap.add_argument("--jobs", type=int, default=None, help="processes at a time (default: the number of cores)")
    ap.add_argument("--timing-jobs", type=int, default=None,
                    help="processes at a time while a timing run is running (default --jobs; 1 for quiet timings)")
    ap.add_argument("--out", default="build/study", help="results directory (default build/study)")
    ap.add_argument("--quick", action="store_true",
                    help=f"small arguments, 1 repeat, {QUICK_WORKLOADS} workloads, heap multiples "
                         f"{','.join(f'{x:g}' for x in QUICK_MULTIPLES)}, contrived up to 16M: a few minutes")
    ap.add_argument("--resume", action="store_true", help="keep the runs already in --out and do the rest")
    ap.add_argument("--plan", action="store_true",
                    help="print the runs that can run now as shell commands, one per line, and exit")
    ap.add_argument("--merge", nargs="+", metavar="DIR",
                    help="fold the run files found under DIR... into --out, then write results and figures")
    ap.add_argument("--suite", default=os.path.join(SOURCE_DIR, "workloads", "suite.tsv"),
                    help="the workload suite file (default workloads/suite.tsv)")
    ap.add_argument("--experiments", default=",".join(KINDS),
                    help=f"which kinds of run (default all: {','.join(KINDS)})")
    ap.add_argument("--main-heap", default="2",
                    help="heap of the main and pause runs: this multiple of the workload's minimum heap "
                         "(default 2), or 'suite' for the suite's heap_size column")
    ap.add_argument("--pause-policy", default=None,
                    help="policy of the pause/MMU runs (default estranged, else the first policy)")
    ap.add_argument("--min-heap-collector", default=None,
                    help="collector of the minimum-heap search (default occasional, else the first collector)")
    ap.add_argument("--min-heap-precision", type=float, default=0.02,
                    help="stop the search when the bracket is within this fraction (default 0.02)")
    ap.add_argument("--probes-per-round", type=int, default=1,
                    help="heap sizes tried at once per search (1: bisection; more: fewer rounds in batch)")
    ap.add_argument("--heap-multiples", default=None,
                    help=f"trade-off heap sizes, multiples of the minimum heap "
                         f"(default {','.join(f'{x:g}' for x in FULL_MULTIPLES)})")
    ap.add_argument("--tradeoff-repeat", type=int, default=None, help="repeats of the trade-off runs (default 1)")
    ap.add_argument("--contrived-sizes", default=None,
                    help=f"heap sizes of the worst-case request (default {','.join(FULL_CONTRIVED)})")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds before a run is killed (default 3600)")
    ap.add_argument("--no-figures", action="store_true", help="write the CSVs and report without figures")
    return ap.parse_args(argv)


def kith_policies(kith):
    try:
        out = subprocess.run([kith, "policies"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise SystemExit(f"kith study: cannot run {kith}: {e}")
    names = []
    for line in out.splitlines():
        parts = line.split(None, 1)
        if parts and "collector:" not in line:
            names.append(parts[0])
    return names


def build_config(a, kith):
    known_policies = kith_policies(kith)
    policies = a.policies.split(",") if a.policies else [p for p in DEFAULT_POLICIES if p in known_policies]
    for p in policies:
        if p not in known_policies:
            raise SystemExit(f"kith study: unknown policy '{p}'; valid: {', '.join(known_policies)}")
    collectors = a.collectors.split(",") if a.collectors else list(DEFAULT_COLLECTORS)
    for col in collectors:
        if col not in ("occasional", "continuous", "none"):
            raise SystemExit(f"kith study: unknown collector '{col}'; valid: occasional, continuous, none")
    experiments = a.experiments.split(",")
    for e in experiments:
        if e not in KINDS:
            raise SystemExit(f"kith study: unknown experiment '{e}'; valid: {', '.join(KINDS)}")
    repeat = a.repeat if a.repeat is not None else (1 if a.quick else 5)
    if repeat < 1:
        raise SystemExit("kith study: --repeat wants at least 1")
    jobs = a.jobs or os.cpu_count() or 1
    if jobs < 1:
        raise SystemExit("kith study: --jobs wants at least 1")
    mh_col = a.min_heap_collector or ("occasional" if "occasional" in collectors else collectors[0])
    multiples = ([float(x) for x in a.heap_multiples.split(",")] if a.heap_multiples
                 else (QUICK_MULTIPLES if a.quick else FULL_MULTIPLES))
    sizes = [parse_size(s) for s in (a.contrived_sizes.split(",") if a.contrived_sizes
                                     else (QUICK_CONTRIVED if a.quick else FULL_CONTRIVED))]
    if a.main_heap != "suite":
        try:
            if float(a.main_heap) < 1:
                raise ValueError
        except ValueError:
            raise SystemExit(f"kith study: --main-heap wants a multiple of at least 1, or suite; got '{a.main_heap}'")
    if not 0 < a.min_heap_precision < 1:
        raise SystemExit("kith study: --min-heap-precision wants a fraction in (0, 1), like 0.02")
    return {
        "argset": "small" if a.quick else "default", "quick": a.quick, "policies": policies,
        "collectors": collectors, "repeat": repeat, "jobs": jobs, "timing_jobs": min(a.timing_jobs or jobs, jobs),
        "experiments": experiments,
        "pause_policy": a.pause_policy or ("estranged" if "estranged" in policies else policies[0]), "pause_repeat": 1,
        "minheap_collector": mh_col, "precision": a.min_heap_precision, "probes": max(1, a.probes_per_round),
        "multiples": multiples, "tradeoff_repeat": a.tradeoff_repeat if a.tradeoff_repeat is not None else 1,
        "contrived_sizes": sizes, "contrived_repeat": repeat, "timeout": a.timeout, "heap_cap": 4 << 30,
        "probe_timeout_min": 30, "probe_timeout_factor": 20, "suite": os.path.abspath(a.suite),
        "workloads": a.workloads, "main_heap": a.main_heap,
    }


def select_workloads(all_workloads, spec, quick):
    if spec == "all":
        return quick_subset(all_workloads) if quick else all_workloads
    by = {w.name: w for w in all_workloads}
    chosen = []
    for name in spec.split(","):
        if name not in by:
            raise SystemExit(f"kith study: unknown workload '{name}'; the suite has: {', '.join(by)}")
        chosen.append(by[name])
    return chosen


def merge(dirs, out_dir):
    """Copies every run's files found under dirs into out_dir/runs/<kind>/."""
    count = 0
    for d in dirs:
        for root, _, files in os.walk(d):
            for name in files:
                if not name.endswith(".rc"):
                    continue
                run_id = name[:-3]
                r = Run.parse(run_id)
                if not r:
                    continue
                dest = os.path.join(out_dir, "runs", r.kind)
                os.makedirs(dest, exist_ok=True)
                for ext in ("json", "log", "pauses", "rc"):  # .rc last: the run counts as done once it is there
                    src = os.path.join(root, f"{run_id}.{ext}")
                    dst = os.path.join(dest, f"{run_id}.{ext}")
                    if os.path.exists(src) and os.path.abspath(src) != os.path.abspath(dst):
                        shutil.copyfile(src, dst)
                count += 1
    return count


def main(argv):
    a = parse_args(argv)
    kith = os.path.abspath(a.kith)
    out_dir = os.path.abspath(a.out)
    os.makedirs(out_dir, exist_ok=True)
    state_path = os.path.join(out_dir, "study.json")
    previous = {}
    if os.path.exists(state_path):
        try:
            with open(state_path) as f:
                previous = json.load(f)
        except (OSError, ValueError):
            previous = {}
    config = build_config(a, kith)
    all_workloads, fallback = read_suite(config["suite"])
    workloads = select_workloads(all_workloads, a.workloads, a.quick)
    config["workload_names"] = [w.name for w in workloads]
    study = Study(config, workloads, kith)
    invocation = "kith study " + " ".join(shlex.quote(x) for x in argv if not x.startswith(("--kith=",
                                                                                             "--kith-build=")))
    invocations = previous.get("invocations", []) if (a.resume or a.merge or a.plan) else []
    invocations.append(invocation)
    load_start = previous.get("load_start") if (a.resume or a.merge) and previous.get("load_start") else \
        " ".join(f"{x:.2f}" for x in os.getloadavg())

    if not (a.resume or a.merge or a.plan) and os.path.isdir(os.path.join(out_dir, "runs")):
        shutil.rmtree(os.path.join(out_dir, "runs"))  # a fresh study (--resume keeps them)

    def save_state():
        with open(state_path + ".tmp", "w") as f:
            json.dump({"config": config, "invocations": invocations, "load_start": load_start,
                       "fallback_row": fallback}, f, indent=1)
        os.replace(state_path + ".tmp", state_path)

    save_state()
    commands_path = os.path.join(out_dir, "commands.txt")
    examples = {}

    def record_commands(runs):
        with open(commands_path, "a") as f:
            for r in runs:
                line = r.shell_command(kith)
                f.write(line + "\n")
                examples.setdefault(r.kind, line)

    if a.plan:
        runs = study.plan(out_dir)
        for r in runs:
            print(r.shell_command(kith))
        more = study.estimate_remaining(runs)
        if runs:
            warn(f"{len(runs)} runs; after they finish, --merge their directory and --plan again"
                 + (f" (about {more} more runs in later rounds)" if more else ""))
        else:
            warn("nothing left to run")
        return 0

    failures = []
    if a.merge:
        n = merge(a.merge, out_dir)
        warn(f"merged {n} runs into {out_dir}")
    else:
        if not (a.resume and os.path.exists(commands_path)):
            open(commands_path, "w").close()
        progress = Progress(sys.stderr.isatty())
        jobs, timing_jobs = config["jobs"], config["timing_jobs"]
        log = []
        while True:
            runs = study.plan(out_dir)
            if not runs:
                break
            record_commands(runs)
            extra = study.estimate_remaining(runs)
            if not progress.enabled:
                kinds = {}
                for r in runs:
                    kinds[r.kind] = kinds.get(r.kind, 0) + 1
                warn("running " + ", ".join(f"{n} {k}" for k, n in kinds.items()) + f" ({jobs} at a time)")
            failures += execute(runs, out_dir, kith, jobs, timing_jobs, progress, extra, log)

    # Examples of each kind for the report (from commands.txt when resuming or merging).
    if os.path.exists(commands_path):
        with open(commands_path) as f:
            for line in f:
                m = re.search(r"runs/(\w+) && ", line)
                if m:
                    examples.setdefault(m.group(1), line.strip())
    tables = write_results(study, out_dir)
    failed_runs = [(r["run_id"], r["exit_code"]) for r in tables["results"][0]
                   if r["kind"] in ("main", "pauses") and r["exit_code"] != 0]
    failed_runs += [(c["run_id"], c["exit_code"]) for c in read_csv(os.path.join(out_dir, "contrived.csv"))
                    if str(c["exit_code"]) != "0"]
    figures_ok = False if a.no_figures else draw_figures(out_dir)
    info = {"machine": machine_info(), "version": version_info(kith, a.kith_build), "invocations": invocations,
            "load_start": load_start, "load_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "examples": [examples[k] for k in KINDS if k in examples], "failures": failed_runs,
            "fallback": fallback}
    write_report(study, out_dir, tables, info, figures_ok)
    save_state()
    print(f"kith study: {len(tables['results'][0])} runs in {out_dir}; report: {os.path.join(out_dir, 'report.md')}",
          file=sys.stderr)
    if failed_runs:
        warn(f"{len(failed_runs)} runs did not exit 0 (listed in report.md)")
        return 1
    if not figures_ok and not a.no_figures:
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)

"""Which runs a study makes, and which of them can run now.

A run (runs.py) is one process, named by its id, done once its .rc (exit code) exists.
Study.plan() looks at what is done and returns what can run now: the worst-case request
runs and the minimum-heap probes at once, a workload's main, pause and trade-off runs
once its minimum heap is known (their heap sizes are multiples of it), the power runs
(power.py, opt-in) once the trace runs have chosen their workloads."""

import math
import os
from collections.abc import Callable, Iterator
from typing import Any

from . import alloc_cost
from . import demographics
from . import power
from . import stats
from . import whole_run
from .common import DEFAULT_MAX_REPEAT, DEFAULT_TARGET_CI, NOT_FIXED_SIZE
from .runs import Run, load_stats, run_files
from .suite import Workload

# (status, low, high, wall) of a minimum-heap search (Study.minheap_state).
SearchState = tuple[str, int | None, int | None, float | None]


class Study:
    """A study's configuration (study.json's "config") and workloads, and what is done in
    its directory (refresh): from these, the runs it makes (plan)."""

    def __init__(self, config: dict[str, Any], workloads: list[Workload], kith: str) -> None:
        self.config = config
        self.workloads = workloads
        self.by_name = {w.name: w for w in workloads}
        self.kith = kith
        self.argset: str = config["argset"]
        self.out = ""  # the study directory, and what is done there: refresh()
        self.done: dict[str, int] = {}
        self.probes: dict[tuple[str, str, str], dict[int, int]] = {}
        self.live_floor: dict[str, int] = {}
        self.stats_cache: dict[str, dict[str, Any] | None] = {}  # run id: its JSON, read once

    def make(self, kind: str, w: Workload | None, policy: str = "-", collector: str = "-", heap: int = 0,
             repeat: int = 0, multiple: float | None = None) -> Run:
        r = Run(kind, w.name if w else "-", self.argset if w else "-", policy, collector, heap, repeat, multiple)
        if w:
            r.script, r.args = w.script, w.args(self.argset)
        r.timeout = self.config["timeout"]
        return r

    def minheap_policies(self) -> list[str]:
        return [p for p in self.config["policies"] if p not in NOT_FIXED_SIZE]

    def searching(self) -> bool:
        """Whether the study searches minimum heaps (and so sizes heaps from them)."""
        return "minheap" in self.config["experiments"] and bool(self.minheap_policies())

    def refresh(self, out_dir: str) -> dict[str, int]:
        """Reads what is done in out_dir: exit codes, the probes of each search, and the
        most live bytes any run of each workload saw at a collection (a lower bound on its
        peak live data, hence on its minimum heap). Statistics files are read once."""
        self.out = out_dir
        self.done = run_files(out_dir)
        self.probes = {}
        self.live_floor = {}
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

    def out_of_memory(self, run: Run) -> bool:
        try:
            with open(os.path.join(self.out, run.path("log")), errors="replace") as f:
                return "out of memory" in f.read()
        except OSError:
            return False

    def minheap_state(self, w: Workload, policy: str) -> SearchState:
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

    def minheap_runs(self) -> list[Run]:
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

    def min_heap_base(self, w: Workload) -> tuple[bool, int | None]:
        """(ready, base): the workload's minimum heap, the smallest over the fixed-size
        policies; ready is False while a search is unfinished, base None when none was
        found (or the study does not search)."""
        if not self.searching():
            return True, None
        found: list[int] = []
        for p in self.minheap_policies():
            status, _, high, _ = self.minheap_state(w, p)
            if status == "searching":
                return False, None
            if status == "found" and high is not None:  # found: high is the smallest heap that worked
                found.append(high)
        return True, (min(found) if found else None)

    def own_minimum(self, w: Workload, policy: str, base: int | None) -> int | None:
        """The policy's own minimum heap for w (the trade-off runs' unit); a policy with no
        minimum (malloc: the heap size only paces the collector) takes the workload's, None
        when its search found none."""
        if policy in NOT_FIXED_SIZE or base is None:
            return base
        status, _, high, _ = self.minheap_state(w, policy)
        return high if status == "found" else None

    def wall(self, run_id: str) -> float | None:
        s = self.stats_cache.get(run_id)
        if s is None:
            return None
        try:
            return float(s["vm"]["wall_s"])
        except (TypeError, KeyError, ValueError):
            return None

    def wants_more(self, runs: list[Run]) -> bool:
        """Whether a configuration whose runs so far are `runs` (repeats 0..n-1) needs
        another: all done and exited 0, and the 95% interval of their mean wall time is
        wider than +-target_ci of the mean."""
        walls: list[float] = []
        for r in runs:
            wall = self.wall(r.id)
            if self.done.get(r.id) != 0 or wall is None:
                return False
            walls.append(wall)
        if len(walls) < 2:
            return False
        half = stats.relative_half_width(walls)
        return half is not None and half > self.config.get("target_ci", DEFAULT_TARGET_CI)

    def repeats(self, minimum: int, make: Callable[[int], Run], most: int | None = None) -> list[Run]:
        """A configuration's runs: `minimum` repeats, then one more per round (so extra
        repeats stay interleaved across configurations) while wants_more, up to `most`
        (default max_repeat). make(rep) builds repeat rep."""
        runs = [make(rep) for rep in range(minimum)]
        if minimum < 2:
            return runs
        top = max(most if most else self.config.get("max_repeat", DEFAULT_MAX_REPEAT), minimum)
        while len(runs) < top and self.wants_more(runs):
            runs.append(make(len(runs)))
        return runs

    def sized(self, base: int, multiple: float) -> int:
        return int(math.ceil(base * multiple / 1024) * 1024)

    def main_heaps(self) -> Iterator[tuple[Workload, int]]:
        """(workload, main heap) of every workload whose main heap is known (its
        minimum-heap search done), in the suite's order."""
        for w in self.workloads:
            ok, base = self.min_heap_base(w)
            if ok:
                yield w, self.main_heap(w, base)

    def main_configurations(self) -> Iterator[tuple[Workload, int, str, str]]:
        """(workload, main heap, collector, policy) of every main configuration whose
        workload's main heap is known."""
        for w, heap in self.main_heaps():
            for col in self.config["collectors"]:
                for p in self.config["policies"]:
                    yield w, heap, col, p

    def main_heap(self, w: Workload, base: int | None) -> int:
        """The heap of the main and pause runs: --main-heap times the minimum heap, or the
        suite's heap_size (--main-heap=suite, or no minimum heap known)."""
        factor = self.config["main_heap"]
        if factor == "suite" or base is None:
            return w.heap_size
        return self.sized(base, float(factor))

    def sized_runs(self) -> list[Run]:
        """Main, pause and trade-off runs of the workloads whose heap sizes are known."""
        c = self.config
        ready = {}
        for w in self.workloads:
            ok, base = self.min_heap_base(w)
            if ok:
                ready[w.name] = base
        runs = []
        extra = []  # repeats beyond the minimum: after every configuration's minimum
        for w in self.workloads:
            if w.name not in ready:
                continue
            heap = self.main_heap(w, ready[w.name])
            for col in c["collectors"]:
                for p in c["policies"]:
                    rs = self.repeats(c["repeat"], lambda rep: self.make("main", w, p, col, heap, rep))
                    runs += rs[:c["repeat"]]
                    extra += rs[c["repeat"]:]
        runs.sort(key=lambda r: r.repeat)  # interleaved: repeat 0 of everything, then repeat 1, ...
        for rep in range(c["pause_repeat"]):
            for w in self.workloads:
                if w.name not in ready:
                    continue
                heap = self.main_heap(w, ready[w.name])
                for col in c["collectors"]:
                    if col != "none":
                        runs.append(self.make("pauses", w, c["pause_policy"], col, heap, rep))
        # Trade-off runs at multiples of each policy's OWN minimum heap: at one absolute
        # heap, policies would run at different multiples of their needs, and collection
        # frequency would pass for allocator speed. Repeated as the main runs are, so each
        # configuration has its interval and each comparison with list its test.
        trade = []
        most = c.get("tradeoff_max_repeat")
        for m in c["multiples"]:
            for w in self.workloads:
                if ready.get(w.name) is None:
                    continue
                for col in c["collectors"]:
                    for p in c["policies"]:
                        own = self.own_minimum(w, p, ready[w.name])
                        if own is None:
                            continue
                        heap = self.sized(own, m)
                        rs = self.repeats(c["tradeoff_repeat"],
                                          lambda rep: self.make("tradeoff", w, p, col, heap, rep, multiple=m), most)
                        trade += rs[:c["tradeoff_repeat"]]
                        extra += rs[c["tradeoff_repeat"]:]
        trade.sort(key=lambda r: r.repeat)
        runs += demographics.plan_runs(self, ready)
        return runs + trade + extra

    def plan(self, out_dir: str) -> list[Run]:
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
        runs += self.sources_runs()
        runs += alloc_cost.plan_runs(self)  # trace runs, then their replays once traced
        runs += whole_run.plan_runs(self)  # main configurations under cachegrind (opt-in)
        runs += power.plan_runs(self)  # the largest allocator shares at larger sizes, until resolved (opt-in)
        return [r for r in runs if r.kind in c["experiments"] and r.id not in self.done]

    def sources_runs(self) -> list[Run]:
        """One untimed run per main configuration of a policy that says how it met requests,
        with --stats-sources=on: where its immediate blocks came from (a free or a split's
        leftover), which the timed main runs leave out. Same heap, collector and pacing as
        the main runs, so the same counts (analysis checks they are)."""
        return [self.make("sources", w, p, col, heap, 0) for w, heap, col, p in self.main_configurations()
                if p not in NOT_FIXED_SIZE]

    def tradeoff_size(self) -> tuple[int, int, int]:
        """(configurations, runs at least, runs at most) of the trade-off: one configuration
        per workload x policy x collector x heap multiple, each run --tradeoff-repeat times,
        and up to --tradeoff-max-repeat while its interval is wider than --target-ci."""
        c = self.config
        n = len(self.workloads) * len(c["policies"]) * len(c["collectors"]) * len(c["multiples"])
        least = c["tradeoff_repeat"]
        most = max(c.get("tradeoff_max_repeat") or least, least) if least >= 2 else least
        return n, n * least, n * most

    def estimate_remaining(self, planned: list[Run]) -> int:
        """Runs still to come after `planned` (later rounds of the searches, and the runs
        that wait for them), roughly."""
        c = self.config
        have: dict[str, int] = {}
        for k in list(self.done) + [r.id for r in planned]:
            kind = k.split("__", 1)[0]
            have[kind] = have.get(kind, 0) + 1
        w, pol, col = len(self.workloads), len(c["policies"]), len(c["collectors"])
        expected = {"main": c["repeat"] * w * pol * col,
                    "pauses": c["pause_repeat"] * w * len([x for x in c["collectors"] if x != "none"]),
                    "tradeoff": c["tradeoff_repeat"] * len(c["multiples"]) * w * pol * col if self.searching() else 0,
                    "sources": w * len([p for p in c["policies"] if p not in NOT_FIXED_SIZE]) * col,
                    "minheap": 0, power.KIND: power.expected_runs(c, self.workloads)}
        if self.searching():
            rounds = 1 + math.ceil(math.log2(max(math.log(4096) / math.log1p(c["precision"]), 2)))
            expected["minheap"] = w * len(self.minheap_policies()) * rounds
        return sum(max(expected[k] - have.get(k, 0), 0) for k in expected if k in c["experiments"])

"""The study's analysis against hand-computed cases: Holm-Bonferroni, Welch's test on
log times, the recycling classification, retried requests outside the satisfied
percentages; and through the whole driver with fake_kith.py: adaptive repeats (a noisy
workload gets runs up to --max-repeat, a quiet one stays at --repeat, and the report
lists the ones that missed the target), the trade-off at each policy's own minimum heap,
and a baseline that could not run keeping its row with a note.
Run: /usr/bin/python3 -m unittest test_analysis (CTest: study.analysis)."""

import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the repo root: the study package
sys.path.insert(0, HERE)
import fake_kith  # noqa: E402
from study import stats  # noqa: E402
from study.run_command import argv as run_argv  # noqa: E402
from study.runs import Run  # noqa: E402
from study.analysis import recycling_workloads, satisfied_row, satisfied_means  # noqa: E402

DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")


class Holm(unittest.TestCase):
    def test_step_down_by_hand(self):
        # m = 4 at 5%: sorted 0.005 <= 0.05/4 yes, 0.01 <= 0.05/3 yes, 0.03 <= 0.05/2 no: stop
        # (0.04 <= 0.05/1 would pass alone, but Holm stops at the first that does not).
        sig, adj = stats.holm_bonferroni([0.01, 0.04, 0.03, 0.005])
        self.assertEqual(sig, [True, False, False, True])
        # adjusted: 4*0.005 = 0.02, 3*0.01 = 0.03, 2*0.03 = 0.06, max(0.06, 1*0.04) = 0.06
        for got, want in zip(adj, [0.03, 0.06, 0.06, 0.02]):
            self.assertAlmostEqual(got, want)

    def test_untested_values_are_not_counted(self):
        # m = 2 (None is no test): 0.02 <= 0.05/2 yes, 0.04 <= 0.05 yes; with m = 3 the
        # first would fail (0.02 > 0.0167).
        sig, adj = stats.holm_bonferroni([0.04, None, 0.02])
        self.assertEqual(sig, [True, False, True])
        self.assertIsNone(adj[1])
        self.assertAlmostEqual(adj[2], 0.04)
        self.assertEqual(stats.holm_bonferroni([]), ([], []))

    def test_uncorrected_would_say_more(self):
        ps = [0.049] * 10
        self.assertEqual(sum(stats.holm_bonferroni(ps)[0]), 0)


class WelchLog(unittest.TestCase):
    def test_by_hand(self):
        # logs [0, 1] against [2, 3]: d = -2, variances of the means 0.25 each, t = -2/sqrt(0.5)
        # = -2.8284, df = 0.5^2 / (0.25^2 + 0.25^2) = 2; for 2 df P(T > t) = (1 - t/sqrt(2 + t^2))/2,
        # so p = 1 - 2.8284/sqrt(10) = 0.105573.
        d, p = stats.welch_log_test([1, math.e], [math.e ** 2, math.e ** 3])
        self.assertAlmostEqual(d, -2.0)
        self.assertAlmostEqual(p, 1 - 2.828427 / math.sqrt(10), places=5)

    def test_one_sample_has_no_p(self):
        self.assertEqual(stats.welch_log_test([1.0], [2.0, 2.1])[1], None)

    def test_geomean_interval(self):
        g, lo, hi = stats.geomean_ci([1, 4])  # logs 0, 1.386: mean 0.693 -> 2
        self.assertAlmostEqual(g, 2.0)
        self.assertLess(lo, 2.0)
        self.assertGreater(hi, 2.0)


def run_row(workload, collector, frees, cycles, freed, exit_code=0, policy="knuth"):
    return {"workload": workload, "collector": collector, "policy": policy, "exit_code": exit_code,
            "heap.frees": frees, "gc.cycles": cycles, "gc.bytes_freed": freed}


class Recycling(unittest.TestCase):
    def test_from_the_counts(self):
        rows = [run_row("trees", "occasional", 900, 10, 57600),
                run_row("mst", "occasional", 0, 3, 0),             # no frees: keeps everything
                run_row("voronoi", "occasional", 0, 0, 0),         # never collected
                run_row("permute", "occasional", 0, 0, 0, policy="list"),
                run_row("permute", "occasional", 40, 1, 640),      # one policy's run collected and freed
                run_row("crash", "occasional", 500, 2, 100, exit_code=70),  # failed runs do not count
                run_row("trees", "continuous", 0, 0, 0)]
        got = recycling_workloads(rows)
        self.assertEqual(got, {("trees", "occasional"): True, ("mst", "occasional"): False,
                               ("voronoi", "occasional"): False, ("permute", "occasional"): True,
                               ("trees", "continuous"): False})

    def test_a_handful_of_frees_is_not_recycling(self):
        # perimeter: 1 free in 224,176 requests (its immediate requests are the split floor
        # alone); em3d 7 in 8,090; a workload at exactly 1% recycles.
        rows = [dict(run_row("perimeter", "occasional", 1, 1, 32), **{"heap.allocations": 224176}),
                dict(run_row("em3d", "occasional", 7, 1, 5000), **{"heap.allocations": 8090}),
                dict(run_row("edge", "occasional", 100, 1, 3200), **{"heap.allocations": 10000})]
        self.assertEqual(recycling_workloads(rows), {("perimeter", "occasional"): False,
                                                     ("em3d", "occasional"): False, ("edge", "occasional"): True})


def sat_run(immediate, split, glue, failed, repeat=0):
    return {"exit_code": 0, "repeat": repeat, "pacing": "work", "heap.satisfied.immediate": immediate,
            "heap.satisfied.split": split, "heap.satisfied.glue": glue, "heap.satisfied.defrag": 0,
            "heap.satisfied.failed": failed, "heap.allocations": immediate + split + glue, "heap.frees": 1,
            "gc.cycles": 1, "heap.peak_bytes_in_use": 1}


class ImmediateSources(unittest.TestCase):
    """Figure 10's recycled/leftover split comes from the configuration's sources run (the
    main runs pass --stats-sources=off), and only when its counts are the main runs'."""

    @staticmethod
    def sources(immediate, split, recycled, leftover):
        return dict(sat_run(immediate, split, 0, 0), **{"heap.immediate_source.recycled": recycled,
                                                        "heap.immediate_source.leftover": leftover})

    def test_taken_from_the_sources_run(self):
        row = satisfied_row([sat_run(500, 500, 0, 0)], [self.sources(500, 500, 40, 460)])
        self.assertTrue(row["sources_match"])
        self.assertEqual((row["recycled"], row["leftover"]), (40, 460))
        self.assertAlmostEqual(row["recycled_pct"], 4.0)
        self.assertAlmostEqual(row["leftover_pct"], 46.0)

    def test_a_sources_run_with_other_counts_is_not_used(self):
        row = satisfied_row([sat_run(500, 500, 0, 0)], [self.sources(501, 499, 41, 460)])
        self.assertFalse(row["sources_match"])
        self.assertIsNone(row["recycled"])
        self.assertIsNone(row["leftover_pct"])

    def test_none_without_a_sources_run(self):
        row = satisfied_row([sat_run(500, 500, 0, 0)])
        self.assertIsNone(row["sources_match"])
        self.assertIsNone(row["recycled"])

    def test_the_means_over_the_workloads_that_have_them_naming_the_others(self):
        # gcbench under continuous collection: its main runs' counts differ from one another
        # (it prints its own timings), so no sources run matches them; the mean is over the
        # other workloads, weighted by their requests only, and names gcbench.
        tracked = dict(satisfied_row([sat_run(90, 10, 0, 0)], [self.sources(90, 10, 80, 10)]),
                       workload="a", collector="c", policy="p", recycling=True)
        also = dict(satisfied_row([sat_run(150, 150, 0, 0)], [self.sources(150, 150, 30, 120)]),
                    workload="c", collector="c", policy="p", recycling=True)
        unmatched = dict(satisfied_row([sat_run(50, 50, 0, 0)], [self.sources(51, 49, 40, 11)]), workload="b",
                         collector="c", policy="p", recycling=True)
        means = {m["subset"]: m for m in satisfied_means([tracked])}
        self.assertAlmostEqual(means["all"]["recycled_pct_weighted"], 80.0)
        self.assertEqual((means["all"]["sources_workloads"], means["all"]["sources_left_out"]), (1, ""))
        means = {m["subset"]: m for m in satisfied_means([tracked, unmatched, also])}
        self.assertEqual(means["all"]["workloads"], 3)
        self.assertEqual((means["all"]["sources_workloads"], means["all"]["sources_left_out"]), (2, "b"))
        self.assertAlmostEqual(means["all"]["recycled_pct_weighted"], 100 * (80 + 30) / 400)
        self.assertAlmostEqual(means["all"]["leftover_pct_weighted"], 100 * (10 + 120) / 400)
        self.assertAlmostEqual(means["all"]["recycled_pct_unweighted"], (80 + 10) / 2)
        # A workload without a sources run is left out and named too.
        missing = dict(satisfied_row([sat_run(50, 50, 0, 0)]), workload="d", collector="c", policy="p",
                       recycling=True)
        means = {m["subset"]: m for m in satisfied_means([tracked, missing])}
        self.assertEqual((means["all"]["sources_workloads"], means["all"]["sources_left_out"]), (1, "d"))
        self.assertAlmostEqual(means["all"]["recycled_pct_weighted"], 80.0)

    def test_none_where_the_policy_does_not_say(self):
        # A matched sources run without the split (heap.immediate_source null): the policy
        # does not track where its blocks came from; nothing is left out, nothing is known.
        silent = dict(sat_run(50, 50, 0, 0), **{"heap.immediate_source.recycled": None,
                                                "heap.immediate_source.leftover": None})
        rows = [dict(satisfied_row([sat_run(50, 50, 0, 0)], [silent]), workload=w, collector="c", policy="list",
                     recycling=True) for w in ("a", "b")]
        means = {m["subset"]: m for m in satisfied_means(rows)}
        self.assertIsNone(means["all"]["recycled_pct_weighted"])
        self.assertIsNone(means["all"]["leftover_pct_unweighted"])
        self.assertEqual((means["all"]["sources_workloads"], means["all"]["sources_left_out"]), (0, ""))


class SlicesAndFullPauses(unittest.TestCase):
    """pauses.csv's kind: the run counts its slices (gc.slices), and the pauses that are not
    slices are the full ones, those of the most work; pause_summary.csv's slice columns and
    the report's paragraph on the 100 µs target come from them."""

    def test_the_pauses_of_most_work_beyond_the_slices_are_full(self):
        from study.analysis import pause_kinds
        self.assertEqual(pause_kinds([4096, 510219, 1536, 425831], 2), ["slice", "full", "slice", "full"])
        self.assertEqual(pause_kinds([10, 20], None), ["full", "full"])  # occasional: no slices
        self.assertIsNone(pause_kinds(None, 3))  # a format-1 file has no work column
        self.assertIsNone(pause_kinds([10], 2))  # more slices than pauses: not this run's file

    @staticmethod
    def pause(wall, cpu, work, kind, repeat=0):
        return {"workload": "w", "collector": "continuous", "repeat": repeat, "duration_ms": wall, "cpu_ms": cpu,
                "work": work, "kind": kind}

    # The pause run's statistics: the host took up to 4 ms from one pause, 2 were long by it alone.
    RUNS = [{"gc.host_gap.max_ms": 4.0, "gc.host_gap.pauses_long_by_host": 2}]

    def test_the_longest_slice_leaves_out_full_pauses(self):
        from study.analysis import slice_summary
        ps = [self.pause(0.05, 0.05, 4096, "slice"), self.pause(3.8, 3.8, 510219, "full"),
              self.pause(4.1, 0.09, 3900, "slice"), self.pause(0.102, 0.102, 1536, "slice")]
        row = slice_summary(ps, self.RUNS)
        self.assertEqual((row["slices"], row["full_pauses"]), (3, 1))
        self.assertAlmostEqual(row["max_slice_cpu_ms"], 0.102)
        self.assertAlmostEqual(row["max_slice_ms"], 4.1)
        self.assertEqual((row["max_slice_work"], row["slices_over_100us_cpu"]), (4096, 1))
        self.assertEqual((row["host_gap_max_ms"], row["long_by_host"]), (4.0, 2))

    def test_the_report_names_a_slice_over_the_target_and_the_host_stalls(self):
        from study.analysis import slice_summary
        from study.report import slice_lines
        ps = [self.pause(0.05, 0.05, 4096, "slice"), self.pause(4.1, 0.09, 3900, "slice"),
              self.pause(0.102, 0.102, 1536, "slice")]
        row = dict(slice_summary(ps, self.RUNS), workload="w", collector="continuous", max_cpu_ms=0.102)
        text = slice_lines([row], ps)[0]
        self.assertIn("above it: w 102 µs (1 of its 3 slices", text)
        self.assertIn("By wall time 2 slices passed 100 µs; 1 of them did not by CPU time: the host stalled", text)

    def test_no_stall_to_name_when_every_long_slice_is_long_by_cpu_time_too(self):
        # A sanitizer build: its slices pass 100 µs of CPU time as well as of wall time.
        from study.analysis import slice_summary
        from study.report import slice_lines
        ps = [self.pause(0.3, 0.3, 4096, "slice"), self.pause(0.2, 0.2, 4096, "slice")]
        row = dict(slice_summary(ps, self.RUNS), workload="w", collector="continuous", max_cpu_ms=0.3)
        text = slice_lines([row], ps)[0]
        self.assertIn("no workload's longest slice is under it", text)
        self.assertIn("2 slices passed 100 µs; 0 of them did not by CPU time.", text)


class Retried(unittest.TestCase):
    def test_retries_are_outside_the_denominator(self):
        # sieve, continuous: 1,182 outcomes of which 149 failed and were retried; the
        # successful requests are 1,033, 670 of them immediate: 64.9%, not 670/1182 = 56.7%.
        row = satisfied_row([sat_run(670, 300, 63, 149)])
        self.assertEqual(row["requests"], 1033)
        self.assertEqual(row["retried"], 149)
        self.assertAlmostEqual(row["immediate_pct"], 100 * 670 / 1033)
        self.assertAlmostEqual(sum(row[f"{o}_pct"] for o in ("immediate", "split", "glue", "defrag")), 100.0)

    def test_counts_identical_sees_a_different_retry_count(self):
        row = satisfied_row([sat_run(670, 300, 63, 149), sat_run(670, 300, 63, 150, repeat=1)])
        self.assertFalse(row["counts_identical"])

    def test_weighted_and_unweighted_means(self):
        sat = [dict(satisfied_row([sat_run(90, 10, 0, 0)]), workload="a", collector="c", policy="p", recycling=True),
               dict(satisfied_row([sat_run(100, 900, 0, 5)]), workload="b", collector="c", policy="p",
                    recycling=False)]
        means = {m["subset"]: m for m in satisfied_means(sat)}
        self.assertAlmostEqual(means["all"]["immediate_pct_weighted"], 100 * 190 / 1100)
        self.assertAlmostEqual(means["all"]["immediate_pct_unweighted"], (90 + 10) / 2)
        self.assertEqual(means["recycling"]["workloads"], 1)
        self.assertAlmostEqual(means["recycling"]["immediate_pct_unweighted"], 90)


class GoldenCounts(unittest.TestCase):
    def test_names_every_differing_cell(self):
        from study import golden
        row = {"workload": "json", "args": "Json 3", "policy": "knuth", "collector": "continuous",
               "heap_size": "1048576", **{c: "7" for c in golden.COUNTS + golden.STEPS}}
        changed = dict(row, **{"gc.cycles": "8", "heap.steps.malloc.histogram": "1:5 2:3"})
        gone = dict(row, policy="list")
        self.assertEqual(golden.differences([row], [row]), [])
        diffs = golden.differences([row, gone], [changed])
        self.assertEqual(diffs[0], "json/knuth/continuous gc.cycles: golden 7, now 8")
        self.assertEqual(diffs[1], "json/knuth/continuous heap.steps.malloc.histogram: golden 7, now 1:5 2:3")
        self.assertIn("json/list/continuous", diffs[2])
        self.assertEqual(len(diffs), 3)

    def test_covers_every_policy_and_what_varies_is_said_not_compared(self):
        from study import golden
        from study.common import DEFAULT_POLICIES
        self.assertEqual(golden.POLICIES, DEFAULT_POLICIES)
        with open(golden.GOLDEN, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0]), golden.COLUMNS)
        self.assertEqual({r["policy"] for r in rows}, set(DEFAULT_POLICIES), "tlsf and malloc included")
        self.assertTrue(all(r["heap.steps.malloc.histogram"] for r in rows if r["policy"] != "malloc"), "steps")
        malloc = dict(rows[0], policy="malloc", **{c: golden.VARIES for c in golden.NOT_REPRODUCIBLE["malloc"]})
        now = dict(malloc, **{"heap.frees": "12345"})
        self.assertEqual(golden.differences([malloc], [now]), [])
        self.assertNotEqual(golden.differences([malloc], [dict(now, **{"heap.allocations": "1"})]), [])

    def test_costs_differences_and_the_check_fails(self):
        from study import golden
        with open(golden.GOLDEN_COSTS, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0]), golden.COST_COLUMNS)
        self.assertEqual({(r["traced_on"], r["replayed_on"]) for r in rows},
                         {(p, q) for p in golden.POLICIES for q in (p, "nothing")})
        moved = [dict(r) for r in rows]
        moved[2]["malloc_ir"] = str(int(moved[2]["malloc_ir"]) + 1)
        diffs = golden.differences(rows, moved, **golden.COST_HOW)
        self.assertEqual(diffs, [f"binary_trees/{rows[2]['traced_on']}/{rows[2]['replayed_on']} malloc_ir: golden "
                                 f"{rows[2]['malloc_ir']}, now {moved[2]['malloc_ir']}"])
        self.assertEqual(golden.check(golden.GOLDEN_COSTS, rows, "exact costs", **golden.COST_HOW), 0)
        self.assertEqual(golden.check(golden.GOLDEN_COSTS, moved, "exact costs", **golden.COST_HOW), 1)

    def test_glibc_mallocs_costs_are_compared_within_a_tolerance(self):
        from study import golden
        with open(golden.GOLDEN_COSTS, newline="") as f:
            rows = list(csv.DictReader(f))
        i = next(i for i, r in enumerate(rows) if r["replayed_on"] == "malloc")
        near, far = [dict(r) for r in rows], [dict(r) for r in rows]
        near[i]["malloc_ir"] = str(int(rows[i]["malloc_ir"]) + 134)  # the C library's heap moved
        far[i]["malloc_ir"] = str(int(rows[i]["malloc_ir"]) + int(rows[i]["malloc_calls"]))  # one a call more
        self.assertEqual(golden.differences(rows, near, **golden.COST_HOW), [])
        self.assertEqual(len(golden.differences(rows, far, **golden.COST_HOW)), 1)
        j = next(j for j, r in enumerate(rows) if r["replayed_on"] == "estranged")
        exact = [dict(r) for r in rows]
        exact[j]["malloc_ir"] = str(int(rows[j]["malloc_ir"]) + 1)  # a Kith policy's: exactly
        self.assertEqual(len(golden.differences(rows, exact, **golden.COST_HOW)), 1)


def run_study(out, *extra, env=None):
    cmd = [sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}",
           "--collectors=occasional", "--no-figures", "--experiments=minheap,main,tradeoff", f"--out={out}", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=600)


def read(out, name):
    with open(os.path.join(out, name), newline="") as f:
        return list(csv.DictReader(f))


class RunCommands(unittest.TestCase):
    def test_runs_that_measure_time_read_no_clock_per_request(self):
        """Main and trade-off runs are timed, and pause runs measure pauses a sweep's frees
        are part of: none of them may time each malloc and free. The trace run is the one
        that does (its latencies are a result)."""
        def argv(kind, collector="continuous"):
            r = Run(kind, "w", "study", "estranged", collector, 1 << 20, 0)
            r.script = "w.kith"
            return run_argv(r, "kith")
        for kind in ("main", "tradeoff", "pauses"):
            for collector in ("occasional", "continuous"):
                self.assertIn("--stats-timers=off", argv(kind, collector), (kind, collector))
        self.assertNotIn("--stats-timers=off", argv("trace"))
        self.assertIn("--gc-pacing=time", argv("pauses"))
        self.assertTrue(Run("pauses", "w", "study", "estranged", "continuous", 1, 0).exclusive)


class Driver(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kith-study-analysis-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_adaptive_repeats(self):
        out = os.path.join(self.tmp, "adaptive")
        r = run_study(out, "--policies=list,knuth", "--repeat=3", "--max-repeat=6", "--heap-multiples=2",
                      env={"FAKE_KITH_NOISE": "beta"})
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        results = read(out, "results.csv")
        for kind in ("main", "tradeoff"):  # the trade-off repeated as the main runs are
            for w, want in (("alpha", 3), ("beta", 6)):  # alpha's times are exact; beta's +-20%
                for p in ("list", "knuth"):
                    n = len([x for x in results if x["kind"] == kind and x["workload"] == w and x["policy"] == p])
                    self.assertEqual(n, want, f"{kind} {w}/{p}: {n} runs")
        # Still interleaved: every repeat 2 was started before any repeat 3.
        with open(os.path.join(out, "commands.txt")) as f:
            lines = [ln for ln in f if "runs/main" in ln]
        last_r2 = max(i for i, ln in enumerate(lines) if "__r2." in ln)
        first_r3 = min(i for i, ln in enumerate(lines) if "__r3." in ln)
        self.assertLess(last_r2, first_r3)
        # The main runs count without per-operation clocks.
        self.assertTrue(all("--stats-timers=off" in ln for ln in lines))
        missed = read(out, "timing_target.csv")
        self.assertEqual({(x["kind"], x["workload"]) for x in missed if x["half_width_pct"]},
                         {("main", "beta"), ("tradeoff", "beta")})
        self.assertEqual([x for x in missed if not x["half_width_pct"]], [], "no configuration of a single run")
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
        self.assertIn("**Timing target.**", report)
        self.assertIn("- main beta / occasional / `knuth`: ±", report)
        self.assertNotIn("main alpha / occasional", report)

    def test_tradeoff_intervals_and_tests_against_list(self):
        """Trade-off runs repeated as the main runs are: each row its interval, each policy
        against list at the same multiple tested (Welch on log times, Holm over the
        trade-off's tests), the report saying how many are significant."""
        out = os.path.join(self.tmp, "tradeoff")
        r = run_study(out, "--policies=list,knuth,estranged", "--repeat=3", "--max-repeat=6", "--heap-multiples=1.5,3",
                      env={"FAKE_KITH_NOISE": "beta"})
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        for x in read(out, "tradeoff.csv"):
            exact = x["workload"] == "alpha"  # alpha's times are exact, beta's +-20% on alternate repeats
            self.assertEqual(x["runs"], "3" if exact else "6", x)
            lo, mean, hi = (float(x[k]) for k in ("wall_s_ci_low", "wall_s_mean", "wall_s_ci_high"))
            if exact:
                self.assertTrue(math.isclose(lo, mean) and math.isclose(hi, mean), x)
            else:
                self.assertLess(lo, mean * 0.95, x)
                self.assertGreater(hi, mean * 1.05, x)
        tests = read(out, "tradeoff_vs_list.csv")
        self.assertEqual(len(tests), 2 * 2 * 2, "2 workloads x 2 multiples x knuth, estranged against list")
        trade = {(x["workload"], x["policy"], x["multiple"]): x for x in read(out, "tradeoff.csv")}
        p_values = []
        for t in tests:
            base = trade[(t["workload"], "list", t["multiple"])]
            mine = trade[(t["workload"], t["policy"], t["multiple"])]
            self.assertAlmostEqual(float(t["speedup"]), float(base["wall_s_mean"]) / float(mine["wall_s_mean"]))
            self.assertEqual((t["heap_size"], t["list_heap_size"]), (mine["heap_size"], base["heap_size"]))
            p_values.append(float(t["p_value"]))
            if t["workload"] == "alpha":  # exact times: a difference for certain (p = 0)
                self.assertEqual((t["p_value"], t["holm_significant"]), ("0.0", "True"), t)
        significant, adjusted = stats.holm_bonferroni(p_values)
        self.assertEqual([float(t["p_holm"]) for t in tests], adjusted)
        self.assertEqual([t["holm_significant"] for t in tests], [str(x) for x in significant])
        # beta's noise (+-20% on alternate repeats) hides knuth's 24% at 3x in 6 runs
        beta3 = next(t for t in tests if (t["workload"], t["policy"], t["multiple"]) == ("beta", "knuth", "3"))
        self.assertEqual(beta3["holm_significant"], "False", beta3)
        summary = read(out, "tradeoff_summary.csv")
        knuth = next(x for x in summary if x["policy"] == "knuth" and x["multiple"] == "3")
        self.assertEqual((knuth["tested"], knuth["faster"], knuth["slower"]), ("2", "1", "0"))
        self.assertLess(float(knuth["speedup_ci_low"]), float(knuth["geomean_speedup_vs_list"]))
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
        n = sum(significant)
        self.assertIn("Holm–Bonferroni over all 8 such tests of the trade-off", report)
        self.assertIn(f"{n} significant, {n} faster than `list` and 0 slower", report)
        knuth_n = sum(x for x, t in zip(significant, tests) if t["policy"] == "knuth")
        self.assertIn(f"| `knuth` | 4 | {knuth_n} | 0 |", report)
        # The plan says what the trade-off adds.
        p = subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", "--plan", f"--out={os.path.join(self.tmp, 'p')}",
                            f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}", "--policies=list,knuth",
                            "--repeat=3", "--max-repeat=6", "--heap-multiples=1.5,3"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("the trade-off is 16 configurations (2 workloads x 2 policies x 2 collectors x 2 heap "
                      "multiples), 3 runs each: 48 runs, up to 96 where an interval is wider than +-3%", p.stderr)

    def test_timed_runs_run_alone(self):
        spans = os.path.join(self.tmp, "spans")
        r = run_study(os.path.join(self.tmp, "alone"), "--policies=list,knuth,tlsf", "--repeat=2", "--max-repeat=2",
                      "--heap-multiples=2", "--jobs=2", env={"FAKE_KITH_SPANS": spans})
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        with open(spans) as f:
            events = sorted((float(t), e, k) for e, k, t in (ln.split() for ln in f))
        active, overlapped = [], set()
        for _, event, kind in events:
            if event == "begin":
                active.append(kind)
                if len(active) > 1:
                    overlapped.update(active)
            else:
                active.remove(kind)
        self.assertIn("minheap", overlapped)  # the untimed probes use both jobs
        self.assertFalse(overlapped & {"main", "tradeoff"}, f"timed runs overlapped: {overlapped}")

    def test_own_minimum_and_a_baseline_that_cannot_run(self):
        # list needs 2x the workload's base here, knuth 1.5x: at the common heap (1x the
        # smallest minimum, knuth's) list runs out of memory; at multiples of its own
        # minimum it runs.
        out = os.path.join(self.tmp, "own")
        r = run_study(out, "--policies=list,knuth", "--repeat=2", "--main-heap=1", "--heap-multiples=1.25,3",
                      env={"FAKE_KITH_FACTORS": "list=2.0"})
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        mins = {(x["workload"], x["policy"]): int(x["min_heap_bytes"]) for x in read(out, "minheap.csv")}
        tr = read(out, "tradeoff.csv")
        self.assertEqual(len(tr), 2 * 2 * 2)
        for x in tr:
            own = mins[(x["workload"], x["policy"])]
            self.assertEqual(int(x["heap_size"]), -(-int(own * float(x["multiple"])) // 1024) * 1024)
            self.assertEqual(x["status"], "ok")
            self.assertTrue(float(x["relative_time"]) >= 1.0)
        for w in ("alpha", "beta"):
            best = [x for x in tr if x["workload"] == w and math.isclose(float(x["relative_time"]), 1.0)]
            self.assertEqual(len(best), 1)
            knuth3 = next(x for x in tr if x["workload"] == w and x["policy"] == "knuth" and x["multiple"] == "3")
            list3 = next(x for x in tr if x["workload"] == w and x["policy"] == "list" and x["multiple"] == "3")
            self.assertAlmostEqual(float(knuth3["speedup_vs_list"]),
                                   float(list3["wall_s_mean"]) / float(knuth3["wall_s_mean"]))
        summary = read(out, "tradeoff_summary.csv")
        self.assertEqual({(x["policy"], x["multiple"], x["workloads"]) for x in summary},
                         {(p, m, "2") for p in ("list", "knuth") for m in ("1.25", "3")})
        sp = read(out, "speedup.csv")
        knuth = [x for x in sp if x["policy"] == "knuth"]
        self.assertEqual(len(knuth), 2)
        for x in knuth:
            self.assertEqual(x["speedup"], "")
            self.assertEqual(x["note"], f"list did not run: out of memory at {x['heap_size']} bytes")
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
        self.assertIn("list did not run: out of memory at", report)


if __name__ == "__main__":
    unittest.main()

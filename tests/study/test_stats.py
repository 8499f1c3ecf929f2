"""study/stats.py against hand-computed cases: t quantiles, the confidence interval of a
mean (Georges et al. 2007), Fieller's interval of a ratio, MMU, flattening, the search.
Run: /usr/bin/python3 -m unittest test_stats (CTest: study.stats)."""

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # the repo root
from study import stats  # noqa: E402
from study.analysis import split_out_of_memory  # noqa: E402


class StudentT(unittest.TestCase):
    def test_quantiles_match_the_tables(self):
        # Two-sided 95% critical values from any t table.
        for df, t in [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (10, 2.2281), (29, 2.0452)]:
            self.assertAlmostEqual(stats.t_quantile(0.975, df), t, places=3, msg=f"df={df}")

    def test_cdf_is_symmetric(self):
        self.assertAlmostEqual(stats.t_cdf(0, 5), 0.5)
        self.assertAlmostEqual(stats.t_cdf(-2, 7) + stats.t_cdf(2, 7), 1.0)

    def test_critical_value_switches_to_normal_at_30(self):
        self.assertAlmostEqual(stats.critical_value(29), stats.t_quantile(0.975, 28))
        self.assertAlmostEqual(stats.critical_value(30), 1.959964, places=5)


class MeanInterval(unittest.TestCase):
    def test_five_samples(self):
        # mean 3, s = sqrt(2.5) = 1.58114, t(0.975, 4) = 2.776445:
        # half-width = 2.776445 * 1.58114 / sqrt(5) = 1.963243
        m, lo, hi = stats.mean_ci([1, 2, 3, 4, 5])
        self.assertEqual(m, 3)
        self.assertAlmostEqual(lo, 1.036757, places=5)
        self.assertAlmostEqual(hi, 4.963243, places=5)

    def test_two_samples(self):
        # mean 11, s = sqrt(2), t(0.975, 1) = 12.706205: half = 12.706205 * sqrt(2) / sqrt(2) = 12.706205
        m, lo, hi = stats.mean_ci([10, 12])
        self.assertAlmostEqual(lo, 11 - 12.706205, places=4)
        self.assertAlmostEqual(hi, 11 + 12.706205, places=4)

    def test_thirty_samples_use_z(self):
        xs = [float(i % 2) for i in range(30)]  # mean 0.5, s = sqrt(30 * 0.25 / 29)
        s = math.sqrt(7.5 / 29)
        m, lo, hi = stats.mean_ci(xs)
        self.assertAlmostEqual(hi - m, 1.959964 * s / math.sqrt(30), places=5)

    def test_one_sample_has_no_interval(self):
        self.assertEqual(stats.mean_ci([4.0]), (4.0, None, None))
        self.assertEqual(stats.mean_ci([]), (None, None, None))

    def test_median(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 2, 3]), 2.5)
        self.assertIsNone(stats.median([]))


class RatioInterval(unittest.TestCase):
    def test_constant_denominator_is_a_scaled_t_interval(self):
        # b has no variance: g = 0, df = n_a - 1 = 2, t = 4.302653; va = 4 / 3;
        # bounds = 12/5 -+ 4.302653 / 5 * sqrt(4/3) = 2.4 -+ 0.993654
        q, lo, hi = stats.ratio_ci([10, 12, 14], [5, 5, 5])
        self.assertAlmostEqual(q, 2.4)
        self.assertAlmostEqual(lo, 1.406346, places=5)
        self.assertAlmostEqual(hi, 3.393654, places=5)

    def test_both_vary(self):
        # a = [9, 10, 11]: mean 10, va = 1/3; b = [4, 5, 6]: mean 5, vb = 1/3.
        # Welch df = (2/3)^2 / (2 * (1/9) / 2) = 4, t = 2.776445; q = 2;
        # g = t^2 vb / 25 = 7.708647 / 75 = 0.102782;
        # root = sqrt((1 - g) / 3 + 4 / 3) = sqrt(1.632406) = 1.277657;
        # bounds = (2 -+ 2.776445 / 5 * 1.277657) / 0.897218 = (2 -+ 0.709477) / 0.897218
        q, lo, hi = stats.ratio_ci([9, 10, 11], [4, 5, 6])
        self.assertAlmostEqual(q, 2.0)
        self.assertAlmostEqual(lo, 1.290523 / 0.897218, places=4)
        self.assertAlmostEqual(hi, 2.709477 / 0.897218, places=4)

    def test_unbounded_when_the_denominator_may_be_zero(self):
        q, lo, hi = stats.ratio_ci([1, 2, 3], [-1, 1, 3])
        self.assertIsNone(lo)
        self.assertIsNone(hi)

    def test_identical_samples(self):
        self.assertEqual(stats.ratio_ci([2, 2], [1, 1]), (2.0, 2.0, 2.0))


class Fits(unittest.TestCase):
    def test_power_law(self):
        alpha, c = stats.power_law_fit([1, 2, 4, 8], [3, 6, 12, 24])
        self.assertAlmostEqual(alpha, 1.0)
        self.assertAlmostEqual(c, 3.0)

    def test_log_fit(self):
        a, b = stats.log_fit([1, 2, 4, 8], [10, 15, 20, 25])
        self.assertAlmostEqual(a, 10)
        self.assertAlmostEqual(b, 5)


class MinimumMutatorUtilization(unittest.TestCase):
    MS = 1_000_000

    def test_one_pause(self):
        p = stats.PauseList([(0, self.MS)], 10 * self.MS)
        self.assertAlmostEqual(p.mmu(self.MS), 0.0)
        self.assertAlmostEqual(p.mmu(2 * self.MS), 0.5)
        self.assertAlmostEqual(p.mmu(10 * self.MS), 0.9)
        self.assertAlmostEqual(p.mmu(20 * self.MS), 0.9)  # longer than the run: the run itself

    def test_worst_window_spans_two_pauses(self):
        # pauses [2, 3) and [4, 5) ms in a 10 ms run: a 3 ms window [2, 5) holds 2 ms.
        p = stats.PauseList([(2 * self.MS, self.MS), (4 * self.MS, self.MS)], 10 * self.MS)
        self.assertAlmostEqual(p.mmu(3 * self.MS), 1 / 3)
        self.assertAlmostEqual(p.mmu(self.MS), 0.0)
        # a 0.5 ms window inside a pause
        self.assertAlmostEqual(p.mmu(self.MS // 2), 0.0)

    def test_partial_overlaps(self):
        p = stats.PauseList([(0, 4), (10, 4)], 100)
        self.assertEqual(p.gc_between(2, 12), 2 + 2)
        self.assertEqual(p.gc_between(4, 10), 0)
        self.assertEqual(p.gc_between(0, 100), 8)

    def test_no_pauses(self):
        self.assertEqual(stats.PauseList([], 1000).mmu(100), 1.0)

    def test_overlapping_input_is_clamped_as_the_recorder_does(self):
        p = stats.PauseList([(0, 10), (5, 10)], 100)  # second begins inside the first
        self.assertEqual(p.total, 10 + 5)


class PauseFiles(unittest.TestCase):
    """`kith run --gc-pauses-file`: version 1 (wall time) and version 2 (gc/pause_recorder.h:
    wall and the thread's CPU time, and the work units), both read."""
    V1 = "# kith-gc-pauses 1\n# collector occasional\n# run_ns 5000\n# start_ns duration_ns\n10 20\n100 5\n"
    V2 = ("# kith-gc-pauses 2\n# collector continuous\n# run_ns 5000\n# run_cpu_ns 3000\n"
          "# start_ns duration_ns cpu_start_ns cpu_ns work\n10 20 4 15 64\n100 5 50 5 3\n")

    def file(self, text):
        import tempfile
        f = tempfile.NamedTemporaryFile("w", suffix=".pauses", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_version_1_is_read_by_wall_time_alone(self):
        path = self.file(self.V1)
        self.assertEqual(stats.read_pause_file(path), ("occasional", 5000, [(10, 20), (100, 5)]))
        p = stats.read_pause_columns(path)
        self.assertIsNone(p.cpu_pauses)
        self.assertIsNone(p.run_cpu_ns)
        self.assertIsNone(p.work)

    def test_version_2_has_both_clocks_and_the_work(self):
        path = self.file(self.V2)
        self.assertEqual(stats.read_pause_file(path), ("continuous", 5000, [(10, 20), (100, 5)]))
        p = stats.read_pause_columns(path)
        self.assertEqual(p.run_cpu_ns, 3000)
        self.assertEqual(p.cpu_pauses, [(4, 15), (50, 5)])
        self.assertEqual(p.work, [64, 3])
        # MMU on the CPU axis: the window [0, 100) ns holds both pauses, 15 + 5 ns.
        self.assertAlmostEqual(stats.PauseList(p.cpu_pauses, p.run_cpu_ns).mmu(100), 0.8)
        self.assertAlmostEqual(stats.PauseList(p.pauses, p.run_ns).mmu(100), 0.75)

    def test_a_line_of_another_width_is_refused(self):
        with self.assertRaises(ValueError):
            stats.read_pause_columns(self.file(self.V2 + "1 2 3\n"))


class PauseFloor(unittest.TestCase):
    """pause_floor_cpu: the least CPU time of each pause over runs that did the same work."""

    @staticmethod
    def pauses(cpu, work):
        return stats.PauseFile("continuous", 0, [(0, c) for c in cpu], 0, [(0, c) for c in cpu], work)

    def test_the_host_adds_to_some_runs_the_floor_takes_it_out(self):
        runs = [self.pauses([30, 900, 40], [64, 1024, 3]),   # the host stalled pause 1 here
                self.pauses([35, 80, 400], [64, 1024, 3]),   # and pause 2 here
                self.pauses([31, 85, 41], [64, 1024, 3])]
        self.assertEqual(stats.pause_floor_cpu(runs), (1, 80))

    def test_runs_whose_work_differs_have_no_floor(self):
        self.assertIsNone(stats.pause_floor_cpu([self.pauses([30, 90], [64, 1024]), self.pauses([30, 90], [64, 1000])]))
        self.assertIsNone(stats.pause_floor_cpu([self.pauses([30], [64])]), "one run has no floor")
        v1 = stats.PauseFile("occasional", 0, [(0, 5)])
        self.assertIsNone(stats.pause_floor_cpu([v1, v1]), "version 1 files have no CPU time")


class MinimumHeapSearch(unittest.TestCase):
    def test_bisection_finds_a_known_threshold_within_two_percent(self):
        for answer in (16 << 10, 100_000, 3_000_000, 5 << 20, 123_456_789):
            found, low, probes = stats.search_min_heap(lambda s: s >= answer, 16383, 1 << 30)
            self.assertGreaterEqual(found, answer)
            self.assertLess(low, answer)
            self.assertLessEqual(found, max(low * 1.02, low + 1024) + 1)
            self.assertLessEqual(probes, 20)

    def test_more_probes_per_round_take_fewer_rounds(self):
        rounds = {}
        for k in (1, 3, 7):
            low, high, n = 16383, 1 << 30, 0
            while True:
                sizes = stats.next_probes(low, high, 0.02, k)
                if not sizes:
                    break
                n += 1
                low, high = stats.narrow(low, high, {s: s >= 777_777 for s in sizes})
            self.assertGreaterEqual(high, 777_777)
            self.assertLessEqual(high, low * 1.02 + 1024)
            rounds[k] = n
        self.assertLess(rounds[7], rounds[3])
        self.assertLess(rounds[3], rounds[1])

    def test_probes_lie_strictly_inside(self):
        for s in stats.next_probes(100_000, 200_000, 0.02, 5):
            self.assertTrue(100_000 < s < 200_000)
            self.assertEqual(s % 1024, 0)
        self.assertEqual(stats.next_probes(100_000, 101_000), [])


class Flatten(unittest.TestCase):
    def test_nested(self):
        flat = stats.flatten({"heap": {"alloc_ns": {"mean": 1.5}, "size_histogram": {"16": 3, "128": 1}}, "x": 2})
        self.assertEqual(flat, {"heap.alloc_ns.mean": 1.5, "heap.size_histogram.16": 3,
                                "heap.size_histogram.128": 1, "x": 2})

    def test_column_order_sorts_sizes_numerically(self):
        cols = stats.column_order(["h.size_histogram.128", "h.size_histogram.16", "h.allocations"])
        self.assertEqual(cols, ["h.allocations", "h.size_histogram.16", "h.size_histogram.128"])


class TheRealSuite(unittest.TestCase):
    """workloads/suite.tsv as the study reads it: its "-" heap size is the default."""

    def test_every_row_reads_with_its_heap(self):
        from study import suite  # noqa: E402 (the repo root is on sys.path above)
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "suite.tsv")
        workloads, fallback = suite.read_suite(path)
        self.assertFalse(fallback)
        sizes = {w.name: w.heap_size for w in workloads}
        self.assertEqual(sizes["binary_trees"], 64 << 20)
        self.assertEqual(sizes["treeadd"], 512 << 20)


class DidNotFit(unittest.TestCase):
    MINHEAP = [{"workload": "w", "policy": "kingsley", "collector": "occasional", "status": "found",
                "min_heap_bytes": "500000"},
               {"workload": "w", "policy": "knuth", "collector": "occasional", "status": "found",
                "min_heap_bytes": "160000"},
               {"workload": "v", "policy": "kingsley", "collector": "occasional", "status": "not found",
                "min_heap_bytes": ""}]

    def run_row(self, run_id, workload, policy, heap, rc):
        return {"run_id": run_id, "workload": workload, "policy": policy, "heap_size": heap, "exit_code": rc}

    # The runs whose log says "out of memory" (Study.out_of_memory reads the real logs).
    OUT_OF_MEMORY = {"a", "fits", "unknown", "other"}

    def oom(self, row):
        return row["run_id"] in self.OUT_OF_MEMORY

    def test_out_of_memory_below_the_policys_own_minimum_did_not_fit(self):
        failures, did_not_fit = split_out_of_memory(
            [self.run_row("a", "w", "kingsley", 320000, 70)], self.MINHEAP, self.oom)
        self.assertEqual(failures, [])
        self.assertEqual(did_not_fit, [("a", 320000, 500000)])

    def test_continuous_runs_get_headroom_over_the_occasional_minimum(self):
        row = self.run_row("a", "w", "kingsley", 900000, 70)
        row["collector"] = "continuous"
        failures, did_not_fit = split_out_of_memory([row], self.MINHEAP, self.oom)
        self.assertEqual(did_not_fit, [("a", 900000, 1000000)])   # under 2 x 500000
        row = self.run_row("fits", "w", "knuth", 320000, 70)
        row["collector"] = "continuous"
        failures, did_not_fit = split_out_of_memory([row], self.MINHEAP, self.oom)
        self.assertEqual(failures, [("fits", 70)])                # 2 x 160000 = 320000: should fit
        minheap = self.MINHEAP + [{"workload": "w", "policy": "kingsley", "collector": "continuous",
                                   "status": "found", "min_heap_bytes": "600000"}]
        row = self.run_row("a", "w", "kingsley", 900000, 70)
        row["collector"] = "continuous"
        failures, did_not_fit = split_out_of_memory([row], minheap, self.oom)
        self.assertEqual(failures, [("a", 70)])                   # its own minimum was measured: 600000

    def test_everything_else_is_a_failure(self):
        rows = [self.run_row("crash", "w", "kingsley", 320000, 134),     # not out of memory
                self.run_row("error", "w", "kingsley", 320000, 70),      # exit 70, another error
                self.run_row("fits", "w", "knuth", 320000, 70),          # at or above its minimum
                self.run_row("unknown", "v", "kingsley", 320000, 70),    # no minimum found
                self.run_row("other", "x", "knuth", 320000, 70)]         # no minimum measured
        failures, did_not_fit = split_out_of_memory(rows, self.MINHEAP, self.oom)
        self.assertEqual([f[0] for f in failures], ["crash", "error", "fits", "unknown", "other"])
        self.assertEqual(did_not_fit, [])


if __name__ == "__main__":
    unittest.main()

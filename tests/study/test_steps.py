"""study/steps.py: the step bounds against values worked out from the heap headers, the
p99 from step histograms, and steps.csv and the report section from synthetic run rows.
Run: /usr/bin/python3 -m unittest test_steps (CTest: study.steps)."""

import csv
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, REPO)  # the repo root: the study package
from study import steps  # noqa: E402


class Bounds(unittest.TestCase):
    def test_top_level_follows_the_block_table(self):
        # heap/buddy/buddy_block_table.h:96-97: granules = bytes / 16, topLevel_ = min(31, bit_width - 1).
        self.assertEqual(steps.buddy_top_level(69632), 12)      # 4352 granules: a 64 KiB root
        self.assertEqual(steps.buddy_top_level(98352), 12)      # 96 KiB + 48 B (buddy_block_table.h:11-12)
        self.assertEqual(steps.buddy_top_level(1 << 20), 16)    # 1 MiB = 16 << 16
        self.assertEqual(steps.buddy_top_level((1 << 20) - 1), 15)
        self.assertEqual(steps.buddy_top_level(15), 0)          # rounded down to no granule
        self.assertEqual(steps.buddy_top_level(1 << 40), 31)    # kMaxLevel (buddy_block_table.h:74)

    def test_knuth(self):
        # heap/buddy/knuth_buddy_heap.h:90-93: 2 (top - k) + 1 per malloc, top + 1 per free.
        self.assertEqual(steps.knuth_malloc_step_bound(0, 12), 25)
        self.assertEqual(steps.knuth_malloc_step_bound(12, 12), 1)
        self.assertEqual(steps.knuth_malloc_step_bound(13, 12), 0)
        self.assertEqual(steps.step_bounds("knuth", 69632)[:3], (25, 13, 12))
        self.assertEqual(steps.step_bounds("knuth", 1 << 20)[:3], (33, 17, 16))

    def test_estranged(self):
        # heap/buddy/estranged_buddy_heap.h:128-131: 2 + [k>0] 2 + 3 (top - k) + 2k per malloc, 2 per free.
        self.assertEqual(steps.estranged_malloc_step_bound(0, 12), 38)
        self.assertEqual(steps.estranged_malloc_step_bound(1, 12), 39)   # the largest: 3L + 3
        self.assertEqual(steps.estranged_malloc_step_bound(12, 12), 28)
        self.assertEqual(steps.step_bounds("estranged", 69632)[:3], (39, 2, 12))
        self.assertEqual(steps.step_bounds("estranged", 16)[:3], (2, 2, 0))  # one 16-byte block: k = 0 only
        # within the header's looser 3L + 4 (estranged_buddy_heap.h:31)
        for heap in (1 << 16, 3 << 20, 1 << 30):
            top = steps.buddy_top_level(heap)
            self.assertLessEqual(steps.step_bounds("estranged", heap)[0], 3 * top + 4)

    def test_constant_bounds(self):
        self.assertEqual(steps.step_bounds("tlsf", 1 << 20)[:2], (5, 3))       # tlsf_heap.h:86-87
        self.assertEqual(steps.step_bounds("kingsley", 1 << 20)[:2], (2, 1))   # strict_seg_heap.h:46-47
        self.assertEqual(steps.step_bounds("kingsley-coalescing", 1 << 20)[:2], (3, 3))  # segregated_list_heap.h:61-62
        # lea_bins_heap.h:98-104 with size_trie.h:55-57 (P = 45); tests/heap/lea_bins_heap_test.cpp:37
        self.assertEqual(steps.lea_bins_bounds(), (226, 136))
        # quick_list_heap.h maxMallocSteps with LeaPolicy's 2^18 cached blocks (policies.h);
        # tests/heap/lea_policy_test.cpp checks the same number on the C++ side
        self.assertEqual(steps.step_bounds("lea", 1 << 20)[:2], (1 + (1 << 18) * (1 + 136) + 2 * 226, 136))
        self.assertEqual(steps.step_bounds("lea", 1 << 20)[0], 35_914_181)

    def test_bounds_follow_the_headers(self):
        """The constants the bounds are made of, read from the C++ headers, so that a change
        to a policy's composition that moves its bound fails here instead of leaving the
        study's bound column stale (as LeaPolicy's quick lists once did)."""
        def header(path):
            with open(os.path.join(REPO, path), encoding="utf-8") as f:
                return f.read()
        lea = re.search(r"using LeaPolicy = QuickListHeap<(\d+), (\d+),", header("heap/policies.h"))
        self.assertIsNotNone(lea, "LeaPolicy is no longer QuickListHeap<MaxSmall, Capacity, ...>: update study/steps.py")
        self.assertEqual((int(lea.group(1)), int(lea.group(2))),
                         (steps.LEA_QUICK_LIST_MAX_SMALL, steps.LEA_QUICK_LIST_CAPACITY))
        for path, malloc, free in (("heap/classic/tlsf_heap.h", steps.TLSF_MALLOC_STEPS, steps.TLSF_FREE_STEPS),
                                   ("heap/layers/strict_seg_heap.h", steps.KINGSLEY_MALLOC_STEPS,
                                    steps.KINGSLEY_FREE_STEPS)):
            text = header(path)
            self.assertIn(f"static constexpr std::size_t kMaxMallocSteps = {malloc};", text, path)
            self.assertIn(f"static constexpr std::size_t kMaxFreeSteps = {free};", text, path)

    def test_no_bound(self):
        malloc, free, top, note = steps.step_bounds("list", 1 << 20)
        self.assertEqual((malloc, free, top), (None, None, None))
        self.assertEqual(note, "none (linear in free blocks)")
        self.assertIsNone(steps.step_bounds("malloc", 1 << 20)[0])


class Quantile(unittest.TestCase):
    def test_p99_is_the_bucket_where_the_count_reaches_99_percent(self):
        self.assertEqual(steps.quantile_bucket({1: 99, 64: 1}), 1)
        self.assertEqual(steps.quantile_bucket({1: 98, 5: 1, 64: 1}), 5)
        self.assertEqual(steps.quantile_bucket({1: 98, 64: 2}), 64)
        self.assertEqual(steps.quantile_bucket({7: 1}), 7)
        self.assertIsNone(steps.quantile_bucket({}))


def run_row(workload, policy, collector, repeat=0, kind="main", heap=69632, exit_code=0, malloc=None, free=None,
            defrag=0):
    """A flattened results.csv row; malloc / free = {steps: requests} or None (not counted)."""
    r = {"kind": kind, "workload": workload, "argset": "small", "policy": policy, "collector": collector,
         "heap_size": str(heap), "repeat": str(repeat), "exit_code": str(exit_code),
         "heap.satisfied.defrag": str(defrag)}
    for op, hist in (("malloc", malloc), ("free", free)):
        if hist is None:
            continue
        n = sum(hist.values())
        r[f"heap.steps.{op}.count"] = str(n)
        r[f"heap.steps.{op}.mean"] = str(sum(k * v for k, v in hist.items()) / n)
        r[f"heap.steps.{op}.max"] = str(max(hist))
        for k, v in hist.items():
            r[f"heap.steps.{op}.histogram.{k}"] = str(v)
    return r


class Tables(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test_steps.")
        self.rows = [
            run_row("trees", "list", "occasional", malloc={1: 90, 40: 10}),
            # repeat 1 is listed first and differs: the table takes repeat 0
            run_row("trees", "knuth", "occasional", repeat=1, malloc={1: 1}, free={1: 1}),
            run_row("trees", "knuth", "occasional", malloc={1: 95, 11: 4, 23: 1}, free={1: 50, 10: 50}),
            run_row("trees", "knuth", "occasional", kind="minheap", malloc={99: 1}),
            run_row("trees", "estranged", "occasional", malloc={2: 10, 40: 1}, free={2: 3}, defrag=3),
            run_row("trees", "kingsley", "occasional", exit_code=70, malloc={1: 9, 2: 1}),
            run_row("trees", "malloc", "occasional"),
            run_row("json", "knuth", "continuous", heap=1 << 20, malloc={1: 100}, free={1: 100}),
        ]
        self.tables = steps.write_tables(self.dir, self.rows)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def by(self, workload, policy):
        with open(os.path.join(self.dir, "steps.csv")) as f:
            return next(r for r in csv.DictReader(f) if r["workload"] == workload and r["policy"] == policy)

    def test_steps_csv(self):
        rows, columns = self.tables["steps"]
        self.assertEqual(columns, steps.STEPS_COLUMNS)
        self.assertEqual(len(rows), 6)  # main runs only, one per configuration
        knuth = self.by("trees", "knuth")
        self.assertEqual((knuth["malloc_count"], knuth["malloc_p99"], knuth["malloc_max"], knuth["malloc_bound"]),
                         ("100", "11", "23", "25"))
        self.assertEqual((knuth["free_count"], knuth["free_p99"], knuth["free_max"], knuth["free_bound"]),
                         ("100", "10", "10", "13"))
        self.assertEqual(knuth["top_level"], "12")
        self.assertAlmostEqual(float(knuth["malloc_mean"]), (95 + 44 + 23) / 100)
        estranged = self.by("trees", "estranged")
        self.assertEqual(estranged["malloc_max"], "40")
        self.assertIn("3 requests here moved blocks", estranged["bound_note"])
        lst = self.by("trees", "list")
        self.assertEqual((lst["malloc_p99"], lst["malloc_bound"], lst["free_count"]), ("40", "", ""))
        self.assertEqual(lst["bound_note"], "none (linear in free blocks)")
        self.assertEqual(self.by("json", "knuth")["malloc_bound"], "33")
        self.assertEqual(self.by("trees", "malloc")["malloc_count"], "")

    def test_report(self):
        text = "\n".join(steps.report_lines(self.dir))
        self.assertIn("## Steps per request: observed worst case against the bound", text)
        self.assertIn("| trees | 68K | 4.90 / 40 / 40 (no bound) | 1.62 / 11 / 23 (bound 25) |", text)
        self.assertIn("5.45 / 40 / 40 (bound 39) **exceeds**", text)  # defragmenting requests are not covered
        self.assertIn("1.10 / 2 / 2 (bound 2) (exit 70)", text)
        self.assertIn("Steps per free, occasional collection:", text)
        self.assertNotIn("| malloc |", text)  # counts no steps: no column
        self.assertLess(text.index("- **list**"), text.index("- **knuth**"))  # the study's policy order
        self.assertIn("- **knuth**: malloc max 23 (trees, occasional) against the bound 25: max / bound = 0.92; "
                      "free max 10 (trees, occasional) against the bound 13: max / bound = 0.769.", text)
        self.assertIn("- **list**: malloc max 40 (trees, occasional), bound none (linear in free blocks).", text)
        self.assertIn("- **estranged**: malloc max 40 (trees, occasional) against the bound 39: max / bound = 1.03"
                      " — **exceeds the bound**", text)

    def test_no_counted_steps_no_section(self):
        empty = tempfile.mkdtemp(prefix="test_steps.")
        try:
            steps.write_tables(empty, [run_row("trees", "malloc", "occasional")])
            self.assertEqual(steps.report_lines(empty), [])
        finally:
            shutil.rmtree(empty)


if __name__ == "__main__":
    unittest.main()

"""study/compiler_heap.py (`python3 -m study compiler-heap`): the median's distribution-free interval against binomial
tables, the generated programs (deterministic, valid Kith), and the driver end to end
at a tiny scale without cachegrind: one CSV row per program and scratch heap, the
region holding more scratch bytes than the heaps that free.
Run: /usr/bin/python3 test_compiler_heap.py KITH (CTest: study.compiler_heap)."""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, ROOT)  # the repo root: the study package
from study import compiler_heap, compiler_programs  # noqa: E402

KITH = None


class MedianInterval(unittest.TestCase):
    def test_order_statistics_from_the_binomial(self):
        # n = 11: P(3 <= Bin(11, 1/2) <= 8) = 0.9346 < 0.95, P(2..9) = 0.9883, so the 2nd and 10th of the 11.
        m, lo, hi = compiler_heap.median_interval(range(11))
        self.assertEqual((m, lo, hi), (5, 1, 9))
        # n = 6: P(1..5) = 0.96875: the extremes.
        self.assertEqual(compiler_heap.median_interval([6, 1, 5, 2, 4, 3]), (3.5, 1, 6))

    def test_too_few_runs_have_no_interval(self):
        self.assertEqual(compiler_heap.median_interval([3, 1, 2, 4, 5]), (3, None, None))


class Programs(unittest.TestCase):
    def test_deterministic_and_bigger_with_more_units(self):
        a = compiler_programs.program("deep", 3)
        self.assertEqual(a, compiler_programs.program("deep", 3))
        self.assertGreater(len(compiler_programs.program("deep", 6)), len(a) * 1.8)

    def test_they_run(self):
        with tempfile.TemporaryDirectory() as d:
            for kind in compiler_programs.SHAPES:
                path = os.path.join(d, kind + ".kith")
                with open(path, "w") as f:
                    f.write(compiler_programs.program(kind, 5))
                p = subprocess.run([KITH, path], capture_output=True, text=True, timeout=60)
                self.assertEqual((p.returncode, p.stderr), (0, ""), kind)
                self.assertRegex(p.stdout, r"^-?\d+\n$")


class EndToEnd(unittest.TestCase):
    def test_one_row_per_program_and_heap(self):
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([sys.executable, os.path.join(ROOT, "study"), "compiler-heap", "--kith=" + KITH,
                                "--out=" + d, "--runs=6", "--scale=0.002", "--no-cachegrind"],
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("| wide | reap |", p.stdout)
            with open(os.path.join(d, "compiler_heap.csv")) as f:
                rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 5 * len(compiler_heap.HEAPS))
        for r in rows:
            zone = next(z for z in rows if z["program"] == r["program"] and z["heap"] == "zone")
            self.assertEqual(r["requests"], zone["requests"])  # the same compilation
            if r["heap"] != "zone":
                self.assertLess(float(r["mean_bytes"]), float(zone["mean_bytes"]), r)
            self.assertNotEqual(r["compile_s_low"], "")

    def test_bad_option_is_a_usage_error(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "study"), "compiler-heap", "--runs=0"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 64)
        self.assertIn("bad option '--runs=0'", p.stderr)


if __name__ == "__main__":
    KITH = sys.argv.pop(1)
    unittest.main()

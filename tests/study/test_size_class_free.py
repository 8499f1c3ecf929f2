"""study/size_class_free.py: the free bytes in the requested size class, worked out by hand
on a made-up timeline (the class weights, mid-run, mean, the run weighting, coverage and
the immediate fraction it predicts), Pearson and Spearman against known values
(scipy.stats gives the same), the report section's numbers read from the CSVs (change a
CSV, the report changes), docs/study's size-class CSVs and report section current with
its other CSVs, and the demog runs of the fake study under both collectors
(fake_kith.py): a timeline per collector, the trace only on the occasional estranged run.
Run: /usr/bin/python3 -m unittest test_size_class_free (CTest: study.size_class_free)."""

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
from study import size_class_free as scf  # noqa: E402
from study import stats  # noqa: E402

DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


FRAG_HEADER = ["workload", "policy", "cycle", "bytes_allocated", "in_use", "free", "largest_free", "free_16",
               "free_32", "free_64", "free_1024"]


def hand_made_study(d, total=4000):
    """One workload, w: 3 requests in 32 B blocks for 1 in 64 B (weights 0.75, 0.25; the
    mean block 40 B); two collections, at 1000 and 3000 block bytes allocated, of 4000
    (alloc_rate.csv; None leaves the total out). The timeline has no collector column, as
    the published one before the continuous demog runs: it is the occasional runs'."""
    write(os.path.join(d, "sizes.csv"), ["workload", "policy", "size_class", "count", "fraction"],
          [["w", "estranged", 32, 3, 0.75], ["w", "estranged", 64, 1, 0.25]])
    write(os.path.join(d, "frag_timeline.csv"), FRAG_HEADER, [
        # estranged: cycle 0 keeps 10 blocks of 32 and 10 of 64; cycle 1 two of 32
        ["w", "estranged", 0, 1000, 500, 2000, 1024, 0, 320, 640, 1024],
        ["w", "estranged", 1, 3000, 500, 2000, 1024, 16, 64, 0, 1024],
        # knuth: one block of 32, then one of 64; the rest glued up (1024 B: no request needs it)
        ["w", "knuth", 0, 1000, 500, 2000, 1024, 0, 32, 0, 1024],
        ["w", "knuth", 1, 3000, 500, 2000, 1024, 0, 0, 64, 1024]])
    rate = [["w", "demog", p, "occasional", 1, total] for p in ("knuth", "estranged")] if total else []
    write(os.path.join(d, "alloc_rate.csv"), ["workload", "kind", "policy", "collector", "runs", "bytes_allocated"],
          rate)
    write(os.path.join(d, "satisfied.csv"), ["workload", "collector", "policy", "immediate_pct"],
          [["w", "occasional", "knuth", 50.5], ["w", "occasional", "estranged", 62.5]])
    write(os.path.join(d, "demographics.csv"),
          ["workload", "within_1m", "largest_over_free_estranged", "largest_over_free_knuth"], [["w", 0.2, 0.5, 0.5]])


class Weighting(unittest.TestCase):
    def test_hand_made_timeline(self):
        with tempfile.TemporaryDirectory() as d:
            hand_made_study(d)
            scf.write_tables(d)
            rows = {(r["policy"], r["cycle"]): r for r in read(os.path.join(d, "size_class_free.csv"))}
            e0 = rows[("estranged", "0")]
            self.assertEqual(e0["collector"], "occasional")
            # R = 0.75 * 320 + 0.25 * 640 (free_16 and free_1024: no request needs them)
            self.assertAlmostEqual(float(e0["requested_class_free_bytes"]), 400)
            self.assertAlmostEqual(float(e0["requested_class_free_blocks"]), 0.75 * 10 + 0.25 * 10)
            self.assertAlmostEqual(float(e0["requested_class_share"]), 400 / 2000)
            self.assertAlmostEqual(float(e0["allocated_until_next"]), 2000)
            # 2000 B / 40 B = 50 requests: 37.5 of 32 B (10 free blocks), 12.5 of 64 B (10)
            self.assertAlmostEqual(float(e0["coverage"]), 10 / 50 + 10 / 50)
            e1 = rows[("estranged", "1")]
            self.assertAlmostEqual(float(e1["requested_class_free_bytes"]), 0.75 * 64)
            self.assertAlmostEqual(float(e1["allocated_until_next"]), 1000)  # to the run's end
            self.assertAlmostEqual(float(e1["coverage"]), 2 / 25)
            self.assertAlmostEqual(float(rows[("knuth", "1")]["coverage"]), 1 / 25)

            s = read(os.path.join(d, "size_class_summary.csv"))[0]
            self.assertEqual((s["workload"], s["collector"], s["main_class"]), ("w", "occasional", "32"))
            self.assertAlmostEqual(float(s["mid_free_bytes_estranged"]), 48)  # index 2 // 2 = 1
            self.assertAlmostEqual(float(s["mean_free_bytes_estranged"]), (400 + 48) / 2)
            # over the run: (400 * 2000 + 48 * 1000) / 4000; the first 1000 bytes count as 0
            self.assertAlmostEqual(float(s["run_free_bytes_estranged"]), 212)
            self.assertAlmostEqual(float(s["run_free_bytes_knuth"]), (24 * 2000 + 16 * 1000) / 4000)
            self.assertAlmostEqual(float(s["coverage_estranged"]), (0.4 * 2000 + 0.08 * 1000) / 4000)
            self.assertAlmostEqual(float(s["coverage_knuth"]), (0.02 * 2000 + 0.04 * 1000) / 4000)
            self.assertAlmostEqual(float(s["predicted_immediate_pct_estranged"]), 100 * (0.22 + 0.78 / 2))
            self.assertAlmostEqual(float(s["predicted_immediate_pct_knuth"]), 100 * (0.02 + 0.98 / 2))
            self.assertAlmostEqual(float(s["log10_ratio_mid"]), math.log10(48 / 16))
            self.assertAlmostEqual(float(s["log10_ratio_run"]), math.log10(212 / 16))
            self.assertAlmostEqual(float(s["immediate_diff"]), 12.0)
            # a 12-point gap; the coverage predicts 10 (exactly the threshold); 20% dead by 1 MB
            self.assertEqual((s["observed_gap"], s["size_class_predicts_gap"], s["lifetime_predicts_gap"]),
                             ("True", "True", "False"))
            self.assertEqual((s["size_class_explains"], s["lifetime_explains"]), ("True", "False"))

    def test_without_the_runs_total_nothing_is_weighted(self):
        # The last collection's share of the run is unknown: no run value, not a guessed one.
        with tempfile.TemporaryDirectory() as d:
            hand_made_study(d, total=None)
            scf.write_tables(d)
            s = read(os.path.join(d, "size_class_summary.csv"))[0]
            self.assertAlmostEqual(float(s["mid_free_bytes_estranged"]), 48)
            for column in ("run_free_bytes_estranged", "coverage_knuth", "predicted_immediate_pct_knuth",
                           "size_class_explains"):
                self.assertEqual(s[column], "", column)

    def test_coverage_is_capped_per_class(self):
        # 50 requests of 40 B: 37.5 of 32 B, 12.5 of 64 B. A thousand free 32-byte blocks
        # meet every 32-byte request (0.75 of them) and none of the 64-byte ones.
        weights = {32: 0.75, 64: 0.25}
        self.assertAlmostEqual(scf.coverage({"free_32": "32000"}, weights, 2000), 0.75)
        self.assertAlmostEqual(scf.coverage({"free_32": "320", "free_64": "6400"}, weights, 2000), 0.2 + 0.25)
        self.assertIsNone(scf.coverage({"free_32": "320"}, weights, 0))

    def test_mid_run_is_the_middle_collection(self):
        rows = [{"requested_class_free_bytes": x, "allocated_until_next": None} for x in (5.0, 7.0, 9.0, 100.0)]
        self.assertEqual(scf.over_run(rows[:3], None), {"cycles": 3, "mid_free_bytes": 7.0, "mean_free_bytes": 7.0})
        self.assertEqual(scf.over_run(rows, None)["mid_free_bytes"], 9.0)  # index 4 // 2
        self.assertEqual(scf.over_run([], None), {})

    def test_class_weights_normalise_counts(self):
        w = scf.class_weights([{"workload": "a", "size_class": "32", "count": "6"},
                               {"workload": "a", "size_class": "4096", "count": "2"},
                               {"workload": "b", "size_class": "64", "count": "5"}])
        self.assertEqual(w, {"a": {32: 0.75, 4096: 0.25}, "b": {64: 1.0}})


class Correlation(unittest.TestCase):
    def test_pearson_known_values(self):
        r, p, n = stats.pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
        self.assertEqual(n, 5)
        self.assertAlmostEqual(r, 6 / math.sqrt(60), places=12)  # sxy 6, sxx 10, syy 6
        self.assertAlmostEqual(p, 0.12402706265755462, places=9)  # scipy.stats.pearsonr
        r, p, _ = stats.pearson([1, 2, 3, 4, 5, 6], [1, 4, 9, 16, 25, 36])
        self.assertAlmostEqual(r, 0.9789172636778181, places=12)
        self.assertAlmostEqual(p, 0.0006620372102587548, places=9)

    def test_spearman_known_values_with_ties(self):
        self.assertEqual(stats.ranks([2, 4, 5, 4, 5]), [1, 2.5, 4.5, 2.5, 4.5])
        rho, p, n = stats.spearman([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
        self.assertEqual(n, 5)
        self.assertAlmostEqual(rho, 7 / math.sqrt(90), places=12)
        self.assertAlmostEqual(p, 0.15461852312844906, places=9)  # scipy.stats.spearmanr
        rho, p, _ = stats.spearman([1, 2, 3, 4, 5, 6], [1, 4, 9, 16, 25, 36])
        self.assertEqual((rho, p), (1.0, 0.0))  # monotone: rank correlation 1 where Pearson's is not

    def test_missing_and_degenerate(self):
        self.assertEqual(stats.pearson([1, None, 3, 4], [2, 5, None, 8])[2], 2)
        self.assertEqual(stats.pearson([1, None, 3, 4], [2, 5, None, 8])[:2], (None, None))  # two pairs
        self.assertEqual(stats.pearson([1, 1, 1], [1, 2, 3])[:2], (None, None))  # x constant
        r, _, n = stats.pearson([1, None, 2, 3, 4], [1, 7, 3, 2, 5])
        self.assertEqual(n, 4)
        self.assertAlmostEqual(r, stats.pearson([1, 2, 3, 4], [1, 3, 2, 5])[0])

    def test_correlation_rows_across_workloads(self):
        summary = [{"workload": f"w{i}", "collector": "occasional", "coverage_diff": x, "immediate_diff": y,
                    "coverage_knuth": x / 2, "coverage_estranged": x, "immediate_pct_knuth": 50 + y / 4,
                    "immediate_pct_estranged": 50 + y, "dead_by_1m": None if i == 0 else x}
                   for i, (x, y) in enumerate([(1, 2), (2, 4), (3, 5), (4, 4), (5, 5)])]
        rows = {r["x"]: r for r in scf.correlation_rows(summary)}
        self.assertAlmostEqual(rows["coverage_diff"]["pearson_r"], 6 / math.sqrt(60))
        self.assertAlmostEqual(rows["coverage_diff"]["spearman_rho"], 7 / math.sqrt(90))
        self.assertEqual(rows["coverage"]["n"], 10)  # pooled: a point per policy
        self.assertEqual((rows["dead_by_1m"]["n"], rows["dead_by_1m"]["left_out"]), (4, "w0"))
        self.assertEqual(rows["log10_ratio_run"]["n"], 0)
        self.assertNotIn("recycled_diff", {r["y"] for r in scf.correlation_rows(summary)})  # no sources runs

    def test_recycled_correlations_with_the_sources_runs(self):
        # With satisfied.csv's recycled_pct (the split floor taken out), coverage is set
        # against the requests a freed block met: a row per pair, only then.
        summary = [{"workload": f"w{i}", "collector": "occasional", "coverage_diff": x, "recycled_diff": 2 * x,
                    "coverage_knuth": x / 2, "coverage_estranged": x, "recycled_pct_knuth": x,
                    "recycled_pct_estranged": 2 * x} for i, x in enumerate([1, 2, 3, 4])]
        rows = {(r["x"], r["y"]): r for r in scf.correlation_rows(summary)}
        self.assertAlmostEqual(rows[("coverage_diff", "recycled_diff")]["pearson_r"], 1.0)
        self.assertEqual(rows[("coverage", "recycled_pct")]["n"], 8)
        self.assertAlmostEqual(rows[("coverage", "recycled_pct")]["spearman_rho"], 1.0)


class Report(unittest.TestCase):
    def section(self, d):
        scf.write_tables(d)
        return "\n".join(scf.report_lines(d))

    def test_numbers_come_from_the_csvs(self):
        with tempfile.TemporaryDirectory() as d:
            hand_made_study(d)
            write(os.path.join(d, "satisfied_means.csv"),
                  ["collector", "policy", "subset", "workloads", "immediate_pct_weighted"],
                  [["occasional", "knuth", "recycling", 3, 40.04], ["occasional", "estranged", "recycling", 3, 80.0],
                   ["continuous", "knuth", "recycling", 2, 47.5], ["continuous", "estranged", "recycling", 2, 81.0],
                   ["occasional", "knuth", "all", 4, 11.0]])
            write(os.path.join(d, "alloc_cost.csv"), ["workload", "collector", "policy", "frees", "ir_per_request"],
                  [["a", "occasional", "knuth", 10, 100], ["a", "occasional", "estranged", 10, 80],
                   ["b", "occasional", "knuth", 10, 100], ["b", "occasional", "estranged", 10, 50],
                   ["c", "occasional", "knuth", 0, 100], ["c", "occasional", "estranged", 0, 10],  # frees nothing
                   ["a", "continuous", "knuth", 10, 100], ["a", "continuous", "estranged", 10, 90]])
            text = self.section(d)
            self.assertIn(scf.HEADING, text)
            self.assertIn("| w | 32 B (75%) | 16 / 48 | 16 / 212 | 0.02 / 0.22 | 51.0 / 61.0 | 50.5 / 62.5 | "
                          "20.0% | yes / **no** |", text)
            self.assertIn("Lifetimes account for the gap or its absence on 0 of 1 workloads; not on w (20.0% dead "
                          "by 1 MB, observed gap 12.0 points)", text)
            self.assertIn("on 1 of 1 workloads: how much memory", text)  # largest/free 0.5 for both
            self.assertIn("(3 under occasional collection, 2 under continuous; request-weighted", text)
            self.assertIn("from 40.0% to 47.5% (+7.5 points) and estranged's from 80.0% to 81.0% (+1.0)", text)
            self.assertIn("Kith finds the opposite: it helps knuth more.", text)
            # sqrt(0.8 * 0.5) over a and b (c frees nothing), then 0.9 over a
            self.assertIn("go from 0.63 (2) to 0.90 (1): its advantage narrows", text)
            self.assertIn("has the occasional demog runs only", text)

            # Another number in a CSV, another number in the report.
            rows = read(os.path.join(d, "satisfied.csv"))
            rows[1]["immediate_pct"] = "57.5"
            write(os.path.join(d, "satisfied.csv"), list(rows[0]), [list(r.values()) for r in rows])
            text = self.section(d)
            self.assertIn("| 50.5 / 57.5 | 20.0% | **no** / yes |", text)
            self.assertIn("Lifetimes account for the gap or its absence on 1 of 1 workloads.", text)

    def test_no_timeline_no_section(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.section(d), "")
            self.assertEqual(read(os.path.join(d, "size_class_summary.csv")), [])


class Published(unittest.TestCase):
    """docs/study's size-class CSVs and the report's section are what its other CSVs give."""

    def test_docs_study_is_current(self):
        published = os.path.join(HERE, "..", "..", "docs", "study")
        with tempfile.TemporaryDirectory() as d:
            for name in os.listdir(published):
                if name.endswith(".csv") and not name.startswith("size_class_"):
                    shutil.copy(os.path.join(published, name), d)
            scf.write_tables(d)
            for name in ("size_class_free.csv", "size_class_summary.csv", "size_class_correlation.csv"):
                with open(os.path.join(d, name)) as f, open(os.path.join(published, name)) as g:
                    self.assertEqual(f.read(), g.read(), f"docs/study/{name} is stale: "
                                     "/usr/bin/python3 -m study size-class-free docs/study")
            with open(os.path.join(published, "report.md")) as f:
                report = f.read()
            for line in scf.report_lines(d):
                self.assertIn(line, report)


def run_fake_study(out, collectors):
    cmd = [sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}",
           "--policies=knuth,estranged", f"--collectors={collectors}", "--no-figures", "--main-heap=suite",
           "--repeat=1", "--experiments=main,demog", f"--out={out}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


class FakeStudy(unittest.TestCase):
    """The demog runs under each collector of the study that collects, on fake_kith.py."""

    def test_both_collectors(self):
        with tempfile.TemporaryDirectory() as out:
            p = run_fake_study(out, "occasional,continuous")
            self.assertEqual(p.returncode, 0, p.stderr)
            demog = sorted(n[:-3] for n in os.listdir(os.path.join(out, "runs", "demog")) if n.endswith(".rc"))
            self.assertEqual([tuple(n.split("__")[i] for i in (1, 3, 4)) for n in demog],
                             [(w, p, c) for w in ("alpha", "beta") for p in ("estranged", "knuth")
                              for c in ("continuous", "occasional")])
            with open(os.path.join(out, "commands.txt")) as f:
                traced = sorted(line.split("__")[1:5] for line in f if "--trace=runs/demog" in line)
            self.assertEqual(traced, [["alpha", "study", "estranged", "occasional"],
                                      ["beta", "study", "estranged", "occasional"]])
            timeline = read(os.path.join(out, "frag_timeline.csv"))
            self.assertEqual({(r["collector"], r["policy"]) for r in timeline},
                             {(c, p) for c in ("occasional", "continuous") for p in ("knuth", "estranged")})
            summary = {(r["workload"], r["collector"]): r for r in read(os.path.join(out, "size_class_summary.csv"))}
            self.assertEqual(sorted(summary), [(w, c) for w in ("alpha", "beta") for c in ("continuous", "occasional")])
            # fake_kith keeps 10 blocks of 32 and of 64 bytes for knuth under continuous
            # collection, none under occasional, 100 for estranged, and one 4 KiB block
            # (the histogram: 300 of 32 B, 600 of 64 B and 100 of 4 KiB of 1000 requests)
            big = 0.1 * 4096
            for w in ("alpha", "beta"):
                self.assertAlmostEqual(float(summary[(w, "occasional")]["mid_free_bytes_knuth"]), big)
                self.assertAlmostEqual(float(summary[(w, "continuous")]["mid_free_bytes_knuth"]),
                                       0.3 * 320 + 0.6 * 640 + big)
                self.assertAlmostEqual(float(summary[(w, "occasional")]["mid_free_bytes_estranged"]),
                                       0.3 * 3200 + 0.6 * 6400 + big)
            demographics = read(os.path.join(out, "demographics.csv"))
            self.assertEqual({r["cycles_knuth"] for r in demographics}, {"5"})  # the occasional runs alone
            with open(os.path.join(out, "report.md")) as f:
                report = f.read()
            self.assertIn(scf.HEADING, report)
            self.assertIn("Collector `continuous`, per workload:", report)

    def test_occasional_always_none_never(self):
        with tempfile.TemporaryDirectory() as out:
            p = run_fake_study(out, "continuous,none")
            self.assertEqual(p.returncode, 0, p.stderr)
            collectors = {n.split("__")[4] for n in os.listdir(os.path.join(out, "runs", "demog")) if n.endswith(".rc")}
            self.assertEqual(collectors, {"occasional", "continuous"})


if __name__ == "__main__":
    unittest.main()

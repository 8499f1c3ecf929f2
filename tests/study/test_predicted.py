"""study/predicted.py: the instruction counts weighted by each run's calls against the
unweighted per-pair ones, on hand-made costs where the two disagree; the prediction's
arithmetic on known numbers; the measured change and its interval recovered from
summary.csv as Fieller's from the samples; the minimum detectable effect; the report's
lines printing the numbers of the CSVs; and the published predicted.csv being the one the
published CSVs give.
Run: /usr/bin/python3 -m unittest test_predicted (CTest: study.predicted)."""

import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, REPO)  # the repo root: the study package
from study import predicted, stats, whole_run  # noqa: E402

PUBLISHED = os.path.join(REPO, "docs", "study")
COST_COLUMNS = ["workload", "collector", "policy", "allocations", "frees", "ir_per_malloc", "ir_per_free",
                "d1_per_malloc", "d1_per_free", "ll_per_malloc", "ll_per_free"]


def write(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})


def cost(workload, policy, allocations, frees, ir_malloc, ir_free, collector="occasional", d1=(0, 0), ll=(0, 0)):
    return {"workload": workload, "collector": collector, "policy": policy, "allocations": allocations,
            "frees": frees, "ir_per_malloc": ir_malloc, "ir_per_free": "" if ir_free is None else ir_free,
            "d1_per_malloc": d1[0], "d1_per_free": "" if ir_free is None else d1[1], "ll_per_malloc": ll[0],
            "ll_per_free": "" if ir_free is None else ll[1]}


# w1: estranged cheaper either way. w2: cheaper per malloc-plus-free pair (55 < 60), dearer
# weighted by its 100 mallocs and 10 frees (5,050 > 2,400). w3 never frees: no pair cost,
# and by its mallocs alone dearer (8,400 > 7,350).
DISAGREEING = [cost("w1", "knuth", 100, 10, 30, 40), cost("w1", "estranged", 100, 10, 10, 50),
               cost("w2", "knuth", 100, 10, 20, 40), cost("w2", "estranged", 100, 10, 50, 5),
               cost("w3", "knuth", 100, 0, 73.5, None), cost("w3", "estranged", 100, 0, 84, None)]


def summary_row(workload, policy, samples, collector="occasional"):
    """A summary.csv main row as analysis.summarize writes it from these wall times."""
    mean, lo, hi = stats.mean_ci(samples)
    return {"kind": "main", "workload": workload, "policy": policy, "collector": collector, "runs": len(samples),
            "failed": 0, "wall_s_mean": mean, "wall_s_ci_low": lo, "wall_s_ci_high": hi}


SUMMARY_COLUMNS = ["kind", "workload", "policy", "collector", "runs", "failed", "wall_s_mean", "wall_s_ci_low",
                   "wall_s_ci_high"]
SHARE_COLUMNS = ["workload", "collector", "policy", "share_pct"]
SPEEDUP_COLUMNS = ["workload", "collector", "policy", "gc_ms_policy", "gc_cycles_policy"]


class Weighted(unittest.TestCase):
    def test_weighted_and_unweighted_disagree(self):
        counts = predicted.cheaper_counts(DISAGREEING, "estranged", "knuth")["occasional"]
        self.assertEqual(counts["unweighted"], (2, 2))      # w1, w2 (w3 has no per-free cost)
        self.assertEqual(counts["weighted"], (1, 2))        # w1 only, of the two that free
        self.assertEqual(counts["weighted_all"], (1, 3))    # and w3 by its mallocs alone
        ratios = [(100 * 10 + 10 * 50) / (100 * 30 + 10 * 40), (100 * 50 + 10 * 5) / (100 * 20 + 10 * 40), 84 / 73.5]
        self.assertAlmostEqual(counts["ratio"], math.prod(ratios) ** (1 / 3), places=12)

    def test_weighted_cost(self):
        self.assertEqual(predicted.weighted(DISAGREEING[3], "ir"), 100 * 50 + 10 * 5)
        self.assertEqual(predicted.weighted(DISAGREEING[5], "ir"), 100 * 84)  # never frees: mallocs alone
        self.assertIsNone(predicted.weighted(dict(DISAGREEING[3], ir_per_free=""), "ir"))  # frees, cost missing
        self.assertIsNone(predicted.per_pair(DISAGREEING[5]))

    def test_headline_lines_print_the_counts(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "alloc_cost.csv"), COST_COLUMNS, DISAGREEING)
            text = "\n".join(predicted.weighted_lines(d))
        row = next(line for line in text.splitlines() if line.startswith("| `estranged` vs `knuth`"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        ratio = f"{predicted.cheaper_counts(DISAGREEING, 'estranged', 'knuth')['occasional']['ratio']:.3g}x"
        self.assertEqual(cells, ["`estranged` vs `knuth`", "occasional", "1 of 2", "1 of 3", ratio, "2 of 2"])
        self.assertIn("per malloc-plus-free pair, unweighted", text)


class Prediction(unittest.TestCase):
    def test_cycles(self):
        row = cost("w", "p", 10, 5, 50, 30, d1=(1, 0.5), ll=(0.1, 0))
        ir, d1, ll = 10 * 50 + 5 * 30, 10 * 1 + 5 * 0.5, 10 * 0.1
        self.assertAlmostEqual(predicted.cycles(row), ir + 10 * d1 + 200 * ll)
        self.assertAlmostEqual(predicted.cycles(row), 975)

    def test_predicted_change(self):
        self.assertAlmostEqual(predicted.predicted_change(20.0, 75.0, 100.0), -0.05)   # 20% x (0.75 - 1)
        self.assertAlmostEqual(predicted.predicted_change(10.0, 150.0, 100.0), 0.05)   # 10% x (1.5 - 1)
        self.assertIsNone(predicted.predicted_change(None, 75.0, 100.0))
        self.assertIsNone(predicted.predicted_change(20.0, 75.0, 0.0))

    def test_measured_change_is_fieller_from_the_samples(self):
        policy, base = [0.95, 0.97, 0.99, 0.96, 0.98, 1.00], [1.00, 1.02, 1.01, 0.99, 1.03]
        q, lo, hi = stats.ratio_ci(policy, base)
        m, mlo, mhi = predicted.measured_change(summary_row("w", "p", policy), summary_row("w", "b", base))
        self.assertAlmostEqual(m, q - 1, places=12)
        self.assertAlmostEqual(mlo, lo - 1, places=12)
        self.assertAlmostEqual(mhi, hi - 1, places=12)
        one = predicted.measured_change(summary_row("w", "p", [0.9]), summary_row("w", "b", base))
        self.assertAlmostEqual(one[0], 0.9 / (sum(base) / len(base)) - 1)
        self.assertEqual(one[1:], (None, None))
        # A base whose interval reaches zero: Fieller's interval is unbounded, so none.
        wild = predicted.measured_change(summary_row("w", "p", policy), summary_row("w", "b", [0.001, 0.05]))
        self.assertIsNotNone(wild[0])
        self.assertEqual(wild[1:], (None, None))

    def test_minimum_detectable_effect(self):
        self.assertAlmostEqual(predicted.minimum_detectable(-0.03, 0.05), 0.04)
        self.assertIsNone(predicted.minimum_detectable(None, 0.05))
        # For an MDE of the prediction: (0.04 / 0.02)^2 = 4 times the larger side's 10 runs.
        self.assertEqual(predicted.runs_to_resolve(-0.02, 0.04, 5, 10), 40)
        self.assertIsNone(predicted.runs_to_resolve(0.0, 0.04, 5, 10))


def small_study(d, share_pct=20.0, knuth_walls=(1.00, 1.02, 1.01, 0.99, 1.03),
                estranged_walls=(0.90, 0.92, 0.91, 0.89, 0.93)):
    """A directory of the four CSVs: w1 with estranged at 0.75x knuth's cost."""
    write(os.path.join(d, "alloc_cost.csv"), COST_COLUMNS,
          [cost("w1", "knuth", 1000, 1000, 60, 40), cost("w1", "estranged", 1000, 1000, 45, 30)])
    write(os.path.join(d, "alloc_share.csv"), SHARE_COLUMNS,
          [{"workload": "w1", "collector": "occasional", "policy": "knuth", "share_pct": share_pct},
           {"workload": "w1", "collector": "occasional", "policy": "estranged", "share_pct": share_pct}])
    write(os.path.join(d, "summary.csv"), SUMMARY_COLUMNS,
          [summary_row("w1", "knuth", list(knuth_walls)), summary_row("w1", "estranged", list(estranged_walls))])
    write(os.path.join(d, "speedup.csv"), SPEEDUP_COLUMNS,
          [{"workload": "w1", "collector": "occasional", "policy": "knuth", "gc_ms_policy": 30.0,
            "gc_cycles_policy": 12},
           {"workload": "w1", "collector": "occasional", "policy": "estranged", "gc_ms_policy": 10.0,
            "gc_cycles_policy": 7}])


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kith-predicted-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def row(self):
        rows, _ = predicted.write_tables(self.dir)["predicted"]
        self.assertEqual([(r["policy"], r["base"]) for r in rows], [("estranged", "knuth")])
        return rows[0]

    def test_the_row(self):
        small_study(self.dir)
        r = self.row()
        self.assertAlmostEqual(r["cost_ratio"], 0.75)
        self.assertAlmostEqual(r["predicted"], -0.05)                  # 20% x (0.75 - 1)
        self.assertAlmostEqual(r["measured"], 0.91 / 1.01 - 1)
        self.assertFalse(r["agrees"])                                  # -10.9% measured, a narrow interval
        self.assertAlmostEqual(r["mde"], (r["ci_high"] - r["ci_low"]) / 2)
        self.assertTrue(r["resolvable"])
        self.assertAlmostEqual(r["gc_change"], (10.0 - 30.0) / 1000 / 1.01)
        self.assertFalse(r["agrees_with_gc"])                          # -5% - 2% is still outside

    def test_section_prints_the_csv(self):
        small_study(self.dir)
        r = self.row()
        text = "\n".join(predicted.report_lines(self.dir, ["FIGURE"]))
        line = next(ln for ln in text.splitlines() if ln.startswith("| w1 | occasional | -5.0% |"))
        self.assertIn(f"{100 * r['measured']:+.1f}% [{100 * r['ci_low']:+.1f}%, {100 * r['ci_high']:+.1f}%]", line)
        self.assertIn(f"| {100 * r['mde']:.1f}% |", line)
        self.assertIn("**no**", line)
        self.assertIn("**Findings to explain** (1 pairs", text)
        self.assertIn("| 7 / 12 | 10 / 30 |", text)                   # GC cycles and ms, estranged / knuth
        self.assertIn("FIGURE", text)
        # A number in the CSV moves, the report moves with it: nothing in it is typed.
        small_study(self.dir, share_pct=24.0, estranged_walls=(0.97, 1.05, 0.93, 1.01, 0.99))
        predicted.write_tables(self.dir)
        text = "\n".join(predicted.report_lines(self.dir))
        self.assertIn("| w1 | occasional | -6.0% | -2.0% [", text)
        self.assertNotIn("Findings to explain", text)

    def test_unbounded_interval_says_why(self):
        small_study(self.dir, knuth_walls=(0.001, 0.05))
        r = self.row()
        self.assertIsNone(r["mde"])
        self.assertIn("no interval: unbounded", r["note"])

    def test_without_measurements_no_section(self):
        small_study(self.dir)
        write(os.path.join(self.dir, "summary.csv"), SUMMARY_COLUMNS, [])
        r = self.row()
        self.assertIn("no timed runs of estranged and knuth", r["note"])
        self.assertEqual(predicted.report_lines(self.dir), [])

    def test_command_line(self):
        command = ["/usr/bin/python3", os.path.join(REPO, "study"), "predicted"]
        p = subprocess.run(command + [self.dir], capture_output=True, text=True)
        self.assertEqual(p.returncode, 66)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "predicted.csv")))
        small_study(self.dir)
        p = subprocess.run(command + [self.dir], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "predicted.csv")))


def results_row(kind, policy, exit_code=0, frees=900, **counts):
    """A results.csv row (analysis.collect_rows) of tiny/occasional/policy."""
    row = {"kind": kind, "workload": "w1", "argset": "study", "collector": "occasional", "policy": policy,
           "heap_size": 65536, "repeat": 0, "exit_code": exit_code}
    if exit_code == 0:
        row.update({"heap.allocations": 1000, "heap.frees": frees, "gc.cycles": 4})
        row.update({f"cachegrind.{k}": v for k, v in counts.items()})
    return row


CACHEGRIND = {"Ir": 1_000_000, "I1mr": 10, "ILmr": 1, "Dr": 300_000, "D1mr": 200, "DLmr": 20, "Dw": 100_000,
              "D1mw": 100, "DLmw": 30}


class WholeRun(unittest.TestCase):
    def test_rows(self):
        rows = [results_row("main", "knuth"), results_row("wholerun", "knuth", **CACHEGRIND),
                results_row("main", "estranged"), results_row("wholerun", "estranged", frees=899, **CACHEGRIND),
                results_row("wholerun", "list", **CACHEGRIND), results_row("wholerun", "tlsf", exit_code=70)]
        out = {r["policy"]: r for r in whole_run.whole_run_rows(rows, "study")}
        k = out["knuth"]
        self.assertEqual((k["ir"], k["i1_misses"], k["d1_misses"], k["ll_misses"]), (1_000_000, 10, 300, 51))
        self.assertEqual(k["cycles"], 1_000_000 + 10 * (10 + 300) + 200 * 51)
        self.assertTrue(k["counts_match_main"])
        self.assertFalse(out["estranged"]["counts_match_main"])     # one free fewer than its main run
        self.assertIsNone(out["list"]["counts_match_main"])         # no main run to hold it to
        self.assertEqual(out["tlsf"]["exit_code"], 70)
        self.assertNotIn("ir", out["tlsf"])
        self.assertEqual(len(whole_run.whole_run_rows(rows, "small")), 0)

    def test_predicted_beside_the_whole_runs(self):
        with tempfile.TemporaryDirectory() as d:
            small_study(d)
            write(os.path.join(d, "whole_run.csv"), whole_run.WHOLE_RUN_COLUMNS,
                  [{"workload": "w1", "collector": "occasional", "policy": "knuth", "ir": 2_000_000,
                    "cycles": 2_500_000},
                   {"workload": "w1", "collector": "occasional", "policy": "estranged", "ir": 1_900_000,
                    "cycles": 2_300_000}])
            rows, _ = predicted.write_tables(d)["predicted"]
            text = "\n".join(predicted.report_lines(d))
        r = rows[0]
        self.assertAlmostEqual(r["whole_ir_change"], -0.05)
        self.assertAlmostEqual(r["whole_cycles_change"], -0.08)
        # the allocator's instructions saved: 1000 x (45 + 30) - 1000 x (60 + 40), over knuth's whole run
        self.assertAlmostEqual(r["alloc_ir_change"], (75_000 - 100_000) / 2_000_000)
        self.assertTrue(r["whole_agrees"])                             # -8% inside the measured interval
        line = next(ln for ln in text.splitlines() if ln.startswith("| w1 | occasional |"))
        self.assertTrue(line.endswith("| -8.0% | -5.0% | -1.2% |"), line)
        self.assertIn("on 1 of 1 pairs the change of the whole run's estimated cycles is inside", text)


class Published(unittest.TestCase):
    def test_measured_against_list_is_speedup_csv(self):
        """The intervals recovered from summary.csv are speedup.csv's (its reciprocals)."""
        with tempfile.TemporaryDirectory() as d:
            for name in predicted.READS:
                shutil.copy(os.path.join(PUBLISHED, name), d)
            rows = predicted.predicted_rows(d)
        with open(os.path.join(PUBLISHED, "speedup.csv"), newline="") as f:
            speedup = {(r["workload"], r["collector"], r["policy"]): r for r in csv.DictReader(f)}
        checked = 0
        for r in rows:
            s = speedup.get((r["workload"], r["collector"], r["policy"]))
            if r["base"] != "list" or not s or not s["speedup"] or r.get("ci_low") is None or not s["ci_low"]:
                continue
            self.assertAlmostEqual(r["measured"], 1 / float(s["speedup"]) - 1, places=9)
            self.assertAlmostEqual(r["ci_low"], 1 / float(s["ci_high"]) - 1, places=9)
            self.assertAlmostEqual(r["ci_high"], 1 / float(s["ci_low"]) - 1, places=9)
            checked += 1
        self.assertGreater(checked, 100)

    def test_published_predicted_csv_is_current(self):
        """docs/study/predicted.csv is what predicted.py makes of the published CSVs."""
        with tempfile.TemporaryDirectory() as d:
            for name in predicted.READS + [predicted.WHOLE_RUN_CSV]:  # the published study has whole runs
                shutil.copy(os.path.join(PUBLISHED, name), d)
            predicted.write_tables(d)
            with open(os.path.join(d, "predicted.csv")) as f:
                made = f.read()
        with open(os.path.join(PUBLISHED, "predicted.csv")) as f:
            self.assertEqual(f.read(), made, "docs/study/predicted.csv is stale: /usr/bin/python3 -m study "
                                             "predicted docs/study")


if __name__ == "__main__":
    unittest.main()

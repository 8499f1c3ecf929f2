"""The power experiment (study/power.py) through the whole driver on fake_kith.py: a study of
the fake suite's two workloads on list, knuth and estranged under both collectors, its
traces given exact costs by hand (cost runs written as alloc_cost.py writes them), then
resumed with `power`. Checked: the workload with the larger allocator share is the one
chosen, with every pair under every collector; its runs are at the suite's power_args, at
twice the minimum heap searched again for them, timed with the main runs' flags, and
interleaved; each pair's repeats stop at the minimum when its interval resolves the
prediction at once, later when it needs more runs, and at the cap when it never does
(exactly the counts the stopping rule gives on the fake's known wall times); the
predictions are predicted.csv's; the verdicts, Welch's p and Holm over the family follow
from the runs; the report's section prints power.csv's numbers. And: power is not in the
default experiments, bad options are refused, --merge takes the power argset's runs, and
the verdicts of a pair without a prediction or with too few runs.
Run: /usr/bin/python3 -m unittest test_power (CTest: study.power)."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the repo root: the study package
sys.path.insert(0, HERE)
import fake_kith  # noqa: E402
from study import power, stats  # noqa: E402
from study.runs import Run  # noqa: E402

DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")
SUITE = os.path.join(HERE, "fake_suite", "suite.tsv")
POLICIES = ["list", "knuth", "estranged"]
COLLECTORS = ["occasional", "continuous"]
LEAST, CAP = 3, 8  # --repeat, --power-max-repeat
NOISE = 0.03  # beta's wall times 3% faster and slower on alternate repeats
SHARE = {"alpha": 0.2, "beta": 0.5}  # the allocator's share of each workload's trace runs
# Instructions per malloc and per free of each policy's replay (no misses): the predictions
# are 0.5 x (cost ratio - 1). Occasional: estranged vs list -20% (the fake measures -20%:
# resolved at once, agrees), estranged vs knuth -20.1% (measured -11.1%: resolved at once,
# disagrees), knuth vs list +0.2% (too small for any interval: the cap). Continuous: knuth vs
# list and estranged vs knuth -10% (measured -10% and -11.1%: resolved after a few more runs),
# estranged vs list -18% (measured -20%: at once).
COSTS = {"occasional": {"list": 100.0, "knuth": 100.4, "estranged": 60.0},
         "continuous": {"list": 100.0, "knuth": 80.0, "estranged": 64.0}}
ENV = {"FAKE_KITH_SHARE": ",".join(f"{w}={s}" for w, s in SHARE.items()), "FAKE_KITH_NOISE": f"beta:{NOISE}"}


def study(out, *extra, env=None):
    cmd = [sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={SUITE}", f"--policies={','.join(POLICIES)}",
           f"--collectors={','.join(COLLECTORS)}", f"--repeat={LEAST}", f"--max-repeat={LEAST}", "--no-figures",
           "--jobs=2", f"--out={out}", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **ENV, **(env or {})),
                          timeout=600)


def read(out, name):
    with open(os.path.join(out, name), newline="") as f:
        return list(csv.DictReader(f))


def exit_code(out, run):
    with open(os.path.join(out, run.path("rc"))) as f:
        return int(f.read())


def write_costs(out):
    """A cost run for each trace run, on its policy and on the baseline, as alloc_cost.py
    measure writes them: COSTS instructions a call, none on the baseline."""
    tdir, cdir = os.path.join(out, "runs", "trace"), os.path.join(out, "runs", "cost")
    os.makedirs(cdir, exist_ok=True)
    for name in sorted(os.listdir(tdir)):
        if not name.endswith(".rc"):
            continue
        t = Run.parse(name[:-3])
        for policy, ir in ((t.policy, COSTS[t.collector][t.policy]), ("nothing-on-" + t.policy, 0.0)):
            c = Run("cost", t.workload, t.argset, policy, t.collector, t.heap, 0)
            record = {"events": 1900, "allocations": 1000, "frees": 900, "valgrind_s": 0.5,
                      "functions": {"allocateOne": {"calls": 1000, "Ir": int(ir * 1000), "D1miss": 0, "LLmiss": 0},
                                    "freeOne": {"calls": 900, "Ir": int(ir * 900), "D1miss": 0, "LLmiss": 0}}}
            with open(os.path.join(cdir, c.id + ".json"), "w") as f:
                json.dump(record, f)
            for ext, text in (("commit", fake_kith.COMMIT), ("rc", "0")):
                with open(os.path.join(cdir, f"{c.id}.{ext}"), "w") as f:
                    f.write(text + "\n")


def fake_wall(policy, collector, heap, repeat, times=4):
    """beta's power run's wall time as fake_kith.py makes it (power_args `10 4`)."""
    wall = fake_kith.SPEED[policy] * (1.5 if collector == "continuous" else 1.0) * (1 + 1_000_000 / heap) * times
    return wall * (1 + NOISE if repeat % 2 else 1 - NOISE)


def expected_counts(collector, heap, preds):
    """The runs of each policy the stopping rule gives, replayed round by round on the fake's
    wall times: every side at LEAST; then, per round, each pair whose interval's half-width is
    not below half |predicted| gets one more run of each side at its lower count, up to CAP."""
    counts = {p: LEAST for p in POLICIES}
    while True:
        grow = {}
        for p, b in power.PAIRS:
            n = min(counts[p], counts[b])
            xp = [fake_wall(p, collector, heap, r) for r in range(counts[p])]
            xb = [fake_wall(b, collector, heap, r) for r in range(counts[b])]
            q, lo, hi = stats.ratio_ci(xp, xb)
            if n < CAP and not (hi - lo) / 2 < abs(preds[(p, b)]) / 2:
                grow.update({side: n + 1 for side in (p, b) if counts[side] == n})
        if not grow:
            return counts
        counts.update(grow)


class Experiment(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kith-study-power-")
        cls.out = os.path.join(cls.tmp, "study")
        cls.runlog = os.path.join(cls.tmp, "runlog")
        first = study(cls.out, "--experiments=minheap,main,trace")
        assert first.returncode == 0, first.stderr[-3000:]
        write_costs(cls.out)
        cls.p = study(cls.out, "--resume", "--experiments=minheap,main,trace,power", "--power-workloads=1",
                      f"--power-max-repeat={CAP}", env={"FAKE_KITH_RUNLOG": cls.runlog})
        cls.rows = read(cls.out, "power.csv") if cls.p.returncode == 0 else []
        cls.by = {(r["collector"], r["policy"], r["base"]): r for r in cls.rows}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def power_runs(self):
        d = os.path.join(self.out, "runs", "power")
        return [Run.parse(n[:-3]) for n in sorted(os.listdir(d)) if n.endswith(".rc")]

    def test_study_exits_0(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr[-3000:])

    def test_the_largest_share_and_every_pair(self):
        for r in read(self.out, "alloc_share.csv"):
            self.assertAlmostEqual(float(r["share_pct"]), 100 * SHARE[r["workload"]])
        self.assertEqual({r.workload for r in self.power_runs()}, {"beta"})
        self.assertEqual(sorted((r["collector"], r["policy"], r["base"]) for r in self.rows),
                         sorted((c, p, b) for c in COLLECTORS for p, b in power.PAIRS))
        for r in self.rows:
            self.assertEqual((r["rank"], float(r["workload_share_pct"])), ("1", 50.0))

    def test_scaled_runs_at_twice_their_own_minimum_heap(self):
        probes = [Run.parse(n[:-3]) for n in os.listdir(os.path.join(self.out, "runs", "minheap"))
                  if n.endswith(".rc")]
        mine = [r for r in probes if r.argset == power.ARGSET]
        self.assertEqual({r.workload for r in mine}, {"beta"}, "the scaled workload's own search")
        self.assertEqual({r.policy for r in mine}, set(POLICIES))
        # the fake fits when the heap is at least 700,000 x the policy's factor: list's is the
        # smallest, found to within 2% and rounded up to a KiB, and the main heap twice it
        found = min(r.heap for r in mine if r.policy == "list" and exit_code(self.out, r) == 0)
        self.assertLess(found, 700_000 * 1.02 + 1024)
        heaps = {r.heap for r in self.power_runs()}
        self.assertEqual(heaps, {int(-(-found * 2 // 1024) * 1024)})
        self.assertEqual({r["args"] for r in self.rows}, {"10 4"})
        with open(os.path.join(self.out, "commands.txt")) as f:
            lines = [line for line in f if "runs/power &&" in line]
        self.assertTrue(lines)
        for line in lines:
            self.assertIn("beta.kith 10 4 ", line)
            self.assertIn("--pretouch", line)
            self.assertIn("--stats-timers=off", line)
            self.assertEqual("--gc-pacing=work" in line, "--gc=continuous" in line, line)

    def test_repeats_stop_when_resolved_and_at_the_cap(self):
        heap = self.power_runs()[0].heap
        for col in COLLECTORS:
            preds = {(p, b): float(self.by[(col, p, b)]["predicted"]) for p, b in power.PAIRS}
            want = expected_counts(col, heap, preds)
            got = {p: len([r for r in self.power_runs() if r.collector == col and r.policy == p]) for p in POLICIES}
            self.assertEqual(got, want, col)
            for p in POLICIES:  # repeats 0..n-1, none missing
                self.assertEqual(sorted(r.repeat for r in self.power_runs() if r.collector == col and r.policy == p),
                                 list(range(got[p])))
        # What that is: occasional knuth vs list (+0.2% predicted) runs to the cap, estranged
        # stops at the minimum (both its pairs resolved there); continuous needs more than the
        # minimum and fewer than the cap.
        occasional = {p: len([r for r in self.power_runs() if r.collector == "occasional" and r.policy == p])
                      for p in POLICIES}
        self.assertEqual(occasional, {"list": CAP, "knuth": CAP, "estranged": LEAST})
        continuous = [len([r for r in self.power_runs() if r.collector == "continuous" and r.policy == p])
                      for p in POLICIES]
        self.assertTrue(all(LEAST < n < CAP for n in continuous), continuous)

    def test_interleaved_and_alone(self):
        with open(self.runlog) as f:
            order = [re.search(r"runs/power/(\S+)\.json", line).group(1) for line in f if "runs/power/" in line]
        first = [Run.parse(x).repeat for x in order[:LEAST * len(POLICIES) * len(COLLECTORS)]]
        self.assertEqual(first, sorted(first), "repeat 0 of every configuration, then repeat 1, ...")
        self.assertEqual(len(order), len(self.power_runs()))
        self.assertTrue(Run.parse(order[0]).timing, "timed runs: alone, as the main runs")

    def test_predictions_are_predicted_csv_s(self):
        pred = {(r["collector"], r["policy"], r["base"]): float(r["predicted"])
                for r in read(self.out, "predicted.csv") if r["workload"] == "beta"}
        for (col, p, b), r in self.by.items():
            self.assertAlmostEqual(float(r["predicted"]), pred[(col, p, b)], places=12)
            self.assertAlmostEqual(float(r["predicted"]), 0.5 * (COSTS[col][p] / COSTS[col][b] - 1), places=12)
            self.assertAlmostEqual(float(r["share_base_pct"]), 50.0)

    def test_measured_interval_holm_and_verdicts(self):
        results = [r for r in read(self.out, "results.csv") if r["kind"] == "power"]
        xs = {}
        for r in results:
            xs.setdefault((r["collector"], r["policy"]), []).append(float(r["vm.wall_s"]))
        ps = []
        for (col, p, b), r in self.by.items():
            q, lo, hi = stats.ratio_ci(xs[(col, p)], xs[(col, b)])
            self.assertAlmostEqual(float(r["measured"]), q - 1, places=12)
            self.assertAlmostEqual(float(r["ci_low"]), lo - 1, places=12)
            self.assertAlmostEqual(float(r["mde"]), (hi - lo) / 2, places=12)
            self.assertAlmostEqual(float(r["mde_target"]), abs(float(r["predicted"])) / 2, places=12)
            self.assertEqual((int(r["runs_policy"]), int(r["runs_base"])), (len(xs[(col, p)]), len(xs[(col, b)])))
            self.assertAlmostEqual(float(r["p_value"]), stats.welch_log_test(xs[(col, p)], xs[(col, b)])[1])
            ps.append(float(r["p_value"]))
        significant, adjusted = stats.holm_bonferroni(ps)
        for r, sig, adj in zip(self.by.values(), significant, adjusted):
            self.assertAlmostEqual(float(r["p_holm"]), adj)
            self.assertEqual(r["holm_significant"], str(sig))
        verdicts = {k: r["verdict"] for k, r in self.by.items()}
        self.assertEqual(verdicts, {("occasional", "estranged", "knuth"): "disagrees",
                                    ("occasional", "estranged", "list"): "agrees",
                                    ("occasional", "knuth", "list"): "unresolved",
                                    ("continuous", "estranged", "knuth"): "agrees",
                                    ("continuous", "estranged", "list"): "agrees",
                                    ("continuous", "knuth", "list"): "agrees"})
        cap = self.by[("occasional", "knuth", "list")]
        self.assertEqual((cap["resolved"], cap["runs_policy"], cap["max_repeat"]), ("False", str(CAP), str(CAP)))
        self.assertGreater(float(cap["mde"]), float(cap["mde_target"]))
        self.assertGreater(int(cap["runs_to_resolve"]), 100 * CAP)

    def test_report_prints_the_csv(self):
        with open(os.path.join(self.out, "report.md")) as f:
            text = f.read()
        self.assertIn("## Power: runs long enough to resolve the prediction", text)
        section = text.split("## Power: runs long enough to resolve the prediction")[1].split("\n## ")[0]
        self.assertIn("The 1 workload with the largest allocator share", section)
        self.assertIn("beta (50.0%: `10 4`)", section)
        table = [line.split(" | ") for line in section.splitlines() if line.startswith("| beta |")]
        self.assertEqual(len(table), len(self.rows))
        for cells, r in zip(table, self.rows):
            self.assertEqual(cells[1:4], [r["collector"], f"`{r['policy']}` vs `{r['base']}`",
                                          f"{r['runs_policy']} / {r['runs_base']}"])
            self.assertEqual(cells[4], f"{float(r['wall_s_base']):.2f} s")
            self.assertEqual(cells[5], f"{100 * float(r['predicted']):+.1f}%")
            self.assertEqual(cells[6], f"{100 * float(r['measured']):+.1f}% [{100 * float(r['ci_low']):+.1f}%, "
                                       f"{100 * float(r['ci_high']):+.1f}%]")
            self.assertEqual(cells[7:9], [f"{100 * float(r['mde']):.1f}%", f"{100 * float(r['mde_target']):.1f}%"])
            self.assertEqual(cells[10].rstrip(" |"), power.VERDICTS[r["verdict"]])
        self.assertIn("**Resolved** 5 of 6 pairs: the prediction inside the interval on 4, outside on 1.", section)
        cap = self.by[("occasional", "knuth", "list")]
        self.assertIn(f"**Cannot be resolved on this machine within {CAP} runs** (1 pair;", section)
        self.assertIn(f"beta/occasional `knuth` vs `list` MDE {100 * float(cap['mde']):.1f}% against "
                      f"{100 * float(cap['mde_target']):.1f}%, about {cap['runs_to_resolve']} runs", section)


class Options(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kith-study-power-options-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_not_in_the_default_experiments(self):
        p = study(os.path.join(self.tmp, "plan"), "--plan")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("runs/minheap", p.stdout)
        self.assertNotIn("runs/power", p.stdout)
        with open(os.path.join(self.tmp, "plan", "study.json")) as f:
            self.assertNotIn("power", json.load(f)["config"]["experiments"])

    def test_without_traces_the_report_says_why(self):
        out = os.path.join(self.tmp, "notrace")
        p = study(out, "--experiments=minheap,main,power", "--repeat=2", "--max-repeat=2")
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertFalse(os.path.exists(os.path.join(out, "runs", "power")))
        self.assertFalse(os.path.exists(os.path.join(out, "power.csv")))
        with open(os.path.join(out, "report.md")) as f:
            self.assertIn("No power runs: they need two of list, knuth and estranged among the policies and their "
                          "trace runs", f.read())

    def test_bad_options(self):
        for option, want in (("--power-workloads=0", "--power-workloads wants at least 1"),
                             ("--power-max-repeat=2", "--power-max-repeat (2) is below the power runs' minimum (3")):
            p = study(os.path.join(self.tmp, "bad"), "--plan", "--experiments=main,power", option)
            self.assertEqual(p.returncode, 64, p.stderr)
            self.assertIn(f"kith study: {want}", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad")))


class Pieces(unittest.TestCase):
    def test_merge_takes_the_power_argset(self):
        config = {"experiments": ["minheap", "main", "power"]}
        for kind, yes in (("power", True), ("minheap", True), ("main", False)):
            self.assertEqual(power.merges(Run(kind, "beta", "power", "list", "occasional", 1 << 20, 0), config), yes)
        self.assertFalse(power.merges(Run("power", "beta", "study", "list", "occasional", 1, 0), config))
        self.assertFalse(power.merges(Run("power", "beta", "power", "list", "occasional", 1, 0),
                                      {"experiments": ["main"]}))

    def row(self, prediction, xp, xb, planned=None):
        row = {"predicted": prediction, "max_repeat": 4}
        power.pair_numbers(row, xp, xb, planned or len(xp), planned or len(xb))
        return row

    def test_verdicts(self):
        exact = [1.0, 1.0, 1.0]
        self.assertEqual(self.row(-0.25, [0.75] * 3, exact)["verdict"], "agrees")  # no spread: MDE 0
        self.assertEqual(self.row(-0.125, [0.75] * 3, exact)["verdict"], "disagrees")
        self.assertEqual(self.row(None, [0.75] * 3, exact)["verdict"], "no_prediction")
        noisy = [0.9, 1.1, 0.9]
        self.assertEqual(self.row(-0.01, noisy, noisy)["verdict"], "unfinished")  # 3 runs, the cap is 4
        self.assertEqual(self.row(-0.01, noisy + [1.1], noisy + [1.1])["verdict"], "unresolved")
        failed = self.row(-0.01, noisy, noisy, planned=4)
        self.assertEqual((failed["verdict"], failed["note"]), ("unfinished", "2 runs did not exit 0"))

    def test_resolved_is_strict_and_needs_a_prediction(self):
        self.assertTrue(power.resolved(-0.1, 0.049))
        self.assertFalse(power.resolved(-0.1, 0.05))
        self.assertFalse(power.resolved(None, 0.0))
        self.assertFalse(power.resolved(0.1, None))


if __name__ == "__main__":
    unittest.main()

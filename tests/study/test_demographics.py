"""study/demographics.py: the lifetime CDF, the allocation rate, and the
fragmentation timeline, on hand-made inputs with known answers; then, given a kith
binary (argument 1 or $KITH), on real runs of two small workloads laid out as a
study's demog runs. CTest: study.demographics."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, SOURCE)  # the repo root: the study package
from study import demographics  # noqa: E402
from study.common import read_csv  # noqa: E402

if __name__ == "__main__" and len(sys.argv) > 1:
    KITH = os.path.abspath(sys.argv.pop(1))
else:
    KITH = os.environ.get("KITH", "")

LIFETIMES = {"objects": 10, "freed": 8, "freed_bytes": 300, "live_at_end": 2, "live_at_end_bytes": 100,
             "failed": 0, "bytes_allocated": 400,
             "histogram": [{"age_bytes_le": 0, "objects": 2, "bytes": 40},
                           {"age_bytes_le": 1024, "objects": 3, "bytes": 60},
                           {"age_bytes_le": 1152, "objects": 1, "bytes": 100},
                           {"age_bytes_le": 65536, "objects": 2, "bytes": 100}]}


class Workload:
    def __init__(self, name, script, args):
        self.name, self.script, self._args = name, script, args

    def args(self, argset):
        return self._args


class FakeStudy:
    argset = "small"

    def __init__(self, kith, workloads):
        self.kith, self.workloads = kith, workloads


class Lifetimes(unittest.TestCase):
    def test_cdf_is_of_all_objects(self):
        rows = demographics.lifetime_rows("w", LIFETIMES)
        self.assertEqual([r["cum_fraction_objects"] for r in rows], [0.2, 0.5, 0.6, 0.8])
        self.assertEqual([r["cum_fraction_bytes"] for r in rows], [0.1, 0.25, 0.5, 0.75])
        self.assertEqual(demographics.fraction_within(rows, 1024), 0.5)
        self.assertEqual(demographics.fraction_within(rows, 1 << 16), 0.8)
        self.assertEqual(demographics.fraction_within(rows, 1 << 20), 0.8)
        self.assertEqual(demographics.median_age(rows), 1024)

    def test_no_median_when_most_never_die(self):
        lt = dict(LIFETIMES, objects=100)
        self.assertIsNone(demographics.median_age(demographics.lifetime_rows("w", lt)))


class AllocRate(unittest.TestCase):
    def test_mutator_time_excludes_gc_and_failed_runs_are_left_out(self):
        base = {"workload": "w", "kind": "main", "policy": "estranged", "collector": "occasional",
                "heap.bytes_requested": "2000000", "heap.bytes_allocated": "3000000"}
        rows = [dict(base, **{"exit_code": "0", "vm.wall_s": "1.5", "gc.pause_ms.total": "500"}),
                dict(base, **{"exit_code": "0", "vm.wall_s": "1.0", "gc.pause_ms.total": "0"}),
                dict(base, **{"exit_code": "70", "vm.wall_s": "9", "gc.pause_ms.total": "0"}),
                dict(base, kind="minheap", exit_code="0", **{"vm.wall_s": "9"})]
        out = demographics.alloc_rate_rows(rows)
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0]["runs"], 2)
        self.assertAlmostEqual(out[0]["mutator_s"], 1.0)
        self.assertAlmostEqual(out[0]["mb_per_s"], 2.0)
        self.assertEqual(demographics.pick_rate(out, "w"), (out[0]["mb_per_s"], "main"))


class FragFile(unittest.TestCase):
    def test_reads_columns_and_na(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.frag")
            with open(path, "w") as f:
                f.write("# kith-frag 1\n# policy velox\n# heap_bytes 1024\n# by_class no\n"
                        "cycle\tbytes_allocated\tin_use\tfree\tlargest_free\n0\t100\t50\tNA\tNA\n")
            meta, rows = demographics.read_frag(path)
            self.assertEqual(meta["policy"], "velox")
            self.assertEqual(rows, [{"cycle": 0, "bytes_allocated": 100, "in_use": 50, "free": None,
                                     "largest_free": None}])
            with open(path, "w") as f:
                f.write("not a frag file\n")
            self.assertIsNone(demographics.read_frag(path))
            self.assertIsNone(demographics.read_frag(os.path.join(d, "missing.frag")))


@unittest.skipUnless(KITH, "needs a kith binary (argument 1 or $KITH)")
class RealRuns(unittest.TestCase):
    """binary_trees and json as a study lays out its demog runs, then write_demographics."""

    def test_two_workloads(self):
        workloads = [Workload("binary_trees", os.path.join(SOURCE, "examples", "binary_trees.kith"), ["10"]),
                     Workload("json", os.path.join(SOURCE, "workloads", "awfy", "harness.kith"), ["Json", "1", "1"])]
        study = FakeStudy(KITH, workloads)
        heap = 1 << 20
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, "runs", "demog"))
            rows = []
            for w in workloads:
                for policy in demographics.DEMOG_POLICIES:
                    run_id = f"demog__{w.name}__small__{policy}__occasional__h{heap}__r0"

                    class R:  # what run_options needs of a runs.Run
                        pass
                    r = R()
                    r.policy, r.collector = policy, "occasional"
                    r.path = lambda ext, run_id=run_id: os.path.join("runs", "demog", f"{run_id}.{ext}")
                    argv = [KITH, "run", f"--heap={policy}", "--gc=occasional", f"--heap-size={heap}",
                            *demographics.run_options(r), w.script, *w.args("small")]
                    p = subprocess.run(argv, cwd=out, capture_output=True, text=True, timeout=300)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    rows.append({"run_id": run_id, "kind": "demog", "workload": w.name, "argset": "small",
                                 "policy": policy, "collector": "occasional", "exit_code": "0"})
            tables = demographics.write_demographics(study, out, rows)
            summary = read_csv(os.path.join(out, "demographics.csv"))
            self.assertEqual([s["workload"] for s in summary], ["binary_trees", "json"])
            for s in summary:
                self.assertGreater(int(s["objects"]), 1000)
                within = [float(s[k]) for k in ("within_1k", "within_64k", "within_1m")]
                self.assertEqual(within, sorted(within))
                self.assertAlmostEqual(within[-1] + float(s["never_freed"]), 1.0, delta=0.2)
                for p in demographics.DEMOG_POLICIES:
                    self.assertGreater(int(s[f"cycles_{p}"]), 0)
                    self.assertTrue(0 < float(s[f"largest_over_free_{p}"]) <= 1)
            life = read_csv(os.path.join(out, "lifetimes.csv"))
            for w in ("binary_trees", "json"):
                cdf = [float(x["cum_fraction_objects"]) for x in life if x["workload"] == w]
                self.assertEqual(cdf, sorted(cdf))
                self.assertLessEqual(cdf[-1], 1.0)
            timeline, columns = tables["frag_timeline"]
            classes = [c for c in columns if c.startswith("free_")]
            self.assertIn("free_16", classes)
            for t in timeline:
                self.assertLessEqual(t["largest_free"], t["free"])
                self.assertEqual(sum(t.get(c) or 0 for c in classes), t["free"])
                self.assertLessEqual(t["free"] + t["in_use"], heap)
            self.assertIn("## Object demographics", "\n".join(demographics.report_section(tables)))
            # The lifetimes are cached beside the trace: a second pass reads them back.
            self.assertTrue(any(n.endswith(".lifetimes.json") for n in os.listdir(os.path.join(out, "runs", "demog"))))


if __name__ == "__main__":
    unittest.main()

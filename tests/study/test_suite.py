"""study/suite.py: which arguments each argset takes (the study_args column of the full
study, falling back to default_args), and that the project's suite gives every row study
sizes. Run: /usr/bin/python3 -m unittest test_suite (CTest: study.suite)."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "study"))
import suite  # noqa: E402

HEADER = "name\tscript\tdefault_args\tsmall_args\theap_size\tstresses\tstress_args\tstudy_args\n"


def read(rows):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "suite.tsv")
        with open(path, "w") as f:
            f.write(HEADER + "".join(rows))
        open(os.path.join(d, "a.kith"), "w").close()  # the suite's scripts must exist
        return suite.read_suite(path)[0]


class Argsets(unittest.TestCase):
    def test_each_argset_takes_its_column(self):
        (w,) = read(["a\ta.kith\tBig 1 100\tBig 1 2\t-\tx\t\tBig 1 10\n"])
        self.assertEqual(w.args("default"), ["Big", "1", "100"])
        self.assertEqual(w.args("small"), ["Big", "1", "2"])
        self.assertEqual(w.args("study"), ["Big", "1", "10"])

    def test_missing_study_args_fall_back_to_default(self):
        (w,) = read(["a\ta.kith\t16\t8\t-\tx\n"])  # a row written before the column existed
        self.assertEqual(w.args("study"), ["16"])
        self.assertEqual(w.args("small"), ["8"])


class ProjectSuite(unittest.TestCase):
    def test_every_row_has_study_args(self):
        path = os.path.join(HERE, "..", "..", "workloads", "suite.tsv")
        with open(path) as f:
            header = f.readline().rstrip("\n").split("\t")
            rows = [dict(zip(header, ln.rstrip("\n").split("\t"))) for ln in f if ln.strip()]
        self.assertIn("study_args", header)
        self.assertGreater(len(rows), 20)
        for r in rows:
            self.assertTrue(r.get("study_args", "").strip(), f"{r['name']} has no study_args")


if __name__ == "__main__":
    unittest.main()

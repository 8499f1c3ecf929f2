"""study/suite.py: which arguments each argset takes (the study_args column of the full
study and the power runs' power_args, each falling back to default_args), and that the
project's suite gives every row study and power sizes (the power size the study size
repeated where the workload takes a repeat count); that study/ runs as a package, and that the scripts read the suite through it.
Run: /usr/bin/python3 -m unittest test_suite (CTest: study.suite)."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the repo root: the study package
from study import suite  # noqa: E402

HEADER = "name\tscript\tdefault_args\tsmall_args\theap_size\tstresses\tstress_args\tstudy_args\tpower_args\n"


def read(rows):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "suite.tsv")
        with open(path, "w") as f:
            f.write(HEADER + "".join(rows))
        open(os.path.join(d, "a.kith"), "w").close()  # the suite's scripts must exist
        return suite.read_suite(path)[0]


class Argsets(unittest.TestCase):
    def test_each_argset_takes_its_column(self):
        (w,) = read(["a\ta.kith\tBig 1 100\tBig 1 2\t-\tx\t\tBig 1 10\tBig 7 10\n"])
        self.assertEqual(w.args("default"), ["Big", "1", "100"])
        self.assertEqual(w.args("small"), ["Big", "1", "2"])
        self.assertEqual(w.args("study"), ["Big", "1", "10"])
        self.assertEqual(w.args("power"), ["Big", "7", "10"])

    def test_missing_study_args_fall_back_to_default(self):
        (w,) = read(["a\ta.kith\t16\t8\t-\tx\n"])  # a row written before the columns existed
        self.assertEqual(w.args("study"), ["16"])
        self.assertEqual(w.args("small"), ["8"])
        self.assertEqual(w.args("power"), ["16"])


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

    def test_every_row_has_power_args(self):
        """The power runs repeat the study-size run: an Are We Fast Yet benchmark its outer
        iterations (NAME ITERATIONS INNER: the same name and inner iterations, more outer
        ones), a JOlden workload that takes a repeat count its study arguments and a count."""
        for w in suite.read_suite(os.path.join(HERE, "..", "..", "workloads", "suite.tsv"))[0]:
            study, power = w.args("study"), w.args("power")
            self.assertTrue(w.power_args and power != study, w.name)
            if w.script.endswith("harness.kith"):
                self.assertEqual((power[0], power[2]), (study[0], study[2]), w.name)
                self.assertGreater(int(power[1]), int(study[1]), w.name)
            elif w.name in ("treeadd", "perimeter", "mst", "voronoi", "em3d"):
                self.assertEqual(power[:len(study)], study, w.name)
                self.assertGreater(int(power[-1]), 1, w.name)



ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"


def run(argv, **kw):
    import subprocess
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


class Package(unittest.TestCase):
    """study/ is a package with one entry point, __main__.py: `python3 -m study` from the
    source tree, `python3 PATH/study` from anywhere (the study's own commands and `kith
    study` run it so)."""

    def test_runs_as_a_module(self):
        p = run([PYTHON, "-m", "study", f"--kith={os.path.join(HERE, 'fake_kith.py')}", "--jobs=0"], cwd=ROOT)
        self.assertEqual(p.returncode, 64, p.stderr)
        self.assertIn("kith study: --jobs", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_runs_as_a_folder_from_elsewhere(self):
        with tempfile.TemporaryDirectory() as d:
            p = run([PYTHON, os.path.join(ROOT, "study"), "--help"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("--suite", p.stdout)
            p = run([PYTHON, os.path.join(ROOT, "study"), "cost", "measure", "--help"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("--policy", p.stdout)

    def test_commands(self):
        p = run([PYTHON, "-m", "study", "help"], cwd=ROOT)
        self.assertEqual(p.returncode, 0, p.stderr)
        for command in ("plot", "prose", "golden", "cost", "whole-run"):
            self.assertIn(f"\n  {command} ", p.stdout)
        p = run([PYTHON, "-m", "study", "plto", "x"], cwd=ROOT)
        self.assertEqual((p.returncode, p.stdout), (64, ""))
        self.assertEqual(p.stderr.splitlines(), [
            "kith study: unknown command 'plto'; commands: plot, prose, predicted, size-class-free, golden, cost, "
            "whole-run, compiler-heap (or the study's options: --help)", "kith study: did you mean 'plot'?"])
        p = run([PYTHON, "-m", "study", "prose", "--lint"], cwd=ROOT)  # a command's own options
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_no_module_edits_sys_path(self):
        for name in os.listdir(os.path.join(ROOT, "study")):
            if name.endswith(".py"):
                with open(os.path.join(ROOT, "study", name)) as f:
                    self.assertNotIn("sys.path.insert", f.read(), name)


class OneReader(unittest.TestCase):
    """The scripts that read workloads/suite.tsv read it with study/suite.py: with a kith that
    fails every run, workload-table still names every row, with the heap size as written."""

    def test_workload_table_lists_every_row(self):
        names = [w.name for w in suite.read_suite(os.path.join(ROOT, "workloads", "suite.tsv"))[0]]
        p = run([PYTHON, os.path.join(ROOT, "scripts", "workload-table"), "/bin/false"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [line.split(" | ")[0].lstrip("| ") for line in p.stdout.splitlines()[2:]]
        self.assertEqual(rows, names)
        self.assertIn("| gcbench |", p.stdout)
        self.assertIn("| 128M | failed: exit 1 |", p.stdout)

    def test_every_script_reads_through_the_study(self):
        for script in ("bench-gc", "bench-vm", "locality-bench", "workload-table"):
            with open(os.path.join(ROOT, "scripts", script)) as f:
                text = f.read()
            self.assertIn("from study.suite import read_suite", text, script)


if __name__ == "__main__":
    unittest.main()

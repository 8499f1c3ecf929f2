"""The study's commands that write --out whole (a temporary file renamed over it) refuse,
before anything runs, an --out that names a file they read: `cost measure` (the trace,
kith; --callgrind-out too), `whole-run measure` (kith and every file its kith command
names) and `prose` (the template, the study directory's CSV files, study.json,
report.md). The same file however it is named (another spelling, a symlink, a file not
made yet) is refused with one line `kith study: COMMAND: --out names the input PATH;
...` and exit 64 (usage), and the user's file is left as it was; any other --out is not.
Run: /usr/bin/python3 -m unittest test_out_names_input (CTest: study.out_names_input)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the repo root: the study package
from study.common import ENTRY, EXIT_USAGE  # noqa: E402

REFUSED = "names the input"


def study(*args):
    return subprocess.run([sys.executable, ENTRY, *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))


class Refusal(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kith-out-names-input.")

    def tearDown(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)

    def file(self, name, text="the user's file\n"):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertRefused(self, result, command, kept=()):
        self.assertEqual(result.returncode, EXIT_USAGE, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertRegex(lines[0], rf"^kith study: {command}: --[a-z-]+ {REFUSED} ")
        for path in kept:
            with open(path) as f:
                self.assertEqual(f.read(), "the user's file\n", f"{path} was replaced")

    def assertNotRefused(self, result):
        self.assertNotEqual(result.returncode, EXIT_USAGE, result.stderr)
        self.assertNotIn(REFUSED, result.stderr)


class CostMeasure(Refusal):
    def measure(self, *args, kith="/bin/false"):
        return study("cost", "measure", f"--kith={kith}", "--policy=list", *args)

    def test_out_is_the_trace(self):
        trace = self.file("t.trace")
        self.assertRefused(self.measure(f"--out={trace}", trace), "cost measure", [trace])

    def test_out_is_the_trace_spelled_otherwise(self):
        trace = self.file("t.trace")
        self.file("sub/x")
        other = os.path.join(self.dir, "sub", "..", "t.trace")
        self.assertRefused(self.measure(f"--out={other}", trace), "cost measure", [trace])

    def test_out_is_a_symlink_to_the_trace(self):
        trace = self.file("t.trace")
        link = os.path.join(self.dir, "link.json")
        os.symlink(trace, link)
        self.assertRefused(self.measure(f"--out={link}", trace), "cost measure", [trace])

    def test_out_is_a_hard_link_to_the_trace(self):
        trace = self.file("t.trace")
        link = os.path.join(self.dir, "hard.json")
        os.link(trace, link)
        self.assertRefused(self.measure(f"--out={link}", trace), "cost measure", [trace])

    def test_out_is_a_trace_not_made_yet(self):
        trace = os.path.join(self.dir, "later.trace")
        self.assertRefused(self.measure(f"--out={trace}", trace), "cost measure")

    def test_out_is_kith(self):
        kith, trace = self.file("kith"), self.file("t.trace")
        self.assertRefused(self.measure(f"--out={kith}", trace, kith=kith), "cost measure", [kith])

    def test_callgrind_out_is_the_trace(self):
        trace = self.file("t.trace")
        result = self.measure(f"--out={self.dir}/c.json", f"--callgrind-out={trace}", trace)
        self.assertRefused(result, "cost measure", [trace])

    def test_out_and_callgrind_out_are_one_file(self):
        trace, out = self.file("t.trace"), os.path.join(self.dir, "c.json")
        result = self.measure(f"--out={out}", f"--callgrind-out={out}", trace)
        self.assertEqual(result.returncode, EXIT_USAGE, result.stderr)
        self.assertRegex(result.stderr, r"^kith study: cost measure: --out and --callgrind-out name one file")

    def test_another_out_is_not_refused(self):
        trace = self.file("t.trace")
        self.assertNotRefused(self.measure(f"--out={self.dir}/c.json", trace))


class WholeRunMeasure(Refusal):
    def test_out_is_the_script(self):
        script = self.file("s.kith")
        self.assertRefused(study("whole-run", "measure", f"--out={script}", "--", "/bin/false", "run", script),
                           "whole-run measure", [script])

    def test_out_is_a_symlink_to_kith(self):
        kith, script = self.file("kith"), self.file("s.kith")
        link = os.path.join(self.dir, "w.json")
        os.symlink(kith, link)
        self.assertRefused(study("whole-run", "measure", f"--out={link}", "--", kith, "run", script),
                           "whole-run measure", [kith])

    def test_out_is_a_file_an_option_names(self):
        script, data = self.file("s.kith"), self.file("data.txt")
        result = study("whole-run", "measure", f"--out={data}", "--", "/bin/false", "run", f"--gc-pauses-file={data}",
                       script, data)
        self.assertRefused(result, "whole-run measure", [data])

    def test_another_out_is_not_refused(self):
        script = self.file("s.kith")
        self.assertNotRefused(study("whole-run", "measure", f"--out={self.dir}/w.json", "--", "/bin/false", "run",
                                    script))


class Prose(Refusal):
    def test_out_is_the_template(self):
        template, study_dir = self.file("STUDY.md.in"), os.path.join(self.dir, "study")
        os.makedirs(study_dir)
        self.assertRefused(study("prose", study_dir, f"--template={template}", f"--out={template}"), "prose",
                           [template])

    def test_out_is_a_file_of_the_study(self):
        for name in ("main.csv", "study.json", "report.md"):
            with self.subTest(name=name):
                read = self.file(f"study/{name}")
                self.assertRefused(study("prose", os.path.dirname(read), f"--out={read}"), "prose", [read])

    def test_another_out_is_not_refused(self):
        study_dir = os.path.join(self.dir, "study")
        os.makedirs(study_dir)
        self.assertNotRefused(study("prose", study_dir, f"--out={study_dir}/STUDY.md"))


if __name__ == "__main__":
    unittest.main()

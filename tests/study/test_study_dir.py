"""`kith study` writes only where a study may (study/study_dir.py, study/state.py): a new
or empty --out, or a study's own directory, where a fresh study replaces only its own
runs and outputs. A directory that is not a study is refused (73, naming what is there)
with nothing deleted or overwritten; --resume continues only a study whose study.json
has a study's shape (65 otherwise, 66 for no directory), with every option it was
started with (--no-figures too). The driver runs on fake_kith.py (fast).
Run: /usr/bin/python3 -m unittest test_study_dir (CTest: study.study_dir)."""

import json
import os
import shutil
import tempfile
import unittest

from test_driver import FAKE_SUITE, SMALL, finished_runs, study


def tree(root):
    """{relative path: content} of every file under root."""
    out = {}
    for d, _, files in os.walk(root):
        for name in files:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kith-study-dir-")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, relative, text):
        path = os.path.join(self.tmp, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def assertOneLine(self, p, code, *words):
        self.assertEqual(p.returncode, code, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertTrue(lines and lines[0].startswith("kith study: "), p.stderr)
        self.assertLessEqual(len(lines), 2, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])


class NotAStudy(Base):
    def test_a_folder_with_a_runs_folder_is_refused_and_kept(self):
        # The case: --out= (empty) in a directory holding the user's runs/x/data.txt.
        self.write("runs/x/data.txt", "precious\n")
        self.write("report.md", "my report\n")
        self.write("results.csv", "mine\n")
        before = tree(self.tmp)
        p = study(f"--suite={FAKE_SUITE}", *SMALL, "--out=", cwd=self.tmp)
        self.assertOneLine(p, 64, "--out")
        for out in (".", self.tmp):
            for mode in ([], ["--plan"], ["--merge", self.tmp]):
                with self.subTest(out=out, mode=mode):
                    p = study(f"--suite={FAKE_SUITE}", *SMALL, *mode, f"--out={out}", cwd=self.tmp)
                    self.assertOneLine(p, 73, "not a study", "runs/", "report.md", "results.csv")
                    self.assertEqual(p.stdout, "")
                    self.assertEqual(tree(self.tmp), before, "nothing deleted, written or overwritten")

    def test_a_study_json_of_another_shape_is_not_a_study(self):
        self.write("out/study.json", '{"a": 1}')
        self.write("out/runs/main/notes.txt", "mine\n")
        before = tree(self.out)
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertOneLine(p, 73, "not a study", "study.json")
        self.assertEqual(tree(self.out), before)

    def test_a_file_is_not_a_directory(self):
        for out in ("/dev/full", os.path.join(self.tmp, "file")):
            self.write("file", "mine\n")
            with self.subTest(out=out):
                p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={out}")
                self.assertOneLine(p, 73, out, "not a directory")
                self.assertNotIn("File exists", p.stderr)
        with open(os.path.join(self.tmp, "file")) as f:
            self.assertEqual(f.read(), "mine\n")

    def test_new_and_empty_directories_take_a_study(self):
        os.makedirs(self.out)
        self.assertEqual(study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}").returncode, 0)
        new = os.path.join(self.tmp, "new", "deeper")
        self.assertEqual(study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={new}").returncode, 0)
        self.assertTrue(os.path.exists(os.path.join(new, "study.json")))


class StudyAfresh(Base):
    def test_a_fresh_study_replaces_only_its_own_files(self):
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        old_runs = finished_runs(self.out)
        self.write("out/notes.txt", "mine\n")
        self.write("out/runs/main/notes.txt", "mine too\n")
        self.write("out/runs/elsewhere/data.txt", "and this\n")
        p = study(f"--suite={FAKE_SUITE}", *SMALL, "--policies=list", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = finished_runs(self.out)
        self.assertTrue(runs, "list's runs ran again")
        self.assertFalse([r for r in runs if "__tlsf__" in r], "the old study's runs of tlsf are gone")
        self.assertTrue([r for r in old_runs if "__tlsf__" in r])
        for path, text in (("notes.txt", "mine\n"), ("runs/main/notes.txt", "mine too\n"),
                           ("runs/elsewhere/data.txt", "and this\n")):
            with open(os.path.join(self.out, path)) as f:
                self.assertEqual(f.read(), text, path)
        self.assertFalse([n for n in os.listdir(self.out) if n.endswith(".tmp")], "no temporary file left")


class Resume(Base):
    def test_resume_of_no_study_is_refused(self):
        p = study("--resume", f"--out={self.out}")
        self.assertOneLine(p, 66, "no such directory")
        self.assertFalse(os.path.exists(self.out), "not created")
        self.write("out/runs/main/x.txt", "mine\n")
        before = tree(self.out)
        p = study("--resume", f"--out={self.out}")
        self.assertOneLine(p, 65, "no study", "study.json")
        self.assertEqual(tree(self.out), before, "nothing written")

    def test_resume_of_a_study_json_of_the_wrong_shape_is_refused(self):
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        state_path = os.path.join(self.out, "study.json")
        with open(state_path) as f:
            good = json.load(f)
        runs = finished_runs(self.out)

        def with_option(name, value):
            state = json.loads(json.dumps(good))
            state["options"][name] = value
            return json.dumps(state)

        without_suite = json.loads(json.dumps(good))
        del without_suite["options"]["suite"]
        damages = {"the issue's": '{"a": 1}', "no options": '{"options": {}}',
                   "no config": json.dumps(dict(good, config=3)), "no suite": json.dumps(without_suite),
                   "repeat text": with_option("repeat", "x"), "quick a number": with_option("quick", 1), "suite null": with_option("suite", None),
                   "sizes unknown": with_option("sizes", "huge"),
                   "invocations text": json.dumps(dict(good, invocations="kith study"))}
        for name, damage in damages.items():
            with open(state_path, "w") as f:
                f.write(damage)
            for mode in (["--resume"], ["--plan"]):
                with self.subTest(damage=name, mode=mode):
                    p = study(*mode, f"--out={self.out}")
                    self.assertOneLine(p, 65, "study.json")
                    self.assertEqual(p.stdout, "")
                    with open(state_path) as f:
                        self.assertEqual(f.read(), damage, "study.json kept as it was")
                    self.assertEqual(finished_runs(self.out), runs, "no run added")

    def test_resume_keeps_every_option(self):
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        main = os.path.join(self.out, "runs", "main")
        os.remove(os.path.join(main, sorted(n for n in os.listdir(main) if n.endswith(".rc"))[0]))
        p = study("--resume", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "figures")), "--no-figures kept")
        with open(os.path.join(self.out, "study.json")) as f:
            self.assertIs(json.load(f)["options"]["no_figures"], True)


if __name__ == "__main__":
    unittest.main()

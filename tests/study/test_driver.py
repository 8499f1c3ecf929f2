"""`kith study` on hostile input loses nothing and studies nothing silently different: a
bad suite, bad options, an output it cannot create, a damaged study.json, merges of
missing, broken, conflicting or foreign runs, and SIGTERM/SIGHUP, each a one-line error
with docs/CLI.md's exit code (64 usage, 65 malformed, 66 missing, 73 cannot create)
or a refusal that keeps the data. The driver runs on fake_kith.py (known answers, fast).
Run: /usr/bin/python3 -m unittest test_driver (CTest: study.driver)."""

import csv
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "..", "..", "study")  # the package: Python runs its __main__.py, as `kith study`
FAKE = os.path.join(HERE, "fake_kith.py")
FAKE_SUITE = os.path.join(HERE, "fake_suite", "suite.tsv")
sys.path.insert(0, HERE)
import fake_kith  # noqa: E402  (its COMMIT: the build --version names)
# A small study: the minimum-heap search and the main runs of two workloads on two policies.
SMALL = ["--experiments=minheap,main", "--policies=list,tlsf", "--collectors=occasional", "--repeat=1",
         "--no-figures", "--jobs=2"]


def study(*args, env=None, timeout=300, cwd=None, preexec_fn=None):
    return subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=cwd, preexec_fn=preexec_fn)


def limit_memory():
    """In a child: at most 2 GB of address space, so a driver that reads without end fails
    instead of the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def finished_runs(out):
    return {name[:-3] for _, _, files in os.walk(os.path.join(out, "runs")) for name in files if name.endswith(".rc")}


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kith-study-driver-")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def assertError(self, p, code, *words):
        """Exit code `code`, stderr one `kith study:` line (and perhaps a hint), no traceback."""
        lines = p.stderr.strip().splitlines()
        self.assertEqual(p.returncode, code, p.stderr)
        self.assertTrue(lines and lines[0].startswith("kith study: "), p.stderr)
        self.assertLessEqual(len(lines), 2, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertEqual(p.stdout, "", "nothing planned or run")

    def assertRefused(self, p, *words):
        """A study that ran (or merged) its runs, then refused to write results: exit 65, its
        last two lines of stderr the error (with words) and the hint, no traceback."""
        lines = p.stderr.strip().splitlines()
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertTrue(len(lines) >= 2 and lines[-2].startswith("kith study: ") and
                        lines[-1].startswith("kith study: "), p.stderr)
        for w in words:
            self.assertIn(w, lines[-2])


class Suite(Base):
    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def setUp(self):
        super().setUp()
        for script in ("alpha.kith", "beta.kith"):
            shutil.copy(os.path.join(HERE, "fake_suite", script), self.tmp)

    def check(self, text, code, *words):
        path = self.write("suite.tsv", text)
        self.assertError(study(f"--suite={path}", "--plan", f"--out={self.out}"), code, *words)

    def test_missing_suite(self):
        self.assertError(study(f"--suite={self.tmp}/none.tsv", "--plan", f"--out={self.out}"), 66, "none.tsv")

    def test_directory_suite(self):
        self.assertError(study(f"--suite={self.tmp}", "--plan", f"--out={self.out}"), 66, "directory")

    def test_device_pipe_and_huge_suite_are_refused_not_read(self):
        # /dev/zero never ends (read whole, 24 GB resident before the kernel killed the
        # study); a pipe with no writer blocks. The address-space limit stops a reader
        # that reads anyway, as a MemoryError rather than the machine's memory.
        fifo = os.path.join(self.tmp, "fifo.tsv")
        os.mkfifo(fifo)
        for suite in ("/dev/zero", fifo):
            with self.subTest(suite=suite):
                self.assertError(study(f"--suite={suite}", "--plan", f"--out={self.out}", timeout=60,
                                       preexec_fn=limit_memory), 66, suite, "not a regular file")
        path = self.write("huge.tsv", "name\tscript\n" + "#" * (2 << 20) + "\n")
        self.assertError(study(f"--suite={path}", "--plan", f"--out={self.out}"), 65, "huge.tsv", "larger than")
        self.assertFalse(os.path.exists(self.out), "nothing created")

    def test_heap_size_outside_what_runs(self):
        self.check("name\tscript\theap_size\nalpha\talpha.kith\t8K\n", 65, "suite.tsv:2:", "8K", "16K")
        self.check("name\tscript\theap_size\nalpha\talpha.kith\t1T\n", 65, "suite.tsv:2:", "1T", "4G")

    def test_passwd_suite(self):
        self.assertError(study("--suite=/etc/passwd", "--plan", f"--out={self.out}"), 65, "/etc/passwd:1:")

    def test_spaces_for_tabs(self):
        self.check("name script default_args\nalpha alpha.kith 1\n", 65, "suite.tsv:1:", "tabs")
        self.check("name\tscript\nalpha alpha.kith\n", 65, "suite.tsv:2:", "tabs")

    def test_wrong_header(self):
        self.check("workload\tscript\nalpha\talpha.kith\n", 65, "suite.tsv:1:", "workload")

    def test_row_without_script(self):
        self.check("name\tscript\n# a comment\nalpha\talpha.kith\nbeta\t\n", 65, "suite.tsv:4:", "no script")

    def test_script_that_does_not_exist(self):
        self.check("name\tscript\nalpha\talpha.kith\ngamma\tgamma.kith\n", 65, "suite.tsv:3:", "gamma.kith")

    def test_bad_heap_size(self):
        self.check("name\tscript\theap_size\nalpha\talpha.kith\t12Q\n", 65, "suite.tsv:2:", "12Q")

    def test_duplicate_workload(self):
        self.check("name\tscript\nalpha\talpha.kith\nbeta\tbeta.kith\nalpha\tbeta.kith\n", 65,
                   "suite.tsv:4:", "alpha", "line 2")

    def test_empty_suite_is_no_fallback(self):
        self.check("name\tscript\n", 65, "no workloads")
        self.check("", 65, "empty")

    def test_good_suite_plans(self):
        path = self.write("suite.tsv", "name\tscript\theap_size\n# a comment\nalpha\talpha.kith\t-\n")
        p = study(f"--suite={path}", "--plan", f"--out={self.out}", "--experiments=minheap", "--policies=list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("alpha.kith", p.stdout)


    def test_a_plan_read_by_a_reader_that_goes_away_ends_quietly(self):
        # `kith study --plan | head`: the reader closes the pipe before the plan is written;
        # the driver ends as a tool killed by SIGPIPE does (141), no traceback.
        read, write = os.pipe()
        os.close(read)
        try:
            p = subprocess.run([sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={FAKE_SUITE}", "--plan",
                                f"--out={self.out}", *SMALL], stdout=write, stderr=subprocess.PIPE, text=True,
                               timeout=300)
        finally:
            os.close(write)
        self.assertEqual(p.returncode, 128 + signal.SIGPIPE, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertNotIn("BrokenPipe", p.stderr)


class Usage(Base):
    CASES = ["--jobs=0", "--timeout=0", "--timeout=-5", "--pause-policy=nope", "--probes-per-round=-1",
             "--heap-multiples=-1", "--heap-multiples=abc", "--heap-multiples=1.5,,3", "--policies=",
             "--policies=list,list", "--policies=nope", "--collectors=", "--repeat=0", "--repeat=3 --max-repeat=2",
             "--target-ci=0", "--target-ci=1", "--workloads=alpha,alpha", "--workloads=", "--workloads=gamma",
             "--experiments=main,main", "--contrived-sizes=big", "--timing-jobs=0", "--no-such-option",
             "--jobs=two", "--sizes=huge", "--tradeoff-repeat=0", "--tradeoff-repeat=-1",
             "--contrived-sizes=0", "--contrived-sizes=15K", "--contrived-sizes=512K", "--contrived-sizes=1T",
             "--contrived-sizes=5G", "--contrived-sizes=1M,1024K", "--heap-multiples=1.5,1.50",
             "--probes-per-round=0", "--max-repeat=0", "--min-heap-precision=nan", "--target-ci=nan",
             "--heap-multiples=nan", "--main-heap=nan", "--main-heap=0.5", "--repeat=3 --tradeoff-max-repeat=2",
             "--tradeoff-repeat=4 --tradeoff-max-repeat=3", "--tradeoff-max-repeat=x", "--keep-stale"]

    def test_each_is_one_line_64(self):
        for case in self.CASES:
            with self.subTest(case=case):
                p = study(f"--suite={FAKE_SUITE}", *case.split(), "--plan", f"--out={self.out}")
                self.assertError(p, 64)
                self.assertFalse(os.path.exists(self.out), "nothing created")

    def test_messages_say_what_is_wrong(self):
        for case, words in (("--contrived-sizes=1T", ["'1T'", "too large", "4G"]),
                            ("--contrived-sizes=15K", ["'15K'", "too small", "1M"]),
                            ("--tradeoff-repeat=0", ["at least 1"]),
                            ("--tradeoff-max-repeat=2", ["--tradeoff-max-repeat (2)", "--tradeoff-repeat (5)"])):
            with self.subTest(case=case):
                self.assertError(study(f"--suite={FAKE_SUITE}", case, "--plan", f"--out={self.out}"), 64, *words)
        self.assertError(study(f"--suite={FAKE_SUITE}", "--plan", "--out="), 64, "--out")

    def test_a_misspelled_name_gets_the_nearest(self):
        for case, hint in (("--policies=list,lsit", "did you mean 'list'?"), ("--collectors=occasinal",
                           "did you mean 'occasional'?"), ("--experiments=mian", "did you mean 'main'?"),
                           ("--workloads=alpah", "did you mean 'alpha'?"),
                           ("--polices=list", "did you mean '--policies=list'?")):
            with self.subTest(case=case):
                p = study(f"--suite={FAKE_SUITE}", case, "--plan", f"--out={self.out}")
                self.assertError(p, 64)
                self.assertEqual(p.stderr.splitlines()[1], f"kith study: {hint}")
        p = study(f"--suite={FAKE_SUITE}", "--policies=zzzzzz", "--plan", f"--out={self.out}")
        self.assertNotIn("did you mean", p.stderr, "nothing near: no guess")


class NotAKith(Base):
    def test_kith_listing_no_policies(self):
        p = subprocess.run([sys.executable, DRIVER, "--kith=/bin/true", f"--suite={FAKE_SUITE}", f"--out={self.out}"],
                           capture_output=True, text=True, timeout=60)
        self.assertError(p, 66, "/bin/true", "no heap policies")


class Output(Base):
    def test_out_cannot_be_created(self):
        for out in ("/proc/nope", "/etc/passwd/sub"):
            with self.subTest(out=out):
                self.assertError(study(f"--suite={FAKE_SUITE}", "--plan", f"--out={out}"), 73, out)


class Resume(Base):
    def test_damaged_study_json_is_refused(self):
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = finished_runs(self.out)
        for damage in ("{broken", "[1, 2]", '{"options": 3}'):
            with open(os.path.join(self.out, "study.json"), "w") as f:
                f.write(damage)
            for mode in (["--resume"], ["--plan"], ["--merge", self.tmp]):
                with self.subTest(damage=damage, mode=mode[0]):
                    self.assertError(study(*mode, f"--out={self.out}"), 65, "study.json")
                    with open(os.path.join(self.out, "study.json")) as f:
                        self.assertEqual(f.read(), damage, "study.json kept as it was")
                    self.assertEqual(finished_runs(self.out), runs, "the runs kept")
        # A named pipe in its place is refused too, not waited on.
        os.remove(os.path.join(self.out, "study.json"))
        os.mkfifo(os.path.join(self.out, "study.json"))
        self.assertError(study("--resume", f"--out={self.out}", timeout=60), 65, "not a regular file")


    def test_a_resume_after_a_change_says_which_build_ran_which_runs(self):
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        state_path = os.path.join(self.out, "study.json")
        with open(state_path) as f:
            state = json.load(f)
        now = state["config"]["commit"]
        self.assertEqual(state["run_commits"], {"minheap": [now], "main": [now]})
        main = os.path.join(self.out, "runs", "main")
        for name in os.listdir(main):
            if name.endswith(".rc"):
                with open(os.path.join(main, name[:-3] + ".commit")) as f:
                    self.assertEqual(f.read(), now + "\n", "each run names its build")
        with open(os.path.join(self.out, "report.md")) as f:
            self.assertNotIn("more than one build", f.read(), "one build ran every run")

        def set_main_commits(text):
            for name in os.listdir(main):
                if name.endswith(".commit"):
                    with open(os.path.join(main, name), "w") as f:
                        f.write(text)

        # As if an older build had run the main runs, and one of them is run again now;
        # the others kept (--keep-stale: a draft).
        set_main_commits("0123abc\n")
        names = sorted(n for n in os.listdir(main) if n.endswith(".rc"))
        os.remove(os.path.join(main, names[0]))
        p = study("--resume", "--keep-stale", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(state_path) as f:
            self.assertEqual(json.load(f)["run_commits"], {"minheap": [now], "main": ["0123abc", now]})
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertIn("**The runs come from more than one build**", report)
        self.assertIn(f"0123abc: main; {now}: main, minheap", report)
        self.assertIn("> **Draft: runs from 2 builds** (`builds.csv`)", report)
        # Every main run set aside and run again: only this build ran them now.
        set_main_commits("0123abc\n")
        shutil.rmtree(main)
        p = study("--resume", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(state_path) as f:
            self.assertEqual(json.load(f)["run_commits"], {"minheap": [now], "main": [now]})
        # A study from before the .commit files: its runs count as its per-kind ledger said.
        with open(state_path) as f:
            state = json.load(f)
        del state["unrecorded_run_commits"]
        state["run_commits"] = {"main": ["0123abc", "fedcba9"], "minheap": ["<b>x</b>"]}
        with open(state_path, "w") as f:
            json.dump(state, f)
        for d in (main, os.path.join(self.out, "runs", "minheap")):
            for name in os.listdir(d):
                if name.endswith(".commit"):
                    os.remove(os.path.join(d, name))
        os.remove(os.path.join(main, names[0]))  # one redone by this build
        p = study("--resume", "--keep-stale", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(state_path) as f:
            state = json.load(f)
        self.assertEqual(state["run_commits"], {"main": ["0123abc", "fedcba9", now],
                                                "minheap": ["commit not recorded"]})
        # A damaged .commit or ledger reads as not recorded (the runs are still there), not a traceback.
        set_main_commits("<script>\n")
        for damage in (5, {"main": "x"}, {"main": [3, None]}):
            with self.subTest(damage=damage):
                with open(state_path) as f:
                    state = json.load(f)
                state["unrecorded_run_commits"] = damage
                with open(state_path, "w") as f:
                    json.dump(state, f)
                p = study("--resume", "--keep-stale", f"--out={self.out}")
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("Traceback", p.stderr)
                with open(state_path) as f:
                    self.assertEqual(json.load(f)["run_commits"]["main"], ["commit not recorded"])


class OneBuild(Base):
    """Published numbers come from one build: --resume redoes what a code change made stale
    (git diff in the repository the kith was built in, a throwaway one here), and a report of
    more than one build, or of a build with uncommitted changes, is refused (65) unless --draft."""

    def git(self, *args):
        p = subprocess.run(["git", "-C", self.repo, *args], capture_output=True, text=True, check=True)
        return p.stdout.strip()

    def commit(self, path, text):
        os.makedirs(os.path.dirname(os.path.join(self.repo, path)), exist_ok=True)
        with open(os.path.join(self.repo, path), "w") as f:
            f.write(text)
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", path)
        return self.git("rev-parse", "HEAD")

    def setUp(self):
        if not shutil.which("git"):
            self.skipTest("git is not installed (the study diffs builds with it)")
        super().setUp()
        # The kith binary inside the repository it was built in, as build/release/cli/kith is.
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        self.git("init", "-q")
        shutil.copy(FAKE, os.path.join(self.repo, "kith.py"))
        self.first = self.commit("heap/policy.cpp", "one\n")
        self.docs = self.commit("docs/STUDY.md", "words\n")  # nothing that shapes a run
        self.code = self.commit("heap/policy.cpp", "two\n")  # a policy changed
        self.runlog = os.path.join(self.tmp, "runlog")

    def run_study(self, build, *args):
        if os.path.exists(self.runlog):
            os.remove(self.runlog)
        env = dict(os.environ, FAKE_KITH_COMMIT=build, FAKE_KITH_RUNLOG=self.runlog)
        return subprocess.run([sys.executable, DRIVER, f"--kith={os.path.join(self.repo, 'kith.py')}", *args,
                               f"--out={self.out}"], capture_output=True, text=True, env=env, timeout=300)

    def ran(self):
        if not os.path.exists(self.runlog):
            return set()
        with open(self.runlog) as f:
            return {os.path.basename(a.split("=", 1)[1])[:-5] for line in f for a in line.split()
                    if a.startswith("--stats-file=")}

    def builds(self):
        with open(os.path.join(self.out, "builds.csv")) as f:
            return {(r["kind"], r["commit"], r["build"], r["draft"]) for r in csv.DictReader(f)}

    def test_resume_redoes_only_what_a_code_change_made_stale(self):
        p = self.run_study(self.first, f"--suite={FAKE_SUITE}", *SMALL)
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = finished_runs(self.out)
        # Only the documents changed: nothing is stale, nothing runs again.
        p = self.run_study(self.docs, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), set())
        self.assertNotIn("redone", p.stderr)
        # One run set aside is done by the new build: two commits, one build (the same code).
        main = sorted(r for r in runs if r.startswith("main__"))
        os.remove(os.path.join(self.out, "runs", "main", main[0] + ".rc"))
        p = self.run_study(self.docs, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), {main[0]})
        self.assertIn(("main", self.docs, self.first, ""), self.builds())
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertNotIn("Draft", report)
        line = next(x for x in report.splitlines() if x.startswith("Every run is of one build"))
        self.assertIn(f"Every run is of one build, `{self.first[:12]}` (recorded as ", line)
        self.assertIn(": commits with the same code)", line)
        self.assertEqual(sorted(re.findall(r"`([0-9a-f]{12})`", line)), sorted([self.first[:12]] * 2 + [self.docs[:12]]))
        # A policy changed: every run is stale and runs again, and the report is one build's.
        p = self.run_study(self.code, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), runs)
        self.assertIn(f"--resume: {len(runs) - 1} runs of build {self.first[:12]} redone (the code changed): main 3, "
                      f"minheap {len(runs) - 4}", p.stderr)
        self.assertIn(f"--resume: 1 runs of build {self.docs[:12]} redone (the code changed): main 1", p.stderr)
        p = self.run_study(self.first, "--plan")  # a plan names the runs a resume would redo
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{len(runs)} finished runs are of other builds' code; `kith study --resume` redoes them",
                      p.stderr)
        self.assertEqual({b[1] for b in self.builds()}, {self.code})
        # Back to the first build, keeping the other's runs: a draft, stamped, not refused.
        os.remove(os.path.join(self.out, "runs", "main", main[1] + ".rc"))
        p = self.run_study(self.first, "--resume", "--keep-stale")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), {main[1]})
        self.assertIn("draft: runs from 2 builds: report.md and every figure say so", p.stderr)
        self.assertEqual({b[3] for b in self.builds()}, {"draft: runs from 2 builds"})

    def test_a_build_with_uncommitted_changes_or_of_no_repository(self):
        p = self.run_study(self.code + "-dirty", f"--suite={FAKE_SUITE}", *SMALL)
        self.assertRefused(p, "not of one clean build: uncommitted changes", f"main: {self.code[:12]}-dirty (4)")
        self.assertIn("commit the changes, rebuild", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "report.md")), "no report")
        p = self.run_study(self.code + "-dirty", "--resume", "--draft")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), set(), "the same dirty build: nothing stale")
        with open(os.path.join(self.out, "report.md")) as f:
            self.assertIn("> **Draft: runs from 1 build, with uncommitted changes**", f.read())
        # Committed: its runs are stale (what the uncommitted changes were cannot be known).
        p = self.run_study(self.code, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), finished_runs(self.out))
        self.assertIn(f"redone (uncommitted changes)", p.stderr)
        # A kith outside any repository (the driver's own tree does not hold these commits):
        # a different commit is stale.
        shutil.rmtree(os.path.join(self.repo, ".git"))
        p = self.run_study(self.docs, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), finished_runs(self.out))
        self.assertIn(f"runs of build {self.code[:12]} redone (commit not in ", p.stderr)

    def test_keep_stale_goes_with_resume(self):
        self.assertError(self.run_study(self.first, f"--suite={FAKE_SUITE}", "--keep-stale", *SMALL), 64,
                         "--keep-stale", "--resume")


class Merge(Base):
    def setUp(self):
        super().setUp()
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.main_runs = sorted(r for r in finished_runs(self.out) if r.startswith("main__"))
        self.incoming = os.path.join(self.tmp, "incoming", "runs", "main")
        os.makedirs(self.incoming)

    def put(self, run_id, stats, rc="0\n", commit=None):
        with open(os.path.join(self.incoming, run_id + ".json"), "w") as f:
            f.write(stats if isinstance(stats, str) else json.dumps(stats))
        if commit is not None:  # as --plan's commands record it
            with open(os.path.join(self.incoming, run_id + ".commit"), "w") as f:
                f.write(commit + "\n")
        with open(os.path.join(self.incoming, run_id + ".rc"), "w") as f:
            f.write(rc)

    def existing(self, run_id):
        with open(os.path.join(self.out, "runs", "main", run_id + ".json")) as f:
            return json.load(f)

    def test_missing_directory(self):
        self.assertError(study("--merge", os.path.join(self.tmp, "nope"), f"--out={self.out}"), 66, "nope",
                         "no such directory")

    def test_a_file_is_not_a_directory(self):
        path = os.path.join(self.tmp, "a-file")
        with open(path, "w") as f:
            f.write("x\n")
        self.assertError(study("--merge", path, f"--out={self.out}"), 66, "a-file", "not a directory")

    def test_numbers_not_finite_or_not_of_their_kind_are_refused(self):
        good = self.existing(self.main_runs[0])
        bad = {"vm.wall_s": [float("nan"), float("inf"), "fast", -1.0, None, True],
               "heap.allocations": [1.5, -3, "1000", False], "gc.cycles": [float("inf")],
               "heap.satisfied.immediate": [2.5], "heap.alloc_ns.mean": ["quick"], "gc.pause_ms.total": [1e309]}
        texts = {}
        n = 0
        for key, values in bad.items():
            for value in values:
                n += 1
                data = json.loads(json.dumps(good))
                *path, last = key.split(".")
                d = data
                for part in path:
                    d = d[part]
                d[last] = value
                run_id = self.main_runs[0].replace("__r0", f"__r{n}")
                text = json.dumps(data)  # NaN and Infinity as Python writes them
                texts[run_id] = text.replace("Infinity", "1e309") if key == "gc.pause_ms.total" else text
                self.put(run_id, texts[run_id])
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures")
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertIn(f"merged 0 runs; skipped {n}:", p.stderr)
        self.assertEqual(p.stderr.count(" refused " + self.incoming), n, p.stderr)
        for words in ("vm.wall_s = NaN, not a finite number", "vm.wall_s = Infinity", 'vm.wall_s = "fast", not a time',
                      "heap.allocations = 1.5, not a count", 'heap.alloc_ns.mean = "quick", not a number',
                      "gc.pause_ms.total = Infinity"):
            self.assertIn(words, p.stderr)
        self.assertEqual(set(finished_runs(self.out)) & set(texts), set(), "none merged")

    def test_refuses_broken_and_conflicting_runs_and_skips_foreign_ones(self):
        kept = self.main_runs[0]
        good = self.existing(kept)
        changed = json.loads(json.dumps(good))
        changed["vm"]["wall_s"] += 1
        self.put(kept, changed)  # a finished run, different: refused, the study's kept
        same = self.main_runs[1]
        shutil.copy(os.path.join(self.out, "runs", "main", same + ".json"), self.incoming)
        shutil.copy(os.path.join(self.out, "runs", "main", same + ".rc"), self.incoming)  # identical: already there
        new = kept.replace("__r0", "__r1")
        self.put(new, good)  # a new repeat, valid: merged
        self.put(kept.replace("__r0", "__r2"), {"a": 1})  # rc 0, not statistics: refused
        self.put(kept.replace("__r0", "__r3"), good, rc="abc\n")  # not an exit code: refused
        self.put(kept.replace("__r0", "__r4"), "{not json")  # refused
        self.put(kept.replace("__alpha__", "__gamma__").replace("__beta__", "__gamma__"), good)  # not in the suite
        self.put(kept.replace("__list__", "__kingsley__").replace("__tlsf__", "__kingsley__"), good)  # not a policy
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures")
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertIn("merged 1 runs (1 more already there, identical); skipped 6:", p.stderr)
        self.assertIn("1 of workloads not in the suite", p.stderr)
        self.assertIn("1 of policies not in --policies", p.stderr)
        self.assertEqual(p.stderr.count("; refused "), 4, p.stderr)
        self.assertIn("differs from the finished run", p.stderr)
        self.assertEqual(self.existing(kept), good, "the finished run kept")
        runs = finished_runs(self.out)
        self.assertIn(new, runs)
        for bad in ("__r2", "__r3", "__r4", "gamma", "kingsley"):
            self.assertFalse([r for r in runs if bad in r and r.startswith("main__")], bad)

    def test_clean_merge_exits_0(self):
        self.put(self.main_runs[0].replace("__r0", "__r1"), self.existing(self.main_runs[0]), commit=fake_kith.COMMIT)
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("kith study: merged 1 runs\n", p.stderr)

    def test_named_pipes_are_refused_not_waited_on(self):
        # A hostile directory: a pipe where a run's file should be would block a reader forever.
        good = self.existing(self.main_runs[0])
        for i, ext in enumerate(("rc", "json", "commit", "log"), start=1):
            run_id = self.main_runs[0].replace("__r0", f"__r{i}")
            self.put(run_id, good)
            path = os.path.join(self.incoming, f"{run_id}.{ext}")
            if os.path.exists(path):
                os.remove(path)
            os.mkfifo(path)
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures",
                  timeout=60)
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        for ext in ("rc", "json", "commit", "log"):
            self.assertIn(f"its .{ext} is not a regular file", p.stderr)
        # In the study's own directory, an unreadable .rc is a run not yet done, and a pipe
        # for a .commit reads as not recorded: --resume neither hangs nor fails.
        main = os.path.join(self.out, "runs", "main")
        os.remove(os.path.join(main, self.main_runs[0] + ".rc"))
        os.mkfifo(os.path.join(main, self.main_runs[0] + ".rc"))
        os.remove(os.path.join(main, self.main_runs[1] + ".commit"))
        os.mkfifo(os.path.join(main, self.main_runs[1] + ".commit"))
        # An empty .rc, as a stop halfway through writing one left it, is a run not done
        # either (it read as exit code -1, a failed run, and a probe so failed ended its
        # search as "error").
        open(os.path.join(main, self.main_runs[2] + ".rc"), "w").close()
        p = study("--resume", f"--out={self.out}", "--no-figures", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        for run_id in self.main_runs[0], self.main_runs[2]:
            with open(os.path.join(main, run_id + ".rc")) as f:
                self.assertEqual(f.read(), "0\n", "the run was done again")
        # The run whose .commit was a pipe (its build not recorded) is stale: run again by this build.
        self.assertIn("--resume: 1 runs of build commit not recorded redone (build not recorded): main 1", p.stderr)
        with open(os.path.join(main, self.main_runs[1] + ".commit")) as f:
            self.assertEqual(f.read(), fake_kith.COMMIT + "\n")
        with open(os.path.join(self.out, "study.json")) as f:
            self.assertEqual(json.load(f)["run_commits"]["main"], [fake_kith.COMMIT])

    def test_a_merged_run_keeps_its_build_or_says_it_was_not_recorded(self):
        runs = [self.main_runs[0].replace("__r0", f"__r{i}") for i in (1, 2, 3)]
        for run_id, commit in zip(runs, ("abcdef1", "not a commit\n\x00", None)):
            self.put(run_id, self.existing(self.main_runs[0]))
            if commit is not None:
                with open(os.path.join(self.incoming, run_id + ".commit"), "w") as f:
                    f.write(commit)
        with open(os.path.join(self.out, "report.md")) as f:
            published = f.read()
        # Runs of other builds, or of builds not recorded: merged, but no published numbers from the mix.
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures")
        self.assertRefused(p, "not of one clean build: 2 builds, runs whose build is not recorded",
                         f"main: {fake_kith.COMMIT} (4), abcdef1 (1), commit not recorded (1), merged, commit not "
                         f"recorded (1); minheap: {fake_kith.COMMIT} (", "no results, figures or report written")
        self.assertIn("--draft", p.stderr.splitlines()[-1])
        with open(os.path.join(self.out, "report.md")) as f:
            self.assertEqual(f.read(), published, "the report of one build kept as it was")
        self.assertTrue(set(runs) <= finished_runs(self.out), "the runs merged all the same")
        p = study("--merge", os.path.dirname(os.path.dirname(self.incoming)), f"--out={self.out}", "--no-figures",
                  "--draft")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        stamp = "> **Draft: runs from 2 builds and builds not recorded** (`builds.csv`)"
        self.assertEqual(report.count(stamp), 1 + report.count("\n## "), "under the title and every section")
        with open(os.path.join(self.out, "builds.csv")) as f:
            self.assertIn(",abcdef1,abcdef1,1,draft: runs from 2 builds and builds not recorded", f.read())
        said = []
        for run_id in runs:
            with open(os.path.join(self.out, "runs", "main", run_id + ".commit")) as f:
                said.append(f.read().strip())
        self.assertEqual(said, ["abcdef1", "commit not recorded", "merged, commit not recorded"])
        with open(os.path.join(self.out, "study.json")) as f:
            main = json.load(f)["run_commits"]["main"]
        self.assertEqual(sorted(main[1:]), sorted(["abcdef1", "commit not recorded", "merged, commit not recorded"]))


class BadRunInTheStudy(Base):
    def test_a_bad_run_already_in_runs_is_refused_by_name_not_a_traceback(self):
        # As a merge before its numbers were checked left it: every --resume failed in
        # statistics.stdev.
        p = study(f"--suite={FAKE_SUITE}", *SMALL, "--repeat=2", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        main = os.path.join(self.out, "runs", "main")
        runs = sorted(n[:-5] for n in os.listdir(main) if n.endswith(".json"))
        for run_id, wall in zip(runs, ("NaN", "1e309", '"fast"')):
            path = os.path.join(main, run_id + ".json")
            with open(path) as f:
                data = json.load(f)
            data["vm"]["wall_s"] = 0.0
            with open(path, "w") as f:
                f.write(json.dumps(data).replace('"wall_s": 0.0', f'"wall_s": {wall}'))
        for _ in range(2):  # and the next --resume alike
            p = study("--resume", f"--out={self.out}")
            self.assertEqual(p.returncode, 65, p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            for run_id, why in zip(runs, ("NaN, not a finite number", "Infinity, not a finite number",
                                          '"fast", not a time')):
                self.assertIn(f"refused {os.path.join(main, run_id)}: its .json has vm.wall_s = {why}", p.stderr)
            self.assertIn("3 runs in", p.stderr)
            with open(os.path.join(self.out, "results.csv")) as f:
                results = f.read()
            for run_id in runs[:3]:
                self.assertNotIn(run_id, results, "left out of the results")
            self.assertIn(runs[3], results)


class Sources(Base):
    def test_only_the_sources_runs_track_where_blocks_came_from(self):
        # The split costs the counting path 8-13 instructions a malloc: the timed runs leave
        # it out, one untimed run per main configuration gives it, and satisfied.csv has it.
        p = study(f"--suite={FAKE_SUITE}", "--experiments=minheap,main,sources", "--policies=list,knuth",
                  "--collectors=occasional", "--repeat=1", "--no-figures", "--jobs=2", f"--out={self.out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "commands.txt")) as f:
            lines = f.read().splitlines()
        kinds = {}
        for line in lines:
            kind = re.search(r"runs/(\w+)/", line).group(1)
            kinds.setdefault(kind, []).append(line)
        self.assertEqual(len(kinds["sources"]), 4)  # alpha and beta, list and knuth
        for line in kinds["sources"]:
            self.assertIn("--stats-sources=on", line)
            self.assertIn("--stats-timers=off", line)
        for kind in ("main", "minheap"):
            for line in kinds[kind]:
                self.assertIn("--stats-sources=off", line)
        with open(os.path.join(self.out, "satisfied.csv")) as f:
            rows = {(r["workload"], r["policy"]): r for r in csv.DictReader(f)}
        self.assertEqual(rows[("alpha", "knuth")]["leftover"], "460")
        self.assertEqual(rows[("alpha", "knuth")]["sources_match"], "True")


class Signals(Base):
    def test_runs_start_with_no_signal_blocked(self):
        # The driver holds the stop signals off while it starts a run (runner.py); the run
        # itself must still receive them.
        masks = os.path.join(self.tmp, "sigblk")
        p = study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={self.out}",
                  env=dict(os.environ, FAKE_KITH_SIGBLK=masks))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(masks) as f:
            seen = [int(line, 16) for line in f]
        self.assertGreater(len(seen), 10)
        stop = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1)) | (1 << (signal.SIGHUP - 1))
        self.assertEqual([m & stop for m in seen], [0] * len(seen))

    def test_term_and_hup_kill_children_and_resume_redoes_nothing(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with self.subTest(signal=sig.name):
                out = os.path.join(self.tmp, sig.name)
                first, second = os.path.join(self.tmp, sig.name + ".1"), os.path.join(self.tmp, sig.name + ".2")
                env = dict(os.environ, FAKE_KITH_SLEEP="0.4", FAKE_KITH_RUNLOG=first)
                proc = subprocess.Popen([sys.executable, DRIVER, f"--kith={FAKE}", f"--suite={FAKE_SUITE}", *SMALL,
                                         f"--out={out}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
                deadline = time.monotonic() + 60
                while len(finished_runs(out)) < 4 and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertGreaterEqual(len(finished_runs(out)), 4)
                proc.send_signal(sig)
                _, err = proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, 128 + sig, err)
                self.assertNotIn("Traceback", err)
                with open(first) as f:
                    started = [line.split() for line in f]
                for pid, *_ in started:
                    with self.assertRaises(ProcessLookupError, msg=f"child {pid} outlived {sig.name}"):
                        os.kill(int(pid), 0)
                done = finished_runs(out)
                self.assertLess(len(done), 40, "the study was stopped, not finished (40 runs in all)")
                p = study("--resume", f"--out={out}", env=dict(os.environ, FAKE_KITH_RUNLOG=second))
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(second) as f:
                    again = {os.path.basename(a.split("=", 1)[1])[:-5] for line in f for a in line.split()
                             if a.startswith("--stats-file=")}
                self.assertTrue(again, "the resume ran the rest")
                self.assertFalse(again & done, "no finished run redone")
                local = os.path.join(self.tmp, "local")
                if not os.path.isdir(local):
                    self.assertEqual(study(f"--suite={FAKE_SUITE}", *SMALL, f"--out={local}").returncode, 0)
                for table in ("minheap.csv", "satisfied.csv"):
                    with open(os.path.join(out, table)) as a, open(os.path.join(local, table)) as b:
                        self.assertEqual(a.read(), b.read(), table)


if __name__ == "__main__":
    unittest.main()

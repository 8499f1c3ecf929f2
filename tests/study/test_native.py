#!/usr/bin/python3
"""`kith study --native` (study/native_study.py, native_suite.py): the whole driver on two
programs' small inputs and two policies (outputs checked against glibc, traces replayed, the
report and CSVs written), the folder it refuses, and the suite file's checks.

  test_native.py KITH THIRD_PARTY_BUILD WORK"""
import csv
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
from study import native_suite  # noqa: E402
from study.common import StudyError  # noqa: E402

KITH = THIRD_PARTY = WORK = None


def study(*args):
    return subprocess.run([KITH, "study", "--native", f"--third-party={THIRD_PARTY}", *args],
                          capture_output=True, text=True, timeout=600)


class Driver(unittest.TestCase):
    def test_quick_study(self):
        out = os.path.join(WORK, "quick")
        shutil.rmtree(out, ignore_errors=True)
        programs = "cfrac,sqlite" if os.path.exists(os.path.join(THIRD_PARTY, "cfrac")) else "sqlite,perl"
        p = study("--quick", f"--programs={programs}", "--policies=lea,kingsley-coalescing", f"--out={out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "native_summary.csv")) as f:
            rows = list(csv.DictReader(f))
        # glibc (added: with no statistics asked, kith exec preloads nothing) and the two asked for
        self.assertEqual({r["policy"] for r in rows}, {"malloc", "lea", "kingsley-coalescing"})
        self.assertEqual({r["program"] for r in rows}, set(programs.split(",")))
        for r in rows:
            self.assertEqual(r["ok"], "1", r)
            self.assertGreater(float(r["wall_s"]), 0, r)
            if r["policy"] in ("lea", "kingsley-coalescing"):
                self.assertGreater(int(r["allocations"]), 1000, r)
                self.assertGreaterEqual(int(r["memory_consumption"]), int(r["peak_bytes_in_use"]), r)
        with open(os.path.join(out, "native_replay.csv")) as f:
            replays = list(csv.DictReader(f))
        for r in replays:
            self.assertEqual(r["exit_code"], "0", r)
            if r["policy"] == "kingsley-coalescing":  # its bound is 3 and 3 (segregated_list_heap.h)
                self.assertLessEqual(int(r["malloc_steps_max"]), int(r["malloc_bound"]), r)
                self.assertLessEqual(int(r["free_steps_max"]), int(r["free_bound"]), r)
        report = open(os.path.join(out, "native_report.md")).read()
        self.assertIn("## Runtime normalised to glibc", report)
        self.assertIn("KingsleyHeap + coal.", report)
        with open(os.path.join(out, "native.json")) as f:
            self.assertEqual(sorted(json.load(f)["phases"]), ["costs", "counts", "timed"])
        # Again in the same folder, one phase: it is a native study's, so it is taken; the
        # other phases' tables stay and the report is made from all of them.
        replays = open(os.path.join(out, "native_replay.csv")).read()
        p = study("--quick", f"--programs={programs}", "--policies=lea,kingsley-coalescing", "--phases=timed",
                  f"--out={out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(open(os.path.join(out, "native_replay.csv")).read(), replays)
        self.assertIn("## Requests satisfied", open(os.path.join(out, "native_report.md")).read())

    def test_refuses_a_folder_that_is_not_its_own(self):
        out = os.path.join(WORK, "users")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(os.path.join(out, "runs", "x"))
        with open(os.path.join(out, "runs", "x", "data.txt"), "w") as f:
            f.write("precious\n")
        p = study("--quick", "--programs=sqlite", f"--out={out}")
        self.assertEqual(p.returncode, 73, p.stderr)
        self.assertIn("not a native study", p.stderr)
        with open(os.path.join(out, "runs", "x", "data.txt")) as f:
            self.assertEqual(f.read(), "precious\n")

    def test_usage_errors(self):
        for args in (["--phases=timed,nosuch"], ["--phases="], ["--policies=occasional"], ["--policies=lsit"], ["--programs=nosuch"], ["--repeat=0"], ["--heap-size=lots"], ["--out="],
                     ["--policies=boehm"], ["--programs=sqlite,sqlite"], ["--policies=lea,,tlsf"], ["--programs="]):
            p = study("--quick", f"--out={os.path.join(WORK, 'never')}", *args)  # the last --out wins
            self.assertEqual(p.returncode, 64, (args, p.stderr))
            self.assertIn(len(p.stderr.splitlines()), (1, 2), p.stderr)  # the message, maybe a hint
        self.assertFalse(os.path.exists(os.path.join(WORK, "never")))


class Collectors(unittest.TestCase):
    def test_beside_kiths_own_runs(self):
        from study import native_study
        published = os.path.join(WORK, "published")
        os.makedirs(published, exist_ok=True)
        with open(os.path.join(published, "alloc_cost.csv"), "w") as f:
            f.write("workload,collector,policy,ir_per_malloc,ir_per_free\n"
                    "gcbench,occasional,lea,50,40\ngcbench,continuous,lea,52,41\njson,occasional,lea,9,9\n")
        with open(os.path.join(published, "satisfied.csv"), "w") as f:
            f.write("workload,collector,policy,immediate_pct\ngcbench,occasional,lea,90\n")
        costs = [{"program": "lua", "policy": "lea", "ir_per_malloc": 60.0, "ir_per_free": 45.0},
                 {"program": "lua_generational", "policy": "lea", "ir_per_malloc": 61.0, "ir_per_free": 44.0},
                 {"program": "cfrac", "policy": "lea", "ir_per_malloc": 30.0, "ir_per_free": 20.0}]
        replays = [{"program": "lua", "policy": "lea", "allocations": 200, "satisfied_immediate": 150}]
        rows = native_study.collector_rows(costs, replays, published)
        self.assertEqual([(r["runtime"], r["ir_per_malloc"], r["immediate_pct"]) for r in rows],
                         [("kith continuous", 52.0, None), ("kith occasional", 50.0, 90.0), ("lua", 60.0, 75.0),
                          ("lua_generational", 61.0, None)])
        self.assertEqual(native_study.same_benchmark("awfy_json_gen"), "json")
        self.assertIsNone(native_study.same_benchmark("cfrac"))


class Suite(unittest.TestCase):
    def rows(self, text):
        path = os.path.join(WORK, "suite.tsv")
        with open(path, "w") as f:
            f.write(text)
        return native_suite.load(native_suite.places_for("/b", "/s", "/w"), False, path)

    HEADER = "\t".join(native_suite.COLUMNS) + "\n"

    def test_the_shipped_suite_reads(self):
        names = [p.name for p in native_suite.load(native_suite.places_for("/b", "/s", "/w"), True)]
        self.assertEqual(names, ["cfrac", "espresso", "perl", "python", "sqlite", "lua", "lua_generational", "gcc"])

    def test_placeholders_and_env(self):
        (p,) = self.rows(self.HEADER + "x\t{cfrac} {work}/a 'two words'\t-\tq\t-\tA=1,B=2\t-\tw\n")
        self.assertEqual(p.command, ["/b/cfrac", "/w/a", "two words"])
        self.assertEqual(p.env, {"A": "1", "B": "2"})

    def test_malformed(self):
        for text in ("name\tcommand\n", self.HEADER + "x\tcmd\n", self.HEADER + "x\t{nope}\t-\tq\t-\t-\t-\tw\n",
                     self.HEADER + "x\tc\t-\tq\t-\tNOEQUALS\t-\tw\n", self.HEADER + "x\tc\t-\tq\t-\t-\t(\tw\n",
                     self.HEADER + "x\tc\t-\tq\t-\t-\t-\tw\n" + "x\tc\t-\tq\t-\t-\t-\tw\n"):
            with self.assertRaises(StudyError) as e:
                self.rows(text)
            self.assertEqual(e.exception.code, 65, text)

    def test_awfy_programs(self):
        lua = os.path.join(WORK, "awfy", "benchmarks", "Lua")
        os.makedirs(lua, exist_ok=True)
        for name in ("harness.lua", "json.lua"):
            open(os.path.join(lua, name), "w").close()
        programs = native_suite.awfy_programs(os.path.join(WORK, "awfy"), quick=True)
        # only the benchmarks the checkout has, each under both of Lua's collectors, with the
        # arguments Kith's own suite gives them (workloads/suite.tsv: Json 1 1 small)
        self.assertEqual([p.name for p in programs], ["awfy_json", "awfy_json_gen"])
        self.assertEqual(programs[0].command, ["lua5.4", os.path.join(lua, "harness.lua"), "Json", "1", "1"])
        self.assertEqual(programs[1].command[1:3], ["-e", 'collectgarbage("generational")'])
        self.assertEqual(programs[0].env["LUA_PATH"], os.path.join(lua, "?.lua") + ";;")
        self.assertEqual(programs[0].masked("Json: iterations=1 runtime: 10130us\n"), "Json: iterations=1 \n")
        with self.assertRaises(StudyError) as e:
            native_suite.awfy_programs(os.path.join(WORK, "no-checkout"), quick=True)
        self.assertEqual(e.exception.code, 66)

    def test_not_a_regular_file(self):
        with self.assertRaises(StudyError) as e:
            native_suite.read_rows("/dev/zero")
        self.assertEqual(e.exception.code, 66)


if __name__ == "__main__":
    KITH, THIRD_PARTY, WORK = sys.argv[1:4]
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1])

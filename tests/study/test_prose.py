"""study/prose.py and prose_format.py: the template's lint, the placeholders, the claims that refuse to be
printed false and the data a narrative needs, on docs/study's CSVs and altered copies of
them. CTest: study.prose."""

import csv
import io
import re
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True
from study import prose, prose_format  # noqa: E402

PUBLISHED = os.path.join(ROOT, "docs", "study")


def edit_csv(path, change):
    """Rewrites a CSV, change(row) editing each row (a dict); a row it returns False for is dropped."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    kept = [r for r in rows if change(r) is not False]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(kept)


class Lint(unittest.TestCase):
    def lines(self, text):
        return [n for n, _ in prose.lint(text) if n]

    def test_a_typed_number_is_found(self):
        self.assertEqual(self.lines("knuth meets {{a:.1f}}% of them,\nup from 61.6% before\n"), [2])

    def test_placeholders_names_and_allowed_phrases_pass(self):
        self.assertEqual(self.lines("{{fig10.knuth:.1f}} on em3d, p99 and JDK 1.1.8\n"), [])

    def test_a_number_beside_an_allowed_phrase_is_found(self):
        self.assertEqual(self.lines("JDK 1.1.8 ran 5 of them\n"), [1])

    def test_comments_are_skipped_and_lines_still_counted(self):
        self.assertEqual(self.lines("{# 42 in a comment\nspans lines #}\nfine\n12 typed\n"), [4])

    def test_the_template_passes(self):
        with open(prose.TEMPLATE) as f:
            self.assertEqual(prose.lint(f.read()), [])


class Values(unittest.TestCase):
    def test_sizes_are_binary_and_from_bytes(self):
        # The audit: treeadd's knuth minimum heap, 68,288,512 bytes, was "66.7 MB" (KiB / 1000).
        self.assertEqual(prose_format.format_value(68288512, "MiB"), "65.1 MiB")
        self.assertEqual(prose_format.format_value(407552, "KiB"), "398 KiB")
        self.assertEqual(prose_format.format_value(1 << 20, "size"), "1 MiB")

    def test_a_range_prints_its_unit_once(self):
        self.assertEqual(format(prose_format.Range([0.0571625, 0.600395]), ".3f"), "0.057–0.600")
        self.assertEqual(format(prose_format.Range([50414592, 68288512]), "MiB"), "48.1–65.1 MiB")
        self.assertEqual(format(prose_format.Range([0.9356, 0.9978]), ".1%"), "93.6–99.8%")
        self.assertEqual(format(prose_format.Range([2, 2]), ""), "2")

    def test_names_read_as_prose(self):
        self.assertEqual(format(prose_format.Names(["a", "b", "c"]), ""), "a, b and c")

    def test_a_cell_placeholder_reads_its_row(self):
        files = prose.StudyFiles(PUBLISHED)
        out = prose.render("{{satisfied_means.continuous.knuth.recycling.immediate_pct_weighted:.1f}}", files, {})
        row = files.row("satisfied_means", collector="continuous", policy="knuth", subset="recycling")
        self.assertEqual(out, f"{row['immediate_pct_weighted']:.1f}")

    def test_an_unknown_name_fails_with_its_line(self):
        with self.assertRaisesRegex(prose_format.ProseError, r"line 2: \{\{no\.such\}\}"):
            prose.render("fine\n{{no.such}}\n", prose.StudyFiles(PUBLISHED), {})


class Study(unittest.TestCase):
    """An altered copy of docs/study: what the narrative does when the data moves."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kith-prose-")
        self.dir = os.path.join(self.tmp, "study")
        shutil.copytree(PUBLISHED, self.dir, ignore=shutil.ignore_patterns("figures"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_published_data_renders(self):
        text = prose.make(self.dir)
        self.assertTrue(text.startswith(prose.GENERATED_NOTE))
        self.assertNotIn("{{", text)

    def test_a_claim_that_no_longer_holds_is_not_printed(self):
        # "continuous collection helps knuth": not when knuth meets fewer requests immediately there.
        def worse(r):
            if r["policy"] == "knuth" and r["collector"] == "continuous":
                r["immediate_pct_weighted"] = "40.0"
        edit_csv(os.path.join(self.dir, "satisfied_means.csv"), worse)
        with self.assertRaisesRegex(prose_format.FalseClaim, "continuous collection helps knuth"):
            prose.make(self.dir)

    def test_no_significantly_faster_policy_fails_the_sentence_about_them(self):
        def none_faster(r):
            if r.get("speedup") and float(r["speedup"]) > 1:
                r["holm_significant"] = "False"
        edit_csv(os.path.join(self.dir, "speedup.csv"), none_faster)
        with self.assertRaisesRegex(prose_format.FalseClaim, "significantly faster than list"):
            prose.make(self.dir)

    def test_counts_follow_the_data(self):
        # One more workload where estranged's replay interval sits clear above list's.
        text_before = prose.make(self.dir)
        above = int(re.search(r"interval clear of list's on (\d+) of 23 workloads above", text_before).group(1))
        with open(os.path.join(self.dir, "replay_time.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        lists = {r["workload"]: r for r in rows if r["collector"] == "occasional" and r["policy"] == "list"}
        # A workload whose estranged interval is not yet clear above list's.
        target = next(r["workload"] for r in rows if r["collector"] == "occasional" and r["policy"] == "estranged"
                      and r["net_ci_low"] and lists[r["workload"]]["net_ci_high"]
                      and float(r["net_ci_low"]) <= float(lists[r["workload"]]["net_ci_high"]))

        def clear(r):
            if r["workload"] == target and r["collector"] == "occasional" and r["policy"] == "estranged":
                r["net_ci_low"], r["net_ci_high"] = "1000", "1001"
        edit_csv(os.path.join(self.dir, "replay_time.csv"), clear)
        self.assertIn(f"interval clear of list's on {above + 1} of 23 workloads above", prose.make(self.dir))

    def test_a_study_without_a_workload_it_speaks_of_is_missing_data(self):
        edit_csv(os.path.join(self.dir, "alloc_cost.csv"), lambda r: r["workload"] != "treeadd")
        with self.assertRaisesRegex(prose_format.MissingData, "treeadd"):
            prose.make(self.dir)

    def test_kith_study_writes_it_beside_the_report_with_links_from_there(self):
        with redirect_stderr(io.StringIO()):
            self.assertTrue(prose.write_beside_report(self.dir))
        with open(os.path.join(self.dir, "STUDY.md")) as f:
            text = f.read()
        self.assertIn("[`report.md`](report.md)", text)
        self.assertIn("(figures/fig-speedup.png)", text)
        docs = os.path.relpath(os.path.join(ROOT, "docs"), self.dir)
        self.assertIn(f"]({docs}/RUNNING_THE_STUDY.md#", text)

    def test_a_study_of_fewer_policies_says_what_it_lacks(self):
        edit_json = os.path.join(self.dir, "study.json")
        import json
        with open(edit_json) as f:
            state = json.load(f)
        state["config"]["policies"] = ["list", "knuth"]
        with open(edit_json, "w") as f:
            json.dump(state, f)
        with self.assertRaisesRegex(prose_format.MissingData, "policy estranged"):
            prose.make(self.dir)

    def test_kith_study_writes_none_for_a_smaller_study_and_removes_only_its_own(self):
        os.remove(os.path.join(self.dir, "steps.csv"))
        path = os.path.join(self.dir, "STUDY.md")
        with open(path, "w") as f:
            f.write(prose.GENERATED_NOTE + "an older narrative\n")
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertTrue(prose.write_beside_report(self.dir))
        self.assertFalse(os.path.exists(path))
        self.assertIn("STUDY.md not written", err.getvalue())
        with open(path, "w") as f:
            f.write("a user's own notes\n")
        with redirect_stderr(io.StringIO()):
            prose.write_beside_report(self.dir)
        with open(path) as f:
            self.assertEqual(f.read(), "a user's own notes\n")

    def test_kith_study_fails_when_a_claim_breaks(self):
        edit_csv(os.path.join(self.dir, "speedup.csv"),
                 lambda r: r.update(holm_significant="False") if r.get("speedup") and float(r["speedup"]) > 1 else None)
        with redirect_stderr(io.StringIO()):
            self.assertFalse(prose.write_beside_report(self.dir))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "STUDY.md")))


class CommandLine(unittest.TestCase):
    def run_main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        try:
            with redirect_stderr(err):
                from contextlib import redirect_stdout
                with redirect_stdout(out):
                    code = prose.main(argv)
        except SystemExit as e:
            code = e.code
        return code, out.getvalue(), err.getvalue()

    def test_lint_passes(self):
        self.assertEqual(self.run_main(["--lint"])[0], 0)

    def test_no_directory_is_a_usage_error(self):
        code, _, err = self.run_main([])
        self.assertEqual(code, 64)
        self.assertTrue(err.startswith("kith study: "))

    def test_a_missing_directory_is_66(self):
        self.assertEqual(self.run_main(["/nonexistent/study"])[0], 66)


if __name__ == "__main__":
    unittest.main()

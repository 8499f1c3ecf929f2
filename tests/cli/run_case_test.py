#!/usr/bin/env python3
"""run_case.py against a fake kith: a row passes when the command does what it says,
and each expectation it misses fails the case with a message naming it."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_case.py")

# The fake kith: `OUT ERR CODE [PATH TEXT]` writes OUT to stdout (standard input when OUT is
# '-'), then ERR to stderr, writes TEXT to PATH if given, and exits CODE (a negative CODE: is
# killed by that signal). '|' in an argument is a newline.
FAKE_KITH = f"""#!{sys.executable}
import os
import sys
out, err, code = (a.replace("|", "\\n") for a in sys.argv[1:4])
sys.stdout.write(sys.stdin.read() if out == "-" else out)
sys.stdout.flush()
sys.stderr.write(err)
if len(sys.argv) > 5:
    open(sys.argv[4], "w").write(sys.argv[5])
if int(code) < 0:
    os.kill(os.getpid(), -int(code))
sys.exit(int(code))
"""


class RunCaseTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.kith = os.path.join(self.dir.name, "kith")
        with open(self.kith, "w") as f:
            f.write(FAKE_KITH)
        os.chmod(self.kith, 0o755)

    def tearDown(self):
        self.dir.cleanup()

    def table(self, rows):
        path = os.path.join(self.dir.name, "cases.py")
        with open(path, "w") as f:
            f.write("from cli_case import ANY, EMPTY, case\n" + textwrap.dedent(rows))
        return path

    def run_case(self, rows, name="t"):
        p = subprocess.run([sys.executable, RUNNER, self.table(rows), name, "--kith", self.kith,
                            "--source", self.dir.name], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def assert_passes(self, rows):
        code, out = self.run_case(rows)
        self.assertEqual((code, out), (0, "ok\n"))

    def assert_fails(self, rows, *messages):
        code, out = self.run_case(rows)
        self.assertEqual(code, 1, out)
        self.assertIn("t: ", out.splitlines()[0])  # the case and its command line come first
        for message in messages:
            self.assertIn(message, out)

    def test_a_row_the_command_meets_passes(self):
        self.assert_passes(r'case("t", "hello| warned| 3", exit=3, stdout=r"^hello\n$", stderr="warned")')

    def test_a_wrong_exit_code_is_named(self):
        self.assert_fails(r'case("t", "hello \"\" 3", stdout=ANY)', "FAIL: exit code 3, expected exit code 0")

    def test_a_crash_is_named_by_its_signal(self):
        self.assert_fails(r'case("t", "\"\" \"\" -6")', "FAIL: killed by signal 6, expected exit code 0")

    def test_a_stream_that_does_not_match_is_named_with_what_it_held(self):
        self.assert_fails(r'case("t", "hello \"\" 0", stdout="^bye")', "FAIL: stdout does not match ^bye", "| hello")

    def test_a_stream_not_mentioned_must_be_empty(self):
        self.assert_fails(r'case("t", "hello surprise 0", stdout=ANY)', "FAIL: stderr does not match ^$", "| surprise")

    def test_a_final_dollar_is_the_end_of_the_stream(self):
        self.assert_fails(r'case("t", "a|| \"\" 0", stdout=r"^a\n$")', "FAIL: stdout does not match")

    def test_a_dot_matches_a_newline(self):
        self.assert_passes(r'case("t", "a|b \"\" 0", stdout="^a.b$")')

    def test_output_is_both_streams_in_the_order_written(self):
        self.assert_passes(r'case("t", "out err 0", output="^outerr$")')
        self.assert_fails(r'case("t", "out err 0", output="^errout$")', "FAIL: output does not match")

    def test_an_absent_pattern_is_checked_in_both_streams(self):
        self.assert_fails(r'case("t", "fine \"gc\" 0", stdout=ANY, stderr=ANY, absent="gc")',
                          "FAIL: stderr matches gc, which must be absent")

    def test_stdin_is_the_file_named(self):
        with open(os.path.join(self.dir.name, "in.txt"), "w") as f:
            f.write("from a file")
        self.assert_passes(r'case("t", "- \"\" 0", stdin="{source}/in.txt", stdout="^from a file$")')

    def test_files_written_are_checked(self):
        self.assert_passes(r'case("t", "\"\" \"\" 0 {tmp}/f.txt written", files={"{tmp}/f.txt": "^written$"})')
        self.assert_fails(r'case("t", "\"\" \"\" 0 {tmp}/f.txt written", files={"{tmp}/f.txt": "^other$"})',
                          "FAIL: file {tmp}/f.txt does not match ^other$")
        self.assert_fails(r'case("t", "\"\" \"\" 0", files={"{tmp}/f.txt": ""})',
                          "FAIL: file {tmp}/f.txt: cannot read it")

    def test_given_files_are_made_before_the_command_runs(self):
        self.assert_passes(r'case("t", "- \"\" 0", stdin="{tmp}/in/a.txt", stdout="^given$", '
                           r'given={"{tmp}/in/a.txt": "given"})')
        # A folder: the command can write a file in it.
        self.assert_passes(r'case("t", "\"\" \"\" 0 {tmp}/d/f.txt hi", given={"{tmp}/d/": ""}, '
                           r'files={"{tmp}/d/f.txt": "^hi$"})')

    def test_a_file_that_must_not_exist(self):
        self.assert_passes(r'case("t", "\"\" \"\" 0", files={"{tmp}/f.txt": None})')
        self.assert_fails(r'case("t", "\"\" \"\" 0 {tmp}/f.txt written", files={"{tmp}/f.txt": None})',
                          "FAIL: file {tmp}/f.txt exists; nothing may be there")

    def test_every_miss_is_reported_not_only_the_first(self):
        self.assert_fails(r'case("t", "a b 1", stdout="x", stderr="y")', "exit code 1", "stdout does not", "stderr does not")

    def test_list_prints_the_names_in_table_order(self):
        p = subprocess.run([sys.executable, RUNNER, self.table('case("b", "x")\ncase("a", "y")\n'), "--list"],
                           capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout), (0, "b\na\n"))

    def test_a_malformed_table_fails_to_load(self):
        for rows in ['case("t", "x")\ncase("t", "y")\n',  # a second case of one name
                     'case("t", "x", stdout="(")\n',  # a pattern that does not compile
                     'case("t", "x", stdout="a", output="b")\n']:  # output= and a stream
            p = subprocess.run([sys.executable, RUNNER, self.table(rows), "--list"], capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0, rows)


if __name__ == "__main__":
    unittest.main()

"""study/suggestion.py: the "did you mean" of `kith study`, by the C++ command line's rule
(cli/suggestion.cpp; these are tests/cli/suggestion_test.cpp's cases), and the driver's
use of it for a misspelled policy.
Run: /usr/bin/python3 -m unittest test_suggestion (CTest: study.suggestion)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the repo root: the study package
from study.suggestion import did_you_mean, edit_distance, nearest_name  # noqa: E402


class EditDistance(unittest.TestCase):
    def test_counts_each_kind_of_edit_once(self):
        self.assertEqual(edit_distance("heap", "heap"), 0)
        self.assertEqual(edit_distance("hep", "heap"), 1)  # insertion
        self.assertEqual(edit_distance("heaps", "heap"), 1)  # deletion
        self.assertEqual(edit_distance("heat", "heap"), 1)  # substitution
        self.assertEqual(edit_distance("rnu", "run"), 1)  # neighbours swapped
        self.assertEqual(edit_distance("", "run"), 3)
        self.assertEqual(edit_distance("continous", "continuous"), 1)


class NearestName(unittest.TestCase):
    def test_suggests_the_one_name_within_two_edits(self):
        names = ["list", "knuth", "estranged", "tlsf"]
        self.assertEqual(nearest_name("estrange", names), "estranged")
        self.assertEqual(nearest_name("knth", names), "knuth")
        self.assertEqual(nearest_name("tlfs", names), "tlsf")
        self.assertEqual(nearest_name("lsit", names), "list")  # the issue's
        self.assertIsNone(nearest_name("boehmish", names))  # nothing near
        self.assertIsNone(nearest_name("knuth", names))  # no mistake, no suggestion

    def test_short_words_and_ties_suggest_nothing(self):
        self.assertIsNone(nearest_name("x", ["list", "tlsf"]))
        self.assertIsNone(nearest_name("lisx", ["list", "lisp"]))

    def test_falls_back_to_the_one_name_a_word_begins(self):
        self.assertEqual(nearest_name("--gc-over", ["--gc", "--gc-overhead-limit", "--gc-log"]), "--gc-overhead-limit")
        self.assertIsNone(nearest_name("--gc-", ["--gc-step", "--gc-log"]))


class DidYouMean(unittest.TestCase):
    def test_is_the_hint_line_or_empty(self):
        self.assertEqual(did_you_mean("defrg", ["contrived", "defrag"]), "did you mean 'defrag'?")
        self.assertEqual(did_you_mean("zzz", ["contrived", "defrag"]), "")


if __name__ == "__main__":
    unittest.main()

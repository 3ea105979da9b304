# SPDX-License-Identifier: MIT
"""verdict.py: verdict INCOMPLETE, expected or not."""

import tempfile
import unittest

from pmureport import reader

from common import EXPECT_GOOD, GOOD, compare, run_cli, write


class Incomplete(unittest.TestCase):
    """Verdict INCOMPLETE: an enumerated CPU ran no test."""

    UNTESTED = "# incomplete: 1 enumerated CPU(s) not tested: cpu 3 (did not answer the start-up IPIs)\n"
    LOG = GOOD.replace("# verdict: FAIL", UNTESTED.rstrip("\n") + "\n# verdict: INCOMPLETE")
    EXPECT = EXPECT_GOOD

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.log = write(self.tmp, "run.log", self.LOG)

    def test_valid(self):
        rc, out, _ = run_cli("validate", self.log)
        self.assertEqual(rc, 0, out)

    def test_contradicted(self):
        run = reader.parse(GOOD.replace("# verdict: FAIL", "# verdict: INCOMPLETE"))
        self.assertTrue(any("results make it FAIL" in e for e in run.errors), run.errors)
        run = reader.parse(self.LOG.replace("# verdict: INCOMPLETE", "# verdict: FAIL"))
        self.assertTrue(any("results make it INCOMPLETE" in e for e in run.errors), run.errors)

    def test_not_expected_is_a_mismatch(self):
        rc, out, _ = compare(self.tmp, self.log, self.EXPECT)
        self.assertEqual(rc, 1, out)
        self.assertIn("not ok - verdict INCOMPLETE, expected a complete run", out)
        self.assertIn("#   incomplete: 1 enumerated CPU(s) not tested: cpu 3", out)

    def test_expected(self):
        rc, out, _ = compare(self.tmp, self.log, self.EXPECT + "verdict incomplete cpus=3 cpu 3 is silent\n")
        self.assertEqual(rc, 0, out)

    def test_expected_but_complete_is_a_mismatch(self):
        good = write(self.tmp, "good.log", GOOD)
        rc, out, _ = compare(self.tmp, good, self.EXPECT + "verdict incomplete cpus=3 cpu 3 is silent\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("not ok - verdict FAIL, expected INCOMPLETE", out)

    def test_bad_verdict_lines(self):
        for text in ("verdict incomplete\n", "verdict fail because\n",
                     "verdict incomplete a\nverdict incomplete b\n"):
            rc, _, err = compare(self.tmp, self.log, self.EXPECT + text)
            self.assertEqual(rc, 2, text)

    def test_baseline_states_it(self):
        rc, out, err = run_cli("baseline", self.log)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"\nverdict +incomplete +cpus=3 1 enumerated CPU\(s\) not tested: cpu 3")
        rc, out, _ = compare(self.tmp, self.log, out)
        self.assertEqual(rc, 0, out)

# SPDX-License-Identifier: MIT
"""fingerprint.py and expectations.py: a failure's fingerprint, and an
expectations file that must state it."""

import os
import tempfile
import unittest

from pmureport import expectations, fingerprint, reader, verdict

from common import EXPECT_GOOD, GOOD, run_cli, write


class Fingerprints(unittest.TestCase):
    """a line accepts the failure it describes, no other."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def cmp(self, log, expectations, *opts):
        return run_cli("compare", *opts, write(self.tmp, "r.log", log),
                       write(self.tmp, "exp.txt", expectations))

    def test_outcome_classes(self):
        oc = fingerprint.outcome_class
        self.assertEqual(oc("#GP(0)", "#UD"), "#UD")
        self.assertEqual(oc("#GP(0)", "#GP(0x18)"), "#GP(non-zero)")
        self.assertEqual(oc("#GP(0)", "no exception"), "no fault")
        self.assertEqual(oc("0x64 (100)", "0"), "zero")
        self.assertEqual(oc("0x64 (100)", "0x1f5 (501)"), "above")
        self.assertEqual(oc("10 .. 0x64 (100)", "3"), "below")
        self.assertEqual(oc("anything but 0", "0"), "zero")
        self.assertEqual(oc("#GP(0) for every unsupported type",
                            "0x80000003->no fault(0), 0x10000->#UD(0)"), "sweep #UD(0)+no fault")
        self.assertEqual(oc("none", "bit 3, bit 5"), "bit 3, bit 5")

    def test_finding_lines(self):
        # kernel/precondition.c's one line, for this CPU's counter and for
        # another CPU's: a finding each, counter named as printed.
        log = ("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: smp\n    1..1\n"
               "    # FAIL: IA32_PMC1 needed counting; counters.hold_and_count found it counts nothing\n"
               "    # FAIL: IA32_PMC0 of cpu 1 needed holding a value; counters.hold_and_count found it "
               "holds no written value\n"
               "    not ok 1 counters_per_cpu\nnot ok 1 smp\n")
        test = {t.full_name: t for t in reader.parse(log).tests()}["smp.counters_per_cpu"]
        self.assertEqual(fingerprint.fingerprint(test), [
            "finding: counters.hold_and_count :: IA32_PMC0 of cpu 1 :: holds no written value",
            "finding: counters.hold_and_count :: IA32_PMC1 :: counts nothing"])

    def test_ud_where_the_line_says_gp0(self):
        ud = GOOD.replace("#   actual:   no exception", "#   actual:   #UD")
        exp = EXPECT_GOOD.replace("no fault ::", "#GP(0) ::")
        rc, out, _ = self.cmp(ud, exp)
        self.assertEqual(rc, 1, out)
        self.assertIn("rdpmc.type_space: fail as expected, but not the failure", out)
        self.assertIn("#   not described: check: #UD :: RDPMC ECX=0x10000 ::", out)
        self.assertIn("#   described, not seen: check: #GP(0) :: RDPMC ECX=0x10000 ::", out)

    def test_failed_check_before_an_exception(self):
        log = GOOD.replace("    # unexpected exception #PF",
                           "    # FAIL: PerfCntrGlobalCtl gates counting\n    #   expected: 0\n"
                           "    #   actual:   0x3e8 (1000)\n    #   rule:     APM 13.2.2\n"
                           "    # unexpected exception #PF")
        rc, out, _ = self.cmp(log, EXPECT_GOOD)
        self.assertEqual(rc, 1, out)
        self.assertIn("selftest.page_fault: error as expected, but not the failure", out)
        self.assertIn("not described: check: above :: PerfCntrGlobalCtl gates counting :: APM 13.2.2", out)

    def test_added_diagnostic_lines_are_tolerated(self):
        # Lines a newer kernel adds under a FAIL (a subject, an observed outcome).
        log = GOOD.replace("    #   actual:   no exception",
                           "    #   actual:   no exception\n    #   subject:  ECX 10000H\n"
                           "    #   observed: no fault")
        rc, out, _ = self.cmp(log, EXPECT_GOOD)
        self.assertEqual(rc, 0, out)

    def test_workload_seed_is_no_part_of_the_subject(self):
        log = GOOD.replace("RDPMC ECX=0x10000", "PerfCtr0 on random bits (seed 0x1234abcd)")
        exp = EXPECT_GOOD.replace("RDPMC ECX=0x10000", "PerfCtr0 on random bits (seed)")
        rc, out, _ = self.cmp(log, exp)
        self.assertEqual(rc, 0, out)

    def test_hash_in_a_reason_is_no_comment(self):
        exact, _ = expectations.load_expectations(write(
            self.tmp, "e.txt", "# a comment\nrdpmc.x fail raises #GP(0) on WRMSR\n    exception: #GP(0)\n"))
        self.assertEqual(exact["rdpmc.x"][2], "raises #GP(0) on WRMSR")
        self.assertEqual(exact["rdpmc.x"][4], {"exception: #GP(0)"})

    def test_bad_fingerprints_are_one_line(self):
        for text, needle in (("rdpmc.type_space fail r\n", "fingerprint"),
                             ("rdpmc.type_space fail r\n    chek: x\n", "an indented line is a fingerprint"),
                             ("    check: x\n", "before any entry"),
                             ("rdpmc.metrics skip r\n    check: x\n", "only a fail, error")):
            rc, out, err = self.cmp(GOOD, text)
            self.assertEqual(rc, 2, (text, out, err))
            self.assertIn(needle, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertNotIn("Traceback", err)

    def test_unknown_verdict_word_is_no_pass(self):
        log = GOOD.replace("# verdict: FAIL", "# verdict: PARTIAL")
        run = reader.parse(log)
        self.assertEqual(verdict.broken(run), [])
        self.assertTrue(any("verdict PARTIAL" in e for e in run.errors))
        rc, out, err = self.cmp(log, EXPECT_GOOD)
        self.assertEqual(rc, 2, out + err)
        self.assertNotIn("Traceback", err)
        path = write(self.tmp, "i.log", log)
        rc, _, err = run_cli("html", path, "-o", os.path.join(self.tmp, "i.html"))
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.tmp, "i.html")) as f:
            page = f.read()
        self.assertIn('data-verdict="PARTIAL"', page)
        self.assertIn("v-ERROR", page)

# SPDX-License-Identifier: MIT
"""diff.py: one run against another, test by test."""

import tempfile
import unittest

from common import MACHINE_LOG, run_cli, with_result, write


class Diff(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.base = write(self.tmp, "base.ktap", MACHINE_LOG)

    def diff(self, new_text):
        return run_cli("diff", self.base, write(self.tmp, "new.ktap", new_text))

    def test_same_run(self):
        rc, out, _ = run_cli("diff", self.base, self.base)
        self.assertEqual(rc, 0)
        self.assertIn("# 0 regressed, 0 fixed, 0 appeared, 0 disappeared, 0 known, 0 refailed, 0 inferred, "
                      "0 skip-reason, 0 changed", out)

    def test_regression_exits_1(self):
        rc, out, _ = self.diff(with_result(MACHINE_LOG, "    ok 1 gp_type", "    not ok 1 gp_type",
                                           "pass:1 fail:1 skip:1 xfail:1 total:4", "FAIL"))
        self.assertEqual(rc, 1, out)
        self.assertIn("regressed: rdpmc.gp_type: pass -> fail", out)
        self.assertIn("# verdict: PASS -> FAIL", out)

    def test_fixed_exits_0(self):
        rc, out, _ = run_cli("diff", write(self.tmp, "old.ktap", with_result(
            MACHINE_LOG, "    ok 1 gp_type", "    not ok 1 gp_type",
            "pass:1 fail:1 skip:1 xfail:1 total:4", "FAIL")), self.base)
        self.assertEqual(rc, 0, out)
        self.assertIn("fixed: rdpmc.gp_type: fail -> pass", out)

    def test_skip_reason_and_known_id(self):
        new = MACHINE_LOG.replace("# SKIP CPUID.01H:ECX[15] PDCM = 1", "# SKIP missing something else")
        new = new.replace("# XFAIL known deviation core2-v2-no-fixed-enumerated:",
                          "# XFAIL known deviation another-id:")
        rc, out, _ = self.diff(new)
        self.assertEqual(rc, 0, out)
        self.assertIn("skip-reason: cpuid.perf_capabilities_absent_without_pdcm: skip (CPUID.01H:ECX[15] PDCM = 1)"
                      " -> skip (missing something else)", out)
        self.assertIn("known: cpuid.leaf_0ah_fields: xfail (known deviation core2-v2-no-fixed-enumerated", out)
        self.assertIn("-> xfail (known deviation another-id: Linux intel_pmu_init())", out)

    def test_appeared_and_disappeared(self):
        new = MACHINE_LOG.replace("    # Subtest: rdpmc\n    1..1\n    ok 1 gp_type\n",
                                  "    # Subtest: rdpmc\n    1..1\n    ok 1 fast_bit\n")
        rc, out, _ = self.diff(new)
        self.assertEqual(rc, 1, "a test lost is worse: " + out)
        self.assertIn("# worse: 1 test(s) lost", out)
        self.assertIn("appeared: rdpmc.fast_bit: pass", out)
        self.assertIn("disappeared: rdpmc.gp_type: was pass", out)
        failing = with_result(new, "    ok 1 fast_bit", "    not ok 1 fast_bit",
                              "pass:1 fail:1 skip:1 xfail:1 total:4", "FAIL")
        rc, out, _ = self.diff(failing)
        self.assertEqual(rc, 1, "a test that appears failing is a regression")

# SPDX-License-Identifier: MIT
"""cli.py: the subcommands, their exit statuses and their output; no broken
log converts to a pass."""

import json
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

from pmureport import reader

from common import FP_PAGE_FAULT, FP_TIMEOUT, FP_TYPE_SPACE, GOOD, compare, run_cli, write


class Cli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.log = write(self.tmp, "run.log", GOOD)

    def test_validate(self):
        rc, out, _ = run_cli("validate", self.log)
        self.assertEqual(rc, 0, out)
        self.assertIn("2 suites, 5 tests", out)

    def test_compare_matching(self):
        rc, out, err = compare(self.tmp, self.log,
                               "# comment\n"
                               "rdpmc.type_space fail  the platform deviates (documented)\n"
                               + FP_TYPE_SPACE +
                               "rdpmc.metrics    skip  no perf metrics\n"
                               "selftest.*       error self-tests fault on purpose\n" + FP_PAGE_FAULT +
                               "selftest.endless_loop timeout hangs on purpose\n" + FP_TIMEOUT)
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(out.rstrip().endswith("5 passed, 0 failed"))

    def test_compare_mismatch_and_missing(self):
        rc, out, _ = compare(self.tmp, self.log, "rdpmc.metrics skip why\nrdpmc.gone pass\n")
        self.assertEqual(rc, 1)
        self.assertIn("rdpmc.type_space: fail, expected pass", out)
        self.assertIn("#   FAIL: RDPMC ECX=0x10000", out)
        self.assertIn("rdpmc.gone: not in the log", out)

    def test_unlisted_skip_is_reported_not_a_mismatch(self):
        exp = write(self.tmp, "exp.txt", "rdpmc.type_space fail  documented\n" + FP_TYPE_SPACE
                    + "selftest.*       error on purpose\n" + FP_PAGE_FAULT
                    + "selftest.endless_loop timeout on purpose\n" + FP_TIMEOUT)
        rc, out, _ = run_cli("compare", self.log, exp)
        self.assertEqual(rc, 0, out)
        # One line unless asked for the list.
        self.assertNotIn("# skip, not listed:", out)
        self.assertIn("# 1 skips not listed in", out)
        self.assertIn("--list-skips lists them", out)
        self.assertTrue(out.rstrip().endswith("4 passed, 0 failed"))
        rc, out, _ = run_cli("compare", "--list-skips", self.log, exp)
        self.assertEqual(rc, 0, out)
        self.assertIn("# skip, not listed: rdpmc.metrics: missing IA32_PERF_CAPABILITIES[15]", out)

    def test_stated_skip_that_passes_is_a_mismatch(self):
        rc, out, _ = compare(self.tmp, self.log, "rdpmc.gp_type skip  pinned\n")
        self.assertEqual(rc, 1)
        self.assertIn("rdpmc.gp_type: pass, expected skip", out)

    def test_baseline_round_trip(self):
        rc, out, err = run_cli("baseline", self.log)
        self.assertEqual(rc, 0, err)
        self.assertIn("# Platform: pmutest 0.1 on sim: profile x", out)
        lines = [ln for ln in out.splitlines() if ln and not ln.startswith(("#", " "))]
        self.assertEqual(len(lines), 4, out)
        self.assertIn("\n" + FP_TYPE_SPACE, out)
        self.assertIn("\n" + FP_PAGE_FAULT, out)
        self.assertIn("\n" + FP_TIMEOUT, out)
        ts = [ln for ln in lines if ln.startswith("rdpmc.type_space")][0]
        self.assertIn("fail", ts)
        self.assertIn("RDPMC ECX=0x10000", ts)
        pf = [ln for ln in lines if ln.startswith("selftest.page_fault")][0]
        self.assertIn("unexpected exception #PF", pf)
        rc, out, _ = compare(self.tmp, self.log, out)
        self.assertEqual(rc, 0, out)

    def test_baseline_refuses_a_truncated_log(self):
        cut = write(self.tmp, "cut.log", GOOD[:GOOD.index("not ok 1 rdpmc")])
        rc, _, err = run_cli("baseline", cut)
        self.assertEqual(rc, 2)
        self.assertIn("a baseline needs a finished run", err)

    def test_expectations_need_reasons(self):
        rc, _, err = compare(self.tmp, self.log, "rdpmc.type_space fail\n")
        self.assertEqual(rc, 2)
        self.assertIn("no reason is given", err)

    def test_expectations_bad_result(self):
        rc, _, err = compare(self.tmp, self.log, "rdpmc.type_space maybe because\n")
        self.assertEqual(rc, 2)
        self.assertIn(":1:", err)

    def test_junit(self):
        out = os.path.join(self.tmp, "r.xml")
        rc, _, err = run_cli("junit", self.log, "-o", out)
        self.assertEqual(rc, 0, err)
        root = ET.parse(out).getroot()
        rd = root.find("testsuite[@name='rdpmc']")
        self.assertEqual(rd.get("failures"), "1")
        self.assertEqual(rd.get("skipped"), "1")
        self.assertIsNotNone(root.find(".//testcase[@name='page_fault']/error"))

    def test_json(self):
        rc, out, err = run_cli("json", self.log)
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["totals"], {"pass": 1, "fail": 1, "skip": 1, "timeout": 1, "error": 1,
                                         "xfail": 0, "inferred": 0})
        self.assertEqual(doc["verdict"], "FAIL")
        self.assertEqual(doc["capabilities"], ["architectural PMU version 5"])

    def test_bad_inputs_exit_2(self):
        binary = os.path.join(self.tmp, "bin")
        with open(binary, "wb") as f:
            f.write(bytes(range(256)) * 4)
        for args in (("validate", "/nonexistent/log"), ("validate", binary),
                     ("compare", self.log, "/nonexistent/exp"), ("frobnicate",)):
            rc, _, err = run_cli(*args)
            self.assertEqual(rc, 2, args)
            self.assertTrue(err.strip(), args)
            self.assertNotIn("Traceback", err)


class FalsePasses(unittest.TestCase):
    """Broken logs (robustness: cut, bailed out, doctored): none of these logs may pass."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def assert_broken(self, text, needle):
        run = reader.parse(text)
        self.assertTrue(any(needle in e for e in run.errors), (needle, run.errors))
        log = write(self.tmp, "broken.log", text)
        rc, out, _ = run_cli("validate", log)
        self.assertEqual(rc, 2, out)
        rc, out, err = run_cli("json", log)
        self.assertEqual(rc, 0, err)
        self.assertNotEqual(json.loads(out)["verdict"], "PASS")
        rc, out, err = run_cli("junit", log)
        root = ET.fromstring(out)
        # a broken log errs its integrity testcase; the kernel's own ERROR
        # (or INCOMPLETE) errs the verdict testcase: never a pass
        self.assertTrue(root.find("testsuite[@name='log']/testcase[@name='integrity']/error") is not None
                        or root.find("testsuite[@name='log']/testcase[@name='verdict']/error") is not None)
        self.assertIsNotNone(root.find("testsuite[@name='log']/properties/property[@name='log-error']"))
        self.assertIsNone(root.find("properties"), "properties directly under testsuites")
        rc, out, _ = compare(self.tmp, log, "selftest.* error anything\n" + FP_PAGE_FAULT)
        self.assertEqual(rc, 2, out)

    def test_empty_selection(self):
        self.assert_broken("KTAP version 1\n1..0\n# Totals: pass:0 fail:0 skip:0 total:0\n"
                           "# verdict: PASS\n", "no test was executed")

    def test_kernel_error_verdict(self):
        self.assert_broken(GOOD.replace("# verdict: FAIL", "# option error: x\n# verdict: ERROR"),
                           "verdict ERROR")

    def test_missing_totals_and_verdict(self):
        cut = GOOD[:GOOD.index("# Totals")]
        self.assert_broken(cut, "no closing '# verdict:'")
        self.assert_broken(cut, "no closing '# Totals:'")

    def test_verdict_contradicts_results(self):
        self.assert_broken(GOOD.replace("# verdict: FAIL", "# verdict: PASS"),
                           "its results make it FAIL")

    def test_totals_contradict_results(self):
        self.assert_broken(GOOD.replace("pass:1 fail:3", "pass:4 fail:0"), "the Totals line says")

    def test_unknown_directive(self):
        self.assert_broken(GOOD.replace("# SKIP missing", "# SKPI missing"), "unknown directive")
        run = reader.parse(GOOD.replace("# SKIP missing", "# SKPI missing"))
        self.assertEqual([t.result for t in run.tests() if t.name == "metrics"], ["error"])

    def test_two_verdicts(self):
        self.assert_broken(GOOD + "# verdict: PASS\n", "a second verdict line")

    def test_double_fault_bail_out(self):
        cut = GOOD[:GOOD.index("    ok 3 metrics")] + "Bail out! double fault\n"
        self.assert_broken(cut, "bailed out")

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of scripts/ktaplib.py and scripts/ktap-report.py: parsing,
expectations, conversions, and bad input (clear error, exit 2, no crash)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "scripts")
sys.path.insert(0, SCRIPTS)
import ktaplib  # noqa: E402

GOOD = """\
BdsDxe: loading Boot0001 (firmware noise)
KTAP version 1
1..2
# pmutest 0.1 on sim: profile x
# caps: architectural PMU version 5
# measure: run.suite_time = 1234 tsc_cycles
    KTAP version 1
    # Subtest: rdpmc
    1..3
    ok 1 gp_type
    # FAIL: RDPMC ECX=0x10000
    #   expected: #GP(0)
    #   actual:   no exception
    not ok 2 type_space
    ok 3 metrics # SKIP missing IA32_PERF_CAPABILITIES[15]
    # rdpmc: pass:1 fail:1 skip:1 total:3
not ok 1 rdpmc
    KTAP version 1
    # Subtest: selftest
    1..2
    # unexpected exception #PF (vector 14) at RIP 0x1000, CPL 0
    not ok 1 page_fault
    not ok 2 endless_loop # TIMEOUT
not ok 2 selftest
# Totals: pass:1 fail:3 skip:1 total:5
# verdict: FAIL
"""


def run_cli(*args, stdin=None):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ktap-report.py"), *args],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def compare(tmp, log, expectations):
    """`ktap-report.py compare` of log with these expectations (the text of
    an expectations file, written in tmp): (exit status, stdout, stderr)."""
    return run_cli("compare", log, write(tmp, "exp.txt", expectations))


class Parse(unittest.TestCase):
    def test_known_deviation_is_xfail(self):
        # kernel/known.c: "ok N name # XFAIL <id>: <source>"; meets an expected pass.
        log = GOOD.replace("ok 1 gp_type", "ok 1 gp_type # XFAIL known deviation x: Linux f()")
        log = log.replace("# Totals: pass:1 fail:3 skip:1 total:5",
                          "# Totals: pass:0 fail:3 skip:1 xfail:1 total:5")
        run = ktaplib.parse(log)
        t = [t for t in run.tests() if t.name == "gp_type"][0]
        self.assertEqual((t.result, t.reason), ("xfail", "known deviation x: Linux f()"))
        with tempfile.TemporaryDirectory() as tmp:
            lg = write(tmp, "x.ktap", log)
            rc, out, _ = compare(tmp, lg, "rdpmc.type_space fail r\nrdpmc.metrics skip r\n"
                                 "selftest.page_fault error r\nselftest.endless_loop timeout r\n")
            self.assertEqual(rc, 0, out)

    def test_results_and_structure(self):
        run = ktaplib.parse(GOOD)
        self.assertEqual(run.errors, [])
        got = {t.full_name: t.result for t in run.tests()}
        self.assertEqual(got, {"rdpmc.gp_type": "pass", "rdpmc.type_space": "fail",
                               "rdpmc.metrics": "skip", "selftest.page_fault": "error",
                               "selftest.endless_loop": "timeout"})
        self.assertEqual(run.verdict, "FAIL")
        self.assertEqual(run.measurements["run.suite_time"]["value"], 1234)
        metrics = [t for t in run.tests() if t.name == "metrics"][0]
        self.assertEqual(metrics.reason, "missing IA32_PERF_CAPABILITIES[15]")
        ts = [t for t in run.tests() if t.name == "type_space"][0]
        self.assertIn("  expected: #GP(0)", ts.diagnostics)

    def test_truncated_log_is_reported(self):
        cut = GOOD[:GOOD.index("not ok 1 rdpmc")]
        run = ktaplib.parse(cut)
        self.assertTrue(any("no result line" in e for e in run.errors))
        self.assertTrue(any("planned 2 suites" in e for e in run.errors))

    def test_not_ktap(self):
        with self.assertRaises(ktaplib.KtapError):
            ktaplib.parse("hello\nworld\n")

    def test_bail_out(self):
        run = ktaplib.parse("KTAP version 1\n1..1\nBail out! double fault\n")
        self.assertEqual(run.bailed_out, "double fault")
        self.assertTrue(run.errors)

    def test_garbage_line_inside(self):
        run = ktaplib.parse(GOOD.replace("    ok 1 gp_type", "    okay gp_type"))
        self.assertTrue(any("not KTAP" in e for e in run.errors))


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
                               "rdpmc.metrics    skip  no perf metrics\n"
                               "selftest.*       error self-tests fault on purpose\n"
                               "selftest.endless_loop timeout hangs on purpose\n")
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(out.rstrip().endswith("5 passed, 0 failed"))

    def test_compare_mismatch_and_missing(self):
        rc, out, _ = compare(self.tmp, self.log, "rdpmc.metrics skip why\nrdpmc.gone pass\n")
        self.assertEqual(rc, 1)
        self.assertIn("rdpmc.type_space: fail, expected pass", out)
        self.assertIn("#   FAIL: RDPMC ECX=0x10000", out)
        self.assertIn("rdpmc.gone: not in the log", out)

    def test_unlisted_skip_is_reported_not_a_mismatch(self):
        rc, out, _ = compare(self.tmp, self.log,
                             "rdpmc.type_space fail  documented\n"
                             "selftest.*       error on purpose\n"
                             "selftest.endless_loop timeout on purpose\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("# skip, not listed: rdpmc.metrics: missing IA32_PERF_CAPABILITIES[15]", out)
        self.assertIn("# 1 skips not listed", out)
        self.assertTrue(out.rstrip().endswith("4 passed, 0 failed"))

    def test_stated_skip_that_passes_is_a_mismatch(self):
        rc, out, _ = compare(self.tmp, self.log, "rdpmc.gp_type skip  pinned\n")
        self.assertEqual(rc, 1)
        self.assertIn("rdpmc.gp_type: pass, expected skip", out)

    def test_baseline_round_trip(self):
        rc, out, err = run_cli("baseline", self.log)
        self.assertEqual(rc, 0, err)
        self.assertIn("# Platform: pmutest 0.1 on sim: profile x", out)
        lines = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
        self.assertEqual(len(lines), 4, out)
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
                                         "xfail": 0})
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


class Robustness(unittest.TestCase):
    def test_mangled_logs_never_crash(self):
        """Every prefix of a log, and logs with random lines spliced in, parse
        without an exception; truncation is always reported as an error."""
        import random
        rnd = random.Random(7)
        lines = GOOD.splitlines(keepends=True)
        junk = ["    not ok x y\n", "# \n", "        ok 1 deep\n", "1..\n", "ok\n",
                "    # Subtest:\n", "\x00\xff garbage\n", "not ok 99 nothing\n"]
        for cut in range(len(lines)):
            run = ktaplib.parse("".join(lines[:cut + 1])) if cut >= 1 else None
            if run is not None and cut + 1 < len(lines) - 2:
                self.assertTrue(run.errors, f"truncated after line {cut + 1} not reported")
        for _ in range(300):
            mangled = list(lines)
            for _ in range(rnd.randint(1, 4)):
                mangled.insert(rnd.randint(2, len(mangled)), rnd.choice(junk))
            ktaplib.parse("".join(mangled))


class FalsePasses(unittest.TestCase):
    """Issue 16, items 1, 3 and 4: none of these logs may pass."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def assert_broken(self, text, needle):
        run = ktaplib.parse(text)
        self.assertTrue(any(needle in e for e in run.errors), (needle, run.errors))
        log = write(self.tmp, "broken.log", text)
        rc, out, _ = run_cli("validate", log)
        self.assertEqual(rc, 2, out)
        rc, out, err = run_cli("json", log)
        self.assertEqual(rc, 0, err)
        self.assertNotEqual(json.loads(out)["verdict"], "PASS")
        rc, out, err = run_cli("junit", log)
        root = ET.fromstring(out)
        self.assertIsNotNone(root.find("testsuite[@name='log']/testcase[@name='integrity']/error"))
        self.assertIsNotNone(root.find("testsuite[@name='log']/properties/property[@name='log-error']"))
        self.assertIsNone(root.find("properties"), "properties directly under testsuites")
        rc, out, _ = compare(self.tmp, log, "selftest.* error anything\n")
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
        run = ktaplib.parse(GOOD.replace("# SKIP missing", "# SKPI missing"))
        self.assertEqual([t.result for t in run.tests() if t.name == "metrics"], ["error"])

    def test_two_verdicts(self):
        self.assert_broken(GOOD + "# verdict: PASS\n", "a second verdict line")

    def test_double_fault_bail_out(self):
        cut = GOOD[:GOOD.index("    ok 3 metrics")] + "Bail out! double fault\n"
        self.assert_broken(cut, "bailed out")


class HostRobustness(unittest.TestCase):
    """Issue 16, item 10: linear parsing, bounded reads, escaped output, one
    line and exit 2 for every bad input."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def test_long_lines_with_blanks_are_linear(self):
        import time
        for body in ("    ok 1 " + "a " * 25000 + "#", "not ok 1 " + " " * 50000 + "x",
                     "    # " + " \t" * 25000):
            t0 = time.monotonic()
            ktaplib.parse("KTAP version 1\n1..1\n    KTAP version 1\n" + body + "\n")
            self.assertLess(time.monotonic() - t0, 1.0, body[:20])

    def test_huge_numbers(self):
        run = ktaplib.parse("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n"
                            "    1..1\n    ok " + "9" * 4301 + " x\n# measure: m = "
                            + "9" * 4301 + " u\n" + "1" * 4301 + "..1\n")
        self.assertTrue(run.errors)

    def test_control_characters_never_reach_xml_or_terminal(self):
        text = GOOD.replace("gp_type", "gp\x1b[2J\x07\ufffe_type").replace(
            "# FAIL: RDPMC", "# FAIL: \x1b]0;pwned\x07RDPMC")
        log = write(self.tmp, "esc.log", text)
        for cmd in ("validate", "json", "junit"):
            rc, out, err = run_cli(cmd, log)
            self.assertNotIn("\x1b", out + err, cmd)
            self.assertNotIn("\x07", out + err, cmd)
        rc, out, _ = run_cli("junit", log)
        ET.fromstring(out)  # well-formed
        rc, out, err = compare(self.tmp, log, "rdpmc.* fail \x1b[31mred\n")
        self.assertNotIn("\x1b", out + err)

    def test_bounded_reads(self):
        for path in ("/dev/zero", "/dev/urandom"):
            if os.path.exists(path):
                rc, _, err = run_cli("validate", path)
                self.assertEqual(rc, 2, path)
                self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_full_disk_is_one_line(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        log = write(self.tmp, "run.log", GOOD)
        with open("/dev/full", "w") as full:
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ktap-report.py"), "json", log],
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        rc, _, err = run_cli("json", log, "-o", "/proc/version/x")
        self.assertEqual(rc, 2)
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

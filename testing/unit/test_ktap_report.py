#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of tools/ktaplib.py and tools/ktap-report.py: parsing,
expectations, conversions, and bad input (clear error, exit 2, no crash)."""

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import traceback
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "tools")
STEPS = os.path.join(HERE, "..")
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


# GOOD's non-pass tests with their fingerprints (ktaplib.fingerprint): what
# a line of an expectations file must state to accept them.
FP_TYPE_SPACE = "    check: no fault :: RDPMC ECX=0x10000 ::\n"
FP_PAGE_FAULT = "    exception: #PF\n"
FP_TIMEOUT = "    timeout:\n"
EXPECT_GOOD = ("rdpmc.type_space fail r\n" + FP_TYPE_SPACE + "rdpmc.metrics skip r\n"
               "selftest.page_fault error r\n" + FP_PAGE_FAULT
               + "selftest.endless_loop timeout r\n" + FP_TIMEOUT)


_spec = importlib.util.spec_from_file_location("ktap_report", os.path.join(SCRIPTS, "ktap-report.py"))
ktap_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ktap_report)


def run_cli(*args, stdin=None):
    """`ktap-report.py ARGS`: (exit status, stdout, stderr), as the command
    line gives them (`sys.exit(main(argv))`: an exception is a traceback on
    stderr and status 1), run in this process: a new interpreter a call was
    0.1-0.2 s of CPU, 144 calls (issue 31 item 5). The tests of a real
    process (stdout on /dev/full, a closed pipe) run it with subprocess."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = ktap_report.main(list(args))
        except SystemExit as e:  # argparse's usage errors (2), --help (0)
            rc = e.code
        except Exception:  # what the interpreter prints and exits with
            traceback.print_exc()
            rc = 1
        if isinstance(rc, str):  # sys.exit("message"): the message, status 1
            print(rc, file=sys.stderr)
            rc = 1
    return 0 if rc is None else rc, out.getvalue(), err.getvalue()


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
            rc, out, _ = compare(tmp, lg, EXPECT_GOOD + "rdpmc.gp_type xfail known\n    known: x\n")
            self.assertEqual(rc, 0, out)
            # A known deviation the file does not name is not what it expects.
            rc, out, _ = compare(tmp, lg, EXPECT_GOOD)
            self.assertEqual(rc, 1, out)
            self.assertIn("rdpmc.gp_type: xfail (known deviation x), expected pass", out)
            self.assertIn("#   not described: known: x", out)
            # Another row than the file's.
            rc, out, _ = compare(tmp, lg, EXPECT_GOOD + "rdpmc.gp_type xfail known\n    known: y\n")
            self.assertEqual(rc, 1, out)
            self.assertIn("#   described, not seen: known: y", out)

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

    def test_header_after_firmware_noise_on_its_line(self):
        # SeaBIOS's "Booting from ROM.." or a VMM's stray byte before the
        # kernel's first line: the report still starts there.
        for noise in ("Booting from ROM..", "\x01"):
            run = ktaplib.parse(GOOD.replace("KTAP version 1\n1..2", noise + "KTAP version 1\n1..2", 1))
            self.assertEqual(run.errors, [], noise)
        # A nested header alone is no report.
        with self.assertRaises(ktaplib.KtapError):
            ktaplib.parse("    KTAP version 1\n    1..1\n    ok 1 x\n")

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
        # One line unless asked for the list (issue 32 item 6).
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


# A log with the machine header the kernel prints, a known deviation and a
# skip: for the reports labs read (issue 24).
MACHINE_LOG = """\
KTAP version 1
1..2
# pmutest 0.1 on x86_64: QEMU TCG, QEMU TCG CPU version 2.5+; APIC timer 1000 MHz
# firmware: EDK II
# cpus: 1 of 1 online (boot CPU 0); 1 distinct PMU configuration
# cpu 0: APIC ID 0: online, PMU configuration 1
# caps: vendor GenuineIntel (Intel), DisplayFamily 06H DisplayModel 0FH stepping 6 (CPUID.01H:EAX = 0x000006f6)
# caps: CPUID.01H: hypervisor yes, PDCM yes, x2APIC no, APIC yes, MSR yes, TSC yes, DS yes
# caps: hypervisor vendor "TCGTCGTCGTCG" (CPUID.40000000H)
# caps: architectural PMU version 2: 2 GP counters x 40 bits (mask 0x3)
    KTAP version 1
    # Subtest: cpuid
    1..3
    ok 1 global_ctrl_reset_value
    # FAIL: fixed counters on version 2
    #   expected: EDX[4:0] > 0
    #   actual:   no fixed counter
    #   rule:     SDM Vol.3B 20.2.2: version 2 adds fixed-function counters
    #   known:    core2-v2-no-fixed-enumerated (Core 2): Linux intel_pmu_init()
    ok 2 leaf_0ah_fields # XFAIL known deviation core2-v2-no-fixed-enumerated: Linux intel_pmu_init()
    ok 3 perf_capabilities_absent_without_pdcm # SKIP CPUID.01H:ECX[15] PDCM = 1
    # cpuid: pass:1 fail:0 skip:1 total:3
ok 1 cpuid
    KTAP version 1
    # Subtest: rdpmc
    1..1
    ok 1 gp_type
ok 2 rdpmc
# Totals: pass:2 fail:0 skip:1 xfail:1 total:4
# deviations: 0 new, 1 known (XFAIL); inferred rules not followed: 0 (diagnostics)
# measure: run.suite_time = 1234 tsc_cycles
# verdict: PASS
"""


def with_result(log, line, new_line, totals, verdict):
    """log with one result line replaced and its closing lines made to agree."""
    out = log.replace(line, new_line)
    out = out[:out.index("# Totals:")] + f"# Totals: {totals}\n" + \
        out[out.index("# deviations:"):out.index("# verdict:")] + f"# verdict: {verdict}\n"
    return out


BROKEN = {
    "binary garbage": bytes(range(256)) * 4,
    "truncated": GOOD[:GOOD.index("not ok 1 rdpmc")].encode(),
    "no plan": GOOD.replace("KTAP version 1\n1..2\n", "KTAP version 1\n", 1).encode(),
    "empty": b"",
}


class BrokenInputs(unittest.TestCase):
    """Every new command: one line and a non-zero exit on a broken log, never
    a traceback, never an output file that looks like a report."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.good = write(self.tmp, "good.ktap", MACHINE_LOG)

    def assert_one_line(self, args, want_rc=2):
        rc, out, err = run_cli(*args)
        self.assertEqual(rc, want_rc, (args, out, err))
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.strip().splitlines()), 1, (args, err))
        return err

    def test_html_and_diff_refuse_broken_logs(self):
        cases = dict(BROKEN, missing=None)
        for what, data in cases.items():
            path = os.path.join(self.tmp, what.replace(" ", "_"))
            if data is not None:
                with open(path, "wb") as f:
                    f.write(data)
            html_out = os.path.join(self.tmp, "out.html")
            err = self.assert_one_line(("html", path, "-o", html_out))
            self.assertIn(path, err, what)
            self.assertFalse(os.path.exists(html_out), what)
            self.assert_one_line(("html", self.good, path, "-o", html_out))
            self.assertFalse(os.path.exists(html_out), what)
            self.assert_one_line(("diff", self.good, path))
            self.assert_one_line(("diff", path, self.good))

    def test_junit_json_never_pass_a_broken_log(self):
        for what, data in BROKEN.items():
            path = write(self.tmp, "b.ktap", "")
            with open(path, "wb") as f:
                f.write(data)
            rc, out, err = run_cli("json", path)
            self.assertNotIn("Traceback", err, what)
            if rc == 0:
                self.assertEqual(json.loads(out)["verdict"], "ERROR", what)
            else:
                self.assertEqual(rc, 2, what)
                self.assertEqual(len(err.strip().splitlines()), 1, what)
            rc, out, err = run_cli("junit", path)
            self.assertNotIn("Traceback", err, what)
            if rc == 0:
                root = ET.fromstring(out)
                self.assertIsNotNone(root.find("testsuite[@name='log']/testcase/error"), what)
            else:
                self.assertEqual(rc, 2, what)

    def test_lava_tools_refuse_broken_input(self):
        tool = os.path.join(SCRIPTS, "lava-job.py")
        template = os.path.join(HERE, "..", "..", "lava", "jobs", "qemu-stick.yaml")
        for what, data in BROKEN.items():
            path = os.path.join(self.tmp, "b.ktap")
            with open(path, "wb") as f:
                f.write(data)
            p = subprocess.run([sys.executable, tool, template, "--suites-from", path],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, what)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (what, p.stderr))
            self.assertEqual(p.stdout, "", what)
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lava-results.py"),
                            os.path.join(self.tmp, "no-such-dir")], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


class Html(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def html(self, *logs):
        out = os.path.join(self.tmp, "r.html")
        rc, _, err = run_cli("html", *logs, "-o", out)
        self.assertEqual(rc, 0, err)
        with open(out, encoding="utf-8") as f:
            return f.read()

    def assert_self_contained(self, page):
        # No network and no external asset: nothing to fetch, anywhere.
        for needle in ("http://", "https://", "<link", " src=", "url(", "@import", "//cdn"):
            self.assertNotIn(needle, page)

    def test_every_test_listed_by_suite(self):
        # Issue 32 item 4: a collapsed block a suite, each test with its result and skip reason.
        page = self.html(write(self.tmp, "g.ktap", GOOD))
        self.assertIn('<details class="suite-tests" data-suite-tests="rdpmc">', page)
        self.assertNotIn("<details open", page)
        self.assertIn('data-test-row="rdpmc.gp_type" data-result="pass" data-reason=""', page)
        self.assertIn('data-test-row="rdpmc.metrics" data-result="skip" '
                      'data-reason="missing IA32_PERF_CAPABILITIES[15]"', page)
        self.assertIn('data-test-row="selftest.endless_loop" data-result="timeout"', page)
        self.assertEqual(page.count("data-test-row="), 5)

    def test_one_run(self):
        page = self.html(write(self.tmp, "m.ktap", MACHINE_LOG))
        self.assert_self_contained(page)
        self.assertIn('data-verdict="PASS"', page)
        self.assertIn('<td class="num" data-count="xfail">1</td>', page)
        self.assertIn('<td class="num" data-count="skip">1</td>', page)
        self.assertIn('data-suite="cpuid" data-pass="1" data-fail="0" data-skip="1" data-known="1"', page)
        self.assertIn('data-id="core2-v2-no-fixed-enumerated"', page)
        self.assertIn("source: Linux intel_pmu_init()", page)
        self.assertIn("06H / 0FH / 6", page)
        self.assertIn("TCGTCGTCGTCG", page)
        self.assertIn('data-measure="run.suite_time"', page)
        self.assertIn("architectural PMU version 2", page)

    def test_failures_show_expected_actual_rule(self):
        page = self.html(write(self.tmp, "g.ktap", GOOD))
        self.assertIn('data-verdict="FAIL"', page)
        self.assertIn('data-test="rdpmc.type_space" data-result="fail"', page)
        self.assertIn('data-expected="#GP(0)" data-actual="no exception"', page)
        self.assertIn('data-test="selftest.page_fault" data-result="error"', page)
        self.assertIn('data-test="selftest.endless_loop" data-result="timeout"', page)

    def test_hostile_text_is_escaped(self):
        log = MACHINE_LOG.replace("# firmware: EDK II", "# firmware: <script>alert(1)</script>")
        page = self.html(write(self.tmp, "h.ktap", log))
        self.assertNotIn("<script>alert", page)
        page = self.html(write(self.tmp, "h.ktap", log), write(self.tmp, "g.ktap", GOOD))
        self.assertNotIn("<script>alert", page)
        self.assertEqual(page.count("</script>"), 2)  # the data and the code

    def test_matrix(self):
        new = with_result(MACHINE_LOG, "    ok 1 gp_type", "    not ok 1 gp_type",
                          "pass:1 fail:1 skip:1 xfail:1 total:4", "FAIL")
        page = self.html(write(self.tmp, "a.ktap", MACHINE_LOG), write(self.tmp, "b.ktap", new))
        self.assert_self_contained(page)
        blob = page[page.index('id="matrix-data">') + len('id="matrix-data">'):]
        data = json.loads(blob[:blob.index("</script>")])
        self.assertEqual([r["verdict"] for r in data["runs"]], ["PASS", "FAIL"])
        rows = [r[0] for r in data["rows"]]
        i = rows.index("rdpmc.gp_type")
        self.assertEqual(data["cells"][i], "PF")
        self.assertEqual(data["marks"][i], [1, "regressed"])
        self.assertEqual(data["marks"][rows.index("cpuid.leaf_0ah_fields")], None)
        self.assertIn("performance.now()", page)

    def test_error_verdict_run_is_shown(self):
        log = ("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: pebs\n    1..1\n"
               "    ok 1 x # SKIP missing PEBS\nok 1 pebs # SKIP no test of this suite applies\n"
               "# Totals: pass:0 fail:0 skip:1 xfail:0 total:1\n# error: no test was executed (1 skipped)\n"
               "# verdict: ERROR\n")
        page = self.html(write(self.tmp, "e.ktap", log))
        self.assertIn('data-verdict="ERROR"', page)


class Diff(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.base = write(self.tmp, "base.ktap", MACHINE_LOG)

    def diff(self, new_text):
        return run_cli("diff", self.base, write(self.tmp, "new.ktap", new_text))

    def test_same_run(self):
        rc, out, _ = run_cli("diff", self.base, self.base)
        self.assertEqual(rc, 0)
        self.assertIn("# 0 regressed, 0 fixed, 0 appeared, 0 disappeared, 0 known, 0 skip-reason, 0 changed", out)

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
        self.assertEqual(rc, 0, out)
        self.assertIn("appeared: rdpmc.fast_bit: pass", out)
        self.assertIn("disappeared: rdpmc.gp_type: was pass", out)
        failing = with_result(new, "    ok 1 fast_bit", "    not ok 1 fast_bit",
                              "pass:1 fail:1 skip:1 xfail:1 total:4", "FAIL")
        rc, out, _ = self.diff(failing)
        self.assertEqual(rc, 1, "a test that appears failing is a regression")


class LabReports(unittest.TestCase):
    """JUnit and JSON carry the machine, the platform, the known deviation's
    ID and source, and skip reasons (issue 24, item 4)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.log = write(self.tmp, "m.ktap", MACHINE_LOG)

    def test_junit(self):
        rc, out, err = run_cli("junit", self.log)
        self.assertEqual(rc, 0, err)
        root = ET.fromstring(out)
        props = {p.get("name"): p.get("value") for p in root.findall("testsuite[@name='log']/properties/property")}
        self.assertEqual(props["machine.vendor"], "GenuineIntel")
        self.assertEqual(props["machine.family"], "06H")
        self.assertEqual(props["machine.model"], "0FH")
        self.assertEqual(props["machine.stepping"], "6")
        self.assertEqual(props["machine.hypervisor"], "TCGTCGTCGTCG")
        self.assertEqual(props["machine.firmware"], "EDK II")
        self.assertTrue(props["machine.platform"].startswith("QEMU TCG"))
        self.assertTrue(root.find("testsuite[@name='cpuid']").get("hostname").startswith("Intel 06H/0FH/6 on QEMU TCG"))
        tc = root.find(".//testcase[@name='leaf_0ah_fields']")
        kp = {p.get("name"): p.get("value") for p in tc.findall("properties/property")}
        self.assertEqual(kp, {"known-deviation.id": "core2-v2-no-fixed-enumerated",
                              "known-deviation.source": "Linux intel_pmu_init()"})
        self.assertIsNone(tc.find("failure"))
        sk = root.find(".//testcase[@name='perf_capabilities_absent_without_pdcm']/skipped")
        self.assertEqual(sk.get("message"), "CPUID.01H:ECX[15] PDCM = 1")

    def test_json(self):
        rc, out, err = run_cli("json", self.log)
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["machine"]["vendor"], "GenuineIntel")
        self.assertEqual(doc["machine"]["signature"], "0x000006f6")
        self.assertIsNone(doc["machine"]["microcode"])  # not in this log: null, never made up
        self.assertTrue(doc["platform"].startswith("QEMU TCG"))
        tests = {t["name"]: t for s in doc["suites"] for t in s["tests"]}
        self.assertEqual(tests["leaf_0ah_fields"]["known_deviation"],
                         {"id": "core2-v2-no-fixed-enumerated", "source": "Linux intel_pmu_init()"})
        self.assertEqual(tests["perf_capabilities_absent_without_pdcm"]["skip_reason"], "CPUID.01H:ECX[15] PDCM = 1")
        self.assertIsNone(tests["gp_type"]["known_deviation"])
        self.assertIsNone(tests["gp_type"]["skip_reason"])


def lava_monitor_results(console, job_text):
    """What LAVA's test monitor records from console text, the way
    lava-dispatcher 2023.01 does it: monitors in order; each waits for its
    start, then takes the earliest of its end and its pattern (end first on
    a tie) until the end; fixupdict maps the result group; case ids are
    lower-cased with non-word runs made "_". Only the monitors' patterns are
    under test here; test-lava.sh runs the real lava-run."""
    import re
    monitors = parse_monitors(job_text)
    pos, out = 0, []
    for m in monitors:
        start = re.compile(m["start"]).search(console, pos)
        if not start:
            return out, False
        pos = start.end()
        end_re, pat_re = re.compile(m["end"]), re.compile(m["pattern"])
        while True:
            e, p = end_re.search(console, pos), pat_re.search(console, pos)
            if e is None and p is None:
                return out, False
            if e is not None and (p is None or e.start() <= p.start()):
                pos = e.end()
                break
            g = p.groupdict()
            out.append((m["name"], re.sub(r"\W+", "_", g["test_case_id"].strip().lower()),
                        m["fixupdict"].get(g["result"], g["result"])))
            pos = p.end()
    return out, True


def parse_monitors(job_text):
    """The monitors list of a job lava-job.py wrote (every scalar a JSON string)."""
    monitors, cur, in_fix = [], None, False
    for ln in job_text.split("\n")[job_text.split("\n").index("    monitors:") + 1:]:
        s = ln.strip()
        if s.startswith("- name: "):
            cur = {"name": json.loads(s[8:]), "fixupdict": {}}
            monitors.append(cur)
            in_fix = False
        elif s == "fixupdict:":
            in_fix = True
        elif in_fix and ln.startswith("        "):
            k, v = s.split(": ", 1)
            cur["fixupdict"][json.loads(k)] = json.loads(v)
        elif ": " in s and cur is not None:
            k, v = s.split(": ", 1)
            cur[k] = json.loads(v)
            in_fix = False
    return monitors


class LavaJob(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.template = os.path.join(HERE, "..", "..", "lava", "jobs", "qemu-stick.yaml")

    def job(self, log_text, *extra):
        log = write(self.tmp, "ref.ktap", log_text)
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lava-job.py"), self.template,
                            "--suites-from", log, "--set", "STICK_URL=file:///x.img", *extra],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_results_are_the_logs(self):
        job = self.job(MACHINE_LOG)
        self.assertNotIn("@", job.replace("@cpu", ""))  # every placeholder filled
        # The console as LAVA reads it: firmware noise, then "\r\r\n" lines.
        console = "BdsDxe: loading\r\r\nKTAP" + GOOD.replace("\n", "\r\r\n").split("KTAP", 1)[1]
        job = self.job(GOOD)
        got, finished = lava_monitor_results(console, job)
        self.assertTrue(finished)
        self.assertEqual(got, [("rdpmc", "gp_type", "pass"), ("rdpmc", "type_space", "fail"),
                               ("rdpmc", "metrics", "skip"), ("selftest", "page_fault", "fail"),
                               ("selftest", "endless_loop", "fail"), ("pmutest", "verdict", "fail")])

    def test_known_deviation_and_half_lines(self):
        job = self.job(MACHINE_LOG)
        console = MACHINE_LOG.replace("\n", "\r\r\n")
        got, finished = lava_monitor_results(console, job)
        self.assertTrue(finished)
        self.assertIn(("cpuid", "leaf_0ah_fields", "pass"), got)  # XFAIL: the run passes
        self.assertIn(("cpuid", "perf_capabilities_absent_without_pdcm", "skip"), got)
        self.assertEqual(got[-1], ("pmutest", "verdict", "pass"))
        # A line cut before its newline is not a result yet.
        cut = console[:console.index("ok 1 gp_type") + len("ok 1 gp_")]
        got, finished = lava_monitor_results(cut, job)
        self.assertFalse(finished)
        self.assertNotIn(("rdpmc", "gp_", "pass"), got)
        self.assertNotIn("pmutest", [g[0] for g in got])

    def test_cpus_name_each_suite(self):
        job = self.job(MACHINE_LOG, "--cpus", "0,2")
        names = [m["name"] for m in parse_monitors(job)]
        self.assertEqual(names, ["cpuid-cpu0", "rdpmc-cpu0", "cpuid-cpu2", "rdpmc-cpu2", "pmutest"])

    def test_unset_placeholder(self):
        log = write(self.tmp, "ref.ktap", MACHINE_LOG)
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lava-job.py"), self.template,
                            "--suites-from", log], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("STICK_URL", p.stderr)


class LavaResults(unittest.TestCase):
    """tools/lava-results.py on an output directory shaped like lava-run's."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def run_dir(self, results, console, job="pass", expect="complete"):
        d = tempfile.mkdtemp(dir=self.tmp)
        lines = []
        for ln in console.split("\n"):
            # lava-run's form: quotes escaped, then a YAML double-quoted scalar.
            lines.append(json.dumps({"dt": "t", "lvl": "target", "msg": ln.replace('"', '\\"')}))
        lines.append(json.dumps({"dt": "t", "lvl": "input", "msg": "poweroff\n"}))
        lines.append(json.dumps({"dt": "t", "lvl": "target", "msg": "poweroff"}))
        for suite, case, result in results:
            lines.append(json.dumps({"dt": "t", "lvl": "results", "msg": {
                "case": case, "definition": suite, "result": result, "level": "3.1"}}))
        # A size as lava-run writes it: a YAML non-specific tag.
        lines.append('{"dt": "t", "lvl": "results", "msg": {"case": "file-download", "definition": "lava", '
                     '"extra": {"size": ! "2097152"}, "result": "pass"}}')
        with open(os.path.join(d, "output.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "result.yaml"), "w") as f:
            f.write(f"case: job\ndefinition: lava\nresult: {job}\n")
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lava-results.py"), d, "--expect", expect],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout

    RESULTS = [("cpuid", "global_ctrl_reset_value", "pass"), ("cpuid", "leaf_0ah_fields", "pass"),
               ("cpuid", "perf_capabilities_absent_without_pdcm", "skip"), ("rdpmc", "gp_type", "pass"),
               ("pmutest", "verdict", "pass")]

    def test_exactly_the_logs_results(self):
        rc, out = self.run_dir(self.RESULTS, MACHINE_LOG)
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.rstrip().endswith("8 passed, 0 failed"), out)

    def test_a_missing_or_wrong_result_fails(self):
        rc, out = self.run_dir(self.RESULTS[:-2] + [("pmutest", "verdict", "pass")], MACHINE_LOG)
        self.assertEqual(rc, 1)
        self.assertIn("not ok - every test of the log is a LAVA result", out)
        wrong = [(s, c, "fail" if c == "gp_type" else r) for s, c, r in self.RESULTS]
        rc, out = self.run_dir(wrong, MACHINE_LOG)
        self.assertEqual(rc, 1)
        self.assertIn("rdpmc/gp_type: LAVA fail, log pass", out)

    def test_incomplete(self):
        cut = MACHINE_LOG[:MACHINE_LOG.index("# Totals")]
        rc, out = self.run_dir(self.RESULTS[:-1], cut, job="fail", expect="incomplete")
        self.assertEqual(rc, 0, out)
        # A job that completed is no incomplete run, and a verdict is no hang.
        rc, out = self.run_dir(self.RESULTS, MACHINE_LOG, job="pass", expect="incomplete")
        self.assertEqual(rc, 1, out)


def write_png(path, width, height, pixel):
    """An RGB PNG, pixel(x, y) -> (r, g, b), rows with filter 1 (Sub) so
    that the reader's unfiltering is exercised."""
    import struct
    import zlib
    raw = bytearray()
    for y in range(height):
        raw.append(1)
        prev = (0, 0, 0)
        for x in range(width):
            p = pixel(x, y)
            raw += bytes((p[i] - prev[i]) & 0xFF for i in range(3))
            prev = p
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


class ScreenshotCheck(unittest.TestCase):
    """check-report-page.py's screenshot check fails a blank page and a
    banner of the wrong colour (the checker itself can fail)."""

    def setUp(self):
        import importlib.util
        self.tmp = tempfile.mkdtemp()
        spec = importlib.util.spec_from_file_location("crp", os.path.join(STEPS, "check-report-page.py"))
        self.crp = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.crp)

    def results(self, pixel, verdict):
        path = os.path.join(self.tmp, "s.png")
        write_png(path, 128, 64, pixel)
        got = []
        self.crp.check_png(lambda ok, text: got.append(ok), path, verdict)
        return got

    def test_reader(self):
        path = os.path.join(self.tmp, "r.png")
        write_png(path, 7, 3, lambda x, y: (x * 30, y * 80, 200))
        import pngread
        img = pngread.read(path)
        self.assertEqual((img.width, img.height), (7, 3))
        self.assertEqual(img.pixel(6, 2), (180, 160, 200))

    def test_blank_and_wrong_colour_fail(self):
        self.assertEqual(self.results(lambda x, y: (255, 255, 255), "PASS"), [False, False])
        page = lambda x, y: (0xc6, 0x28, 0x28) if y < 16 else ((x * 7) % 256, (y * 5) % 256, 90)
        self.assertEqual(self.results(page, "FAIL"), [True, True])
        self.assertEqual(self.results(page, "PASS"), [True, False])

# ---- issue 32: explain and bugreport (tools/ktapreplay.py) ----------------

import ktapreplay  # noqa: E402

TRACED = GOOD.replace("""    #   actual:   no exception
    not ok 2 type_space""", """    #   actual:   no exception
    #   rule:     SDM Vol.2B RDPMC
    # trace: 3 wrmsr 0x186 0x43003c ok
    # trace: 4 rdpmc 0x10000 0 ok
    not ok 2 type_space""").replace("# caps: architectural PMU version 5\n", """# caps: architectural PMU version 5
# option: suites = rdpmc
# cpu 0: APIC ID 0: online, PMU configuration 1
# cpuid: config 1: 0x00000000 0x00: eax=0x0000000a ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69
# msr: config 1: IA32_PERF_CAPABILITIES (345H) = 0xf4c5
""")
PMUSIM_BIN = os.path.join(HERE, "..", "..", "build", "host", "pmusim")


class Replay(unittest.TestCase):
    def test_trace_lines_and_first_difference(self):
        run = ktaplib.parse(TRACED)
        t = [x for x in run.tests() if x.name == "type_space"][0]
        acc = ktapreplay.accesses(t)
        self.assertEqual(acc[4], ("rdpmc", "0x10000", "0", "ok"))
        self.assertEqual(ktapreplay.accesses(t, log_only=True), {})
        conforming = {3: ("wrmsr", "0x186", "0x43003c", "ok"), 4: ("rdpmc", "0x10000", "0", "#GP")}
        self.assertEqual(ktapreplay.first_difference(acc, conforming),
                         (4, acc[4], conforming[4]))
        self.assertIsNone(ktapreplay.first_difference(acc, {4: acc[4]}))
        self.assertIsNone(ktapreplay.first_difference(acc, {}))

    def test_bugreport(self):
        with tempfile.TemporaryDirectory() as tmp:
            log, md = write(tmp, "r.ktap", TRACED), os.path.join(tmp, "r.md")
            rc, out, err = run_cli("bugreport", log, "-o", md)
            self.assertEqual((rc, err), (0, ""))
            text = open(md).read()
            for want in ("**Verdict: FAIL**", "### rdpmc.type_space: fail", "- expected: #GP(0)",
                         "- rule: SDM Vol.2B RDPMC", "trace: 4 rdpmc 0x10000 0 ok",
                         "cpuid: config 1: 0x00000000 0x00: eax=0x0000000a",
                         "build/host/pmusim --replay r.ktap", "## What this text holds"):
                self.assertIn(want, text)

    def test_broken_logs_one_line_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in (("cut", TRACED[:400]), ("notktap", "hello\n"), ("empty", "")):
                log = write(tmp, name, text)
                for cmd in (["explain", log, "--pmusim", "/bin/false"],
                            ["bugreport", log, "-o", os.path.join(tmp, "x.md")]):
                    rc, out, err = run_cli(*cmd)
                    self.assertEqual(rc, 2, (name, cmd, out, err))
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertNotIn("Traceback", err)

    def test_explain_without_simulator_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, out, err = run_cli("explain", write(tmp, "r.ktap", TRACED), "--pmusim",
                                   os.path.join(tmp, "no-such-pmusim"))
            self.assertEqual(rc, 2)
            self.assertEqual(len(err.splitlines()), 1, err)

    @unittest.skipUnless(os.access(PMUSIM_BIN, os.X_OK), "build/host/pmusim not built")
    def test_explain_a_quirk(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "q.ktap")
            with open(log, "w") as f:
                subprocess.run([PMUSIM_BIN, "--profile", "synth-v5-metrics", "--set", "suites=rdpmc",
                                "--quirk", "rdpmc-type-as-flags"], stdout=f, timeout=120)
            rc, out, err = run_cli("explain", log)
            self.assertEqual(rc, 1, err)
            self.assertIn("rdpmc.all_types_sweep: conforming pass, machine fail", out)
            self.assertIn("first differing access: #0: machine rdpmc 0x10000 -> 0 (ok), "
                          "conforming rdpmc 0x10000 -> 0 (#GP)", out)
            self.assertIn("# 2 tests differ", out)
            clean = os.path.join(tmp, "c.ktap")
            with open(clean, "w") as f:
                subprocess.run([PMUSIM_BIN, "--profile", "synth-v5-metrics", "--set", "suites=rdpmc"],
                               stdout=f, timeout=120)
            rc, out, err = run_cli("explain", clean)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("# 0 tests differ", out)

    @unittest.skipUnless(os.access(PMUSIM_BIN, os.X_OK), "build/host/pmusim not built")
    def test_replay_refuses_a_report_without_its_machine(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([PMUSIM_BIN, "--replay", write(tmp, "old.ktap", GOOD)],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("no '# cpuid: config' lines", p.stderr)
            self.assertEqual(len(p.stderr.splitlines()), 1)


class Fingerprints(unittest.TestCase):
    """Issue 33 item 6: a line accepts the failure it describes, no other."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def cmp(self, log, expectations, *opts):
        return run_cli("compare", *opts, write(self.tmp, "r.log", log),
                       write(self.tmp, "exp.txt", expectations))

    def test_outcome_classes(self):
        oc = ktaplib.outcome_class
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
        exact, _ = load_module().load_expectations(write(
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
        run = ktaplib.parse(log)
        self.assertEqual(ktaplib.broken(run), [])
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


class Selection(unittest.TestCase):
    """Issue 32 item 6: compare checks what the run selected."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def test_selected_suites_only(self):
        log = GOOD.replace("# caps:", "# selection: suites = rdpmc,selftest; tests = none; "
                           "exclude = none; selftest = 0\n# caps:")
        exp = EXPECT_GOOD + "pmi.gone pass\nwidth.* skip r\n"
        rc, out, _ = run_cli("compare", write(self.tmp, "r.log", log), write(self.tmp, "e.txt", exp))
        self.assertEqual(rc, 0, out)
        self.assertIn("# 1 lines of", out)
        self.assertIn("name tests the run did not select", out)
        # A selected test that vanished is still a mismatch.
        rc, out, _ = run_cli("compare", write(self.tmp, "r.log", log),
                             write(self.tmp, "e.txt", exp + "rdpmc.gone pass\n"))
        self.assertEqual(rc, 1, out)
        self.assertIn("rdpmc.gone: not in the log", out)
        # Without the line (an older kernel) every name is selected.
        rc, out, _ = run_cli("compare", write(self.tmp, "r.log", GOOD), write(self.tmp, "e.txt", exp))
        self.assertEqual(rc, 1, out)
        self.assertIn("pmi.gone: not in the log", out)

    def test_selection_semantics(self):
        run = ktaplib.parse(GOOD.replace("# caps:", "# selection: suites = none; tests = rdpmc.x; "
                                         "exclude = rdpmc.y; selftest = 0\n# caps:"))
        sel = ktaplib.selection(run)
        self.assertTrue(sel.selects("rdpmc.x"))
        self.assertTrue(sel.selects("rdpmc@cpu1.x"))
        self.assertFalse(sel.selects("rdpmc.y"))
        self.assertFalse(sel.selects("pmi.x"))
        self.assertFalse(sel.selects("selftest.page_fault"))


def load_module():
    """tools/ktap-report.py as a module (its name has a hyphen)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("ktap_report", os.path.join(SCRIPTS, "ktap-report.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Kcidb(unittest.TestCase):
    """Issue 32 item 5: `ktap-report.py kcidb` (testing/test-kcidb.py validates it)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def test_tests_statuses_and_known_rows(self):
        log = GOOD.replace("ok 1 gp_type", "ok 1 gp_type # XFAIL known deviation x: Linux f()")
        log = log.replace("# Totals: pass:1 fail:3 skip:1 total:5",
                          "# Totals: pass:0 fail:3 skip:1 xfail:1 total:5")
        rc, out, err = run_cli("kcidb", write(self.tmp, "k.ktap", log))
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["version"], {"major": 5, "minor": 3})
        got = [(t["path"], t["status"]) for t in doc["tests"]]
        self.assertEqual(got, [("pmutest", "FAIL"), ("pmutest.rdpmc.gp_type", "FAIL"),
                               ("pmutest.rdpmc.type_space", "FAIL"), ("pmutest.rdpmc.metrics", "SKIP"),
                               ("pmutest.selftest.page_fault", "ERROR"),
                               ("pmutest.selftest.endless_loop", "ERROR")])
        self.assertEqual(doc["tests"][3]["comment"], "missing IA32_PERF_CAPABILITIES[15]")
        self.assertEqual([i["id"] for i in doc["issues"]], ["pmutest:known:x"])
        self.assertEqual(doc["incidents"][0]["test_id"], doc["tests"][1]["id"])
        self.assertEqual(doc["builds"][0]["checkout_id"], doc["checkouts"][0]["id"])
        self.assertTrue(all(t["build_id"] == doc["builds"][0]["id"] for t in doc["tests"]))

    def test_broken_log_is_one_line(self):
        for text in ("", "not ktap\n", GOOD[:GOOD.index("not ok 1 rdpmc")]):
            rc, out, err = run_cli("kcidb", write(self.tmp, "b.ktap", text))
            self.assertEqual(rc, 2, err)
            self.assertEqual(out, "")
            self.assertEqual(len(err.strip().splitlines()), 1, err)

class Incomplete(unittest.TestCase):
    """Verdict INCOMPLETE (issue 33): an enumerated CPU ran no test."""

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
        run = ktaplib.parse(GOOD.replace("# verdict: FAIL", "# verdict: INCOMPLETE"))
        self.assertTrue(any("results make it FAIL" in e for e in run.errors), run.errors)
        run = ktaplib.parse(self.LOG.replace("# verdict: INCOMPLETE", "# verdict: FAIL"))
        self.assertTrue(any("results make it INCOMPLETE" in e for e in run.errors), run.errors)

    def test_not_expected_is_a_mismatch(self):
        rc, out, _ = compare(self.tmp, self.log, self.EXPECT)
        self.assertEqual(rc, 1, out)
        self.assertIn("not ok - verdict INCOMPLETE, expected a complete run", out)
        self.assertIn("#   incomplete: 1 enumerated CPU(s) not tested: cpu 3", out)

    def test_expected(self):
        rc, out, _ = compare(self.tmp, self.log, self.EXPECT + "verdict incomplete cpu 3 is silent\n")
        self.assertEqual(rc, 0, out)

    def test_expected_but_complete_is_a_mismatch(self):
        good = write(self.tmp, "good.log", GOOD)
        rc, out, _ = compare(self.tmp, good, self.EXPECT + "verdict incomplete cpu 3 is silent\n")
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
        self.assertRegex(out, r"\nverdict +incomplete +1 enumerated CPU\(s\) not tested: cpu 3")
        rc, out, _ = compare(self.tmp, self.log, out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of the compact form (kernel/compact.h) in the host tools:
tools/ktaplib.py expand_lines() and everything that reads through it
(ktap-report.py expand, json, junit, compare, diff; lava-results.py). A
compact log must read exactly as its full form, test by test; a compact line
that cannot be expanded is an error of the log, never a pass."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "tools")
STEPS = os.path.join(HERE, "..")
sys.path.insert(0, SCRIPTS)
import ktaplib  # noqa: E402

HEAD = """\
KTAP version 1
1..4
# pmutest 0.1 on sim: profile x
# cpus: 2 of 2 online (boot CPU 0); 1 distinct PMU configuration
"""
COMPACT_LINE = ('# compact: "same as cpuN": the suite or test ended exactly as on cpu N, the first '
                'CPU of its PMU configuration; SKIP "ditto": the previous test\'s reason '
                '(compact = 0 prints every line)\n')


def suite(label, body, result):
    return (f"    KTAP version 1\n    # Subtest: {label}\n" + body
            + f"    # {label}: pass:0 fail:0 skip:0 total:0\n{result}\n")


ACR_FULL = ("    1..3\n"
            "    ok 1 a # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
            "    ok 2 b # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
            "    ok 3 c # SKIP missing CPUID.(23H,0):EAX[2] ACR\n")
ACR_DITTO = ("    1..3\n"
             "    ok 1 a # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
             "    ok 2 b # SKIP ditto\n"
             "    ok 3 c # SKIP ditto\n")
RDPMC_CPU0 = ("    1..3\n"
              "    ok 1 gp\n"
              "    # FAIL: RDPMC ECX=0x10000\n"
              "    #   expected: #GP(0)\n"
              "    #   actual:   no exception\n"
              "    not ok 2 type_space\n"
              "    ok 3 fixed # XFAIL known deviation kvm-x: Linux pmu.c\n")
RDPMC_CPU1 = ("    1..3\n"
              "    ok 1 gp\n"
              "    # FAIL: RDPMC ECX=0x10000 on cpu 1\n"
              "    #   expected: #GP(0)\n"
              "    #   actual:   #UD\n"
              "    not ok 2 type_space\n"
              "    ok 3 fixed # XFAIL known deviation kvm-x: Linux pmu.c\n")
RDPMC_CPU1_COMPACT = ("    1..3\n"
                      "    ok 1 gp # same as cpu0\n"
                      "    # FAIL: RDPMC ECX=0x10000 on cpu 1\n"
                      "    #   expected: #GP(0)\n"
                      "    #   actual:   #UD\n"
                      "    not ok 2 type_space\n"
                      "    ok 3 fixed # XFAIL same as cpu0\n")
TAIL = "# cpu 1: pass:1 fail:1 skip:3\n# Totals: pass:2 fail:2 skip:6 xfail:2 total:12\n# verdict: FAIL\n"

FULL = (HEAD + suite("acr@cpu0", ACR_FULL, "ok 1 acr@cpu0 # SKIP no test of this suite applies")
        + suite("rdpmc@cpu0", RDPMC_CPU0, "not ok 2 rdpmc@cpu0")
        + suite("acr@cpu1", ACR_FULL, "ok 3 acr@cpu1 # SKIP no test of this suite applies")
        + suite("rdpmc@cpu1", RDPMC_CPU1, "not ok 4 rdpmc@cpu1") + TAIL)
COMPACT = (HEAD + COMPACT_LINE
           + suite("acr@cpu0", ACR_DITTO, "ok 1 acr@cpu0 # SKIP no test of this suite applies")
           + suite("rdpmc@cpu0", RDPMC_CPU0, "not ok 2 rdpmc@cpu0")
           + "ok 3 acr@cpu1 # SKIP same as cpu0\n"
           + suite("rdpmc@cpu1", RDPMC_CPU1_COMPACT, "not ok 4 rdpmc@cpu1") + TAIL)


# Within a test (kernel/check.c field(), kernel/trace.c): a failure block's
# field equal to the test's previous line of that field is "ditto", trace
# entries printed before are one line "shown above".
AMD_FULL = ("    1..2\n"
            "    # FAIL: PerfCtr0 event C0H over N iterations\n"
            "    #   expected: 0x186a0 (100000) .. 0x18e70 (102000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
            "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
            "    # FAIL: PerfCtr0 event C0H: count(2N) - count(N)\n"
            "    #   expected: 0x186a0 (100000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
            "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
            "    # trace: 4 wrmsr 0xc0010000 0 ok\n"
            "    not ok 1 every_counter\n"
            "    # FAIL: PerfCtr0 event C2H\n"
            "    #   expected: 0x2710 (10000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c2 ok\n"
            "    not ok 2 branches\n")
# The second block of the first test repeats the first's rule, outcome and
# two accesses; the second test says its own in full, whatever the first said.
AMD_REPEATED = ("    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
                "    #   observed: subject=none outcome=zero\n"
                "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
                "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
                "    # trace: 4 ")
assert AMD_FULL.count(AMD_REPEATED) == 1
AMD_COMPACT = AMD_FULL.replace(AMD_REPEATED, "    #   rule:     ditto\n    #   observed: ditto\n"
                               "    # trace: 2..3 shown above\n    # trace: 4 ")
AMD_TAIL = "# Totals: pass:0 fail:2 skip:0 xfail:0 total:2\n# verdict: FAIL\n"
AMD_HEAD = HEAD.replace("1..4", "1..1")
AMD_LOG_FULL = AMD_HEAD + suite("amd", AMD_FULL, "not ok 1 amd") + AMD_TAIL
AMD_LOG_COMPACT = AMD_HEAD + COMPACT_LINE + suite("amd", AMD_COMPACT, "not ok 1 amd") + AMD_TAIL


def results(run):
    return [(t.suite, t.name, t.number, t.result, t.reason, t.diagnostics) for t in run.tests()]


def cli(tool, *args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, tool), *args],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


class Expand(unittest.TestCase):
    def test_compact_reads_as_full(self):
        full, compact = ktaplib.parse(FULL), ktaplib.parse(COMPACT)
        self.assertEqual(full.errors, [])
        self.assertEqual(compact.errors, [])
        self.assertEqual(len(results(compact)), 12)
        self.assertEqual(results(compact), results(full))
        self.assertEqual(compact.verdict, "FAIL")

    def test_a_failure_that_differs_is_its_own(self):
        t = {x.full_name: x for x in ktaplib.parse(COMPACT).tests()}
        self.assertEqual(t["rdpmc@cpu1.type_space"].result, "fail")
        self.assertEqual(ktaplib.failures(t["rdpmc@cpu1.type_space"])[0]["actual"], "#UD")
        self.assertEqual(ktaplib.known_deviation(t["rdpmc@cpu1.fixed"])[0], "kvm-x")

    def test_a_same_failure_keeps_its_diagnostics(self):
        text = COMPACT.replace("    # FAIL: RDPMC ECX=0x10000 on cpu 1\n    #   expected: #GP(0)\n"
                               "    #   actual:   #UD\n    not ok 2 type_space\n",
                               "    not ok 2 type_space # same as cpu0\n")
        t = {x.full_name: x for x in ktaplib.parse(text).tests()}
        self.assertEqual(t["rdpmc@cpu1.type_space"].result, "fail")
        self.assertEqual(ktaplib.fingerprint(t["rdpmc@cpu1.type_space"]),
                         ktaplib.fingerprint(t["rdpmc@cpu0.type_space"]))

    def test_ditto_and_whole_suite(self):
        t = {x.full_name: x for x in ktaplib.parse(COMPACT).tests()}
        for name in ("acr@cpu0.c", "acr@cpu1.b"):
            self.assertEqual(t[name].result, "skip")
            self.assertEqual(t[name].reason, "missing CPUID.(23H,0):EAX[2] ACR")

    def test_no_header_no_expansion(self):
        run = ktaplib.parse(COMPACT.replace(COMPACT_LINE, ""))
        self.assertTrue(run.errors)  # the suite line has no block: not read as anything else

    def test_unresolvable_lines_are_errors(self):
        bad = {
            "no reference": COMPACT.replace("ok 3 acr@cpu1 # SKIP same as cpu0",
                                            "ok 3 acr@cpu1 # SKIP same as cpu5"),
            "status differs": COMPACT.replace("ok 3 acr@cpu1 # SKIP same as cpu0",
                                              "ok 3 acr@cpu1 # same as cpu0"),
            "test status differs": COMPACT.replace("    ok 1 gp # same as cpu0",
                                                   "    not ok 1 gp # same as cpu0"),
            "no such test": COMPACT.replace("    ok 1 gp # same as cpu0",
                                            "    ok 1 other # same as cpu0"),
            "ditto first": COMPACT.replace("    ok 1 a # SKIP missing CPUID.(23H,0):EAX[2] ACR",
                                           "    ok 1 a # SKIP ditto"),
        }
        for what, text in bad.items():
            with self.subTest(what):
                run = ktaplib.parse(text)
                self.assertTrue(ktaplib.broken(run), what)

    def test_failure_blocks_read_as_full(self):
        full, compact = ktaplib.parse(AMD_LOG_FULL), ktaplib.parse(AMD_LOG_COMPACT)
        self.assertEqual(full.errors, [])
        self.assertEqual(compact.errors, [])
        self.assertEqual(results(compact), results(full))
        for a, b in zip(compact.tests(), full.tests()):
            self.assertEqual(ktaplib.failures(a), ktaplib.failures(b))
            self.assertEqual(ktaplib.fingerprint(a), ktaplib.fingerprint(b))
        self.assertEqual(ktaplib.expand_text(AMD_LOG_COMPACT)[0],
                         AMD_LOG_FULL.replace(AMD_HEAD, AMD_HEAD + COMPACT_LINE))

    def test_a_repeat_with_nothing_before_it_is_an_error(self):
        bad = {
            # the test's first rule line removed: its ditto repeats nothing
            "ditto first": AMD_LOG_COMPACT.replace(
                "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n", "", 1),
            # a field of the previous test is not this test's
            "ditto across tests": AMD_LOG_COMPACT.replace(
                "    #   observed: subject=none outcome=zero\n    # trace: 2 wrmsr 0xc0010000 0x4300c2",
                "    #   observed: ditto\n    # trace: 2 wrmsr 0xc0010000 0x4300c2"),
            "shown but never printed": AMD_LOG_COMPACT.replace("trace: 2..3 shown above", "trace: 2..4 shown above"),
            "shown in another test": AMD_LOG_COMPACT.replace(
                "    # trace: 2 wrmsr 0xc0010000 0x4300c2 ok\n", "    # trace: 2 shown above\n"),
        }
        for what, text in bad.items():
            with self.subTest(what):
                run = ktaplib.parse(text)
                self.assertTrue(ktaplib.broken(run), what)
                self.assertTrue(any(e.startswith("amd.") for e in run.errors), run.errors)

    def test_a_pass_is_never_made_from_a_failure(self):
        # cpu0 failed type_space: a compact "ok ... same as cpu0" is refused.
        text = COMPACT.replace("    # FAIL: RDPMC ECX=0x10000 on cpu 1\n    #   expected: #GP(0)\n"
                               "    #   actual:   #UD\n    not ok 2 type_space\n",
                               "    ok 2 type_space # same as cpu0\n")
        self.assertTrue(ktaplib.broken(ktaplib.parse(text)))


class Tools(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.full = os.path.join(self.tmp.name, "full.ktap")
        self.compact = os.path.join(self.tmp.name, "compact.ktap")
        with open(self.full, "w", encoding="utf-8") as f:
            f.write(FULL)
        with open(self.compact, "w", encoding="utf-8") as f:
            f.write(COMPACT)

    def tearDown(self):
        self.tmp.cleanup()

    def test_expand(self):
        rc, out, err = cli("ktap-report.py", "expand", self.compact)
        self.assertEqual(rc, 0, err)
        self.assertIn("    ok 2 b # SKIP missing CPUID.(23H,0):EAX[2] ACR\n", out)
        self.assertNotIn("same as cpu", out.replace(COMPACT_LINE, ""))
        self.assertEqual(results(ktaplib.parse(out)), results(ktaplib.parse(FULL)))
        bad = os.path.join(self.tmp.name, "bad.ktap")
        with open(bad, "w", encoding="utf-8") as f:
            f.write(COMPACT.replace("same as cpu0\n", "same as cpu7\n", 1))
        rc, _, err = cli("ktap-report.py", "expand", bad)
        self.assertEqual(rc, 2)
        self.assertIn("cpu7", err)

    def test_expand_refuses_a_ditto_without_a_predecessor(self):
        bad = os.path.join(self.tmp.name, "bad-ditto.ktap")
        with open(bad, "w", encoding="utf-8") as f:
            f.write(AMD_LOG_COMPACT.replace(
                "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n", "", 1))
        for args in (("expand", bad), ("validate", bad), ("html", bad, "-o", os.devnull)):
            with self.subTest(args[0]):
                rc, out, err = cli("ktap-report.py", *args)
                self.assertEqual(rc, 2, out + err)
                self.assertIn("amd.every_counter: 'rule: ditto' with no rule line before it", out + err)
                self.assertNotIn("Traceback", err)

    def test_json_junit_diff_see_every_test(self):
        for fmt in ("json", "junit"):
            _, a, _ = cli("ktap-report.py", fmt, self.compact)
            _, b, _ = cli("ktap-report.py", fmt, self.full)
            if fmt == "json":
                a, b = json.loads(a), json.loads(b)
                for s in a["suites"] + b["suites"]:
                    s.pop("summary", None)  # a compact suite has no closing totals of its own
                self.assertEqual(a["suites"], b["suites"])
            else:
                self.assertEqual(a.count("<testcase"), b.count("<testcase"))
                self.assertEqual(a.count("<failure"), b.count("<failure"))
        rc, out, _ = cli("ktap-report.py", "diff", self.full, self.compact)
        self.assertEqual(rc, 0)
        self.assertIn("0 regressed", out)
        self.assertIn("0 appeared, 0 disappeared", out)


class Lava(unittest.TestCase):
    """LAVA reads the console with its monitors' regular expressions (no
    KTAP parser): a suite written as one line must neither stall its monitor
    nor lose its tests in lava-results.py."""

    def test_monitors_and_results(self):
        import test_ktap_report as tkr  # the monitor emulation and lava-run's output shape
        with tempfile.TemporaryDirectory() as tmp:
            full = os.path.join(tmp, "full.ktap")
            with open(full, "w", encoding="utf-8") as f:
                f.write(FULL)
            rc, job, err = cli("lava-job.py", os.path.join(HERE, "..", "..", "lava", "jobs", "qemu-stick.yaml"),
                               "--suites-from", full, "--set", "STICK_URL=file:///x.img")
            self.assertEqual(rc, 0, err)
        got, finished = tkr.lava_monitor_results(COMPACT.replace("\n", "\r\r\n"), job)
        self.assertTrue(finished)
        self.assertNotIn("acr-cpu1", [g[0] for g in got])  # one line: no case of its own
        self.assertIn(("rdpmc-cpu1", "gp", "pass"), got)   # "ok 1 gp # same as cpu0"
        self.assertIn(("rdpmc-cpu1", "type_space", "fail"), got)
        self.assertIn(("rdpmc-cpu1", "fixed", "pass"), got)  # XFAIL same as cpu0
        self.assertIn(("acr-cpu0", "b", "skip"), got)  # ditto
        lr = tkr.LavaResults()
        lr.setUp()
        rc, out = lr.run_dir(got, COMPACT)
        self.assertEqual(rc, 0, out)
        self.assertIn("ok - the 3 tests of 1 suites written 'same as cpuN' are their reference's", out)
        wrong = [g for g in got if g[:2] != ("acr-cpu0", "b")] + [("acr-cpu0", "b", "pass")]
        rc, out = lr.run_dir(wrong, COMPACT)
        self.assertEqual(rc, 1, out)


if __name__ == "__main__":
    r = unittest.main(exit=False, verbosity=0).result
    failed = len(r.failures) + len(r.errors)
    print(f"{r.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

# SPDX-License-Identifier: MIT
"""expand.py: a compact log reads exactly as its full form, test by test,
through every subcommand; a compact line that cannot be expanded is an
error of the log, never a pass."""

import json
import os
import tempfile
import unittest

from pmureport import expand, failures, fingerprint, reader, verdict
from compact_logs import AMD_HEAD, AMD_LOG_COMPACT, AMD_LOG_FULL, COMPACT, COMPACT_LINE, FULL, cli, results


class Expand(unittest.TestCase):
    def test_compact_reads_as_full(self):
        full, compact = reader.parse(FULL), reader.parse(COMPACT)
        self.assertEqual(full.errors, [])
        self.assertEqual(compact.errors, [])
        self.assertEqual(len(results(compact)), 12)
        self.assertEqual(results(compact), results(full))
        self.assertEqual(compact.verdict, "FAIL")

    def test_a_failure_that_differs_is_its_own(self):
        t = {x.full_name: x for x in reader.parse(COMPACT).tests()}
        self.assertEqual(t["rdpmc@cpu1.type_space"].result, "fail")
        self.assertEqual(failures.failures(t["rdpmc@cpu1.type_space"])[0]["actual"], "#UD")
        self.assertEqual(failures.known_deviation(t["rdpmc@cpu1.fixed"])[0], "kvm-x")

    def test_a_same_failure_keeps_its_diagnostics(self):
        text = COMPACT.replace("    # FAIL: RDPMC ECX=0x10000 on cpu 1\n    #   expected: #GP(0)\n"
                               "    #   actual:   #UD\n    not ok 2 type_space\n",
                               "    not ok 2 type_space # same as cpu0\n")
        t = {x.full_name: x for x in reader.parse(text).tests()}
        self.assertEqual(t["rdpmc@cpu1.type_space"].result, "fail")
        self.assertEqual(fingerprint.fingerprint(t["rdpmc@cpu1.type_space"]),
                         fingerprint.fingerprint(t["rdpmc@cpu0.type_space"]))

    def test_ditto_and_whole_suite(self):
        t = {x.full_name: x for x in reader.parse(COMPACT).tests()}
        for name in ("acr@cpu0.c", "acr@cpu1.b"):
            self.assertEqual(t[name].result, "skip")
            self.assertEqual(t[name].reason, "missing CPUID.(23H,0):EAX[2] ACR")

    def test_no_header_no_expansion(self):
        run = reader.parse(COMPACT.replace(COMPACT_LINE, ""))
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
                run = reader.parse(text)
                self.assertTrue(verdict.broken(run), what)

    def test_failure_blocks_read_as_full(self):
        full, compact = reader.parse(AMD_LOG_FULL), reader.parse(AMD_LOG_COMPACT)
        self.assertEqual(full.errors, [])
        self.assertEqual(compact.errors, [])
        self.assertEqual(results(compact), results(full))
        for a, b in zip(compact.tests(), full.tests()):
            self.assertEqual(failures.failures(a), failures.failures(b))
            self.assertEqual(fingerprint.fingerprint(a), fingerprint.fingerprint(b))
        self.assertEqual(expand.expand_text(AMD_LOG_COMPACT)[0],
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
                run = reader.parse(text)
                self.assertTrue(verdict.broken(run), what)
                self.assertTrue(any(e.startswith("amd.") for e in run.errors), run.errors)

    def test_a_pass_is_never_made_from_a_failure(self):
        # cpu0 failed type_space: a compact "ok ... same as cpu0" is refused.
        text = COMPACT.replace("    # FAIL: RDPMC ECX=0x10000 on cpu 1\n    #   expected: #GP(0)\n"
                               "    #   actual:   #UD\n    not ok 2 type_space\n",
                               "    ok 2 type_space # same as cpu0\n")
        self.assertTrue(verdict.broken(reader.parse(text)))


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
        self.assertEqual(results(reader.parse(out)), results(reader.parse(FULL)))
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

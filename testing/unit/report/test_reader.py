# SPDX-License-Identifier: MIT
"""reader.py: a log read into a Run, and bad input (a clear error, never a
crash or a pass)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from pmureport import ktap, reader

from common import BROKEN, EXPECT_GOOD, GOOD, MACHINE_LOG, ROOT, TOOLS, compare, run_cli, write


class Parse(unittest.TestCase):
    def test_known_deviation_is_xfail(self):
        # kernel/known.c: "ok N name # XFAIL <id>: <source>"; meets an expected pass.
        log = GOOD.replace("ok 1 gp_type", "ok 1 gp_type # XFAIL known deviation x: Linux f()")
        log = log.replace("# Totals: pass:1 fail:3 skip:1 total:5",
                          "# Totals: pass:0 fail:3 skip:1 xfail:1 total:5")
        run = reader.parse(log)
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
        run = reader.parse(GOOD)
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
        run = reader.parse(cut)
        self.assertTrue(any("no result line" in e for e in run.errors))
        self.assertTrue(any("planned 2 suites" in e for e in run.errors))

    def test_header_after_firmware_noise_on_its_line(self):
        # SeaBIOS's "Booting from ROM.." or a VMM's stray byte before the
        # kernel's first line: the report still starts there.
        for noise in ("Booting from ROM..", "\x01"):
            run = reader.parse(GOOD.replace("KTAP version 1\n1..2", noise + "KTAP version 1\n1..2", 1))
            self.assertEqual(run.errors, [], noise)
        # A nested header alone is no report.
        with self.assertRaises(ktap.KtapError):
            reader.parse("    KTAP version 1\n    1..1\n    ok 1 x\n")

    def test_not_ktap(self):
        with self.assertRaises(ktap.KtapError):
            reader.parse("hello\nworld\n")

    def test_bail_out(self):
        run = reader.parse("KTAP version 1\n1..1\nBail out! double fault\n")
        self.assertEqual(run.bailed_out, "double fault")
        self.assertTrue(run.errors)

    def test_garbage_line_inside(self):
        run = reader.parse(GOOD.replace("    ok 1 gp_type", "    okay gp_type"))
        self.assertTrue(any("not KTAP" in e for e in run.errors))


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
            run = reader.parse("".join(lines[:cut + 1])) if cut >= 1 else None
            if run is not None and cut + 1 < len(lines) - 2:
                self.assertTrue(run.errors, f"truncated after line {cut + 1} not reported")
        for _ in range(300):
            mangled = list(lines)
            for _ in range(rnd.randint(1, 4)):
                mangled.insert(rnd.randint(2, len(mangled)), rnd.choice(junk))
            reader.parse("".join(mangled))


class HostRobustness(unittest.TestCase):
    """Robustness: linear parsing, bounded reads, escaped output, one
    line and exit 2 for every bad input."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def test_long_lines_with_blanks_are_linear(self):
        import time
        for body in ("    ok 1 " + "a " * 25000 + "#", "not ok 1 " + " " * 50000 + "x",
                     "    # " + " \t" * 25000):
            t0 = time.monotonic()
            reader.parse("KTAP version 1\n1..1\n    KTAP version 1\n" + body + "\n")
            self.assertLess(time.monotonic() - t0, 1.0, body[:20])

    def test_huge_numbers(self):
        run = reader.parse("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n"
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
            p = subprocess.run([sys.executable, os.path.join(TOOLS, "ktap-report.py"), "json", log],
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        rc, _, err = run_cli("json", log, "-o", "/proc/version/x")
        self.assertEqual(rc, 2)
        self.assertNotIn("Traceback", err)


# A log with the machine header the kernel prints, a known deviation and a
# skip: for the reports labs read.


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
        tool = os.path.join(TOOLS, "lava-job.py")
        template = os.path.join(ROOT, "lava", "jobs", "qemu-stick.yaml")
        for what, data in BROKEN.items():
            path = os.path.join(self.tmp, "b.ktap")
            with open(path, "wb") as f:
                f.write(data)
            p = subprocess.run([sys.executable, tool, template, "--suites-from", path],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, what)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (what, p.stderr))
            self.assertEqual(p.stdout, "", what)
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "lava-results.py"),
                            os.path.join(self.tmp, "no-such-dir")], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

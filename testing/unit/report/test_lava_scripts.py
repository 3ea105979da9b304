# SPDX-License-Identifier: MIT
"""tools/lava-job.py and tools/lava-results.py, which read logs through
the package: the jobs they write, what LAVA recorded, a compact log."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from common import GOOD, MACHINE_LOG, ROOT, TOOLS, lava_monitor_results, parse_monitors, write
from compact_logs import COMPACT, FULL, cli


class LavaJob(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.template = os.path.join(ROOT, "lava", "jobs", "qemu-stick.yaml")

    def job(self, log_text, *extra):
        log = write(self.tmp, "ref.ktap", log_text)
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "lava-job.py"), self.template,
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
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "lava-job.py"), self.template,
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
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "lava-results.py"), d, "--expect", expect],
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


class Lava(unittest.TestCase):
    """LAVA reads the console with its monitors' regular expressions (no
    KTAP parser): a suite written as one line must neither stall its monitor
    nor lose its tests in lava-results.py."""

    def test_monitors_and_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            full = os.path.join(tmp, "full.ktap")
            with open(full, "w", encoding="utf-8") as f:
                f.write(FULL)
            rc, job, err = cli("lava-job.py", os.path.join(ROOT, "lava", "jobs", "qemu-stick.yaml"),
                               "--suites-from", full, "--set", "STICK_URL=file:///x.img")
            self.assertEqual(rc, 0, err)
        got, finished = lava_monitor_results(COMPACT.replace("\n", "\r\r\n"), job)
        self.assertTrue(finished)
        self.assertNotIn("acr-cpu1", [g[0] for g in got])  # one line: no case of its own
        self.assertIn(("rdpmc-cpu1", "gp", "pass"), got)   # "ok 1 gp # same as cpu0"
        self.assertIn(("rdpmc-cpu1", "type_space", "fail"), got)
        self.assertIn(("rdpmc-cpu1", "fixed", "pass"), got)  # XFAIL same as cpu0
        self.assertIn(("acr-cpu0", "b", "skip"), got)  # ditto
        lr = LavaResults()
        lr.setUp()
        rc, out = lr.run_dir(got, COMPACT)
        self.assertEqual(rc, 0, out)
        self.assertIn("ok - the 3 tests of 1 suites written 'same as cpuN' are their reference's", out)
        wrong = [g for g in got if g[:2] != ("acr-cpu0", "b")] + [("acr-cpu0", "b", "pass")]
        rc, out = lr.run_dir(wrong, COMPACT)
        self.assertEqual(rc, 1, out)

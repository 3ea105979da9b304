# SPDX-License-Identifier: MIT
"""replay.py: explain and bugreport."""

import os
import subprocess
import tempfile
import unittest

from pmureport import reader, replay

from common import GOOD, PMUSIM_BIN, TRACED, run_cli, write


class Replay(unittest.TestCase):
    def test_trace_lines_and_first_difference(self):
        run = reader.parse(TRACED)
        t = [x for x in run.tests() if x.name == "type_space"][0]
        acc = replay.accesses(t)
        self.assertEqual(acc[4], ("rdpmc", "0x10000", "0", "ok"))
        self.assertEqual(replay.accesses(t, log_only=True), {})
        conforming = {3: ("wrmsr", "0x186", "0x43003c", "ok"), 4: ("rdpmc", "0x10000", "0", "#GP")}
        self.assertEqual(replay.first_difference(acc, conforming),
                         (4, acc[4], conforming[4]))
        self.assertIsNone(replay.first_difference(acc, {4: acc[4]}))
        self.assertIsNone(replay.first_difference(acc, {}))

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

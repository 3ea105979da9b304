# SPDX-License-Identifier: MIT
"""selection.py: the tests a run selected."""

import tempfile
import unittest

from pmureport import reader, selection

from common import EXPECT_GOOD, GOOD, run_cli, write


class Selection(unittest.TestCase):
    """compare checks what the run selected."""

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
        run = reader.parse(GOOD.replace("# caps:", "# selection: suites = none; tests = rdpmc.x; "
                                        "exclude = rdpmc.y; selftest = 0\n# caps:"))
        sel = selection.selection(run)
        self.assertTrue(sel.selects("rdpmc.x"))
        self.assertTrue(sel.selects("rdpmc@cpu1.x"))
        self.assertFalse(sel.selects("rdpmc.y"))
        self.assertFalse(sel.selects("pmi.x"))
        self.assertFalse(sel.selects("selftest.page_fault"))

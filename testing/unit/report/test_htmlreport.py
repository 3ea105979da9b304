# SPDX-License-Identifier: MIT
"""htmlreport.py: the self-contained page of one run and the matrix of several."""

import json
import os
import tempfile
import unittest

from common import GOOD, MACHINE_LOG, run_cli, with_result, write


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
        # A collapsed block a suite, each test with its result and skip reason.
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

# SPDX-License-Identifier: MIT
"""kcidb.py: the KCIDB submission."""

import json
import tempfile
import unittest


from common import GOOD, run_cli, write


class Kcidb(unittest.TestCase):
    """`ktap-report.py kcidb` (testing/test-kcidb.py validates it)."""

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

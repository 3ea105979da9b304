# SPDX-License-Identifier: MIT
"""machine.py: the machine and platform a run names, as JUnit and JSON
carry them."""

import json
import tempfile
import unittest
import xml.etree.ElementTree as ET


from common import MACHINE_LOG, run_cli, write


class LabReports(unittest.TestCase):
    """JUnit and JSON carry the machine, the platform, the known deviation's
    ID and source, and skip reasons (item 4)."""

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

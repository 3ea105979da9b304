# SPDX-License-Identifier: MIT
"""A run as JUnit XML (`junit`): a test suite per pmutest suite, and the
log's own integrity as one more, so that a broken log is an error
testcase, never a pass."""

import xml.etree.ElementTree as ET

from .failures import known_row
from .ktap import RESULTS, Run, sanitize
from .machine import machine, machine_label
from .verdict import broken, recompute_verdict, verdict_of


def xml_text(text: str) -> str:
    """XML 1.0 allows neither most control characters nor U+FFFE/FFFF: the
    parser has already shown them as escapes; this is the guarantee."""
    return sanitize(text)


def junit(run: Run) -> str:
    """The JUnit XML document of a run."""
    root = ET.Element("testsuites", name="pmutest")
    # The log's own integrity is a test suite of its own: its properties
    # hold the verdicts and every problem found (JUnit puts <properties>
    # inside <testsuite>), and a broken log is an error testcase.
    # The run's verdict is the kernel's (verdict_of): a testcase of its own,
    # a failure for FAIL, an error for ERROR and INCOMPLETE (not a pass,
    # and no evidence either), named for PASS-INFERRED.
    verdict = verdict_of(run)
    bad = broken(run)
    v_fail = verdict == "FAIL"
    v_error = verdict not in ("PASS", "PASS-INFERRED", "FAIL")
    log = ET.SubElement(root, "testsuite", name="log", tests="2", failures="1" if v_fail else "0",
                        errors=str((1 if bad else 0) + (1 if v_error else 0)), skipped="0")
    props = ET.SubElement(log, "properties")
    ET.SubElement(props, "property", name="verdict.reported", value=xml_text(run.verdict or "none"))
    ET.SubElement(props, "property", name="verdict.recomputed", value=recompute_verdict(run))
    for e in run.errors:
        ET.SubElement(props, "property", name="log-error", value=xml_text(e))
    # What a lab files the run under: the machine and the platform.
    for key, value in machine(run).items():
        if value:
            ET.SubElement(props, "property", name=f"machine.{key}", value=xml_text(value))
    label = xml_text(machine_label(run, "unknown machine"))
    log.set("hostname", label)
    tc = ET.SubElement(log, "testcase", classname="log", name="integrity")
    if bad:
        ET.SubElement(tc, "error", message=xml_text(f"broken log: {bad[0]}")).text = \
            xml_text("\n".join(bad))
    tv = ET.SubElement(log, "testcase", classname="log", name="verdict")
    closing = "\n".join(d for d in run.diagnostics
                        if d.startswith(("verdict:", "incomplete:", "error:", "option error:", "inferred:")))
    if v_fail:
        ET.SubElement(tv, "failure", message=f"verdict {verdict}").text = xml_text(closing)
    elif v_error:
        ET.SubElement(tv, "error", message=xml_text(f"verdict {verdict}")).text = xml_text(closing)
    elif verdict == "PASS-INFERRED":
        ET.SubElement(tv, "system-out").text = xml_text(
            f"verdict PASS-INFERRED: a check of an inferred rule did not hold\n{closing}")
    for s in run.suites:
        counts = {r: sum(1 for t in s.tests if t.result == r) for r in RESULTS}
        se = ET.SubElement(root, "testsuite", name=xml_text(s.name), tests=str(len(s.tests)),
                           failures=str(counts["fail"] + counts["timeout"]),
                           errors=str(counts["error"]), skipped=str(counts["skip"]), hostname=label)
        for t in s.tests:
            tc = ET.SubElement(se, "testcase", classname=xml_text(s.name), name=xml_text(t.name))
            text = xml_text("\n".join(t.diagnostics))
            if t.result == "skip":
                ET.SubElement(tc, "skipped", message=xml_text(t.reason))
            elif t.result == "xfail":  # a known deviation: not a failure
                kid, source = known_row(t)
                tprops = ET.SubElement(tc, "properties")
                ET.SubElement(tprops, "property", name="known-deviation.id", value=xml_text(kid))
                ET.SubElement(tprops, "property", name="known-deviation.source", value=xml_text(source))
                ET.SubElement(tc, "system-out").text = xml_text(
                    f"known deviation (XFAIL): {t.reason}\n{text}")
            elif t.result == "inferred":  # not a failure, not a plain pass
                tprops = ET.SubElement(tc, "properties")
                ET.SubElement(tprops, "property", name="inferred", value=xml_text(t.reason))
                ET.SubElement(tc, "system-out").text = xml_text(
                    f"inferred rule not followed (INFERRED): {t.reason}\n{text}")
            elif t.result in ("fail", "timeout"):
                msg = "timeout" if t.result == "timeout" else next(
                    (d for d in t.diagnostics if d.startswith("FAIL:")), "failed")
                ET.SubElement(tc, "failure", message=xml_text(msg)).text = text
            elif t.result == "error":
                msg = next((d for d in t.diagnostics if d.startswith("unexpected exception")), "error")
                ET.SubElement(tc, "error", message=xml_text(msg)).text = text
            if text and t.result == "pass":
                ET.SubElement(tc, "system-out").text = text
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"

#!/usr/bin/env python3
"""Turn a pmutest KTAP log into evidence.

  ktap-report.py validate LOG              structural KTAP v1 check
  ktap-report.py junit LOG [-o FILE]       JUnit XML
  ktap-report.py json LOG [-o FILE]        JSON report (results, measurements, record)
  ktap-report.py compare LOG EXPECTATIONS  compare with a platform's expected results

Exit status: 0 when the log is valid / matches, 1 when it does not, 2 on bad
input (no file, not KTAP, a malformed expectations file, bad usage).

Expectations file: one entry a line, '#' comments:
    PATTERN  RESULT  [REASON...]
PATTERN is suite.test, with shell wildcards (rdpmc.*); in a run on several
CPUs (suites named suite@cpuN) it applies to every CPU, and suite@cpuN.test
to that CPU only (an exact name with the CPU beats one without); RESULT is one of
pass, fail, skip, timeout, error; every RESULT other than pass needs a
REASON. An exact name beats a wildcard; among wildcards the first wins;
tests no entry matches are expected to pass. An exact name that the log does
not report is a mismatch (the test vanished).
"""

import argparse
import fnmatch
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktaplib  # noqa: E402


class UsageError(Exception):
    pass


def load_expectations(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file")
    exact, wild = {}, []
    for n, raw in enumerate(lines, 1):
        ln = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not ln:
            continue
        parts = ln.split(None, 2)
        if len(parts) < 2:
            raise UsageError(f"{path}:{n}: expected 'suite.test RESULT [reason]', got {raw.strip()!r}")
        pattern, result = parts[0], parts[1].lower()
        reason = parts[2].strip() if len(parts) > 2 else ""
        if result not in ktaplib.RESULTS:
            raise UsageError(f"{path}:{n}: result {parts[1]!r} is not one of {', '.join(ktaplib.RESULTS)}")
        if "." not in pattern:
            raise UsageError(f"{path}:{n}: {pattern!r} is not suite.test (use suite.* for a whole suite)")
        if result != "pass" and not reason:
            raise UsageError(f"{path}:{n}: {pattern} is expected to {result} but no reason is given")
        entry = (pattern, result, reason, n)
        if any(c in pattern for c in "*?["):
            wild.append(entry)
        elif pattern in exact:
            raise UsageError(f"{path}:{n}: {pattern} is listed twice (first on line {exact[pattern][3]})")
        else:
            exact[pattern] = entry
    return exact, wild


def expected_for(name, exact, wild):
    if name in exact:
        return exact[name]
    for e in wild:
        if fnmatch.fnmatchcase(name, e[0]):
            return e
    return (None, "pass", "", 0)


def cmd_validate(run, args):
    for e in run.errors:
        print(f"not ok - {e}")
    n = sum(1 for _ in run.tests())
    if run.errors:
        print(f"invalid KTAP: {len(run.errors)} problems in {args.log}")
        return 1
    print(f"valid KTAP v1: {len(run.suites)} suites, {n} tests")
    return 0


def cmd_compare(run, args):
    exact, wild = load_expectations(args.expectations)
    passed = failed = 0
    seen = set()

    def verdict(ok, text, details=()):
        nonlocal passed, failed
        if ok:
            passed += 1
            if args.verbose:
                print(f"ok - {text}")
        else:
            failed += 1
            print(f"not ok - {text}")
            for d in details:
                print(f"#   {d}")

    for e in run.errors:
        verdict(False, f"log: {e}")
    for t in run.tests():
        seen.update((t.full_name, t.name_without_cpu))
        pattern, want, reason, line = expected_for(t.full_name, exact, wild)
        if pattern is None or (t.full_name not in exact and t.name_without_cpu in exact):
            pattern, want, reason, line = expected_for(t.name_without_cpu, exact, wild)
        why = f" ({reason})" if reason else ""
        if t.result == want:
            verdict(True, f"{t.full_name}: {t.result}{why}")
        else:
            src = f"{args.expectations}:{line}" if line else "default"
            verdict(False, f"{t.full_name}: {t.result}, expected {want} [{src}]{why}",
                    t.diagnostics[-12:])
    for name, (_, want, reason, line) in exact.items():
        if name not in seen:
            verdict(False, f"{name}: not in the log, expected {want} [{args.expectations}:{line}]")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def cmd_junit(run, args):
    root = ET.Element("testsuites", name="pmutest")
    for s in run.suites:
        counts = {r: sum(1 for t in s.tests if t.result == r) for r in ktaplib.RESULTS}
        se = ET.SubElement(root, "testsuite", name=s.name, tests=str(len(s.tests)),
                           failures=str(counts["fail"] + counts["timeout"]),
                           errors=str(counts["error"]), skipped=str(counts["skip"]))
        for t in s.tests:
            tc = ET.SubElement(se, "testcase", classname=s.name, name=t.name)
            text = "\n".join(t.diagnostics)
            if t.result == "skip":
                ET.SubElement(tc, "skipped", message=t.reason)
            elif t.result in ("fail", "timeout"):
                msg = "timeout" if t.result == "timeout" else next(
                    (d for d in t.diagnostics if d.startswith("FAIL:")), "failed")
                ET.SubElement(tc, "failure", message=msg).text = text
            elif t.result == "error":
                msg = next((d for d in t.diagnostics if d.startswith("unexpected exception")), "error")
                ET.SubElement(tc, "error", message=msg).text = text
            if text and t.result == "pass":
                ET.SubElement(tc, "system-out").text = text
    if run.errors:
        ET.SubElement(root, "properties")
        for e in run.errors:
            ET.SubElement(root[-1], "property", name="log-error", value=e)
    ET.indent(root)
    out = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
    return emit(out, args)


def cmd_json(run, args):
    doc = {
        "format": "pmutest-report/1",
        "verdict": run.verdict or None,
        "valid": not run.errors,
        "log_errors": run.errors,
        "totals": {r: sum(1 for t in run.tests() if t.result == r) for r in ktaplib.RESULTS},
        "measurements": run.measurements,
        # The capability record the kernel decoded from CPUID, as it printed it.
        "capabilities": [d[len("caps: "):] for d in run.diagnostics if d.startswith("caps: ")],
        "environment": [d for d in run.diagnostics if not d.startswith("caps: ")],
        "suites": [
            {
                "name": s.name,
                "cpu": s.cpu,
                "result": s.result or None,
                "summary": s.diagnostics,
                "tests": [
                    {"name": t.name, "result": t.result, "reason": t.reason or None,
                     "diagnostics": t.diagnostics}
                    for t in s.tests
                ],
            }
            for s in run.suites
        ],
    }
    return emit(json.dumps(doc, indent=2) + "\n", args)


def emit(text, args):
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror}")
    else:
        sys.stdout.write(text)
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("validate")
    v.add_argument("log")
    for name in ("junit", "json"):
        c = sub.add_parser(name)
        c.add_argument("log")
        c.add_argument("-o", "--output")
    c = sub.add_parser("compare")
    c.add_argument("log")
    c.add_argument("expectations")
    c.add_argument("-v", "--verbose", action="store_true", help="also list the matching tests")
    args = p.parse_args(argv)
    try:
        run = ktaplib.read_log(args.log)
        return {"validate": cmd_validate, "junit": cmd_junit, "json": cmd_json,
                "compare": cmd_compare}[args.cmd](run, args)
    except (ktaplib.KtapError, UsageError) as e:
        print(f"ktap-report: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn a pmutest KTAP log into evidence.

  ktap-report.py validate LOG              structural KTAP v1 check
  ktap-report.py junit LOG [-o FILE]       JUnit XML
  ktap-report.py json LOG [-o FILE]        JSON report (results, measurements, record)
  ktap-report.py compare LOG EXPECTATIONS  compare with a platform's expected results
  ktap-report.py baseline LOG [-o FILE]    a starting expectations file for that platform
  ktap-report.py html LOG... -o FILE       one self-contained HTML page: one run's
                                           report, or a matrix of several runs
  ktap-report.py diff OLD NEW              what changed from run OLD to run NEW
  ktap-report.py kcidb LOG [-o FILE]       a KernelCI (KCIDB v5) submission of the run
  ktap-report.py expand LOG [-o FILE]      the log in its full form: every compact
                                           line ("same as cpuN", SKIP "ditto";
                                           kernel/compact.h) written out

Exit status: 0 when the log is valid / matches, 1 when compare finds a
mismatch, 2 on bad input: no file, not KTAP, a broken log (truncated, bailed
out, no or a contradicted verdict, an unknown directive, no test executed:
`validate` says which), a malformed expectations file, bad usage. junit and
json always convert, and a broken log never converts to a pass: it is an
error testcase in JUnit and verdict ERROR in JSON.

Expectations file: one entry a line, '#' starting a comment line:
    PATTERN  RESULT  [REASON...]
        FINGERPRINT-LINE...        (indented; every fail, error, timeout, xfail)
PATTERN is suite.test, with shell wildcards (rdpmc.*); in a run on several
CPUs (suites named suite@cpuN) it applies to every CPU, and suite@cpuN.test
to that CPU only (an exact name with the CPU beats one without); RESULT is one of
pass, fail, skip, timeout, error, xfail; every RESULT other than pass needs
a REASON. A known deviation ("# XFAIL", the kernel's table) needs an xfail
entry naming its row: the kernel's verdict is PASS, but it is a deviation
the platform's file must expect. An exact name beats a wildcard; among wildcards the first wins;
tests no entry matches are expected to pass. One line may state
    verdict  incomplete  REASON
for a run that leaves an enumerated CPU untested on purpose (verdict
INCOMPLETE, "# incomplete: ..."); without it INCOMPLETE is a mismatch, and
with it a complete run is. A test the file states is a
match when its result is the stated one (a stated SKIP included). A test no
entry matches that skips is reported ("skip, not listed") but is not a
mismatch: a skip names the CPUID bit the platform lacks, which is no
deviation. An exact name that the log does not report is a mismatch (the
test vanished), unless the run did not select it (the log's "# selection:"
line; a log without one selected every test).

A fail, error, timeout or xfail entry states its failure: its fingerprint
lines (ktaplib.fingerprint: "check: CLASS :: WHAT :: RULE" for each failed
check, "exception: #GP(0)", "state: changed", "timeout:", "known: ID").
The test matches only when its own fingerprint is exactly those lines: any
other failed check (one before an exception included), another outcome
class (#UD where the line says #GP(0)), another known row, or a described
check that no longer fails is a mismatch. An XFAIL of a test the file
expects to pass is a mismatch too: a known deviation the file does not
name. Skips no entry names are counted in one line (--list-skips lists
them).

html, diff and kcidb refuse a broken log (no file, not KTAP, truncated, no plan,
bailed out, a contradicted verdict): one line naming it, exit 2. A run
whose own verdict is ERROR is a finished run and is shown as such. diff
exits 1 when NEW regressed (see tools/ktapdiff.py), else 0.

baseline writes one line per test that did not pass, its reason prefilled:
the skip reason, the rule of the first failed check, or the exception, and
under it the test's fingerprint.
Review every line before shipping it: a line is a claim about the platform.
"""

import argparse
import fnmatch
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktapdiff  # noqa: E402
import ktaphtml  # noqa: E402
import ktapkcidb  # noqa: E402
import ktaplib  # noqa: E402
import ktapreplay  # noqa: E402


class UsageError(Exception):
    pass


# Results whose line must carry the failure's fingerprint (ktaplib.fingerprint).
FINGERPRINTED = ("fail", "error", "timeout", "xfail")

# "verdict incomplete REASON": the run is expected to leave an enumerated CPU
# untested (verdict INCOMPLETE); without the line, INCOMPLETE is a mismatch.
VERDICT_ENTRY = "verdict"


def load_expectations(path):
    """(exact, wild): entries (pattern, result, reason, line, fingerprint),
    the fingerprint a set of facts (ktaplib.fingerprint), each an indented
    'key: ...' line under its entry."""
    try:
        with open(path, "rb") as f:
            data = f.read(ktaplib.MAX_LOG_BYTES + 1)
        if len(data) > ktaplib.MAX_LOG_BYTES:
            raise UsageError(f"{path} is larger than {ktaplib.MAX_LOG_BYTES >> 20} MiB")
        lines = data.decode("utf-8").split("\n")
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file")
    lines = [ktaplib.sanitize(ln.rstrip("\r")) for ln in lines]
    entries = []
    verdict_entry = None
    for n, raw in enumerate(lines, 1):
        # A comment is a line of its own: a reason or a fingerprint may hold '#' (#GP).
        ln = raw.strip()
        if not ln or ln.startswith("#"):
            continue
        if raw[0] in " \t":
            key, sep, _ = ln.partition(":")
            if not sep or key not in ktaplib.FINGERPRINT_KEYS:
                raise UsageError(f"{path}:{n}: an indented line is a fingerprint "
                                 f"({', '.join(k + ':' for k in ktaplib.FINGERPRINT_KEYS)}), got {ln!r}")
            if not entries:
                raise UsageError(f"{path}:{n}: a fingerprint line before any entry")
            if entries[-1][1] not in FINGERPRINTED:
                raise UsageError(f"{path}:{n}: {entries[-1][0]} is expected to {entries[-1][1]}: "
                                 "only a fail, error, timeout or xfail line has a fingerprint")
            entries[-1][4].add(" ".join(ln.split()) if key != "timeout" else "timeout:")
            continue
        parts = ln.split(None, 2)
        if len(parts) < 2:
            raise UsageError(f"{path}:{n}: expected 'suite.test RESULT [reason]', got {ln!r}")
        pattern, result = parts[0], parts[1].lower()
        reason = parts[2].strip() if len(parts) > 2 else ""
        if pattern == VERDICT_ENTRY:
            if result != "incomplete" or not reason:
                raise UsageError(f"{path}:{n}: expected 'verdict incomplete REASON' (the only "
                                 f"verdict a file states), got {raw.strip()!r}")
            if verdict_entry:
                raise UsageError(f"{path}:{n}: the verdict is stated twice")
            verdict_entry = (pattern, result, reason, n, set())
            continue
        if result not in ktaplib.RESULTS:
            raise UsageError(f"{path}:{n}: result {parts[1]!r} is not one of {', '.join(ktaplib.RESULTS)}")
        if "." not in pattern:
            raise UsageError(f"{path}:{n}: {pattern!r} is not suite.test (use suite.* for a whole suite)")
        if result != "pass" and not reason:
            raise UsageError(f"{path}:{n}: {pattern} is expected to {result} but no reason is given")
        entries.append((pattern, result, reason, n, set()))
    exact, wild = {}, []
    for entry in entries:
        pattern, result, _, n, fp = entry
        if result in FINGERPRINTED and not fp:
            raise UsageError(f"{path}:{n}: {pattern} is expected to {result} but its fingerprint "
                             "(the failed checks, exception or known row) is missing: "
                             "`ktap-report.py baseline` writes it")
        if any(c in pattern for c in "*?["):
            wild.append(entry)
        elif pattern in exact:
            raise UsageError(f"{path}:{n}: {pattern} is listed twice (first on line {exact[pattern][3]})")
        else:
            exact[pattern] = entry
    if verdict_entry:
        exact[VERDICT_ENTRY] = verdict_entry
    return exact, wild


def expected_for(name, exact, wild):
    if name in exact:
        return exact[name]
    for e in wild:
        if fnmatch.fnmatchcase(name, e[0]):
            return e
    return (None, "pass", "", 0, set())


def cmd_validate(run, args):
    for e in run.errors:
        print(f"not ok - {e}")
    n = sum(1 for _ in run.tests())
    if run.errors:
        print(f"invalid KTAP: {len(run.errors)} problems in {args.log}")
        return 2
    print(f"valid KTAP v1: {len(run.suites)} suites, {n} tests")
    return 0


def entry_for(t, exact, wild):
    """The expectations entry of a test: its exact name on its CPU, its
    exact name, the first wildcard; (None, "pass", ...) when none."""
    e = expected_for(t.full_name, exact, wild)
    if e[0] is None or (t.full_name not in exact and t.name_without_cpu in exact):
        e = expected_for(t.name_without_cpu, exact, wild)
    return e


def fingerprint_details(want, got):
    """The lines that say how a failure differs from its fingerprint."""
    return ([f"not described: {f}" for f in sorted(got - want)]
            + [f"described, not seen: {f}" for f in sorted(want - got)])


def cmd_compare(run, args):
    exact, wild = load_expectations(args.expectations)
    passed = failed = 0
    seen = set()
    want_incomplete = exact.pop(VERDICT_ENTRY, None)

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
    selection = ktaplib.selection(run)
    if selection is not None:
        print(f"# selection: {selection.text}")
    unlisted_skips = []
    for t in run.tests():
        seen.update((t.full_name, t.name_without_cpu))
        pattern, want, reason, line, want_fp = entry_for(t, exact, wild)
        why = f" ({reason})" if reason else ""
        src = f"{args.expectations}:{line}" if line else "default"
        if pattern is None and t.result == "skip":
            # Not a deviation: the platform lacks what the test needs.
            unlisted_skips.append(f"{t.full_name}: {t.reason or 'no reason given'}")
            continue
        if t.result == "xfail" and want == "pass":
            # A known deviation the file does not name: not what was expected.
            kid = ktaplib.known_deviation(t)[0]
            verdict(False, f"{t.full_name}: xfail (known deviation {kid}), expected pass [{src}]",
                    [f"not described: {f}" for f in ktaplib.fingerprint(t)])
        elif t.result != want:
            verdict(False, f"{t.full_name}: {t.result}, expected {want} [{src}]{why}",
                    t.diagnostics[-12:])
        elif want in FINGERPRINTED and set(ktaplib.fingerprint(t)) != want_fp:
            verdict(False, f"{t.full_name}: {t.result} as expected, but not the failure "
                    f"[{src}] describes", fingerprint_details(want_fp, set(ktaplib.fingerprint(t))))
        else:
            verdict(True, f"{t.full_name}: {t.result}{why}")
    if want_incomplete or run.verdict == "INCOMPLETE":
        _, _, reason, line, _ = want_incomplete or (None, None, "", 0, None)
        src = f"{args.expectations}:{line}" if line else "default: a complete run"
        untested = [d for d in run.diagnostics if d.startswith(ktaplib.INCOMPLETE_PREFIX)]
        verdict(bool(want_incomplete) == (run.verdict == "INCOMPLETE"),
                f"verdict {run.verdict or 'none'}, expected "
                f"{'INCOMPLETE' if want_incomplete else 'a complete run'} [{src}]"
                + (f" ({reason})" if reason else ""), untested)
    unselected = 0
    for name, (_, want, reason, line, _) in exact.items():
        if name in seen:
            continue
        if selection is not None and not selection.selects(name):
            unselected += 1  # the run did not ask for it
            continue
        verdict(False, f"{name}: not in the log, expected {want} [{args.expectations}:{line}]")
    if unselected:
        print(f"# {unselected} lines of {args.expectations} name tests the run did not select")
    if unlisted_skips:
        if args.list_skips:
            for u in unlisted_skips:
                print(f"# skip, not listed: {u}")
        print(f"# {len(unlisted_skips)} skips not listed in {args.expectations} (not mismatches"
              + ("" if args.list_skips else "; --list-skips lists them") + ")")
    print(f"{passed} passed, {failed} failed")
    if run.errors:
        return 2  # a broken log is no evidence, whatever the expectations say
    return 0 if failed == 0 else 1


def baseline_reason(t):
    """Why a test did not pass, from its own lines: the failed rule first."""
    if t.result == "skip":
        return t.reason or "skipped without a reason"
    rules = [d.split("rule:", 1)[1].strip() for d in t.diagnostics if d.strip().startswith("rule:")]
    fails = [d[len("FAIL:"):].strip() for d in t.diagnostics if d.startswith("FAIL:")]
    if fails and rules:
        return f"{fails[0]} -- breaks {rules[0]}"
    for d in t.diagnostics:
        if d.startswith("unexpected exception"):
            return d
    if fails:
        return fails[0]
    return "timed out" if t.result == "timeout" else "no diagnostic in the log"


def cmd_baseline(run, args):
    if run.errors:
        raise UsageError(f"{args.log}: not a complete KTAP log ({run.errors[0]}); "
                         "a baseline needs a finished run")
    platform = [d for d in run.diagnostics if d.startswith("pmutest ")]
    caps = [d for d in run.diagnostics if d.startswith("caps: ")]
    out = [f"# Expectations generated by `ktap-report.py baseline {os.path.basename(args.log)}`.",
           f"# Platform: {platform[0] if platform else 'unknown (no pmutest line in the log)'}"]
    out += [f"# {c}" for c in caps[:3]]
    out += ["#",
            "# Every line below is a test that did not pass on that run, with the reason",
            "# the log gave, and under a fail, error, timeout or xfail its fingerprint:",
            "# each failed check (outcome class :: description :: rule), the exception,",
            "# the known-deviation row. compare accepts that test only when it fails",
            "# exactly so. Before shipping this file, replace each reason with its",
            "# source (erratum, hypervisor function and version) and check each",
            "# fingerprint against it, or fix the platform; a skip needs no line",
            "# (unlisted skips are not mismatches): keep only the ones you want pinned.",
            ""]
    width = max((len(t.full_name) for t in run.tests()), default=0) + 2
    n = 0
    for t in run.tests():
        if t.result == "pass":
            continue
        reason = " ".join(baseline_reason(t).split())
        out.append(f"{t.full_name:<{width}}{t.result:<7} {reason}")
        out += [f"    {f}" for f in ktaplib.fingerprint(t)]
        n += 1
    if run.verdict == "INCOMPLETE":
        untested = [d for d in run.diagnostics if d.startswith(ktaplib.INCOMPLETE_PREFIX)]
        why = untested[0][len(ktaplib.INCOMPLETE_PREFIX):].strip() if untested else "?"
        out.append(f"{VERDICT_ENTRY:<{width}}{'incomplete':<7} {why}")
        n += 1
    out.append("")
    text = "\n".join(out)
    emit(text, args)
    if args.output:
        print(f"{n} lines written to {args.output}", file=sys.stderr)
    return 0


def xml_text(text):
    """XML 1.0 allows neither most control characters nor U+FFFE/FFFF: the
    parser has already shown them as escapes; this is the guarantee."""
    return ktaplib.sanitize(text)


def cmd_junit(run, args):
    root = ET.Element("testsuites", name="pmutest")
    # The log's own integrity is a test suite of its own: its properties
    # hold the verdicts and every problem found (JUnit puts <properties>
    # inside <testsuite>), and a broken log is an error testcase.
    verdict = ktaplib.recompute_verdict(run)
    log = ET.SubElement(root, "testsuite", name="log", tests="1", failures="0",
                        errors="1" if run.errors else "0", skipped="0")
    props = ET.SubElement(log, "properties")
    ET.SubElement(props, "property", name="verdict.reported", value=xml_text(run.verdict or "none"))
    ET.SubElement(props, "property", name="verdict.recomputed", value=verdict)
    for e in run.errors:
        ET.SubElement(props, "property", name="log-error", value=xml_text(e))
    # What a lab files the run under: the machine and the platform.
    machine = ktaplib.machine(run)
    for key, value in machine.items():
        if value:
            ET.SubElement(props, "property", name=f"machine.{key}", value=xml_text(value))
    label = xml_text(ktaplib.machine_label(run, "unknown machine"))
    log.set("hostname", label)
    tc = ET.SubElement(log, "testcase", classname="log", name="integrity")
    if run.errors:
        ET.SubElement(tc, "error", message=xml_text(f"broken log: {run.errors[0]}")).text = \
            xml_text("\n".join(run.errors))
    for s in run.suites:
        counts = {r: sum(1 for t in s.tests if t.result == r) for r in ktaplib.RESULTS}
        se = ET.SubElement(root, "testsuite", name=xml_text(s.name), tests=str(len(s.tests)),
                           failures=str(counts["fail"] + counts["timeout"]),
                           errors=str(counts["error"]), skipped=str(counts["skip"]), hostname=label)
        for t in s.tests:
            tc = ET.SubElement(se, "testcase", classname=xml_text(s.name), name=xml_text(t.name))
            text = xml_text("\n".join(t.diagnostics))
            if t.result == "skip":
                ET.SubElement(tc, "skipped", message=xml_text(t.reason))
            elif t.result == "xfail":  # a known deviation: not a failure
                kid, source = ktaplib.known_deviation(t)
                tprops = ET.SubElement(tc, "properties")
                ET.SubElement(tprops, "property", name="known-deviation.id", value=xml_text(kid))
                ET.SubElement(tprops, "property", name="known-deviation.source", value=xml_text(source))
                ET.SubElement(tc, "system-out").text = xml_text(
                    f"known deviation (XFAIL): {t.reason}\n{text}")
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
    out = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
    return emit(out, args)


def cmd_json(run, args):
    doc = {
        "format": "pmutest-report/1",
        # The verdict the results call for, ERROR when the log is broken;
        # what the log itself printed is reported_verdict.
        "verdict": "ERROR" if run.errors else ktaplib.recompute_verdict(run),
        "reported_verdict": run.verdict or None,
        "valid": not run.errors,
        "log_errors": run.errors,
        "totals": {r: sum(1 for t in run.tests() if t.result == r) for r in ktaplib.RESULTS},
        "measurements": run.measurements,
        # The machine and platform, from the log's header (null: not in it).
        "machine": ktaplib.machine(run),
        "platform": ktaplib.machine(run)["platform"],
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
                     "skip_reason": (t.reason or None) if t.result == "skip" else None,
                     "known_deviation": known_json(t),
                     "failures": ktaplib.failures(t),
                     "diagnostics": t.diagnostics}
                    for t in s.tests
                ],
            }
            for s in run.suites
        ],
    }
    return emit(json.dumps(doc, indent=2) + "\n", args)


def known_json(t):
    kd = ktaplib.known_deviation(t)
    return {"id": kd[0], "source": kd[1] or None} if kd else None


def read_complete(path):
    """A log for html and diff: complete, or one line and exit 2."""
    try:
        run = ktaplib.read_log(path)
    except ktaplib.KtapError as e:
        msg = str(e)
        raise UsageError(msg if path in msg else f"{path}: {msg}") from None
    bad = ktaplib.broken(run)
    if bad:
        raise UsageError(f"{path}: broken log: {bad[0]}"
                         + (f" (and {len(bad) - 1} more problems)" if len(bad) > 1 else ""))
    return run


def cmd_html(args):
    runs = [(path, read_complete(path)) for path in args.logs]
    return emit(ktaphtml.render(runs), args)


def cmd_kcidb(args):
    run = read_complete(args.log)
    try:
        with open(args.log, "rb") as f:
            data = f.read(ktaplib.MAX_LOG_BYTES)
    except OSError as e:
        raise UsageError(f"cannot read {args.log}: {e.strerror}")
    return emit(json.dumps(ktapkcidb.submission(run, data), indent=1) + "\n", args)


def cmd_expand(args):
    """The full form of a compact log (ktaplib.expand_text); a compact line
    that cannot be expanded is an error (exit 2), never dropped."""
    try:
        with open(args.log, "rb") as f:
            data = f.read(ktaplib.MAX_LOG_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read {args.log}: {e.strerror}")
    if len(data) > ktaplib.MAX_LOG_BYTES:
        raise UsageError(f"{args.log} is larger than {ktaplib.MAX_LOG_BYTES >> 20} MiB: not a pmutest log")
    text, errors = ktaplib.expand_text(data.decode("utf-8", errors="replace"))
    if errors:
        raise UsageError(f"{args.log}: {errors[0]}"
                         + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    return emit(text, args)


def cmd_diff(args):
    old, new = read_complete(args.old), read_complete(args.new)
    changes = ktapdiff.compare(old, new)
    counts = {k: 0 for k in ktapdiff.KINDS}
    regressions = 0
    for change in changes:
        kind, name, a, b = change
        counts[kind] += 1
        regressions += ktapdiff.is_regression(change)
        if kind == "appeared":
            print(f"appeared: {name}: {ktapdiff.describe(b)}")
        elif kind == "disappeared":
            print(f"disappeared: {name}: was {ktapdiff.describe(a)}")
        else:
            print(f"{kind}: {name}: {ktapdiff.describe(a)} -> {ktapdiff.describe(b)}")
    vo, vn = ktaphtml.verdict_of(old), ktaphtml.verdict_of(new)
    print(f"# verdict: {vo} -> {vn}" if vo != vn else f"# verdict: {vn} (both)")
    print("# " + ", ".join(f"{counts[k]} {k}" for k in ktapdiff.KINDS)
          + f"; {regressions} regressions")
    return 1 if regressions else 0


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


def flush_stdout():
    """Flush stdout now, so that a full disk or a closed pipe is one line and
    exit 2 here rather than a traceback at interpreter exit."""
    try:
        sys.stdout.flush()
    except OSError as e:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        print(f"ktap-report: cannot write the output: {e.strerror}", file=sys.stderr)
        return False
    return True


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("validate")
    v.add_argument("log")
    for name in ("junit", "json"):
        c = sub.add_parser(name)
        c.add_argument("log")
        c.add_argument("-o", "--output")
    c = sub.add_parser("baseline")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("html")
    c.add_argument("logs", nargs="+", metavar="LOG")
    c.add_argument("-o", "--output", required=True)
    c = sub.add_parser("kcidb")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("expand")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("diff")
    c.add_argument("old")
    c.add_argument("new")
    c = sub.add_parser("compare")
    c.add_argument("log")
    c.add_argument("expectations")
    c.add_argument("-v", "--verbose", action="store_true", help="also list the matching tests")
    c.add_argument("--list-skips", action="store_true",
                   help="list each skip the file does not name (default: their number)")
    ktapreplay.add_parsers(sub)  # explain, bugreport (issue 32)
    args = p.parse_args(argv)
    try:
        if args.cmd in ktapreplay.COMMANDS:
            return ktapreplay.run(args, emit, UsageError)
        if args.cmd in ("html", "diff", "kcidb", "expand"):
            rc = {"html": cmd_html, "diff": cmd_diff, "kcidb": cmd_kcidb,
                  "expand": cmd_expand}[args.cmd](args)
            return rc if flush_stdout() else 2
        run = ktaplib.read_log(args.log)
        rc = {"validate": cmd_validate, "junit": cmd_junit, "json": cmd_json,
              "compare": cmd_compare, "baseline": cmd_baseline}[args.cmd](run, args)
    except (ktaplib.KtapError, UsageError) as e:
        print(f"ktap-report: {ktaplib.sanitize(str(e))}", file=sys.stderr)
        return 2
    except OSError as e:  # stdout on a full disk, a closed pipe
        flush_stdout()
        print(f"ktap-report: cannot write the output: {e.strerror}", file=sys.stderr)
        return 2
    return rc if flush_stdout() else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: MIT
"""KTAP v1 reading for pmutest logs (Documentation/dev-tools/ktap.rst).

A pmutest log is: anything (firmware noise) up to the first line that is
exactly "KTAP version 1"; then a plan "1..N"; top-level diagnostics; one
nested block per suite (indented four spaces, "# Subtest: NAME", its own
version line and plan, test results, diagnostics); the suite's result line;
and the closing diagnostics ("# Totals: ...", "# verdict: ...").

parse() returns a Run; every structural problem is collected in Run.errors
(the log is still read as far as it goes), so callers can both convert a
truncated log and refuse it as evidence.
"""

import re
from dataclasses import dataclass, field

# Every pattern here is linear: no nested or adjacent unbounded repeats over
# the same characters (a result line is split by hand, not by one regex).
PLAN_RE = re.compile(r"^1\.\.(\d{1,9})$")
MEASURE_RE = re.compile(r"^measure: (\S+) = (\d{1,20}) (\S+)$")
TOTALS_RE = re.compile(r"^Totals: pass:(\d{1,9}) fail:(\d{1,9}) skip:(\d{1,9})"
                       r"(?: xfail:(\d{1,9}))? total:(\d{1,9})$")
# A run on several CPUs names each suite "suite@cpuN" (kernel/runner.c).
CPU_SUITE_RE = re.compile(r"^(.{1,200})@cpu(\d{1,4})$")


def split_cpu(suite):
    """("rdpmc", 2) for "rdpmc@cpu2"; (suite, None) for a one-CPU run."""
    m = CPU_SUITE_RE.match(suite)
    return (m.group(1), int(m.group(2))) if m else (suite, None)


# xfail: "ok N name # XFAIL ...", a known deviation (kernel/known.c): KTAP v1's
# directive for an expected failure; it does not fail the run.
RESULTS = ("pass", "fail", "skip", "timeout", "error", "xfail")
# Directives a result line may carry (KTAP v1: SKIP, XFAIL; pmutest adds
# TIMEOUT). Any other directive is an error of the log, never a pass.
DIRECTIVES = {"SKIP": "skip", "TIMEOUT": "timeout", "XFAIL": "xfail"}
# Verdicts the kernel prints ("# verdict: X"). INCOMPLETE: the tests that ran
# say nothing about an enumerated CPU that ran none ("# incomplete: ...").
VERDICTS = ("PASS", "FAIL", "ERROR", "INCOMPLETE")
INCOMPLETE_PREFIX = "incomplete:"
# The error that is the kernel's own verdict, not damage to the log.
KERNEL_VERDICT = "the run reported verdict"
# A verdict word this reader does not know (a newer kernel's): the run's own
# result, reported as such and never taken for a pass.
OTHER_VERDICT_RE = re.compile(r"^[A-Z][A-Z_-]{1,31}$")
# A log larger than this is not a pmutest report (a full run is well under
# 1 MiB); reading stops there instead of exhausting memory (/dev/zero).
MAX_LOG_BYTES = 32 << 20
# Characters that must not reach a terminal or an XML document: C0 controls
# but TAB, DEL, C1 controls (ESC sequences, CSI), surrogates, U+FFFE/FFFF.
_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def sanitize(text):
    """text with every unsafe character shown as a visible escape (\\x1b)."""
    return _UNSAFE_RE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                          else f"\\u{ord(m.group()):04x}", text)


class KtapError(Exception):
    """The input is not a pmutest KTAP log at all."""


@dataclass
class Test:
    suite: str
    name: str
    number: int
    result: str  # one of RESULTS
    reason: str = ""
    diagnostics: list = field(default_factory=list)

    @property
    def full_name(self):
        return f"{self.suite}.{self.name}"

    @property
    def cpu(self):
        return split_cpu(self.suite)[1]

    @property
    def name_without_cpu(self):
        """suite.test whatever CPU it ran on: what expectations name."""
        return f"{split_cpu(self.suite)[0]}.{self.name}"


@dataclass
class Suite:
    name: str
    number: int = 0
    planned: int = 0
    result: str = ""
    tests: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)

    @property
    def cpu(self):
        return split_cpu(self.name)[1]


@dataclass
class Run:
    planned: int = 0
    suites: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    measurements: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    verdict: str = ""
    bailed_out: str = ""

    def tests(self):
        for s in self.suites:
            yield from s.tests


def _diag_text(body):
    """Text of a '# ' diagnostic line, keeping its own inner indentation."""
    d = body[1:]
    return (d[1:] if d.startswith(" ") else d).rstrip()


@dataclass
class Result:
    """One result line: "ok N name", "not ok N name # DIRECTIVE text"."""
    ok: bool
    number: int
    name: str
    directive: str = ""
    text: str = ""


def parse_result(body):
    """A result line split by hand (linear in its length), or None."""
    if body.startswith("ok "):
        ok, rest = True, body[3:]
    elif body.startswith("not ok "):
        ok, rest = False, body[7:]
    else:
        return None
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if digits == 0 or digits > 9 or (digits < len(rest) and rest[digits] != " "):
        return None
    number = int(rest[:digits])
    name, hash_, comment = rest[digits:].partition("#")
    directive, _, text = comment.strip().partition(" ")
    return Result(ok, number, name.strip(), directive if hash_ else "", text.strip())


def _classify(res, diags, errors, where):
    if res.directive:
        kind = DIRECTIVES.get(res.directive.upper())
        if kind is None:
            errors.append(f"{where}: unknown directive '# {res.directive}' "
                          f"(known: {', '.join(DIRECTIVES)})")
            return "error"
        if kind == "skip":
            return "skip" if res.ok else "fail"
        return kind
    if res.ok:
        return "pass"
    if any(d.startswith("unexpected exception") for d in diags):
        return "error"
    return "fail"


def recompute_verdict(run):
    """The verdict the results call for: ERROR if no test was executed;
    INCOMPLETE if an enumerated CPU ran no test (the kernel's "# incomplete:"
    line); FAIL if any test failed, timed out or raised an exception; PASS
    otherwise."""
    counts = {r: 0 for r in RESULTS}
    for t in run.tests():
        counts[t.result] += 1
    if counts["pass"] + counts["xfail"] + counts["fail"] + counts["timeout"] + counts["error"] == 0:
        return "ERROR"
    if any(d.startswith(INCOMPLETE_PREFIX) for d in run.diagnostics):
        return "INCOMPLETE"
    if counts["fail"] or counts["timeout"] or counts["error"]:
        return "FAIL"
    if counts["pass"] + counts["xfail"] == 0:
        return "ERROR"
    return "PASS"


def _check_closing(run):
    """The closing totals and verdict exist and agree with the results."""
    counts = {r: 0 for r in RESULTS}
    for t in run.tests():
        counts[t.result] += 1
    failed = counts["fail"] + counts["timeout"] + counts["error"]
    totals = [m for m in (TOTALS_RE.match(d) for d in run.diagnostics) if m]
    if len(totals) > 1:
        run.errors.append("more than one '# Totals:' line (two runs in one log?)")
    if not totals:
        run.errors.append("no closing '# Totals:' line (log truncated?)")
    else:
        got = tuple(int(x or 0) for x in totals[-1].groups())
        want = (counts["pass"], failed, counts["skip"], counts["xfail"],
                counts["pass"] + failed + counts["skip"] + counts["xfail"])
        if got != want:
            run.errors.append("the Totals line says pass:%d fail:%d skip:%d xfail:%d total:%d, "
                              "the results say pass:%d fail:%d skip:%d xfail:%d total:%d"
                              % (got + want))
    expected = recompute_verdict(run)
    if not run.verdict:
        run.errors.append("no closing '# verdict:' line (log truncated?)")
    elif run.verdict not in VERDICTS:
        if OTHER_VERDICT_RE.match(run.verdict):
            # A verdict word of a newer kernel ("INCOMPLETE"): its own result,
            # never a pass.
            run.errors.append(f"{KERNEL_VERDICT} {run.verdict} (not one of {', '.join(VERDICTS)}: "
                              "not a pass)")
        else:
            run.errors.append(f"verdict {run.verdict!r} is not one of {', '.join(VERDICTS)}")
    elif run.verdict == "ERROR":
        why = [d for d in run.diagnostics if d.startswith(("option error:", "error:"))]
        run.errors.append(f"{KERNEL_VERDICT} ERROR" + (f": {why[0]}" if why else "")
                          + (f" (and {len(why) - 1} more)" if len(why) > 1 else ""))
    elif run.verdict != expected:
        run.errors.append(f"the log's verdict is {run.verdict} but its results make it {expected}")
    if expected == "ERROR" and run.verdict != "ERROR":
        run.errors.append("no test was executed (an empty selection or an empty log)")


HEADER = "KTAP version 1"


def is_header(line):
    """The report's first line: "KTAP version 1", alone or after what the
    firmware or VMM left on the line without a newline ("Booting from
    ROM..", a stray control byte); never an indented (nested) header."""
    if line == HEADER:
        return True
    return line.endswith(HEADER) and line[:-len(HEADER)].strip() != ""


# ---------------------------------------------------------------------------
# The compact form (kernel/compact.h, compact = 1): a log whose header says
# "# compact: ..." may write a suite or a test that ended exactly as on the
# first CPU of its PMU configuration as one line "... # [DIRECTIVE ]same as
# cpuN", and a SKIP reason equal to the previous test's as "ditto". Within a
# test, a failure block's field (kernel/check.c: "#   rule:     ditto") equal
# to the test's previous line of that field is "ditto", and access-trace
# entries (kernel/trace.c) the test printed before are one line "# trace:
# A..B shown above". expand_lines() puts every line back: a compact test
# becomes the reference CPU's lines of that test (its diagnostics and result
# line), a compact suite the reference's block under its own name (without
# the reference's closing totals, which were that CPU's), "ditto" the reason
# or field text it repeats, "shown above" the trace lines it names. Every
# reader of a log (parse()) sees the full form; `ktap-report.py expand`
# prints it.

COMPACT_PREFIX = "# compact: "
SAME_AS_RE = re.compile(r"^same as cpu(\d{1,4})$")
DITTO = "ditto"
# kernel/check.c field_label[]: the lines of a failure block after "FAIL:".
FIELD_RE = re.compile(r"^(#   (expected|actual|rule|observed|host|known|inferred|machine): +)(.*)$")
TRACE_ENTRY_RE = re.compile(r"^# trace: (\d{1,10}) (?:rdmsr|wrmsr|rdpmc) ")
TRACE_SHOWN_RE = re.compile(r"^# trace: (\d{1,10})(?:\.\.(\d{1,10}))? shown above$")


def same_as(res):
    """(cpu, directive) of a compact result line, or None. The marker is
    the whole comment ("# same as cpu0") or a directive's text ("# SKIP same
    as cpu0")."""
    if res.directive.upper() in DIRECTIVES:
        m = SAME_AS_RE.match(res.text)
        return (int(m.group(1)), res.directive.upper()) if m else None
    m = SAME_AS_RE.match(f"{res.directive} {res.text}".strip())
    return (int(m.group(1)), "") if m else None


def _status(res):
    """What a result line says, for comparing a compact line with its
    reference: ok or not, and its directive."""
    return (res.ok, res.directive.upper() if res.directive.upper() in DIRECTIVES else "")


@dataclass
class _Block:
    label: str = ""
    lines: list = field(default_factory=list)   # the block's lines, expanded
    tests: dict = field(default_factory=dict)   # number -> (Result, [lines])
    result: object = None                       # its top-level result line
    pending: list = field(default_factory=list)  # diagnostics before the next result
    last_skip: str = None
    said: dict = field(default_factory=dict)    # the test so far: field -> its last text
    traced: dict = field(default_factory=dict)  # the test so far: access seq -> its line
    unresolved: list = field(default_factory=list)  # the test so far: what could not be expanded


def _close_test(cur, name, errors):
    """The end of a test of a block (its result line, name; None: the block
    ended first): what it said is forgotten, what could not be expanded is
    named."""
    where = f"{cur.label}.{name}" if name else f"{cur.label}: test {len(cur.tests) + 1}"
    errors += [f"{where}: {e}" for e in cur.unresolved]
    cur.pending, cur.said, cur.traced, cur.unresolved = [], {}, {}, []


def expand_lines(lines):
    """(lines, errors): the full form of a log's lines (from its header on).
    A log without the "# compact:" header line comes back as it is; a
    compact line whose reference is missing or says something else (a
    "ditto" or "shown above" with nothing before it in its test) is left as
    it is and named in errors."""
    if not any(ln.startswith(COMPACT_PREFIX) for ln in lines):
        return lines, []
    out, errors, blocks, cur = [], [], {}, None
    for ln in lines:
        depth = (len(ln) - len(ln.lstrip(" "))) // 4
        body = ln.strip()
        if depth == 1 and body == HEADER:
            if cur is not None:
                _close_test(cur, None, errors)
            cur = _Block(lines=[ln])
            out.append(ln)
            continue
        res = parse_result(body) if depth <= 1 else None
        if depth == 1 and cur is not None:
            if res is None:
                if body.startswith("# Subtest:"):
                    cur.label = body.split(":", 1)[1].strip()
                    full = [ln]
                elif body.startswith("#"):
                    full = _expand_repeat(cur, ln, body)
                    cur.pending += full
                else:
                    full = [ln]
                cur.lines += full
                out += full
                continue
            emitted = _expand_test(cur, res, ln, blocks, errors)
            cur.tests[res.number] = (parse_result(emitted[-1].strip()), emitted)
            cur.lines += emitted[len(cur.pending):]
            out += emitted[len(cur.pending):]
            _close_test(cur, res.name, errors)
            continue
        if depth == 0 and res is not None:
            marker = same_as(res)
            if marker and (cur is None or cur.label != res.name):
                copied = _expand_suite(res, marker, ln, blocks, errors)
                if copied:
                    blocks[res.name] = copied
                    out += copied.lines + [copied.result]
                    continue
            elif cur is not None:
                cur.result = ln
                blocks[cur.label] = cur
            if cur is not None:
                _close_test(cur, None, errors)
            cur = None
        out.append(ln)
    if cur is not None:
        _close_test(cur, None, errors)
    return out, errors


def compact_written(lines):
    """How a log itself writes each result (no expansion): ({(suite, test):
    "full" | "same"}, {suite written as one line: its reference CPU})."""
    tests, suites, label = {}, {}, None
    for ln in lines:
        body = ln.strip()
        depth = (len(ln) - len(ln.lstrip(" "))) // 4
        if depth == 1 and body.startswith("# Subtest:"):
            label = body.split(":", 1)[1].strip()
            continue
        res = parse_result(body) if depth <= 1 else None
        if res is None:
            continue
        marker = same_as(res)
        if depth == 1 and label:
            tests[(label, res.name)] = "same" if marker else "full"
        elif depth == 0 and marker:
            suites[res.name] = marker[0]
    return tests, suites


def ref_label(label, cpu):
    """The reference CPU's name of a suite: ("rdpmc@cpu3", 0) -> "rdpmc@cpu0"."""
    return f"{split_cpu(label)[0]}@cpu{cpu}"


def _expand_test(cur, res, ln, blocks, errors):
    """The lines of one test of a block: its own, with a "ditto" reason
    written out, or its reference's for a compact line."""
    marker = same_as(res)
    lines = cur.pending + [ln]
    if marker:
        ref = blocks.get(ref_label(cur.label, marker[0]))
        got = ref.tests.get(res.number) if ref else None
        if got is None or got[0] is None or got[0].name != res.name:
            errors.append(f"{cur.label}.{res.name}: 'same as cpu{marker[0]}' but cpu{marker[0]} "
                          "reported no such test before it")
        elif _status(got[0]) != _status(res):
            errors.append(f"{cur.label}.{res.name}: 'same as cpu{marker[0]}' says "
                          f"{'ok' if res.ok else 'not ok'} {marker[1]}, cpu{marker[0]} said otherwise")
        else:
            lines = cur.pending + got[1]
            res = got[0]
    elif res.directive.upper() == "SKIP" and res.text == DITTO:
        if cur.last_skip is None:
            errors.append(f"{cur.label}.{res.name}: SKIP 'ditto' without a previous skip reason")
        else:
            head = ln[:len(ln) - len(ln.lstrip(" "))]
            lines = cur.pending + [f"{head}ok {res.number} {res.name} # SKIP {cur.last_skip}"]
            res = parse_result(lines[-1].strip())
    cur.last_skip = res.text if res.directive.upper() == "SKIP" else None
    return lines


def _expand_repeat(cur, ln, body):
    """A diagnostic line of the test under way in its full form: a field's
    "ditto" its previous text in this test, "trace: A..B shown above" the
    trace lines it names; what the test said is remembered for the next."""
    head = ln[:len(ln) - len(ln.lstrip(" "))]
    m = FIELD_RE.match(ln[len(head):])  # the text as written, to its last byte
    if m:
        name, text = m.group(2), m.group(3)
        if text == DITTO:
            if name not in cur.said:
                cur.unresolved.append(f"'{name}: {DITTO}' with no {name} line before it in the test")
                return [ln]
            text = cur.said[name]
        cur.said[name] = text
        return [f"{head}{m.group(1)}{text}"]
    m = TRACE_ENTRY_RE.match(body)
    if m:
        cur.traced[int(m.group(1))] = ln
        return [ln]
    m = TRACE_SHOWN_RE.match(body)
    if m:
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        missing = [s for s in range(lo, hi + 1) if s not in cur.traced] if hi - lo < 4096 else [lo]
        if hi < lo or missing:
            cur.unresolved.append(f"'{body[2:]}' but the test printed no access "
                                  f"{missing[0] if missing else hi} before it")
            return [ln]
        return [cur.traced[s] for s in range(lo, hi + 1)]
    return [ln]


def _expand_suite(res, marker, ln, blocks, errors):
    """A compact suite's block: its reference's under its own name, without
    the reference's closing totals; None (and an error) without one."""
    ref_name = ref_label(res.name, marker[0])
    ref = blocks.get(ref_name)
    ref_res = parse_result(ref.result.strip()) if ref and ref.result else None
    if ref_res is None:
        errors.append(f"{res.name}: 'same as cpu{marker[0]}' but {ref_name} was not reported before it")
        return None
    if _status(ref_res) != _status(res):
        errors.append(f"{res.name}: 'same as cpu{marker[0]}' says {'ok' if res.ok else 'not ok'} "
                      f"{marker[1]}, {ref_name} said otherwise")
        return None
    own = f"# {ref_name}:"
    lines = [f"    # Subtest: {res.name}" if x.strip() == f"# Subtest: {ref_name}" else x
             for x in ref.lines if not x.strip().startswith(own)]
    # The suite's own counts line (kernel/runner.c run_suite()), which its
    # results decide; the reference's TSC cycles were that CPU's, not these.
    n = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    for r, _ in ref.tests.values():
        d = _status(r)[1]
        n["skip" if d == "SKIP" else "xfail" if d == "XFAIL" else "pass" if r.ok else "fail"] += 1
    lines.append(f"    # {res.name}: pass:{n['pass']} fail:{n['fail']} skip:{n['skip']} "
                 f"total:{len(ref.tests)}")
    if n["xfail"]:
        lines.append(f"    # {res.name}: {n['xfail']} known deviation(s) (# XFAIL): not counted as failures")
    comment = ref.result.split("#", 1)[1].strip() if "#" in ref.result else ""
    result = f"ok {res.number} {res.name}" + (f" # {comment}" if comment else "")
    block = _Block(res.name, lines, dict(ref.tests), result)
    return block


def expand_text(text):
    """(text, errors): a log's text in the full form (see expand_lines)."""
    lines = text.split("\n")
    try:
        start = next(i for i, ln in enumerate(lines) if is_header(ln.rstrip("\r")))
    except StopIteration:
        return text, []
    body, errors = expand_lines([ln.rstrip("\r") for ln in lines[start:]])
    return "\n".join(lines[:start] + body), errors


def parse(text):
    """Parse a log's text into a Run. Raises KtapError when there is no KTAP.
    A compact log is read in its full form (expand_lines)."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    lines = [sanitize(ln.rstrip("\r")) for ln in text.split("\n")]
    try:
        start = next(i for i, ln in enumerate(lines) if is_header(ln.rstrip("\r")))
    except StopIteration:
        raise KtapError("no 'KTAP version 1' line: not a KTAP log") from None
    expanded, expand_errors = expand_lines(lines[start + 1:])
    lines = lines[:start + 1] + expanded

    run = Run()
    run.errors.extend(expand_errors)
    suite = None
    pending = []  # diagnostics waiting for the next result line
    lineno = start + 1
    expect_plan = True
    for raw in lines[start + 1:]:
        lineno += 1
        ln = raw.rstrip("\r")
        if not ln.strip():
            continue
        if ln.startswith("Bail out!"):
            run.bailed_out = ln[len("Bail out!"):].strip() or "bail out"
            break
        depth = (len(ln) - len(ln.lstrip(" "))) // 4
        body = ln.strip()
        if depth == 0:
            if expect_plan:
                m = PLAN_RE.match(body)
                if not m:
                    run.errors.append(f"line {lineno}: expected the plan '1..N', got {body!r}")
                else:
                    run.planned = int(m.group(1))
                expect_plan = False
                continue
            if body.startswith("#"):
                d = _diag_text(body)
                run.diagnostics.append(d)
                m = MEASURE_RE.match(d)
                if m:
                    run.measurements[m.group(1)] = {"value": int(m.group(2)), "unit": m.group(3)}
                if d.startswith("verdict:"):
                    if run.verdict:
                        run.errors.append(f"line {lineno}: a second verdict line (two runs in one log?)")
                    run.verdict = d.split(":", 1)[1].strip()
                continue
            res = parse_result(body)
            if res is None:
                run.errors.append(f"line {lineno}: not KTAP: {body!r}")
                continue
            name = res.name
            if suite is None or suite.name != name:
                run.errors.append(f"line {lineno}: result for {name!r} without its subtest block")
                suite = Suite(name)
                run.suites.append(suite)
            suite.number = res.number
            suite.result = _classify(res, [], run.errors, f"line {lineno}")
            if suite.number != len(run.suites):
                run.errors.append(f"line {lineno}: suite {name!r} numbered {suite.number}, expected {len(run.suites)}")
            suite = None
            continue
        if depth == 1:
            if body == "KTAP version 1":
                suite = Suite("")
                run.suites.append(suite)
                pending = []
                continue
            if suite is None:
                run.errors.append(f"line {lineno}: nested line outside a subtest: {body!r}")
                continue
            if body.startswith("# Subtest:"):
                suite.name = body.split(":", 1)[1].strip()
                continue
            m = PLAN_RE.match(body)
            if m and not suite.tests and not suite.planned:
                suite.planned = int(m.group(1))
                continue
            if body.startswith("#"):
                d = _diag_text(body)
                mm = MEASURE_RE.match(d)
                if mm:
                    run.measurements[mm.group(1)] = {"value": int(mm.group(2)), "unit": mm.group(3)}
                pending.append(d)
                continue
            res = parse_result(body)
            if res is None:
                run.errors.append(f"line {lineno}: not KTAP: {body!r}")
                continue
            t = Test(suite.name, res.name, res.number, "", res.text, pending)
            t.result = _classify(res, pending, run.errors, f"line {lineno}")
            if t.number != len(suite.tests) + 1:
                run.errors.append(f"line {lineno}: test {t.full_name} numbered {t.number}, expected {len(suite.tests) + 1}")
            suite.tests.append(t)
            pending = []
            continue
        run.errors.append(f"line {lineno}: nesting deeper than pmutest writes: {body!r}")

    if expect_plan:
        run.errors.append("no plan line '1..N' after 'KTAP version 1' (log truncated?)")
    if pending and suite is not None:
        suite.diagnostics.extend(pending)
    for s in run.suites:
        if not s.name:
            run.errors.append("a subtest block has no '# Subtest:' name")
        if s.planned != len(s.tests):
            run.errors.append(f"suite {s.name!r}: planned {s.planned} tests, {len(s.tests)} reported")
        if not s.result:
            run.errors.append(f"suite {s.name!r}: no result line (log truncated?)")
    if run.bailed_out:
        run.errors.append(f"the run bailed out: {run.bailed_out}")
    elif run.planned != len(run.suites):
        run.errors.append(f"planned {run.planned} suites, {len(run.suites)} reported (log truncated?)")
    if not run.bailed_out:
        _check_closing(run)
    return run


def broken(run):
    """The log's problems, but for the kernel's own verdict ERROR (an options
    error, no test executed: a finished run whose result is ERROR) or a
    verdict word of a newer kernel."""
    return [e for e in run.errors if not e.startswith(KERNEL_VERDICT)]


def read_log(path):
    """Read a log file as text; clear errors for unreadable input."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise KtapError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_LOG_BYTES:
        raise KtapError(f"{path} is larger than {MAX_LOG_BYTES >> 20} MiB: not a pmutest log")
    return parse(data.decode("utf-8", errors="replace"))


# ---------------------------------------------------------------------------
# What a run says about its machine, its failures and its known deviations,
# from the diagnostics the kernel prints (kernel/main.c, kernel/caps.c,
# kernel/check.c). Shared by the JUnit, JSON and HTML reports.

SIGNATURE_RE = re.compile(r"^caps: vendor (.{0,64}?) \((.{0,32})\), DisplayFamily (\w{1,8}) "
                          r"DisplayModel (\w{1,8}) stepping (\w{1,8})(?: \(CPUID\.01H:EAX = (\w{1,12})\))?")
HV_VENDOR_RE = re.compile(r'^caps: hypervisor vendor "(.{0,64})"')
HV_BIT_RE = re.compile(r"^caps: CPUID\.01H: hypervisor (yes|no)")
PMU_CONFIGS_RE = re.compile(r"^cpus: (.{1,200}?)(?:; (\d{1,4}) distinct PMU configurations?)?$")
PMU_CONFIG_RE = re.compile(r"^PMU configuration (\d{1,4}) of \d{1,4}: cpus (.{1,200})$")
# "ok N name # XFAIL known deviation ID: SOURCE" (kernel/known.c)
XFAIL_REASON_RE = re.compile(r"^known deviation (\S{1,120}?):? (.*)$")


def machine(run):
    """The machine a run describes: a dict of strings (None: not in the log).
    From the header: platform ("pmutest V on ARCH: PLATFORM"), firmware,
    microcode (where a kernel prints it), the first CPU's signature and
    hypervisor, CPUs and PMU configurations, host lines of a KVM run."""
    m = {"pmutest": None, "platform": None, "vendor": None, "vendor_name": None,
         "family": None, "model": None, "stepping": None, "signature": None,
         "microcode": None, "hypervisor": None, "firmware": None, "cpus": None,
         "pmu_configurations": None, "host": None}
    hosts = []
    for d in run.diagnostics:
        if d.startswith("pmutest ") and m["platform"] is None:
            head, _, platform = d.partition(": ")
            m["pmutest"], m["platform"] = head, platform or None
        elif d.startswith("firmware: ") and m["firmware"] is None:
            m["firmware"] = d[len("firmware: "):]
        elif d.startswith("microcode: ") and m["microcode"] is None:
            m["microcode"] = d[len("microcode: "):]
        elif d.startswith("host: "):
            hosts.append(d[len("host: "):])
        elif d.startswith("cpus: ") and m["cpus"] is None:
            mm = PMU_CONFIGS_RE.match(d)
            if mm:
                m["cpus"] = mm.group(1)
                m["pmu_configurations"] = mm.group(2)
        mm = SIGNATURE_RE.match(d)
        if mm and m["vendor"] is None:
            (m["vendor"], m["vendor_name"], m["family"], m["model"], m["stepping"],
             m["signature"]) = mm.groups()
        mm = HV_VENDOR_RE.match(d)
        if mm and m["hypervisor"] in (None, "yes"):
            m["hypervisor"] = mm.group(1) or "yes (no vendor string)"
        mm = HV_BIT_RE.match(d)
        if mm and m["hypervisor"] is None:
            m["hypervisor"] = "none (bare metal)" if mm.group(1) == "no" else "yes"
    m["host"] = "; ".join(hosts) or None
    return m


def machine_label(run, fallback=""):
    """A short name of the machine: "AMD 0FH/6BH/1 on QEMU TCG, ..." ."""
    m = machine(run)
    sig = "/".join(x for x in (m["family"], m["model"], m["stepping"]) if x)
    parts = [x for x in (m["vendor_name"] or m["vendor"], sig) if x]
    label = " ".join(parts)
    # The platform line goes on with timer and watchdog details: its first
    # clause names it ("QEMU TCG", "profile x").
    platform = (m["platform"] or "").split(";")[0].split(", quirks")[0].strip()
    if platform:
        label = f"{label} on {platform}" if label else platform
    return label or fallback


def capability_records(run):
    """[(title, [caps lines])]: one record per PMU configuration."""
    records, title, lines = [], "PMU configuration 1", []
    for d in run.diagnostics:
        mm = PMU_CONFIG_RE.match(d)
        if mm:
            if lines:
                records.append((title, lines))
            title, lines = f"PMU configuration {mm.group(1)} (cpus {mm.group(2)})", []
        elif d.startswith("caps: "):
            lines.append(d[len("caps: "):])
    if lines:
        records.append((title, lines))
    return records


def failures(test):
    """The failed checks of a test: [{"what", "expected", "actual", "rule",
    "known"}] from its "FAIL:" blocks (kernel/check.c)."""
    out, cur = [], None
    for d in test.diagnostics:
        s = d.strip()
        if d.startswith("FAIL:"):
            cur = {"what": d[len("FAIL:"):].strip(), "expected": "", "actual": "", "rule": "", "known": ""}
            out.append(cur)
        elif cur is not None and d.startswith("  "):
            key, sep, value = s.partition(":")
            if sep and key in ("expected", "actual", "rule", "known"):
                cur[key] = value.strip()
        else:
            cur = None
    return out


def known_deviation(test):
    """(ID, SOURCE) of a test reported XFAIL, else None."""
    if test.result != "xfail":
        return None
    mm = XFAIL_REASON_RE.match(test.reason)
    if mm:
        return mm.group(1), mm.group(2)
    return (test.reason or "unnamed", "")


def exceptions(test):
    return [d for d in test.diagnostics if d.startswith("unexpected exception")]


def counts(tests):
    """{result: n} over tests, every result present."""
    c = {r: 0 for r in RESULTS}
    for t in tests:
        c[t.result] += 1
    return c



# ---------------------------------------------------------------------------
# What a non-pass test's failure is: its fingerprint (expectations files,
# `ktap-report.py baseline` / `compare`). One string a fact, sorted:
#   known: ID                    a known-deviation row the test names
#   check: CLASS :: WHAT :: RULE a failed check: its observed outcome class,
#                                its description (subject included), its rule
#   exception: CLASS             the unexpected exception that ended it
#   state: changed               it left machine state changed (runner.c)
#   timeout: the watchdog ended it
# The class is what the check's own "actual:" line says, coarsened to what a
# source can state: a vector with its error code zero or not, "no fault",
# a value zero, below or above what was expected, a bit list as printed.
# Diagnostic lines a kernel adds under a FAIL ("  subject: ...") are
# ignored: the fingerprint rests on the lines every pmutest prints.

FINGERPRINT_KEYS = ("known", "check", "exception", "state", "timeout")
# A description names its subject; a workload's random seed (a fresh one each
# run: suites/amd.c fresh_seed()) is no part of it.
SEED_RE = re.compile(r"seed 0x[0-9a-fA-F]{1,16}")
STATE_RE = re.compile(r"^the test left machine state changed: (.{1,200}?)(?: \(put back by the harness\))?$")
FP_SEP = " :: "
_VECTOR_RE = re.compile(r"^(#[A-Z]{2,3})(?:\((0x[0-9a-fA-F]{1,16}|\d{1,20})\))?$")
_NUMBER_RE = re.compile(r"^(?:0x[0-9a-fA-F]{1,16} \((\d{1,20})\)|(\d{1,20}))$")
_RANGE_RE = re.compile(r"^(.{1,40}?) \.\. (.{1,40})$")
_SWEEP_ITEM_RE = re.compile(r"^0x[0-9a-fA-F]{1,16}->(.{1,40})$")
_EXCEPTION_RE = re.compile(r"^unexpected exception (#[A-Z]{2,3}) \(vector \d{1,3}\)"
                           r"(?: at RIP [0-9a-fA-Fx]{1,20})?(?:, CPL \d)?(?:, error code (\S{1,20}))?")


def _number(text):
    m = _NUMBER_RE.match(text.strip())
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def _vector_class(name, code):
    """'#GP(0)', '#GP(non-zero)', '#UD': the error code is zero or not."""
    if code is None:
        return name
    try:
        value = int(code, 0)
    except ValueError:
        return f"{name}(?)"
    return f"{name}(0)" if value == 0 else f"{name}(non-zero)"


def outcome_class(expected, actual):
    """The observed outcome of a failed check, as a class (see above)."""
    a = actual.strip()
    if a in ("no exception", "no fault", "no fault(0)"):
        return "no fault"
    m = _VECTOR_RE.match(a)
    if m:
        return _vector_class(m.group(1), m.group(2))
    items = [i.strip() for i in a.split(",")]
    sweep = [_SWEEP_ITEM_RE.match(i) for i in items]
    if all(sweep):  # "0x80000003->no fault(0), 0x10000->#UD(0)": the outcomes seen
        return "sweep " + "+".join(sorted({outcome_class("", s.group(1).replace("no fault(0)", "no fault"))
                                           for s in sweep}))
    value = _number(a)
    if value is not None:
        if value == 0:
            return "zero"
        e = expected.strip()
        if e.startswith("anything but "):
            return "equal"
        rng = _RANGE_RE.match(e)
        lo, hi = (_number(rng.group(1)), _number(rng.group(2))) if rng else (_number(e), _number(e))
        if lo is not None and value < lo:
            return "below"
        if hi is not None and value > hi:
            return "above"
        return "value"
    return " ".join(a.split())  # "bit 3, bit 5", "differs": as printed


def fingerprint(test):
    """The sorted, distinct facts of a test's failure (empty for a pass or
    a skip)."""
    if test.result in ("pass", "skip"):
        return []
    facts = set()
    kd = known_deviation(test)
    if kd:
        facts.add(f"known: {kd[0]}")
    for f in failures(test):
        if f["known"]:
            facts.add(f"known: {f['known'].split(None, 1)[0]}")
        facts.add("check: " + FP_SEP.join((outcome_class(f["expected"], f["actual"]),
                                           SEED_RE.sub("seed", " ".join(f["what"].split())),
                                           " ".join(f["rule"].split()))))
    for d in exceptions(test):
        m = _EXCEPTION_RE.match(d)
        facts.add("exception: " + (_vector_class(m.group(1), m.group(2)) if m else "unrecognised"))
    for d in test.diagnostics:
        if STATE_RE.match(d):
            # The class only: the list of what changed is the kernel's
            # evidence, and the x86 port prints it empty (arch/x86_64/state.c
            # returns a static buffer that is cleared before the runner prints).
            facts.add("state: changed")
    if test.result == "timeout":
        facts.add("timeout:")
    return sorted({" ".join(f.split()) for f in facts})


# ---------------------------------------------------------------------------
# What the run selected: "# selection: suites = a,b; tests = s.t; exclude =
# none; selftest = 0" (kernel/options.c options_describe_selection()). A log
# without the line (an older kernel) selected everything it reports.

SELECTION_RE = re.compile(r"^selection: suites = (\S{1,4000}); tests = (\S{1,4000}); "
                          r"exclude = (\S{1,4000}); selftest = ([01])$")
SELFTEST_SUITE = "selftest"


@dataclass
class Selection:
    text: str
    suites: tuple
    tests: tuple
    exclude: tuple
    selftest: bool

    def selects(self, name):
        """Whether the kernel ran suite.test (kernel/options.c options_selects())."""
        suite, _, test = name.partition(".")
        suite = split_cpu(suite)[0]
        full = f"{suite}.{test}"
        if suite in self.exclude or full in self.exclude:
            return False
        if suite == SELFTEST_SUITE and not self.selftest and suite not in self.suites:
            return False
        if not self.suites and not self.tests:
            return True
        return suite in self.suites or suite in self.tests or full in self.tests


def selection(run):
    """The run's Selection, or None when the log does not state it."""
    for d in run.diagnostics:
        m = SELECTION_RE.match(d)
        if m:
            names = [tuple(n for n in g.split(",") if n and n != "none") for g in m.groups()[:3]]
            return Selection(d[len("selection: "):], *names, m.group(4) == "1")
    return None

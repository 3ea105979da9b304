# SPDX-License-Identifier: MIT
"""Reading a pmutest log: anything (firmware noise) up to the first line
that is exactly "KTAP version 1"; then a plan "1..N"; top-level
diagnostics; one nested block per suite (indented four spaces, "# Subtest:
NAME", its own version line and plan, test results, diagnostics); the
suite's result line; and the closing diagnostics ("# Totals: ...",
"# verdict: ...").

parse() returns a Run; every structural problem is collected in Run.errors
(the log is still read as far as it goes), so callers can both convert a
truncated log and refuse it as evidence.
"""

from typing import Optional

from .expand import expand_lines
from .ktap import (DIRECTIVES, MAX_LOG_BYTES, MEASURE_RE, PLAN_RE, KtapError, Result, Run, Suite, Test,
                   is_header, parse_result, sanitize)
from .verdict import check_closing


def _diag_text(body: str) -> str:
    """Text of a '# ' diagnostic line, keeping its own inner indentation."""
    d = body[1:]
    return (d[1:] if d.startswith(" ") else d).rstrip()


def _classify(res: Result, diags: list[str], errors: list[str], where: str) -> str:
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


def parse(text: str) -> Run:
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
    suite: Optional[Suite] = None
    pending: list[str] = []  # diagnostics waiting for the next result line
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
                run.errors.append(f"line {lineno}: test {t.full_name} numbered {t.number}, "
                                  f"expected {len(suite.tests) + 1}")
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
        check_closing(run)
    return run


def read_log(path: str) -> Run:
    """Read a log file as text; clear errors for unreadable input."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise KtapError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_LOG_BYTES:
        raise KtapError(f"{path} is larger than {MAX_LOG_BYTES >> 20} MiB: not a pmutest log")
    return parse(data.decode("utf-8", errors="replace"))

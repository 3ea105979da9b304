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

RESULT_RE = re.compile(r"^(ok|not ok) (\d+)(?: ([^#]*?))?\s*(?:#\s*(\S+)\s*(.*))?$")
PLAN_RE = re.compile(r"^1\.\.(\d+)$")
MEASURE_RE = re.compile(r"^measure: (\S+) = (\d+) (\S+)$")
# A run on several CPUs names each suite "suite@cpuN" (kernel/runner.c).
CPU_SUITE_RE = re.compile(r"^(.*)@cpu(\d+)$")


def split_cpu(suite):
    """("rdpmc", 2) for "rdpmc@cpu2"; (suite, None) for a one-CPU run."""
    m = CPU_SUITE_RE.match(suite)
    return (m.group(1), int(m.group(2))) if m else (suite, None)
RESULTS = ("pass", "fail", "skip", "timeout", "error")


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


def _classify(okness, directive, text, diags):
    if directive and directive.upper() == "SKIP":
        return "skip" if okness == "ok" else "fail"
    if directive and directive.upper() == "TIMEOUT":
        return "timeout"
    if okness == "ok":
        return "pass"
    if any(d.startswith("unexpected exception") for d in diags):
        return "error"
    return "fail"


def parse(text):
    """Parse a log's text into a Run. Raises KtapError when there is no KTAP."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.rstrip("\r") == "KTAP version 1")
    except StopIteration:
        raise KtapError("no 'KTAP version 1' line: not a KTAP log") from None

    run = Run()
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
                    run.verdict = d.split(":", 1)[1].strip()
                continue
            m = RESULT_RE.match(body)
            if not m:
                run.errors.append(f"line {lineno}: not KTAP: {body!r}")
                continue
            name = (m.group(3) or "").strip()
            if suite is None or suite.name != name:
                run.errors.append(f"line {lineno}: result for {name!r} without its subtest block")
                suite = Suite(name)
                run.suites.append(suite)
            suite.number = int(m.group(2))
            suite.result = _classify(m.group(1), m.group(4), m.group(5), [])
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
            m = RESULT_RE.match(body)
            if not m:
                run.errors.append(f"line {lineno}: not KTAP: {body!r}")
                continue
            t = Test(suite.name, (m.group(3) or "").strip(), int(m.group(2)), "",
                     (m.group(5) or "").strip(), pending)
            t.result = _classify(m.group(1), m.group(4), m.group(5), pending)
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
    return run


def read_log(path):
    """Read a log file as text; clear errors for unreadable input."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise KtapError(f"cannot read {path}: {e.strerror}") from None
    return parse(data.decode("utf-8", errors="replace"))

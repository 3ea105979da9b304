# SPDX-License-Identifier: MIT
"""The KTAP v1 model of a pmutest log (Documentation/dev-tools/ktap.rst):
a Run of Suites of Tests, the words a result line may carry, and the
grammar of one result line. The reader (reader.py) builds the model; every
other module reads it."""

import re
from dataclasses import dataclass, field
from typing import Iterator, Optional, TypedDict

# Every pattern here is linear: no nested or adjacent unbounded repeats over
# the same characters (a result line is split by hand, not by one regex).
PLAN_RE = re.compile(r"^1\.\.(\d{1,9})$")
MEASURE_RE = re.compile(r"^measure: (\S+) = (\d{1,20}) (\S+)$")
TOTALS_RE = re.compile(r"^Totals: pass:(\d{1,9}) fail:(\d{1,9}) skip:(\d{1,9})"
                       r"(?: xfail:(\d{1,9}))?(?: inferred:(\d{1,9}))? total:(\d{1,9})$")
# A run on several CPUs names each suite "suite@cpuN" (kernel/runner.c).
CPU_SUITE_RE = re.compile(r"^(.{1,200})@cpu(\d{1,4})$")


def split_cpu(suite: str) -> tuple[str, Optional[int]]:
    """("rdpmc", 2) for "rdpmc@cpu2"; (suite, None) for a one-CPU run."""
    m = CPU_SUITE_RE.match(suite)
    return (m.group(1), int(m.group(2))) if m else (suite, None)


# xfail: "ok N name # XFAIL ...", a known deviation (kernel/known.c): KTAP v1's
# directive for an expected failure; it does not fail the run.
# inferred: "ok N name # INFERRED ...", a test whose checks held but for some
# of an inferred rule (kernel/test.h RULE_INFERRED): not a failure unless
# strict=1, never a plain pass.
RESULTS = ("pass", "fail", "skip", "timeout", "error", "xfail", "inferred")
# Results that are no failure of the run but ran their checks.
EXECUTED_OK = ("pass", "inferred")
FAILING = ("fail", "timeout", "error")
# Directives a result line may carry (KTAP v1: SKIP, XFAIL; pmutest adds
# TIMEOUT and INFERRED). Any other directive is an error of the log, never a
# pass.
DIRECTIVES = {"SKIP": "skip", "TIMEOUT": "timeout", "XFAIL": "xfail", "INFERRED": "inferred"}
# Verdicts the kernel prints ("# verdict: X"). INCOMPLETE: the tests that ran
# say nothing about an enumerated CPU that ran none ("# incomplete: ...").
# PASS-INFERRED: a pass but for checks of inferred rules (exit status 0).
VERDICTS = ("PASS", "PASS-INFERRED", "FAIL", "ERROR", "INCOMPLETE")
# How bad each verdict is, for diff: a move to a higher rank is worse.
VERDICT_RANK = {"PASS": 0, "PASS-INFERRED": 1, "FAIL": 2, "INCOMPLETE": 3, "ERROR": 3}
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


def sanitize(text: str) -> str:
    """text with every unsafe character shown as a visible escape (\\x1b)."""
    return _UNSAFE_RE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                          else f"\\u{ord(m.group()):04x}", text)


class Measurement(TypedDict):
    """A "# measure: NAME = VALUE UNIT" line's value and unit."""
    value: int
    unit: str


class KtapError(Exception):
    """The input is not a pmutest KTAP log at all."""


@dataclass
class Test:
    suite: str
    name: str
    number: int
    result: str  # one of RESULTS
    reason: str = ""
    diagnostics: list[str] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"

    @property
    def cpu(self) -> Optional[int]:
        return split_cpu(self.suite)[1]

    @property
    def name_without_cpu(self) -> str:
        """suite.test whatever CPU it ran on: what expectations name."""
        return f"{split_cpu(self.suite)[0]}.{self.name}"


@dataclass
class Suite:
    name: str
    number: int = 0
    planned: int = 0
    result: str = ""
    tests: list[Test] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)

    @property
    def cpu(self) -> Optional[int]:
        return split_cpu(self.name)[1]


@dataclass
class Run:
    planned: int = 0
    suites: list[Suite] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    measurements: dict[str, Measurement] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    verdict: str = ""
    bailed_out: str = ""

    def tests(self) -> Iterator[Test]:
        for s in self.suites:
            yield from s.tests


@dataclass
class Result:
    """One result line: "ok N name", "not ok N name # DIRECTIVE text"."""
    ok: bool
    number: int
    name: str
    directive: str = ""
    text: str = ""


def parse_result(body: str) -> Optional[Result]:
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


HEADER = "KTAP version 1"


def is_header(line: str) -> bool:
    """The report's first line: "KTAP version 1", alone or after what the
    firmware or VMM left on the line without a newline ("Booting from
    ROM..", a stray control byte); never an indented (nested) header."""
    if line == HEADER:
        return True
    return line.endswith(HEADER) and line[:-len(HEADER)].strip() != ""

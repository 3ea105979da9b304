# SPDX-License-Identifier: MIT
"""What a non-pass test's failure is: its fingerprint (expectations files,
`baseline` / `compare`)."""

import re
from typing import Optional

from .failures import exceptions, failures, inferred_departures, known_deviation
from .ktap import Test

# What a non-pass test's failure is: its fingerprint (expectations files,
# `ktap-report.py baseline` / `compare`). One string a fact, sorted:
#   known: ID                    a known-deviation row the test names
#   check: CLASS :: WHAT :: RULE a failed check: its observed outcome class,
#                                its description (subject included), its rule
#   finding: TEST :: COUNTER :: WHAT  a check that needed a counter the
#                                counting preconditions showed not to count
#                                or hold a value (kernel/precondition.c)
#   exception: CLASS             the unexpected exception that ended it
#   state: changed               it left machine state changed (runner.c)
#   timeout: the watchdog ended it
# The class is what the check's own "actual:" line says, coarsened to what a
# source can state: a vector with its error code zero or not, "no fault",
# a value zero, below or above what was expected, a bit list as printed.
# Diagnostic lines a kernel adds under a FAIL ("  subject: ...") are
# ignored: the fingerprint rests on the lines every pmutest prints.

FINGERPRINT_KEYS = ("known", "check", "finding", "inferred", "exception", "state", "timeout")
# The one line of a check that needed a counter shown not to count
# (kernel/precondition.c t_precondition()); another CPU's counter is named
# with its CPU ("IA32_PMC0 of cpu 1 needed counting; ...").
FINDING_RE = re.compile(r"^(\S{1,40}(?: of cpu \d{1,4})?) needed (?:counting|holding a value); (\S{1,80}) found it "
                        r"(counts nothing|holds no written value)$")
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


def _number(text: str) -> Optional[int]:
    m = _NUMBER_RE.match(text.strip())
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def _vector_class(name: str, code: Optional[str]) -> str:
    """'#GP(0)', '#GP(non-zero)', '#UD': the error code is zero or not."""
    if code is None:
        return name
    try:
        value = int(code, 0)
    except ValueError:
        return f"{name}(?)"
    return f"{name}(0)" if value == 0 else f"{name}(non-zero)"


def outcome_class(expected: str, actual: str) -> str:
    """The observed outcome of a failed check, as a class (see above)."""
    a = actual.strip()
    if a in ("no exception", "no fault", "no fault(0)"):
        return "no fault"
    m = _VECTOR_RE.match(a)
    if m:
        return _vector_class(m.group(1), m.group(2))
    items = [i.strip() for i in a.split(",")]
    sweep = [m for m in (_SWEEP_ITEM_RE.match(i) for i in items) if m]
    if len(sweep) == len(items):  # "0x80000003->no fault(0), 0x10000->#UD(0)": the outcomes seen
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


def fingerprint(test: Test) -> list[str]:
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
        m = FINDING_RE.match(f["what"])
        if m and not f["rule"]:
            facts.add("finding: " + FP_SEP.join((m.group(2), m.group(1), m.group(3))))
            continue
        facts.add("check: " + FP_SEP.join((outcome_class(f["expected"], f["actual"]),
                                           SEED_RE.sub("seed", " ".join(f["what"].split())),
                                           " ".join(f["rule"].split()))))
    # A test INFERRED is fingerprinted by its departures; a failed one by its
    # failures alone (its inferred diagnostics are no part of how it fails).
    for i in inferred_departures(test) if test.result == "inferred" else []:
        facts.add("inferred: " + FP_SEP.join((SEED_RE.sub("seed", " ".join(i["what"].split())),
                                              " ".join(i["rule"].split()))))
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

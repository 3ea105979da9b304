# SPDX-License-Identifier: MIT
"""Run-to-run comparison of pmutest KTAP logs: `ktap-report.py diff` and
the first-differing cells of the HTML matrix use this one code.

A test is the same test in two runs when its full name (suite.test, or
suite@cpuN.test on several CPUs) is the same. Each test that differs is
one change, of the first kind that applies:
  appeared      in NEW only
  disappeared   in OLD only
  regressed     did not fail in OLD, fails in NEW (fail, timeout, error)
  fixed         failed in OLD, passes in NEW (pass, or a known deviation)
  known         a known deviation (XFAIL) came, went, or changed its ID
  refailed      failed in both, but differently: its failure fingerprint
                (fingerprint.py: the checks, outcomes, rules) changed
  inferred      an inferred-rule departure (INFERRED) came, went or changed
  skip-reason   skipped in both, for different reasons
  changed       any other change of result (pass <-> skip, fail <-> error...)
A test that appeared failing counts as a regression too: NEW fails where
OLD did not. `worse()` says what makes NEW worse than OLD as a whole: a
worse verdict, a regression, a lost test or CPU, a changed failure.
"""

from typing import Optional

from .failures import exceptions, failures, inferred_departures, known_row
from .fingerprint import fingerprint
from .ktap import FAILING, VERDICT_RANK, Run, Test
from .verdict import verdict_of

# (kind, name, the test in OLD, the test in NEW): one test that differs.
Change = tuple[str, str, Optional[Test], Optional[Test]]
KINDS = ("regressed", "fixed", "appeared", "disappeared", "known", "refailed", "inferred", "skip-reason",
         "changed")


def classify(old: Optional[Test], new: Optional[Test]) -> Optional[str]:
    """The kind of change from test old to test new (either may be None),
    or None when they agree."""
    if old is None and new is None:
        return None
    if old is None:
        return "appeared"
    if new is None:
        return "disappeared"
    if old.result not in FAILING and new.result in FAILING:
        return "regressed"
    if old.result in FAILING and new.result in ("pass", "xfail", "inferred"):
        return "fixed"
    if old.result in FAILING and new.result in FAILING:
        return "refailed" if fingerprint(old) != fingerprint(new) else (
            "changed" if old.result != new.result else None)
    if "inferred" in (old.result, new.result):
        if old.result != new.result or fingerprint(old) != fingerprint(new):
            return "inferred"
        return None
    if "xfail" in (old.result, new.result):
        if old.result != new.result or known_row(old)[0] != known_row(new)[0]:
            return "known"
        return None
    if old.result == new.result == "skip":
        return "skip-reason" if old.reason != new.reason else None
    return "changed" if old.result != new.result else None


def describe(t: Optional[Test]) -> str:
    """One line for a test's result: the result and why."""
    if t is None:
        return "absent"
    if t.result == "skip":
        return f"skip ({t.reason or 'no reason given'})"
    if t.result == "xfail":
        kid, src = known_row(t)
        return f"xfail (known deviation {kid}: {src})" if src else f"xfail ({kid})"
    if t.result == "inferred":
        i = inferred_departures(t)
        return f"inferred ({i[0]['what'] if i else t.reason})"
    if t.result in FAILING:
        f = failures(t)
        why = (f[0]["what"] if f else "") or next(iter(exceptions(t)), "") or t.reason
        return f"{t.result} ({why})" if why else t.result
    return t.result


def tests_by_name(run: Run) -> dict[str, Test]:
    return {t.full_name: t for t in run.tests()}


def compare(old_run: Run, new_run: Run) -> list[Change]:
    """[(kind, name, old test or None, new test or None)] in NEW's order,
    then the tests that disappeared in OLD's order."""
    old, new = tests_by_name(old_run), tests_by_name(new_run)
    out: list[Change] = []
    for name, t in new.items():
        kind = classify(old.get(name), t)
        if kind:
            out.append((kind, name, old.get(name), t))
    for name, t in old.items():
        if name not in new:
            out.append(("disappeared", name, t, None))
    return out


def is_regression(change: Change) -> bool:
    kind, _, _, new = change
    return kind == "regressed" or (kind == "appeared" and new is not None and new.result in FAILING)


def cpus(run: Run) -> set[Optional[int]]:
    """The CPUs a run's suites ran on (None: a one-CPU run)."""
    return {s.cpu for s in run.suites}


def worse(old_run: Run, new_run: Run, changes: list[Change]) -> list[str]:
    """Why NEW is worse than OLD, one line a reason (empty: it is not): a
    verdict of a higher rank (PASS, PASS-INFERRED, FAIL, INCOMPLETE / ERROR),
    a regression, a test or a CPU OLD had and NEW lost, a failure whose
    fingerprint changed, a new inferred departure."""
    why = []
    vo, vn = verdict_of(old_run), verdict_of(new_run)
    if VERDICT_RANK.get(vn, 3) > VERDICT_RANK.get(vo, 3):
        why.append(f"verdict {vo} -> {vn}")
    n = {k: sum(1 for c in changes if c[0] == k) for k in KINDS}
    regressions = sum(1 for c in changes if is_regression(c))
    if regressions:
        why.append(f"{regressions} regression(s)")
    if n["disappeared"]:
        why.append(f"{n['disappeared']} test(s) lost")
    lost = cpus(old_run) - cpus(new_run)
    if lost:
        why.append("CPU(s) lost: " + ", ".join(str(c) for c in sorted(c for c in lost if c is not None)))
    if n["refailed"]:
        why.append(f"{n['refailed']} failure(s) changed their fingerprint")
    new_inferred = sum(1 for c in changes if c[0] == "inferred" and c[3] is not None
                       and c[3].result == "inferred")
    if new_inferred:
        why.append(f"{new_inferred} inferred-rule departure(s) new or changed")
    return why

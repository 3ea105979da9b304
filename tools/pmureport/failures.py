# SPDX-License-Identifier: MIT
"""What a test says about its failure: its failed checks (kernel/check.c),
its known deviation (kernel/known.c), its unexpected exceptions."""

import re
from typing import Optional

from .ktap import Test

# "ok N name # XFAIL known deviation ID: SOURCE" (kernel/known.c)
XFAIL_REASON_RE = re.compile(r"^known deviation (\S{1,120}?):? (.*)$")


def failures(test: Test) -> list[dict[str, str]]:
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


# "inferred (not a failure; strict=1 checks it): WHAT" (kernel/check.c)
INFERRED_PREFIX = "inferred (not a failure"


def inferred_departures(test: Test) -> list[dict[str, str]]:
    """The checks of inferred rules a test did not follow: [{"what",
    "inferred", "machine", "rule"}] from its "inferred (...)" blocks."""
    out, cur = [], None
    for d in test.diagnostics:
        if d.startswith(INFERRED_PREFIX):
            cur = {"what": d.partition("):")[2].strip(), "inferred": "", "machine": "", "rule": ""}
            out.append(cur)
        elif cur is not None and d.startswith("  "):
            key, sep, value = d.strip().partition(":")
            if sep and key in ("inferred", "machine", "rule"):
                cur[key] = value.strip()
        else:
            cur = None
    return out


def known_deviation(test: Test) -> Optional[tuple[str, str]]:
    """(ID, SOURCE) of a test reported XFAIL, else None."""
    if test.result != "xfail":
        return None
    mm = XFAIL_REASON_RE.match(test.reason)
    if mm:
        return mm.group(1), mm.group(2)
    return (test.reason or "unnamed", "")


def known_row(test: Test) -> tuple[str, str]:
    """(ID, SOURCE) of a test its caller knows is XFAIL."""
    kd = known_deviation(test)
    if kd is None:
        raise ValueError(f"{test.full_name} is {test.result}, not a known deviation")
    return kd


def exceptions(test: Test) -> list[str]:
    """The unexpected exceptions a test reported."""
    return [d for d in test.diagnostics if d.startswith("unexpected exception")]

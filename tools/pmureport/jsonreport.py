# SPDX-License-Identifier: MIT
"""A run as the JSON report (`json`, format pmutest-report/1): results,
measurements, the machine and the capability record. A broken log is
verdict ERROR, never a pass."""

import json
from typing import Any, Optional

from .failures import failures, known_deviation
from .ktap import RESULTS, Run, Test
from .machine import machine
from .verdict import broken, verdict_of


def known_json(t: Test) -> Optional[dict[str, Optional[str]]]:
    kd = known_deviation(t)
    return {"id": kd[0], "source": kd[1] or None} if kd else None


def report(run: Run) -> dict[str, Any]:
    """The JSON document of a run, as a dict."""
    return {
        "format": "pmutest-report/1",
        # The verdict the results call for, ERROR when the log is broken;
        # what the log itself printed is reported_verdict.
        "verdict": "ERROR" if broken(run) else verdict_of(run),
        "reported_verdict": run.verdict or None,
        "valid": not run.errors,
        "log_errors": run.errors,
        "totals": {r: sum(1 for t in run.tests() if t.result == r) for r in RESULTS},
        "measurements": run.measurements,
        # The machine and platform, from the log's header (null: not in it).
        "machine": machine(run),
        "platform": machine(run)["platform"],
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
                     "inferred_departure": (t.reason or "inferred rule not followed")
                     if t.result == "inferred" else None,
                     "failures": failures(t),
                     "diagnostics": t.diagnostics}
                    for t in s.tests
                ],
            }
            for s in run.suites
        ],
    }


def text(run: Run) -> str:
    """The JSON report of a run as text."""
    return json.dumps(report(run), indent=2) + "\n"

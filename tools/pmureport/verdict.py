# SPDX-License-Identifier: MIT
"""The verdict a run's results call for, and whether its closing lines
(the totals and the kernel's verdict) agree with them."""

from typing import Iterable

from .ktap import (FAILING, INCOMPLETE_PREFIX, KERNEL_VERDICT, OTHER_VERDICT_RE, RESULTS, TOTALS_RE, VERDICTS, Run,
                   Test)


def counts(tests: Iterable[Test]) -> dict[str, int]:
    """{result: n} over tests, every result present."""
    c = {r: 0 for r in RESULTS}
    for t in tests:
        c[t.result] += 1
    return c


def recompute_verdict(run: Run) -> str:
    """The verdict the results call for, by the kernel's own rule
    (kernel/main.c): ERROR if no test was executed (a pass, a failure or an
    inferred departure; a known deviation alone is no evidence); INCOMPLETE
    if an enumerated CPU ran no test (the kernel's "# incomplete:" line);
    FAIL if any test failed, timed out or raised an exception; PASS-INFERRED
    if a test departed from an inferred rule; PASS otherwise."""
    c = counts(run.tests())
    failed = sum(c[r] for r in FAILING)
    if c["pass"] + c["inferred"] + failed == 0:
        return "ERROR"
    if any(d.startswith(INCOMPLETE_PREFIX) for d in run.diagnostics):
        return "INCOMPLETE"
    if failed:
        return "FAIL"
    return "PASS-INFERRED" if c["inferred"] else "PASS"


def check_closing(run: Run) -> None:
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
        want = (counts["pass"], failed, counts["skip"], counts["xfail"], counts["inferred"],
                counts["pass"] + failed + counts["skip"] + counts["xfail"] + counts["inferred"])
        if got != want:
            run.errors.append("the Totals line says pass:%d fail:%d skip:%d xfail:%d inferred:%d total:%d, "
                              "the results say pass:%d fail:%d skip:%d xfail:%d inferred:%d total:%d"
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


def broken(run: Run) -> list[str]:
    """The log's problems, but for the kernel's own verdict ERROR (an options
    error, no test executed: a finished run whose result is ERROR) or a
    verdict word of a newer kernel."""
    return [e for e in run.errors if not e.startswith(KERNEL_VERDICT)]


def verdict_of(run: Run) -> str:
    """The run's verdict: its own word (a newer kernel's too), else the one
    its results call for."""
    if run.verdict in VERDICTS or OTHER_VERDICT_RE.match(run.verdict or ""):
        return run.verdict
    return recompute_verdict(run)

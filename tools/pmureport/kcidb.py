# SPDX-License-Identifier: MIT
"""A KCIDB submission of one pmutest run (the `kcidb` subcommand): the I/O
schema v5 of KernelCI's common report database (github:kernelci/kcidb-io;
the part written here is kcidb-v5.schema.json beside this file).

  checkouts  pmutest's source, named by the version the log prints (a log
             names no commit)
  builds     the pmutest binary of that run (architecture x86_64), its
             platform line as comment
  tests      the run ("pmutest", the run's verdict) and every test of the
             log, path pmutest.SUITE.TEST; the machine as environment
             (machine label as comment, the header's fields as misc); a
             test of a run on several CPUs once per CPU (misc.cpu)
  issues     one per known-deviation row the run names (kernel/known.c),
  incidents  linking it to each test it excused

Statuses: pass PASS, skip SKIP, fail FAIL, an unexpected exception or a
timeout ERROR (the test did not complete), a known deviation (XFAIL) FAIL
with an incident of its row's issue: KCIDB has no expected failure, and a
deviation from the manual is no pass whatever excuses it.
"""

import hashlib
from typing import Any

from .failures import failures, known_deviation
from .ktap import Run, split_cpu
from .machine import machine, machine_label
from .verdict import counts, verdict_of

ORIGIN = "pmutest"
SCHEMA_VERSION = {"major": 5, "minor": 3}
# An inferred departure is DONE: finished, neither a plain pass nor a failure
# (KCIDB's status for no definite result); its comment names the rule.
STATUS = {"pass": "PASS", "skip": "SKIP", "fail": "FAIL", "timeout": "ERROR", "error": "ERROR",
          "xfail": "FAIL", "inferred": "DONE"}
RUN_STATUS = {"PASS": "PASS", "PASS-INFERRED": "DONE", "FAIL": "FAIL"}  # any other verdict: ERROR
MAX_EXCERPT = 16384


def _id(*parts: str) -> str:
    return f"{ORIGIN}:" + ":".join(parts)


def _excerpt(lines: list[str]) -> str:
    text = "\n".join(lines)
    return text if len(text) <= MAX_EXCERPT else text[:MAX_EXCERPT - 4] + "\n..."


def _path_part(name: str) -> str:
    """A KCIDB path component: [a-zA-Z0-9_-] only."""
    return "".join(c if c.isalnum() and c.isascii() or c in "_-" else "_" for c in name) or "_"


def submission(run: Run, log_bytes: bytes) -> dict[str, Any]:
    """The KCIDB document (a dict) of a complete run; log_bytes names it."""
    run_id = hashlib.sha256(log_bytes).hexdigest()[:16]
    m = machine(run)
    version = (m["pmutest"] or "pmutest unknown").split(None, 1)[-1].split(" on ")[0]
    checkout_id = _id("v" + _path_part(version))
    build_id = _id(run_id)
    env: dict[str, Any] = {"comment": machine_label(run, "unknown machine"),
                           "misc": {k: v for k, v in m.items() if v}}
    verdict = verdict_of(run)
    tests: list[dict[str, Any]] = [{
        "id": _id(run_id, "run"), "build_id": build_id, "origin": ORIGIN, "path": "pmutest",
        "status": RUN_STATUS.get(verdict, "ERROR"), "environment": env,
        "comment": f"pmutest verdict {verdict}",
        "log_excerpt": _excerpt([d for d in run.diagnostics if not d.startswith("caps: ")]),
        "misc": {"verdict": verdict, "totals": counts(run.tests())}}]
    issues: dict[str, dict[str, Any]] = {}
    incidents: list[dict[str, Any]] = []
    for n, t in enumerate(run.tests(), 1):
        suite = split_cpu(t.suite)[0]
        test: dict[str, Any] = {
            "id": _id(run_id, str(n)), "build_id": build_id, "origin": ORIGIN,
            "path": f"pmutest.{_path_part(suite)}.{_path_part(t.name)}",
            "status": STATUS.get(t.result, "ERROR"), "environment": env,
            "misc": {"ktap_result": t.result, "name": t.full_name}}
        if t.cpu is not None:
            test["misc"]["cpu"] = t.cpu
        if t.reason:
            test["comment"] = t.reason
        if t.result == "inferred":
            test["comment"] = f"inferred rule not followed (# INFERRED): {t.reason}"
            test["misc"]["inferred"] = [d for d in t.diagnostics if d.startswith("inferred")]
        if t.diagnostics:
            test["log_excerpt"] = _excerpt(t.diagnostics)
        if failures(t):
            test["misc"]["failures"] = failures(t)
        kd = known_deviation(t)
        if kd:
            test["misc"]["known_deviation"] = {"id": kd[0], "source": kd[1]}
            issue = issues.setdefault(kd[0], {
                "id": _id("known", _path_part(kd[0])), "version": 0, "origin": ORIGIN,
                "report_subject": f"known deviation {kd[0]}", "culprit": {"code": True},
                "comment": kd[1] or "no source given"})
            incidents.append({"id": _id(run_id, str(n), "known"), "origin": ORIGIN,
                              "issue_id": issue["id"], "issue_version": 0, "test_id": test["id"],
                              "build_id": build_id, "present": True})
        tests.append(test)
    return {
        "version": dict(SCHEMA_VERSION),
        "checkouts": [{"id": checkout_id, "origin": ORIGIN, "tree_name": "pmutest",
                       "git_commit_name": version, "valid": True,
                       "comment": f"pmutest {version} (the report names no commit)"}],
        "builds": [{"id": build_id, "checkout_id": checkout_id, "origin": ORIGIN,
                    "architecture": "x86_64", "status": "PASS",
                    "comment": m["platform"] or "platform not in the log"}],
        "tests": tests,
        "issues": list(issues.values()),
        "incidents": incidents,
    }

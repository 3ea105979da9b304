#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make test`'s KCIDB step: `ktap-report.py kcidb`
submissions of runs of every verdict validated against
tools/pmureport/kcidb-v5.schema.json with Debian's python3-jsonschema, and checked
against their logs: one test per log test and one for the run, each test's
status its result's (kcidb.STATUS), every known deviation an incident
of its row's issue, the machine as every test's environment. The
validator is shown to fail: a submission with a status KCIDB does not have
and a path with a CPU suffix are rejected. A broken log is one line and
exit 2.

  testing/test-kcidb.py [OUTDIR]   (default build/test-logs/kcidb)

Runs with the python3 that has the jsonschema module (this one, else
/usr/bin/python3: Debian's python3-jsonschema, `mk/deps.sh --test`). One "ok"/"not
ok" line a check, then "N passed, N failed"; exit 0 when all pass.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.access("/usr/bin/python3", os.X_OK) \
            and not os.environ.get("PMUTEST_KCIDB_REEXEC"):
        os.environ["PMUTEST_KCIDB_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("skipped: python3-jsonschema is missing (mk/deps.sh --test installs it as root)")
    print("0 passed, 0 failed")
    sys.exit(0)
from pmureport import failures, kcidb, machine, reader  # noqa: E402 (after the interpreter check)

PMUSIM = os.path.join(ROOT, "build", "host", "pmusim")
REPORT = os.path.join(ROOT, "tools", "ktap-report.py")
# The schema beside the module that writes to it.
SCHEMA = os.path.join(os.path.dirname(kcidb.__file__), "kcidb-v5.schema.json")
# name: pmusim arguments (None: a log of the tree)
RUNS = {
    "pass-known": ["--profile", "synth-core2-conroe"],
    "fail-kvm-intel": ["--profile", "kvm-intel-sapphirerapids"],
    "fail-kvm-amd": ["--profile", "kvm-amd-zen4"],
    "smp-4-cpus": ["--profile", "smp-synth-v5-x4"],
    "error-nothing-run": ["--profile", "synth-no-pmu", "--set", "suites=pebs"],
    "qemu-tcg": None,
}

passed = failed = 0


def check(ok, text):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    print(("ok - " if ok else "not ok - ") + text)


def main(argv):
    out = argv[0] if argv else os.path.join(ROOT, "build", "test-logs", "kcidb")
    os.makedirs(out, exist_ok=True)
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    print(f"# jsonschema {jsonschema.__name__} from {os.path.dirname(jsonschema.__file__)}")
    for name, args in RUNS.items():
        log = os.path.join(out, f"{name}.ktap")
        if args is None:
            log = os.path.join(ROOT, "testing", "unit", "data", "report-qemu-tcg.ktap")
        else:
            with open(log, "w") as f:
                subprocess.run([PMUSIM] + args, stdout=f, stderr=subprocess.STDOUT, timeout=120)
        path = os.path.join(out, f"{name}.json")
        p = subprocess.run([sys.executable, REPORT, "kcidb", log, "-o", path], capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: ktap-report.py kcidb writes {os.path.basename(path)} {p.stderr.strip()}")
        if p.returncode:
            continue
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        check(not errors, f"{name}: valid against the KCIDB v5.3 schema"
              + (f" ({len(errors)} errors; first: {errors[0].message[:120]} at "
                 f"{'/'.join(map(str, errors[0].path))})" if errors else ""))
        run = reader.read_log(log)
        tests = list(run.tests())
        kt = doc["tests"][1:]
        check(len(kt) == len(tests) and doc["tests"][0]["path"] == "pmutest",
              f"{name}: one KCIDB test per test of the log ({len(tests)}) and one for the run")
        check(all(k["status"] == kcidb.STATUS[t.result] and k["misc"]["ktap_result"] == t.result
                  and k["path"].endswith("." + t.name) for k, t in zip(kt, tests)),
              f"{name}: each test's status is its result's")
        verdict = run.verdict
        check(doc["tests"][0]["status"] == kcidb.RUN_STATUS.get(verdict, "ERROR"),
              f"{name}: the run's status is its verdict's ({verdict})")
        known = [(t.full_name, failures.known_deviation(t)[0]) for t in tests if t.result == "xfail"]
        issues = {i["id"]: i for i in doc["issues"]}
        by_id = {k["id"]: k for k in kt}
        linked = sorted((by_id[i["test_id"]]["misc"]["name"],
                         issues[i["issue_id"]]["report_subject"].split()[-1]) for i in doc["incidents"])
        check(linked == sorted(known), f"{name}: every known deviation is an incident of its row ({len(known)})")
        label = machine.machine_label(run, "unknown machine")
        check(all(k["environment"]["comment"] == label for k in doc["tests"]),
              f"{name}: the machine is every test's environment ({label})")
    # The validator can fail.
    bad = json.loads(json.dumps(doc))
    bad["tests"][1]["status"] = "XFAIL"
    bad["tests"][2]["path"] = "pmutest.rdpmc@cpu1.x"
    errors = list(validator.iter_errors(bad))
    check(len(errors) == 2, f"a status KCIDB lacks and a path with '@' are rejected ({len(errors)} errors)")
    cut = os.path.join(out, "cut.ktap")
    with open(os.path.join(out, "fail-kvm-intel.ktap")) as f, open(cut, "w") as g:
        g.write(f.read()[:3000])
    p = subprocess.run([sys.executable, REPORT, "kcidb", cut], capture_output=True, text=True)
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and not p.stdout
          and "Traceback" not in p.stderr, f"a truncated log: one line, exit 2 ({p.stderr.strip()[:100]})")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

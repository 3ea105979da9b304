#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One verdict, every reader: a matrix of runs, one per verdict the kernel
prints (PASS, FAIL, ERROR with only a known deviation executed, ERROR with
nothing executed, INCOMPLETE, PASS-INFERRED), each read by every reader of
tools/pmureport and the LAVA job's patterns; each must say what the kernel
said (the "# verdict:" line and pmusim's exit status), never compute a
verdict of its own:

  json      "verdict" is the kernel's word
  junit     the log suite's "verdict" testcase: a failure for FAIL, an error
            for ERROR and INCOMPLETE, named in system-out for PASS-INFERRED,
            neither for PASS; each INFERRED test carries its property
  kcidb     the run's status: PASS, DONE (PASS-INFERRED), FAIL, else ERROR
  html      data-verdict is the kernel's word
  bugreport "**Verdict: X**"
  diff      from the PASS run: exit 0 only when the run is PASS too
  compare   against an empty expectations file: exit 0 only for PASS
  lava      tools/lava-job.py's verdict pattern and fixupdict: pass only
            for PASS; INFERRED tests "unknown"

  testing/check-readers.py [PMUSIM]
Prints one ok / not ok line a check and "N passed, N failed"; exit 0 when
all pass, 1 when one fails, 2 on bad usage."""

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = [sys.executable, os.path.join(ROOT, "tools", "ktap-report.py")]
DUMP = os.path.join(ROOT, "data", "cpuid", "kvm_qemu_host_kbl_r_i7_8650u.txt")

# name, pmusim arguments, the verdict and exit status the kernel gives
RUNS: list[tuple[str, list[str], str, int]] = [
    ("pass", ["--profile", "synth-v5-metrics", "--set", "suites=rdpmc"], "PASS", 0),
    ("fail", ["--profile", "synth-v5-metrics", "--quirk", "rdpmc-fast-on-arch", "--set",
              "suites=rdpmc"], "FAIL", 1),
    # The one test executed is a known deviation: no evidence, ERROR.
    ("xfail-only", ["--cpuid-dump", DUMP, "--quirk", "global-ctrl-reset-zero", "--set",
                    "host_kernel=6.8.0", "--set", "tests=cpuid.global_ctrl_reset_value"], "ERROR", 3),
    ("error", ["--profile", "synth-no-pmu", "--set", "suites=rdpmc"], "ERROR", 3),
    ("incomplete", ["--profile", "smp-synth-v5-x4", "--set", "smp_silent_cpu=2", "--set",
                    "suites=cpuid"], "INCOMPLETE", 3),
    ("inferred", ["--profile", "intel_icelake_client_706e5", "--quirk", "anythread-deprecation-ignored",
                  "--set", "tests=versions.anythread"], "PASS-INFERRED", 0),
]
KCIDB_RUN = {"PASS": "PASS", "PASS-INFERRED": "DONE", "FAIL": "FAIL"}

passed = failed = 0


def check(ok: bool, what: str) -> None:
    global passed, failed
    print(f"{'ok' if ok else 'not ok'} - {what}")
    if ok:
        passed += 1
    else:
        failed += 1


def report(*args: str) -> tuple[int, str]:
    p = subprocess.run(REPORT + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def lava_job() -> Any:
    """tools/lava-job.py as a module (its name has a hyphen)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    spec = importlib.util.spec_from_file_location("lava_job", os.path.join(ROOT, "tools", "lava-job.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: testing/check-readers.py [PMUSIM]", file=sys.stderr)
        return 2
    pmusim = argv[0] if argv else os.path.join(ROOT, "build", "host", "pmusim")
    if not os.access(pmusim, os.X_OK):
        print(f"check-readers: {pmusim} not built (make host)", file=sys.stderr)
        return 2
    lava = lava_job()
    verdict_re = re.compile(lava.VERDICT_START + lava.VERDICT_LINE)
    test_re = re.compile(lava.TEST_LINE)
    with tempfile.TemporaryDirectory(prefix="pmutest-readers.") as tmp:
        empty = os.path.join(tmp, "empty.txt")
        with open(empty, "w") as f:
            f.write("# nothing expected: every test passes\n")
        logs = {}
        for name, args, want, rc in RUNS:
            p = subprocess.run([pmusim, *args], capture_output=True, text=True, timeout=300)
            log = logs[name] = os.path.join(tmp, f"{name}.ktap")
            with open(log, "w") as f:
                f.write(p.stdout)
            said = re.findall(r"^# verdict: (\S+)$", p.stdout, re.M)
            check(said == [want] and p.returncode == rc,
                  f"{name}: the kernel says verdict {want}, exit {rc} (said {said}, exit {p.returncode})")
        for name, _, want, _ in RUNS:
            log = logs[name]
            rc, out = report("json", log)
            v = json.loads(out).get("verdict") if rc == 0 else None
            check(v == want, f"{name}: json verdict {v}, kernel {want}")

            rc, out = report("junit", log)
            root = ET.fromstring(out) if rc == 0 else ET.Element("none")
            tv = root.find("testsuite[@name='log']/testcase[@name='verdict']")
            has = {k: tv is not None and tv.find(k) is not None for k in ("failure", "error", "system-out")}
            want_junit = {"failure": want == "FAIL", "error": want in ("ERROR", "INCOMPLETE"),
                          "system-out": want == "PASS-INFERRED"}
            check(has == want_junit, f"{name}: junit verdict testcase {has}, want {want_junit}")
            inferred_tests = root.findall(".//testcase/properties/property[@name='inferred']")
            check(bool(inferred_tests) == (want == "PASS-INFERRED"),
                  f"{name}: junit names {len(inferred_tests)} INFERRED test(s)")

            html = os.path.join(tmp, f"{name}.html")
            rc, out = report("html", "-o", html, log)
            page = open(html).read() if rc == 0 else ""
            m = re.search(r'id="verdict"[^>]*data-verdict="([^"]*)"', page)
            shown = m.group(1) if m else None
            check(shown == want, f"{name}: html verdict {shown}, kernel {want}")

            rc, out = report("kcidb", log)
            status = json.loads(out)["tests"][0]["status"] if rc == 0 else None
            check(status == KCIDB_RUN.get(want, "ERROR"),
                  f"{name}: kcidb run status {status}, want {KCIDB_RUN.get(want, 'ERROR')}")

            md = os.path.join(tmp, f"{name}.md")
            rc, out = report("bugreport", "-o", md, log)
            text = open(md).read() if rc == 0 else out
            check(f"**Verdict: {want}**" in text, f"{name}: bugreport says verdict {want}")

            rc, out = report("diff", logs["pass"], log)
            check((rc == 0) == (want == "PASS"), f"{name}: diff from the PASS run exits {rc}")

            rc, out = report("compare", log, empty)
            check((rc == 0) == (want == "PASS"), f"{name}: compare with no expectations exits {rc}")

            text = open(log).read()
            mv = verdict_re.search(text)
            lava_v = lava.VERDICT_FIXUP.get(mv.group("result")) if mv else None
            want_lava = "pass" if want == "PASS" else "unknown" if want == "PASS-INFERRED" else "fail"
            check(lava_v == want_lava, f"{name}: lava verdict case {lava_v}, want {want_lava}")
            lava_inferred = [m for m in test_re.finditer(text) if m.group("result") == "INFERRED"]
            check(bool(lava_inferred) == (want == "PASS-INFERRED")
                  and all(lava.TEST_FIXUP[m.group("result")] == "unknown" for m in lava_inferred),
                  f"{name}: lava reads {len(lava_inferred)} INFERRED test(s) as unknown")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what LAVA recorded for a pmutest job against the run's KTAP log.

  lava-results.py OUTPUT_DIR [--expect complete|incomplete] [--ktap LOG] [--save-ktap FILE]

OUTPUT_DIR is a lava-run output directory holding result.yaml (the job's
own result, written by lava-run) and output.yaml (lava-run's log, saved by
the caller from its standard output: one YAML flow mapping a line, the
console lines as "target", each result as "results").

The KTAP log is the one LAVA read from the console (its "target" lines),
unless --ktap names another; --save-ktap writes the one LAVA read. With --expect complete (the default): the job
completed, the log is a whole run, and LAVA has exactly one result per test
of the log, named as tools/lava-job.py names them, with the test's result,
plus the verdict case, and nothing else. With --expect incomplete: the job
did not complete and LAVA has no verdict: a run that never reaches its
verdict must never look like a pass.

One "ok"/"not ok" line a check, then "N passed, N failed"; exit 0 when all
pass, 1 when one fails, 2 when the directory cannot be read.
"""

import argparse
import json
import os
import re
import sys

from pmureport import expand, ktap, reader

# The LAVA result of each pmutest result (tools/lava-job.py's fixupdict).
LAVA_RESULT = {"pass": "pass", "fail": "fail", "error": "fail", "timeout": "fail",
               "skip": "skip", "xfail": "pass", "inferred": "unknown"}
VERDICT_RESULT = {"PASS": "pass", "PASS-INFERRED": "unknown", "FAIL": "fail", "ERROR": "fail",
                  "INCOMPLETE": "fail"}
# lava-run's own results (validate, each action, the job) are suite "lava".
LAVA_OWN = "lava"


class ReadError(Exception):
    pass


def yaml_line(text):
    """One line of lava-run's log: a YAML flow mapping whose scalars are all
    double-quoted (lava_common/log.py). For ASCII text that is JSON; YAML's
    own escapes (\\e, \\x1b, \\N...) are mapped to JSON's first."""
    yaml_only = {"e": "\\u001b", "0": "\\u0000", "a": "\\u0007", "v": "\\u000b",
                 "N": "\\u0085", "_": "\\u00a0", "L": "\\u2028", "P": "\\u2029", " ": " ",
                 "/": "/", "\t": "\\t"}

    def esc(m):
        c = m.group(1)
        if c[0] == "x":
            return "\\u00" + c[1:]
        return yaml_only.get(c, "\\" + c)
    # A YAML non-specific tag ("! " before a quoted scalar: lava-run's sizes)
    # changes nothing of the value.
    text = re.sub(r'([:,\[{] )! "', r'\1"', text)
    fixed = re.sub(r"\\(x[0-9a-fA-F]{2}|[e0avN_LP /\t]|.)", esc, text)
    return json.loads(fixed)


def read_output(path):
    """(results, console lines, unreadable line count) of output.yaml."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read(ktap.MAX_LOG_BYTES).splitlines()
    except OSError as e:
        raise ReadError(f"cannot read {path}: {e.strerror}")
    results, console, bad = [], [], 0
    typed = set()  # what LAVA typed: the pty (and QEMU's stdio) echo it back
    for ln in lines:
        ln = ln.strip()
        if ln.startswith("- "):
            ln = ln[2:]
        if not ln.startswith("{"):
            continue
        try:
            d = yaml_line(ln)
        except ValueError:
            bad += 1
            continue
        if d.get("lvl") == "results" and isinstance(d.get("msg"), dict):
            results.append(d["msg"])
        elif d.get("lvl") == "input" and isinstance(d.get("msg"), str):
            typed.add(d["msg"].strip())
        elif d.get("lvl") == "target" and isinstance(d.get("msg"), str):
            if d["msg"].strip() in typed:
                continue
            # LAVA escapes double quotes in console lines (lava_dispatcher/shell.py).
            console.append(d["msg"].replace('\\"', '"'))
    return results, console, bad


def read_result_yaml(path):
    """result.yaml: a flat mapping of plain or quoted scalars."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError as e:
        raise ReadError(f"cannot read {path}: {e.strerror}")
    out = {}
    for ln in text.splitlines():
        key, sep, value = ln.partition(":")
        if sep and not ln.startswith(" "):
            value = value.strip()
            if value[:1] in "'\"" and value[-1:] == value[:1]:
                value = value[1:-1]
            out[key.strip()] = value
    return out


def lava_suite(suite):
    return suite.replace("@", "-")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output_dir")
    p.add_argument("--expect", choices=("complete", "incomplete"), default="complete")
    p.add_argument("--ktap", help="the run's KTAP log (default: LAVA's console lines)")
    p.add_argument("--save-ktap", metavar="FILE", help="write LAVA's console lines to FILE")
    args = p.parse_args(argv)
    passed = failed = 0

    def check(ok, text, details=()):
        nonlocal passed, failed
        passed += bool(ok)
        failed += not ok
        print(("ok - " if ok else "not ok - ") + text)
        for d in list(details)[:20]:
            print(f"#   {d}")

    try:
        job = read_result_yaml(os.path.join(args.output_dir, "result.yaml"))
        results, console, bad = read_output(os.path.join(args.output_dir, "output.yaml"))
    except ReadError as e:
        print(f"lava-results: {e}", file=sys.stderr)
        return 2
    check(bad == 0, f"every line of output.yaml reads ({bad} do not)")
    job_result = job.get("result", "none")
    why = job.get("error_msg", "")
    ours = [r for r in results if r.get("definition") != LAVA_OWN]
    verdicts = [r for r in ours if r.get("definition") == "pmutest" and r.get("case") == "verdict"]
    print(f"# LAVA: job {job_result}{' (' + why + ')' if why else ''}; "
          f"{len(ours)} pmutest results, {len(console)} console lines")

    if args.expect == "incomplete":
        # lava-run's job result is "fail" exactly when the job is incomplete
        # (a LAVA server marks it Incomplete); a completed job is "pass"
        # whatever its tests did.
        check(job_result == "fail", f"the job is incomplete (result.yaml: {job_result}; {why or 'no error'})")
        check(not verdicts, "LAVA recorded no verdict for a run that never reached one")
        check(not any(r.get("result") == "pass" and r.get("definition") == "pmutest" for r in ours),
              "nothing in LAVA says the run passed")
        print(f"{passed} passed, {failed} failed")
        return 0 if failed == 0 else 1

    check(job_result == "pass", f"the job completed (result.yaml: {job_result}{'; ' + why if why else ''})")
    for i, ln in enumerate(console):
        # Firmware may leave its last line open (SeaBIOS's "Booting from
        # ROM.." before a direct-boot kernel): the report starts at its header.
        at = ln.find("KTAP version 1")
        if at > 0:
            console[i:i + 1] = [ln[:at], ln[at:]]
            break
        if at == 0:
            break
    if args.save_ktap:
        try:
            with open(args.save_ktap, "w", encoding="utf-8") as f:
                f.write("".join(ln + "\n" for ln in console))
        except OSError as e:
            print(f"lava-results: cannot write {args.save_ktap}: {e.strerror}", file=sys.stderr)
            return 2
    try:
        run = reader.read_log(args.ktap) if args.ktap else reader.parse("\n".join(console) + "\n")
    except ktap.KtapError as e:
        check(False, f"the console holds the KTAP log ({e})")
        print(f"{passed} passed, {failed} failed")
        return 1
    check(not run.errors, f"the KTAP log LAVA read is a whole run ({len(run.suites)} suites)",
          run.errors)
    # A suite the console wrote as one line "same as cpuN" (compact = 1) has
    # no case in LAVA (no test line to match): its tests are its reference's
    # results, which LAVA has under the reference's suite.
    _, one_line = expand.compact_written(console)
    want, by_ref, by_ref_wrong = {}, 0, []
    for t in run.tests():
        if t.suite in one_line:
            ref = (lava_suite(expand.ref_label(t.suite, one_line[t.suite])), t.name)
            by_ref += 1
            if want.get(ref) != LAVA_RESULT[t.result]:
                by_ref_wrong.append(f"{t.full_name}: {LAVA_RESULT[t.result]}, {'/'.join(ref)}: {want.get(ref)}")
            continue
        want[(lava_suite(t.suite), t.name)] = LAVA_RESULT[t.result]
    if one_line:
        check(not by_ref_wrong, f"the {by_ref} tests of {len(one_line)} suites written 'same as cpuN' "
              "are their reference's LAVA results", by_ref_wrong)
    if run.verdict in VERDICT_RESULT:
        want[("pmutest", "verdict")] = VERDICT_RESULT[run.verdict]
    got, dups = {}, []
    for r in ours:
        key = (r.get("definition"), r.get("case"))
        if key in got:
            dups.append("%s/%s" % key)
        got[key] = r.get("result")
    check(not dups, f"each LAVA result is recorded once ({len(dups)} twice)", dups)
    missing = sorted(k for k in want if k not in got)
    extra = sorted(k for k in got if k not in want)
    wrong = sorted(k for k in want if k in got and got[k] != want[k])
    check(not missing, f"every test of the log is a LAVA result ({len(want)} expected, "
          f"{len(missing)} missing)", [f"{s}/{c}: {want[(s, c)]}" for s, c in missing])
    check(not extra, f"LAVA has no result the log lacks ({len(extra)} extra)",
          [f"{s}/{c}: {got[(s, c)]}" for s, c in extra])
    check(not wrong, f"every LAVA result is the log's ({len(wrong)} differ)",
          [f"{s}/{c}: LAVA {got[(s, c)]}, log {want[(s, c)]}" for s, c in wrong])
    check(len(verdicts) == 1 and verdicts[0].get("result") == VERDICT_RESULT.get(run.verdict),
          f"the verdict is its own case: pmutest/verdict = "
          f"{verdicts[0].get('result') if verdicts else 'missing'} (log: {run.verdict or 'none'})")
    counts = {}
    for v in got.values():
        counts[v] = counts.get(v, 0) + 1
    print("# LAVA results: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

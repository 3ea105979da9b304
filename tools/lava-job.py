#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a LAVA job for pmutest from a template in lava/jobs/.

  lava-job.py TEMPLATE [--suites-from LOG | --suites A,B,...] [--cpus 0,2-3]
              [--set KEY=VALUE]... [-o JOB]

LAVA has no KTAP parser, and pmutest's test names repeat across suites, so
one monitor for the whole log would give ambiguous case names. The job has
one `monitors` entry per pmutest suite instead (LAVA runs them in order,
each from its suite's "# Subtest:" line to the suite's result line), and a
last one, "pmutest", whose one case is the run's verdict. The suite list
must be the run's, in the run's order: take it from a log of the same build
and options (`--suites-from`, e.g. `pmusim --config` with the stick's
options file), or give it (`--suites`); `--cpus` turns each suite into
suite@cpuN for every listed CPU, CPU after CPU, as the kernel runs them.

LAVA names (the monitor name is the LAVA test suite, the test the case):
  pmutest suite "rdpmc"        -> LAVA suite "rdpmc"
  pmutest suite "rdpmc@cpu2"   -> LAVA suite "rdpmc-cpu2" (LAVA refuses '@')
  pmutest test "rdpmc.fast_bit" -> case "fast_bit" of suite "rdpmc"
  "# verdict: X"               -> case "verdict" of suite "pmutest"
Results: ok -> pass, not ok (a failure, an exception, # TIMEOUT) -> fail,
# SKIP -> skip, # XFAIL (a known deviation, the run passes) -> pass,
# INFERRED (an inferred rule not followed) -> unknown; the verdict PASS ->
pass, PASS-INFERRED -> unknown, FAIL, ERROR or INCOMPLETE -> fail. The same names every run,
so a lab's result history lines up.

The template is YAML with @NAME@ placeholders: @MONITORS@ (the list above,
on a line of its own, indented as its first item should be) and any
--set KEY=VALUE (@KEY@); a template line "# default: KEY=VALUE" gives a
default. A placeholder left unset is an error.

Exit status: 0 written, 2 bad input (one line on stderr).
"""

import argparse
import json
import re
import sys

from pmureport import ktap, reader, verdict

# Names LAVA's job schema accepts for a monitor (lava_common/schemas/test/monitor.py).
LAVA_NAME_RE = re.compile(r"^[-_a-zA-Z0-9.]+$")
SUITE_NAME_RE = re.compile(r"^[a-z0-9_]{1,64}(@cpu[0-9]{1,4})?$")
PLACEHOLDER_RE = re.compile(r"@([A-Z][A-Z0-9_]*)@")
DEFAULT_RE = re.compile(r"^# default: ([A-Z][A-Z0-9_]*)=(.*)$", re.M)

# The console reaches LAVA through a pty: a line ends "\r\r\n" there (the
# kernel writes "\r\n"). LAVA (pexpect) searches only the last 4000 bytes
# of what it has not consumed, so no pattern relies on "^": a line is
# "\n" followed by its text, and every pattern stops before the line's own
# newline, leaving it to start the next line, yet demands that newline in a
# lookahead, so that a line read half is never taken for a whole one.
EOL = r"(?=\r*\n)"
# One result line of a test, four spaces in (KTAP nesting). LAVA's fixupdict
# maps only the group named "result", so that group captures the directive
# when the line has one (SKIP, XFAIL, INFERRED after "ok"; TIMEOUT after "not
# ok") and "ok" / "not ok" otherwise: a lookahead first skips to where the
# group starts, then the line is read as a whole. An inferred-rule departure
# is "unknown": LAVA's word for neither a pass nor a failure.
TEST_LINE = (r"\n    (?=(?:ok \d+ \w+ # (?=SKIP|XFAIL|INFERRED)|not ok \d+ \w+ # (?=TIMEOUT)"
             r"|(?=not ok)|(?=ok))(?P<result>SKIP|XFAIL|INFERRED|TIMEOUT|not ok|ok))"
             r"(?:not )?ok \d+ (?P<test_case_id>\w+)[^\r\n]*" + EOL)
TEST_FIXUP = {"ok": "pass", "not ok": "fail", "SKIP": "skip", "XFAIL": "pass", "INFERRED": "unknown",
              "TIMEOUT": "fail"}
# The verdict is the last line the kernel prints (bar "# report saved"), so
# no end string could follow it: the case is matched on the line
# "# Totals: pass:...", where the start stops, with the verdict a few lines
# on in a lookahead; the verdict line itself then ends the monitor.
VERDICT_START = r"\n# Totals(?=: pass:)"
VERDICT_LINE = (r": pass:[^\r\n]*(?=(?:[^\n]*\n){1,17}?# (?P<test_case_id>verdict): "
                r"(?P<result>PASS-INFERRED|PASS|FAIL|ERROR|INCOMPLETE)" + EOL + ")")
VERDICT_END = r"\n# verdict: (?:PASS-INFERRED|PASS|FAIL|ERROR|INCOMPLETE)" + EOL
VERDICT_FIXUP = {"PASS": "pass", "PASS-INFERRED": "unknown", "FAIL": "fail", "ERROR": "fail",
                 "INCOMPLETE": "fail"}
VERDICT_SUITE = "pmutest"


class UsageError(Exception):
    pass


def lava_suite_name(suite):
    """The LAVA test suite of a pmutest suite: "rdpmc@cpu2" -> "rdpmc-cpu2"."""
    return suite.replace("@", "-")


def monitor_for(suite):
    name = lava_suite_name(suite)
    if not LAVA_NAME_RE.match(name):
        raise UsageError(f"suite name {suite!r} cannot be a LAVA suite name")
    s = re.escape(suite)
    # A suite written as one line "ok N suite # same as cpuM" (compact = 1,
    # kernel/compact.h) has no block: the start is then the empty string
    # before that line, which is also the end; LAVA records no case for it,
    # and lava-results.py reads its tests as its reference's.
    return {
        "name": name,
        "start": r"\n    # Subtest: " + s + EOL + r"|(?=\n(?:not )?ok \d+ " + s
                 + r" # (?:[A-Z]+ )?same as cpu\d+" + EOL + ")",
        "end": r"\n(?:not )?ok \d+ " + s + r"(?: [^\r\n]*)?" + EOL,
        "pattern": TEST_LINE,
        "fixupdict": TEST_FIXUP,
    }


def verdict_monitor():
    return {"name": VERDICT_SUITE, "start": VERDICT_START, "end": VERDICT_END,
            "pattern": VERDICT_LINE, "fixupdict": VERDICT_FIXUP}


def parse_cpus(text):
    """"0,2-3" -> [0, 2, 3]."""
    cpus = []
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()):
            raise UsageError(f"--cpus wants a list like 0,2-3, got {text!r}")
        a, b = int(lo), int(hi) if dash else int(lo)
        if b < a or b > 4095:
            raise UsageError(f"--cpus: bad range {part!r}")
        cpus += [c for c in range(a, b + 1) if c not in cpus]
    return cpus


def suites_of_log(path):
    run = reader.read_log(path)
    names = [s.name for s in run.suites if s.name]
    if not names:
        raise UsageError(f"{path}: no suite in the log")
    bad = verdict.broken(run)
    if bad:
        # The suite list is all that is taken, but a broken log may lack suites.
        raise UsageError(f"{path}: not a complete run ({bad[0]}); "
                         "take the suite list from a finished one")
    return names


def yaml_list(items, indent):
    """items as a YAML block list; every scalar is a JSON string, which YAML
    reads as a double-quoted scalar (escapes included), so no pattern needs
    YAML quoting rules of its own."""
    pad = " " * indent
    out = []
    for m in items:
        first = True
        for key, value in m.items():
            lead = pad + ("- " if first else "  ")
            first = False
            if isinstance(value, dict):
                out.append(f"{lead}{key}:")
                for k, v in value.items():
                    out.append(f"{pad}    {json.dumps(k)}: {json.dumps(v)}")
            else:
                out.append(f"{lead}{key}: {json.dumps(value)}")
    return "\n".join(out)


def fill(template, monitors, values):
    lines = []
    for ln in template.split("\n"):
        if ln.strip() == "@MONITORS@":
            lines.append(yaml_list(monitors, len(ln) - len(ln.lstrip(" "))))
        else:
            lines.append(ln)
    text = "\n".join(lines)

    def sub(m):
        key = m.group(1)
        if key not in values:
            raise UsageError(f"the template needs @{key}@: give --set {key}=VALUE")
        return values[key]
    return PLACEHOLDER_RE.sub(sub, text)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("template")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--suites-from", metavar="LOG", help="the suite list of this KTAP log")
    src.add_argument("--suites", help="comma-separated suite names, in run order")
    p.add_argument("--cpus", help="the CPUs the suites run on (suite@cpuN each)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("-o", "--output")
    args = p.parse_args(argv)
    try:
        suites = suites_of_log(args.suites_from) if args.suites_from else \
            [s.strip() for s in args.suites.split(",") if s.strip()]
        for s in suites:
            if not SUITE_NAME_RE.match(s):
                raise UsageError(f"{s!r} is not a pmutest suite name")
        if args.cpus:
            cpus = parse_cpus(args.cpus)
            base = [ktap.split_cpu(s)[0] for s in suites]
            base = list(dict.fromkeys(base))  # a log on several CPUs lists each suite per CPU
            suites = [f"{s}@cpu{c}" for c in cpus for s in base] if len(cpus) > 1 else base
        if len(set(suites)) != len(suites):
            raise UsageError("a suite is listed twice")
        values = {}
        for kv in args.set:
            key, eq, value = kv.partition("=")
            if not eq or not re.fullmatch(r"[A-Z][A-Z0-9_]*", key):
                raise UsageError(f"--set wants KEY=VALUE with KEY in capitals, got {kv!r}")
            values[key] = value
        try:
            with open(args.template, encoding="utf-8") as f:
                template = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"cannot read the template {args.template}: {getattr(e, 'strerror', e)}")
        values = {**dict(DEFAULT_RE.findall(template)), **values}
        if "@MONITORS@" not in template:
            raise UsageError(f"{args.template}: no @MONITORS@ line")
        job = fill(template, [monitor_for(s) for s in suites] + [verdict_monitor()], values)
        if args.output:
            try:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(job)
            except OSError as e:
                raise UsageError(f"cannot write {args.output}: {e.strerror}")
        else:
            sys.stdout.write(job)
    except (UsageError, ktap.KtapError) as e:
        print(f"lava-job: {ktap.sanitize(str(e))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

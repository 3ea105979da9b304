# SPDX-License-Identifier: MIT
"""Turn a pmutest KTAP log into evidence.

  ktap-report.py validate LOG              structural KTAP v1 check
  ktap-report.py junit LOG [-o FILE]       JUnit XML
  ktap-report.py json LOG [-o FILE]        JSON report (results, measurements, record)
  ktap-report.py compare LOG EXPECTATIONS  compare with a platform's expected results
  ktap-report.py baseline LOG [-o FILE]    a starting expectations file for that platform
  ktap-report.py html LOG... -o FILE       one self-contained HTML page: one run's
                                           report, or a matrix of several runs
  ktap-report.py diff OLD NEW              what changed from run OLD to run NEW
  ktap-report.py kcidb LOG [-o FILE]       a KernelCI (KCIDB v5) submission of the run
  ktap-report.py expand LOG [-o FILE]      the log in its full form: every compact
                                           line ("same as cpuN", SKIP "ditto";
                                           kernel/compact.h) written out

Exit status: 0 when the log is valid / matches, 1 when compare finds a
mismatch, 2 on bad input: no file, not KTAP, a broken log (truncated, bailed
out, no or a contradicted verdict, an unknown directive, no test executed:
`validate` says which), a malformed expectations file, bad usage. junit and
json always convert, and a broken log never converts to a pass: it is an
error testcase in JUnit and verdict ERROR in JSON.

Expectations file: one entry a line, '#' starting a comment line:
    PATTERN  RESULT  [REASON...]
        FINGERPRINT-LINE...        (indented; every fail, error, timeout, xfail)
PATTERN is suite.test, with shell wildcards (rdpmc.*); in a run on several
CPUs (suites named suite@cpuN) it applies to every CPU, and suite@cpuN.test
to that CPU only (an exact name with the CPU beats one without); RESULT is one of
pass, fail, skip, timeout, error, xfail; every RESULT other than pass needs
a REASON. A known deviation ("# XFAIL", the kernel's table) needs an xfail
entry naming its row: the kernel's verdict is PASS, but it is a deviation
the platform's file must expect. An exact name beats a wildcard; among wildcards the first wins;
tests no entry matches are expected to pass. One line may state
    verdict  incomplete  REASON
for a run that leaves an enumerated CPU untested on purpose (verdict
INCOMPLETE, "# incomplete: ..."); without it INCOMPLETE is a mismatch, and
with it a complete run is. A test the file states is a
match when its result is the stated one (a stated SKIP included). A test no
entry matches that skips is reported ("skip, not listed") but is not a
mismatch: a skip names the CPUID bit the platform lacks, which is no
deviation. An exact name that the log does not report is a mismatch (the
test vanished), unless the run did not select it (the log's "# selection:"
line; a log without one selected every test).

A fail, error, timeout or xfail entry states its failure: its fingerprint
lines (pmureport.fingerprint: "check: CLASS :: WHAT :: RULE" for each failed
check, "exception: #GP(0)", "state: changed", "timeout:", "known: ID").
The test matches only when its own fingerprint is exactly those lines: any
other failed check (one before an exception included), another outcome
class (#UD where the line says #GP(0)), another known row, or a described
check that no longer fails is a mismatch. An XFAIL of a test the file
expects to pass is a mismatch too: a known deviation the file does not
name. Skips no entry names are counted in one line (--list-skips lists
them).

html, diff and kcidb refuse a broken log (no file, not KTAP, truncated, no plan,
bailed out, a contradicted verdict): one line naming it, exit 2. A run
whose own verdict is ERROR is a finished run and is shown as such. diff
exits 1 when NEW is worse (see pmureport/diff.py worse(): a worse verdict,
a regression, a lost test or CPU, a changed failure), else 0.

baseline writes one line per test that did not pass, its reason prefilled:
the skip reason, the rule of the first failed check, or the exception, and
under it the test's fingerprint.
Review every line before shipping it: a line is a claim about the platform.
"""

import argparse
import json
import os
import sys
from typing import Callable, Optional

from . import jsonreport
from .diff import KINDS, compare, describe, is_regression, worse
from .expand import expand_text
from .expectations import ExpectationsError, baseline
from .expectations import compare as compare_expectations
from .htmlreport import render
from .junit import junit
from .kcidb import submission
from .ktap import MAX_LOG_BYTES, KtapError, Run, sanitize
from .reader import read_log
from .replay import PMUSIM, ReplayError, bugreport, explain
from .verdict import broken, verdict_of


class UsageError(Exception):
    """Bad usage or input: one line on stderr, exit 2."""


def cmd_validate(run: Run, args: argparse.Namespace) -> int:
    for e in run.errors:
        print(f"not ok - {e}")
    n = sum(1 for _ in run.tests())
    if run.errors:
        print(f"invalid KTAP: {len(run.errors)} problems in {args.log}")
        return 2
    print(f"valid KTAP v1: {len(run.suites)} suites, {n} tests")
    return 0


def cmd_compare(run: Run, args: argparse.Namespace) -> int:
    return compare_expectations(run, args.expectations, args.verbose, args.list_skips)


def cmd_baseline(run: Run, args: argparse.Namespace) -> int:
    text, n = baseline(run, args.log)
    emit(text, args)
    if args.output:
        print(f"{n} lines written to {args.output}", file=sys.stderr)
    return 0


def cmd_junit(run: Run, args: argparse.Namespace) -> int:
    return emit(junit(run), args)


def cmd_json(run: Run, args: argparse.Namespace) -> int:
    return emit(jsonreport.text(run), args)


def read_complete(path: str) -> Run:
    """A log for html and diff: complete, or one line and exit 2."""
    try:
        run = read_log(path)
    except KtapError as e:
        msg = str(e)
        raise UsageError(msg if path in msg else f"{path}: {msg}") from None
    bad = broken(run)
    if bad:
        raise UsageError(f"{path}: broken log: {bad[0]}"
                         + (f" (and {len(bad) - 1} more problems)" if len(bad) > 1 else ""))
    return run


def read_bytes(path: str) -> bytes:
    """A log's bytes, MAX_LOG_BYTES and one more at most."""
    try:
        with open(path, "rb") as f:
            return f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}")


def cmd_html(args: argparse.Namespace) -> int:
    runs = [(path, read_complete(path)) for path in args.logs]
    return emit(render(runs), args)


def cmd_kcidb(args: argparse.Namespace) -> int:
    run = read_complete(args.log)
    data = read_bytes(args.log)[:MAX_LOG_BYTES]
    return emit(json.dumps(submission(run, data), indent=1) + "\n", args)


def cmd_expand(args: argparse.Namespace) -> int:
    """The full form of a compact log (expand.expand_text); a compact line
    that cannot be expanded is an error (exit 2), never dropped."""
    data = read_bytes(args.log)
    if len(data) > MAX_LOG_BYTES:
        raise UsageError(f"{args.log} is larger than {MAX_LOG_BYTES >> 20} MiB: not a pmutest log")
    text, errors = expand_text(data.decode("utf-8", errors="replace"))
    if errors:
        raise UsageError(f"{args.log}: {errors[0]}"
                         + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    return emit(text, args)


def cmd_diff(args: argparse.Namespace) -> int:
    old, new = read_complete(args.old), read_complete(args.new)
    changes = compare(old, new)
    counts = {k: 0 for k in KINDS}
    regressions = 0
    for change in changes:
        kind, name, a, b = change
        counts[kind] += 1
        regressions += is_regression(change)
        if kind == "appeared":
            print(f"appeared: {name}: {describe(b)}")
        elif kind == "disappeared":
            print(f"disappeared: {name}: was {describe(a)}")
        else:
            print(f"{kind}: {name}: {describe(a)} -> {describe(b)}")
    vo, vn = verdict_of(old), verdict_of(new)
    print(f"# verdict: {vo} -> {vn}" if vo != vn else f"# verdict: {vn} (both)")
    print("# " + ", ".join(f"{counts[k]} {k}" for k in KINDS)
          + f"; {regressions} regressions")
    why = worse(old, new, changes)
    if why:
        print("# worse: " + "; ".join(why))
    return 1 if why else 0


def cmd_explain(args: argparse.Namespace) -> int:
    """0: the report's machine is a conforming CPU's; 1: it differs."""
    return 1 if explain(args.log, args.pmusim) else 0


def cmd_bugreport(args: argparse.Namespace) -> int:
    return emit(bugreport(args.log), args)


def emit(text: str, args: argparse.Namespace) -> int:
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror}")
    else:
        sys.stdout.write(text)
    return 0


def flush_stdout() -> bool:
    """Flush stdout now, so that a full disk or a closed pipe is one line and
    exit 2 here rather than a traceback at interpreter exit."""
    try:
        sys.stdout.flush()
    except OSError as e:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        print(f"ktap-report: cannot write the output: {e.strerror}", file=sys.stderr)
        return False
    return True


# The subcommands that read a log themselves (refusing a broken one), and
# those handed the parsed Run, whatever its state.
FILE_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "html": cmd_html, "diff": cmd_diff, "kcidb": cmd_kcidb, "expand": cmd_expand,
    "explain": cmd_explain, "bugreport": cmd_bugreport}
RUN_COMMANDS: dict[str, Callable[[Run, argparse.Namespace], int]] = {
    "validate": cmd_validate, "junit": cmd_junit, "json": cmd_json,
    "compare": cmd_compare, "baseline": cmd_baseline}


def parser(prog: Optional[str] = None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("validate")
    v.add_argument("log")
    for name in ("junit", "json"):
        c = sub.add_parser(name)
        c.add_argument("log")
        c.add_argument("-o", "--output")
    c = sub.add_parser("baseline")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("html")
    c.add_argument("logs", nargs="+", metavar="LOG")
    c.add_argument("-o", "--output", required=True)
    c = sub.add_parser("kcidb")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("expand")
    c.add_argument("log")
    c.add_argument("-o", "--output")
    c = sub.add_parser("diff")
    c.add_argument("old")
    c.add_argument("new")
    c = sub.add_parser("compare")
    c.add_argument("log")
    c.add_argument("expectations")
    c.add_argument("-v", "--verbose", action="store_true", help="also list the matching tests")
    c.add_argument("--list-skips", action="store_true",
                   help="list each skip the file does not name (default: their number)")
    c = sub.add_parser("explain", help="where the report's machine departs from a conforming CPU")
    c.add_argument("log")
    c.add_argument("--pmusim", default=PMUSIM, help="the simulator (default build/host/pmusim)")
    c = sub.add_parser("bugreport", help="a self-contained Markdown bug report")
    c.add_argument("log")
    c.add_argument("-o", "--output", required=True)
    return p


def main(argv: list[str], prog: Optional[str] = None) -> int:
    """Exit status as the help text says; argparse exits 2 itself on bad
    usage."""
    args = parser(prog).parse_args(argv)
    try:
        if args.cmd in ("explain", "bugreport"):
            try:
                return FILE_COMMANDS[args.cmd](args)
            except (ReplayError, KtapError) as e:
                raise UsageError(sanitize(str(e))) from None
        if args.cmd in FILE_COMMANDS:
            rc = FILE_COMMANDS[args.cmd](args)
            return rc if flush_stdout() else 2
        run = read_log(args.log)
        rc = RUN_COMMANDS[args.cmd](run, args)
    except (KtapError, UsageError, ExpectationsError) as e:
        print(f"ktap-report: {sanitize(str(e))}", file=sys.stderr)
        return 2
    except OSError as e:  # stdout on a full disk, a closed pipe
        flush_stdout()
        print(f"ktap-report: cannot write the output: {e.strerror}", file=sys.stderr)
        return 2
    return rc if flush_stdout() else 2


def entry() -> None:
    """The installed `ktap-report` command (pyproject.toml)."""
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: MIT
"""A platform's expectations file: loaded, compared with a run (`compare`),
and started from a run (`baseline`). The file's format is in cli.py's help
text, which users read."""

import fnmatch
import os
import re
from typing import Callable, NamedTuple, Optional, Sequence

from .failures import known_row
from .fingerprint import FINGERPRINT_KEYS, fingerprint
from .ktap import INCOMPLETE_PREFIX, MAX_LOG_BYTES, RESULTS, Run, Test, sanitize
from .selection import selection


class ExpectationsError(Exception):
    """The expectations file is unreadable or malformed, or the run cannot
    start one: one line."""


# Results whose line must carry the failure's fingerprint (fingerprint.py).
FINGERPRINTED = ("fail", "error", "timeout", "xfail", "inferred")

# "verdict incomplete cpus=N[,M...] REASON": the run is expected to leave
# exactly those enumerated CPUs untested (verdict INCOMPLETE, the kernel's
# "# incomplete: ... cpu N (why)" naming them); another CPU missing, or one
# more, is a mismatch, and so is INCOMPLETE without the line.
VERDICT_ENTRY = "verdict"
CPUS_RE = re.compile(r"^cpus=(\d{1,4}(?:,\d{1,4}){0,255})$")
UNTESTED_CPU_RE = re.compile(r"(?:^|, )cpu (\d{1,4}) \(")


def untested_cpus(run: Run) -> list[int]:
    """The CPUs the kernel's "# incomplete:" line names, in its order."""
    out: list[int] = []
    for d in run.diagnostics:
        if d.startswith(INCOMPLETE_PREFIX):
            listed = d.partition(":")[2].partition(":")[2].strip()
            out += [int(c) for c in UNTESTED_CPU_RE.findall(listed)]
    return out


class Entry(NamedTuple):
    """One line of the file and the fingerprint lines under it."""
    pattern: Optional[str]  # None: no line names the test
    result: str
    reason: str
    line: int
    fingerprint: set[str]


NO_ENTRY = Entry(None, "pass", "", 0, set())
Entries = tuple[dict[str, Entry], list[Entry]]


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)
        if len(data) > MAX_LOG_BYTES:
            raise ExpectationsError(f"{path} is larger than {MAX_LOG_BYTES >> 20} MiB")
        lines = data.decode("utf-8").split("\n")
    except OSError as e:
        raise ExpectationsError(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError:
        raise ExpectationsError(f"{path}: not a UTF-8 text file")
    return [sanitize(ln.rstrip("\r")) for ln in lines]


def load_expectations(path: str) -> Entries:
    """(exact, wild): entries (pattern, result, reason, line, fingerprint),
    the fingerprint a set of facts (fingerprint.fingerprint), each an indented
    'key: ...' line under its entry."""
    lines = _read_lines(path)
    entries: list[Entry] = []
    verdict_entry = None
    for n, raw in enumerate(lines, 1):
        # A comment is a line of its own: a reason or a fingerprint may hold '#' (#GP).
        ln = raw.strip()
        if not ln or ln.startswith("#"):
            continue
        if raw[0] in " \t":
            key, sep, _ = ln.partition(":")
            if not sep or key not in FINGERPRINT_KEYS:
                raise ExpectationsError(f"{path}:{n}: an indented line is a fingerprint "
                                        f"({', '.join(k + ':' for k in FINGERPRINT_KEYS)}), got {ln!r}")
            if not entries:
                raise ExpectationsError(f"{path}:{n}: a fingerprint line before any entry")
            if entries[-1].result not in FINGERPRINTED:
                raise ExpectationsError(f"{path}:{n}: {entries[-1].pattern} is expected to "
                                        f"{entries[-1].result}: only a fail, error, timeout or xfail "
                                        "line has a fingerprint")
            entries[-1].fingerprint.add(" ".join(ln.split()) if key != "timeout" else "timeout:")
            continue
        parts = ln.split(None, 2)
        if len(parts) < 2:
            raise ExpectationsError(f"{path}:{n}: expected 'suite.test RESULT [reason]', got {ln!r}")
        pattern, result = parts[0], parts[1].lower()
        reason = parts[2].strip() if len(parts) > 2 else ""
        if pattern == VERDICT_ENTRY:
            cpus_word, _, why = reason.partition(" ")
            m = CPUS_RE.match(cpus_word)
            if result != "incomplete" or not m or not why.strip():
                raise ExpectationsError(f"{path}:{n}: expected 'verdict incomplete cpus=N[,M...] REASON' "
                                        f"(the only verdict a file states, naming the untested CPUs), "
                                        f"got {raw.strip()!r}")
            if verdict_entry:
                raise ExpectationsError(f"{path}:{n}: the verdict is stated twice")
            verdict_entry = Entry(pattern, result, reason, n, {f"cpu {c}" for c in m.group(1).split(",")})
            continue
        if result not in RESULTS:
            raise ExpectationsError(f"{path}:{n}: result {parts[1]!r} is not one of {', '.join(RESULTS)}")
        if "." not in pattern:
            raise ExpectationsError(f"{path}:{n}: {pattern!r} is not suite.test (use suite.* for a whole suite)")
        if result != "pass" and not reason:
            raise ExpectationsError(f"{path}:{n}: {pattern} is expected to {result} but no reason is given")
        entries.append(Entry(pattern, result, reason, n, set()))
    exact: dict[str, Entry] = {}
    wild: list[Entry] = []
    for entry in entries:
        name, result, _, n, fp = entry
        assert name is not None  # every line read names its tests
        if result in FINGERPRINTED and not fp:
            raise ExpectationsError(f"{path}:{n}: {name} is expected to {result} but its fingerprint "
                                    "(the failed checks, exception or known row) is missing: "
                                    "`ktap-report.py baseline` writes it")
        if any(c in name for c in "*?["):
            wild.append(entry)
        elif name in exact:
            raise ExpectationsError(f"{path}:{n}: {name} is listed twice (first on line {exact[name].line})")
        else:
            exact[name] = entry
    if verdict_entry:
        exact[VERDICT_ENTRY] = verdict_entry
    return exact, wild


def expected_for(name: str, exact: dict[str, Entry], wild: list[Entry]) -> Entry:
    if name in exact:
        return exact[name]
    for e in wild:
        if e.pattern is not None and fnmatch.fnmatchcase(name, e.pattern):
            return e
    return NO_ENTRY


def entry_for(t: Test, exact: dict[str, Entry], wild: list[Entry]) -> Entry:
    """The expectations entry of a test: its exact name on its CPU, its
    exact name, the first wildcard; (None, "pass", ...) when none."""
    e = expected_for(t.full_name, exact, wild)
    if e.pattern is None or (t.full_name not in exact and t.name_without_cpu in exact):
        e = expected_for(t.name_without_cpu, exact, wild)
    return e


def fingerprint_details(want: set[str], got: set[str]) -> list[str]:
    """The lines that say how a failure differs from its fingerprint."""
    return ([f"not described: {f}" for f in sorted(got - want)]
            + [f"described, not seen: {f}" for f in sorted(want - got)])


def compare(run: Run, path: str, verbose: bool = False, list_skips: bool = False,
            out: Callable[[str], None] = print) -> int:
    """Compare a run with the expectations file at path, a line per
    mismatch (every line with verbose), then "N passed, N failed". Exit
    status: 0 when all match, 1 on a mismatch, 2 for a broken log."""
    exact, wild = load_expectations(path)
    passed = failed = 0
    seen: set[str] = set()
    want_incomplete = exact.pop(VERDICT_ENTRY, None)

    def verdict(ok: bool, text: str, details: Sequence[str] = ()) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            if verbose:
                out(f"ok - {text}")
        else:
            failed += 1
            out(f"not ok - {text}")
            for d in details:
                out(f"#   {d}")

    for e in run.errors:
        verdict(False, f"log: {e}")
    chosen = selection(run)
    if chosen is not None:
        out(f"# selection: {chosen.text}")
    unlisted_skips = []
    for t in run.tests():
        seen.update((t.full_name, t.name_without_cpu))
        pattern, want, reason, line, want_fp = entry_for(t, exact, wild)
        why = f" ({reason})" if reason else ""
        src = f"{path}:{line}" if line else "default"
        if pattern is None and t.result == "skip":
            # Not a deviation: the platform lacks what the test needs.
            unlisted_skips.append(f"{t.full_name}: {t.reason or 'no reason given'}")
            continue
        if t.result == "xfail" and want == "pass":
            # A known deviation the file does not name: not what was expected.
            kid = known_row(t)[0]
            verdict(False, f"{t.full_name}: xfail (known deviation {kid}), expected pass [{src}]",
                    [f"not described: {f}" for f in fingerprint(t)])
        elif t.result != want:
            verdict(False, f"{t.full_name}: {t.result}, expected {want} [{src}]{why}",
                    t.diagnostics[-12:])
        elif want in FINGERPRINTED and set(fingerprint(t)) != want_fp:
            verdict(False, f"{t.full_name}: {t.result} as expected, but not the failure "
                    f"[{src}] describes", fingerprint_details(want_fp, set(fingerprint(t))))
        else:
            verdict(True, f"{t.full_name}: {t.result}{why}")
    if want_incomplete or run.verdict == "INCOMPLETE":
        reason, line = (want_incomplete.reason, want_incomplete.line) if want_incomplete else ("", 0)
        src = f"{path}:{line}" if line else "default: a complete run"
        untested = [d for d in run.diagnostics if d.startswith(INCOMPLETE_PREFIX)]
        got_cpus = {f"cpu {c}" for c in untested_cpus(run)}
        want_cpus = want_incomplete.fingerprint if want_incomplete else set()
        same = bool(want_incomplete) == (run.verdict == "INCOMPLETE") and got_cpus == want_cpus
        verdict(same,
                f"verdict {run.verdict or 'none'}, expected "
                f"{'INCOMPLETE' if want_incomplete else 'a complete run'} [{src}]"
                + (f" ({reason})" if reason else "")
                + ("" if got_cpus == want_cpus or not want_incomplete else
                   f": untested {', '.join(sorted(got_cpus)) or 'none'}, "
                   f"expected {', '.join(sorted(want_cpus))}"),
                untested)
    unselected = 0
    for name, (_, want, reason, line, _) in exact.items():
        if name in seen:
            continue
        if chosen is not None and not chosen.selects(name):
            unselected += 1  # the run did not ask for it
            continue
        verdict(False, f"{name}: not in the log, expected {want} [{path}:{line}]")
    if unselected:
        out(f"# {unselected} lines of {path} name tests the run did not select")
    if unlisted_skips:
        if list_skips:
            for u in unlisted_skips:
                out(f"# skip, not listed: {u}")
        out(f"# {len(unlisted_skips)} skips not listed in {path} (not mismatches"
            + ("" if list_skips else "; --list-skips lists them") + ")")
    out(f"{passed} passed, {failed} failed")
    if run.errors:
        return 2  # a broken log is no evidence, whatever the expectations say
    return 0 if failed == 0 else 1


def baseline_reason(t: Test) -> str:
    """Why a test did not pass, from its own lines: the failed rule first."""
    if t.result == "skip":
        return t.reason or "skipped without a reason"
    rules = [d.split("rule:", 1)[1].strip() for d in t.diagnostics if d.strip().startswith("rule:")]
    fails = [d[len("FAIL:"):].strip() for d in t.diagnostics if d.startswith("FAIL:")]
    if fails and rules:
        return f"{fails[0]} -- breaks {rules[0]}"
    for d in t.diagnostics:
        if d.startswith("unexpected exception"):
            return d
    if fails:
        return fails[0]
    return "timed out" if t.result == "timeout" else "no diagnostic in the log"


def baseline(run: Run, log_name: str) -> tuple[str, int]:
    """(text, lines): a starting expectations file from a finished run,
    log_name the log's file name."""
    if run.errors:
        raise ExpectationsError(f"{log_name}: not a complete KTAP log ({run.errors[0]}); "
                                "a baseline needs a finished run")
    platform = [d for d in run.diagnostics if d.startswith("pmutest ")]
    caps = [d for d in run.diagnostics if d.startswith("caps: ")]
    out = [f"# Expectations generated by `ktap-report.py baseline {os.path.basename(log_name)}`.",
           f"# Platform: {platform[0] if platform else 'unknown (no pmutest line in the log)'}"]
    out += [f"# {c}" for c in caps[:3]]
    out += ["#",
            "# Every line below is a test that did not pass on that run, with the reason",
            "# the log gave, and under a fail, error, timeout or xfail its fingerprint:",
            "# each failed check (outcome class :: description :: rule), the exception,",
            "# the known-deviation row. compare accepts that test only when it fails",
            "# exactly so. Before shipping this file, replace each reason with its",
            "# source (erratum, hypervisor function and version) and check each",
            "# fingerprint against it, or fix the platform; a skip needs no line",
            "# (unlisted skips are not mismatches): keep only the ones you want pinned.",
            ""]
    width = max((len(t.full_name) for t in run.tests()), default=0) + 2
    n = 0
    for t in run.tests():
        if t.result == "pass":
            continue
        reason = " ".join(baseline_reason(t).split())
        out.append(f"{t.full_name:<{width}}{t.result:<7} {reason}")
        out += [f"    {f}" for f in fingerprint(t)]
        n += 1
    if run.verdict == "INCOMPLETE":
        untested = [d for d in run.diagnostics if d.startswith(INCOMPLETE_PREFIX)]
        why = untested[0][len(INCOMPLETE_PREFIX):].strip() if untested else "?"
        cpus = ",".join(str(c) for c in untested_cpus(run)) or "?"
        out.append(f"{VERDICT_ENTRY:<{width}}{'incomplete':<7} cpus={cpus} {why}")
        n += 1
    out.append("")
    return "\n".join(out), n

# SPDX-License-Identifier: MIT
"""The compact form of a log (kernel/compact.h, compact = 1) and its
expansion: every reader sees the full form; `expand` prints it."""

import re
from dataclasses import dataclass, field
from typing import Optional

from .ktap import DIRECTIVES, HEADER, Result, is_header, parse_result, split_cpu

# The compact form (kernel/compact.h, compact = 1): a log whose header says
# "# compact: ..." may write a suite or a test that ended exactly as on the
# first CPU of its PMU configuration as one line "... # [DIRECTIVE ]same as
# cpuN", and a SKIP reason equal to the previous test's as "ditto". Within a
# test, a failure block's field (kernel/check.c: "#   rule:     ditto") equal
# to the test's previous line of that field is "ditto", and access-trace
# entries (kernel/trace.c) the test printed before are one line "# trace:
# A..B shown above". expand_lines() puts every line back: a compact test
# becomes the reference CPU's lines of that test (its diagnostics and result
# line), a compact suite the reference's block under its own name (without
# the reference's closing totals, which were that CPU's), "ditto" the reason
# or field text it repeats, "shown above" the trace lines it names. Every
# reader of a log (parse()) sees the full form; `ktap-report.py expand`
# prints it.


COMPACT_PREFIX = "# compact: "
SAME_AS_RE = re.compile(r"^same as cpu(\d{1,4})$")
DITTO = "ditto"
# kernel/check.c field_label[]: the lines of a failure block after "FAIL:".
FIELD_RE = re.compile(r"^(#   (expected|actual|rule|observed|host|known|inferred|machine): +)(.*)$")
TRACE_ENTRY_RE = re.compile(r"^# trace: (\d{1,10}) (?:rdmsr|wrmsr|rdpmc) ")
TRACE_SHOWN_RE = re.compile(r"^# trace: (\d{1,10})(?:\.\.(\d{1,10}))? shown above$")


def same_as(res: Result) -> Optional[tuple[int, str]]:
    """(cpu, directive) of a compact result line, or None. The marker is
    the whole comment ("# same as cpu0") or a directive's text ("# SKIP same
    as cpu0")."""
    if res.directive.upper() in DIRECTIVES:
        m = SAME_AS_RE.match(res.text)
        return (int(m.group(1)), res.directive.upper()) if m else None
    m = SAME_AS_RE.match(f"{res.directive} {res.text}".strip())
    return (int(m.group(1)), "") if m else None


def _status(res: Result) -> tuple[bool, str]:
    """What a result line says, for comparing a compact line with its
    reference: ok or not, and its directive."""
    return (res.ok, res.directive.upper() if res.directive.upper() in DIRECTIVES else "")


@dataclass
class _Block:
    label: str = ""
    lines: list[str] = field(default_factory=list)  # the block's lines, expanded
    tests: dict[int, tuple[Result, list[str]]] = field(default_factory=dict)  # number -> (Result, [lines])
    result: str = ""  # its top-level result line
    pending: list[str] = field(default_factory=list)  # diagnostics before the next result
    last_skip: Optional[str] = None
    said: dict[str, str] = field(default_factory=dict)  # the test so far: field -> its last text
    traced: dict[int, str] = field(default_factory=dict)  # the test so far: access seq -> its line
    unresolved: list[str] = field(default_factory=list)  # the test so far: what could not be expanded


def _close_test(cur: _Block, name: Optional[str], errors: list[str]) -> None:
    """The end of a test of a block (its result line, name; None: the block
    ended first): what it said is forgotten, what could not be expanded is
    named."""
    where = f"{cur.label}.{name}" if name else f"{cur.label}: test {len(cur.tests) + 1}"
    errors += [f"{where}: {e}" for e in cur.unresolved]
    cur.pending, cur.said, cur.traced, cur.unresolved = [], {}, {}, []


def expand_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """(lines, errors): the full form of a log's lines (from its header on).
    A log without the "# compact:" header line comes back as it is; a
    compact line whose reference is missing or says something else (a
    "ditto" or "shown above" with nothing before it in its test) is left as
    it is and named in errors."""
    if not any(ln.startswith(COMPACT_PREFIX) for ln in lines):
        return lines, []
    out: list[str] = []
    errors: list[str] = []
    blocks: dict[str, _Block] = {}
    cur: Optional[_Block] = None
    for ln in lines:
        depth = (len(ln) - len(ln.lstrip(" "))) // 4
        body = ln.strip()
        if depth == 1 and body == HEADER:
            if cur is not None:
                _close_test(cur, None, errors)
            cur = _Block(lines=[ln])
            out.append(ln)
            continue
        res = parse_result(body) if depth <= 1 else None
        if depth == 1 and cur is not None:
            if res is None:
                if body.startswith("# Subtest:"):
                    cur.label = body.split(":", 1)[1].strip()
                    full = [ln]
                elif body.startswith("#"):
                    full = _expand_repeat(cur, ln, body)
                    cur.pending += full
                else:
                    full = [ln]
                cur.lines += full
                out += full
                continue
            emitted = _expand_test(cur, res, ln, blocks, errors)
            # The last line emitted is a result line: its own, its reference's.
            cur.tests[res.number] = (parse_result(emitted[-1].strip()) or res, emitted)
            cur.lines += emitted[len(cur.pending):]
            out += emitted[len(cur.pending):]
            _close_test(cur, res.name, errors)
            continue
        if depth == 0 and res is not None:
            marker = same_as(res)
            if marker and (cur is None or cur.label != res.name):
                copied = _expand_suite(res, marker, ln, blocks, errors)
                if copied:
                    blocks[res.name] = copied
                    out += copied.lines + [copied.result]
                    continue
            elif cur is not None:
                cur.result = ln
                blocks[cur.label] = cur
            if cur is not None:
                _close_test(cur, None, errors)
            cur = None
        out.append(ln)
    if cur is not None:
        _close_test(cur, None, errors)
    return out, errors


def compact_written(lines: list[str]) -> tuple[dict[tuple[str, str], str], dict[str, int]]:
    """How a log itself writes each result (no expansion): ({(suite, test):
    "full" | "same"}, {suite written as one line: its reference CPU})."""
    tests, suites, label = {}, {}, None
    for ln in lines:
        body = ln.strip()
        depth = (len(ln) - len(ln.lstrip(" "))) // 4
        if depth == 1 and body.startswith("# Subtest:"):
            label = body.split(":", 1)[1].strip()
            continue
        res = parse_result(body) if depth <= 1 else None
        if res is None:
            continue
        marker = same_as(res)
        if depth == 1 and label:
            tests[(label, res.name)] = "same" if marker else "full"
        elif depth == 0 and marker:
            suites[res.name] = marker[0]
    return tests, suites


def ref_label(label: str, cpu: int) -> str:
    """The reference CPU's name of a suite: ("rdpmc@cpu3", 0) -> "rdpmc@cpu0"."""
    return f"{split_cpu(label)[0]}@cpu{cpu}"


def _expand_test(cur: _Block, res: Result, ln: str, blocks: dict[str, _Block],
                 errors: list[str]) -> list[str]:
    """The lines of one test of a block: its own, with a "ditto" reason
    written out, or its reference's for a compact line."""
    marker = same_as(res)
    lines = cur.pending + [ln]
    if marker:
        ref = blocks.get(ref_label(cur.label, marker[0]))
        got = ref.tests.get(res.number) if ref else None
        if got is None or got[0].name != res.name:
            errors.append(f"{cur.label}.{res.name}: 'same as cpu{marker[0]}' but cpu{marker[0]} "
                          "reported no such test before it")
        elif _status(got[0]) != _status(res):
            errors.append(f"{cur.label}.{res.name}: 'same as cpu{marker[0]}' says "
                          f"{'ok' if res.ok else 'not ok'} {marker[1]}, cpu{marker[0]} said otherwise")
        else:
            lines = cur.pending + got[1]
            res = got[0]
    elif res.directive.upper() == "SKIP" and res.text == DITTO:
        if cur.last_skip is None:
            errors.append(f"{cur.label}.{res.name}: SKIP 'ditto' without a previous skip reason")
        else:
            head = ln[:len(ln) - len(ln.lstrip(" "))]
            lines = cur.pending + [f"{head}ok {res.number} {res.name} # SKIP {cur.last_skip}"]
            res = parse_result(lines[-1].strip()) or res
    cur.last_skip = res.text if res.directive.upper() == "SKIP" else None
    return lines


def _expand_repeat(cur: _Block, ln: str, body: str) -> list[str]:
    """A diagnostic line of the test under way in its full form: a field's
    "ditto" its previous text in this test, "trace: A..B shown above" the
    trace lines it names; what the test said is remembered for the next."""
    head = ln[:len(ln) - len(ln.lstrip(" "))]
    m = FIELD_RE.match(ln[len(head):])  # the text as written, to its last byte
    if m:
        name, text = m.group(2), m.group(3)
        if text == DITTO:
            if name not in cur.said:
                cur.unresolved.append(f"'{name}: {DITTO}' with no {name} line before it in the test")
                return [ln]
            text = cur.said[name]
        cur.said[name] = text
        return [f"{head}{m.group(1)}{text}"]
    m = TRACE_ENTRY_RE.match(body)
    if m:
        cur.traced[int(m.group(1))] = ln
        return [ln]
    m = TRACE_SHOWN_RE.match(body)
    if m:
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        missing = [s for s in range(lo, hi + 1) if s not in cur.traced] if hi - lo < 4096 else [lo]
        if hi < lo or missing:
            cur.unresolved.append(f"'{body[2:]}' but the test printed no access "
                                  f"{missing[0] if missing else hi} before it")
            return [ln]
        return [cur.traced[s] for s in range(lo, hi + 1)]
    return [ln]


def _expand_suite(res: Result, marker: tuple[int, str], ln: str, blocks: dict[str, _Block],
                  errors: list[str]) -> Optional[_Block]:
    """A compact suite's block: its reference's under its own name, without
    the reference's closing totals; None (and an error) without one."""
    ref_name = ref_label(res.name, marker[0])
    ref = blocks.get(ref_name)
    ref_res = parse_result(ref.result.strip()) if ref and ref.result else None
    if ref is None or ref_res is None:
        errors.append(f"{res.name}: 'same as cpu{marker[0]}' but {ref_name} was not reported before it")
        return None
    if _status(ref_res) != _status(res):
        errors.append(f"{res.name}: 'same as cpu{marker[0]}' says {'ok' if res.ok else 'not ok'} "
                      f"{marker[1]}, {ref_name} said otherwise")
        return None
    own = f"# {ref_name}:"
    lines = [f"    # Subtest: {res.name}" if x.strip() == f"# Subtest: {ref_name}" else x
             for x in ref.lines if not x.strip().startswith(own)]
    # The suite's own counts line (kernel/runner.c run_suite()), which its
    # results decide; the reference's TSC cycles were that CPU's, not these.
    n = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0, "inferred": 0}
    for r, _ in ref.tests.values():
        d = _status(r)[1]
        n["skip" if d == "SKIP" else "xfail" if d == "XFAIL" else "inferred" if d == "INFERRED"
          else "pass" if r.ok else "fail"] += 1
    lines.append(f"    # {res.name}: pass:{n['pass']} fail:{n['fail']} skip:{n['skip']} "
                 f"total:{len(ref.tests)}")
    if n["xfail"]:
        lines.append(f"    # {res.name}: {n['xfail']} known deviation(s) (# XFAIL): not counted as failures")
    if n["inferred"]:
        lines.append(f"    # {res.name}: {n['inferred']} test(s) passed but for an inferred rule (# INFERRED)")
    comment = ref.result.split("#", 1)[1].strip() if "#" in ref.result else ""
    result = f"ok {res.number} {res.name}" + (f" # {comment}" if comment else "")
    block = _Block(res.name, lines, dict(ref.tests), result)
    return block


def expand_text(text: str) -> tuple[str, list[str]]:
    """(text, errors): a log's text in the full form (see expand_lines)."""
    lines = text.split("\n")
    try:
        start = next(i for i, ln in enumerate(lines) if is_header(ln.rstrip("\r")))
    except StopIteration:
        return text, []
    body, errors = expand_lines([ln.rstrip("\r") for ln in lines[start:]])
    return "\n".join(lines[:start] + body), errors

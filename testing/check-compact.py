#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proves the compact form (kernel/compact.h) of one run against its full
form (compact = 0) of the same machine:

  - both logs are whole; the compact one is smaller and says so in its
    header ("# compact: ...");
  - expanded (pmureport.expand), the compact log has exactly the full
    form's tests, every CPU's every test: name, number, result, directive
    reason (with --diagnostics also every diagnostic line: for a
    deterministic machine, the simulator), the same totals and verdict;
  - nothing is hidden: every failing test (fail, timeout, error) of every
    CPU has its own "not ok" line in its own suite's block, and every test
    whose full-form report differs from its reference CPU's (the first CPU
    of its PMU configuration) is printed in full, never as "same as";
  - --full-on N:SUITE.TEST: that test of CPU N is printed in full;
  - every test's failure blocks (kernel/check.c: "FAIL:" or "inferred"
    and its expected / actual / rule / observed / host / known lines, and
    the access trace under it) read the same in both forms, line by line,
    with or without --diagnostics: a field written "ditto" or a trace
    written "shown above" in the compact log is what the full log printed.

usage: testing/check-compact.py COMPACT FULL [--diagnostics] [--full-on N:SUITE.TEST]...
Prints one "ok"/"not ok" line a check and "N passed, N failed"; exit 0 when
every check passed, 1 when one failed, 2 on bad usage or unreadable logs.
"""
import os
import re
import sys

from pmureport import expand, ktap, reader, verdict

CPU_CONFIG_RE = re.compile(r"^cpu (\d{1,4}): APIC ID .*PMU configuration (\d{1,4})")
FAILING = ("fail", "timeout", "error")
BLOCK_START = ("FAIL:", "inferred (")


def failure_blocks(test):
    """A test's failure blocks: each "FAIL:" (or inferred-rule) line with
    its field and trace lines, as diagnostics."""
    out, cur = [], None
    for d in test.diagnostics:
        if d.startswith(BLOCK_START):
            cur = [d]
            out.append(cur)
        elif cur is not None and (d.startswith("  ") or d.startswith("trace: ")):
            cur.append(d)
        else:
            cur = None
    return [tuple(b) for b in out]


def die(msg):
    print(f"check-compact: {msg}", file=sys.stderr)
    sys.exit(2)


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, what, ok):
        print(("ok - " if ok else "not ok - ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def references(run):
    """{cpu: the first CPU of its PMU configuration in the run's order}."""
    config = {}
    for d in run.diagnostics:
        m = CPU_CONFIG_RE.match(d)
        if m:
            config[int(m.group(1))] = int(m.group(2))
    first, ref = {}, {}
    for s in run.suites:
        cpu = s.cpu
        if cpu is None or cpu in ref:
            continue
        c = config.get(cpu)
        first.setdefault(c, cpu)
        ref[cpu] = first[c] if c is not None else cpu
    return ref


def main(argv):
    diagnostics, full_on, paths = False, [], []
    while argv:
        a = argv.pop(0)
        if a == "--diagnostics":
            diagnostics = True
        elif a == "--full-on" and argv:
            m = re.match(r"^(\d{1,4}):([a-z0-9_]{1,64})\.([a-z0-9_]{1,128})$", argv.pop(0))
            if not m:
                die("--full-on wants N:SUITE.TEST")
            full_on.append((int(m.group(1)), m.group(2), m.group(3)))
        elif a.startswith("-") or len(paths) == 2:
            die(f"bad argument '{a}' (usage: check-compact.py COMPACT FULL [--diagnostics] "
                "[--full-on N:SUITE.TEST]...)")
        else:
            paths.append(a)
    if len(paths) != 2:
        die("usage: check-compact.py COMPACT FULL [--diagnostics] [--full-on N:SUITE.TEST]...")
    texts = []
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                texts.append(f.read(ktap.MAX_LOG_BYTES))
        except OSError as e:
            die(f"cannot read {p}: {e.strerror}")
    try:
        compact, full = reader.parse(texts[0]), reader.parse(texts[1])
    except ktap.KtapError as e:
        die(str(e))
    check = Checks()
    name = os.path.basename(paths[0])
    check(f"{name}: a whole log ({'; '.join(verdict.broken(compact)[:2]) or 'no error'})",
          not verdict.broken(compact))
    check(f"{os.path.basename(paths[1])}: a whole log", not verdict.broken(full))
    check(f"{name}: its header says it may be compact",
          any(d.startswith(expand.COMPACT_PREFIX[2:]) for d in compact.diagnostics))
    check(f"{os.path.basename(paths[1])}: the full form (no '# compact:' line)",
          not any(d.startswith(expand.COMPACT_PREFIX[2:]) for d in full.diagnostics))
    raw, one_line = expand.compact_written(texts[0].split("\n"))
    same = sum(1 for v in raw.values() if v == "same")
    print(f"# {len(texts[0])} bytes compact, {len(texts[1])} full ({len(texts[0]) / len(texts[1]):.2f}); "
          f"{len(one_line)} suites and {same} tests written 'same as cpuN', "
          f"{texts[0].count('# SKIP ' + expand.DITTO)} skip reasons 'ditto'")
    check(f"{name}: smaller than the full form", len(texts[0]) < len(texts[1]))

    def key(t):
        k = (t.suite, t.name, t.number, t.result, t.reason)
        return k + (tuple(t.diagnostics),) if diagnostics else k
    a, b = [key(t) for t in compact.tests()], [key(t) for t in full.tests()]
    first = next((f"{x} against {y}" for x, y in zip(a, b) if x != y), "")
    cpus = sorted({t.cpu for t in full.tests()}, key=lambda c: -1 if c is None else c)
    check(f"expanded, the same {len(b)} tests on {len(cpus)} CPU(s) as the full form: name, "
          f"number, result, reason{', diagnostics' if diagnostics else ''} ({first or 'all equal'})",
          a == b and len(a) == len(b) and len(b) > 0)
    totals = [[d for d in r.diagnostics if d.startswith("Totals:")] for r in (compact, full)]
    check(f"the same totals and verdict ({compact.verdict}, {full.verdict})",
          totals[0] == totals[1] and compact.verdict == full.verdict)

    blocks = [(t.full_name, failure_blocks(t)) for t in compact.tests()]
    want = [(t.full_name, failure_blocks(t)) for t in full.tests()]
    differ = next((f"{x[0]}: {x[1][:1]} against {y[1][:1]}" for x, y in zip(blocks, want) if x != y), "")
    lines = texts[0].split("\n")
    dittos = sum(1 for ln in lines if expand.FIELD_RE.match(ln.strip())
                 and ln.strip().endswith(": " + expand.DITTO))
    shown = sum(1 for ln in lines if expand.TRACE_SHOWN_RE.match(ln.strip()))
    check(f"every test's failure blocks as in the full form: {sum(len(b) for _, b in want)} blocks, "
          f"{sum(len(x) for _, b in want for x in b)} lines; the compact log wrote {dittos} fields "
          f"'ditto' and {shown} trace runs 'shown above' ({differ or 'all equal'})",
          blocks == want)

    hidden = [t.full_name for t in compact.tests()
              if t.result in FAILING and raw.get((t.suite, t.name)) is None]
    check(f"every failing test has its own 'not ok' line in its suite ({len(hidden)} not: "
          f"{', '.join(hidden[:3]) or 'none'})", not hidden)
    ref = references(full)
    by_name = {t.full_name: t for t in full.tests()}
    differ, compacted = 0, []
    for t in full.tests():
        r = ref.get(t.cpu)
        if r is None or r == t.cpu:
            continue
        rt = by_name.get(f"{ktap.split_cpu(t.suite)[0]}@cpu{r}.{t.name}")
        if rt and (rt.result, rt.reason, rt.diagnostics) == (t.result, t.reason, t.diagnostics):
            continue
        differ += 1
        if raw.get((t.suite, t.name)) != "full":
            compacted.append(t.full_name)
    check(f"every test that differs from its reference CPU's is printed in full ({differ} differ; "
          f"written compact: {', '.join(compacted[:3]) or 'none'})", not compacted)
    for cpu, suite, test in full_on:
        label = f"{suite}@cpu{cpu}"
        t = next((x for x in compact.tests() if x.suite == label and x.name == test), None)
        fails = [d for d in (t.diagnostics if t else []) if d.startswith("FAIL:")]
        check(f"{label}.{test} printed in full ({t.result if t else 'absent'}"
              f"{'; ' + fails[0] if fails else ''})",
              t is not None and raw.get((label, test)) == "full")
    print(f"{check.passed} passed, {check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

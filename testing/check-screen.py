#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the summary screen's text against the KTAP log of the same run.

usage: testing/check-screen.py LOG SCREEN

LOG is the serial KTAP log (run-qemu.sh --log), SCREEN the text the kernel
published on COM2 (run-qemu.sh --screen): each summary page between
"=== pmutest screen ===" and "=== end of screen ===", the first page last.
Every line of output is one check, "ok" or "not ok"; the last line is
"N passed, N failed". Exit status 0 when all pass, 1 when one fails, 2 when
a file cannot be read.
"""
import re
import sys

from pmureport import expand

BEGIN, END = "=== pmutest screen ===", "=== end of screen ==="


def pages_of(text):
    pages, cur = [], None
    for line in text.splitlines():
        if line == BEGIN:
            cur = []
        elif line == END and cur is not None:
            pages.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    return pages


def log_facts(log):
    """Verdict, totals, per-suite counts and failures from the KTAP log."""
    facts = {"suites": {}, "failures": [], "verdict": None, "totals": None,
             "saved": False, "known": {}}
    lines = log.splitlines()
    for i, line in enumerate(lines):
        t = line.strip()
        m = re.match(r"# (\w[\w.@-]*): pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)", t)
        if m and m.group(1) != "Totals":
            facts["suites"][m.group(1)] = tuple(int(m.group(k)) for k in (2, 3, 4)) + (0,)
        m = re.match(r"# (\w[\w.@-]*): (\d+) known deviation", t)
        if m and m.group(1) in facts["suites"]:
            facts["suites"][m.group(1)] = facts["suites"][m.group(1)][:3] + (int(m.group(2)),)
        m = re.match(r"# Totals: pass:(\d+) fail:(\d+) skip:(\d+)(?: xfail:(\d+))?", t)
        if m:
            facts["totals"] = tuple(int(x or 0) for x in m.groups())
        m = re.match(r"# verdict: (\w+)", t)
        if m:
            facts["verdict"] = m.group(1)
        if t.startswith("# report saved"):
            facts["saved"] = True
        if t.startswith("# FAIL: ") and i + 3 < len(lines):
            exp = lines[i + 1].strip()
            act = lines[i + 2].strip()
            rule = lines[i + 3].strip()
            if exp.startswith("#   expected: ") and act.startswith("#   actual:") and \
                    rule.startswith("#   rule:"):
                facts["failures"].append((t[len("# FAIL: "):],
                                          exp.split(":", 1)[1].strip(),
                                          act.split(":", 1)[1].strip(),
                                          rule.split(":", 1)[1].strip()))
    return facts


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"not ok - {what}" + (f": {detail}" if detail else ""))


def unwrap(page):
    """The page's text with wrapped continuation lines joined (a wrapped
    field continues on a line indented under its text)."""
    return " ".join(line.strip() for line in page)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    try:
        log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
        screen = open(sys.argv[2], encoding="utf-8", errors="replace").read()
    except OSError as e:
        print(f"check-screen: {e}", file=sys.stderr)
        sys.exit(2)
    facts = log_facts(expand.expand_text(log)[0])  # a compact log read in full
    pages = pages_of(screen)
    check = Checks()
    check(len(pages) > 0, "the kernel published the summary screen", "no screen in " + sys.argv[2])
    check(facts["verdict"] is not None and facts["totals"] is not None,
          "the log has a verdict and totals")
    if not pages or facts["verdict"] is None or facts["totals"] is None:
        print(f"{check.passed} passed, {check.failed} failed")
        sys.exit(1)
    first = pages[-1]
    body = "\n".join(first)
    npages = len(pages)

    m = re.search(r"page 1 of (\d+)", body)
    check(m and int(m.group(1)) == npages, "first page's footer counts every page published",
          m.group(0) if m else "no footer")
    big = "   ".join(facts["verdict"])
    check(any(line.startswith(big) for line in first), f"verdict {facts['verdict']} in large letters")
    p, f, s, x = facts["totals"]
    m = re.search(r"(\w+): (\d+) of (\d+) tests failed", body)
    check(m and (m.group(1), int(m.group(2)), int(m.group(3))) ==
          (facts["verdict"], f, p + f + s + x),
          "verdict line matches the log's totals", m.group(0) if m else "missing")
    for label in ("vendor:", "microcode:", "hypervisor:", "platform:"):
        check(re.search(r"^\s+" + label + r"\s+\S", body, re.M),
              f"the machine's {label[:-1]} is shown")

    # The per-suite table, row by row, on whichever pages it runs over: one
    # row per suite of the log (suite@cpuN on several CPUs), labelled as the
    # log labels it, in the log's order, with its counts; no row the log
    # lacks, none twice (a reused label buffer once named every row after
    # the last CPU).
    order, rows, dup = [], {}, []
    for pg in reversed(pages):  # published last page first: reading order
        for line in pg:
            m = re.match(r"^  (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
            if m:
                if m.group(1) in rows and m.group(1) != "total":
                    dup.append(m.group(1))
                rows[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
                order.append(m.group(1))
    for suite, (sp, sf, ss, sx) in facts["suites"].items():
        got = rows.get(suite)
        check(got == (sp, sf, ss, sx), f"suite row {suite} pass/fail/skip/known as in the log",
              f"screen {got}, log {(sp, sf, ss, sx)}")
    listed = [r for r in order if r != "total"]
    check(listed == list(facts["suites"]), "the rows are the log's suites, in its order, each once",
          f"extra {sorted(set(listed) - set(facts['suites']))}, duplicated {dup}")
    check(rows.get("total") == (p, f, s, x), "total row as in the log's Totals",
          f"screen {rows.get('total')}, log {facts['totals']}")
    cpus = sorted({int(m.group(1)) for m in
                   (re.search(r"@cpu(\d+)$", k) for k in facts["suites"]) if m})
    if cpus:
        flat = re.sub(r"\s+", " ", "\n".join(unwrap(pg) for pg in pages))
        m = re.search(r"CPUs run: ([0-9, -]+)", flat)
        shown = set()
        for part in (m.group(1).split(",") if m else []):
            part = part.strip()
            if "-" in part:
                a, b = part.split("-")
                shown |= set(range(int(a), int(b) + 1))
            elif part:
                shown.add(int(part))
        check(shown == set(cpus), "the screen names the CPUs the suites ran on",
              f"screen {sorted(shown)}, log {cpus}")

    text = " ".join(unwrap(pg) for pg in pages)
    if facts["saved"]:
        check("kept in UEFI variables" in text and "\\pmutest\\" in text,
              "says the report is in UEFI variables and where the next boot writes it")
    else:
        check("not kept" in text or "could not be kept" in text, "says the report was not kept")

    alltext = "\n".join(unwrap(pg) for pg in pages)
    if facts["failures"]:
        desc, exp, act, rule = facts["failures"][0]
        want = [f": {desc}", f"expected: {exp}", f"actual: {act}", f"rule: {rule}"]
        flat = re.sub(r"\s+", " ", alltext)
        missing = [w for w in want if re.sub(r"\s+", " ", w) not in flat]
        check(not missing, "the first failure is shown with expected, actual and rule",
              "missing " + "; ".join(missing))
    else:
        check("Failed checks:" not in alltext, "no failure list when nothing failed")
    print(f"{check.passed} passed, {check.failed} failed")
    sys.exit(1 if check.failed else 0)


if __name__ == "__main__":
    main()

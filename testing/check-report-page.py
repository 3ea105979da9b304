#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check `ktap-report.py html` pages as a browser rendered them, against the
KTAP logs they came from (testing/test-html-report.sh drives it).

  check-report-page.py single LOG DOM [--png PNG]
  check-report-page.py matrix DOM LOG... [--filter failures|changes|suite=NAME]
                       [--png PNG] [--max-ms MS]
  check-report-page.py make-runs BASE N DIR

DOM is the page's DOM after load (chromium --dump-dom), PNG its screenshot
(chromium --screenshot). single: the verdict, every count (totals, each
suite's pass/fail/skip/known), every failure and known deviation, the
machine and the measurements on the page are the log's; the screenshot is
not blank and its banner has the verdict's colour; every test is listed, in
collapsed blocks one a suite, with its result and skip reason. matrix: the script drew
one column per run and one row per test (or the rows the filter keeps), as
many failing cells and changing rows as the logs have (pmureport.diff), within
--max-ms of the page's request. make-runs writes N valid logs to DIR, each
BASE's tests with results drawn at random (a fixed seed), for a large matrix.

One "ok"/"not ok" line a check, then "N passed, N failed"; exit 0 when all
pass, 1 when one fails, 2 on unreadable input.
"""

import argparse
import os
import random
import sys
from html.parser import HTMLParser

from pmureport import diff, failures, htmlreport, ktap, machine, reader, verdict
import pngread  # tools/, beside the package


class Dom(HTMLParser):
    """Elements with an id or a data- attribute, with their text."""

    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs, text list)
        self.open = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("br", "img", "input", "meta", "link", "hr"):
            return
        el = (tag, a, [])
        if "id" in a or any(k.startswith("data-") for k in a):
            self.elements.append(el)
        self.open.append(el)

    def handle_endtag(self, tag):
        while self.open:
            el = self.open.pop()
            if el[0] == tag:
                break

    def handle_data(self, data):
        for el in self.open:
            el[2].append(data)

    def by_id(self, ident):
        return next((e for e in self.elements if e[1].get("id") == ident), None)

    def with_attr(self, name):
        return [e for e in self.elements if name in e[1]]


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, text):
        self.passed += bool(ok)
        self.failed += not ok
        print(("ok - " if ok else "not ok - ") + text)

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1


def read_dom(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read(256 << 20)
    d = Dom()
    d.feed(text)
    return d


def hex_rgb(colour):
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def near(a, b, tol=12):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def check_png(check, path, verdict):
    img = pngread.read(path)
    # Not blank: a page of one colour (white, or a crashed renderer's grey).
    step = max(1, img.width // 64)
    seen = {}
    for y in range(0, img.height, step):
        for x in range(0, img.width, step):
            p = img.pixel(x, y)
            seen[p] = seen.get(p, 0) + 1
    top = max(seen.values()) / sum(seen.values())
    check(len(seen) >= 8 and top < 0.97,
          f"the screenshot is not blank ({len(seen)} colours sampled, the commonest {top:.0%})")
    if verdict:
        want = hex_rgb(htmlreport.VERDICT_COLOURS[verdict])
        got = [img.pixel(x, 6) for x in (4, img.width // 2, img.width - 5)]
        check(all(near(g, want) for g in got),
              f"the banner has the colour of {verdict} {htmlreport.VERDICT_COLOURS[verdict]} (got {got})")


def cmd_single(args, check):
    run = reader.read_log(args.log)
    dom = read_dom(args.dom)
    v = verdict.verdict_of(run)
    el = dom.by_id("verdict")
    check(el is not None and el[1].get("data-verdict") == v, f"the page's verdict is the log's ({v})")
    tests = list(run.tests())
    c = verdict.counts(tests)
    got = {e[1]["data-count"]: "".join(e[2]).strip() for e in dom.with_attr("data-count")}
    want = {r: str(c[r]) for r in ktap.RESULTS}
    want["total"] = str(len(tests))
    check(got == want, f"the totals are the log's ({want})")
    if got != want:
        print(f"#   page: {got}")
    rows = {e[1]["data-suite"]: e[1] for e in dom.with_attr("data-suite")}
    bad = []
    for s in run.suites:
        sc = verdict.counts(s.tests)
        w = {"data-pass": str(sc["pass"]), "data-fail": str(sc["fail"] + sc["timeout"] + sc["error"]),
             "data-skip": str(sc["skip"]), "data-known": str(sc["xfail"])}
        r = rows.get(s.name)
        if r is None or any(r.get(k) != v for k, v in w.items()):
            bad.append(s.name)
    check(not bad and len(rows) == len(run.suites),
          f"every suite's pass/fail/skip/known is the log's ({len(run.suites)} suites; differ: {bad[:5]})")
    failing = sorted(t.full_name for t in tests if t.result in diff.FAILING)
    shown = sorted(e[1]["data-test"] for e in dom.with_attr("data-test") if e[1].get("class") == "failure")
    check(shown == failing, f"every failure is shown ({len(failing)})")
    want = [(f["expected"], f["actual"], f["rule"]) for t in tests if t.result in diff.FAILING
            for f in failures.failures(t)]
    got = [(e[1].get("data-expected"), e[1].get("data-actual"), e[1].get("data-rule"))
           for e in dom.with_attr("data-rule")]
    check(got == want, f"every failed check is shown with expected, actual and rule ({len(want)})")
    known = sorted((t.full_name, failures.known_deviation(t)[0]) for t in tests if t.result == "xfail")
    shown = sorted((e[1]["data-test"], e[1].get("data-id")) for e in dom.with_attr("data-test")
                   if e[1].get("class") == "known")
    check(shown == known, f"every known deviation is shown with its ID ({len(known)})")
    rows = [(e[1]["data-test-row"], e[1].get("data-result"), e[1].get("data-reason"))
            for e in dom.with_attr("data-test-row")]
    want = [(t.full_name, t.result, t.reason if t.result in ("skip", "xfail", "inferred") else "") for t in tests]
    check(rows == want, f"every test is listed with its result and skip reason ({len(want)})")
    blocks = dom.with_attr("data-suite-tests")
    check([e[1]["data-suite-tests"] for e in blocks] == [s.name for s in run.suites]
          and not any("open" in e[1] for e in blocks),
          f"the tests are grouped by suite, each block collapsed ({len(blocks)} of {len(run.suites)})")
    m = machine.machine(run)
    keys = {e[1]["data-key"]: "".join(e[2]) for e in dom.with_attr("data-key")}
    check(m["vendor"] is None or (m["vendor"] in keys.get("vendor", "")
                                  and m["model"] in keys.get("family/model/stepping", "")),
          f"the machine is the log's ({machine.machine_label(run)})")
    measures = sorted(e[1]["data-measure"] for e in dom.with_attr("data-measure"))
    check(measures == sorted(run.measurements), f"every measurement is shown ({len(measures)})")
    if args.png:
        check_png(check, args.png, v)


def cmd_matrix(args, check):
    runs = [(p, reader.read_log(p)) for p in args.logs]
    data = htmlreport.matrix_data(runs)
    dom = read_dom(args.dom)
    st = dom.by_id("matrix-stats")
    if st is None or "data-runs" not in st[1]:
        check(False, "the script drew the matrix (#matrix-stats has its counts)")
        return
    a = st[1]
    keep = list(range(len(data["rows"])))
    what = "every test"
    f = args.filter or ""
    if f == "failures":
        keep = [i for i in keep if set(data["cells"][i]) & set("FTE")]
        what = "the tests that fail somewhere"
    elif f == "changes":
        keep = [i for i in keep if data["marks"][i]]
        what = "the tests that change"
    elif f.startswith("suite="):
        keep = [i for i in keep if data["rows"][i][1] == f[6:]]
        what = f"the tests of suite {f[6:]}"
    check(a.get("data-runs") == str(len(runs)), f"one column per run ({len(runs)})")
    check(a.get("data-rows") == str(len(data["rows"])), f"one row per test ({len(data['rows'])})")
    check(a.get("data-shown") == str(len(keep)), f"the rows shown are {what} ({len(keep)})")
    fails = sum(sum(1 for c in data["cells"][i] if c in "FTE") for i in keep)
    check(a.get("data-fail-cells") == str(fails), f"as many failing cells as the logs have ({fails})")
    marked = sum(1 for i in keep if data["marks"][i])
    check(a.get("data-marked") == str(marked), f"the first differing cell of each changing row is marked ({marked})")
    t = dom.by_id("render-ms")
    ms = float(t[1].get("data-ms", "inf")) if t else float("inf")
    if args.max_ms:
        check(ms < args.max_ms, f"the matrix was drawn {ms:.0f} ms after the request (limit {args.max_ms:.0f} ms)")
    else:
        print(f"# drawn {ms:.0f} ms after the request")
    if args.png:
        check_png(check, args.png, None)


def cmd_make_runs(args):
    base = reader.read_log(args.base)
    rnd = random.Random(24)
    header = [d for d in base.diagnostics
              if not d.startswith(("Totals:", "deviations:", "checks:", "verdict:", "error:", "measure:"))]
    os.makedirs(args.dir, exist_ok=True)
    for i in range(args.n):
        # Mostly the base run's results, some changed: a fleet's variety.
        lines = ["KTAP version 1", f"1..{len(base.suites)}"] + [f"# {d}" for d in header]
        c = {r: 0 for r in ktap.RESULTS}
        for sn, s in enumerate(base.suites, 1):
            lines += ["    KTAP version 1", f"    # Subtest: {s.name}", f"    1..{len(s.tests)}"]
            for tn, t in enumerate(s.tests, 1):
                r = t.result if rnd.random() < 0.9 else rnd.choice(("pass", "fail", "skip", "xfail"))
                c[r] += 1
                line = {"pass": f"ok {tn} {t.name}", "fail": f"not ok {tn} {t.name}",
                        "timeout": f"not ok {tn} {t.name} # TIMEOUT",
                        "error": f"not ok {tn} {t.name}",
                        "skip": f"ok {tn} {t.name} # SKIP missing feature {rnd.randint(0, 3)}",
                        "xfail": f"ok {tn} {t.name} # XFAIL known deviation made-up-{tn}: generated",
                        "inferred": f"ok {tn} {t.name} # INFERRED 1 check(s) of an inferred rule did not "
                                    "hold (strict=1 fails them)"}[r]
                if r == "fail":
                    lines += ["    # FAIL: generated", "    #   expected: 1", "    #   actual:   0",
                              "    #   rule:     generated"]
                if r == "error":
                    lines.append("    # unexpected exception #GP (vector 13) at RIP 0x1000, CPL 0")
                lines.append("    " + line)
            lines.append(f"ok {sn} {s.name}")
        failed = c["fail"] + c["timeout"] + c["error"]
        inferred = c["inferred"]
        ran_ok = c["pass"] + c["xfail"] + inferred
        verdict = "FAIL" if failed else (("PASS-INFERRED" if inferred else "PASS") if ran_ok else "ERROR")
        lines += [f"# Totals: pass:{c['pass']} fail:{failed} skip:{c['skip']} xfail:{c['xfail']} "
                  f"inferred:{inferred} total:{ran_ok + failed + c['skip']}", f"# verdict: {verdict}"]
        with open(os.path.join(args.dir, f"run-{i:04d}.ktap"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{args.n} logs written to {args.dir}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("single")
    s.add_argument("log")
    s.add_argument("dom")
    s.add_argument("--png")
    m = sub.add_parser("matrix")
    m.add_argument("dom")
    m.add_argument("logs", nargs="+")
    m.add_argument("--filter")
    m.add_argument("--png")
    m.add_argument("--max-ms", type=float)
    g = sub.add_parser("make-runs")
    g.add_argument("base")
    g.add_argument("n", type=int)
    g.add_argument("dir")
    args = p.parse_args(argv)
    try:
        if args.cmd == "make-runs":
            return cmd_make_runs(args)
        check = Checks()
        (cmd_single if args.cmd == "single" else cmd_matrix)(args, check)
        return check.summary()
    except (OSError, ktap.KtapError, pngread.PngError) as e:
        print(f"check-report-page: {ktap.sanitize(str(getattr(e, 'strerror', None) or e))}"
              f"{': ' + e.filename if getattr(e, 'filename', None) else ''}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# SPDX-License-Identifier: MIT
"""The HTML report of `ktap-report.py html`: one self-contained file (inline
CSS and script, no network, no external asset).

One run: the verdict, the machine, per-suite pass/fail/skip/known bars,
every failure with expected, actual and the SDM rule, the known deviations
with their sources, every test grouped by suite (collapsed blocks: result,
skip reason, known-deviation ID), the capability record and the
measurements; all of it static HTML, so it reads without a script.

Several runs: a matrix, one column per run, one row per test, a colour per
result, drawn on a canvas by the inline script (a 500-run matrix is 80,000
cells: as DOM elements that alone takes seconds to lay out). Filters
(failures only, one suite, changed rows) are controls, or the page's
address: report.html#failures, #suite=rdpmc, #changes. The first cell of a
row that differs from the run before it (classify, as
`ktap-report.py diff` judges it) is marked. The script writes the time it
took, from navigation to the matrix drawn, into #render-ms.
"""

import html
import json
from typing import Any, Optional

from .diff import classify, tests_by_name
from .failures import failures, known_row
from .ktap import FAILING, RESULTS, VERDICTS, Run, sanitize
from .machine import capability_records, machine, machine_label
from .verdict import counts, verdict_of

COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "timeout": "#8e24aa", "error": "#5d4037",
           "skip": "#b0b0b0", "xfail": "#f9a825", "inferred": "#00838f", "absent": "#ffffff"}
VERDICT_COLOURS = {"PASS": "#2e7d32", "PASS-INFERRED": "#00838f", "FAIL": "#c62828", "ERROR": "#f9a825",
                   "INCOMPLETE": "#f9a825"}
# One character a cell in the matrix data.
CODES = {"pass": "P", "fail": "F", "timeout": "T", "error": "E", "skip": "S", "xfail": "X", "inferred": "I"}
LABELS = {"pass": "pass", "fail": "fail", "timeout": "timeout", "error": "exception",
          "skip": "skip", "xfail": "known deviation",
          "inferred": "inferred rule not followed"}
# What a matrix cell wide enough for text says.
SHORT = {"pass": "pass", "fail": "fail", "timeout": "timeout", "error": "exception",
         "skip": "skip", "xfail": "known", "inferred": "inferred"}

CSS = """
body { font: 14px/1.4 sans-serif; margin: 0; color: #212121; background: #fff; }
main { padding: 0 16px 24px; }
h1 { font-size: 18px; margin: 12px 16px; }
h2 { font-size: 16px; margin: 20px 0 8px; border-bottom: 1px solid #ddd; }
.verdict { color: #fff; font-size: 40px; font-weight: bold; padding: 18px 16px; letter-spacing: 2px; }
.verdict small { font-size: 15px; font-weight: normal; letter-spacing: 0; margin-left: 16px; }
.v-PASS { background: #2e7d32; } .v-FAIL { background: #c62828; }
.v-ERROR { background: #f9a825; color: #212121; }
.v-INCOMPLETE { background: #f9a825; color: #212121; }
table { border-collapse: collapse; }
td, th { padding: 2px 8px; text-align: left; vertical-align: top; }
table.grid td, table.grid th { border: 1px solid #e0e0e0; }
.bar { display: flex; width: 360px; height: 14px; background: #eee; }
.bar span { display: block; height: 100%; }
.r-pass { background: #2e7d32; } .r-fail { background: #c62828; } .r-timeout { background: #8e24aa; }
.r-error { background: #5d4037; } .r-skip { background: #b0b0b0; } .r-xfail { background: #f9a825; } .r-inferred { background: #00838f; }
.dot { display: inline-block; width: 10px; height: 10px; }
details.suite-tests { margin: 2px 0; }
.num { font-variant-numeric: tabular-nums; text-align: right; }
article { border-left: 4px solid #c62828; padding: 4px 12px; margin: 10px 0; background: #fafafa; }
article.known { border-color: #f9a825; }
article h3 { font-size: 14px; margin: 4px 0; font-family: monospace; }
pre { background: #f5f5f5; padding: 8px; overflow-x: auto; margin: 4px 0; }
.k { color: #616161; width: 90px; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; border: 1px solid #999; }
#controls { margin: 8px 0; }
#controls label { margin-right: 16px; }
#matrix-wrap { position: relative; overflow: auto; max-height: 80vh; border: 1px solid #ccc; }
#matrix-grid { display: grid; grid-template-columns: max-content max-content; }
#corner { position: sticky; top: 0; left: 0; z-index: 3; background: #fff; }
#colhead { position: sticky; top: 0; z-index: 2; background: #fff; }
#rowhead { position: sticky; left: 0; z-index: 1; background: #fff; font: 11px/1 monospace; }
#rowhead div { white-space: nowrap; padding-right: 6px; overflow: hidden; }
#tip { position: fixed; pointer-events: none; background: #212121; color: #fff; padding: 4px 8px;
       font-size: 12px; display: none; z-index: 9; max-width: 480px; }
"""


def esc(text: object) -> str:
    return html.escape(sanitize(str(text)), quote=True)


def page(title: str, body: str, script: str = "") -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style></head>\n<body>\n{body}\n"
            + (f"<script>\n{script}\n</script>\n" if script else "") + "</body></html>\n")


def bar(c: dict[str, int], total: int) -> str:
    parts = []
    for r in ("pass", "inferred", "xfail", "fail", "timeout", "error", "skip"):
        if c[r]:
            parts.append(f'<span class="r-{r}" style="width:{100.0 * c[r] / total:.2f}%" '
                         f'title="{c[r]} {LABELS[r]}"></span>')
    return f'<div class="bar">{"".join(parts)}</div>'


def all_tests(run: Run) -> str:
    """Every test of the run, one collapsed block a suite: "did this test run
    here, and why not" (a skip's reason, a known deviation's ID)."""
    tests = list(run.tests())
    out = [f'<h2>All tests ({len(tests)})</h2><section id="tests">']
    for s in run.suites:
        sc = counts(s.tests)
        summary = ", ".join(f"{sc[r]} {LABELS[r]}" for r in RESULTS if sc[r])
        out.append(f'<details class="suite-tests" data-suite-tests="{esc(s.name)}">'
                   f"<summary><b>{esc(s.name)}</b>: {esc(summary or 'no test')}</summary>"
                   '<table class="grid"><tr><th>test</th><th>result</th><th>why</th></tr>')
        for t in s.tests:
            why = t.reason if t.result in ("skip", "xfail", "inferred") else ""
            out.append(f'<tr data-test-row="{esc(t.full_name)}" data-result="{t.result}" '
                       f'data-reason="{esc(why)}"><td>{esc(t.name)}</td>'
                       f'<td><span class="r-{t.result} dot"></span> {LABELS[t.result]}</td>'
                       f"<td>{esc(why)}</td></tr>")
        out.append("</table></details>")
    out.append("</section>")
    return "\n".join(out)


def single(path: str, run: Run) -> str:
    """The report of one run."""
    v = verdict_of(run)
    m = machine(run)
    tests = list(run.tests())
    c = counts(tests)
    look = v if v in VERDICTS else "ERROR"  # a newer kernel's word: not a pass
    out = [f'<div id="verdict" class="verdict v-{look}" data-verdict="{esc(v)}">{esc(v)}'
           f'<small>{esc(machine_label(run, path))}</small></div>',
           f"<h1>pmutest report: {esc(path)}</h1><main>"]
    out.append('<table id="totals" class="grid"><tr>' + "".join(
        f"<th>{LABELS[r]}</th>" for r in RESULTS) + "<th>total</th></tr><tr>" + "".join(
        f'<td class="num" data-count="{r}">{c[r]}</td>' for r in RESULTS)
        + f'<td class="num" data-count="total">{len(tests)}</td></tr></table>')

    out.append('<h2>Machine</h2><table id="machine" class="grid">')
    rows = [("platform", m["platform"]), ("vendor", m["vendor"] and f"{m['vendor']} ({m['vendor_name']})"),
            ("family/model/stepping", m["family"] and f"{m['family']} / {m['model']} / {m['stepping']}"
             + (f" (CPUID.01H:EAX = {m['signature']})" if m["signature"] else "")),
            ("microcode", m["microcode"] or "not in the log"),
            ("hypervisor", m["hypervisor"]), ("firmware", m["firmware"]),
            ("CPUs", m["cpus"]), ("PMU configurations", m["pmu_configurations"]),
            ("host", m["host"]), ("pmutest", m["pmutest"])]
    for k, val in rows:
        if val:
            out.append(f'<tr data-key="{esc(k)}"><th>{esc(k)}</th><td>{esc(val)}</td></tr>')
    out.append("</table>")
    cpu_lines = [d for d in run.diagnostics if d.startswith("cpu ")]
    if cpu_lines:
        out.append("<pre>" + esc("\n".join(cpu_lines)) + "</pre>")

    out.append('<h2>Suites</h2><table id="suites" class="grid"><tr><th>suite</th><th></th>'
               '<th>pass</th><th>fail</th><th>skip</th><th>known</th><th>total</th></tr>')
    for s in run.suites:
        sc = counts(s.tests)
        failed = sc["fail"] + sc["timeout"] + sc["error"]
        out.append(f'<tr data-suite="{esc(s.name)}" data-pass="{sc["pass"]}" data-fail="{failed}" '
                   f'data-skip="{sc["skip"]}" data-known="{sc["xfail"]}"><td>{esc(s.name)}</td>'
                   f'<td>{bar(sc, max(1, len(s.tests)))}</td><td class="num">{sc["pass"]}</td>'
                   f'<td class="num">{failed}</td><td class="num">{sc["skip"]}</td>'
                   f'<td class="num">{sc["xfail"]}</td><td class="num">{len(s.tests)}</td></tr>')
    out.append("</table>")

    failing = [t for t in tests if t.result in FAILING]
    out.append(f'<h2>Failures ({len(failing)})</h2><section id="failures">')
    if not failing:
        out.append("<p>None.</p>")
    for t in failing:
        out.append(f'<article class="failure" data-test="{esc(t.full_name)}" data-result="{t.result}">'
                   f"<h3>{esc(t.full_name)}: {LABELS[t.result]}</h3>")
        checks = failures(t)
        if checks:
            out.append('<table class="grid">')
            for f in checks:
                out.append(f'<tr class="check" data-expected="{esc(f["expected"])}" data-actual="{esc(f["actual"])}" '
                           f'data-rule="{esc(f["rule"])}"><td colspan="2"><b>{esc(f["what"])}</b></td></tr>'
                           f'<tr><td class="k">expected</td><td>{esc(f["expected"])}</td></tr>'
                           f'<tr><td class="k">actual</td><td>{esc(f["actual"])}</td></tr>'
                           f'<tr><td class="k">rule</td><td>{esc(f["rule"])}</td></tr>')
                if f["known"]:
                    out.append(f'<tr><td class="k">known</td><td>{esc(f["known"])}</td></tr>')
            out.append("</table>")
        else:
            out.append("<pre>" + esc("\n".join(t.diagnostics[-12:]) or t.reason or t.result) + "</pre>")
        out.append("</article>")
    out.append("</section>")

    known = [t for t in tests if t.result == "xfail"]
    out.append(f'<h2>Known deviations ({len(known)})</h2><section id="known">')
    if not known:
        out.append("<p>None.</p>")
    for t in known:
        kid, src = known_row(t)
        out.append(f'<article class="known" data-test="{esc(t.full_name)}" data-id="{esc(kid)}">'
                   f"<h3>{esc(t.full_name)}: {esc(kid)}</h3><p>source: {esc(src or 'not given')}</p>")
        for f in failures(t):
            out.append(f"<p>{esc(f['what'])}: expected {esc(f['expected'])}, actual {esc(f['actual'])}"
                       f" ({esc(f['rule'])})</p>")
        out.append("</article>")
    out.append("</section>")

    out.append(all_tests(run))

    out.append('<h2>Capability record</h2><section id="caps">')
    for title, lines in capability_records(run):
        out.append(f"<h3>{esc(title)}</h3><pre>{esc(chr(10).join(lines))}</pre>")
    out.append("</section>")

    out.append('<h2>Measurements</h2><table id="measurements" class="grid">'
               "<tr><th>measurement</th><th>value</th><th>unit</th></tr>")
    for name, mv in run.measurements.items():
        out.append(f'<tr data-measure="{esc(name)}"><td>{esc(name)}</td>'
                   f'<td class="num">{mv["value"]}</td><td>{esc(mv["unit"])}</td></tr>')
    out.append("</table>")
    closing = [d for d in run.diagnostics if d.startswith(("Totals:", "deviations:", "checks:", "error:"))]
    if closing:
        out.append("<pre>" + esc("\n".join(closing)) + "</pre>")
    out.append("</main>")
    return page(f"pmutest {v}: {path}", "\n".join(out))


def matrix_data(runs: list[tuple[str, Run]]) -> dict[str, Any]:
    """The matrix as data: runs, rows (every test of any run, in first-seen
    order), one code a cell, and each row's first differing cell."""
    names: dict[str, int] = {}
    suite_of: dict[str, str] = {}
    for _, run in runs:
        for t in run.tests():
            if t.full_name not in names:
                names[t.full_name] = len(names)
                suite_of[t.full_name] = t.suite
    by_run = [tests_by_name(run) for _, run in runs]
    rows: list[list[str]] = []
    cells: list[str] = []
    marks: list[Optional[list[object]]] = []
    for name in names:
        rows.append([name, suite_of[name]])
        line = [CODES[tr[name].result] if name in tr else "-" for tr in by_run]
        cells.append("".join(line))
        mark: Optional[list[object]] = None
        for col in range(1, len(runs)):
            kind = classify(by_run[col - 1].get(name), by_run[col].get(name))
            if kind:
                mark = [col, kind]
                break
        marks.append(mark)
    meta: list[dict[str, object]] = []
    for path, run in runs:
        c = counts(run.tests())
        meta.append({"file": path, "label": machine_label(run, path),
                     "verdict": verdict_of(run), "counts": c})
    return {"runs": meta, "rows": rows, "cells": cells, "marks": marks,
            "colours": COLOURS, "verdictColours": VERDICT_COLOURS,
            "codes": {v: k for k, v in CODES.items()}, "labels": LABELS, "short": SHORT}


MATRIX_JS = r"""
(function () {
  const D = JSON.parse(document.getElementById('matrix-data').textContent);
  const n = D.runs.length, big = n > 60;
  const CW = n <= 12 ? 72 : (big ? 10 : 18), CH = big ? 12 : 16;
  const codeColour = {};
  for (const c in D.codes) codeColour[c] = D.colours[D.codes[c]];
  codeColour['-'] = D.colours.absent;
  const failing = new Set(['F', 'T', 'E']);
  const canvas = document.getElementById('matrix');
  const head = document.getElementById('colhead');
  const rowhead = document.getElementById('rowhead');
  const stats = document.getElementById('matrix-stats');
  const suiteSel = document.getElementById('f-suite');
  const onlyFail = document.getElementById('f-failures');
  const onlyChanged = document.getElementById('f-changes');
  const tip = document.getElementById('tip');
  let shown = [];
  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; });
  }

  // Column heads: the run's verdict colour, its number, its machine (title).
  const hc = document.createElement('canvas');
  const HH = n <= 12 ? 0 : 14;
  if (n <= 12) {
    head.style.display = 'flex';
    D.runs.forEach(function (r, i) {
      const d = document.createElement('div');
      d.style.cssText = 'width:' + CW + 'px;height:120px;font-size:11px;overflow:hidden;' +
        'border-bottom:6px solid ' + D.verdictColours[r.verdict] + ';writing-mode:vertical-rl;transform:rotate(180deg)';
      d.textContent = (i + 1) + ' ' + r.label;
      d.title = r.file + ': ' + r.verdict;
      d.className = 'runhead';
      head.appendChild(d);
    });
  } else {
    hc.width = n * CW; hc.height = HH;
    const g = hc.getContext('2d');
    D.runs.forEach(function (r, i) { g.fillStyle = D.verdictColours[r.verdict]; g.fillRect(i * CW, 0, CW - 1, HH); });
    head.appendChild(hc);
  }
  const suites = [];
  D.rows.forEach(function (r) { if (suites.indexOf(r[1]) < 0) suites.push(r[1]); });
  suites.forEach(function (s) { const o = document.createElement('option'); o.value = o.textContent = s; suiteSel.appendChild(o); });

  function rowFails(i) { const c = D.cells[i]; for (let k = 0; k < c.length; k++) if (failing.has(c[k])) return true; return false; }

  function draw() {
    const suite = suiteSel.value, fo = onlyFail.checked, ch = onlyChanged.checked;
    shown = [];
    for (let i = 0; i < D.rows.length; i++) {
      if (suite && D.rows[i][1] !== suite) continue;
      if (fo && !rowFails(i)) continue;
      if (ch && !D.marks[i]) continue;
      shown.push(i);
    }
    canvas.width = n * CW; canvas.height = Math.max(1, shown.length * CH);
    const g = canvas.getContext('2d');
    g.font = '11px sans-serif'; g.textBaseline = 'middle';
    let failCells = 0, marked = 0;
    const labels = [];
    shown.forEach(function (i, y) {
      const c = D.cells[i];
      for (let x = 0; x < n; x++) {
        const code = c[x];
        if (failing.has(code)) failCells++;
        g.fillStyle = codeColour[code];
        g.fillRect(x * CW, y * CH, CW - 1, CH - 1);
        if (code === '-') { g.strokeStyle = '#ccc'; g.strokeRect(x * CW + 0.5, y * CH + 0.5, CW - 2, CH - 2); }
        if (n <= 12 && code !== '-') {
          g.fillStyle = (code === 'S' || code === 'X') ? '#212121' : '#fff';
          g.fillText(D.short[D.codes[code]], x * CW + 4, y * CH + CH / 2);
        }
      }
      const m = D.marks[i];
      if (m) {
        marked++;
        g.strokeStyle = '#000'; g.lineWidth = 2;
        g.strokeRect(m[0] * CW + 1, y * CH + 1, CW - 3, CH - 3);
        g.lineWidth = 1;
      }
      const name = escapeHtml(D.rows[i][0]);
      labels.push('<div style="height:' + CH + 'px;line-height:' + CH + 'px" title="' + name + '">' + name + '</div>');
    });
    rowhead.innerHTML = labels.join('');
    rowhead.style.paddingTop = '0';
    stats.dataset.runs = n; stats.dataset.rows = D.rows.length; stats.dataset.shown = shown.length;
    stats.dataset.failCells = failCells; stats.dataset.marked = marked;
    stats.textContent = n + ' runs, ' + shown.length + ' of ' + D.rows.length + ' tests shown, ' +
      failCells + ' failing cells, ' + marked + ' rows changing (first change outlined)';
  }

  function fromHash() {
    const h = decodeURIComponent(location.hash.slice(1));
    h.split('&').forEach(function (p) {
      if (p === 'failures') onlyFail.checked = true;
      if (p === 'changes') onlyChanged.checked = true;
      if (p.indexOf('suite=') === 0) suiteSel.value = p.slice(6);
    });
  }
  canvas.addEventListener('mousemove', function (e) {
    const r = canvas.getBoundingClientRect();
    const x = Math.floor((e.clientX - r.left) / CW), y = Math.floor((e.clientY - r.top) / CH);
    if (x < 0 || x >= n || y < 0 || y >= shown.length) { tip.style.display = 'none'; return; }
    const i = shown[y], code = D.cells[i][x], m = D.marks[i];
    tip.textContent = D.rows[i][0] + ' | run ' + (x + 1) + ': ' + D.runs[x].label + ' (' + D.runs[x].file + ') | ' +
      (code === '-' ? 'not in this run' : D.labels[D.codes[code]]) +
      (m && m[0] === x ? ' | first change: ' + m[1] : '');
    tip.style.left = (e.clientX + 12) + 'px'; tip.style.top = (e.clientY + 12) + 'px'; tip.style.display = 'block';
  });
  canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  [suiteSel, onlyFail, onlyChanged].forEach(function (el) { el.addEventListener('change', draw); });
  window.addEventListener('hashchange', function () { fromHash(); draw(); });
  fromHash();
  draw();
  const ms = performance.now();
  const t = document.getElementById('render-ms');
  t.dataset.ms = ms.toFixed(1);
  t.textContent = 'drawn ' + ms.toFixed(0) + ' ms after the page was requested';
})();
"""


def matrix(runs: list[tuple[str, Run]]) -> str:
    """The report of several runs."""
    data = matrix_data(runs)
    out = ['<h1>pmutest: %d runs</h1><main>' % len(runs)]
    out.append('<table id="runs" class="grid"><tr><th>#</th><th>verdict</th><th>machine</th><th>log</th>'
               + "".join(f"<th>{LABELS[r]}</th>" for r in RESULTS) + "</tr>")
    for i, r in enumerate(data["runs"], 1):
        out.append(f'<tr data-run="{i}" data-verdict="{esc(r["verdict"])}"><td class="num">{i}</td>'
                   f'<td style="background:{VERDICT_COLOURS[r["verdict"]]};color:#fff">{esc(r["verdict"])}</td>'
                   f'<td>{esc(r["label"])}</td><td>{esc(r["file"])}</td>'
                   + "".join(f'<td class="num" data-count="{k}">{r["counts"][k]}</td>'
                             for k in RESULTS) + "</tr>")
    out.append("</table>")
    legend = "".join(f'<span style="background:{COLOURS[k]}"></span>{esc(LABELS.get(k, "not in the run"))}'
                     for k in ("pass", "fail", "timeout", "error", "skip", "xfail", "inferred", "absent"))
    out.append(f'<h2>Matrix</h2><p class="legend">{legend}; outlined: the first run where the test '
               "differs from the run before it (as <code>ktap-report.py diff</code> judges)</p>")
    out.append('<div id="controls"><label><input type="checkbox" id="f-failures"> failures only</label>'
               '<label><input type="checkbox" id="f-changes"> changing only</label>'
               '<label>suite <select id="f-suite"><option value="">all</option></select></label>'
               '<span id="matrix-stats"></span></div>')
    out.append('<div id="matrix-wrap"><div id="matrix-grid"><div id="corner"></div><div id="colhead"></div>'
               '<div id="rowhead"></div><canvas id="matrix"></canvas></div></div>'
               '<p id="render-ms"></p><div id="tip"></div></main>')
    # "</" inside the JSON would end the script element early.
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    out.append(f'<script type="application/json" id="matrix-data">{blob}</script>')
    return page(f"pmutest: {len(runs)} runs", "\n".join(out), MATRIX_JS)


def render(runs: list[tuple[str, Run]]) -> str:
    """runs: [(label, Run)], each a complete log."""
    return single(*runs[0]) if len(runs) == 1 else matrix(runs)

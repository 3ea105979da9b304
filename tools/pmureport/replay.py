# SPDX-License-Identifier: MIT
"""A report as a reproducible bug report: the `explain` and `bugreport`
subcommands.

explain REPORT: runs `pmusim --replay REPORT` twice, as the report's machine
(its simulator quirks, or a KVM guest's platform model) and as a conforming
CPU with the same enumeration (`--conforming`), and prints test by test where
the report and the conforming CPU differ; for each difference the first
MSR/RDPMC access (kernel/trace.h lines) whose result differs, and the
known-deviation rows (kernel/known.c) that cover the machine.

bugreport REPORT -o FILE.md: one self-contained Markdown text from the report
alone: machine, verdict, each failure (expected, actual, rule, trace), the
known deviations, the replay command.
"""
import os
import re
import subprocess
from typing import Callable, Optional

from .diff import compare, describe
from .failures import exceptions, failures, inferred_departures, known_row
from .ktap import Run, Test, split_cpu
from .machine import machine, machine_label
from .reader import parse, read_log
from .verdict import broken

CPU_LINE_RE = re.compile(r"^cpu \d+: APIC ID ")
TRACE_RE = re.compile(r"^trace: (\d+) (rdmsr|wrmsr|rdpmc) (\S+) (\S+) (\S+)$")
# The tree this package is part of (tools/pmureport/): its simulator and
# the proof lines of its known-deviation rows.
HERE = os.path.dirname(os.path.abspath(__file__))
PMUSIM = os.path.join(HERE, "..", "..", "build", "host", "pmusim")
CHECK_KNOWN = os.path.join(HERE, "..", "..", "testing", "check-known.sh")


class ReplayError(Exception):
    """One line: why the report cannot be explained."""


# (op, address, value, outcome) of one traced access (kernel/trace.h).
Access = tuple[str, str, str, str]


def accesses(test: Test, log_only: bool = False) -> dict[int, Access]:
    """{seq: (op, addr, value, outcome)} of a test's trace lines: the rings
    under its failed checks, and with trace = 2 its first accesses."""
    out: dict[int, Access] = {}
    in_log = False
    for d in test.diagnostics:
        if d.startswith("trace log:"):
            in_log = True
            continue
        mm = TRACE_RE.match(d)
        if mm and (in_log or not log_only):
            out[int(mm.group(1))] = (mm.group(2), mm.group(3), mm.group(4), mm.group(5))
    return out


TRACE_LOG_MAX = 512  # kernel/trace.h: accesses a trace = 2 window shows
TRACE_WINDOWS = 16   # windows explain reads per test before it gives up


def log_full(test: Test) -> bool:
    """Whether a trace = 2 window of the test was full (more accesses follow)."""
    return any(d.startswith("trace: ") and d.endswith("more accesses not shown")
               for d in test.diagnostics)


def first_difference(machine: dict[int, Access],
                     conforming: dict[int, Access]) -> Optional[tuple[int, Access, Access]]:
    """(seq, machine access, conforming access) of the first access number
    both traces hold with different contents, or None."""
    for seq in sorted(set(machine) & set(conforming)):
        if machine[seq] != conforming[seq]:
            return seq, machine[seq], conforming[seq]
    return None


def fmt_access(a: Access) -> str:
    op, addr, value, outcome = a
    return f"{op} {addr} {'<-' if op == 'wrmsr' else '->'} {value} ({outcome})"


def pmusim(args: list[str], pmusim_path: str) -> str:
    try:
        p = subprocess.run([pmusim_path] + args, capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise ReplayError(f"cannot run {pmusim_path}: {e.strerror} (make host builds it)")
    except subprocess.TimeoutExpired:
        raise ReplayError("pmusim --replay did not finish within 600 s")
    if p.returncode not in (0, 1):
        raise ReplayError((p.stderr.strip().splitlines() or ["pmusim failed"])[-1])
    return p.stdout


def run_of(text: str) -> Run:
    run = parse(text)
    bad = broken(run)
    if bad:
        raise ReplayError(f"the replay's log is broken: {bad[0]}")
    return run


def by_name(run: Run) -> dict[str, Test]:
    return {t.full_name: t for t in run.tests()}


def known_rows(report: str, pmusim_path: str) -> list[tuple[str, bool, str]]:
    """[(row id, applies, quirk options)]: each row, whether it covers the
    machine, and the --quirk options that reproduce it."""
    # The quirks that reproduce each row: the proof lines of
    # testing/check-known.sh ("id|quirks|affected|unaffected"), one place.
    proofs: dict[str, str] = {}
    try:
        with open(CHECK_KNOWN, encoding="utf-8") as f:
            for line in f:
                mm = re.match(r"^([a-z0-9][\w-]*)\|([\w -]+)\|", line)
                if mm:
                    proofs[mm.group(1)] = " ".join(f"--quirk {q}" for q in mm.group(2).split())
    except OSError:
        pass
    rows: list[tuple[str, bool, str]] = []
    for line in pmusim(["--replay", report, "--known-rows"], pmusim_path).splitlines():
        rid, _, state = line.partition("\t")
        rows.append((rid, state == "applies", proofs.get(rid, "")))
    return rows


def explain(report: str, pmusim_path: str = PMUSIM, out: Callable[[str], None] = print) -> int:
    """Print the explanation; returns the number of tests that differ."""
    machine = read_log(report)
    bad = broken(machine)
    if bad:
        raise ReplayError(f"{report}: broken log: {bad[0]}")
    conforming = run_of(pmusim(["--replay", report, "--conforming"], pmusim_path))
    changes = [c for c in compare(conforming, machine)]
    out(f"# machine: {machine_label(machine, report)}")
    out(f"# replay: pmusim --replay {report}; conforming CPU: pmusim --replay {report} --conforming")
    names = sorted({name for _, name, _, _ in changes})
    # from -> (machine replay, conforming replay), by test name
    windows: dict[int, tuple[dict[str, Test], dict[str, Test]]] = {}
    mtests = by_name(machine)

    def window(start: int) -> tuple[dict[str, Test], dict[str, Test]]:
        """Both replays of the differing tests with trace = 2 from `start`
        (the machine's own rings come from the report)."""
        if start not in windows:
            sel = ["--set", "trace=2", "--set", f"trace_from={start}", "--set", "tests=" + ", ".join(
                sorted({split_cpu(n.split(".")[0])[0] + "." + n.split(".", 1)[1]
                        for n in names}))]
            windows[start] = (by_name(run_of(pmusim(["--replay", report] + sel, pmusim_path))),
                              by_name(run_of(pmusim(["--replay", report, "--conforming"] + sel,
                                                    pmusim_path))))
        return windows[start]

    for kind, name, a, b in changes:
        out(f"{name}: conforming {describe(a)}, machine {describe(b)} ({kind})")
        t = mtests.get(name)
        for f in failures(t) if t else []:
            out(f"  check:    {f['what']}")
            out(f"  expected: {f['expected']}")
            out(f"  actual:   {f['actual']}")
            out(f"  rule:     {f['rule']}")
        for i in inferred_departures(t) if t else []:
            out(f"  inferred rule not followed: {i['what']}")
            out(f"  inferred: {i['inferred']}")
            out(f"  machine:  {i['machine']}")
            out(f"  rule:     {i['rule']}")
        ring = accesses(t) if t else {}
        diff, seen_m, seen_c = None, len(ring), 0
        # Window by window (TRACE_LOG_MAX accesses each), up to
        # TRACE_WINDOWS of them, then the window of the report's rings.
        starts = [i * TRACE_LOG_MAX for i in range(TRACE_WINDOWS)]
        if ring and min(ring) >= TRACE_WINDOWS * TRACE_LOG_MAX:
            starts.append(max(0, min(ring) - TRACE_LOG_MAX // 2))
        for start in starts:
            tm, tc = window(start)
            m_acc = {**(accesses(tm[name], log_only=True) if name in tm else {}), **ring}
            c_acc = accesses(tc[name], log_only=True) if name in tc else {}
            seen_c += len(c_acc)
            diff = first_difference(m_acc, c_acc)
            if diff or not (name in tc and log_full(tc[name])):
                break
        if diff:
            seq, ma, ca = diff
            out(f"  first differing access: #{seq}: machine {fmt_access(ma)}, "
                f"conforming {fmt_access(ca)}")
        else:
            out("  first differing access: none in the accesses compared (the machine's "
                f"trace under its failed checks: {seen_m}; the conforming CPU's: {seen_c})")
    rows = known_rows(report, pmusim_path)
    xfails = {known_row(t)[0] for t in machine.tests() if t.result == "xfail"}
    for rid, applies, quirk in rows:
        if rid in xfails:
            out(f"known deviation matches the machine: {rid}")
        elif applies:
            out(f"known deviation would match if present: {rid}"
                + (f" (pmusim --replay {report} {quirk})" if quirk else ""))
    out(f"# {len(changes)} tests differ from a conforming CPU with the same enumeration")
    return len(changes)


def bugreport(report: str) -> str:
    """The Markdown text of a bug report from the report alone."""
    run = read_log(report)
    bad = broken(run)
    if bad:
        raise ReplayError(f"{report}: broken log: {bad[0]}")
    m = machine(run)
    verdict = run.verdict or "none"
    lines = [f"# pmutest report: {machine_label(run, report)}", "",
             f"**Verdict: {verdict}**", "", "## Machine", ""]
    for key in ("pmutest", "platform", "vendor", "signature", "microcode", "hypervisor",
                "firmware", "cpus", "pmu_configurations", "host"):
        if m.get(key):
            lines.append(f"- {key}: {m[key]}")
    lines += ["", "Raw machine (what `pmusim --replay` rebuilds it from):", "", "```"]
    lines += [d for d in run.diagnostics
              if d.startswith(("cpuid: ", "msr: ", "option: ", "firmware state"))
              or CPU_LINE_RE.match(d)]
    lines += ["```", "", "## Failures", ""]
    failed = [t for t in run.tests() if t.result in ("fail", "timeout", "error")]
    if not failed:
        lines.append("None.")
    for t in failed:
        lines += [f"### {t.full_name}: {t.result}", ""]
        for f in failures(t):
            lines += [f"- check: {f['what']}", f"  - expected: {f['expected']}",
                      f"  - actual: {f['actual']}", f"  - rule: {f['rule']}"]
        for e in exceptions(t):
            lines.append(f"- {e}")
        trace = [d for d in t.diagnostics if d.startswith("trace: ")]
        if trace:
            lines += ["", "Evidence (access trace: seq op address value outcome):", "", "```"]
            lines += trace + ["```"]
        lines.append("")
    lines += ["## Inferred rules not followed", "",
              "Not failures (strict=1 makes them so): checks of a rule pmutest infers, "
              "the manual does not state; the verdict is then PASS-INFERRED, not PASS.", ""]
    inferred = [t for t in run.tests() if t.result == "inferred"]
    if not inferred:
        lines.append("None.")
    for t in inferred:
        lines += [f"### {t.full_name}: inferred ({t.reason})", ""]
        for i in inferred_departures(t):
            lines += [f"- check: {i['what']}", f"  - inferred: {i['inferred']}",
                      f"  - machine: {i['machine']}", f"  - rule: {i['rule']}"]
        lines.append("")
    lines += ["## Known deviations", ""]
    xf = [(t.full_name, known_row(t)) for t in run.tests() if t.result == "xfail"]
    lines += [f"- {n}: {k[0]}: {k[1]}" for n, k in xf] or ["None."]
    lines += ["", "## Reproduce", "", "```sh",
              f"build/host/pmusim --replay {os.path.basename(report)}",
              f"python3 tools/ktap-report.py explain {os.path.basename(report)}", "```", "",
              "## What this text holds", "",
              "Only what the report holds: the CPUID leaves pmutest read, "
              "IA32_PERF_CAPABILITIES, the microcode revision, the firmware vendor "
              "and its counter state at hand-over, the options, the results and "
              "the MSR/RDPMC accesses under failed checks; KVM runs add the host "
              "kernel and QEMU versions. No serial numbers, host names or "
              "addresses beyond these.", ""]
    return "\n".join(lines)

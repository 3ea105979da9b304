# SPDX-License-Identifier: MIT
"""A report as a reproducible bug report (issue 32): `ktap-report.py explain`
and `ktap-report.py bugreport`, kept apart from the other subcommands.

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

import ktapdiff
import ktaplib

CPU_LINE_RE = re.compile(r"^cpu \d+: APIC ID ")
TRACE_RE = re.compile(r"^trace: (\d+) (rdmsr|wrmsr|rdpmc) (\S+) (\S+) (\S+)$")
HERE = os.path.dirname(os.path.abspath(__file__))
PMUSIM = os.path.join(HERE, "..", "build", "host", "pmusim")


class ReplayError(Exception):
    """One line: why the report cannot be explained."""


def accesses(test, log_only=False):
    """{seq: (op, addr, value, outcome)} of a test's trace lines: the rings
    under its failed checks, and with trace = 2 its first accesses."""
    out, in_log = {}, False
    for d in test.diagnostics:
        if d.startswith("trace log:"):
            in_log = True
            continue
        mm = TRACE_RE.match(d)
        if mm and (in_log or not log_only):
            out[int(mm.group(1))] = mm.groups()[1:]
    return out


TRACE_LOG_MAX = 512  # kernel/trace.h: accesses a trace = 2 window shows
TRACE_WINDOWS = 16   # windows explain reads per test before it gives up


def log_full(test):
    """Whether a trace = 2 window of the test was full (more accesses follow)."""
    return any(d.startswith("trace: ") and d.endswith("more accesses not shown")
               for d in test.diagnostics)


def first_difference(machine, conforming):
    """(seq, machine access, conforming access) of the first access number
    both traces hold with different contents, or None."""
    for seq in sorted(set(machine) & set(conforming)):
        if machine[seq] != conforming[seq]:
            return seq, machine[seq], conforming[seq]
    return None


def fmt_access(a):
    op, addr, value, outcome = a
    return f"{op} {addr} {'<-' if op == 'wrmsr' else '->'} {value} ({outcome})"


def pmusim(args, pmusim_path):
    try:
        p = subprocess.run([pmusim_path] + args, capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise ReplayError(f"cannot run {pmusim_path}: {e.strerror} (make host builds it)")
    except subprocess.TimeoutExpired:
        raise ReplayError("pmusim --replay did not finish within 600 s")
    if p.returncode not in (0, 1):
        raise ReplayError((p.stderr.strip().splitlines() or ["pmusim failed"])[-1])
    return p.stdout


def run_of(text):
    run = ktaplib.parse(text)
    bad = ktaplib.broken(run)
    if bad:
        raise ReplayError(f"the replay's log is broken: {bad[0]}")
    return run


def by_name(run):
    return {t.full_name: t for t in run.tests()}


def known_rows(report, pmusim_path):
    """[(row id, applies, quirk options)]: each row, whether it covers the
    machine, and the --quirk options that reproduce it."""
    # The quirks that reproduce each row: the proof lines of
    # testing/check-known.sh ("id|quirks|affected|unaffected"), one place.
    proofs = {}
    try:
        with open(os.path.join(HERE, "..", "testing", "check-known.sh"), encoding="utf-8") as f:
            for line in f:
                mm = re.match(r"^([a-z0-9][\w-]*)\|([\w -]+)\|", line)
                if mm:
                    proofs[mm.group(1)] = " ".join(f"--quirk {q}" for q in mm.group(2).split())
    except OSError:
        pass
    rows = []
    for line in pmusim(["--replay", report, "--known-rows"], pmusim_path).splitlines():
        rid, _, state = line.partition("\t")
        rows.append((rid, state == "applies", proofs.get(rid, "")))
    return rows


def explain(report, pmusim_path=PMUSIM, out=print):
    """Print the explanation; returns the number of tests that differ."""
    machine = ktaplib.read_log(report)
    bad = ktaplib.broken(machine)
    if bad:
        raise ReplayError(f"{report}: broken log: {bad[0]}")
    conforming = run_of(pmusim(["--replay", report, "--conforming"], pmusim_path))
    changes = [c for c in ktapdiff.compare(conforming, machine)]
    out(f"# machine: {ktaplib.machine_label(machine, report)}")
    out(f"# replay: pmusim --replay {report}; conforming CPU: pmusim --replay {report} --conforming")
    names = sorted({name for _, name, _, _ in changes})
    windows = {}  # from -> (machine replay, conforming replay), by test name
    mtests = by_name(machine)

    def window(start):
        """Both replays of the differing tests with trace = 2 from `start`
        (the machine's own rings come from the report)."""
        if start not in windows:
            sel = ["--set", "trace=2", "--set", f"trace_from={start}", "--set", "tests=" + ", ".join(
                sorted({ktaplib.split_cpu(n.split(".")[0])[0] + "." + n.split(".", 1)[1]
                        for n in names}))]
            windows[start] = (by_name(run_of(pmusim(["--replay", report] + sel, pmusim_path))),
                              by_name(run_of(pmusim(["--replay", report, "--conforming"] + sel,
                                                    pmusim_path))))
        return windows[start]

    for kind, name, a, b in changes:
        out(f"{name}: conforming {ktapdiff.describe(a)}, machine {ktapdiff.describe(b)} ({kind})")
        t = mtests.get(name)
        for f in ktaplib.failures(t) if t else []:
            out(f"  check:    {f['what']}")
            out(f"  expected: {f['expected']}")
            out(f"  actual:   {f['actual']}")
            out(f"  rule:     {f['rule']}")
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
    xfails = {ktaplib.known_deviation(t)[0] for t in machine.tests() if t.result == "xfail"}
    for rid, applies, quirk in rows:
        if rid in xfails:
            out(f"known deviation matches the machine: {rid}")
        elif applies:
            out(f"known deviation would match if present: {rid}"
                + (f" (pmusim --replay {report} {quirk})" if quirk else ""))
    out(f"# {len(changes)} tests differ from a conforming CPU with the same enumeration")
    return len(changes)


def bugreport(report):
    """The Markdown text of a bug report from the report alone."""
    run = ktaplib.read_log(report)
    bad = ktaplib.broken(run)
    if bad:
        raise ReplayError(f"{report}: broken log: {bad[0]}")
    m = ktaplib.machine(run)
    verdict = run.verdict or "none"
    lines = [f"# pmutest report: {ktaplib.machine_label(run, report)}", "",
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
        for f in ktaplib.failures(t):
            lines += [f"- check: {f['what']}", f"  - expected: {f['expected']}",
                      f"  - actual: {f['actual']}", f"  - rule: {f['rule']}"]
        for e in ktaplib.exceptions(t):
            lines.append(f"- {e}")
        trace = [d for d in t.diagnostics if d.startswith("trace: ")]
        if trace:
            lines += ["", "Evidence (access trace: seq op address value outcome):", "", "```"]
            lines += trace + ["```"]
        lines.append("")
    lines += ["## Known deviations", ""]
    xf = [(t.full_name, ktaplib.known_deviation(t)) for t in run.tests() if t.result == "xfail"]
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


# ---- the subcommands of ktap-report.py -------------------------------------

COMMANDS = ("explain", "bugreport")


def add_parsers(sub):
    c = sub.add_parser("explain", help="where the report's machine departs from a conforming CPU")
    c.add_argument("log")
    c.add_argument("--pmusim", default=PMUSIM, help="the simulator (default build/host/pmusim)")
    c = sub.add_parser("bugreport", help="a self-contained Markdown bug report")
    c.add_argument("log")
    c.add_argument("-o", "--output", required=True)


def run(args, emit, usage_error):
    """Exit status: explain 0 (no difference) or 1; bugreport 0; 2 (one line
    on stderr) for a broken or unreplayable log."""
    try:
        if args.cmd == "explain":
            return 1 if explain(args.log, args.pmusim) else 0
        return emit(bugreport(args.log), args)
    except (ReplayError, ktaplib.KtapError) as e:
        raise usage_error(ktaplib.sanitize(str(e))) from None

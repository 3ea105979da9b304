#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every shipped expectations file rejects every quirk-induced failure its
lines do not describe.

For each platform model that has a shipped file (the sim-* steps of
testing/steps.sh: QEMU/KVM emulated, mediated and without a vPMU,
Firecracker, Xen's vpmu modes, the self-tests), the conforming run of the
model, then one run per quirk of arch/sim/quirk_table.h observable there (`pmusim
--mutation-plan`, the quirks' `applies` predicates) added to the model,
each compared with the file by `ktap-report.py compare` as make test does
(known deviations on). A quirk run whose failures differ from the model's
(a test's result, or the fingerprint of a failed test: its failed checks
with their outcome class, its exception, its known row) must be rejected
(exit 1); a run whose failures are the model's must be accepted (exit 0).
A quirk that only adds skips is counted apart: a skip names the CPUID bit
the run lacks and is not a mismatch; so is one that changes only printed
values within their outcome class (a count still above its bound): the
lines describe it.

  testing/check-expectations.py [-j JOBS] [--report TOOL] [--tree DIR] [--pmusim PMUSIM] [-v]
    --report  another tree's ktap-report.py to judge (default: this tree's)
    --tree    the tree whose data/expectations to judge (default: .)
    -v        also list each accepted run and its changes

Prints per platform the runs, how many changed the failures, how many of
those compare accepted, and the last line "N passed, N failed" (a check
per platform run: the conforming run accepted, each changed run rejected,
each unchanged run accepted). Exit 0 when nothing failed, 1 otherwise, 2
on bad usage (no pmusim, a model that does not run).
"""

import argparse
import concurrent.futures
import contextlib
import io
import os
import subprocess
import sys
import tempfile

from pmureport import cli, failures, fingerprint, reader, verdict

# The sim-* steps of testing/steps.sh: step name, pmusim arguments, file.
# The KVM models run as make test's sim-kvm-* steps do: told the host's
# kernel (host_kernel), which the KVM rows' version ranges need.
KVM_HOST = ["--set", "host_kernel=6.8.0"]
PLATFORMS = (
    ("sim-kvm-intel", ["--profile", "kvm-intel-sapphirerapids"] + KVM_HOST,
     "data/expectations/qemu-kvm-intel.txt"),
    ("sim-kvm-intel-pmu-off", ["--profile", "kvm-intel-sapphirerapids-pmu-off"] + KVM_HOST,
     "data/expectations/qemu-kvm-intel-pmu-off.txt"),
    ("sim-kvm-amd", ["--profile", "kvm-amd-zen4"] + KVM_HOST, "data/expectations/qemu-kvm-amd.txt"),
    ("sim-kvm-amd-pmu-off", ["--profile", "kvm-amd-zen4-pmu-off"] + KVM_HOST,
     "data/expectations/qemu-kvm-amd-pmu-off.txt"),
    ("sim-selftest", ["--profile", "synth-v5-metrics", "--set", "suites=selftest", "--watchdog-divisor", "10"],
     "data/expectations/selftest.txt"),
    ("sim-kvm-intel-mediated", ["--profile", "kvm-intel-sapphirerapids-mediated", "--set", "host_kernel=7.0.0"],
     "data/expectations/qemu-kvm-intel-mediated.txt"),
    ("sim-kvm-amd-mediated", ["--profile", "kvm-amd-zen4-mediated", "--set", "host_kernel=7.0.0"],
     "data/expectations/qemu-kvm-amd-mediated.txt"),
    ("sim-firecracker-intel", ["--profile", "firecracker-intel-sapphirerapids", "--set", "host_kernel=6.1.0"],
     "data/expectations/firecracker-intel.txt"),
    ("sim-firecracker-amd", ["--profile", "firecracker-amd-zen4", "--set", "host_kernel=6.1.0"],
     "data/expectations/firecracker-amd.txt"),
) + tuple((f"sim-xen-vpmu-{m}", ["--profile", f"xen-intel-sapphirerapids-vpmu-{m}"],
           f"data/expectations/xen-intel-vpmu-{m}.txt") for m in ("off", "on", "ipc", "arch"))


def die(msg):
    print(f"check-expectations: {msg}", file=sys.stderr)
    sys.exit(2)


def outcome(run):
    """{test: (result, fingerprint)} of every test that did not pass or skip,
    and the set of tests that skipped."""
    failing = {t.full_name: (t.result, tuple(fingerprint.fingerprint(t)))
               for t in run.tests() if t.result not in ("pass", "skip")}
    skipped = {t.full_name for t in run.tests() if t.result == "skip"}
    return failing, skipped


def raw_failures(run):
    """Every failed check as printed, values included: a run whose checks
    differ from the model's only here changed values within their class."""
    return {t.full_name: sorted((fingerprint.SEED_RE.sub("seed", f["what"]), f["expected"], f["actual"], f["rule"])
                                for f in failures.failures(t)) for t in run.tests()}


def in_process(argv):
    """(exit status, output) of this tree's command: compare runs in this
    process, for a thousand interpreters would take minutes on a shared
    machine."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            rc = cli.main(argv)
        except SystemExit as e:  # argparse
            rc = e.code
    return rc, out.getvalue()


def external(path):
    """The command of another tree (its ktap-report.py), judged as it is:
    one interpreter a run."""
    def run(argv):
        p = subprocess.run([sys.executable, path] + argv, capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr
    return run


def simulate(pmusim, args, path):
    """Run pmusim ARGS into PATH."""
    with open(path, "w") as f:
        try:
            subprocess.run([pmusim] + args, stdout=f, stderr=subprocess.STDOUT, timeout=120)
        except subprocess.TimeoutExpired:
            pass  # the log stops where the run hung: compare must refuse it (exit 2)
        except OSError as e:
            die(f"cannot run {pmusim}: {e.strerror}")
    return path


def compare(tool, path, expectations):
    """(parsed run, compare's exit status, its output)."""
    rc, text = tool(["compare", path, expectations])
    return reader.read_log(path), rc, text


def changes(base, run):
    """What a quirk run changed in the failures: ["test: was -> now"]."""
    (bf, _), (rf, _) = base, run
    out = []
    for name in sorted(set(bf) | set(rf)):
        if bf.get(name) != rf.get(name):
            was = bf.get(name, ("pass or skip",))[0]
            now = rf.get(name, ("pass or skip",))[0]
            out.append(f"{name}: {was} -> {now}" + (" (fingerprint)" if was == now else ""))
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--report", help="another tree's ktap-report.py (default: this tree's package)")
    p.add_argument("--pmusim", default="build/host/pmusim")
    p.add_argument("--tree", default=".", help="where data/expectations is (an older tree's files)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if not os.access(args.pmusim, os.X_OK):
        die(f"{args.pmusim} not built (make host)")
    listed = subprocess.run([args.pmusim, "--list-quirks"], capture_output=True, text=True)
    quirks = [ln.split()[0] for ln in listed.stdout.splitlines() if ln.strip()]
    if listed.returncode != 0 or not quirks:
        die("pmusim --list-quirks gave no quirk")
    # The quirks observable on each profile or platform model (pmusim
    # --mutation-plan: the quirk's `applies` predicate, as the mutation
    # matrix uses it): another quirk cannot change that model's run.
    plan = subprocess.run([args.pmusim, "--mutation-plan"], capture_output=True, text=True)
    planned, observable = set(), {}
    for ln in plan.stdout.splitlines():
        f = ln.split("\t")
        if f[0] in ("profile", "platform") and len(f) >= 2:
            planned.add(f[1])
        elif f[0] in ("quirk", "pquirk") and len(f) == 3:
            observable.setdefault(f[2], []).append(f[1])
    tool = external(args.report) if args.report else in_process
    passed = failed = 0
    total_changed = total_accepted = 0
    with tempfile.TemporaryDirectory(prefix="pmutest-expect.") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for step, model, expectations in PLATFORMS:
            expectations = os.path.join(args.tree, expectations)
            base_run, rc, text = compare(tool, simulate(args.pmusim, model, os.path.join(tmp, f"{step}.base.ktap")),
                                         expectations)
            if base_run.errors:
                die(f"{step}: the model's own run is broken: {base_run.errors[0]}")
            base = outcome(base_run)
            base_raw = raw_failures(base_run)
            if rc == 0:
                passed += 1
            else:
                failed += 1
                print(f"not ok - {step}: compare rejects the model's own run (exit {rc})")
                print("\n".join("#   " + ln for ln in text.splitlines()[-8:]))
            prof = model[model.index("--profile") + 1]
            step_quirks = observable.get(prof, []) if prof in planned else quirks
            jobs = {q: pool.submit(simulate, args.pmusim, model + ["--quirk", q],
                                   os.path.join(tmp, f"{step}.{q}.ktap")) for q in step_quirks}
            changed = accepted = skip_only = unchanged_rejected = broken = values_only = 0
            for q in step_quirks:
                run, rc, text = compare(tool, jobs[q].result(), expectations)
                if verdict.broken(run):
                    broken += 1  # a quirk that breaks the log: compare must say so (exit 2)
                got = outcome(run)
                diff = changes(base, got)
                if diff or run.errors:
                    changed += 1
                    if rc == 0:
                        accepted += 1
                        failed += 1
                        print(f"not ok - {step} --quirk {q}: the failures changed, compare accepted the run")
                        for d in (diff or run.errors)[:6]:
                            print(f"#   {d}")
                    else:
                        passed += 1
                        if args.verbose:
                            print(f"ok - {step} --quirk {q}: rejected (exit {rc}): {'; '.join(diff[:3])}")
                    continue
                if raw_failures(run) != base_raw:
                    values_only += 1  # same classes, other values: what the lines describe
                    if args.verbose:
                        print(f"# {step} --quirk {q}: only values within their class changed")
                if got[1] != base[1]:
                    skip_only += 1
                    if args.verbose:
                        print(f"# {step} --quirk {q}: only the skips changed "
                              f"({len(got[1] ^ base[1])} tests)")
                if rc == 0:
                    passed += 1
                else:
                    unchanged_rejected += 1
                    failed += 1
                    print(f"not ok - {step} --quirk {q}: failures unchanged, compare rejected the run (exit {rc})")
            total_changed += changed
            total_accepted += accepted
            print(f"# {step} ({expectations}): {len(step_quirks)} quirk runs, {changed} changed the failures: "
                  f"compare rejected {changed - accepted}, accepted {accepted}; "
                  f"{len(step_quirks) - changed} left them as the model's: accepted "
                  f"{len(step_quirks) - changed - unchanged_rejected}, rejected {unchanged_rejected}; "
                  f"{values_only} changed only values within their class; "
                  f"{skip_only} changed only skips; {broken} broke the log")
    print(f"# all platforms: {total_changed} quirk runs changed the failures, compare accepted {total_accepted}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

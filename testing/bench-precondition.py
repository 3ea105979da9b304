#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The counting preconditions' part of `make bench`: a PMU that counts
nothing is shown once (counters.hold_and_count) and every check that needs a
counting counter fails on that finding instead of proving it again. Each
figure with the baseline and goal the issue recorded (this machine,
HEAD 5d1eed4), and with --base DIR the same figure of DIR's build (e.g.
main's tree, built) measured in the same run, boots alternating:

  tcg microvm      direct boot on microvm under TCG (its PMU counts nothing):
                   the guest's run.boot_to_verdict_ms, the bodies of the tests
                   that ran, the whole run's wall time; against kvm-unit-tests'
                   pmu.flat (not on this machine: the issue's ratio, 0.37x,
                   scaled by this run against the base)
  guest insns      the same boot single-stepped (testing/bench-run.py insns():
                   QEMU -singlestep -d exec), instructions to the verdict: the
                   load-independent form of the in-guest time
  log bytes        that run's report, whole and its amd suite
  kvm smp 2        `make run KVM=1 SMP=2`'s run (tools/run.sh --kvm --smp 2:
                   this machine's KVM, enable_pmu=N): wall time and log bytes
  conforming sim   pmusim on conforming profiles: the same tests with the same
                   results and failures as the base (ktap-report.py diff),
                   counters.hold_and_count added, and the same windows: each
                   other suite's checks and simulated TSC cycles as the base's
                   (the model's clock moves with every window it runs)

usage: testing/bench-precondition.py [RUNS] [--base DIR] [--kvm-runs N]
  RUNS        boots of each kind on TCG (default 5)
  --kvm-runs  runs of the KVM figure (default 1; 0 skips it)
Exit status 0, or 2 with one line when a run does not reach its verdict.
"""
import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The baselines (2026-11-28, HEAD 5d1eed4) and goals.
BASE_FLAT_RATIO, GOAL_FLAT_RATIO = 0.37, 0.2
BASE_KVM_S, GOAL_KVM_S = 24.0, 12.0
BASE_LOG_BYTES, GOAL_LOG_FRACTION = 50_000, 1 / 3
CONFORMING = ("synth-v5-metrics", "intel_skylake_client_506e3", "amd_zen4_genoa_a10f11",
              "kvm-amd-zen4", "smp-synth-v5-x4")
VERDICT_MS_RE = re.compile(r"^# measure: run\.boot_to_verdict_ms = (\d+) ms$", re.M)
BODY_RE = re.compile(r"run tests: body (\d+) ms")
SUITE_RE = re.compile(r"^    # Subtest: (\S+)$")
SUITE_COST_RE = re.compile(r"^ *# (\S+): (\d+ distinct checks, \d+ evaluated, \d+ TSC cycles)$", re.M)


def tool(tree: str, name: str) -> str:
    """TREE's NAME: under tools/ (or scripts/, a tree from before tools/ and
    testing/ were apart: a --base built from an older main)."""
    for d in ("tools", "testing", "scripts"):
        path = os.path.join(tree, d, name)
        if os.path.exists(path):
            return path
    die(f"{tree}: no {name} under tools/, testing/ or scripts/")
    return ""


def die(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(2)


def tcg_boot(tree: str, log: str) -> tuple[float, str]:
    """One direct boot on microvm under TCG: (wall s, log text)."""
    cmd = [tool(tree, "run-qemu.sh"), "--kernel", os.path.join(tree, "build/pmutest.elf"),
           "--machine", "microvm", "--log", log]
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=600)
    wall = time.monotonic() - t0
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        die(f"no log from {tree}'s TCG boot")
    if "# verdict:" not in text:
        die(f"{tree}'s TCG boot reached no verdict ({log})")
    return wall, text


def guest_insns(tree: str) -> int:
    """Guest instructions to the verdict of TREE's build/pmutest.elf on microvm (TCG),
    counted by testing/bench-run.py's single-stepped boot."""
    spec = importlib.util.spec_from_file_location("bench_run", tool(HERE, "bench-run.py"))
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    return bench_run.insns(os.path.join(tree, "build/pmutest.elf"), None)[0]


def suite_bytes(text: str, suite: str) -> int:
    n, inside = 0, False
    for line in text.splitlines(keepends=True):
        m = SUITE_RE.match(line.rstrip("\n"))
        if m:
            inside = m.group(1) == suite
        if inside:
            n += len(line.encode())
    return n


def first_int(regex: re.Pattern, text: str) -> int:
    m = regex.search(text)
    return int(m.group(1)) if m else -1


def tcg_figures(trees: dict, runs: int, tmp: str) -> dict:
    """{name: {"ms": [...], "body": [...], "wall": [...], "bytes", "amd"}}, boots alternating."""
    out = {k: {"ms": [], "body": [], "wall": []} for k in trees}
    for i in range(runs):
        for name, tree in trees.items():
            wall, text = tcg_boot(tree, os.path.join(tmp, f"tcg-{name}-{i}.log"))
            out[name]["wall"].append(wall)
            out[name]["ms"].append(first_int(VERDICT_MS_RE, text))
            out[name]["body"].append(first_int(BODY_RE, text))
            out[name]["bytes"] = len(text.encode())
            out[name]["amd"] = suite_bytes(text, "amd")
    return out


def kvm_figures(trees: dict, runs: int, tmp: str) -> dict:
    """{name: {"wall": [...], "bytes"}}: tools/run.sh --kvm --smp 2, as `make run KVM=1 SMP=2`."""
    out = {k: {"wall": [], "bytes": 0} for k in trees}
    for i in range(runs):
        for name, tree in trees.items():
            t0 = time.monotonic()
            r = subprocess.run([tool(tree, "run.sh"), "--kvm", "--smp", "2"], cwd=tree,
                               capture_output=True, text=True, check=False, timeout=900)
            out[name]["wall"].append(time.monotonic() - t0)
            m = re.search(r"log (\S+?)[,)]", r.stdout + r.stderr)
            log = os.path.join(tree, m.group(1)) if m else os.path.join(tree, "build/qemu-kvm.log")
            try:
                out[name]["bytes"] = os.path.getsize(log)
            except OSError:
                die(f"{tree}: make run KVM=1 SMP=2 left no log ({(r.stdout + r.stderr).strip()[-200:]})")
    return out


def sim_run(pmusim: str, profile: str, log: str) -> dict:
    """The run's per-suite cost lines, {suite@cpu: "N distinct checks, M evaluated, T TSC cycles"}."""
    with open(log, "w") as f:
        subprocess.run([pmusim, "--profile", profile], stdout=f, stderr=subprocess.STDOUT, check=False, timeout=300)
    with open(log, encoding="utf-8", errors="replace") as f:
        return {m.group(1): m.group(2) for m in SUITE_COST_RE.finditer(f.read())}


def conforming(trees: dict, tmp: str) -> list:
    """Per profile: (profile, diff summary line or None, windows per tree)."""
    rows = []
    for p in CONFORMING:
        logs, cost = {}, {}
        for name, tree in trees.items():
            logs[name] = os.path.join(tmp, f"sim-{name}-{p}.log")
            cost[name] = sim_run(os.path.join(tree, "build/host/pmusim"), p, logs[name])
        summary = None
        if "base" in logs:
            r = subprocess.run([sys.executable, tool(HERE, "ktap-report.py"), "diff",
                                logs["base"], logs["this"]], capture_output=True, text=True, check=False)
            lines = r.stdout.strip().splitlines()
            other = [f"{k}: {cost['base'][k]} -> {cost['this'].get(k, 'absent')}" for k in sorted(cost["base"])
                     if cost["this"].get(k) != cost["base"][k]]
            same = f"windows: {len(cost['base']) - len(other)} of {len(cost['base'])} suites the same"
            summary = (lines[-1] if lines else "no diff output",
                       [ln for ln in lines if not ln.startswith("#")] + [same] + other)
        rows.append((p, summary))
    return rows


def med(xs: list) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", type=int, default=5)
    ap.add_argument("--base", metavar="DIR")
    ap.add_argument("--kvm-runs", type=int, default=1)
    a = ap.parse_args(argv)
    if a.runs < 1 or a.kvm_runs < 0:
        die("RUNS must be 1 or more and --kvm-runs 0 or more")
    trees = {"this": HERE}
    if a.base:
        base = os.path.abspath(a.base)
        for f in ("build/pmutest.elf", "build/host/pmusim"):
            if not os.path.exists(os.path.join(base, f)):
                die(f"--base {a.base}: no {f} (build that tree first)")
        tool(base, "run-qemu.sh")
        trees["base"] = base
    print("== counting preconditions (a PMU that counts nothing is shown once)")
    with tempfile.TemporaryDirectory(prefix="pmutest-bench-pre.") as tmp:
        tcg = tcg_figures(trees, a.runs, tmp)
        for name in trees:
            f = tcg[name]
            print(f"tcg microvm ({name}): run.boot_to_verdict {med(f['ms']):.0f} ms, test bodies "
                  f"{med(f['body']):.0f} ms, wall {med(f['wall']):.3f} s (median of {a.runs}); "
                  f"log {f['bytes']} bytes, amd suite {f['amd']} bytes")
        insns = {name: guest_insns(tree) for name, tree in trees.items()}
        for name in trees:
            print(f"tcg microvm ({name}): {insns[name]} guest instructions to the verdict")
        if "base" in tcg:
            print(f"  guest instructions {insns['this'] / insns['base']:.2f}x the base's")
            speed = med(tcg["this"]["ms"]) / med(tcg["base"]["ms"])
            wall = med(tcg["this"]["wall"]) / med(tcg["base"]["wall"])
            print(f"  in-guest time {speed:.2f}x the base: {BASE_FLAT_RATIO * speed:.2f}x pmu.flat "
                  f"(base {BASE_FLAT_RATIO}x, goal <= {GOAL_FLAT_RATIO}x); wall {wall:.2f}x the base")
            print(f"  log {tcg['this']['bytes'] / tcg['base']['bytes']:.2f}x the base's "
                  f"(goal {GOAL_LOG_FRACTION:.2f}x), amd suite {tcg['this']['amd'] / max(1, tcg['base']['amd']):.2f}x")
        else:
            print(f"  log {tcg['this']['bytes'] / BASE_LOG_BYTES:.2f}x the issue's {BASE_LOG_BYTES} bytes "
                  f"(goal {GOAL_LOG_FRACTION:.2f}x)")
        if a.kvm_runs:
            kvm = kvm_figures(trees, a.kvm_runs, tmp)
            for name in trees:
                print(f"make run KVM=1 SMP=2 ({name}): {med(kvm[name]['wall']):.1f} s wall "
                      f"(median of {a.kvm_runs}; issue's base {BASE_KVM_S:.0f} s, goal < {GOAL_KVM_S:.0f} s), "
                      f"log {kvm[name]['bytes']} bytes")
        for p, summary in conforming(trees, tmp):
            if summary is None:
                print(f"conforming sim {p}: (no --base: nothing to compare with)")
                continue
            line, changes = summary
            print(f"conforming sim {p}: {line.lstrip('# ')}")
            for c in changes:
                print(f"    {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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
                   that ran, the whole run's wall time
  pmu.flat         with --pmu-flat (or $PMU_FLAT): kvm-unit-tests' x86/pmu.flat
                   booted as its x86/run boots it under TCG (the same QEMU
                   command line: -kernel, its test devices, -serial stdio, the
                   default machine, pc; -cpu max from its unittests.cfg), and
                   pmutest's TCG boot (tools/run-qemu.sh --kernel, the
                   command a user runs) on pc and on microvm, all
                   alternating: the whole QEMU run's wall time of each, the
                   ratios against the recorded 0.37x and the goal 0.2x.
                   pmu.flat boots on pc only (x86/run's pci-testdev needs a
                   PCI bus), so the microvm ratio is across machines
  guest insns      the same boot single-stepped (testing/bench-run.py insns():
                   QEMU -singlestep -d exec), instructions to the verdict: the
                   load-independent form of the in-guest time
  log bytes        that run's report, whole and its amd suite
  kvm smp 2        `make run KVM=1 SMP=2`'s run (tools/run.sh --kvm --smp 2:
                   this machine's KVM, enable_pmu=N): wall time and log bytes;
                   and the same run with an AMD guest (--kvm-cpu as
                   tools/kvm-host.sh amd-guest says: a Zen 4 part), the case of an AMD
                   host whose KVM has no vPMU: KVM answers the legacy counter
                   MSRs C001_0000H-7H alike on any host (see kvm-host.sh), so
                   the amd suite runs and fails on both vCPUs as there;
                   compared with qemu-kvm-amd-pmu-off.txt
  conforming sim   pmusim on conforming profiles: the same tests with the same
                   results and failures as the base (ktap-report.py diff),
                   counters.hold_and_count added, and the same windows: each
                   other suite's checks and simulated TSC cycles as the base's
                   (the model's clock moves with every window it runs)

usage: testing/bench-precondition.py [RUNS] [--base DIR] [--kvm-runs N] [--pmu-flat PATH]
  RUNS        boots of each kind on TCG (default 5)
  --kvm-runs  runs of each KVM figure (default 1; 0 skips them)
  --pmu-flat  kvm-unit-tests' x86/pmu.flat (default $PMU_FLAT; without one
              the pmu.flat figure is not measured, and says so)
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
              "amd_zen2_rome_830f10", "smp-synth-v5-x4")
VERDICT_MS_RE = re.compile(r"^# measure: run\.boot_to_verdict_ms = (\d+) ms$", re.M)
BODY_RE = re.compile(r"run tests: body (\d+) ms")
SUITE_RE = re.compile(r"^    # Subtest: (\S+)$")
SUITE_COST_RE = re.compile(r"^ *# (\S+): (\d+ distinct checks, \d+ evaluated, \d+ TSC cycles)$", re.M)


def in_tree(tree: str, name: str, dirs: tuple) -> str:
    """TREE's file NAME in the first of DIRS that has it: a --base built from
    an older main keeps its files where that main kept them."""
    for d in dirs:
        path = os.path.join(tree, d, name)
        if os.path.exists(path):
            return path
    die(f"{tree}: no {name} under {', '.join(d + '/' for d in dirs)}")
    return ""


def tool(tree: str, name: str) -> str:
    """TREE's NAME: under tools/ (or scripts/, a tree from before tools/ and
    testing/ were apart)."""
    return in_tree(tree, name, ("tools", "testing", "scripts"))


def die(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(2)


def tcg_boot(tree: str, log: str, machine: str = "microvm") -> tuple[float, str]:
    """One direct boot on MACHINE under TCG: (wall s, log text)."""
    cmd = [tool(tree, "run-qemu.sh"), "--kernel", os.path.join(tree, "build/pmutest.elf"),
           "--machine", machine, "--log", log]
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=600)
    wall = time.monotonic() - t0
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        die(f"no log from {tree}'s TCG boot")
    if "# verdict:" not in text:
        die(f"{tree}'s TCG boot on {machine} reached no verdict ({log})")
    return wall, text


def flat_env(path: str) -> None:
    """The environment kvm-unit-tests' runner hands a TCG test as its initrd
    (scripts/arch-run.bash env_params, env_errata: ERRATA_FORCE=y under TCG)."""
    version = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[:1] or [""]
    m = re.search(r"version (\d+)\.(\d+)\.(\d+)", version[0])
    major, minor, micro = m.groups() if m else ("", "", "")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"TARGET=\nQEMU_ACCEL=tcg\nQEMU_VERSION_STRING={version[0]}\nQEMU_MAJOR={major}\n"
                f"QEMU_MINOR={minor}\nQEMU_MICRO={micro}\nKERNEL_VERSION_STRING={os.uname().release}\n"
                "ERRATA_FORCE=y\n")


def flat_cmd(flat: str, env: str) -> list[str]:
    """kvm-unit-tests' x86/run under TCG for its [pmu] entry, as it runs QEMU:
    --no-reboot -nodefaults, the PIT policy, pc-testdev with isa-debug-exit at
    0xf4, -serial stdio, pci-testdev, accel=tcg on the default machine (pc),
    -kernel, then unittests.cfg's -smp 1 and qemu_params -cpu max, and the
    environment as -initrd (without the runner's own probes of QEMU)."""
    return ["qemu-system-x86_64", "--no-reboot", "-nodefaults", "-global", "kvm-pit.lost_tick_policy=discard",
            "-device", "pc-testdev", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4", "-display", "none",
            "-serial", "stdio", "-device", "pci-testdev", "-machine", "accel=tcg", "-kernel", flat,
            "-smp", "1", "-cpu", "max", "-initrd", env]


def flat_boot(flat: str, env: str, out: str) -> tuple[float, int, str]:
    """One pmu.flat run: (wall s, QEMU exit status, how it ended: its PASS and FAIL counts and its
    SUMMARY line, or the last line before a stack dump: an assertion that stopped it)."""
    t0 = time.monotonic()
    with open(out, "w") as f:
        r = subprocess.run(flat_cmd(flat, env), stdout=f, stderr=subprocess.STDOUT, check=False, timeout=600)
    wall = time.monotonic() - t0
    with open(out, encoding="utf-8", errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    if not any(ln.startswith(("PASS", "FAIL", "SKIP", "SUMMARY")) for ln in lines):
        die(f"{flat} printed no kvm-unit-tests result under TCG (QEMU status {r.returncode}, {out})")
    counts = f"PASS {sum(ln.startswith('PASS') for ln in lines)}, FAIL {sum(ln.startswith('FAIL') for ln in lines)}"
    end = [ln for ln in lines if ln.startswith("SUMMARY")] or [ln for ln in lines if not ln.startswith("STACK")]
    return wall, r.returncode, f"{counts}; ended: {end[-1][:120]}"


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


def tcg_figures(trees: dict, runs: int, tmp: str, flat: str | None) -> dict:
    """{name: {"ms": [...], "body": [...], "wall": [...], "pc": [...], "bytes", "amd"}}, and with
    FLAT {"flat": {"wall": [...], "status", "end"}}: boots alternating."""
    out: dict = {k: {"ms": [], "body": [], "wall": [], "pc": []} for k in trees}
    env = os.path.join(tmp, "kvm-unit-tests.env")
    if flat:
        out["flat"] = {"wall": []}
        flat_env(env)
    for i in range(runs):
        if flat:
            wall, status, end = flat_boot(flat, env, os.path.join(tmp, f"pmu-flat-{i}.log"))
            out["flat"].update(status=status, end=end)
            out["flat"]["wall"].append(wall)
        for name, tree in trees.items():
            wall, text = tcg_boot(tree, os.path.join(tmp, f"tcg-{name}-{i}.log"))
            out[name]["wall"].append(wall)
            out[name]["ms"].append(first_int(VERDICT_MS_RE, text))
            out[name]["body"].append(first_int(BODY_RE, text))
            out[name]["bytes"] = len(text.encode())
            out[name]["amd"] = suite_bytes(text, "amd")
            if flat:
                out[name]["pc"].append(tcg_boot(tree, os.path.join(tmp, f"pc-{name}-{i}.log"), "pc")[0])
    return out


def flat_report(tcg: dict, trees: dict, runs: int, flat: str | None) -> None:
    """pmutest against pmu.flat, whole QEMU runs under TCG; or why not."""
    if not flat:
        print("  pmu.flat: not measured: give --pmu-flat PATH (kvm-unit-tests' x86/pmu.flat)")
        return
    f = tcg["flat"]
    fw = med(f["wall"])
    print(f"  pmu.flat ({flat}): wall {fw:.3f} s (median of {runs}; pc, as x86/run boots it; "
          f"QEMU status {f['status']}; {f['end']})")
    for name in trees:
        pc, mv = med(tcg[name]["pc"]), med(tcg[name]["wall"])
        print(f"  pmutest ({name}) / pmu.flat: pc {pc:.3f} s = {pc / fw:.2f}x, microvm {mv:.3f} s = "
              f"{mv / fw:.2f}x (recorded {BASE_FLAT_RATIO}x, goal <= {GOAL_FLAT_RATIO}x)")


def expectations(tree: str, name: str) -> str:
    """TREE's expectations file NAME (data/expectations/, or tests/expectations/ in a tree from
    before data/ was its own)."""
    return in_tree(tree, name, ("data/expectations", "tests/expectations"))


def kvm_cases(tree: str) -> dict:
    """The KVM runs, each tools/run.sh's arguments: `make run KVM=1 SMP=2` as it is, and the
    same run with an AMD guest compared with the AMD pmu-off expectations."""
    amd = subprocess.run([tool(HERE, "kvm-host.sh"), "amd-guest"], capture_output=True, text=True,
                         check=False).stdout.strip()
    return {"make run KVM=1 SMP=2": ["--kvm", "--smp", "2"],
            f"same, AMD guest ({amd})": [
                "--kvm", "--kvm-cpu", amd, "--smp", "2",
                "--expect", expectations(tree, "qemu-kvm-amd-pmu-off.txt")]}


def kvm_figures(trees: dict, runs: int) -> dict:
    """{case: {name: {"wall": [...], "bytes", "time", "compare"}}}, runs alternating."""
    out: dict = {}
    for i in range(runs):
        for name, tree in trees.items():
            for case, args in kvm_cases(tree).items():
                f = out.setdefault(case, {}).setdefault(name, {"wall": []})
                t0 = time.monotonic()
                r = subprocess.run([tool(tree, "run.sh"), *args], cwd=tree, capture_output=True, text=True,
                                   check=False, timeout=900)
                f["wall"].append(time.monotonic() - t0)
                said = r.stdout + r.stderr
                m = re.search(r"log (\S+?)[,)]", said)
                log = os.path.join(tree, m.group(1)) if m else ""
                try:
                    f["bytes"] = os.path.getsize(log)
                    with open(log, encoding="utf-8", errors="replace") as lf:
                        t = re.search(r"^# time: .*$", lf.read(), re.M)
                    f["time"] = t.group(0) if t else "(no # time: line)"
                except OSError:
                    die(f"{tree}: {case} left no log ({said.strip()[-200:]})")
                c = re.findall(r"^(\d+ passed, \d+ failed)$", said, re.M)
                f["compare"] = c[-1] if c else "no comparison"
    return out


def sim_run(pmusim: str, profile: str, log: str) -> dict:
    """The run's per-suite cost lines, {suite@cpu: "N distinct checks, M evaluated, T TSC cycles"}."""
    with open(log, "w") as f:
        subprocess.run([pmusim, "--profile", profile], stdout=f, stderr=subprocess.STDOUT, check=False, timeout=300)
    with open(log, encoding="utf-8", errors="replace") as f:
        return {m.group(1): m.group(2) for m in SUITE_COST_RE.finditer(f.read())}


def appeared(lines: list) -> list:
    """The diff's "appeared: suite@cpuN.test: result" lines as one line: the
    tests new since the base, by suite (the base may predate whole suites)."""
    per_suite: dict = {}
    for ln in lines:
        m = re.match(r"^appeared: ([^.@: ]+)(?:@cpu\d+)?\.([^:]+): (\w+)", ln)
        if m:
            per_suite.setdefault(m.group(1), set()).add(f"{m.group(2)} ({m.group(3)})")
    if not per_suite:
        return []
    said = "; ".join(f"{s}: {', '.join(sorted(t))}" if len(t) <= 2 else f"{s}: {len(t)} tests"
                     for s, t in sorted(per_suite.items()))
    return [f"appeared (new since the base): {said}"]


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
            detail = [ln for ln in lines if not ln.startswith(("#", "appeared: "))]
            summary = (lines[-1] if lines else "no diff output", detail + appeared(lines) + [same] + other)
        rows.append((p, summary))
    return rows


def med(xs: list) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", type=int, default=5)
    ap.add_argument("--base", metavar="DIR")
    ap.add_argument("--kvm-runs", type=int, default=1)
    ap.add_argument("--pmu-flat", metavar="PATH", default=os.environ.get("PMU_FLAT") or None)
    a = ap.parse_args(argv)
    if a.runs < 1 or a.kvm_runs < 0:
        die("RUNS must be 1 or more and --kvm-runs 0 or more")
    if a.pmu_flat and not os.path.isfile(a.pmu_flat):
        die(f"--pmu-flat {a.pmu_flat}: no such file (kvm-unit-tests' x86/pmu.flat: ./configure && make)")
    flat = os.path.abspath(a.pmu_flat) if a.pmu_flat else None
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
        tcg = tcg_figures(trees, a.runs, tmp, flat)
        for name in trees:
            f = tcg[name]
            print(f"tcg microvm ({name}): run.boot_to_verdict {med(f['ms']):.0f} ms, test bodies "
                  f"{med(f['body']):.0f} ms, wall {med(f['wall']):.3f} s (median of {a.runs}); "
                  f"log {f['bytes']} bytes, amd suite {f['amd']} bytes")
        flat_report(tcg, trees, a.runs, flat)
        insns = {name: guest_insns(tree) for name, tree in trees.items()}
        for name in trees:
            print(f"tcg microvm ({name}): {insns[name]} guest instructions to the verdict")
        if "base" in trees:
            print(f"  guest instructions {insns['this'] / insns['base']:.2f}x the base's")
            speed = med(tcg["this"]["ms"]) / med(tcg["base"]["ms"])
            wall = med(tcg["this"]["wall"]) / med(tcg["base"]["wall"])
            print(f"  in-guest time {speed:.2f}x the base's; wall {wall:.2f}x the base's")
            print(f"  log {tcg['this']['bytes'] / tcg['base']['bytes']:.2f}x the base's "
                  f"(goal {GOAL_LOG_FRACTION:.2f}x), amd suite {tcg['this']['amd'] / max(1, tcg['base']['amd']):.2f}x")
        else:
            print(f"  log {tcg['this']['bytes'] / BASE_LOG_BYTES:.2f}x the issue's {BASE_LOG_BYTES} bytes "
                  f"(goal {GOAL_LOG_FRACTION:.2f}x)")
        if a.kvm_runs:
            host = subprocess.run([tool(HERE, "kvm-host.sh"), "vendor"], capture_output=True, text=True,
                                  check=False).stdout.strip()
            for case, per_tree in kvm_figures(trees, a.kvm_runs).items():
                if "AMD guest" in case and host != "amd":
                    print(f"  ({host} host: amd.hg_only_with_efer_svme skips on each vCPU where the file expects "
                          "a failure, as only kvm_amd enumerates SVM; step kvm-amd-guest drops that row there)")
                for name, f in per_tree.items():
                    print(f"{case} ({name}): {med(f['wall']):.1f} s wall (median of {a.kvm_runs}; recorded "
                          f"{BASE_KVM_S:.0f} s on an AMD host, goal < {GOAL_KVM_S:.0f} s), log {f['bytes']} bytes, "
                          f"expectations: {f['compare']}")
                    print(f"    {f['time']}")
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

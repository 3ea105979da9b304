#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The direct-boot part of `make bench`: in one paired run, on QEMU TCG,
boot alternately the do-nothing PVH kernel (build/bench/hello-pvh.elf) and
build/pmutest.elf on the `microvm` and `pc` machines, RUNS times each, with
the same QEMU command line (only -kernel differs), and print the median
wall time of each, where the time goes and how it compares with the goals
of the direct boot (kvm-unit-tests' pmu.flat on microvm).

Phases of a pmutest boot (medians):
  QEMU start        QEMU with the same configuration, stopped before the
                    first instruction (-S) and quit at once
  firmware/ROM      the do-nothing kernel's whole boot minus QEMU start:
                    qboot (microvm) or SeaBIOS and its PVH option ROM (pc),
                    the ELF loaded, one KTAP line, the exit
  suite             the kernel's own run.boot_to_verdict: first instruction
                    to the verdict, measured in the guest (its TSC, at the
                    rate the kernel calibrated: the report's first line)
  serial log        the rest: pmutest's boot minus the do-nothing boot minus
                    the suite (the report's bytes through the emulated UART,
                    QEMU's exit)

usage: testing/bench-direct.py [RUNS]    (default 7)
Exit status 0, or 2 with one line when a boot does not reach its verdict.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MACHINES = ["microvm", "pc"]
# Figures measured on the development machine: kvm-unit-tests'
# pmu.flat in its own runner, and the goals set against them.
PMU_FLAT_S = 0.56
GOAL_MICROVM_S = 0.25
GOAL_SPEEDUP = 2.5
GOAL_OVERHEAD_MS = 30


def die(msg):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(2)


def qemu_cmd(machine, kernel, serial):
    return ["qemu-system-x86_64", "-machine", machine, "-accel", "tcg", "-cpu", "max",
            "-m", "256M", "-nodefaults", "-display", "none", "-no-reboot", "-net", "none",
            "-serial", f"file:{serial}", "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
            "-kernel", kernel]


def boot(machine, kernel, tmp):
    """One boot: (wall seconds, in-guest boot_to_verdict ms or None)."""
    serial = os.path.join(tmp, "serial.log")
    t0 = time.monotonic()
    r = subprocess.run(qemu_cmd(machine, kernel, serial), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=300)
    wall = time.monotonic() - t0
    with open(serial, "rb") as f:
        log = f.read().decode("ascii", "replace")
    if r.returncode not in (33, 35, 37) or "# verdict:" not in log:
        die(f"{os.path.basename(kernel)} on {machine} ended without a verdict "
            f"(QEMU status {r.returncode})")
    m = re.search(r"^# measure: run\.boot_to_verdict_ms = (\d+) ms", log, re.M)
    return wall, (int(m.group(1)) if m else None), log


def qemu_start(machine):
    t0 = time.monotonic()
    subprocess.run(["qemu-system-x86_64", "-machine", machine, "-accel", "tcg", "-cpu", "max",
                    "-m", "256M", "-nodefaults", "-display", "none", "-net", "none", "-S",
                    "-monitor", "stdio", "-serial", "none"],
                   input=b"quit\n", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.monotonic() - t0


def main():
    runs = sys.argv[1] if len(sys.argv) > 1 else "7"
    if not runs.isdigit() or int(runs) < 1:
        die(f"RUNS must be a positive number, got '{runs}'")
    runs = int(runs)
    hello = os.path.join(HERE, "build", "bench", "hello-pvh.elf")
    kernel = os.path.join(HERE, "build", "pmutest.elf")
    for path in (hello, kernel):
        if not os.path.isfile(path):
            die(f"no {path} (run 'make bench')")
    res = {m: {"start": [], "hello": [], "pmutest": [], "suite": []} for m in MACHINES}
    platform = {}
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, "build")) as tmp:
        for i in range(runs):
            for m in MACHINES:  # alternate: load on the machine hits all alike
                res[m]["start"].append(qemu_start(m))
                res[m]["hello"].append(boot(m, hello, tmp)[0])
                wall, suite_ms, log = boot(m, kernel, tmp)
                res[m]["pmutest"].append(wall)
                if suite_ms is not None:
                    res[m]["suite"].append(suite_ms / 1000)
                platform[m] = log.splitlines()[2] if len(log.splitlines()) > 2 else ""
            print(f"run {i + 1}: " + ", ".join(
                f"{m} hello {res[m]['hello'][-1]:.3f} s, pmutest {res[m]['pmutest'][-1]:.3f} s"
                for m in MACHINES), flush=True)

    med = {m: {k: (statistics.median(v) if v else float("nan")) for k, v in res[m].items()}
           for m in MACHINES}
    print(f"\n== direct boot, QEMU TCG -cpu max, 256 MiB, median of {runs} paired boots")
    print(f"{'':<16}" + "".join(f"{m:>12}" for m in MACHINES))
    rows = [("QEMU start", lambda d: d["start"]),
            ("firmware/ROM", lambda d: d["hello"] - d["start"]),
            ("suite", lambda d: d["suite"]),
            ("serial log", lambda d: d["pmutest"] - d["hello"] - d["suite"]),
            ("total pmutest", lambda d: d["pmutest"]),
            ("hello-pvh", lambda d: d["hello"])]
    for name, f in rows:
        print(f"{name:<16}" + "".join(f"{f(med[m]):10.3f} s" for m in MACHINES))
    for m in MACHINES:
        d = med[m]
        over_ms = (d["pmutest"] - d["hello"]) * 1000
        print(f"{m}: pmutest / hello-pvh = {d['pmutest'] / d['hello']:.1f}; above hello-pvh "
              f"{over_ms:.0f} ms vs the suite's own {d['suite'] * 1000:.0f} ms (goal: within "
              f"{GOAL_OVERHEAD_MS} ms: {abs(over_ms - d['suite'] * 1000) <= GOAL_OVERHEAD_MS})")
    mv = med["microvm"]["pmutest"]
    print(f"microvm full run {mv:.3f} s (goal < {GOAL_MICROVM_S} s: {mv < GOAL_MICROVM_S}); "
          f"{PMU_FLAT_S / mv:.1f}x faster than kvm-unit-tests' pmu.flat ({PMU_FLAT_S} s, "
          f"kvm-unit-tests' figure; goal >= {GOAL_SPEEDUP}x: {PMU_FLAT_S / mv >= GOAL_SPEEDUP})")
    for m in MACHINES:
        print(f"{m} clock: {platform[m].split(': ', 1)[-1]}")


if __name__ == "__main__":
    main()

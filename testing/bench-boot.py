#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The QEMU part of `make bench`: boot the minimal hello-world EFI app
(build/bench/hello.efi) and pmutest (build/BOOTX64.EFI) alternately, RUNS
times each, through tools/run-qemu.sh (the same QEMU configuration), and
print the median wall time of each, their ratio, and where the time goes.

The phases come from the serial port, read as it grows (every 5 ms):
  QEMU start    QEMU with the same configuration, stopped before the first
                instruction (-S) and quit at once: process and machine setup
  firmware      from QEMU's start to the boot manager's "BdsDxe: loading"
                (minus QEMU start)
  loading       to "BdsDxe: starting": the image read from the ESP and loaded
  loader        to "pmutest: leaving boot services" (boot/: options file,
                a previous report written out, memory map)
  suite         to "# verdict:" (kernel set-up, every suite, the totals)
  report store  to "# report saved" (the report into UEFI variables: in
                RAM, as run-qemu.sh boots the firmware read-only; the
                writable flash of --keep-vars costs about 0.4 s more)
  exit          to QEMU's exit (summary screen, isa-debug-exit, teardown)
hello.efi has no loader, suite or report: its "exit" runs from "starting".

usage: testing/bench-boot.py [RUNS]     (default 5)
Exit status 0, or 2 with one line when a boot does not reach its verdict.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKS = [  # (phase name, serial text that ends it)
    ("firmware", b"BdsDxe: loading"),
    ("loading", b"BdsDxe: starting"),
    ("loader", b"pmutest: leaving boot services"),
    ("suite", b"# verdict:"),
    ("report store", b"# report saved"),
]
PHASES = ["QEMU start"] + [m[0] for m in MARKS] + ["exit"]


def die(msg):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(2)


def boot(efi, tmp):
    """One boot; returns {phase: seconds} and the total wall time."""
    log = os.path.join(tmp, "serial.log")
    raw = log + ".raw"
    if os.path.exists(raw):
        os.unlink(raw)
    t0 = time.monotonic()
    p = subprocess.Popen([os.path.join(HERE, "tools", "run-qemu.sh"), "--efi", efi,
                          "--log", log, "--timeout", "300"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = {}
    while True:
        done = p.poll() is not None
        try:
            with open(raw, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        now = time.monotonic() - t0
        for name, text in MARKS:
            if name not in seen and text in data:
                seen[name] = now
        if done:
            break
        time.sleep(0.005)
    total = time.monotonic() - t0
    if p.returncode not in (0, 1):
        die(f"{os.path.basename(efi)} ended without a verdict (run-qemu.sh status {p.returncode})")
    return seen, total


def qemu_start():
    """QEMU's own start and stop, firmware never run (-S, quit on stdin)."""
    t0 = time.monotonic()
    subprocess.run(["qemu-system-x86_64", "-machine", "pc", "-m", "256M", "-accel", "tcg",
                    "-cpu", "max", "-nodefaults", "-vga", "std", "-display", "none", "-drive",
                    "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/ovmf/OVMF.fd",
                    "-S", "-monitor", "stdio", "-serial", "none", "-net", "none"],
                   input=b"quit\n", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.monotonic() - t0


def phases(seen, total, start):
    """Per-phase durations from the marks that were seen (a missing mark
    merges its phase into the next)."""
    out, last = {"QEMU start": start}, start
    for name, _ in MARKS:
        if name in seen:
            out[name] = max(0.0, seen[name] - last)
            last = seen[name]
    out["exit"] = max(0.0, total - last)
    return out


def main():
    runs = sys.argv[1] if len(sys.argv) > 1 else "5"
    if not runs.isdigit() or int(runs) < 1:
        die(f"RUNS must be a positive number, got '{runs}'")
    runs = int(runs)
    apps = {"hello.efi": os.path.join(HERE, "build", "bench", "hello.efi"),
            "pmutest": os.path.join(HERE, "build", "BOOTX64.EFI")}
    for name, path in apps.items():
        if not os.path.isfile(path):
            die(f"no {path} (run 'make bench')")
    totals = {a: [] for a in apps}
    parts = {a: {p: [] for p in PHASES} for a in apps}
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, "build")) as tmp:
        for i in range(runs):
            start = qemu_start()
            for app, path in apps.items():  # alternate: load hits both alike
                seen, total = boot(path, tmp)
                totals[app].append(total)
                for p, v in phases(seen, total, start).items():
                    parts[app][p].append(v)
            print(f"run {i + 1}: hello.efi {totals['hello.efi'][-1]:.2f} s, "
                  f"pmutest {totals['pmutest'][-1]:.2f} s", flush=True)
    med = {a: statistics.median(totals[a]) for a in apps}
    print(f"\n== QEMU TCG, median of {runs} boots (tools/run-qemu.sh: pc, warm OVMF.fd as "
          "read-only flash, variables in RAM; virtio ESP, 256 MiB, -cpu max)")
    print(f"{'phase':<14}{'hello.efi':>11}{'pmutest':>11}")
    for p in PHASES:
        cells = []
        for a in apps:
            v = parts[a][p]
            cells.append(f"{statistics.median(v):9.3f} s" if len(v) == runs else f"{'-':>11}")
        print(f"{p:<14}" + "".join(f"{c:>11}" for c in cells))
    print(f"{'total':<14}{med['hello.efi']:9.3f} s{med['pmutest']:9.3f} s")
    ratio = med["pmutest"] / med["hello.efi"]
    print(f"\nhello.efi median {med['hello.efi']:.2f} s, pmutest median {med['pmutest']:.2f} s, "
          f"ratio {ratio:.2f} (goal <= 1.1); full run {med['pmutest']:.2f} s (goal < 3.4 s, "
          "kvm-unit-tests' pmu.efi in its own runner on the development machine)")
    print(f"BOOTX64.EFI: {os.path.getsize(apps['pmutest'])} bytes; hello.efi: "
          f"{os.path.getsize(apps['hello.efi'])} bytes")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A serial reader that lags loses no byte of the report.

usage: testing/test-serial-slow.py [--qemu BINARY] [--kernel ELF] [--expect FILE]

Boots ELF (default build/pmutest.elf) directly on QEMU's microvm under TCG,
COM1 on QEMU's stdout, and reads that pipe the way a slow consumer does (a
VMM's log reader, a BMC's serial-over-LAN): the pipe shrunk to 4 KiB, 512
bytes at a time with a pause after each read, every 16th read a stall
of 300 ms, and once, after 16 KiB, a reader gone for 3 s (a lab's console
relay or dispatcher descheduled on a loaded host; before the fix that
followed it, a UART full for 2 s was given up for dead, and `make test`'s
LAVA board lost a log that way). While the pipe is full QEMU keeps the UART's LSR.THRE clear, as
a drained-by-a-reader UART does, so the kernel waits far longer than a
UART shifting bits at 115200 baud would make it (a FIFO load: 1.4 ms).

The log must then be whole: the closing "# verdict:" line, and the same
results as the platform's expectations (default
data/expectations/qemu-tcg.txt, through `ktap-report.py compare`). Before
the fix (a UART whose THRE stayed clear 10 ms was given up for dead) the
log stopped at about 4 KB, without its verdict.

Prints "N passed, N failed". Exit status: 0 all passed, 1 a check failed,
2 bad usage or no QEMU / no kernel image.
"""
import argparse
import fcntl
import os
import subprocess
import sys
import time

F_SETPIPE_SZ = 1031
PIPE_BYTES = 4096
READ_BYTES = 512
PAUSE_S = 0.01
STALL_EVERY = 16
STALL_S = 0.3
GONE_AFTER, GONE_S = 16384, 3.0
TIMEOUT_S = 300

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    print(f"test-serial-slow.py: {msg}", file=sys.stderr)
    sys.exit(2)


def slow_boot(qemu, kernel):
    """The raw serial output of one boot read slowly, and the wall time."""
    cmd = [qemu, "-machine", "microvm", "-nodefaults", "-nographic", "-m", "256M",
           "-accel", "tcg", "-cpu", "max", "-net", "none", "-monitor", "none",
           "-serial", "stdio", "-kernel", kernel, "-append", "console=ttyS0",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-no-reboot"]
    try:
        p = subprocess.Popen(["timeout", "-k", "5", str(TIMEOUT_S)] + cmd,
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    except OSError as e:
        die(f"cannot run {qemu}: {e.strerror}")
    fcntl.fcntl(p.stdout.fileno(), F_SETPIPE_SZ, PIPE_BYTES)
    out, reads, gone, t0 = bytearray(), 0, False, time.monotonic()
    while True:
        chunk = os.read(p.stdout.fileno(), READ_BYTES)
        if not chunk:
            break
        out += chunk
        reads += 1
        if not gone and len(out) >= GONE_AFTER:
            gone = True
            time.sleep(GONE_S)
        else:
            time.sleep(STALL_S if reads % STALL_EVERY == 0 else PAUSE_S)
    p.wait()
    return out.decode("ascii", "replace").replace("\r", ""), time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(add_help=True, usage=__doc__.split("\n\n")[1])
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    ap.add_argument("--kernel", default=os.path.join(here, "build/pmutest.elf"))
    ap.add_argument("--expect", default=os.path.join(here, "data/expectations/qemu-tcg.txt"))
    ap.add_argument("--log", default=os.path.join(here, "build/test-logs/serial-slow.ktap"))
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(0 if e.code == 0 else 2)
    for f in (a.kernel, a.expect):
        if not os.path.isfile(f):
            die(f"no such file: {f}")

    raw, secs = slow_boot(a.qemu, a.kernel)
    start = raw.find("KTAP version 1")
    log = raw[start:] if start >= 0 else ""
    os.makedirs(os.path.dirname(a.log), exist_ok=True)
    with open(a.log, "w") as f:
        f.write(log)
    print(f"# {len(raw)} bytes read in {secs:.1f} s through a {PIPE_BYTES}-byte pipe "
          f"({READ_BYTES} bytes a read, {STALL_S * 1000:.0f} ms stall every {STALL_EVERY} reads, "
          f"once {GONE_S:.0f} s after {GONE_AFTER} bytes)")

    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok - {what}")
        else:
            failed += 1
            print(f"not ok - {what}")

    check(any(line.startswith("# verdict: ") for line in log.splitlines()),
          "the report reached its '# verdict:' line (no byte given up to a lagging reader)")
    r = subprocess.run([sys.executable, os.path.join(here, "tools/ktap-report.py"),
                       "compare", a.log, a.expect], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-2000:] + r.stderr[-2000:])
    check(r.returncode == 0, f"the slowly read log matches {os.path.relpath(a.expect, here)} test by test")
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()

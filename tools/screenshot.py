#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make screenshot`: boot the suite in QEMU and save the summary screen as a
PNG (for the README).

The machine runs without its exit device (run-qemu.sh --hold), so after the
verdict it stays up with the summary on screen, as on real hardware; once
the kernel has said so on the serial port ("The machine is halted"), QEMU's
monitor takes the screen (screendump, PNG) and quits.

usage: tools/screenshot.py [--out PNG] [--timeout SECS] [-- run-qemu.sh args]
Exit status: 0 written, 2 it could not be (the reason on one line).
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DONE = b"The machine is halted"


def die(msg):
    print(f"screenshot: {msg}", file=sys.stderr)
    sys.exit(2)


def monitor(path, command, wait_s=2.0):
    """Send one monitor command, return what QEMU answered."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(wait_s)
    s.connect(path)
    out = b""
    try:
        out += s.recv(4096)  # the banner and prompt
        s.sendall(command.encode() + b"\n")
        time.sleep(0.5)
        out += s.recv(4096)
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "build", "screenshot.png"))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("qemu_args", nargs="*")
    a = ap.parse_args()
    if a.timeout < 1:
        die("--timeout wants whole seconds from 1")
    with tempfile.TemporaryDirectory(dir=os.path.join(HERE, "build")) as tmp:
        sock = os.path.join(tmp, "monitor.sock")
        log = os.path.join(tmp, "serial.log")
        qemu = subprocess.Popen(
            [os.path.join(HERE, "tools", "run-qemu.sh"), "--hold", "--monitor", sock,
             "--log", log, "--timeout", str(a.timeout)] + a.qemu_args,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.time() + a.timeout
        while time.time() < end and qemu.poll() is None:
            try:
                with open(log + ".raw", "rb") as f:
                    if DONE in f.read():
                        break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            qemu.kill()
            die("no verdict on the serial port (see run-qemu.sh)")
        out = os.path.abspath(a.out)
        if os.path.exists(out):
            os.unlink(out)
        monitor(sock, f"screendump {out} -f png")
        for _ in range(50):
            if os.path.exists(out) and os.path.getsize(out) > 0:
                break
            time.sleep(0.1)
        monitor(sock, "quit")
        qemu.wait(timeout=30)
        if not os.path.exists(out):
            die("QEMU wrote no screenshot")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

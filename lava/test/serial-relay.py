#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""COM1 of the QEMU "board" (qemu-board.sh) as LAVA's console: relays
between this process's stdin/stdout and QEMU's serial socket, both ways
(iPXE needs its Ctrl-B and commands typed).

  serial-relay.py SOCKET

A board's serial line outlives its power: the relay waits for the socket to
appear, and when QEMU goes (power off), waits for the next one (power on).
QEMU waits for this connection before it starts the machine (server=on,
wait=on), so nothing the board prints is lost.
"""

import os
import select
import socket
import sys
import termios
import time
import tty


def connect(path):
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.05)


def main(argv):
    if len(argv) != 1:
        print("usage: serial-relay.py SOCKET", file=sys.stderr)
        return 2
    out, inp = sys.stdout.fileno(), sys.stdin.fileno()
    if os.isatty(inp):
        # LAVA's console is a pty: in its default (canonical) mode a Ctrl-B
        # would wait for a newline, and every key would be echoed. A serial
        # line passes each byte as it comes.
        try:
            tty.setraw(inp)
        except termios.error:
            pass
    stdin_open = True
    while True:
        s = connect(argv[0])
        while True:
            fds = [s] + ([inp] if stdin_open else [])
            ready, _, _ = select.select(fds, [], [])
            if s in ready:
                data = s.recv(4096)
                if not data:
                    break  # powered off: wait for the next power-on
                os.write(out, data)
            if inp in ready:
                data = os.read(inp, 4096)
                if not data:
                    stdin_open = False
                else:
                    s.sendall(data)
        s.close()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (KeyboardInterrupt, OSError):
        # LAVA closed the console (the pty is gone): the relay's work is done.
        sys.exit(0)

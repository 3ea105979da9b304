#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host range a hypervisor expectations file describes: its one
'# host-kernel: KIND FROM - [TO]' header line (KIND linux or xen; FROM and TO
versions like 6.8, TO empty for "and later"), or '# host-kernel: linux any'.

  testing/expect-range.py check FILE...     every file has exactly one well-formed
                                             line; prints one ok / not ok line per
                                             file and "N passed, N failed"
  testing/expect-range.py match FILE UNAME  is a Linux host kernel (uname -r) in
                                             FILE's range? prints in|out|unknown

Exit status: 0; 1 when check finds a bad file; 2 on bad usage or an unreadable
file (one line on stderr).
"""
import re
import sys

LINE = re.compile(r"^# host-kernel: (?:(linux|xen) any|(linux|xen) ([0-9]+\.[0-9x]+) - ?([0-9]+\.[0-9]+)?)"
                  r"(?: \(.*\))?$")


def ranges(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f if line.startswith("# host-kernel:")]
    except OSError as e:
        sys.exit(f"expect-range: cannot read {path}: {e.strerror}")
    return lines


def version(text):
    return tuple(int(x) for x in re.findall(r"[0-9]+", text)[:2])


def check(paths):
    ok = bad = 0
    for p in paths:
        lines = ranges(p)
        good = len(lines) == 1 and LINE.match(lines[0])
        what = lines[0] if good else f"{len(lines)} well-formed '# host-kernel:' lines, want 1"
        print(f"{'ok' if good else 'not ok'} - {p}: {what}")
        ok, bad = (ok + 1, bad) if good else (ok, bad + 1)
    print(f"{ok} passed, {bad} failed")
    return 1 if bad else 0


def match(path, uname):
    lines = ranges(path)
    m = LINE.match(lines[0]) if len(lines) == 1 else None
    if not m or not re.match(r"^[0-9]+\.[0-9]+", uname):
        print("unknown")
        return 0
    if m.group(1):
        print("in" if m.group(1) == "linux" else "unknown")
        return 0
    if m.group(2) != "linux" or "x" in m.group(3):
        print("unknown")
        return 0
    v = version(uname)
    lo = version(m.group(3))
    hi = version(m.group(4)) if m.group(4) else None
    print("in" if v >= lo and (hi is None or v <= hi) else "out")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "check":
        sys.exit(check(a[1:]))
    if len(a) == 3 and a[0] == "match":
        sys.exit(match(a[1], a[2]))
    sys.exit("usage: testing/expect-range.py check FILE... | match FILE UNAME-R")

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every MSR the suite writes is listed in docs/msrs.md, by suite, with its gate.

Runs build/host/pmusim with PMUSIM_MSR_TRACE (arch/sim/msr_trace.c) on every
profile of the library and on every dump of the corpus (data/cpuid and
data/cpuid/corpus), collects each attempted WRMSR as (suite, address),
and checks it against the table of docs/msrs.md:

  - a write the table does not list for that suite is a failure (the suite
    writes an MSR nobody reviewed for a real machine);
  - a table row no run writes is a failure too (the table is stale);
  - an MSR a test wrote that does not hold, after the test, its value from
    before the test's first write (the harness undoes every test's writes,
    arch/x86_64/state.c and arch/sim/msr_trace.c) is a failure;
  - MSRs found at the start of a test with a value other than before their
    first write are printed: the harness's reset state (docs/msrs.md, "State
    between tests").

Prints "ok"/"not ok" lines and "N passed, N failed"; exit 1 on a failure,
2 on bad input (no pmusim, no table).
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW_RE = re.compile(r"^\|\s*([a-z_0-9]+)\s*\|\s*(0x[0-9A-Fa-f]+)\s*\|\s*(0x[0-9A-Fa-f]+)\s*\|")


def load_table(path):
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = ROW_RE.match(line)
                if m:
                    rows.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16), n))
    except OSError as e:
        raise SystemExit(f"check-msrs: cannot read {path}: {e.strerror}")
    if not rows:
        raise SystemExit(f"check-msrs: no table rows in {path}")
    return rows


def run_one(pmusim, args, trace_dir, index):
    trace = os.path.join(trace_dir, f"t{index}")
    env = dict(os.environ, PMUSIM_MSR_TRACE=trace)
    subprocess.run([pmusim, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, timeout=120)
    writes, dirty, leftover = set(), {}, set()
    if os.path.exists(trace):
        with open(trace) as f:
            for line in f:
                p = line.split()
                if p[0] == "write" and len(p) == 4:
                    writes.add((p[1], int(p[2], 16)))
                elif p[0] == "dirty" and len(p) == 5:
                    dirty[int(p[2], 16)] = dirty.get(int(p[2], 16), 0) + 1
                elif p[0] == "leftover" and len(p) == 5:
                    leftover.add((p[1], int(p[2], 16), p[3], p[4]))
    return args, writes, dirty, leftover


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pmusim", default=os.path.join(REPO, "build", "host", "pmusim"))
    ap.add_argument("--table", default=os.path.join(REPO, "docs", "msrs.md"))
    ap.add_argument("--dumps", default=os.path.join(REPO, "data", "cpuid"))
    args = ap.parse_args()
    if not os.access(args.pmusim, os.X_OK):
        print(f"check-msrs: {args.pmusim} not built", file=sys.stderr)
        return 2
    rows = load_table(args.table)

    runs = []
    out = subprocess.run([args.pmusim, "--list-profiles"], capture_output=True, text=True).stdout
    runs += [["--profile", ln.split()[0]] for ln in out.splitlines() if ln.strip()]
    corpus = os.path.join(args.dumps, "corpus")
    if os.path.isdir(corpus):
        runs += [["--cpuid-dump", os.path.join(corpus, f)]
                 for f in sorted(os.listdir(corpus)) if f.endswith(".txt")]

    writes = {}  # (suite, msr) -> the first run that wrote it
    dirty = {}
    leftovers = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for run_args, w, d, lo in pool.map(lambda ia: run_one(args.pmusim, ia[1], tmp, ia[0]),
                                           enumerate(runs)):
            for key in w:
                writes.setdefault(key, " ".join(os.path.basename(a) for a in run_args))
            for msr, n in d.items():
                dirty[msr] = dirty.get(msr, 0) + n
            for key in lo:
                leftovers.setdefault(key[:2], (" ".join(os.path.basename(a) for a in run_args),)
                                     + key[2:])

    passed = failed = 0
    used = set()
    for (suite, msr), where in sorted(writes.items()):
        hits = [r for r in rows if r[0] == suite and r[1] <= msr <= r[2]]
        if hits:
            used.update(hits)
            passed += 1
        else:
            failed += 1
            print(f"not ok - {suite} writes MSR {msr:#x} (first seen with {where}): "
                  f"not listed for {suite} in {os.path.relpath(args.table, REPO)}")
    for row in rows:
        if row in used:
            passed += 1
        else:
            failed += 1
            print(f"not ok - {os.path.relpath(args.table, REPO)}:{row[3]}: {row[0]} "
                  f"{row[1]:#x}-{row[2]:#x} is written by no run (stale row?)")
    for (suite, msr), (where, now, before) in sorted(leftovers.items()):
        failed += 1
        print(f"not ok - {suite} left MSR {msr:#x} = {now} after its test, not {before} as "
              f"before ({where}): the undo of the test's writes missed it")
    if not leftovers:
        passed += 1
        print("ok - every MSR a test wrote holds its value from before the test afterwards")
    print(f"# {len(runs)} runs, {len(writes)} (suite, MSR) pairs written, {len(rows)} table rows")
    if dirty:
        print(f"# {len(dirty)} MSRs were found at the start of a test with a value other than "
              "before their first write (the harness's reset state; docs/msrs.md):")
        print("#   " + " ".join(f"{m:#x}" for m in sorted(dirty)))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs one program many times, a few at a time: the simulator matrices of
testing/mutation.sh and testing/check-known.sh (thousands of pmusim runs).

usage: testing/lib/run-jobs.py [-j JOBS] [-t SECONDS] PROGRAM <JOBS-FILE

Each line of standard input is one run: STEM ARG... (words split on white
space, no quoting): PROGRAM ARG... runs with its standard output and error
in STEM.out and its exit status, as a shell would give it, in STEM.rc (a
number and a newline). JOBS runs at a time (default 2); a run still going
after SECONDS (default 60) is killed and its status is 124, as timeout(1)
says it. Why not `xargs -P sh -c 'timeout ... >STEM.out; echo $? >STEM.rc'`:
that is two more programs started a run (a shell and timeout), and on this
project's 2-core machine their start-ups cost a third of the matrices'
time. Here each run is one posix_spawn.

Exit status: 0 when every run was started (whatever its own status), 2 on
bad usage or a PROGRAM that cannot be started.
"""
import argparse
import os
import shutil
import signal
import sys
import time

TIMED_OUT = 124  # timeout(1)'s status for a run it ended


def main():
    ap = argparse.ArgumentParser(description="Runs PROGRAM once per line of stdin: STEM ARG...")
    ap.add_argument("-j", type=int, default=2, metavar="JOBS")
    ap.add_argument("-t", type=float, default=60, metavar="SECONDS")
    ap.add_argument("program")
    args = ap.parse_args()
    if args.j < 1 or args.t <= 0:
        ap.error("-j and -t must be positive")
    program = shutil.which(args.program)  # a name without a slash: from PATH
    if program is None:
        print(f"run-jobs: {args.program}: not an executable", file=sys.stderr)
        return 2
    jobs = [line.split() for line in sys.stdin if line.strip()]

    running = {}  # pid -> (stem, deadline)
    killed = set()

    def kill_overdue(_signum=None, _frame=None):
        now = time.monotonic()
        for pid, (_, deadline) in list(running.items()):
            if now > deadline and pid not in killed:
                killed.add(pid)
                os.kill(pid, signal.SIGKILL)

    # A tick a second: a run past its time is killed while we wait for any.
    # The timer is disarmed before main() returns (run_all's finally): at
    # exit the interpreter puts SIGALRM back to its default, and a tick that
    # came then would kill this process ("Alarm clock", status 142) after
    # every run was done, which under load it did.
    signal.signal(signal.SIGALRM, kill_overdue)
    signal.setitimer(signal.ITIMER_REAL, 1, 1)
    try:
        return run_all(args, program, jobs, running, killed)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)


def run_all(args, program, jobs, running, killed):
    """Every run of jobs, args.j at a time; 0, or 2 for a PROGRAM that
    cannot be started."""

    def reap():
        pid, status = os.waitpid(-1, 0)
        stem, _ = running.pop(pid)
        if pid in killed:
            rc = TIMED_OUT
            killed.discard(pid)
        elif os.WIFSIGNALED(status):
            rc = 128 + os.WTERMSIG(status)
        else:
            rc = os.WEXITSTATUS(status)
        with open(stem + ".rc", "w") as f:
            f.write(f"{rc}\n")

    for words in jobs:
        stem, argv = words[0], [args.program] + words[1:]
        while len(running) >= args.j:
            reap()
        actions = [
            (os.POSIX_SPAWN_OPEN, 1, stem + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        try:
            pid = os.posix_spawn(program, argv, os.environ, file_actions=actions)
        except OSError as e:
            print(f"run-jobs: {args.program}: {e.strerror}", file=sys.stderr)
            return 2
        running[pid] = (stem, time.monotonic() + args.t)
    while running:
        reap()
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: MIT
"""Logs in the compact form (kernel/compact.h) and their full form."""

import os
import subprocess
import sys

from common import TOOLS


HEAD = """\
KTAP version 1
1..4
# pmutest 0.1 on sim: profile x
# cpus: 2 of 2 online (boot CPU 0); 1 distinct PMU configuration
"""


COMPACT_LINE = ('# compact: "same as cpuN": the suite or test ended exactly as on cpu N, the first '
                'CPU of its PMU configuration; SKIP "ditto": the previous test\'s reason '
                '(compact = 0 prints every line)\n')


def suite(label, body, result):
    return (f"    KTAP version 1\n    # Subtest: {label}\n" + body
            + f"    # {label}: pass:0 fail:0 skip:0 total:0\n{result}\n")


ACR_FULL = ("    1..3\n"
            "    ok 1 a # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
            "    ok 2 b # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
            "    ok 3 c # SKIP missing CPUID.(23H,0):EAX[2] ACR\n")


ACR_DITTO = ("    1..3\n"
             "    ok 1 a # SKIP missing CPUID.(23H,0):EAX[2] ACR\n"
             "    ok 2 b # SKIP ditto\n"
             "    ok 3 c # SKIP ditto\n")


RDPMC_CPU0 = ("    1..3\n"
              "    ok 1 gp\n"
              "    # FAIL: RDPMC ECX=0x10000\n"
              "    #   expected: #GP(0)\n"
              "    #   actual:   no exception\n"
              "    not ok 2 type_space\n"
              "    ok 3 fixed # XFAIL known deviation kvm-x: Linux pmu.c\n")


RDPMC_CPU1 = ("    1..3\n"
              "    ok 1 gp\n"
              "    # FAIL: RDPMC ECX=0x10000 on cpu 1\n"
              "    #   expected: #GP(0)\n"
              "    #   actual:   #UD\n"
              "    not ok 2 type_space\n"
              "    ok 3 fixed # XFAIL known deviation kvm-x: Linux pmu.c\n")


RDPMC_CPU1_COMPACT = ("    1..3\n"
                      "    ok 1 gp # same as cpu0\n"
                      "    # FAIL: RDPMC ECX=0x10000 on cpu 1\n"
                      "    #   expected: #GP(0)\n"
                      "    #   actual:   #UD\n"
                      "    not ok 2 type_space\n"
                      "    ok 3 fixed # XFAIL same as cpu0\n")


TAIL = "# cpu 1: pass:1 fail:1 skip:3\n# Totals: pass:2 fail:2 skip:6 xfail:2 total:12\n# verdict: FAIL\n"


FULL = (HEAD + suite("acr@cpu0", ACR_FULL, "ok 1 acr@cpu0 # SKIP no test of this suite applies")
        + suite("rdpmc@cpu0", RDPMC_CPU0, "not ok 2 rdpmc@cpu0")
        + suite("acr@cpu1", ACR_FULL, "ok 3 acr@cpu1 # SKIP no test of this suite applies")
        + suite("rdpmc@cpu1", RDPMC_CPU1, "not ok 4 rdpmc@cpu1") + TAIL)


COMPACT = (HEAD + COMPACT_LINE
           + suite("acr@cpu0", ACR_DITTO, "ok 1 acr@cpu0 # SKIP no test of this suite applies")
           + suite("rdpmc@cpu0", RDPMC_CPU0, "not ok 2 rdpmc@cpu0")
           + "ok 3 acr@cpu1 # SKIP same as cpu0\n"
           + suite("rdpmc@cpu1", RDPMC_CPU1_COMPACT, "not ok 4 rdpmc@cpu1") + TAIL)


# Within a test (kernel/check.c field(), kernel/trace.c): a failure block's
# field equal to the test's previous line of that field is "ditto", trace
# entries printed before are one line "shown above".


AMD_FULL = ("    1..2\n"
            "    # FAIL: PerfCtr0 event C0H over N iterations\n"
            "    #   expected: 0x186a0 (100000) .. 0x18e70 (102000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
            "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
            "    # FAIL: PerfCtr0 event C0H: count(2N) - count(N)\n"
            "    #   expected: 0x186a0 (100000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
            "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
            "    # trace: 4 wrmsr 0xc0010000 0 ok\n"
            "    not ok 1 every_counter\n"
            "    # FAIL: PerfCtr0 event C2H\n"
            "    #   expected: 0x2710 (10000)\n"
            "    #   actual:   0\n"
            "    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
            "    #   observed: subject=none outcome=zero\n"
            "    # trace: 2 wrmsr 0xc0010000 0x4300c2 ok\n"
            "    not ok 2 branches\n")
# The second block of the first test repeats the first's rule, outcome and
# two accesses; the second test says its own in full, whatever the first said.


AMD_REPEATED = ("    #   rule:     AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event\n"
                "    #   observed: subject=none outcome=zero\n"
                "    # trace: 2 wrmsr 0xc0010000 0x4300c0 ok\n"
                "    # trace: 3 rdmsr 0xc0010004 0 ok\n"
                "    # trace: 4 ")
assert AMD_FULL.count(AMD_REPEATED) == 1


AMD_COMPACT = AMD_FULL.replace(AMD_REPEATED, "    #   rule:     ditto\n    #   observed: ditto\n"
                               "    # trace: 2..3 shown above\n    # trace: 4 ")


AMD_TAIL = "# Totals: pass:0 fail:2 skip:0 xfail:0 total:2\n# verdict: FAIL\n"


AMD_HEAD = HEAD.replace("1..4", "1..1")


AMD_LOG_FULL = AMD_HEAD + suite("amd", AMD_FULL, "not ok 1 amd") + AMD_TAIL


AMD_LOG_COMPACT = AMD_HEAD + COMPACT_LINE + suite("amd", AMD_COMPACT, "not ok 1 amd") + AMD_TAIL


def results(run):
    return [(t.suite, t.name, t.number, t.result, t.reason, t.diagnostics) for t in run.tests()]


def cli(tool, *args):
    p = subprocess.run([sys.executable, os.path.join(TOOLS, tool), *args],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr

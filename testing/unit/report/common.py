# SPDX-License-Identifier: MIT
"""What the report package's tests share: a small log of every result, the
command run in this process, the LAVA monitor emulation."""

import contextlib
import io
import json
import os
import sys
import traceback

from pmureport import cli


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
# The commands a user runs (ktap-report.py, lava-job.py, lava-results.py).
TOOLS = os.path.join(ROOT, "tools")
# make test's steps (check-report-page.py).
STEPS = os.path.join(ROOT, "testing")


GOOD = """\
BdsDxe: loading Boot0001 (firmware noise)
KTAP version 1
1..2
# pmutest 0.1 on sim: profile x
# caps: architectural PMU version 5
# measure: run.suite_time = 1234 tsc_cycles
    KTAP version 1
    # Subtest: rdpmc
    1..3
    ok 1 gp_type
    # FAIL: RDPMC ECX=0x10000
    #   expected: #GP(0)
    #   actual:   no exception
    not ok 2 type_space
    ok 3 metrics # SKIP missing IA32_PERF_CAPABILITIES[15]
    # rdpmc: pass:1 fail:1 skip:1 total:3
not ok 1 rdpmc
    KTAP version 1
    # Subtest: selftest
    1..2
    # unexpected exception #PF (vector 14) at RIP 0x1000, CPL 0
    not ok 1 page_fault
    not ok 2 endless_loop # TIMEOUT
not ok 2 selftest
# Totals: pass:1 fail:3 skip:1 total:5
# verdict: FAIL
"""


# GOOD's non-pass tests with their fingerprints (fingerprint.fingerprint): what
# a line of an expectations file must state to accept them.


FP_TYPE_SPACE = "    check: no fault :: RDPMC ECX=0x10000 ::\n"


FP_PAGE_FAULT = "    exception: #PF\n"


FP_TIMEOUT = "    timeout:\n"


EXPECT_GOOD = ("rdpmc.type_space fail r\n" + FP_TYPE_SPACE + "rdpmc.metrics skip r\n"
               "selftest.page_fault error r\n" + FP_PAGE_FAULT
               + "selftest.endless_loop timeout r\n" + FP_TIMEOUT)


def run_cli(*args, stdin=None):
    """`ktap-report.py ARGS`: (exit status, stdout, stderr), as the command
    line gives them (`sys.exit(main(argv))`: an exception is a traceback on
    stderr and status 1), run in this process: a new interpreter a call was
    0.1-0.2 s of CPU, 144 calls. The tests of a real
    process (stdout on /dev/full, a closed pipe) run it with subprocess."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(list(args))
        except SystemExit as e:  # argparse's usage errors (2), --help (0)
            rc = e.code
        except Exception:  # what the interpreter prints and exits with
            traceback.print_exc()
            rc = 1
        if isinstance(rc, str):  # sys.exit("message"): the message, status 1
            print(rc, file=sys.stderr)
            rc = 1
    return 0 if rc is None else rc, out.getvalue(), err.getvalue()


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def compare(tmp, log, expectations):
    """`ktap-report.py compare` of log with these expectations (the text of
    an expectations file, written in tmp): (exit status, stdout, stderr)."""
    return run_cli("compare", log, write(tmp, "exp.txt", expectations))


MACHINE_LOG = """\
KTAP version 1
1..2
# pmutest 0.1 on x86_64: QEMU TCG, QEMU TCG CPU version 2.5+; APIC timer 1000 MHz
# firmware: EDK II
# cpus: 1 of 1 online (boot CPU 0); 1 distinct PMU configuration
# cpu 0: APIC ID 0: online, PMU configuration 1
# caps: vendor GenuineIntel (Intel), DisplayFamily 06H DisplayModel 0FH stepping 6 (CPUID.01H:EAX = 0x000006f6)
# caps: CPUID.01H: hypervisor yes, PDCM yes, x2APIC no, APIC yes, MSR yes, TSC yes, DS yes
# caps: hypervisor vendor "TCGTCGTCGTCG" (CPUID.40000000H)
# caps: architectural PMU version 2: 2 GP counters x 40 bits (mask 0x3)
    KTAP version 1
    # Subtest: cpuid
    1..3
    ok 1 global_ctrl_reset_value
    # FAIL: fixed counters on version 2
    #   expected: EDX[4:0] > 0
    #   actual:   no fixed counter
    #   rule:     SDM Vol.3B 20.2.2: version 2 adds fixed-function counters
    #   known:    core2-v2-no-fixed-enumerated (Core 2): Linux intel_pmu_init()
    ok 2 leaf_0ah_fields # XFAIL known deviation core2-v2-no-fixed-enumerated: Linux intel_pmu_init()
    ok 3 perf_capabilities_absent_without_pdcm # SKIP CPUID.01H:ECX[15] PDCM = 1
    # cpuid: pass:1 fail:0 skip:1 total:3
ok 1 cpuid
    KTAP version 1
    # Subtest: rdpmc
    1..1
    ok 1 gp_type
ok 2 rdpmc
# Totals: pass:2 fail:0 skip:1 xfail:1 total:4
# deviations: 0 new, 1 known (XFAIL); inferred rules not followed: 0 (diagnostics)
# measure: run.suite_time = 1234 tsc_cycles
# verdict: PASS
"""


def with_result(log, line, new_line, totals, verdict):
    """log with one result line replaced and its closing lines made to agree."""
    out = log.replace(line, new_line)
    out = out[:out.index("# Totals:")] + f"# Totals: {totals}\n" + \
        out[out.index("# deviations:"):out.index("# verdict:")] + f"# verdict: {verdict}\n"
    return out


BROKEN = {
    "binary garbage": bytes(range(256)) * 4,
    "truncated": GOOD[:GOOD.index("not ok 1 rdpmc")].encode(),
    "no plan": GOOD.replace("KTAP version 1\n1..2\n", "KTAP version 1\n", 1).encode(),
    "empty": b"",
}


def lava_monitor_results(console, job_text):
    """What LAVA's test monitor records from console text, the way
    lava-dispatcher 2023.01 does it: monitors in order; each waits for its
    start, then takes the earliest of its end and its pattern (end first on
    a tie) until the end; fixupdict maps the result group; case ids are
    lower-cased with non-word runs made "_". Only the monitors' patterns are
    under test here; test-lava.sh runs the real lava-run."""
    import re
    monitors = parse_monitors(job_text)
    pos, out = 0, []
    for m in monitors:
        start = re.compile(m["start"]).search(console, pos)
        if not start:
            return out, False
        pos = start.end()
        end_re, pat_re = re.compile(m["end"]), re.compile(m["pattern"])
        while True:
            e, p = end_re.search(console, pos), pat_re.search(console, pos)
            if e is None and p is None:
                return out, False
            if e is not None and (p is None or e.start() <= p.start()):
                pos = e.end()
                break
            g = p.groupdict()
            out.append((m["name"], re.sub(r"\W+", "_", g["test_case_id"].strip().lower()),
                        m["fixupdict"].get(g["result"], g["result"])))
            pos = p.end()
    return out, True


def parse_monitors(job_text):
    """The monitors list of a job lava-job.py wrote (every scalar a JSON string)."""
    monitors, cur, in_fix = [], None, False
    for ln in job_text.split("\n")[job_text.split("\n").index("    monitors:") + 1:]:
        s = ln.strip()
        if s.startswith("- name: "):
            cur = {"name": json.loads(s[8:]), "fixupdict": {}}
            monitors.append(cur)
            in_fix = False
        elif s == "fixupdict:":
            in_fix = True
        elif in_fix and ln.startswith("        "):
            k, v = s.split(": ", 1)
            cur["fixupdict"][json.loads(k)] = json.loads(v)
        elif ": " in s and cur is not None:
            k, v = s.split(": ", 1)
            cur[k] = json.loads(v)
            in_fix = False
    return monitors


def write_png(path, width, height, pixel):
    """An RGB PNG, pixel(x, y) -> (r, g, b), rows with filter 1 (Sub) so
    that the reader's unfiltering is exercised."""
    import struct
    import zlib
    raw = bytearray()
    for y in range(height):
        raw.append(1)
        prev = (0, 0, 0)
        for x in range(width):
            p = pixel(x, y)
            raw += bytes((p[i] - prev[i]) & 0xFF for i in range(3))
            prev = p

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


TRACED = GOOD.replace("""    #   actual:   no exception
    not ok 2 type_space""", """    #   actual:   no exception
    #   rule:     SDM Vol.2B RDPMC
    # trace: 3 wrmsr 0x186 0x43003c ok
    # trace: 4 rdpmc 0x10000 0 ok
    not ok 2 type_space""").replace("# caps: architectural PMU version 5\n", """# caps: architectural PMU version 5
# option: suites = rdpmc
# cpu 0: APIC ID 0: online, PMU configuration 1
# cpuid: config 1: 0x00000000 0x00: eax=0x0000000a ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69
# msr: config 1: IA32_PERF_CAPABILITIES (345H) = 0xf4c5
""")


PMUSIM_BIN = os.path.join(ROOT, "build", "host", "pmusim")

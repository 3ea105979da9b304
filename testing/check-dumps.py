#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare pmucaps with Debian's cpuid tool, field by field, on real dumps.

For every `cpuid -r` dump in data/cpuid (or --dumps DIR), run
    build/host/pmucaps --cpuid-dump FILE          (our decoder, JSON)
    cpuid -f FILE                                  (the reference decode)
    cpuid -r -f FILE                               (the tool's own re-read of
                                                    the raw registers)
and check each field of the JSON record against the value the cpuid tool
decodes. Each compared field is one line:
    ok - DUMP: FIELD
    not ok - DUMP: FIELD expected X (cpuid tool) got Y
and the run ends with "N passed, N failed" (exit 1 on any failure).

Where the cpuid tool (version 20230120) is silent or decodes against the SDM,
the expected value is derived by the SDM rule from the tool's own fields (or
from its raw re-read when it decodes nothing); such lines say "(SDM: ...)"
instead of "(cpuid tool)". The exceptions, with their reasons:

  fixed_counters     The tool reads only CPUID.0AH:ECX ("fixed counter i
                     supported") and prints it for every version. The SDM
                     (Vol. 3B 20.2.5, Vol. 2A leaf 0AH) says: ECX is the
                     fixed-counter bitmask from version 5 on (reserved
                     before), and fixed counter i is supported if ECX[i] = 1
                     or EDX[4:0] > i. Expected = {i : tool's ECX bit i, v>=5}
                     U {i < tool's "number of contiguous fixed counters"}.
  fixed_bitmask      The tool's ECX bits for version >= 5, null before (ECX
                     reserved).
  fixed_counters_contiguous, fixed_width
                     EDX[4:0] and EDX[12:5] hold "if Version ID > 1": null
                     for version 1, whatever the tool prints.
  events 8..12       The tool knows EBX bits 0-7 only. SDM Table 20-1 rule:
                     available iff i < EAX[31:24] (tool's "length of EBX bit
                     vector") and EBX[i] = 0 (raw EBX).
  arch_perfmon       null when the tool's version ID is 0 (no architectural
                     PMU) or the leaf is not decoded at all (above max).
  arch_perfmon_ext   Leaf 23H exists only if CPUID.(07H,1):EAX[8]
                     ("ArchPerfmonExt is valid") and 23H <= max basic leaf;
                     the tool does not decode it fully, so its fields come from
                     the raw registers by the SDM rule (sub-leaf 1 only if
                     sub-leaf 0 EAX[1]).
  gp_mask            Not a tool field: bits 0..EAX[15:8]-1 (tool's "number
                     of counters"), or leaf 23H sub-leaf 1 EAX when valid.
  core_type, native_model_id
                     Leaf 1AH is defined for hybrid parts (CPUID.(07H,0):
                     EDX[15], tool's "hybrid part"); the tool prints it for any
                     CPU: expected null when not hybrid.
  rdt_monitoring     The tool decodes leaf 0FH whatever CPUID.(07H,0):EBX.PQM
                     says; the SDM (Vol. 3B 17.18.3) makes leaf 0FH exist only
                     with PQM: expected null without it. Same for "l3"
                     without CPUID.(0FH,0):EDX[1].
  rdt_allocation     Same with PQE for leaf 10H (Vol. 3B 17.19.4); a
                     resource's parameters are null when its ResID bit is clear
                     (the tool decodes sub-leaf 1 anyway) or when its sub-leaf
                     reads all zeros (absent from the dump).
  max_basic_leaf, max_ext_leaf, amd.num_umc_pmc
                     The tool's decode does not print them: taken from its
                     raw re-read (CPUID.0H:EAX; CPUID.80000000H:EAX when it is
                     8000xxxxH, else null; Fn8000_0022_EBX[21:16]).
  amd.core_counters, nehalem_uncore, netburst
                     Derived, by the rules of docs/pmucaps-schema.md, from the
                     tool's PerfCtrExtCore / PerfMonV2 fields and its vendor,
                     family and model synth.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TOOL_EVENTS = [
    ("core_cycles", "core cycle event"),
    ("instructions", "instruction retired event"),
    ("ref_cycles", "reference cycles event"),
    ("llc_references", "last-level cache ref event"),
    ("llc_misses", "last-level cache miss event"),
    ("branch_instructions", "branch inst retired event"),
    ("branch_misses", "branch mispred retired event"),
    ("topdown_slots", "top-down slots event"),
]
SDM_EVENTS = [
    "topdown_backend_bound",
    "topdown_bad_speculation",
    "topdown_frontend_bound",
    "topdown_retiring",
    "lbr_inserts",
]
NEHALEM_UNCORE_MODELS = {0x1A, 0x1E, 0x1F, 0x25, 0x2C}


class Tool:
    """The cpuid tool's decode of one dump: sections of key/value lines."""

    def __init__(self, text):
        self.sections = []  # [(title, [(key, value)])]
        cur = ("", [])
        self.sections.append(cur)
        for line in text.splitlines():
            if not line.strip() or line.startswith("CPU"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            body = line.strip()
            if indent <= 3 and "=" not in body:
                cur = (body, [])
                self.sections.append(cur)
                continue
            if "=" in body:
                key, _, value = body.partition("=")
                target = self.sections[0][1] if indent <= 3 else cur[1]
                target.append((key.strip(), value.strip()))

    def section(self, marker):
        for title, items in self.sections:
            if marker in title:
                return items
        return None

    def get(self, marker, key, nth=0):
        items = self.section(marker) if marker is not None else self.sections[0][1]
        if items is None:
            return None
        hits = [v for k, v in items if k == key]
        return hits[nth] if len(hits) > nth else None

    def any_get(self, key):
        for _, items in self.sections:
            for k, v in items:
                if k == key:
                    return v
        return None


def num(v):
    """'0x8 (8)' -> 8, '159' -> 159, '0x00006000' -> 0x6000."""
    if v is None:
        return None
    m = re.search(r"\((\d+)\)", v)
    if m:
        return int(m.group(1))
    m = re.match(r"(0x[0-9a-fA-F]+|\d+)", v)
    return int(m.group(1), 0) if m else None


def flag(v):
    if v is None:
        return None
    if v in ("true", "available"):
        return True
    if v in ("false", "not available"):
        return False
    return None


def raw_regs(text):
    regs = {}
    for line in text.splitlines():
        m = re.match(
            r"\s*0x([0-9a-f]+) 0x([0-9a-f]+): eax=0x([0-9a-f]+) ebx=0x([0-9a-f]+)"
            r" ecx=0x([0-9a-f]+) edx=0x([0-9a-f]+)",
            line,
        )
        if m:
            v = [int(x, 16) for x in m.groups()]
            regs.setdefault((v[0], v[1]), tuple(v[2:]))
    return regs


class Checker:
    def __init__(self, verbose=False):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose

    def check(self, dump, field, expected, got, source="cpuid tool"):
        if expected == got:
            self.passed += 1
            note = f" ({source})" if self.verbose else ""
            print(f"ok - {dump}: {field}{note}")
        else:
            self.failed += 1
            print(
                f"not ok - {dump}: {field} expected {json.dumps(expected)} ({source})"
                f" got {json.dumps(got)}"
            )


def bits(mask):
    return [i for i in range(64) if mask >> i & 1]


def hex32(v):
    return "0x%08x" % num(v)


def expected_record(tool, raw):
    """The record as the cpuid tool (and, where it is silent, the SDM rule
    applied to its fields) says it must be. Values are (value, source)."""
    E = {}
    TOOL = "cpuid tool"

    def put(k, v, src=TOOL):
        E[k] = (v, src)

    def put_tool(prefix, section, fields):
        """prefix.key is the tool's value for label in section, read by conv,
        for each (key, conv, label) of fields."""
        for key, conv, label in fields:
            put(f"{prefix}.{key}", conv(tool.get(section, label)))

    vendor = tool.get(None, "vendor_id")
    vendor = vendor.strip('"') if vendor else None
    put("vendor", vendor)
    fam = num(tool.get("version information (1/eax)", "(family synth)"))
    model = num(tool.get("version information (1/eax)", "(model synth)"))
    put("family", fam)
    put("model", model)
    put("stepping", num(tool.get("version information (1/eax)", "stepping id")))

    max_basic = raw.get((0, 0), (0,))[0]
    put("max_basic_leaf", max_basic, "SDM: CPUID.0H:EAX from the tool's raw re-read")
    ext = raw.get((0x80000000, 0), (0,))[0]
    put(
        "max_ext_leaf",
        ext if ext & 0xFFFF0000 == 0x80000000 else None,
        "SDM: CPUID.80000000H:EAX if 8000xxxxH, from the tool's raw re-read",
    )

    ecx1 = "feature information (1/ecx)"
    edx1 = "feature information (1/edx)"
    hv = flag(tool.get(ecx1, "hypervisor guest status"))
    put("hypervisor", hv)
    put("pdcm", flag(tool.get(ecx1, "PDCM: perfmon and debug")))
    put("x2apic", flag(tool.get(ecx1, "x2APIC: extended xAPIC support")))
    put("apic", flag(tool.get(edx1, "APIC on chip")))
    put("msr", flag(tool.get(edx1, "RDMSR and WRMSR support")))
    put("tsc", flag(tool.get(edx1, "TSC: time stamp counter")))
    put("ds", flag(tool.get(edx1, "DS: debug store")))
    hvid = tool.get(None, "hypervisor_id (0x40000000)")
    if hv and hvid is not None:
        put("hypervisor_vendor", hvid.strip('"').split("\\0")[0])
    else:
        put("hypervisor_vendor", None, "SDM: 40000000H only with CPUID.01H:ECX[31]")

    hybrid = flag(tool.get("extended feature flags (7)", "hybrid part"))
    put("hybrid", hybrid if max_basic >= 7 else None)
    if hybrid and max_basic >= 0x1A:
        ct = tool.get("(0x1a/0)", "core type")
        put("core_type", {"Intel Atom": "atom", "Intel Core": "core"}.get(ct, ct))
        nm = num(tool.get("(0x1a/0)", "native model ID of core"))
        put("native_model_id", "0x%06x" % nm if nm is not None else None)
    else:
        why = "SDM: leaf 1AH is defined for hybrid parts (CPUID.(07H,0):EDX[15])"
        put("core_type", None, why)
        put("native_model_id", None, why)

    # ---- leaf 0AH
    pm = "Architecture Performance Monitoring Features (0xa)"
    version = num(tool.get(pm, "version ID"))
    if not version:
        put("arch_perfmon", None, "SDM: leaf 0AH absent or version ID 0 = no architectural PMU")
    else:
        put("arch_perfmon.version", version)
        gp = num(tool.get(pm, "number of counters per logical processor"))
        put("arch_perfmon.gp_counters", gp)
        put("arch_perfmon.gp_width", num(tool.get(pm, "bit width of counter")))
        length = num(tool.get(pm, "length of EBX bit vector"))
        put("arch_perfmon.ebx_length", length)
        for name, label in TOOL_EVENTS:
            put(f"arch_perfmon.events.{name}", flag(tool.get(pm, label)))
        ebx = raw.get((0xA, 0), (0, 0, 0, 0))[1]
        for i, name in enumerate(SDM_EVENTS, start=8):
            put(
                f"arch_perfmon.events.{name}",
                i < length and not (ebx >> i & 1),
                f"SDM Table 20-1: bit {i} < EBX length and EBX[{i}] = 0; tool silent",
            )
        ecx_bits = [
            i for i in range(32) if flag(tool.get(pm, "fixed counter %2d supported" % i))
        ]
        contig = num(tool.get(pm, "number of contiguous fixed counters")) or 0
        if version < 2:
            contig = 0
        fixed = set(range(contig)) | (set(ecx_bits) if version >= 5 else set())
        put(
            "arch_perfmon.fixed_counters",
            sorted(fixed),
            "SDM: ECX[i] (v5+) or i < EDX[4:0] (v2+); the tool reads ECX only",
        )
        put(
            "arch_perfmon.fixed_bitmask",
            sum(1 << i for i in ecx_bits) if version >= 5 else None,
            "SDM: CPUID.0AH:ECX is the fixed bitmask from version 5, reserved before",
        )
        why = "SDM: EDX[4:0]/EDX[12:5] only if version > 1"
        put(
            "arch_perfmon.fixed_counters_contiguous",
            num(tool.get(pm, "number of contiguous fixed counters")) if version > 1 else None,
            TOOL if version > 1 else why,
        )
        put(
            "arch_perfmon.fixed_width",
            num(tool.get(pm, "bit width of fixed counters")) if version > 1 else None,
            TOOL if version > 1 else why,
        )
        put("arch_perfmon.anythread_deprecated", flag(tool.get(pm, "anythread deprecation")))

    # ---- leaf 23H (the tool only says whether it is valid)
    ext_valid = flag(tool.any_get("ArchPerfmonExt is valid"))
    gp_mask = list(range(num(tool.get(pm, "number of counters per logical processor")) or 0))
    if ext_valid and max_basic >= 0x23:
        a0, b0, _, _ = raw.get((0x23, 0), (0, 0, 0, 0))
        src = "SDM leaf 23H from the raw registers; tool does not decode it"
        put("arch_perfmon_ext.valid_subleaves", "0x%08x" % a0, src)
        put("arch_perfmon_ext.umask2", bool(b0 & 1), src)
        put("arch_perfmon_ext.eq", bool(b0 & 2), src)
        if a0 & 2:
            a1, b1, _, _ = raw.get((0x23, 1), (0, 0, 0, 0))
            put("arch_perfmon_ext.gp_bitmap", bits(a1), src)
            put("arch_perfmon_ext.fixed_bitmap", bits(b1), src)
            gp_mask = bits(a1)
            if version:
                put("arch_perfmon.fixed_counters", bits(b1), src)
    else:
        put(
            "arch_perfmon_ext",
            None,
            "SDM: leaf 23H needs CPUID.(07H,1):EAX[8] and 23H <= max basic leaf",
        )
    if version:
        put(
            "arch_perfmon.gp_mask",
            gp_mask,
            "SDM: bits below EAX[15:8], or leaf 23H sub-leaf 1 EAX",
        )

    # ---- RDT
    pqm = flag(tool.get("extended feature flags (7)", "RDT-CMT/PQoS cache monitoring"))
    pqe = flag(tool.get("extended feature flags (7)", "RDT-CAT/PQE cache allocation"))
    mon0 = "Quality of Service Monitoring Resource Type (0xf/0)"
    mon1 = "L3 Cache Quality of Service Monitoring (0xf/1)"
    if not pqm or max_basic < 0xF or tool.section(mon0) is None:
        put("rdt_monitoring", None, "SDM 17.18.3: leaf 0FH exists only with CPUID.(07H,0):EBX.PQM")
    else:
        put("rdt_monitoring.max_rmid", num(tool.get(mon0, "Maximum range of RMID")))
        if not flag(tool.get(mon0, "supports L3 cache QoS monitoring")):
            put("rdt_monitoring.l3", None, "SDM 17.18.4: (0FH,1) only with (0FH,0):EDX[1]")
        else:
            put_tool(
                "rdt_monitoring.l3",
                mon1,
                (
                    ("max_rmid", num, "Maximum range of RMID"),
                    ("upscale", num, "Conversion factor from IA32_QM_CTR to bytes"),
                    ("counter_width", num, "Counter width"),
                    ("overflow_bit", flag, "IA32_QM_CTR bit 61 is overflow"),
                    ("occupancy", flag, "supports L3 occupancy monitoring"),
                    ("total_bw", flag, "supports L3 total bandwidth monitoring"),
                    ("local_bw", flag, "supports L3 local bandwidth monitoring"),
                ),
            )
    al0 = "Resource Director Technology Allocation (0x10/0)"
    if not pqe or max_basic < 0x10 or tool.section(al0) is None:
        put("rdt_allocation", None, "SDM 17.19.4: leaf 10H exists only with CPUID.(07H,0):EBX.PQE")
    else:
        l3 = flag(tool.get(al0, "L3 cache allocation technology supported"))
        l2 = flag(tool.get(al0, "L2 cache allocation technology supported"))
        mba = flag(tool.get(al0, "memory bandwidth allocation supported"))
        put("rdt_allocation.l3_cat", l3)
        put("rdt_allocation.l2_cat", l2)
        put("rdt_allocation.mba", mba)
        for key, present, sub, title in (
            ("l3", l3, 1, "L3 Cache Allocation Technology (0x10/1)"),
            ("l2", l2, 2, "L2 Cache Allocation Technology (0x10/2)"),
        ):
            regs = raw.get((0x10, sub), (0, 0, 0, 0))
            if not present or not any(regs):
                put(
                    f"rdt_allocation.{key}",
                    None,
                    f"SDM: ResID {sub} not enumerated, or its sub-leaf reads all zeros",
                )
                continue
            if tool.section(title) is not None:
                put_tool(
                    f"rdt_allocation.{key}",
                    title,
                    (
                        ("cbm_length", num, "length of capacity bit mask"),
                        ("highest_cos", num, "highest COS number supported"),
                        ("cdp", flag, "code and data prioritization supported"),
                        ("isolation_bitmap", hex32, "Bit-granular map of isolation/contention"),
                    ),
                )
            else:
                src = "SDM leaf 10H from the raw registers; tool section absent"
                put(f"rdt_allocation.{key}.cbm_length", (regs[0] & 0x1F) + 1, src)
                put(f"rdt_allocation.{key}.highest_cos", regs[3] & 0xFFFF, src)
                put(f"rdt_allocation.{key}.cdp", bool(regs[2] & 4), src)
                put(f"rdt_allocation.{key}.isolation_bitmap", "0x%08x" % regs[1], src)
        regs = raw.get((0x10, 3), (0, 0, 0, 0))
        if not mba or not any(regs):
            put("rdt_allocation.mba_params", None, "SDM: ResID 3 not enumerated or all zeros")
        else:
            src = "SDM leaf 10H sub-leaf 3 from the raw registers"
            put("rdt_allocation.mba_params.max_throttle", (regs[0] & 0xFFF) + 1, src)
            put("rdt_allocation.mba_params.highest_cos", regs[3] & 0xFFFF, src)
            put("rdt_allocation.mba_params.linear", bool(regs[2] & 4), src)

    put("perf_capabilities", None, "no --perf-capabilities value given")

    # ---- AMD
    amd = vendor in ("AuthenticAMD", "HygonGenuine")
    if not amd:
        put("amd", None, "not an AMD or Hygon vendor string")
    else:
        ext_ok = ext & 0xFFFF0000 == 0x80000000
        core = flag(tool.any_get("core performance counter extensions"))
        if ext_ok and ext >= 0x80000001:
            put("amd.perfctr_core", core)
            put("amd.perfctr_nb", flag(tool.any_get("NB/DF performance counter extensions")))
            put("amd.perfctr_llc", flag(tool.any_get("LLC performance counter extensions")))
        e22 = "Extended Performance Monitoring and Debugging (0x80000022)"
        v2 = None
        ncore = None
        if ext_ok and ext >= 0x80000022 and tool.section(e22) is not None:
            v2 = flag(tool.get(e22, "AMD performance monitoring V2"))
            ncore = num(tool.get(e22, "number of core perf ctrs"))
            put("amd.perfmon_v2", v2)
            put("amd.lbr_stack_v2", flag(tool.get(e22, "AMD LBR V2")))
            put("amd.lbr_pmc_freeze", flag(tool.get(e22, "AMD LBR stack & PMC freezing")))
            put("amd.num_core_pmc", ncore)
            put("amd.lbr_v2_stack_size", num(tool.get(e22, "number of LBR stack entries")))
            put("amd.num_df_pmc", num(tool.get(e22, "number of avail Northbridge perf ctrs")))
            ebx = raw.get((0x80000022, 0), (0, 0, 0, 0))[1]
            put("amd.num_umc_pmc", ebx >> 16 & 0x3F, "APM Fn8000_0022_EBX[21:16]; tool silent")
        else:
            put("amd.perfmon_v2", None, "APM: 80000022H above the maximum extended leaf")
        if v2 and ncore:
            cc = ncore
        elif core:
            cc = 6
        else:
            cc = 4 if (fam or 0) >= 6 else 0
        put("amd.core_counters", cc, "APM: PerfMonV2 count, else 6 with PerfCtrExtCore, else 4")

    intel = vendor == "GenuineIntel"
    put(
        "nehalem_uncore",
        intel and fam == 6 and model in NEHALEM_UNCORE_MODELS,
        "SDM Vol. 3B: Intel 06_1AH/1EH/1FH/25H/2CH uncore (not 2EH/2FH)",
    )
    put("netburst", intel and fam == 0xF, "SDM Vol. 3B: Intel DisplayFamily 0FH")
    return E


def lookup(record, path):
    cur = record
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return ("<missing>",)
        cur = cur[part]
    return cur


def run_tool(cmd):
    """stdout of a command, or (None, why) when it crashed, failed or hung:
    the reference tool itself dies on some real dumps (SIGFPE on a Quark)."""
    try:
        res = subprocess.run(cmd, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, f"{os.path.basename(cmd[0])} ran over 60 s"
    except OSError as e:
        return None, f"{os.path.basename(cmd[0])} could not run: {e.strerror}"
    if res.returncode < 0:
        try:
            name = signal.Signals(-res.returncode).name
        except ValueError:
            name = f"signal {-res.returncode}"
        return None, f"{os.path.basename(cmd[0])} died with {name}"
    if res.returncode != 0:
        err = res.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"{os.path.basename(cmd[0])} exited {res.returncode}" + (
            f": {err[0][:120]!r}" if err else "")
    return res.stdout.decode("utf-8", "replace"), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dumps", default=os.path.join(REPO, "data", "cpuid"))
    ap.add_argument("--pmucaps", default=os.path.join(REPO, "build", "host", "pmucaps"))
    ap.add_argument("--cpuid", default="cpuid", help="the Debian cpuid tool")
    ap.add_argument(
        "-v", "--verbose", action="store_true", help="name the source of every expected value"
    )
    args = ap.parse_args()

    if not os.path.isdir(args.dumps):
        print(f"check-dumps: {args.dumps}: not a directory", file=sys.stderr)
        return 2
    if not os.access(args.pmucaps, os.X_OK):
        print(f"check-dumps: {args.pmucaps} not built (make {args.pmucaps})", file=sys.stderr)
        return 2
    if not shutil.which(args.cpuid):
        print("skipped: Debian's cpuid tool is missing (mk/deps.sh --test installs it as root)")
        print("0 passed, 0 failed")
        return 0
    dumps = sorted(
        f for f in os.listdir(args.dumps) if f.endswith(".txt") and f != "README.md"
    )
    if not dumps:
        print(f"check-dumps: no .txt dumps in {args.dumps}", file=sys.stderr)
        return 2

    ck = Checker(args.verbose)
    not_comparable = 0
    for name in dumps:
        path = os.path.join(args.dumps, name)
        dump = name[:-4]
        out, why = run_tool([args.pmucaps, "--cpuid-dump", path])
        if out is None:
            ck.check(dump, "pmucaps decodes it", "exit 0", why, "")
            continue
        try:
            record = json.loads(out)
        except ValueError as e:
            ck.check(dump, "pmucaps output is JSON", "JSON", f"not JSON ({e})", "")
            continue
        tool_out, why = run_tool([args.cpuid, "-f", path])
        raw_out, why_raw = run_tool([args.cpuid, "-r", "-f", path])
        if tool_out is None or raw_out is None:
            # The reference failed, not pmucaps: nothing to compare with.
            print(f"# {dump}: not comparable: {why or why_raw}")
            not_comparable += 1
            continue
        tool, raw = Tool(tool_out), raw_regs(raw_out)
        for field, (want, source) in expected_record(tool, raw).items():
            ck.check(dump, field, want, lookup(record, field), source)
    if not_comparable:
        print(f"# {not_comparable} dumps not comparable (the cpuid tool failed on them)")
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())

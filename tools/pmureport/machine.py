# SPDX-License-Identifier: MIT
"""What a run says about its machine, from the diagnostics the kernel
prints (kernel/main.c, kernel/caps.c). Shared by the JUnit, JSON, HTML and
KCIDB reports."""

import re
from typing import Optional

from .ktap import Run

SIGNATURE_RE = re.compile(r"^caps: vendor (.{0,64}?) \((.{0,32})\), DisplayFamily (\w{1,8}) "
                          r"DisplayModel (\w{1,8}) stepping (\w{1,8})(?: \(CPUID\.01H:EAX = (\w{1,12})\))?")
HV_VENDOR_RE = re.compile(r'^caps: hypervisor vendor "(.{0,64})"')
HV_BIT_RE = re.compile(r"^caps: CPUID\.01H: hypervisor (yes|no)")
PMU_CONFIGS_RE = re.compile(r"^cpus: (.{1,200}?)(?:; (\d{1,4}) distinct PMU configurations?)?$")
PMU_CONFIG_RE = re.compile(r"^PMU configuration (\d{1,4}) of \d{1,4}: cpus (.{1,200})$")


def machine(run: Run) -> dict[str, Optional[str]]:
    """The machine a run describes: a dict of strings (None: not in the log).
    From the header: platform ("pmutest V on ARCH: PLATFORM"), firmware,
    microcode (where a kernel prints it), the first CPU's signature and
    hypervisor, CPUs and PMU configurations, host lines of a KVM run."""
    m: dict[str, Optional[str]] = {
        "pmutest": None, "platform": None, "vendor": None, "vendor_name": None,
        "family": None, "model": None, "stepping": None, "signature": None,
        "microcode": None, "hypervisor": None, "firmware": None, "cpus": None,
        "pmu_configurations": None, "host": None}
    hosts: list[str] = []
    for d in run.diagnostics:
        if d.startswith("pmutest ") and m["platform"] is None:
            head, _, platform = d.partition(": ")
            m["pmutest"], m["platform"] = head, platform or None
        elif d.startswith("firmware: ") and m["firmware"] is None:
            m["firmware"] = d[len("firmware: "):]
        elif d.startswith("microcode: ") and m["microcode"] is None:
            m["microcode"] = d[len("microcode: "):]
        elif d.startswith("host: "):
            hosts.append(d[len("host: "):])
        elif d.startswith("cpus: ") and m["cpus"] is None:
            mm = PMU_CONFIGS_RE.match(d)
            if mm:
                m["cpus"] = mm.group(1)
                m["pmu_configurations"] = mm.group(2)
        mm = SIGNATURE_RE.match(d)
        if mm and m["vendor"] is None:
            (m["vendor"], m["vendor_name"], m["family"], m["model"], m["stepping"],
             m["signature"]) = mm.groups()
        mm = HV_VENDOR_RE.match(d)
        if mm and m["hypervisor"] in (None, "yes"):
            m["hypervisor"] = mm.group(1) or "yes (no vendor string)"
        mm = HV_BIT_RE.match(d)
        if mm and m["hypervisor"] is None:
            m["hypervisor"] = "none (bare metal)" if mm.group(1) == "no" else "yes"
    m["host"] = "; ".join(hosts) or None
    return m


def machine_label(run: Run, fallback: str = "") -> str:
    """A short name of the machine: "AMD 0FH/6BH/1 on QEMU TCG, ..." ."""
    m = machine(run)
    sig = "/".join(x for x in (m["family"], m["model"], m["stepping"]) if x)
    parts = [x for x in (m["vendor_name"] or m["vendor"], sig) if x]
    label = " ".join(parts)
    # The platform line goes on with timer and watchdog details: its first
    # clause names it ("QEMU TCG", "profile x").
    platform = (m["platform"] or "").split(";")[0].split(", quirks")[0].strip()
    if platform:
        label = f"{label} on {platform}" if label else platform
    return label or fallback


def capability_records(run: Run) -> list[tuple[str, list[str]]]:
    """[(title, [caps lines])]: one record per PMU configuration."""
    records: list[tuple[str, list[str]]] = []
    title = "PMU configuration 1"
    lines: list[str] = []
    for d in run.diagnostics:
        mm = PMU_CONFIG_RE.match(d)
        if mm:
            if lines:
                records.append((title, lines))
            title, lines = f"PMU configuration {mm.group(1)} (cpus {mm.group(2)})", []
        elif d.startswith("caps: "):
            lines.append(d[len("caps: "):])
    if lines:
        records.append((title, lines))
    return records

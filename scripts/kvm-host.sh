#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Facts about the KVM host a `make run KVM=1` runs on, for scripts/run.sh.
#
#   scripts/kvm-host.sh vendor   intel, amd or unknown (from /proc/cpuinfo):
#                                picks tests/expectations/qemu-kvm-<vendor>.txt
#   scripts/kvm-host.sh check    warnings (stderr) about host settings that
#                                change what the guest's PMU can do
#   scripts/kvm-host.sh facts    "# host: ..." lines for the report: kernel,
#                                QEMU version, KVM's enable_pmu, NMI watchdog
#
# Exit status: 0, or 2 on a bad argument. Missing files are facts ("unknown"),
# not errors: the run itself decides.
set -uo pipefail

vendor() {
	local v
	v=$(awk -F': *' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	case $v in
	GenuineIntel) echo intel ;;
	AuthenticAMD | HygonGenuine) echo amd ;;
	*) echo unknown ;;
	esac
}

# The perf NMI watchdog (hard-lockup detector) keeps a cycles event pinned on
# every host CPU: one counter fewer for KVM's guest events, and multiplexing
# when the guest programs them all. kvm-unit-tests' pmu tests require
# /proc/sys/kernel/nmi_watchdog=0 for the same reason.
watchdog() {
	cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo unknown
}

enable_pmu() {
	cat /sys/module/kvm/parameters/enable_pmu 2>/dev/null || echo unknown
}

check() {
	if [[ $(watchdog) == 1 ]]; then
		echo "kvm-host: WARNING: the host NMI watchdog holds a PMU counter on every CPU" \
			"(/proc/sys/kernel/nmi_watchdog = 1): guest counters may be multiplexed or" \
			"short of one; run 'sudo sysctl kernel.nmi_watchdog=0' for a clean run" >&2
	fi
	if [[ $(enable_pmu) == N ]]; then
		echo "kvm-host: WARNING: KVM's vPMU is off (kvm.enable_pmu=N): the guest has no PMU" \
			"whatever -cpu says" >&2
	fi
}

facts() {
	local qemu
	qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)
	echo "# host: kernel $(uname -sr), ${qemu:-QEMU version unknown}"
	echo "# host: CPU vendor $(vendor), kvm.enable_pmu=$(enable_pmu), nmi_watchdog=$(watchdog)"
}

case ${1:-} in
vendor) vendor ;;
check) check ;;
facts) facts ;;
*) echo "usage: $0 vendor|check|facts" >&2; exit 2 ;;
esac

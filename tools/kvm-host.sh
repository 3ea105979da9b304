#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Facts about the KVM host a `make run KVM=1` runs on, for tools/run.sh.
#
#   tools/kvm-host.sh vendor   intel, amd or unknown (from /proc/cpuinfo):
#                                picks data/expectations/qemu-kvm-<vendor>.txt
#   tools/kvm-host.sh check    warnings (stderr) about host settings that
#                                change what the guest's PMU can do
#   tools/kvm-host.sh facts    "# host: ..." lines for the report: kernel,
#                                QEMU version, KVM's enable_pmu, NMI watchdog
#   tools/kvm-host.sh vpmu     the vPMU a guest of this host gets: off
#                                (kvm.enable_pmu=N), mediated (kvm_intel /
#                                kvm_amd enable_mediated_pmu=Y, Linux 7.0+),
#                                emulated, or unknown (parameters unreadable)
#   tools/kvm-host.sh options IMAGE [CPU-OPTS]
#                                the options a KVM guest is told: "vpmu = MODE"
#                                (off with QEMU pmu=off; not told when unknown)
#                                and "host_kernel = <uname -r>" when IMAGE's
#                                kernel knows that option (an unknown option
#                                is an error there: the known-deviation rows need it)
#   tools/kvm-host.sh probe [OPTS] [--ovmf]
#                                can /dev/kvm run a guest at all, and with
#                                which -cpu host options (OPTS, default
#                                pmu=on, plus what this host needs); with
#                                --ovmf also whether OVMF starts under it.
#                                Prints "kvm: yes|no (why)", "cpu: OPTS",
#                                "ovmf: yes|no (why)"; boots the do-nothing
#                                build/bench/hello-pvh.elf and hello.efi
#   tools/kvm-host.sh amd-guest  the -cpu host options of an AMD guest on
#                                any host (--kvm-cpu, make run KVMCPU=):
#                                vendor AuthenticAMD, family 19H model 11H
#                                stepping 1 (Zen 4, data/cpuid/amd_zen4_genoa_a10f11)
#
# Exit status: 0, or 2 on a bad argument. Missing files are facts ("unknown"),
# not errors: the run itself decides (probe: "kvm: no" is a fact too).
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

# KVM's mediated vPMU (Linux 7.0+): a parameter of the vendor module.
mediated_pmu() {
	cat /sys/module/kvm_intel/parameters/enable_mediated_pmu \
		/sys/module/kvm_amd/parameters/enable_mediated_pmu 2>/dev/null | head -n 1
}

vpmu() {
	case $(enable_pmu),$(mediated_pmu) in
	N,*) echo off ;;
	Y,Y) echo mediated ;;
	Y,N | Y,) echo emulated ;; # no parameter: a kernel before 7.0, emulated only
	*) echo unknown ;;
	esac
}

options() { # options IMAGE [CPU-OPTS]
	local image=$1 mode
	mode=$(vpmu)
	[[ ,${2:-}, == *,pmu=off,* ]] && mode=off
	[[ $mode == unknown ]] || echo "vpmu = $mode"
	if grep -qa 'host_kernel' "$image" 2>/dev/null; then
		echo "host_kernel = $(uname -r)"
	fi
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
	echo "# host: vPMU $(vpmu) (enable_mediated_pmu=$(mediated_pmu | grep . || echo absent)," \
		"kvm.enable_vmware_backdoor=$(cat /sys/module/kvm/parameters/enable_vmware_backdoor 2>/dev/null || echo unknown))"
}

# One boot of a do-nothing guest under KVM; its one-line outcome on stdout,
# QEMU's complaint in $err. Exit 0 when it reached its verdict.
try_boot() { # try_boot CPU-OPTS run-qemu.sh-ARGS...
	local opts=$1 log
	shift
	log=$(mktemp)
	tools/run-qemu.sh --kvm --kvm-cpu "$opts" --log "$log" --timeout 60 "$@" >/dev/null 2>"$log.err"
	local rc=$?
	err=$(cat "$log.err" "$log.raw" 2>/dev/null | grep -m1 -E 'qemu-system|KVM internal error|NO VERDICT|TIMEOUT')
	rm -f "$log" "$log.raw" "$log.err"
	return $rc
}

probe() {
	local opts=${1:-pmu=on} ovmf=${2:-} hello=build/bench/hello-pvh.elf
	if [[ ! -c /dev/kvm || ! -w /dev/kvm ]]; then
		echo "kvm: no (/dev/kvm is missing or not writable)"
		return 0
	fi
	[[ -f $hello ]] || { echo "kvm: no ($hello not built: run 'make')"; return 0; }
	if ! try_boot "$opts" --kernel "$hello" --machine microvm; then
		# QEMU sets IA32_ARCH_CAPABILITIES (10AH) for -cpu host; some hosts'
		# KVM refuses it ("failed to set MSR 0x10a"): drop the feature.
		if [[ $err == *"MSR 0x10a"* ]] && try_boot "$opts,-arch-capabilities" --kernel "$hello" --machine microvm; then
			opts=$opts,-arch-capabilities
		else
			echo "kvm: no (${err:-a do-nothing guest did not start})"
			return 0
		fi
	fi
	echo "kvm: yes"
	echo "cpu: $opts"
	[[ $ovmf == --ovmf ]] || return 0
	if try_boot "$opts" --efi build/bench/hello.efi; then
		echo "ovmf: yes"
	else
		echo "ovmf: no (${err:-OVMF did not reach the application})"
	fi
}

case ${1:-} in
vendor) vendor ;;
check) check ;;
facts) facts ;;
vpmu) vpmu ;;
# KVM answers the legacy AMD counter MSRs C001_0000H-7H from its common MSR
# code, whichever vendor module runs it: 0 on a read, a write dropped, when
# kvm_pmu_is_valid_msr() is false (kvm_get_msr_common() and
# kvm_set_msr_common(), Linux arch/x86/kvm/x86.c; msrs.c where the MSR code
# later moved). So an AMD guest of a KVM without a vPMU sees what it sees on
# an AMD host with kvm.enable_pmu=N, on an Intel host too.
amd-guest) echo vendor=AuthenticAMD,family=25,model=17,stepping=1 ;;
options)
	[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $0 options IMAGE [CPU-OPTS]" >&2; exit 2; }
	options "$2" "${3:-}" ;;
probe)
	shift
	[[ $# -le 2 && ${1:-} != -* || ${1:-} == --ovmf && $# -eq 1 ]] || { echo "usage: $0 probe [CPU-OPTS] [--ovmf]" >&2; exit 2; }
	[[ ${1:-} == --ovmf ]] && set -- pmu=on --ovmf
	probe "$@" ;;
*) echo "usage: $0 vendor|check|facts|vpmu|amd-guest|options IMAGE [CPU-OPTS]|probe [CPU-OPTS] [--ovmf]" >&2; exit 2 ;;
esac

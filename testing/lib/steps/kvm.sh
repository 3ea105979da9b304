# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies of the boots under this machine's KVM: QEMU with KVM, and
# tools/minivmm's reproductions of the cloud VMMs. Sourced by
# testing/run-tests.sh; LOGS is its log directory.

# kvm_host_ready: can this machine's KVM run a guest, and which shipped
# expectations fit it (vendor; -pmu-off when kvm.enable_pmu=N, -mediated with
# enable_mediated_pmu=Y)? Sets
# kvm_cpu_opts and kvm_expect; otherwise says "skipped" and why, with the
# counts 0 passed, 0 failed (a skip is neither), and returns 1.
kvm_host_ready() {
	local probe
	probe=$(tools/kvm-host.sh probe)
	kvm_cpu_opts=$(sed -n 's/^cpu: //p' <<<"$probe")
	kvm_expect=data/expectations/qemu-kvm-$(tools/kvm-host.sh vendor).txt
	case $(tools/kvm-host.sh vpmu) in # the vPMU it has
	off) kvm_expect=${kvm_expect%.txt}-pmu-off.txt ;;
	mediated) kvm_expect=${kvm_expect%.txt}-mediated.txt ;;
	esac
	if [[ $probe != *"kvm: yes"* ]]; then
		echo "skipped: ${probe#kvm: }"
	elif [[ ! -r $kvm_expect ]]; then
		echo "skipped: no shipped expectations for this host ($kvm_expect)"
	else
		echo "KVM host: $(tools/kvm-host.sh facts | tr '\n' ' ')"
		return 0
	fi
	echo "0 passed, 0 failed"
	return 1
}

# kvm_direct: the direct-boot kernel under this machine's KVM, 2 vCPUs,
# every suite on both, against the host's shipped expectations. The pc
# machine's firmware is QEMU's qboot, not SeaBIOS: on this host SeaBIOS
# takes 7.7 s of every KVM boot (build/bench/hello-pvh.elf: pc 7.94 s, pc
# with qboot 0.36 s, microvm 0.26 s) and hands over the same
# machine (same report, test by test); the TCG steps direct-pc, direct-q35
# and direct-smp4 boot through SeaBIOS.
kvm_direct() {
	local out
	kvm_host_ready || return 0
	# The guest is told its vPMU as tools/run.sh tells it.
	{ cat testing/fixtures/configs/kvm-host.cfg; tools/kvm-host.sh options build/pmutest.elf; } >"$LOGS/kvm-host.cfg"
	out=$(smp_run kvm-direct "$kvm_expect" 2 2 "" tools/run-qemu.sh --kvm --kvm-cpu "$kvm_cpu_opts" \
		--kernel --machine pc --qemu-arg=-bios --qemu-arg=qboot.rom --smp 2 --config "$LOGS/kvm-host.cfg" \
		--log "$LOGS/kvm-direct.ktap" --timeout "${KVM_TIMEOUT:-900}" 2>&1)
	echo "$out"
	# KVM's local APIC always offers x2APIC: this run is the second x2APIC
	# witness, on a real hypervisor.
	sum_counts <<<"$(tail -n 1 <<<"$out"
		boot_facts "$LOGS/kvm-direct.ktap" "the guest runs its local APIC in x2APIC mode" \
			'^# local APIC: x2APIC mode' \
			"the report names the vPMU mode the host told it (or that it was not told)" \
			"^# vpmu: $(tools/kvm-host.sh vpmu | sed 's/^unknown$/not told/;s/^[a-z]*$/& \\(told by the host/')" \
			"the TSC rate from KVM's kvmclock, no measured window" \
			'^# pmutest .* TSC [0-9]+ MHz by the paravirtual clock \(kvmclock\)' \
			"where the time went: the # time: line" '^# time: boot [0-9]+ ms, to the first test')"
}

# kvm_amd_guest: real-KVM evidence for qemu-kvm-amd-pmu-off.txt on any x86
# host whose KVM has no vPMU: the direct-boot kernel as an AMD guest
# (tools/kvm-host.sh amd-guest: vendor AuthenticAMD, a Zen 4 family/model),
# microvm, 2 vCPUs, every suite on both. KVM answers the legacy counter MSRs
# from its common MSR code whichever vendor module runs it (kvm-host.sh says
# where), so the amd suite meets what an AMD host with kvm.enable_pmu=N
# gives. One row cannot hold off an AMD host: only kvm_amd enumerates SVM
# (svm_set_cpu_caps(), Linux arch/x86/kvm/svm/svm.c, with nested=1), so on
# any other host amd.hg_only_with_efer_svme skips on CPUID.80000001H:ECX.SVM
# = 0 instead of failing on the finding: the comparison drops that row there
# and checks the skip and its reason instead.
kvm_amd_guest() {
	local name=kvm-amd-guest expect=data/expectations/qemu-kvm-amd-pmu-off.txt probe cpu
	local cut=$LOGS/kvm-amd-guest.expect svm_fact=() out
	if [[ $(tools/kvm-host.sh vpmu) != off ]]; then
		echo "skipped: this host's KVM has a vPMU ($(tools/kvm-host.sh vpmu)): an AMD guest there is not the no-vPMU case"
		echo "0 passed, 0 failed"
		return 0
	fi
	probe=$(tools/kvm-host.sh probe "$(tools/kvm-host.sh amd-guest)")
	if [[ $probe != *"kvm: yes"* ]]; then
		echo "skipped: ${probe#kvm: }"
		echo "0 passed, 0 failed"
		return 0
	fi
	cpu=$(sed -n 's/^cpu: //p' <<<"$probe")
	if [[ $(tools/kvm-host.sh vendor) == amd ]]; then
		cp "$expect" "$cut"
	else
		# The row and its indented evidence lines.
		awk '/^amd\.hg_only_with_efer_svme / { drop = 1; next } drop && /^ / { next } { drop = 0; print }' \
			"$expect" >"$cut"
		svm_fact=("amd.hg_only_with_efer_svme skips on SVM = 0 (not an AMD host: kvm_amd alone enumerates SVM)"
			'^    ok [0-9]+ hg_only_with_efer_svme # SKIP CPUID\.80000001H:ECX\.SVM\[2\] = 0: ')
	fi
	{ cat testing/fixtures/configs/kvm-host.cfg; tools/kvm-host.sh options build/pmutest.elf "$cpu"; } >"$LOGS/$name.cfg"
	out=$(smp_run "$name" "$cut" 2 2 "" tools/run-qemu.sh --kvm --kvm-cpu "$cpu" --kernel --machine microvm \
		--smp 2 --config "$LOGS/$name.cfg" --log "$LOGS/$name.ktap" --timeout "${KVM_TIMEOUT:-900}" 2>&1)
	echo "$out"
	sum_counts <<<"$(tail -n 1 <<<"$out"
		boot_facts "$LOGS/$name.ktap" "the guest is the AMD part it was given" \
			'^# caps: vendor AuthenticAMD \(AMD\), DisplayFamily 19H DisplayModel 11H' \
			"the report names the vPMU as off (told by the host)" '^# vpmu: off \(told by the host' \
			${svm_fact[@]+"${svm_fact[@]}"})"
}

# direct_linux64: the ELF's other entry, the Linux 64-bit boot protocol
# (crosvm, Firecracker without PVH), booted by tools/minivmm.c on KVM: no
# firmware, no ACPI (the kernel must say so and run on the boot CPU), the
# options from the command line; the whole suite against the host's file.
direct_linux64() {
	local log=$LOGS/direct-linux64.ktap out vp
	kvm_host_ready || return 0
	vp=$(tools/kvm-host.sh vpmu)
	[[ $vp == unknown ]] && vp=
	timeout -k 5 "${KVM_TIMEOUT:-900}" build/host/minivmm build/pmutest.elf \
		"console=ttyS0 pmutest.timeout_ms=60000${vp:+ pmutest.vpmu=$vp}" | tr -d '\r' | awk '/KTAP version 1/ { on = 1 } on' >"$log"
	echo "minivmm exit status ${PIPESTATUS[0]} (the comparison below decides)"
	out=$( (compare_run "$log" "$kvm_expect"
		boot_facts "$log" \
			"entered by the Linux 64-bit boot protocol" \
			'^# firmware: none \(direct kernel boot: Linux 64-bit boot protocol\)' \
			"no ACPI: reported, the boot CPU alone" \
			'^# boot: no ACPI RSDP .*no MADT: the boot CPU alone' \
			"one CPU online" '^# cpus: 1 of 1 online' \
			"no BIOS ran before it: the reset values are the CPU's" \
			'^# before pmutest: nothing ran that could write the PMU.s MSRs \(direct boot with no BIOS') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# ---- The cloud VMMs, reproduced by tools/minivmm on this KVM ----
# vmm_mode MODE: build/pmutest.elf in minivmm's reproduction of that VMM
# (firecracker, cloud-hypervisor, crosvm: entry, boot data, ACPI, ports, how
# it ends; see tools/minivmm.c), 2 vCPUs. Only the suites privilege, rdt and
# cpuid run, against the host's expectations cut to them: the other line
# of that file, the amd suite, waits out a PMI timeout per test under a KVM
# without a vPMU (80 s on 2 CPUs; the whole suite 4 min a mode), and step
# kvm-direct already compares the whole suite on the same KVM; what differs
# here is the platform, not the PMU. Checked: the comparison, the way that
# VMM ends the run, the TSC and APIC timer rates within 2% of what the
# guest really runs at (minivmm prints KVM_GET_TSC_KHZ and KVM's 1 GHz APIC
# bus), both CPUs online, the entry taken, CR0 set to the kernel's own value
# (crosvm hands over CD set, the PVH paths WP and NE clear), and bad boot
# data ending the VM with verdict ERROR and its cause.
VMM_SUITES=privilege,rdt,cpuid
declare -A vmm_ends=([firecracker]='i8042 reset \(Firecracker exits\)'
	[cloud-hypervisor]='S5 through the sleep control register'
	[crosvm]='S5 through PM1a_CNT')
declare -A vmm_entry=([firecracker]='PVH start_info v1' [cloud-hypervisor]='PVH start_info v1'
	[crosvm]='Linux 64-bit boot protocol')

# vmm_rates LOG ERR: the report's APIC timer and TSC rates (MHz) within 2%
# of minivmm's (kHz).
vmm_rates() {
	local line want_tsc want_apic got_apic got_tsc
	line=$(grep -m1 '^# pmutest .*APIC timer [0-9]* MHz, TSC [0-9]* MHz' "$1") || return 1
	got_apic=$(sed -E 's/.*APIC timer ([0-9]+) MHz.*/\1/' <<<"$line")
	got_tsc=$(sed -E 's/.*TSC ([0-9]+) MHz.*/\1/' <<<"$line")
	want_tsc=$(sed -nE 's/.*rates: TSC ([0-9]+) kHz.*/\1/p' "$2")
	want_apic=$(sed -nE 's/.*APIC timer ([0-9]+) kHz.*/\1/p' "$2")
	echo "rates: APIC timer $got_apic MHz (runs at $want_apic kHz), TSC $got_tsc MHz (runs at $want_tsc kHz)"
	awk -v a="$got_apic" -v ta="$want_apic" -v t="$got_tsc" -v tt="$want_tsc" \
		'BEGIN { d1 = a * 1000 - ta; d2 = t * 1000 - tt; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2;
		         exit !(ta > 0 && tt > 0 && d1 * 50 <= ta && d2 * 50 <= tt) }'
}

# vmm_bad MODE KIND CAUSE [PREFIX]: minivmm --bad KIND: verdict ERROR, the
# cause on the "# error:" line (after PREFIX, "bad boot data: " unless
# given), and the VM ended that VMM's way (status 0).
vmm_bad() {
	local mode=$1 kind=$2 cause=$3 prefix=${4-bad boot data: } log=$LOGS/vmm-bad-$1-$2.ktap rc p=0 f=0
	timeout -k 5 120 build/host/minivmm --vmm "$mode" --bad "$kind" --timeout 60 build/pmutest.elf \
		"console=ttyS0" 2>"$log.err" | tr -d '\r' | awk '/KTAP version 1/ { on = 1 } on' >"$log"
	rc=${PIPESTATUS[0]}
	for fact in "verdict ERROR:^# verdict: ERROR" "the cause named:^# error: $prefix.*$cause"; do
		if grep -qE "${fact#*:}" "$log"; then p=$((p + 1)); else f=$((f + 1)); echo "not ok - $mode --bad $kind: ${fact%%:*}"; fi
	done
	if [[ $rc == 0 ]] && grep -qE "ended: " "$log.err"; then p=$((p + 1)); else
		f=$((f + 1)); echo "not ok - $mode --bad $kind: the VM ended its way (minivmm status $rc: $(grep ended "$log.err"))"
	fi
	echo "bad: $p passed, $f failed"
}

# vmm_mptable: Firecracker before 1.8 (no ACPI, its MP table only): both
# vCPUs from the MP table (one suite: the CPUs are what is checked).
vmm_mptable() {
	local log=$LOGS/vmm-firecracker-mptable.ktap
	timeout -k 5 300 build/host/minivmm --vmm firecracker --acpi off --timeout 240 build/pmutest.elf \
		"console=ttyS0 pmutest.suites=cpuid" 2>"$log.err" | tr -d '\r' |
		awk '/KTAP version 1/ { on = 1 } on' >"$log"
	boot_facts "$log" "no ACPI: the CPUs from the MP table" '^# boot: no ACPI RSDP.*no MADT: the CPUs of the MP table' \
		"both vCPUs online from it" '^# cpus: 2 of 2 online' "the run reached its verdict" '^# verdict: '
}

vmm_mode() {
	local mode=$1 log=$LOGS/vmm-$1.ktap err=$LOGS/vmm-$1.err expect=$LOGS/vmm-$1.expect rc out
	kvm_host_ready || return 0
	grep -E "^(#|\$|(${VMM_SUITES//,/|})\.)" "$kvm_expect" >"$expect"
	timeout -k 5 600 build/host/minivmm --vmm "$mode" --timeout 300 build/pmutest.elf \
		"console=ttyS0 pmutest.timeout_ms=60000 pmutest.suites=$VMM_SUITES" 2>"$err" |
		tr -d '\r' | awk '/KTAP version 1/ { on = 1 } on' >"$log"
	rc=${PIPESTATUS[0]}
	cat "$err"
	out=$( (compare_run "$log" "$expect"
		vmm_rates "$log" "$err" && echo "rates: 1 passed, 0 failed" ||
			echo "not ok - the APIC timer and TSC rates within 2%"$'\n'"rates: 0 passed, 1 failed"
		if [[ $rc == 0 ]] && grep -qE "ended: ${vmm_ends[$mode]}" "$err"; then
			echo "ends: 1 passed, 0 failed"
		else
			echo "not ok - the run ended the way $mode ends it (status $rc)"$'\n'"ends: 0 passed, 1 failed"
		fi
		boot_facts "$log" "both vCPUs online" '^# cpus: 2 of 2 online' \
			"entered as $mode enters" "^# firmware: none \\(direct kernel boot: ${vmm_entry[$mode]}\\)" \
			"CR0 defined whatever the VMM left" '^# boot: .*CR0 at entry 0x[0-9a-f]+, now 0x80010033;'
		case $mode in
		firecracker) vmm_bad "$mode" magic 'does not point at a PVH start_info'
			vmm_mptable ;;
		cloud-hypervisor) vmm_bad "$mode" cmdline-long 'command line .* is longer than 4095 bytes' ;;
		crosvm) vmm_bad "$mode" e820-count 'says 200 E820 entries' ;;
		esac) 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# vmm_bad_boot_data: every kind of bad boot data minivmm injects, in the
# mode whose layout has it; each ends with verdict ERROR and its cause. And
# a CPU whose local APIC is off (CPUID.01H:EDX[9] then reads 0): reported
# as having none, verdict ERROR, not "xAPIC mode" and a suite without its
# watchdog.
vmm_bad_boot_data() {
	local out
	kvm_host_ready || return 0
	out=$( (vmm_bad firecracker memmap-far 'memory map \(3 entries at 0x200000000\)'
		vmm_bad firecracker no-ram 'no memory map with RAM'
		vmm_bad cloud-hypervisor modlist-far 'module list \(1 entries at 0x300000000\)'
		vmm_bad cloud-hypervisor rsdp 'ACPI: an ACPI RSDP with a wrong signature or checksum \(RSDP given'
		vmm_bad cloud-hypervisor module-far 'module 0 \(64 bytes at 0x3f000000\) is not in the RAM'
		vmm_bad crosvm magic 'RSI \(0x100000000\) does not point'
		vmm_bad crosvm xsdt 'ACPI: an ACPI RSDT/XSDT with a wrong'
		vmm_bad crosvm module-far 'module 0 \(64 bytes at 0x3f000000\) is not in the RAM'
		vmm_bad crosvm cmdline-long 'is longer than 4095 bytes'
		vmm_bad crosvm no-apic 'no local APIC: no timer watchdog, no PMI, no other CPU' '') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies of the QEMU boots (tools/run-qemu.sh, TCG unless said). Sourced
# by testing/run-tests.sh; LOGS is its log directory.

qemu_run() { # qemu_run NAME CONFIG EXPECTATIONS [run-qemu.sh args...]
	local name=$1 cfg=() expect=$3
	[[ -n $2 ]] && cfg=(--config "$2")
	shift 3
	tools/run-qemu.sh "${cfg[@]}" "$@" --log "$LOGS/$name.ktap" --timeout "${QEMU_TIMEOUT:-300}"
	local rc=$?
	echo "run-qemu.sh exit status $rc"
	if [[ $rc -gt 1 ]]; then # no verdict: the run itself failed (its log was removed first)
		echo "error: the QEMU run did not complete (status $rc); nothing to compare"
		return 1
	fi
	compare_run "$LOGS/$name.ktap" "$expect"
}

# direct_append: options from the kernel command line (no module 0): the
# key=value words pmutest knows are taken, the VMM's own are named as ignored.
direct_append() {
	local log=$LOGS/direct-append.ktap
	tools/run-qemu.sh --kernel --machine microvm --append "console=ttyS0 suites=cpuid,rdpmc reboot=k" \
		--log "$log" --timeout "${QEMU_TIMEOUT:-300}"
	echo "run-qemu.sh exit status $? (the facts below decide)"
	boot_facts "$log" \
		"exactly the two suites the command line named ran" '^ok 2 rdpmc( |$)' \
		"no third suite" '^1\.\.2$' \
		"the VMM's words are reported as ignored" \
		'^# boot: .*command line words not for pmutest: console=ttyS0 reboot=k' \
		"the report names what direct boot lacks" \
		'^# boot: .*absent on direct boot: the report store' \
		"QEMU's -kernel runs a BIOS first (qboot): firmware state, not reset values" \
		'^# before pmutest: a firmware may have written the PMU.s MSRs \(direct boot through a BIOS' \
		"the run reached its verdict" '^# verdict: '
}

# The runs of several CPUs (smp_run: compared, then each CPU's lines).
qemu_smp4() {
	smp_run qemu-tcg-smp4 data/expectations/qemu-tcg.txt 4 4 "" \
		tools/run-qemu.sh --smp 4 --log "$LOGS/qemu-tcg-smp4.ktap" --screen "$LOGS/qemu-tcg-smp4.screen" \
		--timeout "${QEMU_TIMEOUT:-300}"
}
qemu_smp4_silent() {
	smp_run qemu-smp4-silent data/expectations/selftest-smp.txt 3 4 3 \
		tools/run-qemu.sh --smp 4 --config testing/fixtures/configs/smp-silent-selftest.cfg \
		--log "$LOGS/qemu-smp4-silent.ktap" --timeout "${QEMU_TIMEOUT:-300}"
}
direct_smp4() {
	smp_run direct-smp4 data/expectations/qemu-tcg.txt 4 4 "" \
		tools/run-qemu.sh --kernel --machine q35 --smp 4 --log "$LOGS/direct-smp4.ktap" --timeout "${QEMU_TIMEOUT:-300}"
}
# -smp 8 on 2 host cores: every CPU up and running the suite.
qemu_smp8() {
	smp_run qemu-tcg-smp8 data/expectations/qemu-tcg.txt 8 8 "" \
		taskset -c 0,1 tools/run-qemu.sh --smp 8 --log "$LOGS/qemu-tcg-smp8.ktap" --timeout "${QEMU_TIMEOUT:-300}"
}

# ---- The machines it will meet (docs/platform.md) ----

# qemu_x2apic_get: a QEMU with x2APIC under TCG (>= 8.1; tools/qemu-x2apic.sh),
# its path kept in LOGS/qemu-x2apic.path for the x2APIC steps.
qemu_x2apic_get() {
	local qemu
	qemu=$(tools/qemu-x2apic.sh 2>"$LOGS/qemu-x2apic-get.err") || qemu=
	echo "$qemu" >"$LOGS/qemu-x2apic.path"
	test -n "$qemu"
}
# x2apic_qemu: that QEMU, or "none" (run-qemu.sh then fails the step).
x2apic_qemu() {
	local qemu=
	[[ -r $LOGS/qemu-x2apic.path ]] && read -r qemu <"$LOGS/qemu-x2apic.path"
	echo "${qemu:-none}"
}
X2MODE='^# local APIC: x2APIC mode'
qemu_x2apic() {
	also_check "$LOGS/qemu-x2apic.ktap" "$X2MODE" "x2APIC mode" \
		qemu_run qemu-x2apic "" data/expectations/qemu-tcg.txt --qemu "$(x2apic_qemu)"
}
qemu_x2apic_selftest() {
	also_check "$LOGS/qemu-x2apic-selftest.ktap" "$X2MODE" "x2APIC mode" \
		qemu_run qemu-x2apic-selftest testing/fixtures/configs/selftest.cfg data/expectations/selftest.txt \
		--qemu "$(x2apic_qemu)"
}
qemu_x2apic_smp4() {
	also_check "$LOGS/qemu-x2apic-smp4.ktap" "$X2MODE" "x2APIC mode" \
		smp_run qemu-x2apic-smp4 data/expectations/qemu-tcg.txt 4 4 "" \
		tools/run-qemu.sh --smp 4 --qemu "$(x2apic_qemu)" --timeout "${QEMU_TIMEOUT:-300}" \
		--log "$LOGS/qemu-x2apic-smp4.ktap"
}
qemu_x2apic_smp4_silent() {
	also_check "$LOGS/qemu-x2apic-smp4-silent.ktap" "$X2MODE" "x2APIC mode" \
		smp_run qemu-x2apic-smp4-silent data/expectations/selftest-smp.txt 3 4 3 \
		tools/run-qemu.sh --smp 4 --qemu "$(x2apic_qemu)" --timeout "${QEMU_TIMEOUT:-300}" \
		--config testing/fixtures/configs/smp-silent-selftest.cfg --log "$LOGS/qemu-x2apic-smp4-silent.ktap"
}
# A hand-over already in x2APIC mode: q35 whose second CPU has APIC ID 105H
# (OVMF enters x2APIC mode for it; the MADT lists it as a local x2APIC).
qemu_x2apic_id105() {
	also_check "$LOGS/qemu-x2apic-id105.ktap" '^# cpu 1: APIC ID 0x105: online' \
		"the CPU with APIC ID 105H online" smp_run qemu-x2apic-id105 data/expectations/qemu-tcg.txt 2 2 "" \
		tools/run-qemu.sh --qemu "$(x2apic_qemu)" --timeout "${QEMU_TIMEOUT:-300}" --machine q35 \
		--qemu-arg=-smp --qemu-arg=1,sockets=2,cores=256,maxcpus=512 \
		--qemu-arg=-device --qemu-arg=max-x86_64-cpu,socket-id=1,core-id=5,thread-id=0 \
		--log "$LOGS/qemu-x2apic-id105.ktap"
}

# No PIT (clock-gated, as on recent Intel clients): the PM timer's rates.
# rates_run NAME ARGS...: qemu_run of the suite, then the rates it reports
# are sane: the calibration source, an APIC timer and a TSC between 10 MHz
# and 10 GHz, and run.suite_time_ms within the run's own wall-clock time
# (a timer 1000x off, as with a PIT taken on trust, breaks one of them).
rates_run() {
	local name=$1 log=$LOGS/$1.ktap t0=$SECONDS out p=0 f=0
	shift
	out=$(qemu_run "$name" "" data/expectations/qemu-tcg.txt "$@" 2>&1)
	echo "$out"
	local wall_ms=$(((SECONDS - t0 + 1) * 1000)) line apic tsc suite
	line=$(grep -m1 '^# pmutest ' "$log")
	[[ $line =~ APIC\ timer\ ([0-9]+)\ MHz,\ TSC\ ([0-9]+)\ MHz\ by\ ACPI\ PM\ timer ]] && apic=${BASH_REMATCH[1]} tsc=${BASH_REMATCH[2]}
	suite=$(sed -nE 's/^# measure: run.suite_time_ms = ([0-9]+) ms$/\1/p' "$log")
	echo "rates: APIC timer ${apic:-?} MHz, TSC ${tsc:-?} MHz, suite ${suite:-?} ms of ${wall_ms} ms"
	rate() { if "$@"; then p=$((p + 1)); else f=$((f + 1)); echo "not ok - rates: $*"; fi; }
	rate test "${apic:-0}" -ge 10 -a "${apic:-0}" -le 10000
	rate test "${tsc:-0}" -ge 10 -a "${tsc:-0}" -le 10000
	rate test "${suite:-0}" -gt 0 -a "${suite:-0}" -le "$wall_ms"
	[[ $(echo "$out" | tail -n 1) =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]] &&
		p=$((p + BASH_REMATCH[1])) f=$((f + BASH_REMATCH[2]))
	echo "$p passed, $f failed"
}

# A stray NMI (QEMU monitor `nmi`) while selftest.endless_loop runs: the same
# verdicts, and the NMI listed under that test and in the run's totals.
nmi_run() {
	testing/qemu-nmi.sh --after '^ *not ok 5 ' --log "$LOGS/qemu-nmi.ktap" --config testing/fixtures/configs/selftest.cfg \
		--timeout "${QEMU_TIMEOUT:-300}"
	echo "qemu-nmi.sh exit status $?"
	also_check "$LOGS/qemu-nmi.ktap" '^# platform events: 1 stray NMI,' "the run lists the NMI" \
		also_check "$LOGS/qemu-nmi.ktap" '^ +# platform events during the test: 1 stray NMI,' "endless_loop lists the NMI" \
		compare_run "$LOGS/qemu-nmi.ktap" data/expectations/selftest.txt
}

# Two machine checks (monitor `mce`, RIPV set) into selftest.endless_loop and
# its retry: each reported with its bank; the second would shut the machine
# down if the first had left MCG_STATUS.MCIP set.
mce_run() {
	testing/qemu-nmi.sh --after '# Subtest: selftest' --command 'mce 0 1 0xb200000000000000 5 0 0' \
		--after 'retried once' --command 'mce 0 2 0xb200000000000002 5 0 0' --log "$LOGS/qemu-mce.ktap" \
		--config testing/fixtures/configs/selftest-loop.cfg --timeout "${QEMU_TIMEOUT:-300}"
	echo "qemu-nmi.sh exit status $?"
	also_check "$LOGS/qemu-mce.ktap" '^# platform events: .* 2 machine check \(bank 2, MCi_STATUS 0xb200000000000002\)' \
		"both machine checks reported, with the bank" compare_run "$LOGS/qemu-mce.ktap" data/expectations/selftest-loop.txt
}

# No HPET: no NMI watchdog ("none" and why), the suite as ever.
qemu_hpet_off() {
	also_check "$LOGS/qemu-hpet-off.ktap" 'NMI watchdog: none \(' "no NMI watchdog, and why" \
		qemu_run qemu-hpet-off "" data/expectations/qemu-tcg.txt --machine q35,hpet=off
}
# An HPET with FSB delivery (QEMU hpet.msi=on): the NMI watchdog's MSI route,
# re-targeted to each CPU, ends the self-tests' hangs on 4 CPUs.
qemu_hpet_fsb() {
	also_check "$LOGS/qemu-hpet-fsb.ktap" 'NMI watchdog: HPET timer [0-9]+ one-shot, FSB message' \
		"the NMI watchdog takes the FSB route" smp_run qemu-hpet-fsb data/expectations/selftest-smp.txt 3 4 3 \
		tools/run-qemu.sh --smp 4 --qemu-arg=-global --qemu-arg=hpet.msi=on \
		--config testing/fixtures/configs/smp-silent-selftest.cfg \
		--log "$LOGS/qemu-hpet-fsb.ktap" --timeout "${QEMU_TIMEOUT:-300}"
}

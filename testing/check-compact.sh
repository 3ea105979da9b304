#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The compact form (compact = 1, kernel/compact.h; "say each thing
# once") against the full form (compact = 0) of the same machine, test by
# test (testing/check-compact.py): on the simulator a 4-CPU machine of one
# PMU configuration, the hybrid Alder Lake (a reference per configuration)
# and the 4-CPU machine with its application processors deviating (their
# test printed in full); a doctored log that writes a deviating CPU's
# failure as "same as cpu0" is refused; then QEMU TCG -smp 8 (UEFI, as the
# qemu-tcg-smp8 step) in both forms, the compact log also matching the
# platform's expectations file. Within a test, failure blocks whose fields
# repeat ("rule: ditto") and access traces printed before ("trace: A..B
# shown above"): runs that fail many checks (platform models, quirks, an
# inferred rule, trace = 2), every diagnostic compared, a doctored "ditto"
# without a predecessor refused; with QEMU also a one-CPU direct boot on
# microvm, failure blocks compared line by line. The host tools' own tests
# of the form are testing/unit/report/test_expand.py.
#
#   testing/check-compact.sh [--no-qemu | --smp8-log FILE]
#     --smp8-log FILE  the compact run is FILE, a log of that same command
#                      (make test: step qemu-tcg-smp8's), not booted again
# Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

PMUSIM=build/host/pmusim
OUT=build/test-logs/compact
qemu=1
smp8_log=
usage() {
	echo "check-compact: usage: testing/check-compact.sh [--no-qemu | --smp8-log FILE] (FILE readable)" >&2
	exit 2
}
case ${1:-} in
--no-qemu) qemu=0 ;;
--smp8-log) smp8_log=${2:-}; [[ -r $smp8_log ]] || usage ;;
"") ;;
*) usage ;;
esac
[[ -x $PMUSIM ]] || { echo "check-compact: $PMUSIM not built (make host)" >&2; exit 2; }
checks_outdir "$OUT"

# pair NAME CHECK-ARGS -- PMUSIM-ARGS: the run in both forms, compared.
pair() {
	local name=$1 args=()
	shift
	while [[ $1 != -- ]]; do args+=("$1"); shift; done
	shift
	"$PMUSIM" "$@" >"$OUT/$name.ktap" 2>&1
	"$PMUSIM" "$@" --set compact=0 >"$OUT/$name-full.ktap" 2>&1
	echo "# $name: pmusim $*"
	python3 testing/check-compact.py "$OUT/$name.ktap" "$OUT/$name-full.ktap" "${args[@]}" | sed "s/^\(not \)\{0,1\}ok - /&$name: /"
	check "$name: the compact form is the full form, test by test" "${PIPESTATUS[0]}"
}

python3 testing/unit/report/run.py test_expand 2>&1 | tail -n 1
check "testing/unit/report/test_expand.py: the host tools read the compact form as the full one" "${PIPESTATUS[0]}"

pair smp4 --diagnostics -- --profile smp-synth-v5-x4
pair hybrid --diagnostics -- --profile alderlake-hybrid
grep -q 'same as cpu2$' "$OUT/hybrid.ktap"
check "hybrid: the E-cores are compared with cpu 2, the first E-core" $?
pair aps-deviate --diagnostics --full-on 1:cpuid.global_ctrl_reset_value \
	--full-on 2:cpuid.global_ctrl_reset_value --full-on 3:cpuid.global_ctrl_reset_value \
	-- --profile smp-synth-v5-x4 --quirk global-ctrl-reset-wrong-on-aps --set known=0

# Within a test (the serial port's time goes to what the test said
# before): a failure block's field equal to the test's previous one is
# "ditto", access-trace entries printed before are "shown above". Runs that
# fail many checks, every diagnostic compared: the platform model of this
# machine's KVM (no vPMU), quirks that fail a check on every counter,
# inferred rules' blocks (a v6 fixed-counter quirk), explain's trace = 2 log.
pair amd-pmu-off --diagnostics -- --profile kvm-amd-zen4-pmu-off
pair amd-raz-wi --diagnostics -- --profile amd_zen4_genoa_a10f11 --quirk kvm-amd-no-vpmu-legacy-raz-wi --set known=0
pair ovf-clear --diagnostics -- --profile synth-v5-metrics --quirk ovf-clear-needs-global-enable --set known=0
pair pmi-to-cpu0 --diagnostics -- --profile smp-synth-v5-x4 --quirk smp-pmi-to-cpu0 --set known=0
pair rdpmc-gp-code --diagnostics -- --profile synth-v5-metrics --quirk rdpmc-gp-error-code --set known=0
pair inferred --diagnostics -- --profile synth-arch-pebs --quirk v6-fixed-cfg-a-exists --set known=0
pair trace-log --diagnostics -- --profile synth-v5-metrics --quirk rdpmc-type-as-flags --set suites=rdpmc --set trace=2
grep -q '^    #   rule:     ditto$' "$OUT/amd-pmu-off.ktap" && grep -q '^    # trace: [0-9]*\.\.[0-9]* shown above$' "$OUT/amd-pmu-off.ktap"
check "amd-pmu-off: the compact log writes repeated rules 'ditto' and repeated trace entries 'shown above'" $?
# A log whose "ditto" has nothing before it in its test: refused, one line.
awk '/^    # Subtest: amd$/ { a = 1 } a && /^    #   rule: / && !done { done = 1; next } { print }' \
	"$OUT/amd-pmu-off.ktap" >"$OUT/doctored-ditto.ktap"
tools/ktap-report.py expand "$OUT/doctored-ditto.ktap" >/dev/null 2>"$OUT/doctored-ditto.expand"
[[ $? -eq 2 ]] && [[ $(wc -l <"$OUT/doctored-ditto.expand") -eq 1 ]] &&
	grep -q "amd\.[a-z0-9_]*: 'rule: ditto' with no rule line before it" "$OUT/doctored-ditto.expand"
ck=$? # before the message's $(...), which sets $? itself
check "doctored: a 'rule: ditto' without a predecessor is refused by expand, one line ($(cut -c1-150 "$OUT/doctored-ditto.expand"))" "$ck"
tools/ktap-report.py compare "$OUT/doctored-ditto.ktap" data/expectations/qemu-kvm-amd-pmu-off.txt >/dev/null 2>&1
check "doctored: ... and by compare against the platform's expectations (exit 2, never a pass)" "$([[ $? -eq 2 ]]; echo $?)"
python3 testing/check-compact.py "$OUT/doctored-ditto.ktap" "$OUT/amd-pmu-off-full.ktap" >"$OUT/doctored-ditto.check" 2>&1
check "doctored: ... and by check-compact.py" "$([[ $? -eq 1 ]]; echo $?)"

# A kernel that hid cpu 1's failure behind cpu 0's pass: the tools refuse it.
awk '
	/^    # Subtest: cpuid@cpu1$/ { inside = 1 }
	inside && /^    #/ && !/Subtest/ && !hid { next }
	inside && /^    not ok 1 global_ctrl_reset_value$/ && !hid {
		print "    ok 1 global_ctrl_reset_value # same as cpu0"; hid = 1; next }
	{ print }' "$OUT/aps-deviate.ktap" >"$OUT/doctored.ktap"
! grep -q '^    not ok 1 global_ctrl_reset_value$' <(sed -n '/Subtest: cpuid@cpu1$/,/cpuid@cpu1$/p' "$OUT/doctored.ktap")
check "doctored: cpu 1's failure is written 'ok ... same as cpu0' (the test's own precondition)" $?
# (validate cannot tell the line: cpu 0 passed, so "same as cpu0" reads as a
# pass; what gives the hidden failure away is the run's Totals line, which
# still counts it. This check asked for "same as cpu0" in validate's output
# and passed without it for as long as its status was tail's.)
tools/ktap-report.py validate "$OUT/doctored.ktap" >"$OUT/doctored.validate" 2>&1
[[ $? -eq 2 ]] && grep -q "the Totals line says .*, the results say " "$OUT/doctored.validate"
ck=$? # before the message's $(...), which sets $? itself
check "doctored: ktap-report.py validate refuses it: its Totals line still counts the failure ($(head -n 1 "$OUT/doctored.validate"))" "$ck"
python3 testing/check-compact.py "$OUT/doctored.ktap" "$OUT/aps-deviate-full.ktap" >"$OUT/doctored.check" 2>&1
check "doctored: check-compact.py fails it" "$([[ $? -eq 1 ]]; echo $?)"

if [[ $qemu == 1 ]]; then
	printf 'compact = 0\n' >"$OUT/full.cfg"
	if [[ -n $smp8_log ]]; then # the same command's log (one boot fewer)
		cp "$smp8_log" "$OUT/qemu-smp8.ktap"
	else
		taskset -c 0,1 tools/run-qemu.sh --smp 8 --log "$OUT/qemu-smp8.ktap" \
			--timeout "${QEMU_TIMEOUT:-300}" >"$OUT/qemu-smp8.out" 2>&1
	fi
	taskset -c 0,1 tools/run-qemu.sh --smp 8 --config "$OUT/full.cfg" --log "$OUT/qemu-smp8-full.ktap" \
		--timeout "${QEMU_TIMEOUT:-300}" >"$OUT/qemu-smp8-full.out" 2>&1
	echo "# qemu-smp8: tools/run-qemu.sh --smp 8, and with compact = 0"
	python3 testing/check-compact.py "$OUT/qemu-smp8.ktap" "$OUT/qemu-smp8-full.ktap" | sed 's/^\(not \)\{0,1\}ok - /&qemu-smp8: /'
	check "qemu-smp8: the compact form is the full form, test by test" "${PIPESTATUS[0]}"
	tools/ktap-report.py compare "$OUT/qemu-smp8.ktap" data/expectations/qemu-tcg.txt >"$OUT/qemu-smp8.compare" 2>&1
	ck=$? # before the message's $(...), which sets $? itself
	check "qemu-smp8: the compact log matches data/expectations/qemu-tcg.txt on every CPU ($(tail -n 1 "$OUT/qemu-smp8.compare"))" "$ck"
	# One CPU, direct boot on microvm (the issue's timed run): the amd
	# suite's failures under TCG, their blocks compared line by line.
	for form in compact full; do
		cfg=()
		[[ $form == full ]] && cfg=(--config "$OUT/full.cfg")
		taskset -c 0,1 tools/run-qemu.sh --kernel --machine microvm "${cfg[@]}" \
			--log "$OUT/qemu-microvm-$form.ktap" --timeout "${QEMU_TIMEOUT:-300}" >"$OUT/qemu-microvm-$form.out" 2>&1
	done
	echo "# qemu-microvm: tools/run-qemu.sh --kernel --machine microvm, and with compact = 0"
	python3 testing/check-compact.py "$OUT/qemu-microvm-compact.ktap" "$OUT/qemu-microvm-full.ktap" | sed 's/^\(not \)\{0,1\}ok - /&qemu-microvm: /'
	check "qemu-microvm: the compact form is the full form, test by test, failure blocks line by line" "${PIPESTATUS[0]}"
fi
checks_finish

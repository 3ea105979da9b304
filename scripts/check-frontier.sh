#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The 2023-2026 architecture suites (issue 28) where they apply and where
# they do not: on synth-v6 (architectural PMU v6, RDPMC user disable, Auto
# Counter Reload) every test of theirs runs and passes, not skipped; on a
# profile without those features (synth-v5-metrics) every one of them is
# skipped, naming the CPUID bit it lacks. Likewise the RDPMC metrics clear
# mode on synth-metrics-clear and synth-v5-topdown (IA32_PERF_CAPABILITIES[19]),
# and the DS-area PEBS suite, which must skip on synth-arch-pebs. Quirks failing them are the
# mutation matrix's (scripts/mutation.sh).
#
#   scripts/check-frontier.sh [PMUSIM]
# Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/lib/checks.sh
. scripts/lib/checks.sh

die() {
	echo "check-frontier: $*" >&2
	exit 2
}
PMUSIM=${1:-build/host/pmusim}
[[ -x $PMUSIM ]] || die "$PMUSIM not built (make host)"

TESTS=(
	v6.aliases_are_the_same_registers v6.alias_counts_as_legacy v6.cfg_a_reserved_bits
	v6.aliases_of_absent_counters_gp v6.no_fixed_cfg_a
	privilege.rdpmc_user_disable_reads_zero privilege.rdpmc_user_disable_counting_unaffected
	privilege.rdpmc_user_disable_pce_clear_faults
	acr.msrs_exist_where_enumerated acr.reload_by_another_counter
	acr.self_reload_sets_no_status acr.cfg_b_takes_enumerated_causes_only
)

# result LOG SUITE.TEST: the test's KTAP line ("ok 3 name # SKIP ..."), or
# nothing when it did not run.
result() {
	awk -v want="$2" '
		/^ *# Subtest: / { suite = $3 }
		/^    (not )?ok [0-9]+ / {
			name = ($1 == "not") ? $4 : $3
			if (suite "." name == want) { sub(/^ +/, ""); print; exit }
		}' "$1"
}

DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmutest-frontier.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

"$PMUSIM" --profile synth-v6 >"$DIR/v6.ktap" 2>&1
grep -q '^# verdict: PASS' "$DIR/v6.ktap"
check "synth-v6: verdict PASS" $?
for t in "${TESTS[@]}"; do
	line=$(result "$DIR/v6.ktap" "$t")
	[[ $line == ok\ * && $line != *"# SKIP"* ]]
	check "synth-v6: $t runs and passes (${line:-not run})" $?
done

"$PMUSIM" --profile synth-v5-metrics >"$DIR/v5.ktap" 2>&1
for t in "${TESTS[@]}"; do
	line=$(result "$DIR/v5.ktap" "$t")
	[[ $line == *"# SKIP missing CPUID"* ]]
	check "synth-v5-metrics: $t skips with the missing CPUID bit (${line:-not run})" $?
done
"$PMUSIM" --profile synth-metrics-clear >"$DIR/mc.ktap" 2>&1
grep -q '^# verdict: PASS' "$DIR/mc.ktap"
check "synth-metrics-clear: verdict PASS" $?
line=$(result "$DIR/mc.ktap" metrics.rdpmc_clear_mode)
[[ $line == ok\ * && $line != *"# SKIP"* ]]
check "synth-metrics-clear: metrics.rdpmc_clear_mode runs and passes (${line:-not run})" $?
"$PMUSIM" --profile synth-v5-topdown >"$DIR/td.ktap" 2>&1
line=$(result "$DIR/td.ktap" metrics.rdpmc_clear_mode)
[[ $line == *"# SKIP IA32_PERF_CAPABILITIES[19]"* ]]
check "synth-v5-topdown: metrics.rdpmc_clear_mode skips naming PERF_CAPABILITIES[19] (${line:-not run})" $?
# Architectural PEBS (not modelled): the DS-area PEBS suite must skip.
"$PMUSIM" --profile synth-arch-pebs >"$DIR/ap.ktap" 2>&1
grep -q '^# verdict: PASS' "$DIR/ap.ktap"
check "synth-arch-pebs: verdict PASS" $?
line=$(result "$DIR/ap.ktap" pebs.msrs_read_write)
[[ $line == *"# SKIP"*"not architectural PEBS"* ]]
check "synth-arch-pebs: pebs.msrs_read_write skips, naming architectural PEBS (${line:-not run})" $?
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The 2023-2026 architecture suites where they apply and where
# they do not (the script's blocks say which): on synth-v6 (architectural PMU v6, RDPMC user disable, Auto
# Counter Reload) every test of theirs runs and passes, not skipped; on a
# profile without those features (synth-v5-metrics) every one of them is
# skipped, naming the CPUID bit it lacks. Likewise the RDPMC metrics clear
# mode on synth-metrics-clear and synth-v5-topdown (IA32_PERF_CAPABILITIES[19]),
# and the DS-area PEBS suite, which must skip on synth-arch-pebs, where the
# architectural PEBS suite runs (as on gen-panther-lake, -clearwater-forest,
# -diamond-rapids). Quirks failing them are the
# mutation matrix's (testing/mutation.sh).
#
#   testing/check-frontier.sh [PMUSIM]
# Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

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
# nothing when it did not run; read in the full form (a SKIP reason
# written "ditto" spelt out: ktap-report.py expand, once a log).
result() {
	[[ -s $1.full ]] || tools/ktap-report.py expand "$1" -o "$1.full" || return
	awk -v want="$2" '
		/^ *# Subtest: / { suite = $3 }
		/^    (not )?ok [0-9]+ / {
			name = ($1 == "not") ? $4 : $3
			if (suite "." name == want) { sub(/^ +/, ""); print; exit }
		}' "$1.full"
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
[[ $line == *"# SKIP"*"PEBS_FMT 0FH is architectural PEBS"* ]]
check "synth-arch-pebs: pebs.msrs_read_write skips, naming architectural PEBS (${line:-not run})" $?
# Architectural PEBS (suites/arch_pebs.c): runs and passes on the synthetic
# profile (GPR the only group) and the 2026 parts that enumerate it; skips,
# naming it, on synth-v6 (leaf 23H without sub-leaves 4-5).
APEBS=(arch_pebs.msrs_read_write arch_pebs.one_record_per_overflow
	arch_pebs.threshold_interrupt arch_pebs.full_buffer_not_overrun
	arch_pebs.groups_where_enumerated arch_pebs.lbr_group_where_enumerated
	arch_pebs.counters_group_where_enumerated arch_pebs.split_record_parts)
for p in gen-panther-lake gen-clearwater-forest gen-diamond-rapids; do
	"$PMUSIM" --profile $p >"$DIR/$p.ktap" 2>&1
done
for log in ap gen-panther-lake gen-clearwater-forest gen-diamond-rapids; do
	for t in "${APEBS[@]}"; do
		line=$(result "$DIR/$log.ktap" "$t")
		[[ $line == ok\ * && $line != *"# SKIP"* ]]
		check "${log/#ap/synth-arch-pebs}: $t runs and passes (${line:-not run})" $?
	done
done
# Split records: the model splits the largest record (GPR, XMM, LBR) into
# fragments on the parts that enumerate the groups, so the CONT rules run
# on fragments there; the LBR and counters groups run on Panther Lake's
# enumeration (CPUID.(23H,4):EBX = 60060378H) and are refused (#GP) on
# synth-arch-pebs (GPR only).
grep -q '^    # 3 fragment(s)' "$DIR/gen-panther-lake.ktap"
check "gen-panther-lake: arch_pebs.split_record_parts reads a record of 3 fragments" $?
# UMASK2 counting (counting.umask2_model_event): runs on the Lion Cove
# P-cores (include/model_events.h), skips naming the part elsewhere.
for p in gen-lunar-lake gen-arrow-lake-h; do
	"$PMUSIM" --profile $p --set suites=counting >"$DIR/$p.ktap" 2>&1
	line=$(result "$DIR/$p.ktap" counting.umask2_model_event)
	[[ $line == ok\ * && $line != *"# SKIP"* ]]
	check "$p: counting.umask2_model_event runs and passes (${line:-not run})" $?
done
line=$(result "$DIR/gen-panther-lake.ktap" counting.umask2_model_event)
[[ $line == *"# SKIP no event with UMASK2 known for DisplayFamily_DisplayModel 06H_CCH"* ]]
check "gen-panther-lake: counting.umask2_model_event skips naming the part (${line:-not run})" $?
for t in "${APEBS[@]}"; do
	line=$(result "$DIR/v6.ktap" "$t")
	[[ $line == *"# SKIP missing architectural PEBS"* ]]
	check "synth-v6: $t skips naming architectural PEBS (${line:-not run})" $?
done
# PERF_METRICS level 2 (metrics.level2_within_level1): measured, not zero,
# where the model has level 2 (Sapphire Rapids); 0 on Ice Lake, still run.
"$PMUSIM" --profile intel_sapphirerapids_806f8 >"$DIR/spr.ktap" 2>&1
line=$(result "$DIR/spr.ktap" metrics.level2_within_level1)
[[ $line == ok\ * && $line != *"# SKIP"* ]] &&
	grep -q 'level2_within_level1.memory bound = [1-9]' "$DIR/spr.ktap"
check "intel_sapphirerapids_806f8: metrics.level2_within_level1 runs on non-zero level-2 bytes and passes (${line:-not run})" $?
# PEBS counters snapshotting (format 6): runs on gen-lunar-lake (PEBS fmt
# 6), skips naming the format on Sapphire Rapids (fmt 4).
"$PMUSIM" --profile gen-lunar-lake >"$DIR/lnl.ktap" 2>&1
line=$(result "$DIR/lnl.ktap" pebs.counter_snapshot_group)
[[ $line == ok\ * && $line != *"# SKIP"* ]]
check "gen-lunar-lake: pebs.counter_snapshot_group runs and passes (${line:-not run})" $?
line=$(result "$DIR/spr.ktap" pebs.counter_snapshot_group)
[[ $line == *"# SKIP PEBS format 4"* ]]
check "intel_sapphirerapids_806f8: pebs.counter_snapshot_group skips naming PEBS format 4 (${line:-not run})" $?
# AMD LBR v2 and LbrAndPmcFreeze (suites/amd_lbr.c): runs and passes on the
# Zen 4 dump and gen-zen5 (both enumerate EAX[2:1], 16 entries); skips,
# naming CPUID 8000_0022H, on Zen 2.
AMDLBR=(amd_lbr.msrs_read_write amd_lbr.records_chain_youngest_first amd_lbr.select_filters
	amd_lbr.freeze_on_pmi)
for p in amd_zen4_genoa_a10f11 gen-zen5 amd_zen2_rome_830f10; do
	"$PMUSIM" --profile $p >"$DIR/$p.ktap" 2>&1
	for t in "${AMDLBR[@]}"; do
		line=$(result "$DIR/$p.ktap" "$t")
		if [[ $p == amd_zen2_* ]]; then
			[[ $line == *"# SKIP missing CPUID 8000_0022H EAX[1] LbrStack"* ]]
			check "$p: $t skips naming CPUID 8000_0022H EAX[1] (${line:-not run})" $?
		else
			[[ $line == ok\ * && $line != *"# SKIP"* ]]
			check "$p: $t runs and passes (${line:-not run})" $?
		fi
	done
done
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The 2023-2026 generations on the simulator: every gen-* profile
# (arch/sim/generations.c) runs clean, and the checks that used to fail them
# falsely run there (not skipped) or skip with the reason the manual gives:
#   1. each gen-* profile: exit 0, no "not ok";
#   2. timed PEBS (GNR, SRF): the pebs record tests run and pass;
#   3. PEBS format 5+ (GNR, SRF, MTL, LNL, ARL-H): pebs.fixed_counter_record
#      runs and passes (the 32 + 16 reset layout);
#   4. architectural PEBS (PTL, CWF, DMR): pebs.msrs_read_write skips naming
#      PEBS_FMT 0FH; the header says so;
#   5. PERFEVTSELx bits 35 / 37 enumerated (LNL, SRF, PTL, CWF, DMR):
#      versions.evtsel_defined_high_bits and evtsel_reserved_bits run and pass;
#   6. a profile's leaves replace its dump's (DMR on the PTL dump);
#   7. pmucaps decodes the new fields from the Panther Lake dump.
# Prints an ok / not ok line a check and ends "N passed, N failed".
#
#   testing/check-generations.sh [PMUSIM] [PMUCAPS]
# Exit status: 0 all passed, 1 a check failed, 2 bad usage.
set -u
case ${1:-} in -*) echo "usage: $0 [PMUSIM] [PMUCAPS]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
PMUSIM=${1:-build/host/pmusim}
PMUCAPS=${2:-build/host/pmucaps}
for b in "$PMUSIM" "$PMUCAPS"; do
	[ -x "$b" ] || { echo "check-generations: $b not built (make host)" >&2; exit 2; }
done
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmutest-gen.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# result FILE SUITE TEST: the KTAP line of SUITE.TEST in FILE.
result() {
	awk -v s="$2" -v t="$3" '
		/^    # Subtest: / { cur = $3 }
		cur == s && $0 ~ "^    (not )?ok [0-9]+ " t "( |$)" { print; exit }' "$1"
}
# ran_ok FILE SUITE TEST: passed, not skipped.
ran_ok() {
	local l
	l=$(result "$@")
	[[ $l =~ ^\ \ \ \ ok\  && $l != *"# SKIP"* ]]
}

profiles=$("$PMUSIM" --list-profiles | awk '/^gen-/ { print $1 }')
[ -n "$profiles" ] || { check "gen-* profiles listed (dumps directory present)" 1; checks_finish; }
for p in $profiles; do
	"$PMUSIM" --profile "$p" >"$DIR/$p.ktap" 2>&1
	rc=$?
	check "$p: exit $rc, $(grep -m1 '^# Totals' "$DIR/$p.ktap")" \
		$((rc != 0 || $(grep -c '^ *not ok' "$DIR/$p.ktap")))
done

for p in gen-granite-rapids gen-sierra-forest; do
	check "$p: header says timed PEBS" "$(grep -q 'timed PEBS yes' "$DIR/$p.ktap"; echo $?)"
	for t in one_record_and_ovfbuf_at_threshold adaptive_record_groups \
		adaptive_bit_clear_basic_record; do
		ran_ok "$DIR/$p.ktap" pebs $t
		check "$p: pebs.$t ran and passed (format field [31:0])" $?
	done
done
for p in gen-granite-rapids gen-sierra-forest gen-meteor-lake gen-lunar-lake gen-arrow-lake-h; do
	ran_ok "$DIR/$p.ktap" pebs fixed_counter_record
	check "$p: pebs.fixed_counter_record ran and passed (reset field 32 + i)" $?
done
for p in gen-panther-lake gen-clearwater-forest gen-diamond-rapids; do
	l=$(result "$DIR/$p.ktap" pebs msrs_read_write)
	[[ $l == *"# SKIP"*"0FH"* ]]
	check "$p: pebs.msrs_read_write skips naming PEBS_FMT 0FH" $?
	check "$p: header says architectural PEBS" \
		"$(grep -q 'PEBS format 0FH (architectural PEBS)' "$DIR/$p.ktap"; echo $?)"
done
for p in gen-lunar-lake gen-sierra-forest gen-panther-lake gen-clearwater-forest gen-diamond-rapids; do
	for t in evtsel_reserved_bits evtsel_defined_high_bits; do
		ran_ok "$DIR/$p.ktap" versions $t
		check "$p: versions.$t ran and passed (bits 35/37 by CPUID)" $?
	done
done

# A profile's leaves replace its dump's: DMR is the PTL dump with (23H,0)
# EBX[2] and sub-leaf 2 added, PTL itself has neither.
check "gen-diamond-rapids: its leaf 23H replaces the dump's (RDPMC_USR_DISABLE, ACR)" \
	"$(grep -q 'RDPMC_USR_DISABLE yes' "$DIR/gen-diamond-rapids.ktap" &&
		grep -q 'CPUID.(23H,2) auto counter reload' "$DIR/gen-diamond-rapids.ktap"; echo $?)"
check "gen-panther-lake: the dump's own leaf 23H (no RDPMC_USR_DISABLE, no ACR)" \
	"$(grep -q 'RDPMC_USR_DISABLE no' "$DIR/gen-panther-lake.ktap" &&
		! grep -q 'CPUID.(23H,2) auto counter reload' "$DIR/gen-panther-lake.ktap"; echo $?)"

PTL=data/cpuid/corpus/genuineintel00c06c3_pantherlakel_01.txt
if [ -r "$PTL" ]; then
	"$PMUCAPS" --cpuid-dump "$PTL" --perf-capabilities 0x8bfc5 >"$DIR/ptl.json" 2>&1
	check "pmucaps on the Panther Lake dump: exit $?" $?
	python3 - "$DIR/ptl.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
x, p, l = j["arch_perfmon_ext"], j["perf_capabilities"], j["arch_lbr"]
want = [
    ("arch_perfmon_ext.arch_pebs", x["arch_pebs"], True),
    ("arch_perfmon_ext.pebs_caps", x["pebs_caps"], "0x60060378"),
    ("arch_perfmon_ext.pdist_gp", x["pdist_gp"], [0, 1]),
    ("arch_perfmon_ext.rdpmc_user_disable", x["rdpmc_user_disable"], False),
    ("arch_perfmon_ext.acr_gp_reloadable", x["acr_gp_reloadable"], None),
    ("arch_lbr.event_logging", l["event_logging"], [0, 1, 2, 3]),
    ("perf_capabilities.arch_pebs", p["arch_pebs"], True),
    ("perf_capabilities.rdpmc_metrics_clear", p["rdpmc_metrics_clear"], True),
]
bad = 0
for name, got, exp in want:
    ok = got == exp
    bad += not ok
    print(("ok" if ok else "not ok") + f" - pmucaps {name} = {got!r}" + ("" if ok else f", expected {exp!r}"))
sys.exit(1 if bad else 0)
EOF
	check "pmucaps decodes CPUID 23H sub-leaves 4/5, 1CH ECX[19:16], PERF_CAPABILITIES 0FH/19" $?
else
	check "Panther Lake dump $PTL present" 1
fi
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every known deviation proven both ways on the simulator.
#
# Each row of kernel/known.c (`pmusim --list-known`) has a proof line below:
# the quirk(s) of arch/sim/quirk_table.h that reproduce the deviation, a profile
# in the row's range (a real CPUID dump wherever the corpus has one) and one
# outside it. For every row:
#   1. affected profile + quirk: exit 0, and the tests reported
#      "ok ... # XFAIL known deviation" are exactly the row's tests, none
#      "not ok";
#   2. the same with known=0: exit 1, and the failed (test, rule) pairs are
#      exactly the row's checks;
#   3. an unaffected profile + the same quirk: exit 1 with a plain failure of
#      one of the row's tests (a new deviation there: the row does not match);
#   4. the affected profile without the quirk runs clean (the quirk, not the
#      CPUID, makes the deviation);
#   5. a KVM row with a host kernel range (proof line field 5: a version
#      outside it): on that host, and on one whose version is not given,
#      the quirk is a plain FAIL whose "host:" line says why.
# Then the other direction: each affected profile with every quirk
# of the catalogue reports no XFAIL the clean run did not, except for the
# rows the quirk proves and the listed alike pairs whose run still FAILs.
# Also: every row has a proof line and every proof line a row.
# Prints an ok / not ok line a check (testing/lib/checks.sh) and ends
# "N passed, N failed".
#
#   testing/check-known.sh [DUMPS] [PMUSIM]
# Exit status: 0 all passed, 1 a check failed, 2 bad usage.
set -u
shopt -s extglob
case ${1:-} in -*) echo "usage: $0 [DUMPS] [PMUSIM]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
S=${1:-data/cpuid}
PMUSIM=${2:-build/host/pmusim}
C=$S/corpus
H=data/cpuid/machines
[ -x "$PMUSIM" ] || { echo "check-known: $PMUSIM not built (make host)" >&2; exit 2; }
[ -d "$S" ] || { echo "check-known: no dumps directory $S" >&2; exit 2; }

# id | quirks (space-separated) | affected: pmusim args | unaffected: pmusim args
#    [| a host kernel outside the row's range (a KVM row with a version range:
#       the affected args give host_kernel inside it)]
# (IA32_PERF_CAPABILITIES is in no dump: the Atom rows give LBR format 1, the
# value that lets the lbr suite run, on both sides. The bare-metal Zen 4 dump
# as a KVM guest keeps SVM: a guest has it only with nested SVM, and dropping
# GuestOnly there fails amd.hg_only_with_efer_svme, a FAIL the row does not
# excuse (its source names the bits, not that check): left out of the proof.)
PROOFS="
core2-v2-no-fixed-enumerated|cpuid-v2-fixed-counters-hidden|--cpuid-dump $C/genuineintel00006f2_conroe.txt|--cpuid-dump $S/intel_core2_penryn_10676.txt
core2-cpuid-counted-as-branch|cpuid-counted-as-branch|--cpuid-dump $C/genuineintel00006fb_conroe.txt|--cpuid-dump $S/intel_core2_penryn_10676.txt
adl-rpl-pcore-counters-beyond-cpuid|pcore-counters-beyond-cpuid|--cpuid-dump $H/alderlake-hybrid-90672-2p2e.txt|--cpuid-dump $S/intel_skylake_client_506e3.txt
adl-rpl-pcore-perf-metrics-unenumerated|pcore-perf-metrics-without-cap|--cpuid-dump $H/alderlake-hybrid-90672-2p2e.txt|--cpuid-dump $S/intel_skylake_client_506e3.txt
skl-tsx-force-abort-pmc3|tsx-microcode-uses-pmc3|--cpuid-dump $S/intel_skylake_client_506e3.txt|--profile synth-tsx-baseline
dunnington-rdpmc-special-2-9|rdpmc-special-counters-2-9|--cpuid-dump $C/genuineintel00106d1_dunnington.txt|--cpuid-dump $S/intel_core2_penryn_10676.txt
atom-bonnell-lbr-no-freeze|lbr-freeze-on-pmi-ignored|--cpuid-dump $S/intel_atom_diamondville_106c2.txt --perf-capabilities 0x1|--cpuid-dump $C/genuineintel00106ca_pineview.txt --perf-capabilities 0x1
p4-cccr-ovf-not-set|p4-cccr-ovf-not-set|--cpuid-dump $S/intel_p4_prescott_f41.txt|--cpuid-dump $S/intel_p4_prescott_f41.txt --hypervisor KVMKVMKVM
p4-xeon-l3-rdpmc-18-25|p4-l3-rdpmc-18-25|--cpuid-dump $C/genuineintel0000f68_p4_tulsa.txt|--cpuid-dump $C/genuineintel0000f64_p4_dempsey.txt
amd-f15h-cu-events-ctr0-2|amd-f15h-cycles-on-counters-0-2|--cpuid-dump $C/authenticamd0600f20_k15_vishera.txt|--cpuid-dump $S/amd_zen2_rome_830f10.txt
zxc-ovf-clear-needs-global-enable|ovf-clear-needs-global-enable|--cpuid-dump $C/centaurhauls00006fe_cnr_isaiah.txt|--profile synth-via-nano
ref-tsc-overflow-sticky|ref-tsc-overflow-sticky|--cpuid-dump $S/intel_icelake_client_706e5.txt|--profile synth-v5-fixed-hole
ref-tsc-overflow-sticky-pcore|ref-tsc-overflow-sticky|--cpuid-dump $C/genuineintel00b06d1_lunarlake_04.txt|--profile synth-leaf23-10gp
kvm-vmware-backdoor-pmcs|kvm-vmware-backdoor-pmcs|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt --set host_kernel=6.5.0|--cpuid-dump $S/intel_skylake_client_506e3.txt|4.16.0
kvm-rdpmc-fast-bit|rdpmc-fast-on-arch|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt --set host_kernel=6.5.0|--cpuid-dump $S/intel_skylake_client_506e3.txt|6.9.0
kvm-debugctl-freeze-perfmon-gp|debugctl-freeze-perfmon-rejected|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt|--cpuid-dump $S/intel_broadwell_ep_406f1.txt
kvm-emulated-insns-unfiltered|intercepted-insns-counted-unfiltered|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt --set host_kernel=6.5.0|--cpuid-dump $S/intel_skylake_client_506e3.txt|5.16.0
kvm-lvtpc-not-masked|lvt-mask-not-set-on-pmi|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt --set host_kernel=6.5.0|--cpuid-dump $S/intel_skylake_client_506e3.txt|6.6.0
kvm-amd-reserved-bits-dropped|kvm-amd-reserved-writes-dropped|--cpuid-dump $S/amd_zen4_genoa_a10f11.txt --hypervisor KVMKVMKVM --set host_kernel=6.8.0 --set exclude=amd.hg_only_with_efer_svme|--cpuid-dump $S/amd_zen4_genoa_a10f11.txt|5.17.0
kvm-amd-lvtpc-masked|amd-lvt-masked-on-pmi|--cpuid-dump $S/amd_zen4_genoa_a10f11.txt --hypervisor KVMKVMKVM --set host_kernel=6.8.0|--cpuid-dump $S/amd_zen4_genoa_a10f11.txt|6.9.0
atom-srf7-vmexit-overcount|atom-vmexit-overcount|--cpuid-dump $C/genuineintel00506f1_denverton.txt --hypervisor KVMKVMKVM|--cpuid-dump $C/genuineintel00506f1_denverton.txt
cwf-vmexit-insn-overcount|cwf-vmexit-insn-overcount|--profile gen-clearwater-forest --hypervisor KVMKVMKVM|--profile gen-clearwater-forest
kvm-global-ctrl-reset-zero|global-ctrl-reset-zero|--cpuid-dump $S/kvm_qemu_host_kbl_r_i7_8650u.txt --set host_kernel=6.8.0|--cpuid-dump $S/intel_skylake_client_506e3.txt|6.10.0
"

DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmutest-known.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
ok() { check "$1" 0; }
bad() { check "$1" 1; }

# The run's (test, rule) pairs of plain failures ("suite.test<TAB>rule"), and
# its XFAIL tests ("suite.test"): suites named without their @cpuN. The rules
# are read from the full form (a compact log's "rule: ditto" written out); a
# log that cannot be expanded is one pair naming why, which matches nothing.
failed_pairs() {
	local full
	if ! full=$(tools/ktap-report.py expand "$1" 2>&1); then
		printf 'unexpandable\t%s\n' "$full"
		return
	fi
	awk '
		/^(    )?# Subtest: / { suite = $NF; sub(/@cpu[0-9]+$/, "", suite); n = 0; next }
		/^    #   rule: / { r = $0; sub(/^    #   rule: +/, "", r); rules[n++] = r; next }
		/^    not ok [0-9]+ / { for (i = 0; i < n; i++) print suite "." $4 "\t" rules[i] }
		/^    (not )?ok [0-9]+ / { n = 0 }
	' <<<"$full" | sort -u
}
xfail_tests() {
	awk '
		/^(    )?# Subtest: / { suite = $NF; sub(/@cpu[0-9]+$/, "", suite); next }
		/^    ok [0-9]+ .* # XFAIL / { print suite "." $3 }
	' "$1" | sort -u
}
plain_failed_tests() { failed_pairs "$1" | cut -f1 | sort -u; }

"$PMUSIM" --list-known >"$DIR/list" || { echo "check-known: --list-known failed" >&2; exit 2; }
awk '/^[^ ]/ { print $1 }' "$DIR/list" >"$DIR/ids"
echo "$PROOFS" | awk -F'|' 'NF >= 4 { print $1 }' >"$DIR/proved"
for id in $(comm -23 <(sort "$DIR/ids") <(sort "$DIR/proved")); do bad "row $id has no proof line"; done
for id in $(comm -13 <(sort "$DIR/ids") <(sort "$DIR/proved")); do bad "proof line $id has no row"; done

# docs/rules.md lists every row (its table is testing/gen-docs.py's, from
# pmusim --list-known; the docs step checks it is current).
while read -r id; do
	if grep -q "^| \`$id\` |" docs/rules.md; then ok "docs/rules.md lists row $id"; else bad "docs/rules.md does not list row $id"; fi
done <"$DIR/ids"

nrows=0
while IFS='|' read -r id quirks affected unaffected outside; do
	[ -n "$id" ] || continue
	grep -qx -- "$id" "$DIR/ids" || continue
	nrows=$((nrows + 1))
	qargs=()
	for q in $quirks; do qargs+=(--quirk "$q"); done
	# The row's checks and tests, from the table itself.
	awk -v id="$id" '
		/^[^ ]/ { on = ($1 == id); next }
		on && /^  check: / { s = $0; sub(/^  check: +/, "", s); t = s; sub(/: .*/, "", t)
			r = s; sub(/^[^:]*: /, "", r); print t "\t" r }
	' "$DIR/list" | sort -u >"$DIR/$id.checks"
	cut -f1 "$DIR/$id.checks" | sort -u >"$DIR/$id.tests"

	# shellcheck disable=SC2086 # the profile arguments are words
	"$PMUSIM" $affected >"$DIR/$id.clean" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then ok "$id: the affected profile runs clean without the quirk"; else bad "$id: the affected profile without the quirk: exit $rc"; fi

	# shellcheck disable=SC2086
	"$PMUSIM" $affected "${qargs[@]}" >"$DIR/$id.known" 2>&1
	rc=$?
	x=$(xfail_tests "$DIR/$id.known" | tr '\n' ' ')
	want=$(tr '\n' ' ' <"$DIR/$id.tests")
	nf=$(plain_failed_tests "$DIR/$id.known" | tr '\n' ' ')
	if [ "$rc" = 0 ] && [ "$x" = "$want" ] && [ -z "$nf" ]; then
		ok "$id: with the quirk, XFAIL exactly $x"
	else
		bad "$id: with $quirks: exit $rc, XFAIL [$x], want [$want], failed [$nf]"
	fi

	# shellcheck disable=SC2086
	"$PMUSIM" $affected "${qargs[@]}" --set known=0 >"$DIR/$id.off" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && failed_pairs "$DIR/$id.off" | cmp -s - "$DIR/$id.checks"; then
		ok "$id: known=0 fails exactly the row's checks"
	else
		bad "$id: known=0: exit $rc, failed (test, rule) pairs differ from the row's:"
		failed_pairs "$DIR/$id.off" | diff - "$DIR/$id.checks" | head -8 | cut -c1-160 | sed 's/^/    /'
	fi

	# shellcheck disable=SC2086
	"$PMUSIM" $unaffected "${qargs[@]}" >"$DIR/$id.other" 2>&1
	rc=$?
	hit=$(plain_failed_tests "$DIR/$id.other" | comm -12 - "$DIR/$id.tests" | tr '\n' ' ')
	if [ "$rc" = 1 ] && [ -n "$hit" ]; then
		ok "$id: unaffected ($unaffected): a new deviation, FAIL $hit"
	else
		bad "$id: unaffected profile ($unaffected) with $quirks: exit $rc, failed [$hit]"
	fi

	# A row with a host version range: a host outside it, or one
	# whose version is not given, excuses nothing and says why.
	[ -n "${outside:-}" ] || continue
	# shellcheck disable=SC2086
	"$PMUSIM" $affected "${qargs[@]}" --set host_kernel="$outside" >"$DIR/$id.outside" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && [ -z "$(xfail_tests "$DIR/$id.outside")" ] &&
		grep -q "^    #   host:     not excused: $id covers .* this host runs" "$DIR/$id.outside"; then
		ok "$id: host kernel $outside (outside its range): FAIL, the host line says why"
	else
		bad "$id: host kernel $outside: exit $rc, or XFAIL, or no host line"
	fi
	# shellcheck disable=SC2086
	"$PMUSIM" ${affected/--set host_kernel=*([^ ])/} "${qargs[@]}" >"$DIR/$id.nohost" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && [ -z "$(xfail_tests "$DIR/$id.nohost")" ] &&
		grep -q "^    #   host:     not excused: $id .* host's version is unknown" "$DIR/$id.nohost" &&
		grep -q "^# host kernel: not given" "$DIR/$id.nohost"; then
		ok "$id: host kernel not given: FAIL, saying how to give it"
	else
		bad "$id: host kernel not given: exit $rc, or XFAIL, or no host line"
	fi
done <<<"$PROOFS"
echo "rows: $nrows proven of $(wc -l <"$DIR/ids")"

# Every hypervisor row says the VMM condition its source gives (known.h vmm)
# and its hosts (a range, or "any host kernel").
awk '/^[^ ]/ { id = $1 } /^  platform: KVMKVMKVM/ { kvm[id] = 1 } /^  vmm: / { vmm[id] = 1 }
	/^  hosts: / { hosts[id] = 1 }
	END { for (i in kvm) print i, (i in vmm) ? "vmm" : "-", (i in hosts) ? "hosts" : "-" }' "$DIR/list" |
	sort >"$DIR/kvm-rows"
while read -r id v h; do
	if [ "$v" = vmm ] && [ "$h" = hosts ]; then ok "$id: a KVM row with its hosts and VMM condition"
	else bad "$id: a KVM row without its hosts ($h) or VMM condition ($v)"; fi
done <"$DIR/kvm-rows"

# A together row is met per subject (the same intercepted instruction), not
# rule by rule: on Denverton under KVM, instructions one too many in the
# WRMSR and IN loops (cwf-vmexit-insn-overcount) and branches one too many in
# the CPUID loop (cpuid-counted-as-branch) are two partial deviations, not
# erratum SRF7 (both events on each intercepted instruction).
"$PMUSIM" --cpuid-dump "$C/genuineintel00506f1_denverton.txt" --hypervisor KVMKVMKVM \
	--quirk cwf-vmexit-insn-overcount --quirk cpuid-counted-as-branch \
	--set tests=intercepted.instructions_and_branches_exact >"$DIR/together" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q '^    not ok 1 instructions_and_branches_exact$' "$DIR/together" &&
	grep -q '^    # known: atom-srf7-vmexit-overcount not excused: .* on the same subject' "$DIR/together"; then
	ok "atom-srf7-vmexit-overcount: two partial overcounts on different intercepted instructions: FAIL, not SRF7"
else
	bad "atom-srf7-vmexit-overcount: two partial overcounts on different intercepted instructions: exit $rc, not a FAIL naming the row"
fi

# The other direction: the CPU held fixed, the deviation varied.
# Each distinct affected profile runs once with every quirk of the catalogue
# (pmusim --list-quirks) that is not a proof quirk of a row covering that
# profile: such a run may fail, but must report no test "# XFAIL". A quirk
# that proves another row may report exactly that row's XFAIL (it models
# that row); any other id is a deviation excused by a row that does not
# describe it. Runs in parallel (CHECK_KNOWN_JOBS, default 2).
"$PMUSIM" --list-quirks | awk '{ print $1 }' >"$DIR/quirks"
echo "$PROOFS" | awk -F'|' 'NF >= 4 { print $3 }' | sort -u >"$DIR/profiles"
: >"$DIR/vjobs"
np=0
while read -r prof; do
	np=$((np + 1))
	while read -r q; do echo "$np $q $prof"; done <"$DIR/quirks" >>"$DIR/vjobs"
done <"$DIR/profiles"
# Each run's output in v.N.QUIRK.out, its exit status in v.N.QUIRK.rc: one
# posix_spawn a run (testing/lib/run-jobs.py, killed after 60 s; a shell and
# timeout a run were a quarter of this step's time).
awk -v dir="$DIR" '{ stem = dir "/v." $1 "." $2; q = $2; $1 = $2 = ""; print stem $0 " --quirk " q }' "$DIR/vjobs" |
	python3 testing/lib/run-jobs.py -j "${CHECK_KNOWN_JOBS:-2}" -t 60 "$PMUSIM" || exit 2
# The rows a quirk proves ("quirk<TAB>id"), from the proof lines.
echo "$PROOFS" | awk -F'|' 'NF >= 4 { n = split($2, q, " "); for (i = 1; i <= n; i++) print q[i] "\t" $1 }' \
	>"$DIR/quirk-rows"
# Quirks that model a row's own deviation where it shows on another platform,
# besides the row's proof quirk: their XFAIL of that row is the row's.
#   quirk | row | why it is the same deviation
SAME="
kvm-amd-mediated-evtsel-bits-dropped|kvm-amd-reserved-bits-dropped|the mediated vPMU's PerfEvtSel writes go through the amd_pmu_set_msr() that clears pmu->reserved_bits (Linux 7.0 svm/pmu.c), the row's source
"
echo "$SAME" | awk -F'|' 'NF >= 3 { print $1 "\t" $2 }' >>"$DIR/quirk-rows"
# Quirks whose symptom in a row's checks is the row's own, check for check
# (same subject, same outcome): no check can tell them apart. Each may
# report that row (and only it) as known where its run still FAILs on what
# sets it apart (exit 1): the deviation is not hidden.
#   quirk | row | why the row's checks cannot tell them apart
ALIKE="
pcore-counters-beyond-cpuid|core2-v2-no-fixed-enumerated|one fixed counter more than CPUID.0AH enumerates answers (RDPMC 40000000H), as Core 2's IA32_FIXED_CTR0 does; its IA32_PMC2-3 fail versions.gp_msrs_beyond_count_absent
pcore-counters-beyond-cpuid|dunnington-rdpmc-special-2-9|RDPMC 2-3 read, as the Xeon 7400's special counters do; its IA32_PMC2-3 fail versions.gp_msrs_beyond_count_absent
p4-force-ovf-ignored|p4-cccr-ovf-not-set|CCCR.OVF not set after FORCE_OVF, the row's symptom; the missing PMI fails netburst.cccr_ovf_pmi
rdpmc-metrics-without-cap|adl-rpl-pcore-perf-metrics-unenumerated|the hypothetical model of that row's RDPMC 2000H: on the P-cores its failures (rdpmc.metrics_type, all_types_sweep) are the row's; the E-cores, which the row does not cover, fail both (exit 1)
gp-msrs-beyond-count|adl-rpl-pcore-counters-beyond-cpuid|IA32_PMC6-7 answer without a fault, as on the P-cores, where the one failure (versions.gp_msrs_beyond_count_absent) is the row's; the E-cores, which the row does not cover, fail it (exit 1)
rdpmc-special-counters-2-9|adl-rpl-pcore-counters-beyond-cpuid|RDPMC 6-7 read, as on the P-core; the run fails elsewhere (exit 1 required)
intercepted-overflow-no-pmi|kvm-emulated-insns-unfiltered|it counts intercepted instructions in software as that row's KVM does (arch/sim/pmu_arch.c: emulated_retire), and fails pmi on the missing PMI
cwf-vmexit-insn-overcount|atom-srf7-vmexit-overcount|erratum SRF7 as kvm-unit-tests applies it to Clearwater Forest (instructions only): usr_os_filter's one check is the Atom row's; instructions_and_branches_exact fails (the row needs both events there)
atom-vmexit-overcount|cwf-vmexit-insn-overcount|erratum SRF7 with its branch overcount: the instruction checks are the Clearwater Forest row's, the branch checks fail there
"
echo "$ALIKE" | awk -F'|' 'NF >= 3 { print $1 "\t" $2 }' >>"$DIR/quirk-rows.alike"
# Each run's new XFAILs (not in its profile's clean run) of a row its quirk
# does not prove, as "N<TAB>quirk<TAB>row id" (N: the profile's number): one
# awk reads every run (a few pipelines a run in the shell cost a minute of
# one core for 4000 runs).
np=0
while read -r prof; do
	np=$((np + 1))
	# shellcheck disable=SC2086
	"$PMUSIM" $prof >"$DIR/v.$np.clean" 2>&1
done <"$DIR/profiles"
awk -v dir="$DIR" -v np="$np" '
	function scan(file, n, q, clean,   line, w, nw, suite, id, t) {
		suite = ""
		while ((getline line <file) > 0) {
			if (line ~ /^(    )?# Subtest: /) {
				nw = split(line, w, " "); suite = w[nw]; sub(/@cpu[0-9]+$/, "", suite)
			} else if (line ~ /^    ok [0-9]+ .* # XFAIL known deviation /) {
				split(line, w, " "); id = line
				sub(/.* # XFAIL known deviation /, "", id); sub(/:.*/, "", id)
				t = suite "." w[3] "\t" id
				if (clean) was[n, t] = 1
				else if (!((n, t) in was) && !((q, id) in proves)) print n "\t" q "\t" id
			}
		}
		close(file)
	}
	BEGIN {
		while ((getline line <(dir "/quirk-rows")) > 0) { split(line, w, "\t"); proves[w[1], w[2]] = 1 }
		for (n = 1; n <= np; n++) scan(dir "/v." n ".clean", n, "", 1)
		while ((getline line <(dir "/vjobs")) > 0) {
			split(line, w, " "); scan(dir "/v." w[1] "." w[2] ".out", w[1], w[2], 0)
		}
	}' | sort -u >"$DIR/vnew"
vruns=0 vwrong=0 vpass=0 valike=0
nq=$(wc -l <"$DIR/quirks")
np=0
while read -r prof; do
	np=$((np + 1))
	wrong=0
	# This profile's runs with such XFAILs: "quirk id id ...", one a run.
	while read -r q ids; do
		unlisted=$(for i in $ids; do echo "$i"; done |
			comm -23 - <(awk -F'\t' -v q="$q" '$1 == q { print $2 }' "$DIR/quirk-rows.alike" | sort -u))
		rc=$(cat "$DIR/v.$np.$q.rc")
		if [ "$rc" = 1 ] && [ -z "$unlisted" ]; then
			valike=$((valike + 1))
			echo "    $prof --quirk $q: XFAIL $ids (alike, verdict still FAIL)"
			continue
		fi
		wrong=$((wrong + 1))
		[ "$rc" = 0 ] && vpass=$((vpass + 1))
		[ "$wrong" -le 5 ] && echo "    $prof --quirk $q: exit $rc, XFAIL $ids"
	done < <(awk -F'\t' -v n="$np" '
		$1 == n { if ($2 != q && q != "") print q ids; if ($2 != q) { q = $2; ids = "" } ids = ids " " $3 }
		END { if (q != "") print q ids }' "$DIR/vnew")
	vruns=$((vruns + nq)) vwrong=$((vwrong + wrong))
	rows=$(echo "$PROOFS" | awk -F'|' -v p="$prof" 'NF >= 4 && $3 == p { printf "%s ", $1 }')
	check "rows $rows: their profile ($prof) with each of $nq quirks: $wrong report another deviation as known" "$wrong"
done <"$DIR/profiles"
echo "other-quirk runs: $vruns, a different deviation reported known: $vwrong, verdict PASS: $vpass;" \
	"alike (listed, verdict FAIL): $valike"

# A whole machine's dump (`cpuid -r`, "CPU N:"): every CPU simulated with its
# own CPUID, the smp suite run, and the per-core rows on the P-cores only.
M=$H/alderlake-hybrid-90672-2p2e.txt
expect() { # expect DESC FILE GREP-ARGS...
	local desc=$1 f=$2
	shift 2
	if grep -q "$@" "$f"; then ok "$desc"; else bad "$desc"; fi
}
"$PMUSIM" --cpuid-dump "$M" --perf-capabilities core=0x74C5 --perf-capabilities atom=0x30C4 \
	>"$DIR/machine" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "whole-machine dump $M runs clean"; else bad "whole-machine dump $M: exit $rc"; fi
expect "whole machine: 4 CPUs online" "$DIR/machine" "^# cpus: 4 of 4 online"
for c in 0 1 2 3; do
	t=core
	[ "$c" -ge 2 ] && t=atom
	expect "whole machine: CPU $c online, core type $t (its own CPUID.1AH)" "$DIR/machine" \
		-E "^# cpu $c: APIC ID [0-9a-fx]+: online, .*hybrid core type $t "
	expect "whole machine: CPU $c ran the smp suite" "$DIR/machine" -E "^ok [0-9]+ smp@cpu$c( |\$)"
done
expect "whole machine: the P-cores read PERF_CAPABILITIES core=" "$DIR/machine" \
	"^# caps: IA32_PERF_CAPABILITIES = 0x74c5"
expect "whole machine: the E-cores read PERF_CAPABILITIES atom=" "$DIR/machine" \
	"^# caps: IA32_PERF_CAPABILITIES = 0x30c4"
"$PMUSIM" --cpuid-dump "$M" --quirk pcore-counters-beyond-cpuid \
	--quirk pcore-perf-metrics-without-cap >"$DIR/machine-q" 2>&1
rc=$?
# (read in the full form: cpu 1's XFAIL may be written "same as cpu0")
xcpus=$(tools/ktap-report.py expand "$DIR/machine-q" |
	awk '/^(    )?# Subtest: / { s = $NF } /^    ok [0-9]+ .* # XFAIL / { sub(/.*@/, "", s); print s }' |
	sort -u | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$xcpus" = "cpu0 cpu1 " ]; then
	ok "whole machine with the P-core quirks: XFAIL on $xcpus only"
else
	bad "whole machine with the P-core quirks: exit $rc, XFAIL on [$xcpus], want [cpu0 cpu1 ]"
fi
"$PMUSIM" --cpuid-dump "$M" --cpu 2 --quirk pcore-counters-beyond-cpuid >"$DIR/machine-e" 2>&1
rc=$?
if [ "$rc" = 0 ] && ! grep -q "# XFAIL" "$DIR/machine-e" && grep -q "^# cpus: 1 of 1" "$DIR/machine-e"; then
	ok "--cpu 2 (an E-core alone) with the P-core quirk: clean, one CPU"
else
	bad "--cpu 2 (an E-core alone) with the P-core quirk: exit $rc, or XFAIL, or not one CPU"
fi
checks_summary

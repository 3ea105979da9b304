#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every report replays to the same results (make test step
# sim-replay). For every simulator profile and platform model, a sample of
# the corpus dumps (every SAMPLE-th), and the real-KVM direct-boot log of
# this project's host (testing/fixtures/kvm-direct-amd-pmu-off.ktap.xz):
#   run -> report -> `pmusim --replay REPORT` gives the same result for every
#   test (`ktap-report.py diff`: nothing regressed, fixed, appeared,
#   disappeared, known or changed); so do QEMU TCG logs of both vendors
#   (testing/fixtures/qemu-tcg-*.ktap.xz, replayed with TCG's quirks);
# and a report with an injected deviation (quirk rdpmc-type-as-flags) is
# explained (`ktap-report.py explain`) with that quirk's tests and the first
# differing access; a broken log is one line and exit 2.
# Two at a time (xargs -P2): about 40 s on a 2-core machine.
#
#   testing/test-replay.sh [SAMPLE]
# Exit status: 0 all passed, 1 a check failed.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
SAMPLE=${1:-25}
PMUSIM=build/host/pmusim
OUT=build/replay
checks_outdir "$OUT"

# round_trip NAME PMUSIM-ARGS...: the run and its replay; one line, "diff
# NAME" (their results are compared next, by diff_last_lines) or "not ok
# NAME: why".
round_trip() {
	local name=$1
	shift
	"$PMUSIM" "$@" >"$OUT/$name.ktap" 2>"$OUT/$name.err"
	if [[ $? -gt 1 ]]; then echo "not ok $name: the run failed: $(tail -n 1 "$OUT/$name.err")"; return; fi
	"$PMUSIM" --replay "$OUT/$name.ktap" >"$OUT/$name.replay.ktap" 2>"$OUT/$name.err"
	if [[ $? -gt 1 ]]; then echo "not ok $name: the replay failed: $(tail -n 1 "$OUT/$name.err")"; return; fi
	echo "diff $name"
}
export -f round_trip

# diff_last_lines NAME...: "NAME<TAB>LINE" a NAME, LINE the counts line of
# `ktap-report.py diff OUT/NAME.ktap OUT/NAME.replay.ktap` ("# N regressed,
# ..."; empty when it printed none; its errors on stderr), all in one
# Python: an interpreter a diff was half this step's time.
diff_last_lines() {
	python3 - "$OUT" "$@" <<'EOF'
import contextlib, io, sys, traceback
from pmureport.cli import main
for name in sys.argv[2:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(["diff", f"{sys.argv[1]}/{name}.ktap", f"{sys.argv[1]}/{name}.replay.ktap"])
        except SystemExit:
            pass
        except Exception:
            traceback.print_exc()
    lines = [ln for ln in out.getvalue().splitlines() if " regressed, " in ln and ln.startswith("# ")]
    print(f"{name}\t{lines[-1] if lines else ''}")
EOF
}

# same_as_recorded DIFF-COUNTS-LINE: a recorded log (testing/fixtures/)
# replays to the same results; tests added since it was recorded
# ("appeared") are not in it, whatever their result (an appeared failure
# counts among the regressions), and a failure's check text may have been
# reworded since ("refailed": same result, another fingerprint): the only
# differences allowed.
same_as_recorded() {
	[[ $1 =~ ^"# 0 regressed, 0 fixed, "[0-9]+" appeared, 0 disappeared, 0 known, "[0-9]+" refailed, 0 inferred, 0 skip-reason, 0 changed; "[0-9]+" regressions"$ ]]
}
export PMUSIM OUT

{
	"$PMUSIM" --list-profiles | awk '{ print $1 }' | grep -v '^intel_\|^amd_\|^via_\|^zhaoxin_\|^hyperv_' |
		sed 's/^/--profile /'
	"$PMUSIM" --list-profiles | awk '$1 ~ /^(intel|amd|hyperv)_/ { print "--profile " $1 }'
	compgen -G 'data/cpuid/corpus/*.txt' | awk -v n="$SAMPLE" 'NR % n == 1 { print "--cpuid-dump " $0 }'
} >"$OUT/plan"
results=$(while read -r opt arg; do
	printf '%s\0%s\0%s\0' "$(basename "$arg" .txt)" "$opt" "$arg"
done <"$OUT/plan" | nice -n 19 xargs -0 -n 3 -P 2 bash -c 'round_trip "$@"' _)
# shellcheck disable=SC2046 # the names are words
while IFS=$'\t' read -r name d; do
	if [[ $d == "# 0 regressed, 0 fixed, 0 appeared, 0 disappeared, 0 known, 0 refailed, 0 inferred, 0 skip-reason, 0 changed; 0 regressions" ]]; then
		check "replay: $name" 0
	else
		check "replay: $name: $d" 1
	fi
done < <(diff_last_lines $(sed -n 's/^diff //p' <<<"$results"))
while read -r status rest; do
	[[ $status == not ]] && check "replay: ${rest#ok }" 1
done <<<"$results"

# The real KVM guest (this project's AMD host, kvm.enable_pmu=N, 2 vCPUs):
# replayed with the KVM platform model, the same results.
# (Recorded 2026-11-26 by the kvm-direct step's command with
# --log; kept xz-compressed: 112 KB of log, 8 KB stored.)
K=$OUT/kvm-direct.ktap
xz -dc testing/fixtures/kvm-direct-amd-pmu-off.ktap.xz >"$K"
"$PMUSIM" --replay "$K" >"$OUT/kvm-direct.replay.ktap" 2>"$OUT/kvm-direct.err"
# (with the QEMU TCG logs below: one Python for the three diffs)
for t in qemu-tcg-max qemu-tcg-skylake-client; do
	xz -dc "testing/fixtures/$t.ktap.xz" >"$OUT/$t.ktap"
	"$PMUSIM" --replay "$OUT/$t.ktap" >"$OUT/$t.replay.ktap" 2>"$OUT/$t.err"
done
declare -A recorded=()
while IFS=$'\t' read -r name d; do recorded[$name]=$d; done < <(diff_last_lines kvm-direct qemu-tcg-max qemu-tcg-skylake-client)
d=${recorded[kvm-direct]}
same_as_recorded "$d"
check "replay: the real-KVM direct-boot log (testing/fixtures/kvm-direct-amd-pmu-off.ktap.xz): $d" $?
grep -q '^# pmutest .* on sim: profile replay.*, quirks .*kvm-amd-no-vpmu' "$OUT/kvm-direct.replay.ktap"
check "replay: the KVM guest runs with the platform model's quirks (kvm-amd-zen4-pmu-off)" $?

# QEMU TCG (no PMU; its deviations are quirks, arch/sim/replay.c): the
# direct-boot logs of the `max` CPU (AMD, recorded 2026-11-28) and
# Skylake-Client (2026-11-26), with QEMU 7.2 (tools/run-qemu.sh --kernel
# [--cpu Skylake-Client]), xz-compressed.
for t in qemu-tcg-max qemu-tcg-skylake-client; do
	d=${recorded[$t]}
	same_as_recorded "$d"
	check "replay: the QEMU TCG log testing/fixtures/$t.ktap.xz: $d" $?
done

# The report's leaves are a `cpuid -r` dump for the dump reader of pmucaps
# too (lib/cpuid_dump.h: the "# pmutest report" mark).
{ echo "# pmutest report"; sed -n 's/^# cpuid: config 1: //p' "$OUT/kvm-direct.ktap"; } >"$OUT/kvm-direct.cpuid"
build/host/pmucaps --cpuid-dump "$OUT/kvm-direct.cpuid" >"$OUT/kvm-direct.json" 2>&1 &&
	grep -q '"hypervisor_vendor": "KVMKVMKVM"' "$OUT/kvm-direct.json"
check "pmucaps --cpuid-dump reads a report's '# cpuid:' lines (the KVM guest's record)" $?

# An injected deviation, explained: the quirk's tests and the first access.
"$PMUSIM" --profile synth-v5-metrics --set suites=rdpmc --quirk rdpmc-type-as-flags >"$OUT/quirk.ktap"
python3 tools/ktap-report.py explain "$OUT/quirk.ktap" >"$OUT/quirk.explain" 2>&1
check "explain: exit 1 when the machine differs" "$([[ $? -eq 1 ]]; echo $?)"
grep -q '^rdpmc.all_types_sweep: conforming pass, machine fail' "$OUT/quirk.explain" &&
	grep -q '^rdpmc.gp_and_fixed_outcome_table: conforming pass, machine fail' "$OUT/quirk.explain" &&
	grep -q '^# 2 tests differ' "$OUT/quirk.explain"
check "explain: exactly the quirk's tests (rdpmc.all_types_sweep, rdpmc.gp_and_fixed_outcome_table)" $?
grep -q '^  first differing access: #0: machine rdpmc 0x10000 -> 0 (ok), conforming rdpmc 0x10000 -> 0 (#GP)' "$OUT/quirk.explain"
check "explain: the first differing access (RDPMC ECX=0x10000: no fault, conforming #GP)" $?
python3 tools/ktap-report.py bugreport "$OUT/quirk.ktap" -o "$OUT/quirk.md" &&
	grep -q '^build/host/pmusim --replay quirk.ktap$' "$OUT/quirk.md" &&
	grep -q '^### rdpmc.all_types_sweep: fail$' "$OUT/quirk.md" &&
	grep -q '^trace: [0-9]* rdpmc 0x' "$OUT/quirk.md" &&
	grep -q '^cpuid: config 1: 0x0000000a 0x00: eax=' "$OUT/quirk.md"
check "bugreport: the failures, their trace and the replay command" $?
# A known deviation the machine shows (its row matches), explained with the
# access where the machine departs: GLOBAL_STATUS keeps the REF_TSC bit.
"$PMUSIM" --cpuid-dump data/cpuid/intel_icelake_client_706e5.txt --quirk ref-tsc-overflow-sticky \
	--set suites=global >"$OUT/known.ktap"
python3 tools/ktap-report.py explain "$OUT/known.ktap" >"$OUT/known.explain" 2>&1
grep -q '^known deviation matches the machine: ref-tsc-overflow-sticky$' "$OUT/known.explain" &&
	grep -q '^  first differing access: #[0-9]*: machine rdmsr 0x38e -> 0xc00000000 (ok), conforming rdmsr 0x38e -> 0x800000000 (ok)' "$OUT/known.explain"
check "explain: the matching known-deviation row and its first differing access (IA32_PERF_GLOBAL_STATUS)" $?
head -c 3000 "$OUT/quirk.ktap" >"$OUT/cut.ktap"
out=$(python3 tools/ktap-report.py explain "$OUT/cut.ktap" 2>&1)
check "explain: a cut log is one line and exit 2 ($out)" "$([[ $? -eq 2 && $(wc -l <<<"$out") -eq 1 ]]; echo $?)"
out=$("$PMUSIM" --replay /etc/hostname 2>&1)
check "pmusim --replay: not a report is one line and exit 2 ($out)" "$([[ $? -eq 2 && $(wc -l <<<"$out") -eq 1 ]]; echo $?)"
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Robustness set, bounded in time (seconds): bad input and bad
# luck never give a PASS, a hang, a traceback or a silent loss.
#
#   1. the options corpus (testing/fixtures/options-corpus/) through pmusim: exit 2 with
#      one line per error exactly when the kernel's parser finds errors
#      (testing/unit/test_options.c checks the counts on the same files)
#   2. run-qemu.sh / run.sh: a run that cannot start removes the previous
#      log and exits 2; --timeout 0 is refused; an unwritable log is 2, not 1;
#      a missing QEMU is the run's result, never an old log's comparison;
#      SIGTERM to run.sh stops QEMU
#   3. host tools on hostile CPUID dumps (cut, no leaf 0, escapes, huge
#      numbers and lines, conflicts, 400,000 entries in bounded time), and
#      check-dumps.py when the reference cpuid tool crashes
#
# Prints "ok"/"not ok" lines and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
PMUSIM=build/host/pmusim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_status WANT DESCRIPTION COMMAND...: exit status WANT, within 60 s,
# stderr one line or more, never a traceback.
expect_status() {
	local want=$1 what=$2
	shift 2
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	local ok=1
	[[ $rc -eq $want ]] && ! grep -q Traceback "$tmp/err" && ok=0
	[[ $ok -ne 0 ]] && echo "#   got exit $rc: $(head -c 300 "$tmp/err")"
	check "$what (exit $want)" $ok
}

# 1. options corpus
while read -r name errors; do
	[[ -z $name || $name == \#* ]] && continue
	want=0
	[[ $errors -gt 0 ]] && want=2
	expect_status $want "pmusim --config options-corpus/$name ($errors errors)" \
		$PMUSIM --config "testing/fixtures/options-corpus/$name" --set suites=cpuid
	if [[ $want -eq 2 ]]; then
		n=$(grep -c 'option error: ' "$tmp/err")
		check "  ... reports $errors option errors (got $n)" "$([[ $n -eq $errors ]] && echo 0 || echo 1)"
		check "  ... no raw control character on the terminal" \
			"$(grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err" && echo 1 || echo 0)"
	fi
done <testing/fixtures/options-corpus/expected.txt
expect_status 2 "pmusim --set suites=rdmpc (a typo selects nothing)" $PMUSIM --set suites=rdmpc
expect_status 2 "pmusim --set tests=rdpmc.fast_bti (unknown test)" $PMUSIM --set tests=rdpmc.fast_bti
expect_status 2 "pmusim --config DIR" $PMUSIM --config tests
expect_status 2 "pmusim --perf-capabilities -1" $PMUSIM --perf-capabilities -1
expect_status 2 "pmusim --cpu 99999999999999999999" $PMUSIM --cpuid-dump /dev/null --cpu 99999999999999999999
expect_status 2 "pmusim --hypervisor '' (no signature)" $PMUSIM --hypervisor ''
expect_status 2 "pmusim --hypervisor of 13 characters" $PMUSIM --hypervisor 1234567890123
expect_status 2 "pmusim --perf-capabilities atom=zz" $PMUSIM --perf-capabilities atom=zz
expect_status 2 "pmusim --cpuid-dump of a whole machine, --cpu 9 it lacks" \
	$PMUSIM --cpuid-dump data/cpuid/machines/alderlake-hybrid-90672-2p2e.txt --cpu 9
expect_status 3 "pmusim: a selection where every test is excluded is ERROR, not PASS" \
	$PMUSIM --set "exclude=$($PMUSIM --set suites=rdmpc 2>&1 | sed -n "s/.*(suites: \(.*\))$/\1/p" | tr -d ' ')"
grep -q '^# verdict: ERROR' "$tmp/out"
check "  ... and its log says verdict ERROR" $?
python3 tools/ktap-report.py validate "$tmp/out" >/dev/null 2>&1
check "  ... which validate refuses" "$([[ $? -eq 2 ]] && echo 0 || echo 1)"

# pmucaps and pmusim read numbers alike (kparse_u64: decimal or 0x hex).
src0=data/cpuid/intel_skylake_client_506e3.txt
if [[ -r $src0 ]]; then
	for v in 010 0x10 -1 +1 ' 1' 99999999999999999999 0x; do
		build/host/pmucaps --cpuid-dump "$src0" --perf-capabilities "$v" >/dev/null 2>&1
		a=$?
		$PMUSIM --cpuid-dump "$src0" --perf-capabilities "$v" --set suites=cpuid >/dev/null 2>&1
		b=$?
		check "--perf-capabilities '$v': pmucaps exit $a, pmusim exit $b (the same verdict)" \
			"$([[ $((a == 0)) -eq $((b == 0)) ]] && echo 0 || echo 1)"
	done
fi

# 2. QEMU scripts (no boot is needed but for the SIGTERM and bad-options cases)
stale=$tmp/stale.log
echo "KTAP version 1" >"$stale"
echo "old" >"$stale.raw"
expect_status 2 "run-qemu.sh --timeout 0 is refused" tools/run-qemu.sh --timeout 0 --log "$stale"
expect_status 2 "run-qemu.sh without its image" tools/run-qemu.sh --efi "$tmp/none.efi" --log "$stale"
check "  ... removed the previous run's log" "$([[ ! -e $stale && ! -e $stale.raw ]] && echo 0 || echo 1)"
expect_status 2 "run-qemu.sh with an unwritable log" tools/run-qemu.sh --log /proc/pmutest/x.log
# A kept variable store from before the firmware was one image (OVMF_VARS
# alone) would not boot: refused in one line, not handed to QEMU.
head -c 540672 /dev/zero >"$tmp/old-vars.fd"
expect_status 2 "run-qemu.sh --vars with a store that is no firmware image" \
	tools/run-qemu.sh --vars "$tmp/old-vars.fd" --log "$tmp/old-vars.ktap"
grep -q "is not an image of" "$tmp/err"
check "  ... says what is wrong with it" $?
# A PATH without QEMU: the run's result is an error, not an older log's verdict.
mkdir -p "$tmp/bin"
declare -A seen=()
links=()
for f in /usr/bin/* /usr/sbin/*; do # the first of a name, as PATH finds it
	case ${f##*/} in qemu-system-*) continue ;; esac
	[[ -n ${seen[${f##*/}]:-} ]] && continue
	seen[${f##*/}]=1
	links+=("$f")
done
ln -s "${links[@]}" "$tmp/bin/" # one ln, not one a program (2,000 of them)
PATH=$tmp/bin expect_status 2 "make run without QEMU (tools/run.sh)" tools/run.sh
grep -q "qemu-system-x86_64 missing" "$tmp/err"
check "  ... says what is missing" $?

if [[ -z ${ROBUSTNESS_NO_QEMU:-} && -f build/BOOTX64.EFI ]] && command -v qemu-system-x86_64 >/dev/null; then
	# The kernel's own reading of bad options: each reported, verdict ERROR.
	printf 'suites = rdmpc\ntests = rdpmc.fast_bti\nverbose = 2\0\n' >"$tmp/bad.cfg"
	expect_status 2 "QEMU boot with bad options ends with verdict ERROR" \
		tools/run-qemu.sh --config "$tmp/bad.cfg" --log "$tmp/bad.ktap" --timeout 120
	for want in "option error: 'suites': no suite named 'rdmpc'" \
		"option error: 'tests': no test named 'rdpmc.fast_bti'" \
		"line has a NUL byte" "^# verdict: ERROR"; do
		grep -q -- "$want" "$tmp/bad.ktap"
		check "  ... the log says: $want" $?
	done
	python3 tools/ktap-report.py validate "$tmp/bad.ktap" >/dev/null 2>&1
	check "  ... which validate refuses (exit 2)" "$([[ $? -eq 2 ]] && echo 0 || echo 1)"
	tools/run.sh >"$tmp/run.out" 2>&1 &
	runpid=$!
	# This run's QEMU: a qemu-system process below make run (make test runs
	# other QEMUs beside this step: only this one's fate is checked).
	descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
	own_qemu() { local c; for c in $(descendants "$runpid"); do
		[[ $(ps -o comm= -p "$c" 2>/dev/null) == qemu-system* ]] && echo "$c"; done; }
	# Wait for QEMU to be up, at most 60 s.
	qpids=
	for _ in $(seq 600); do
		qpids=$(own_qemu)
		[[ -n $qpids ]] && break
		sleep 0.1
	done
	sleep 1
	kill -TERM $runpid
	t0=$SECONDS
	wait $runpid
	rc=$?
	check "SIGTERM to make run ends it (exit $rc) within 15 s" "$([[ $rc -ge 128 && $((SECONDS - t0)) -le 15 ]] && echo 0 || echo 1)"
	sleep 1
	left=
	for q in $qpids; do kill -0 "$q" 2>/dev/null && left+="$q "; done
	[[ -n $qpids ]] || left="(no QEMU of make run was seen)"
	check "  ... and QEMU with it (left: ${left:-none})" "$([[ -z $left ]] && echo 0 || echo 1)"
fi

# 3. CPUID dumps: every tool refuses a cut or hostile dump in one line
PMUCAPS=build/host/pmucaps
src=data/cpuid/intel_skylake_client_506e3.txt
d=$tmp/dumps
mkdir -p "$d"
if [[ -r $src ]]; then
	awk '/^ *0x0000000a /{exit} {print}' "$src" >"$d/cut-before-0ah.txt"
	grep -v '^ *0x00000000 0x00:' "$src" >"$d/no-leaf-0.txt"
	awk '/^ *0x80000004 /{exit} {print}' "$src" >"$d/cut-extended.txt"
	{ head -n 1 "$src"; printf '   \x1b]0;pwned\x07\x1b[2J 0x00000001 0x00: eax=1\n'; } >"$d/escape.txt"
	sed 's/^\( *0x00000000 0x00: eax=0x[0-9a-f]*\) ebx=0x[0-9a-f]*/\1 ebx=0x1b5b324a/' "$src" >"$d/escape-vendor.txt"
	{ cat "$src"; echo "   0x00000001 0x00: eax=0x$(printf '9%.0s' $(seq 4301)) ebx=0 ecx=0 edx=0"; } >"$d/huge-number.txt"
	head -c 10000000 /dev/zero | tr '\0' 'x' >"$d/long-line.txt"
	{ cat "$src"; grep '^ *0x00000001 0x00:' "$src" | sed 's/eax=0x\([0-9a-f]*\)/eax=0x1\1/'; } >"$d/conflict.txt"
	for f in cut-before-0ah no-leaf-0 cut-extended escape huge-number long-line conflict; do
		expect_status 2 "pmucaps refuses the $f dump" $PMUCAPS --cpuid-dump "$d/$f.txt"
		check "  ... in one line without a control character" \
			"$([[ $(wc -l <"$tmp/err") -eq 1 ]] && ! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err" && echo 0 || echo 1)"
		expect_status 2 "pmusim refuses the $f dump" $PMUSIM --cpuid-dump "$d/$f.txt"
	done
	expect_status 2 "pmucaps --cpuid-dump /dev/zero" $PMUCAPS --cpuid-dump /dev/zero
	expect_status 2 "pmucaps --cpuid-dump /dev/urandom" $PMUCAPS --cpuid-dump /dev/urandom
	$PMUSIM --cpuid-dump "$d/escape-vendor.txt" --set suites=cpuid >"$tmp/out" 2>&1
	check "a vendor string with a terminal escape reaches no terminal" \
		"$(grep -q $'\x1b' "$tmp/out" && echo 1 || echo 0)"
	# 400,000 entries, every one given twice: linear, seconds not minutes.
	python3 -c '
import sys
src = open(sys.argv[1]).read()
lines = ["   0x0000000d 0x%02x: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000000" % 0]
body = [l for l in src.splitlines() if l.strip()]
extra = ["   0x4fffffff 0x%08x: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4" % i for i in range(200000)]
print("\n".join(body + extra + extra))' "$src" >"$d/big.txt"
	t0=$(date +%s%N)
	expect_status 0 "pmucaps reads a dump of 400,000 entries with duplicates" $PMUCAPS --cpuid-dump "$d/big.txt"
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "  ... in $ms ms (bound 5000)" "$([[ $ms -lt 5000 ]] && echo 0 || echo 1)"
fi
# check-dumps.py goes on when the reference cpuid tool crashes (SIGFPE).
mkdir -p "$tmp/fpe" "$tmp/one"
printf '#!/bin/sh\nkill -FPE $$\n' >"$tmp/fpe/cpuid"
chmod +x "$tmp/fpe/cpuid"
[[ -r $src ]] && cp "$src" "$tmp/one/"
expect_status 0 "check-dumps.py with a cpuid tool that dies of SIGFPE" \
	python3 testing/check-dumps.py --dumps "$tmp/one" --cpuid "$tmp/fpe/cpuid"
grep -q "not comparable: cpuid died with SIGFPE" "$tmp/out"
check "  ... reports the dump as not comparable" $?

checks_summary

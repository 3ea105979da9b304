#!/bin/sh
# SPDX-License-Identifier: MIT
# No false verdicts: the suite on the simulator over every real
# CPUID dump, and the verdict rules that keep a conforming CPU passing.
#
#   1. every dump in data/cpuid and data/cpuid/corpus (or DIR):
#      pmusim --cpuid-dump must exit 0; a dump whose failures are all known
#      deviations (kernel/known.c, "# XFAIL") passes and is named with them;
#   2. known deviations: synth-core2-conroe passes with its XFAIL, and fails
#      with known=0 and under a hypervisor (the entry is for bare metal);
#   3. inferred rules: a deviation only an inferred rule catches is a
#      diagnostic by default (exit 0, "inferred" in the report) and a
#      failure with strict=1;
#   4. absurd CPUID: dumps with impossible leaf 0AH values or control bytes
#      in the vendor string run clean or are refused with one line naming
#      the field (exit 2); never a failure or an exception inside a test.
# Prints one line per problem and ends "corpus: N passed, N failed".
#
#   testing/check-corpus.sh [DIR] [PMUSIM]
# Exit status: 0 all passed, 1 a check failed, 2 bad usage.
set -u
case ${1:-} in -*) echo "usage: $0 [DIR] [PMUSIM]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
DUMPS=${1:-data/cpuid}
PMUSIM=${2:-build/host/pmusim}
[ -x "$PMUSIM" ] || { echo "check-corpus: $PMUSIM not built (make host)" >&2; exit 2; }
[ -d "$DUMPS" ] || { echo "check-corpus: no dumps directory $DUMPS" >&2; exit 2; }

T0=$(date +%s.%N)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmutest-corpus.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

# 1. Every dump: its KTAP in $DIR/<n>.out, "<n> <rc> <path>" in $DIR/rcs.
# Two interleaved halves (no per-dump helper processes: seconds in all).
ls "$DUMPS"/*.txt "$DUMPS"/corpus/*.txt 2>/dev/null >"$DIR/dumps"
run_half() { # run_half PARITY
	n=0
	while read -r f; do
		n=$((n + 1))
		[ $((n % 2)) = "$1" ] || continue
		"$PMUSIM" --cpuid-dump "$f" >"$DIR/$n.out" 2>&1
		echo "$n $? $f" >>"$DIR/rcs.$1"
	done <"$DIR/dumps"
}
run_half 0 &
run_half 1
wait
cat "$DIR/rcs.0" "$DIR/rcs.1" >"$DIR/rcs"
ndumps=$(wc -l <"$DIR/rcs")
while read -r n rc f; do
	if [ "$rc" = 0 ]; then
		ok
	else
		bad "$f: exit $rc: $(grep -m3 -E '^    not ok|^pmusim' "$DIR/$n.out" | tr -s ' ' | tr '\n' ';')"
	fi
done <"$DIR/rcs"
# Dumps that pass with known deviations only, named with them.
grep -E '^    ok [0-9]+ .* # XFAIL known deviation' "$DIR"/*.out 2>/dev/null |
	sed 's|^.*/\([0-9]*\)\.out:.*# XFAIL known deviation \([^:]*\):.*|\1 \2|' | sort -u >"$DIR/known"
nknown=$(cut -d' ' -f1 "$DIR/known" | sort -u | wc -l)
awk 'NR == FNR { path[$1] = $3; next } { sub(".*/", "", path[$1]); print "known: " path[$1] ": " $2 }' \
	"$DIR/rcs" "$DIR/known"
echo "dumps: $ndumps run, $((ndumps - nknown)) clean, $nknown clean with known deviations only"

# expect_run DESC WANT_RC GREP_PATTERN PMUSIM-ARGS...: one scripted run.
expect_run() {
	desc=$1 want=$2 pat=$3
	shift 3
	"$PMUSIM" "$@" >"$DIR/run.out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$desc: exit $rc, expected $want"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$DIR/run.out"; then
		bad "$desc: no line matching '$pat'"
	else
		ok
	fi
}

# 2. Known deviations.
expect_run "Core 2 profile: its known deviation is an XFAIL, verdict PASS" 0 \
	'^    ok [0-9]+ leaf_0ah_fields # XFAIL known deviation core2-' --profile synth-core2-conroe
expect_run "Core 2 profile with known=0: a plain failure" 1 '^    not ok [0-9]+ leaf_0ah_fields' \
	--profile synth-core2-conroe --set known=0

# The Core 2 entry is for bare metal (Linux assumes the fixed counters only
# there): the same CPUID under a hypervisor is a plain failure.
{
	printf 'CPU 0:\n'
	printf '   0x00000000 0x00: eax=0x0000000a ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n'
	printf '   0x00000001 0x00: eax=0x000006f6 ebx=0x00000800 ecx=0x8000e3bd edx=0xbfebfbff\n'
	for l in 2 3 4 5 6 7 8 9; do
		printf '   0x%08x 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n' "$l"
	done
	printf '   0x0000000a 0x00: eax=0x07280202 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n'
	printf '   0x40000000 0x00: eax=0x40000001 ebx=0x4b4d564b ecx=0x564b4d56 edx=0x0000004d\n'
} >"$DIR/core2-under-kvm.txt"
expect_run "Core 2 CPUID under KVM: the bare-metal entry does not apply" 1 \
	'^    not ok [0-9]+ leaf_0ah_fields' --cpuid-dump "$DIR/core2-under-kvm.txt"

# 3. Inferred rules: a diagnostic by default, a check with strict=1.
expect_run "fixed counter write above the width (inferred rule): diagnostic" 0 \
	'^    # inferred \(not a failure' --profile synth-v5-metrics --quirk fixed-write-no-width-gp
expect_run "the same with strict=1: a failure" 1 '^    not ok [0-9]+ fixed_width' \
	--profile synth-v5-metrics --quirk fixed-write-no-width-gp --set strict=1

# 4. Absurd CPUID: run clean (exit 0) or refused in one line (exit 2).
# absurd NAME VENDOR_EBX LEAF_0AH_EAX LEAF_0AH_EDX
absurd() {
	f=$DIR/absurd-$1.txt
	{
		printf 'CPU 0:\n'
		printf '   0x00000000 0x00: eax=0x0000000a ebx=%s ecx=0x6c65746e edx=0x49656e69\n' "$2"
		printf '   0x00000001 0x00: eax=0x000906a0 ebx=0x00100800 ecx=0x7ffafbbf edx=0xbfebfbff\n'
		for l in 2 3 4 5 6 7 8 9; do
			printf '   0x%08x 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n' "$l"
		done
		printf '   0x0000000a 0x00: eax=%s ebx=0x00000000 ecx=0x00000000 edx=%s\n' "$3" "$4"
	} >"$f"
	"$PMUSIM" --cpuid-dump "$f" >"$DIR/run.out" 2>"$DIR/run.err"
	rc=$?
	lines=$(wc -l <"$DIR/run.err")
	if [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$lines" = 1 ]; }; then
		ok
		echo "absurd $1: exit $rc $(head -c 160 "$DIR/run.err")"
	else
		bad "absurd CPUID $1: exit $rc ($lines lines on stderr) $(grep -m2 -E '^    not ok|unexpected exception' "$DIR/run.out" | tr '\n' ';')"
	fi
}
absurd gp-255 0x756e6547 0x0730ff05 0x00008603
absurd fixed-31 0x756e6547 0x07300805 0x0000861f
absurd gp-width-0 0x756e6547 0x07000805 0x00008603
absurd gp-width-65 0x756e6547 0x07410805 0x00008603
absurd fixed-width-0 0x756e6547 0x07300805 0x00008003
absurd fixed-width-200 0x756e6547 0x07300805 0x00009903
absurd vendor-control-bytes 0x756e0147 0x07300805 0x00008603
absurd version-255 0x756e6547 0x073008ff 0x00008603
absurd ebx-length-255 0x756e6547 0xff300805 0x00008603

T1=$(date +%s.%N)
printf 'check-corpus: %.2f s\n' "$(awk -v a="$T0" -v b="$T1" 'BEGIN { print b - a }')"
echo "corpus: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# The mutation matrix, both ways: the suite on every simulator profile (each
# must pass with no unexplained skip; known deviations, "# XFAIL", pass),
# then once per quirk on the profiles where the quirk is observable
# (pmusim --mutation-plan, from the quirk table):
#  - every quirk must make at least one named test fail that passes on the
#    conforming run of the same profile. Quirk runs use known=0: a quirk
#    that models a known deviation (kernel/known.c) is still a deviation the
#    checks must catch; the table is proven by scripts/check-known.sh. A
#    test a conforming run reports "# XFAIL" counts as failed there. A quirk caught only by a check of
#    an inferred rule (RULE_INFERRED: by default a "# inferred" diagnostic,
#    with strict=1 a failure, the run otherwise identical) is shown as
#    caught "(strict=1)";
#  - every test that runs (does not skip) on some profile must be failed by
#    at least one quirk: a test no deviation can fail proves nothing;
#  - the hypervisor platform models (pmusim kvm-*, firecracker-*, xen-*) run
#    too (known=0), and each quirk observable on one, added to the
#    hypervisor's own deviations, must still be caught on some platform, or
#    be masked on all of them (the tests that catch it elsewhere already fail
#    or skip there).
# Prints the matrix, the time, "caught N of M quirks" and "failed N of M
# tests that run". Exit 0 only when every profile conforms, every quirk is
# caught and every test that runs is failed by some quirk.
#
#   scripts/mutation.sh [-j JOBS] [-k] [PMUSIM]
#     -j JOBS  parallel runs (default 2)    -k  keep the run directory
set -u
JOBS=2
KEEP=0
while getopts j:k opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	k) KEEP=1 ;;
	*) echo "usage: $0 [-j JOBS] [-k] [PMUSIM]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PMUSIM=${1:-build/host/pmusim}
[ -x "$PMUSIM" ] || { echo "mutation: $PMUSIM not built (make host)" >&2; exit 2; }

T0=$(date +%s.%N)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmutest-mutation.XXXXXX")
[ "$KEEP" = 1 ] || trap 'rm -rf "$DIR"' EXIT

"$PMUSIM" --mutation-plan >"$DIR/plan" || { echo "mutation: --mutation-plan failed" >&2; exit 2; }

# One job per line: id, then pmusim arguments.
: >"$DIR/jobs"
for p in $(awk '$1 == "profile" { print $2 }' "$DIR/plan"); do
	echo "base.$p --profile $p" >>"$DIR/jobs"
done
awk '($1 == "quirk" || $1 == "firmware") && $3 != "-" { print "q." $2 "." $3 " --profile " $3 " --quirk " $2 " --set known=0" }' \
	"$DIR/plan" >>"$DIR/jobs"
# The hypervisor platforms (issue 29): each with known=0, and each quirk
# observable there added to the platform's own deviations.
awk '$1 == "platform" { print "pbase." $2 " --profile " $2 " --set known=0" }
	$1 == "pquirk" { print "pq." $2 "." $3 " --profile " $3 " --quirk " $2 " --set known=0" }' \
	"$DIR/plan" >>"$DIR/jobs"

# Failed tests of a run, as suite.test, one a line (sorted). A run on several
# CPUs (suite@cpuN) counts a test as failed when it failed on any CPU.
# shellcheck disable=SC2016,SC2089 # an awk program, expanded by awk
FAILED_AWK='
	/^# Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    KTAP version/ { next }
	/^    # Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    not ok [0-9]+ / { print suite "." $4 }
	/^    ok [0-9]+ .* # XFAIL / { print suite "." $3 }
'
# Tests that strict=1 would fail: failed, or with an "inferred" diagnostic
# (a check of an inferred rule that did not hold; strict=1 changes nothing
# else in the run).
# shellcheck disable=SC2016,SC2089
STRICT_AWK='
	/^# Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    # Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    # inferred \(not a failure/ { inferred = 1 }
	/^    (not )?ok [0-9]+ / {
		n = ($2 == "not") ? $4 : $3
		if ($2 == "not" || inferred) print suite "." n
		inferred = 0
	}
'
# Tests that ran (neither skipped nor a self-test), as suite.test.
ran() {
	awk '
		/^# Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
		/^    # Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
		/^    (not )?ok [0-9]+ / && !/# SKIP/ { n = ($2 == "not") ? $4 : $3; print suite "." n }
	' "$1" | sort -u
}

# Run: each job's KTAP in $DIR/<id>.out, its exit status in $DIR/<id>.rc,
# its failed tests (failed) in $DIR/<id>.f and those strict=1 would fail
# (strict_failed) in $DIR/<id>.sf: read in the parallel jobs, once a run
# (issue 31: the matrix below was a minute of one core reading them again).
# shellcheck disable=SC2090
export PMUSIM DIR FAILED_AWK STRICT_AWK
xargs -P "$JOBS" -L 1 sh -c '
	id=$1; shift
	timeout 60 "$PMUSIM" "$@" >"$DIR/$id.out" 2>&1
	echo $? >"$DIR/$id.rc"
	awk "$FAILED_AWK" "$DIR/$id.out" | sort -u >"$DIR/$id.f"
	awk "$STRICT_AWK" "$DIR/$id.out" | sort -u >"$DIR/$id.sf"
' sh <"$DIR/jobs"

# Skipped tests with no reason given (an explained skip names what is missing).
unexplained_skips() {
	awk '/^    ok [0-9]+ .* # SKIP *$/ { print }' "$1"
}

status=0
echo "== conforming profiles"
nprof=0
nprof_ok=0
for p in $(awk '$1 == "profile" { print $2 }' "$DIR/plan"); do
	nprof=$((nprof + 1))
	out=$DIR/base.$p.out
	rc=$(cat "$DIR/base.$p.rc")
	f=$(tr '\n' ' ' <"$DIR/base.$p.sf") # a conforming CPU follows the inferred rules too
	u=$(unexplained_skips "$out" | wc -l)
	tot=$(grep -m1 '^# Totals:' "$out" | sed 's/^# Totals: //')
	if [ "$rc" != 0 ] || [ -n "$f" ] || [ "$u" != 0 ]; then
		printf '  FAIL %-36s rc=%s %s failed: %s unexplained skips: %s\n' "$p" "$rc" "$tot" "$f" "$u"
		status=1
	else
		printf '  ok   %-36s %s\n' "$p" "$tot"
		nprof_ok=$((nprof_ok + 1))
	fi
done

echo "== quirks (quirk / profile / checks that caught it)"
caught=0
total=0
for q in $(awk '$1 == "quirk" { print $2 }' "$DIR/plan" | uniq); do
	total=$((total + 1))
	hit=0
	rows=""
	for p in $(awk -v q="$q" '$1 == "quirk" && $2 == q && $3 != "-" { print $3 }' "$DIR/plan"); do
		id=q.$q.$p
		new=$(comm -23 "$DIR/$id.f" "$DIR/base.$p.f" | tr '\n' ' ')
		strict=""
		if [ -z "$new" ]; then
			new=$(comm -23 "$DIR/$id.sf" "$DIR/base.$p.f" | tr '\n' ' ')
			strict="(strict=1) "
		else
			# the inferred-rule checks it broke too, for the tests direction
			comm -23 "$DIR/$id.sf" "$DIR/base.$p.f" >>"$DIR/caught-tests"
		fi
		rc=$(cat "$DIR/$id.rc")
		if [ -n "$new" ]; then
			hit=1
			printf '  %-34s %-32s %s%s\n' "$q" "$p" "$strict" "$new"
			echo "$new" | tr ' ' '\n' | grep -v '^$' >>"$DIR/caught.$q"
			echo "$new" | tr ' ' '\n' >>"$DIR/caught-tests"
		else
			printf '  %-34s %-32s NOT CAUGHT (rc=%s)\n' "$q" "$p" "$rc"
		fi
	done
	if ! awk -v q="$q" '$1 == "quirk" && $2 == q && $3 != "-" { f = 1 } END { exit !f }' "$DIR/plan"; then
		printf '  %-34s %-32s NOT CAUGHT (no applicable profile)\n' "$q" "-"
	fi
	if [ $hit = 1 ]; then
		caught=$((caught + 1))
	else
		status=1
	fi
done
# Firmware-state quirks (what firmware may write after reset): the run must
# name it ("# firmware state: ..." beyond the conforming run's) and fail no
# test the conforming run passes: firmware is not the CPU.
echo "== firmware state (quirk / profile / note; nothing may fail)"
fw_total=0
fw_ok=0
for q in $(awk '$1 == "firmware" { print $2 }' "$DIR/plan" | uniq); do
	for p in $(awk -v q="$q" '$1 == "firmware" && $2 == q && $3 != "-" { print $3 }' "$DIR/plan"); do
		fw_total=$((fw_total + 1))
		id=q.$q.$p
		new=$(comm -23 "$DIR/$id.f" "$DIR/base.$p.f" | tr '\n' ' ')
		grep '^# firmware state: ' "$DIR/base.$p.out" >"$DIR/base.$p.fw"
		note=$(grep '^# firmware state: ' "$DIR/$id.out" | grep -vxF -f "$DIR/base.$p.fw" | head -n 1)
		if [ -z "$new" ] && [ -n "$note" ] && grep -q '^# verdict: ' "$DIR/$id.out"; then
			fw_ok=$((fw_ok + 1))
			printf '  %-34s %-32s ok: %.90s\n' "$q" "$p" "${note#\# firmware state: }"
		else
			printf '  %-34s %-32s WRONG: failed [%s] note [%s]\n' "$q" "$p" "$new" "$note"
			status=1
		fi
	done
done
# The hypervisor platforms: a quirk added to a hypervisor's own deviations
# must still fail a test the platform's run (known=0) passes -- or, with
# strict=1, a check of an inferred rule -- on at least one platform where it
# is observable, unless it is masked on all of them: every test that caught
# it on the conforming profiles already fails (strict=1 included) or skips on
# that platform (the hypervisor itself breaks or hides what the quirk would
# break, e.g. pmu-msrs-raz-wi where KVM already answers the P6 MSRs).
echo "== quirks on the hypervisor platforms (quirk / platforms that caught it, or masked)"
p_total=0
p_caught=0
for p in $(awk '$1 == "platform" { print $2 }' "$DIR/plan"); do
	sort -u "$DIR/pbase.$p.sf" "$DIR/pbase.$p.f" >"$DIR/pbase.$p.sfailed"
	ran "$DIR/pbase.$p.out" | comm -23 - "$DIR/pbase.$p.sfailed" >"$DIR/pbase.$p.passed"
done
for q in $(awk '$1 == "pquirk" { print $2 }' "$DIR/plan" | sort -u); do
	p_total=$((p_total + 1))
	on=""
	masked=0
	n=0
	sort -u "$DIR/caught.$q" 2>/dev/null >"$DIR/caught.$q.sorted"
	for p in $(awk -v q="$q" '$1 == "pquirk" && $2 == q { print $3 }' "$DIR/plan"); do
		n=$((n + 1))
		new=$(comm -23 "$DIR/pq.$q.$p.f" "$DIR/pbase.$p.f" | head -n 1)
		[ -n "$new" ] || new=$(comm -23 "$DIR/pq.$q.$p.sf" "$DIR/pbase.$p.sfailed" | head -n 1)
		if [ -n "$new" ]; then
			on="$on $p"
		elif [ -z "$(comm -12 "$DIR/caught.$q.sorted" "$DIR/pbase.$p.passed")" ]; then
			masked=$((masked + 1))
		fi
	done
	if [ -n "$on" ] || [ "$masked" = "$n" ]; then
		p_caught=$((p_caught + 1))
		[ -n "$on" ] && what="caught on$on" || what="masked on all $n (the tests that catch it already fail or skip there)"
		printf '  %-40s %s\n' "$q" "$what" | cut -c1-170
	else
		printf '  %-40s NOT CAUGHT on any of %d platforms (%d masked)\n' "$q" "$n" "$masked"
		status=1
	fi
done
echo "platforms: caught $p_caught of $p_total quirks observable on a hypervisor platform (or masked there)"

# The other way: every test that runs on some profile is failed by a quirk.
echo "== tests that run on some profile and no quirk fails"
for p in $(awk '$1 == "profile" { print $2 }' "$DIR/plan"); do
	ran "$DIR/base.$p.out"
done | sort -u >"$DIR/ran-tests"
touch "$DIR/caught-tests"
sort -u "$DIR/caught-tests" | grep -v '^$' >"$DIR/caught-tests.sorted"
never=$(comm -23 "$DIR/ran-tests" "$DIR/caught-tests.sorted")
nran=$(wc -l <"$DIR/ran-tests")
nnever=$(printf '%s' "$never" | grep -c . || true)
for tname in $never; do
	printf '  NEVER FAILED %s\n' "$tname"
done
[ "$nnever" = 0 ] || status=1
T1=$(date +%s.%N)
runs=$(wc -l <"$DIR/jobs")
printf 'mutation: %d profiles, %d runs on %s cores in %.2f s\n' "$nprof" "$runs" "$JOBS" \
	"$(awk -v a="$T0" -v b="$T1" 'BEGIN { print b - a }')"
[ "$KEEP" = 1 ] && echo "mutation: runs kept in $DIR"
# One line for test runners: every conforming profile and every quirk is a check.
echo "mutation: $((nprof_ok + caught + nran - nnever + fw_ok + p_caught)) passed, $((nprof - nprof_ok + total - caught + nnever + fw_total - fw_ok + p_total - p_caught)) failed"
echo "caught $caught of $total quirks"
echo "firmware state: $fw_ok of $fw_total runs reported it and failed nothing"
echo "failed $((nran - nnever)) of $nran tests that run (each by at least one quirk)"
exit $status

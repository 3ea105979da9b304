#!/bin/sh
# The mutation matrix: the suite on every simulator profile (each must pass
# with no unexplained skip), then once per quirk on the profiles where the
# quirk is observable (pmusim --mutation-plan, from the quirk table): each
# quirk must make at least one named check fail that passes on the
# conforming run of the same profile. Prints the matrix, the time, and
# "caught N of M quirks". Exit 0 only when every profile conforms and every
# quirk is caught.
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
awk '$1 == "quirk" && $3 != "-" { print "q." $2 "." $3 " --profile " $3 " --quirk " $2 }' \
	"$DIR/plan" >>"$DIR/jobs"

# Run: each job's KTAP in $DIR/<id>.out, its exit status in $DIR/<id>.rc.
export PMUSIM DIR
xargs -P "$JOBS" -L 1 sh -c '
	id=$1; shift
	timeout 60 "$PMUSIM" "$@" >"$DIR/$id.out" 2>&1
	echo $? >"$DIR/$id.rc"
' sh <"$DIR/jobs"

# Failed tests of a run, as suite.test, one a line (sorted).
failed() {
	awk '
		/^# Subtest: / { suite = $3 }
		/^    KTAP version/ { next }
		/^    # Subtest: / { suite = $3 }
		/^    not ok [0-9]+ / { print suite "." $4 }
	' "$1" | sort -u
}
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
	f=$(failed "$out" | tr '\n' ' ')
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
		failed "$DIR/base.$p.out" >"$DIR/base.$p.failed"
		new=$(failed "$DIR/$id.out" | comm -23 - "$DIR/base.$p.failed" | tr '\n' ' ')
		rc=$(cat "$DIR/$id.rc")
		if [ -n "$new" ]; then
			hit=1
			printf '  %-34s %-32s %s\n' "$q" "$p" "$new"
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
T1=$(date +%s.%N)
runs=$(wc -l <"$DIR/jobs")
printf 'mutation: %d profiles, %d runs on %s cores in %.2f s\n' "$nprof" "$runs" "$JOBS" \
	"$(awk -v a="$T0" -v b="$T1" 'BEGIN { print b - a }')"
[ "$KEEP" = 1 ] && echo "mutation: runs kept in $DIR"
# One line for test runners: every conforming profile and every quirk is a check.
echo "mutation: $((nprof_ok + caught)) passed, $((nprof - nprof_ok + total - caught)) failed"
echo "caught $caught of $total quirks"
exit $status

#!/bin/sh
# SPDX-License-Identifier: MIT
# The mutation matrix, both ways: the suite on every simulator profile (each
# must pass with no unexplained skip; known deviations, "# XFAIL", pass),
# then once per quirk on the profiles where the quirk is observable
# (pmusim --mutation-plan, from the quirk table):
#  - every quirk must make at least one named test fail that passes on the
#    conforming run of the same profile. Quirk runs use known=0: a quirk
#    that models a known deviation (kernel/known.c) is still a deviation the
#    checks must catch; the table is proven by testing/check-known.sh. A
#    test a conforming run reports "# XFAIL" counts as failed there. A quirk caught only by a check of
#    an inferred rule (RULE_INFERRED: by default a "# inferred" diagnostic,
#    with strict=1 a failure, the run otherwise identical) is shown as
#    caught "(strict=1)";
#  - with default options (known=1, strict=0), every quirk must make some run
#    exit non-zero, but for a quirk that only checks of inferred rules see:
#    its runs that see it must end "# verdict: PASS-INFERRED", never a plain
#    PASS (a broken feature never reads as a pass);
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
#   testing/mutation.sh [-j JOBS] [-k] [PMUSIM]
#     -j JOBS  parallel runs (default 2)    -k  keep the run directory
set -u
if ! command -v gawk >/dev/null 2>&1; then
	echo "skipped: gawk is missing (mk/deps.sh --test installs it as root)"
	echo "0 passed, 0 failed"
	exit 0
fi
# sort, comm and gawk order the test names alike (bytes)
export LC_ALL=C
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
# The plan's profiles and platform models: names without blanks, one a word.
profiles=$(awk '$1 == "profile" { print $2 }' "$DIR/plan")
platforms=$(awk '$1 == "platform" { print $2 }' "$DIR/plan")

# One job per line: id, then pmusim arguments.
: >"$DIR/jobs"
for p in $profiles; do
	echo "base.$p --profile $p" >>"$DIR/jobs"
done
# Each quirk with known=0, then with default options: what a user who runs
# pmutest on a broken machine sees (exit status and verdict).
awk '($1 == "quirk" || $1 == "firmware") && $3 != "-" { print "q." $2 "." $3 " --profile " $3 " --quirk " $2 " --set known=0" }
	$1 == "quirk" && $3 != "-" { print "d." $2 "." $3 " --profile " $3 " --quirk " $2 }' \
	"$DIR/plan" >>"$DIR/jobs"
# The hypervisor platforms: each with known=0, and each quirk
# observable there added to the platform's own deviations.
awk '$1 == "platform" { print "pbase." $2 " --profile " $2 " --set known=0" }
	$1 == "pquirk" { print "pq." $2 "." $3 " --profile " $3 " --quirk " $2 " --set known=0" }' \
	"$DIR/plan" >>"$DIR/jobs"

# Each run's failed tests (failed) in $DIR/<id>.f and those strict=1 would
# fail (strict_failed) in $DIR/<id>.sf: suite.test, one a line, sorted and
# unique. failed: a test failed, or reported "# XFAIL" (a run on several CPUs
# (suite@cpuN) counts a test as failed when it failed on any CPU).
# strict_failed: failed, or with an "inferred" diagnostic (a check of an
# inferred rule that did not hold; strict=1 changes nothing else in the
# run). One gawk reads every run once (an awk and a sort each a
# run were a quarter of the matrix's time).
# shellcheck disable=SC2016 # an awk program, expanded by awk
TESTS_AWK='
	BEGINFILE { stem = FILENAME; sub(/\.out$/, "", stem); suite = ""; inferred = 0 }
	/^# Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    KTAP version/ { next }
	/^    # Subtest: / { suite = $3; sub(/@cpu[0-9]+$/, "", suite) }
	/^    not ok [0-9]+ / { failed[suite "." $4] = 1 }
	/^    ok [0-9]+ .* # XFAIL / { failed[suite "." $3] = 1 }
	/^    # inferred \(not a failure/ { inferred = 1 }
	/^    (not )?ok [0-9]+ / {
		n = ($2 == "not") ? $4 : $3
		if ($2 == "not" || inferred) strict_failed[suite "." n] = 1
		inferred = 0
	}
	ENDFILE {
		PROCINFO["sorted_in"] = "@ind_str_asc"
		printf "" >(stem ".f")
		printf "" >(stem ".sf")
		for (t in failed) print t >(stem ".f")
		for (t in strict_failed) print t >(stem ".sf")
		close(stem ".f")
		close(stem ".sf")
		delete failed
		delete strict_failed
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

# Run: each job's KTAP in $DIR/<id>.out, its exit status in $DIR/<id>.rc
# (testing/lib/run-jobs.py: one posix_spawn a run, killed after 60 s; a
# shell and timeout a run were a fifth of the matrix's time); then TESTS_AWK.
awk -v dir="$DIR" '{ $1 = dir "/" $1; print }' "$DIR/jobs" |
	python3 "$(dirname "$0")/lib/run-jobs.py" -j "$JOBS" -t 60 "$PMUSIM" || exit 2
awk -v dir="$DIR" '{ print dir "/" $1 ".out" }' "$DIR/jobs" | xargs gawk "$TESTS_AWK"

# Skipped tests with no reason given (an explained skip names what is missing).
unexplained_skips() {
	awk '/^    ok [0-9]+ .* # SKIP *$/ { print }' "$1"
}

status=0
echo "== conforming profiles"
nprof=0
nprof_ok=0
for p in $profiles; do
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

# Sets of test names, read by the gawk programs below: each file is one a
# line, sorted and unique, so `comm -23 A B` is minus(A, B) (A's order) and
# `comm -12 A B` is common(A, B) != "".
# shellcheck disable=SC2016 # awk programs, expanded by awk
SETS_AWK='
	function read_set(file, s,   line) {
		delete s
		while ((getline line <file) > 0) s[line] = 1
		close(file)
	}
	function minus(a, b,   s, line, out) { # the lines of a not in b, each followed by a space
		read_set(b, s)
		out = ""
		while ((getline line <a) > 0) if (!(line in s)) out = out line " "
		close(a)
		return out
	}
	function first_line(file,   line) {
		line = ""
		getline line <file
		close(file)
		return line
	}
	function words_to(file, words,   w, n, i) { # each word on a line of its own, appended
		n = split(words, w, " ")
		for (i = 1; i <= n; i++) print w[i] >>file
		close(file)
	}
'
# Each quirk, on each profile where it is observable: the tests it fails
# that the conforming run passes ($DIR/caught.QUIRK, and $DIR/caught-tests
# with the inferred-rule checks it broke too, for the tests direction);
# failing none, the checks of inferred rules it breaks (strict=1). One gawk
# for the whole matrix (a dozen programs a row were 15 s).
echo "== quirks (quirk / profile / checks that caught it)"
gawk -v dir="$DIR" "$SETS_AWK"'
	$1 == "quirk" {
		if ($2 != last) order[++nq] = last = $2 # as `uniq`
		if ($3 != "-") pair[$2, ++np[$2]] = $3
	}
	END {
		for (k = 1; k <= nq; k++) {
			q = order[k]
			hit = 0
			for (j = 1; j <= np[q]; j++) {
				p = pair[q, j]
				id = dir "/q." q "." p
				base = dir "/base." p ".f"
				new = minus(id ".f", base)
				strict = ""
				if (new == "") {
					new = minus(id ".sf", base)
					strict = "(strict=1) "
				} else {
					words_to(dir "/caught-tests", minus(id ".sf", base))
				}
				if (new != "") {
					hit = 1
					printf "  %-34s %-32s %s%s\n", q, p, strict, new
					words_to(dir "/caught." q, new)
					words_to(dir "/caught-tests", new)
				} else {
					printf "  %-34s %-32s NOT CAUGHT (rc=%s)\n", q, p, first_line(id ".rc")
				}
			}
			if (!np[q]) printf "  %-34s %-32s NOT CAUGHT (no applicable profile)\n", q, "-"
			caught += hit
		}
		print caught + 0, nq + 0 >(dir "/quirks-caught")
	}' "$DIR/plan"
read -r caught total <"$DIR/quirks-caught"
[ "$caught" = "$total" ] || status=1
# Default options: some run of the quirk exits non-zero; or no run does, the
# quirk is seen only by inferred rules (no test fails with known=0 that the
# conforming run passes), and each run that sees it ends PASS-INFERRED; or
# it models a known deviation (kernel/known.c) and every profile where it
# is observable is in the row's range: each run names the row (# XFAIL),
# and testing/check-known.sh proves the row both ways.
echo "== quirks with default options (exit status; inferred-only: the verdict)"
gawk -v dir="$DIR" "$SETS_AWK"'
	function verdict(file,   line, v) {
		v = ""
		while ((getline line <file) > 0) if (line ~ /^# verdict: /) v = substr(line, 12)
		close(file)
		return v
	}
	$1 == "quirk" {
		if ($2 != last) order[++nq] = last = $2
		if ($3 != "-") pair[$2, ++np[$2]] = $3
	}
	END {
		for (k = 1; k <= nq; k++) {
			q = order[k]
			nonzero = ""; failing = 0; seen = 0; plain = ""; xfail = 0
			for (j = 1; j <= np[q]; j++) {
				p = pair[q, j]
				if (first_line(dir "/d." q "." p ".rc") != "0") nonzero = nonzero " " p
				else if (minus(dir "/d." q "." p ".f", dir "/base." p ".f") != "") xfail++
				if (minus(dir "/q." q "." p ".f", dir "/base." p ".f") != "") failing = 1
				if (minus(dir "/q." q "." p ".sf", dir "/base." p ".f") != "") {
					seen++
					v = verdict(dir "/d." q "." p ".out")
					if (v != "PASS-INFERRED") plain = plain " " p "=" v
				}
			}
			if (!np[q]) continue
			total++
			if (nonzero != "") { ok++; continue }
			if (xfail == np[q]) {
				ok++
				printf "  %-34s known: a row names it (# XFAIL) on all %d profile(s) it is observable on\n", q, np[q]
				continue
			}
			if (!failing && seen && plain == "") {
				ok++; inferred++
				printf "  %-34s inferred only: exit 0, verdict PASS-INFERRED on %d profile(s)\n", q, seen
				continue
			}
			printf "  %-34s WRONG: no run exits non-zero%s%s\n", q,
				failing ? " though a check of a sourced or manual rule fails" : "",
				plain != "" ? "; verdict not PASS-INFERRED:" plain : ""
		}
		print ok + 0, total + 0, inferred + 0 >(dir "/quirks-default")
	}' "$DIR/plan"
read -r d_ok d_total d_inferred <"$DIR/quirks-default"
[ "$d_ok" = "$d_total" ] || status=1
# Firmware-state quirks (what firmware may write after reset): the run must
# name it ("# firmware state: ..." beyond the conforming run's) and fail no
# test the conforming run passes: firmware is not the CPU.
echo "== firmware state (quirk / profile / note; nothing may fail)"
fw_total=0
fw_ok=0
for q in $(awk '$1 == "firmware" { print $2 }' "$DIR/plan" | uniq); do
	fw_profiles=$(awk -v q="$q" '$1 == "firmware" && $2 == q && $3 != "-" { print $3 }' "$DIR/plan")
	for p in $fw_profiles; do
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
for p in $platforms; do
	sort -u "$DIR/pbase.$p.sf" "$DIR/pbase.$p.f" >"$DIR/pbase.$p.sfailed"
	ran "$DIR/pbase.$p.out" | comm -23 - "$DIR/pbase.$p.sfailed" >"$DIR/pbase.$p.passed"
done
gawk -v dir="$DIR" "$SETS_AWK"'
	$1 == "pquirk" { pair[$2, ++np[$2]] = $3 }
	END {
		PROCINFO["sorted_in"] = "@ind_str_asc" # as `sort -u`
		for (q in np) {
			total++
			on = ""
			masked = 0
			read_set(dir "/caught." q, caught_q)
			for (j = 1; j <= np[q]; j++) {
				p = pair[q, j]
				id = dir "/pq." q "." p
				new = minus(id ".f", dir "/pbase." p ".f")
				if (new == "") new = minus(id ".sf", dir "/pbase." p ".sfailed")
				if (new != "") {
					on = on " " p
				} else {
					common = 0 # does the platform pass a test that caught q elsewhere?
					while ((getline t <(dir "/pbase." p ".passed")) > 0) if (t in caught_q) common = 1
					close(dir "/pbase." p ".passed")
					if (!common) masked++
				}
			}
			if (on != "" || masked == np[q]) {
				caught++
				what = on != "" ? "caught on" on : "masked on all " np[q] " (the tests that catch it already fail or skip there)"
				printf "%s\n", substr(sprintf("  %-40s %s", q, what), 1, 170)
			} else {
				printf "  %-40s NOT CAUGHT on any of %d platforms (%d masked)\n", q, np[q], masked
			}
		}
		print caught + 0, total + 0 >(dir "/pquirks-caught")
	}' "$DIR/plan"
read -r p_caught p_total <"$DIR/pquirks-caught"
[ "$p_caught" = "$p_total" ] || status=1
echo "platforms: caught $p_caught of $p_total quirks observable on a hypervisor platform (or masked there)"

# The other way: every test that runs on some profile is failed by a quirk.
echo "== tests that run on some profile and no quirk fails"
for p in $profiles; do
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
echo "mutation: $((nprof_ok + caught + d_ok + nran - nnever + fw_ok + p_caught)) passed, $((nprof - nprof_ok + total - caught + d_total - d_ok + nnever + fw_total - fw_ok + p_total - p_caught)) failed"
echo "caught $caught of $total quirks"
echo "default options: $d_ok of $d_total quirks exit non-zero on some run or are inferred-only with verdict PASS-INFERRED ($d_inferred inferred-only)"
echo "firmware state: $fw_ok of $fw_total runs reported it and failed nothing"
echo "failed $((nran - nnever)) of $nran tests that run (each by at least one quirk)"
exit $status

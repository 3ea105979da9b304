# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies shared by the families of testing/steps.sh: comparing a run
# with its expectations, and counting facts as "N passed, N failed". Sourced
# by testing/run-tests.sh; LOGS is its log directory.

# compare_run LOG EXPECTATIONS: `ktap-report.py validate LOG && ktap-report.py
# compare LOG EXPECTATIONS`, the two commands in one Python (an interpreter
# start is most of a compare; 45 steps compare).
compare_run() {
	local out rc
	out=$(
		python3 - "$1" "$2" 2>&1 <<'EOF'
import sys
from pmureport.cli import main
rc = main(["validate", sys.argv[1]])
sys.exit(rc if rc else main(["compare", sys.argv[1], sys.argv[2]]))
EOF
	)
	rc=$?
	echo "$out"
	# A comparison that could not be made (a bad log or expectations file)
	# prints no counts: it is a failure, not nothing (sum_counts reads counts).
	if [[ $rc -ne 0 ]] && ! grep -qE '^([a-z]+: )?[0-9]+ passed, [0-9]+ failed$' <<<"$out"; then
		echo "not ok - comparing $1 with $2 ended with status $rc and no counts"
		echo "0 passed, 1 failed"
	fi
	return "$rc"
}

# findings NAME COMMAND...: a checker's output, one finding a line, as
# "not ok" lines and "N passed, N failed" (the checker passing is a pass,
# each finding a failure).
findings() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	local n=0
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		echo "not ok - $name: $line"
		n=$((n + 1))
	done <<<"$out"
	if [[ $rc -ne 0 || $n -ne 0 ]]; then
		echo "0 passed, $((n > 0 ? n : 1)) failed"
		return 1
	fi
	echo "1 passed, 0 failed"
}

# smp_report LOG ONLINE TOTAL [SILENT]: the CPU lines of a run on several CPUs
# (kernel/cpus.c, kernel/runner.c): each CPU reported, each online one ran
# the suites as suite@cpuN, the silent one none, and a verdict.
smp_report() {
	local log=$1 online=$2 total=$3 silent=${4:-} p=0 f=0 c
	check() {
		local what=$1
		shift
		if "$@" >/dev/null; then p=$((p + 1)); else f=$((f + 1)); echo "not ok - $what"; fi
	}
	check "$online of $total CPUs online" grep -q "^# cpus: $online of $total online" "$log"
	for ((c = 0; c < total; c++)); do
		if [[ $c == "$silent" ]]; then
			check "cpu $c reported as not answering" \
				grep -q "^# cpu $c: APIC ID .*: did not answer the start-up IPIs: not tested" "$log"
			check "cpu $c ran nothing" test -z "$(grep -E "^(not )?ok [0-9]+ [a-z0-9_]+@cpu$c( |\$)" "$log")"
		else
			check "cpu $c reported online" grep -q "^# cpu $c: APIC ID .*: online" "$log"
			check "cpu $c ran the suites" grep -qE "^(not )?ok [0-9]+ [a-z0-9_]+@cpu$c( |\$)" "$log"
		fi
	done
	check "the run reached its verdict" grep -q "^# verdict: " "$log"
	echo "cpus: $p passed, $f failed"
}

# smp_run NAME EXPECTATIONS ONLINE TOTAL SILENT COMMAND...: the command writes
# LOGS/NAME.ktap; compared with its expectations, then smp_report.
smp_run() {
	local name=$1 expect=$2 online=$3 total=$4 silent=$5 out
	shift 5
	"$@"
	echo "exit status $? (the comparison below decides)"
	out=$( (compare_run "$LOGS/$name.ktap" "$expect"; smp_report "$LOGS/$name.ktap" "$online" "$total" "$silent") 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# boot_facts LOG WHAT REGEX...: one ok / not ok line per fact the log must
# state (an extended regular expression on its lines), then the counts.
boot_facts() {
	local log=$1 p=0 f=0
	shift
	while [[ $# -ge 2 ]]; do
		if grep -qE "$2" "$log"; then p=$((p + 1)); else f=$((f + 1)); echo "not ok - $1"; fi
		shift 2
	done
	echo "facts: $p passed, $f failed"
}

# sum_counts: the sum of the "N passed, N failed" lines on stdin, as one.
sum_counts() {
	local p=0 f=0 a b
	while read -r a b; do
		p=$((p + a))
		f=$((f + b))
	done < <(sed -nE 's/^([a-z]+: )?([0-9]+) passed, ([0-9]+) failed$/\2 \3/p')
	echo "$p passed, $f failed"
}

# also_check LOG PATTERN WHAT COMMAND...: the command's own counts (its last
# "N passed, N failed" line), plus one check that LOG has a line PATTERN.
also_check() {
	local log=$1 pat=$2 what=$3 out rc p=0 f=0
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	if [[ $(echo "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1) =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
	elif [[ $rc -ne 0 ]]; then f=1; fi
	if grep -qE "$pat" "$log" 2>/dev/null; then p=$((p + 1)); else f=$((f + 1)); echo "not ok - $what"; fi
	echo "$p passed, $f failed"
}

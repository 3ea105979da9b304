#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`: everything that proves pmutest right, in one run; this file is
# the scheduler. The steps (name, lane, what each needs, its command) are
# the list testing/steps.sh; their bodies the scripts of testing/ and the
# functions of testing/lib/steps/.
#
#   testing/run-tests.sh [--steps PATTERNS] [--list]
#     --steps PATTERNS  only the steps whose names match one of PATTERNS
#                       (shell patterns, separated by commas or spaces:
#                       'sim-kvm-*,format'), and the steps they need
#     --list            print the steps that would run, in their order, with
#                       lane, needs, after and command; run nothing
#   (make test STEPS=PATTERNS LIST=1)
#
# Each step's full output is in build/test-logs/; the terminal gets one line a
# step plus what failed. Every step ends with "N passed, N failed" (a step
# that dies without one counts as one failure), and so does this script;
# each step's line ends with its CPU time ("cpu 12.3s (10.1 user, 2.2 sys)")
# and the line before the last is the run's ("# cpu: ..."): on shared cores
# the CPU time, not the wall, says what a change cost.
# The steps start in the list's order: a foreground step (lane fg) runs
# when its turn comes, once the background steps it needs or comes after
# have ended; a background step starts at once and waits beside the
# foreground for the step before it in its lane and for those it needs or
# comes after. The background steps' lines come last, before the totals
# (join_steps), in the order they were started.
# Exit: 0 every step passed, 1 a failure, 2 usage.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
LOGS=build/test-logs

usage() {
	sed -n '8,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "run-tests.sh: $*" >&2
	exit 2
}

patterns=()
list=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--steps)
		[[ $# -ge 2 && -n $2 ]] || die "--steps needs a pattern"
		read -r -a more <<<"${2//,/ }"
		patterns+=("${more[@]}")
		shift 2
		;;
	--list) list=1 && shift ;;
	-h | --help) usage ;;
	*) die "unknown argument '$1' (--steps PATTERNS, --list)" ;;
	esac
done

# ---- The list ----
# step NAME LANE NEEDS AFTER COMMAND...: one step of testing/steps.sh (see
# there), kept in order; COMMAND kept quoted (printf %q), run as written.
step_names=()
declare -A step_lane=() step_needs=() step_after=() step_cmd=()
step() {
	[[ $# -ge 5 ]] || die "testing/steps.sh: step $1: NAME LANE NEEDS AFTER COMMAND..."
	local name=$1 lane=$2 needs=$3 after=$4 n
	shift 4
	[[ -z ${step_lane[$name]+set} ]] || die "testing/steps.sh: step $name listed twice"
	[[ $needs == - ]] && needs=
	[[ $after == - ]] && after=
	for n in ${needs//,/ } ${after//,/ }; do
		[[ $n == lane:* || -n ${step_lane[$n]+set} ]] ||
			die "testing/steps.sh: step $name needs or comes after $n, which is not listed before it"
	done
	step_names+=("$name")
	step_lane[$name]=$lane step_needs[$name]=$needs step_after[$name]=$after
	step_cmd[$name]=$(printf '%q ' "$@")
}
for f in testing/lib/steps/*.sh; do
	# shellcheck source=/dev/null
	source "$f"
done
# shellcheck source=testing/steps.sh
source testing/steps.sh

# ---- The selection: the steps matching a pattern, and what they need ----
declare -A selected=()
if [[ ${#patterns[@]} -eq 0 ]]; then
	for name in "${step_names[@]}"; do selected[$name]=1; done
else
	for pat in "${patterns[@]}"; do
		hit=0
		for name in "${step_names[@]}"; do
			# shellcheck disable=SC2053 # the pattern is a glob on purpose
			[[ $name == $pat ]] && selected[$name]=1 hit=1
		done
		[[ $hit == 1 ]] || die "no step matches '$pat' (make test LIST=1 lists them)"
	done
	# A step's needs are listed before it: one pass from the end closes the set.
	for ((i = ${#step_names[@]} - 1; i >= 0; i--)); do
		name=${step_names[$i]}
		[[ -n ${selected[$name]:-} ]] || continue
		for n in ${step_needs[$name]//,/ }; do selected[$n]=1; done
	done
fi

if [[ $list == 1 ]]; then
	printf '%-26s %-7s %-26s %-30s %s\n' NAME LANE NEEDS AFTER COMMAND
	for name in "${step_names[@]}"; do
		[[ -n ${selected[$name]:-} ]] || continue
		printf '%-26s %-7s %-26s %-30s %s\n' "$name" "${step_lane[$name]}" "${step_needs[$name]:--}" \
			"${step_after[$name]:--}" "${step_cmd[$name]% }"
	done
	exit 0
fi

mkdir -p "$LOGS"
# Two `make test` in one tree would share build/ and these logs: the second
# waits for the first.
exec 8>"$LOGS/.lock"
if ! flock -n 8; then
	echo "another make test is running in this tree; waiting for it"
	flock 8
fi
# Every step's log is this run's: none is left from an earlier one.
rm -f "$LOGS"/*.log "$LOGS"/*.ktap "$LOGS"/*.raw "$LOGS"/.bg-* "$LOGS"/.lane-* "$LOGS"/.tick
mkfifo "$LOGS/.tick" # what bg_step's waits read (see there)
total_pass=0
total_fail=0
steps_failed=()
# Python: the interpreter `python3` names, without a version manager's shim
# in between (pyenv's is a bash script and two pyenv processes: 0.15 s of
# CPU a start, and a run starts Python hundreds of times). A
# virtualenv's or the system's python3 is already itself.
if py=$(python3 -c 'import os, sys; print(os.path.dirname(sys.executable))' 2>/dev/null) &&
	[[ -x $py/python3 && $(command -v python3) != "$py/python3" ]]; then
	PATH=$py:$PATH
fi
# The report package (tools/pmureport), for every Python step that imports
# it: the one place the steps' module path is set.
export PYTHONPATH="$PWD/tools${PYTHONPATH:+:$PYTHONPATH}"

# cpu_ms: the CPU time (user + sys, milliseconds) of this shell and of the
# children it has waited for, into cpu_now=(TOTAL USER SYS) (/proc/PID/stat:
# utime, stime, cutime, cstime; read without a fork, which would read the
# fork's).
# A subshell starts at zero (fork clears a process's children's times): read
# at the end of a step's own subshell it is that step's CPU time, whatever
# ran beside it.
CLK_TCK=$(getconf CLK_TCK 2>/dev/null) || CLK_TCK=100
cpu_ms() {
	local stat fields
	read -r stat <"/proc/$BASHPID/stat"
	read -r -a fields <<<"${stat##*) }" # fields[0] is field 3 (state): utime is fields[11]
	local u=$(((fields[11] + fields[13]) * 1000 / CLK_TCK)) s=$(((fields[12] + fields[14]) * 1000 / CLK_TCK))
	cpu_now=("$((u + s))" "$u" "$s")
}
# secs MS: milliseconds as seconds with one decimal.
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
total_cpu=0 total_user=0 total_sys=0 # the steps' CPU time (ms), for the "# cpu:" line

# run_step NAME COMMAND...: runs it, adds its counts, shows failures. The
# line ends with the step's CPU time (user + sys of it and its children):
# on 2 shared cores the wall time depends on what ran beside the step, the
# CPU time does not.
run_step() {
	local name=$1
	shift
	local log="$LOGS/$name.log"
	local t0=$SECONDS cpu=(0 0 0)
	rm -f "$LOGS/.cpu-$name"
	(
		"$@" >"$log" 2>&1
		rc=$?
		cpu_ms
		echo "${cpu_now[*]}" >"$LOGS/.cpu-$name"
		exit $rc
	)
	local rc=$?
	[[ -r $LOGS/.cpu-$name ]] && read -r -a cpu <"$LOGS/.cpu-$name"
	rm -f "$LOGS/.cpu-$name"
	total_cpu=$((total_cpu + cpu[0])) total_user=$((total_user + cpu[1])) total_sys=$((total_sys + cpu[2]))
	local counts
	counts=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	local p=0 f=0
	if [[ $counts =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
	elif [[ $rc -eq 0 ]]; then
		p=1
	fi
	if [[ $rc -ne 0 && $f -eq 0 ]]; then
		f=1 # it failed without saying what: count the step itself
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	printf '%-28s %5d passed, %3d failed  (%ds, exit %d)  cpu %ss (%s user, %s sys)\n' "$name" "$p" "$f" \
		$((SECONDS - t0)) "$rc" "$(secs "${cpu[0]}")" "$(secs "${cpu[1]}")" "$(secs "${cpu[2]}")"
	if [[ $rc -ne 0 || $f -ne 0 ]]; then
		steps_failed+=("$name")
		grep -E '^(not ok|#   |error|.*: error:|FAIL|make: \*\*\*)' "$log" | head -n 40 | sed 's/^/    /'
		echo "    (full output: $log)"
	fi
}

# Steps side by side: QEMU under TCG keeps one host core busy per vCPU and
# the KVM steps mostly wait for VM exits, so on 2 cores an independent
# one-vCPU or KVM boot step can run beside the others.
# bg_step [--wait STEP]... NAME COMMAND...: run_step in the background, into
# its own log, once each STEP (a background step started before it) has
# ended; its line, its failures and its counts are printed and added at
# join_steps, in the order the steps were started (the time printed is its
# own). The scheduler below gives each step the step before it in its lane,
# and the background steps it needs or comes after.
bg_names=()
bg_pids=()
bg_step() {
	local waits=() w
	while [[ $1 == --wait ]]; do
		waits+=("$2")
		shift 2
	done
	local name=$1
	rm -f "$LOGS/.bg-$name.done"
	(
		trap 'touch "$LOGS/.bg-$name.done"' EXIT
		# This step's own counts and CPU time only: the subshell starts
		# with the foreground's totals so far (with them, every step
		# started after the build counted the build's CPU again).
		# shellcheck disable=SC2030 # this subshell's own, written to .counts
		total_pass=0 total_fail=0 steps_failed=() total_cpu=0 total_user=0 total_sys=0
		# Waits without a process a look: `read -t` on a FIFO nobody writes
		# (a `sleep 0.2` loop in each of the 30 steps queued in the lanes
		# was a fork and an exec 150 times a second).
		exec 9<>"$LOGS/.tick"
		for w in "${waits[@]}"; do
			while [[ ! -e $LOGS/.bg-$w.done ]]; do
				read -r -t 0.2 -u 9
			done
		done
		exec 9<&-
		run_step "$@" >"$LOGS/.bg-$name.line"
		echo "$total_pass $total_fail $total_cpu $total_user $total_sys" >"$LOGS/.bg-$name.counts"
	) &
	bg_names+=("$name")
	bg_pids+=($!)
}
# bg_wait NAME...: waits until those background steps have ended (their
# output is complete); their lines and counts still come at join_steps.
bg_wait() {
	local i want
	for want in "$@"; do
		for i in "${!bg_names[@]}"; do
			[[ ${bg_names[$i]} == "$want" ]] && wait "${bg_pids[$i]}"
		done
	done
}
# join_steps: waits for every bg_step, then prints and counts each.
# shellcheck disable=SC2031 # the totals are this shell's; bg_step's subshells keep their own
join_steps() {
	local i name p f c u s
	for i in "${!bg_pids[@]}"; do
		name=${bg_names[$i]}
		wait "${bg_pids[$i]}"
		p=0 f=1 c=0 u=0 s=0 # a background step that left no counts failed
		if [[ -r $LOGS/.bg-$name.counts ]]; then
			cat "$LOGS/.bg-$name.line"
			read -r p f c u s <"$LOGS/.bg-$name.counts"
		else
			printf '%-28s died without its counts (full output: %s)\n' "$name" "$LOGS/$name.log"
		fi
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		total_cpu=$((total_cpu + c)) total_user=$((total_user + u)) total_sys=$((total_sys + s))
		[[ $f -ne 0 ]] && steps_failed+=("$name")
		rm -f "$LOGS/.bg-$name.line" "$LOGS/.bg-$name.counts" # .done: a later step of its lane may still look
	done
	bg_names=()
	bg_pids=()
}

# ---- The run ----
# The steps in the list's order; what each waits for: the step before it in
# its lane, and the steps it needs or comes after (lane:NAME: the last step
# of that lane so far), of those that run.
declare -A lane_last=()
for name in "${step_names[@]}"; do
	[[ -n ${selected[$name]:-} ]] || continue
	lane=${step_lane[$name]}
	waits=()
	for n in ${step_needs[$name]//,/ } ${step_after[$name]//,/ }; do
		[[ $n == lane:* ]] && n=${lane_last[${n#lane:}]:-}
		[[ -n $n && -n ${selected[$n]:-} && ${step_lane[$n]} != fg ]] && waits+=("$n")
	done
	if [[ $lane == fg ]]; then
		bg_wait "${waits[@]}"
		eval "run_step $name ${step_cmd[$name]}"
		continue
	fi
	[[ $lane != own && -n ${lane_last[$lane]:-} ]] && waits+=("${lane_last[$lane]}")
	lane_last[$lane]=$name
	args=()
	for n in "${waits[@]}"; do args+=(--wait "$n"); done
	eval "bg_step ${args[*]} $name ${step_cmd[$name]}"
done

join_steps # the background steps: their lines and counts
echo
# The load-independent figure: CPU time of the steps, and of the whole run
# (the steps, this script's own work and its waiting loops), beside the wall.
cpu_ms
echo "# cpu: steps $(secs $total_cpu) s ($(secs $total_user) user, $(secs $total_sys) sys);" \
	"the whole run $(secs "${cpu_now[0]}") s in $SECONDS s wall"
if [[ ${#steps_failed[@]} -gt 0 ]]; then
	echo "failed steps: ${steps_failed[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]

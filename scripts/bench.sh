#!/usr/bin/env bash
# Benchmarks that print figures (never pass/fail on time):
#   - QEMU TCG: wall-clock from QEMU start to verdict, and the kernel's own
#     boot-to-verdict and suite times (TSC cycles, from the report);
#   - simulator: wall-clock of one full suite run, and of the mutation matrix.
# Usage: scripts/bench.sh [RUNS]   (default 3 QEMU boots)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench: RUNS must be a positive number, got '$runs'" >&2; exit 2; }
mkdir -p build/bench

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }

measure() { # measure LOG NAME -> value
	sed -n "s/^# measure: $2 = \([0-9]*\) .*/\1/p" "$1" | tail -n 1
}

echo "== QEMU TCG, $runs boots"
for i in $(seq 1 "$runs"); do
	log=build/bench/qemu-$i.log
	t0=$(date +%s.%N)
	scripts/run-qemu.sh --log "$log" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	printf 'boot %d: %.2f s wall (QEMU start to exit); kernel: boot-to-verdict %s ms, suites %s ms\n' \
		"$i" "$(elapsed "$t0" "$t1")" "$(measure "$log" run.boot_to_verdict_ms)" "$(measure "$log" run.suite_time_ms)"
done

echo "== simulator"
for p in $(build/host/pmusim --list-profiles | awk '{print $1}' | head -n 3); do
	t0=$(date +%s.%N)
	build/host/pmusim --profile "$p" >build/bench/sim-$p.log 2>&1 || true
	t1=$(date +%s.%N)
	printf 'profile %-28s %.3f s wall for the whole suite\n' "$p" "$(elapsed "$t0" "$t1")"
done
t0=$(date +%s.%N)
scripts/mutation.sh >build/bench/mutation.log 2>&1 || true
t1=$(date +%s.%N)
printf 'mutation matrix: %.2f s wall (%s)\n' "$(elapsed "$t0" "$t1")" "$(grep -E '^caught' build/bench/mutation.log | tail -n 1)"

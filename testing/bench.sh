#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmarks that print figures (never pass/fail on time):
#   - QEMU TCG: the minimal hello-world EFI app and pmutest booted alternately
#     in the same configuration, the median wall time of each, their ratio
#     and where the time goes (testing/bench-boot.py);
#   - direct boot: the do-nothing PVH kernel and build/pmutest.elf, paired,
#     on microvm and pc, with the breakdown (testing/bench-direct.py);
#   - the figures of its Goals with their baselines, and with
#     BENCH_BASE=DIR the same figures of DIR/build/pmutest.elf (e.g. main's
#     tree, built) measured in the same run (testing/bench-run.py);
#   - the counting preconditions: a PMU that counts nothing on TCG and on
#     this machine's KVM (make run KVM=1 SMP=2, and the same with an AMD
#     guest), and conforming simulated PMUs unchanged, with BENCH_BASE=DIR
#     against DIR's build, and with PMU_FLAT=PATH against kvm-unit-tests'
#     x86/pmu.flat booted as its x86/run boots it (testing/bench-precondition.py);
#   - simulator: wall-clock of one full suite run, and of the mutation matrix.
# Usage: testing/bench.sh [RUNS]   (default 5 boots of each)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench: RUNS must be a positive number, got '$runs'" >&2; exit 2; }
mkdir -p build/bench

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }

python3 testing/bench-boot.py "$runs"
echo
python3 testing/bench-direct.py "$runs"
echo
python3 testing/bench-run.py "$runs" ${BENCH_BASE:+--base "$BENCH_BASE"}
echo
python3 testing/bench-precondition.py "$runs" ${BENCH_BASE:+--base "$BENCH_BASE"}
echo
echo "== simulator"
for p in $(build/host/pmusim --list-profiles | awk '{print $1}' | head -n 3); do
	t0=$(date +%s.%N)
	build/host/pmusim --profile "$p" >"build/bench/sim-$p.log" 2>&1 || true
	t1=$(date +%s.%N)
	printf 'profile %-28s %.3f s wall for the whole suite\n' "$p" "$(elapsed "$t0" "$t1")"
done
t0=$(date +%s.%N)
testing/mutation.sh >build/bench/mutation.log 2>&1 || true
t1=$(date +%s.%N)
printf 'mutation matrix: %.2f s wall (%s)\n' "$(elapsed "$t0" "$t1")" "$(grep -E '^caught' build/bench/mutation.log | tail -n 1)"

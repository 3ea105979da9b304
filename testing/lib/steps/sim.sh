# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Step bodies of the simulator's steps (build/host/pmusim). Sourced by
# testing/run-tests.sh; LOGS is its log directory.

sim_selftest() {
	build/host/pmusim --profile "${SIM_SELFTEST_PROFILE:-synth-v5-metrics}" --set suites=selftest \
		>"$LOGS/sim-selftest.ktap" 2>&1
	compare_run "$LOGS/sim-selftest.ktap" data/expectations/selftest.txt
}

# sim_platform PROFILE EXPECTATIONS [PMUSIM ARGS...]: a platform model vs its
# file (a KVM model with vPMU gets the host kernel it models: host_kernel)
sim_platform() {
	local p=$1 e=$2
	shift 2
	build/host/pmusim --profile "$p" "$@" >"$LOGS/sim-$p.ktap" 2>&1
	compare_run "$LOGS/sim-$p.ktap" "$e"
}

# pmusim --list-platforms: every hypervisor model names the releases it describes.
list_platforms() {
	build/host/pmusim --list-platforms | awk '
		/^ +describes: ./ { ok++; next } /^[a-z]/ { n++ }
		END { printf "%d passed, %d failed\n", ok, n - ok; exit n == 0 || ok != n }'
}

# sim_smp_silent: four simulated CPUs, one that never answers its start-up
# IPI, against the self-tests' expectations.
sim_smp_silent() {
	smp_run sim-smp-silent data/expectations/selftest-smp.txt 3 4 3 \
		sh -c "build/host/pmusim --profile smp-synth-v5-x4 --config testing/fixtures/configs/smp-silent-selftest.cfg >$LOGS/sim-smp-silent.ktap"
}

# selection_run: a run of a selection (the README's my.cfg) compared with a
# platform's file checks only what it selected, and the report says so.
selection_run() {
	printf 'suites = rdpmc, privilege\n' >"$LOGS/selection.cfg"
	build/host/pmusim --profile kvm-intel-sapphirerapids --set host_kernel=6.8.0 --config "$LOGS/selection.cfg" >"$LOGS/sim-selection.ktap" 2>&1
	also_check "$LOGS/sim-selection.ktap" '^# selection: suites = rdpmc,privilege; ' "the report states the selection" \
		compare_run "$LOGS/sim-selection.ktap" data/expectations/qemu-kvm-intel.txt
}

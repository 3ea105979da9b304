# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the scripts that are a `make test` step of their own
# (robustness.sh, test-stick.sh, test-secureboot.sh...): one "ok"/"not ok" line a check, and the
# closing "N passed, N failed" that testing/run-tests.sh reads.

checks_passed=0
checks_failed=0

# check DESCRIPTION STATUS: a pass when STATUS is 0.
check() {
	if [[ $2 -eq 0 ]]; then
		checks_passed=$((checks_passed + 1))
		echo "ok - $1"
	else
		checks_failed=$((checks_failed + 1))
		echo "not ok - $1"
	fi
}

# checks_summary: the closing line; returns 0 when no check failed.
checks_summary() {
	echo "$checks_passed passed, $checks_failed failed"
	[[ $checks_failed -eq 0 ]]
}

# checks_finish: the closing line, then the script's exit with its status
# (also the way out of a step that cannot go on).
checks_finish() {
	checks_summary
	exit
}

# checks_outdir DIR: DIR made and emptied, so that what is in it is this
# run's only.
checks_outdir() {
	mkdir -p "$1" && rm -f "$1"/*
}

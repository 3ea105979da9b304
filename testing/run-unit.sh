#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every host unit-test binary given and sums their "N passed, N failed"
# lines into one. A binary that dies without that line counts as a failure.
set -uo pipefail
pass=0
fail=0
for t in "$@"; do
	echo "== $t"
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -v '^ok '
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		pass=$((pass + BASH_REMATCH[1]))
		fail=$((fail + BASH_REMATCH[2]))
		[[ $rc -ne 0 && ${BASH_REMATCH[2]} -eq 0 ]] && fail=$((fail + 1))
	else
		echo "not ok - $t exited $rc without a summary line"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test step `format`: every tracked C file (*.c, *.h) is as clang-format
# writes it (.clang-format); `make format` rewrites them so. One "ok"/"not
# ok" line a file, the first differences under it, and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

if ! command -v clang-format >/dev/null; then
	echo "skipped: clang-format is missing (mk/deps.sh --test installs it as root)"
	echo "0 passed, 0 failed"
	exit 0
fi
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "error: not a git checkout: no list of tracked files"; exit 2; }

mapfile -d '' files < <(git ls-files -z '*.c' '*.h')
# One clang-format for all (a process a file is most of the step's time);
# each difference is "FILE:LINE:COL: error: code should be clang-formatted".
diffs=$(clang-format --dry-run -Werror "${files[@]}" 2>&1)
rc=$?
declare -A bad=()
while IFS= read -r line; do
	[[ $line =~ ^([^:]+):[0-9]+:[0-9]+:\ error: ]] && bad[${BASH_REMATCH[1]}]=1
done <<<"$diffs"
if [[ $rc -ne 0 && ${#bad[@]} -eq 0 ]]; then # it failed, not on a file's format
	printf '%s\n' "$diffs" | head -n 5 | sed 's/^/#   /'
	check "clang-format ran (exit $rc)" 1
fi
for f in "${files[@]}"; do
	if [[ -n ${bad[$f]:-} ]]; then
		grep -E "^$f:[0-9]+:[0-9]+: error:" <<<"$diffs" | head -n 3 | sed 's/^/#   /'
		check "$f formatted (make format)" 1
	else
		check "$f formatted" 0
	fi
done
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test step `shellcheck`: every tracked shell script (*.sh, and any
# file whose first line runs sh or bash) is clean under Debian's shellcheck,
# with the exclusions .shellcheckrc names and justifies: one "ok"/"not ok"
# line a script, its findings under it, and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

if ! command -v shellcheck >/dev/null; then
	echo "skipped: shellcheck is missing (mk/deps.sh --test installs it as root)"
	echo "0 passed, 0 failed"
	exit 0
fi
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "error: not a git checkout: no list of tracked scripts"; exit 2; }

scripts=()
while IFS= read -r -d '' f; do
	[[ -f $f ]] || continue
	if [[ $f == *.sh ]] || head -n 1 "$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)'; then
		scripts+=("$f")
	fi
done < <(git ls-files -z)

for f in "${scripts[@]}"; do
	out=$(shellcheck -f gcc "$f" 2>&1)
	rc=$?
	[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/#   /'
	check "$f" "$rc"
done
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QEMU whose console stops at a line, for testing/test-lava.sh: a run that
# never reaches its verdict.
#
#   qemu-cut.sh dies|hangs TEXT QEMU-ARGS...
#
# Runs qemu-system-x86_64 QEMU-ARGS and copies its output up to and
# including the first line containing TEXT. Then "dies": the console ends
# there (a board that lost power); "hangs": the console stays open and
# silent (a kernel stuck with interrupts off). LAVA's QEMU boot calls it as
# its QEMU command (testing/test-lava.sh makes a wrapper with MODE and TEXT).
set -uo pipefail
mode=${1:?usage: qemu-cut.sh dies|hangs TEXT QEMU-ARGS...}
text=${2:?qemu-cut.sh: no TEXT}
shift 2
case $mode in dies | hangs) ;; *) echo "qemu-cut.sh: unknown mode $mode" >&2; exit 2 ;; esac
qemu-system-x86_64 "$@" | {
	while IFS= read -r line; do
		printf '%s\n' "$line"
		if [[ $line == *"$text"* ]]; then
			# The rest of the run is read and thrown away, so that QEMU
			# finishes (it would block on a full pipe) and is not killed.
			cat >/dev/null
			[[ $mode == hangs ]] && exec sleep 3600
			exit 0
		fi
	done
}

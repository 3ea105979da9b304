#!/usr/bin/env bash
# `make run`: boot the suite in QEMU, stream the report, then compare it with
# the platform's expectations. Exit 0 only when they match.
#   scripts/run.sh [--kvm] [--config FILE]
set -uo pipefail
cd "$(dirname "$0")/.."

accel=tcg
args=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--kvm) accel=kvm; args+=(--kvm) ;;
	--config)
		[[ $# -ge 2 ]] || { echo "run: --config needs a file" >&2; exit 2; }
		[[ -r $2 ]] || { echo "run: cannot read config file '$2'" >&2; exit 2; }
		args+=(--config "$2"); shift ;;
	*) echo "run: unknown argument '$1' (use --kvm, --config FILE)" >&2; exit 2 ;;
	esac
	shift
done

log=build/qemu-$accel.log
expect=tests/expectations/qemu-$accel.txt
scripts/run-qemu.sh "${args[@]}" --log "$log"
qemu_rc=$?
echo
if [[ ! -s $log ]]; then
	echo "run: no report in $log (QEMU status $qemu_rc)" >&2
	exit 2
fi
python3 scripts/ktap-report.py validate "$log" || exit 1
echo "== compared with $expect"
python3 scripts/ktap-report.py compare "$log" "$expect"

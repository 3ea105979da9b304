#!/usr/bin/env bash
# `make run`: boot the suite in QEMU, stream the report, then compare it with
# the platform's expectations. Exit 0 only when they match.
#   scripts/run.sh [--kvm] [--cpu MODEL] [--smp N] [--config FILE] [--expect FILE]
# The expectations file defaults to tests/expectations/qemu-<accel>.txt, or
# qemu-tcg-<model, lower case>.txt for a TCG CPU model other than the default.
set -uo pipefail
cd "$(dirname "$0")/.."

accel=tcg
cpu=
expect=
args=()
while [[ $# -gt 0 ]]; do
	case $1 in
	-h | --help)
		sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	--kvm) accel=kvm; args+=(--kvm) ;;
	--config)
		[[ $# -ge 2 ]] || { echo "run: --config needs a file" >&2; exit 2; }
		[[ -r $2 ]] || { echo "run: cannot read config file '$2'" >&2; exit 2; }
		args+=(--config "$2"); shift ;;
	--smp)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --smp needs a CPU count" >&2; exit 2; }
		args+=(--smp "$2"); shift ;;
	--cpu)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --cpu needs a model" >&2; exit 2; }
		cpu=$2; args+=(--cpu "$2"); shift ;;
	--expect)
		[[ $# -ge 2 ]] || { echo "run: --expect needs a file" >&2; exit 2; }
		[[ -r $2 ]] || { echo "run: cannot read expectations file '$2'" >&2; exit 2; }
		expect=$2; shift ;;
	*) echo "run: unknown argument '$1' (use --kvm, --cpu MODEL, --smp N, --config FILE, --expect FILE)" >&2; exit 2 ;;
	esac
	shift
done

platform=qemu-$accel
[[ -n $cpu && $accel == tcg && $cpu != max ]] && platform=qemu-tcg-$(echo "$cpu" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-')
log=build/$platform.log
if [[ -z $expect ]]; then
	expect=tests/expectations/$platform.txt
	[[ -r $expect ]] || { echo "run: no expectations file $expect for this platform (give one with --expect)" >&2; exit 2; }
fi
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

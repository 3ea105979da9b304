#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stray NMI, as a BMC or an IOCHK/SERR would send one: boot with
# scripts/run-qemu.sh and a QEMU monitor, wait for a line of the serial log,
# then send the monitor's `nmi` command (an NMI to every CPU). `make test`
# sends it during the self-test endless_loop: its verdict must not change
# and the report must list the NMI as a platform event.

usage() {
	cat <<'USAGE'
usage: scripts/qemu-nmi.sh --after REGEX --log FILE [run-qemu.sh options...]

  --after REGEX  send the NMI once the serial log has a line matching REGEX
                 (grep -E), e.g. '^ *not ok 5 ' for "while test 6 runs"
  --log FILE     the run's log (passed on to run-qemu.sh)
  -h, --help     this text

Exit status: run-qemu.sh's (0 pass, 1 fail, 2 error, 3 timeout), or 4 when
the NMI could not be sent (the line never came, or no monitor answered).
USAGE
}

die() {
	echo "qemu-nmi.sh: $*" >&2
	exit 2
}

after=
log=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--after) after=${2:?--after needs a pattern}; shift ;;
	--log) log=${2:?--log needs a file}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) args+=("$1") ;;
	esac
	shift
done
[ -n "$after" ] && [ -n "$log" ] || { usage >&2; die "--after and --log are required"; }
here=$(cd "$(dirname "$0")/.." && pwd)
sock=$(mktemp -u "$here/build/qemu-nmi.XXXXXX.sock")
trap 'rm -f "$sock"' EXIT

"$here/scripts/run-qemu.sh" --monitor "$sock" --log "$log" ${args[@]+"${args[@]}"} &
run=$!
sent=0
# The raw log grows as the kernel writes; poll it (bounded by the run).
while kill -0 "$run" 2>/dev/null; do
	if [ -S "$sock" ] && tr -d '\r' <"$log.raw" 2>/dev/null | grep -qE "$after"; then
		python3 - "$sock" <<'PY' && sent=1
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
s.sendall(b"nmi\n")
time.sleep(0.2)
s.close()
PY
		break
	fi
	sleep 0.05
done
wait "$run"
rc=$?
if [ "$sent" = 1 ]; then
	echo "qemu-nmi.sh: NMI sent after /$after/" >&2
else
	echo "qemu-nmi.sh: the NMI was not sent (no line /$after/ or no monitor)" >&2
	rc=4
fi
exit $rc

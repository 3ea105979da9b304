#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stray NMI, as a BMC or an IOCHK/SERR would send one: boot with
# tools/run-qemu.sh and a QEMU monitor, wait for a line of the serial log,
# then send the monitor's `nmi` command (an NMI to every CPU). `make test`
# sends it during the self-test endless_loop: its verdict must not change
# and the report must list the NMI as a platform event.

usage() {
	cat <<'USAGE'
usage: testing/qemu-nmi.sh --after REGEX --log FILE [--command CMD] [run-qemu.sh options...]

  --after REGEX  send the NMI once the serial log has a line matching REGEX
                 (grep -E), e.g. '^ *not ok 5 ' for "while test 6 runs"
  --log FILE     the run's log (passed on to run-qemu.sh)
  --command CMD  this monitor command instead of `nmi` (e.g. an `mce`)
  --after and --command repeat in pairs: the Nth command after the Nth line.
  -h, --help     this text

Exit status: run-qemu.sh's (0 pass, 1 fail, 2 error, 3 timeout), or 4 when
the NMI could not be sent (the line never came, or no monitor answered).
USAGE
}

die() {
	echo "qemu-nmi.sh: $*" >&2
	exit 2
}

afters=()
commands=()
log=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--after) afters+=("${2:?--after needs a pattern}"); shift ;;
	--log) log=${2:?--log needs a file}; shift ;;
	--command) commands+=("${2:?--command needs a monitor command}"); shift ;;
	-h | --help) usage; exit 0 ;;
	*) args+=("$1") ;;
	esac
	shift
done
{ [ "${#afters[@]}" -gt 0 ] && [ -n "$log" ]; } || { usage >&2; die "--after and --log are required"; }
here=$(cd "$(dirname "$0")/.." && pwd)
sock=$(mktemp -u "$here/build/qemu-nmi.XXXXXX.sock")
trap 'rm -f "$sock"' EXIT

"$here/tools/run-qemu.sh" --monitor "$sock" --log "$log" ${args[@]+"${args[@]}"} &
run=$!
# One monitor connection for every command; the raw log grows as the
# kernel writes: polled until each line came (or the run ended).
pairs=()
for i in "${!afters[@]}"; do pairs+=("${afters[$i]}" "${commands[$i]:-nmi}"); done
python3 - "$sock" "$log.raw" "$run" "${pairs[@]}" <<'PY' &
import os, re, socket, sys, time
sock, raw, run, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def alive():
    try:
        os.kill(run, 0)
        return True
    except OSError:
        return False
s = None
sent = 0
while sent < len(pairs) // 2 and alive():
    try:
        if s is None:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
        text = open(raw, errors="replace").read().replace("\r", "")
    except OSError:
        s = None
        time.sleep(0.05)
        continue
    after, command = pairs[2 * sent], pairs[2 * sent + 1]
    if re.search(after, text, re.M):
        s.sendall(command.encode() + b"\n")
        print(f"qemu-nmi.sh: '{command}' sent after /{after}/", file=sys.stderr)
        sent += 1
    time.sleep(0.02)
time.sleep(0.2)
if s is not None:  # what the monitor said (an mce refused, a reset...)
    s.settimeout(0.5)
    try:
        out = s.recv(65536).decode(errors="replace")
        for line in out.splitlines():
            if line.strip() and not line.startswith(("QEMU ", "(qemu)")):
                print("qemu-nmi.sh: monitor: " + line.strip(), file=sys.stderr)
    except OSError:
        pass
sys.exit(0 if sent == len(pairs) // 2 else 4)
PY
sender=$!
wait "$run"
rc=$?
if ! wait "$sender"; then
	echo "qemu-nmi.sh: not every command was sent (a line never came, or no monitor)" >&2
	rc=4
fi
exit $rc

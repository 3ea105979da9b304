#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot a stick image in QEMU with Secure Boot enforced, and say whether the
# firmware (or shim) ran it or refused it.
#
# The machine is the one OVMF's Secure Boot build needs: q35 with SMM, the
# variable store behind SMM-only flash (cfi.pflash01 secure=on), so that
# nothing but the firmware's SMM code can change the keys; Debian's
# OVMF_CODE_4M.secboot.fd and a writable copy of a variable store with keys
# enrolled (--vars: OVMF_VARS_4M.snakeoil.fd, the test key in PK/KEK/db;
# OVMF_VARS_4M.ms.fd, Microsoft's keys as on a PC).
#
# A refusal is recognised as it is printed, not by a timeout: OVMF's boot
# manager says "BdsDxe: failed to load Boot0001 ... Access Denied" (UEFI
# 2.x, 32.5: an image whose signature db does not allow is not started),
# shim says "Verification failed: (0x1A) Security Violation"; QEMU is
# stopped within half a second, since both then wait for a key.
#
# Exit status: 0 pass, 1 fail, 2 error or bad arguments, 3 timeout or no
# verdict, 4 refused by the firmware or shim (the line is on stderr).
set -uo pipefail

usage() {
	echo "usage: tools/run-secureboot.sh --image IMG --vars TEMPLATE --log FILE [--cpu MODEL] [--timeout SECS]"
}
die() {
	echo "run-secureboot.sh: $*" >&2
	exit 2
}

image='' vars_template='' log='' cpu=max timeout_s=120
code=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
while [ $# -gt 0 ]; do
	case $1 in
	--image) image=${2:?}; shift ;;
	--vars) vars_template=${2:?}; shift ;;
	--log) log=${2:?}; shift ;;
	--cpu) cpu=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift
done
{ [ -f "$image" ] && [ -f "$vars_template" ] && [ -n "$log" ]; } || { usage >&2; die "--image, --vars and --log are needed"; }
[ -f "$code" ] || die "$code missing: apt-get install ovmf"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: apt-get install qemu-system-x86"

work=$(mktemp -d) || die "no scratch directory"
trap 'kill -TERM "$(cat "$work/qemu.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$work"' EXIT
cp "$vars_template" "$work/vars.fd"
raw=$log.raw
rm -f "$log" "$raw"

(
	timeout -k 5 "$timeout_s" qemu-system-x86_64 \
		-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on \
		-drive if=pflash,format=raw,unit=0,readonly=on,file="$code" \
		-drive if=pflash,format=raw,unit=1,file="$work/vars.fd" \
		-nodefaults -vga std -m 256M -accel tcg -cpu "$cpu" \
		-drive format=raw,if=virtio,file="$image" -net none -display none \
		-serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-no-reboot </dev/null &
	echo $! >"$work/qemu.pid"
	wait $!
	echo $? >"$work/status"
) >"$raw" &
pipeline=$!
# The raw output is polled rather than read line by line: shim draws its
# message box with cursor movements and no newline, then waits for a key.
refusal='failed to load Boot.*(Access Denied|Security Violation)|Verification failed.*Security Violation'
while kill -0 "$pipeline" 2>/dev/null; do
	if sed 's/\x1b\[[0-9;=?]*[A-Za-z]/\n/g' "$raw" | tr -d '\r' | tr -c '[:print:]\n' ' ' |
		grep -a -m 1 -E "$refusal" >"$work/refused"; then
		kill -TERM "$(cat "$work/qemu.pid")" 2>/dev/null
		break
	fi
	sleep 0.5
done
wait "$pipeline"
status=$(cat "$work/status" 2>/dev/null || echo none)
tr -d '\r' <"$raw" | awk '/KTAP version 1/ { on = 1 } on || /Bail out!/' >"$log"
if [ -s "$work/refused" ]; then
	echo "run-secureboot.sh: REFUSED: $(sed 's/^ *//' "$work/refused")" >&2
	exit 4
fi
case $status in
33) verdict=PASS rc=0 ;;
35) verdict=FAIL rc=1 ;;
37) verdict=ERROR rc=2 ;;
124 | 137) verdict="TIMEOUT after ${timeout_s}s" rc=3 ;;
*) verdict="NO VERDICT (QEMU exit status $status)" rc=3 ;;
esac
echo "run-secureboot.sh: $verdict (q35, Secure Boot, vars $(basename "$vars_template"); log $log)" >&2
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A "real board" for scripts/test-lava.sh: QEMU with OVMF playing an x86
# board in a lab, driven only through the commands a LAVA device dictionary
# gives (lava/test/qemu-board.jinja2): the flasher writes its disk, power
# on/off/reset start and stop it, and its COM1 is a file that the console
# command follows, so that LAVA's "minimal" boot (connect, then power-cycle)
# reads everything from the first line on.
#
#   qemu-board.sh flash STATE IMAGE   write IMAGE to the board's disk (STATE/disk.img)
#   qemu-board.sh on STATE            power on: QEMU in the background
#   qemu-board.sh off STATE           power off: stop QEMU, empty COM1
#   qemu-board.sh reset STATE         off, then on
#   qemu-board.sh console STATE       COM1 (115200 8N1 on a real board)
set -euo pipefail
cmd=${1:?usage: qemu-board.sh flash|on|off|reset|console STATE [IMAGE]}
state=${2:?qemu-board.sh: no state directory}
mkdir -p "$state"

off() {
	if [[ -s $state/qemu.pid ]]; then
		kill "$(cat "$state/qemu.pid")" 2>/dev/null || true
		# QEMU removes its pid file when it exits.
		for _ in $(seq 50); do [[ -e $state/qemu.pid ]] || break; sleep 0.1; done
	fi
	rm -f "$state/qemu.pid" "$state/com1.log"
}

on() {
	[[ -f $state/disk.img ]] || { echo "qemu-board.sh: nothing flashed in $state" >&2; exit 1; }
	# Like a board's firmware: no network boot, the disk as removable media.
	qemu-system-x86_64 -machine pc -nodefaults -vga none -display none -m 256M \
		-accel tcg -cpu max -no-reboot -net none \
		-drive if=pflash,format=raw,readonly=on,file=/usr/share/ovmf/OVMF.fd \
		-drive format=raw,if=virtio,file="$state/disk.img" \
		-serial file:"$state/com1.log" -monitor none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-daemonize -pidfile "$state/qemu.pid"
}

case $cmd in
flash) cp "${3:?qemu-board.sh flash: no image}" "$state/disk.img" ;;
on) on ;;
off) off ;;
reset) off; on ;;
# -F: the file is replaced at every power-on; read each one from its start.
console) exec tail -n +1 -F "$state/com1.log" 2>/dev/null ;;
*) echo "qemu-board.sh: unknown command $cmd" >&2; exit 2 ;;
esac

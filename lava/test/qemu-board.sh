#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A "real board" for testing/test-lava.sh: QEMU with OVMF playing an x86
# board in a lab, driven only through the commands a LAVA device dictionary
# gives (lava/test/qemu-board.jinja2): the flasher writes its disk, power
# on/off/reset start and stop it, and its COM1 is a socket the console
# command relays (serial-relay.py); QEMU starts the machine only once the
# console is connected, so LAVA's boots (connect, then power-cycle) read
# everything from the first line on.
#
#   qemu-board.sh flash STATE IMAGE   write IMAGE to the board's disk (STATE/disk.img)
#   qemu-board.sh on STATE            power on: QEMU in the background
#   qemu-board.sh off STATE           power off: stop QEMU
#   qemu-board.sh reset STATE         off, then on
#   qemu-board.sh console STATE       COM1 (115200 8N1 on a real board)
#
# With a file STATE/tftp-root naming a directory, the board has no disk but
# a network card whose firmware is QEMU's EFI build of iPXE (efi-virtio.rom,
# with OVMF), on QEMU's user network: DHCP, and a TFTP server at 10.0.2.2
# serving that directory, as a lab's dispatcher would.
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
	rm -f "$state/qemu.pid" "$state/com1.sock"
}

on() {
	local boot
	if [[ -f $state/tftp-root ]]; then
		boot=(-netdev "user,id=net0,tftp=$(cat "$state/tftp-root")" -device "virtio-net-pci,netdev=net0,bootindex=0")
	else
		[[ -f $state/disk.img ]] || { echo "qemu-board.sh: nothing flashed in $state" >&2; exit 1; }
		# Like a board's firmware booting the stick: the disk as removable media.
		boot=(-net none -drive "format=raw,if=virtio,file=$state/disk.img")
	fi
	# server=on,wait=on: the machine starts when the console is connected.
	qemu-system-x86_64 -machine pc -nodefaults -vga none -display none -m 256M \
		-accel tcg -cpu max -no-reboot "${boot[@]}" \
		-drive if=pflash,format=raw,readonly=on,file=/usr/share/ovmf/OVMF.fd \
		-chardev socket,id=com1,path="$state/com1.sock",server=on,wait=on -serial chardev:com1 \
		-monitor none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-daemonize -pidfile "$state/qemu.pid"
}

case $cmd in
flash) cp "${3:?qemu-board.sh flash: no image}" "$state/disk.img" ;;
on) on ;;
off) off ;;
reset) off; on ;;
console) exec python3 "$(dirname "$0")/serial-relay.py" "$state/com1.sock" ;;
*) echo "qemu-board.sh: unknown command $cmd" >&2; exit 2 ;;
esac

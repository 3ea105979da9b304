#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real QEMU boots of build/pmutest.bin, the Linux-format image, by the boot
# loaders a person meets (make test runs each as a step and compares the
# report with the platform's expectations):
#
#   grub-bios   Debian's GRUB (grub-pc-bin) on SeaBIOS, from an ISO made by
#               grub-mkrescue whose grub.cfg is what tools/grub/20_pmutest
#               (the package's menu script) writes: its serial-console entry
#   grub-efi    the same ISO on OVMF (grub-efi-amd64-bin): its plain entry
#   kexec       Debian's kernel (linux-image-amd64) with an initramfs of
#               busybox-static and kexec-tools runs tools/pmutest-kexec,
#               which kexecs into pmutest (2 CPUs: the second one parked
#               by Linux must come back)
#   kexec-bad   the same with a command line longer than the image's
#               cmdline_size: kexec must refuse it, and nothing may PASS
#   ipxe        iPXE (Debian's ipxe-qemu ROM, SeaBIOS network boot) fetches
#               a script by TFTP that loads the image with `kernel`
#   syslinux    ISOLINUX (Debian's isolinux, syslinux-common) on SeaBIOS,
#               from an ISO made by xorriso, loads it with `LINUX`
#
# usage: testing/test-linux-boot.sh MODE --log FILE [--kvm] [--kvm-cpu OPTS]
#        [--append TEXT] [--timeout SECS] [--smp N]
# The serial log from "KTAP version 1" on is FILE (the whole of it
# FILE.raw). Exit status: 0 a verdict was reached (the caller compares
# it), 2 bad usage, 3 no verdict within the timeout, 4 a tool or package
# missing (mk/deps.sh --test installs it; the step says skipped).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "test-linux-boot.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed -n 's/^# \{0,1\}//p' | head -n -1; exit 2; }

mode=${1:-}
[[ -n $mode && $mode != -* ]] || usage
shift
log='' kvm=0 cpu_opts=pmu=on append="pmutest.timeout_ms=60000" timeout=240 smp=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--log) log=${2:?}; shift ;;
	--kvm) kvm=1 ;;
	--kvm-cpu) cpu_opts=${2:?}; shift ;;
	--append) append=${2?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	--smp) smp=${2:?}; shift ;;
	-h | --help) usage ;;
	*) die "unknown option '$1'" ;;
	esac
	shift
done
[[ -n $log ]] || die "--log FILE is required"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, got '$timeout'"
image=$here/build/pmutest.bin
[[ -f $image ]] || die "no $image: run make"
work=$here/build/linux-boot/$mode
rm -rf "$work"
mkdir -p "$work" || die "cannot make $work"
rm -f "$log" "$log.raw"

need() {
	command -v "$1" >/dev/null 2>&1 || compgen -G "$1" >/dev/null && return
	echo "test-linux-boot.sh: missing $1 (mk/deps.sh --test installs it as root)" >&2
	exit 4
}

if [[ $kvm == 1 ]]; then
	accel=(-accel kvm -cpu "host,$cpu_opts")
else
	accel=(-accel tcg -cpu max)
fi
# pc, no default devices, COM1 to the log, the exit device as run-qemu.sh has it.
# shellcheck disable=SC2054 # commas are QEMU's
qemu=(qemu-system-x86_64 "${accel[@]}" -machine pc -m 512 -smp "$smp" -nodefaults -display none
	-serial "file:$log.raw" -device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot)

# The package's menu script, run as update-grub runs it, against the ISO's
# file system: grub-probe and grub-mkrelpath answer for the ISO, not for
# this machine's disks (the ISO has no partitions; GRUB's root is the CD).
grub_menu() {
	local bin=$work/bin
	mkdir -p "$bin"
	cat >"$bin/grub-probe" <<'PROBE'
#!/bin/sh
for a in "$@"; do case $a in --target=*) t=${a#--target=} ;; esac; done
case $t in device) echo /dev/sr0 ;; fs) echo iso9660 ;; fs_uuid) exit 1 ;; *) echo ;; esac
PROBE
	printf '#!/bin/sh\necho /boot/pmutest.bin\n' >"$bin/grub-mkrelpath"
	chmod +x "$bin/grub-probe" "$bin/grub-mkrelpath"
	grub_probe=$bin/grub-probe grub_mkrelpath=$bin/grub-mkrelpath pmutest_image=$1 \
		GRUB_PMUTEST_OPTIONS="$append" "$here/tools/grub/20_pmutest"
}

grub_iso() { # grub_iso ENTRY-ID: $work/pmutest.iso booting that entry at once
	local stage=$work/iso
	need grub-mkrescue
	need xorriso
	need /usr/lib/grub/i386-pc/linux.mod
	need /usr/lib/grub/x86_64-efi/linux.mod
	mkdir -p "$stage/boot/grub"
	cp "$image" "$stage/boot/pmutest.bin"
	{
		echo "serial --unit=0 --speed=115200"
		echo "terminal_output serial console"
		echo "set timeout=0"
		echo "set default=$1"
		grub_menu "$stage/boot/pmutest.bin" || die "tools/grub/20_pmutest failed"
	} >"$stage/boot/grub/grub.cfg"
	cp "$stage/boot/grub/grub.cfg" "$work/grub.cfg"
	grub-mkrescue -o "$work/pmutest.iso" "$stage" >"$work/mkrescue.log" 2>&1 ||
		die "grub-mkrescue failed: $(tail -n 3 "$work/mkrescue.log")"
}

# The initramfs of the kexec boot: busybox, kexec and its libraries, the
# image and tools/pmutest-kexec; /init runs the helper as a user would.
kexec_initramfs() { # kexec_initramfs APPEND
	local root=$work/root lib
	need cpio
	need /bin/busybox
	need /usr/sbin/kexec
	mkdir -p "$root/bin" "$root/usr/sbin" "$root/proc" "$root/sys" "$root/dev" "$root/boot"
	cp /bin/busybox "$root/bin/"
	cp /usr/sbin/kexec "$root/usr/sbin/"
	for lib in $(ldd /usr/sbin/kexec | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$image" "$root/boot/pmutest.bin"
	cp "$here/tools/pmutest-kexec" "$root/usr/sbin/pmutest-kexec"
	cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "guest: Linux \$(uname -r), \$(grep -c ^processor /proc/cpuinfo) CPUs online"
/usr/sbin/pmutest-kexec --now -- $1
echo "guest: pmutest-kexec exit status \$?"
poweroff -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initramfs.gz"
}

linux_kernel() {
	local k
	k=$(find /boot -maxdepth 1 -name 'vmlinuz-*-amd64' 2>/dev/null | sort -V | tail -n 1)
	[[ -n $k ]] || die "no /boot/vmlinuz-*-amd64 (linux-image-amd64)"
	echo "$k"
}

case $mode in
grub-bios)
	grub_iso pmutest-serial
	qemu+=(-cdrom "$work/pmutest.iso" -boot d)
	;;
grub-efi)
	need /usr/share/ovmf/OVMF.fd
	grub_iso pmutest
	cp /usr/share/ovmf/OVMF.fd "$work/OVMF.fd"
	qemu+=(-drive "if=pflash,format=raw,file=$work/OVMF.fd" -cdrom "$work/pmutest.iso" -boot d)
	;;
kexec | kexec-bad)
	kernel=$(linux_kernel) || exit 2
	if [[ $mode == kexec-bad ]]; then
		append="pmutest.suites=$(printf 'x%.0s' $(seq 4100))"
	fi
	kexec_initramfs "$append"
	qemu+=(-kernel "$kernel" -initrd "$work/initramfs.gz" -append "console=ttyS0 quiet panic=-1")
	;;
ipxe)
	need /usr/lib/ipxe/qemu/pxe-virtio.rom
	mkdir -p "$work/tftp"
	cp "$image" "$work/tftp/pmutest.bin"
	printf '#!ipxe\necho pmutest by iPXE\nkernel tftp://10.0.2.2/pmutest.bin console=ttyS0 %s\nboot\n' \
		"$append" >"$work/tftp/boot.ipxe"
	# The ROM's PCI data structure names device 1AF4:1041 (virtio-net 1.0),
	# and SeaBIOS runs a PCI ROM only for the device ID it names: the
	# transitional virtio-net-pci (1AF4:1000, the default on -machine pc)
	# gets no ROM, and the BIOS falls through to "No bootable device".
	# disable-legacy=on makes the NIC the modern-only 1AF4:1041.
	qemu+=(-netdev "user,id=n0,tftp=$work/tftp,bootfile=boot.ipxe"
		-device "virtio-net-pci,disable-legacy=on,netdev=n0,romfile=/usr/lib/ipxe/qemu/pxe-virtio.rom" -boot n)
	;;
syslinux)
	need xorriso
	need /usr/lib/ISOLINUX/isolinux.bin
	need /usr/lib/syslinux/modules/bios/ldlinux.c32
	mkdir -p "$work/iso/isolinux" "$work/iso/boot"
	cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$work/iso/isolinux/"
	cp "$image" "$work/iso/boot/pmutest.bin"
	# LINUX, not KERNEL: KERNEL picks the type by the name's extension, and
	# to ISOLINUX a .bin is a CD boot sector (syslinux.cfg(5), "KERNEL-LIKE
	# DIRECTIVES"): it would run sector 0, which only prints on the screen.
	printf 'SERIAL 0 115200\nDEFAULT pmutest\nPROMPT 0\nTIMEOUT 0\nLABEL pmutest\n  LINUX /boot/pmutest.bin\n  APPEND console=ttyS0 %s\n' \
		"$append" >"$work/iso/isolinux/isolinux.cfg"
	xorriso -as mkisofs -o "$work/pmutest.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
		-no-emul-boot -boot-load-size 4 -boot-info-table "$work/iso" >"$work/xorriso.log" 2>&1 ||
		die "xorriso failed: $(tail -n 3 "$work/xorriso.log")"
	qemu+=(-cdrom "$work/pmutest.iso" -boot d)
	;;
*) die "unknown mode '$mode' (grub-bios, grub-efi, kexec, kexec-bad, ipxe, syslinux)" ;;
esac

timeout -k 5 "$timeout" "${qemu[@]}" >"$work/qemu.out" 2>&1
rc=$?
tr -d '\r' <"$log.raw" | awk '/KTAP version 1/ { on = 1 } on' >"$log"
echo "test-linux-boot.sh $mode: QEMU exit status $rc"
if [[ $rc == 124 || $rc == 137 ]] && ! grep -q '^# verdict: ' "$log"; then
	echo "test-linux-boot.sh $mode: no verdict within $timeout s (log $log.raw)"
	exit 3
fi
[[ $mode == kexec-bad ]] && exit 0 # no verdict is what is expected: the caller checks
grep -q '^# verdict: ' "$log" || { echo "test-linux-boot.sh $mode: no verdict (log $log.raw)"; exit 3; }
exit 0

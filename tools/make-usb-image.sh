#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the USB stick image: build/pmutest-usb.img, a GPT disk with one EFI
# System Partition (FAT32) that every UEFI firmware boots from removable
# media (UEFI 2.x, 13.3.1.3 "Directory Structure": \EFI\BOOT\BOOTX64.EFI):
#   \EFI\BOOT\BOOTX64.EFI   the test kernel
#   \EFI\BOOT\pmutest.cfg   the options (a commented default unless --config)
#   \pmutest\               where the report of a run is written on the
#                           next boot (see boot/uefi/report_store.c)
# No root, no loop device: sfdisk writes the partition table into the file,
# mtools formats and fills the partition (a separate file, copied in).
#
# For a PC with Secure Boot on (docs/booting.md "Secure Boot"):
#   --sign-key K --sign-cert C   BOOTX64.EFI signed with the user's key
#                                (sbsign), checked (sbverify), within EFI_MAX_BYTES;
#   --shim (with the key)        Debian's Microsoft-signed shim as
#                                \EFI\BOOT\BOOTX64.EFI, MokManager beside
#                                it, pmutest signed as \EFI\BOOT\pmutest.efi
#                                named by \EFI\BOOT\options.csv (shim 16
#                                reads its first field as the second stage),
#                                the certificate as \pmutest-key.cer (DER)
#                                for the one-time MOK enrolment. No fbx64.efi:
#                                beside shim it would run fallback instead.
#
# Exit status: 0 written, 2 bad arguments or a missing tool/file, 3 the
# signed image failed its check (sbverify, size).
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: tools/make-usb-image.sh [--config FILE] [--efi PATH] [--out IMG] [--size MIB]

  --config FILE   options file to install (default: a commented default)
  --efi PATH      image to install (default build/BOOTX64.EFI)
  --out IMG       output (default build/pmutest-usb.img)
  --size MIB      disk size in MiB, 48..4096 (default 64)
  --sign-key K    sign BOOTX64.EFI with this PEM private key (no passphrase)
  --sign-cert C   ... and this PEM certificate (both or neither)
  --shim          the shim layout (needs the key): Debian's signed shim and
                  MokManager (package shim-signed), pmutest as pmutest.efi
  --shim-dir DIR  where shimx64.efi.signed, mmx64.efi.signed are
                  (default /usr/lib/shim)
USAGE
}

die() {
	echo "make-usb-image.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
# sfdisk lives in /usr/sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
config=
efi=$here/build/BOOTX64.EFI
out=$here/build/pmutest-usb.img
size=64
sign_key=
sign_cert=
shim=0
shim_dir=/usr/lib/shim
# The stick's budget, signature included (testing/lib/efi-budget.sh).
. "$here/testing/lib/efi-budget.sh"
max_bytes=$EFI_MAX_BYTES

while [ $# -gt 0 ]; do
	case $1 in
	--config) config=${2:?--config needs a file}; shift ;;
	--efi) efi=${2:?--efi needs a path}; shift ;;
	--out) out=${2:?--out needs a path}; shift ;;
	--size) size=${2:?--size needs MiB}; shift ;;
	--sign-key) sign_key=${2:?--sign-key needs a file}; shift ;;
	--sign-cert) sign_cert=${2:?--sign-cert needs a file}; shift ;;
	--shim) shim=1 ;;
	--shim-dir) shim_dir=${2:?--shim-dir needs a directory}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift
done

case $size in '' | *[!0-9]*) die "--size wants MiB, got '$size'" ;; esac
# FAT32 needs at least 65525 clusters: the partition (size - 2 MiB) of
# 512-byte clusters is large enough from 48 MiB on.
if [ "$size" -lt 48 ] || [ "$size" -gt 4096 ]; then
	die "--size must be 48..4096 MiB"
fi
[ -f "$efi" ] || die "no image at $efi (run 'make efi')"
[ -z "$config" ] || [ -f "$config" ] || die "options file not found: $config"
for t in mformat mmd mcopy sfdisk; do
	command -v $t >/dev/null || die "$t missing: apt-get install mtools fdisk"
done
if [ -n "$sign_key$sign_cert" ]; then
	{ [ -f "$sign_key" ] && [ -f "$sign_cert" ]; } || die "--sign-key and --sign-cert need both files"
	for t in sbsign sbverify openssl; do
		command -v $t >/dev/null || die "$t missing: apt-get install sbsigntool openssl"
	done
fi
if [ "$shim" = 1 ]; then
	[ -n "$sign_key" ] || die "--shim needs --sign-key/--sign-cert: shim runs only what a key it trusts signed"
	for f in shimx64.efi.signed mmx64.efi.signed; do
		[ -f "$shim_dir/$f" ] || die "$shim_dir/$f missing: apt-get install shim-signed"
	done
fi

# The partition: from 1 MiB (aligned for every flash controller) to 1 MiB
# before the end (the backup GPT lives in the last 33 sectors).
part_start=2048
part_sectors=$(((size - 2) * 2048))
clusters=1
[ "$size" -gt 256 ] && clusters=8

mkdir -p "$(dirname "$out")"
tmp=$out.tmp
part=$out.part
rm -f "$tmp" "$part"
trap 'rm -f "$tmp" "$part" "${sample-}" "${signed-}" "${csv-}" "${der-}"' EXIT

if [ -n "$sign_key" ]; then
	# The signed copy is what goes on the stick; the build's file stays
	# unsigned (a second signature would be appended, not replace it).
	signed=$(mktemp)
	sbsign --key "$sign_key" --cert "$sign_cert" --output "$signed" "$efi" >/dev/null 2>"$signed.err" ||
		{ cat "$signed.err" >&2; rm -f "$signed.err"; die "sbsign failed (a key with a passphrase? see docs/booting.md)"; }
	rm -f "$signed.err"
	if ! sbverify --cert "$sign_cert" "$signed" >/dev/null 2>&1; then
		echo "make-usb-image.sh: sbverify does not accept the signed image" >&2
		exit 3
	fi
	bytes=$(stat -c %s "$signed")
	if [ "$bytes" -ge "$max_bytes" ]; then
		echo "make-usb-image.sh: the signed image is $bytes bytes, not under $max_bytes" >&2
		exit 3
	fi
	echo "signed $efi with $sign_cert: $bytes bytes, sbverify: Signature verification OK"
	efi=$signed
fi

truncate -s "${size}M" "$tmp"
# C12A7328-...: the EFI System Partition type GUID (UEFI 2.x, table 5.8).
sfdisk --quiet --no-reread --no-tell-kernel "$tmp" >/dev/null <<PARTS
label: gpt
start=$part_start, size=$part_sectors, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="PMUTEST"
PARTS

truncate -s "$((part_sectors * 512))" "$part"
mformat -i "$part" -F -T "$part_sectors" -h 64 -s 32 -H "$part_start" -c "$clusters" -v PMUTEST ::
mmd -i "$part" ::/EFI ::/EFI/BOOT ::/pmutest
if [ "$shim" = 1 ]; then
	mcopy -i "$part" "$shim_dir/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$part" "$shim_dir/mmx64.efi.signed" ::/EFI/BOOT/mmx64.efi
	mcopy -i "$part" "$efi" ::/EFI/BOOT/pmutest.efi
	# options.csv: UTF-16LE with a byte-order mark; shim takes the text
	# before the first comma as its second stage (a path from \EFI\ is
	# used as it is).
	csv=$(mktemp)
	{ printf '\377\376'; printf '\\EFI\\BOOT\\pmutest.efi,pmutest\n' | iconv -f ASCII -t UTF-16LE; } >"$csv"
	mcopy -i "$part" "$csv" ::/EFI/BOOT/options.csv
	der=$(mktemp)
	openssl x509 -in "$sign_cert" -outform DER -out "$der"
	mcopy -i "$part" "$der" ::/pmutest-key.cer
else
	mcopy -i "$part" "$efi" ::/EFI/BOOT/BOOTX64.EFI
fi
if [ -n "$config" ]; then
	mcopy -i "$part" "$config" ::/EFI/BOOT/pmutest.cfg
else
	sample=$(mktemp)
	cat >"$sample" <<'CFG'
# pmutest options: key = value, one per line; '#' starts a comment.
# Every option is listed with its default; remove the '#' to change one.
#
# suites = rdpmc, global        only these suites (default: all)
# tests = rdpmc.type_space      only these tests, as suite.test
# exclude = pmi                 never these suites or tests
# selftest = 0                  1: also the harness self-tests (they fail on purpose)
# verbose = 1                   0: failures only, 2: also every passing check
# timeout_ms = 10000            watchdog per test (100..600000)
#
# The report is kept in UEFI variables at the end of the run; the next boot
# of this stick writes it to \pmutest\ (a new file each time, named after
# the machine and the date). 0: do not keep it.
save_report = 1
CFG
	mcopy -i "$part" "$sample" ::/EFI/BOOT/pmutest.cfg
fi
dd if="$part" of="$tmp" bs=1M seek=1 conv=notrunc,sparse status=none
mv "$tmp" "$out"

echo "wrote $out (${size} MiB, GPT, one FAT32 EFI System Partition)"
[ "$shim" = 0 ] || echo "shim layout: enrol \\pmutest-key.cer once in MokManager (docs/booting.md \"Secure Boot\")"
echo "write it to a USB stick (this destroys the stick's contents; check the device name with lsblk):"
echo "  sudo dd if=$out of=/dev/sdX bs=4M conv=fsync status=progress"

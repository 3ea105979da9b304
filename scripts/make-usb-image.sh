#!/usr/bin/env bash
# Build a bootable USB image for real hardware: build/pmutest-usb.img, a
# plain FAT32 file system without a partition table (a "superfloppy"; UEFI
# firmware reads FAT on whole removable media) holding
#   \EFI\BOOT\BOOTX64.EFI   the test kernel
#   \EFI\BOOT\pmutest.cfg   the options (a sample unless --config is given)
#   \pmutest\               where the report of a run is written on the
#                           next boot (see boot/report_store.c)
# Needs mtools only (no root, no loop devices).
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: scripts/make-usb-image.sh [--config FILE] [--efi PATH] [--out IMG] [--size MIB]

  --config FILE   options file to install (default: a commented sample)
  --efi PATH      image to install (default build/BOOTX64.EFI)
  --out IMG       output (default build/pmutest-usb.img)
  --size MIB      image size in MiB, 40..4096 (default 64)
USAGE
}

die() {
	echo "make-usb-image.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
config=
efi=$here/build/BOOTX64.EFI
out=$here/build/pmutest-usb.img
size=64

while [ $# -gt 0 ]; do
	case $1 in
	--config) config=${2:?--config needs a file}; shift ;;
	--efi) efi=${2:?--efi needs a path}; shift ;;
	--out) out=${2:?--out needs a path}; shift ;;
	--size) size=${2:?--size needs MiB}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift
done

case $size in '' | *[!0-9]*) die "--size wants MiB, got '$size'" ;; esac
# FAT32 needs at least 65525 clusters: 40 MiB of 512-byte clusters.
if [ "$size" -lt 40 ] || [ "$size" -gt 4096 ]; then
	die "--size must be 40..4096 MiB"
fi
[ -f "$efi" ] || die "no image at $efi (run 'make efi')"
[ -z "$config" ] || [ -f "$config" ] || die "options file not found: $config"
for t in mformat mmd mcopy; do
	command -v $t >/dev/null || die "$t missing: apt-get install mtools"
done

mkdir -p "$(dirname "$out")"
tmp=$out.tmp
rm -f "$tmp"
truncate -s "${size}M" "$tmp"
sectors=$((size * 2048))
clusters=1
[ "$size" -gt 256 ] && clusters=8
mformat -i "$tmp" -F -T "$sectors" -h 64 -s 32 -c "$clusters" -v PMUTEST ::
mmd -i "$tmp" ::/EFI ::/EFI/BOOT ::/pmutest
mcopy -i "$tmp" "$efi" ::/EFI/BOOT/BOOTX64.EFI
if [ -n "$config" ]; then
	mcopy -i "$tmp" "$config" ::/EFI/BOOT/pmutest.cfg
else
	sample=$(mktemp)
	trap 'rm -f "$sample"' EXIT
	cat >"$sample" <<'CFG'
# pmutest options (key = value, one per line; '#' starts a comment).
# selftest = 0        harness self-tests (they fail on purpose)
# suites = rdpmc, global
# exclude = counting.edge_inv_cmask
# timeout_ms = 2000   watchdog per test
# verbose = 0
# The report is stored in UEFI variables at the end of the run and written
# to \pmutest\report.ktap on this stick at the next boot.
save_report = 1
CFG
	mcopy -i "$tmp" "$sample" ::/EFI/BOOT/pmutest.cfg
fi
mv "$tmp" "$out"

echo "wrote $out (${size} MiB FAT32, no partition table)"
echo "write it to a USB stick (this destroys the stick's contents; check the device name with lsblk):"
echo "  sudo dd if=$out of=/dev/sdX bs=4M conv=fsync status=progress"

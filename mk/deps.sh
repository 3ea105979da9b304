#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every tool and package pmutest needs is present. As root it
# installs what is missing with apt-get; otherwise it names the packages and
# the command that installs them, and fails.
set -euo pipefail

# tool-or-file  debian-package
needs=(
	"gcc gcc"
	"make make"
	"nasm nasm"
	"qemu-system-x86_64 qemu-system-x86"
	"mcopy mtools"
	"mformat mtools"
	"mkfs.vfat dosfstools"
	"/usr/sbin/sfdisk fdisk"
	"cpuid cpuid"
	"python3 python3"
	"gawk gawk"
	"/usr/lib/crt0-efi-x86_64.o gnu-efi"
	"/usr/include/efi/efi.h gnu-efi"
	"/usr/share/ovmf/OVMF.fd ovmf"
	"/usr/share/OVMF/OVMF_CODE_4M.secboot.fd ovmf"
	"sbsign sbsigntool"
	"sbverify sbsigntool"
	"openssl openssl"
	"iconv libc-bin"
	"/usr/lib/shim/shimx64.efi.signed shim-signed"
	"/usr/lib/python3/dist-packages/jsonschema python3-jsonschema"
)

missing=()
for pair in "${needs[@]}"; do
	what=${pair% *}
	pkg=${pair#* }
	if [[ $what == /* ]]; then
		[[ -e $what ]] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	[[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "${missing[@]}" >&2
	exit 0
fi
echo "deps: missing packages: ${missing[*]}" >&2
echo "deps: install them with: sudo apt-get install -y ${missing[*]}" >&2
exit 1

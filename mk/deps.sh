#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The one list of what pmutest needs from Debian, and its installer.
#
# Usage: mk/deps.sh [--test]          check, and install what is missing
#        mk/deps.sh --list [--test]   the package names, one a line
#        mk/deps.sh --markdown        the README's table of packages
#
# Two scopes: "build" is what `make` and `make run` need (build the images,
# boot them in QEMU); "test" is what only some `make test` steps need on top.
# Without --test only the build scope is checked.
#
# Decision order:
#   1. Everything present: exit 0, silently.
#   2. Root with apt-get: one `apt-get install` transaction for everything
#      missing in the scope, before anything else runs (make test's steps run
#      in parallel lanes: two installs at once would fight over dpkg's lock).
#      A lock held by someone else (unattended-upgrades, another apt) is
#      waited for, at most LOCK_WAIT seconds, after one line that says so.
#      --no-install-recommends: lava-dispatcher alone recommends NFS and TFTP
#      servers, LXC and ser2net, none of which pmutest uses.
#   3. Not root, no apt-get, or the install failed (no network): one line per
#      missing package (what needs it) and the exact command. A missing
#      build package fails (exit 1): nothing can be built. A missing test
#      package does not: the steps that need it say "skipped: ..." and count
#      nothing.
# The system's apt configuration is never changed.
#
# Exit codes: 0 everything needed is present (or only test packages are
# missing), 1 a build package is missing, 2 usage.
set -euo pipefail

LOCK_WAIT=${LOCK_WAIT:-600}

# tool-or-file | Debian package | scope | what needs it
needs=(
	"gcc|gcc|build|the build"
	"make|make|build|the build"
	"nasm|nasm|build|the build (boot code)"
	"/usr/lib/crt0-efi-x86_64.o|gnu-efi|build|the UEFI image"
	"/usr/include/efi/efi.h|gnu-efi|build|the UEFI image"
	"qemu-system-x86_64|qemu-system-x86|build|make run"
	"/usr/share/ovmf/OVMF.fd|ovmf|build|make run (UEFI firmware)"
	"/usr/share/OVMF/OVMF_CODE_4M.secboot.fd|ovmf|build|make run (UEFI firmware)"
	"mcopy|mtools|build|the USB stick image"
	"mformat|mtools|build|the USB stick image"
	"mkfs.vfat|dosfstools|build|the USB stick image"
	"/usr/sbin/sfdisk|fdisk|build|the USB stick image"
	"sbsign|sbsigntool|build|Secure Boot signing"
	"sbverify|sbsigntool|build|Secure Boot signing"
	"openssl|openssl|build|Secure Boot signing"
	"/usr/lib/shim/shimx64.efi.signed|shim-signed|build|the shim stick layout"
	"iconv|libc-bin|build|the console font"
	"python3|python3|build|make run's report"
	"gawk|gawk|test|the mutation matrix"
	"cpuid|cpuid|test|the capability decoder against Debian's cpuid"
	"/usr/lib/python3/dist-packages/jsonschema|python3-jsonschema|test|the KCIDB step"
	"flake8|flake8|test|the py-lint step"
	"/usr/lib/python3/dist-packages/mypy|python3-mypy|test|the py-types step"
	"chromium|chromium|test|the HTML report step"
	"lava-run|lava-dispatcher|test|the LAVA step"
	"grub-mkrescue|grub-common|test|the GRUB boots of build/pmutest.bin"
	"xorriso|xorriso|test|the GRUB and syslinux boots of build/pmutest.bin"
	"/usr/lib/grub/i386-pc/linux.mod|grub-pc-bin|test|the GRUB boot on a BIOS"
	"/usr/lib/grub/x86_64-efi/linux.mod|grub-efi-amd64-bin|test|the GRUB boot on UEFI"
	"/usr/sbin/kexec|kexec-tools|test|the kexec boot from Linux"
	"/boot/vmlinuz-*-amd64|linux-image-amd64|test|the kexec boot from Linux (Debian's kernel)"
	"cpio|cpio|test|the kexec boot's initramfs"
	"/bin/busybox|busybox-static|test|the kexec boot's initramfs; the package's throwaway root"
	"/usr/lib/ipxe/qemu/pxe-virtio.rom|ipxe-qemu|test|the iPXE boot of build/pmutest.bin"
	"/usr/lib/ISOLINUX/isolinux.bin|isolinux|test|the syslinux boot of build/pmutest.bin"
	"/usr/lib/syslinux/modules/bios/ldlinux.c32|syslinux-common|test|the syslinux boot of build/pmutest.bin"
	"lintian|lintian|test|the Debian package's check"
	"clang-format|clang-format|test|the format step (make format too)"
	"shellcheck|shellcheck|test|the shellcheck step"
)

usage() {
	sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

scope=build mode=install
for a in "$@"; do
	case $a in
	--test) scope='test' ;;
	--list) mode='list' ;;
	--markdown) mode='markdown' ;;
	*) usage ;;
	esac
done

# in_scope SCOPE: whether a need of that scope is wanted now.
in_scope() { [[ $1 == build || $scope == test ]]; }

# present WHAT: a command on the PATH, or a path (a pattern: a kernel's version).
present() {
	if [[ $1 == /* ]]; then compgen -G "$1" >/dev/null; else command -v "$1" >/dev/null 2>&1; fi
}

if [[ $mode == list ]]; then
	for n in "${needs[@]}"; do
		IFS='|' read -r _ pkg sc _ <<<"$n"
		in_scope "$sc" && echo "$pkg"
	done | awk '!seen[$0]++'
	exit 0
fi
if [[ $mode == markdown ]]; then
	# Two rows (one per scope) keep the README short; a package's purposes
	# are joined where several rows name it.
	echo "| needed by | Debian package: what for |"
	echo "|---|---|"
	for want in build test; do
		row=""
		declare -A seen=()
		for n in "${needs[@]}"; do
			IFS='|' read -r _ pkg sc why <<<"$n"
			[[ $sc == "$want" && -z ${seen[$pkg]-} ]] || continue
			seen[$pkg]=1
			row+="${row:+; }\`$pkg\`: $why"
		done
		unset seen
		echo "| $([[ $want == build ]] && echo "make, make run" || echo "make test, also") | $row |"
	done
	exit 0
fi

missing=() build_missing=0
declare -A why_of=()
for n in "${needs[@]}"; do
	IFS='|' read -r what pkg sc why <<<"$n"
	in_scope "$sc" || continue
	present "$what" && continue
	[[ $sc == build ]] && build_missing=1
	[[ -n ${why_of[$pkg]-} ]] && continue
	why_of[$pkg]=$why
	missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

# apt_get ARGS...: apt-get, waiting for a lock that someone else holds.
apt_get() {
	local err
	err=$(mktemp)
	if apt-get -o DPkg::Lock::Timeout=0 "$@" 2>"$err" >/dev/null; then
		rm -f "$err"
		return 0
	fi
	if grep -q 'Could not get lock\|Unable to acquire\|Unable to lock' "$err"; then
		echo "deps: $(grep -m1 -o 'held by process.*' "$err" || echo 'the package lock is held'); waiting for it, at most ${LOCK_WAIT} s" >&2
		rm -f "$err"
		apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" "$@" 2>&1 >/dev/null |
			grep -v 'Waiting for cache lock' >&2
		return "${PIPESTATUS[0]}"
	fi
	cat "$err" >&2
	rm -f "$err"
	return 1
}

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt_get update -qq && apt_get install -y -qq --no-install-recommends "${missing[@]}"; then
		exit 0
	fi
	echo "deps: the install failed" >&2
	# Say what is still missing, below.
	still=()
	for pkg in "${missing[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || still+=("$pkg")
	done
	missing=("${still[@]}")
	[[ ${#missing[@]} -eq 0 ]] && exit 0
fi

build_missing=0
for pkg in "${missing[@]}"; do
	echo "deps: missing $pkg (${why_of[$pkg]})" >&2
	for n in "${needs[@]}"; do
		IFS='|' read -r _ p sc _ <<<"$n"
		[[ $p == "$pkg" && $sc == build ]] && build_missing=1
	done
done
echo "deps: install with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
exit "$build_missing"

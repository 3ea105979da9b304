#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package: build/pmutest_VERSION_amd64.deb, staged from the
# build and packaging/deb/, put together by dpkg-deb (make deb).
#
# usage: tools/make-deb.sh [--version V] [--out FILE]
#   --version V   the package version (default: PMUTEST_VERSION, kernel/version.h)
#   --out FILE    the .deb (default build/pmutest_V_amd64.deb)
#
# What goes where:
#   /boot/pmutest.bin                     the Linux-format image (GRUB, kexec)
#   /etc/grub.d/20_pmutest                its GRUB entries (a conffile)
#   /usr/sbin/pmutest-kexec               the kexec helper
#   /usr/bin/pmusim, pmucaps, pmutest-report   the host tools
#   /usr/lib/pmutest/                     the UEFI and ELF images
#   /usr/share/pmutest/                   the report tool's modules, the expectations
#   /usr/share/doc/pmutest/               README, docs, copyright, changelog
# Exit status: 0 built, 2 bad usage or a missing input.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "make-deb.sh: $*" >&2; exit 2; }
version=$(sed -n 's/^#define PMUTEST_VERSION "\(.*\)"$/\1/p' "$here/kernel/version.h")
out=
while [[ $# -gt 0 ]]; do
	case $1 in
	--version) version=${2:?--version needs a version}; shift ;;
	--out) out=${2:?--out needs a file}; shift ;;
	-h | --help) sed -n '3,/^set -euo/p' "$0" | sed -e 's/^# \{0,1\}//' -e '$d'; exit 0 ;;
	*) die "unknown option '$1'" ;;
	esac
	shift
done
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "'$version' is not a Debian version"
out=${out:-$here/build/pmutest_${version}_amd64.deb}
b=$here/build
for f in "$b/pmutest.bin" "$b/BOOTX64.EFI" "$b/pmutest.elf" "$b/host/pmusim" "$b/host/pmucaps"; do
	[[ -f $f ]] || die "no $f: run make"
done

stage=$b/deb/root
rm -rf "$stage"
inst() { # inst MODE SRC DEST
	install -D -m "$1" "$2" "$stage$3"
}
inst 644 "$b/pmutest.bin" /boot/pmutest.bin
inst 755 "$here/tools/grub/20_pmutest" /etc/grub.d/20_pmutest
inst 755 "$here/tools/pmutest-kexec" /usr/sbin/pmutest-kexec
inst 755 "$b/host/pmusim" /usr/bin/pmusim
inst 755 "$b/host/pmucaps" /usr/bin/pmucaps
inst 755 "$here/packaging/deb/pmutest-report" /usr/bin/pmutest-report
inst 644 "$b/BOOTX64.EFI" /usr/lib/pmutest/BOOTX64.EFI
inst 644 "$b/pmutest.elf" /usr/lib/pmutest/pmutest.elf
strip --strip-unneeded -R .comment -R .note "$stage/usr/bin/pmusim" "$stage/usr/bin/pmucaps"
# The report command and its package beside it, where it finds it.
inst 644 "$here/tools/ktap-report.py" /usr/share/pmutest/report/ktap-report.py
for f in "$here"/tools/pmureport/*.py "$here"/tools/pmureport/kcidb-v5.schema.json; do
	inst 644 "$f" "/usr/share/pmutest/report/pmureport/$(basename "$f")"
done
for f in "$here"/data/expectations/*.txt; do
	inst 644 "$f" "/usr/share/pmutest/expectations/$(basename "$f")"
done
doc=/usr/share/doc/pmutest
inst 644 "$here/packaging/deb/copyright" "$doc/copyright"
inst 644 "$here/packaging/deb/lintian-overrides" /usr/share/lintian/overrides/pmutest
gzip -9n <"$here/README.md" >"$b/deb/README.md.gz"
inst 644 "$b/deb/README.md.gz" "$doc/README.md.gz"
date=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}")
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$date/" "$here/packaging/deb/changelog" | gzip -9n >"$b/deb/changelog.gz"
inst 644 "$b/deb/changelog.gz" "$doc/changelog.gz"

# The control files: the shared libraries the host tools need (dpkg-shlibdeps
# reads a debian/control, so it runs in a scratch directory), the size, the
# conffile, the maintainer scripts, md5sums.
scratch=$b/deb/shlibs
rm -rf "$scratch" && mkdir -p "$scratch/debian"
printf 'Source: pmutest\n\nPackage: pmutest\nArchitecture: amd64\n' >"$scratch/debian/control"
depends=$(cd "$scratch" && dpkg-shlibdeps -O "$stage/usr/bin/pmusim" "$stage/usr/bin/pmucaps" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || die "dpkg-shlibdeps found no dependencies for the host tools"
mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
	"$here/packaging/deb/control.in" >"$stage/DEBIAN/control"
echo /etc/grub.d/20_pmutest >"$stage/DEBIAN/conffiles"
install -m 755 "$here/packaging/deb/postinst" "$stage/DEBIAN/postinst"
install -m 755 "$here/packaging/deb/postrm" "$stage/DEBIAN/postrm"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\n' | sort |
	xargs md5sum >DEBIAN/md5sums)
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "make-deb.sh: $out"

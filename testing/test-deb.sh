#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package in a throwaway root: `dpkg --root` installs
# build/pmutest_V_amd64.deb, upgrades it to a second version, removes and
# purges it, in a root made here of busybox-static (/bin/sh for the
# maintainer scripts, which dpkg runs chrooted into it) and an update-grub
# that records each call; then lintian on the package. Not a whole Debian
# system: the package's dependencies (libc6, python3) are not in that root,
# so dpkg is told --force-depends, and the GRUB menu is not regenerated,
# only asked for (update-grub's calls are what is checked).
#
# usage: testing/test-deb.sh   (after make). Exit status 0 all checks
# passed, 1 some failed, 2 a missing tool.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
# chk DESCRIPTION COMMAND...: check, with the command's own status.
chk() {
	local d=$1
	shift
	"$@"
	check "$d" $?
}

for t in dpkg dpkg-deb lintian /bin/busybox; do
	command -v "$t" >/dev/null 2>&1 || [[ -x $t ]] || { echo "test-deb.sh: missing $t" >&2; exit 2; }
done
work=build/deb-test
rm -rf "$work" && mkdir -p "$work"
v1=0.1~test1 v2=0.1~test2
tools/make-deb.sh --version "$v1" --out "$work/pmutest_$v1.deb" >/dev/null || exit 2
tools/make-deb.sh --version "$v2" --out "$work/pmutest_$v2.deb" >/dev/null || exit 2

root=$PWD/$work/root
mkdir -p "$root/bin" "$root/usr/sbin" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" \
	"$root/var/log" "$root/boot/grub" "$root/tmp"
# /dev/null for the maintainer scripts' redirections (a device node: root,
# as dpkg --root for a system's packages is)
mkdir -p "$root/dev"
mknod -m 666 "$root/dev/null" c 1 3 || { echo "test-deb.sh: cannot make $root/dev/null" >&2; exit 2; }
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available" "$root/boot/grub/grub.cfg"
cp /bin/busybox "$root/bin/busybox"
for a in sh cat echo rm mkdir test [ sed date; do ln -s busybox "$root/bin/$a"; done
# shellcheck disable=SC2016 # expanded by the fake update-grub, not here
printf '#!/bin/sh\necho "update-grub ($DPKG_MAINTSCRIPT_NAME $DPKG_MAINTSCRIPT_PACKAGE)" >>/var/log/update-grub.calls\n' \
	>"$root/usr/sbin/update-grub"
chmod +x "$root/usr/sbin/update-grub"
dpkg_root() { dpkg --root="$root" --force-depends "$@" >>"$work/dpkg.log" 2>&1; }
calls() { grep -c . "$root/var/log/update-grub.calls" 2>/dev/null || echo 0; }
status() { dpkg --root="$root" -s pmutest 2>/dev/null | sed -n "s/^$1: //p"; }

dpkg_root -i "$work/pmutest_$v1.deb"
chk "install: dpkg -i succeeds (log $work/dpkg.log)" test $? = 0
chk "install: version $v1 installed" test "$(status Version)" = "$v1"
chk "install: the image in /boot" test -s "$root/boot/pmutest.bin"
chk "install: the GRUB script in /etc/grub.d, executable" test -x "$root/etc/grub.d/20_pmutest"
chk "install: the host tools on the PATH" test -x "$root/usr/bin/pmusim" -a -x "$root/usr/bin/pmucaps" -a -x "$root/usr/bin/pmutest-report"
chk "install: pmutest-kexec in /usr/sbin" test -x "$root/usr/sbin/pmutest-kexec"
chk "install: postinst ran update-grub once" test "$(calls)" = 1
dpkg --root="$root" --verify pmutest >"$work/verify.log" 2>&1
chk "install: every file as its md5sum says (dpkg --verify)" test $? = 0 -a ! -s "$work/verify.log"

dpkg_root -i "$work/pmutest_$v2.deb"
chk "upgrade: dpkg -i of $v2 succeeds" test $? = 0
chk "upgrade: version $v2 installed" test "$(status Version)" = "$v2"
chk "upgrade: postinst ran update-grub again" test "$(calls)" = 2

dpkg_root -r pmutest
chk "remove: dpkg -r succeeds" test $? = 0
chk "remove: the image is gone" test ! -e "$root/boot/pmutest.bin"
chk "remove: the tools are gone" test ! -e "$root/usr/bin/pmusim" -a ! -e "$root/usr/sbin/pmutest-kexec"
chk "remove: the conffile stays until purge" test -e "$root/etc/grub.d/20_pmutest"
chk "remove: postrm ran update-grub" test "$(calls)" = 3
dpkg_root -P pmutest
chk "purge: dpkg -P succeeds" test $? = 0
chk "purge: update-grub not run again (the entries went with the image)" test "$(calls)" = 3
chk "purge: the conffile is gone" test ! -e "$root/etc/grub.d/20_pmutest"
chk "purge: dpkg knows no pmutest" test -z "$(status Status)"
left=$(cd "$root" && find boot etc usr/bin usr/lib usr/share -mindepth 1 ! -path 'boot/grub*' 2>/dev/null)
chk "purge: nothing of the package left (${left:-none})" test -z "$left"

lintian --tag-display-limit 0 "$work/pmutest_$v1.deb" >"$work/lintian.log" 2>&1
chk "lintian: no error ($(grep -c '^E:' "$work/lintian.log") E: lines, $(grep -c '^W:' "$work/lintian.log") W: lines)" \
	test "$(grep -c '^E:' "$work/lintian.log")" = 0
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A QEMU whose TCG has x2APIC (QEMU 8.1 and later: `-cpu max` then sets
# CPUID.01H:ECX[21] and emulates the x2APIC MSRs), for the x2APIC boots of
# `make test`. Prints the path of a qemu-system-x86_64 to pass to
# tools/run-qemu.sh --qemu.
#
#   - the system's QEMU when it is 8.1 or later (Debian 13 and newer);
#   - else (Debian 12: QEMU 7.2) QEMU 10 from Debian's bookworm-backports
#     suite, downloaded from the mirror this machine already uses and
#     unpacked with dpkg-deb -x into build/qemu10/ with a private apt
#     configuration (its own sources list, lists and archive cache under
#     build/qemu10/apt). Neither the system's apt configuration nor its
#     QEMU is touched. build/qemu10/qemu-system-x86_64 is a wrapper that
#     sets LD_LIBRARY_PATH to the unpacked libraries and passes -L for the
#     unpacked firmware data (then the system's /usr/share/qemu).

usage() {
	cat <<'USAGE'
usage: tools/qemu-x2apic.sh [--dir DIR] [--check]

  --dir DIR   where to unpack QEMU (default build/qemu10)
  --check     only say whether a usable QEMU is already there (no download)
  -h, --help  this text

Prints the path of a qemu-system-x86_64 with x2APIC under TCG.
Exit status: 0 found or made (path on stdout), 1 --check and none there
yet, 2 none could be had (no mirror reachable, no backports package, a
download or unpack failed: the reason on stderr).
USAGE
}

die() {
	echo "qemu-x2apic.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
dir=$here/build/qemu10
check=0
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=${2:?--dir needs a directory}; shift ;;
	--check) check=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift
done

# QEMU VERSION: major*100+minor of the binary, 0 when it does not run.
qemu_version() {
	"$1" --version 2>/dev/null | sed -nE '1s/.*version ([0-9]+)\.([0-9]+).*/\1 \2/p' |
		{ read -r a b && echo $((a * 100 + b)) || echo 0; }
}

sys=$(command -v qemu-system-x86_64 || true)
if [ -n "$sys" ] && [ "$(qemu_version "$sys")" -ge 801 ]; then
	echo "$sys"
	exit 0
fi
wrapper=$dir/qemu-system-x86_64
if [ -x "$wrapper" ] && [ "$(qemu_version "$wrapper")" -ge 801 ]; then
	echo "$wrapper"
	exit 0
fi
[ "$check" = 0 ] || exit 1

# The mirror the machine already uses for Debian: the first URIs of a
# deb822 .sources file, else the first deb line of sources.list.
mirror=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
	[ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:/) { print $i; exit } }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources.list{,.d}"
{ command -v apt-get && command -v dpkg-deb; } >/dev/null || die "needs apt-get and dpkg-deb (Debian)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "no $keyring (apt-get install debian-archive-keyring)"

apt=$dir/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/etc/preferences.d" "$dir/root" ||
	die "cannot create $dir"
# Both suites: apt resolves backports' dependencies against bookworm, and
# the system's dpkg status says which of them are installed already.
cat >"$apt/sources.list" <<EOF
deb [signed-by=$keyring] $mirror bookworm main
deb [signed-by=$keyring] $mirror bookworm-backports main
EOF
opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
	-o Dir::Etc::preferencesparts="$apt/etc/preferences.d" -o Dir::State::Lists="$apt/lists"
	-o Dir::Cache="$apt" -o Dir::Cache::Archives="$apt/archives"
	-o Dir::Cache::pkgcache="$apt/pkgcache.bin" -o Dir::Cache::srcpkgcache="$apt/srcpkgcache.bin"
	-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -q)
echo "qemu-x2apic.sh: QEMU from bookworm-backports ($mirror) into $dir" >&2
apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 || die "apt-get update failed (see $apt/update.log)"
pkgs=(qemu-system-x86 qemu-system-data qemu-system-common)
# What installing them would add to this system: their dependencies the
# system lacks (or has too old), from either suite.
sim=$(apt-get "${opts[@]}" -s --no-install-recommends -t bookworm-backports install "${pkgs[@]}" 2>"$apt/sim.err") ||
	die "backports' QEMU cannot be resolved here (see $apt/sim.err)"
mapfile -t want < <(echo "$sim" | sed -nE 's/^Inst ([^ ]+) (\[[^]]*\] )?\(([^ ]+) .*/\1=\3/p')
[ "${#want[@]}" -gt 0 ] || die "nothing to download? (apt-get -s said: $(echo "$sim" | tail -n 2))"
(cd "$apt/archives" && apt-get "${opts[@]}" download "${want[@]}" >"$apt/download.log" 2>&1) ||
	die "download failed (see $apt/download.log)"
for deb in "$apt"/archives/*.deb; do
	dpkg-deb -x "$deb" "$dir/root" || die "cannot unpack $deb"
done
bin=$dir/root/usr/bin/qemu-system-x86_64
[ -x "$bin" ] || die "no qemu-system-x86_64 in the unpacked packages"
libs=$dir/root/usr/lib/x86_64-linux-gnu:$dir/root/lib/x86_64-linux-gnu
cat >"$wrapper" <<EOF
#!/bin/sh
# Made by tools/qemu-x2apic.sh: the unpacked backports QEMU, its libraries
# and firmware data first, the system's after.
LD_LIBRARY_PATH=$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec $bin -L $dir/root/usr/share/qemu -L /usr/share/qemu "\$@"
EOF
chmod +x "$wrapper"
v=$(qemu_version "$wrapper")
[ "$v" -ge 801 ] || die "the unpacked QEMU does not run or is older than 8.1 (try: $wrapper --version)"
echo "$wrapper"

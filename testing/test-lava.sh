#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`'s LAVA step: the jobs of lava/ run by lava-run, the
# LAVA dispatcher without a server, and what LAVA recorded checked against
# the KTAP log it read (tools/lava-results.py).
#
#   1. the stick image in QEMU (lava/jobs/qemu-stick.yaml, device
#      lava/devices/qemu-pmutest.yaml): the job completes, LAVA has exactly
#      the log's tests, results and verdict, and the log LAVA read matches
#      data/expectations/qemu-tcg.txt;
#   2. runs that never reach a verdict: the console ends mid-run (QEMU
#      "dies"), or goes silent (the kernel "hangs"): each is an incomplete
#      job with no verdict, never a pass;
#   3. a board (lava/jobs/board-flasher.yaml): a `flasher` deploy writes the
#      stick image, a `minimal` boot power-cycles the board and reads its
#      COM1; the board is QEMU behind the device dictionary's commands
#      (lava/test/qemu-board.sh);
#   4. the direct-boot kernel (lava/jobs/qemu-direct.yaml) when the tree
#      builds build/pmutest.elf: on pc, matching the TCG expectations, and
#      on microvm with an options file (its initrd) of two suites;
#   5. the iPXE chain (lava/jobs/ipxe-chain.yaml): a board whose firmware
#      runs iPXE, LAVA interrupts it, types dhcp and chain, BOOTX64.EFI
#      comes over TFTP (QEMU's user network stands in for the lab's);
#   6. every job template, filled, passes LAVA's own job schema (the kexec
#      one, lava/jobs/kexec-linux.yaml, is checked only so: not run here).
#
# As root it installs lava-dispatcher when missing (Debian 12: 2023.01);
# otherwise the step says it is skipped and why, and counts nothing.
# One "ok"/"not ok" line a check; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
here=$(pwd)
PATH=$PATH:/usr/sbin:/sbin
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

out=${1:-build/test-logs/lava}
mkdir -p "$out"
rm -rf "${out:?}"/*
out=$(cd "$out" && pwd)

skipped() {
	echo "skipped: $*"
	echo "0 passed, 0 failed"
	exit 0
}

# make test installs lava-dispatcher beforehand (mk/deps.sh --test).
command -v lava-run >/dev/null 2>&1 ||
	skipped "lava-run is missing (mk/deps.sh --test installs lava-dispatcher as root)"
# lava-run keeps its downloads in /var/lib/lava/dispatcher/tmp.
lava_tmp=/var/lib/lava/dispatcher/tmp
if [[ $(id -u) -ne 0 ]] && ! { mkdir -p "$lava_tmp" 2>/dev/null && [[ -w $lava_tmp ]]; }; then
	skipped "lava-run needs to write $lava_tmp, which this user cannot"
fi
echo "# $(lava-run --help >/dev/null 2>&1 && dpkg-query -W -f='lava-dispatcher ${Version}' lava-dispatcher 2>/dev/null)"

# The image a lab writes to a board, and the options on it: the suite list
# of the job comes from the simulator run with those very options (the same
# suites in the same order as the kernel: one registry, one runner).
img=$out/pmutest-usb.img
tools/make-usb-image.sh --out "$img" >"$out/make-image.txt" 2>&1
check "make-usb-image.sh wrote $img" $?
mtype -i "$img@@1M" ::/EFI/BOOT/pmutest.cfg >"$out/stick.cfg" 2>/dev/null
build/host/pmusim --profile synth-v5-metrics --config "$out/stick.cfg" >"$out/suites.ktap" 2>&1
python3 tools/ktap-report.py validate "$out/suites.ktap" >/dev/null
rc=$?
check "the simulator lists the suites of the stick's options ($(grep -c '# Subtest:' "$out/suites.ktap") suites)" $rc

job() { # job NAME TEMPLATE ARGS...: fill a template into $out/NAME.yaml
	local name=$1 template=$2
	shift 2
	python3 tools/lava-job.py "$template" --suites-from "$out/suites.ktap" "$@" -o "$out/$name.yaml" \
		2>"$out/$name.err"
	check "lava-job.py fills $template ($out/$name.yaml)" $?
}

lava() { # lava NAME DEVICE: lava-run the job NAME.yaml; its output in $out/NAME/
	local name=$1 device=$2 t0=$SECONDS
	mkdir -p "$out/$name"
	# A job id of our own: two make test runs never share lava-run's directory.
	timeout -k 10 900 lava-run --job-id "pmutest-$name-$$" --output-dir "$out/$name" \
		--device "$device" "$out/$name.yaml" >"$out/$name/output.yaml" 2>&1
	echo "# lava-run $name: exit $?, $((SECONDS - t0)) s"
}

results() { # results NAME ARGS...: lava-results.py's checks, counted as ours
	local name=$1 line
	shift
	python3 tools/lava-results.py "$out/$name" "$@" >"$out/$name/results.txt" 2>&1
	local rc=$?
	sed 's/^/    /' "$out/$name/results.txt"
	line=$(tail -n 1 "$out/$name/results.txt")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		checks_passed=$((checks_passed + BASH_REMATCH[1]))
		checks_failed=$((checks_failed + BASH_REMATCH[2]))
		[[ $rc -eq 0 || ${BASH_REMATCH[2]} -gt 0 ]] || check "lava-results.py $name exits 0" "$rc"
	else
		check "lava-results.py $name gives its counts (exit $rc)" 1
	fi
}

# 1. The stick in QEMU.
job stick lava/jobs/qemu-stick.yaml --set "STICK_URL=file://$img" --set TEST_SECONDS=600
lava stick lava/devices/qemu-pmutest.yaml
results stick --save-ktap "$out/stick.ktap"
python3 tools/ktap-report.py compare "$out/stick.ktap" data/expectations/qemu-tcg.txt >"$out/stick-compare.txt" 2>&1
rc=$?
check "the run LAVA read matches data/expectations/qemu-tcg.txt ($(tail -n 1 "$out/stick-compare.txt"))" $rc

# 2. Runs that never reach a verdict: QEMU behind lava/test/qemu-cut.sh,
# cut at the pmi suite (mid-run), in a device that is the QEMU device with
# that wrapper as its command.
for mode in dies hangs; do
	wrapper=$out/qemu-$mode.sh
	printf '#!/bin/sh\nexec %q %s %q "$@"\n' "$here/lava/test/qemu-cut.sh" "$mode" "# Subtest: pmi" >"$wrapper"
	chmod +x "$wrapper"
	sed "s|^\( *command:\) qemu-system-x86_64\$|\1 $wrapper|" lava/devices/qemu-pmutest.yaml >"$out/device-$mode.yaml"
	grep -q "command: $wrapper" "$out/device-$mode.yaml"
	check "the $mode device runs QEMU through lava/test/qemu-cut.sh" $?
	# hangs: the monitor's timeout ends the job (LAVA's minimum is a second).
	job "$mode" lava/jobs/qemu-stick.yaml --set "STICK_URL=file://$img" --set TEST_SECONDS=20
	lava "$mode" "$out/device-$mode.yaml"
	results "$mode" --expect incomplete
done

# 3. A board: flasher deploy, minimal boot, COM1.
board=$out/board
sed -e "s|@BOARD@|$here/lava/test/qemu-board.sh|g" -e "s|@STATE@|$board|g" lava/test/qemu-board.yaml \
	>"$out/device-board.yaml"
job board lava/jobs/board-flasher.yaml --set DEVICE_TYPE=x86-pmutest --set "STICK_URL=file://$img" \
	--set TEST_SECONDS=600
lava board "$out/device-board.yaml"
lava/test/qemu-board.sh off "$board" # the job powers it off; never leave a QEMU behind
results board
cmp -s "$img" "$board/disk.img"
check "the flasher wrote the stick image to the board's disk" $?

# 4. The direct-boot kernel, where this tree builds it: on pc with the
# stick's options (the run matches the TCG expectations, as the UEFI one),
# and on microvm with an options file of two suites as its initrd.
elf=build/pmutest.elf
if [[ -f $elf ]]; then
	job direct lava/jobs/qemu-direct.yaml --set "KERNEL_URL=file://$here/$elf" \
		--set "CONFIG_URL=file://$out/stick.cfg" --set TEST_SECONDS=600
	lava direct lava/devices/qemu-pmutest.yaml
	results direct --save-ktap "$out/direct.ktap"
	python3 tools/ktap-report.py compare "$out/direct.ktap" data/expectations/qemu-tcg.txt >"$out/direct-compare.txt" 2>&1
	rc=$?
	check "the direct-boot run LAVA read matches data/expectations/qemu-tcg.txt ($(tail -n 1 "$out/direct-compare.txt"))" $rc
	build/host/pmusim --profile synth-v5-metrics --config lava/test/two-suites.cfg >"$out/two-suites.ktap" 2>&1
	python3 tools/lava-job.py lava/jobs/qemu-direct.yaml --suites-from "$out/two-suites.ktap" \
		--set "KERNEL_URL=file://$here/$elf" --set "CONFIG_URL=file://$here/lava/test/two-suites.cfg" \
		--set MACHINE=microvm --set TEST_SECONDS=600 -o "$out/microvm.yaml" 2>"$out/microvm.err"
	check "lava-job.py fills lava/jobs/qemu-direct.yaml for microvm and two suites" $?
	lava microvm lava/devices/qemu-pmutest.yaml
	results microvm
	grep -q -- '-machine microvm -kernel ' "$out/microvm/output.yaml"
	check "the microvm job booted QEMU's microvm machine" $?
else
	echo "# not run: the direct-boot jobs (no $elf in this tree)"
fi

# 5. The iPXE chain: a board whose firmware runs iPXE (QEMU's EFI iPXE ROM
# with OVMF) on QEMU's user network, whose DHCP and TFTP server (10.0.2.2)
# stand in for the lab's. LAVA finds its TFTP directory in
# /etc/default/tftpd-hpa: lava-run gets its own, in a private mount
# namespace (root only), so that the system's /etc is never touched; and it
# wants an in.tftpd on PATH, which a stub that never serves is.
job ipxe lava/jobs/ipxe-chain.yaml --set DEVICE_TYPE=x86-pmutest --set "EFI_URL=file://$here/build/BOOTX64.EFI" \
	--set TEST_SECONDS=600
if [[ $(id -u) -eq 0 ]] && unshare -m --propagation private true 2>/dev/null &&
	[[ -f /usr/lib/ipxe/qemu/efi-virtio.rom ]]; then
	ipxe_board=$out/ipxe-board
	mkdir -p "$ipxe_board" "$out/tftp" "$out/etc-default" "$out/bin"
	echo "$out/tftp" >"$ipxe_board/tftp-root"
	cp -a /etc/default/. "$out/etc-default/"
	printf 'TFTP_DIRECTORY="%s"\n' "$out/tftp" >"$out/etc-default/tftpd-hpa"
	printf 'dispatcher_ip: 10.0.2.2\n' >"$out/dispatcher.yaml"
	printf '#!/bin/sh\necho "in.tftpd: a stub: QEMU serves TFTP here" >&2\nexit 1\n' >"$out/bin/in.tftpd"
	chmod +x "$out/bin/in.tftpd"
	sed -e "s|@BOARD@|$here/lava/test/qemu-board.sh|g" -e "s|@STATE@|$ipxe_board|g" lava/test/qemu-board.yaml \
		>"$out/device-ipxe.yaml"
	mkdir -p "$out/ipxe"
	t0=$SECONDS
	# shellcheck disable=SC2016 # $1 and $@ are the inner sh's
	PATH=$out/bin:$PATH unshare -m --propagation private \
		sh -c 'mount --bind "$1" /etc/default && shift && exec "$@"' sh "$out/etc-default" \
		timeout -k 10 900 lava-run --job-id "pmutest-ipxe-$$" --output-dir "$out/ipxe" \
		--dispatcher "$out/dispatcher.yaml" --device "$out/device-ipxe.yaml" "$out/ipxe.yaml" \
		>"$out/ipxe/output.yaml" 2>&1
	echo "# lava-run ipxe: exit $?, $((SECONDS - t0)) s"
	lava/test/qemu-board.sh off "$ipxe_board"
	results ipxe
	grep -q '"msg": "chain tftp://10.0.2.2/' "$out/ipxe/output.yaml"
	check "LAVA typed the chain command at the iPXE prompt" $?
else
	echo "# not run: the iPXE chain job (needs root for a private mount namespace, and QEMU's efi-virtio.rom)"
fi

# 6. Every template against LAVA's job schema (lava_common, installed with
# lava-dispatcher).
job direct-schema lava/jobs/qemu-direct.yaml --set KERNEL_URL=file:///pmutest.elf --set CONFIG_URL=file:///pmutest.cfg
job kexec-schema lava/jobs/kexec-linux.yaml --set KERNEL_URL=file:///vmlinuz --set RAMDISK_URL=file:///initramfs.gz \
	--set LINUX=6.1.0-26-amd64
# Debian's python3, whatever python3 comes first in PATH: lava_common is
# installed for it.
for name in stick board ipxe direct-schema kexec-schema; do
	/usr/bin/python3 - "$out/$name.yaml" >"$out/$name.schema.txt" 2>&1 <<'EOF'
import sys
import yaml  # lava-dispatcher's dependency, as lava_common is
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1], encoding="utf-8")), strict=True)
EOF
	rc=$?
	check "$name job passes LAVA's job schema (strict)$([[ -s $out/$name.schema.txt ]] && echo ": $(tail -n 1 "$out/$name.schema.txt")")" $rc
done
checks_summary

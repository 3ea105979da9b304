#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`'s stick step: the image users write to a USB stick, booted as
# it is, twice, with a variable store that lives from one boot to the next.
#
#   1. BOOTX64.EFI is within its budget (testing/lib/efi-budget.sh) (zero-filled data is .bss, not stored;
#      the loader's own helpers instead of libefi made room for
#      the known-deviations table and a Secure Boot signature:
#      the signed image is checked by test-secureboot.sh);
#   2. `make-usb-image.sh` writes a GPT disk with one EFI System Partition
#      holding \EFI\BOOT\BOOTX64.EFI (this build), pmutest.cfg, \pmutest\;
#   3. first boot: the run matches the TCG expectations, and the summary
#      screen's text (COM2) agrees with the KTAP log (testing/check-screen.py);
#   4. second boot: the report the first run kept in UEFI variables is
#      written to \pmutest\<machine>-<date>.ktap, whole: its totals and
#      verdict are the first run's, and byte for byte it is the first run's
#      serial log up to "# report saved" (the store is compressed, see
#      boot/uefi/report_store.c: this is its round trip through real firmware).
# One "ok"/"not ok" line a check; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PATH=$PATH:/usr/sbin:/sbin # sfdisk

out=${1:-build/test-logs/stick}
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
checks_outdir "$out"

efi=build/BOOTX64.EFI
size=$(stat -c %s "$efi" 2>/dev/null || echo 0)
. testing/lib/efi-budget.sh
[[ $size -gt 0 && $size -lt $EFI_MAX_BYTES ]]
check "$efi is $size bytes (under the stick's budget, $EFI_MAX_BYTES)" $?

img=$out/pmutest-usb.img
tools/make-usb-image.sh --out "$img" >"$out/make-image.txt" 2>&1
check "make-usb-image.sh wrote $img" $?
[[ -f $img ]] || checks_finish
parts=$(sfdisk -d "$img" 2>/dev/null)
grep -q '^label: gpt' <<<"$parts" &&
	[[ $(grep -c '^[^ ]*img[0-9]* :' <<<"$parts") -eq 1 ]] &&
	grep -qi 'type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B' <<<"$parts"
check "the image is GPT with one partition, an EFI System Partition" $?
esp="$img@@1M"
mcopy -n -i "$esp" ::/EFI/BOOT/BOOTX64.EFI "$out/BOOTX64.EFI" 2>/dev/null && cmp -s "$out/BOOTX64.EFI" "$efi"
check "\\EFI\\BOOT\\BOOTX64.EFI on the ESP is this build's" $?
mtype -i "$esp" ::/EFI/BOOT/pmutest.cfg 2>/dev/null | grep -q '^save_report = 1'
check "\\EFI\\BOOT\\pmutest.cfg is the commented default (save_report = 1)" $?
[[ $(mdir -b -i "$esp" ::/pmutest 2>/dev/null | grep -cv '/\.\.\?$') == 0 ]] && mdir -i "$esp" ::/pmutest >/dev/null 2>&1
check "\\pmutest\\ exists and is empty" $?

vars=$out/vars.fd
run() { # run N: one boot of the image
	tools/run-qemu.sh --image "$img" --vars "$vars" --screen "$out/screen-$1.txt" \
		--log "$out/boot-$1.ktap" --timeout "${QEMU_TIMEOUT:-300}" >/dev/null 2>"$out/boot-$1.err"
	echo "run-qemu.sh exit status $? (boot $1)" >>"$out/boot-$1.err"
}

run 1
python3 tools/ktap-report.py validate "$out/boot-1.ktap" >"$out/compare-1.txt" 2>&1 &&
	python3 tools/ktap-report.py compare "$out/boot-1.ktap" data/expectations/qemu-tcg.txt >>"$out/compare-1.txt" 2>&1
check "boot 1 of the image matches data/expectations/qemu-tcg.txt ($out/compare-1.txt)" $?
python3 testing/check-screen.py "$out/boot-1.ktap" "$out/screen-1.txt" >"$out/screen-check.txt" 2>&1
ck=$? # before the message's $(...), which sets $? itself
check "boot 1's summary screen agrees with its log ($(tail -n 1 "$out/screen-check.txt"); $out/screen-check.txt)" "$ck"
grep -q '^# report saved' "$out/boot-1.ktap"
check "boot 1 kept its report in UEFI variables" $?

run 2
name=$(sed -n 's/^# boot: the report of the previous run (.*) was written to \\pmutest\\\(.*\.ktap\)$/\1/p' "$out/boot-2.ktap")
[[ $name =~ ^[A-Za-z]+-fam[0-9a-f]+-model[0-9a-f]+-step[0-9a-f]+-[0-9]{8}-[0-9]{6}\.ktap$ ]]
check "boot 2 wrote the report to \\pmutest\\${name:-?} (machine and date in the name)" $?
mcopy -n -i "$esp" "::/pmutest/${name:-none}" "$out/stored.ktap" 2>/dev/null
check "the file is on the stick" $?
facts() { grep -E '^# (Totals|verdict):' "$1" | tr -d '\r'; }
[[ -s $out/stored.ktap && "$(facts "$out/stored.ktap")" == "$(facts "$out/boot-1.ktap")" ]]
check "the stored report is boot 1's (same totals and verdict)" $?
grep -v '^# report saved' "$out/boot-1.ktap" | cmp -s - "$out/stored.ktap"
check "the stored report is byte for byte boot 1's log (before \"# report saved\")" $?
[[ $(mdir -b -i "$esp" ::/pmutest 2>/dev/null | grep -c '\.ktap$') -eq 1 ]]
check "\\pmutest\\ holds that one report (boot 2's own waits in the variables)" $?
checks_finish

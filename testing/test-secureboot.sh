#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`'s Secure Boot step: the stick on a locked-down PC, under
# OVMF with Secure Boot enforced (tools/run-secureboot.sh).
#
#   1. `make-usb-image.sh --sign-key/--sign-cert` with Debian's OVMF test key
#      (ovmf's PkKek-1-snakeoil, passphrase "snakeoil", decrypted to a scratch
#      file): signed, sbverify accepts it, within its budget, a .sbat section;
#   2. with the test key enrolled (OVMF_VARS_4M.snakeoil.fd): the signed
#      stick runs to its verdict, compared with the TCG expectations, and
#      the report says Secure Boot was on; the unsigned stick and the
#      signed one with one bit of .text flipped are refused, recognised as
#      refusals before the run's timeout;
#   3. with Microsoft's keys (OVMF_VARS_4M.ms.fd), the shim layout: refused
#      by shim before the key is enrolled; with the key in MokList (the
#      store a MokManager enrolment leaves, tools/ovmf-vars.py) it runs
#      to its verdict, compared with the TCG expectations.
# One "ok"/"not ok" line a check; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PATH=$PATH:/usr/sbin:/sbin

out=${1:-build/test-logs/secureboot}
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh
checks_outdir "$out"
expect=data/expectations/qemu-tcg.txt
snakeoil_vars=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd
ms_vars=/usr/share/OVMF/OVMF_VARS_4M.ms.fd
cert=/usr/share/ovmf/PkKek-1-snakeoil.pem
key=$out/test.key
# A refusal is seen as it is printed, long before the run's timeout. The
# limit is that timeout, not a figure of wall time: on a loaded machine the
# firmware alone took 112 s to refuse (a timed check would cry wolf).
refusal_limit=${QEMU_TIMEOUT:-300}

openssl rsa -in /usr/share/ovmf/PkKek-1-snakeoil.key -passin pass:snakeoil -out "$key" >/dev/null 2>&1
check "Debian's OVMF test key decrypted ($key)" $?
tools/make-usb-image.sh --sign-key "$key" --sign-cert "$cert" --out "$out/signed.img" >"$out/make-signed.txt" 2>&1
ck=$? # before the message's $(...), which sets $? itself
check "make-usb-image.sh --sign-key/--sign-cert wrote $out/signed.img ($(grep -o '[0-9]* bytes' "$out/make-signed.txt" | head -n 1))" "$ck"
mcopy -n -i "$out/signed.img@@1M" ::/EFI/BOOT/BOOTX64.EFI "$out/signed.efi" 2>/dev/null
sbverify --cert "$cert" "$out/signed.efi" >/dev/null 2>&1
check "the stick's BOOTX64.EFI is signed: sbverify accepts it" $?
size=$(stat -c %s "$out/signed.efi" 2>/dev/null || echo 0)
. testing/lib/efi-budget.sh
[[ $size -gt 0 && $size -lt $EFI_MAX_BYTES ]]
check "the signed BOOTX64.EFI is $size bytes (under the stick's budget, $EFI_MAX_BYTES)" $?
objcopy -O binary --only-section=.sbat "$out/signed.efi" "$out/sbat.csv" 2>/dev/null &&
	head -n 1 "$out/sbat.csv" | grep -qx 'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md' &&
	grep -q '^pmutest,1,' "$out/sbat.csv"
check "the image carries a .sbat section in shim's format (sbat,1 then pmutest,1)" $?

tools/make-usb-image.sh --out "$out/unsigned.img" >/dev/null 2>&1
check "the unsigned stick written" $?
# One bit of .text flipped after signing: the digest no longer matches.
cp "$out/signed.efi" "$out/tampered.efi"
text_off=$(objdump -h "$out/signed.efi" | awk '$2 == ".text" { print $6 }')
python3 - "$out/tampered.efi" "$((16#${text_off:-0} + 4096))" <<'PY'
import sys
p, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
b[at] ^= 0x01
open(p, "wb").write(b)
PY
! sbverify --cert "$cert" "$out/tampered.efi" >/dev/null 2>&1 && ! cmp -s "$out/signed.efi" "$out/tampered.efi"
check "one bit of .text flipped (file offset $((16#${text_off:-0} + 4096))): sbverify refuses the copy" $?
tools/make-usb-image.sh --efi "$out/tampered.efi" --out "$out/tampered.img" >/dev/null 2>&1
check "the tampered stick written" $?

boot() { # boot NAME IMG VARS: one Secure Boot run; its status in $out/NAME.status
	local t0=$SECONDS
	tools/run-secureboot.sh --image "$2" --vars "$3" --log "$out/$1.ktap" \
		--timeout "${QEMU_TIMEOUT:-300}" >/dev/null 2>"$out/$1.err"
	echo $? >"$out/$1.status"
	echo $((SECONDS - t0)) >"$out/$1.seconds"
}
verdict_run() { # verdict_run NAME WHAT: ran to its verdict, as expected, Secure Boot on
	local st
	st=$(cat "$out/$1.status")
	[[ $st -le 1 ]]
	ck=$? # before the message's $(...), which sets $? itself
	check "$2 runs to its verdict (run-secureboot.sh status $st: $(tail -n 1 "$out/$1.err"))" "$ck"
	python3 tools/ktap-report.py validate "$out/$1.ktap" >"$out/$1.compare" 2>&1 &&
		python3 tools/ktap-report.py compare "$out/$1.ktap" "$expect" >>"$out/$1.compare" 2>&1
	check "$2 matches $expect ($out/$1.compare)" $?
	grep -q '^# secure boot: on ' "$out/$1.ktap"
	check "$2: the report says Secure Boot was on" $?
}
refused() { # refused NAME WHAT PATTERN: refused, recognised, within seconds
	local st secs
	st=$(cat "$out/$1.status")
	secs=$(cat "$out/$1.seconds")
	[[ $st -eq 4 ]] && grep -q "$3" "$out/$1.err"
	ck=$? # before the message's $(...), which sets $? itself
	check "$2 is refused and recognised as such ($(grep -o 'REFUSED: .*' "$out/$1.err" | tr -s ' ' | head -c 120))" "$ck"
	[[ $secs -lt $refusal_limit ]]
	check "$2: the refusal is reported after ${secs}s, before the ${refusal_limit} s timeout" $?
	! grep -q 'KTAP version 1' "$out/$1.ktap" 2>/dev/null
	check "$2: no pmutest output (nothing of it ran)" $?
}

boot signed "$out/signed.img" "$snakeoil_vars"
verdict_run signed "the signed stick (test key in db)"
boot unsigned "$out/unsigned.img" "$snakeoil_vars"
refused unsigned "the unsigned stick" "Access Denied"
boot tampered "$out/tampered.img" "$snakeoil_vars"
refused tampered "the tampered stick" "Access Denied"

tools/make-usb-image.sh --sign-key "$key" --sign-cert "$cert" --shim --out "$out/shim.img" >"$out/make-shim.txt" 2>&1
check "make-usb-image.sh --shim wrote the shim layout" $?
esp="$out/shim.img@@1M"
mcopy -n -i "$esp" ::/EFI/BOOT/BOOTX64.EFI "$out/shim.efi" 2>/dev/null && cmp -s "$out/shim.efi" /usr/lib/shim/shimx64.efi.signed &&
	mdir -i "$esp" ::/EFI/BOOT/mmx64.efi >/dev/null 2>&1 && ! mdir -i "$esp" ::/EFI/BOOT/fbx64.efi >/dev/null 2>&1 &&
	[[ $(mtype -i "$esp" ::/EFI/BOOT/options.csv 2>/dev/null | iconv -f UTF-16 -t ASCII 2>/dev/null | cut -d, -f1) == '\EFI\BOOT\pmutest.efi' ]] &&
	mcopy -n -i "$esp" ::/pmutest-key.cer "$out/key.cer" 2>/dev/null && openssl x509 -inform DER -in "$out/key.cer" -noout 2>/dev/null
check "shim layout: Debian's signed shim as BOOTX64.EFI, mmx64.efi, no fbx64.efi, options.csv names pmutest.efi, the DER certificate" $?
boot shim-no-mok "$out/shim.img" "$ms_vars"
refused shim-no-mok "the shim layout before the key is enrolled" "Verification failed"
cp "$ms_vars" "$out/ms-mok.fd"
python3 tools/ovmf-vars.py add-mok "$out/ms-mok.fd" "$out/key.cer" >"$out/ovmf-vars.txt" 2>&1
check "MokList with the key added to a copy of $ms_vars" $?
boot shim "$out/shim.img" "$out/ms-mok.fd"
verdict_run shim "the shim layout with the key enrolled"
checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`'s full-store step: the report store keeps the firmware
# bootable (boot/uefi/report_store.c). A variable store with 6000 bytes left
# (tools/ovmf-vars.py fill) has no room for a report and the 5 KiB the
# store leaves free: the run still ends normally, with its verdict matching
# the TCG expectations, the report says why it was not kept (QueryVariableInfo's
# figure), nothing of it is in the store, and the summary screen says so too.
# One "ok"/"not ok" line a check; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:-build/test-logs/store-full}
mkdir -p "$out"
rm -f "$out"/*
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

fw=build/ovmf/OVMF-warm.fd
[[ -f $fw ]] || fw=/usr/share/ovmf/OVMF.fd
cp "$fw" "$out/vars.fd"
python3 tools/ovmf-vars.py fill "$out/vars.fd" 6000 >"$out/fill.txt" 2>&1
ck=$? # before the message's $(...), which sets $? itself
check "a variable store with 6000 bytes left ($(cat "$out/fill.txt"))" "$ck"
tools/run-qemu.sh --vars "$out/vars.fd" --screen "$out/screen.txt" --log "$out/boot.ktap" \
	--timeout "${QEMU_TIMEOUT:-300}" >/dev/null 2>"$out/boot.err"
st=$?
[[ $st -le 1 ]]
check "the run ends normally (run-qemu.sh status $st)" $?
python3 tools/ktap-report.py validate "$out/boot.ktap" >"$out/compare.txt" 2>&1 &&
	python3 tools/ktap-report.py compare "$out/boot.ktap" data/expectations/qemu-tcg.txt >>"$out/compare.txt" 2>&1
check "its results match data/expectations/qemu-tcg.txt" $?
grep -q '^# report not saved: the UEFI variable store has [0-9]* bytes free; the report needs [0-9]* and 5120 must stay free' "$out/boot.ktap"
ck=$? # before the message's $(...), which sets $? itself
check "the report says it was not kept, and why ($(grep -o 'report not saved: .*' "$out/boot.ktap" | head -c 110))" "$ck"
! python3 tools/ovmf-vars.py list "$out/vars.fd" | grep -q 'PmutestReport'
check "no report variable was written" $?
python3 testing/check-screen.py "$out/boot.ktap" "$out/screen.txt" >"$out/screen-check.txt" 2>&1
ck=$? # before the message's $(...), which sets $? itself
check "the summary screen agrees ($(tail -n 1 "$out/screen-check.txt"))" "$ck"
checks_summary

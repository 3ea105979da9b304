# shellcheck shell=bash
# The stick's budget for BOOTX64.EFI, signature included: the one number
# make-usb-image.sh, test-stick.sh and test-secureboot.sh check. Zero-filled
# buffers are .bss, which the PE file does not store, so the file is code
# and text, most of the text the SDM rule strings and diagnostics. The
# budget is the project's own, not a firmware's limit: it exists to make
# growth a decision. 256 KiB until the 2026 PMU features (leaf 23H,
# architectural PMU v6, ACR, replayable reports): 281 KiB. 320 KiB until
# RDT allocation (three suites and their rules) and the counting
# preconditions: 332 KiB. 384 KiB still loads in a blink from any stick;
# compressing the string table is the way back under 256 KiB.
# shellcheck disable=SC2034 # read by the scripts that source this file
EFI_MAX_BYTES=393216

# shellcheck shell=bash
# The stick's budget for BOOTX64.EFI, signature included: the one number
# make-usb-image.sh, test-stick.sh and test-secureboot.sh check (the budget:
# zero-filled buffers are .bss, which the PE file does not store, so the
# file is code and text). 256 KiB until the 2026 features (leaf 23H,
# architectural PMU v6, ACR, replayable reports, known rows that name the
# deviation): the image reached 281 KiB, about 95 KB of it the SDM rule
# strings and diagnostics. 320 KiB still loads in a blink from any stick;
# compressing the string table is the way back under 256 KiB.
# shellcheck disable=SC2034 # read by the scripts that source this file
EFI_MAX_BYTES=327680

/* SPDX-License-Identifier: MIT */
/*
 * The baseline of `make bench`: the smallest UEFI application that reaches
 * a verdict the way pmutest does. It prints one KTAP line through the
 * firmware console and ends QEMU through isa-debug-exit (port F4H: status
 * 33, "pass"), so QEMU start, firmware and image loading cost what they cost
 * pmutest, and nothing else. Built by mk/bench.mk with the same GNU-EFI
 * crt0 and linker script as BOOTX64.EFI.
 */
#include <efi.h>
#include <efilib.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	(void)image;
	st->ConOut->OutputString(st->ConOut, L"KTAP version 1\r\n1..0\r\n# verdict: PASS\r\n");
	__asm__ volatile("outl %0, %1" : : "a"(0x10u), "Nd"((uint16_t)0xF4));
	return EFI_SUCCESS;
}

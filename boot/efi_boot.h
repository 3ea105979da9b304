/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of the UEFI loader (boot/). Everything here runs
 * before ExitBootServices, except efi_store_report (runtime services).
 */
#ifndef PMUTEST_EFI_BOOT_H
#define PMUTEST_EFI_BOOT_H

#include <efi.h>
#include <efilib.h>

#include "handoff.h"

extern EFI_HANDLE LibImageHandle;

/* The boot volume's root directory, NULL when it cannot be opened. */
EFI_FILE_HANDLE efi_boot_volume(EFI_HANDLE image);

/* Read a whole file as NUL-terminated bytes (pool memory that survives
 * ExitBootServices: EfiLoaderData). NULL when absent; *err set to a short
 * reason when it exists but cannot be read. */
char *efi_read_file(EFI_FILE_HANDLE root, const CHAR16 *path, UINTN max_size, UINTN *size,
		    const char **err);

/* Create \dir\name (and \dir) and write data to it. An existing file is
 * never replaced: EFI_ACCESS_DENIED, nothing written. */
EFI_STATUS efi_create_file(EFI_FILE_HANDLE root, const CHAR16 *dir, const CHAR16 *name,
			   const void *data, UINTN len);

/* From the ACPI 2.0 XSDT's MADT: the local APIC's physical address
 * (h->bi.lapic_phys, 0 if none) and the enabled processors' APIC IDs
 * (h->apic_ids, in MADT order; none when there is no MADT). */
void acpi_read_madt(EFI_SYSTEM_TABLE *st, struct x86_handoff *h);

/* Report store (report_store.c). */
void efi_report_store_init(EFI_RUNTIME_SERVICES *rt);
/* A report a previous run stored in variables: write it to the boot volume,
 * delete the variables. Returns a message for boot_info (NULL if none). */
const char *efi_report_flush(EFI_FILE_HANDLE root);

/* Pool copies (EfiLoaderData). */
char *efi_strdup_ascii(const CHAR16 *s);
char *efi_strdup(const char *s);

#endif

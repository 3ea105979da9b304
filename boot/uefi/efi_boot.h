/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of the UEFI front end (boot/uefi). Everything here
 * runs before ExitBootServices, except efi_store_report (runtime services).
 */
#ifndef PMUTEST_EFI_BOOT_H
#define PMUTEST_EFI_BOOT_H

#include <efi.h>

#include "handoff.h"
#include "kstring.h"

/* efi_lib.c: what the loader needs of a firmware library (no libefi). */
extern EFI_SYSTEM_TABLE *efi_st;
extern EFI_BOOT_SERVICES *efi_bs;
extern EFI_RUNTIME_SERVICES *efi_rt;
void *efi_alloc(UINTN n); /* pool memory, EfiLoaderData */
void efi_free(void *p);
/* Formatted text on the firmware console (kernel/fmt.c's format). */
void efi_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The UEFI name of a status, or its number in buf. */
const char *efi_status_name(EFI_STATUS s, char *buf, size_t size);
bool efi_guid_eq(const EFI_GUID *a, const EFI_GUID *b);
/* The memory map in a new pool buffer (*size bytes, *dsize a descriptor). */
EFI_MEMORY_DESCRIPTOR *efi_memory_map(UINTN *size, UINTN *key, UINTN *dsize);

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

/* The ACPI RSDP from the UEFI configuration table (the ACPI 2.0 entry, else
 * the 1.0 one); 0 when the firmware gives none. */
uint64_t efi_find_rsdp(EFI_SYSTEM_TABLE *st);

/* Report store (report_store.c). */
/* error_out: where the store leaves why it kept nothing (the hand-over's
 * store_error). */
void efi_report_store_init(EFI_RUNTIME_SERVICES *rt, const char **error_out);
/* A report a previous run stored in variables: write it to the boot volume,
 * delete the variables. Returns a message for boot_info (NULL if none). */
const char *efi_report_flush(EFI_FILE_HANDLE root);
/* Store a report in non-volatile UEFI variables through runtime services
 * (callable after ExitBootServices): the hand-over's store_report. */
bool efi_store_report(const char *name, const char *data, size_t len);

enum boot_secure_boot efi_secure_boot_state(void);

/* Pool copies (EfiLoaderData). */
char *efi_strdup_ascii(const CHAR16 *s);
char *efi_strdup(const char *s);

#endif

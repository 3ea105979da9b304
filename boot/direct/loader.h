/* SPDX-License-Identifier: MIT */
/*
 * What a Linux boot loader says about itself in the zero page it built for
 * build/pmutest.bin (boot/linux/): which loader (type_of_loader), whether it
 * is kexec from a running Linux, and on UEFI the firmware's system table
 * (struct efi_info), where the ACPI RSDP is found when the loader did not
 * set acpi_rsdp_addr (GRUB does not). Read and judged as bootdata.h reads
 * the rest: NULL when sound, else one line in err and the run ends with
 * verdict ERROR.
 */
#ifndef PMUTEST_BOOT_DIRECT_LOADER_H
#define PMUTEST_BOOT_DIRECT_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bootdata.h"

struct linux_loader {
	uint8_t type;	     /* type_of_loader as the loader wrote it */
	const char *name;    /* "GRUB", "kexec-tools", ... or "an unregistered loader" */
	bool kexec;	     /* loader ID DH: kexec-tools in a running Linux */
	uint64_t efi_systab; /* 0: not booted from UEFI (or not said) */
	uint64_t efi_rsdp;   /* the ACPI 2.0 (else 1.0) table of its configuration table */
	char efi_vendor[48]; /* its FirmwareVendor, ASCII; "" when none */
};

/* The zero page at info, already read by bootdata_linux64(). */
const char *loader_read(const struct bootdata_reader *r, uint64_t info, struct linux_loader *l,
			char *err, size_t err_size);

/* A command line of cmdline_size characters, or one fewer, may be the first
 * part of a longer one a loader cut (boot.rst: cmdline_size is the longest
 * line without its NUL; iPXE cuts a longer one to fit and says nothing):
 * not the run the user asked for. NULL when it is shorter, else one line in
 * err. cmdline_size is the image's own (boot/linux/setup.asm). */
const char *loader_check_cmdline(const char *cmdline, size_t cmdline_size, char *err,
				 size_t err_size);

/* The word "from_linux=RELEASE" of a command line (pmutest-kexec passes
 * `uname -r` in it) into out; "" when absent. */
void loader_linux_release(const char *cmdline, char *out, size_t out_size);

#endif

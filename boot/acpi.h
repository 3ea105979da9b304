/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tables both front ends read (boot/acpi.c): the RSDP, the RSDT or
 * XSDT, the MADT (local APIC address, processors) and the FADT with the
 * DSDT's \_S5 object (how to switch the machine off). Plain data in, plain
 * data out: no firmware call, so the UEFI loader, the direct-boot loader
 * and a host unit test run the same code.
 *
 * Tables are reached through a mapper: both loaders run identity-mapped
 * (physical address = pointer); a unit test maps "physical" addresses into
 * a buffer of its own.
 */
#ifndef PMUTEST_BOOT_ACPI_H
#define PMUTEST_BOOT_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "handoff.h"

/* A pointer to len bytes at physical address phys, NULL when they are not
 * there (outside the test's buffer; never on the machine). */
typedef const void *(*acpi_map_fn)(void *ctx, uint64_t phys, uint32_t len);

struct acpi_reader {
	acpi_map_fn map;
	void *ctx;
};

/* Identity mapping: what both loaders use. */
const void *acpi_map_identity(void *ctx, uint64_t phys, uint32_t len);

/* What acpi_read() found, for the report (acpi_result_name()). */
enum acpi_result {
	ACPI_FOUND_XSDT, /* ACPI 2.0+ RSDP, tables through the XSDT */
	ACPI_FOUND_RSDT, /* revision 0 RSDP (or no XSDT): the RSDT */
	ACPI_NO_RSDP,	 /* no RSDP given and none found by the scan */
	ACPI_BAD_RSDP,	 /* an RSDP whose signature or checksum is wrong */
	ACPI_BAD_SDT,	 /* the RSDT/XSDT it names is not valid */
	ACPI_RESULT_COUNT,
};
const char *acpi_result_name(enum acpi_result r);

/*
 * The RSDP the legacy way (ACPI 6.x 5.2.5.1): the first KiB of the EBDA
 * (its segment at 40:0EH), then E0000H-FFFFFH, on 16-byte boundaries; the
 * first whose signature and checksum are right. 0 when there is none.
 */
uint64_t acpi_scan_rsdp(const struct acpi_reader *r);

/*
 * Read the tables of the RSDP at rsdp_phys (0: none) into h: the local
 * APIC address (h->bi.lapic_phys, 0 when there is no MADT), the processors
 * (h->apic_ids...; none without a MADT), the S5 sleep registers
 * (h->poweroff) and the PM timer (h->pm_timer). *has_madt says whether a MADT was found.
 */
enum acpi_result acpi_read(const struct acpi_reader *r, uint64_t rsdp_phys, struct x86_handoff *h,
			   bool *has_madt);

/*
 * Where there is no MADT: the processors of the MP table (MultiProcessor
 * Specification 1.4), found the legacy way, into h like the MADT's, and
 * the local APIC address. False when there is none (or it is broken, or
 * lists no enabled processor).
 */
bool acpi_read_mptable(const struct acpi_reader *r, struct x86_handoff *h);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's address from ACPI: RSDP (2.0, from the UEFI
 * configuration table) -> XSDT -> MADT, ACPI 6.x 5.2.5, 5.2.8, 5.2.12.
 * Read before ExitBootServices while the tables are guaranteed mapped.
 */
#include "efi_boot.h"

static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;

struct __attribute__((packed)) acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision; /* 2 for ACPI 2.0+ */
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
};

struct __attribute__((packed)) acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem_id[6], oem_table_id[8];
	uint32_t oem_revision, creator_id, creator_revision;
};

struct __attribute__((packed)) acpi_madt {
	struct acpi_header h;
	uint32_t lapic_address;
	uint32_t flags;
	/* interrupt controller structures follow */
};

#define MADT_LAPIC_ADDRESS_OVERRIDE 5

static bool sig_is(const char *s, const char *want, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] != want[i])
			return false;
	return true;
}

static bool checksum_ok(const void *p, uint32_t len)
{
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

static uint64_t madt_lapic(const struct acpi_madt *m)
{
	uint64_t addr = m->lapic_address;
	const uint8_t *p = (const uint8_t *)(m + 1);
	const uint8_t *end = (const uint8_t *)m + m->h.length;

	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		if (p[0] == MADT_LAPIC_ADDRESS_OVERRIDE && p[1] >= 12) {
			uint64_t a;
			CopyMem(&a, (void *)(p + 4), sizeof(a));
			addr = a;
		}
		p += p[1];
	}
	return addr;
}

uint64_t acpi_find_lapic(EFI_SYSTEM_TABLE *st)
{
	const struct acpi_rsdp *rsdp = NULL;

	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, &acpi20_guid))
			rsdp = st->ConfigurationTable[i].VendorTable;
	if (!rsdp || !sig_is(rsdp->signature, "RSD PTR ", 8) || rsdp->revision < 2 || !rsdp->xsdt ||
	    !checksum_ok(rsdp, 20))
		return 0;
	const struct acpi_header *xsdt = (const void *)(uintptr_t)rsdp->xsdt;
	if (!sig_is(xsdt->signature, "XSDT", 4) || xsdt->length < sizeof(*xsdt))
		return 0;
	UINTN n = (xsdt->length - sizeof(*xsdt)) / 8;
	const uint8_t *entries = (const uint8_t *)(xsdt + 1);
	for (UINTN i = 0; i < n; i++) {
		uint64_t a;
		CopyMem(&a, (void *)(entries + 8 * i), sizeof(a));
		const struct acpi_header *t = (const void *)(uintptr_t)a;
		if (t && sig_is(t->signature, "APIC", 4) && t->length >= sizeof(struct acpi_madt) &&
		    checksum_ok(t, t->length))
			return madt_lapic((const struct acpi_madt *)t);
	}
	return 0;
}

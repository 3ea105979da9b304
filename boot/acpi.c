/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's address and the processors from ACPI: RSDP (2.0, from the
 * UEFI configuration table) -> XSDT -> MADT, ACPI 6.x 5.2.5, 5.2.8, 5.2.12.
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

/* Interrupt controller structure types, ACPI 6.x Table 5-45. */
#define MADT_LOCAL_APIC		    0
#define MADT_LAPIC_ADDRESS_OVERRIDE 5
#define MADT_LOCAL_X2APIC	    9
/* Local (x2)APIC flags, Tables 5-47 / 5-63: bit 0 Enabled (the processor is
 * usable now); bit 1 Online Capable (it may be enabled later: hot-plug, not
 * present now). */
#define MADT_FLAG_ENABLED 1u

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

/* Add a processor unless the MADT listed it already (a firmware may list a
 * CPU both as local APIC and as local x2APIC). */
static void add_cpu(struct x86_handoff *h, uint32_t apic_id, uint32_t flags)
{
	if (!(flags & MADT_FLAG_ENABLED)) {
		h->cpus_disabled++;
		return;
	}
	for (uint32_t i = 0; i < h->cpu_count; i++)
		if (h->apic_ids[i] == apic_id)
			return;
	if (h->cpu_count < HANDOFF_MAX_CPUS)
		h->apic_ids[h->cpu_count++] = apic_id;
	else
		h->cpus_beyond_max++;
}

static void madt_read(const struct acpi_madt *m, struct x86_handoff *h)
{
	uint64_t addr = m->lapic_address;
	const uint8_t *p = (const uint8_t *)(m + 1);
	const uint8_t *end = (const uint8_t *)m + m->h.length;
	uint32_t v;

	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		if (p[0] == MADT_LAPIC_ADDRESS_OVERRIDE && p[1] >= 12) {
			uint64_t a;
			CopyMem(&a, (void *)(p + 4), sizeof(a));
			addr = a;
		} else if (p[0] == MADT_LOCAL_APIC && p[1] >= 8) {
			CopyMem(&v, (void *)(p + 4), sizeof(v));
			add_cpu(h, p[3], v);
		} else if (p[0] == MADT_LOCAL_X2APIC && p[1] >= 16) {
			uint32_t id;
			CopyMem(&id, (void *)(p + 4), sizeof(id));
			CopyMem(&v, (void *)(p + 8), sizeof(v));
			add_cpu(h, id, v);
		}
		p += p[1];
	}
	h->bi.lapic_phys = addr;
}

void acpi_read_madt(EFI_SYSTEM_TABLE *st, struct x86_handoff *h)
{
	const struct acpi_rsdp *rsdp = NULL;

	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, &acpi20_guid))
			rsdp = st->ConfigurationTable[i].VendorTable;
	if (!rsdp || !sig_is(rsdp->signature, "RSD PTR ", 8) || rsdp->revision < 2 || !rsdp->xsdt ||
	    !checksum_ok(rsdp, 20))
		return;
	const struct acpi_header *xsdt = (const void *)(uintptr_t)rsdp->xsdt;
	if (!sig_is(xsdt->signature, "XSDT", 4) || xsdt->length < sizeof(*xsdt))
		return;
	UINTN n = (xsdt->length - sizeof(*xsdt)) / 8;
	const uint8_t *entries = (const uint8_t *)(xsdt + 1);
	for (UINTN i = 0; i < n; i++) {
		uint64_t a;
		CopyMem(&a, (void *)(entries + 8 * i), sizeof(a));
		const struct acpi_header *t = (const void *)(uintptr_t)a;
		if (t && sig_is(t->signature, "APIC", 4) && t->length >= sizeof(struct acpi_madt) &&
		    checksum_ok(t, t->length)) {
			madt_read((const struct acpi_madt *)t, h);
			return;
		}
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tables both front ends read: RSDP -> XSDT (ACPI 2.0+) or RSDT
 * (revision 0, e.g. SeaBIOS) -> MADT and FADT (-> DSDT's \_S5). ACPI 6.x
 * 5.2.5 RSDP, 5.2.7 RSDT, 5.2.8 XSDT, 5.2.9 FADT, 5.2.12 MADT.
 *
 * Every length is checked against what the table says and what the mapper
 * gives, every table's checksum before it is used: a broken table is
 * skipped, never followed.
 */
#include "acpi.h"

struct __attribute__((packed)) acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* of the first 20 bytes (the ACPI 1.0 part) */
	char oem_id[6];
	uint8_t revision; /* 0 for ACPI 1.0, 2 for 2.0+ */
	uint32_t rsdt;
	uint32_t length; /* revision >= 2 from here on */
	uint64_t xsdt;
	uint8_t ext_checksum; /* of all length bytes */
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
#define MADT_IOAPIC		    1
#define MADT_OVERRIDE		    2
#define MADT_LAPIC_ADDRESS_OVERRIDE 5
#define MADT_LOCAL_X2APIC	    9
/* Local (x2)APIC flags, Tables 5-47 / 5-63: bit 0 Enabled (the processor is
 * usable now); bit 1 Online Capable (it may be enabled later: hot-plug, not
 * present now). */
#define MADT_FLAG_ENABLED	 1u
#define MADT_FLAG_ONLINE_CAPABLE 2u
/* The IDs firmware writes for a processor entry that stands for none
 * (Linux acpi_parse_lapic / acpi_parse_x2apic skip them too). */
#define MADT_XAPIC_PLACEHOLDER	0xFFu
#define MADT_X2APIC_PLACEHOLDER 0xFFFFFFFFu

/* FADT fields (ACPI 6.x Table 5-33): byte offsets, read only where the
 * table's length covers them (older FADTs are shorter). */
#define FADT_DSDT	     40	       /* 32-bit physical address */
#define FADT_PM1A_CNT_BLK    64	       /* 32-bit I/O port */
#define FADT_PM1B_CNT_BLK    68	       /* 32-bit I/O port */
#define FADT_PM_TMR_BLK	     76	       /* 32-bit I/O port */
#define FADT_PM1_CNT_LEN     89	       /* byte */
#define FADT_FLAGS	     112       /* 32 bits */
#define FADT_X_DSDT	     140       /* 64-bit physical address */
#define FADT_X_PM1A_CNT_BLK  172       /* GAS */
#define FADT_X_PM1B_CNT_BLK  184       /* GAS */
#define FADT_X_PM_TMR_BLK    208       /* GAS */
#define FADT_SLEEP_CONTROL   244       /* GAS, ACPI 5.0+ */
#define FADT_TMR_VAL_EXT     (1u << 8) /* the PM timer counts 32 bits, not 24 */
#define FADT_HW_REDUCED_ACPI (1u << 20)
#define GAS_SIZE	     12

/* AML opcodes used to find \_S5 (ACPI 6.x 20.2.5). */
#define AML_NAME_OP	   0x08
#define AML_PACKAGE_OP	   0x12
#define AML_ZERO_OP	   0x00
#define AML_ONE_OP	   0x01
#define AML_BYTE_PREFIX	   0x0A
#define AML_MAX_SCAN_BYTES (4u << 20) /* no real DSDT is larger */

const void *acpi_map_identity(void *ctx, uint64_t phys, uint32_t len)
{
	(void)ctx;
	(void)len;
	return (const void *)(uintptr_t)phys;
}

static const char *const result_names[] = {
    [ACPI_FOUND_XSDT] = "ACPI tables through the XSDT",
    [ACPI_FOUND_RSDT] = "ACPI tables through the RSDT",
    [ACPI_NO_RSDP] = "no ACPI RSDP",
    [ACPI_BAD_RSDP] = "an ACPI RSDP with a wrong signature or checksum",
    [ACPI_BAD_SDT] = "an ACPI RSDT/XSDT with a wrong signature, length or checksum",
};
_Static_assert(sizeof(result_names) / sizeof(result_names[0]) == ACPI_RESULT_COUNT,
	       "one name per enum acpi_result");

const char *acpi_result_name(enum acpi_result r)
{
	return r < ACPI_RESULT_COUNT ? result_names[r] : "?";
}

static bool same(const void *s, const char *want, int n)
{
	for (int i = 0; i < n; i++)
		if (((const char *)s)[i] != want[i])
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

/* Unaligned little-endian reads (tables are byte-packed). */
static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static const void *map(const struct acpi_reader *r, uint64_t phys, uint32_t len)
{
	return phys ? r->map(r->ctx, phys, len) : NULL;
}

/* A whole table with the given signature, checksum right; NULL otherwise. */
static const struct acpi_header *table_at(const struct acpi_reader *r, uint64_t phys,
					  const char *sig)
{
	const struct acpi_header *h = map(r, phys, sizeof(*h));
	if (!h || (sig && !same(h->signature, sig, 4)) || h->length < sizeof(*h))
		return NULL;
	h = map(r, phys, h->length);
	return h && checksum_ok(h, h->length) ? h : NULL;
}

static bool rsdp_valid(const struct acpi_reader *r, uint64_t phys)
{
	const struct acpi_rsdp *p = map(r, phys, 20);
	return p && same(p->signature, "RSD PTR ", 8) && checksum_ok(p, 20);
}

/* The EBDA up to A0000H inclusive: Cloud Hypervisor's 40EH says A000H
 * (arch/src/x86_64/layout.rs EBDA_START, its RSDP there); a direct-boot
 * fatal() needs it before start_info was read. */
uint64_t acpi_scan_rsdp(const struct acpi_reader *r)
{
	const uint8_t *bda = map(r, 0x40E, 2);
	uint64_t ebda = bda ? le(bda, 2) << 4 : 0;
	struct {
		uint64_t base, len;
	} areas[] = {{ebda, ebda >= 0x80000 && ebda <= 0xA0000 ? 1024 : 0}, {0xE0000, 0x20000}};

	for (unsigned a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
		for (uint64_t p = areas[a].base; p + 20 <= areas[a].base + areas[a].len; p += 16)
			if (rsdp_valid(r, p))
				return p;
	return 0;
}

static bool listed(const uint32_t *ids, uint32_t n, uint32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Add a processor unless the MADT listed it already (firmware may list a
 * CPU both as local APIC and as local x2APIC); one that does not fit is
 * kept apart, by APIC ID, for the report. */
static void add_cpu(struct x86_handoff *h, uint32_t apic_id, uint32_t flags)
{
	uint32_t beyond =
	    h->cpus_beyond_max < HANDOFF_MAX_CPUS ? h->cpus_beyond_max : HANDOFF_MAX_CPUS;

	if (!(flags & MADT_FLAG_ENABLED)) {
		if (flags & MADT_FLAG_ONLINE_CAPABLE)
			h->cpus_online_capable++;
		else
			h->cpus_disabled++;
		return;
	}
	if (listed(h->apic_ids, h->cpu_count, apic_id) || listed(h->beyond_ids, beyond, apic_id))
		return;
	if (h->cpu_count < HANDOFF_MAX_CPUS)
		h->apic_ids[h->cpu_count++] = apic_id;
	else if (h->cpus_beyond_max++ < HANDOFF_MAX_CPUS)
		h->beyond_ids[beyond] = apic_id;
}

static void madt_read(const struct acpi_madt *m, struct x86_handoff *h)
{
	const uint8_t *p = (const uint8_t *)(m + 1);
	const uint8_t *end = (const uint8_t *)m + m->h.length;

	h->bi.lapic_phys = m->lapic_address;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		if (p[0] == MADT_LAPIC_ADDRESS_OVERRIDE && p[1] >= 12)
			h->bi.lapic_phys = le(p + 4, 8);
		else if (p[0] == MADT_IOAPIC && p[1] >= 12 &&
			 h->ioapic_count < HANDOFF_MAX_IOAPICS) {
			h->ioapics[h->ioapic_count].phys = le(p + 4, 4);
			h->ioapics[h->ioapic_count++].gsi_base = (uint32_t)le(p + 8, 4);
		} else if (p[0] == MADT_OVERRIDE && p[1] >= 10 &&
			   h->override_count < HANDOFF_MAX_OVERRIDES) {
			h->overrides[h->override_count].irq = p[3];
			h->overrides[h->override_count].gsi = (uint32_t)le(p + 4, 4);
			h->overrides[h->override_count++].flags = (uint16_t)le(p + 8, 2);
		} else if (p[0] == MADT_LOCAL_APIC && p[1] >= 8 && p[3] != MADT_XAPIC_PLACEHOLDER)
			add_cpu(h, p[3], (uint32_t)le(p + 4, 4));
		else if (p[0] == MADT_LOCAL_X2APIC && p[1] >= 16 &&
			 le(p + 4, 4) != MADT_X2APIC_PLACEHOLDER)
			add_cpu(h, (uint32_t)le(p + 4, 4), (uint32_t)le(p + 8, 4));
		p += p[1];
	}
}

static struct acpi_reg gas(const uint8_t *p)
{
	/* GAS: space id, bit width, bit offset, access size, 64-bit address. */
	struct acpi_reg g = {.addr = le(p + 4, 8), .space = p[0], .bits = p[1]};
	if (g.space != ACPI_SPACE_MEMORY && g.space != ACPI_SPACE_IO)
		g.addr = 0; /* PCI config, embedded controller...: not for us */
	return g;
}

static struct acpi_reg io_port(uint32_t port, uint8_t len)
{
	return (struct acpi_reg){.addr = port, .space = ACPI_SPACE_IO, .bits = (uint8_t)(8 * len)};
}

/* One SLP_TYP value of the \_S5 package: a ByteConst, Zero, One or (as some
 * firmware writes it) a bare byte. Returns the bytes it took, 0 if none. */
static unsigned aml_byte(const uint8_t *p, const uint8_t *end, uint8_t *v)
{
	if (p >= end)
		return 0;
	if (*p == AML_BYTE_PREFIX) {
		if (p + 1 >= end)
			return 0;
		*v = p[1];
		return 2;
	}
	*v = *p == AML_ONE_OP ? 1 : *p == AML_ZERO_OP ? 0 : *p;
	return 1;
}

/* Name(_S5_, Package(n){SLP_TYPa, SLP_TYPb, ...}) in the DSDT's AML
 * (ACPI 6.x 7.4.2): found by its bytes, as every small OS does. */
static void s5_read(const struct acpi_header *dsdt, struct acpi_poweroff *off)
{
	const uint8_t *aml = (const uint8_t *)(dsdt + 1);
	const uint8_t *end = (const uint8_t *)dsdt + dsdt->length;

	if (dsdt->length > AML_MAX_SCAN_BYTES)
		return;
	for (const uint8_t *p = aml + 1; p + 4 < end; p++) {
		if (!same(p, "_S5_", 4))
			continue;
		bool named =
		    p[-1] == AML_NAME_OP || (p - aml >= 2 && p[-1] == '\\' && p[-2] == AML_NAME_OP);
		const uint8_t *q = p + 4;
		if (!named || q >= end || *q++ != AML_PACKAGE_OP || q >= end)
			continue;
		q += 1 + (*q >> 6); /* PkgLength: bits 7:6 = bytes that follow */
		q++;		    /* NumElements */
		unsigned n = aml_byte(q, end, &off->slp_typ_a);
		if (!n)
			continue;
		if (!aml_byte(q + n, end, &off->slp_typ_b))
			off->slp_typ_b = off->slp_typ_a;
		off->have_s5 = true;
		return;
	}
}

/* The PM timer (ACPI 6.x 4.8.3.3). On a hardware-reduced platform the
 * legacy PM_TMR_BLK is ignored (ACPI 6.x 5.2.9: the fixed-hardware fields),
 * but an X_PM_TMR_BLK in I/O space is taken: Cloud Hypervisor's FADT is
 * hardware-reduced and has a working 32-bit PM timer there at 608H
 * (vmm/src/acpi.rs create_facp_table), as Linux's acpi_pm clocksource reads
 * it whatever the flag. A dead one is caught by the calibration (a
 * reference that never moves is abandoned). */
static void pm_timer_read(const uint8_t *b, uint32_t len, uint32_t flags, struct acpi_reg *t)
{
	bool reduced = flags & FADT_HW_REDUCED_ACPI;

	if (len >= FADT_PM_TMR_BLK + 4 && !reduced)
		*t = io_port((uint32_t)le(b + FADT_PM_TMR_BLK, 4), 4);
	if (len >= FADT_X_PM_TMR_BLK + GAS_SIZE && gas(b + FADT_X_PM_TMR_BLK).addr) {
		struct acpi_reg x = gas(b + FADT_X_PM_TMR_BLK);
		if (!reduced || x.space == ACPI_SPACE_IO)
			*t = x;
	}
	t->bits = flags & FADT_TMR_VAL_EXT ? 32 : 24;
}

static void fadt_read(const struct acpi_reader *r, const struct acpi_header *f,
		      struct x86_handoff *h)
{
	const uint8_t *b = (const uint8_t *)f;
	uint32_t len = f->length,
		 flags = len >= FADT_FLAGS + 4 ? (uint32_t)le(b + FADT_FLAGS, 4) : 0;
	struct acpi_poweroff *off = &h->poweroff;
	uint64_t dsdt = 0;

	pm_timer_read(b, len, flags, &h->pm_timer);
	off->hw_reduced = flags & FADT_HW_REDUCED_ACPI;
	off->reset_reboots = same(f->oem_id, "CLOUDH", 6);
	uint8_t cnt_len = len > FADT_PM1_CNT_LEN ? b[FADT_PM1_CNT_LEN] : 2;
	if (len >= FADT_PM1B_CNT_BLK + 4) {
		off->pm1a_cnt = io_port((uint32_t)le(b + FADT_PM1A_CNT_BLK, 4), cnt_len);
		off->pm1b_cnt = io_port((uint32_t)le(b + FADT_PM1B_CNT_BLK, 4), cnt_len);
	}
	/* The 64-bit fields win where present and non-zero (5.2.9). */
	if (len >= FADT_X_PM1B_CNT_BLK + GAS_SIZE) {
		struct acpi_reg a = gas(b + FADT_X_PM1A_CNT_BLK), bb = gas(b + FADT_X_PM1B_CNT_BLK);
		if (a.addr)
			off->pm1a_cnt = a;
		if (bb.addr)
			off->pm1b_cnt = bb;
	}
	if (len >= FADT_SLEEP_CONTROL + GAS_SIZE)
		off->sleep_control = gas(b + FADT_SLEEP_CONTROL);
	if (len >= FADT_X_DSDT + 8)
		dsdt = le(b + FADT_X_DSDT, 8);
	if (!dsdt && len >= FADT_DSDT + 4)
		dsdt = le(b + FADT_DSDT, 4);
	const struct acpi_header *d = table_at(r, dsdt, "DSDT");
	if (d)
		s5_read(d, off);
}

enum acpi_result acpi_read(const struct acpi_reader *r, uint64_t rsdp_phys, struct x86_handoff *h,
			   bool *has_madt)
{
	*has_madt = false;
	if (!rsdp_phys)
		return ACPI_NO_RSDP;
	if (!rsdp_valid(r, rsdp_phys))
		return ACPI_BAD_RSDP;
	const struct acpi_rsdp *rsdp = map(r, rsdp_phys, 20);
	const struct acpi_header *sdt = NULL;
	unsigned entry_size = 8;
	enum acpi_result found = ACPI_FOUND_XSDT;

	if (rsdp->revision >= 2) {
		const struct acpi_rsdp *full = map(r, rsdp_phys, sizeof(*full));
		if (full && full->length >= sizeof(*full) && checksum_ok(full, full->length))
			sdt = table_at(r, full->xsdt, "XSDT");
	}
	if (!sdt) { /* revision 0, or an XSDT that is not there */
		sdt = table_at(r, rsdp->rsdt, "RSDT");
		entry_size = 4;
		found = ACPI_FOUND_RSDT;
	}
	if (!sdt)
		return ACPI_BAD_SDT;

	const uint8_t *e = (const uint8_t *)(sdt + 1);
	uint32_t n = (sdt->length - sizeof(*sdt)) / entry_size;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = le(e + i * entry_size, (int)entry_size);
		const struct acpi_header *t = table_at(r, a, NULL);
		if (!t)
			continue;
		if (!*has_madt && same(t->signature, "APIC", 4) &&
		    t->length >= sizeof(struct acpi_madt)) {
			madt_read((const struct acpi_madt *)t, h);
			*has_madt = true;
		} else if (same(t->signature, "HPET", 4) && t->length >= 56 &&
			   ((const uint8_t *)t)[40] == ACPI_SPACE_MEMORY) {
			h->hpet_phys = le((const uint8_t *)t + 44, 8); /* GAS at 40 */
		} else if (same(t->signature, "FACP", 4)) {
			fadt_read(r, t, h);
		}
	}
	return found;
}

/*
 * The MP table (Intel MultiProcessor Specification 1.4, 4.1-4.3), where
 * there is no MADT: Firecracker writes one always (src/vmm/src/arch/x86_64/
 * mptable.rs, at 9FC00H) and is MADT-less before 1.8; crosvm writes one
 * too. The floating pointer "_MP_" (16 bytes, checksum) is searched where
 * the specification says: the EBDA's first KiB, the last KiB of base
 * memory (9FC00H), then F0000H-FFFFFH, on 16-byte boundaries; its
 * configuration table "PCMP" (checksum over its base length) lists
 * processors as type-0 entries of 20 bytes (local APIC ID at +1, flags at
 * +3: bit 0 enabled); every other type is 8 bytes.
 */
#define MP_HEADER_BYTES	 44
#define MP_PROCESSOR	 0
#define MP_PROCESSOR_LEN 20
#define MP_OTHER_LEN	 8

static uint64_t mp_scan(const struct acpi_reader *r)
{
	const uint8_t *bda = map(r, 0x40E, 2);
	uint64_t ebda = bda ? le(bda, 2) << 4 : 0;
	const uint64_t areas[][2] = {{ebda, ebda >= 0x80000 && ebda <= 0xA0000 ? 1024 : 0},
				     {0x9FC00, 1024},
				     {0xF0000, 0x10000}};

	for (unsigned a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
		for (uint64_t p = areas[a][0]; p + 16 <= areas[a][0] + areas[a][1]; p += 16) {
			const uint8_t *f = map(r, p, 16);
			if (f && same(f, "_MP_", 4) && f[8] == 1 && checksum_ok(f, 16))
				return le(f + 4, 4);
		}
	return 0;
}

bool acpi_read_mptable(const struct acpi_reader *r, struct x86_handoff *h)
{
	uint64_t at = mp_scan(r);
	const uint8_t *t = at ? map(r, at, MP_HEADER_BYTES) : NULL;

	if (!t || !same(t, "PCMP", 4))
		return false;
	uint32_t len = (uint32_t)le(t + 4, 2);
	if (len < MP_HEADER_BYTES || !(t = map(r, at, len)) || !checksum_ok(t, len))
		return false;
	h->bi.lapic_phys = le(t + 36, 4);
	uint32_t count = (uint32_t)le(t + 34, 2);
	const uint8_t *p = t + MP_HEADER_BYTES, *end = t + len;
	for (uint32_t i = 0; i < count && p < end; i++) {
		uint32_t size = p[0] == MP_PROCESSOR ? MP_PROCESSOR_LEN : MP_OTHER_LEN;
		if (p + size > end)
			break;
		if (p[0] == MP_PROCESSOR)
			add_cpu(h, p[1], p[3] & 1 ? MADT_FLAG_ENABLED : 0);
		p += size;
	}
	return h->cpu_count > 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi.c over synthetic tables: an RSDP, an XSDT (or RSDT), a MADT
 * and a FADT laid out in a buffer that the reader reaches through its
 * mapper, as if at physical addresses. The MADT's processors: placeholder
 * IDs, a CPU listed both as local APIC and local x2APIC, disabled and
 * online-capable entries, x2APIC IDs above 255, and more CPUs than
 * HANDOFF_MAX_CPUS; the FADT's PM timer.
 */
#include <stdlib.h>

#include "acpi.h"
#include "unit.h"

#define BASE	  0x100000u /* "physical" address of buf[0] */
#define BUF_BYTES (64 * 1024)

static uint8_t buf[BUF_BYTES];
static uint32_t used;

static const void *map(void *ctx, uint64_t phys, uint32_t len)
{
	(void)ctx;
	if (phys < BASE || phys - BASE + len > used)
		return NULL;
	return buf + (phys - BASE);
}

/* The low MiB of a machine for the RSDP scan: ctx is its bytes. */
static const void *scan_map(void *ctx, uint64_t phys, uint32_t len)
{
	return phys + len <= 0x100000 ? (const uint8_t *)ctx + phys : NULL;
}

static void put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_checksum(uint8_t *p, uint32_t len, uint32_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += p[i];
	p[at] = (uint8_t)-sum;
}

/* A table header at the next free place; returns its "physical" address. */
static uint32_t table(const char *sig, const uint8_t *body, uint32_t len)
{
	uint32_t at = used;
	uint8_t *t = buf + at;
	memcpy(t, sig, 4);
	put(t + 4, 36 + len, 4);
	t[8] = 6;
	memcpy(t + 10, "PMUTST", 6);
	memcpy(t + 36, body, len);
	fix_checksum(t, 36 + len, 9);
	used += (36 + len + 15) & ~15u;
	return BASE + at;
}

/* The MADT body being built: local APIC address, flags, then entries. */
static uint8_t madt[48 * 1024];
static uint32_t madt_len;

static void madt_begin(void)
{
	memset(madt, 0, sizeof(madt));
	put(madt, 0xFEE00000, 4);
	madt_len = 8;
}

static void lapic(uint8_t id, uint32_t flags)
{
	uint8_t *e = madt + madt_len;
	e[0] = 0;
	e[1] = 8;
	e[2] = id; /* processor UID */
	e[3] = id;
	put(e + 4, flags, 4);
	madt_len += 8;
}

static void x2apic(uint32_t id, uint32_t flags)
{
	uint8_t *e = madt + madt_len;
	memset(e, 0, 16);
	e[0] = 9;
	e[1] = 16;
	put(e + 4, id, 4);
	put(e + 8, flags, 4);
	put(e + 12, id, 4); /* UID */
	madt_len += 16;
}

/* An I/O APIC (type 1) and an ISA override (type 2: bus 0, IRQ, GSI, flags). */
static void ioapic_entry(uint32_t phys, uint32_t gsi_base)
{
	uint8_t *e = madt + madt_len;
	memset(e, 0, 12);
	e[0] = 1;
	e[1] = 12;
	put(e + 4, phys, 4);
	put(e + 8, gsi_base, 4);
	madt_len += 12;
}

static void override(uint8_t irq, uint32_t gsi, uint16_t flags)
{
	uint8_t *e = madt + madt_len;
	memset(e, 0, 10);
	e[0] = 2;
	e[1] = 10;
	e[3] = irq;
	put(e + 4, gsi, 4);
	put(e + 8, flags, 2);
	madt_len += 10;
}

/* The HPET table: its base address in a GAS (system memory) at offset 40. */
static uint32_t hpet_table(uint64_t base)
{
	uint8_t body[56 - 36] = {0};
	put(body + 44 - 36, base, 8);
	return table("HPET", body, sizeof(body));
}

/* RSDP (revision 2) -> XSDT -> the given tables; or revision 0 -> RSDT. */
static uint64_t rsdp(bool xsdt, const uint32_t *tables, int n)
{
	uint8_t sdt[64];
	for (int i = 0; i < n; i++)
		put(sdt + i * (xsdt ? 8 : 4), tables[i], xsdt ? 8 : 4);
	uint32_t s = table(xsdt ? "XSDT" : "RSDT", sdt, (uint32_t)n * (xsdt ? 8 : 4));
	uint32_t at = used;
	uint8_t *p = buf + at;
	memcpy(p, "RSD PTR ", 8);
	p[15] = xsdt ? 2 : 0;
	put(p + 16, xsdt ? 0 : s, 4);
	put(p + 20, 36, 4);
	put(p + 24, xsdt ? s : 0, 8);
	fix_checksum(p, 20, 8);
	fix_checksum(p, 36, 32);
	used += 48;
	return BASE + at;
}

/* A FADT long enough for X_PM_TMR_BLK; PM_TMR_BLK at port, flags. */
static uint32_t fadt(uint32_t port, uint32_t flags)
{
	uint8_t body[276 - 36] = {0};
	put(body + 76 - 36, port, 4);
	put(body + 112 - 36, flags, 4);
	return table("FACP", body, sizeof(body));
}

/* A FADT with PM_TMR_BLK at port and X_PM_TMR_BLK (offset 208) a 32-bit
 * GAS at xaddr in address space `space`. */
static uint32_t fadt_xpm(uint32_t port, uint64_t xaddr, uint8_t space, uint32_t flags)
{
	uint8_t body[276 - 36] = {0};
	put(body + 76 - 36, port, 4);
	put(body + 112 - 36, flags, 4);
	body[208 - 36] = space;
	body[209 - 36] = 32;
	body[211 - 36] = 3; /* access size: dword */
	put(body + 212 - 36, xaddr, 8);
	return table("FACP", body, sizeof(body));
}

/* A DSDT whose AML holds Name(_S5_, Package(4){a, b, 0, 0}), the values as
 * firmware writes them (ByteConst, Zero/One, or a bare byte), after some
 * bytes that only look like it. */
static uint32_t dsdt_with_s5(const uint8_t *pkg, uint32_t len)
{
	uint8_t body[64] = {'_', 'S', '5', '_', 0x12}; /* a NameString without NameOp: not it */
	uint32_t n = 5;
	body[n++] = 0x08; /* NameOp */
	memcpy(body + n, "_S5_", 4);
	n += 4;
	body[n++] = 0x12; /* PackageOp */
	body[n++] = (uint8_t)(len + 1);
	body[n++] = 4; /* NumElements */
	memcpy(body + n, pkg, len);
	return table("DSDT", body, n + len);
}

/* A FADT with the sleep registers: PM1a_CNT port, the DSDT, flags, and the
 * sleep control register (a GAS in I/O space). */
static uint32_t fadt_s5(uint32_t pm1a, uint32_t dsdt, uint32_t flags, uint32_t sleep_ctl)
{
	uint8_t body[276 - 36] = {0};
	put(body + 40 - 36, dsdt, 4);
	put(body + 64 - 36, pm1a, 4);
	body[89 - 36] = 2; /* PM1_CNT_LEN */
	put(body + 112 - 36, flags, 4);
	if (sleep_ctl) {
		body[244 - 36] = ACPI_SPACE_IO;
		body[245 - 36] = 8;
		put(body + 248 - 36, sleep_ctl, 8);
	}
	return table("FACP", body, sizeof(body));
}

static struct x86_handoff *read_tables(uint64_t rsdp_phys, bool *has_madt, enum acpi_result *res)
{
	static struct x86_handoff h;
	struct acpi_reader r = {map, NULL};
	memset(&h, 0, sizeof(h));
	*res = acpi_read(&r, rsdp_phys, &h, has_madt);
	return &h;
}

int main(void)
{
	bool has;
	enum acpi_result res;
	struct x86_handoff *h;

	/* 1. Placeholders, a CPU in both lists, disabled and online capable,
	 *    an x2APIC ID above 255. */
	used = 0;
	madt_begin();
	lapic(0, 1);
	lapic(1, 1);
	lapic(0xFF, 1);	       /* placeholder */
	x2apic(0xFFFFFFFF, 1); /* placeholder */
	x2apic(1, 1);	       /* CPU 1 again, as x2APIC */
	lapic(2, 0);	       /* disabled */
	x2apic(0x200, 2);      /* online capable: not present now */
	x2apic(0x105, 1);      /* above 255 */
	ioapic_entry(0xFEC00000, 0);
	override(0, 2, 0);
	override(9, 9, 0xD); /* the SCI: level, active high */
	uint32_t t[3] = {table("APIC", madt, madt_len), fadt(0x608, 1u << 8),
			 hpet_table(0xFED00000)};
	h = read_tables(rsdp(true, t, 3), &has, &res);
	UNIT_EQ(h->hpet_phys, 0xFED00000, "HPET base from the HPET table");
	UNIT_EQ(h->ioapic_count, 1, "one I/O APIC");
	UNIT_EQ(h->ioapics[0].phys, 0xFEC00000, "its address");
	UNIT_EQ(h->override_count, 2, "two ISA overrides");
	UNIT_EQ(h->overrides[0].gsi, 2, "IRQ0 -> GSI 2");
	UNIT_EQ(h->overrides[1].irq, 9, "the SCI's override");
	UNIT_EQ(h->overrides[1].flags, 0xD, "with its flags");
	UNIT_EQ(res, ACPI_FOUND_XSDT, "XSDT found");
	UNIT_EQ(has, 1, "MADT found");
	UNIT_EQ(h->bi.lapic_phys, 0xFEE00000, "local APIC address");
	UNIT_EQ(h->cpu_count, 3, "placeholders and the duplicate skipped: 3 CPUs");
	UNIT_EQ(h->apic_ids[0], 0, "CPU 0");
	UNIT_EQ(h->apic_ids[1], 1, "CPU 1 (listed twice, kept once)");
	UNIT_EQ(h->apic_ids[2], 0x105, "x2APIC ID 105H");
	UNIT_EQ(h->cpus_disabled, 1, "one disabled");
	UNIT_EQ(h->cpus_online_capable, 1, "one online capable");
	UNIT_EQ(h->cpus_beyond_max, 0, "none beyond the limit");
	UNIT_EQ(h->pm_timer.addr, 0x608, "PM timer port from PM_TMR_BLK");
	UNIT_EQ(h->pm_timer.space, ACPI_SPACE_IO, "PM timer in I/O space");
	UNIT_EQ(h->pm_timer.bits, 32, "TMR_VAL_EXT: a 32-bit PM timer");

	/* 2. More CPUs than fit, each listed as local APIC (IDs < 255) and
	 *    local x2APIC: every one once, those beyond the limit by ID. */
	used = 0;
	madt_begin();
	for (uint32_t id = 0; id < 255; id++)
		lapic((uint8_t)id, 1);
	for (uint32_t id = 0; id < HANDOFF_MAX_CPUS + 6; id++)
		x2apic(id, 1);
	x2apic(HANDOFF_MAX_CPUS + 2, 1); /* a duplicate beyond the limit */
	t[0] = table("APIC", madt, madt_len);
	t[1] = fadt(0x408, 0);
	h = read_tables(rsdp(false, t, 2), &has, &res);
	UNIT_EQ(res, ACPI_FOUND_RSDT, "RSDT found (revision 0 RSDP)");
	UNIT_EQ(h->cpu_count, HANDOFF_MAX_CPUS, "the first HANDOFF_MAX_CPUS CPUs");
	UNIT_EQ(h->apic_ids[254], 254, "the type-0 entries kept their order");
	UNIT_EQ(h->apic_ids[255], 255, "then the x2APIC-only ones");
	UNIT_EQ(h->cpus_beyond_max, 6, "6 beyond the limit, each once");
	UNIT_EQ(h->beyond_ids[0], HANDOFF_MAX_CPUS, "the first left out, by APIC ID");
	UNIT_EQ(h->beyond_ids[5], HANDOFF_MAX_CPUS + 5, "the last left out, by APIC ID");
	UNIT_EQ(h->pm_timer.bits, 24, "no TMR_VAL_EXT: a 24-bit PM timer");

	/* 3. A MADT with a wrong checksum is not read; a hardware-reduced
	 *    FADT has no PM timer. */
	used = 0;
	madt_begin();
	lapic(0, 1);
	t[0] = table("APIC", madt, madt_len);
	buf[t[0] - BASE + 9]++;
	t[1] = fadt(0x608, 1u << 20);
	h = read_tables(rsdp(true, t, 2), &has, &res);
	UNIT_EQ(has, 0, "a MADT with a bad checksum is skipped");
	UNIT_EQ(h->cpu_count, 0, "no CPUs from it");
	UNIT_EQ(h->pm_timer.addr, 0, "HW_REDUCED_ACPI: no PM timer");

	/* 3b. Cloud Hypervisor's FADT (vmm/src/acpi.rs create_facp_table):
	 *     hardware-reduced, TMR_VAL_EXT, and X_PM_TMR_BLK a 32-bit GAS in
	 *     I/O space at 608H: that PM timer is taken; the same GAS in memory
	 *     space on a hardware-reduced FADT is not. */
	used = 0;
	t[0] = fadt_xpm(0, 0x608, ACPI_SPACE_IO, (1u << 20) | (1u << 8));
	h = read_tables(rsdp(true, t, 1), &has, &res);
	UNIT_EQ(h->pm_timer.addr, 0x608, "HW_REDUCED_ACPI with X_PM_TMR_BLK in I/O space: taken");
	UNIT_EQ(h->pm_timer.space, ACPI_SPACE_IO, "in I/O space");
	UNIT_EQ(h->pm_timer.bits, 32, "TMR_VAL_EXT: 32 bits");
	used = 0;
	t[0] = fadt_xpm(0x408, 0xFED00000, 0, 1u << 20);
	h = read_tables(rsdp(true, t, 1), &has, &res);
	UNIT_EQ(h->pm_timer.addr, 0, "HW_REDUCED_ACPI, X_PM_TMR_BLK in memory space: none");

	/* 4. Every entry a placeholder or disabled: no CPU at all. */
	used = 0;
	madt_begin();
	lapic(0xFF, 1);
	x2apic(0xFFFFFFFF, 3);
	lapic(3, 0);
	t[0] = table("APIC", madt, madt_len);
	h = read_tables(rsdp(true, t, 1), &has, &res);
	UNIT_EQ(has, 1, "MADT found");
	UNIT_EQ(h->cpu_count, 0, "placeholders only: no CPU");
	UNIT_EQ(h->cpus_disabled, 1, "the disabled one counted");

	/* 5. ACPI S5 (boot/direct's way to switch off): PM1a_CNT and \_S5 as a
	 *    full ACPI platform (QEMU pc: SLP_TYP 0 as ZeroOp), then a
	 *    hardware-reduced one with the sleep control register (microvm,
	 *    Cloud Hypervisor: ByteConst 5). */
	used = 0;
	static const uint8_t zero_pkg[] = {0x00, 0x00, 0x00, 0x00};
	t[0] = fadt_s5(0x604, dsdt_with_s5(zero_pkg, sizeof(zero_pkg)), 0, 0);
	h = read_tables(rsdp(true, t, 1), &has, &res);
	UNIT_EQ(h->poweroff.have_s5, 1, "\\_S5 found past a look-alike without NameOp");
	UNIT_EQ(h->poweroff.slp_typ_a, 0, "SLP_TYPa from ZeroOp");
	UNIT_EQ(h->poweroff.pm1a_cnt.addr, 0x604, "PM1a_CNT port");
	UNIT_EQ(h->poweroff.pm1a_cnt.bits, 16, "PM1_CNT_LEN 2: 16 bits");
	UNIT_EQ(h->poweroff.hw_reduced, 0, "full ACPI");
	used = 0;
	static const uint8_t byte_pkg[] = {0x0A, 0x05, 0x01, 0x00};
	t[0] = fadt_s5(0, dsdt_with_s5(byte_pkg, sizeof(byte_pkg)), 1u << 20, 0x3C0);
	h = read_tables(rsdp(false, t, 1), &has, &res);
	UNIT_EQ(h->poweroff.have_s5, 1, "\\_S5 found (through an RSDT)");
	UNIT_EQ(h->poweroff.slp_typ_a, 5, "SLP_TYPa from a ByteConst");
	UNIT_EQ(h->poweroff.slp_typ_b, 1, "SLP_TYPb from OneOp");
	UNIT_EQ(h->poweroff.hw_reduced, 1, "HW_REDUCED_ACPI");
	UNIT_EQ(h->poweroff.sleep_control.addr, 0x3C0, "the sleep control register");
	UNIT_EQ(h->poweroff.sleep_control.space, ACPI_SPACE_IO, "in I/O space");
	used = 0;
	t[0] = fadt_s5(0x604, 0, 0, 0);
	h = read_tables(rsdp(true, t, 1), &has, &res);
	UNIT_EQ(h->poweroff.have_s5, 0, "no DSDT: no \\_S5, nothing to write");

	/* 6. The legacy RSDP scan (Firecracker's PVH path gives no rsdp_paddr):
	 *    a checksummed RSDP on a 16-byte boundary of E0000H-FFFFFH. */
	static uint8_t low[0x100000];
	struct acpi_reader lr = {scan_map, low};
	UNIT_EQ(acpi_scan_rsdp(&lr), 0, "nothing in an empty low MiB");
	memcpy(low + 0xE1238, "RSD PTR ", 8);
	fix_checksum(low + 0xE1238, 20, 8);
	UNIT_EQ(acpi_scan_rsdp(&lr), 0, "not on a 16-byte boundary: not found");
	memset(low + 0xE1238, 0, 20);
	memcpy(low + 0xE1240, "RSD PTR ", 8);
	UNIT_EQ(acpi_scan_rsdp(&lr), 0, "a wrong checksum: not found");
	fix_checksum(low + 0xE1240, 20, 8);
	UNIT_EQ(acpi_scan_rsdp(&lr), 0xE1240, "found at E1240H");
	put(low + 0x40E, 0x9FC0, 2); /* EBDA at 9FC00H, searched first */
	memcpy(low + 0x9FC10, "RSD PTR ", 8);
	fix_checksum(low + 0x9FC10, 20, 8);
	UNIT_EQ(acpi_scan_rsdp(&lr), 0x9FC10, "the EBDA's first KiB comes first");
	/* Cloud Hypervisor's EBDA at A0000H (40EH = A000H), its RSDP there. */
	put(low + 0x40E, 0xA000, 2);
	memcpy(low + 0xA0000, "RSD PTR ", 8);
	fix_checksum(low + 0xA0000, 20, 8);
	UNIT_EQ(acpi_scan_rsdp(&lr), 0xA0000, "an EBDA at A0000H (Cloud Hypervisor) is searched");

	/* 7. No MADT: the MP table (Firecracker before 1.8, or run without
	 *    ACPI): the floating pointer at 9FC00H, a PCMP table with two
	 *    enabled processors (APIC IDs 0 and 1), a disabled one, a bus and
	 *    an I/O APIC entry between them. */
	memset(low, 0, sizeof(low));
	struct x86_handoff *mh = calloc(1, sizeof(*mh));
	UNIT_EQ(acpi_read_mptable(&lr, mh), 0, "no MP table: none");
	uint8_t *fp = low + 0x9FC00, *ct = low + 0x9FC10;
	memcpy(fp, "_MP_", 4);
	put(fp + 4, 0x9FC10, 4);
	fp[8] = 1;
	fp[9] = 4;
	fix_checksum(fp, 16, 10);
	memcpy(ct, "PCMP", 4);
	put(ct + 36, 0xFEE00000, 4);
	uint8_t *e = ct + 44;
	const uint8_t cpus[3][2] = {{0, 3}, {1, 1}, {2, 0}}; /* {APIC ID, flags: EN, BP} */
	for (int i = 0; i < 3; i++, e += 20) {
		e[0] = 0;
		e[1] = cpus[i][0];
		e[3] = cpus[i][1];
		if (i == 0) { /* a bus and an I/O APIC after the BSP */
			e[20] = 1;
			e[28] = 2;
			e += 16;
		}
	}
	put(ct + 4, (uint64_t)(e - ct), 2);
	put(ct + 34, 5, 2);
	fix_checksum(ct, (uint32_t)(e - ct), 7);
	UNIT_EQ(acpi_read_mptable(&lr, mh), 1, "the MP table found at 9FC00H");
	UNIT_EQ(mh->cpu_count, 2, "two enabled processors");
	UNIT_EQ(mh->apic_ids[1], 1, "the second one's APIC ID");
	UNIT_EQ(mh->cpus_disabled, 1, "the disabled one counted");
	UNIT_EQ(mh->bi.lapic_phys, 0xFEE00000, "the local APIC address");
	ct[7]++;
	memset(mh, 0, sizeof(*mh));
	UNIT_EQ(acpi_read_mptable(&lr, mh), 0, "a wrong checksum: not read");
	UNIT_EQ(mh->cpu_count, 0, "no CPUs from it");
	free(mh);
	return unit_done();
}

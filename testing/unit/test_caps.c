/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capability decoder (kernel/caps.c), the requirement
 * table (kernel/requires.c), the report (kernel/caps_report.c) and the dump
 * reader (lib/cpuid_dump.c).
 *
 * CPUID values come from a fake CPU that behaves like Intel hardware and
 * QEMU/TCG for a leaf above the maximum: it answers with the data of the
 * highest basic leaf (SDM Vol. 2A CPUID). It also counts every such query,
 * so "never read above the maximum" is checked directly, not inferred.
 * Expected values are worked out from the SDM field definitions in the
 * comments, never copied from the decoder's output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "known.h"
#include "cpuid_dump.h"
#include "ktap.h"
#include "requires.h"
#include "rules.h"
#include "unit.h"

/* ---- The fake CPU -------------------------------------------------------- */

#define FAKE_MAX 64

struct fake_leaf {
	uint32_t leaf, sub;
	struct cpuid_regs r;
};

struct fake {
	struct fake_leaf l[FAKE_MAX];
	unsigned n;
	bool hv_range;	    /* answer 4000xxxxH (a VMM is there) */
	unsigned above_max; /* queries of a leaf above its range's maximum */
	uint32_t above_max_leaf;
	uint32_t asked[256][2]; /* every (leaf, sub) queried */
	unsigned nasked;
};

static struct fake_leaf *fake_find(struct fake *f, uint32_t leaf, uint32_t sub)
{
	for (unsigned i = 0; i < f->n; i++)
		if (f->l[i].leaf == leaf && f->l[i].sub == sub)
			return &f->l[i];
	return NULL;
}

static void fake_set(struct fake *f, uint32_t leaf, uint32_t sub, uint32_t a, uint32_t b,
		     uint32_t c, uint32_t d)
{
	struct fake_leaf *e = fake_find(f, leaf, sub);

	if (!e) {
		if (f->n == FAKE_MAX) {
			fprintf(stderr, "fake CPU table full\n");
			exit(2);
		}
		e = &f->l[f->n++];
	}
	e->leaf = leaf;
	e->sub = sub;
	e->r = (struct cpuid_regs){a, b, c, d};
}

static bool fake_asked(const struct fake *f, uint32_t leaf, uint32_t sub)
{
	for (unsigned i = 0; i < f->nasked; i++)
		if (f->asked[i][0] == leaf && f->asked[i][1] == sub)
			return true;
	return false;
}

static bool fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	struct fake *f = ctx;
	struct fake_leaf *e, *l0 = fake_find(f, 0, 0), *x0 = fake_find(f, 0x80000000, 0);
	uint32_t max_basic = l0 ? l0->r.eax : 0;
	uint32_t max_ext = x0 && (x0->r.eax & 0xFFFF0000) == 0x80000000 ? x0->r.eax : 0;
	bool above;

	if (f->nasked < 256) {
		f->asked[f->nasked][0] = leaf;
		f->asked[f->nasked][1] = sub;
		f->nasked++;
	}
	if (leaf < 0x40000000)
		above = leaf > max_basic;
	else if (leaf < 0x80000000)
		above = !f->hv_range;
	else
		above = leaf != 0x80000000 && leaf > max_ext;
	if (above) {
		f->above_max++;
		f->above_max_leaf = leaf;
		/* Intel / TCG: the highest basic leaf's data. */
		e = fake_find(f, max_basic, sub);
	} else {
		e = fake_find(f, leaf, sub);
	}
	*r = e ? e->r : (struct cpuid_regs){0, 0, 0, 0};
	return true; /* a machine has every leaf up to its maximum */
}

/* "GenuineIntel", "AuthenticAMD", "HygonGenuine" as EBX, EDX, ECX. */
static void fake_vendor(struct fake *f, uint32_t max, const char *v)
{
	uint32_t w[3];

	memcpy(w, v, 12);
	fake_set(f, 0, 0, max, w[0], w[2], w[1]);
}

/* A new fake CPU: vendor, maximum basic leaf and signature (CPUID.01H:EAX),
 * no other leaf. */
static void fake_cpu(struct fake *f, const char *vendor, uint32_t max, uint32_t sig)
{
	memset(f, 0, sizeof(*f));
	fake_vendor(f, max, vendor);
	fake_set(f, 1, 0, sig, 0, 0, 0);
}

static void fake_intel(struct fake *f, uint32_t max, uint32_t sig)
{
	fake_cpu(f, "GenuineIntel", max, sig);
	fake_set(f, 0x80000000, 0, 0x80000008, 0, 0, 0);
}

static void fake_amd(struct fake *f, uint32_t max, uint32_t sig, uint32_t max_ext)
{
	fake_cpu(f, "AuthenticAMD", max, sig);
	fake_set(f, 0x80000000, 0, max_ext, 0, 0, 0);
}

static struct caps decode(struct fake *f)
{
	struct caps c;

	caps_decode(&c, fake_cpuid, f);
	return c;
}

#define NO_READ_ABOVE_MAX(f, name)                                                                 \
	do {                                                                                       \
		char n_[200];                                                                      \
		snprintf(n_, sizeof(n_), "%s: no leaf read above its maximum (last %#x)", name,    \
			 (f)->above_max_leaf);                                                     \
		UNIT_EQ((f)->above_max, 0, n_);                                                    \
	} while (0)

/* ---- Identification ---------------------------------------------------- */

static void test_signature(void)
{
	struct fake f;
	struct caps c;

	/* Intel 000906EAH: Family 6, so DisplayModel = 0EH + (9 << 4) = 9EH. */
	fake_intel(&f, 0x16, 0x000906EA);
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_INTEL, "intel: vendor");
	UNIT_STREQ(c.vendor_string, "GenuineIntel", "intel: vendor string");
	UNIT_EQ(c.family, 0x6, "intel 906EA: DisplayFamily 06H");
	UNIT_EQ(c.model, 0x9E, "intel 906EA: DisplayModel 9EH (extended model counts for 06H)");
	UNIT_EQ(c.stepping, 0xA, "intel 906EA: stepping 0AH");

	/* Intel 00000F41H (Prescott): Family 0FH + ExtFamily 0 = 0FH, model 4. */
	fake_intel(&f, 5, 0x00000F41);
	c = decode(&f);
	UNIT_EQ(c.family, 0xF, "intel F41: DisplayFamily 0FH");
	UNIT_EQ(c.model, 0x4, "intel F41: DisplayModel 04H");
	UNIT_TRUE(c.netburst, "intel F41: NetBurst");

	/* Intel family 5 with extended model bits: they do not count. */
	fake_intel(&f, 1, 0x00010543);
	c = decode(&f);
	UNIT_EQ(c.model, 0x4, "intel 10543: extended model ignored for family 05H");

	/* AMD 00A10F11H (Genoa): 0FH + 0AH = 19H, model 1 + (1 << 4) = 11H. */
	fake_amd(&f, 0x10, 0x00A10F11, 0x80000028);
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_AMD, "amd: vendor");
	UNIT_EQ(c.family, 0x19, "amd A10F11: family 19H");
	UNIT_EQ(c.model, 0x11, "amd A10F11: model 11H");
	UNIT_EQ(c.stepping, 1, "amd A10F11: stepping 1");

	/* AMD base family 6 (K7): the APM adds the extended model only for
	 * base family 0FH, Intel's rule would add it for 06H too. */
	fake_amd(&f, 1, 0x00010662, 0x80000008);
	c = decode(&f);
	UNIT_EQ(c.model, 0x6, "amd 10662: extended model ignored for base family 06H");

	/* Hygon 00900F01H: family 18H, model 0. */
	fake_cpu(&f, "HygonGenuine", 0xD, 0x00900F01);
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_HYGON, "hygon: vendor HygonGenuine");
	UNIT_EQ(c.family, 0x18, "hygon 900F01: family 18H");
	UNIT_EQ(c.model, 0x0, "hygon 900F01: model 0");

	memset(&f, 0, sizeof(f));
	fake_vendor(&f, 1, "CentaurHauls");
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_CENTAUR, "centaur: vendor CentaurHauls");
	UNIT_STREQ(caps_vendor_name(c.vendor), "Centaur", "centaur: vendor name");

	/* Zhaoxin KX-7000, 00607B1H: family 7, the extended model counts from
	 * family 06H up (Linux x86_model(), the cpuid tool): model 6BH. */
	fake_cpu(&f, "  Shanghai  ", 0xA, 0x000607B1);
	fake_set(&f, 0xA, 0, 0x07300402, 0, 0, 0x00000603);
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_ZHAOXIN, "zhaoxin: vendor '  Shanghai  '");
	UNIT_EQ(c.model, 0x6B, "zhaoxin 607B1: DisplayModel 6BH");
	UNIT_EQ(c.pm.present, 1, "zhaoxin: architectural PMU from leaf 0AH");
	UNIT_EQ(c.pm.gp_counters, 4, "zhaoxin: 4 GP counters");

	/* A corrupted vendor string with a valid leaf 0AH: the PMU is the
	 * leaf's, the name does not matter. */
	fake_cpu(&f, "GenuineIotel", 0xD, 0x000306C3);
	fake_set(&f, 0xA, 0, 0x07300403, 0, 0, 0x00000603);
	c = decode(&f);
	UNIT_EQ(c.vendor, VENDOR_UNKNOWN, "GenuineIotel: vendor unknown");
	UNIT_EQ(c.pm.present, 1, "GenuineIotel: architectural PMU from leaf 0AH");

	/* AMD reserves leaf 0AH: whatever it reads, no architectural PMU. */
	fake_amd(&f, 0xD, 0x00A00F11, 0x80000022);
	fake_set(&f, 0xA, 0, 0x07300403, 0, 0, 0x00000603);
	c = decode(&f);
	UNIT_EQ(c.pm.present, 0, "amd: leaf 0AH reserved, no architectural PMU");
}

static void test_leaf1_bits(void)
{
	struct fake f;
	struct caps c;

	fake_intel(&f, 1, 0x000506E3);
	/* ECX: PDCM 15, x2APIC 21, hypervisor 31; EDX: TSC 4, MSR 5, APIC 9, DS 21. */
	fake_set(&f, 1, 0, 0x000506E3, 0, (1u << 15) | (1u << 21), (1u << 4) | (1u << 9));
	c = decode(&f);
	UNIT_TRUE(c.pdcm && c.x2apic && !c.hypervisor, "leaf 1: PDCM, x2APIC, no hypervisor");
	UNIT_TRUE(c.tsc && c.apic && !c.msr && !c.ds, "leaf 1: TSC and APIC only");
	UNIT_TRUE(!fake_asked(&f, 0x40000000, 0), "leaf 1: no hypervisor bit, 40000000H not read");
}

/* ---- Max-leaf gating ---------------------------------------------------- */

static void test_max_leaf_gating(void)
{
	struct fake f;
	struct caps c;

	/* Max basic leaf 09H, but the table also has a v4 leaf 0AH and RDT
	 * leaves: a decoder that reads them is reading junk on real hardware. */
	fake_intel(&f, 0x9, 0x000006F6);
	fake_set(&f, 7, 0, 0, (1u << 12) | (1u << 15), 0, 1u << 15);
	fake_set(&f, 9, 0, 0x12345678, 0, 0, 0);
	fake_set(&f, 0xA, 0, 0x07300404, 0, 0, 0x603);
	fake_set(&f, 0xF, 0, 0, 0xFF, 0, 2);
	fake_set(&f, 0x10, 0, 0, 2, 0, 0);
	fake_set(&f, 0x1A, 0, 0x20000001, 0, 0, 0);
	c = decode(&f);
	UNIT_EQ(c.max_basic_leaf, 9, "max 09H: max_basic_leaf");
	UNIT_TRUE(!c.pm.present, "max 09H: leaf 0AH above the maximum is no PMU");
	UNIT_TRUE(c.rdt.pqm && !c.rdt.mon_present, "max 09H: PQM set but leaf 0FH absent");
	UNIT_TRUE(c.rdt.pqe && !c.rdt.alloc_present, "max 09H: PQE set but leaf 10H absent");
	UNIT_TRUE(c.hybrid && c.core_type == CORE_TYPE_NONE, "max 09H: hybrid, leaf 1AH absent");
	NO_READ_ABOVE_MAX(&f, "max 09H");

	/* The same with the TCG behaviour made visible: leaf 0AH absent from
	 * the table, max 0AH-1 = 09H whose data would decode as version 0x78. */
	UNIT_TRUE(!fake_asked(&f, 0xA, 0), "max 09H: leaf 0AH never asked");

	/* Leaf 0AH exactly at the maximum is read. */
	fake_intel(&f, 0xA, 0x000006F6);
	fake_set(&f, 0xA, 0, 0x07280202, 0, 0, 0x503);
	c = decode(&f);
	UNIT_TRUE(c.pm.present && c.pm.version == 2, "max 0AH: leaf 0AH at the maximum is read");
	NO_READ_ABOVE_MAX(&f, "max 0AH");

	/* No extended range: 80000000H answers with basic data (EAX = 2). */
	fake_amd(&f, 1, 0x00000F48, 0x00000002);
	fake_set(&f, 0x80000001, 0, 0, 0, 1u << 23, 0);
	c = decode(&f);
	UNIT_TRUE(!c.max_ext_valid && c.max_ext_leaf == 0,
		  "80000000H:EAX = 2: no extended range (EAX must be 8000xxxxH)");
	UNIT_TRUE(!c.amd.perfctr_core && !c.amd.ext1_present,
		  "no extended range: 80000001H not decoded");
	NO_READ_ABOVE_MAX(&f, "no extended range");

	/* Extended maximum 80000008H: 80000022H (PerfMonV2) is not read. */
	fake_amd(&f, 0x10, 0x00830F10, 0x80000008);
	fake_set(&f, 0x80000001, 0, 0, 0, 1u << 23, 0);
	fake_set(&f, 0x80000022, 0, 1, 6, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.amd.perfctr_core && !c.amd.perfmon_v2 && !c.amd.ext22_present,
		  "max ext 80000008H: 80000022H above the maximum is not decoded");
	NO_READ_ABOVE_MAX(&f, "max ext 80000008H");

	/* Max basic leaf 0: nothing but the vendor. */
	memset(&f, 0, sizeof(f));
	fake_vendor(&f, 0, "GenuineIntel");
	fake_set(&f, 1, 0, 0x000006F6, 0, 1u << 15, 0);
	c = decode(&f);
	UNIT_TRUE(!c.pdcm && c.family == 0, "max 0: leaf 1 not read");
	NO_READ_ABOVE_MAX(&f, "max 0");
}

/* ---- Leaf 0AH ---------------------------------------------------------- */

static void test_ebx_vector_short(void)
{
	struct fake f;
	struct caps c;

	/* EAX[31:24] = 5: only events 0-4 are enumerated; EBX[1] = 1 marks
	 * instructions unavailable; EBX[6] set beyond the length means nothing,
	 * and events 5.. are unavailable whatever EBX says. */
	fake_intel(&f, 0xA, 0x000006F6);
	fake_set(&f, 0xA, 0, 0x05300403, (1u << 1) | (1u << 6), 0, 0x603);
	c = decode(&f);
	UNIT_EQ(c.pm.ebx_length, 5, "short EBX: length 5");
	UNIT_TRUE(c.pm.event_available[ARCH_EVENT_CORE_CYCLES], "short EBX: core cycles");
	UNIT_TRUE(!c.pm.event_available[ARCH_EVENT_INSTRUCTIONS],
		  "short EBX: instructions unavailable (EBX[1] = 1)");
	UNIT_TRUE(c.pm.event_available[ARCH_EVENT_LLC_MISSES], "short EBX: event 4 available");
	for (unsigned i = 5; i < ARCH_EVENT_COUNT; i++) {
		char name[96];

		snprintf(name, sizeof(name), "short EBX: event %u (%s) beyond the length", i,
			 caps_arch_event_name(i));
		UNIT_TRUE(!c.pm.event_available[i], name);
	}

	/* Length 13 with EBX = 0: all 13 Table 20-1 events. */
	fake_set(&f, 0xA, 0, 0x0D300805, 0, 0, 0x8603);
	c = decode(&f);
	UNIT_TRUE(c.pm.event_available[ARCH_EVENT_LBR_INSERTS], "length 13: event 12 available");
}

static void test_fixed_counters(void)
{
	struct fake f;
	struct caps c;

	/* v5, EDX[4:0] = 0 and ECX = 1001B: fixed counters 0 and 3 exist by
	 * ECX alone (SDM: supported if ECX[i] = 1 or EDX[4:0] > i). */
	fake_intel(&f, 0xA, 0x000906A3);
	fake_set(&f, 0xA, 0, 0x08300805, 0, 0x9, 0x8000 | (48u << 5) | 0);
	c = decode(&f);
	UNIT_EQ(c.pm.fixed_supported, 0x9, "v5 ECX only: fixed counters {0,3}");
	UNIT_EQ(c.pm.fixed_bitmask, 0x9, "v5 ECX only: bitmask");
	UNIT_EQ(c.pm.fixed_counters_edx, 0, "v5 ECX only: EDX[4:0] = 0");
	UNIT_EQ(c.pm.fixed_width, 48, "v5 ECX only: width 48");
	UNIT_TRUE(c.pm.anythread_deprecated, "v5: AnyThread deprecated (EDX[15])");

	/* v5, EDX[4:0] = 3 and ECX = 10000B: {0,1,2} by EDX, 4 by ECX. */
	fake_set(&f, 0xA, 0, 0x08300805, 0, 0x10, (48u << 5) | 3);
	c = decode(&f);
	UNIT_EQ(c.pm.fixed_supported, 0x17, "v5 EDX + ECX: fixed counters {0,1,2,4}");

	/* v4: ECX is reserved, a stray bit must not create a counter. */
	fake_set(&f, 0xA, 0, 0x07300404, 0, 0x10, (48u << 5) | 3);
	c = decode(&f);
	UNIT_EQ(c.pm.fixed_supported, 0x7, "v4: ECX ignored, fixed counters {0,1,2}");
	UNIT_EQ(c.pm.fixed_bitmask, 0, "v4: no bitmask");
	UNIT_TRUE(!c.pm.anythread_deprecated, "v4: EDX[15] = 0");

	/* v1: the EDX fixed-counter fields hold only "if Version ID > 1". */
	fake_set(&f, 0xA, 0, 0x07280201, 0, 0, 0x503);
	c = decode(&f);
	UNIT_TRUE(c.pm.present && c.pm.version == 1, "v1: present");
	UNIT_EQ(c.pm.fixed_supported, 0, "v1: no fixed counters despite EDX[4:0] = 3");
	UNIT_EQ(c.pm.fixed_width, 0, "v1: no fixed width");
	UNIT_EQ(c.pm.gp_mask, 0x3, "v1: GP mask of 2 counters");
	UNIT_EQ(c.pm.gp_width, 40, "v1: GP width 40");

	/* Diamondville: EDX = 2501H, reserved bit 13 set, one fixed counter
	 * of 40 bits (EDX[12:5] = 28H). */
	fake_set(&f, 0xA, 0, 0x07280203, 0, 0, 0x2501);
	c = decode(&f);
	UNIT_EQ(c.pm.fixed_supported, 0x1, "EDX 2501H: fixed counter 0 only");
	UNIT_EQ(c.pm.fixed_width, 40, "EDX 2501H: width 40, reserved bit 13 ignored");
	UNIT_TRUE(!c.pm.anythread_deprecated, "EDX 2501H: AnyThread not deprecated");
}

static void test_zeroed_leaf_0a_under_hypervisor(void)
{
	struct fake f;
	struct caps c;
	const char *why;

	/* A VMM without a vPMU: hypervisor bit, leaf 0AH present but zero. */
	fake_intel(&f, 0x16, 0x000806EA);
	fake_set(&f, 1, 0, 0x000806EA, 0, 1u << 31, 1u << 9);
	f.hv_range = true;
	fake_set(&f, 0x40000000, 0, 0x40000001, 0x4B4D564B, 0x564B4D56, 0x0000004D);
	fake_set(&f, 0xA, 0, 0, 0, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.hypervisor, "zeroed 0AH: hypervisor bit");
	UNIT_STREQ(c.hypervisor_vendor, "KVMKVMKVM", "zeroed 0AH: hypervisor vendor KVM");
	UNIT_TRUE(!c.pm.present, "zeroed 0AH: version 0 means no architectural PMU");
	UNIT_EQ(c.pm.fixed_supported, 0, "zeroed 0AH: no fixed counters");
	UNIT_EQ(c.pm.gp_mask, 0, "zeroed 0AH: no GP counters");
	why = requires_missing(&c, REQ_ARCH_PMU);
	UNIT_TRUE(why && strstr(why, "CPUID.0AH:EAX[7:0] >= 1"),
		  "zeroed 0AH: REQ_ARCH_PMU missing names CPUID.0AH:EAX[7:0]");
	UNIT_TRUE(requires_missing(&c, REQ_NO_ARCH_PMU) == NULL,
		  "zeroed 0AH: REQ_NO_ARCH_PMU holds");
	NO_READ_ABOVE_MAX(&f, "zeroed 0AH");

	/* Zero version with non-zero other fields is still no PMU. */
	fake_set(&f, 0xA, 0, 0x07300400, 0, 0, 0x603);
	c = decode(&f);
	UNIT_TRUE(!c.pm.present, "version 0 with counters in EAX[15:8]: no PMU");
}

/* ---- Leaf 23H ---------------------------------------------------------- */

static void setup_leaf23(struct fake *f, bool ext_bit)
{
	fake_intel(f, 0x23, 0x000C06F2);
	fake_set(f, 7, 0, 1, 0, 0, 0);
	fake_set(f, 7, 1, ext_bit ? 1u << 8 : 0, 0, 0, 0);
	fake_set(f, 0xA, 0, 0x08300606, 0, 0xFF, 0x8000 | (48u << 5) | 4);
}

static void test_leaf23(void)
{
	struct fake f;
	struct caps c;

	/* Sub-leaf 0 EAX = 011B (sub-leaf 1 valid), EBX = 11B (UMASK2, EQ);
	 * sub-leaf 1: GP 1011B and fixed 101B, both with holes. */
	setup_leaf23(&f, true);
	fake_set(&f, 0x23, 0, 0x3, 0x3, 0, 0);
	fake_set(&f, 0x23, 1, 0xB, 0x5, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.l23.present && c.l23.enumerated, "leaf 23H: present");
	UNIT_TRUE(c.l23.umask2 && c.l23.eq, "leaf 23H: UMASK2 and EQ");
	UNIT_TRUE(c.l23.counters_valid, "leaf 23H: sub-leaf 1 valid (sub-leaf 0 EAX[1])");
	UNIT_EQ(c.pm.gp_mask, 0xB, "leaf 23H: GP counters {0,1,3} (hole at 2)");
	UNIT_EQ(c.pm.fixed_supported, 0x5, "leaf 23H: fixed counters {0,2} (hole at 1)");
	UNIT_EQ(c.pm.gp_counters, 6, "leaf 23H: leaf 0AH count kept as read");
	NO_READ_ABOVE_MAX(&f, "leaf 23H");

	/* Sub-leaf 0 EAX[1] = 0: sub-leaf 1 does not exist, even if the table
	 * has data for it; leaf 0AH's counts stand. */
	fake_set(&f, 0x23, 0, 0x1, 0x1, 0, 0);
	f.nasked = 0;
	c = decode(&f);
	UNIT_TRUE(c.l23.present && !c.l23.counters_valid, "leaf 23H EAX = 1: no sub-leaf 1");
	UNIT_TRUE(!fake_asked(&f, 0x23, 1), "leaf 23H EAX = 1: sub-leaf 1 never asked");
	UNIT_EQ(c.pm.gp_mask, 0x3F, "leaf 23H EAX = 1: GP mask from CPUID.0AH:EAX[15:8] = 6");
	UNIT_EQ(c.pm.fixed_supported, 0xFF, "leaf 23H EAX = 1: fixed from 0AH ECX | EDX");
	UNIT_TRUE(c.l23.umask2 && !c.l23.eq, "leaf 23H EBX = 1: UMASK2 only");

	/* Max leaf >= 23H but CPUID.(07H,1):EAX[8] = 0: no leaf 23H. */
	setup_leaf23(&f, false);
	fake_set(&f, 0x23, 0, 0x3, 0x3, 0, 0);
	fake_set(&f, 0x23, 1, 0xB, 0x5, 0, 0);
	c = decode(&f);
	UNIT_TRUE(!c.l23.present, "ArchPerfmonExt = 0: leaf 23H not decoded");
	UNIT_TRUE(!fake_asked(&f, 0x23, 0), "ArchPerfmonExt = 0: leaf 23H never asked");
	UNIT_EQ(c.pm.gp_mask, 0x3F, "ArchPerfmonExt = 0: GP mask from leaf 0AH");

	/* Max leaf 22H with the bit set: still gated by the maximum. */
	setup_leaf23(&f, true);
	fake_set(&f, 0, 0, 0x22, 0x756E6547, 0x6C65746E, 0x49656E69);
	c = decode(&f);
	UNIT_TRUE(!c.l23.present, "max 22H: leaf 23H above the maximum");
	NO_READ_ABOVE_MAX(&f, "max 22H");
}

/* Sub-leaves 2-5 and EBX[2] (Linux `union cpuid35_eax/ebx`; SDM Vol. 3B
 * "Auto Counter Reload"; ISE "Architectural PEBS"): each read only when
 * sub-leaf 0 EAX names it, each register in its own field. */
static void test_leaf23_subleaves(void)
{
	struct fake f;
	struct caps c;

	/* EAX = 111111B: sub-leaves 0-5; EBX = 111B: UMASK2, EQ, RDPMC user
	 * disable. Sub-leaf 2: reloadable GP 0xFF fixed 0x7, cause GP 0xF0
	 * fixed 0x3. Sub-leaf 3: events 0x1FFF. Sub-leaf 4: EBX 0x60000F08.
	 * Sub-leaf 5: PEBS GP 0xFF, PDIST GP 0x3, PEBS fixed 0x7, PDIST fixed 1. */
	setup_leaf23(&f, true);
	fake_set(&f, 0x23, 0, 0x3F, 0x7, 0, 0);
	fake_set(&f, 0x23, 1, 0xFF, 0x7, 0, 0);
	fake_set(&f, 0x23, 2, 0xFF, 0x7, 0xF0, 0x3);
	fake_set(&f, 0x23, 3, 0x1FFF, 0, 0, 0);
	fake_set(&f, 0x23, 4, 0, 0x60000F08, 0, 0);
	fake_set(&f, 0x23, 5, 0xFF, 0x3, 0x7, 0x1);
	c = decode(&f);
	UNIT_TRUE(c.l23.rdpmc_user_disable, "leaf 23H: EBX[2] RDPMC_USR_DISABLE");
	UNIT_TRUE(c.l23.acr_valid, "leaf 23H: sub-leaf 2 (ACR) valid");
	UNIT_EQ(c.l23.acr_gp_reloadable, 0xFF, "leaf 23H ACR: EAX reloadable GP");
	UNIT_EQ(c.l23.acr_fixed_reloadable, 0x7, "leaf 23H ACR: EBX reloadable fixed");
	UNIT_EQ(c.l23.acr_gp_cause, 0xF0, "leaf 23H ACR: ECX cause GP");
	UNIT_EQ(c.l23.acr_fixed_cause, 0x3, "leaf 23H ACR: EDX cause fixed");
	UNIT_TRUE(c.l23.events_valid && c.l23.events_bitmap == 0x1FFF,
		  "leaf 23H: sub-leaf 3 EAX events bitmap");
	UNIT_TRUE(c.l23.pebs_caps_valid && c.l23.pebs_caps == 0x60000F08,
		  "leaf 23H: sub-leaf 4 EBX arch-PEBS capabilities");
	UNIT_EQ(c.l23.pebs_gp, 0xFF, "leaf 23H: sub-leaf 5 EAX PEBS GP");
	UNIT_EQ(c.l23.pdist_gp, 0x3, "leaf 23H: sub-leaf 5 EBX PDIST GP");
	UNIT_EQ(c.l23.pebs_fixed, 0x7, "leaf 23H: sub-leaf 5 ECX PEBS fixed");
	UNIT_EQ(c.l23.pdist_fixed, 0x1, "leaf 23H: sub-leaf 5 EDX PDIST fixed");
	UNIT_TRUE(c.l23.arch_pebs, "leaf 23H: EAX[5:4] = 11B: arch-PEBS enumerated");
	UNIT_TRUE(!caps_arch_pebs(&c), "arch PEBS: not without PEBS_FMT = 0FH");
	c.pdcm = true;
	caps_decode_perf_capabilities(&c, 0x000F00 | PERF_CAP_PEBS_BASELINE);
	UNIT_TRUE(caps_arch_pebs(&c), "arch PEBS: PEBS_FMT = 0FH and 23H EAX[5:4]");
	NO_READ_ABOVE_MAX(&f, "leaf 23H sub-leaves");

	/* EAX = 10011B: sub-leaves 1 and 4 only (5 not): the others are not
	 * asked, arch-PEBS is incomplete, EBX[2] clear. */
	fake_set(&f, 0x23, 0, 0x13, 0x3, 0, 0);
	f.nasked = 0;
	c = decode(&f);
	UNIT_TRUE(!c.l23.rdpmc_user_disable, "leaf 23H EBX = 3: no RDPMC_USR_DISABLE");
	UNIT_TRUE(!c.l23.acr_valid && !fake_asked(&f, 0x23, 2), "leaf 23H EAX[2] = 0: no ACR");
	UNIT_TRUE(!c.l23.events_valid && !fake_asked(&f, 0x23, 3), "EAX[3] = 0: no events");
	UNIT_TRUE(c.l23.pebs_caps_valid && !c.l23.pebs_counters_valid && !fake_asked(&f, 0x23, 5),
		  "leaf 23H EAX[5] = 0: sub-leaf 5 not asked");
	UNIT_TRUE(!c.l23.arch_pebs, "leaf 23H EAX[5:4] = 01B: no arch-PEBS");
	caps_decode_perf_capabilities(&c, 0x000F00);
	UNIT_TRUE(!caps_arch_pebs(&c), "arch PEBS: PEBS_FMT = 0FH without 23H EAX[5]");
}

/* ---- Hybrid, RDT --------------------------------------------------------- */

static void test_hybrid(void)
{
	struct fake f;
	struct caps c;

	fake_intel(&f, 0x20, 0x00090672);
	fake_set(&f, 7, 0, 0, 0, 0, 1u << 15);
	fake_set(&f, 0x1A, 0, 0x20000001, 0, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.hybrid, "hybrid: CPUID.(07H,0):EDX[15]");
	UNIT_EQ(c.core_type, CORE_TYPE_ATOM, "hybrid: core type 20H (Atom)");
	UNIT_STREQ(caps_core_type_name(c.core_type), "atom", "hybrid: core type name");
	UNIT_EQ(c.native_model_id, 1, "hybrid: native model ID");

	fake_set(&f, 7, 0, 0, 0, 0, 0);
	f.nasked = 0;
	c = decode(&f);
	UNIT_TRUE(!c.hybrid && c.core_type == CORE_TYPE_NONE, "not hybrid: no core type");
	UNIT_TRUE(!fake_asked(&f, 0x1A, 0), "not hybrid: leaf 1AH not asked");
}

/* Leaf 1CH as Sapphire Rapids reports it (data/cpuid: EAX 4000000BH,
 * EBX 7, ECX 7): depths 8, 16, 32; every filter; every INFO field. Its
 * maximum basic leaf is `max`; CPUID.(07H,0):EDX[19] is `arch_lbr`. */
static struct caps decode_spr_arch_lbr(struct fake *f, uint32_t max, bool arch_lbr)
{
	fake_intel(f, max, 0x000806F8);
	if (arch_lbr)
		fake_set(f, 7, 0, 0, 0, 0, 1u << 19);
	fake_set(f, 0x1C, 0, 0x4000000B, 7, 7, 0);
	return decode(f);
}

static void test_arch_lbr(void)
{
	struct fake f;
	struct caps c;

	c = decode_spr_arch_lbr(&f, 0x20, true);
	UNIT_TRUE(c.arch_lbr.enumerated && c.arch_lbr.present, "arch LBR: 07H EDX[19], leaf 1CH");
	UNIT_EQ(c.arch_lbr.depth_mask, 0x0B, "arch LBR: depth bitmap EAX[7:0]");
	UNIT_EQ(c.arch_lbr.max_depth, 32, "arch LBR: largest depth 8 * (3 + 1)");
	UNIT_TRUE(c.arch_lbr.deep_c_reset && !c.arch_lbr.lip,
		  "arch LBR: EAX[30] set, EAX[31] clear");
	UNIT_TRUE(c.arch_lbr.cpl_filter && c.arch_lbr.branch_filter && c.arch_lbr.call_stack,
		  "arch LBR: EBX[2:0]");
	UNIT_TRUE(c.arch_lbr.mispredict && c.arch_lbr.timed && c.arch_lbr.branch_type,
		  "arch LBR: ECX[2:0]");
	UNIT_EQ(c.arch_lbr.event_logging, 0, "arch LBR: ECX[19:16] = 0, no event logging");
	UNIT_TRUE(requires_missing(&c, REQ_ARCH_LBR) == NULL, "arch LBR: REQ_ARCH_LBR holds");

	/* Leaf 1CH above the maximum: enumerated, not present, never read. */
	c = decode_spr_arch_lbr(&f, 0x1B, true);
	UNIT_TRUE(c.arch_lbr.enumerated && !c.arch_lbr.present && c.arch_lbr.max_depth == 0,
		  "arch LBR: 1CH above CPUID.0H:EAX is not read");
	UNIT_TRUE(requires_missing(&c, REQ_ARCH_LBR) != NULL, "arch LBR: REQ_ARCH_LBR missing");
	NO_READ_ABOVE_MAX(&f, "arch LBR");

	/* ECX = F0007H: ECX[19:16] = 1111B, branch counters logged for PMC0-3
	 * (Linux `cpuid28_ecx.lbr_counters`). */
	decode_spr_arch_lbr(&f, 0x20, true);
	fake_set(&f, 0x1C, 0, 0x4000000B, 7, 0xF0007, 0);
	c = decode(&f);
	UNIT_EQ(c.arch_lbr.event_logging, 0xF, "arch LBR: ECX[19:16] event logging bitmap");
	UNIT_TRUE(c.arch_lbr.branch_type, "arch LBR: ECX[2] kept beside ECX[19:16]");

	/* Without the 07H bit leaf 1CH is not asked. */
	c = decode_spr_arch_lbr(&f, 0x20, false);
	UNIT_TRUE(!c.arch_lbr.present && !fake_asked(&f, 0x1C, 0), "no arch LBR: 1CH not asked");
}

static void test_rdt(void)
{
	struct fake f;
	struct caps c;

	/* Broadwell-EP values: 0FH,0 EBX = 8FH EDX = 2; 0FH,1 EBX = 12000H
	 * (upscale), ECX = 8FH, EDX = 7; 10H,0 EBX = 2 (L3 CAT); 10H,1 EAX =
	 * 13H (CBM length 14H = 20), EBX = C0000H, ECX = 4 (CDP), EDX = 0FH. */
	fake_intel(&f, 0x14, 0x000406F1);
	fake_set(&f, 7, 0, 0, (1u << 12) | (1u << 15), 0, 0);
	fake_set(&f, 0xF, 0, 0, 0x8F, 0, 2);
	fake_set(&f, 0xF, 1, 0, 0x12000, 0x8F, 7);
	fake_set(&f, 0x10, 0, 0, 2, 0, 0);
	fake_set(&f, 0x10, 1, 0x13, 0xC0000, 4, 0xF);
	c = decode(&f);
	UNIT_TRUE(c.rdt.mon_present && c.rdt.l3.present, "rdt: L3 monitoring");
	UNIT_EQ(c.rdt.max_rmid, 0x8F, "rdt: max RMID 8FH");
	UNIT_EQ(c.rdt.l3.upscale, 0x12000, "rdt: upscale 73728");
	UNIT_EQ(c.rdt.l3.counter_width, 24, "rdt: width 24 + EAX[7:0] = 24");
	UNIT_TRUE(c.rdt.l3.occupancy && c.rdt.l3.total_bw && c.rdt.l3.local_bw,
		  "rdt: occupancy, total and local BW");
	UNIT_TRUE(c.rdt.alloc_present && c.rdt.l3_cat && !c.rdt.l2_cat && !c.rdt.mba,
		  "rdt: L3 CAT only");
	UNIT_EQ(c.rdt.l3_cbm_len, 20, "rdt: CBM length EAX[4:0] + 1 = 20");
	UNIT_EQ(c.rdt.l3_max_cos, 15, "rdt: highest COS 15");
	UNIT_TRUE(c.rdt.l3_cdp, "rdt: CDP");
	UNIT_TRUE(!fake_asked(&f, 0x10, 2) && !fake_asked(&f, 0x10, 3),
		  "rdt: L2 CAT and MBA sub-leaves not asked");

	/* Counter width offset (SPR: 0FH,1 EAX = 8 gives 32 bits; bit 8 is the
	 * overflow bit). */
	fake_set(&f, 0xF, 1, 0x108, 0xA000, 0x9F, 7);
	c = decode(&f);
	UNIT_EQ(c.rdt.l3.counter_width, 32, "rdt: width 24 + 8 = 32");
	UNIT_TRUE(c.rdt.l3.overflow_bit, "rdt: overflow bit EAX[8]");

	/* L2 CAT enumerated but its sub-leaf reads zero: no parameters. */
	fake_set(&f, 0x10, 0, 0, 4, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.rdt.l2_cat && !c.rdt.l2_params_valid, "rdt: zero L2 sub-leaf, no parameters");

	/* L3 monitoring bit clear: sub-leaf 1 is not read. */
	fake_set(&f, 0xF, 0, 0, 0x8F, 0, 0);
	f.nasked = 0;
	c = decode(&f);
	UNIT_TRUE(c.rdt.mon_present && !c.rdt.l3.present, "rdt: no L3 resource");
	UNIT_TRUE(!fake_asked(&f, 0xF, 1), "rdt: (0FH,1) not asked without EDX[1]");

	/* PQM and PQE clear: leaves 0FH and 10H are not decoded. */
	fake_set(&f, 7, 0, 0, 0, 0, 0);
	f.nasked = 0;
	c = decode(&f);
	UNIT_TRUE(!c.rdt.mon_present && !c.rdt.alloc_present, "rdt: no PQM/PQE, nothing");
	UNIT_TRUE(!fake_asked(&f, 0xF, 0) && !fake_asked(&f, 0x10, 0),
		  "rdt: 0FH and 10H not asked without PQM/PQE");
	UNIT_TRUE(requires_missing(&c, REQ_RDT_MON) != NULL, "rdt: REQ_RDT_MON missing");
}

/* Allocation's newer bits and AMD PQoS: expected values from the field
 * definitions (SDM Vol. 3B allocation enumeration, Linux core.c for
 * ECX[3] / 10H,3 ECX[0]; APM Vol. 2 Table 19-5, 19.3.3.2, 19.4.5, 19.4.6),
 * the AMD sub-leaves as the Genoa dump reads them. */
static void test_rdt_alloc(void)
{
	struct fake f;
	struct caps c;

	fake_intel(&f, 0x14, 0x000806F8);
	fake_set(&f, 7, 0, 0, 1u << 15, 0, 0);
	fake_set(&f, 0x10, 0, 0, 0xE, 0, 0);
	fake_set(&f, 0x10, 1, 0xF, 0xC000, 0xE, 0xE); /* I/O, CDP, non-contiguous */
	fake_set(&f, 0x10, 2, 0xF, 0, 0x4, 7);	      /* CDP only */
	fake_set(&f, 0x10, 3, 0x59, 0, 0x5, 7);	      /* per-thread, linear */
	c = decode(&f);
	UNIT_TRUE(c.rdt.l3_noncont && c.rdt.l3_io_alloc && c.rdt.l3_cdp,
		  "rdt alloc: L3 ECX[3] non-contiguous, ECX[1] I/O, ECX[2] CDP");
	UNIT_TRUE(!c.rdt.l2_noncont && c.rdt.l2_cdp, "rdt alloc: L2 ECX = 4: CDP only");
	UNIT_TRUE(c.rdt.mba_per_thread && c.rdt.mba_linear, "rdt alloc: MBA ECX[0], ECX[2]");
	UNIT_EQ(c.rdt.mba_max_delay, 90, "rdt alloc: MBA EAX[11:0] + 1 = 90");
	UNIT_TRUE(!c.rdt.amd.present, "rdt alloc: no 8000_0020H decode on Intel");

	fake_amd(&f, 0x10, 0x00A10F11, 0x80000020);
	fake_set(&f, 7, 0, 0, (1u << 12) | (1u << 15), 0, 0);
	fake_set(&f, 0x10, 0, 0, 2, 0, 0);
	fake_set(&f, 0x10, 1, 0xF, 0, 4, 0xF);
	fake_set(&f, 0x80000008, 0, 0, 1u << 6, 0, 0);
	fake_set(&f, 0x80000020, 0, 0, 0x1E, 0, 0);
	fake_set(&f, 0x80000020, 1, 0xB, 0, 0, 0xF);
	fake_set(&f, 0x80000020, 2, 0xB, 0, 0, 0xF);
	fake_set(&f, 0x80000020, 3, 0, 2, 0x7F, 0);
	c = decode(&f);
	UNIT_TRUE(c.rdt.amd.present && c.rdt.amd.be, "pqos: 8000_0020H and 8000_0008H:EBX[6]");
	UNIT_TRUE(c.rdt.amd.l3be && c.rdt.amd.l3smbe && c.rdt.amd.bmec && !c.rdt.amd.abmc &&
		      !c.rdt.amd.sdciae,
		  "pqos: EBX 1EH = L3BE, L3SMBE, BMEC (bit 4 not decoded)");
	UNIT_EQ(c.rdt.amd.ebx0, 0x1E, "pqos: EBX kept as read");
	UNIT_TRUE(c.rdt.amd.l3be_valid && c.rdt.amd.bw_len == 11 && c.rdt.amd.bw_max_cos == 15,
		  "pqos: (8000_0020H,1) BW_LEN 11, COS_MAX 15");
	UNIT_TRUE(c.rdt.amd.l3smbe_valid && c.rdt.amd.smbw_len == 11,
		  "pqos: (8000_0020H,2) SMBW_LEN 11");
	UNIT_TRUE(c.rdt.amd.bmec_valid && c.rdt.amd.evt_num == 2 && c.rdt.amd.evt_types == 0x7F,
		  "pqos: (8000_0020H,3) EVT_NUM 2, types 7FH");
	UNIT_TRUE(!c.rdt.amd.abmc_valid && !fake_asked(&f, 0x80000020, 5),
		  "pqos: sub-leaf 5 not asked without ABMC");

	/* L3BE enumerated, its sub-leaf missing (the Rome dump): unknown. */
	fake_set(&f, 0x80000020, 0, 0, 0x2, 0, 0);
	fake_set(&f, 0x80000020, 1, 0, 0, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.rdt.amd.l3be && !c.rdt.amd.l3be_valid, "pqos: zero sub-leaf 1, no BW_LEN");
}

/* ---- AMD ------------------------------------------------------------------ */

static void test_amd_counters(void)
{
	struct fake f;
	struct caps c;

	/* K10: no PerfCtrExtCore, four legacy counters. */
	fake_amd(&f, 6, 0x00100FA0, 0x8000001B);
	fake_set(&f, 0x80000001, 0, 0, 0, 0x37FF, 0);
	c = decode(&f);
	UNIT_EQ(c.family, 0x10, "amd K10: family 10H");
	UNIT_EQ(c.amd.core_counters, 4, "amd K10: 4 legacy counters");
	UNIT_TRUE(!c.pm.present, "amd K10: leaf 0AH above the maximum");
	NO_READ_ABOVE_MAX(&f, "amd K10");

	/* Zen 2: PerfCtrExtCore (ECX[23]) gives six. */
	fake_amd(&f, 0x10, 0x00830F10, 0x80000020);
	fake_set(&f, 0x80000001, 0, 0, 0, 0x75C237FF, 0);
	c = decode(&f);
	UNIT_TRUE(c.amd.perfctr_core && c.amd.perfctr_nb && c.amd.perfctr_llc,
		  "amd Zen2: PerfCtrExtCore, NB, LLC");
	UNIT_EQ(c.amd.core_counters, 6, "amd Zen2: 6 counters");
	UNIT_TRUE(requires_missing(&c, REQ_AMD | REQ_AMD_PERFCTR_CORE) == NULL,
		  "amd Zen2: REQ_AMD_PERFCTR_CORE holds");
	UNIT_TRUE(requires_missing(&c, REQ_AMD_PERFMON_V2) != NULL,
		  "amd Zen2: REQ_AMD_PERFMON_V2 missing");

	/* PerfMonV2 with EBX[3:0] = 5: as enumerated, not 6. */
	fake_amd(&f, 0x10, 0x00A10F11, 0x80000028);
	fake_set(&f, 0x80000001, 0, 0, 0, 1u << 23, 0);
	fake_set(&f, 0x80000022, 0, 0x7, 0x00304105, 0, 0);
	c = decode(&f);
	UNIT_TRUE(c.amd.perfmon_v2 && c.amd.lbr_stack_v2 && c.amd.lbr_pmc_freeze,
		  "amd PerfMonV2: EAX[2:0]");
	UNIT_EQ(c.amd.num_core_pmc_v2, 5, "amd PerfMonV2: EBX[3:0] = 5");
	UNIT_EQ(c.amd.lbr_v2_stack_size, 16, "amd PerfMonV2: LBR stack EBX[9:4] = 16");
	UNIT_EQ(c.amd.num_df_pmc_v2, 16, "amd PerfMonV2: DF PMCs EBX[15:10] = 16");
	UNIT_EQ(c.amd.num_umc_pmc_v2, 48, "amd PerfMonV2: UMC PMCs EBX[21:16] = 48");
	UNIT_EQ(c.amd.core_counters, 5, "amd PerfMonV2: core counters as enumerated");

	/* PerfMonV2 with EBX[3:0] = 0 enumerates nothing: PerfCtrExtCore's 6. */
	fake_set(&f, 0x80000022, 0, 0x1, 0, 0, 0);
	c = decode(&f);
	UNIT_EQ(c.amd.core_counters, 6, "amd PerfMonV2 with 0 counters: 6 from PerfCtrExtCore");

	/* An Intel CPU with ECX[23] set in 80000001H: not an AMD feature. */
	fake_intel(&f, 0x16, 0x000906EA);
	fake_set(&f, 0x80000001, 0, 0, 0, 1u << 23, 0);
	c = decode(&f);
	UNIT_TRUE(!c.amd.perfctr_core && c.amd.core_counters == 0, "intel: no AMD counters");
}

/* ---- Model-specific PMUs ------------------------------------------------ */

static void test_model_specific(void)
{
	static const struct {
		uint32_t sig;
		bool nehalem;
	} cases[] = {
	    {0x000106A5, true},	 /* 06_1AH Nehalem-EP */
	    {0x000106E5, true},	 /* 06_1EH Lynnfield */
	    {0x000106F0, true},	 /* 06_1FH */
	    {0x00020655, true},	 /* 06_25H Westmere client */
	    {0x000206C2, true},	 /* 06_2CH Westmere-EP */
	    {0x000206E6, false}, /* 06_2EH Nehalem-EX: box-based uncore */
	    {0x000206F2, false}, /* 06_2FH Westmere-EX: box-based uncore */
	    {0x000206A7, false}, /* 06_2AH Sandy Bridge */
	    {0x00000F1A, false}, /* 0F_1AH: family 0FH, not 06H */
	};
	struct fake f;
	struct caps c;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[96];

		fake_intel(&f, 0xB, cases[i].sig);
		c = decode(&f);
		snprintf(name, sizeof(name), "model-specific: signature %08X Nehalem uncore %s",
			 cases[i].sig, cases[i].nehalem ? "yes" : "no");
		UNIT_EQ(c.nehalem_uncore, cases[i].nehalem, name);
	}
	fake_amd(&f, 1, 0x000106A5, 0x80000008);
	c = decode(&f);
	UNIT_TRUE(!c.nehalem_uncore, "model-specific: AMD with an 06_1AH-like signature");
	fake_amd(&f, 1, 0x00000F48, 0x80000008);
	c = decode(&f);
	UNIT_TRUE(!c.netburst, "model-specific: AMD family 0FH is not NetBurst");
}

/* ---- IA32_PERF_CAPABILITIES and requirements ------------------------------ */

static void test_perf_capabilities(void)
{
	struct fake f;
	struct caps c;

	/* B3C5H: LBR format 5 (bits 5:0), PEBS trap (6), arch regs (7), PEBS
	 * format 3 (11:8), freeze while SMM (12), FW_WRITE (13), no baseline
	 * (14), perf metrics (15). */
	fake_intel(&f, 0x1B, 0x000706E5);
	fake_set(&f, 1, 0, 0x000706E5, 0, 1u << 15, 0);
	c = decode(&f);
	UNIT_TRUE(!c.perf_cap.valid, "perf caps: not valid before decoding a value");
	UNIT_TRUE(requires_missing(&c, REQ_FW_WRITE) != NULL, "perf caps: FW_WRITE missing");
	caps_decode_perf_capabilities(&c, 0xB3C5);
	UNIT_EQ(c.perf_cap.lbr_format, 5, "perf caps: LBR format 5");
	UNIT_TRUE(c.perf_cap.pebs_trap && c.perf_cap.pebs_arch_reg, "perf caps: PEBS trap, regs");
	UNIT_EQ(c.perf_cap.pebs_format, 3, "perf caps: PEBS format 3");
	UNIT_TRUE(c.perf_cap.freeze_while_smm, "perf caps: freeze while SMM");
	UNIT_TRUE(c.perf_cap.full_width_write, "perf caps: full-width write");
	UNIT_TRUE(!c.perf_cap.pebs_baseline, "perf caps: no PEBS baseline");
	UNIT_TRUE(c.perf_cap.perf_metrics, "perf caps: perf metrics");
	UNIT_TRUE(requires_missing(&c, REQ_PDCM | REQ_FW_WRITE | REQ_PERF_METRICS) == NULL,
		  "perf caps: PDCM, FW_WRITE, PERF_METRICS hold");
	UNIT_TRUE(!c.perf_cap.pebs_timing_info && !c.perf_cap.rdpmc_metrics_clear &&
		      !c.perf_cap.arch_pebs_format && c.perf_cap.undefined_bits == 0,
		  "perf caps B3C5H: nothing above bit 16");

	/* The fields Linux names above bit 16 (`union perf_capabilities`):
	 * 17 PEBS_TIMING_INFO, 18 unnamed, 19 RDPMC_METRICS_CLEAR. 0AF5C5H =
	 * bits 19, 17, 15, 14, 12, 10, 8, 7, 6, 2, 0: PEBS format 5, LBR 5. */
	caps_decode_perf_capabilities(&c, 0x0AF5C5);
	UNIT_TRUE(c.perf_cap.pebs_timing_info, "perf caps: bit 17 timed PEBS");
	UNIT_TRUE(c.perf_cap.rdpmc_metrics_clear, "perf caps: bit 19 RDPMC metrics clear");
	UNIT_EQ(c.perf_cap.pebs_format, 5, "perf caps: PEBS format 5");
	UNIT_TRUE(!c.perf_cap.pebs_output_pt, "perf caps: bit 16 clear");
	UNIT_EQ(c.perf_cap.undefined_bits, 0, "perf caps 0AF5C5H: no undefined bit");
	/* Bit 18, bit 20 and bit 63: undefined, kept as such. */
	caps_decode_perf_capabilities(&c, BIT_ULL(63) | BIT_ULL(20) | BIT_ULL(18) | 0x0F00);
	UNIT_EQ(c.perf_cap.undefined_bits, BIT_ULL(63) | BIT_ULL(20) | BIT_ULL(18),
		"perf caps: bits 18, 20, 63 undefined");
	UNIT_TRUE(c.perf_cap.arch_pebs_format && c.perf_cap.pebs_format == 0xF,
		  "perf caps: PEBS_FMT 0FH = architectural PEBS");
}

static void test_requires(void)
{
	struct fake f;
	struct caps c;
	const char *why;

	/* Penryn: v2, 2 GP, 3 fixed. */
	fake_intel(&f, 0xA, 0x00010676);
	fake_set(&f, 0xA, 0, 0x07280202, 0, 0, 0x503);
	c = decode(&f);
	UNIT_TRUE(requires_missing(&c, REQ_INTEL | REQ_ARCH_PMU | REQ_ARCH_PMU_V2 | REQ_FIXED) ==
		      NULL,
		  "requires: v2 CPU has INTEL, ARCH_PMU, V2, FIXED");
	why = requires_missing(&c, REQ_ARCH_PMU_V2 | REQ_ARCH_PMU_V3);
	UNIT_STREQ(why, "CPUID.0AH:EAX[7:0] >= 3 (architectural PMU version 3)",
		   "requires: v2 CPU misses V3, named by its CPUID field");
	why = requires_missing(&c, REQ_AMD);
	UNIT_TRUE(why && strstr(why, "AuthenticAMD"), "requires: AMD missing on Intel");
	why = requires_missing(&c, REQ_PDCM);
	UNIT_TRUE(why && strstr(why, "PDCM[15]"), "requires: PDCM names CPUID.01H:ECX[15]");
	why = requires_missing(&c, REQ_NO_ARCH_PMU);
	UNIT_TRUE(why != NULL, "requires: NO_ARCH_PMU missing on a CPU with a PMU");
	UNIT_TRUE(requires_missing(&c, REQ_NONE) == NULL, "requires: REQ_NONE always holds");
	UNIT_TRUE(requires_missing(&c, BIT_ULL(REQ_COUNT)) != NULL,
		  "requires: an undefined bit is never satisfied");
	/* Table 20-1: the _Static_assert checks the length, this the rows. */
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++)
		UNIT_TRUE(caps_arch_events[i].name && caps_arch_events[i].key &&
			      caps_arch_events[i].event,
			  "caps_arch_events: a row per event, none left empty");
	for (unsigned i = 0; i < REQ_COUNT; i++) {
		char name[80];

		why = requires_missing(&(struct caps){0}, BIT_ULL(i));
		snprintf(name, sizeof(name), "requires: bit %u has a text on an empty record", i);
		/* An all-zero record: only NO_ARCH_PMU holds. */
		if (i == REQ_NO_ARCH_PMU_BIT)
			UNIT_TRUE(why == NULL, name);
		else
			UNIT_TRUE(why && strlen(why) > 10, name);
	}
}

/* ---- The report --------------------------------------------------------- */

static char captured[16384];
static size_t captured_len;

static void capture_sink(void *ctx, const char *s, size_t n)
{
	if (captured_len + n < sizeof(captured)) {
		memcpy(captured + captured_len, s, n);
		captured_len += n;
		captured[captured_len] = '\0';
	}
}

struct ktap_writer g_ktap = {.sink = capture_sink};

static void test_report(void)
{
	struct fake f;
	struct caps c;

	fake_intel(&f, 0x20, 0x000806F8);
	fake_set(&f, 0xA, 0, 0x08300805, 0, 0xF, 0x8604);
	c = decode(&f);
	captured_len = 0;
	captured[0] = '\0';
	caps_report(&c);
	UNIT_TRUE(strstr(captured, "# caps: vendor GenuineIntel (Intel), DisplayFamily 06H "
				   "DisplayModel 8FH stepping 8"),
		  "report: identity line");
	UNIT_TRUE(strstr(captured, "# caps: architectural PMU version 5: 8 GP counters x 48 bits"),
		  "report: PMU line");
	UNIT_TRUE(strstr(captured, "fixed counters {0,1,2,3} x 48 bits"), "report: fixed counters");
	UNIT_TRUE(strstr(captured, "available: core_cycles instructions"), "report: events");

	fake_set(&f, 0xA, 0, 0, 0, 0, 0);
	c = decode(&f);
	captured_len = 0;
	caps_report(&c);
	UNIT_TRUE(strstr(captured, "# caps: no architectural PMU (CPUID.0AH:EAX[7:0] = 0)"),
		  "report: zeroed leaf 0AH");
	for (const char *p = captured; *p; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "# ", 2)) {
			UNIT_TRUE(false, "report: every line is a KTAP diagnostic");
			break;
		}
		if (!strchr(p, '\n'))
			break;
	}
}

/* ---- The dump reader ---------------------------------------------------- */

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	strcpy(path, "/tmp/test_caps_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		perror("mkstemp");
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

static int load_text(struct cpuid_dump *d, const char *text, char *err, size_t errlen)
{
	const char *p = write_tmp(text);
	int rc = cpuid_dump_load(d, p, err, errlen);

	unlink(p);
	return rc;
}

static void test_dump_reader(void)
{
	struct cpuid_dump d;
	struct cpuid_regs r;
	char err[256];
	int rc;

	rc = load_text(&d,
		       "CPU 0:\n"
		       "   0x00000000 0x00: eax=0x0000000a ebx=0x756e6547 ecx=0x6c65746e "
		       "edx=0x49656e69\n"
		       /* Every leaf up to the maximum (04H may be absent). */
		       "   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000002 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000003 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000005 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000006 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000008 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000009 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x0000000a 0x00: eax=0x07280202 ebx=0x00000000 ecx=0x00000000 "
		       "edx=0x00000503\r\n"
		       "\n"
		       "CPU 1:\n"
		       "   0x00000000 0x00: eax=0x0000000b ebx=0x756e6547 ecx=0x6c65746e "
		       "edx=0x49656e69\n"
		       "   0x00000004 0x02: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4\n"
		       "   0x00000005: eax=0x00000040 ebx=0x00000040 ecx=0x00000003 "
		       "edx=0x00000000\n"
		       "   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000002 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000003 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000006 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000008 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000009 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x0000000a 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n",
		       err, sizeof(err));
	UNIT_EQ(rc, 0, "dump: two CPUs, CRLF, old format parse");
	if (rc)
		printf("#   %s\n", err);
	UNIT_EQ(cpuid_dump_cpu_count(&d), 2, "dump: 2 CPUs");
	UNIT_TRUE(cpuid_dump_lookup(&d, 1, 4, 2, &r) && r.eax == 1 && r.edx == 4,
		  "dump: CPU 1 leaf 4 sub-leaf 2");
	UNIT_TRUE(cpuid_dump_lookup(&d, 1, 5, 0, &r) && r.ecx == 3,
		  "dump: line without a sub-leaf is sub-leaf 0");
	UNIT_TRUE(cpuid_dump_lookup(&d, 0, 0xA, 0, &r) && r.edx == 0x503, "dump: CRLF line");
	UNIT_TRUE(!cpuid_dump_lookup(&d, 0, 0xB, 0, &r) && !r.eax && !r.ebx && !r.ecx && !r.edx,
		  "dump: absent leaf is false and zeros");
	UNIT_TRUE(!cpuid_dump_lookup(&d, 2, 0, 0, &r), "dump: absent CPU is false");
	UNIT_TRUE(!cpuid_dump_has_cpu(&d, 2) && cpuid_dump_has_cpu(&d, 1), "dump: has_cpu");
	{
		struct cpuid_dump_source src = {&d, 1};
		struct caps c;

		caps_decode(&c, cpuid_dump_source_fn, &src);
		UNIT_EQ(c.max_basic_leaf, 0xB, "dump: decode through the source of CPU 1");
	}
	cpuid_dump_free(&d);

	rc = load_text(&d, "CPU:\n   0x00000000 0x00: eax=0x00000001 ebx=0 ecx=0 edx=0\n", err,
		       sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, ":2:"), "dump: register without 0x is an error at line 2");

	rc = load_text(&d,
		       "CPU:\n   0x00000000 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000001 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n",
		       err, sizeof(err));
	UNIT_TRUE(rc == 0 && cpuid_dump_has_cpu(&d, 0), "dump: \"CPU:\" is CPU 0");
	cpuid_dump_free(&d);

	rc = load_text(&d,
		       "CPU 0:\n   0x00000000 0x00: eax=0xa ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x00000001 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n",
		       err, sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "lacks leaf 0x2"),
		  "dump: a dump cut below its maximum leaf is an error");
	/* The leaves of a pmutest report (CPUID_DUMP_SPARSE_MARK):
	 * the gaps are unknown leaves, not a cut dump. */
	rc = load_text(&d,
		       CPUID_DUMP_SPARSE_MARK
		       ": the leaves of r.ktap\n"
		       "CPU 0:\n   0x00000000 0x00: eax=0xa ebx=0x0 ecx=0x0 edx=0x0\n"
		       "   0x0000000a 0x00: eax=0x5 ebx=0x0 ecx=0x0 edx=0x0\n",
		       err, sizeof(err));
	UNIT_TRUE(rc == 0 && cpuid_dump_lookup(&d, 0, 0xA, 0, &r) && r.eax == 5 &&
		      !cpuid_dump_lookup(&d, 0, 0x2, 0, &r),
		  "dump: a pmutest report's leaves load with their gaps unknown");
	if (rc == 0)
		cpuid_dump_free(&d);
	rc = load_text(
	    &d, "# not the mark\nCPU 0:\n   0x00000000 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n",
	    err, sizeof(err));
	UNIT_TRUE(rc != 0, "dump: any other '#' line is still an error");
	rc = load_text(&d, "CPU 0:\n   0x00000001 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n", err,
		       sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "no leaf 0"), "dump: a dump without leaf 0 is an error");
	cpuid_dump_free(&d);

	rc = load_text(&d, "   0x00000000 0x00: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\nhello\n", err,
		       sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, ":2:") && strstr(err, "hello"),
		  "dump: garbage line names its line and text");

	rc = load_text(&d, "", err, sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "no CPUID register lines"), "dump: empty file");

	rc = load_text(&d,
		       "CPU 0:\n 0x1 0x0: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\n"
		       " 0x1 0x0: eax=0x2 ebx=0x0 ecx=0x0 edx=0x0\n",
		       err, sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "twice"), "dump: conflicting duplicate leaf");

	rc = load_text(&d, "CPU 0:\n 0x1 0x0: eax=0x1 ebx=0x0 ecx=0x0 edx=0x0\nCPU 0:\n", err,
		       sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "CPU 0 appears twice"), "dump: repeated CPU number");

	rc = load_text(&d, " 0x1 0x0: eax=0x123456789 ebx=0x0 ecx=0x0 edx=0x0\n", err, sizeof(err));
	UNIT_TRUE(rc != 0, "dump: a register wider than 32 bits is an error");

	rc = cpuid_dump_load(&d, "/nonexistent/dump.txt", err, sizeof(err));
	UNIT_TRUE(rc != 0 && strstr(err, "/nonexistent/dump.txt"), "dump: missing file");
}

/* ---- the readings that keep real CPUs from false verdicts -------- */

/* The row that excuses a failed check of "suite.test" with that subject and
 * outcome on a host kernel (HOST_KERNEL(), 0 unknown). */
static const struct known_deviation *known_match_at(const struct caps *c, const char *suite,
						    const char *test, const char *rule,
						    const struct check_subject *s,
						    const struct check_outcome *o, uint32_t host)
{
	struct known_failure f = {suite, test, rule, s, o, host};

	return known_match(c, &f).row;
}

static void test_verdict_rules(void)
{
	struct fake f;
	struct caps c;
	char why[160];

	/* PERFEVTSEL bits 63:32: IN_TX with HLE/RTM, IN_TXCP on counter 2 only,
	 * Adaptive_Record with PEBS_BASELINE, nothing else. */
	fake_intel(&f, 0xA, 0x000506E3);
	fake_set(&f, 1, 0, 0x000506E3, 0, 1u << 15, 0);
	fake_set(&f, 7, 0, 0, (1u << 4) | (1u << 11), 0, 0);
	fake_set(&f, 0xA, 0, 0x08300404, 0, 0, 0x8603);
	c = decode(&f);
	UNIT_EQ(caps_evtsel_high_reserved(&c, 0), GENMASK_ULL(63, 33),
		"RTM/HLE: IN_TX defined on PERFEVTSEL0, IN_TXCP reserved there");
	UNIT_EQ(caps_evtsel_high_reserved(&c, 2), GENMASK_ULL(63, 34),
		"RTM/HLE: IN_TX and IN_TXCP defined on PERFEVTSEL2");
	caps_decode_perf_capabilities(&c, PERF_CAP_PEBS_BASELINE);
	UNIT_EQ(caps_evtsel_high_reserved(&c, 0), GENMASK_ULL(63, 35) | BIT_ULL(33),
		"PEBS_BASELINE: Adaptive_Record (34) defined");
	UNIT_EQ(caps_absurd(&c, why, sizeof(why)) == NULL, 1, "a Skylake CPUID is not absurd");

	/* Absurd: GP width 0, more than 32 GP counters. */
	fake_set(&f, 0xA, 0, 0x07000405, 0, 0, 0x8603);
	c = decode(&f);
	UNIT_EQ(caps_absurd(&c, why, sizeof(why)) != NULL, 1, "GP width 0 is refused");
	fake_set(&f, 0xA, 0, 0x0730FF05, 0, 0, 0x8603);
	c = decode(&f);
	UNIT_EQ(caps_absurd(&c, why, sizeof(why)) != NULL, 1, "255 GP counters are refused");

	/* The known-deviations table: Core 2 Conroe's v2 without fixed counters
	 * on bare metal, not under a hypervisor, not another rule or model. */
	const struct known_deviation *k = known_at(0);
	UNIT_EQ(k != NULL && known_count() >= 1, 1, "the table has its Core 2 entry");
	fake_intel(&f, 0xA, 0x000006F6);
	fake_set(&f, 0xA, 0, 0x07280202, 0, 0, 0);
	c = decode(&f);
	struct check_subject cpuid_a = {SUBJECT_CPUID, 0xA, 0};
	struct check_outcome zero = {OUTCOME_ZERO, 0};
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah_fields", k->checks[0].rule, &cpuid_a, &zero,
			       0) == k,
		1, "Core 2 6F6H bare metal: the entry matches");
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah_fields", "another rule", &cpuid_a, &zero,
			       0) == NULL,
		1, "another rule of the same test: no match");
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah", k->checks[0].rule, &cpuid_a, &zero, 0) ==
		    NULL,
		1, "another test: no match");
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah_fields", k->checks[0].rule, NULL, &zero, 0) ==
		    NULL,
		1, "no subject given: no match");
	c.hypervisor = true;
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah_fields", k->checks[0].rule, &cpuid_a, &zero,
			       0) == NULL,
		1, "the same CPUID under a hypervisor: no match");
	fake_intel(&f, 0xA, 0x00010676);
	c = decode(&f);
	UNIT_EQ(known_match_at(&c, "cpuid", "leaf_0ah_fields", k->checks[0].rule, &cpuid_a, &zero,
			       0) == NULL,
		1, "Penryn (model 17H): no match");
}

/* A row of the known-deviations table by id. */
static const struct known_deviation *known_row(const char *id)
{
	for (unsigned i = 0; i < known_count(); i++)
		if (!strcmp(known_at(i)->id, id))
			return known_at(i);
	return NULL;
}

/* The failure check j of row k describes: its first subject, its first
 * outcome class (its bits for OUTCOME_BITS). */
static void row_failure(const struct known_check *kc, struct check_subject *s,
			struct check_outcome *o)
{
	*s = (struct check_subject){kc->subject, kc->lo, kc->counter_lo};
	*o = (struct check_outcome){OUTCOME_NONE, 0};
	for (unsigned cls = 0; cls < OUTCOME_CLASS_COUNT && o->cls == OUTCOME_NONE; cls++)
		if (kc->outcomes & OUTCOME_BIT(cls))
			*o = (struct check_outcome){(enum outcome_class)cls, kc->bits};
}

/* Whether row id's first check, failing as the row describes it on a CPU
 * with caps c and a host kernel in the row's range, is matched by that row. */
static bool known_hits(const struct caps *c, const char *id)
{
	const struct known_deviation *k = known_row(id);
	struct check_subject s;
	struct check_outcome o;
	char suite[64];

	if (!k || !k->n_checks)
		return false;
	const char *dot = strchr(k->checks[0].test, '.');
	snprintf(suite, sizeof(suite), "%.*s", (int)(dot - k->checks[0].test), k->checks[0].test);
	row_failure(&k->checks[0], &s, &o);
	return known_match_at(c, suite, dot + 1, k->checks[0].rule, &s, &o,
			      k->host_min ? k->host_min : HOST_KERNEL(1, 0, 0)) == k;
}

static struct caps known_cpu(enum cpu_vendor v, unsigned family, unsigned model, unsigned stepping)
{
	struct caps c;

	memset(&c, 0, sizeof(c));
	c.vendor = v;
	c.family = family;
	c.model = model;
	c.stepping = stepping;
	return c;
}

/* The rows match exactly their sources' ranges: model and stepping, family,
 * hybrid core type, the CPUID bits a microcode update changes, the L3, and
 * the platform. */
static void test_known_rows(void)
{
	for (unsigned i = 0; i < known_count(); i++) {
		const struct known_deviation *k = known_at(i);
		char what[96];

		snprintf(what, sizeof(what), "row %s: checks, models, what, source", k->id);
		UNIT_TRUE(k->n_checks >= 1 && k->checks && (k->models || !k->n_models) &&
			      k->source && *k->source && k->what && *k->what,
			  what);
		for (unsigned j = 0; j < i; j++) {
			snprintf(what, sizeof(what), "row %s: its id is unique", k->id);
			UNIT_TRUE(strcmp(known_at(j)->id, k->id) != 0, what);
		}
	}
	UNIT_TRUE(known_count() >= 20, "the table has at least 20 rows");

	/* Core 2: the row is for the parts that enumerate no fixed counter. */
	struct caps c2 = known_cpu(VENDOR_INTEL, 6, 0x0F, 6);
	c2.pm.present = true;
	c2.pm.version = 2;
	UNIT_TRUE(known_hits(&c2, "core2-v2-no-fixed-enumerated"), "6F6H with EDX = 0: matches");
	c2.pm.fixed_supported = 7;
	UNIT_TRUE(!known_hits(&c2, "core2-v2-no-fixed-enumerated"),
		  "6FBH enumerating 3 fixed counters: no match");

	/* Hybrid: the P-core of an Alder Lake, not its E-core. */
	struct caps c = known_cpu(VENDOR_INTEL, 6, 0x97, 2);
	c.hybrid = true;
	c.core_type = CORE_TYPE_CORE;
	UNIT_TRUE(known_hits(&c, "adl-rpl-pcore-counters-beyond-cpuid"), "ADL P-core: matches");
	UNIT_TRUE(known_hits(&c, "adl-rpl-pcore-perf-metrics-unenumerated"),
		  "ADL P-core: PERF_METRICS row matches");
	c.core_type = CORE_TYPE_ATOM;
	UNIT_TRUE(!known_hits(&c, "adl-rpl-pcore-counters-beyond-cpuid"), "ADL E-core: no match");
	c.core_type = CORE_TYPE_CORE;
	c.hybrid = false;
	UNIT_TRUE(!known_hits(&c, "adl-rpl-pcore-counters-beyond-cpuid"),
		  "06_97H without the hybrid bit: no match");
	c.hybrid = true;
	c.hypervisor = true;
	UNIT_TRUE(!known_hits(&c, "adl-rpl-pcore-counters-beyond-cpuid"),
		  "ADL P-core under a hypervisor: no match");
	c = known_cpu(VENDOR_INTEL, 6, 0xAA, 4); /* Meteor Lake: not in the Linux case */
	c.hybrid = true;
	c.core_type = CORE_TYPE_CORE;
	UNIT_TRUE(!known_hits(&c, "adl-rpl-pcore-counters-beyond-cpuid"), "06_AAH: no match");
	UNIT_TRUE(known_hits(&c, "ref-tsc-overflow-sticky-pcore"), "06_AAH P-core: REF_TSC row");

	/* Families in the model list: 18_01H is not 06_01H. */
	c = known_cpu(VENDOR_INTEL, 0x18, 0x01, 0);
	c.hybrid = true;
	c.core_type = CORE_TYPE_CORE;
	UNIT_TRUE(known_hits(&c, "ref-tsc-overflow-sticky-pcore"), "18_01H P-core: matches");
	c.family = 6;
	UNIT_TRUE(!known_hits(&c, "ref-tsc-overflow-sticky-pcore"), "06_01H: no match");

	/* The TSX microcode: TSX_FORCE_ABORT = 1 and RTM_ALWAYS_ABORT = 0. */
	c = known_cpu(VENDOR_INTEL, 6, 0x5E, 3);
	c.tsx_force_abort = true;
	UNIT_TRUE(known_hits(&c, "skl-tsx-force-abort-pmc3"), "Skylake with TFA: matches");
	c.rtm_always_abort = true;
	UNIT_TRUE(!known_hits(&c, "skl-tsx-force-abort-pmc3"), "RTM_ALWAYS_ABORT: no match");
	c.rtm_always_abort = c.tsx_force_abort = false;
	UNIT_TRUE(!known_hits(&c, "skl-tsx-force-abort-pmc3"), "no TSX_FORCE_ABORT: no match");
	c = known_cpu(VENDOR_INTEL, 6, 0x6A, 6);
	c.tsx_force_abort = true;
	UNIT_TRUE(!known_hits(&c, "skl-tsx-force-abort-pmc3"), "Ice Lake SP: no match");

	/* Stepping ranges: ZXC is 06_0FH stepping E-F (Nano below), 06_19H 0-3. */
	c = known_cpu(VENDOR_CENTAUR, 6, 0x0F, 0xE);
	UNIT_TRUE(known_hits(&c, "zxc-ovf-clear-needs-global-enable"), "CentaurHauls 6FEH: ZXC");
	c.stepping = 0xD;
	UNIT_TRUE(!known_hits(&c, "zxc-ovf-clear-needs-global-enable"), "6FDH (Nano): no match");
	c = known_cpu(VENDOR_ZHAOXIN, 6, 0x19, 3);
	UNIT_TRUE(known_hits(&c, "zxc-ovf-clear-needs-global-enable"), "Shanghai 6193H: ZXC");
	c.stepping = 4;
	UNIT_TRUE(!known_hits(&c, "zxc-ovf-clear-needs-global-enable"), "6194H: no match");
	c = known_cpu(VENDOR_INTEL, 6, 0x1C, 2);
	UNIT_TRUE(known_hits(&c, "atom-bonnell-lbr-no-freeze"), "Atom 106C2H: matches");
	c.stepping = 0xA;
	UNIT_TRUE(!known_hits(&c, "atom-bonnell-lbr-no-freeze"), "Atom 106CAH: no match");

	/* The L3 of a NetBurst Xeon. */
	c = known_cpu(VENDOR_INTEL, 0xF, 0x6, 8);
	c.l3_cache = true;
	UNIT_TRUE(known_hits(&c, "p4-xeon-l3-rdpmc-18-25"), "Xeon 7100 with L3: matches");
	c.l3_cache = false;
	UNIT_TRUE(!known_hits(&c, "p4-xeon-l3-rdpmc-18-25"), "0F_06H without L3: no match");

	/* Platforms: a KVM row needs the KVM signature. */
	c = known_cpu(VENDOR_INTEL, 6, 0x8F, 8);
	UNIT_TRUE(!known_hits(&c, "kvm-vmware-backdoor-pmcs"), "bare metal: no KVM row");
	c.hypervisor = true;
	snprintf(c.hypervisor_vendor, sizeof(c.hypervisor_vendor), "VMwareVMware");
	UNIT_TRUE(!known_hits(&c, "kvm-vmware-backdoor-pmcs"), "VMware: no KVM row");
	snprintf(c.hypervisor_vendor, sizeof(c.hypervisor_vendor), "KVMKVMKVM");
	UNIT_TRUE(known_hits(&c, "kvm-vmware-backdoor-pmcs"), "KVM: the backdoor row matches");
	c.vendor = VENDOR_AMD;
	UNIT_TRUE(!known_hits(&c, "kvm-vmware-backdoor-pmcs"), "KVM on AMD: not the Intel row");
	UNIT_TRUE(known_hits(&c, "kvm-amd-reserved-bits-dropped"), "KVM on AMD: the AMD row");

	/* CPUID.02H: an L3 descriptor (4DH) on a Xeon 7100, none on a Dempsey. */
	struct fake f;
	fake_intel(&f, 2, 0x00000F68);
	fake_set(&f, 2, 0, 0x605B5001, 0, 0, 0x007C704D);
	c = decode(&f);
	UNIT_TRUE(c.l3_cache, "CPUID.02H descriptor 4DH: an L3");
	fake_intel(&f, 2, 0x00000F64);
	fake_set(&f, 2, 0, 0x605B5001, 0, 0, 0x007D7040);
	c = decode(&f);
	UNIT_TRUE(!c.l3_cache, "CPUID.02H without an L3 descriptor: none");
}

/* A row excuses the deviation its source describes, not the rule: the
 * subject, the outcome, the reserved bits, the host's kernel. */
static void test_known_observed(void)
{
	struct caps c = known_cpu(VENDOR_INTEL, 0xF, 0x06, 8);
	c.l3_cache = true;
	const char *r = known_row("p4-xeon-l3-rdpmc-18-25")->checks[0].rule;
	struct check_subject ecx18 = {SUBJECT_RDPMC, 18, 0}, ecx26 = {SUBJECT_RDPMC, 26, 0};
	struct check_outcome reads = {OUTCOME_NO_FAULT, 0}, ud = {OUTCOME_UD, 0};

	UNIT_TRUE(known_match_at(&c, "rdpmc", "nonarch_index_and_fast_read", r, &ecx18, &reads,
				 0) != NULL,
		  "Xeon 7100: RDPMC 18 reading is the row's");
	UNIT_TRUE(known_match_at(&c, "rdpmc", "nonarch_index_and_fast_read", r, &ecx18, &ud, 0) ==
		      NULL,
		  "Xeon 7100: RDPMC 18 raising #UD is not");
	UNIT_TRUE(known_match_at(&c, "rdpmc", "nonarch_index_and_fast_read", r, &ecx26, &reads,
				 0) == NULL,
		  "Xeon 7100: RDPMC 26 reading is not");

	/* Reserved bits: within the rows' bits only; two rows may add up. */
	c = known_cpu(VENDOR_INTEL, 6, 0x97, 2);
	c.hybrid = true;
	c.core_type = CORE_TYPE_CORE;
	r = RULE_GLOBAL_CTRL_RSVD;
	struct check_subject ctrl = {SUBJECT_MSR, 0x38F, 0};
	struct check_outcome b6_7_35 = {OUTCOME_BITS, 0x8000000C0ULL},
			     b_all = {OUTCOME_BITS, 0x10008000000C0ULL},
			     b62 = {OUTCOME_BITS, 0x40000000000000C0ULL};
	UNIT_TRUE(known_match_at(&c, "global", "reserved_bits_fault", r, &ctrl, &b6_7_35, 0) !=
		      NULL,
		  "ADL P-core: GLOBAL_CTRL bits 6, 7, 35 accepted");
	UNIT_TRUE(known_match_at(&c, "global", "reserved_bits_fault", r, &ctrl, &b_all, 0) != NULL,
		  "ADL P-core: bits 6, 7, 35 and 48: the two rows name them all");
	UNIT_TRUE(known_match_at(&c, "global", "reserved_bits_fault", r, &ctrl, &b62, 0) == NULL,
		  "ADL P-core: bit 62 too: no row names it");

	/* KVM with a host range: inside, outside, unknown. */
	c = known_cpu(VENDOR_INTEL, 6, 0x8E, 10);
	c.hypervisor = true;
	snprintf(c.hypervisor_vendor, sizeof(c.hypervisor_vendor), "KVMKVMKVM");
	r = RULE_PMI_LVT_MASK_SET;
	struct check_subject lvt = {SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0};
	struct check_outcome zero = {OUTCOME_ZERO, 0};
	struct known_failure f = {
	    "pmi", "gp_overflow_delivers_one_pmi", r, &lvt, &zero, HOST_KERNEL(6, 5, 9)};
	UNIT_TRUE(known_match(&c, &f).row != NULL, "LVTPC unmasked on a 6.5.9 host: known");
	f.host_kernel = HOST_KERNEL(6, 6, 0);
	struct known_verdict v = known_match(&c, &f);
	UNIT_TRUE(v.row == NULL && v.host_row && !v.host_unknown, "on a 6.6.0 host: not excused");
	f.host_kernel = HOST_KERNEL_UNKNOWN;
	v = known_match(&c, &f);
	UNIT_TRUE(v.row == NULL && v.host_row && v.host_unknown,
		  "host version unknown: not excused, and said so");
}

int main(void)
{
	test_signature();
	test_leaf1_bits();
	test_max_leaf_gating();
	test_ebx_vector_short();
	test_fixed_counters();
	test_zeroed_leaf_0a_under_hypervisor();
	test_leaf23();
	test_leaf23_subleaves();
	test_hybrid();
	test_arch_lbr();
	test_rdt();
	test_rdt_alloc();
	test_amd_counters();
	test_model_specific();
	test_perf_capabilities();
	test_requires();
	test_report();
	test_dump_reader();
	test_verdict_rules();
	test_known_rows();
	test_known_observed();
	return unit_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * The capability decoder: CPUID register values in, one struct caps out.
 *
 * Pure C, no hardware: the values come from a callback (the machine's CPUID
 * in the kernel, a `cpuid -r` dump in pmucaps and the simulator), so one copy
 * serves all three. Every field follows the SDM (Vol. 2A "CPUID", Vol. 3B
 * chapters 17 and 20) or, for AMD and Hygon, the AMD64 APM Vol. 3 Appendix E.
 *
 * One rule above all: no leaf is read above the maximum the CPU reports for
 * its range (CPUID.0H:EAX for basic leaves, CPUID.80000000H:EAX for extended
 * ones). Intel returns the data of the highest basic leaf for a leaf above
 * the maximum (SDM Vol. 2A CPUID, "If a value entered for CPUID.EAX is higher
 * than the maximum input value ... the data for the highest basic information
 * leaf is returned"), and so does QEMU/TCG: such data would be decoded as
 * PMU capabilities that do not exist. read_leaf() is the only way in.
 */
#include "caps.h"
#include "kstring.h"
#include "ktap.h" /* ksnprintf */

#define LEAF_VENDOR	       0x00000000U
#define LEAF_FEATURES	       0x00000001U
#define LEAF_CACHE_DESCRIPTORS 0x00000002U
#define LEAF_EXT_FEATURES      0x00000007U
#define LEAF_ARCH_PERFMON      0x0000000AU
#define LEAF_RDT_MON	       0x0000000FU
#define LEAF_RDT_ALLOC	       0x00000010U
#define LEAF_HYBRID	       0x0000001AU
#define LEAF_ARCH_LBR	       0x0000001CU
#define LEAF_ARCH_PERFMON_EXT  0x00000023U
#define LEAF_HV_BASE	       0x40000000U
#define LEAF_HV_LIMIT	       0x4FFFFFFFU
#define LEAF_EXT_BASE	       0x80000000U
#define LEAF_EXT_FEATURES_AMD  0x80000001U
#define LEAF_EXT_PERFMON_AMD   0x80000022U

/* CPUID.01H, SDM Vol. 2A Table 3-8 (signature) and Tables 3-10/3-11. */
#define SIG_STEPPING	  GENMASK_ULL(3, 0)
#define SIG_MODEL	  GENMASK_ULL(7, 4)
#define SIG_FAMILY	  GENMASK_ULL(11, 8)
#define SIG_EXT_MODEL	  GENMASK_ULL(19, 16)
#define SIG_EXT_FAMILY	  GENMASK_ULL(27, 20)
#define F1_ECX_PDCM	  BIT_ULL(15)
#define F1_ECX_X2APIC	  BIT_ULL(21)
#define F1_ECX_HYPERVISOR BIT_ULL(31) /* reserved on hardware, set by VMMs */
#define F1_EDX_TSC	  BIT_ULL(4)
#define F1_EDX_MSR	  BIT_ULL(5)
#define F1_EDX_APIC	  BIT_ULL(9)
#define F1_EDX_DS	  BIT_ULL(21)
#define F1_EDX_CLFSH	  BIT_ULL(19)

/* CPUID.(07H,0), SDM Vol. 2A Table 3-8. */
#define F7_EBX_HLE		  BIT_ULL(4)
#define F7_EBX_RTM		  BIT_ULL(11)
#define F7_EBX_PQM		  BIT_ULL(12) /* RDT monitoring */
#define F7_EBX_PQE		  BIT_ULL(15) /* RDT allocation */
#define F7_EDX_RTM_ALWAYS_ABORT	  BIT_ULL(11)
#define F7_EDX_TSX_FORCE_ABORT	  BIT_ULL(13)
#define F7_EDX_HYBRID		  BIT_ULL(15)
#define F7_EDX_ARCH_LBR		  BIT_ULL(19)
#define F7_EAX_MAX_SUBLEAF	  GENMASK_ULL(31, 0)
#define F7_1_EAX_ARCH_PERFMON_EXT BIT_ULL(8) /* leaf 23H is valid */

/* CPUID.0AH, SDM Vol. 2A Table 3-8 "Architectural Performance Monitoring
 * Leaf" and Vol. 3B 20.2.1-20.2.5 (versions 1 to 5). */
#define PM_EAX_VERSION		    GENMASK_ULL(7, 0)
#define PM_EAX_GP_COUNT		    GENMASK_ULL(15, 8)
#define PM_EAX_GP_WIDTH		    GENMASK_ULL(23, 16)
#define PM_EAX_EBX_LENGTH	    GENMASK_ULL(31, 24)
#define PM_EDX_FIXED_COUNT	    GENMASK_ULL(4, 0)  /* if version > 1 */
#define PM_EDX_FIXED_WIDTH	    GENMASK_ULL(12, 5) /* if version > 1 */
#define PM_EDX_ANYTHREAD_DEPRECATED BIT_ULL(15)

/* CPUID.23H "Architectural Performance Monitoring Extended Leaf": sub-leaf 0
 * EAX is the bitmap of valid sub-leaves; EBX[0] UMASK2, EBX[1] EQ; sub-leaf 1
 * (valid when sub-leaf 0 EAX[1] is set) gives the GP counter bitmap in EAX
 * and the fixed counter bitmap in EBX. */
#define PMX_SUBLEAF_COUNTERS 1
#define PMX_EBX_UMASK2	     BIT_ULL(0)
#define PMX_EBX_EQ	     BIT_ULL(1)
/* Sub-leaves 2-5 and EBX[2], as Linux reads them (`union cpuid35_eax/ebx`,
 * ARCH_PERFMON_ACR_LEAF 2, ARCH_PERFMON_PEBS_CAP_LEAF 4,
 * ARCH_PERFMON_PEBS_COUNTER_LEAF 5; KVM's ARCH_PERFMON_ARCH_EVENTS_LEAF 3). */
#define PMX_SUBLEAF_ACR	       2
#define PMX_SUBLEAF_EVENTS     3
#define PMX_SUBLEAF_PEBS_CAPS  4
#define PMX_SUBLEAF_PEBS_CNTRS 5
#define PMX_EBX_RDPMC_USR_DIS  BIT_ULL(2)

/* CPUID.1AH, SDM Vol. 2A Table 3-8 "Hybrid Information Enumeration Leaf". */
#define HY_EAX_NATIVE_MODEL GENMASK_ULL(23, 0)
#define HY_EAX_CORE_TYPE    GENMASK_ULL(31, 24)

/* CPUID.0FH, SDM Vol. 3B 17.18.3-17.18.5, Figures 17-20/17-21
 * ("Feature-Specific Enumeration" of RDT monitoring). */
#define RDTM_RES_L3	       1
#define RDTM0_EDX_L3	       BIT_ULL(1)
#define RDTM1_EAX_WIDTH_OFFSET GENMASK_ULL(7, 0) /* width = 24 + offset */
#define RDTM1_EAX_OVERFLOW_BIT BIT_ULL(8)
#define RDTM1_EDX_OCCUPANCY    BIT_ULL(0)
#define RDTM1_EDX_TOTAL_BW     BIT_ULL(1)
#define RDTM1_EDX_LOCAL_BW     BIT_ULL(2)
#define RDTM_WIDTH_BASE	       24

/* CPUID.10H, SDM Vol. 2A Table 3-8 and Vol. 3B 17.19.4: sub-leaf 0 EBX is
 * the bitmap of ResIDs; ResID 1 L3 CAT, 2 L2 CAT, 3 MBA. */
#define RDTA_RES_L3		1
#define RDTA_RES_L2		2
#define RDTA_RES_MBA		3
#define RDTA_CBM_LEN		GENMASK_ULL(4, 0) /* length - 1 */
#define RDTA_CAT_ECX_CDP	BIT_ULL(2)
#define RDTA_CAT_ECX_IO		BIT_ULL(1) /* L3: allocation for non-CPU agents */
#define RDTA_CAT_ECX_NONCONT	BIT_ULL(3)
#define RDTA_MBA_ECX_PER_THREAD BIT_ULL(0)
/* AMD PQoS, CPUID 8000_0020H (APM Vol. 2 Table 19-5, 19.3.3, 19.4). */
#define LEAF_AMD_PQOS	    0x80000020U
#define LEAF_AMD_EXT_IDS    0x80000008U
#define AMD_E8_EBX_BE	    BIT_ULL(6)
#define AMD_PQOS_EBX_L3BE   BIT_ULL(1)
#define AMD_PQOS_EBX_L3SMBE BIT_ULL(2)
#define AMD_PQOS_EBX_BMEC   BIT_ULL(3)
#define AMD_PQOS_EBX_ABMC   BIT_ULL(5)
#define AMD_PQOS_EBX_SDCIAE BIT_ULL(6)
#define AMD_PQOS_EVT_NUM    GENMASK_ULL(7, 0)
#define AMD_PQOS_EVT_TYPES  GENMASK_ULL(6, 0)
#define AMD_PQOS_ABMC_CTRS  GENMASK_ULL(15, 0) /* counters - 1 */
#define RDTA_MAX_COS	    GENMASK_ULL(15, 0)
#define RDTA_MBA_MAX_DELAY  GENMASK_ULL(11, 0) /* maximum - 1 */
#define RDTA_MBA_ECX_LINEAR BIT_ULL(2)

/* AMD64 APM Vol. 3 Appendix E.4.2: CPUID Fn8000_0001_ECX. */
#define AMD_E1_ECX_PERFCTR_CORE BIT_ULL(23)
#define AMD_E1_ECX_PERFCTR_NB	BIT_ULL(24)
#define AMD_E1_ECX_PERFCTR_LLC	BIT_ULL(28)
/* AMD64 APM Vol. 3 Appendix E: CPUID Fn8000_0022 "Extended Performance
 * Monitoring and Debug". */
#define AMD_E22_EAX_PERFMON_V2	   BIT_ULL(0)
#define AMD_E22_EAX_LBR_STACK	   BIT_ULL(1)
#define AMD_E22_EAX_LBR_PMC_FREEZE BIT_ULL(2)
#define AMD_E22_EBX_NUM_CORE_PMC   GENMASK_ULL(3, 0)
#define AMD_E22_EBX_LBR_STACK_SIZE GENMASK_ULL(9, 4)
#define AMD_E22_EBX_NUM_DF_PMC	   GENMASK_ULL(15, 10)
#define AMD_E22_EBX_NUM_UMC_PMC	   GENMASK_ULL(21, 16)
/* AMD64 APM Vol. 2 13.2.1: four legacy PerfCtr0-3 on every AMD64 processor
 * (and K7, family 06H); PerfCtrExtCore gives six at C001_0200H. */
#define AMD_LEGACY_COUNTERS	       4
#define AMD_EXT_CORE_COUNTERS	       6
#define AMD_FIRST_FAMILY_WITH_COUNTERS 6

struct decoder {
	struct caps *c;
	caps_cpuid_fn fn;
	void *ctx;
	uint32_t hv_max; /* CPUID.40000000H:EAX when the hypervisor bit is set */
};

/* Is `leaf` at or below the maximum of its range? Leaf 0 and 80000000H are
 * what define the maxima, so they are always readable. */
static bool leaf_exists(const struct decoder *d, uint32_t leaf)
{
	const struct caps *c = d->c;

	if (leaf == LEAF_VENDOR || leaf == LEAF_EXT_BASE)
		return true;
	if (leaf < LEAF_HV_BASE)
		return leaf <= c->max_basic_leaf;
	if (leaf <= LEAF_HV_LIMIT)
		/* Hypervisor range: only with CPUID.01H:ECX[31], which says a
		 * VMM answers there (its leaf 40000000H gives the maximum). */
		return c->hypervisor && (leaf == LEAF_HV_BASE || leaf <= d->hv_max);
	if (leaf >= LEAF_EXT_BASE && leaf <= 0x8FFFFFFFU)
		return c->max_ext_valid && leaf <= c->max_ext_leaf;
	return false;
}

/* A (leaf, sub-leaf) within the maximum that the source does not have (a
 * dump without it): named in c->missing for the report. */
static void note_missing(const struct decoder *d, uint32_t leaf, uint32_t subleaf)
{
	struct caps *c = d->c;
	size_t n = kstrlen(c->missing);

	if (n + 16 < sizeof(c->missing))
		ksnprintf(c->missing + n, sizeof(c->missing) - n, "%s(%02XH,%u)", n ? " " : "",
			  leaf, subleaf);
}

/* The one way to read CPUID: zeros, and false, for a leaf above the max or
 * one the source does not have (unknown, never taken as zeros). */
static bool read_leaf(const struct decoder *d, uint32_t leaf, uint32_t subleaf,
		      struct cpuid_regs *r)
{
	r->eax = r->ebx = r->ecx = r->edx = 0;
	if (!leaf_exists(d, leaf))
		return false;
	if (d->fn(d->ctx, leaf, subleaf, r))
		return true;
	r->eax = r->ebx = r->ecx = r->edx = 0;
	note_missing(d, leaf, subleaf);
	return false;
}

static bool regs_zero(const struct cpuid_regs *r)
{
	return !(r->eax | r->ebx | r->ecx | r->edx);
}

static void copy_vendor(char out[13], uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t w[3] = {a, b, c};

	for (unsigned i = 0; i < 12; i++) {
		unsigned char ch = (unsigned char)(w[i / 4] >> (8 * (i % 4)));
		/* A control byte (a terminal escape in a hostile dump) is shown as
		 * '?': the string is printed to consoles. NUL still ends it. */
		out[i] = (char)(ch && (ch < 0x20 || ch > 0x7e) ? '?' : ch);
	}
	out[12] = '\0';
}

/* CPUID.0H: EBX, EDX, ECX spell the vendor (SDM Vol. 2A; AMD64 APM Vol. 3
 * E.3.1; Hygon follows the APM with its own string; VIA / Centaur and
 * Zhaoxin as Linux arch/x86/kernel/cpu/centaur.c and zhaoxin.c match them). */
static const struct {
	const char *cpuid;
	enum cpu_vendor vendor;
} vendor_strings[] = {
    {"GenuineIntel", VENDOR_INTEL},   {"AuthenticAMD", VENDOR_AMD},
    {"AMDisbetter!", VENDOR_AMD},     {"HygonGenuine", VENDOR_HYGON},
    {"CentaurHauls", VENDOR_CENTAUR}, {"  Shanghai  ", VENDOR_ZHAOXIN},
};

static const char *const vendor_names[] = {
    [VENDOR_UNKNOWN] = "unknown", [VENDOR_INTEL] = "Intel",	[VENDOR_AMD] = "AMD",
    [VENDOR_HYGON] = "Hygon",	  [VENDOR_CENTAUR] = "Centaur", [VENDOR_ZHAOXIN] = "Zhaoxin",
};

_Static_assert(ARRAY_SIZE(vendor_names) == VENDOR_COUNT, "a name for every vendor");

static enum cpu_vendor vendor_of(const char *s)
{
	for (unsigned i = 0; i < ARRAY_SIZE(vendor_strings); i++)
		if (!kstrcmp(s, vendor_strings[i].cpuid))
			return vendor_strings[i].vendor;
	return VENDOR_UNKNOWN;
}

bool caps_amd_like(const struct caps *c)
{
	return c->vendor == VENDOR_AMD || c->vendor == VENDOR_HYGON;
}

/*
 * Display family and model. Intel, SDM Vol. 2A CPUID "Figure 3-6 Version
 * Information Returned by CPUID in EAX": DisplayFamily = Family, plus
 * Extended_Family when Family = 0FH; DisplayModel = Model, plus
 * (Extended_Model << 4) when Family is 06H or 0FH. Other vendors with
 * families between (Zhaoxin's family 07H: KX-6000 3BH, KX-7000 6BH) follow
 * the rule from family 06H up, as Linux's x86_model() and the `cpuid` tool
 * decode them. AMD and Hygon, APM Vol. 3 E.3.2 (Fn0000_0001_EAX): both
 * extended fields count only when the base family is 0FH (so never for an
 * AMD family 06H part).
 */
static void decode_signature(struct caps *c, uint32_t sig)
{
	unsigned fam = FIELD_GET_ULL(SIG_FAMILY, sig);
	unsigned model = FIELD_GET_ULL(SIG_MODEL, sig);
	unsigned ext_model = FIELD_GET_ULL(SIG_EXT_MODEL, sig);
	bool use_ext_model;

	c->signature = sig;
	c->stepping = FIELD_GET_ULL(SIG_STEPPING, sig);
	c->family = fam;
	if (fam == 0xF)
		c->family += FIELD_GET_ULL(SIG_EXT_FAMILY, sig);
	if (caps_amd_like(c))
		use_ext_model = fam == 0xF;
	else
		use_ext_model = fam >= 0x6;
	c->model = model + (use_ext_model ? ext_model << 4 : 0);
}

static void decode_leaf1(struct decoder *d)
{
	struct caps *c = d->c;
	struct cpuid_regs r;

	if (!read_leaf(d, LEAF_FEATURES, 0, &r))
		return;
	decode_signature(c, r.eax);
	c->pdcm = r.ecx & F1_ECX_PDCM;
	c->x2apic = r.ecx & F1_ECX_X2APIC;
	c->hypervisor = r.ecx & F1_ECX_HYPERVISOR;
	c->tsc = r.edx & F1_EDX_TSC;
	c->msr = r.edx & F1_EDX_MSR;
	c->apic = r.edx & F1_EDX_APIC;
	c->ds = r.edx & F1_EDX_DS;
	c->clflush = r.edx & F1_EDX_CLFSH;
}

static void decode_hypervisor(struct decoder *d)
{
	struct caps *c = d->c;
	struct cpuid_regs r;

	if (!c->hypervisor || !read_leaf(d, LEAF_HV_BASE, 0, &r))
		return;
	d->hv_max = r.eax;
	copy_vendor(c->hypervisor_vendor, r.ebx, r.ecx, r.edx);
}

/*
 * Leaf 0AH. SDM Vol. 2A Table 3-8:
 *  - EBX bit i = 1 means architectural event i is NOT available, and only
 *    bits below EAX[31:24] (the EBX vector length) carry meaning: event i is
 *    available iff i < EAX[31:24] and EBX[i] = 0 (Vol. 3B 20.2.1.2).
 *  - EDX[4:0] and EDX[12:5] (fixed counters, width) hold "if Version ID > 1".
 *  - ECX is the fixed-counter bitmask from version 5 (reserved before), with
 *    the SDM's rule "fixed counter i is supported if ECX[i] = 1 or
 *    EDX[4:0] > i" (Vol. 3B 20.2.5).
 */
static void decode_arch_perfmon(struct decoder *d)
{
	struct caps_arch_perfmon *pm = &d->c->pm;
	struct cpuid_regs r;
	unsigned fixed_contig = 0;

	/* AMD and Hygon reserve leaf 0AH (APM Vol. 3 E.3: Fn0000_000A is
	 * reserved); every other vendor's is the SDM's, whatever the string. */
	if (caps_amd_like(d->c) || !read_leaf(d, LEAF_ARCH_PERFMON, 0, &r))
		return;
	pm->raw_eax = r.eax;
	pm->raw_edx = r.edx;
	pm->version = FIELD_GET_ULL(PM_EAX_VERSION, r.eax);
	if (pm->version == 0)
		return; /* no architectural PMU (e.g. a VMM without vPMU) */
	pm->present = true;
	pm->gp_counters = FIELD_GET_ULL(PM_EAX_GP_COUNT, r.eax);
	pm->gp_width = FIELD_GET_ULL(PM_EAX_GP_WIDTH, r.eax);
	pm->ebx_length = FIELD_GET_ULL(PM_EAX_EBX_LENGTH, r.eax);
	pm->ebx = r.ebx;
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++)
		pm->event_available[i] = i < pm->ebx_length && !(r.ebx & BIT_ULL(i));
	if (pm->version > 1) {
		fixed_contig = FIELD_GET_ULL(PM_EDX_FIXED_COUNT, r.edx);
		pm->fixed_counters_edx = fixed_contig;
		pm->fixed_width = FIELD_GET_ULL(PM_EDX_FIXED_WIDTH, r.edx);
	}
	if (pm->version >= 5)
		pm->fixed_bitmask = r.ecx;
	pm->fixed_supported = pm->fixed_bitmask | (uint32_t)width_mask(fixed_contig);
	pm->anythread_deprecated = r.edx & PM_EDX_ANYTHREAD_DEPRECATED;
	pm->gp_mask = width_mask(pm->gp_counters);
}

/*
 * Leaf 23H, valid when CPUID.(07H,1):EAX.ArchPerfmonExt[8] = 1 (SDM Vol. 2A
 * Table 3-8) and 23H is within the basic range: a CPU with a maximum of 23H
 * or more but without the bit has no such leaf to decode.
 * Sub-leaf 1 exists only when sub-leaf 0 EAX[1] says so; when it
 * does, its bitmaps are the counters that exist, holes included, and they
 * replace the contiguous counts of leaf 0AH (a counter that is not in the
 * bitmap is not there to be programmed, whatever EAX[15:8] says).
 */
/* Read sub-leaf n of leaf 23H when sub-leaf 0 EAX[n] says it is valid; a
 * source without it leaves the sub-leaf unknown (false), never zeros. */
static bool read_leaf23_subleaf(const struct decoder *d, const struct caps_leaf23 *x, unsigned n,
				struct cpuid_regs *r)
{
	if (!(x->subleaf_valid & BIT_ULL(n)))
		return false;
	return read_leaf(d, LEAF_ARCH_PERFMON_EXT, n, r);
}

/* Sub-leaves 2 to 5 (ACR, events, arch-PEBS capabilities and counters). */
static void decode_leaf23_extras(const struct decoder *d, struct caps_leaf23 *x)
{
	struct cpuid_regs r;

	if (read_leaf23_subleaf(d, x, PMX_SUBLEAF_ACR, &r)) {
		x->acr_valid = true;
		x->acr_gp_reloadable = r.eax;
		x->acr_fixed_reloadable = r.ebx;
		x->acr_gp_cause = r.ecx;
		x->acr_fixed_cause = r.edx;
	}
	if (read_leaf23_subleaf(d, x, PMX_SUBLEAF_EVENTS, &r)) {
		x->events_valid = true;
		x->events_bitmap = r.eax;
	}
	if (read_leaf23_subleaf(d, x, PMX_SUBLEAF_PEBS_CAPS, &r)) {
		x->pebs_caps_valid = true;
		x->pebs_caps = r.ebx;
	}
	if (read_leaf23_subleaf(d, x, PMX_SUBLEAF_PEBS_CNTRS, &r)) {
		x->pebs_counters_valid = true;
		x->pebs_gp = r.eax;
		x->pdist_gp = r.ebx;
		x->pebs_fixed = r.ecx;
		x->pdist_fixed = r.edx;
	}
	x->arch_pebs = x->pebs_caps_valid && x->pebs_counters_valid;
}

static void decode_arch_perfmon_ext(struct decoder *d)
{
	struct caps *c = d->c;
	struct caps_leaf23 *x = &c->l23;
	struct cpuid_regs r;

	if (!x->enumerated || !read_leaf(d, LEAF_ARCH_PERFMON_EXT, 0, &r))
		return;
	x->present = true;
	x->subleaf_valid = r.eax;
	x->features = r.ebx;
	x->umask2 = r.ebx & PMX_EBX_UMASK2;
	x->eq = r.ebx & PMX_EBX_EQ;
	x->rdpmc_user_disable = r.ebx & PMX_EBX_RDPMC_USR_DIS;
	decode_leaf23_extras(d, x);
	if (!(x->subleaf_valid & BIT_ULL(PMX_SUBLEAF_COUNTERS)))
		return;
	if (!read_leaf(d, LEAF_ARCH_PERFMON_EXT, PMX_SUBLEAF_COUNTERS, &r))
		return; /* unknown: leaf 0AH's counts stand */
	x->counters_valid = true;
	x->gp_bitmap = r.eax;
	x->fixed_bitmap = r.ebx;
	if (c->pm.present) {
		c->pm.gp_mask = x->gp_bitmap;
		c->pm.fixed_supported = x->fixed_bitmap;
	}
}

/* CPUID.02H descriptors of a third-level cache (SDM Vol. 2A CPUID, Table
 * "Encoding of CPUID Leaf 2 Descriptors"); 49H is the L3 of family 0FH
 * model 06H only (an L2 elsewhere). */
static bool l3_descriptor(const struct caps *c, uint8_t b)
{
	static const uint8_t l3[] = {0x22, 0x23, 0x25, 0x29, 0x46, 0x47, 0x4A, 0x4B, 0x4C,
				     0x4D, 0xD0, 0xD1, 0xD2, 0xD6, 0xD7, 0xD8, 0xDC, 0xDD,
				     0xDE, 0xE2, 0xE3, 0xE4, 0xEA, 0xEB, 0xEC};

	if (b == 0x49)
		return c->family == 0xF && c->model == 0x6;
	for (unsigned i = 0; i < ARRAY_SIZE(l3); i++)
		if (l3[i] == b)
			return true;
	return false;
}

/* An L3 cache by CPUID.02H's descriptors (Intel): a register whose bit 31
 * is clear holds four one-byte descriptors, EAX[7:0] excepted. */
static void decode_leaf2(struct decoder *d)
{
	struct caps *c = d->c;
	struct cpuid_regs r;

	if (c->vendor != VENDOR_INTEL || !read_leaf(d, LEAF_CACHE_DESCRIPTORS, 0, &r))
		return;
	uint32_t regs[4] = {r.eax & ~0xFFu, r.ebx, r.ecx, r.edx};
	for (unsigned i = 0; i < 4; i++)
		for (unsigned k = 0; !(regs[i] >> 31) && k < 4; k++)
			c->l3_cache |= l3_descriptor(c, (uint8_t)(regs[i] >> (8 * k)));
}

static void decode_leaf7(struct decoder *d)
{
	struct caps *c = d->c;
	struct cpuid_regs r;

	if (!read_leaf(d, LEAF_EXT_FEATURES, 0, &r))
		return;
	c->hle = r.ebx & F7_EBX_HLE;
	c->rtm = r.ebx & F7_EBX_RTM;
	c->rdt.pqm = r.ebx & F7_EBX_PQM;
	c->rdt.pqe = r.ebx & F7_EBX_PQE;
	c->hybrid = r.edx & F7_EDX_HYBRID;
	c->tsx_force_abort = r.edx & F7_EDX_TSX_FORCE_ABORT;
	c->rtm_always_abort = r.edx & F7_EDX_RTM_ALWAYS_ABORT;
	c->arch_lbr.enumerated = r.edx & F7_EDX_ARCH_LBR;
	/* Sub-leaf 1 exists when (07H,0):EAX, the highest sub-leaf, is >= 1. */
	if (FIELD_GET_ULL(F7_EAX_MAX_SUBLEAF, r.eax) >= 1 && read_leaf(d, LEAF_EXT_FEATURES, 1, &r))
		c->l23.enumerated = r.eax & F7_1_EAX_ARCH_PERFMON_EXT;
}

/* Leaf 1CH, Arch LBR capabilities: defined when CPUID.(07H,0):EDX[19] = 1
 * (SDM Vol. 2A CPUID leaf 1CH; Vol. 3B 19.1.3 "Enumeration"). */
#define AL_EAX_DEPTH_MASK    GENMASK_ULL(7, 0)
#define AL_EAX_DEEP_C_RESET  BIT_ULL(30)
#define AL_EAX_LIP	     BIT_ULL(31)
#define AL_EBX_CPL	     BIT_ULL(0)
#define AL_EBX_FILTER	     BIT_ULL(1)
#define AL_EBX_CALL_STACK    BIT_ULL(2)
#define AL_ECX_MISPRED	     BIT_ULL(0)
#define AL_ECX_TIMED	     BIT_ULL(1)
#define AL_ECX_BR_TYPE	     BIT_ULL(2)
#define AL_ECX_EVENT_LOGGING GENMASK_ULL(19, 16)

static void decode_arch_lbr(struct decoder *d)
{
	struct caps_arch_lbr *a = &d->c->arch_lbr;
	struct cpuid_regs r;

	if (!a->enumerated || !read_leaf(d, LEAF_ARCH_LBR, 0, &r))
		return;
	a->present = true;
	a->depth_mask = FIELD_GET_ULL(AL_EAX_DEPTH_MASK, r.eax);
	a->deep_c_reset = r.eax & AL_EAX_DEEP_C_RESET;
	a->lip = r.eax & AL_EAX_LIP;
	a->cpl_filter = r.ebx & AL_EBX_CPL;
	a->branch_filter = r.ebx & AL_EBX_FILTER;
	a->call_stack = r.ebx & AL_EBX_CALL_STACK;
	a->mispredict = r.ecx & AL_ECX_MISPRED;
	a->timed = r.ecx & AL_ECX_TIMED;
	a->branch_type = r.ecx & AL_ECX_BR_TYPE;
	a->event_logging = FIELD_GET_ULL(AL_ECX_EVENT_LOGGING, r.ecx);
	for (unsigned n = 0; n < 8; n++)
		if (a->depth_mask & (1U << n))
			a->max_depth = 8 * (n + 1);
}

/* Leaf 1AH is defined for hybrid parts (CPUID.(07H,0):EDX[15]); elsewhere
 * it reads zero and a core type would mean nothing. */
static void decode_hybrid(struct decoder *d)
{
	struct caps *c = d->c;
	struct cpuid_regs r;

	if (!c->hybrid || !read_leaf(d, LEAF_HYBRID, 0, &r))
		return;
	c->core_type = (enum core_type)FIELD_GET_ULL(HY_EAX_CORE_TYPE, r.eax);
	c->native_model_id = FIELD_GET_ULL(HY_EAX_NATIVE_MODEL, r.eax);
}

/* Leaf 0FH exists when CPUID.(07H,0):EBX.PQM[12] = 1 (SDM Vol. 3B 17.18.3);
 * sub-leaf 1 (L3) when CPUID.(0FH,0):EDX[1] = 1 (17.18.4). */
static void decode_rdt_monitoring(struct decoder *d)
{
	struct caps_rdt *rdt = &d->c->rdt;
	struct cpuid_regs r;

	if (!rdt->pqm || !read_leaf(d, LEAF_RDT_MON, 0, &r))
		return;
	rdt->mon_present = true;
	rdt->max_rmid = r.ebx;
	rdt->l3.present = r.edx & RDTM0_EDX_L3;
	if (!rdt->l3.present)
		return;
	if (!read_leaf(d, LEAF_RDT_MON, RDTM_RES_L3, &r)) {
		/* CPUID.(0FH,1) absent from the source: its width, RMID range
		 * and events are unknown, so nothing rests on them. */
		rdt->l3.present = false;
		rdt->l3.unknown = true;
		return;
	}
	rdt->l3.counter_width =
	    RDTM_WIDTH_BASE + (unsigned)FIELD_GET_ULL(RDTM1_EAX_WIDTH_OFFSET, r.eax);
	rdt->l3.overflow_bit = r.eax & RDTM1_EAX_OVERFLOW_BIT;
	rdt->l3.upscale = r.ebx;
	rdt->l3.max_rmid = r.ecx;
	rdt->l3.occupancy = r.edx & RDTM1_EDX_OCCUPANCY;
	rdt->l3.total_bw = r.edx & RDTM1_EDX_TOTAL_BW;
	rdt->l3.local_bw = r.edx & RDTM1_EDX_LOCAL_BW;
}

/* The sub-leaf of one cache allocation resource (L3 or L2 CAT, the same
 * layout: SDM Vol. 3B 17.19.4): false when it is missing or reads all zeros
 * (decode_rdt_allocation() says why), else true with its parameters. */
static bool decode_cat(const struct decoder *d, unsigned res, unsigned *cbm_len,
		       uint32_t *isolation, bool *cdp, unsigned *max_cos, bool *noncont,
		       uint32_t *ecx)
{
	struct cpuid_regs r;

	if (!read_leaf(d, LEAF_RDT_ALLOC, res, &r) || regs_zero(&r))
		return false;
	*cbm_len = FIELD_GET_ULL(RDTA_CBM_LEN, r.eax) + 1;
	*isolation = r.ebx;
	*cdp = r.ecx & RDTA_CAT_ECX_CDP;
	*noncont = r.ecx & RDTA_CAT_ECX_NONCONT;
	*max_cos = FIELD_GET_ULL(RDTA_MAX_COS, r.edx);
	*ecx = r.ecx;
	return true;
}

/* AMD's bandwidth, slow-memory bandwidth, BMEC and ABMC parameters
 * (CPUID 8000_0020H sub-leaves 1, 2, 3, 5: APM Vol. 2 19.4.5, 19.4.6,
 * 19.3.3.2, 19.3.3.3). Only with PQE on an AMD-like vendor. */
static void decode_amd_pqos(struct decoder *d)
{
	struct caps_amd_pqos *a = &d->c->rdt.amd;
	struct cpuid_regs r;

	if (!d->c->rdt.pqe || !caps_amd_like(d->c))
		return;
	if (read_leaf(d, LEAF_AMD_EXT_IDS, 0, &r))
		a->be = r.ebx & AMD_E8_EBX_BE;
	if (!read_leaf(d, LEAF_AMD_PQOS, 0, &r))
		return;
	a->present = true;
	a->ebx0 = r.ebx;
	a->l3be = r.ebx & AMD_PQOS_EBX_L3BE;
	a->l3smbe = r.ebx & AMD_PQOS_EBX_L3SMBE;
	a->bmec = r.ebx & AMD_PQOS_EBX_BMEC;
	a->abmc = r.ebx & AMD_PQOS_EBX_ABMC;
	a->sdciae = r.ebx & AMD_PQOS_EBX_SDCIAE;
	if (a->l3be && read_leaf(d, LEAF_AMD_PQOS, 1, &r) && !regs_zero(&r)) {
		a->l3be_valid = true;
		a->bw_len = r.eax;
		a->bw_max_cos = r.edx;
	}
	if (a->l3smbe && read_leaf(d, LEAF_AMD_PQOS, 2, &r) && !regs_zero(&r)) {
		a->l3smbe_valid = true;
		a->smbw_len = r.eax;
		a->smbw_max_cos = r.edx;
	}
	if (a->bmec && read_leaf(d, LEAF_AMD_PQOS, 3, &r) && !regs_zero(&r)) {
		a->bmec_valid = true;
		a->evt_num = FIELD_GET_ULL(AMD_PQOS_EVT_NUM, r.ebx);
		a->evt_types = FIELD_GET_ULL(AMD_PQOS_EVT_TYPES, r.ecx);
	}
	if (a->abmc && read_leaf(d, LEAF_AMD_PQOS, 5, &r) && !regs_zero(&r)) {
		a->abmc_valid = true;
		a->abmc_counters = FIELD_GET_ULL(AMD_PQOS_ABMC_CTRS, r.ebx) + 1;
		a->abmc_cos_bind = r.ecx & BIT_ULL(0);
	}
}

/* Leaf 10H exists when CPUID.(07H,0):EBX.PQE[15] = 1 (SDM Vol. 3B 17.19.4).
 * A resource's sub-leaf that reads all zeros is treated as enumerating
 * nothing: it would decode as a 1-bit mask with COS 0 only, which allocates
 * nothing, and it is what a dump lacking the sub-leaf or a VMM zeroing it
 * gives. */
static void decode_rdt_allocation(struct decoder *d)
{
	struct caps_rdt *rdt = &d->c->rdt;
	struct cpuid_regs r;

	if (!rdt->pqe || !read_leaf(d, LEAF_RDT_ALLOC, 0, &r))
		return;
	rdt->alloc_present = true;
	rdt->l3_cat = r.ebx & BIT_ULL(RDTA_RES_L3);
	rdt->l2_cat = r.ebx & BIT_ULL(RDTA_RES_L2);
	rdt->mba = r.ebx & BIT_ULL(RDTA_RES_MBA);
	uint32_t ecx = 0;

	if (rdt->l3_cat) {
		rdt->l3_params_valid =
		    decode_cat(d, RDTA_RES_L3, &rdt->l3_cbm_len, &rdt->l3_isolation, &rdt->l3_cdp,
			       &rdt->l3_max_cos, &rdt->l3_noncont, &ecx);
		rdt->l3_io_alloc = rdt->l3_params_valid && (ecx & RDTA_CAT_ECX_IO);
	}
	if (rdt->l2_cat)
		rdt->l2_params_valid =
		    decode_cat(d, RDTA_RES_L2, &rdt->l2_cbm_len, &rdt->l2_isolation, &rdt->l2_cdp,
			       &rdt->l2_max_cos, &rdt->l2_noncont, &ecx);
	if (rdt->mba && read_leaf(d, LEAF_RDT_ALLOC, RDTA_RES_MBA, &r) && !regs_zero(&r)) {
		rdt->mba_params_valid = true;
		rdt->mba_max_delay = FIELD_GET_ULL(RDTA_MBA_MAX_DELAY, r.eax) + 1;
		rdt->mba_linear = r.ecx & RDTA_MBA_ECX_LINEAR;
		rdt->mba_per_thread = r.ecx & RDTA_MBA_ECX_PER_THREAD;
		rdt->mba_max_cos = FIELD_GET_ULL(RDTA_MAX_COS, r.edx);
	}
}

/*
 * AMD and Hygon core counters: four legacy ones (PerfCtr0-3 at C001_0004H),
 * six when PerfCtrExtCore (APM Vol. 2 13.2.1), and with PerfMonV2 the number
 * Fn8000_0022_EBX[3:0] enumerates (APM Vol. 2 13.2.2). A PerfMonV2 leaf
 * reporting 0 counters enumerates nothing, so the older rule stands.
 */
static void decode_amd(struct decoder *d)
{
	struct caps *c = d->c;
	struct caps_amd *a = &c->amd;
	struct cpuid_regs r;

	if (!caps_amd_like(c))
		return;
	if (read_leaf(d, LEAF_EXT_FEATURES_AMD, 0, &r)) {
		a->ext1_present = true;
		a->perfctr_core = r.ecx & AMD_E1_ECX_PERFCTR_CORE;
		a->perfctr_nb = r.ecx & AMD_E1_ECX_PERFCTR_NB;
		a->perfctr_llc = r.ecx & AMD_E1_ECX_PERFCTR_LLC;
	}
	if (read_leaf(d, LEAF_EXT_PERFMON_AMD, 0, &r)) {
		a->ext22_present = true;
		a->perfmon_v2 = r.eax & AMD_E22_EAX_PERFMON_V2;
		a->lbr_stack_v2 = r.eax & AMD_E22_EAX_LBR_STACK;
		a->lbr_pmc_freeze = r.eax & AMD_E22_EAX_LBR_PMC_FREEZE;
		a->num_core_pmc_v2 = FIELD_GET_ULL(AMD_E22_EBX_NUM_CORE_PMC, r.ebx);
		a->lbr_v2_stack_size = FIELD_GET_ULL(AMD_E22_EBX_LBR_STACK_SIZE, r.ebx);
		a->num_df_pmc_v2 = FIELD_GET_ULL(AMD_E22_EBX_NUM_DF_PMC, r.ebx);
		a->num_umc_pmc_v2 = FIELD_GET_ULL(AMD_E22_EBX_NUM_UMC_PMC, r.ebx);
	}
	if (a->perfmon_v2 && a->num_core_pmc_v2)
		a->core_counters = a->num_core_pmc_v2;
	else if (a->perfctr_core)
		a->core_counters = AMD_EXT_CORE_COUNTERS;
	else if (c->family >= AMD_FIRST_FAMILY_WITH_COUNTERS)
		a->core_counters = AMD_LEGACY_COUNTERS;
}

/*
 * The model-specific PMUs the suite knows.
 *
 * Nehalem uncore (MSR_UNCORE_PERF_GLOBAL_CTRL at 391H and friends, SDM
 * Vol. 3B "Performance Monitoring Facility in the Uncore", Nehalem section):
 * the Intel Core i7 / Xeon 5500 family, DisplayModel 1AH, 1EH, 1FH, and
 * Westmere, 25H and 2CH, to which the SDM ("Performance Monitoring for
 * Processors Based on Intel Microarchitecture Code Name Westmere") applies
 * the same uncore PMU. Not 2EH (Xeon 7500, Nehalem-EX) nor 2FH (Westmere-EX):
 * the SDM ("Intel Xeon Processor 7500 Series Performance Monitoring
 * Facility") says their uncore is "significantly different", box-based PMUs
 * with other MSRs.
 *
 * NetBurst: Intel DisplayFamily 0FH (SDM Vol. 3B "Performance Monitoring
 * (Processors Based on Intel NetBurst Microarchitecture)").
 */
static bool is_nehalem_uncore_model(unsigned model)
{
	static const uint8_t models[] = {0x1A, 0x1E, 0x1F, 0x25, 0x2C};

	for (unsigned i = 0; i < ARRAY_SIZE(models); i++)
		if (model == models[i])
			return true;
	return false;
}

static void decode_model_specific(struct caps *c)
{
	if (c->vendor != VENDOR_INTEL)
		return;
	c->nehalem_uncore = c->family == 0x6 && is_nehalem_uncore_model(c->model);
	c->netburst = c->family == 0xF;
	/* P6: family 06H before leaf 0AH. A family-06H CPU with the leaf but
	 * version 0 is an emulator without a PMU, not a P6. */
	c->p6 = c->family == 0x6 && c->max_basic_leaf < LEAF_ARCH_PERFMON;
}

/* CPUID.0H spells the vendor in printable ASCII: a register with another
 * byte (NUL included, within the 12) is no vendor string at all. */
static bool has_control_byte(uint32_t w)
{
	for (unsigned i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)(w >> (8 * i));
		if (ch < 0x20 || ch > 0x7E)
			return true;
	}
	return false;
}

const char *caps_absurd(const struct caps *c, char *buf, unsigned size)
{
	const struct caps_arch_perfmon *pm = &c->pm;

	if (c->vendor_control) {
		ksnprintf(buf, size, "CPUID.0H:EBX/EDX/ECX vendor string has control bytes");
		return buf;
	}
	if (pm->present && pm->gp_counters > 32) {
		ksnprintf(buf, size,
			  "CPUID.0AH:EAX[15:8] = %u GP counters: IA32_PERF_GLOBAL_CTRL has enable "
			  "bits for 32 (31:0)",
			  pm->gp_counters);
		return buf;
	}
	if (pm->present && pm->gp_mask && (pm->gp_width == 0 || pm->gp_width > 64)) {
		ksnprintf(buf, size,
			  "CPUID.0AH:EAX[23:16] GP counter width %u: a counter is 1 to 64 bits",
			  pm->gp_width);
		return buf;
	}
	if (pm->present && pm->version >= 2 && pm->fixed_supported &&
	    (pm->fixed_width == 0 || pm->fixed_width > 64)) {
		ksnprintf(buf, size,
			  "CPUID.0AH:EDX[12:5] fixed counter width %u: a counter is 1 to 64 bits",
			  pm->fixed_width);
		return buf;
	}
	return NULL;
}

void caps_decode(struct caps *c, caps_cpuid_fn cpuid, void *ctx)
{
	struct decoder d = {.c = c, .fn = cpuid, .ctx = ctx, .hv_max = 0};
	struct cpuid_regs r;

	kmemset(c, 0, sizeof(*c));

	read_leaf(&d, LEAF_VENDOR, 0, &r);
	c->max_basic_leaf = r.eax;
	copy_vendor(c->vendor_string, r.ebx, r.edx, r.ecx);
	c->vendor_control =
	    c->max_basic_leaf != 0 &&
	    (has_control_byte(r.ebx) || has_control_byte(r.edx) || has_control_byte(r.ecx));
	c->vendor = vendor_of(c->vendor_string);

	/* The extended range exists when CPUID.80000000H:EAX is itself an
	 * extended leaf number (8000xxxxH); a CPU without the range returns
	 * basic-leaf data there (SDM Vol. 2A CPUID, the note on 80000000H). */
	read_leaf(&d, LEAF_EXT_BASE, 0, &r);
	if ((r.eax & 0xFFFF0000U) == LEAF_EXT_BASE) {
		c->max_ext_valid = true;
		c->max_ext_leaf = r.eax;
	}

	decode_leaf1(&d);
	decode_hypervisor(&d);
	decode_leaf2(&d);
	decode_leaf7(&d);
	decode_hybrid(&d);
	decode_arch_lbr(&d);
	decode_arch_perfmon(&d);
	decode_arch_perfmon_ext(&d);
	decode_rdt_monitoring(&d);
	decode_rdt_allocation(&d);
	decode_amd_pqos(&d);
	decode_amd(&d);
	decode_model_specific(c);
}

uint64_t caps_evtsel_high_reserved(const struct caps *c, unsigned counter)
{
	uint64_t res = GENMASK_ULL(63, 32);

	if (c->hle || c->rtm) {
		res &= ~PERFEVTSEL_IN_TX;
		if (counter == 2)
			res &= ~PERFEVTSEL_IN_TXCP;
	}
	if (c->perf_cap.valid && c->perf_cap.pebs_baseline)
		res &= ~PERFEVTSEL_ADAPTIVE;
	if (c->l23.present && c->l23.eq)
		res &= ~PERFEVTSEL_EQ;
	if (c->l23.present && c->l23.umask2)
		res &= ~PERFEVTSEL_UMASK2;
	/* BR_CNTR (35), LBR branch-counter logging: CPUID.(1CH,0):ECX[19:16]
	 * one bit per IA32_PMC0-3 (Linux `cpuid28_ecx.lbr_counters`,
	 * 33744916196b). RDPMC_USR_DISABLE (37): CPUID.(23H,0):EBX[2] (Linux
	 * 59af95e028d4, "starting with Panther Cove"). */
	if (c->arch_lbr.present && counter < 4 && ((c->arch_lbr.event_logging >> counter) & 1))
		res &= ~PERFEVTSEL_BR_CNTR;
	if (c->l23.present && c->l23.rdpmc_user_disable)
		res &= ~PERFEVTSEL_RDPMC_USR_DISABLE;
	return res;
}

uint64_t caps_fixed_ctrl_high_defined(const struct caps *c)
{
	uint64_t def = 0;

	for (unsigned i = 0; i < 8; i++) {
		if (!((c->pm.fixed_supported >> i) & 1))
			continue;
		if (c->perf_cap.valid && c->perf_cap.pebs_baseline)
			def |= FIXED_CTRL_ADAPTIVE(i);
		if (c->l23.present && c->l23.rdpmc_user_disable)
			def |= FIXED_CTRL_RDPMC_USR_DISABLE(i);
	}
	return def;
}

/* IA32_PERF_CAPABILITIES (345H), SDM Vol. 3B 20.9 / Figure 20-68 and Vol. 4
 * Table 2-2; it exists when CPUID.01H:ECX.PDCM[15] = 1. */
void caps_decode_perf_capabilities(struct caps *c, uint64_t value)
{
	struct caps_perf_capabilities *p = &c->perf_cap;

	p->valid = true;
	p->raw = value;
	p->lbr_format = FIELD_GET_ULL(PERF_CAP_LBR_FMT, value);
	p->pebs_trap = value & PERF_CAP_PEBS_TRAP;
	p->pebs_arch_reg = value & PERF_CAP_PEBS_ARCH_REG;
	p->pebs_format = FIELD_GET_ULL(PERF_CAP_PEBS_FMT, value);
	p->freeze_while_smm = value & PERF_CAP_FREEZE_WHILE_SMM;
	p->full_width_write = value & PERF_CAP_FW_WRITE;
	p->pebs_baseline = value & PERF_CAP_PEBS_BASELINE;
	p->perf_metrics = value & PERF_CAP_PERF_METRICS_AVAILABLE;
	p->pebs_output_pt = value & PERF_CAP_PEBS_OUTPUT_PT_AVAIL;
	p->pebs_timing_info = value & PERF_CAP_PEBS_TIMING_INFO;
	p->rdpmc_metrics_clear = value & PERF_CAP_RDPMC_METRICS_CLEAR;
	p->arch_pebs_format = p->pebs_format == PERF_CAP_PEBS_FMT_ARCH;
	p->undefined_bits = value & ~PERF_CAP_DEFINED;
}

bool caps_arch_pebs(const struct caps *c)
{
	return c->perf_cap.valid && c->perf_cap.arch_pebs_format && c->l23.present &&
	       c->l23.arch_pebs;
}

const char *caps_vendor_name(enum cpu_vendor v)
{
	return (unsigned)v < VENDOR_COUNT ? vendor_names[v] : "unknown";
}

const struct arch_event_desc caps_arch_events[] = {
    [ARCH_EVENT_CORE_CYCLES] = {0x3C, 0x00, "core cycles", "core_cycles"},
    [ARCH_EVENT_INSTRUCTIONS] = {0xC0, 0x00, "instructions retired", "instructions"},
    [ARCH_EVENT_REF_CYCLES] = {0x3C, 0x01, "reference cycles", "ref_cycles"},
    [ARCH_EVENT_LLC_REFERENCES] = {0x2E, 0x4F, "LLC references", "llc_references"},
    [ARCH_EVENT_LLC_MISSES] = {0x2E, 0x41, "LLC misses", "llc_misses"},
    [ARCH_EVENT_BRANCHES] = {0xC4, 0x00, "branches retired", "branch_instructions"},
    [ARCH_EVENT_BRANCH_MISSES] = {0xC5, 0x00, "branch misses retired", "branch_misses"},
    [ARCH_EVENT_TOPDOWN_SLOTS] = {0xA4, 0x01, "topdown slots", "topdown_slots"},
    [ARCH_EVENT_TOPDOWN_BACKEND] = {0xA4, 0x02, "topdown backend bound", "topdown_backend_bound"},
    [ARCH_EVENT_TOPDOWN_BAD_SPEC] = {0x73, 0x00, "topdown bad speculation",
				     "topdown_bad_speculation"},
    [ARCH_EVENT_TOPDOWN_FRONTEND] = {0x9C, 0x01, "topdown frontend bound",
				     "topdown_frontend_bound"},
    [ARCH_EVENT_TOPDOWN_RETIRING] = {0xC2, 0x02, "topdown retiring", "topdown_retiring"},
    [ARCH_EVENT_LBR_INSERTS] = {0xE4, 0x01, "LBR inserts", "lbr_inserts"},
};

_Static_assert(ARRAY_SIZE(caps_arch_events) == ARCH_EVENT_COUNT,
	       "one row per architectural event of Table 20-1");

const char *caps_arch_event_name(unsigned event)
{
	return event < ARCH_EVENT_COUNT ? caps_arch_events[event].key : "unknown";
}

const char *caps_core_type_name(enum core_type t)
{
	switch (t) {
	case CORE_TYPE_NONE:
		return "none";
	case CORE_TYPE_ATOM:
		return "atom";
	case CORE_TYPE_CORE:
		return "core";
	default:
		return "reserved";
	}
}

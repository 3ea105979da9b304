/* SPDX-License-Identifier: MIT */
/*
 * RDT allocation: the rules the allocation suites check (suites/rdt_cat.c,
 * suites/rdt_mba.c, suites/amd_pqos.c) and what they share: the CAT
 * resources of the capability record as a table, and the save / restore
 * of a resource's masks.
 *
 * Intel's allocation text is SDM Vol. 3B "Intel RDT Allocation Features"
 * (17.19 in the 2018-2022 editions; the section numbers below in
 * parentheses are the September 2016 edition's, 17.17, where each rule was
 * read). AMD's is APM Vol. 2 chapter 19, "Platform Quality of Service
 * (PQOS) Extension".
 */
#ifndef PMUTEST_TESTS_RDT_ALLOC_H
#define PMUTEST_TESTS_RDT_ALLOC_H

#include "pmu.h"
#include "test.h"

#define SDM_ALLOC "SDM Vol.3B Intel RDT Allocation Features "

/* ---- Intel CAT and CDP ---- */
#define RULE_CAT_MASK_RESERVED                                                                     \
	SDM_ALLOC "(2016 ed. 17.17.5.1, 17.17.4.1): a write that modifies a reserved bit of "      \
		  "IA32_resourceType_MASK_n (bits at or above the CBM length "                     \
		  "CPUID.(10H,ResID):EAX[4:0]+1, bits 63:32) raises #GP(0); the mask is unchanged"
#define RULE_CAT_MASK_COS_RANGE                                                                    \
	SDM_ALLOC "(2016 ed. 17.17.5.1, 17.17.3.3): accessing a QOS mask register outside the "    \
		  "supported COS (n > CPUID.(10H,ResID):EDX[15:0]) raises #GP(0), RDMSR and WRMSR"
#define RULE_CAT_CONTIGUOUS                                                                        \
	SDM_ALLOC "(2016 ed. 17.17.1): only contiguous '1' combinations are allowed; a CBM "       \
		  "without contiguous 1s, zero included, raises #GP(0) and the mask is unchanged " \
		  "(with CDP off, and where CPUID.(10H,ResID):ECX[3] = 0)"
#define RULE_CAT_NONCONT                                                                           \
	"CPUID.(10H,ResID):ECX[3] = 1 allows non-contiguous CBMs: such a mask is accepted and "    \
	"reads back (newer SDM, read through Linux arch/x86/kernel/cpu/resctrl/core.c "            \
	"rdt_get_cache_alloc_cfg() and the resctrl selftest L3_NONCONT_CAT, cat_test.c)"
#define RULE_CAT_READBACK                                                                          \
	SDM_ALLOC "(2016 ed. 17.17.5.1): reading IA32_resourceType_MASK_n returns the current "    \
		  "capacity bit mask for COS n: a legal (contiguous, in-length) mask reads back "  \
		  "as written"
#define RULE_PQR_COS_RANGE                                                                         \
	SDM_ALLOC "(2016 ed. 17.17.3.4, 17.17.5.1): IA32_PQR_ASSOC.COS (bits 63:32) takes a COS "  \
		  "up to the largest CPUID.(10H,ResID):EDX[15:0] of the valid ResIDs and reads "   \
		  "back, the RMID field unchanged; a larger COS raises #GP(0), the register "      \
		  "unchanged"
#define RULE_CDP_ENABLE                                                                            \
	SDM_ALLOC "(2016 ed. 17.17.4): where CPUID.(10H,ResID):ECX[2] enumerates CDP, bit 0 of "   \
		  "IA32_L3_QOS_CFG (C81H) enables it and reads back (IA32_L2_QOS_CFG, C82H, for "  \
		  "L2: Linux commit 99adde9b370d)"
#define RULE_CDP_CFG_RESERVED                                                                      \
	SDM_ALLOC "(2016 ed. 17.17.4, 17.17.5.1): bits 63:1 of IA32_L3_QOS_CFG / "                 \
		  "IA32_L2_QOS_CFG are reserved: writing them raises #GP(0), the register "        \
		  "unchanged"
/* Inferred: the SDM names bit 0 the CDP enable where CDP is enumerated; that it is reserved
 * without CDP is pmutest's reading. */
#define RULE_CDP_CFG_ABSENT                                                                        \
	RULE_INFERRED SDM_ALLOC                                                                    \
	    "(2016 ed. 17.17.4, 17.17.5.1): without CDP in "                                       \
	    "CPUID.(10H,ResID):ECX[2] bit 0 of the QOS_CFG register is reserved too: "             \
	    "#GP(0)"
#define RULE_CDP_PAIRS                                                                             \
	SDM_ALLOC "(2016 ed. 17.17.4.1, Table 17-20): with CDP enabled COS n's data mask is "      \
		  "base + 2n and its code mask base + 2n + 1, registers of their own with the "    \
		  "field definitions unchanged: each reads back what was written to it"
/* Inferred: the bound combines two features' texts (CAT's subset, CMT's occupancy) with the
 * resctrl selftests' tolerance; the combination is pmutest's. */
#define RULE_CAT_OCCUPANCY                                                                         \
	RULE_INFERRED SDM_ALLOC                                                                    \
	    "(2016 ed. 17.17.1: a COS allocates only into the subset its mask bits name) with "    \
	    "CMT "                                                                                 \
	    "(17.16): lines filled under a COS whose L3 mask has b of len bits leave an RMID "     \
	    "used "                                                                                \
	    "only there an occupancy <= b/len x LLC, within the resctrl selftests' CMT tolerance " \
	    "(the larger of 15 % and 2 MB: tools/testing/selftests/resctrl/cmt_test.c)"

/* ---- Intel MBA (SDM Vol. 3B, Memory Bandwidth Allocation) ---- */
/* Inferred: the SDM gives the delay field and its precision; that a representable delay
 * reads back unchanged is pmutest's reading. */
#define RULE_MBA_READBACK                                                                          \
	RULE_INFERRED                                                                              \
	"SDM Vol.3B Memory Bandwidth Allocation: IA32_L2_QoS_Ext_BW_Thrtl_n (D50H + n) holds COS " \
	"n's delay; a delay the precision represents (linear: a multiple of 100 - "                \
	"(CPUID.(10H,3):EAX[11:0] + 1); non-linear: a power of two) is applied unchanged and "     \
	"reads back"
/* Inferred: the SDM's rounding (as Xen quotes it) is of the applied delay; what the register
 * reads back is pmutest's reading (Skylake-SP reports differ). */
#define RULE_MBA_ROUNDING                                                                          \
	RULE_INFERRED                                                                              \
	"SDM Vol.3B Memory Bandwidth Allocation (its rounding text, as quoted in Xen "             \
	"xen/arch/x86/psr.c mba_sanitize_thrtl()): a linear delay that is not a multiple of the "  \
	"precision is rounded down; the register reads the value written or the rounded-down "     \
	"one, never more"
/* Inferred: the SDM says it of the CAT masks (17.17.5.1); that MBA's delay registers follow is
 * pmutest's reading. */
#define RULE_MBA_COS_RANGE                                                                         \
	RULE_INFERRED SDM_ALLOC "(2016 ed. 17.17.5.1, said of the CAT masks): the delay "          \
				"register of a COS above CPUID.(10H,3):EDX[15:0] does not exist: " \
				"#GP(0)"

/* ---- AMD PQoS (APM Vol. 2 chapter 19) ---- */
#define RULE_AMD_CAT_SPARSE                                                                        \
	"AMD APM Vol.2 19.4.2.2: the bits set in L3_MASK_n need not be contiguous, and a mask "    \
	"with all bits clear is legal (that COS allocates nothing): each reads back as written"
#define RULE_AMD_CAT_RAZ                                                                           \
	"AMD APM Vol.2 19.4.2.1 (Figure 19-8): L3_MASK_n bits above the CBM length "               \
	"(CPUID Fn0000_0010_EAX_x1[CBM_LEN]) are reserved, read as zero"
/* Inferred: the APM gives the registers up to COS_MAX; that the one above raises #GP(0) is
 * pmutest's reading. */
#define RULE_AMD_COS_RANGE                                                                         \
	RULE_INFERRED "AMD APM Vol.2 19.4.2.1, 19.4.5.1: L3_MASK_n and L3QOS_BW_CONTROL_n exist "  \
		      "for n up to the feature's COS_MAX; the register above it does not: #GP(0)"
#define RULE_AMD_PQR_ASSOC                                                                         \
	"AMD APM Vol.2 19.3.1.1 (Figure 19-1): PQR_ASSOC.COS (bits 35:32) takes COS 0 to "         \
	"CPUID Fn0000_0010_EDX_x1[MAX_COS] and reads back; a larger COS, or a must-be-zero bit "   \
	"(31:12, 63:36), raises #GP(0)"
#define RULE_AMD_BW                                                                                \
	"AMD APM Vol.2 19.4.5.1 / 19.4.6.1 (Figures 19-10, 19-11): L3QOS_BW_CONTROL_n "            \
	"(C000_0200H "                                                                             \
	"+ n) and L3QOS_SMBW_CONTROL_n (C000_0280H + n) hold the limit in bits BW_LEN-1:0 and U "  \
	"(unlimited) at bit BW_LEN, read/write; the bits above read as zero"
#define RULE_AMD_BMEC                                                                              \
	"AMD APM Vol.2 19.3.3.2: QOS_EVT_CFG_n (C000_0400H + n, n < CPUID "                        \
	"Fn8000_0020_EBX_x3[EVT_NUM]) takes the bandwidth types Fn8000_0020_ECX_x3 enumerates "    \
	"(they read back); bits 63:7 and types not enumerated must be zero: #GP(0)"

/* A CAT resource as the capability record gives it. */
struct cat_res {
	const char *name;
	unsigned len, max_cos, count; /* count: architectural masks */
	bool cdp, noncont;
	uint32_t base, cfg;
};

/* The CAT resources whose sub-leaf is known, L3 then L2: how many. */
static inline unsigned cat_resources(struct cat_res res[2])
{
	const struct caps_rdt *r = &caps()->rdt;
	unsigned n = 0;

	if (r->l3_cat && r->l3_params_valid)
		res[n++] = (struct cat_res){
		    "L3",      r->l3_cbm_len, r->l3_max_cos,	  RDT_L3_MASK_COUNT,
		    r->l3_cdp, r->l3_noncont, MSR_IA32_L3_MASK_0, MSR_IA32_L3_QOS_CFG};
	if (r->l2_cat && r->l2_params_valid)
		res[n++] = (struct cat_res){
		    "L2",      r->l2_cbm_len, r->l2_max_cos,	  RDT_L2_MASK_COUNT,
		    r->l2_cdp, r->l2_noncont, MSR_IA32_L2_MASK_0, MSR_IA32_L2_QOS_CFG};
	return n;
}

/* The highest COS a mask register exists for. */
static inline unsigned cat_last(const struct cat_res *c)
{
	return c->max_cos < c->count ? c->max_cos : c->count - 1;
}

/* The COS a check programs: 1, not COS 0 that everything runs under,
 * where there is one. */
static inline unsigned cat_probe_cos(const struct cat_res *c)
{
	return cat_last(c) >= 1 ? 1 : 0;
}

#endif

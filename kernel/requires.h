/* SPDX-License-Identifier: MIT */
/*
 * Test requirements against the capability record. A test lists REQ_* bits;
 * the runner skips it when one does not hold and names the CPUID bit that is
 * missing (the table in requires.c pairs each with its predicate and text).
 */
#ifndef PMUTEST_REQUIRES_H
#define PMUTEST_REQUIRES_H

#include <stdint.h>

#include "bits.h"

enum requirement {
	REQ_INTEL_BIT,	  /* vendor GenuineIntel */
	REQ_AMD_BIT,	  /* vendor AuthenticAMD or HygonGenuine */
	REQ_ARCH_PMU_BIT, /* CPUID.0AH:EAX[7:0] >= 1 */
	REQ_ARCH_PMU_V2_BIT,
	REQ_ARCH_PMU_V3_BIT,
	REQ_ARCH_PMU_V4_BIT,
	REQ_ARCH_PMU_V5_BIT,
	REQ_ARCH_PMU_V6_BIT,	    /* the 19xxH MSR range */
	REQ_RDPMC_USER_DISABLE_BIT, /* CPUID.(23H,0):EBX[2] */
	REQ_ACR_BIT,		    /* CPUID.(23H,2) Auto Counter Reload */
	REQ_FIXED_BIT,		    /* at least one fixed counter supported */
	REQ_PDCM_BIT,		    /* CPUID.01H:ECX[15] */
	REQ_FW_WRITE_BIT,	    /* IA32_PERF_CAPABILITIES[13] */
	REQ_PERF_METRICS_BIT,	    /* IA32_PERF_CAPABILITIES[15] */
	REQ_APIC_BIT,		    /* CPUID.01H:EDX[9] */
	REQ_RDT_MON_BIT,	    /* CPUID.(07H,0):EBX[12] and leaf 0FH */
	REQ_RDT_L3_MON_BIT,	    /* CPUID.(0FH,0):EDX[1] */
	REQ_NEHALEM_UNCORE_BIT,
	REQ_NETBURST_BIT,
	REQ_P6_BIT,
	REQ_NO_ARCH_PMU_BIT, /* CPUID.0AH absent or version 0 */
	REQ_AMD_PERFCTR_CORE_BIT,
	REQ_AMD_PERFMON_V2_BIT,
	REQ_CLFLUSH_BIT, /* CPUID.01H:EDX[19] */
	/* Counter and event requirements of the counting suites. */
	REQ_EXACT_EVENT_BIT,	     /* instructions or branches retired available */
	REQ_GP_COUNTER_BIT,	     /* at least one GP counter exists */
	REQ_FIXED0_BIT,		     /* fixed counter 0 (instructions) exists */
	REQ_FIXED_SLOTS_BIT,	     /* fixed counter 3 (topdown slots) exists */
	REQ_CORE_CYCLES_EVENT_BIT,   /* Table 20-1 core cycles available */
	REQ_INSTRUCTIONS_EVENT_BIT,  /* Table 20-1 instructions retired available */
	REQ_BRANCHES_EVENT_BIT,	     /* Table 20-1 branch instructions retired available */
	REQ_BRANCH_MISSES_EVENT_BIT, /* Table 20-1 branch misses retired available */
	/* LBR, Arch LBR, PEBS (suites/lbr.c, arch_lbr.c, pebs.c) */
	REQ_LBR_FMT_BIT,       /* IA32_PERF_CAPABILITIES[5:0] != 0 */
	REQ_ARCH_LBR_BIT,      /* CPUID.(07H,0):EDX[19] and leaf 1CH */
	REQ_PEBS_BIT,	       /* CPUID.01H:EDX[21] DS and PDCM */
	REQ_PEBS_BASELINE_BIT, /* IA32_PERF_CAPABILITIES[14] */
	REQ_RTM_BIT,	       /* CPUID.(07H,0):EBX[11] (suites/tsx.c) */
	REQ_ARCH_PEBS_BIT,     /* PEBS_FMT 0FH, CPUID.(23H,0):EAX[5:4] (suites/arch_pebs.c) */
	REQ_AMD_LBR_V2_BIT,    /* CPUID 8000_0022H EAX[1], EBX[9:4] (suites/amd_lbr.c) */
	REQ_RDT_ALLOC_BIT,     /* CPUID.(07H,0):EBX[15] and leaf 10H (allocation suites) */
	REQ_COUNT
};

#define REQ_NONE		0ULL
#define REQ_INTEL		BIT_ULL(REQ_INTEL_BIT)
#define REQ_AMD			BIT_ULL(REQ_AMD_BIT)
#define REQ_ARCH_PMU		BIT_ULL(REQ_ARCH_PMU_BIT)
#define REQ_ARCH_PMU_V2		BIT_ULL(REQ_ARCH_PMU_V2_BIT)
#define REQ_ARCH_PMU_V3		BIT_ULL(REQ_ARCH_PMU_V3_BIT)
#define REQ_ARCH_PMU_V4		BIT_ULL(REQ_ARCH_PMU_V4_BIT)
#define REQ_ARCH_PMU_V5		BIT_ULL(REQ_ARCH_PMU_V5_BIT)
#define REQ_ARCH_PMU_V6		BIT_ULL(REQ_ARCH_PMU_V6_BIT)
#define REQ_RDPMC_USER_DISABLE	BIT_ULL(REQ_RDPMC_USER_DISABLE_BIT)
#define REQ_ACR			BIT_ULL(REQ_ACR_BIT)
#define REQ_FIXED		BIT_ULL(REQ_FIXED_BIT)
#define REQ_PDCM		BIT_ULL(REQ_PDCM_BIT)
#define REQ_FW_WRITE		BIT_ULL(REQ_FW_WRITE_BIT)
#define REQ_PERF_METRICS	BIT_ULL(REQ_PERF_METRICS_BIT)
#define REQ_APIC		BIT_ULL(REQ_APIC_BIT)
#define REQ_RDT_MON		BIT_ULL(REQ_RDT_MON_BIT)
#define REQ_RDT_L3_MON		BIT_ULL(REQ_RDT_L3_MON_BIT)
#define REQ_NEHALEM_UNCORE	BIT_ULL(REQ_NEHALEM_UNCORE_BIT)
#define REQ_NETBURST		BIT_ULL(REQ_NETBURST_BIT)
#define REQ_P6			BIT_ULL(REQ_P6_BIT)
#define REQ_NO_ARCH_PMU		BIT_ULL(REQ_NO_ARCH_PMU_BIT)
#define REQ_AMD_PERFCTR_CORE	BIT_ULL(REQ_AMD_PERFCTR_CORE_BIT)
#define REQ_AMD_PERFMON_V2	BIT_ULL(REQ_AMD_PERFMON_V2_BIT)
#define REQ_CLFLUSH		BIT_ULL(REQ_CLFLUSH_BIT)
#define REQ_EXACT_EVENT		BIT_ULL(REQ_EXACT_EVENT_BIT)
#define REQ_GP_COUNTER		BIT_ULL(REQ_GP_COUNTER_BIT)
#define REQ_FIXED0		BIT_ULL(REQ_FIXED0_BIT)
#define REQ_FIXED_SLOTS		BIT_ULL(REQ_FIXED_SLOTS_BIT)
#define REQ_CORE_CYCLES_EVENT	BIT_ULL(REQ_CORE_CYCLES_EVENT_BIT)
#define REQ_INSTRUCTIONS_EVENT	BIT_ULL(REQ_INSTRUCTIONS_EVENT_BIT)
#define REQ_BRANCHES_EVENT	BIT_ULL(REQ_BRANCHES_EVENT_BIT)
#define REQ_BRANCH_MISSES_EVENT BIT_ULL(REQ_BRANCH_MISSES_EVENT_BIT)
#define REQ_LBR_FMT		BIT_ULL(REQ_LBR_FMT_BIT)
#define REQ_ARCH_LBR		BIT_ULL(REQ_ARCH_LBR_BIT)
#define REQ_PEBS		BIT_ULL(REQ_PEBS_BIT)
#define REQ_PEBS_BASELINE	BIT_ULL(REQ_PEBS_BASELINE_BIT)
#define REQ_RTM			BIT_ULL(REQ_RTM_BIT)
#define REQ_ARCH_PEBS		BIT_ULL(REQ_ARCH_PEBS_BIT)
#define REQ_AMD_LBR_V2		BIT_ULL(REQ_AMD_LBR_V2_BIT)
#define REQ_RDT_ALLOC		BIT_ULL(REQ_RDT_ALLOC_BIT)

struct caps;

/* NULL when every requirement holds, else the text of the first missing one,
 * e.g. "CPUID.0AH:EAX[7:0] >= 2 (architectural PMU version 2)". */
const char *requires_missing(const struct caps *c, uint64_t reqs);

#endif

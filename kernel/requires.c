/* SPDX-License-Identifier: MIT */
/*
 * Requirements: each REQ_* bit paired with its predicate on the capability
 * record and the text that names the CPUID (or MSR) bit behind it, so that a
 * skip always says exactly what the CPU did not enumerate.
 */
#include "requires.h"

#include "caps.h"

struct requirement_desc {
	bool (*holds)(const struct caps *c);
	const char *text;
};

static bool is_intel(const struct caps *c)
{
	return c->vendor == VENDOR_INTEL;
}

static bool pmu_version_at_least(const struct caps *c, unsigned v)
{
	return c->pm.present && c->pm.version >= v;
}

static bool arch_pmu(const struct caps *c)
{
	return pmu_version_at_least(c, 1);
}

static bool arch_pmu_v2(const struct caps *c)
{
	return pmu_version_at_least(c, 2);
}

static bool arch_pmu_v3(const struct caps *c)
{
	return pmu_version_at_least(c, 3);
}

static bool arch_pmu_v4(const struct caps *c)
{
	return pmu_version_at_least(c, 4);
}

static bool arch_pmu_v5(const struct caps *c)
{
	return pmu_version_at_least(c, 5);
}

static bool arch_pmu_v6(const struct caps *c)
{
	return pmu_version_at_least(c, 6);
}

static bool rdpmc_user_disable(const struct caps *c)
{
	return pmu_version_at_least(c, 1) && c->l23.present && c->l23.rdpmc_user_disable;
}

static bool acr(const struct caps *c)
{
	return pmu_version_at_least(c, 2) && c->l23.present && c->l23.acr_valid &&
	       (c->l23.acr_gp_reloadable || c->l23.acr_fixed_reloadable);
}

static bool fixed(const struct caps *c)
{
	return c->pm.present && c->pm.fixed_supported != 0;
}

static bool pdcm(const struct caps *c)
{
	return c->pdcm;
}

static bool fw_write(const struct caps *c)
{
	return c->perf_cap.valid && c->perf_cap.full_width_write;
}

static bool perf_metrics(const struct caps *c)
{
	return c->perf_cap.valid && c->perf_cap.perf_metrics;
}

static bool apic(const struct caps *c)
{
	return c->apic;
}

static bool rdt_mon(const struct caps *c)
{
	return c->rdt.mon_present;
}

static bool rdt_l3_mon(const struct caps *c)
{
	return c->rdt.mon_present && c->rdt.l3.present;
}

static bool rdt_alloc(const struct caps *c)
{
	return c->rdt.alloc_present;
}

static bool nehalem_uncore(const struct caps *c)
{
	return c->nehalem_uncore;
}

static bool netburst(const struct caps *c)
{
	return c->netburst;
}

static bool p6(const struct caps *c)
{
	return c->p6;
}

static bool no_arch_pmu(const struct caps *c)
{
	return !c->pm.present;
}

static bool amd_perfctr_core(const struct caps *c)
{
	return caps_amd_like(c) && c->amd.perfctr_core;
}

static bool amd_perfmon_v2(const struct caps *c)
{
	return caps_amd_like(c) && c->amd.perfmon_v2;
}

static bool clflush(const struct caps *c)
{
	return c->clflush;
}

static bool rtm(const struct caps *c)
{
	return c->rtm;
}

static bool event(const struct caps *c, enum arch_event ev)
{
	return c->pm.present && c->pm.event_available[ev];
}

static bool exact_event(const struct caps *c)
{
	return event(c, ARCH_EVENT_INSTRUCTIONS) || event(c, ARCH_EVENT_BRANCHES);
}

static bool core_cycles_event(const struct caps *c)
{
	return event(c, ARCH_EVENT_CORE_CYCLES);
}

static bool instructions_event(const struct caps *c)
{
	return event(c, ARCH_EVENT_INSTRUCTIONS);
}

static bool branches_event(const struct caps *c)
{
	return event(c, ARCH_EVENT_BRANCHES);
}

static bool branch_misses_event(const struct caps *c)
{
	return event(c, ARCH_EVENT_BRANCH_MISSES);
}

/* The existence rule of the record (kernel/pmu.h): leaf 23H's bitmap where
 * valid, else CPUID.0AH:EAX[15:8]. */
static bool gp_counter(const struct caps *c)
{
	return c->pm.present && c->pm.gp_mask != 0;
}

static bool fixed_counter(const struct caps *c, enum fixed_counter i)
{
	return pmu_version_at_least(c, 2) && (c->pm.fixed_supported & BIT_ULL(i));
}

static bool fixed0(const struct caps *c)
{
	return fixed_counter(c, FIXED_INSTRUCTIONS);
}

static bool fixed_slots(const struct caps *c)
{
	return fixed_counter(c, FIXED_TOPDOWN_SLOTS);
}

static bool lbr_fmt(const struct caps *c)
{
	return is_intel(c) && c->perf_cap.valid && c->perf_cap.lbr_format != 0;
}

static bool arch_lbr(const struct caps *c)
{
	return is_intel(c) && c->arch_lbr.present && c->arch_lbr.max_depth != 0;
}

/* The DS-area PEBS protocol (IA32_PEBS_ENABLE, the DS PEBS fields): not on
 * an architectural-PEBS part, whose PEBS_FMT 0FH says those MSRs are gone
 * ("IA32_PEBS_ENABLE and MSR_PEBS_DATA_CFG MSRs are no longer existed for
 * arch-PEBS", Linux d243d0bb64af), though CPUID.01H:EDX.DS stays set
 * (Panther Lake's CPUID, corpus genuineintel00c06c3). */
/* Architectural PEBS (IA32_PEBS_BASE / IA32_PEBS_INDEX, CFG_C): the
 * IA32_MISC_ENABLE.PEBS_UNAVAILABLE check is the suite's (suites/arch_pebs.c). */
static bool arch_pebs(const struct caps *c)
{
	return is_intel(c) && caps_arch_pebs(c) && pmu_version_at_least(c, 2);
}

/* AMD LBR v2: Linux's amd_pmu_lbr_init() asks PerfMonV2 too. */
static bool amd_lbr_v2(const struct caps *c)
{
	return amd_perfmon_v2(c) && c->amd.lbr_stack_v2 && c->amd.lbr_v2_stack_size > 0;
}

static bool pebs(const struct caps *c)
{
	return is_intel(c) && c->ds && c->perf_cap.valid && !c->perf_cap.arch_pebs_format;
}

static bool pebs_baseline(const struct caps *c)
{
	return pebs(c) && c->perf_cap.pebs_baseline;
}

static const struct requirement_desc table[] = {
    [REQ_INTEL_BIT] = {is_intel, "CPUID.0H vendor \"GenuineIntel\""},
    [REQ_AMD_BIT] = {caps_amd_like, "CPUID.0H vendor \"AuthenticAMD\" or \"HygonGenuine\""},
    [REQ_ARCH_PMU_BIT] = {arch_pmu, "CPUID.0AH:EAX[7:0] >= 1 (architectural PMU, leaf 0AH "
				    "within CPUID.0H:EAX)"},
    [REQ_ARCH_PMU_V2_BIT] = {arch_pmu_v2, "CPUID.0AH:EAX[7:0] >= 2 (architectural PMU version 2)"},
    [REQ_ARCH_PMU_V3_BIT] = {arch_pmu_v3, "CPUID.0AH:EAX[7:0] >= 3 (architectural PMU version 3)"},
    [REQ_ARCH_PMU_V4_BIT] = {arch_pmu_v4, "CPUID.0AH:EAX[7:0] >= 4 (architectural PMU version 4)"},
    [REQ_ARCH_PMU_V5_BIT] = {arch_pmu_v5, "CPUID.0AH:EAX[7:0] >= 5 (architectural PMU version 5)"},
    [REQ_ARCH_PMU_V6_BIT] = {arch_pmu_v6, "CPUID.0AH:EAX[7:0] >= 6 (architectural PMU version 6: "
					  "the 19xxH counter MSRs)"},
    [REQ_RDPMC_USER_DISABLE_BIT] =
	{rdpmc_user_disable, "CPUID.(23H,0):EBX[2] RDPMC_USR_DISABLE (IA32_PERFEVTSELx bit 37, "
			     "IA32_FIXED_CTR_CTRL bit 33+4i)"},
    [REQ_ACR_BIT] = {acr, "CPUID.(23H,0):EAX[2] Auto Counter Reload with a reloadable counter "
			  "in CPUID.(23H,2) EAX / EBX"},
    [REQ_FIXED_BIT] = {fixed, "a fixed counter: CPUID.0AH:EDX[4:0] > 0 (v2+) or a bit of "
			      "CPUID.0AH:ECX (v5+) or of CPUID.(23H,1):EBX"},
    [REQ_PDCM_BIT] = {pdcm, "CPUID.01H:ECX.PDCM[15] (IA32_PERF_CAPABILITIES)"},
    [REQ_FW_WRITE_BIT] = {fw_write,
			  "IA32_PERF_CAPABILITIES[13] FW_WRITE (full-width counter writes)"},
    [REQ_PERF_METRICS_BIT] = {perf_metrics, "IA32_PERF_CAPABILITIES[15] "
					    "PERF_METRICS_AVAILABLE (IA32_PERF_METRICS)"},
    [REQ_APIC_BIT] = {apic, "CPUID.01H:EDX.APIC[9] (local APIC)"},
    [REQ_RDT_MON_BIT] = {rdt_mon, "CPUID.(07H,0):EBX.PQM[12] (RDT monitoring, leaf 0FH "
				  "within CPUID.0H:EAX)"},
    [REQ_RDT_L3_MON_BIT] = {rdt_l3_mon, "CPUID.(0FH,0):EDX[1] (L3 cache monitoring, with PQM)"},
    [REQ_RDT_ALLOC_BIT] = {rdt_alloc, "CPUID.(07H,0):EBX.PQE[15] (RDT allocation, leaf 10H)"},
    [REQ_NEHALEM_UNCORE_BIT] = {nehalem_uncore,
				"GenuineIntel DisplayFamily 06H with DisplayModel 1AH, 1EH, "
				"1FH, 25H or 2CH (Nehalem/Westmere uncore PMU, SDM Vol. 3B)"},
    [REQ_NETBURST_BIT] = {netburst, "GenuineIntel DisplayFamily 0FH (NetBurst ESCR/CCCR "
				    "counters, SDM Vol. 3B)"},
    [REQ_P6_BIT] = {p6, "GenuineIntel DisplayFamily 06H without leaf 0AH (P6-family "
			"PerfCtr0/1, SDM Vol. 3B)"},
    [REQ_NO_ARCH_PMU_BIT] = {no_arch_pmu, "no architectural PMU (CPUID.0AH above "
					  "CPUID.0H:EAX, or CPUID.0AH:EAX[7:0] = 0)"},
    [REQ_AMD_PERFCTR_CORE_BIT] = {amd_perfctr_core,
				  "CPUID.80000001H:ECX.PerfCtrExtCore[23] (AMD/Hygon, six "
				  "core counters)"},
    [REQ_AMD_PERFMON_V2_BIT] = {amd_perfmon_v2,
				"CPUID.80000022H:EAX.PerfMonV2[0] (AMD/Hygon global counter "
				"control)"},
    [REQ_CLFLUSH_BIT] = {clflush, "CPUID.01H:EDX.CLFSH[19] (CLFLUSH)"},
    [REQ_EXACT_EVENT_BIT] = {exact_event, "an exact-count event: CPUID.0AH:EBX[1] "
					  "(instructions) or EBX[5] (branches) available"},
    [REQ_GP_COUNTER_BIT] = {gp_counter, "a general-purpose counter: CPUID.0AH:EAX[15:8] > 0, "
					"or a bit of CPUID.(23H,1):EAX where leaf 23H is valid"},
    [REQ_FIXED0_BIT] = {fixed0, "fixed counter 0: CPUID.0AH:EDX[4:0] > 0 or ECX[0] (v2+), "
				"or CPUID.(23H,1):EBX[0]"},
    [REQ_FIXED_SLOTS_BIT] = {fixed_slots, "fixed counter 3 (topdown slots): CPUID.0AH:EDX[4:0] "
					  "> 3 or ECX[3] (v2+), or CPUID.(23H,1):EBX[3]"},
    [REQ_CORE_CYCLES_EVENT_BIT] = {core_cycles_event, "UnHalted Core Cycles (Table 20-1): "
						      "CPUID.0AH:EBX[0] = 0 with EAX[31:24] >= 1"},
    [REQ_INSTRUCTIONS_EVENT_BIT] = {instructions_event,
				    "Instruction Retired (Table 20-1): "
				    "CPUID.0AH:EBX[1] = 0 with EAX[31:24] >= 2"},
    [REQ_BRANCHES_EVENT_BIT] = {branches_event, "Branch Instruction Retired (Table 20-1): "
						"CPUID.0AH:EBX[5] = 0 with EAX[31:24] >= 6"},
    [REQ_BRANCH_MISSES_EVENT_BIT] = {branch_misses_event,
				     "Branch Misses Retired (Table 20-1): "
				     "CPUID.0AH:EBX[6] = 0 with EAX[31:24] >= 7"},
    [REQ_LBR_FMT_BIT] = {lbr_fmt, "IA32_PERF_CAPABILITIES[5:0] LBR_FMT != 0 (model-specific "
				  "LBR stack; needs CPUID.01H:ECX.PDCM[15])"},
    [REQ_ARCH_LBR_BIT] = {arch_lbr, "CPUID.(07H,0):EDX[19] Arch LBR with leaf 1CH enumerating "
				    "a depth (CPUID.1CH:EAX[7:0] != 0)"},
    [REQ_PEBS_BIT] = {pebs, "CPUID.01H:EDX.DS[21] (Debug Store) and IA32_PERF_CAPABILITIES "
			    "(CPUID.01H:ECX.PDCM[15]) with a DS-area PEBS format (PEBS_FMT "
			    "0FH is architectural PEBS: no IA32_PEBS_ENABLE, no "
			    "MSR_PEBS_DATA_CFG)"},
    [REQ_PEBS_BASELINE_BIT] = {pebs_baseline, "IA32_PERF_CAPABILITIES[14] PEBS_BASELINE "
					      "(adaptive PEBS, any counter), with DS and PDCM"},
    [REQ_RTM_BIT] = {rtm, "CPUID.(07H,0):EBX.RTM[11] (XBEGIN/XEND)"},
    [REQ_ARCH_PEBS_BIT] = {arch_pebs, "architectural PEBS: IA32_PERF_CAPABILITIES.PEBS_FMT = 0FH "
				      "and CPUID.(23H,0):EAX[5:4] = 11B"},
    [REQ_AMD_LBR_V2_BIT] = {amd_lbr_v2, "CPUID 8000_0022H EAX[1] LbrStack (AMD LBR v2) with "
					"PerfMonV2 and a depth EBX[9:4] > 0"},
};

_Static_assert(ARRAY_SIZE(table) == REQ_COUNT, "one row per requirement, the last one included");

const char *requires_missing(const struct caps *c, uint64_t reqs)
{
	for (unsigned i = 0; i < REQ_COUNT; i++) {
		if (!(reqs & BIT_ULL(i)))
			continue;
		if (!table[i].holds || !table[i].holds(c))
			return table[i].holds ? table[i].text : "an unknown requirement";
	}
	/* Bits above REQ_COUNT are not requirements anyone defined. */
	if (reqs >> REQ_COUNT)
		return "an unknown requirement (REQ_* bit beyond REQ_COUNT)";
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The quirks table (rows in quirk_table.h): names, where each deviation was seen,
 * and on which machines it is observable (the mutation matrix's choice of
 * profiles), as the predicates below: each a plain expression over the
 * capability record, named for the machines it accepts.
 */
#include <string.h>

#include "caps.h"
#include "lbr.h"
#include "model_events.h"
#include "sim.h"

/* ---- Predicates: the machines where a deviation can be observed -------- */

static bool arch_version_at_least(const struct caps *c, unsigned v)
{
	return c->pm.present && c->pm.version >= v;
}

static bool perf_cap(const struct sim_profile *p, uint64_t bit)
{
	return (p->perf_capabilities & bit) != 0;
}

static bool on_any_cpu(const struct caps *c, const struct sim_profile *p)
{
	return true;
}

static bool on_arch_pmu(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1);
}

static bool on_v2(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2);
}

/* Architectural PMU version 6: the 19xxH aliases. */
static bool on_v6(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 6);
}

/* RDPMC user disable: CPUID.(23H,0):EBX[2]. */
static bool on_rdpmc_user_disable(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->l23.present && c->l23.rdpmc_user_disable;
}

/* Auto Counter Reload: CPUID.(23H,2) names a reloadable counter. */
static bool on_acr(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->l23.present && c->l23.acr_valid &&
	       (c->l23.acr_gp_reloadable || c->l23.acr_fixed_reloadable);
}

/* Architectural PEBS (suites/arch_pebs.c): with a group of the suite's
 * (AUX, GPR, XMM) missing from CPUID.(23H,4), and with GPR enumerated. */
static bool on_arch_pebs(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && caps_arch_pebs(c);
}

static bool on_arch_pebs_group_gap(const struct caps *c, const struct sim_profile *p)
{
	uint64_t want = APEBS_CFG_AUX | APEBS_CFG_GPR | APEBS_CFG_XMM;

	return on_arch_pebs(c, p) && (((uint64_t)c->l23.pebs_caps << 32) & want) != want;
}

static bool on_arch_pebs_gpr(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_pebs(c, p) && (((uint64_t)c->l23.pebs_caps << 32) & APEBS_CFG_GPR);
}

/* ... where a record with every group splits (GPR and XMM: more than the
 * model's fragment), with the LBR group of NUM_VAR entries (both bits of
 * the field and Arch LBR's depth), with the GP counters snapshot. */
static uint64_t arch_pebs_cfg_bits(const struct caps *c)
{
	return (uint64_t)c->l23.pebs_caps << 32;
}

static bool on_arch_pebs_split(const struct caps *c, const struct sim_profile *p)
{
	uint64_t want = APEBS_CFG_GPR | APEBS_CFG_XMM;

	return on_arch_pebs(c, p) && (arch_pebs_cfg_bits(c) & want) == want;
}

static bool on_arch_pebs_lbr(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_pebs(c, p) && (arch_pebs_cfg_bits(c) & APEBS_CFG_LBR) == APEBS_CFG_LBR &&
	       c->arch_lbr.present && c->arch_lbr.max_depth;
}

static bool on_arch_pebs_cntr(const struct caps *c, const struct sim_profile *p)
{
	uint64_t want = APEBS_CFG_CNTR_ALLOW | APEBS_CFG_CNTR_GP;

	return on_arch_pebs(c, p) && (arch_pebs_cfg_bits(c) & want) == want;
}

/* UMASK2 counting (suites/counting.c): a part whose model-specific events
 * include/model_events.h lists, with UMASK2 enumerated. */
static bool on_lion_cove_umask2(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && lion_cove_core(c->family, c->model, c->core_type) &&
	       c->l23.present && c->l23.umask2 && c->pm.gp_counters >= 1;
}

/* ... and an existing GP counter that cannot cause a reload. */
static bool on_acr_non_cause(const struct caps *c, const struct sim_profile *p)
{
	return on_acr(c, p) && (c->pm.gp_mask & ~(uint64_t)c->l23.acr_gp_cause) != 0;
}

/* EQ enumerated (CPUID.(23H,0):EBX[1]) with three GP counters. */
static bool on_eq_three_gp(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->l23.present && c->l23.eq &&
	       __builtin_popcountll(c->pm.gp_mask) >= 3;
}

/* RDPMC metrics clear mode: IA32_PERF_CAPABILITIES[19] with PERF_METRICS and
 * fixed counter 3. */
static bool on_metrics_clear(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && perf_cap(p, PERF_CAP_RDPMC_METRICS_CLEAR) &&
	       perf_cap(p, PERF_CAP_PERF_METRICS_AVAILABLE) && (c->pm.fixed_supported & BIT_ULL(3));
}

/* A fixed counter among 4-6 with its architectural event (9-11) available. */
static bool on_fixed_4_6_events(const struct caps *c, const struct sim_profile *p)
{
	for (unsigned m = 4; m <= 6; m++)
		if (arch_version_at_least(c, 2) && (c->pm.fixed_supported & BIT_ULL(m)) &&
		    c->pm.event_available[ARCH_EVENT_TOPDOWN_BAD_SPEC + m - 4] && c->pm.gp_mask)
			return true;
	return false;
}

/* FREEZE_WHILE_SMM enumerated (IA32_PERF_CAPABILITIES[12]) where
 * MSR_SMI_COUNT tells pmutest that an SMI struck (arch/sim/platform.c). */
static bool on_freeze_while_smm(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && perf_cap(p, PERF_CAP_FREEZE_WHILE_SMM) &&
	       c->vendor == VENDOR_INTEL && c->family == 6 && c->model >= 0x1a;
}

/* A machine of several CPUs, each with IA32_PERF_GLOBAL_CTRL. */
static bool on_v2_smp(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && p && p->n_parts;
}

/* Firmware-state quirks (kind FIRMWARE): the same machines, another
 * verdict. */
static bool fw_on_counters(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) || caps_amd_like(c);
}

static bool fw_on_cpuid_limit(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && c->max_basic_leaf > 2 &&
	       (c->family > 6 || (c->family == 6 && c->model >= 0x0d));
}

static bool on_v4(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 4);
}

static bool on_v1_or_v2(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.version < 3;
}

static bool on_v3_anythread(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 3) && !c->pm.anythread_deprecated;
}

static bool on_v3_anythread_deprecated(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 3) && c->pm.anythread_deprecated;
}

static bool on_fixed_counters(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->pm.fixed_supported != 0;
}

/* Fixed counters enumerated by CPUID.0AH:ECX beyond EDX[4:0]. */
static bool on_fixed_beyond_edx(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) &&
	       (c->pm.fixed_supported >> c->pm.fixed_counters_edx) != 0;
}

static bool on_fixed_ctr0(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && (c->pm.fixed_supported & BIT_ULL(0));
}

static bool on_fixed_ctr2(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && (c->pm.fixed_supported & BIT_ULL(2));
}

static bool on_fewer_than_32_gp(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.gp_counters < 32;
}

/* CPUID.(23H,1):EAX has a hole below its highest counter. */
static bool on_gp_bitmap_holes(const struct caps *c, const struct sim_profile *p)
{
	return c->l23.counters_valid && (c->l23.gp_bitmap & (c->l23.gp_bitmap + 1)) != 0;
}

static bool on_gp_wider_than_32(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.gp_width > 32;
}

static bool on_gp_narrower_than_64(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.gp_width < 64;
}

static bool on_arch_without_fw_write(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && !perf_cap(p, PERF_CAP_FW_WRITE);
}

static bool on_fw_write_below_64(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && perf_cap(p, PERF_CAP_FW_WRITE) && c->pm.gp_width < 64;
}

static bool on_arch_without_perf_metrics(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && !perf_cap(p, PERF_CAP_PERF_METRICS_AVAILABLE);
}

static bool on_pdcm(const struct caps *c, const struct sim_profile *p)
{
	return c->pdcm;
}

/* Some architectural event is marked unavailable (CPUID.0AH:EBX). */
static bool on_arch_event_unavailable(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) &&
	       (c->pm.ebx_length < ARCH_EVENT_COUNT || c->pm.ebx != 0);
}

/* An LLC event is available and the workload can miss (CLFLUSH). */
static bool on_llc_events(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->clflush &&
	       (c->pm.event_available[ARCH_EVENT_LLC_REFERENCES] ||
		c->pm.event_available[ARCH_EVENT_LLC_MISSES]);
}

static bool on_branch_miss_event(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.event_available[ARCH_EVENT_BRANCH_MISSES];
}

/* Intel without an architectural or NetBurst PMU: no PMU MSRs at all. */
static bool on_intel_without_pmu(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && !arch_version_at_least(c, 1) && !c->netburst && !c->p6;
}

static bool on_netburst(const struct caps *c, const struct sim_profile *p)
{
	return c->netburst;
}

static bool on_arch_or_netburst(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) || c->netburst;
}

static bool on_tsx(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && (c->hle || c->rtm) && c->pm.gp_counters > 2;
}

/* Where the transactional workload runs: RTM and IA32_PMC2 (IN_TXCP). */
static bool on_rtm(const struct caps *c, const struct sim_profile *p)
{
	return on_tsx(c, p) && c->rtm;
}

/* Every PMU that counts retired instructions in the model. */
static bool on_counting_pmu(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) || c->netburst || c->p6 || caps_amd_like(c);
}

/* Fixed counters enumerated by leaf 0AH alone (leaf 23H would still name
 * them, with no width: an absurd CPUID). */
static bool on_fixed_by_leaf_0ah(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->pm.fixed_supported && !c->l23.counters_valid;
}

static bool on_v1(const struct caps *c, const struct sim_profile *p)
{
	return c->pm.present && c->pm.version == 1;
}

static bool on_rdt_l3_rmid_8(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.l3.present && c->rdt.l3.max_rmid >= 8;
}

static bool on_p6(const struct caps *c, const struct sim_profile *p)
{
	return c->p6;
}

/* The Intel PMUs whose PMI masks the LVT entry (SDM Vol.3A 11.5.1). */
static bool on_intel_pmi_source(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) || c->netburst;
}

static bool on_amd(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c);
}

/* GP counter i (IA32_PMCi, or AMD PerfCtri) exists: the dead-counter quirks. */
static bool gp_counter_exists(const struct caps *c, unsigned i)
{
	return caps_amd_like(c) || (c->pm.present && (c->pm.gp_mask >> i & 1));
}

static bool on_gp_counter_0(const struct caps *c, const struct sim_profile *p)
{
	return gp_counter_exists(c, 0);
}

static bool on_gp_counter_1(const struct caps *c, const struct sim_profile *p)
{
	return gp_counter_exists(c, 1);
}

/* A machine of several CPUs with counters. */
static bool on_smp_counters(const struct caps *c, const struct sim_profile *p)
{
	return p && p->n_parts && (c->pm.present || caps_amd_like(c));
}

static bool on_amd_perfctr_core(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->amd.perfctr_core;
}

static bool on_amd_legacy_only(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && !c->amd.perfctr_core;
}

static bool on_amd_perfmon_v2(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->amd.perfmon_v2;
}

static bool on_nehalem_uncore(const struct caps *c, const struct sim_profile *p)
{
	return c->nehalem_uncore;
}

static bool on_rdt_l3(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.l3.present;
}

/* An L3 RMID range below the global one: RMIDs that only IA32_QM_CTR.Error
 * refuses, the WRMSR does not. */
static bool on_rdt_l3_two_maxima(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.l3.present && c->rdt.l3.max_rmid < c->rdt.max_rmid;
}

static bool on_fw_write(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && perf_cap(p, PERF_CAP_FW_WRITE);
}

static bool on_two_gp(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->pm.gp_counters >= 2;
}

static bool on_intel_without_pdcm(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && !c->pdcm;
}

static bool on_rdt_occupancy(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.l3.present && c->rdt.l3.occupancy;
}

static bool on_rdt_total_bw(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.l3.present && c->rdt.l3.total_bw;
}

/* RDT allocation (quirk_table.h, its section). */
static bool on_intel_cat(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && c->rdt.alloc_present &&
	       (c->rdt.l3_params_valid || c->rdt.l2_params_valid);
}

static bool on_cat_mask_beyond_cos(const struct caps *c, const struct sim_profile *p)
{
	const struct caps_rdt *r = &c->rdt;

	return r->alloc_present && ((r->l3_params_valid && r->l3_max_cos + 1 < 128) ||
				    (r->l2_params_valid && r->l2_max_cos + 1 < 64));
}

static bool on_intel_cat_contiguous(const struct caps *c, const struct sim_profile *p)
{
	const struct caps_rdt *r = &c->rdt;

	return on_intel_cat(c, p) &&
	       ((r->l3_params_valid && !r->l3_noncont) || (r->l2_params_valid && !r->l2_noncont));
}

static bool on_intel_cat_noncont(const struct caps *c, const struct sim_profile *p)
{
	const struct caps_rdt *r = &c->rdt;

	return on_intel_cat(c, p) &&
	       ((r->l3_params_valid && r->l3_noncont) || (r->l2_params_valid && r->l2_noncont));
}

/* On AMD a COS above MAX_COS fits PQR_ASSOC.COS (35:32) only when MAX_COS
 * < 15; above that it sets a must-be-zero bit. */
static bool on_pqr_cos_range(const struct caps *c, const struct sim_profile *p)
{
	return on_intel_cat(c, p) ||
	       (caps_amd_like(c) && c->rdt.l3_params_valid && c->rdt.l3_max_cos < 15);
}

static bool on_intel_cdp(const struct caps *c, const struct sim_profile *p)
{
	const struct caps_rdt *r = &c->rdt;

	return on_intel_cat(c, p) &&
	       ((r->l3_params_valid && r->l3_cdp) || (r->l2_params_valid && r->l2_cdp));
}

static bool on_cat_occupancy(const struct caps *c, const struct sim_profile *p)
{
	return c->rdt.alloc_present && c->rdt.l3_params_valid && c->rdt.l3.present &&
	       c->rdt.l3.occupancy;
}

static bool on_intel_mba(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && c->rdt.alloc_present && c->rdt.mba_params_valid;
}

static bool on_amd_cat(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->rdt.alloc_present && c->rdt.l3_params_valid;
}

static bool on_amd_bw(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && (c->rdt.amd.l3be_valid || c->rdt.amd.l3smbe_valid);
}

static bool on_amd_bmec(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->rdt.amd.bmec_valid;
}

/* ---- Machines of several CPUs (smp.c; caps: the first CPU's) ------------ */

static unsigned machine_cpus(const struct sim_profile *p)
{
	unsigned n = 0;

	for (unsigned i = 0; p->parts && i < p->n_parts; i++)
		n += p->parts[i].cpus;
	return n;
}

static bool on_smp_arch(const struct caps *c, const struct sim_profile *p)
{
	return machine_cpus(p) >= 2 && arch_version_at_least(c, 1);
}

static bool on_smp_arch_apic(const struct caps *c, const struct sim_profile *p)
{
	return on_smp_arch(c, p) && c->apic;
}

/* SMT siblings need the topology leaf (0BH) to be found. */
static bool on_smp_anythread(const struct caps *c, const struct sim_profile *p)
{
	return on_smp_arch(c, p) && on_v3_anythread(c, p) && c->max_basic_leaf >= 0xB;
}

static bool on_smp_rdt(const struct caps *c, const struct sim_profile *p)
{
	return machine_cpus(p) >= 2 && c->rdt.mon_present && c->rdt.max_rmid >= 2;
}

/* Two cores: four CPUs of a two-thread part. */
static bool on_smp_uncore(const struct caps *c, const struct sim_profile *p)
{
	return machine_cpus(p) >= 4 && c->nehalem_uncore;
}

/* LBR, Arch LBR, PEBS, PERF_METRICS. */
static bool on_legacy_lbr(const struct caps *c, const struct sim_profile *p)
{
	return lbr_legacy_present(c);
}

static bool on_lbr_select(const struct caps *c, const struct sim_profile *p)
{
	return lbr_legacy_has_select(c);
}

/* LBR formats with TSX flags (4: in FROM, 5: in MSR_LBR_INFO_x). */
static bool on_lbr_tsx_flags(const struct caps *c, const struct sim_profile *p)
{
	return lbr_legacy_present(c) &&
	       (c->perf_cap.lbr_format == 4 || c->perf_cap.lbr_format == 5);
}

static bool on_arch_lbr(const struct caps *c, const struct sim_profile *p);

/* FREEZE_LBRS_ON_PMI sets LBR_Frz: v4, either kind of LBR. */
static bool on_lbr_v4(const struct caps *c, const struct sim_profile *p)
{
	return (lbr_legacy_present(c) || on_arch_lbr(c, p)) && arch_version_at_least(c, 4);
}

/* A PMI with the model-specific LBRs on (the lbr suite's freeze checks). */
static bool on_lbr_pmi(const struct caps *c, const struct sim_profile *p)
{
	return lbr_legacy_present(c) && arch_version_at_least(c, 2);
}

static bool on_legacy_lbr_v2_v3(const struct caps *c, const struct sim_profile *p)
{
	return lbr_legacy_present(c) && arch_version_at_least(c, 2) && c->pm.version < 4;
}

static bool on_arch_lbr(const struct caps *c, const struct sim_profile *p)
{
	return c->arch_lbr.present && c->arch_lbr.max_depth != 0;
}

static bool on_lbr_any(const struct caps *c, const struct sim_profile *p)
{
	return on_legacy_lbr(c, p) || on_arch_lbr(c, p);
}

static bool on_arch_lbr_depth_gaps(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_lbr(c, p) && c->arch_lbr.depth_mask != 0xFF;
}

static bool on_arch_lbr_cpl(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_lbr(c, p) && c->arch_lbr.cpl_filter;
}

static bool on_arch_lbr_filter(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_lbr(c, p) && c->arch_lbr.branch_filter;
}

static bool on_arch_lbr_call_stack(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_lbr_filter(c, p) && c->arch_lbr.call_stack;
}

static bool on_arch_lbr_br_type(const struct caps *c, const struct sim_profile *p)
{
	return on_arch_lbr(c, p) && c->arch_lbr.branch_type;
}

static bool on_pebs_baseline(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->ds && c->perf_cap.valid &&
	       c->perf_cap.pebs_baseline;
}

static bool on_pebs_baseline_two_gp(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_baseline(c, p) && c->pm.gp_counters >= 2;
}

static bool on_pebs_baseline_fixed(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_baseline(c, p) && c->pm.fixed_supported != 0;
}

static bool on_pebs_baseline_below_32_gp(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_baseline(c, p) && c->pm.gp_counters < 32;
}

/* PERF_METRICS with fixed counter 3 (TOPDOWN.SLOTS). */
static bool on_perf_metrics(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && perf_cap(p, PERF_CAP_PERF_METRICS_AVAILABLE) &&
	       ((c->pm.fixed_supported >> FIXED_TOPDOWN_SLOTS) & 1);
}

/* Adaptive PEBS of format 6 and later, two GP counters (the counters
 * snapshot group of suites/pebs.c). */
static bool on_pebs_fmt6(const struct caps *c, const struct sim_profile *p)
{
	return c->vendor == VENDOR_INTEL && c->ds && c->perf_cap.valid &&
	       c->perf_cap.pebs_baseline && !c->perf_cap.arch_pebs_format &&
	       c->perf_cap.pebs_format >= 6 && c->pm.gp_counters >= 2;
}

/* ... with PERF_METRICS and TOPDOWN.SLOTS: the metrics snapshot. */
static bool on_pebs_fmt6_metrics(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_fmt6(c, p) && c->perf_cap.perf_metrics && ((c->pm.fixed_supported >> 3) & 1);
}

/* AMD LBR v2 (suites/amd_lbr.c). */
static bool on_amd_lbr_v2(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->amd.perfmon_v2 && c->amd.lbr_stack_v2 &&
	       c->amd.lbr_v2_stack_size > 0;
}

/* ... with LbrAndPmcFreeze (CPUID 8000_0022H EAX[2]). */
static bool on_amd_lbr_freeze(const struct caps *c, const struct sim_profile *p)
{
	return on_amd_lbr_v2(c, p) && c->amd.lbr_pmc_freeze;
}

/* ... with level 2 (pmu_arch.c sim_metrics_level2()). */
static bool on_perf_metrics_l2(const struct caps *c, const struct sim_profile *p)
{
	return on_perf_metrics(c, p) && sim_metrics_level2(c);
}

static bool on_topdown_events(const struct caps *c, const struct sim_profile *p)
{
	return on_perf_metrics(c, p) && c->pm.gp_counters >= 4 &&
	       c->pm.event_available[ARCH_EVENT_TOPDOWN_BACKEND] &&
	       c->pm.event_available[ARCH_EVENT_TOPDOWN_RETIRING];
}

/* ---- Real silicon: where each row's quirk is observable ------ */

/* Not an Atom core (a hybrid part's P-core, or any non-hybrid CPU), with room
 * for two more GP counters in the global bits. */
static bool on_non_atom_below_31_gp(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->core_type != CORE_TYPE_ATOM &&
	       c->pm.gp_counters + 2 <= 32 && c->pm.fixed_counters_edx < 16;
}

static bool on_non_atom_no_metrics(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 2) && c->core_type != CORE_TYPE_ATOM &&
	       !perf_cap(p, PERF_CAP_PERF_METRICS_AVAILABLE);
}

/* RTM and an IA32_PMC3 to lose. */
static bool on_rtm_four_gp(const struct caps *c, const struct sim_profile *p)
{
	return on_rtm(c, p) && c->pm.gp_counters >= 4;
}

/* AMD with the six core counters (PerfCtrExtCore). */
static bool on_amd_six_ctrs(const struct caps *c, const struct sim_profile *p)
{
	return caps_amd_like(c) && c->amd.core_counters >= 6;
}

/* Two GP counters: RDPMC indices 2-9 are beyond them. */
static bool on_two_gp_only(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.gp_counters == 2;
}

/* IA32_FIXED_CTR2 and a fixed counter above it: the overflow check of that
 * counter, run after FIXED_CTR2's, sees a sticky bit 34. */
static bool on_fixed_ctr2_and_above(const struct caps *c, const struct sim_profile *p)
{
	return on_fixed_ctr2(c, p) && (c->pm.fixed_supported >> 3) != 0;
}

/* Branch Instructions Retired (C4H/00H) available. */
static bool on_branch_event(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.event_available[ARCH_EVENT_BRANCHES];
}

/* Timed PEBS (PERF_CAPABILITIES[17]) with adaptive records. */
static bool on_pebs_timed(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_baseline(c, p) && c->perf_cap.pebs_timing_info;
}

/* PEBS format 5 or later (the 32 + 16 reset fields) with a fixed counter. */
static bool on_pebs_fmt5_fixed(const struct caps *c, const struct sim_profile *p)
{
	return on_pebs_baseline_fixed(c, p) && c->perf_cap.pebs_format >= 5;
}

/* IA32_PERFEVTSELx bit 35 or 37 enumerated. */
static bool on_evtsel_new_bits(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && ((c->arch_lbr.present && c->arch_lbr.event_logging) ||
					       (c->l23.present && c->l23.rdpmc_user_disable));
}

/* Instructions Retired, and with it Branch Instructions Retired, available
 * (the SRF7 overcount rows). */
static bool on_instructions_event(const struct caps *c, const struct sim_profile *p)
{
	return arch_version_at_least(c, 1) && c->pm.event_available[ARCH_EVENT_INSTRUCTIONS];
}

static bool on_instructions_and_branches(const struct caps *c, const struct sim_profile *p)
{
	return on_instructions_event(c, p) && c->pm.event_available[ARCH_EVENT_BRANCHES];
}

/* ---- The table ------------------------------------------------------------ */

const struct quirk_desc g_quirks[QUIRK_COUNT] = {
#define QUIRK(id, kind, name, applies, where, desc)                                                \
	[id] = {name, where, desc, applies, QUIRK_##kind},
#include "quirk_table.h"
#undef QUIRK
};

bool quirk_find(const char *name, enum quirk *q)
{
	for (unsigned i = 0; i < QUIRK_COUNT; i++) {
		if (!strcmp(g_quirks[i].name, name)) {
			*q = (enum quirk)i;
			return true;
		}
	}
	return false;
}

enum quirk_kind quirk_kind(enum quirk q)
{
	return q < QUIRK_COUNT ? g_quirks[q].kind : QUIRK_CPU;
}

bool quirk_is_firmware(enum quirk q)
{
	return q < QUIRK_COUNT && g_quirks[q].kind == QUIRK_FIRMWARE;
}

bool quirk_applicable(enum quirk q, const struct caps *c, const struct sim_profile *p)
{
	return q < QUIRK_COUNT && g_quirks[q].applies(c, p);
}

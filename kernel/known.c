/* SPDX-License-Identifier: MIT */
/*
 * The known-deviations table (see known.h): one row per documented
 * deviation, each with its source (verified: the Linux / KVM function, the
 * erratum or the Intel text), the exact checks (test and rule) it fails, and
 * the exact CPUs and platforms its source names. Add a row with its source,
 * never a loosened check. Every row has a simulator quirk that reproduces
 * it (arch/sim/quirks.h, citing the row) and is proven both ways by
 * scripts/check-known.sh.
 * Deviations whose source gives the mechanism only are not rows (README,
 * "expected, unconfirmed").
 */
#include "known.h"

#include "../tests/rules.h"
#include "kstring.h"

#define VENDOR(v) (1u << (v))
/* clang-format off */
#define ANY_STEP(f, m)      {(f), false, (m), 0, 0xF}
#define STEPS(f, m, lo, hi) {(f), false, (m), (lo), (hi)}
#define FAMILY(f)           {(f), true, 0, 0, 0xF}
/* clang-format on */
#define CHECK(test, rule)                                                                          \
	{                                                                                          \
		(test), (rule)                                                                     \
	}
/* Exactly as many models and checks as a row has (static compound literals). */
#define MODELS(...)                                                                                \
	.models = (const struct known_model[]){__VA_ARGS__},                                       \
	.n_models = ARRAY_SIZE(((const struct known_model[]){__VA_ARGS__}))
#define CHECKS(...)                                                                                \
	.checks = (const struct known_check[]){__VA_ARGS__},                                       \
	.n_checks = ARRAY_SIZE(((const struct known_check[]){__VA_ARGS__}))

static const struct known_deviation table[] = {
    /* ---- Intel, bare metal ---- */
    {
	.id = "core2-v2-no-fixed-enumerated",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x0F), ANY_STEP(0x6, 0x16)),
	.features_set = KNOWN_F_V2_NO_FIXED,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("cpuid.leaf_0ah_fields", RULE_CPUID_V2_FIXED),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_ABSENT),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_CTRL_RSVD),
	       CHECK("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD),
	       CHECK("global.reserved_bits_fault", RULE_GLOBAL_OVF_RSVD),
	       CHECK("rdpmc.fixed_type_reads_supported", RULE_RDPMC_FIXED_INDEX),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE)),
	.what = "architectural PMU version 2 with CPUID.0AH:EDX = 0, yet IA32_FIXED_CTR0-2 exist",
	.source = "Linux arch/x86/events/intel/core.c intel_pmu_init(): v2 perfmon does not "
		  "report fixed-purpose events, so assume at least 3 when not in a hypervisor",
    },
    {
	.id = "core2-cpuid-counted-as-branch",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x0F), ANY_STEP(0x6, 0x16)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_BRANCHES)),
	.what = "Branch Instructions Retired (BR_INST_RETIRED.ANY, C4H/00H) also counts CPUID",
	.source = "Intel Core 2 specification update erratum W146: Performance Monitoring Event "
		  "BR_INST_RETIRED May Count CPUID Instructions as Branches",
    },
    {
	.id = "adl-rpl-pcore-counters-beyond-cpuid",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x97), ANY_STEP(0x6, 0x9A), ANY_STEP(0x6, 0xB7), ANY_STEP(0x6, 0xBA),
	       ANY_STEP(0x6, 0xBF)),
	.core_type = CORE_TYPE_CORE,
	.features_set = KNOWN_F_HYBRID,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("versions.gp_msrs_beyond_count_absent", RULE_GP_ABSENT),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_ABSENT),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_CTRL_RSVD),
	       CHECK("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD),
	       CHECK("global.reserved_bits_fault", RULE_GLOBAL_OVF_RSVD),
	       CHECK("rdpmc.gp_index_bounds", RULE_RDPMC_GP_INDEX),
	       CHECK("rdpmc.fixed_type_reads_supported", RULE_RDPMC_FIXED_INDEX),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE)),
	.what = "CPUID.0AH gives the 6 GP and 3 fixed counters both core types share; the P-core "
		"has IA32_PMC6-7 and IA32_FIXED_CTR3 too",
	.source = "Linux arch/x86/events/intel/core.c intel_pmu_init(), Alder Lake / Raptor Lake "
		  "case: the cpu_core PMU gets num_counters + 2 and num_counters_fixed + 1",
    },
    {
	.id = "adl-rpl-pcore-perf-metrics-unenumerated",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x97), ANY_STEP(0x6, 0x9A), ANY_STEP(0x6, 0xB7), ANY_STEP(0x6, 0xBA),
	       ANY_STEP(0x6, 0xBF)),
	.core_type = CORE_TYPE_CORE,
	.features_set = KNOWN_F_HYBRID,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("rdpmc.metrics_type", RULE_RDPMC_METRICS),
	       CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE),
	       CHECK("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD)),
	.what =
	    "IA32_PERF_CAPABILITIES[15] PERF_METRICS_AVAILABLE reads 0 on a hybrid part, yet the "
	    "P-core has IA32_PERF_METRICS, RDPMC type 2000H and IA32_PERF_GLOBAL_CTRL bit 48",
	.source = "Linux arch/x86/events/intel/core.c intel_pmu_cpu_starting(): the perf metrics "
		  "bit is always 0 on a hybrid platform; the Alder Lake init sets perf_metrics for "
		  "the cpu_core PMU",
    },
    {
	.id = "skl-tsx-force-abort-pmc3",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x4E), ANY_STEP(0x6, 0x5E), ANY_STEP(0x6, 0x55), ANY_STEP(0x6, 0x8E),
	       ANY_STEP(0x6, 0x9E), ANY_STEP(0x6, 0xA5), ANY_STEP(0x6, 0xA6)),
	.features_set = KNOWN_F_TSX_FORCE_ABORT,
	.features_clear = KNOWN_F_RTM_ALWAYS_ABORT,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("tsx.in_tx_counts_inside_only", RULE_IN_TX_INSIDE_ONLY)),
	.what = "the TSX microcode uses IA32_PMC3 while a transaction runs unless "
		"MSR_TSX_FORCE_ABORT (10FH) bit 0 is set",
	.source = "Linux arch/x86/events/intel/core.c tfa_get_event_constraints(): without TFA "
		  "PMC3 must not be used; intel_pmu_init() Skylake case with TSX_FORCE_ABORT",
    },
    {
	.id = "dunnington-rdpmc-special-2-9",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x1D)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("rdpmc.gp_index_bounds", RULE_RDPMC_GP_INDEX),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE)),
	.what = "RDPMC type 0 with index 2-9 reads eight 32-bit special-purpose counters, not "
		"#GP(0)",
	.source = "SDM Vol.2B RDPMC (editions up to 2011): on Xeon 7400 series, eight 32-bit "
		  "special-purpose counters addressable with indices 2-9, ECX[30] = 0",
    },
    {
	.id = "atom-bonnell-lbr-no-freeze",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(STEPS(0x6, 0x1C, 0x0, 0x9)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("lbr.freeze_on_pmi", RULE_LBR_FREEZE_LEGACY)),
	.what = "IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI does not freeze the LBR stack on a PMI",
	.source = "Linux arch/x86/events/intel/lbr.c intel_pmu_lbr_init_atom(): only steppings 10 "
		  "and later have an LBR that can freeze on PMU interrupt ('LBR disabled due to "
		  "erratum')",
    },
    {
	.id = "p4-cccr-ovf-not-set",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(FAMILY(0xF)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("netburst.overflow_sets_cccr_ovf", RULE_P4_OVF),
	       CHECK("netburst.cccr_force_ovf", RULE_P4_FORCE_OVF)),
	.what = "a counter overflow can raise its PMI without setting CCCR.OVF",
	.source = "Linux arch/x86/events/intel/p4.c p4_pmu_clear_cccr_ovf(): in some "
		  "circumstances the overflow might issue an NMI but did not set P4_CCCR_OVF",
    },
    {
	.id = "ref-tsc-overflow-sticky",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x3D), ANY_STEP(0x6, 0x47), ANY_STEP(0x6, 0x4E), ANY_STEP(0x6, 0x4F),
	       ANY_STEP(0x6, 0x55), ANY_STEP(0x6, 0x56), ANY_STEP(0x6, 0x5E), ANY_STEP(0x6, 0x6A),
	       ANY_STEP(0x6, 0x6C), ANY_STEP(0x6, 0x7D), ANY_STEP(0x6, 0x7E), ANY_STEP(0x6, 0x8C),
	       ANY_STEP(0x6, 0x8D), ANY_STEP(0x6, 0x8E), ANY_STEP(0x6, 0x8F), ANY_STEP(0x6, 0x9E),
	       ANY_STEP(0x6, 0xA5), ANY_STEP(0x6, 0xA6), ANY_STEP(0x6, 0xA7), ANY_STEP(0x6, 0xAD),
	       ANY_STEP(0x6, 0xAE), ANY_STEP(0x6, 0xCF)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("global.overflow_sets_status_and_ovf_ctrl_clears", RULE_GLOBAL_STATUS_ONLY)),
	.what =
	    "after IA32_FIXED_CTR2 overflowed, clearing its status bit and resetting the counter "
	    "sets bit 34 again (and raises another PMI if enabled)",
	.source = "Intel event description of CPU_CLK_UNHALTED.REF_TSC (intel/perfmon core event "
		  "lists, read at 6dadedf): the overflow status bit may appear 'sticky'; software "
		  "should ignore this case",
    },
    {
	.id = "ref-tsc-overflow-sticky-pcore",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x97), ANY_STEP(0x6, 0x9A), ANY_STEP(0x6, 0xAA), ANY_STEP(0x6, 0xAC),
	       ANY_STEP(0x6, 0xB5), ANY_STEP(0x6, 0xB7), ANY_STEP(0x6, 0xBA), ANY_STEP(0x6, 0xBD),
	       ANY_STEP(0x6, 0xBF), ANY_STEP(0x6, 0xC5), ANY_STEP(0x6, 0xC6), ANY_STEP(0x6, 0xCC),
	       ANY_STEP(0x6, 0xD5), ANY_STEP(0x6, 0xE5), ANY_STEP(0x18, 0x01),
	       ANY_STEP(0x18, 0x03)),
	.core_type = CORE_TYPE_CORE,
	.features_set = KNOWN_F_HYBRID,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("global.overflow_sets_status_and_ovf_ctrl_clears", RULE_GLOBAL_STATUS_ONLY)),
	.what =
	    "as ref-tsc-overflow-sticky, on the P-cores of hybrid parts (the E-core event lists "
	    "do not carry the note)",
	.source = "Intel event description of CPU_CLK_UNHALTED.REF_TSC in the hybrid parts' Core "
		  "(0x40) event lists (intel/perfmon mapfile.csv, read at 6dadedf)",
    },
    {
	.id = "p4-xeon-l3-rdpmc-18-25",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0xF, 0x03), ANY_STEP(0xF, 0x04), ANY_STEP(0xF, 0x06)),
	.features_set = KNOWN_F_L3,
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("rdpmc.nonarch_index_and_fast_read", RULE_RDPMC_BAD_TYPE)),
	.what = "RDPMC ECX = 18-25 reads the eight 32-bit MSR_EMON_L3_CTR_CTL0-7 counters, not "
		"#GP(0)",
	.source = "SDM Vol.2B RDPMC, editions up to 2011 (Table 4-2 and Documentation Changes): "
		  "on 64-bit Xeon processors with L3 and the Xeon 7100 series, indices 18-25 are "
		  "32-bit counters; Vol.3B 18.24.1 (same editions)",
    },
    /* ---- AMD, Zhaoxin ---- */
    {
	.id = "amd-f15h-cu-events-ctr0-2",
	.vendors = VENDOR(VENDOR_AMD),
	MODELS(FAMILY(0x15)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("amd.core_cycles_every_counter", RULE_AMD_CYCLES),
	       CHECK("amd.all_counters_different_events", RULE_AMD_ALL_COUNTERS)),
	.what = "event 076H (CPU clocks not halted, a compute-unit event) counts on PerfCtr0-2 "
		"only",
	.source = "Linux arch/x86/events/amd/core.c family 15h event/PMC table (070H group "
		  "'CU', PERF_CTL[2:0]) and amd_get_event_constraints_f15h()",
    },
    {
	.id = "zxc-ovf-clear-needs-global-enable",
	.vendors = VENDOR(VENDOR_CENTAUR) | VENDOR(VENDOR_ZHAOXIN),
	MODELS(STEPS(0x6, 0x0F, 0xE, 0xF), STEPS(0x6, 0x19, 0x0, 0x3)),
	.platform = KNOWN_BARE_METAL,
	CHECKS(CHECK("global.overflow_sets_status_and_ovf_ctrl_clears", RULE_GLOBAL_OVF_CTRL),
	       CHECK("global.overflow_sets_status_and_ovf_ctrl_clears", RULE_GLOBAL_STATUS_ONLY),
	       CHECK("global.overflow_exactly_at_wrap", RULE_OVF_AT_WRAP),
	       CHECK("global.status_is_read_only", RULE_GLOBAL_STATUS_RO)),
	.what = "IA32_PERF_GLOBAL_OVF_CTRL clears status bits only while IA32_PERF_GLOBAL_CTRL "
		"is enabled",
	.source = "Linux arch/x86/events/zhaoxin/core.c zhaoxin_pmu_init(): clearing status "
		  "works only if the global control is enabled on ZXC (x86_pmu.enabled_ack)",
    },
    /* ---- KVM (CPUID.40000000H "KVMKVMKVM") ---- */
    {
	.id = "kvm-vmware-backdoor-pmcs",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE)),
	.what = "RDPMC ECX = 10000H-10002H returns the host TSC / boot time / apparent time "
		"instead of #GP(0), whatever enable_vmware_backdoor says",
	.source = "Linux arch/x86/kvm/pmu.c kvm_pmu_rdpmc(): is_vmware_backdoor_pmc() indices go "
		  "to kvm_pmu_rdpmc_vmware() once pmu->version != 0 (read at 004a0aa5)",
    },
    {
	.id = "kvm-rdpmc-fast-bit",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("rdpmc.fast_bit_on_arch_pmu", RULE_RDPMC_FAST_ARCH),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_FAST_ARCH),
	       CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE)),
	.what = "RDPMC with ECX[31] set reads the counter (a 32-bit fast read) instead of #GP(0)",
	.source = "Linux arch/x86/kvm/vmx/pmu_intel.c intel_rdpmc_ecx_to_pmc() masks ECX[31:30] "
		  "before the 2024 rework (read at 0033fa35)",
    },
    {
	.id = "kvm-debugctl-freeze-perfmon-gp",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("freeze.legacy_freeze_clears_global_ctrl", RULE_FREEZE_LEGACY)),
	.what = "WRMSR IA32_DEBUGCTL with FREEZE_PERFMON_ON_PMI (bit 12) raises #GP(0)",
	.source = "Linux arch/x86/kvm/vmx/vmx.c vmx_is_valid_debugctl(): bit 12 is not in "
		  "vmx_get_supported_debugctl()",
    },
    {
	.id = "kvm-emulated-insns-unfiltered",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("intercepted.cmask_inv_edge_filter", RULE_INTERCEPT_CMASK),
	       CHECK("intercepted.cmask_inv_edge_filter", RULE_INTERCEPT_INV_EDGE)),
	.what = "an instruction KVM emulates (CPUID, WRMSR, IN) counts as retired whatever "
		"CMASK, INV and EDGE say",
	.source = "Linux arch/x86/kvm/pmu.c kvm_pmu_trigger_event(): ignore checks for edge "
		  "detect, pin control, invert and CMASK bits (004a0aa5)",
    },
    {
	.id = "kvm-lvtpc-not-masked",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("pmi.gp_overflow_delivers_one_pmi", RULE_PMI_LVT_MASK_SET),
	       CHECK("pmi.fixed_overflow_delivers_one_pmi", RULE_PMI_LVT_MASK_SET),
	       CHECK("pmi.nmi_mode_gp_overflow", RULE_PMI_LVT_MASK_SET),
	       CHECK("pmi.nmi_mode_fixed_overflow", RULE_PMI_LVT_MASK_SET)),
	.what = "a PMI leaves the LVT performance-counter entry unmasked",
	.source = "Linux arch/x86/kvm/lapic.c kvm_apic_local_deliver() before the Sept. 2023 fix "
		  "(v6.6) that sets APIC_LVT_MASKED for LVTPC",
    },
    {
	.id = "kvm-amd-reserved-bits-dropped",
	.vendors = VENDOR(VENDOR_AMD) | VENDOR(VENDOR_HYGON),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("amd.event_select_high_and_hg_only", RULE_AMD_SEL_HIGH)),
	.what = "PerfEvtSel writes drop bits 19, 21 and 63:36 (HostOnly / GuestOnly included) "
		"without #GP",
	.source = "Linux arch/x86/kvm/svm/pmu.c amd_pmu_set_msr() clears pmu->reserved_bits "
		  "(0xfffffff000280000, amd_pmu_refresh(); read at 02918f00)",
    },
    {
	.id = "kvm-amd-lvtpc-masked",
	.vendors = VENDOR(VENDOR_AMD) | VENDOR(VENDOR_HYGON),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("amd.pmi_leaves_lvt_unmasked", RULE_AMD_PMI_LVT_UNMASKED)),
	.what = "a PMI sets the LVT performance-counter mask bit (Intel's rule) on an AMD guest",
	.source = "Linux arch/x86/kvm/lapic.c kvm_apic_local_deliver(): LVTPC masked for every "
		  "vendor from the 2023 fix until v6.9 limited it to Intel-compatible guests",
    },
    /* ---- Issue 27: Atom erratum SRF7 (VM exit / entry overcount), under KVM ---- */
    {
	.id = "atom-srf7-vmexit-overcount",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0xAF), ANY_STEP(0x6, 0x4D), ANY_STEP(0x6, 0x5F), ANY_STEP(0x6, 0x86)),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_INSNS),
	       CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_BRANCHES),
	       CHECK("intercepted.usr_os_filter", RULE_INTERCEPT_USR_OS)),
	.what = "Instructions Retired and Branch Instructions Retired count VM exits and entries "
		"(one more each per intercepted instruction)",
	.source = "Intel Xeon 6700E (Sierra Forest) specification update erratum SRF7, applied by "
		  "kvm-unit-tests lib/x86/pmu.c pmu_detect_intel_overcount_errata() (3ffdf39c) to "
		  "06_AFH, 4DH, 5FH and 86H: both events",
    },
    {
	.id = "cwf-vmexit-insn-overcount",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0xDD)),
	.platform = KNOWN_HV_KVM,
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_INSNS),
	       CHECK("intercepted.usr_os_filter", RULE_INTERCEPT_USR_OS)),
	.what = "Instructions Retired counts VM exits and entries (one more per intercepted "
		"instruction)",
	.source = "Erratum SRF7 as kvm-unit-tests lib/x86/pmu.c "
		  "pmu_detect_intel_overcount_errata() (3ffdf39c) applies it to Clearwater Forest "
		  "06_DDH: instructions only",
    },
};

static const char *const platform_names[] = {
    [KNOWN_BARE_METAL] = "bare metal",
    [KNOWN_ANY_PLATFORM] = "any platform",
    [KNOWN_HV_KVM] = "KVMKVMKVM",
};
_Static_assert(ARRAY_SIZE(platform_names) == KNOWN_PLATFORM_COUNT,
	       "a name per enum known_platform");

/* Each enum known_feature bit: its name and its value on a CPU. */
static bool f_tsx_force_abort(const struct caps *c)
{
	return c->tsx_force_abort;
}

static bool f_rtm_always_abort(const struct caps *c)
{
	return c->rtm_always_abort;
}

static bool f_hybrid(const struct caps *c)
{
	return c->hybrid;
}

static bool f_l3(const struct caps *c)
{
	return c->l3_cache;
}

static bool f_v2_no_fixed(const struct caps *c)
{
	return c->pm.present && c->pm.version >= 2 && c->pm.fixed_supported == 0;
}

static const struct {
	unsigned bit;
	const char *name;
	bool (*on)(const struct caps *c);
} features[] = {
    {KNOWN_F_TSX_FORCE_ABORT, "TSX_FORCE_ABORT", f_tsx_force_abort},
    {KNOWN_F_RTM_ALWAYS_ABORT, "RTM_ALWAYS_ABORT", f_rtm_always_abort},
    {KNOWN_F_HYBRID, "HYBRID", f_hybrid},
    {KNOWN_F_L3, "L3", f_l3},
    {KNOWN_F_V2_NO_FIXED, "CPUID.0AH v2 without fixed counters", f_v2_no_fixed},
};
_Static_assert(ARRAY_SIZE(features) == KNOWN_FEATURE_COUNT, "a row per enum known_feature bit");

const char *known_platform_name(enum known_platform p)
{
	return (unsigned)p < KNOWN_PLATFORM_COUNT ? platform_names[p] : "?";
}

const char *known_feature_name(unsigned bit)
{
	for (unsigned i = 0; i < ARRAY_SIZE(features); i++)
		if (features[i].bit == bit)
			return features[i].name;
	return "?";
}

static bool model_matches(const struct known_deviation *k, const struct caps *c)
{
	if (!k->n_models)
		return true;
	for (unsigned i = 0; i < k->n_models; i++) {
		const struct known_model *m = &k->models[i];

		if (m->family == c->family && (m->any_model || m->model == c->model) &&
		    c->stepping >= m->stepping_min && c->stepping <= m->stepping_max)
			return true;
	}
	return false;
}

static bool features_match(const struct known_deviation *k, const struct caps *c)
{
	for (unsigned i = 0; i < ARRAY_SIZE(features); i++) {
		bool on = features[i].on(c);
		if (((k->features_set & features[i].bit) && !on) ||
		    ((k->features_clear & features[i].bit) && on))
			return false;
	}
	return true;
}

static bool platform_matches(const struct known_deviation *k, const struct caps *c)
{
	switch (k->platform) {
	case KNOWN_ANY_PLATFORM:
		return true;
	case KNOWN_BARE_METAL:
		return !c->hypervisor;
	default:
		return c->hypervisor &&
		       !kstrcmp(known_platform_name(k->platform), c->hypervisor_vendor);
	}
}

/* The CPU the test ran on is in the entry's range. */
static bool cpu_matches(const struct known_deviation *k, const struct caps *c)
{
	return (k->vendors == KNOWN_ANY_VENDOR || ((k->vendors >> c->vendor) & 1)) &&
	       model_matches(k, c) &&
	       (k->core_type == CORE_TYPE_NONE || k->core_type == c->core_type) &&
	       features_match(k, c) && platform_matches(k, c);
}

/* "suite.test" against the two parts. */
static bool test_is(const char *full, const char *suite, const char *test)
{
	size_t n = kstrlen(suite);

	return !kstrncmp(full, suite, n) && full[n] == '.' && !kstrcmp(full + n + 1, test);
}

static bool check_listed(const struct known_deviation *k, const char *suite, const char *test,
			 const char *rule)
{
	for (unsigned i = 0; i < k->n_checks; i++)
		if (!kstrcmp(k->checks[i].rule, rule) && test_is(k->checks[i].test, suite, test))
			return true;
	return false;
}

const struct known_deviation *known_match(const struct caps *c, const char *suite, const char *test,
					  const char *rule)
{
	if (!rule)
		return NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(table); i++)
		if (check_listed(&table[i], suite, test, rule) && cpu_matches(&table[i], c))
			return &table[i];
	return NULL;
}

unsigned known_count(void)
{
	return ARRAY_SIZE(table);
}

const struct known_deviation *known_at(unsigned i)
{
	return i < ARRAY_SIZE(table) ? &table[i] : NULL;
}

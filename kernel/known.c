/* SPDX-License-Identifier: MIT */
/*
 * The known-deviations table (see known.h): one row per documented
 * deviation, each with its source (verified: the Linux / KVM function, the
 * erratum or the Intel text), the exact checks (test and rule) it fails, and
 * the exact CPUs and platforms its source names. Add a row with its source,
 * never a loosened check. Every row has a simulator quirk that reproduces
 * it (arch/sim/quirk_table.h, citing the row) and is proven both ways by
 * testing/check-known.sh.
 * Deviations whose source gives the mechanism only are not rows (docs/rules.md,
 * "Expected, unconfirmed").
 */
#include "known.h"

#include "rules.h"
#include "arch.h"
#include "kstring.h"
#include "ktap.h"
#include "msr.h"

#define VENDOR(v) (1u << (v))
/* clang-format off */
#define ANY_STEP(f, m)      {(f), false, (m), 0, 0xF}
#define STEPS(f, m, lo, hi) {(f), false, (m), (lo), (hi)}
#define FAMILY(f)           {(f), true, 0, 0, 0xF}
/* clang-format on */
/* A check of the row: test, rule, the subjects (kind, ids lo..hi) and the
 * outcomes (O() of enum outcome_class) its source describes. */
#define O(c) OUTCOME_BIT(OUTCOME_##c)
#define CHECK(test, rule, kind, lo, hi, outcomes)                                                  \
	{                                                                                          \
		(test), (rule), SUBJECT_##kind, (lo), (hi), 0, 0, (outcomes), 0                    \
	}
/* Event `ev` counted on counters clo..chi. */
#define CHECK_EVENT(test, rule, ev, clo, chi, outcomes)                                            \
	{                                                                                          \
		(test), (rule), SUBJECT_EVENT, (ev), (ev), (clo), (chi), (outcomes), 0             \
	}
/* An aggregated check of `msr` that accepted only bits within `bits`. */
#define CHECK_BITS(test, rule, msr, bits) CHECK_BITS_RANGE(test, rule, msr, msr, bits)
#define CHECK_BITS_RANGE(test, rule, lo, hi, bits)                                                 \
	{                                                                                          \
		(test), (rule), SUBJECT_MSR, (lo), (hi), 0, 0, O(BITS), (bits)                     \
	}
/* Counter enable / status bits of GLOBAL_CTRL, STATUS and OVF_CTRL. */
#define GP_BITS(lo, hi)	   GENMASK_ULL(hi, lo)
#define FIXED_BITS(lo, hi) GENMASK_ULL(32 + (hi), 32 + (lo))
#define ALL_COUNTER_BITS   (GENMASK_ULL(31, 0) | GENMASK_ULL(47, 32))
#define HOST_NOT_FIXED	   0
/* Exactly as many models and checks as a row has (static compound literals). */
#define MODELS(...)                                                                                \
	.models = (const struct known_model[]){__VA_ARGS__},                                       \
	.n_models = ARRAY_SIZE(((const struct known_model[]){__VA_ARGS__}))
#define CHECKS(...)                                                                                \
	.checks = (const struct known_check[]){__VA_ARGS__},                                       \
	.n_checks = ARRAY_SIZE(((const struct known_check[]){__VA_ARGS__}))

/* The KVM releases the rows' sources name. */
/* 2d7921c49946 "KVM: x86: Add support for VMware backdoor Performance
 * Counters" (2018): the release is not confirmed from the source here. */
#define KVM_VMWARE_BACKDOOR_PMCS HOST_KERNEL(4, 17, 0)
/* RDPMC ECX[31] ignored from the first vPMU until 5728a4a0ea79 "KVM:
 * x86/pmu: Disallow "fast" RDPMC for architectural Intel PMUs", pulled
 * with "KVM: x86: PMU changes for 6.9" (kvm-x86-pmu-6.9). */
#define KVM_RDPMC_FAST_FROM  0
#define KVM_RDPMC_FAST_FIXED HOST_KERNEL(6, 9, 0)
/* IA32_DEBUGCTL bits other than LBR / BTF have raised #GP since KVM first
 * emulated the MSR; no release allows FREEZE_PERFMON_ON_PMI. */
#define KVM_DEBUGCTL_FREEZE_FROM 0
/* 9cd803d496e7 "KVM: x86: Update vPMCs when retiring instructions" (the
 * 5.17 merge window, with the pmc_perf_hw_id() rework). */
#define KVM_EMULATED_INSNS_FROM HOST_KERNEL(5, 17, 0)
/* a16eb25b09c0 "KVM: x86: Mask LVTPC when handling a PMI" (6.6-rc); then
 * 49ff3b4aec51 "KVM: x86/pmu: Do not mask LVTPC when handling a PMI on AMD
 * platforms" (6.9-rc). */
#define KVM_LVTPC_MASK_FIXED   HOST_KERNEL(6, 6, 0)
#define KVM_AMD_LVTPC_UNMASKED HOST_KERNEL(6, 9, 0)
/* 9b026073db2f "KVM: x86/svm: Clear reserved bits written to PerfEvtSeln
 * MSRs" (upstream for 5.18; before it, KVM raised #GP). */
#define KVM_AMD_RESERVED_DROPPED_FROM HOST_KERNEL(5, 18, 0)
/* c49467a45fe0 (v6.0) stopped setting IA32_PERF_GLOBAL_CTRL's GP enables at
 * RESET; de120e1d692d (kvm_pmu_refresh(), v6.10) sets them again. */
#define KVM_GLOBAL_CTRL_ZERO_FROM  HOST_KERNEL(6, 0, 0)
#define KVM_GLOBAL_CTRL_ZERO_FIXED HOST_KERNEL(6, 10, 0)

static const struct known_deviation table[] = {
    /* ---- Intel, bare metal ---- */
    {
	.id = "core2-v2-no-fixed-enumerated",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x0F), ANY_STEP(0x6, 0x16)),
	.features_set = KNOWN_F_V2_NO_FIXED,
	.platform = KNOWN_BARE_METAL,
	/* CPUID.0AH enumerates no fixed counter; IA32_FIXED_CTR0-2, their
	 * IA32_FIXED_CTR_CTRL fields, GLOBAL_CTRL / OVF_CTRL bits 32-34 and
	 * RDPMC 40000000H-40000002H answer without a fault. */
	CHECKS(CHECK("cpuid.leaf_0ah_fields", RULE_CPUID_V2_FIXED, CPUID, 0xA, 0xA, O(ZERO)),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_ABSENT, MSR,
		     MSR_IA32_FIXED_CTR(0), MSR_IA32_FIXED_CTR(2), O(NO_FAULT)),
	       CHECK_BITS("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_CTRL_RSVD,
			  MSR_IA32_FIXED_CTR_CTRL, GENMASK_ULL(11, 0)),
	       CHECK_BITS("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD,
			  MSR_IA32_PERF_GLOBAL_CTRL, FIXED_BITS(0, 2)),
	       CHECK_BITS("global.reserved_bits_fault", RULE_GLOBAL_OVF_RSVD,
			  MSR_IA32_PERF_GLOBAL_OVF_CTRL, FIXED_BITS(0, 2)),
	       CHECK("rdpmc.fixed_type_reads_supported", RULE_RDPMC_FIXED_INDEX, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_FIXED, 0), RDPMC_ECX(RDPMC_TYPE_FIXED, 2), O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_FIXED, 0), RDPMC_ECX(RDPMC_TYPE_FIXED, 2), O(NO_FAULT))),
	.what = "architectural PMU version 2 with CPUID.0AH:EDX = 0, yet IA32_FIXED_CTR0-2 exist",
	.source = "Linux arch/x86/events/intel/core.c intel_pmu_init(): v2 perfmon does not "
		  "report fixed-purpose events, so assume at least 3 when not in a hypervisor",
    },
    {
	.id = "core2-cpuid-counted-as-branch",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0x0F), ANY_STEP(0x6, 0x16)),
	.platform = KNOWN_BARE_METAL,
	/* More branches than the loop's in the CPUID loop only. */
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_BRANCHES,
		     INTERCEPT, ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_CPUID, O(PLUS_ONE_PER_ITER))),
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
	/* IA32_PMC6-7 (their PERFEVTSEL and A_PMC aliases), IA32_FIXED_CTR3, its
	 * FIXED_CTR_CTRL field, GLOBAL_CTRL / OVF_CTRL bits 6, 7 and 35 and
	 * RDPMC 6, 7 and 40000003H answer without a fault. */
	CHECKS(CHECK("versions.gp_msrs_beyond_count_absent", RULE_GP_ABSENT, MSR, MSR_IA32_PMC(6),
		     MSR_IA32_PMC(7), O(NO_FAULT)),
	       CHECK("versions.gp_msrs_beyond_count_absent", RULE_GP_ABSENT, MSR,
		     MSR_IA32_PERFEVTSEL(6), MSR_IA32_PERFEVTSEL(7), O(NO_FAULT)),
	       CHECK("versions.gp_msrs_beyond_count_absent", RULE_GP_ABSENT, MSR, MSR_IA32_A_PMC(6),
		     MSR_IA32_A_PMC(7), O(NO_FAULT)),
	       CHECK("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_ABSENT, MSR,
		     MSR_IA32_FIXED_CTR(3), MSR_IA32_FIXED_CTR(3), O(NO_FAULT)),
	       CHECK_BITS("versions.fixed_counters_exist_as_enumerated", RULE_FIXED_CTRL_RSVD,
			  MSR_IA32_FIXED_CTR_CTRL, GENMASK_ULL(15, 12)),
	       CHECK_BITS("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD,
			  MSR_IA32_PERF_GLOBAL_CTRL, GP_BITS(6, 7) | FIXED_BITS(3, 3)),
	       CHECK_BITS("global.reserved_bits_fault", RULE_GLOBAL_OVF_RSVD,
			  MSR_IA32_PERF_GLOBAL_OVF_CTRL, GP_BITS(6, 7) | FIXED_BITS(3, 3)),
	       CHECK("rdpmc.gp_index_bounds", RULE_RDPMC_GP_INDEX, RDPMC, 6, 7, O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE, RDPMC, 6, 7,
		     O(NO_FAULT)),
	       CHECK("rdpmc.fixed_type_reads_supported", RULE_RDPMC_FIXED_INDEX, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_FIXED, 3), RDPMC_ECX(RDPMC_TYPE_FIXED, 3), O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_FIXED, 3), RDPMC_ECX(RDPMC_TYPE_FIXED, 3), O(NO_FAULT))),
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
	/* RDPMC type 2000H reads (any index), GLOBAL_CTRL bit 48 is accepted. */
	CHECKS(CHECK("rdpmc.metrics_type", RULE_RDPMC_METRICS, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_METRICS, 0), RDPMC_ECX(RDPMC_TYPE_METRICS, 0xFFFF),
		     O(NO_FAULT)),
	       CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE, RDPMC,
		     RDPMC_ECX(RDPMC_TYPE_METRICS, 0), RDPMC_ECX(RDPMC_TYPE_METRICS, 0xFFFF),
		     O(NO_FAULT)),
	       CHECK_BITS("global.reserved_bits_fault", RULE_GLOBAL_CTRL_RSVD,
			  MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(48))),
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
	/* IA32_PMC3 only; the microcode's use leaves any value there. */
	CHECKS(CHECK("tsx.in_tx_counts_inside_only", RULE_IN_TX_INSIDE_ONLY, GP, 3, 3,
		     O(ZERO) | O(BELOW) | O(ABOVE))),
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
	/* RDPMC ECX = 2-9 reads: no fault. */
	CHECKS(CHECK("rdpmc.gp_index_bounds", RULE_RDPMC_GP_INDEX, RDPMC, 2, 9, O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE, RDPMC, 2, 9,
		     O(NO_FAULT))),
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
	/* IA32_DEBUGCTL.LBR still set after the PMI. */
	CHECKS(CHECK("lbr.freeze_on_pmi", RULE_LBR_FREEZE_LEGACY, MSR, MSR_IA32_DEBUGCTL,
		     MSR_IA32_DEBUGCTL, O(ABOVE))),
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
	/* A CCCR whose OVF reads 0 after its counter overflowed. */
	CHECKS(CHECK("netburst.overflow_sets_cccr_ovf", RULE_P4_OVF, MSR, MSR_P4_CCCR(0),
		     MSR_P4_CCCR(17), O(ZERO)),
	       CHECK("netburst.cccr_force_ovf", RULE_P4_FORCE_OVF, MSR, MSR_P4_CCCR(0),
		     MSR_P4_CCCR(17), O(ZERO))),
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
	/* GLOBAL_STATUS bit 34 set again (while another counter is tested). */
	CHECKS(CHECK_BITS("global.overflow_sets_status_and_ovf_ctrl_clears",
			  RULE_GLOBAL_STATUS_ONLY, MSR_IA32_PERF_GLOBAL_STATUS, FIXED_BITS(2, 2))),
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
	CHECKS(CHECK_BITS("global.overflow_sets_status_and_ovf_ctrl_clears",
			  RULE_GLOBAL_STATUS_ONLY, MSR_IA32_PERF_GLOBAL_STATUS, FIXED_BITS(2, 2))),
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
	/* RDPMC ECX = 18 (the first index past the 18 counters) reads. */
	CHECKS(CHECK("rdpmc.nonarch_index_and_fast_read", RULE_RDPMC_BAD_TYPE, RDPMC, 18, 25,
		     O(NO_FAULT))),
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
	/* Event 076H on PerfCtr3-5 does not count: it reads 0. */
	CHECKS(CHECK_EVENT("amd.core_cycles_every_counter", RULE_AMD_CYCLES, 0x76, 3, 5, O(ZERO)),
	       CHECK_EVENT("amd.all_counters_different_events", RULE_AMD_ALL_COUNTERS, 0x76, 3, 5,
			   O(ZERO))),
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
	/* Status bits that stay set after a write to OVF_CTRL made with the
	 * global control disabled, and clear with it enabled (the tests tell
	 * this from other causes: stuck_status_outcome(), suites/global.c). */
	CHECKS(CHECK_BITS("global.overflow_sets_status_and_ovf_ctrl_clears", RULE_GLOBAL_OVF_CTRL,
			  MSR_IA32_PERF_GLOBAL_STATUS, ALL_COUNTER_BITS),
	       CHECK_BITS("global.status_is_read_only", RULE_GLOBAL_STATUS_RO,
			  MSR_IA32_PERF_GLOBAL_STATUS, ALL_COUNTER_BITS)),
	.what = "IA32_PERF_GLOBAL_OVF_CTRL clears status bits only while IA32_PERF_GLOBAL_CTRL "
		"is enabled",
	.source = "Linux arch/x86/events/zhaoxin/core.c zhaoxin_pmu_init(): clearing status "
		  "works only if the global control is enabled on ZXC (x86_pmu.enabled_ack)",
    },
    /* ---- KVM (CPUID.40000000H "KVMKVMKVM") ----
     * Each row's host kernels (host_min, host_max): the upstream release
     * whose commit, named in the source, introduced or fixed the deviation.
     * Stable kernels that took the fix earlier are outside no range: a
     * failure there is not excused unless the host's version is in range. */
    {
	.id = "kvm-vmware-backdoor-pmcs",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* RDPMC ECX = 10000H-10002H reads. */
	CHECKS(CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE, RDPMC, 0x10000, 0x10002,
		     O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_BAD_TYPE, RDPMC, 0x10000,
		     0x10002, O(NO_FAULT))),
	.host_min = KVM_VMWARE_BACKDOOR_PMCS,
	.host_max = HOST_NOT_FIXED,
	.vmm = "a vPMU whose RDPMC exits to KVM (the emulated vPMU; a mediated vPMU passes RDPMC "
	       "through), under any VMM; enable_vmware_backdoor does not matter",
	.what = "RDPMC ECX = 10000H-10002H returns the host TSC / boot time / apparent time "
		"instead of #GP(0), whatever enable_vmware_backdoor says",
	.source = "Linux arch/x86/kvm/pmu.c kvm_pmu_rdpmc(): is_vmware_backdoor_pmc() indices go "
		  "to kvm_pmu_rdpmc_vmware() once pmu->version != 0 (read at 004a0aa5)",
    },
    {
	.id = "kvm-rdpmc-fast-bit",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* RDPMC with ECX[31] set reads what ECX[29:0] names (ECX[31:30]
	 * masked: types 8000H-FFFFH, whose low bits name a counter). */
	CHECKS(CHECK("rdpmc.fast_bit_on_arch_pmu", RULE_RDPMC_FAST_ARCH, RDPMC, RDPMC_FAST,
		     0xFFFFFFFF, O(NO_FAULT)),
	       CHECK("rdpmc.gp_and_fixed_outcome_table", RULE_RDPMC_FAST_ARCH, RDPMC, RDPMC_FAST,
		     0xFFFFFFFF, O(NO_FAULT)),
	       CHECK("rdpmc.all_types_sweep", RULE_RDPMC_BAD_TYPE, RDPMC, RDPMC_FAST, 0xFFFFFFFF,
		     O(NO_FAULT))),
	.host_min = KVM_RDPMC_FAST_FROM,
	.host_max = KVM_RDPMC_FAST_FIXED,
	.vmm = "a vPMU whose RDPMC exits to KVM (the emulated vPMU: intel_rdpmc_ecx_to_pmc() is "
	       "KVM's RDPMC emulation), under any VMM",
	.what = "RDPMC with ECX[31] set reads the counter (a 32-bit fast read) instead of #GP(0)",
	.source = "Linux arch/x86/kvm/vmx/pmu_intel.c intel_rdpmc_ecx_to_pmc() masks ECX[31:30] "
		  "before the 2024 rework (read at 0033fa35)",
    },
    {
	.id = "kvm-debugctl-freeze-perfmon-gp",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* The WRMSR of IA32_DEBUGCTL raises #GP(0). */
	CHECKS(CHECK("freeze.legacy_freeze_clears_global_ctrl", RULE_FREEZE_LEGACY, MSR,
		     MSR_IA32_DEBUGCTL, MSR_IA32_DEBUGCTL, O(GP))),
	.host_min = KVM_DEBUGCTL_FREEZE_FROM,
	.host_max = HOST_NOT_FIXED,
	.vmm = "any VMM on VMX: KVM's own WRMSR check",
	.what = "WRMSR IA32_DEBUGCTL with FREEZE_PERFMON_ON_PMI (bit 12) raises #GP(0)",
	.source = "Linux arch/x86/kvm/vmx/vmx.c vmx_is_valid_debugctl(): bit 12 is not in "
		  "vmx_get_supported_debugctl()",
    },
    {
	.id = "kvm-emulated-insns-unfiltered",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* One instruction counted per iteration (the emulated one) in the
	 * CPUID, WRMSR and IN loops, above the 0 or 1 the filter allows. */
	CHECKS(CHECK("intercepted.cmask_inv_edge_filter", RULE_INTERCEPT_CMASK, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER)),
	       CHECK("intercepted.cmask_inv_edge_filter", RULE_INTERCEPT_INV_EDGE, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER))),
	.host_min = KVM_EMULATED_INSNS_FROM,
	.host_max = HOST_NOT_FIXED,
	.vmm = "any VMM: the instructions KVM itself emulates",
	.what = "an instruction KVM emulates (CPUID, WRMSR, IN) counts as retired whatever "
		"CMASK, INV and EDGE say",
	.source = "Linux arch/x86/kvm/pmu.c kvm_pmu_trigger_event(): ignore checks for edge "
		  "detect, pin control, invert and CMASK bits (004a0aa5)",
    },
    {
	.id = "kvm-lvtpc-not-masked",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* The LVT performance-counter entry's mask bit reads 0. */
	CHECKS(CHECK("pmi.gp_overflow_delivers_one_pmi", RULE_PMI_LVT_MASK_SET, APIC,
		     SUBJECT_APIC_LVT_PMI, SUBJECT_APIC_LVT_PMI, O(ZERO)),
	       CHECK("pmi.fixed_overflow_delivers_one_pmi", RULE_PMI_LVT_MASK_SET, APIC,
		     SUBJECT_APIC_LVT_PMI, SUBJECT_APIC_LVT_PMI, O(ZERO)),
	       CHECK("pmi.nmi_mode_gp_overflow", RULE_PMI_LVT_MASK_SET, APIC, SUBJECT_APIC_LVT_PMI,
		     SUBJECT_APIC_LVT_PMI, O(ZERO)),
	       CHECK("pmi.nmi_mode_fixed_overflow", RULE_PMI_LVT_MASK_SET, APIC,
		     SUBJECT_APIC_LVT_PMI, SUBJECT_APIC_LVT_PMI, O(ZERO))),
	.host_min = 0,
	.host_max = KVM_LVTPC_MASK_FIXED,
	.vmm = "any VMM using KVM's in-kernel local APIC",
	.what = "a PMI leaves the LVT performance-counter entry unmasked",
	.source = "Linux arch/x86/kvm/lapic.c kvm_apic_local_deliver() before the Sept. 2023 fix "
		  "(v6.6) that sets APIC_LVT_MASKED for LVTPC",
    },
    {
	.id = "kvm-amd-reserved-bits-dropped",
	.vendors = VENDOR(VENDOR_AMD) | VENDOR(VENDOR_HYGON),
	.platform = KNOWN_HV_KVM,
	/* PerfEvtSel read back without bits 19, 21, 63:36 (those dropped). */
	CHECKS(CHECK_BITS_RANGE("amd.event_select_high_and_hg_only", RULE_AMD_SEL_HIGH,
				MSR_K7_EVNTSEL0, MSR_K7_EVNTSEL0 + 3, 0xfffffff000280000ULL),
	       CHECK_BITS_RANGE("amd.event_select_high_and_hg_only", RULE_AMD_SEL_HIGH,
				MSR_F15H_PERF_CTL0, MSR_F15H_PERF_CTL0 + 10,
				0xfffffff000280000ULL)),
	.host_min = KVM_AMD_RESERVED_DROPPED_FROM,
	.host_max = HOST_NOT_FIXED,
	.vmm = "any VMM on SVM: KVM's PerfEvtSel WRMSR handler",
	.what = "PerfEvtSel writes drop bits 19, 21 and 63:36 (HostOnly / GuestOnly included) "
		"without #GP",
	.source = "Linux arch/x86/kvm/svm/pmu.c amd_pmu_set_msr() clears pmu->reserved_bits "
		  "(0xfffffff000280000, amd_pmu_refresh(); read at 02918f00)",
    },
    {
	.id = "kvm-amd-lvtpc-masked",
	.vendors = VENDOR(VENDOR_AMD) | VENDOR(VENDOR_HYGON),
	.platform = KNOWN_HV_KVM,
	/* The LVT performance-counter entry's mask bit reads 1. */
	CHECKS(CHECK("amd.pmi_leaves_lvt_unmasked", RULE_AMD_PMI_LVT_UNMASKED, APIC,
		     SUBJECT_APIC_LVT_PMI, SUBJECT_APIC_LVT_PMI, O(ABOVE))),
	.host_min = KVM_LVTPC_MASK_FIXED,
	.host_max = KVM_AMD_LVTPC_UNMASKED,
	.vmm = "any VMM using KVM's in-kernel local APIC",
	.what = "a PMI sets the LVT performance-counter mask bit (Intel's rule) on an AMD guest",
	.source = "Linux arch/x86/kvm/lapic.c kvm_apic_local_deliver(): LVTPC masked for every "
		  "vendor from the 2023 fix until v6.9 limited it to Intel-compatible guests",
    },
    /* ---- Atom erratum SRF7 (VM exit / entry overcount), under KVM ---- */
    {
	.id = "atom-srf7-vmexit-overcount",
	.vendors = VENDOR(VENDOR_INTEL),
	MODELS(ANY_STEP(0x6, 0xAF), ANY_STEP(0x6, 0x4D), ANY_STEP(0x6, 0x5F), ANY_STEP(0x6, 0x86)),
	.platform = KNOWN_HV_KVM,
	/* One more instruction and branch per iteration of an intercepted loop. */
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_INSNS, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER)),
	       CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_BRANCHES,
		     INTERCEPT, ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER)),
	       CHECK("intercepted.usr_os_filter", RULE_INTERCEPT_USR_OS, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER))),
	.host_min = 0,
	.host_max = HOST_NOT_FIXED, /* the CPU's erratum: any host kernel */
	.together = true,	    /* both events (SRF7 adds to each): one alone is not SRF7 */
	.vmm = "any VMM: the CPU's erratum counts VM exits and entries",
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
	/* One more instruction per iteration of an intercepted loop. */
	CHECKS(CHECK("intercepted.instructions_and_branches_exact", RULE_INTERCEPT_INSNS, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER)),
	       CHECK("intercepted.usr_os_filter", RULE_INTERCEPT_USR_OS, INTERCEPT,
		     ARCH_INTERCEPT_CPUID, ARCH_INTERCEPT_IN, O(PLUS_ONE_PER_ITER))),
	.host_min = 0,
	.host_max = HOST_NOT_FIXED, /* the CPU's erratum: any host kernel */
	.vmm = "any VMM: the CPU's erratum counts VM exits and entries",
	.what = "Instructions Retired counts VM exits and entries (one more per intercepted "
		"instruction)",
	.source = "Erratum SRF7 as kvm-unit-tests lib/x86/pmu.c "
		  "pmu_detect_intel_overcount_errata() (3ffdf39c) applies it to Clearwater Forest "
		  "06_DDH: instructions only",
    },
    /* ---- KVM: reset values ---- */
    {
	.id = "kvm-global-ctrl-reset-zero",
	.vendors = VENDOR(VENDOR_INTEL),
	.platform = KNOWN_HV_KVM,
	/* IA32_PERF_GLOBAL_CTRL read 0 at hand-over where no firmware ran:
	 * KVM's RESET value on the hosts between the two commits. */
	CHECKS(CHECK("cpuid.global_ctrl_reset_value", RULE_GLOBAL_CTRL_RESET_VALUE, MSR,
		     MSR_IA32_PERF_GLOBAL_CTRL, MSR_IA32_PERF_GLOBAL_CTRL, O(ZERO))),
	.host_min = KVM_GLOBAL_CTRL_ZERO_FROM,
	.host_max = KVM_GLOBAL_CTRL_ZERO_FIXED,
	.vmm = "a guest that boots with no firmware, so that it reads KVM's RESET value "
	       "(minivmm, Firecracker); QEMU writes its own reset value 0 on every host, but a "
	       "firmware runs there first and the check does not judge the value",
	.what = "IA32_PERF_GLOBAL_CTRL comes out of a vCPU reset as 0 instead of the GP "
		"counters' enable bits",
	.source = "Linux arch/x86/kvm/pmu.c: c49467a45fe0 (v6.0) stopped setting it at RESET; "
		  "de120e1d692d (kvm_pmu_refresh(), 2024, v6.10) sets bits n-1:0 again; QEMU "
		  "kvm_put_msrs() writes its own reset value 0 at KVM_PUT_RESET_STATE",
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
bool known_covers_cpu(const struct known_deviation *k, const struct caps *c)
{
	return cpu_matches(k, c);
}

static bool test_is(const char *full, const char *suite, const char *test)
{
	size_t n = kstrlen(suite);

	return !kstrncmp(full, suite, n) && full[n] == '.' && !kstrcmp(full + n + 1, test);
}

/* Whether seen[0..n) has a failure of `rule` on the subject of s. */
static bool seen_on(const struct known_seen *seen, unsigned n, const char *rule,
		    const struct known_seen *s)
{
	for (unsigned j = 0; j < n; j++)
		if (seen[j].kind == s->kind && seen[j].id == s->id && !kstrcmp(seen[j].rule, rule))
			return true;
	return false;
}

/* Whether `rule` is one of k's checks on suite.test. */
static bool row_rule_on(const struct known_deviation *k, const char *suite, const char *test,
			const char *rule)
{
	for (unsigned i = 0; i < k->n_checks; i++)
		if (test_is(k->checks[i].test, suite, test) && !kstrcmp(k->checks[i].rule, rule))
			return true;
	return false;
}

bool known_together_met(const struct known_deviation *k, const char *suite, const char *test,
			const struct known_seen *seen, unsigned n)
{
	for (unsigned s = 0; k->together && s < n; s++) {
		if (!row_rule_on(k, suite, test, seen[s].rule))
			continue;
		for (unsigned i = 0; i < k->n_checks; i++)
			if (test_is(k->checks[i].test, suite, test) &&
			    !seen_on(seen, n, k->checks[i].rule, &seen[s]))
				return false;
	}
	return true;
}

/* The failure's subject and outcome are the ones the row's check names. */
static bool observed_matches(const struct known_check *k, const struct known_failure *f)
{
	const struct check_subject *s = f->subject;
	const struct check_outcome *o = f->outcome;

	if (!s || !o || s->kind == SUBJECT_NONE || s->kind != k->subject || s->id < k->lo ||
	    s->id > k->hi)
		return false;
	if (s->kind == SUBJECT_EVENT && (s->counter < k->counter_lo || s->counter > k->counter_hi))
		return false;
	if (o->cls == OUTCOME_NONE || !(k->outcomes & OUTCOME_BIT(o->cls)))
		return false;
	/* Reserved bits: the row names some of them (known_match() requires
	 * the rows that match to name them all). */
	return o->cls != OUTCOME_BITS || (o->bits & k->bits);
}

static bool check_listed(const struct known_deviation *k, const struct known_failure *f)
{
	for (unsigned i = 0; i < k->n_checks; i++)
		if (!kstrcmp(k->checks[i].rule, f->rule) &&
		    test_is(k->checks[i].test, f->suite, f->test) &&
		    observed_matches(&k->checks[i], f))
			return true;
	return false;
}

/* The host's kernel is known to be in the row's range (a row without one:
 * any host). */
static bool host_in_range(const struct known_deviation *k, uint32_t v)
{
	if (!k->host_min && !k->host_max)
		return true;
	return v != HOST_KERNEL_UNKNOWN && v >= k->host_min && (!k->host_max || v < k->host_max);
}

/* The bits of f's OUTCOME_BITS that row k names for f's check. */
static uint64_t row_bits(const struct known_deviation *k, const struct known_failure *f)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < k->n_checks; i++)
		if (!kstrcmp(k->checks[i].rule, f->rule) &&
		    test_is(k->checks[i].test, f->suite, f->test) &&
		    observed_matches(&k->checks[i], f))
			b |= k->checks[i].bits;
	return b;
}

struct known_verdict known_match(const struct caps *c, const struct known_failure *f)
{
	struct known_verdict v = {0};
	bool bits = f->outcome && f->outcome->cls == OUTCOME_BITS;
	uint64_t covered = 0;

	if (!f->rule)
		return v;
	for (unsigned i = 0; i < ARRAY_SIZE(table); i++) {
		const struct known_deviation *k = &table[i];
		if (!check_listed(k, f) || !cpu_matches(k, c))
			continue;
		if (!host_in_range(k, f->host_kernel)) {
			if (!v.host_row) {
				v.host_row = k;
				v.host_unknown = f->host_kernel == HOST_KERNEL_UNKNOWN;
			}
			continue;
		}
		if (!v.row)
			v.row = k;
		if (!bits)
			return v;
		/* Accepted reserved bits: excused when the rows that apply
		 * name every one of them (a CPU may have two such rows). */
		covered |= row_bits(k, f);
	}
	if (bits && (f->outcome->bits & ~covered))
		v.row = NULL;
	return v;
}

static const char *const subject_names[] = {
    [SUBJECT_NONE] = "none", [SUBJECT_MSR] = "msr",	[SUBJECT_RDPMC] = "rdpmc",
    [SUBJECT_GP] = "gp",     [SUBJECT_FIXED] = "fixed", [SUBJECT_EVENT] = "event",
    [SUBJECT_APIC] = "apic", [SUBJECT_CPUID] = "cpuid", [SUBJECT_INTERCEPT] = "intercept",
};
_Static_assert(ARRAY_SIZE(subject_names) == SUBJECT_KIND_COUNT, "a name per enum subject_kind");

static const char *const outcome_names[] = {
    [OUTCOME_NONE] = "none",   [OUTCOME_NO_FAULT] = "no-fault",
    [OUTCOME_GP] = "#GP(0)",   [OUTCOME_GP_CODE] = "#GP(code)",
    [OUTCOME_UD] = "#UD",      [OUTCOME_FAULT] = "fault",
    [OUTCOME_ZERO] = "zero",   [OUTCOME_BELOW] = "below",
    [OUTCOME_ABOVE] = "above", [OUTCOME_EQUAL] = "equal",
    [OUTCOME_BITS] = "bits",   [OUTCOME_PLUS_ONE_PER_ITER] = "plus-one-per-iteration",
};
_Static_assert(ARRAY_SIZE(outcome_names) == OUTCOME_CLASS_COUNT, "a name per enum outcome_class");

void known_format_observed(char *buf, size_t n, const struct check_subject *s,
			   const struct check_outcome *o)
{
	size_t at = 0;

	if (s->kind == SUBJECT_NONE || (unsigned)s->kind >= SUBJECT_KIND_COUNT)
		ksnprintf(buf, n, "subject=none");
	else
		ksnprintf(buf, n, "%s=%#llx", subject_names[s->kind], (unsigned long long)s->id);
	at = kstrlen(buf);
	if (s->kind == SUBJECT_EVENT && at < n)
		ksnprintf(buf + at, n - at, " counter=%u", s->counter);
	at = kstrlen(buf);
	if (at < n)
		ksnprintf(buf + at, n - at, " outcome=%s",
			  (unsigned)o->cls < OUTCOME_CLASS_COUNT ? outcome_names[o->cls] : "none");
	at = kstrlen(buf);
	if (o->cls == OUTCOME_BITS && at < n)
		ksnprintf(buf + at, n - at, " bits=%#llx", (unsigned long long)o->bits);
}

void known_format_check(char *buf, size_t n, const struct known_check *k)
{
	size_t at;

	ksnprintf(buf, n, "%s=%#llx", subject_names[k->subject], (unsigned long long)k->lo);
	at = kstrlen(buf);
	if (k->hi != k->lo && at < n)
		ksnprintf(buf + at, n - at, "-%#llx", (unsigned long long)k->hi);
	at = kstrlen(buf);
	if (k->subject == SUBJECT_EVENT && at < n)
		ksnprintf(buf + at, n - at, " counter=%u-%u", k->counter_lo, k->counter_hi);
	at = kstrlen(buf);
	for (unsigned c = 0, first = 1; c < OUTCOME_CLASS_COUNT && at < n; c++) {
		if (!(k->outcomes & OUTCOME_BIT(c)))
			continue;
		ksnprintf(buf + at, n - at, "%s%s", first ? " outcome=" : "|", outcome_names[c]);
		at = kstrlen(buf);
		first = 0;
	}
	if ((k->outcomes & OUTCOME_BIT(OUTCOME_BITS)) && at < n)
		ksnprintf(buf + at, n - at, " bits<=%#llx", (unsigned long long)k->bits);
}

void known_format_kernel(char *buf, size_t n, uint32_t v)
{
	ksnprintf(buf, n, "%u.%u.%u", v >> 24, (v >> 16) & 0xFF, v & 0xFFFF);
}

unsigned known_count(void)
{
	return ARRAY_SIZE(table);
}

const struct known_deviation *known_at(unsigned i)
{
	return i < ARRAY_SIZE(table) ? &table[i] : NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The capability record: everything the suite decides from CPUID (and
 * IA32_PERF_CAPABILITIES), decoded once by caps_decode() from register
 * values. Pure C: the decoder touches no hardware, so the kernel, the
 * simulator and the host tool pmucaps share this one copy.
 *
 * Field sources are cited beside each field (SDM Vol. 2A CPUID, Vol. 3B
 * chapters 17 and 20, AMD64 APM Vol. 3 CPUID).
 */
#ifndef PMUTEST_CAPS_H
#define PMUTEST_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h" /* struct cpuid_regs */
#include "msr.h"  /* ARCH_EVENT_COUNT */

/* The vendors the suite knows by name (CPUID.0H). The architectural PMU does
 * not depend on the name: it is whatever leaf 0AH enumerates, on any vendor
 * that defines the leaf (Intel, Centaur/VIA, Zhaoxin, and unknown strings
 * such as a corrupted "GenuineIotel"); AMD and Hygon reserve it. */
enum cpu_vendor {
	VENDOR_UNKNOWN,
	VENDOR_INTEL,
	VENDOR_AMD,
	VENDOR_HYGON,
	VENDOR_CENTAUR, /* "CentaurHauls": VIA, and Zhaoxin's earlier parts */
	VENDOR_ZHAOXIN, /* "  Shanghai  " */
	VENDOR_COUNT
};

/* CPUID.1AH:EAX[31:24] core type on hybrid parts. */
enum core_type { CORE_TYPE_NONE = 0, CORE_TYPE_ATOM = 0x20, CORE_TYPE_CORE = 0x40 };

struct caps_arch_perfmon {
	bool present;	      /* leaf 0AH <= max basic leaf and version != 0 */
	unsigned version;     /* CPUID.0AH:EAX[7:0] */
	unsigned gp_counters; /* CPUID.0AH:EAX[15:8] */
	unsigned gp_width;    /* CPUID.0AH:EAX[23:16] */
	unsigned ebx_length;  /* CPUID.0AH:EAX[31:24] */
	uint32_t ebx;	      /* CPUID.0AH:EBX: bit set = event NOT available */
	/* event i available iff i < ebx_length and EBX[i] == 0 */
	bool event_available[ARCH_EVENT_COUNT];
	unsigned fixed_counters_edx; /* CPUID.0AH:EDX[4:0] (v2+) */
	unsigned fixed_width;	     /* CPUID.0AH:EDX[12:5] (v2+) */
	uint32_t fixed_bitmask;	     /* CPUID.0AH:ECX (v5+); 0 otherwise */
	/*
	 * The one rule for "counter i exists" (used through kernel/pmu.h's
	 * pmu_gp_present / pmu_fixed_present and for_each_*_counter): where
	 * CPUID.(23H,1) is valid its bitmaps, holes included; elsewhere GP
	 * counter i iff i < EAX[15:8], fixed counter i iff ECX[i] == 1 or
	 * i < EDX[4:0] (v5 rule; before v5 ECX is 0).
	 */
	uint32_t fixed_supported;  /* bit i set = fixed counter i exists */
	bool anythread_deprecated; /* CPUID.0AH:EDX[15] */
	uint64_t gp_mask;	   /* bit i set = GP counter i exists */
	uint32_t raw_eax, raw_edx; /* CPUID.0AH:EAX / EDX as read, for reports */
};

/* Leaf 23H "Architectural Performance Monitoring Extended Leaf". */
struct caps_leaf23 {
	bool enumerated;	/* CPUID.(07H,1):EAX[8] ArchPerfmonExt */
	bool present;		/* enumerated and 23H <= max basic leaf */
	uint32_t subleaf_valid; /* sub-leaf 0 EAX: bit n = sub-leaf n valid */
	bool umask2;		/* sub-leaf 0 EBX[0] */
	bool eq;		/* sub-leaf 0 EBX[1] */
	uint32_t features;	/* sub-leaf 0 EBX as read */
	bool counters_valid;	/* sub-leaf 1 present (EAX bit 1) */
	uint32_t gp_bitmap;	/* sub-leaf 1 EAX */
	uint32_t fixed_bitmap;	/* sub-leaf 1 EBX */
	/* Sub-leaf 0 EBX[2] RDPMC_USR_DISABLE: IA32_PERFEVTSELx bit 37 and
	 * IA32_FIXED_CTR_CTRL bit 33 + 4i are defined ("starting with Panther
	 * Cove"; Linux 59af95e028d4 `cpuid35_ebx.rdpmc_user_disable`). */
	bool rdpmc_user_disable;
	/* Sub-leaf 2 (EAX[2]) Auto Counter Reload, SDM Vol. 3B "Auto Counter
	 * Reload": counters that can be reloaded (EAX GP, EBX fixed) and that
	 * can cause a reload (ECX GP, EDX fixed). */
	bool acr_valid;
	uint32_t acr_gp_reloadable, acr_fixed_reloadable;
	uint32_t acr_gp_cause, acr_fixed_cause;
	/* Sub-leaf 3 (EAX[3]): EAX, the architectural events supported, bit i
	 * = event i of Table 20-1 (positive sense, unlike CPUID.0AH:EBX; KVM
	 * reads it so, kvm/vmx/pmu_intel.c `entry23_3->eax`). */
	bool events_valid;
	uint32_t events_bitmap;
	/* Sub-leaves 4 and 5 (EAX[4] and EAX[5]) architectural PEBS: sub-leaf
	 * 4 EBX, the capabilities, bit k = IA32_PMC_*_CFG_C bit 32 + k (Linux
	 * `arch_pebs_cap.caps = ebx << 32`); sub-leaf 5, the counters that
	 * support arch-PEBS (EAX GP, ECX fixed) and PDIST (EBX GP, EDX fixed).
	 * arch_pebs: both sub-leaves valid ("Bits[5:4] should be set
	 * simultaneously if arch-PEBS is supported", Linux d243d0bb64af). */
	bool pebs_caps_valid;
	uint32_t pebs_caps;
	bool pebs_counters_valid;
	uint32_t pebs_gp, pebs_fixed, pdist_gp, pdist_fixed;
	bool arch_pebs;
};

struct caps_rdt_l3_mon {
	/* CPUID.(0FH,0):EDX[1], and sub-leaf 1 known: a dump that lacks the
	 * sub-leaf leaves its parameters unknown (not zero), so nothing that
	 * needs them is checked (`unknown` says why). */
	bool present;
	bool unknown;
	uint32_t max_rmid;	/* CPUID.(0FH,1):ECX */
	uint32_t upscale;	/* CPUID.(0FH,1):EBX */
	unsigned counter_width; /* 24 + CPUID.(0FH,1):EAX[7:0] */
	bool overflow_bit;	/* CPUID.(0FH,1):EAX[8]: IA32_QM_CTR bit 61 */
	bool occupancy;		/* CPUID.(0FH,1):EDX[0] */
	bool total_bw;		/* EDX[1] */
	bool local_bw;		/* EDX[2] */
};

/* AMD PQoS bandwidth extensions, CPUID 8000_0020H (APM Vol. 2 19.3.3,
 * 19.4.4-19.4.7), decoded with PQE on an AMD-like vendor. A feature's
 * sub-leaf that reads all zeros (absent from a dump) leaves its parameters
 * unknown: *_valid false. */
struct caps_amd_pqos {
	bool present;			       /* 8000_0020H <= max extended leaf */
	bool be;			       /* CPUID.8000_0008H:EBX[6], bandwidth enforcement */
	bool l3be, l3smbe, bmec, abmc, sdciae; /* (8000_0020H,0):EBX[1,2,3,5,6] */
	uint32_t ebx0;			       /* as read: bits not decoded here included */
	bool l3be_valid, l3smbe_valid, bmec_valid, abmc_valid;
	unsigned bw_len, bw_max_cos;	 /* (8000_0020H,1): EAX, EDX */
	unsigned smbw_len, smbw_max_cos; /* (8000_0020H,2): EAX, EDX */
	unsigned evt_num;		 /* (8000_0020H,3): EBX[7:0] */
	uint32_t evt_types;		 /* (8000_0020H,3): ECX[6:0] */
	unsigned abmc_counters;		 /* (8000_0020H,5): EBX[15:0] + 1 */
	bool abmc_cos_bind;		 /* (8000_0020H,5): ECX[0] */
};

struct caps_rdt {
	bool pqm;	   /* CPUID.(07H,0):EBX[12] */
	bool pqe;	   /* CPUID.(07H,0):EBX[15] */
	bool mon_present;  /* leaf 0FH readable and PQM */
	uint32_t max_rmid; /* CPUID.(0FH,0):EBX */
	struct caps_rdt_l3_mon l3;
	/* allocation, CPUID.(10H,0):EBX[1..3] and the sub-leaves */
	bool alloc_present;
	bool l3_cat, l2_cat, mba;
	unsigned l3_cbm_len, l3_max_cos;     /* (10H,1): EAX[4:0]+1, EDX[15:0] */
	unsigned l2_cbm_len, l2_max_cos;     /* (10H,2) */
	unsigned mba_max_delay, mba_max_cos; /* (10H,3): EAX[11:0]+1, EDX[15:0] */
	/* A resource's sub-leaf that reads all zeros (absent from a dump, or
	 * zeroed by a hypervisor) enumerates nothing: params_valid false. */
	bool l3_params_valid, l2_params_valid, mba_params_valid;
	bool l3_cdp, l2_cdp;		     /* (10H,1/2):ECX[2] */
	uint32_t l3_isolation, l2_isolation; /* (10H,1/2):EBX */
	bool mba_linear;		     /* (10H,3):ECX[2] */
	/* Newer bits (Linux scattered.c / core.c read them; the 2016 SDM
	 * calls them reserved, so they are 0 on older parts): (10H,1/2):ECX[3]
	 * non-contiguous CBMs allowed, (10H,1):ECX[1] L3 allocation for
	 * non-CPU agents, (10H,3):ECX[0] per-thread MBA controls. */
	bool l3_noncont, l2_noncont;
	bool l3_io_alloc;
	bool mba_per_thread;
	struct caps_amd_pqos amd;
};

struct caps_perf_capabilities {
	bool valid; /* read (PDCM set and RDMSR did not fault) */
	uint64_t raw;
	unsigned lbr_format;
	bool pebs_trap, pebs_arch_reg;
	unsigned pebs_format;
	bool freeze_while_smm;
	bool full_width_write; /* bit 13: IA32_A_PMCx */
	bool pebs_baseline;
	bool perf_metrics;   /* bit 15: PERF_METRICS_AVAILABLE */
	bool pebs_output_pt; /* bit 16: PEBS_OUTPUT_PT_AVAIL */
	/* Bit 17 PEBS_TIMING_INFO, timed PEBS: the basic record's format field
	 * is bits 31:0 and bits 47:32 hold the retire latency (ISE "Timed
	 * Processor Event Based Sampling"; Linux 0c5caea762de). */
	bool pebs_timing_info;
	/* Bit 19 RDPMC_METRICS_CLEAR: IA32_FIXED_CTR_CTRL bit 14 METRICS_CLEAR_EN
	 * is defined (ISE "RDPMC metrics clear mode"; Linux 0e45818ec189). */
	bool rdpmc_metrics_clear;
	/* PEBS_FMT = 0FH: architectural PEBS, no IA32_PEBS_ENABLE nor
	 * MSR_PEBS_DATA_CFG (Linux d243d0bb64af, intel_pebs_init). */
	bool arch_pebs_format;
	/* Bits no source this project read defines (18 and 63:20): shown, never
	 * decoded. Linux names bit 18 `__reserved` (it was once a software-only
	 * copy of CPUID.0AH:EDX[15]). */
	uint64_t undefined_bits;
};

/* Architectural LBRs: CPUID.(07H,0):EDX[19] and leaf 1CH (SDM Vol. 2A CPUID
 * leaf 1CH "Last Branch Records Information Leaf"; Vol. 3B 19.1). */
struct caps_arch_lbr {
	bool enumerated;     /* CPUID.(07H,0):EDX[19] Arch LBR */
	bool present;	     /* enumerated and 1CH <= max basic leaf */
	uint32_t depth_mask; /* 1CH EAX[7:0]: bit n = depth 8*(n+1) */
	bool deep_c_reset;   /* 1CH EAX[30] */
	bool lip;	     /* 1CH EAX[31]: IPs are linear, not effective */
	bool cpl_filter;     /* 1CH EBX[0] */
	bool branch_filter;  /* 1CH EBX[1] */
	bool call_stack;     /* 1CH EBX[2] */
	bool mispredict;     /* 1CH ECX[0]: LBR_INFO.MISPRED */
	bool timed;	     /* 1CH ECX[1]: LBR_INFO.CYC_CNT */
	bool branch_type;    /* 1CH ECX[2]: LBR_INFO.BR_TYPE */
	/* 1CH ECX[19:16] "Branch counters (Event Logging) Supported" (Linux
	 * `cpuid28_ecx.lbr_counters`, 33744916196b): bit i for IA32_PMCi;
	 * nonzero makes IA32_PERFEVTSELx bit 35 (BR_CNTR) defined. */
	uint32_t event_logging;
	unsigned max_depth; /* the largest depth enumerated, 0 when none */
};

struct caps_amd {
	bool ext1_present;	    /* 80000001H <= max extended leaf */
	bool perfctr_core;	    /* CPUID.80000001H:ECX[23] PerfCtrExtCore */
	bool perfctr_nb;	    /* CPUID.80000001H:ECX[24] PerfCtrExtNB (DF) */
	bool perfctr_llc;	    /* CPUID.80000001H:ECX[28] PerfCtrExtLLC (L3) */
	bool ext22_present;	    /* 80000022H <= max extended leaf */
	bool perfmon_v2;	    /* CPUID.80000022H:EAX[0] */
	bool lbr_stack_v2;	    /* CPUID.80000022H:EAX[1] */
	bool lbr_pmc_freeze;	    /* CPUID.80000022H:EAX[2] LbrAndPmcFreeze */
	unsigned num_core_pmc_v2;   /* CPUID.80000022H:EBX[3:0] */
	unsigned lbr_v2_stack_size; /* CPUID.80000022H:EBX[9:4] */
	unsigned num_df_pmc_v2;	    /* CPUID.80000022H:EBX[15:10] */
	unsigned num_umc_pmc_v2;    /* CPUID.80000022H:EBX[21:16] */
	unsigned core_counters;	    /* 4 legacy, 6 PerfCtrExtCore, or EBX[3:0] */
};

struct caps {
	enum cpu_vendor vendor;
	char vendor_string[13];
	bool vendor_control;		  /* CPUID.0H spelt bytes outside printable ASCII */
	unsigned family, model, stepping; /* display family / model rules */
	uint32_t signature;		  /* CPUID.01H:EAX */
	uint32_t max_basic_leaf, max_ext_leaf;
	/* CPUID.80000000H:EAX is a maximum only when it is 8000xxxxH; before
	 * that the extended range does not exist (max_ext_leaf is then 0). */
	bool max_ext_valid;
	bool hypervisor; /* CPUID.01H:ECX[31] */
	bool pdcm;	 /* CPUID.01H:ECX[15] */
	bool x2apic;	 /* CPUID.01H:ECX[21] */
	bool apic;	 /* CPUID.01H:EDX[9] */
	bool msr;	 /* CPUID.01H:EDX[5] */
	bool tsc;	 /* CPUID.01H:EDX[4] */
	bool ds;	 /* CPUID.01H:EDX[21] Debug Store */
	bool clflush;	 /* CPUID.01H:EDX[19] CLFSH (CLFLUSH) */
	bool hybrid;	 /* CPUID.(07H,0):EDX[15] */
	bool hle, rtm;	 /* CPUID.(07H,0):EBX[4], EBX[11] (TSX) */
	/* CPUID.(07H,0):EDX[13] TSX_FORCE_ABORT (MSR 10FH exists) and EDX[11]
	 * RTM_ALWAYS_ABORT: bits a microcode update changes (kernel/known.c). */
	bool tsx_force_abort, rtm_always_abort;
	bool l3_cache;		  /* CPUID.02H names a third-level cache (Intel) */
	enum core_type core_type; /* CPUID.1AH:EAX[31:24] when hybrid */
	uint32_t native_model_id; /* CPUID.1AH:EAX[23:0] when hybrid */
	char hypervisor_vendor[13];

	struct caps_arch_perfmon pm;
	struct caps_leaf23 l23;
	struct caps_rdt rdt;
	struct caps_perf_capabilities perf_cap;
	struct caps_amd amd;
	struct caps_arch_lbr arch_lbr;

	/* Derived: the model-specific PMUs the suite knows. */
	/* Intel DisplayFamily 06H with DisplayModel 1AH/1EH/1FH (Nehalem) or
	 * 25H/2CH (Westmere): see caps.c for why not 2EH/2FH (EX parts). */
	bool nehalem_uncore;
	bool netburst; /* family 0FH Intel: ESCR/CCCR counters */
	/* P6 family (Pentium Pro, II, III, M): Intel DisplayFamily 06H without
	 * leaf 0AH; PerfCtr0/1 (C1H/C2H), PerfEvtSel0/1 (186H/187H), SDM Vol. 3B
	 * "Performance Monitoring (P6 Family Processor)". */
	bool p6;
	/* Sub-leaves a source did not have (a dump), named for the report:
	 * decoded as unknown, never as zeros. */
	char missing[96];
};

/* Source of CPUID values: the machine, or a dump. Returns false (and zeros)
 * for a (leaf, sub-leaf) it does not have: a dump may lack a sub-leaf whose
 * leaf it has, and missing is unknown, not zero. The machine always has
 * them (the decoder itself never asks beyond the maxima). */
typedef bool (*caps_cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

void caps_decode(struct caps *c, caps_cpuid_fn cpuid, void *ctx);

/* Values no processor can have and the suite cannot run against (a GP or
 * fixed counter width of 0 or above 64, control bytes in the vendor
 * string): NULL when there is none, else one line naming the first such
 * field. The kernel bails out with it before any test; pmusim refuses the
 * profile (exit 2). */
const char *caps_absurd(const struct caps *c, char *buf, unsigned size);

/* Bits 63:32 of IA32_PERFEVTSEL<counter> that are reserved on this machine
 * (SDM Vol.3B Figure 20-1 and the fields defined since, each by exactly the
 * enumeration the SDM names): IN_TX (32) with HLE or RTM, IN_TXCP (33) with
 * HLE or RTM on IA32_PERFEVTSEL2 only (Vol.3B "Performance Monitoring and
 * Intel TSX"), Adaptive_Record (34) with IA32_PERF_CAPABILITIES.
 * PEBS_BASELINE[14] (Vol.3B "Adaptive PEBS"), EQ (36) and UMASK2 (47:40)
 * with CPUID.(23H,0):EBX[1] / EBX[0], BR_CNTR (35) on IA32_PERFEVTSEL0-3 with
 * CPUID.(1CH,0):ECX[16 + counter], RDPMC_USR_DISABLE (37) with
 * CPUID.(23H,0):EBX[2]. The rest is reserved. The suite's
 * sweeps and the simulator both use this one reading. */
uint64_t caps_evtsel_high_reserved(const struct caps *c, unsigned counter);

/* Bits 63:32 of IA32_FIXED_CTR_CTRL that an enumeration defines for a fixed
 * counter that exists: Adaptive_Record 32 + 4i with PEBS_BASELINE (Vol.3B
 * "Adaptive PEBS"), RDPMC_USR_DISABLE 33 + 4i with CPUID.(23H,0):EBX[2]. A
 * probe of an absent counter's field (8 + i sits on those bits) must not
 * take one of them for reserved. */
uint64_t caps_fixed_ctrl_high_defined(const struct caps *c);

/* Architectural PEBS: PEBS_FMT = 0FH and CPUID.(23H,0):EAX[5:4] = 11B
 * (Linux d243d0bb64af: `pebs_format == 0xf` and both sub-leaves). Where it
 * holds, the DS-area PEBS protocol (IA32_PEBS_ENABLE, MSR_PEBS_DATA_CFG)
 * is not there. */
bool caps_arch_pebs(const struct caps *c);

/* Fold IA32_PERF_CAPABILITIES into the record (call only when c->pdcm). */
void caps_decode_perf_capabilities(struct caps *c, uint64_t value);

/* The record as KTAP diagnostics ("# caps: ..."), printed at the start of
 * every run (kernel/caps_report.c). */
void caps_report(const struct caps *c);

/* AMD or Hygon: the vendors whose PMU follows the AMD64 APM (Hygon's
 * processors implement it under their own vendor string). The one place
 * this pair is spelled. */
bool caps_amd_like(const struct caps *c);

/*
 * The architectural events, SDM Vol. 3B Table 20-1 "UMask and Event Select
 * Encodings for Pre-Defined Architectural Performance Events", indexed by
 * the CPUID.0AH:EBX bit that marks each unavailable: the one table of the
 * kernel, the suite and the host tools (the simulator keeps an independent
 * copy on purpose, compared with this one by testing/unit/test_sim.c).
 */
struct arch_event_desc {
	uint8_t event, umask;
	const char *name; /* for diagnostics: "instructions retired" */
	const char *key;  /* for reports and JSON: "instructions" */
};
extern const struct arch_event_desc caps_arch_events[]; /* ARCH_EVENT_COUNT rows */

/* Names, for reports. */
const char *caps_vendor_name(enum cpu_vendor v);
const char *caps_arch_event_name(unsigned event);  /* "instructions", ... */
const char *caps_core_type_name(enum core_type t); /* "atom", "core", ... */

/* The record for the machine the kernel runs on (filled once at start). */
extern struct caps g_caps;

#endif

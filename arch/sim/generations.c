/* SPDX-License-Identifier: MIT */
/*
 * The CPU generations people test in 2026: one profile each,
 * named gen-<part>. Each is a real CPUID dump where the corpus has one
 * (data/cpuid/corpus, InstLatx64, logical CPU 0), otherwise the dump of
 * the nearest part with the leaves that differ replaced, as Linux's model
 * tables and the architecture documents give them. `overrides` replace a
 * dump's (leaf, sub-leaf); a leaf they do not name is the dump's.
 *
 * IA32_PERF_CAPABILITIES: no dump carries MSRs. Each value is composed
 * field by field, and each field's source is named beside it: "read" where
 * a source shows the part's value (a boot log's "PEBS fmtN", a Linux or
 * kvm-unit-tests commit naming the part), "inferred" where it follows from
 * the part's core and its neighbours. The fields every Intel part since
 * Sandy Bridge reports the same way (PEBS trap, arch regs, FREEZE_WHILE_SMM,
 * FW_WRITE; LBR format 5, unused where Arch LBR is enumerated) are not
 * repeated per part.
 */
#include "sim.h"

/* Bits of IA32_PERF_CAPABILITIES (include/msr.h), composed per part. */
#define PC_COMMON                                                                                  \
	(0x05 | PERF_CAP_PEBS_TRAP | PERF_CAP_PEBS_ARCH_REG | PERF_CAP_FREEZE_WHILE_SMM |          \
	 PERF_CAP_FW_WRITE)
#define PC_FMT(n)   ((uint64_t)(n) << 8)
#define PC_BASELINE PERF_CAP_PEBS_BASELINE
#define PC_METRICS  PERF_CAP_PERF_METRICS_AVAILABLE
#define PC_TIMED    PERF_CAP_PEBS_TIMING_INFO
#define PC_MCLEAR   PERF_CAP_RDPMC_METRICS_CLEAR

/* CPUID.(07H,0):EDX of the Panther Lake dump without the hybrid bit (15),
 * for the server parts built on it. */
#define PTL_L7_EDX_NOT_HYBRID (0xfc18c430U & ~(1U << 15))

/* Emerald Rapids (06_CFH, Raptor Cove): Sapphire Rapids' PMU (Linux
 * intel_pmu_init(): INTEL_EMERALDRAPIDS_X shares the SPR case, "Sapphire
 * Rapids events"); the SPR dump with EMR's signature. */
static const struct sim_cpuid_entry emr[] = {
    {1, 0, {0x000C06F2, 0x00800800, 0x7ffefbff, 0xbfebfbff}},
};

/* Granite Rapids (06_ADH, Redwood Cove): the SPR case's code path in Linux
 * (intel_pmu_init_glc, "Granite Rapids events"), the same leaf 0AH; the
 * SPR dump with GNR's signature. */
static const struct sim_cpuid_entry gnr[] = {
    {1, 0, {0x000A06D1, 0x00800800, 0x7ffefbff, 0xbfebfbff}},
};

/* Meteor Lake (06_AAH, Redwood Cove + Crestmont): the Arrow Lake U dump
 * (06_B5H), which Linux drives as Meteor Lake (INTEL_ARROWLAKE_U in the
 * MTL case of intel_pmu_init()), with MTL's signature. */
static const struct sim_cpuid_entry mtl[] = {
    {1, 0, {0x000A06A4, 0x10800800, 0x7ffafbff, 0xbfebfbff}},
};

/* Sierra Forest (06_AFH, Crestmont, not hybrid): the Alder Lake E-core
 * (Gracemont) dump with SRF's signature, no hybrid bit nor leaf 1AH,
 * 8 GP counters, and Arch LBR branch-counter logging on PMC0-3
 * (CPUID.(1CH,0):ECX[19:16] = 1111B: intel/lkvs BM/pmu "ECX(19:16) must be
 * all 1 for SRF"). */
static const struct sim_cpuid_entry srf[] = {
    {1, 0, {0x000A06F3, 0x00800800, 0x7ffafbff, 0xbfebfbff}},
    {7, 0, {0x00000001, 0x239ca7eb, 0x98c027ac, 0xfc1cc410U & ~(1U << 15)}},
    {0xA, 0, {0x07300805, 0x00000000, 0x00000007, 0x00008603}},
    {0x1A, 0, {0, 0, 0, 0}},
    {0x1C, 0, {0xc000000b, 0x00000007, 0x000f0007, 0x00000000}},
};

/* Clearwater Forest (06_DDH, Darkmont, not hybrid, architectural PEBS):
 * the Panther Lake dump (the same generation's leaf 23H with sub-leaves 4
 * and 5) without the hybrid bit, with the E-core's counters: GP bitmap FFH
 * and fixed bitmap 77H (intel/lkvs BM/pmu bitmap test for CWF), no
 * TOPDOWN.SLOTS (event 7) nor FIXED_CTR3, arch-PEBS and PDIST on those. */
static const struct sim_cpuid_entry cwf[] = {
    {1, 0, {0x000D06D1, 0x00800800, 0x7ffafbff, 0xbfebfbff}},
    {7, 0, {0x00000002, 0x239ca7eb, 0x994007bc, PTL_L7_EDX_NOT_HYBRID}},
    {0xA, 0, {0x0d300806, 0x00000080, 0x00000077, 0x00008603}},
    {0x1A, 0, {0, 0, 0, 0}},
    {0x23, 1, {0x000000ff, 0x00000077, 0, 0}},
    {0x23, 3, {0x00001d7f, 0, 0, 0}},
    {0x23, 5, {0x000000ff, 0x00000003, 0x00000077, 0x00000001}},
};

/* Diamond Rapids (family 19 = 13H, model 01H, Panther Cove: Linux
 * INTEL_PANTHERCOVE_X IFM(19, 0x01)): the Panther Lake dump (Cougar Cove,
 * the nearest P-core) without the hybrid bit; leaf 23H adds what Panther
 * Cove is the first to enumerate: RDPMC_USR_DISABLE, EBX[2] ("starting with
 * Panther Cove", Linux 59af95e028d4), and auto counter reload, sub-leaf 2
 * (Linux aa4384bc8f43 "Panther Cove uarch starts to support auto counter
 * reload"; which counters, inferred: all of them). */
static const struct sim_cpuid_entry dmr[] = {
    {1, 0, {0x00400F10, 0x00800800, 0x7ffafbff, 0xbfebfbff}},
    {7, 0, {0x00000002, 0x239ca7eb, 0x994007bc, PTL_L7_EDX_NOT_HYBRID}},
    {0x1A, 0, {0, 0, 0, 0}},
    {0x23, 0, {0x0000003f, 0x00000007, 0, 0}},
    {0x23, 2, {0x000003ff, 0x0000000f, 0x000003ff, 0x0000000f}},
};

/* Sapphire Rapids with the RDT allocation sub-leaves the dumps lack (they
 * carry CPUID.(10H,0) and (10H,1) only, while (10H,0):EBX enumerates L2
 * CAT and MBA too): L2 CAT (10H,2) with 16 bits, 8 COS, CDP and
 * non-contiguous masks, MBA (10H,3) with maximum throttling 90, linear,
 * 8 COS. The values are pmutest's assumption, not read from a part: they
 * exist so that the L2 CAT, non-contiguous and MBA checks run. */
static const struct sim_cpuid_entry spr_rdt_alloc[] = {
    {0x10, 2, {0x0000000F, 0x00000000, 0x0000000C, 0x00000007}},
    {0x10, 3, {0x00000059, 0x00000000, 0x00000004, 0x00000007}},
};

#define GEN(n, d, file, tab, pc)                                                                   \
	{                                                                                          \
		.name = n, .desc = d, .dump = file, .overrides = tab,                              \
		.n_overrides = ARRAY_SIZE(tab), .perf_capabilities = pc                            \
	}
#define GEN_DUMP(n, d, file, pc)                                                                   \
	{                                                                                          \
		.name = n, .desc = d, .dump = file, .perf_capabilities = pc                        \
	}

const struct sim_generation sim_generations[] = {
    /* PEBS format 4, baseline, metrics: SPR's value (profiles.c). */
    GEN("gen-emerald-rapids", "Emerald Rapids 06_CFH: SPR's PMU, PEBS fmt 4",
	"intel_sapphirerapids_806f8.txt", emr, PC_COMMON | PC_FMT(4) | PC_BASELINE | PC_METRICS),
    /* Timed PEBS, read: kvm-unit-tests 939d7902 ("On Intel GNR/SRF platform,
     * timed PEBS is introduced"); PEBS format 5, inferred (format >= 5 goes
     * with timed PEBS on every part whose boot log was read). */
    GEN("synth-spr-rdt-alloc",
	"Sapphire Rapids dump + assumed CPUID.(10H,2) L2 CAT and (10H,3) MBA sub-leaves",
	"intel_sapphirerapids_806f8.txt", spr_rdt_alloc,
	PC_COMMON | PC_FMT(4) | PC_BASELINE | PC_METRICS),
    GEN("gen-granite-rapids", "Granite Rapids 06_ADH: timed PEBS, PEBS fmt 5",
	"intel_sapphirerapids_806f8.txt", gnr,
	PC_COMMON | PC_FMT(5) | PC_BASELINE | PC_METRICS | PC_TIMED),
    /* Timed PEBS, read (kvm-unit-tests 939d7902); format 5, inferred; no
     * PERF_METRICS (an E-core: no FIXED_CTR3). */
    GEN("gen-sierra-forest", "Sierra Forest 06_AFH: timed PEBS, BR_CNTR on PMC0-3",
	"intel_alderlake_hybrid_90672_ecore.txt", srf,
	PC_COMMON | PC_FMT(5) | PC_BASELINE | PC_TIMED),
    /* PEBS format 5, inferred from Arrow Lake H's read value (same era). */
    GEN("gen-meteor-lake", "Meteor Lake 06_AAH (P-core): v5, leaf 23H, PEBS fmt 5",
	"corpus/genuineintel00b0650_arrowlakeu_03.txt", mtl,
	PC_COMMON | PC_FMT(5) | PC_BASELINE | PC_METRICS),
    /* PEBS format 6 with baseline, read: Lunar Lake boot log "no PEBS
     * fmt6+" (intel/pcm#895: a kernel that did not know format 6);
     * RDPMC metrics clear, read: Linux 0e45818ec189 (LNL/ARL). */
    GEN_DUMP("gen-lunar-lake", "Lunar Lake 06_BDH (real dump, P-core): v6, BR_CNTR, PEBS fmt 6",
	     "corpus/genuineintel00b06d1_lunarlake_04.txt",
	     PC_COMMON | PC_FMT(6) | PC_BASELINE | PC_METRICS | PC_MCLEAR),
    /* PEBS format 5 with baseline, read: Core Ultra 9 285H boot log
     * "PEBS fmt5+-baseline ... ArrowLake-H Hybrid events". */
    GEN_DUMP("gen-arrow-lake-h", "Arrow Lake H 06_C5H (real dump, P-core): PEBS fmt 5",
	     "corpus/genuineintel00c0652_arrowlakeh_04.txt",
	     PC_COMMON | PC_FMT(5) | PC_BASELINE | PC_METRICS | PC_MCLEAR),
    /* PEBS_FMT 0FH: the dump enumerates arch-PEBS (CPUID.(23H,0):EAX[5:4]),
     * which Linux pairs with PEBS_FMT = 0FH (intel_pebs_init; d243d0bb64af
     * names PTL); no PEBS_BASELINE (adaptive PEBS is the DS-area protocol,
     * inferred). */
    GEN_DUMP("gen-panther-lake", "Panther Lake 06_CCH (real dump, P-core): arch-PEBS, fmt 0FH",
	     "corpus/genuineintel00c06c3_pantherlakel_01.txt",
	     PC_COMMON | PC_FMT(0xF) | PC_METRICS | PC_MCLEAR),
    GEN("gen-clearwater-forest", "Clearwater Forest 06_DDH: arch-PEBS, fmt 0FH, 8 GP, fixed 77H",
	"corpus/genuineintel00c06c3_pantherlakel_01.txt", cwf, PC_COMMON | PC_FMT(0xF)),
    GEN("gen-diamond-rapids", "Diamond Rapids 13_01H: arch-PEBS, RDPMC_USR_DISABLE, ACR",
	"corpus/genuineintel00c06c3_pantherlakel_01.txt", dmr,
	PC_COMMON | PC_FMT(0xF) | PC_METRICS | PC_MCLEAR),
    /* AMD: no IA32_PERF_CAPABILITIES. */
    GEN_DUMP("gen-zen5", "AMD Zen 5 Granite Ridge (real dump): PerfMonV2",
	     "corpus/authenticamd0b40f40_k20_graniteridge_02.txt", 0),
};

const unsigned sim_generation_count = ARRAY_SIZE(sim_generations);

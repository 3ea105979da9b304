/* SPDX-License-Identifier: MIT */
/*
 * Profiles: the CPUs the simulator can be.
 *
 * Built-in synthetic profiles exercise rules the real dumps lack; every
 * dump in the dumps directory (data/cpuid by default, relative to the
 * repository) is a profile named after its file.
 *
 * IA32_PERF_CAPABILITIES: dumps carry no MSRs, so each profile states the
 * value the simulator returns when PDCM is set. The values are composed from
 * the features the SDM associates with each microarchitecture (LBR format,
 * PEBS trap / arch-regs / format, FREEZE_WHILE_SMM, FW_WRITE from Sandy
 * Bridge on, PEBS baseline and PERF_METRICS from Ice Lake on where CPUID
 * enumerates FIXED_CTR3); they are not read from those machines.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

/* CPUID.0H: the maximum leaf and the vendor string as EBX, EDX, ECX
 * ("GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  ", and a
 * real Haswell's corrupted "GenuineIotel"). */
#define VENDOR_REGS(max, b, d, c)                                                                  \
	{                                                                                          \
		0, 0,                                                                              \
		{                                                                                  \
			(max), (b), (c), (d)                                                       \
		}                                                                                  \
	}
#define GENUINE_INTEL(max) VENDOR_REGS(max, 0x756e6547, 0x49656e69, 0x6c65746e)
#define AUTHENTIC_AMD(max) VENDOR_REGS(max, 0x68747541, 0x69746e65, 0x444d4163)
#define CENTAUR_HAULS(max) VENDOR_REGS(max, 0x746e6543, 0x48727561, 0x736c7561)
#define SHANGHAI(max)	   VENDOR_REGS(max, 0x68532020, 0x68676e61, 0x20206961)
#define GENUINE_IOTEL(max) VENDOR_REGS(max, 0x756e6547, 0x49656e69, 0x6c65746f)

/* CPUID.01H: EDX with FPU..PBE incl. TSC(4), MSR(5), APIC(9), DS(21). */
#define EDX1		0xBFEBFBFFU
#define ECX1_PDCM	(1U << 15)
#define ECX1_HYPERVISOR (1U << 31)

/* Leaves 0H and 01H of a synthetic Intel part of the architectural-PMU era:
 * maximum leaf `max`, signature `sig` (CPUID.01H:EAX), the same features
 * for all, PDCM (IA32_PERF_CAPABILITIES) among them. */
/* clang-format off */
#define INTEL_PART_HEAD(max, sig)                                                                  \
	GENUINE_INTEL(max),                                                                        \
	{1, 0, {(sig), 0x00100800, 0x7FFAFBBF | ECX1_PDCM, EDX1}}
/* clang-format on */

/* v5, EDX[4:0] = 3 fixed counters and ECX bitmask 0x27: FIXED_CTR5 exists
 * only by the bitmask rule, FIXED_CTR3/4 are holes. */
static const struct sim_cpuid_entry synth_v5_fixed_hole[] = {
    INTEL_PART_HEAD(0xA, 0x000A06A0),
    {0xA, 0, {0x08300805, 0, 0x27, 0x8603}},
};

/* The leaves of a part with leaf 23H other than 0AH and (23H,1): maximum
 * leaf 23H, a family 6 model BDH signature, CPUID.(07H,1):EAX[8]
 * ArchPerfmonExt, (23H,0) with sub-leaves 0 and 1 and UMASK2, EQ. */
/* clang-format off */
#define LEAF23_PART_HEAD                                                                           \
	INTEL_PART_HEAD(0x23, 0x000B06D0),                                                         \
	{7, 0, {1, 0, 0, 0}},                                                                      \
	{7, 1, {1U << 8, 0, 0, 0}},                                                                \
	{0x23, 0, {0x3, 0x3, 0, 0}}
/* clang-format on */

/* Leaf 23H with a GP bitmap 0xB5 (PMC1, 3, 6 absent) and fixed bitmap 7. */
static const struct sim_cpuid_entry synth_leaf23_holes[] = {
    LEAF23_PART_HEAD,
    {0xA, 0, {0x08300805, 0, 0x7, 0x8603}},
    {0x23, 1, {0xB5, 0x7, 0, 0}},
};

/* Leaf 23H leaving out IA32_PMC0 (GP bitmap 0xFE) and fixed counter 1
 * (bitmap 0xD, as CPUID.0AH:ECX with EDX[4:0] = 1), with EBX marking LLC
 * misses and branch misses unavailable: no test may assume counter 0. */
static const struct sim_cpuid_entry synth_leaf23_no_pmc0[] = {
    LEAF23_PART_HEAD,
    {0xA, 0, {0x08300805, 0x50, 0xD, 0x8601}}, /* fixed 0, 2, 3 by ECX */
    {0x23, 1, {0xFE, 0xD, 0, 0}},
};

/* v5 with PERF_CAPABILITIES FW_WRITE and PERF_METRICS, 6 GP counters, four
 * fixed counters, AnyThread not deprecated. */
static const struct sim_cpuid_entry synth_v5_metrics[] = {
    INTEL_PART_HEAD(0xA, 0x000706E0),
    {0xA, 0, {0x08300605, 0, 0xF, 0x0604}},
};

/* Architectural perfmon version 1: 2 GP counters of 40 bits, no fixed
 * counters, no global control. */
static const struct sim_cpuid_entry synth_v1[] = {
    GENUINE_INTEL(0xA),
    {1, 0, {0x000006F6, 0x00000800, 0x0000E3BD & ~ECX1_PDCM, EDX1}},
    {0xA, 0, {0x07280201, 0, 0, 0}},
};

/* v5 with everything the LBR, PEBS and metrics suites need on one CPU: 8 GP, 4 fixed,
 * the level-1 topdown events enumerated (EAX[31:24] = 12, EBX = 0), DS,
 * PEBS_BASELINE and PERF_METRICS (perf capabilities F4C5H, as Ice Lake), and
 * Arch LBR (CPUID.(07H,0):EDX[19]) with leaf 1CH enumerating depths 8, 16,
 * 24, 32 (EAX 0FH, a mask Sapphire Rapids' 0BH does not cover) and every
 * filter and INFO field. */
static const struct sim_cpuid_entry synth_v5_topdown[] = {
    INTEL_PART_HEAD(0x1C, 0x000806F8),
    {7, 0, {0, 0, 0, 1U << 19}},
    {0xA, 0, {0x0C300805, 0, 0xF, 0x8604}},
    {0x1C, 0, {0x0000000F, 0x7, 0x7, 0}},
};

/* An emulator without a PMU (as QEMU TCG): leaf 0AH all zero. */
static const struct sim_cpuid_entry synth_no_pmu[] = {
    GENUINE_INTEL(0xD),
    {1, 0, {0x000606A0, 0x00000800, 0x80202001 | ECX1_HYPERVISOR, 0x078BFBFF}},
    {0xA, 0, {0, 0, 0, 0}},
    {0x40000000, 0, {0x40000001, 0x54474354, 0x43544743, 0x47435447}}, /* "TCGTCGTCGTCG" */
};

/* ---- One profile per class of false verdict ---------- */

/* Class 3: Zhaoxin KX-7000 (family 7, DisplayModel 6BH), perfmon v2 with 4
 * GP and 3 fixed counters of 48 bits, as its CPUID reports. */
static const struct sim_cpuid_entry synth_zhaoxin_kx7000[] = {
    SHANGHAI(0xA),
    {1, 0, {0x000607B1, 0x00400800, 0x7FFA73EB, 0xBFCBFBFF}},
    {0xA, 0, {0x07300402, 0, 0, 0x00000603}},
};

/* Class 3: VIA Nano (CentaurHauls, family 6 model 0FH), perfmon v2 with 3
 * GP counters of 40 bits and 3 fixed counters of 40 bits. */
static const struct sim_cpuid_entry synth_via_nano[] = {
    CENTAUR_HAULS(0xA),
    {1, 0, {0x000006F2, 0x00010800, 0x000063A9, 0xAFC9FBFF}},
    {0xA, 0, {0x06280302, 0, 0, 0x00000503}},
};

/* Class 3: a real Haswell whose vendor string reads "GenuineIotel": its
 * leaf 0AH (v3, 4 GP x 48, 3 fixed x 48) is the PMU, whatever the name. */
static const struct sim_cpuid_entry synth_iotel_haswell[] = {
    GENUINE_IOTEL(0xD),
    {1, 0, {0x000306C3, 0x00100800, 0x7FFAFBFF, 0xBFEBFBFF}},
    {0xA, 0, {0x07300403, 0, 0, 0x00000603}},
};

/* Class 8: Pentium III (Katmai, 673H): no leaf 0AH, the P6 PMU. */
static const struct sim_cpuid_entry synth_p6_katmai[] = {
    GENUINE_INTEL(0x3),
    {1, 0, {0x00000673, 0, 0, 0x0387F9FF}},
};

/* Known deviation: Core 2 (Conroe, 6F6H) reports version 2 with EDX = 0. */
static const struct sim_cpuid_entry synth_core2_conroe[] = {
    GENUINE_INTEL(0xA),
    {1, 0, {0x000006F6, 0x00000800, 0x0000E3BD, EDX1}},
    {0xA, 0, {0x07280202, 0, 0, 0}},
};

/* Class 6: TSX (HLE, RTM) and PEBS_BASELINE: IN_TX, IN_TXCP (PERFEVTSEL2
 * only) and Adaptive_Record are defined bits, not reserved ones. */
static const struct sim_cpuid_entry synth_tsx_baseline[] = {
    INTEL_PART_HEAD(0xA, 0x000706E0),
    {7, 0, {0, (1U << 4) | (1U << 11), 0, 0}}, /* HLE, RTM */
    {0xA, 0, {0x08300805, 0, 0, 0x8603}},
};

/* Class 9: RDT monitoring enumerated (PQM, CPUID.(0FH,0):EDX[1]) but the
 * sub-leaf (0FH,1) missing: its width and RMID range are unknown, not 0. */
static const struct sim_cpuid_entry synth_rdt_subleaf_missing[] = {
    INTEL_PART_HEAD(0x10, 0x000506E3),
    {7, 0, {0, 1U << 12, 0, 0}}, /* PQM */
    {0xA, 0, {0x08300404, 0, 0, 0x8603}},
    {0xF, 0, {0, 0xFF, 0, 0x2}},
};

/* RDT monitoring with the L3's RMID range (CPUID.(0FH,1):ECX = 127) below
 * the global one (CPUID.(0FH,0):EBX = 255): RMIDs 128-255 are written
 * without a fault and read back Error, those above 255 raise #GP(0). */
static const struct sim_cpuid_entry synth_rdt_two_maxima[] = {
    INTEL_PART_HEAD(0x10, 0x000506E3),	  {7, 0, {0, 1U << 12, 0, 0}}, /* PQM */
    {0xA, 0, {0x08300404, 0, 0, 0x8603}}, {0xF, 0, {0, 0xFF, 0, 0x2}},
    {0xF, 1, {0, 0x10000, 0x7F, 0x7}},
};

/* ---- Architectural limits (class 1 and 4): one profile at each
 * bound the suite derives from the architecture. ------------------------- */

/* As Lunar Lake / Arrow Lake H: leaf 0AH says 8 GP counters and fixed 0-2,
 * leaf 23H says 10 GP counters (PMC8, PMC9) and fixed 0-2 and 4-6 (a hole
 * at 3); FW_WRITE, so IA32_A_PMC8/9 exist too. */
static const struct sim_cpuid_entry synth_leaf23_10gp[] = {
    LEAF23_PART_HEAD,
    {0xA, 0, {0x08300805, 0, 0x7, 0x8603}},
    {0x23, 1, {0x3FF, 0x77, 0, 0}},
};

/* Leaf 0AH alone with 12 GP counters: the beyond-count probe has one index
 * left (IA32_PMC12 = CDH) before IA32_PMC13 would be CEH. */
static const struct sim_cpuid_entry synth_12gp[] = {
    INTEL_PART_HEAD(0xA, 0x000906A0),
    {0xA, 0, {0x08300C04, 0, 0, 0x8603}},
};

/* v5 with fixed counter 16 in CPUID.0AH:ECX: it exists (MSR, RDPMC) but has
 * no IA32_FIXED_CTR_CTRL field nor GLOBAL_CTRL bit (bits 63:48 are defined
 * otherwise): nothing may spill into them. */
static const struct sim_cpuid_entry synth_fixed16[] = {
    INTEL_PART_HEAD(0xA, 0x000A06A0),
    {0xA, 0, {0x08300805, 0, 0x10007, 0x8603}},
};

/* AMD PerfMonV2 with the most core counters CPUID.80000022H:EBX[3:0] can
 * enumerate, 15 (the four legacy ones alias the first four). */
static const struct sim_cpuid_entry synth_amd_15ctr[] = {
    AUTHENTIC_AMD(0x10),
    {1, 0, {0x00A10F11, 0x00100800, 0x7EFA320B, 0x178BFBFF}},
    {0x80000000, 0, {0x80000022, 0x68747541, 0x444D4163, 0x69746E65}},
    {0x80000001, 0, {0x00A10F11, 0x40000000, 0x75C237FF, 0x2FD3FBFF}},
    {0x80000022, 0, {0x1, 0xF, 0, 0}},
};

/* ---- The 2023-2026 architecture: synthetic parts for the
 * features no dump of data/cpuid enumerates. ------------------------ */

/* Architectural PMU version 6 (the 19xxH MSR range): leaf 0AH says 8 GP,
 * all 13 architectural events and fixed 0-2, leaf 23H GP bitmap 0xEF (a hole at PMC4, so an alias
 * inside the range is absent) and fixed bitmap 0x77; (23H,0):EBX UMASK2, EQ and RDPMC_USR_DISABLE
 * (EBX[2], "starting with Panther Cove"); Auto Counter Reload (sub-leaf 2): PMC1-3 and FIXED_CTR0
 * reloadable, PMC0, 2, 5, 6 and FIXED_CTR0 causes (PMC1, 3 and 7 exist and cause nothing; PMC0
 * causes but has no CFG_B / CFG_C); FW_WRITE.
 */
static const struct sim_cpuid_entry synth_v6[] = {
    INTEL_PART_HEAD(0x23, 0x000B06D0),
    {7, 0, {1, 0, 0, 0}},
    {7, 1, {1U << 8, 0, 0, 0}},
    {0x23, 0, {0x7, 0x7, 0, 0}},
    {0xA, 0, {0x0D300806, 0, 0x77, 0x8603}},
    {0x23, 1, {0xEF, 0x77, 0, 0}},
    {0x23, 2, {0x0E, 0x1, 0x65, 0x1}},
};

/* Architectural PEBS enumerated (CPUID.(23H,0):EAX[5:4], sub-leaves 4 and 5,
 * IA32_PERF_CAPABILITIES.PEBS_FMT = 0FH): the DS-area PEBS MSRs are not
 * there, so the pebs suite must skip; the arch_pebs suite runs (pebs.c
 * models it), with GPR the only group CPUID.(23H,4):EBX enumerates. */
static const struct sim_cpuid_entry synth_arch_pebs[] = {
    INTEL_PART_HEAD(0x23, 0x000B06D0),
    {7, 0, {1, 0, 0, 0}},
    {7, 1, {1U << 8, 0, 0, 0}},
    {0x23, 0, {0x33, 0x3, 0, 0}},
    {0xA, 0, {0x08300806, 0, 0x7, 0x8603}},
    {0x23, 1, {0xFF, 0x7, 0, 0}},
    {0x23, 4, {0, 0x20000000, 0, 0}},
    {0x23, 5, {0xFF, 0, 0x7, 0}},
};

#define BUILTIN(n, d, tab, pc)                                                                     \
	{                                                                                          \
		.name = n, .desc = d, .entries = tab, .n_entries = ARRAY_SIZE(tab),                \
		.perf_capabilities = pc                                                            \
	}
static const struct sim_profile builtins[] = {
    BUILTIN("synth-v5-fixed-hole", "v5, 8 GP, fixed bitmask 0x27 beyond EDX[4:0] = 3",
	    synth_v5_fixed_hole, 0x34C5),
    BUILTIN("synth-leaf23-holes", "v5 + leaf 23H: GP bitmap 0xB5, fixed bitmap 0x7, UMASK2, EQ",
	    synth_leaf23_holes, 0x34C5),
    BUILTIN("synth-leaf23-no-pmc0",
	    "v5 + leaf 23H: GP bitmap 0xFE (no PMC0), fixed 0xD, EBX 0x50 unavailable",
	    synth_leaf23_no_pmc0, 0x34C5),
    BUILTIN("synth-v5-metrics", "v5, 6 GP, 4 fixed, FW_WRITE + PERF_METRICS, AnyThread allowed",
	    synth_v5_metrics, 0xF4C5),
    BUILTIN("synth-v5-topdown",
	    "v5, 8 GP, 4 fixed, level-1 topdown events, PEBS baseline, metrics, Arch LBR 8-32",
	    synth_v5_topdown, 0xF4C5),
    BUILTIN("synth-v1", "architectural perfmon v1: 2 GP x 40 bit, no fixed", synth_v1, 0),
    BUILTIN("synth-no-pmu", "emulator without a PMU (CPUID.0AH = 0), like QEMU TCG", synth_no_pmu,
	    0),
    /* architectural limits */
    BUILTIN("synth-leaf23-10gp", "v5 + leaf 23H: 10 GP (0AH says 8), fixed 0x77 (0AH says 3)",
	    synth_leaf23_10gp, 0x34C5),
    BUILTIN("synth-12gp", "v4, 12 GP counters by leaf 0AH, FW_WRITE", synth_12gp, 0x34C5),
    BUILTIN("synth-fixed16", "v5, fixed counters 0-2 and 16 by CPUID.0AH:ECX", synth_fixed16,
	    0x34C5),
    BUILTIN("synth-amd-15ctr", "AMD PerfMonV2 with 15 core counters", synth_amd_15ctr, 0),
    /* false verdicts: one profile per class */
    BUILTIN("synth-zhaoxin-kx7000", "\"  Shanghai  \" family 7 model 6BH, v2: 4 GP, 3 fixed",
	    synth_zhaoxin_kx7000, 0),
    BUILTIN("synth-via-nano", "CentaurHauls family 6 model 0FH, v2: 3 GP x 40, 3 fixed",
	    synth_via_nano, 0),
    BUILTIN("synth-iotel-haswell", "\"GenuineIotel\" Haswell, v3: leaf 0AH, not the name",
	    synth_iotel_haswell, 0),
    BUILTIN("synth-p6-katmai", "Pentium III: P6 PerfCtr0/1, no leaf 0AH", synth_p6_katmai, 0),
    BUILTIN("synth-core2-conroe", "Core 2 v2 with CPUID.0AH:EDX = 0 (a known deviation)",
	    synth_core2_conroe, 0),
    BUILTIN("synth-tsx-baseline", "v5, HLE + RTM, PEBS_BASELINE: IN_TX/IN_TXCP/Adaptive_Record",
	    synth_tsx_baseline, 0xF4C5),
    BUILTIN("synth-rdt-subleaf-missing", "RDT L3 monitoring enumerated, CPUID.(0FH,1) missing",
	    synth_rdt_subleaf_missing, 0x33C5),
    BUILTIN("synth-rdt-two-maxima", "RDT L3 monitoring: L3 max RMID 127 below the global 255",
	    synth_rdt_two_maxima, 0x33C5),
    /* the 2023-2026 architecture */
    BUILTIN("synth-arch-pebs", "v6, architectural PEBS enumerated (PEBS_FMT 0FH): no DS-area PEBS",
	    synth_arch_pebs, 0x3FC5),
    BUILTIN("synth-metrics-clear",
	    "synth-v5-topdown with IA32_PERF_CAPABILITIES[19] RDPMC_METRICS_CLEAR",
	    synth_v5_topdown, 0xF4C5 | PERF_CAP_RDPMC_METRICS_CLEAR),
    BUILTIN("synth-v6",
	    "v6 + leaf 23H: GP 0xEF, fixed 0x77, 19xxH aliases, RDPMC user disable, ACR", synth_v6,
	    0x34C5),
};

/* IA32_PERF_CAPABILITIES for the dumps of data/cpuid, by file name. */
static const struct {
	const char *prefix;
	uint64_t value;
} dump_perf_caps[] = {
    {"intel_core2_penryn", 0x0000}, /* no FW_WRITE */
    {"intel_atom_diamondville", 0x0000},
    {"intel_nehalem", 0x01C3}, /* LBR fmt 3, PEBS trap, arch regs, fmt 1 */
    /* LBR formats (Vol. 3B 19.4.8.1), the lbr suite's input: 3 (flags in
     * FROM[63]) through Sandy Bridge, 4 (TSX flags) on Haswell/Broadwell, 5
     * (MSR_LBR_INFO_x) from Skylake, 6 (cycle count in TO[63:48]) on
     * Goldmont; Linux perf's lbr.c reads the same formats on these parts. */
    {"intel_sandybridge", 0x31C3}, /* + FREEZE_WHILE_SMM, FW_WRITE */
    {"intel_broadwell", 0x32C4},   /* PEBS fmt 2, LBR fmt 4 */
    {"intel_skylake", 0x33C5},	   /* PEBS fmt 3, LBR fmt 5 */
    {"intel_goldmont", 0x33C6},	   /* LBR fmt 6 */
    /* Ice Lake on: PEBS fmt 4 with PEBS_BASELINE (adaptive PEBS, the pebs
     * suite's records). Sapphire Rapids and Alder Lake enumerate Arch LBR
     * (CPUID.(07H,0):EDX[19], leaf 1CH): the lbr suite skips on that bit,
     * so their LBR_FMT (5 here, not verified on those parts) is not used. */
    {"intel_icelake", 0xF4C5}, /* PEBS fmt 4, baseline, PERF_METRICS */
    {"intel_sapphirerapids", 0xF4C5},
    {"intel_alderlake", 0x74C5}, /* CPUID has no FIXED_CTR3: no metrics */
    {"hyperv_", 0x0000},	 /* assume the least */
    {"kvm_", 0x2000},		 /* KVM exposes FW_WRITE */
};

#define MAX_DUMPS 64
static struct sim_profile dumps[MAX_DUMPS];
static unsigned n_dumps;
/* The 2023-2026 generations (generations.c), on their dumps. */
#define MAX_GENERATIONS 16
static struct sim_profile generations[MAX_GENERATIONS];
static unsigned n_generations;
/* Platform models (platforms.c), on their host dumps; listed last. */
#define MAX_PLATFORMS 16
static struct sim_profile platforms[MAX_PLATFORMS];
static unsigned n_platforms;
const char *g_sim_dumps_dir;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct sim_profile *)a)->name, ((const struct sim_profile *)b)->name);
}

/* dir/file, allocated, when that file is readable; NULL otherwise. */
static char *readable_dump(const char *dir, const char *file)
{
	char *path = malloc(strlen(dir) + strlen(file) + 2);

	if (!path)
		exit(3);
	sprintf(path, "%s/%s", dir, file);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

void sim_load_profiles(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	g_sim_dumps_dir = dir;
	if (!d)
		return;
	while ((e = readdir(d)) && n_dumps < MAX_DUMPS) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		struct sim_profile *p = &dumps[n_dumps++];
		char *name = strndup(e->d_name, len - 4);
		char *path = malloc(strlen(dir) + len + 2);
		if (!name || !path)
			exit(3);
		sprintf(path, "%s/%s", dir, e->d_name);
		p->name = name;
		p->desc = "CPUID dump";
		p->dump_path = path;
		for (unsigned i = 0; i < ARRAY_SIZE(dump_perf_caps); i++)
			if (!strncmp(name, dump_perf_caps[i].prefix,
				     strlen(dump_perf_caps[i].prefix)))
				p->perf_capabilities = dump_perf_caps[i].value;
	}
	closedir(d);
	qsort(dumps, n_dumps, sizeof(dumps[0]), cmp_name);
	for (unsigned i = 0; i < sim_generation_count && n_generations < MAX_GENERATIONS; i++) {
		const struct sim_generation *g = &sim_generations[i];
		char *path = readable_dump(dir, g->dump);
		if (!path)
			continue; /* no such dump here: no such profile */
		generations[n_generations++] = (struct sim_profile){
		    .name = g->name,
		    .desc = g->desc,
		    .dump_path = path,
		    .entries = g->overrides,
		    .n_entries = g->n_overrides,
		    .perf_capabilities = g->perf_capabilities,
		};
	}
	for (unsigned i = 0; i < sim_platform_count && n_platforms < MAX_PLATFORMS; i++) {
		const struct sim_platform *pl = &sim_platforms[i];
		char *path = readable_dump(dir, pl->host_dump);
		if (!path)
			continue; /* no host dump here: no such platform */
		platforms[n_platforms++] = (struct sim_profile){
		    .name = pl->name,
		    .desc = pl->desc,
		    .dump_path = path,
		    .perf_capabilities = pl->perf_capabilities,
		    .guest_cpuid = pl->guest_cpuid,
		    .quirks = pl->quirks,
		    .n_quirks = pl->n_quirks,
		    .firmware = sim_platform_firmware(pl),
		};
	}
}

/*
 * Machines of several CPUs (smp.c): each part is `cpus` CPUs of one CPU
 * profile, threads of a core filled first (CPUID leaf 0BH of the part).
 * A machine whose parts are not all there (no dumps directory) is left out.
 */
#define MACHINE(n, d, ...)                                                                         \
	{                                                                                          \
		.name = n, .desc = d, .parts = (const struct sim_machine_part[]){__VA_ARGS__},     \
		.n_parts = ARRAY_SIZE(((const struct sim_machine_part[]){__VA_ARGS__}))            \
	}
static struct sim_profile machines[] = {
    MACHINE("smp-synth-v5-x4", "4 CPUs of synth-v5-metrics (no leaf 0BH: no SMT siblings)",
	    {"synth-v5-metrics", 4}),
    MACHINE("smp-broadwell-ep-2c4t",
	    "4 CPUs of intel_broadwell_ep_406f1: 2 cores x 2 threads (v3 AnyThread, RDT)",
	    {"intel_broadwell_ep_406f1", 4}),
    MACHINE("smp-nehalem-2c4t",
	    "4 CPUs of intel_nehalem_bloomfield_106a4: 2 cores x 2 threads, one uncore",
	    {"intel_nehalem_bloomfield_106a4", 4}),
    MACHINE("alderlake-hybrid",
	    "Alder Lake 90672: 1 P-core x 2 threads (_pcore dump) + 2 E-cores (_ecore dump)",
	    {"intel_alderlake_hybrid_90672_pcore", 2}, {"intel_alderlake_hybrid_90672_ecore", 2}),
};

static const struct sim_profile *machine_at(unsigned i);

unsigned sim_profile_count(void)
{
	unsigned n = ARRAY_SIZE(builtins) + n_dumps + n_generations + n_platforms;

	while (machine_at(n - ARRAY_SIZE(builtins) - n_dumps - n_generations - n_platforms))
		n++;
	return n;
}

static const struct sim_profile *cpu_profile(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	for (unsigned i = 0; i < n_dumps; i++)
		if (!strcmp(dumps[i].name, name))
			return &dumps[i];
	return NULL;
}

/* The i-th machine whose parts all exist. */
static const struct sim_profile *machine_at(unsigned i)
{
	for (unsigned m = 0; m < ARRAY_SIZE(machines); m++) {
		bool ok = true;
		for (unsigned k = 0; k < machines[m].n_parts; k++)
			ok = ok && cpu_profile(machines[m].parts[k].profile);
		if (ok && i-- == 0) {
			/* What the quirk predicates read of a profile: the first CPU's. */
			machines[m].perf_capabilities =
			    cpu_profile(machines[m].parts[0].profile)->perf_capabilities;
			return &machines[m];
		}
	}
	return NULL;
}

const struct sim_profile *sim_profile_at(unsigned i)
{
	if (i < ARRAY_SIZE(builtins))
		return &builtins[i];
	i -= ARRAY_SIZE(builtins);
	if (i < n_dumps)
		return &dumps[i];
	i -= n_dumps;
	if (i < n_generations)
		return &generations[i];
	i -= n_generations;
	if (i < n_platforms)
		return &platforms[i];
	return machine_at(i - n_platforms);
}

const struct sim_profile *sim_find_profile(const char *name)
{
	for (unsigned i = 0; i < sim_profile_count(); i++)
		if (!strcmp(sim_profile_at(i)->name, name))
			return sim_profile_at(i);
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The register header: every MSR and register field the project uses, with
 * the SDM's names verbatim, each group citing the SDM table it comes from.
 * Addresses: SDM Vol. 4, Table 2-2 "IA-32 Architectural MSRs" unless noted.
 */
#ifndef PMUTEST_MSR_H
#define PMUTEST_MSR_H

#include "bits.h"

/* ---- Architectural performance monitoring (Vol. 4 Table 2-2; Vol. 3B
 * 20.2 "Architectural Performance Monitoring") ---------------------------- */
#define MSR_IA32_PMC0		   0x0C1 /* IA32_PMCx = 0C1H + x */
#define MSR_IA32_PERFEVTSEL0	   0x186 /* IA32_PERFEVTSELx = 186H + x */
#define MSR_IA32_A_PMC0		   0x4C1 /* full-width alias, IA32_A_PMCx = 4C1H + x */
#define MSR_IA32_FIXED_CTR0	   0x309 /* IA32_FIXED_CTRx = 309H + x */
#define MSR_IA32_PERF_CAPABILITIES 0x345
/* Microcode revision: Intel IA32_BIOS_SIGN_ID (EDX half, after WRMSR 0 and
 * CPUID.01H; SDM Vol. 3A "Microcode Update Facilities"), AMD PATCH_LEVEL
 * (EAX half) at the same address. */
#define MSR_IA32_BIOS_SIGN_ID		  0x08B
#define MSR_IA32_FIXED_CTR_CTRL		  0x38D
#define MSR_IA32_PERF_GLOBAL_STATUS	  0x38E
#define MSR_IA32_PERF_GLOBAL_CTRL	  0x38F
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	  0x390 /* v4 name: ..._STATUS_RESET */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390
#define MSR_IA32_PERF_GLOBAL_STATUS_SET	  0x391 /* v4 */
#define MSR_IA32_PERF_GLOBAL_INUSE	  0x392 /* v4 */
#define MSR_IA32_PERF_METRICS		  0x329 /* PERF_METRICS_AVAILABLE */
#define MSR_IA32_DEBUGCTL		  0x1D9
#define MSR_SMI_COUNT			  0x034 /* model-specific: Nehalem on (Vol. 4 Table 2-20) */
#define MSR_IA32_MISC_ENABLE		  0x1A0
#define MSR_IA32_APIC_BASE		  0x01B
#define MSR_IA32_PAT			  0x277
#define MSR_IA32_EFER			  0xC0000080 /* SDM Vol. 3A 2.2.1 (IA32_EFER) */
#define MSR_IA32_GS_BASE		  0xC0000101

/* An MSR's address and its SDM name, for a table row or a call that takes
 * both: MSR_AND_NAME(IA32_FIXED_CTR0) is MSR_IA32_FIXED_CTR0, "IA32_FIXED_CTR0". */
#define MSR_AND_NAME(name) MSR_##name, #name

#define MSR_IA32_PMC(i)	       (MSR_IA32_PMC0 + (i))
#define MSR_IA32_PERFEVTSEL(i) (MSR_IA32_PERFEVTSEL0 + (i))
#define MSR_IA32_A_PMC(i)      (MSR_IA32_A_PMC0 + (i))
#define MSR_IA32_FIXED_CTR(i)  (MSR_IA32_FIXED_CTR0 + (i))

/* ---- Architectural PMU version 6 (ISE, "Architectural Performance
 * Monitoring Version 6"; addresses as in Linux msr-index.h MSR_IA32_PMC_V6_*,
 * 149fd4712bcd / ec980e4facef): four MSRs per counter, GP counter n at
 * 1900H + 4n, fixed counter m at 1980H + 4m. CTR and CFG_A are the same
 * registers as IA32_PMCn / IA32_PERFEVTSELn and IA32_FIXED_CTRm; CFG_B and
 * CFG_C (Auto Counter Reload, architectural PEBS) are new; there is no
 * FXm_CFG_A (IA32_FIXED_CTR_CTRL stays at 38DH). ---- */
#define MSR_IA32_PMC_V6_STEP	 4
#define MSR_IA32_PMC_GP0_CTR	 0x1900
#define MSR_IA32_PMC_GP0_CFG_A	 0x1901
#define MSR_IA32_PMC_GP0_CFG_B	 0x1902
#define MSR_IA32_PMC_GP0_CFG_C	 0x1903
#define MSR_IA32_PMC_FX0_CTR	 0x1980
#define MSR_IA32_PMC_FX0_CFG_A	 0x1981 /* the address no register holds */
#define MSR_IA32_PMC_FX0_CFG_B	 0x1982
#define MSR_IA32_PMC_FX0_CFG_C	 0x1983
#define MSR_IA32_PMC_GP_CTR(n)	 (MSR_IA32_PMC_GP0_CTR + MSR_IA32_PMC_V6_STEP * (n))
#define MSR_IA32_PMC_GP_CFG_A(n) (MSR_IA32_PMC_GP0_CFG_A + MSR_IA32_PMC_V6_STEP * (n))
#define MSR_IA32_PMC_FX_CTR(m)	 (MSR_IA32_PMC_FX0_CTR + MSR_IA32_PMC_V6_STEP * (m))
#define MSR_IA32_PMC_FX_CFG_A(m) (MSR_IA32_PMC_FX0_CFG_A + MSR_IA32_PMC_V6_STEP * (m))
#define MSR_IA32_PMC_GP_CFG_B(n) (MSR_IA32_PMC_GP0_CFG_B + MSR_IA32_PMC_V6_STEP * (n))
#define MSR_IA32_PMC_GP_CFG_C(n) (MSR_IA32_PMC_GP0_CFG_C + MSR_IA32_PMC_V6_STEP * (n))
#define MSR_IA32_PMC_FX_CFG_B(m) (MSR_IA32_PMC_FX0_CFG_B + MSR_IA32_PMC_V6_STEP * (m))
#define MSR_IA32_PMC_FX_CFG_C(m) (MSR_IA32_PMC_FX0_CFG_C + MSR_IA32_PMC_V6_STEP * (m))
/* Auto Counter Reload's cause bitmap in CFG_B: GP n at bit n, fixed m at
 * bit 32 + m (Linux ec980e4facef, acr_cfg_b[32 + m]). */
#define ACR_CAUSE_GP(n) BIT_ULL(n)
#define ACR_CAUSE_FX(m) BIT_ULL(32 + (m))
/* The range's slots: 32 GP counters (1900H-197FH), then the fixed ones. */
#define PMC_V6_GP_SLOTS 32
#define PMC_V6_FX_SLOTS 32

/* IA32_PERFEVTSELx, Vol. 3B Figure 20-1 (and 20-6 for AnyThread, v3). */
#define PERFEVTSEL_EVENT	     GENMASK_ULL(7, 0)
#define PERFEVTSEL_UMASK	     GENMASK_ULL(15, 8)
#define PERFEVTSEL_USR		     BIT_ULL(16)
#define PERFEVTSEL_OS		     BIT_ULL(17)
#define PERFEVTSEL_EDGE		     BIT_ULL(18)
#define PERFEVTSEL_PC		     BIT_ULL(19)
#define PERFEVTSEL_INT		     BIT_ULL(20)
#define PERFEVTSEL_ANY		     BIT_ULL(21) /* AnyThread, v3; deprecated by CPUID.0AH:EDX[15] */
#define PERFEVTSEL_EN		     BIT_ULL(22)
#define PERFEVTSEL_INV		     BIT_ULL(23)
#define PERFEVTSEL_CMASK	     GENMASK_ULL(31, 24)
#define PERFEVTSEL_IN_TX	     BIT_ULL(32)	 /* CPUID.(07H,0):EBX HLE[4] or RTM[11] */
#define PERFEVTSEL_IN_TXCP	     BIT_ULL(33)	 /* the same, IA32_PERFEVTSEL2 only */
#define PERFEVTSEL_BR_CNTR	     BIT_ULL(35)	 /* CPUID.(1CH,0):ECX[16 + x] */
#define PERFEVTSEL_EQ		     BIT_ULL(36)	 /* CPUID.(23H,0):EBX[1] */
#define PERFEVTSEL_RDPMC_USR_DISABLE BIT_ULL(37)	 /* CPUID.(23H,0):EBX[2] */
#define PERFEVTSEL_UMASK2	     GENMASK_ULL(47, 40) /* CPUID.(23H,0):EBX[0] */
/* Fixed counters with a bit 32 + 4i / 33 + 4i below bit 64: 0-7. */
#define FIXED_CTRL_HIGH_FIELDS 8

/* IA32_FIXED_CTR_CTRL, Vol. 3B Figure 20-2: 4 bits per fixed counter i at
 * bits 4i+3:4i. */
#define FIXED_CTRL_OS		  0x1ULL /* ring 0 */
#define FIXED_CTRL_USR		  0x2ULL /* ring > 0 */
#define FIXED_CTRL_ANY		  0x4ULL /* AnyThread, v3 */
#define FIXED_CTRL_PMI		  0x8ULL
#define FIXED_CTRL_FIELD(i, bits) ((uint64_t)(bits) << (4 * (i)))
/* RDPMC_USR_DISABLE of fixed counter i, bit 33 + 4i (CPUID.(23H,0):EBX[2],
 * Linux 59af95e028d4); METRICS_CLEAR_EN, bit 14, with IA32_PERF_CAPABILITIES
 * .RDPMC_METRICS_CLEAR[19] (Linux 0e45818ec189). */
#define FIXED_CTRL_RDPMC_USR_DISABLE(i) BIT_ULL(33 + 4 * (i))
#define FIXED_CTRL_METRICS_CLEAR	BIT_ULL(14)

/* IA32_PERF_GLOBAL_STATUS / _OVF_CTRL / _STATUS_SET, Vol. 3B Figures 20-3,
 * 20-4, 20-5 and 20-36..20-38 (v4). Counter bits: PMCi at i, FIXED_CTRi at
 * 32 + i. */
#define GLOBAL_FIXED_SHIFT	   32
#define GLOBAL_FIXED_BITS	   16 /* FIXED_CTR0-15 at bits 47:32 */
#define GLOBAL_PMC_BIT(i)	   BIT_ULL(i)
#define GLOBAL_FIXED_BIT(i)	   BIT_ULL(GLOBAL_FIXED_SHIFT + (i))
#define GLOBAL_STATUS_PERF_METRICS BIT_ULL(48)
#define GLOBAL_STATUS_TOPA_PMI	   BIT_ULL(55)
#define GLOBAL_STATUS_LBR_FRZ	   BIT_ULL(58) /* v4 */
#define GLOBAL_STATUS_CTR_FRZ	   BIT_ULL(59) /* v4 */
#define GLOBAL_STATUS_ASCI	   BIT_ULL(60)
#define GLOBAL_STATUS_OVF_UNCORE   BIT_ULL(61)
#define GLOBAL_STATUS_OVF_BUFFER   BIT_ULL(62) /* OvfDSBuffer */
#define GLOBAL_STATUS_COND_CHGD	   BIT_ULL(63)
/* IA32_PERF_GLOBAL_INUSE (v4), Vol. 3B Figure 20-39: PERFEVTSELx in use at
 * bit x, FIXED_CTRx at 32 + x, PMI in use at 63. */
#define GLOBAL_INUSE_PMI BIT_ULL(63)

/* IA32_DEBUGCTL, Vol. 3B Figure 18-3. */
#define DEBUGCTL_FREEZE_LBRS_ON_PMI    BIT_ULL(11)
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI BIT_ULL(12)
#define DEBUGCTL_FREEZE_WHILE_SMM      BIT_ULL(14)
/* Nehalem (06_1AH), Vol. 4 MSR table of the Nehalem family, IA32_DEBUGCTL
 * bit 13 ENABLE_UNCORE_PMI (Vol. 3B 20.3.1.2 calls it Offcore_PMI_EN): this logical processor
 * receives the uncore's PMIs. */
#define DEBUGCTL_ENABLE_UNCORE_PMI BIT_ULL(13)

/* IA32_PERF_CAPABILITIES, Vol. 3B 20.9 / Figure 20-68 and Vol. 4 Table 2-2. */
#define PERF_CAP_LBR_FMT		GENMASK_ULL(5, 0)
#define PERF_CAP_PEBS_TRAP		BIT_ULL(6)
#define PERF_CAP_PEBS_ARCH_REG		BIT_ULL(7)
#define PERF_CAP_PEBS_FMT		GENMASK_ULL(11, 8)
#define PERF_CAP_FREEZE_WHILE_SMM	BIT_ULL(12)
#define PERF_CAP_FW_WRITE		BIT_ULL(13)
#define PERF_CAP_PEBS_BASELINE		BIT_ULL(14)
#define PERF_CAP_PERF_METRICS_AVAILABLE BIT_ULL(15)
#define PERF_CAP_PEBS_OUTPUT_PT_AVAIL	BIT_ULL(16)
#define PERF_CAP_PEBS_TIMING_INFO	BIT_ULL(17) /* Linux 0c5caea762de */
#define PERF_CAP_RDPMC_METRICS_CLEAR	BIT_ULL(19) /* Linux 0e45818ec189 */
#define PERF_CAP_DEFINED		(GENMASK_ULL(17, 0) | PERF_CAP_RDPMC_METRICS_CLEAR)
#define PERF_CAP_PEBS_FMT_ARCH		0xF /* architectural PEBS */

/* IA32_MISC_ENABLE, Vol. 4 Table 2-2. */
#define MISC_ENABLE_PERF_MON_AVAILABLE BIT_ULL(7)
#define MISC_ENABLE_LIMIT_CPUID	       BIT_ULL(22) /* Limit CPUID Maxval */
#define MISC_ENABLE_PEBS_UNAVAILABLE   BIT_ULL(12)

/* ---- Last branch records (Vol. 3B chapter 19) -------------------------- */
/* IA32_DEBUGCTL.LBR (bit 0), Vol. 3B Figure 18-3. */
#define DEBUGCTL_LBR BIT_ULL(0)

/* Model-specific LBR stack (Vol. 3B 19.4.8 "LBR Stack" and the per
 * microarchitecture sections; Vol. 4 model tables). The stack depth and the
 * base addresses depend on DisplayFamily_DisplayModel: kernel/lbr.c. */
#define MSR_LBR_SELECT	  0x1C8 /* MSR_LBR_SELECT (Nehalem and later) */
#define MSR_LBR_TOS	  0x1C9 /* MSR_LASTBRANCH_TOS */
#define MSR_LBR_CORE_FROM 0x040 /* MSR_LASTBRANCH_0 / _0_FROM_IP (Core 2, Atom) */
#define MSR_LBR_CORE_TO	  0x060 /* MSR_LASTBRANCH_0_TO_IP (Core 2, Atom) */
#define MSR_LBR_NHM_FROM  0x680 /* MSR_LASTBRANCH_0_FROM_IP (Nehalem and later) */
#define MSR_LBR_NHM_TO	  0x6C0 /* MSR_LASTBRANCH_0_TO_IP (Nehalem and later) */
#define MSR_LBR_INFO_0	  0xDC0 /* MSR_LBR_INFO_0 (LBR format 5 and 7) */
/* MSR_LBR_SELECT, Vol. 3B "Filtering of Last Branch Records" (the
 * MSR_LBR_SELECT tables of Nehalem and Haswell): each bit
 * set SUPPRESSES the branches it names, except EN_CALLSTACK (9). */
#define LBR_SELECT_CPL_EQ_0	 BIT_ULL(0) /* branches ending in ring 0 */
#define LBR_SELECT_CPL_NEQ_0	 BIT_ULL(1) /* branches ending in ring > 0 */
#define LBR_SELECT_JCC		 BIT_ULL(2) /* conditional branches */
#define LBR_SELECT_NEAR_REL_CALL BIT_ULL(3)
#define LBR_SELECT_NEAR_IND_CALL BIT_ULL(4)
#define LBR_SELECT_NEAR_RET	 BIT_ULL(5)
#define LBR_SELECT_NEAR_IND_JMP	 BIT_ULL(6)
#define LBR_SELECT_NEAR_REL_JMP	 BIT_ULL(7)
#define LBR_SELECT_FAR_BRANCH	 BIT_ULL(8)
#define LBR_SELECT_EN_CALLSTACK	 BIT_ULL(9) /* Haswell and later */
/* Flags in MSR_LASTBRANCH_x_FROM_IP for LBR formats 3, 4 and 6 (Vol. 3B
 * 19.4.8.1): MISPRED at 63; formats 4 (TSX): IN_TX 62, TSX_ABORT 61.
 * Format 6 keeps a cycle count in MSR_LASTBRANCH_x_TO_IP[63:48]. */
#define LBR_FROM_MISPRED BIT_ULL(63)
#define LBR_FROM_IN_TX	 BIT_ULL(62)
#define LBR_FROM_ABORT	 BIT_ULL(61)
#define LBR_TO_CYCLES	 GENMASK_ULL(63, 48)
/* MSR_LBR_INFO_x (formats 5, 7) and IA32_LBR_x_INFO (Arch LBR), Vol. 3B
 * "MSR_LBR_INFO_x" (Skylake) and the IA32_LBR_x_INFO table (Arch LBR). BR_TYPE
 * and CYC_CNT_VALID are Arch LBR only. */
#define LBR_INFO_CYC_CNT       GENMASK_ULL(15, 0)
#define LBR_INFO_BR_TYPE       GENMASK_ULL(59, 56)
#define LBR_INFO_CYC_CNT_VALID BIT_ULL(60)
#define LBR_INFO_TSX_ABORT     BIT_ULL(61)
#define LBR_INFO_IN_TX	       BIT_ULL(62)
#define LBR_INFO_MISPRED       BIT_ULL(63)
/* IA32_LBR_x_INFO.BR_TYPE encodings, Vol. 3B 19.1 (the BR_TYPE table). */
enum arch_lbr_br_type {
	ARCH_LBR_BR_JCC = 0,
	ARCH_LBR_BR_NEAR_IND_JMP = 1,
	ARCH_LBR_BR_NEAR_REL_JMP = 2,
	ARCH_LBR_BR_NEAR_IND_CALL = 3,
	ARCH_LBR_BR_NEAR_REL_CALL = 4,
	ARCH_LBR_BR_NEAR_RET = 5,
};

/* Architectural LBRs, Vol. 3B 19.1 and Vol. 4 Table 2-2. */
#define MSR_IA32_LBR_CTL       0x14CE
#define MSR_IA32_LBR_DEPTH     0x14CF
#define MSR_IA32_LBR_0_INFO    0x1200 /* IA32_LBR_x_INFO = 1200H + x */
#define MSR_IA32_LBR_0_FROM_IP 0x1500 /* IA32_LBR_x_FROM_IP = 1500H + x */
#define MSR_IA32_LBR_0_TO_IP   0x1600 /* IA32_LBR_x_TO_IP = 1600H + x */
#define ARCH_LBR_MAX_DEPTH     64     /* CPUID.1CH:EAX[7:0] enumerates up to 8 * 8 */
/* IA32_LBR_CTL, Vol. 3B 19.1 (the IA32_LBR_CTL table): the filter bits
 * SELECT (include) the
 * branches they name, unlike MSR_LBR_SELECT. */
#define LBR_CTL_LBREN	      BIT_ULL(0)
#define LBR_CTL_OS	      BIT_ULL(1)  /* CPUID.1CH:EBX[0] */
#define LBR_CTL_USR	      BIT_ULL(2)  /* CPUID.1CH:EBX[0] */
#define LBR_CTL_CALL_STACK    BIT_ULL(3)  /* CPUID.1CH:EBX[2] */
#define LBR_CTL_COND	      BIT_ULL(16) /* CPUID.1CH:EBX[1] for 16..22 */
#define LBR_CTL_NEAR_REL_JMP  BIT_ULL(17)
#define LBR_CTL_NEAR_IND_JMP  BIT_ULL(18)
#define LBR_CTL_NEAR_REL_CALL BIT_ULL(19)
#define LBR_CTL_NEAR_IND_CALL BIT_ULL(20)
#define LBR_CTL_NEAR_RET      BIT_ULL(21)
#define LBR_CTL_OTHER_BRANCH  BIT_ULL(22)
#define LBR_CTL_ALL_BRANCHES  GENMASK_ULL(22, 16)

/* ---- PEBS and the DS save area (Vol. 3B 18.4.9 "BTS and DS Save Area";
 * 20.9 "PEBS Facility", adaptive PEBS with PEBS_BASELINE) --------------- */
#define MSR_IA32_DS_AREA     0x600
#define MSR_IA32_PEBS_ENABLE 0x3F1 /* PMCn at n, FIXED_CTRi at 32 + i (baseline) */
#define MSR_PEBS_DATA_CFG    0x3F2 /* with PEBS_BASELINE */
/* IA32_PERFEVTSELx.Adaptive_Record (bit 34) and IA32_FIXED_CTR_CTRL bit
 * 32 + 4i, with PEBS_BASELINE: the record takes the groups of
 * MSR_PEBS_DATA_CFG; clear, the basic group only. */
#define PERFEVTSEL_ADAPTIVE    BIT_ULL(34)
#define FIXED_CTRL_ADAPTIVE(i) BIT_ULL(32 + 4 * (i))
/* MSR_PEBS_DATA_CFG groups and LBR entry count (Vol. 3B 20.9, the
 * MSR_PEBS_DATA_CFG table): the record format field echoes them. */
#define PEBS_DATA_CFG_MEMINFO	  BIT_ULL(0)
#define PEBS_DATA_CFG_GPRS	  BIT_ULL(1)
#define PEBS_DATA_CFG_XMMS	  BIT_ULL(2)
#define PEBS_DATA_CFG_LBRS	  BIT_ULL(3)
#define PEBS_DATA_CFG_LBR_ENTRIES GENMASK_ULL(28, 24) /* entries - 1 */
/* PEBS format 6, counters snapshotting (Linux e02e9b0374c3; the SDM text
 * not read): the counters group, the PERF_METRICS snapshot, and which GP /
 * fixed counters the group holds. In the record, after the LBR group: a
 * 16-byte header {u32 GP mask, u32 fixed mask, u32 metrics, u32 0}, then a
 * quadword per GP counter, per fixed counter, and 2 for the metrics. */
#define PEBS_DATA_CFG_CNTR	 BIT_ULL(4)
#define PEBS_DATA_CFG_METRICS	 BIT_ULL(5)
#define PEBS_DATA_CFG_CNTR_GP	 GENMASK_ULL(47, 32)
#define PEBS_DATA_CFG_CNTR_FIXED GENMASK_ULL(55, 48)
#define PEBS_CNTR_METRICS	 3 /* the header's metrics field with bit 5: INTEL_CNTR_METRICS */

/* ---- Architectural PEBS (ISE ch. 11 "Architectural PEBS"; the layouts as
 * Linux d243d0bb64af / 2721e8da2de7 / 52448a0a7390 define them, the ISE
 * text not read; IA32_PERF_CAPABILITIES.PEBS_FMT = 0FH and CPUID.(23H,0):
 * EAX[5:4]) ------------------------------------------------------------ */
#define MSR_IA32_PEBS_BASE  0x3F4 /* 4 KiB-aligned buffer | SIZE: 4 KiB << SIZE */
#define MSR_IA32_PEBS_INDEX 0x3F5
#define APEBS_BASE_SIZE	    GENMASK_ULL(3, 0)  /* Linux writes 4 (64 KiB); width inferred */
#define APEBS_INDEX_WR	    GENMASK_ULL(26, 4) /* write offset, 16-byte units */
#define APEBS_INDEX_FULL    BIT_ULL(31)
#define APEBS_INDEX_EN	    BIT_ULL(32)
#define APEBS_INDEX_THRESH  GENMASK_ULL(58, 36) /* 16-byte units, like WR */
#define APEBS_INDEX_RSVD                                                                           \
	(GENMASK_ULL(3, 0) | GENMASK_ULL(30, 27) | GENMASK_ULL(35, 33) | GENMASK_ULL(63, 59))
#define APEBS_UNIT 16
/* IA32_PMC_GPn_CFG_C / IA32_PMC_FXm_CFG_C: the reload value, the groups
 * (CPUID.(23H,4):EBX[k] enumerates bit 32 + k) and EN. */
#define APEBS_CFG_RELOAD GENMASK_ULL(31, 0)
/* The counters group (Linux 2025 "Add counter group support for arch-PEBS",
 * msr-index.h ARCH_PEBS_CNTR_*): ALLOW on a counter puts its value into the
 * snapshot another counter's record takes; GP / FIXED / METRICS on the
 * sampling counter name what the snapshot holds. */
#define APEBS_CFG_CNTR_ALLOW   BIT_ULL(35)
#define APEBS_CFG_CNTR_GP      BIT_ULL(36)
#define APEBS_CFG_CNTR_FIXED   BIT_ULL(37)
#define APEBS_CFG_CNTR_METRICS BIT_ULL(38)
#define APEBS_CFG_CNTR_KINDS   (APEBS_CFG_CNTR_GP | APEBS_CFG_CNTR_FIXED | APEBS_CFG_CNTR_METRICS)
/* The LBR group (ARCH_PEBS_LBR, 41:40): 1 = 8 entries, 2 = 16, 3 = the
 * depth the group's header gives (ARCH_PEBS_LBR_NUM_8/_16/_VAR). */
#define APEBS_CFG_LBR	       GENMASK_ULL(41, 40)
#define APEBS_LBR_NUM_VAR      3
#define APEBS_LBR_BASE_ENTRIES 8
#define APEBS_CFG_XMM	       BIT_ULL(49)
#define APEBS_CFG_GPR	       BIT_ULL(61)
#define APEBS_CFG_AUX	       BIT_ULL(62)
#define APEBS_CFG_EN	       BIT_ULL(63)
/* The record header's first quadword (struct arch_pebs_header). */
#define APEBS_HDR_SIZE	GENMASK_ULL(15, 0)
#define APEBS_HDR_CONT	BIT_ULL(31)
#define APEBS_HDR_CNTR	GENMASK_ULL(39, 35) /* the CFG_C counters-group bits */
#define APEBS_HDR_LBR	GENMASK_ULL(41, 40) /* the CFG_C LBR field */
#define APEBS_HDR_XMM	BIT_ULL(49)
#define APEBS_HDR_GPR	BIT_ULL(61)
#define APEBS_HDR_AUX	BIT_ULL(62)
#define APEBS_HDR_BASIC BIT_ULL(63)
#define APEBS_HDR_GROUPS                                                                           \
	(GENMASK_ULL(39, 35) | GENMASK_ULL(41, 40) | GENMASK_ULL(50, 49) | GENMASK_ULL(55, 53) |   \
	 GENMASK_ULL(63, 61))
/* Group sizes: header 2 quadwords, basic 6, aux 8, GPRs 20, XMM header 2 +
 * 32. */
#define APEBS_HDR_BYTES	  0x10
#define APEBS_BASIC_BYTES 0x30
#define APEBS_AUX_BYTES	  0x40
#define APEBS_GPR_BYTES	  0xA0
#define APEBS_XMM_BYTES	  0x110
/* struct arch_pebs_lbr_header {rsvd, ctl, depth, ler_from, ler_to,
 * ler_info}, then 3 quadwords per entry (struct lbr_entry); struct
 * arch_pebs_cntr_header {u32 cntr, fixed, metrics, reserved}, the layout
 * of format 6's group above: a quadword per named counter and 2 when
 * metrics is PEBS_CNTR_METRICS. */
#define APEBS_LBR_HDR_BYTES	0x30
#define APEBS_LBR_HDR_DEPTH	2 /* quadword index of depth */
#define APEBS_LBR_ENTRY_BYTES	0x18
#define APEBS_CNTR_HDR_BYTES	0x10
#define GLOBAL_STATUS_ARCH_PEBS BIT_ULL(54) /* the threshold interrupt */

/* RDPMC ECX encodings, Vol. 2B "RDPMC". */
#define RDPMC_TYPE_SHIFT       16
#define RDPMC_TYPE_GP	       0x0000U
#define RDPMC_TYPE_FIXED       0x4000U
#define RDPMC_TYPE_METRICS     0x2000U
#define RDPMC_ECX(type, index) (((uint64_t)(type) << RDPMC_TYPE_SHIFT) | (index))
#define RDPMC_FAST	       BIT_ULL(31) /* non-architectural PMUs only */

/* CR4, Vol. 3A 2.5. */
#define CR4_PCE BIT_ULL(8)

/* ---- Architectural events, Vol. 3B Table 20-1 "UMask and Event Select
 * Encodings for Pre-Defined Architectural Performance Events". Index i is
 * the bit of CPUID.0AH:EBX that says "not available". ------------------- */
enum arch_event {
	ARCH_EVENT_CORE_CYCLES = 0,	  /* 3CH/00H UnHalted Core Cycles */
	ARCH_EVENT_INSTRUCTIONS = 1,	  /* C0H/00H Instruction Retired */
	ARCH_EVENT_REF_CYCLES = 2,	  /* 3CH/01H UnHalted Reference Cycles */
	ARCH_EVENT_LLC_REFERENCES = 3,	  /* 2EH/4FH */
	ARCH_EVENT_LLC_MISSES = 4,	  /* 2EH/41H */
	ARCH_EVENT_BRANCHES = 5,	  /* C4H/00H Branch Instruction Retired */
	ARCH_EVENT_BRANCH_MISSES = 6,	  /* C5H/00H Branch Misses Retired */
	ARCH_EVENT_TOPDOWN_SLOTS = 7,	  /* A4H/01H */
	ARCH_EVENT_TOPDOWN_BACKEND = 8,	  /* A4H/02H */
	ARCH_EVENT_TOPDOWN_BAD_SPEC = 9,  /* 73H/00H */
	ARCH_EVENT_TOPDOWN_FRONTEND = 10, /* 9CH/01H */
	ARCH_EVENT_TOPDOWN_RETIRING = 11, /* C2H/02H */
	ARCH_EVENT_LBR_INSERTS = 12,	  /* E4H/01H */
	ARCH_EVENT_COUNT = 13,
};

/* Fixed-function counters, Vol. 3B Table 20-2: the event each one counts. */
enum fixed_counter {
	FIXED_INSTRUCTIONS = 0,	 /* INST_RETIRED.ANY */
	FIXED_CORE_CYCLES = 1,	 /* CPU_CLK_UNHALTED.THREAD */
	FIXED_REF_CYCLES = 2,	 /* CPU_CLK_UNHALTED.REF_TSC */
	FIXED_TOPDOWN_SLOTS = 3, /* TOPDOWN.SLOTS */
	FIXED_MAX = 32,		 /* ECX bitmask of CPUID.0AH is 32 bits */
};

/* ---- RDT monitoring and allocation, Vol. 3B 17.18 / 17.19 and Vol. 4
 * Table 2-2. ------------------------------------------------------------ */
#define MSR_IA32_QM_EVTSEL 0xC8D
#define MSR_IA32_QM_CTR	   0xC8E
#define MSR_IA32_PQR_ASSOC 0xC8F
#define MSR_IA32_L3_MASK_0 0xC90
#define MSR_IA32_L2_MASK_0 0xD10
/* Allocation (Vol. 3B 17.19, "Intel RDT Allocation Features"): CDP enables
 * (bit 0; 63:1 reserved) and the MBA delay of COS n at D50H + n. */
#define MSR_IA32_L3_QOS_CFG	       0xC81
#define MSR_IA32_L2_QOS_CFG	       0xC82
#define MSR_IA32_L2_QOS_EXT_BW_THRTL_0 0xD50
#define QOS_CFG_CDP_ENABLE	       BIT_ULL(0)
/* L3 CAT masks C90H-D0FH (128 COS), L2 CAT masks D10H-D4FH (64 COS). */
#define RDT_L3_MASK_COUNT 128
#define RDT_L2_MASK_COUNT 64
/* AMD PQoS (APM Vol. 2 19.4.5, 19.4.6, 19.3.3.2): L3QOS_BW_CONTROL_n,
 * L3QOS_SMBW_CONTROL_n (BW in 1/8 GB/s in bits BW_LEN-1:0, U = bit BW_LEN,
 * the rest RAZ) and the BMEC event configurations QOS_EVT_CFG_n. */
#define MSR_AMD_L3QOS_BW_CONTROL_0   0xC0000200
#define MSR_AMD_L3QOS_SMBW_CONTROL_0 0xC0000280
#define MSR_AMD_QOS_EVT_CFG_0	     0xC0000400
#define AMD_QOS_EVT_CFG_BITS	     GENMASK_ULL(6, 0)
/* AMD PQR_ASSOC (APM Vol. 2 19.3.1.1, Figure 19-1): RMID 11:0, COS 35:32;
 * 31:12 and 63:36 must be zero. */
#define AMD_PQR_ASSOC_RMID GENMASK_ULL(11, 0)
#define AMD_PQR_ASSOC_COS  GENMASK_ULL(35, 32)
#define QM_EVTSEL_EVENT_ID GENMASK_ULL(7, 0)
#define QM_EVTSEL_RMID	   GENMASK_ULL(41, 32)
#define QM_CTR_DATA	   GENMASK_ULL(61, 0)
#define QM_CTR_UNAVAILABLE BIT_ULL(62)
#define QM_CTR_ERROR	   BIT_ULL(63)
#define PQR_ASSOC_RMID	   GENMASK_ULL(9, 0)
#define PQR_ASSOC_COS	   GENMASK_ULL(63, 32)
/* Monitoring event IDs, Vol. 3B Table 17-19. */
#define QM_EVENT_L3_OCCUPANCY 1
#define QM_EVENT_L3_TOTAL_BW  2
#define QM_EVENT_L3_LOCAL_BW  3

/* ---- Nehalem uncore PMU, Vol. 3B 20.3.1.2 and Vol. 4 Table 2-15
 * ("Performance Monitoring Facility in the Uncore"). Only on DisplayFamily 06H with
 * DisplayModel 1AH, 1EH, 1FH (Nehalem) or 25H, 2CH (Westmere, same uncore
 * per the SDM's Westmere section); 2EH/2FH (Xeon 7500/E7) have a box-based
 * uncore with other MSRs (caps.c, decode_model_specific). ---------------- */
#define MSR_UNCORE_PERF_GLOBAL_CTRL	0x391
#define MSR_UNCORE_PERF_GLOBAL_STATUS	0x392
#define MSR_UNCORE_PERF_GLOBAL_OVF_CTRL 0x393
#define MSR_UNCORE_FIXED_CTR0		0x394
#define MSR_UNCORE_FIXED_CTR_CTRL	0x395
#define MSR_UNCORE_ADDR_OPCODE_MATCH	0x396
#define MSR_UNCORE_PMC0			0x3B0 /* MSR_UNCORE_PMCx = 3B0H + x, x < 8 */
#define MSR_UNCORE_PERFEVTSEL0		0x3C0 /* MSR_UNCORE_PerfEvtSelx = 3C0H + x */
#define UNCORE_NUM_GP			8
#define UNCORE_WIDTH			48
#define UNCORE_EVTSEL_EDGE		BIT_ULL(18)
#define UNCORE_EVTSEL_PMI		BIT_ULL(20)
#define UNCORE_EVTSEL_EN		BIT_ULL(22)
#define UNCORE_EVTSEL_INV		BIT_ULL(23)
#define UNCORE_EVTSEL_CMASK		GENMASK_ULL(31, 24)
#define UNCORE_FIXED_CTRL_EN		BIT_ULL(0)
#define UNCORE_FIXED_CTRL_PMI		BIT_ULL(2)
/* MSR_UNCORE_PERF_GLOBAL_CTRL, Vol. 3B Figure 20-30: EN_PCx at x, EN_FC0 at
 * 32, EN_PMI_CORE0..3 at 48..51, PMI_FRZ at 63. */
#define UNCORE_GLOBAL_EN_FC0	     BIT_ULL(32)
#define UNCORE_GLOBAL_EN_PMI_CORE(c) BIT_ULL(48 + (c))
#define UNCORE_GLOBAL_PMI_FRZ	     BIT_ULL(63)
/* MSR_UNCORE_PERF_GLOBAL_STATUS / _OVF_CTRL, Vol. 3B 20.3.1.2 (figures
 * "Layout of MSR_UNCORE_PERF_GLOBAL_STATUS" / "..._OVF_CTRL"):
 * OVF_PCx at x, OVF_FC0 at 32, OVF_PMI at 61, CHG at 63. */
#define UNCORE_STATUS_FC0     BIT_ULL(32)
#define UNCORE_STATUS_OVF_PMI BIT_ULL(61)
#define UNCORE_STATUS_CHG     BIT_ULL(63)

/* ---- P6 family (Pentium Pro, II, III, M), SDM Vol. 3B "Performance
 * Monitoring (P6 Family Processor)": PerfEvtSel0/1 at 186H/187H and
 * PerfCtr0/1 at C1H/C2H (the addresses IA32_PERFEVTSELx / IA32_PMCx later
 * took over), 40-bit counters; a WRMSR writes bits 31:0 and sign-extends
 * bit 31 into 39:32. The EN flag (bit 22) exists in PerfEvtSel0 only and
 * enables both counters. Events: the SDM's "Events That Can Be Counted"
 * table for the P6 family. --------------------------------------------- */
#define MSR_P6_PERFCTR(i)	(0xC1 + (i))
#define MSR_P6_EVNTSEL(i)	(0x186 + (i))
#define P6_NUM_COUNTERS		2
#define P6_COUNTER_WIDTH	40
#define P6_EVT_INST_RETIRED	0xC0
#define P6_EVT_CPU_CLK_UNHALTED 0x79
#define P6_EVT_BR_INST_RETIRED	0xC4
/* PerfEvtSel0/1 are 32-bit registers: bits 63:32 do not exist. */
#define P6_EVTSEL_RESERVED GENMASK_ULL(63, 32)

/* ---- Pentium 4 / Xeon (NetBurst) counters, Vol. 3B "Performance Monitoring
 * (Processors Based on Intel NetBurst Microarchitecture)", the table
 * "Performance Counter MSRs and Associated CCCR and ESCR MSRs" (section
 * 18.18.6 and Table 18-26 in editions that number the NetBurst section
 * 18.18). 18 counters at 300H,
 * their CCCRs at 360H, 40-bit wide. ------------------------------------- */
#define MSR_BPU_COUNTER0  0x300
#define MSR_P4_COUNTER(i) (0x300 + (i)) /* i < 18 */
#define MSR_BPU_CCCR0	  0x360
#define MSR_P4_CCCR(i)	  (0x360 + (i))
#define P4_NUM_COUNTERS	  18
#define P4_COUNTER_WIDTH  40
#define MSR_BSU_ESCR0	  0x3A0
#define MSR_FSB_ESCR0	  0x3A2
#define MSR_MOB_ESCR0	  0x3AA
#define MSR_PMH_ESCR0	  0x3AC
#define MSR_BPU_ESCR0	  0x3B2
#define MSR_IS_ESCR0	  0x3B4
#define MSR_ITLB_ESCR0	  0x3B6
#define MSR_CRU_ESCR0	  0x3B8
#define MSR_CRU_ESCR1	  0x3B9
#define MSR_CRU_ESCR2	  0x3CC
#define MSR_TC_ESCR0	  0x3C4
/* ESCR fields, Vol. 3B Figure 20-4x "Event Selection Control Register". */
#define P4_ESCR_USR	     BIT_ULL(2)
#define P4_ESCR_OS	     BIT_ULL(3)
#define P4_ESCR_TAG_ENABLE   BIT_ULL(4)
#define P4_ESCR_TAG_VALUE    GENMASK_ULL(8, 5)
#define P4_ESCR_EVENT_MASK   GENMASK_ULL(24, 9)
#define P4_ESCR_EVENT_SELECT GENMASK_ULL(30, 25)
/* CCCR fields, Vol. 3B Figure 20-4x "Counter Configuration Control
 * Register". Bits 17:16 are reserved and must be written as 11B. */
#define P4_CCCR_ENABLE	      BIT_ULL(12)
#define P4_CCCR_ESCR_SELECT   GENMASK_ULL(15, 13)
#define P4_CCCR_RESERVED_ONES GENMASK_ULL(17, 16)
#define P4_CCCR_COMPARE	      BIT_ULL(18)
#define P4_CCCR_COMPLEMENT    BIT_ULL(19)
#define P4_CCCR_THRESHOLD     GENMASK_ULL(23, 20)
#define P4_CCCR_EDGE	      BIT_ULL(24)
#define P4_CCCR_FORCE_OVF     BIT_ULL(25)
#define P4_CCCR_OVF_PMI	      BIT_ULL(26)
#define P4_CCCR_CASCADE	      BIT_ULL(30)
#define P4_CCCR_OVF	      BIT_ULL(31)

/* ---- AMD, AMD64 APM Vol. 2 13.2 and the PPRs -------------------------- */
#define MSR_K7_EVNTSEL0			      0xC0010000 /* PerfEvtSel0..3 (legacy) */
#define MSR_K7_PERFCTR0			      0xC0010004 /* PerfCtr0..3 (legacy) */
#define MSR_F15H_PERF_CTL0		      0xC0010200 /* PerfEvtSeln = C001_0200H + 2n */
#define MSR_F15H_PERF_CTR0		      0xC0010201 /* PerfCtrn = C001_0201H + 2n */
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS     0xC0000300 /* PerfMonV2 */
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL	      0xC0000301
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR 0xC0000302
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET 0xC0000303

/* AMD LBR v2 (CPUID 8000_0022H EAX[1], depth EBX[9:4]; the APM text not
 * read: names and bits as Linux arch/x86/events/amd/lbr.c and msr-index.h
 * define them). The stack: entry i's FROM at C001_0300H + 2i, TO at + 1;
 * entry 0 is always the youngest branch. */
#define MSR_AMD64_LBR_SELECT	 0xC000010EU
#define MSR_AMD_DBG_EXTN_CFG	 0xC000010FU
#define AMD_DBG_EXTN_CFG_LBRV2EN BIT_ULL(6)
#define MSR_AMD_SAMP_BR_FROM(i)	 (0xC0010300U + 2 * (i))
#define MSR_AMD_SAMP_BR_TO(i)	 (0xC0010301U + 2 * (i))
#define AMD_LBR_IP		 GENMASK_ULL(57, 0) /* sign-extended from bit 57 */
#define AMD_LBR_FROM_MISPREDICT	 BIT_ULL(63)
#define AMD_LBR_TO_SPEC		 BIT_ULL(62)
#define AMD_LBR_TO_VALID	 BIT_ULL(63)
/* LBR_SELECT: a set bit suppresses (Linux "Filter bits operate in suppress
 * mode"): 0 branches ending at CPL 0, 1 at CPL > 0, 2 Jcc, 3 near relative
 * CALL, 4 near indirect CALL, 5 near RET, 6 near indirect JMP, 7 near
 * relative JMP, 8 far; bits 63:9 reserved (LBR_SELECT_MASK 1FFH). */
#define AMD_LBR_SELECT_KERNEL	BIT_ULL(0)
#define AMD_LBR_SELECT_USER	BIT_ULL(1)
#define AMD_LBR_SELECT_JCC	BIT_ULL(2)
#define AMD_LBR_SELECT_CALL_REL BIT_ULL(3)
#define AMD_LBR_SELECT_RET	BIT_ULL(5)
#define AMD_LBR_SELECT_JMP_REL	BIT_ULL(7)
#define AMD_LBR_SELECT_VALID	GENMASK_ULL(8, 0)
#define AMD_COUNTER_WIDTH	48
/* Core counters: at most 15 (CPUID.80000022H:EBX[3:0] with PerfMonV2, APM
 * Vol. 2 13.2.2); arrays indexed by counter are this long. */
#define AMD_CORE_COUNTERS_MAX 16

/* ---- Local APIC, Vol. 3A 10.4 / 10.5 / 10.12 ------------------------- */
#define APIC_BASE_BSP		 BIT_ULL(8)
#define APIC_BASE_EXTD		 BIT_ULL(10) /* x2APIC mode */
#define APIC_BASE_EN		 BIT_ULL(11)
#define APIC_BASE_ADDR		 GENMASK_ULL(51, 12)
#define APIC_LVT_VECTOR		 GENMASK_ULL(7, 0)
#define APIC_LVT_DELIVERY_MODE	 GENMASK_ULL(10, 8) /* 000 fixed, 100 NMI */
#define APIC_LVT_DELIVERY_STATUS BIT_ULL(12)
#define APIC_LVT_MASKED		 BIT_ULL(16)
#define APIC_LVT_TIMER_PERIODIC	 BIT_ULL(17)
/* Delivery-mode encodings of LVT entries and the ICR, Vol. 3A 10.5.1 / 10.6.1
 * (11.5.1 / 11.6.1 in 2023+ editions): NMI ignores the vector field. */
#define APIC_DM_FIXED 0
#define APIC_DM_NMI   4
#define APIC_DM_INIT  5 /* ICR only: INIT, vector 00H */
#define APIC_DM_SIPI  6 /* ICR only: Start-Up, vector = page number below 1 MiB */
/* Interrupt command register, Vol. 3A 10.6.1 Figure 10-12 (xAPIC: low half
 * at 300H, high half at 310H; x2APIC: one 64-bit MSR 830H, 10.12.9). */
#define APIC_ICR_DELIVERY_MODE	 GENMASK_ULL(10, 8)
#define APIC_ICR_DELIVERY_STATUS BIT_ULL(12) /* xAPIC only: 1 = send pending */
#define APIC_ICR_LEVEL_ASSERT	 BIT_ULL(14)
#define APIC_ICR_XAPIC_DEST	 GENMASK_ULL(63, 56) /* physical: APIC ID */
#define APIC_ICR_X2APIC_DEST	 GENMASK_ULL(63, 32) /* physical: x2APIC ID */
#define APIC_ID_XAPIC		 GENMASK_ULL(31, 24) /* ID register, Figure 10-6 */
/* xAPIC register offsets; the x2APIC MSR is 800H + offset / 16. */
#define APIC_REG_ID	       0x020
#define APIC_REG_EOI	       0x0B0
#define APIC_REG_ICR	       0x300 /* x2APIC: MSR 830H, all 64 bits */
#define APIC_REG_ICR_HI	       0x310 /* xAPIC only */
#define APIC_REG_SVR	       0x0F0
#define APIC_REG_LVT_TIMER     0x320
#define APIC_REG_LVT_PMI       0x340
#define APIC_REG_TIMER_INITIAL 0x380
#define APIC_REG_TIMER_CURRENT 0x390
#define APIC_REG_TIMER_DIVIDE  0x3E0
#define APIC_SVR_ENABLE	       BIT_ULL(8)
#define X2APIC_MSR(off)	       (0x800 + ((off) >> 4))

#endif

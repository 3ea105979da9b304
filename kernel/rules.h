/* SPDX-License-Identifier: MIT */
/*
 * The SDM rules the conformance suites check, one string each, cited to the
 * section, table or instruction page they come from. A failing check prints
 * its rule, so the reader can go from the report straight to the manual.
 * Section numbers follow the 2023+ SDM (performance monitoring is Vol. 3B
 * chapter 20; older editions number it 18).
 */
#ifndef PMUTEST_RULES_H
#define PMUTEST_RULES_H

#include "test.h" /* RULE_INFERRED */

/* ---- CPUID leaf 0AH (Vol. 2A CPUID, Table 3-8 leaf 0AH; Vol. 3B 20.2) ---- */
/* The leaf-23H extension of every counter-existence rule (suites/enumeration.h). */
#define LEAF23_COUNTERS                                                                            \
	"; where CPUID.(23H,1) is valid (CPUID.(07H,1):EAX[8] and CPUID.(23H,0):EAX[1]) its "      \
	"bitmaps say which counters exist: EAX[x] IA32_PMCx/IA32_PERFEVTSELx, EBX[x] "             \
	"IA32_FIXED_CTRx (SDM Vol.2A CPUID leaf 23H)"

#define RULE_CPUID_V2_FIXED                                                                        \
	"SDM Vol.3B 20.2.2: version 2 adds fixed-function counters, enumerated "                   \
	"by CPUID.0AH:EDX[4:0] (or ECX, v5) with width EDX[12:5]"
#define RULE_CPUID_GP_COUNT                                                                        \
	"SDM Vol.3B 20.2.1/20.2.2: an architectural PMU has >= 1 GP counter "                      \
	"(CPUID.0AH:EAX[15:8]) and at most 32 (IA32_PERF_GLOBAL_CTRL bits 31:0)"
#define RULE_CPUID_GP_WIDTH                                                                        \
	"SDM Vol.3B 20.2.6: legacy IA32_PMCx writes sign-extend bit 31, so the "                   \
	"GP width CPUID.0AH:EAX[23:16] is > 32 and <= 64"
#define RULE_CPUID_FIXED_WIDTH                                                                     \
	"SDM Vol.2A CPUID.0AH:EDX[12:5]: fixed counters have a width in 1..64 "                    \
	"when any is enumerated"
#define RULE_CPUID_VERSION_FIELD                                                                   \
	"SDM Vol.2A CPUID leaf 0AH: EAX[7:0] is the architectural PMU version "                    \
	"(the capability record must hold it as read)"
#define RULE_CPUID_PDCM                                                                            \
	"SDM Vol.4 Table 2-2: IA32_PERF_CAPABILITIES (345H) exists if "                            \
	"CPUID.01H:ECX[15] (PDCM) = 1"
#define RULE_GLOBAL_CTRL_RESET                                                                     \
	"SDM Vol.3B 20.2.2, Vol.4 Table 2-2 (38FH): IA32_PERF_GLOBAL_CTRL bits "                   \
	"other than the counter enables (and EN_PERF_METRICS) are reserved, so "                   \
	"no software, firmware included, can have set them; its power-on "                         \
	"value (GP enables set) is firmware state once the firmware ran"
#define RULE_PERF_CAP_RO                                                                           \
	"SDM Vol.4 Table 2-2: IA32_PERF_CAPABILITIES (345H) is read-only; WRMSR "                  \
	"raises #GP"
#define RULE_CPUID_ARCH_MSRS                                                                       \
	"SDM Vol.3B 20.2.1: architectural PMU v1+ has IA32_PMCx (C1H+x) and "                      \
	"IA32_PERFEVTSELx (186H+x) for x < CPUID.0AH:EAX[15:8]" LEAF23_COUNTERS

/* ---- RDPMC (Vol. 2B "RDPMC—Read Performance-Monitoring Counters") ----- */
#define RULE_RDPMC_GP                                                                              \
	"SDM Vol.2B RDPMC: type 0 index x < CPUID.0AH:EAX[15:8] reads IA32_PMCx "                  \
	"into EDX:EAX" LEAF23_COUNTERS
#define RULE_RDPMC_GP_INDEX                                                                        \
	"SDM Vol.2B RDPMC: type 0 index must be < CPUID.0AH:EAX[15:8] (thus "                      \
	"ECX[15:8] = 0), else #GP(0)" LEAF23_COUNTERS
#define RULE_RDPMC_FIXED                                                                           \
	"SDM Vol.2B RDPMC: type 4000H index x reads IA32_FIXED_CTRx, usable iff "                  \
	"CPUID.0AH:EDX[4:0] > x or CPUID.0AH:ECX[x] = 1" LEAF23_COUNTERS
#define RULE_RDPMC_FIXED_INDEX                                                                     \
	"SDM Vol.2B RDPMC: type 4000H needs ECX[15:5] = 0 and a supported "                        \
	"fixed counter, else #GP(0)" LEAF23_COUNTERS
#define RULE_RDPMC_METRICS                                                                         \
	"SDM Vol.2B RDPMC: type 2000H can be used only if "                                        \
	"IA32_PERF_CAPABILITIES.PERF_METRICS_AVAILABLE[15] = 1, else #GP(0)"
#define RULE_RDPMC_BAD_TYPE                                                                        \
	"SDM Vol.2B RDPMC: an unsupported PMC encoding (type ECX[31:16] not "                      \
	"0/4000H/2000H) causes #GP(0)"
#define RULE_RDPMC_WIDTH    "SDM Vol.2B RDPMC: unimplemented PMC bits return zero in EDX:EAX"
#define RULE_RDPMC_RCX_HIGH "SDM Vol.2B RDPMC: the high-order 32 bits of RCX are ignored"
#define RULE_RDPMC_RAX_RDX_HIGH                                                                    \
	"SDM Vol.2B RDPMC: the high-order 32 bits of RAX and RDX are cleared"
#define RULE_RDPMC_FAST_ARCH                                                                       \
	"SDM Vol.2B RDPMC: with architectural PM, ECX[31:16] is the type; "                        \
	"ECX[31] set is an unsupported type -> #GP(0)"
#define RULE_RDPMC_FAST_NONARCH                                                                    \
	"SDM Vol.2B RDPMC: without architectural PM, ECX[31] = 1 (fast read) "                     \
	"returns PMC bits 31:0 in EAX and clears EDX"
#define RULE_RDPMC_NONARCH_WIDTH                                                                   \
	"SDM Vol.2B RDPMC: without architectural PM the GP PMCs are 40 bits wide"
#define RULE_RDPMC_MONOTONIC                                                                       \
	"SDM Vol.2B RDPMC: with a serializing instruction between them, "                          \
	"back-to-back reads of a running counter are monotonic"
#define RULE_RDPMC_PCE_CLEAR "SDM Vol.2B RDPMC: with CR4.PCE = 0, RDPMC at CPL > 0 raises #GP(0)"
#define RULE_RDPMC_PCE_SET                                                                         \
	"SDM Vol.2B RDPMC: with CR4.PCE = 1, RDPMC executes at any privilege "                     \
	"level"
#define RULE_RDPMC_CPL0	  "SDM Vol.2B RDPMC: at privilege level 0 RDPMC works whatever CR4.PCE"
#define RULE_CR4_RESTORED "pmutest: a test leaves CR4 as it found it (SDM Vol.3A 2.5 CR4.PCE)"

/* ---- Counting (Vol. 3B 20.2.1, Figure 20-1, Table 20-1) ------------------ */
#define RULE_EVENT_INSTRUCTIONS                                                                    \
	"SDM Vol.3B Table 20-1: Instructions Retired (C0H/00H) counts each "                       \
	"retired instruction"
#define RULE_EVENT_BRANCHES                                                                        \
	"SDM Vol.3B Table 20-1: Branch Instructions Retired (C4H/00H) counts "                     \
	"each retired branch"
#define RULE_EVENT_CYCLES                                                                          \
	"SDM Vol.3B Table 20-1: UnHalted Core Cycles (3CH/00H) counts core "                       \
	"cycles while not halted: >= instructions / 16 (no core retires more "                     \
	"than 16 instructions per cycle) and > 0"
#define RULE_EVENT_REF_CYCLES                                                                      \
	"SDM Vol.3B Table 20-1: UnHalted Reference Cycles (3CH/01H) counts at "                    \
	"a fixed reference rate <= the TSC rate while not halted"
#define RULE_EVENT_BOUNDED                                                                         \
	"SDM Vol.3B Table 20-1: an available architectural event counts within "                   \
	"the bounds the workload implies"
#define RULE_EVENT_LLC_REF                                                                         \
	"SDM Vol.3B Table 20-1: LLC References (2EH/4FH) counts core requests "                    \
	"that reference the LLC; a load after CLFLUSH + MFENCE (Vol.2A CLFLUSH) "                  \
	"is one: >= 1/2 per flushed load (prefetch refills), <= 16 per load"
#define RULE_EVENT_LLC_MISS                                                                        \
	"SDM Vol.3B Table 20-1: LLC Misses (2EH/41H) counts each miss of a "                       \
	"reference to the LLC; a load after CLFLUSH + MFENCE (Vol.2A CLFLUSH) "                    \
	"misses every level: >= 1/2 per flushed load, <= 16 per load"
#define RULE_EVENT_BRANCH_MISSES                                                                   \
	"SDM Vol.3B Table 20-1: Branch Misses Retired (C5H/00H) counts "                           \
	"mispredicted branches at retirement; a branch on a fresh xorshift64* "                    \
	"bit mispredicts about 1/2 the time (>= 1/8 checked), never more often "                   \
	"than branches retire"
#define RULE_EVTSEL_EN "SDM Vol.3B 20.2.1.1: IA32_PERFEVTSELx.EN = 0 disables the counter"
#define RULE_GLOBAL_CTRL_GATE                                                                      \
	"SDM Vol.3B 20.2.2: a counter counts only while its "                                      \
	"IA32_PERF_GLOBAL_CTRL enable bit is set"
#define RULE_FIXED_CTRL_EN                                                                         \
	"SDM Vol.3B 20.2.2 Figure 20-2: fixed-control EN field 0 disables the "                    \
	"fixed counter"
#define RULE_EVTSEL_USR "SDM Vol.3B 20.2.1.1: USR (bit 16) counts at CPL 1, 2 and 3"
#define RULE_EVTSEL_OS	"SDM Vol.3B 20.2.1.1: OS (bit 17) counts at CPL 0"
#define RULE_FIXED_USR	"SDM Vol.3B Figure 20-2: fixed-control EN = 2 counts at CPL > 0 only"
#define RULE_FIXED_OS	"SDM Vol.3B Figure 20-2: fixed-control EN = 1 counts at CPL 0 only"
#define RULE_EVTSEL_CMASK                                                                          \
	"SDM Vol.3B 20.2.1.1: CMASK != 0 counts cycles in which the event "                        \
	"count is >= CMASK"
#define RULE_EVTSEL_INV                                                                            \
	"SDM Vol.3B 20.2.1.1: INV inverts CMASK: counts cycles in which the "                      \
	"event count is < CMASK, so CMASK and INV+CMASK partition the cycles"
#define RULE_EVTSEL_EDGE                                                                           \
	"SDM Vol.3B 20.2.1.1: EDGE counts deasserted-to-asserted transitions, "                    \
	"so at most (cycles deasserted) + 1, and at most 1 for a condition "                       \
	"that never deasserts"
#define RULE_COUNTER_WRITE                                                                         \
	"SDM Vol.3B 20.2.1: a counter written by WRMSR while counting goes on "                    \
	"from the written value"
#define RULE_COUNTER_WRITE_OVF                                                                     \
	"SDM Vol.3B 20.2.2: a counter written to all ones while counting "                         \
	"overflows on its next event and sets its IA32_PERF_GLOBAL_STATUS bit"
/* Inferred: the SDM lists no reserved encodings and says nothing of a WRMSR of an unavailable
 * event; no vendor code states it. */
#define RULE_EVTSEL_ANY_EVENT                                                                      \
	RULE_INFERRED "SDM Vol.3B Figure 20-1 / 20.2.1.2: event select and UMask are not "         \
		      "reserved fields; a CPUID.0AH:EBX bit marks an event unavailable, it "       \
		      "does not make its encoding a reserved value (WRMSR must not #GP)"
#define RULE_ALL_COUNTERS "SDM Vol.3B 20.2.2: every enabled counter counts concurrently"

/* ---- Widths (Vol. 3B 20.2.1, 20.2.6) -------------------------------------- */
#define RULE_FIXED_WIDTH                                                                           \
	"SDM Vol.3B 20.2.2: IA32_FIXED_CTRx are CPUID.0AH:EDX[12:5] bits wide; "                   \
	"bits above read as zero"
#define RULE_FIXED_RW                                                                              \
	"SDM Vol.4 Table 2-2 (309H-30BH): IA32_FIXED_CTRx is a read/write counter (R/W): a "       \
	"value within its width written by WRMSR reads back"
#define RULE_LEGACY_WRITE                                                                          \
	"SDM Vol.3B 20.2.6: a WRMSR to IA32_PMCx writes the sign extension of "                    \
	"EAX[31:0] (EDX ignored)"
#define RULE_FULL_WIDTH                                                                            \
	"SDM Vol.3B 20.2.6: with IA32_PERF_CAPABILITIES[13], IA32_A_PMCx "                         \
	"(4C1H+x) takes full-width writes"
#define RULE_FULL_WIDTH_GP                                                                         \
	"SDM Vol.3B 20.2.6: writing IA32_A_PMCx bits beyond the counter width "                    \
	"raises #GP"
/* Inferred: the SDM states the #GP for IA32_A_PMCx (20.2.6), not for the fixed counters; KVM
 * truncates such writes (pmu_intel.c), so no vendor code states it either. */
#define RULE_FIXED_WIDTH_GP                                                                        \
	RULE_INFERRED                                                                              \
	"SDM Vol.2B WRMSR: #GP(0) when EDX:EAX sets reserved bits; bits of "                       \
	"IA32_FIXED_CTRx at and above CPUID.0AH:EDX[12:5] are taken as reserved, by analogy "      \
	"with IA32_A_PMCx (Vol.3B 20.2.6)"
#define RULE_A_PMC_ALIAS                                                                           \
	"SDM Vol.3B 20.2.6: IA32_A_PMCx is an alias of IA32_PMCx: RDMSR and "                      \
	"RDPMC return what a full-width write stored"
#define RULE_FULL_WIDTH_ABSENT                                                                     \
	"SDM Vol.3B 20.2.6 / Vol.4 Table 2-2: IA32_A_PMCx exist only if "                          \
	"IA32_PERF_CAPABILITIES[13] = 1; access otherwise raises #GP"
#define RULE_NONARCH_WIDTH                                                                         \
	"SDM Vol.3B 20.6.3 / Vol.2B RDPMC: NetBurst and P6 GP counters are 40 "                    \
	"bits wide"

/* ---- Global control and status (Vol. 3B 20.2.2, 20.2.4) ----------------- */
#define RULE_GLOBAL_STATUS_OVF                                                                     \
	"SDM Vol.3B 20.2.2 Figure 20-3: overflow of IA32_PMCx / "                                  \
	"IA32_FIXED_CTRx sets IA32_PERF_GLOBAL_STATUS bit x / 32+x"
#define RULE_GLOBAL_STATUS_ONLY                                                                    \
	"SDM Vol.3B 20.2.2: a GLOBAL_STATUS overflow bit is set only by its "                      \
	"own counter's overflow"
#define RULE_GLOBAL_OVF_CTRL                                                                       \
	"SDM Vol.3B 20.2.2 Figure 20-4: writing 1 to an IA32_PERF_GLOBAL_OVF_CTRL "                \
	"bit clears the matching GLOBAL_STATUS bit"
#define RULE_GLOBAL_COND_CHGD                                                                      \
	"SDM Vol.3B 20.2.2 Figure 20-4: IA32_PERF_GLOBAL_OVF_CTRL bit 63 is "                      \
	"ClrCondChgd, a defined bit: writing 1 to it is not a reserved-bit #GP"
#define RULE_GLOBAL_STATUS_RO                                                                      \
	"SDM Vol.4 Table 2-2: IA32_PERF_GLOBAL_STATUS is read-only; WRMSR "                        \
	"raises #GP"
#define RULE_GLOBAL_CTRL_RSVD                                                                      \
	"SDM Vol.3B 20.2.2: setting a reserved IA32_PERF_GLOBAL_CTRL bit "                         \
	"raises #GP(0)" LEAF23_COUNTERS
#define RULE_GLOBAL_OVF_RSVD                                                                       \
	"SDM Vol.3B 20.2.2: setting a reserved IA32_PERF_GLOBAL_OVF_CTRL bit "                     \
	"raises #GP(0)" LEAF23_COUNTERS
#define RULE_GLOBAL_CTRL_RW                                                                        \
	"SDM Vol.3B 20.2.2: IA32_PERF_GLOBAL_CTRL enable bits read back as "                       \
	"written"
#define RULE_STATUS_SET                                                                            \
	"SDM Vol.3B 20.2.4.2: writing 1 to an IA32_PERF_GLOBAL_STATUS_SET bit "                    \
	"sets the matching GLOBAL_STATUS bit (v4)"
#define RULE_STATUS_RESET                                                                          \
	"SDM Vol.3B 20.2.4.2: writing 1 to an IA32_PERF_GLOBAL_STATUS_RESET "                      \
	"bit clears the matching GLOBAL_STATUS bit (v4)"
#define RULE_INUSE_GP                                                                              \
	"SDM Vol.3B 20.2.4.3: IA32_PERF_GLOBAL_INUSE bit x is set while "                          \
	"IA32_PERFEVTSELx[7:0] != 0 (v4)"
#define RULE_INUSE_FIXED                                                                           \
	"SDM Vol.3B 20.2.4.3: IA32_PERF_GLOBAL_INUSE bit 32+x is set while the "                   \
	"EN field of IA32_FIXED_CTRx in IA32_FIXED_CTR_CTRL is non-zero (v4)"
#define RULE_INUSE_PMI                                                                             \
	"SDM Vol.3B 20.2.4.3: IA32_PERF_GLOBAL_INUSE[63] (PMI InUse) is set "                      \
	"while any counter has its PMI (INT) bit set (v4)"
#define RULE_INUSE_RO                                                                              \
	"SDM Vol.4 Table 2-2: IA32_PERF_GLOBAL_INUSE is read-only; WRMSR "                         \
	"raises #GP"
#define RULE_FREEZE_LEGACY                                                                         \
	"SDM Vol.3B 18.4.7 / 20.2.2: with IA32_DEBUGCTL.Freeze_PerfMon_On_PMI, "                   \
	"a PMI clears the enable bits of IA32_PERF_GLOBAL_CTRL (before v4)"
#define RULE_FREEZE_STREAMLINED                                                                    \
	"SDM Vol.3B 20.2.4.1: v4 streamlined freeze: a PMI with "                                  \
	"Freeze_PerfMon_On_PMI sets GLOBAL_STATUS.CTR_FRZ (59) and stops the "                     \
	"counters, leaving IA32_PERF_GLOBAL_CTRL unchanged"
#define RULE_FREEZE_RESUME                                                                         \
	"SDM Vol.3B 20.2.4.1: clearing CTR_FRZ via GLOBAL_STATUS_RESET resumes "                   \
	"counting"

/* ---- PMI (Vol. 3B 20.2.1.1 INT; Vol. 3A 11.5.1 LVT) --------------------- */
#define RULE_PMI_DELIVER                                                                           \
	"SDM Vol.3B 20.2.1.1: overflow with INT set raises a PMI through the "                     \
	"LVT performance-monitoring entry, exactly once per overflow"
#define RULE_PMI_STATUS_IN_HANDLER                                                                 \
	"SDM Vol.3B 20.2.2: the overflowing counter's GLOBAL_STATUS bit is set "                   \
	"when its PMI is taken"
#define RULE_PMI_NO_INT                                                                            \
	"SDM Vol.3B 20.2.1.1: without INT an overflow raises no PMI (status "                      \
	"bit still set)"
#define RULE_PMI_LVT_MASK_SET                                                                      \
	"SDM Vol.3A 11.5.1: the local APIC sets the LVT performance-counter "                      \
	"mask bit when it delivers a PMI"
#define RULE_PMI_MASKED "SDM Vol.3A 11.5.1: a masked LVT entry delivers no interrupt"
#define RULE_PMI_LVT_RW                                                                            \
	"SDM Vol.3A 11.5.1: the LVT performance-counter vector and mask read "                     \
	"back as written"
#define RULE_PMI_LVT_VECTOR                                                                        \
	"SDM Vol.3A 11.5.1: the PMI is delivered at the vector the LVT "                           \
	"performance-counter entry holds"
#define RULE_PMI_AFTER_OVERFLOW                                                                    \
	"SDM Vol.3B 20.2.1.1: the PMI is signalled on overflow, i.e. after the "                   \
	"counter wrapped: in the handler it holds a small value, not all ones"
#define RULE_OVF_AT_WRAP                                                                           \
	"SDM Vol.3B 20.2.2: a counter overflows when it wraps from all ones to "                   \
	"zero, not before"
#define RULE_PMI_EOI                                                                               \
	"SDM Vol.3A 11.8.4/11.8.5: a second interrupt at the vector in service "                   \
	"waits in IRR until EOI, then is delivered"
#define RULE_FIXED_PMI                                                                             \
	"SDM Vol.3B Figure 20-2: fixed-control PMI bit (4x+3) raises a PMI on "                    \
	"IA32_FIXED_CTRx overflow"
/* Delivery mode NMI, what Linux perf programs (11.5.1 is 10.5.1 in editions
 * before 2023). */
#define RULE_PMI_NMI_DELIVER                                                                       \
	"SDM Vol.3A 11.5.1 (10.5.1 before 2023) / Vol.3B 20.2.1.1: with LVT performance-counter "  \
	"delivery mode 100B (NMI) an overflow with INT set delivers exactly one NMI"
#define RULE_FIXED_PMI_NMI                                                                         \
	"SDM Vol.3B 20.2.2 Figure 20-2 / Vol.3A 11.5.1 (10.5.1): a fixed counter's PMI bit "       \
	"(4x+3) raises its PMI through the same LVT entry: one NMI in delivery mode 100B"
#define RULE_PMI_NMI_NO_VECTOR                                                                     \
	"SDM Vol.3A 11.5.1 (10.5.1): delivery mode NMI ignores the vector field: no interrupt "    \
	"arrives at the vector the LVT performance-counter entry holds"
#define RULE_PMI_NMI_IGNORES_IF                                                                    \
	"SDM Vol.3A 6.8.1 / 11.5.1 (10.5.1): RFLAGS.IF does not mask an NMI delivered through "    \
	"the local APIC: an NMI-mode PMI is taken while IF = 0, not held until IF = 1"
#define RULE_PMI_LVT_DM_RW                                                                         \
	"SDM Vol.3A 11.5.1 (10.5.1), Figure 11-8 (10-8): the LVT performance-counter entry "       \
	"takes delivery modes 000B (fixed) and 100B (NMI); its delivery mode reads back as "       \
	"written"

/* ---- Versions (Vol. 3B 20.2.1-20.2.5) ------------------------------------- */
#define RULE_NO_PMU_MSRS                                                                           \
	"SDM Vol.4 Table 2-2: IA32_PMCx / IA32_PERFEVTSELx exist if "                              \
	"CPUID.0AH:EAX[15:8] > x; without them access raises #GP(0)"
#define RULE_NO_PMU_RDPMC                                                                          \
	"SDM Vol.2B RDPMC: reading a PMC that does not exist is an unsupported "                   \
	"encoding: #GP(0) (not #UD: RDPMC itself is always valid)"
#define RULE_MSR_CPL "SDM Vol.2B RDMSR/WRMSR: #GP(0) if the current privilege level is not 0"
#define RULE_V1_NO_GLOBAL                                                                          \
	"SDM Vol.3B 20.2.1/20.2.2: fixed counters and IA32_PERF_GLOBAL_* arrive "                  \
	"with version 2; on version 1 they do not exist (#GP)"
#define RULE_GP_ABSENT                                                                             \
	"SDM Vol.3B 20.2.1: IA32_PMCx / IA32_PERFEVTSELx with x >= "                               \
	"CPUID.0AH:EAX[15:8] do not exist (#GP)" LEAF23_COUNTERS
#define RULE_FIXED_ABSENT                                                                          \
	"SDM Vol.3B 20.2.5: IA32_FIXED_CTRx exists iff CPUID.0AH:EDX[4:0] > x "                    \
	"or CPUID.0AH:ECX[x] = 1; otherwise access raises #GP" LEAF23_COUNTERS
#define RULE_FIXED_BITMASK                                                                         \
	"SDM Vol.2A CPUID.0AH:ECX (v5): fixed counter x is supported if "                          \
	"ECX[x] = 1 or EDX[4:0] > x" LEAF23_COUNTERS
#define RULE_ANYTHREAD_V3                                                                          \
	"SDM Vol.3B 20.2.3: version 3 supports AnyThread: IA32_PERFEVTSELx bit "                   \
	"21 and IA32_FIXED_CTR_CTRL bit 4x+2 are writable"
/* Inferred: the SDM says the control is deprecated, not that its bits raise #GP; no vendor code
 * states the #GP. */
#define RULE_ANYTHREAD_DEPRECATED                                                                  \
	RULE_INFERRED                                                                              \
	"SDM Vol.3B 20.2.5.1: with AnyThread deprecation (CPUID.0AH:EDX[15]) "                     \
	"the AnyThread control no longer exists; its bits are taken as reserved (#GP), as "        \
	"before version 3"
#define RULE_ANYTHREAD_RSVD                                                                        \
	"SDM Vol.3B 20.2.1/20.2.2: before version 3 the AnyThread bits are "                       \
	"reserved (#GP)"
#define RULE_EVTSEL_RSVD                                                                           \
	"SDM Vol.3B Figure 20-1 / Vol.2B WRMSR: IA32_PERFEVTSELx bits 63:32 are reserved "         \
	"(#GP(0)) except those enumerated: IN_TX 32 and IN_TXCP 33 (PERFEVTSEL2 only) with "       \
	"CPUID.(07H,0):EBX HLE[4]/RTM[11] (Vol.3B 20.3.6.5), Adaptive_Record 34 with "             \
	"IA32_PERF_CAPABILITIES.PEBS_BASELINE[14] (Vol.3B 20.9.2), EQ 36 and UMASK2 47:40 by "     \
	"CPUID.(23H,0):EBX; BR_CNTR 35 on PERFEVTSEL0-3 by CPUID.(1CH,0):ECX[19:16], "             \
	"RDPMC_USR_DISABLE 37 by CPUID.(23H,0):EBX[2] (ISE; Linux cpuid28_ecx, cpuid35_ebx)"
#define RULE_EVTSEL_HIGH_DEFINED                                                                   \
	"SDM Vol.3B 20.3.6.5 (IN_TX, IN_TXCP), 20.9.2 (Adaptive_Record), CPUID leaf 23H (EQ, "     \
	"UMASK2): an IA32_PERFEVTSELx field the CPU enumerates is writable and reads back"
#define RULE_FIXED_CTRL_RSVD                                                                       \
	"SDM Vol.3B Figure 20-2: IA32_FIXED_CTR_CTRL fields of unsupported "                       \
	"fixed counters are reserved (#GP)" LEAF23_COUNTERS

/* ---- RDT monitoring (Vol. 3B 17.18, "Intel RDT Monitoring Features") -- */
#define RULE_RDT_RMID_RANGE                                                                        \
	"SDM Vol.3B 17.18.6 / AMD APM Vol.2 19.3: IA32_QM_CTR.Error (bit 63) is set when "         \
	"IA32_QM_EVTSEL names an RMID above the resource's maximum CPUID.(0FH,1):ECX (and "        \
	"within CPUID.(0FH,0):EBX, which the WRMSR takes)"
#define RULE_RDT_RMID_ABOVE_MAX                                                                    \
	"SDM Vol.3B 17.18 (IA32_QM_EVTSEL, IA32_PQR_ASSOC: 'a #GP(0) will be generated if ... an " \
	"RMID exceeding the maxRMID is used') / AMD APM Vol.2 19.3 ('Writing a value larger than " \
	"the MAX_RMID (CPUID Fn0000_000F_EBX_x0) to the QM_EVTSEL register will result in a "      \
	"#GP(0) exception'): WRMSR IA32_QM_EVTSEL with an RMID above CPUID.(0FH,0):EBX"
#define RULE_RDT_EVENT_ID                                                                          \
	"SDM Vol.3B 17.18.6: IA32_QM_CTR.Error is set for an event ID not "                        \
	"enumerated in CPUID.(0FH,1):EDX"
#define RULE_RDT_VALID_READ                                                                        \
	"SDM Vol.3B 17.18.6: a supported event and RMID <= max reads without "                     \
	"Error; data in bits 61:0 below 2^width"
#define RULE_RDT_PQR_ASSOC                                                                         \
	"SDM Vol.3B 17.18.6: IA32_PQR_ASSOC.RMID holds RMIDs up to the maximum "                   \
	"and reads back"

#define RULE_RDT_QM_CTR_RO                                                                         \
	"SDM Vol.4 Table 2-2 / Vol.3B 17.18.6: IA32_QM_CTR is read-only; WRMSR "                   \
	"raises #GP"
/* checks the peers make: Intel checks where the peers are stricter */
#define RULE_PERF_CAP_ABSENT                                                                       \
	"SDM Vol.4 Table 2-2 (345H): IA32_PERF_CAPABILITIES exists if CPUID.01H:ECX[15] (PDCM) "   \
	"= 1; RDMSR of an MSR the processor does not implement raises #GP(0)"
#define RULE_A_PMC_AFTER_LEGACY                                                                    \
	"SDM Vol.3B 20.2.6: IA32_A_PMCx is an alias of IA32_PMCx (the same counter): it reads "    \
	"what a legacy write (EAX sign-extended) or counting left there"
#define RULE_A_PMC_PRESET                                                                          \
	"SDM Vol.3B 20.2.6 / 20.2.2: a preset written through IA32_A_PMCx reads back through "     \
	"both aliases and overflows after exactly 2^width - preset events"
#define RULE_RDPMC_CPL3_RUNNING                                                                    \
	"SDM Vol.2B RDPMC / Vol.3A 2.5 (CR4.PCE): with CR4.PCE = 1 RDPMC at CPL 3 reads the "      \
	"running counter: monotonic, the workload between two reads counted, and never "           \
	"ahead of RDMSR at CPL 0 afterwards"
/* checks the peers make: RDT values */
#define RULE_RDT_OCCUPANCY                                                                         \
	"SDM Vol.3B 17.18.2 / 17.18.5: L3 occupancy of an RMID counts the lines filled while it "  \
	"was in IA32_PQR_ASSOC; IA32_QM_CTR x CPUID.(0FH,1):EBX = bytes: S bytes just filled "     \
	"(S <= LLC/4, >= 4x L2) give >= S/2"
#define RULE_RDT_OCCUPANCY_UNUSED                                                                  \
	"SDM Vol.3B 17.18.2: only fills made while an RMID is in IA32_PQR_ASSOC are charged to "   \
	"it: an RMID no logical processor used has (near) no occupancy, or no data (bit 62)"
#define RULE_RDT_MBM_TOTAL                                                                         \
	"SDM Vol.3B 17.18.2 / 17.18.5: L3 total external bandwidth counts the bytes the RMID "     \
	"read from memory; B bytes read after CLFLUSH give a counter delta (mod 2^width) x "       \
	"upscale >= B/2"
#define RULE_RDT_MBM_WIDTH                                                                         \
	"SDM Vol.3B 17.18.5 (CPUID.(0FH,1):EAX): MBM counters are 24 + EAX[7:0] bits wide and "    \
	"wrap there; IA32_QM_CTR data bits above the width are 0 (bit 61 is the overflow bit "     \
	"when EAX[8] = 1)"

/* ---- Nehalem uncore (Vol. 3B 20.3.1.2) ------------------------------------ */
#define RULE_UNCORE_WIDTH                                                                          \
	"SDM Vol.3B 20.3.1.2: MSR_UNCORE_PerfCntr and MSR_UNCORE_FixedCntr0 "                      \
	"are 48 bits wide"
#define RULE_UNCORE_EN                                                                             \
	"SDM Vol.3B 20.3.1.2: an uncore counter counts only with its local EN "                    \
	"bit and its EN_PCx / EN_FC0 bit in MSR_UNCORE_PERF_GLOBAL_CTRL"
#define RULE_UNCORE_OVF                                                                            \
	"SDM Vol.3B 20.3.1.2: uncore counter overflow sets its "                                   \
	"MSR_UNCORE_PERF_GLOBAL_STATUS bit, cleared via GLOBAL_OVF_CTRL"
#define RULE_UNCORE_CHG                                                                            \
	"SDM Vol.3B 20.3.1.2: MSR_UNCORE_PERF_GLOBAL_STATUS.CHG (63) is set when a status bit "    \
	"is set, cleared by writing 1 to bit 63 of MSR_UNCORE_PERF_GLOBAL_OVF_CTRL"
#define RULE_UNCORE_OVF_PMI                                                                        \
	"SDM Vol.3B 20.3.1.2: MSR_UNCORE_PERF_GLOBAL_STATUS.OVF_PMI (61) is set when an uncore "   \
	"counter overflowed and generated an interrupt request (its PMI bit set), not otherwise"
#define RULE_UNCORE_STATUS_RO                                                                      \
	"SDM Vol.3B 20.3.1.2: MSR_UNCORE_PERF_GLOBAL_STATUS is read-only; WRMSR raises #GP"
#define RULE_UNCORE_PMI_ROUTE                                                                      \
	"SDM Vol.3B 20.3.1.2: an overflow of an uncore counter with its PMI bit is routed to "     \
	"the cores whose EN_PMI_COREx bit is set in MSR_UNCORE_PERF_GLOBAL_CTRL, and delivered "   \
	"when IA32_DEBUGCTL.Offcore_PMI_EN (bit 13) is set; with no EN_PMI_COREx, no PMI"
#define RULE_UNCORE_PMI_DEBUGCTL                                                                   \
	"SDM Vol.3B 20.3.1.2: PMI delivery due to an uncore counter overflow is enabled by "       \
	"IA32_DEBUGCTL.Offcore_PMI_EN (bit 13); clear, no PMI"
#define RULE_UNCORE_PMI_FRZ                                                                        \
	"SDM Vol.3B 20.3.1.2: with PMI_FRZ all uncore counters are disabled when one signals a "   \
	"PMI; software re-enables them by setting the MSR_UNCORE_PERF_GLOBAL_CTRL enable bits"
#define RULE_UNCORE_RSVD                                                                           \
	"SDM Vol.3B 20.3.1.2 (MSR_UNCORE_FIXED_CTR_CTRL: EN 0, PMI 2; "                            \
	"MSR_UNCORE_PERF_GLOBAL_CTRL: EN_PC7:0, EN_FC0 32, EN_PMI_CORE 51:48, PMI_FRZ 63) / "      \
	"Vol.2B WRMSR: setting a reserved bit raises #GP(0); defined bits read back"

/* ---- P6 family (Vol. 3B "Performance Monitoring (P6 Family Processor)") --- */
#define RULE_P6_EN                                                                                 \
	"SDM Vol.3B P6 family PerfEvtSel0/1: the EN flag (bit 22) is only present in "             \
	"PerfEvtSel0 and enables counting in both PerfCtr0 and PerfCtr1; clear, neither counts"
#define RULE_P6_INST_RETIRED                                                                       \
	"SDM Vol.3B P6 family event table: INST_RETIRED (C0H) counts instructions retired"
#define RULE_P6_CTR_RW                                                                             \
	"SDM Vol.3B P6 family counters: PerfCtr0/1 are read and written with RDMSR / WRMSR (the "  \
	"low 32 bits written, bits 39:32 sign-extended from bit 31): a value below 2^31 reads "    \
	"back"

/* ---- NetBurst (Vol. 3B 20.6.3) ---------------------------------------------- */
#define RULE_P4_WIDTH "SDM Vol.3B 20.6.3.2: NetBurst counters are 40 bits wide"
#define RULE_P4_ENABLE                                                                             \
	"SDM Vol.3B 20.6.3.5: a counter counts only when its CCCR Enable flag "                    \
	"is set and the ESCR selects an event with USR/OS matching the CPL"
#define RULE_P4_RDPMC                                                                              \
	"SDM Vol.2B RDPMC: without architectural PM ECX[30:0] is the counter "                     \
	"index; ECX[31] fast read returns bits 31:0 with EDX = 0"

#define RULE_P4_INSTR_RETIRED                                                                      \
	"SDM Vol.3B 20.6.3 / Appendix instr_retired: non-bogus instructions "                      \
	"retired, counted exactly"
#define RULE_P4_THRESHOLD                                                                          \
	"SDM Vol.3B 20.6.3.5.2: with CCCR.Compare, the counter increments only "                   \
	"in cycles whose input exceeds the threshold (<= with Complement)"
#define RULE_P4_OVF                                                                                \
	"SDM Vol.3B 20.6.3.5.8: a counter overflow sets its CCCR OVF flag "                        \
	"(bit 31), which stays set until software clears it"
#define RULE_P4_FORCE_OVF                                                                          \
	"SDM Vol.3B 20.6.3.3 (CCCR figure): FORCE_OVF (bit 25) forces a counter overflow on "      \
	"every counter increment; clear, overflow occurs only when the counter overflows"
#define RULE_P4_OVF_PMI                                                                            \
	"SDM Vol.3B 20.6.3.3 / 20.6.3.5.8: with CCCR.OVF_PMI (bit 26) an overflow generates a "    \
	"PMI through the local APIC LVT performance-counter entry; clear, no PMI"
#define RULE_P4_PMI_MASK                                                                           \
	"SDM Vol.3B 20.6.3.5.8: these processors mask PMIs upon receiving an interrupt (the LVT "  \
	"performance-counter mask bit is set on delivery)"
#define RULE_P4_CASCADE                                                                            \
	"SDM Vol.3B 20.6.3.5.3 / 20.6.3.5.6: with CCCR.CASCADE (bit 30) a counter is started by "  \
	"the overflow of its alternate counter (0/2, 1/3 in each block; 12/14 in IQ), not before"
#define RULE_P4_ESCR_SELECT                                                                        \
	"SDM Vol.3B 20.6.3.3 / 20.6.3.5.1: CCCR.ESCR_SELECT (bits 15:13) picks the ESCR among "    \
	"those wired to the counter (IQ_COUNTER0: CRU_ESCR0 = 4, CRU_ESCR2 = 5; IQ_COUNTER2: "     \
	"CRU_ESCR1 = 4): the counter counts the event of that ESCR only"

/* ---- AMD (APM Vol. 2 13.2) ------------------------------------------------- */
#define RULE_AMD_WIDTH "AMD APM Vol.2 13.2.1: PerfCtrn are 48 bits wide"
#define RULE_AMD_COUNT "AMD APM Vol.2 13.2.1: PerfEvtSeln.En = 1 counts the selected event"
#define RULE_AMD_CTR_RW                                                                            \
	"AMD APM Vol.2 13.2.1: PerfCtrn are read/write: a 48-bit value written by WRMSR reads "    \
	"back"
#define RULE_AMD_BRANCHES                                                                          \
	"AMD PPR (Families 17h-1Ah) PMCx0C2 Retired Branch Instructions counts "                   \
	"every retired branch (and exception / interrupt, none here): exact"
#define RULE_AMD_CYCLES                                                                            \
	"AMD PPR (Families 17h-1Ah) PMCx076 Cycles not in Halt counts core "                       \
	"clocks while not halted: >= instructions / 16, bounded above"
#define RULE_AMD_LEGACY_ALIAS                                                                      \
	"AMD APM Vol.2 13.2.1: with PerfCtrExtCore, C001_0000H-C001_0007H alias "                  \
	"PerfEvtSel0-3/PerfCtr0-3 at C001_0200H+"
#define RULE_AMD_RDPMC "AMD APM Vol.3 RDPMC: ECX selects PerfCtr0..n-1; a larger ECX raises #GP"
#define RULE_AMD_PMI_LVT_UNMASKED                                                                  \
	"AMD APM Vol.2 16.4 (local APIC LVT): the mask bit is software's; unlike the Intel SDM "   \
	"(Vol.3A 11.5.1) the APM does not have the APIC set it when it delivers a counter "        \
	"overflow interrupt (KVM: kvm_apic_local_deliver() masks LVTPC on PMI only for "           \
	"Intel-compatible guests, Linux 6.9)"
#define RULE_AMD_GLOBAL                                                                            \
	"AMD APM Vol.2 13.2.2 (PerfMonV2): PerfCntrGlobalCtl gates counters, "                     \
	"GlobalStatus/StatusClr/StatusSet report overflow"
/* checks the peers make: AMD checks matching the Intel side */
#define RULE_AMD_BR_MISS                                                                           \
	"AMD PPR (Families 17h-1Ah) PMCx0C3 Retired Branch Instructions Mispredicted: a "          \
	"branch on a fresh xorshift64* bit mispredicts about 1/2 the time (>= 1/8 checked), "      \
	"never more often than branches retire"
#define RULE_AMD_OVF_AT_WRAP                                                                       \
	"AMD APM Vol.2 13.2.1: a PerfCtr overflows when it wraps from all ones (48 bits) to "      \
	"zero, not before; with PerfMonV2 (13.2.2) the overflow sets PerfCntrGlobalStatus[n]"
#define RULE_AMD_PMI_INT                                                                           \
	"AMD APM Vol.2 13.2.1: PerfEvtSeln.INT = 1 raises an interrupt through the LVT "           \
	"performance-counter entry when PerfCtrn overflows; INT = 0 raises none"
#define RULE_AMD_CNTMASK                                                                           \
	"AMD APM Vol.2 13.2.1 (PerfEvtSeln CntMask): non-zero, the counter increments by 1 in "    \
	"each clock in which the event count is >= CntMask"
#define RULE_AMD_INV                                                                               \
	"AMD APM Vol.2 13.2.1 (PerfEvtSeln Inv): inverts the CntMask comparison (counts "          \
	"clocks with fewer than CntMask events)"
#define RULE_AMD_EDGE                                                                              \
	"AMD APM Vol.2 13.2.1 (PerfEvtSeln Edge): counts only rising edges (0 to 1) of the "       \
	"condition"
#define RULE_AMD_COUNTER_WRITE                                                                     \
	"AMD APM Vol.2 13.2.1: a PerfCtr written by WRMSR while counting goes on from the "        \
	"written value, and wraps (overflows) from all ones"
#define RULE_AMD_ALL_COUNTERS                                                                      \
	"AMD APM Vol.2 13.2.1: each PerfEvtSeln / PerfCtrn pair counts its own event, all "        \
	"concurrently"
#define RULE_AMD_LEGACY_COUNT                                                                      \
	"AMD APM Vol.2 13.2.1: with PerfCtrExtCore the legacy C001_0000H-C001_0007H are the "      \
	"same registers as the first four extended pairs: programming them counts"
#define RULE_AMD_SEL_HIGH                                                                          \
	"AMD APM Vol.2 13.2.1 Figure 13-7: EventSelect[11:8] (bits 35:32) and HG_ONLY "            \
	"(bits 41:40) are defined fields, not reserved: written values read back"
#define RULE_AMD_HG_BOTH                                                                           \
	"AMD APM Vol.2 13.2.1 (HG_ONLY, Table 13-3): HostOnly = GuestOnly = 1 counts like "        \
	"both 0 (events in host and guest)"

/* ---- Checks that need two CPUs (suites/smp.c) ---- */
#define RULE_SMP_COUNTERS_PER_CPU                                                                  \
	"SDM Vol.2A CPUID.0AH:EAX[15:8] (general-purpose counters per logical processor), "        \
	"Vol.3B 20.2.3 (without AnyThread a counter increments for events of the logical "         \
	"processor which programmed it): another CPU's work and MSR writes do not reach it"
#define RULE_SMP_PMI_LOCAL                                                                         \
	"SDM Vol.3B 20.2.1.1 (IA32_PERFEVTSELx INT: the logical processor generates an "           \
	"exception through its local APIC on counter overflow), Vol.3A 10.4 (one local APIC "      \
	"per logical processor): the PMI reaches the overflowing CPU only"
#define RULE_SMP_ANYTHREAD                                                                         \
	"SDM Vol.3B 20.2.3: AnyThread (IA32_PERFEVTSELx bit 21) set counts the event on all "      \
	"logical processors sharing the core; clear, only on the one which programmed the MSR"
#define RULE_SMP_PQR_ASSOC                                                                         \
	"SDM Vol.3B 17.18.6: each logical processor is given its RMID independently through "      \
	"its own IA32_PQR_ASSOC"
#define RULE_SMP_UNCORE_PMI                                                                        \
	"SDM Vol.3B 20.3.1.2: an uncore counter's PMI goes to the cores whose EN_PMI_COREx is "    \
	"set in MSR_UNCORE_PERF_GLOBAL_CTRL (core x: the core of the package, APIC ID above "      \
	"the SMT bits), and to no other"

/* ---- Intercepted instructions and absolute bounds (simkvm) ---- */
#define RULE_INTERCEPT_INSNS                                                                       \
	"SDM Vol.3B Table 20-1: Instructions Retired (C0H/00H) counts each retired "               \
	"instruction, CPUID / WRMSR / IN included (a hypervisor that intercepts them must "        \
	"count them too): 6 per iteration, 6N+3 to 6N+5 in the window"
#define RULE_INTERCEPT_BRANCHES                                                                    \
	"SDM Vol.3B Table 20-1: Branch Instructions Retired (C4H/00H): the window's only "         \
	"branch is the loop's JNZ, N in N iterations"
#define RULE_INTERCEPT_USR_OS                                                                      \
	"SDM Vol.3B 20.2.1.1: USR counts at CPL 1-3 only, OS at CPL 0 only, for every "            \
	"instruction, intercepted ones included"
#define RULE_INTERCEPT_CMASK                                                                       \
	"SDM Vol.3B 20.2.1.1: with CMASK != 0 the counter adds 1 per cycle whose event count "     \
	"is >= CMASK; no processor retires 255 instructions in a cycle, so CMASK = 255 counts "    \
	"0 (EDGE: no rising edge either)"
#define RULE_INTERCEPT_INV_EDGE                                                                    \
	"SDM Vol.3B 20.2.1.1: INV makes the condition 'count < CMASK', true in every cycle "       \
	"for CMASK = 255, so EDGE sees at most one deasserted-to-asserted transition"
#define RULE_INTERCEPT_OVERFLOW                                                                    \
	"SDM Vol.3B 20.2.2 / 20.6.3.5.8: a counter overflow sets its IA32_PERF_GLOBAL_STATUS "     \
	"bit and, with INT, signals one PMI, whichever instruction caused it"
#define RULE_WINDOW_BRANCHES                                                                       \
	"SDM Vol.3B Table 20-1: Branch Instructions Retired, absolute: between the enabling "      \
	"and the disabling WRMSR (neither a branch) the loop retires exactly N branches"
#define RULE_WINDOW_INSTRUCTIONS                                                                   \
	"SDM Vol.3B Table 20-1: Instructions Retired, absolute: the window holds the loop's 10N "  \
	"instructions and at most the two WRMSRs that bracket it: [10N, 10N+2]"
/* Inferred: leaf 16H is nominal and real parts report a maximum below their turbo (a Kaby Lake
 * dump: base = max = 3600 MHz); the bound k is pmutest's. */
#define RULE_WINDOW_CYCLES                                                                         \
	RULE_INFERRED                                                                              \
	"the SDM gives no ratio of the core clock to the TSC: Vol.3B Time-Stamp Counter ticks "    \
	"at a constant rate, Vol.2A CPUID leaf 16H gives nominal base (EAX) and maximum (EBX) "    \
	"frequencies, which some parts report equal; so core cycles <= k x TSC ticks of the "      \
	"window, k = max(8, ceil(max/base)): no x86 core runs at 8 times its TSC"
#define RULE_WINDOW_REF_TSC                                                                        \
	"SDM Vol.3B Table 20-2: IA32_FIXED_CTR2 (CPU_CLK_UNHALTED.REF_TSC) counts at the TSC "     \
	"rate while not halted: over the extra N iterations of a 2N-N pair it counts at least "    \
	"half the TSC ticks (the floor halves for jitter)"
/* ---- LBR, Arch LBR, PEBS, PERF_METRICS (suites/lbr.c, arch_lbr.c, pebs.c,
 * metrics.c). Chapter 19 of the 2023+ SDM Vol. 3B is "Last Branch Records"
 * (Architectural LBRs in 19.1, the model-specific stacks from 19.4). ----- */
#define RULE_LBR_MSRS                                                                              \
	"SDM Vol.3B 19.4.8 and the DisplayModel's \"LBR Stack Size and TOS Pointer Range\" "       \
	"table: MSR_LASTBRANCH_x_FROM_IP/_TO_IP exist for x < the stack size (MSR_LBR_INFO_x "     \
	"too with LBR_FMT 5/7)"
#define RULE_LBR_TOS_SELECT                                                                        \
	"SDM Vol.4 model MSR tables: MSR_LASTBRANCH_TOS (1C9H) and MSR_LBR_SELECT (1C8H) are "     \
	"read/write"
#define RULE_LBR_RECORD                                                                            \
	"SDM Vol.3B 19.4.8: with IA32_DEBUGCTL.LBR each taken branch is recorded, FROM = the "     \
	"branch instruction, TO = its target; TOS advances by one per record (modulo the stack "   \
	"size) and points at the most recent"
#define RULE_LBR_SELECT_CPL                                                                        \
	"SDM Vol.3B \"Filtering of Last Branch Records\": MSR_LBR_SELECT.CPL_EQ_0 suppresses "     \
	"branches ending in ring 0, CPL_NEQ_0 those ending in ring > 0"
#define RULE_LBR_SELECT_TYPE                                                                       \
	"SDM Vol.3B \"Filtering of Last Branch Records\": MSR_LBR_SELECT.JCC suppresses "          \
	"conditional branches, NEAR_REL_JMP near relative jumps"
#define RULE_LBR_FORMAT                                                                            \
	"SDM Vol.3B 19.4.8.1 (LBR_FMT): formats 3/4/6 keep flags in FROM[63] (4: [63:61]), "       \
	"format 6 a cycle count in TO[63:48]; the rest of the entry is the address, "              \
	"sign-extended"
#define RULE_LBR_TSX                                                                               \
	"SDM Vol.3B 19.4.8.1 / MSR_LBR_INFO_x: IN_TX and TSX_ABORT are set only for branches "     \
	"in a transactional region"
#define RULE_LBR_FREEZE_LEGACY                                                                     \
	"SDM Vol.3B 18.4.7 (IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI): before version 4 a PMI clears "     \
	"IA32_DEBUGCTL.LBR"
#define RULE_LBR_FREEZE_V4                                                                         \
	"SDM Vol.3B 20.2.4.1: with FREEZE_LBRS_ON_PMI, version 4 sets "                            \
	"IA32_PERF_GLOBAL_STATUS.LBR_Frz (58) on a PMI; the LBRs record nothing until it is "      \
	"cleared"
#define RULE_ALBR_DEPTH                                                                            \
	"SDM Vol.3B 19.1 (IA32_LBR_DEPTH): only a depth CPUID.1CH:EAX[7:0] enumerates "            \
	"(8 * (n + 1) for bit n) is accepted; any other value raises #GP(0)"
#define RULE_ALBR_DEPTH_RESET                                                                      \
	"SDM Vol.3B 19.1: a write to IA32_LBR_DEPTH resets every LBR entry to 0"
#define RULE_ALBR_CTL_RESERVED                                                                     \
	"SDM Vol.3B 19.1 (IA32_LBR_CTL): bits other than LBREn, OS/USR (CPUID.1CH:EBX[0]), "       \
	"CALL_STACK (EBX[2]) and the branch types 22:16 (EBX[1]) are reserved: #GP(0)"
#define RULE_ALBR_MSRS                                                                             \
	"SDM Vol.3B 19.1 / Vol.4 Table 2-2: IA32_LBR_x_FROM_IP (1500H + x), _TO_IP (1600H + x) "   \
	"and _INFO (1200H + x) exist for x below the largest depth CPUID.1CH enumerates"
#define RULE_ALBR_RECORD                                                                           \
	"SDM Vol.3B 19.1: with IA32_LBR_CTL.LBREn each taken branch is recorded; IA32_LBR_0 "      \
	"holds the most recent, IA32_LBR_1 the one before, and so on"
#define RULE_ALBR_CPL                                                                              \
	"SDM Vol.3B 19.1 (IA32_LBR_CTL, CPUID.1CH:EBX[0]): OS records branches ending in ring "    \
	"0, USR those ending in ring > 0"
#define RULE_ALBR_TYPE                                                                             \
	"SDM Vol.3B 19.1 (IA32_LBR_CTL, CPUID.1CH:EBX[1]): only the branch types selected by "     \
	"bits 22:16 are recorded"
#define RULE_ALBR_CALL_STACK                                                                       \
	"SDM Vol.3B 19.1 call-stack mode (CPUID.1CH:EBX[2]): a near RET pops the entry of its "    \
	"CALL instead of being recorded"
#define RULE_ALBR_BR_TYPE                                                                          \
	"SDM Vol.3B 19.1 (IA32_LBR_x_INFO.BR_TYPE, CPUID.1CH:ECX[2]): JCC 0, near relative "       \
	"JMP 2, near relative CALL 4, near RET 5"
#define RULE_PEBS_MSRS                                                                             \
	"SDM Vol.4 Table 2-2: IA32_DS_AREA (600H) and IA32_PEBS_ENABLE (3F1H) with "               \
	"CPUID.01H:EDX.DS[21] are read/write; MSR_PEBS_DATA_CFG (3F2H) with PEBS_BASELINE"
#define RULE_PEBS_ENABLE_BITS                                                                      \
	"SDM Vol.3B 20.9 (PEBS_BASELINE, extended PEBS): IA32_PEBS_ENABLE has a bit per GP "       \
	"counter and per fixed counter (32 + i); the bits of counters that do not exist are "      \
	"reserved"
#define RULE_PEBS_RECORD                                                                           \
	"SDM Vol.3B 18.4.9 (DS save area): a PEBS counter's overflow writes one record at the "    \
	"DS PEBS index, advances the index by its size and reloads the counter from its DS "       \
	"reset field"
#define RULE_PEBS_OVFBUF                                                                           \
	"SDM Vol.3B 18.4.9 (DS save area) / IA32_PERF_GLOBAL_STATUS: OvfBuf (62) is set and a "    \
	"PMI raised when the PEBS index reaches the interrupt threshold, not before"
#define RULE_PEBS_BASIC                                                                            \
	"SDM Vol.3B 20.9 (basic info group): record format [47:0] = the MSR_PEBS_DATA_CFG "        \
	"groups (0 for a basic record) and [63:48] the record size; applicable counters = the "    \
	"counter that overflowed; IP = an instruction of the code that ran"
#define RULE_PEBS_ADAPTIVE                                                                         \
	"SDM Vol.3B 20.9: an adaptive record is the basic group (20H) plus each group "            \
	"MSR_PEBS_DATA_CFG selects: memory info 20H, GPRs 90H, XMM 100H, 18H per LBR entry"
#define RULE_PEBS_ADAPTIVE_OFF                                                                     \
	"SDM Vol.3B 20.9: with Adaptive_Record (IA32_PERFEVTSELx[34], IA32_FIXED_CTR_CTRL"         \
	"[32 + 4i]) clear the record is the basic group only"
#define RULE_PEBS_FIXED                                                                            \
	"SDM Vol.3B 20.9 (PEBS_BASELINE): fixed counters are PEBS-capable through "                \
	"IA32_PEBS_ENABLE[32 + i]"
/* Inferred: the SDM gives no lower bound of slots per instruction; one per two is pmutest's. */
#define RULE_METRICS_SLOTS                                                                         \
	RULE_INFERRED                                                                              \
	"SDM Vol.3B Table 20-2 / 20.3.9.3: FIXED_CTR3 counts TOPDOWN.SLOTS, the issue slots "      \
	"(machine width x cycles); our inference: at least one slot per two retired "              \
	"instructions (a macro-fused pair takes one)"
#define RULE_METRICS_SUM                                                                           \
	"SDM Vol.3B 20.3.9.3: the level-1 IA32_PERF_METRICS fields (retiring, bad speculation, "   \
	"frontend bound, backend bound) are 8-bit fractions of the slots summing to FFH; the "     \
	"rounding is not stated: our tolerance is one unit per field (FCH..102H)"
#define RULE_METRICS_CLEAR                                                                         \
	"SDM Vol.3B 20.3.9.3: writing 0 to FIXED_CTR3 and to IA32_PERF_METRICS clears them"
#define RULE_METRICS_GLOBAL                                                                        \
	"SDM Vol.4 Table 2-2 (38FH, 38EH, 390H, 391H): bit 48 (EN_PERF_METRICS / "                 \
	"PERF_METRICS_OVF) exists with PERF_METRICS_AVAILABLE"
#define RULE_METRICS_RDPMC "SDM Vol.2B RDPMC: type 2000H reads IA32_PERF_METRICS"
#define RULE_METRICS_L1_EVENTS                                                                     \
	"SDM Vol.3B Table 20-1 (topdown events, CPUID.0AH:EBX[11:8]): backend bound, bad "         \
	"speculation, frontend bound and retiring partition TOPDOWN.SLOTS; our tolerance: 1% + 64"

/* PEBS on the 2023-2026 parts (suites/pebs.c) */
#define RULE_PEBS_TIMED                                                                            \
	"ISE 8.4.1 Timed PEBS (IA32_PERF_CAPABILITIES.PEBS_TIMING_INFO[17]): the basic group's "   \
	"record format field is [31:0] and [47:32] the retire latency; [63:48] the record size"
#define RULE_PEBS_RESET_LAYOUT                                                                     \
	"SDM Vol.3B 18.4.9 (DS save area, PEBS counter reset fields): 8 GP + 4 fixed reset "       \
	"fields up to PEBS format 4, 32 GP + 16 fixed from format 5 (fixed i at 32 + i); the "     \
	"counter is reloaded from its own field after the record"

/* TSX qualifiers (suites/tsx.c) */
#define RULE_IN_TX_INSIDE_ONLY                                                                     \
	"SDM Vol.3B 20.3.6.5: with IN_TX (IA32_PERFEVTSELx bit 32) the counter only includes "     \
	"counts that occurred inside a transactional region, committed or aborted; events "        \
	"outside it are discarded"
#define RULE_IN_TXCP_ABORTED                                                                       \
	"SDM Vol.3B 20.3.6.5: with IN_TXCP (IA32_PERFEVTSEL2 bit 33) the counter does not "        \
	"include counts inside an aborted transactional region: on the abort IA32_PMC2 is "        \
	"restored to its value before the region"
#define RULE_XABORT_STATUS                                                                         \
	"SDM Vol.1 16.3.5 Table 16-1 / Vol.2A XABORT: after XABORT imm8 the fallback path finds "  \
	"EAX[0] = 1 and the imm8 in EAX[31:24]"

/* AMD HostOnly / GuestOnly with EFER.SVME (suites/amd.c). The APM's text on HG_ONLY with
 * SVME was not read first-hand here: read through KVM's selftest. */
/* Sourced: a peer's test: KVM's selftest svm_pmu_host_guest_test asserts it on AMD hardware. */
#define RULE_AMD_HG_SVME_HOST                                                                      \
	"AMD APM Vol.2 13.2.1 HG_ONLY as KVM's selftest svm_pmu_host_guest_test (2026, steps "     \
	"2 and 4) asserts it: with EFER.SVME = 1 outside a guest (host mode) 00B, HostOnly "       \
	"(10B) and 11B count, GuestOnly (01B) counts nothing"
/* Sourced: a peer's test: KVM's selftest svm_pmu_host_guest_test asserts it on AMD hardware. */
#define RULE_AMD_HG_NO_SVME                                                                        \
	"AMD APM Vol.2 13.2.1 HG_ONLY as KVM's selftest svm_pmu_host_guest_test (2026, steps "     \
	"1 and 5) asserts it: with EFER.SVME = 0 the bits are ignored, all four combinations "     \
	"count (Linux 1018faa6cf23 saw Family 15h count nothing with either bit set instead)"
/* What the runner's safety nets must not hide (kernel/runner.c, kernel/pmu.c) */
#define RULE_SMM_FROZEN                                                                            \
	"SDM Vol.3B 18.4.1 (IA32_DEBUGCTL.FREEZE_WHILE_SMM, bit 14; Vol.4 Table 2-2 1D9H: "        \
	"freezes perfmon while in SMM): on SMI delivery the processor clears the enable bits of "  \
	"IA32_PERF_GLOBAL_CTRL and sets them again at RSM, so an SMI adds nothing to a count"
/* Sourced: the APM's text was not read here; KVM sets the value at RESET
 * for AMD guests alike ("per the APM", Linux de120e1d692d, by Google's KVM
 * maintainers), and the Zen 4 part reads it with no firmware's write. */
#define RULE_AMD_GLOBAL_CTL_RESET                                                                  \
	"AMD APM Vol.2 13.2 PerfMonV2 (PerfCntrGlobalCtl, C000_0301H) as Linux de120e1d692d "      \
	"reads it: the reset value sets PerfCntrEn of each core counter, n = CPUID "               \
	"8000_0022H EBX[3:0], bits n-1:0, and clears the others (reserved)"
#define RULE_GLOBAL_CTRL_RESET_VALUE                                                               \
	"SDM Vol.4 Table 2-2 (38FH, IA32_PERF_GLOBAL_CTRL, from the March 2023 edition): "         \
	"reset value: sets bits n-1:0 and clears the upper bits, n the number of "                 \
	"general-purpose counters"
/* ---- Architectural PMU version 6: the 19xxH MSR range (suites/v6.c).
 * The defining text is the ISE ("Intel Architecture Instruction Set Extensions
 * and Future Features", rev. 052+, "Architectural Performance Monitoring
 * Version 6"), not reachable here: it is cited as Linux quotes it in
 * 149fd4712bcd ("Support Perfmon MSRs aliasing", v6.11). ---- */
#define ISE_V6 "ISE 'Architectural Performance Monitoring V6' (as quoted in Linux 149fd4712bcd)"
#define RULE_V6_ALIAS                                                                              \
	ISE_V6 ": the 19xxH range includes all the GP counter MSRs, the GP control MSRs and the "  \
	       "fixed counter MSRs: IA32_PMC_GPn_CTR (1900H+4n) is IA32_PMCn, IA32_PMC_GPn_CFG_A " \
	       "(1901H+4n) is IA32_PERFEVTSELn, IA32_PMC_FXm_CTR (1980H+4m) is IA32_FIXED_CTRm: "  \
	       "what is "                                                                          \
	       "written through one name reads back through the other"
#define RULE_V6_ALIAS_COUNTS                                                                       \
	ISE_V6 ": IA32_PMC_GPn_CFG_A / _CTR are IA32_PERFEVTSELn / IA32_PMCn, so a counter "       \
	       "programmed through CFG_A counts (SDM Vol.3B 20.2.1) and both names read the same " \
	       "count"
#define RULE_V6_CFG_A_RSVD                                                                         \
	ISE_V6 ": IA32_PMC_GPn_CFG_A is IA32_PERFEVTSELn, so it has its reserved bits; SDM "       \
	       "Vol.3B 20.2.1.1: writing a reserved bit of IA32_PERFEVTSELx raises #GP(0)"
#define RULE_V6_ALIAS_ABSENT                                                                       \
	ISE_V6 ": the aliases are those of the counters that exist (SDM Vol.4 Table 2-2, "         \
	       "CPUID.0AH / the CPUID.(23H,1) bitmaps); an alias of a counter that does not "      \
	       "exist names "                                                                      \
	       "no register: RDMSR / WRMSR of it raise #GP(0) (SDM Vol.2B RDMSR, WRMSR)"
/* Inferred: that 1981H+4m is no register is pmutest's reading of the ISE's list; neither Linux
 * nor the ISE says it raises #GP. */
#define RULE_V6_NO_FX_CFG_A                                                                        \
	RULE_INFERRED ISE_V6                                                                       \
	    " lists FXm_CTR, FXm_CFG_B and FXm_CFG_C (Linux "                                      \
	    "MSR_IA32_PMC_V6_FX0_*) and keeps IA32_FIXED_CTR_CTRL at 38DH; that 1981H+4m is no "   \
	    "register is pmutest's reading of the list, so RDMSR / WRMSR #GP(0) (SDM Vol.2B "      \
	    "RDMSR)"

/* ---- RDPMC user disable (suites/privilege.c): ISE chapter "RDPMC USER
 * DISABLE", as quoted in Linux 59af95e028d4. ---- */
#define ISE_RDPMC_USR_DIS "ISE 'RDPMC USER DISABLE' (as quoted in Linux 59af95e028d4)"
#define RULE_RDPMC_USR_DIS_ZERO                                                                    \
	ISE_RDPMC_USR_DIS                                                                          \
	": with CPUID.(23H,0):EBX[2], IA32_PERFEVTSELx bit 37 / "                                  \
	"IA32_FIXED_CTR_CTRL bit 33+4i set, the counter cannot be read by RDPMC in ring 3: "       \
	"'If (!CPL0 && RDPMC_USR_DISABLE[x] == 1) ? 0 : counter_value' (0, no #GP)"
#define RULE_RDPMC_USR_DIS_OTHERS                                                                  \
	ISE_RDPMC_USR_DIS                                                                          \
	": the bit is per counter ('RDPMC_USR_DISABLE[x]'): a counter whose "                      \
	"bit is clear reads its value at CPL > 0 with CR4.PCE = 1 (SDM Vol.2B RDPMC)"
#define RULE_RDPMC_USR_DIS_CPL0                                                                    \
	ISE_RDPMC_USR_DIS ": the 0 is for !CPL0 only; at CPL 0 RDPMC reads the counter (SDM "      \
			  "Vol.2B RDPMC)"
#define RULE_RDPMC_USR_DIS_COUNTS                                                                  \
	ISE_RDPMC_USR_DIS                                                                          \
	": the bit decides what RDPMC at CPL > 0 returns, not what is "                            \
	"counted: a counter with it set counts as without it (SDM Vol.3B 20.2.1)"
#define RULE_RDPMC_USR_DIS_PCE                                                                     \
	"SDM Vol.2B RDPMC: with CR4.PCE = 0, RDPMC at CPL > 0 raises #GP(0); " ISE_RDPMC_USR_DIS   \
	" changes the value read when RDPMC is allowed, not that check (Linux keeps the #GP "      \
	"case: intel/lkvs rdpmc_user_disable_0)"
#define RULE_RDPMC_USR_DIS_DEFINED                                                                 \
	ISE_RDPMC_USR_DIS ": with CPUID.(23H,0):EBX[2] the bits are defined, so writing them "     \
			  "does not raise #GP and they read back"

/* ---- Auto Counter Reload (suites/acr.c): SDM Vol. 3 rev. 085+ "Auto
 * Counter Reload" (21.9.11), as quoted in Linux ec980e4facef and 1271aeccc307. ---- */
#define SDM_ACR "SDM Vol.3B 'Auto Counter Reload' (as quoted in Linux ec980e4facef)"
#define RULE_ACR_MSRS                                                                              \
	SDM_ACR                                                                                    \
	": 'For a given counter IA32_PMC_GPn_CTR/IA32_PMC_FXm_CTR, bit fields in the "             \
	"IA32_PMC_GPn_CFG_B/IA32_PMC_FXm_CFG_B MSR indicate which counter(s) can cause a "         \
	"reload "                                                                                  \
	"of that counter. The reload value is stored in the IA32_PMC_GPn_CFG_C/"                   \
	"IA32_PMC_FXm_CFG_C': a counter CPUID.(23H,2) EAX / EBX names as reloadable has both"
/* Inferred: that the counters CPUID.(23H,2) does not name have no CFG_B / CFG_C is pmutest's
 * reading; no source states the #GP. */
#define RULE_ACR_MSRS_ABSENT                                                                       \
	RULE_INFERRED SDM_ACR                                                                      \
	    " gives CFG_B / CFG_C to the reloadable counters (CPUID.(23H,2)); "                    \
	    "that the other counters have none (CFG_C excepted where architectural PEBS, "         \
	    "CPUID.(23H,5), uses it) is pmutest's reading: RDMSR #GP(0)"
#define RULE_ACR_RELOAD                                                                            \
	SDM_ACR ": when a counter named in CFG_B overflows, the counter restarts from its CFG_C "  \
		"reload value; so, counting the same event, the reloaded counter minus the "       \
		"reload value "                                                                    \
		"equals what the overflowed counter counted since its wrap; our tolerance: 64 "    \
		"events lost "                                                                     \
		"between the overflow and the reload"
#define RULE_ACR_SELF_STATUS                                                                       \
	"SDM Vol.3B 'Auto Counter Reload' (as Linux 1271aeccc307 quotes it): 'the overflow bit "   \
	"(IA32_PERF_GLOBAL_STATUS.PMCn_OVF) is never set for self-reloaded events'"
/* Sourced: Linux 43796f305078 (Intel's engineers) masks CFG_B to the counters CPUID.(23H,2)
 * names because other bits raised #GP on Panther Lake. */
#define RULE_ACR_CAUSE                                                                             \
	SDM_ACR ": CPUID.(23H,2) ECX / EDX name the counters that can cause a "                    \
		"reload; a CFG_B bit of another counter is refused (#GP(0), as "                   \
		"Linux saw on Panther Lake, "                                                      \
		"43796f305078) or has no effect"

/* ---- EQ (suites/filtering.c): no reachable text states its meaning ---- */
/* Inferred: Linux names the bit only ('equal flag'); what it counts is pmutest's reading of the
 * name. */
#define RULE_EVTSEL_EQ                                                                             \
	RULE_INFERRED                                                                              \
	"IA32_PERFEVTSELx bit 36 EQ (CPUID.(23H,0):EBX[1], ISE 'Architectural "                    \
	"Performance Monitoring V6'; the 'equal flag' of Linux dce0c74d2d18): with EQ the "        \
	"counter counts the cycles whose event count equals CMASK instead of reaching it, so "     \
	"count(CMASK=1, EQ) = count(CMASK=1) - count(CMASK=2); tolerance 1/64 + 64"

/* ---- RDPMC metrics clear mode (suites/metrics.c): ISE, as Linux 0e45818ec189
 * quotes it. ---- */
#define RULE_METRICS_RDPMC_CLEAR                                                                   \
	"ISE 'RDPMC metrics clear mode' (as quoted in Linux 0e45818ec189): with "                  \
	"IA32_PERF_CAPABILITIES.RDPMC_CLEAR_METRICS[19] and IA32_FIXED_CTR_CTRL."                  \
	"METRICS_CLEAR_EN[14], RDPMC of the metrics (type 2000H) returns them, then clears 'the "  \
	"PERF_METRICS-related resources as well as the fixed-function performance monitoring "     \
	"counter 3 after the read is performed'"
#define RULE_METRICS_RDPMC_CLEAR_OFF                                                               \
	"ISE 'RDPMC metrics clear mode' (Linux 0e45818ec189): the mode is enabled by "             \
	"METRICS_CLEAR_EN[14]; without it RDPMC only reads (SDM Vol.2B RDPMC)"

/* ---- Fixed counters 4-6 (suites/counting.c) ---- */
/* Sourced: Linux a932aa0e868f (Intel's engineers) maps fixed counters 4-6 to these events. */
#define RULE_FIXED_4_6_EVENTS                                                                      \
	"fixed counters 4, 5, 6 count TOPDOWN_BAD_SPECULATION.ALL (0073H), "                       \
	"TOPDOWN_FE_BOUND.ALL (019CH), TOPDOWN_RETIRING.ALL (02C2H) (Linux a932aa0e868f), "        \
	"the "                                                                                     \
	"encodings of architectural events 9, 10, 11 (SDM Vol.3B Table 20-1): a GP counter "       \
	"programmed with that event counts the same in the same window; tolerance 1/64 + 64 "      \
	"(the SDM's fixed-counter table for them was not read)"

/* ---- Architectural PEBS (suites/arch_pebs.c): ISE ch. 11
 * "Architectural PEBS" was not reachable; every layout is Linux's
 * (d243d0bb64af, d21954c8a0ff, 2721e8da2de7, 52448a0a7390, bb5f13df3c45:
 * struct arch_pebs_index / _header / _basic / _gprs / _aux, msr-index.h
 * IA32_PEBS_BASE / _INDEX, ARCH_PEBS_*), so every rule is sourced. ---- */
#define LINUX_APEBS                                                                                \
	"(ISE ch.11 'Architectural PEBS' as Linux d243d0bb64af/2721e8da2de7 lays it out)"
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) programs these MSRs so. */
#define RULE_APEBS_MSRS                                                                            \
	"IA32_PEBS_BASE (3F4H) and IA32_PEBS_INDEX (3F5H) are read/write; "                        \
	"IA32_PEBS_INDEX bits 3:0, 30:27, 35:33, 63:59 are reserved (#GP(0)); "                    \
	"CFG_C exists for the counters of CPUID.(23H,5) " LINUX_APEBS
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) reads records so. */
#define RULE_APEBS_RECORD                                                                          \
	"with IA32_PEBS_INDEX.EN and CFG_C.EN[63] a counter's overflow writes one "                \
	"record at IA32_PEBS_BASE + WR x 16 and advances WR by its size; the "                     \
	"16-byte header's size [15:0] is the record's, BASIC[63] set, CONT[31] "                   \
	"clear (of a split record's last part), no other group; the basic group's "                \
	"IP is the sampled instruction's "                                                         \
	"and its applicable counters have the counter's bit (GP n: n, fixed m: "                   \
	"32 + m) " LINUX_APEBS
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) takes its PMI at the
 * threshold. */
#define RULE_APEBS_THRESH                                                                          \
	"when WR reaches IA32_PEBS_INDEX.THRESH (58:36, 16-byte units as Linux's "                 \
	"ARCH_PEBS_THRESH_* values are) IA32_PERF_GLOBAL_STATUS[54] is set and a "                 \
	"PMI raised, not before " LINUX_APEBS
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) sizes the buffer so. */
#define RULE_APEBS_FULL                                                                            \
	"the buffer is 4 KiB << IA32_PEBS_BASE.SIZE ('Buffer Size = 4KB * "                        \
	"2^SIZE', Linux); a record that does not fit is not written past its end, "                \
	"and IA32_PEBS_INDEX.FULL[31] is set " LINUX_APEBS
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) enables the groups
 * CPUID.(23H,4) names. */
#define RULE_APEBS_GROUPS                                                                          \
	"CPUID.(23H,4):EBX[k] enumerates CFG_C bit 32 + k (Linux "                                 \
	"arch_pebs_cap.caps = EBX << 32): an enumerated group (AUX 62, 40H; GPR "                  \
	"61, A0H; XMM 49, 110H with its header) sets its header bit and adds its "                 \
	"size; a group not enumerated is refused, #GP(0) " LINUX_APEBS
/* Sourced: Linux d21954c8a0ff (Intel's engineers) reassembles split records so. */
#define RULE_APEBS_SPLIT                                                                           \
	"a record may be split into fragments, each with its own 16-byte header "                  \
	"whose size [15:0] is 16 plus its groups' bytes, to a multiple of 16 (WR's "               \
	"unit); the first holds the basic "                                                        \
	"group, no group is in two; CONT[31] (or a header naming no group) on "                    \
	"every fragment but the last (Linux d21954c8a0ff "                                         \
	"arch_pebs_record_continued(), intel_pmu_drain_arch_pebs()) " LINUX_APEBS
/* Sourced: Linux's architectural PEBS driver (Intel's engineers) reads the LBR group so. */
#define RULE_APEBS_LBR                                                                             \
	"CFG_C LBR[41:40] (CPUID.(23H,4):EBX[9:8]) adds the LBR group: header "                    \
	"field 41:40 the same, 48-byte struct arch_pebs_lbr_header, 24 bytes per "                 \
	"entry, 8 x the field entries or, with 3 (NUM_VAR), the header's depth, "                  \
	"IA32_LBR_DEPTH's and a "                                                                  \
	"depth CPUID.(1CH,0):EAX[7:0] enumerates " LINUX_APEBS
/* Sourced: Linux's counter group for architectural PEBS (Intel's engineers) reads it so. */
#define RULE_APEBS_CNTR                                                                            \
	"CFG_C CNTR_GP[36] / _FIXED[37] / _METRICS[38] (CPUID.(23H,4):EBX[4:6]) "                  \
	"add the counters group: struct arch_pebs_cntr_header {GP mask, fixed "                    \
	"mask, metrics = 3}, a quadword per counter whose CFG_C has ALLOW[35] (bit "               \
	"3), 2 for the metrics; each snapshot the counter's value at the record "                  \
	"(Linux 'Add counter group support for arch-PEBS', ARCH_PEBS_CNTR_*) " LINUX_APEBS

/* ---- UMASK2 counting (suites/counting.c) ---- */
/* Sourced: Intel's own event list (intel/perfmon) defines these UMASK2 events. */
#define RULE_UMASK2_EVENT                                                                          \
	"IA32_PERFEVTSELx UMASK2 (47:40, CPUID.(23H,0):EBX[0]; ISE 'Architectural "                \
	"Performance Monitoring V6') selects the model-specific event defined with "               \
	"it: Lion Cove BR_INST_RETIRED.COND (C4H UMask 11H UMaskExt 01H), "                        \
	".COND_TAKEN (01H/01H), .COND_TAKEN_FWD (00H/01H) count a JNZ loop's "                     \
	"conditional, taken and forward-taken branches: N, N, 0 over N more "                      \
	"iterations (intel/perfmon lunarlake_lioncove_core.json v1.26, "                           \
	"arrowlake_lioncove_core.json v1.20)"

/* ---- PERF_METRICS level 2 (suites/metrics.c) ---- */
/* Sourced: Linux's level-2 topdown support (Intel's engineers) defines bytes 4-7 as the
 * children of bytes 0-3. */
#define RULE_METRICS_LEVEL2                                                                        \
	"IA32_PERF_METRICS bytes 4-7 (Linux INTEL_TD_METRIC_HEAVY_OPS, _BR_MISPREDICT, "           \
	"_FETCH_LAT, _MEM_BOUND) are level-2 fractions of the same slots, each the "               \
	"child of level-1 byte 0-3 (retiring, bad speculation, frontend bound, "                   \
	"backend bound) by the names, so never above it; tolerance one unit; 0 "                   \
	"where the CPU has no level 2 (the SDM text on level 2 was not read)"

/* ---- PEBS counters snapshotting (suites/pebs.c) ---- */
/* Sourced: Linux e02e9b0374c3 (Intel's engineers) lays out the counters group so. */
#define RULE_PEBS_CNTR                                                                             \
	"PEBS format 6 counters snapshotting (Linux e02e9b0374c3; the SDM text not "               \
	"read): MSR_PEBS_DATA_CFG[4] adds, after the LBR group, a 16-byte header "                 \
	"{GP mask = DATA_CFG[47:32], fixed mask = [55:48], metrics, 0} and each "                  \
	"named counter's value at the record; the record format echoes bit 4 and "                 \
	"its size counts the group"

/* ---- AMD LBR v2 (suites/amd_lbr.c): the APM text not read; the
 * layout is Linux arch/x86/events/amd/lbr.c's, so every rule is sourced. ---- */
#define LINUX_AMD_LBR "(AMD LBR v2 as Linux arch/x86/events/amd/lbr.c, ca5b7c0d9621, programs it)"
/* Sourced: Linux's AMD LBR v2 driver (AMD's engineers) programs these MSRs so. */
#define RULE_AMD_LBR_MSRS                                                                          \
	"with CPUID 8000_0022H EAX[1], LBR_SELECT (C000_010EH, bits 8:0; 63:9 "                    \
	"reserved), DBG_EXTN_CFG (C000_010FH) and the FROM / TO MSRs C001_0300H + "                \
	"2i / + 2i + 1 of each entry i < EBX[9:4] are read/write " LINUX_AMD_LBR
/* Sourced: Linux's AMD LBR v2 driver (AMD's engineers) reads entry 0 as the youngest. */
#define RULE_AMD_LBR_RECORD                                                                        \
	"with DBG_EXTN_CFG.LBRV2EN[6] each taken branch is recorded, entry 0 the "                 \
	"youngest ('LBR From[0] and LBR To[0] always represent the TOS'), the "                    \
	"address in bits 57:0, TO[63] VALID set; nothing else is recorded " LINUX_AMD_LBR
/* Sourced: Linux's AMD LBR v2 driver (AMD's engineers) programs LBR_SELECT in suppress mode. */
#define RULE_AMD_LBR_SELECT                                                                        \
	"LBR_SELECT bits suppress ('Filter bits operate in suppress mode'): 0 "                    \
	"branches ending at CPL 0, 1 at CPL > 0, 2 Jcc, 3 near relative CALL, 5 "                  \
	"near RET, 7 near relative JMP; the others are still recorded " LINUX_AMD_LBR
/* Sourced: Linux's AMD LBR v2 driver (AMD's engineers) relies on the freeze on PMI. */
#define RULE_AMD_LBR_FREEZE                                                                        \
	"with LbrAndPmcFreeze (CPUID 8000_0022H EAX[2]) and "                                      \
	"DEBUGCTL.FREEZE_LBRS_ON_PMI[11], a counter's PMI sets "                                   \
	"PerfCntrGlobalStatus[58] and freezes the stack until it is cleared "                      \
	"through PerfCntrGlobalStatusClr " LINUX_AMD_LBR

#endif

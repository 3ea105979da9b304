/* SPDX-License-Identifier: MIT */
/*
 * The model-specific LBR stack: where its MSRs are and what an entry holds.
 * One reading of the SDM shared by the lbr suite and the simulator.
 *
 * Depth and addresses depend on DisplayFamily_DisplayModel (Vol. 3B 19.4.8
 * "LBR Stack" and the per-microarchitecture LBR sections and "LBR Stack Size
 * and TOS Pointer Range" tables); what an entry holds depends on
 * IA32_PERF_CAPABILITIES.LBR_FMT (Vol. 3B 19.4.8.1).
 */
#ifndef PMUTEST_LBR_H
#define PMUTEST_LBR_H

#include <stdbool.h>
#include <stdint.h>

#include "caps.h"
#include "requires.h"

struct lbr_layout {
	unsigned depth;	    /* entries: the TOS range is 0..depth-1 */
	uint32_t from, to;  /* MSR_LASTBRANCH_0_FROM_IP / _TO_IP */
	uint32_t info;	    /* MSR_LBR_INFO_0, 0 when the format has none */
	bool select;	    /* MSR_LBR_SELECT exists */
	bool callstack;	    /* MSR_LBR_SELECT.EN_CALLSTACK (bit 9) defined */
	const char *family; /* "Skylake", ... for diagnostics */
};

enum lbr_layout_result {
	LBR_LAYOUT_OK,
	LBR_LAYOUT_ARCH_LBR,	 /* CPUID.(07H,0):EDX[19]: Arch LBR instead */
	LBR_LAYOUT_NO_FORMAT,	 /* LBR_FMT 0 (32-bit records) or not read */
	LBR_LAYOUT_UNKNOWN_MODEL /* DisplayModel not in the table */
};

/* The layout for the machine the record describes. */
enum lbr_layout_result lbr_legacy_layout(const struct caps *c, struct lbr_layout *l);

/* PEBS and the LBRs off (the runner's clean state between tests, through
 * pmu_reset_all()): IA32_PEBS_ENABLE, IA32_DS_AREA, IA32_LBR_CTL where they
 * exist. Fault-returning probes: safe on any machine. */
void lbr_pebs_reset(void);

/*
 * A PMI to freeze on (kernel/lbr_pmi.c): the first GP counter counts
 * instructions with INT, preset to overflow 64 instructions into
 * PMU_ITERS iterations of the gated workload, with IA32_DEBUGCTL's LBR and
 * FREEZE_LBRS_ON_PMI replaced by `debugctl_set` for the run (and cleared
 * after it). The caller's test requires what it needs, REQ_LBR_PMI_RUN: a
 * GP counter, the instructions event, and a local APIC to take the PMI.
 */
#define REQ_LBR_PMI_RUN (REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
struct lbr_pmi_run {
	unsigned ovf;	   /* the counter that overflowed */
	unsigned pmis;	   /* PMIs delivered */
	uint64_t status;   /* IA32_PERF_GLOBAL_STATUS in the first PMI */
	uint64_t debugctl; /* IA32_DEBUGCTL after the run */
};
void lbr_pmi_run(uint64_t debugctl_set, struct lbr_pmi_run *r);

/* For the simulator's quirk table: a model-specific LBR stack this table
 * knows, and one with MSR_LBR_SELECT. */
bool lbr_legacy_present(const struct caps *c);
bool lbr_legacy_has_select(const struct caps *c);

/* What the format stores (Vol. 3B 19.4.8.1, "LBR_FMT" encodings). */
bool lbr_fmt_from_flags(unsigned fmt); /* MISPRED in FROM[63]: 3, 4, 6 */
bool lbr_fmt_tsx_flags(unsigned fmt);  /* IN_TX / ABORT in FROM[62:61]: 4 */
bool lbr_fmt_has_info(unsigned fmt);   /* MSR_LBR_INFO_x: 5, 7 */
bool lbr_fmt_to_cycles(unsigned fmt);  /* cycle count in TO[63:48]: 6 */
/* The branch addresses of an entry, flags stripped and sign-extended. */
uint64_t lbr_from_address(unsigned fmt, uint64_t raw);
uint64_t lbr_to_address(unsigned fmt, uint64_t raw);

/* The branches of arch_branch_chain() (include/arch.h) other than those of
 * `kind`: bit i for chain branch i (the LBR suites' LBR_SELECT checks). */
unsigned lbr_chain_except(int kind);

#endif

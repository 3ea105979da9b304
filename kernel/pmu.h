/* SPDX-License-Identifier: MIT */
/*
 * PMU programming helpers shared by the conformance suites: put the PMU in a
 * clean state, program and read general-purpose and fixed counters, count
 * the calibrated workload, and keep the books of the PMI handler.
 *
 * Everything goes through include/arch.h; nothing here is machine specific.
 * The helpers follow the capability record: on version 1 (no
 * IA32_PERF_GLOBAL_CTRL) a counter is gated by its EVTSEL EN bit, from
 * version 2 on by IA32_PERF_GLOBAL_CTRL.
 */
#ifndef PMUTEST_PMU_H
#define PMUTEST_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "caps.h"
#include "msr.h"

/* IA32_PERFEVTSELx value for architectural event `ev` with extra `flags`
 * (USR, OS, EN, INT, ...). */
uint64_t pmu_evtsel(enum arch_event ev, uint64_t flags);

/*
 * The exact-count event the suites use: Instructions Retired
 * (WORKLOAD_INSNS_PER_ITER per iteration) or, when CPUID.0AH:EBX marks it
 * unavailable, Branch Instructions Retired (WORKLOAD_BRANCHES_PER_ITER).
 * false when neither is available.
 */
bool pmu_exact_event(enum arch_event *ev, uint64_t *per_iter);
bool pmu_event_available(enum arch_event ev);

/*
 * Bounds on what the gate and the call around the workload add to a count of
 * instructions or branches: a few dozen instructions in practice, set
 * generously so that any correct implementation fits while a counter that
 * counts something else (cycles, the other ring) does not.
 */
#define PMU_OVERHEAD_EVENTS 2000ULL
/* Iterations of the workload most checks use: 10^5 instructions. */
#define PMU_ITERS 10000ULL

/*
 * Bounds on cycles, argued from the architecture rather than measured:
 *  - no Intel core retires more than 16 instructions per cycle (8-wide
 *    retirement, macro-fused pairs), so cycles >= instructions / 16;
 *  - a 10-instruction register-only iteration takes far less than
 *    PMU_CYCLES_PER_ITER_MAX cycles even on a slow, throttled or virtualized
 *    core, and the gate adds less than PMU_CYCLES_OVERHEAD.
 */
#define PMU_MAX_IPC		16ULL
#define PMU_CYCLES_PER_ITER_MAX 1000ULL
#define PMU_CYCLES_OVERHEAD	1000000ULL
static inline uint64_t pmu_cycles_max(uint64_t iters)
{
	return iters * PMU_CYCLES_PER_ITER_MAX + PMU_CYCLES_OVERHEAD;
}

/* ---- What the record says ----------------------------------------------- */
bool pmu_has_global(void); /* version >= 2 */
/*
 * Counter existence, the one rule (computed by the decoder, kernel/caps.c):
 * where CPUID.(23H,1) is valid its bitmaps are the counters that exist,
 * holes included (EAX: IA32_PMCx/IA32_PERFEVTSELx, EBX: IA32_FIXED_CTRx),
 * whatever CPUID.0AH says; elsewhere GP counter i exists iff
 * i < CPUID.0AH:EAX[15:8], fixed counter i iff i < CPUID.0AH:EDX[4:0] or
 * CPUID.0AH:ECX[i] (v5). Fixed counters need version 2.
 */
bool pmu_gp_present(unsigned i);
bool pmu_fixed_present(unsigned i);
/* Number of GP counters that exist (holes not counted). */
unsigned pmu_gp_count(void);
/* 1 + the index of the highest GP counter that exists (0 when none): the
 * first index past every counter, leaf 23H's included. */
unsigned pmu_gp_end(void);
/* Index of the n-th present GP counter (0-based n), -1 when there is none:
 * leaf 23H may leave holes, so counter 0 or 1 is not always there. */
int pmu_gp_nth(unsigned n);
uint64_t pmu_gp_mask(void);    /* width mask of GP counters */
uint64_t pmu_fixed_mask(void); /* width mask of fixed counters */
/* IA32_PERF_GLOBAL_CTRL bits of every present counter (v2+). */
uint64_t pmu_global_counter_bits(void);
/* The architectural event fixed counter i counts (SDM Vol. 3B Table 20-2):
 * false for counters 4 and up, whose events the table does not tie to the
 * workload. */
bool pmu_fixed_event(unsigned i, enum arch_event *ev);

/* ---- Counters ------------------------------------------------------------ */

/*
 * A counter of the architectural PMU: general-purpose (IA32_PMCx with
 * IA32_PERFEVTSELx) or fixed-function (IA32_FIXED_CTRx with its 4-bit field
 * of IA32_FIXED_CTR_CTRL). Its configuration `cfg` is the whole EVTSEL value
 * for a GP counter and the 4-bit field for a fixed one.
 */
enum counter_kind { COUNTER_GP, COUNTER_FIXED };
struct counter {
	enum counter_kind kind;
	unsigned idx;
};
#define GP_COUNTER(i)	 ((struct counter){COUNTER_GP, (i)})
#define FIXED_COUNTER(i) ((struct counter){COUNTER_FIXED, (i)})

/*
 * Bound on the index of either kind: CPUID.(23H,1):EAX/EBX and CPUID.0AH:ECX
 * are 32-bit bitmaps, and IA32_PERF_GLOBAL_CTRL has 32 GP positions (bits
 * 31:0). Fixed counters 16 and up have no GLOBAL_CTRL bit (32 + i would
 * reach the defined bits 48-63): see counter_global_bit().
 */
#define PMU_COUNTER_MAX 32
/* Fixed counters that can be programmed: IA32_FIXED_CTR_CTRL has sixteen
 * 4-bit fields and IA32_PERF_GLOBAL_CTRL bits 47:32 sixteen enables; bits
 * 63:48 are defined otherwise (PERF_METRICS, LBR_FRZ, ...). A fixed counter
 * 16 or up that CPUID enumerates is reset and read (RDPMC) but never
 * iterated by for_each_fixed_counter. */
#define PMU_FIXED_PROGRAMMABLE GLOBAL_FIXED_BITS

bool counter_exists(struct counter c);
/* First existing counter of `kind` with index >= from; PMU_COUNTER_MAX when
 * there is none. */
unsigned counter_next(enum counter_kind kind, unsigned from);

/* Every counter that exists, in index order, leaf 23H holes skipped. */
#define for_each_counter_of(kind_, c)                                                              \
	for (struct counter c = {(kind_), counter_next((kind_), 0)}; c.idx < PMU_COUNTER_MAX;      \
	     c.idx = counter_next((kind_), c.idx + 1))
#define for_each_gp_counter(c)	  for_each_counter_of(COUNTER_GP, c)
#define for_each_fixed_counter(c) for_each_counter_of(COUNTER_FIXED, c)

/* printf: "IA32_PMC3", "IA32_FIXED_CTR1". */
#define COUNTER_FMT    "%s%u"
#define COUNTER_ARG(c) counter_prefix(c), (c).idx
const char *counter_prefix(struct counter c);

/* Its bit in IA32_PERF_GLOBAL_CTRL/STATUS/OVF_CTRL/INUSE (GP i at i, fixed
 * i at 32 + i); 0 for a fixed counter 16 or up, which has none. */
uint64_t counter_global_bit(struct counter c);
unsigned counter_global_pos(struct counter c); /* that bit's number */
uint64_t counter_width_mask(struct counter c);
/* Its architectural PMU version 6 configuration MSRs beside the counter,
 * IA32_PMC_GP_CFG_B / IA32_PMC_FX_CFG_B (Auto Counter Reload's causes) and
 * ..._CFG_C (the reload value; arch PEBS's enable and groups). */
uint32_t counter_cfg_b_msr(struct counter c);
uint32_t counter_cfg_c_msr(struct counter c);
/* Its bit in a CFG_B cause bitmap: GP n at n, fixed m at 32 + m. */
uint64_t counter_acr_cause_bit(struct counter c);
/* Whether a pair of CPUID.(23H,x) bitmaps, GP and fixed, names it. */
bool counter_in_bitmaps(struct counter c, uint32_t gp, uint32_t fixed);
/* The counters that exist and can be programmed, GP then fixed, into c
 * (room for 2 * PMU_COUNTER_MAX): those `want` accepts, every one for NULL.
 * Returns how many. */
unsigned counters_collect(struct counter *c, bool (*want)(struct counter));
/* Program (counter stopped while it is written), read, and preload so it
 * overflows after k more events (1 <= k < 2^31). */
void counter_program(struct counter c, uint64_t cfg, uint64_t value);
uint64_t counter_read(struct counter c);
void counter_preload(struct counter c, uint64_t k);
/* After counter_preload(c, k) and a run: did the counter pass its overflow
 * (its value is now below the preloaded 2^width - k)? */
bool counter_wrapped_from_preload(struct counter c, uint64_t k);
/* The configuration that counts in every ring: GP, `ev` with USR | OS (no
 * EN); fixed, USR | OS. */
uint64_t counter_cfg_all_rings(struct counter c, enum arch_event ev);
/* pmu_count_gp() for either kind of counter; the second preloaded so that it
 * overflows after k events (counter_preload()) before the run starts. */
uint64_t counter_count(struct counter c, uint64_t cfg, uint64_t iters);
uint64_t counter_count_preloaded(struct counter c, uint64_t cfg, uint64_t k, uint64_t iters);

/* The value RDPMC returns, EDX[31:0]:EAX[31:0], from the RAX and RDX that
 * rdpmc_safe() filled. Always inlined: ring-3 code (__user_code) uses it and
 * cannot call into kernel text. */
static inline __attribute__((always_inline)) uint64_t rdpmc_edx_eax(uint64_t rax, uint64_t rdx)
{
	return ((rdx & 0xFFFFFFFFULL) << 32) | (rax & 0xFFFFFFFFULL);
}

/* RDPMC with ECX = ecx as EDX[31:0]:EAX[31:0]; *vec is the vector it raised
 * (0 = none). Tests that check the upper halves of RAX/RDX use
 * rdpmc_safe() and rdpmc_edx_eax(). */
uint64_t rdpmc_value(uint64_t ecx, int *vec);

/* ---- Clean state -------------------------------------------------------- */

/*
 * Every counter disabled and zero, every overflow bit cleared, freeze on PMI
 * off (and IA32_DEBUGCTL.FREEZE_WHILE_SMM on where enumerated, so SMIs do not
 * disturb exact counts),
 * the LVT PMI entry masked at PMI_VECTOR and the PMI handler removed. Safe on
 * any PMU (uses the fault-returning probes). The runner calls it after every
 * test.
 */
void pmu_reset_all(void);

/*
 * IA32_PERF_GLOBAL_CTRL as it was before this kernel first wrote it: read by
 * the first pmu_reset_all() (the runner calls it after the first test, and
 * the cpuid suite, which runs first, never writes it) or, before that, now.
 * false when it cannot be read (no version 2 PMU).
 */
bool pmu_global_ctrl_at_boot(uint64_t *val);

/* ---- Programming -------------------------------------------------------- */

/* GP counter i: write EVTSEL (as given) and the counter value. The value is
 * written through IA32_A_PMCx when full-width writes are enumerated, else
 * through IA32_PMCx (which keeps EAX[31:0] sign-extended). */
void pmu_gp_program(unsigned i, uint64_t evtsel, uint64_t value);
void pmu_gp_write(unsigned i, uint64_t value);
uint64_t pmu_gp_read(unsigned i);
/* Write the GP counter so that it overflows after `k` more events
 * (1 <= k < 2^31): IA32_PMCx <- -k, which sign-extends to 2^width - k. */
void pmu_gp_preload(unsigned i, uint64_t k);

/* Fixed counter i: set its 4-bit IA32_FIXED_CTR_CTRL field (others kept) and
 * write the counter. */
void pmu_fixed_program(unsigned i, uint64_t field, uint64_t value);
uint64_t pmu_fixed_read(unsigned i);
void pmu_fixed_preload(unsigned i, uint64_t k);

/* IA32_PERF_GLOBAL_CTRL (v2+). */
void pmu_global_enable(uint64_t bits);
void pmu_global_disable(void);

/* ---- Counting the workload ---------------------------------------------- */

/*
 * A gate: the WRMSR that starts counting and the one that stops it, issued
 * immediately around the workload loop by arch_workload_gated().
 */
struct pmu_gate {
	uint32_t msr;
	uint64_t on, off;
};
/* v2+: IA32_PERF_GLOBAL_CTRL <- bits, then 0. */
struct pmu_gate pmu_gate_global(uint64_t bits);
/* v1 (or a single counter): IA32_PERFEVTSELi <- evtsel | EN, then without EN. */
struct pmu_gate pmu_gate_evtsel(unsigned i, uint64_t evtsel);
void pmu_run_gated(struct pmu_gate g, uint64_t iters);
/* The same with interrupts enabled around the loop (PMI tests). */
void pmu_run_gated_irq(struct pmu_gate g, uint64_t iters);

/*
 * Count `iters` workload iterations on one counter: program it from zero,
 * gate it alone (GLOBAL_CTRL on v2+, EN on v1), return the count. `evtsel`
 * must not contain EN (it is added). The counter is left disabled.
 */
uint64_t pmu_count_gp(unsigned i, uint64_t evtsel, uint64_t iters);
/* Counting windows an SMI hit (MSR_SMI_COUNT changed across the gated part
 * itself) and that were measured once more, since boot. */
unsigned pmu_smi_windows(void);
/* The windows an SMI struck while IA32_DEBUGCTL.FREEZE_WHILE_SMM was set
 * since the last call, and those whose re-measure differed (the first of
 * them: its counter and both counts). Cleared by the call. */
struct pmu_smi_frozen {
	unsigned windows, differ;
	struct counter c;
	uint64_t first, again;
};
void pmu_smi_frozen_take(struct pmu_smi_frozen *out);
/* The evidence of every re-measure since the last call (cleared by it): how
 * many windows were measured again, and the first PMU_SMI_SHOWN of them
 * with the counter, the first window's value, the re-measure's (which
 * stands), MSR_SMI_COUNT before and after the first window, and whether
 * IA32_DEBUGCTL.FREEZE_WHILE_SMM was set. */
#define PMU_SMI_SHOWN 4
struct pmu_smi_window {
	struct counter c;
	uint64_t first, again;
	uint64_t smi_before, smi_after;
	bool frozen;
};
struct pmu_smi_log {
	unsigned windows, n;
	struct pmu_smi_window w[PMU_SMI_SHOWN];
};
void pmu_smi_log_take(struct pmu_smi_log *out);

/*
 * The same with the workload run at `cpl` (0..3) through arch_call_at_cpl:
 * the counter is enabled at CPL 0 before the ring transition and disabled
 * after it, so the transition adds a constant overhead. Returns the vector of
 * an exception the call raised (0 when none).
 */
int pmu_count_gp_at_cpl(unsigned i, uint64_t evtsel, uint64_t iters, int cpl, uint64_t *count);
int pmu_count_fixed_at_cpl(unsigned i, uint64_t field, uint64_t iters, int cpl, uint64_t *count);

/* __user_code entry that runs arch_workload(iters) at any CPL. */
uint64_t pmu_user_workload(uint64_t iters);

/*
 * Count whatever fn(arg) does on GP counter i: program it from zero
 * (`evtsel` without EN), enable it alone (GLOBAL_CTRL on v2+, EN on v1), call
 * fn, disable it, return the count. The enabling and disabling WRMSRs and the
 * call add a small constant, so use it for bounded events, not exact ones.
 */
uint64_t pmu_count_gp_call(unsigned i, uint64_t evtsel, void (*fn)(void *), void *arg);

/*
 * The buffer of arch_workload_llc_miss(): PMU_LLC_LINES lines, each at the
 * start of its own 4 KiB page (WORKLOAD_LLC_STRIDE), in kernel memory: CPL 0
 * only. 128 KiB of zeros in the image, the price of a lower bound on the LLC
 * events.
 */
#define PMU_LLC_LINES 32
const void *pmu_llc_buffer(void);

/* ---- PMI bookkeeping ------------------------------------------------------ */

struct pmi_log {
	volatile unsigned count; /* deliveries since pmu_pmi_install() */
	/* Taken at the first delivery: */
	uint64_t status;      /* IA32_PERF_GLOBAL_STATUS (v2+) */
	uint64_t global_ctrl; /* IA32_PERF_GLOBAL_CTRL (v2+) */
	uint32_t lvt;	      /* LVT performance-counter entry */
	uint64_t tsc;	      /* TSC at handler entry */
	uint64_t watched;     /* value of watch_msr (0 when none) */
	/* Configuration: */
	uint32_t watch_msr; /* a counter MSR to read at entry (skid) */
	bool send_eoi;	    /* the handler sends EOI */
};
extern struct pmi_log g_pmi;

/* Reset the log, install the handler, program the LVT entry to PMI_VECTOR,
 * fixed delivery, unmasked (or masked). */
void pmu_pmi_install(bool send_eoi, uint32_t watch_msr, bool masked);
/*
 * Delivery mode NMI (what Linux perf programs): reset both logs, install the
 * PMI handler (g_pmi: whatever still arrives at PMI_VECTOR) and the NMI
 * handler (g_pmi_nmi, same fields; no EOI, an NMI needs none), and program
 * the LVT entry to delivery mode NMI, unmasked, with PMI_VECTOR in its vector
 * field (ignored in NMI mode, SDM Vol. 3A 10.5.1; an APIC that delivers it as
 * a fixed interrupt anyway lands in the PMI handler, not in a stray vector).
 */
extern struct pmi_log g_pmi_nmi;
void pmu_pmi_install_nmi(void);
/* Mask the LVT entry (fixed delivery again) and remove both handlers. */
void pmu_pmi_uninstall(void);

#endif

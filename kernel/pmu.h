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
#include "msr.h"

/* Encoding of an architectural event, SDM Vol. 3B Table 20-1. */
struct pmu_arch_event {
	uint8_t event;
	uint8_t umask;
	const char *name;
};
extern const struct pmu_arch_event pmu_arch_events[ARCH_EVENT_COUNT];

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

/* ---- What the record says ----------------------------------------------- */
bool pmu_has_global(void);	    /* version >= 2 */
unsigned pmu_num_gp(void);	    /* CPUID.0AH:EAX[15:8] */
bool pmu_gp_present(unsigned i);    /* counter i usable (leaf 23H aware) */
bool pmu_fixed_present(unsigned i); /* fixed counter i supported */
unsigned pmu_fixed_limit(void);
/* Index of the n-th present GP counter (0-based n), -1 when there is none:
 * leaf 23H may leave holes, so counter 0 or 1 is not always there. */
int pmu_gp_nth(unsigned n);    /* 1 + highest supported fixed index */
uint64_t pmu_gp_mask(void);    /* width mask of GP counters */
uint64_t pmu_fixed_mask(void); /* width mask of fixed counters */
/* IA32_PERF_GLOBAL_CTRL bits of every present counter (v2+). */
uint64_t pmu_global_counter_bits(void);

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
uint64_t pmu_count_fixed(unsigned i, uint64_t field, uint64_t iters);

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

/* SPDX-License-Identifier: MIT */
/*
 * Counting preconditions: what each counter was shown to do, per CPU,
 * established once and pointed at by every later check that needs it.
 *
 * The suite `counters` (suites/counters.c) runs on each CPU right after the
 * capability report: for every counter (Intel GP and fixed, P6-family
 * PerfCtr0/1, AMD PerfCtr through the addresses the amd suite uses) it writes a value and reads it
 * back, then counts an event the workload retires in one window, and hands
 * the evidence to precondition_establish(). Those checks are the finding,
 * with the writes, the reads and the window in their failure blocks.
 *
 * A later check that needs a counter to count (or to hold a value) asks
 * t_counter_counts() / t_amd_counter_counts() (or *_holds()) first: true
 * lets it run every window it has today; false means the counter was shown
 * not to, and the test has one failed check naming that finding (printed
 * once per test, CPU and counter: "FAIL: PerfCtr1 needed counting;
 * counters.hold_and_count found it counts nothing"). A check about another
 * CPU's counter (a step handed to it) asks that CPU's finding with
 * t_cpu_counter_counts() / t_cpu_counter_holds(); its line names the CPU
 * ("FAIL: IA32_PMC0 of cpu 1 needed counting; ..."). The CPUs run the
 * suites in turn, so another CPU's finding is known only once that CPU ran
 * the establishing test: before, it answers true like any counter not
 * established (a dead boot CPU is met by the others: the simulator's quirk
 * cpu0-counters-dead). Such a failure is a
 * known deviation only where a known row excused the finding itself. A
 * counter the suite did not establish (not selected, no event to count it
 * with, a CPU past PRECONDITION_MAX_CPUS) answers true: its checks run and
 * judge for themselves, as before.
 */
#ifndef PMUTEST_PRECONDITION_H
#define PMUTEST_PRECONDITION_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu.h"

struct t;

/* The counters a finding is about. */
enum precondition_kind {
	PRE_GP,	   /* IA32_PMCx (P6 family: PerfCtr0/1, at the same addresses) */
	PRE_FIXED, /* IA32_FIXED_CTRx */
	PRE_AMD,   /* AMD PerfCtrn (legacy C001_0004H + n or extended C001_0201H + 2n) */
	PRE_KINDS
};

/* The full name of the test that establishes the findings. */
#define PRECONDITION_TEST "counters.hold_and_count"

/* CPUs whose findings are kept: the CPUs of a machine the suite is run on
 * numbers < this (arch_cpu_current()); a finding for a CPU beyond it is not
 * kept, and that CPU's checks judge for themselves. */
#define PRECONDITION_MAX_CPUS 256

/* What the establishing test saw on one counter. */
struct precondition_evidence {
	const char *name;	 /* "IA32_PMC1", "PerfCtr2 (C001_0005H)" */
	uint32_t msr;		 /* the counter's address */
	uint64_t wrote, read;	 /* the value written and the one read back */
	int write_vec, read_vec; /* their probes' vectors (0: none) */
	bool window;		 /* a counting window ran (an event to count with) */
	const char *event;	 /* its event, "C0H retired instructions" */
	uint64_t cfg;		 /* the configuration counted with (EVTSEL or field) */
	uint64_t iters;		 /* workload iterations of the window */
	uint64_t count;		 /* what the counter read after the window */
};

/* The checks of one counter (a failure is the finding, with its evidence)
 * and the finding recorded for this CPU. `rule_hold` judges the read-back,
 * `rule_count` the window. */
void precondition_establish(struct t *t, enum precondition_kind k, unsigned idx,
			    const struct precondition_evidence *e, const char *rule_hold,
			    const char *rule_count);

/* Forget every finding (a new run: the simulator runs several in one
 * process). */
void precondition_reset(void);

/* Does the counter count (t_*_counts) / hold a written value (t_*_holds) on
 * the CPU running the test, as far as the findings know? false: the test
 * has failed a check naming the finding; skip the windows on it. */
bool t_precondition(struct t *t, enum precondition_kind k, unsigned idx, bool need_count);
/* The same for the counter of CPU `cpu` (this one or another). */
bool t_precondition_on(struct t *t, unsigned cpu, enum precondition_kind k, unsigned idx,
		       bool need_count);
static inline bool t_counter_counts(struct t *t, struct counter c)
{
	return t_precondition(t, c.kind == COUNTER_GP ? PRE_GP : PRE_FIXED, c.idx, true);
}
static inline bool t_counter_holds(struct t *t, struct counter c)
{
	return t_precondition(t, c.kind == COUNTER_GP ? PRE_GP : PRE_FIXED, c.idx, false);
}
static inline bool t_cpu_counter_counts(struct t *t, unsigned cpu, struct counter c)
{
	return t_precondition_on(t, cpu, c.kind == COUNTER_GP ? PRE_GP : PRE_FIXED, c.idx, true);
}
static inline bool t_cpu_counter_holds(struct t *t, unsigned cpu, struct counter c)
{
	return t_precondition_on(t, cpu, c.kind == COUNTER_GP ? PRE_GP : PRE_FIXED, c.idx, false);
}
static inline bool t_amd_counter_counts(struct t *t, unsigned i)
{
	return t_precondition(t, PRE_AMD, i, true);
}
static inline bool t_amd_counter_holds(struct t *t, unsigned i)
{
	return t_precondition(t, PRE_AMD, i, false);
}

#endif

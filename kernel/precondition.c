/* SPDX-License-Identifier: MIT */
/*
 * Counting preconditions (precondition.h): the findings of
 * counters.hold_and_count, per CPU and counter, and the one failed check a
 * later test gets for needing a counter shown not to count.
 */
#include "precondition.h"

#include "arch.h"
#include "bits.h"
#include "kstring.h"
#include "ktap.h"
#include "runner_internal.h"
#include "test.h"

/* A finding's bits: what was established, and what it showed. */
enum {
	FOUND_HOLD = 1u << 0,  /* the read-back was checked */
	HOLDS = 1u << 1,       /* ... and returned the value written */
	FOUND_COUNT = 1u << 2, /* a window was counted */
	COUNTS = 1u << 3,      /* ... and the counter moved */
	/* A known row excused the failed read-back / the window that counted
	 * nothing: excused[][] names it. */
	HOLD_EXCUSED = 1u << 4,
	COUNT_EXCUSED = 1u << 5,
};

/* Per CPU and counter, the bits above: 24 KiB for 256 CPUs. */
static uint8_t findings[PRECONDITION_MAX_CPUS][PRE_KINDS][PMU_COUNTER_MAX];
/* Per CPU and kind, the known row that excused a finding's failed check
 * (the first, where rows differ): a dependent check's failure is excused by
 * it too, and only where its own finding was (HOLD_EXCUSED, COUNT_EXCUSED). */
static const struct known_deviation *excused[PRECONDITION_MAX_CPUS][PRE_KINDS];

_Static_assert(PRE_KINDS == ARRAY_SIZE(((struct t *)0)->findings_said[0].counters),
	       "a word of findings named per counter kind");
_Static_assert(PMU_COUNTER_MAX <= 8 * sizeof(((struct t *)0)->findings_said[0].counters[0]),
	       "a bit per counter");

static bool in_range(unsigned cpu, enum precondition_kind k, unsigned idx)
{
	return cpu < PRECONDITION_MAX_CPUS && (unsigned)k < PRE_KINDS && idx < PMU_COUNTER_MAX;
}

void precondition_reset(void)
{
	kmemset(findings, 0, sizeof(findings));
	kmemset(excused, 0, sizeof(excused));
}

/* The row that excused the check just made, if it failed and one did. */
static const struct known_deviation *excused_since(const struct t *t, unsigned known_before)
{
	return t->known_failures > known_before ? t->known_last : NULL;
}

void precondition_establish(struct t *t, enum precondition_kind k, unsigned idx,
			    const struct precondition_evidence *e, const char *rule_hold,
			    const char *rule_count)
{
	unsigned cpu = arch_cpu_current();
	uint8_t found = FOUND_HOLD;
	const struct known_deviation *row, *count_row = NULL;
	unsigned known = t->known_failures;
	bool holds;

	if (e->write_vec) {
		holds = expect_no_fault(t, e->write_vec, rule_hold, "WRMSR %s <- %#llx", e->name,
					(unsigned long long)e->wrote);
	} else if (e->read_vec) {
		holds = expect_no_fault(t, e->read_vec, rule_hold, "RDMSR %s after writing %#llx",
					e->name, (unsigned long long)e->wrote);
	} else {
		holds = expect_eq(t, e->read, e->wrote, rule_hold,
				  "%s holds a written value: WRMSR %#x <- %#llx, RDMSR %#x",
				  e->name, e->msr, (unsigned long long)e->wrote, e->msr);
	}
	if (holds)
		found |= HOLDS;
	row = excused_since(t, known);
	if (e->window) {
		known = t->known_failures;
		found |= FOUND_COUNT;
		if (expect_ne(t, e->count, 0, rule_count,
			      "%s counts: from 0, %s (configuration %#llx), one window of %llu "
			      "workload iterations",
			      e->name, e->event, (unsigned long long)e->cfg,
			      (unsigned long long)e->iters))
			found |= COUNTS;
		else
			count_row = excused_since(t, known);
	}
	if (!in_range(cpu, k, idx))
		return;
	found |= (row ? HOLD_EXCUSED : 0) | (count_row ? COUNT_EXCUSED : 0);
	findings[cpu][k][idx] = found;
	if (!excused[cpu][k])
		excused[cpu][k] = row ? row : count_row;
}

/* A check site of the dependent failures: one per need, whatever the test
 * (kernel/check.c counts distinct sites by their address). */
static const char need_count_site[] = "needed counting";
static const char need_value_site[] = "needed holding a value";

static void counter_name(char *buf, size_t n, enum precondition_kind k, unsigned idx)
{
	if (k == PRE_AMD)
		ksnprintf(buf, n, "PerfCtr%u", idx);
	else
		ksnprintf(buf, n, COUNTER_FMT,
			  COUNTER_ARG(k == PRE_GP ? GP_COUNTER(idx) : FIXED_COUNTER(idx)));
}

/* The counters of kind k on cpu whose finding this test named already;
 * NULL past T_MAX_SAID_CPUS CPUs (their findings are named again). */
static uint32_t *said(struct t *t, unsigned cpu, enum precondition_kind k)
{
	for (unsigned i = 0; i < t->n_findings_said; i++)
		if (t->findings_said[i].cpu == cpu)
			return &t->findings_said[i].counters[k];
	if (t->n_findings_said == T_MAX_SAID_CPUS)
		return NULL;
	t->findings_said[t->n_findings_said].cpu = cpu;
	return &t->findings_said[t->n_findings_said++].counters[k];
}

bool t_precondition(struct t *t, enum precondition_kind k, unsigned idx, bool need_count)
{
	return t_precondition_on(t, arch_cpu_current(), k, idx, need_count);
}

bool t_precondition_on(struct t *t, unsigned cpu, enum precondition_kind k, unsigned idx,
		       bool need_count)
{
	if (!in_range(cpu, k, idx))
		return true;
	uint8_t f = findings[cpu][k][idx];
	if (need_count ? !(f & FOUND_COUNT) || (f & COUNTS) : !(f & FOUND_HOLD) || (f & HOLDS))
		return true;
	const struct known_deviation *row =
	    f & (need_count ? COUNT_EXCUSED : HOLD_EXCUSED) ? excused[cpu][k] : NULL;
	t_count_check(t, need_count ? need_count_site : need_value_site);
	t->failures++;
	if (row) {
		t->known_failures++;
		t->known_last = row;
	}
	uint32_t bit = (uint32_t)BIT_ULL(idx), *named = said(t, cpu, k);
	if (named && (*named & bit))
		return false; /* named once per test, CPU and counter */
	if (named)
		*named |= bit;
	char name[48];
	counter_name(name, sizeof(name), k, idx);
	if (cpu != arch_cpu_current()) {
		size_t n = kstrlen(name);
		ksnprintf(name + n, sizeof(name) - n, " of cpu %u", cpu);
	}
	ktap_diag(t->w, "FAIL: %s %s; " PRECONDITION_TEST " found it %s", name,
		  need_count ? need_count_site : need_value_site,
		  need_count ? "counts nothing" : "holds no written value");
	if (row) /* as kernel/check.c names a row */
		ktap_diag(t->w, "  known:    %s (%s): %s", row->id, row->what, row->source);
	return false;
}

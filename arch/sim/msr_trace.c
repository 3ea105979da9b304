/* SPDX-License-Identifier: MIT */
/*
 * MSR write trace (issue 16, safety on a real machine): with the environment
 * variable PMUSIM_MSR_TRACE=FILE, every WRMSR the suite attempts is appended
 * to FILE as
 *     write SUITE ADDRESS VECTOR        (VECTOR 0: the write was accepted)
 * and, at the start of each test, every MSR an earlier write changed that
 * does not hold its value from before the first write any more as
 *     dirty SUITE-OF-THE-NEXT-TEST ADDRESS VALUE BOOT-VALUE
 * SUITE is "harness" outside a test. scripts/check-msrs.py compares the
 * writes with docs/msrs.md and refuses any dirty line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runner.h"
#include "sim.h"

#define TRACE_MAX_MSRS 1024

static FILE *trace;
static bool trace_checked;
static struct {
	uint32_t msr;
	uint64_t boot;
} seen[TRACE_MAX_MSRS];
static unsigned n_seen;
static bool in_trace; /* the trace's own reads are not the suite's */

static bool tracing(void)
{
	if (!trace_checked) {
		const char *path = getenv("PMUSIM_MSR_TRACE");
		trace_checked = true;
		if (path && *path)
			trace = fopen(path, "a");
		/* Whole lines only: pmusim ends with _exit, which drops a buffer. */
		if (trace)
			setvbuf(trace, NULL, _IOLBF, 0);
	}
	return trace != NULL && !in_trace;
}

static const char *suite_now(void)
{
	const char *s = runner_current_suite();
	return s ? s : "harness";
}

/* Before a write: remember the MSR's value from before any write. */
void sim_msr_trace_before_write(uint32_t msr)
{
	uint64_t v;

	if (!tracing())
		return;
	for (unsigned i = 0; i < n_seen; i++)
		if (seen[i].msr == msr)
			return;
	in_trace = true;
	int vec = sim_rdmsr(msr, &v);
	in_trace = false;
	if (vec == 0 && n_seen < TRACE_MAX_MSRS) {
		seen[n_seen].msr = msr;
		seen[n_seen].boot = v;
		n_seen++;
	}
}

void sim_msr_trace_write(uint32_t msr, int vector)
{
	if (tracing())
		fprintf(trace, "write %s %#x %d\n", suite_now(), msr, vector);
}

/* At the start of a test: what earlier tests (or the harness) left behind. */
void sim_msr_trace_test_start(void)
{
	if (!tracing())
		return;
	in_trace = true;
	for (unsigned i = 0; i < n_seen; i++) {
		uint64_t v;
		if (sim_rdmsr(seen[i].msr, &v) == 0 && v != seen[i].boot)
			fprintf(trace, "dirty %s %#x %#llx %#llx\n", suite_now(), seen[i].msr,
				(unsigned long long)v, (unsigned long long)seen[i].boot);
	}
	in_trace = false;
	fflush(trace);
}

/* SPDX-License-Identifier: MIT */
/*
 * MSR write trace (safety on a real machine): with the environment
 * variable PMUSIM_MSR_TRACE=FILE, every WRMSR the suite attempts is appended
 * to FILE as
 *     write SUITE ADDRESS VECTOR        (VECTOR 0: the write was accepted)
 * and, at the start of each test, every MSR an earlier write changed that
 * does not hold its value from before the first write any more as
 *     dirty SUITE-OF-THE-NEXT-TEST ADDRESS VALUE BOOT-VALUE
 * and, at the end of each test (after the undo below), every MSR the test
 * changed by a write that does not hold its value from the test's start as
 *     leftover SUITE ADDRESS VALUE VALUE-AT-START
 * SUITE is "harness" outside a test. testing/check-msrs.py compares the
 * writes with docs/msrs.md, prints the dirty lines (the harness's own reset
 * state) and refuses any leftover line.
 *
 * The undo itself, as on the machine (arch/x86_64/state.c): every MSR a test
 * writes at CPL 0 gets back, after the test, the value it had before the
 * test's first write to it (reverse order), x2APIC registers excepted.
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
static bool tracing(void);
static const char *suite_now(void);

#define UNDO_MAX 512
/* One log per CPU (smp.c): a test's writes are undone on the CPU that made
 * them; a step it hands to another CPU logs nothing there. */
static struct undo_log {
	struct {
		uint32_t msr;
		uint64_t value;
		bool wrote; /* a write of the test's was accepted (not only #GP probes) */
	} e[UNDO_MAX];
	unsigned n;
	bool active;
} undo_logs[SIM_MAX_CPUS];
#define undo	    (undo_logs[g_sim.index].e)
#define n_undo	    (undo_logs[g_sim.index].n)
#define undo_active (undo_logs[g_sim.index].active)
static uint64_t at_start[TRACE_MAX_MSRS];
static unsigned n_at_start; /* seen[] entries snapshot at the test's start */

static void undo_note(uint32_t msr)
{
	uint64_t v;

	if (!undo_active || g_sim.cpl != 0 || (msr >= 0x800 && msr <= 0x8ff) || n_undo == UNDO_MAX)
		return;
	for (unsigned i = 0; i < n_undo; i++)
		if (undo[i].msr == msr)
			return;
	undo_active = false;
	if (sim_rdmsr(msr, &v) == 0) {
		undo[n_undo].msr = msr;
		undo[n_undo].value = v;
		undo[n_undo].wrote = false;
		n_undo++;
	}
	undo_active = true;
}

void arch_msr_keep(void)
{
	n_undo = 0;
}

void sim_msr_undo_begin(void)
{
	n_undo = 0;
	undo_active = true;
}

void sim_msr_undo_end(void)
{
	uint64_t v;

	undo_active = false;
	in_trace = true; /* the undo's writes are the harness's, not traced */
	for (unsigned i = n_undo; i-- > 0;)
		if (sim_rdmsr(undo[i].msr, &v) != 0 || v != undo[i].value)
			sim_wrmsr(undo[i].msr, undo[i].value);
	in_trace = false;
	/* Every MSR the test changed by a write holds its value from the test's
	 * start again (aliases such as IA32_A_PMCx included; MSRs only the
	 * hardware changed, like the status registers, are not the undo's). */
	if (tracing()) {
		in_trace = true;
		for (unsigned u = 0; u < n_undo; u++) {
			for (unsigned i = 0; i < n_at_start && undo[u].wrote; i++) {
				if (seen[i].msr == undo[u].msr && sim_rdmsr(seen[i].msr, &v) == 0 &&
				    v != at_start[i])
					fprintf(trace, "leftover %s %#x %#llx %#llx\n", suite_now(),
						seen[i].msr, (unsigned long long)v,
						(unsigned long long)at_start[i]);
			}
		}
		in_trace = false;
	}
	n_undo = 0;
}

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

	if (in_trace)
		return;
	undo_note(msr);
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
	if (in_trace)
		return;
	for (unsigned i = 0; i < n_undo && vector == 0; i++)
		if (undo[i].msr == msr)
			undo[i].wrote = true;
	if (tracing())
		fprintf(trace, "write %s %#x %d\n", suite_now(), msr, vector);
}

/* At the start of a test: what earlier tests (or the harness) left behind. */
void sim_msr_trace_test_start(void)
{
	if (!tracing())
		return;
	in_trace = true;
	n_at_start = n_seen;
	for (unsigned i = 0; i < n_seen; i++) {
		uint64_t v;
		at_start[i] = 0;
		if (sim_rdmsr(seen[i].msr, &v) != 0)
			continue;
		at_start[i] = v;
		if (v != seen[i].boot)
			fprintf(trace, "dirty %s %#x %#llx %#llx\n", suite_now(), seen[i].msr,
				(unsigned long long)v, (unsigned long long)seen[i].boot);
	}
	in_trace = false;
	fflush(trace);
}

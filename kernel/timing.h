/* SPDX-License-Identifier: MIT */
/*
 * Where a run's time goes: TSC cycles summed per phase and one
 * `# time:` line at the end. Only where the TSC rate is known (a real or
 * virtual machine): the simulator's TSC moves with every RDTSC, so reading
 * it there would change what the suites see; timing_on() is false there
 * and nothing is read or printed.
 */
#ifndef PMUTEST_TIMING_H
#define PMUTEST_TIMING_H

#include <stdbool.h>
#include <stdint.h>

enum timing_phase {
	TIME_SKIP,   /* a test skipped for a requirement: its line */
	TIME_BODY,   /* the test's own code (inside the guard) */
	TIME_GUARD,  /* the guarded run, body included (reported without it) */
	TIME_RESET,  /* the PMU reset after the test */
	TIME_RESULT, /* the rest: events, verdict, diagnostics, result line */
	TIME_OUTPUT, /* every byte written to the console (inside the others) */
	TIME_PHASES
};

bool timing_on(void);
/* The TSC now, or 0 when timing is off. */
uint64_t timing_now(void);
/* Adds now - since to the phase (nothing when timing is off or since is 0). */
void timing_add(enum timing_phase p, uint64_t since);
/* Counts one test of a phase (TIME_SKIP, TIME_BODY). */
void timing_count(enum timing_phase p);
/* The `# time:` line: boot (entry to kernel_main), to the first test, and
 * each phase. tsc_at_entry 0: the boot part is left out. */
void timing_report(uint64_t tsc_at_entry, uint64_t main_start, uint64_t first_test);

#endif

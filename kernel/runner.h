/* SPDX-License-Identifier: MIT */
/* The runner: selects the registered tests, runs each guarded, reports KTAP. */
#ifndef PMUTEST_RUNNER_H
#define PMUTEST_RUNNER_H

#include "options.h"
#include "test.h"

struct run_totals {
	unsigned pass, fail, skip, timeout, error;
	unsigned xfail;	   /* tests whose failures are all known deviations */
	unsigned inferred; /* inferred rules not followed (diagnostics unless strict) */
	unsigned long long checks, distinct_checks;
};

/* Runs every selected test on each of the n_cpus CPUs in cpus (with that
 * CPU's record); returns the totals (the KTAP is on the console). */
void runner_run(const struct options *o, const unsigned *cpus, unsigned n_cpus,
		struct run_totals *tot);

/* Number of suites the options select (the top-level KTAP plan). */
unsigned runner_count_suites(const struct options *o);

/* Every name in the options' suites, tests and exclude lists that names no
 * registered suite or test is an error, passed to err() with the names that
 * exist; returns the number of such names. (A typo must not select nothing
 * and pass.) */
/* The suite of the test under way, NULL between tests (the simulator's MSR
 * trace names the suite that wrote). */
const char *runner_current_suite(void);

unsigned runner_check_names(const struct options *o, options_error_fn err, void *ctx);

#endif

/* SPDX-License-Identifier: MIT */
/* The runner: selects the registered tests, runs each guarded, reports KTAP. */
#ifndef PMUTEST_RUNNER_H
#define PMUTEST_RUNNER_H

#include <stddef.h>

#include "ktap.h"
#include "options.h"
#include "test.h"

struct run_totals {
	/* Tests by result: by_result[r] is the named count of result r. */
	union {
		unsigned by_result[KTAP_RESULTS];
		struct {
			unsigned pass, fail, skip, timeout, error;
			unsigned xfail; /* tests whose failures are all known deviations */
			/* tests that passed but for checks of inferred rules */
			unsigned inferred_tests;
		};
	};
	unsigned inferred; /* checks of inferred rules that failed (failures with strict) */
	unsigned long long checks, distinct_checks;
};

#define RUN_TOTALS_AT(member, r) (offsetof(struct run_totals, member) == (r) * sizeof(unsigned))
_Static_assert(RUN_TOTALS_AT(pass, KTAP_PASS) && RUN_TOTALS_AT(fail, KTAP_FAIL) &&
		   RUN_TOTALS_AT(skip, KTAP_SKIP) && RUN_TOTALS_AT(timeout, KTAP_TIMEOUT) &&
		   RUN_TOTALS_AT(error, KTAP_ERROR) && RUN_TOTALS_AT(xfail, KTAP_XFAIL) &&
		   RUN_TOTALS_AT(inferred_tests, KTAP_INFERRED),
	       "each named count of struct run_totals is by_result[] of its result");

/* Tests that failed: a FAIL, a watchdog timeout or an exception (an XFAIL
 * is not one). */
static inline unsigned run_totals_failed(const struct run_totals *t)
{
	return t->fail + t->timeout + t->error;
}

/* Tests that ran to a verdict of their checks: passed, failed, or passed but
 * for an inferred rule (an XFAIL alone is no evidence of conformance). */
static inline unsigned run_totals_executed(const struct run_totals *t)
{
	return t->pass + t->inferred_tests + run_totals_failed(t);
}

/* Runs every selected test on each of the n_cpus CPUs in cpus (with that
 * CPU's record); returns the totals (the KTAP is on the console). */
void runner_run(const struct options *o, const unsigned *cpus, unsigned n_cpus,
		struct run_totals *tot);

/* Number of suites the options select (the top-level KTAP plan). */
unsigned runner_count_suites(const struct options *o);

/* "N stray NMI (no watchdog's, no handler's), N unexpected interrupt (the
 * last vector), N machine check (the bank)" for the report. */
void platform_events_text(const struct arch_platform_events *e, char *buf, size_t size);

/* Every name in the options' suites, tests and exclude lists that names no
 * registered suite or test is an error, passed to err() with the names that
 * exist; returns the number of such names. (A typo must not select nothing
 * and pass.) */
/* The suite of the test under way, NULL between tests (the simulator's MSR
 * trace names the suite that wrote). */
const char *runner_current_suite(void);
/* The test under way (NULL between tests): its descriptor, the same one for
 * a test's every run, so that a run can be told from its retry. */
const struct test_desc *runner_current_test(void);

unsigned runner_check_names(const struct options *o, options_error_fn err, void *ctx);

#endif

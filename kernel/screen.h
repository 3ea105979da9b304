/* SPDX-License-Identifier: MIT */
/*
 * The screen a person reads at the machine: while the suites run, a compact
 * progress view (CPU, suite, test, counts so far, the latest failures); at
 * the end, the summary (verdict large and coloured, the machine, per-suite
 * counts, every failure with expected, actual and rule, where the report
 * is), paged by key or cycled. The serial port keeps the full KTAP; this is
 * a view of the same run, fed by the runner and the checks.
 */
#ifndef PMUTEST_SCREEN_H
#define PMUTEST_SCREEN_H

#include "arch.h"
#include "ktap.h"

/* Takes the screen (until now the console log) for the progress view. */
void screen_run_begin(unsigned suites, unsigned tests);
/* The CPU the tests run on from now (0, the boot CPU, until called). */
void screen_set_cpu(unsigned cpu);
void screen_suite_begin(const char *suite, unsigned index);
void screen_test_begin(const char *test);
/* A failed check of the running test (kernel/check.c), or a test that
 * ended in an exception or timeout (kernel/runner.c). */
void screen_failure(const char *what, const char *expected, const char *actual, const char *rule);
/* The running test's result. A known deviation (KTAP_XFAIL: a failure the
 * known-deviations table explains) counts in the "known" column. */
void screen_test_end(enum ktap_result r);

struct screen_summary {
	enum run_status status;
	const char *why;	  /* one line under the verdict (ERROR's reason) */
	const char *firmware;	  /* may be NULL */
	const char *secure_boot;  /* may be NULL */
	const char *boot_message; /* the previous run's report, may be NULL */
	const char *report_name;  /* machine part of the stored file's name */
	const char *report_error; /* why it was not kept, may be NULL */
	enum { SCREEN_REPORT_NOT_KEPT, SCREEN_REPORT_KEPT, SCREEN_REPORT_FAILED } report;
};

/* Draws the summary's first page and publishes the screen's text. */
void screen_summary(const struct screen_summary *s);

/* The running CPU's microcode revision, or why there is none to give
 * (MSR 8BH; screen.c): for the report's header and the summary. */
void describe_microcode(char *buf, size_t size);

#endif

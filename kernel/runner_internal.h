/* SPDX-License-Identifier: MIT */
/* State shared by the runner and the checks (kernel/check.c). */
#ifndef PMUTEST_RUNNER_INTERNAL_H
#define PMUTEST_RUNNER_INTERNAL_H

#include "known.h"
#include "ktap.h"
#include "test.h"

#define T_MAX_DISTINCT	 256 /* distinct check sites remembered per test */
#define T_MAX_FAIL_DIAGS 25  /* failure reports printed per test */
#define T_MAX_OFFENDERS	 16  /* offenders of one sweeping check remembered */
#define T_MAX_KNOWN_HITS 16  /* (row, rule, subject) excuses remembered per test */
#define T_MAX_SAID_CPUS	 4   /* CPUs whose findings a test names once each */

/* The lines of a failure block after "FAIL:" (check.c field()). */
enum block_field {
	FIELD_EXPECTED,
	FIELD_ACTUAL,
	FIELD_RULE,
	FIELD_OBSERVED,
	FIELD_HOST,
	FIELD_KNOWN,
	FIELD_INFERRED,
	FIELD_MACHINE,
	FIELDS
};

struct t {
	const struct test_desc *desc;
	struct ktap_writer *w;
	unsigned verbose;
	bool strict;	     /* options: inferred rules are checks */
	bool known;	     /* options: consult the known-deviations table */
	unsigned trace;	     /* options: kernel/trace.h, 0 none */
	uint32_t trace_from; /* options: trace = 2 shows accesses from this one */
	unsigned long long checks;
	unsigned failures;
	unsigned known_failures; /* failures the known-deviations table explains */
	const struct known_deviation *known_last;
	/* Each (row, rule) that excused a failure of this test, for the rows
	 * whose checks must fail together (known_together_met()). */
	struct known_hit {
		const struct known_deviation *row;
		struct known_seen seen; /* the rule and subject it excused */
	} known_hits[T_MAX_KNOWN_HITS];
	unsigned n_known_hits;
	bool known_hits_overflow;     /* more than T_MAX_KNOWN_HITS: no together row met */
	unsigned inferred_deviations; /* inferred rules the machine did not follow */
	bool skipped;
	char skip_reason[192];
	unsigned n_sites;
	const void *sites[T_MAX_DISTINCT];
	bool sites_overflow;
	/* The next check's subject and given outcome (t_subject(),
	 * t_outcome_bits()): cleared by every check. */
	struct check_subject subject;
	struct check_outcome outcome;
	/* The next check's offenders, for a check that sweeps many subjects
	 * (t_offender()): more than T_MAX_OFFENDERS are never excused. */
	struct t_offender {
		struct check_subject subject;
		struct check_outcome outcome;
	} offenders[T_MAX_OFFENDERS];
	unsigned n_offenders;
	uint32_t host_kernel; /* options: HOST_KERNEL(), 0 unknown */
	uint8_t fields_said;  /* check.c: a bit per enum block_field printed */
	/* precondition.c: per CPU asked about (the first T_MAX_SAID_CPUS),
	 * a bit per counter (of each enum precondition_kind) whose finding this
	 * test named already. */
	struct finding_said {
		unsigned cpu;
		uint32_t counters[3];
	} findings_said[T_MAX_SAID_CPUS];
	unsigned n_findings_said;
};

/* Counts a check: a check site is identified by its format string, so the
 * same expect_*() in a loop is one distinct check however often it runs
 * (kernel/check.c; the counting preconditions count their own line too). */
void t_count_check(struct t *t, const void *site);

#endif

/* SPDX-License-Identifier: MIT */
/* State shared by the runner and the checks (kernel/check.c). */
#ifndef PMUTEST_RUNNER_INTERNAL_H
#define PMUTEST_RUNNER_INTERNAL_H

#include "known.h"
#include "ktap.h"
#include "test.h"

#define T_MAX_DISTINCT	 256 /* distinct check sites remembered per test */
#define T_MAX_FAIL_DIAGS 25  /* failure reports printed per test */

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
	unsigned inferred_deviations; /* inferred rules the machine did not follow */
	bool skipped;
	char skip_reason[192];
	unsigned n_sites;
	const void *sites[T_MAX_DISTINCT];
	bool sites_overflow;
};

#endif

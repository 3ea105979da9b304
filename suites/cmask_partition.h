/* SPDX-License-Identifier: MIT */
/*
 * The CMASK partition, one rule on Intel (SDM Vol. 3B 20.2.1.1, CMASK, INV,
 * EDGE) and AMD (APM Vol. 2 13.2.1, CntMask, Inv, Edge): four counters over
 * the same window, the cycles and the instruction event three ways,
 *
 *   CMASK = 1       counts the cycles that retire >= 1 instruction;
 *   INV, CMASK = 1  counts the others: with the first, all the cycles;
 *   EDGE, CMASK = 1 counts the transitions into retiring: at most one per
 *                   cycle of the other state, plus one.
 *
 * The suites (filtering.c, amd.c) program and run the counters their
 * vendor's way and check the counts here; each passes its own rules and
 * its manual's words for the checks.
 */
#ifndef PMUTEST_TESTS_CMASK_PARTITION_H
#define PMUTEST_TESTS_CMASK_PARTITION_H

#include "msr.h"
#include "pmu.h"
#include "test.h"

enum cmask_counter { CMASK_CYCLES, CMASK_ONE, CMASK_INV_ONE, CMASK_EDGE_ONE, CMASK_COUNTERS };

/* The four selects (without EN, or with it if cyc and ins have it). */
static inline void cmask_partition_selects(uint64_t cyc, uint64_t ins, uint64_t sel[CMASK_COUNTERS])
{
	sel[CMASK_CYCLES] = cyc;
	sel[CMASK_ONE] = ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1);
	sel[CMASK_INV_ONE] = ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1);
	sel[CMASK_EDGE_ONE] = ins | PERFEVTSEL_EDGE | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1);
}

/* |a - b| <= a / 64 + 64: two counters that count the same cycles in the
 * same window, allowing for the enable taking effect a few cycles apart. */
static inline bool counts_close(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= a / 64 + 64;
}

/* A vendor's rules and words for the three checks. */
struct cmask_partition_words {
	const char *rule_cmask, *rule_inv, *rule_edge;
	const char *cmask_one; /* the CMASK = 1 check */
	const char *sum;       /* CMASK = 1 plus INV, CMASK = 1 is the cycles */
	const char *cycles;    /* the cycles, in the sum's diagnostic */
	const char *edge_one;  /* the EDGE check, before " count <INV's count>" */
};

/* v[]: the counts of the four selects after PMU_ITERS iterations of the
 * workload; min_cmask_one: the fewest cycles that can retire them all. */
static inline void expect_cmask_partition(struct t *t, const uint64_t v[CMASK_COUNTERS],
					  uint64_t min_cmask_one,
					  const struct cmask_partition_words *w)
{
	expect_range(t, v[CMASK_ONE], min_cmask_one,
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS, w->rule_cmask, "%s",
		     w->cmask_one);
	expect_true(t, counts_close(v[CMASK_CYCLES], v[CMASK_ONE] + v[CMASK_INV_ONE]), w->sum,
		    "differs", w->rule_inv, "%llu + %llu vs %s %llu",
		    (unsigned long long)v[CMASK_ONE], (unsigned long long)v[CMASK_INV_ONE],
		    w->cycles, (unsigned long long)v[CMASK_CYCLES]);
	expect_range(t, v[CMASK_EDGE_ONE], 1, v[CMASK_INV_ONE] + 1, w->rule_edge, "%s count %llu",
		     w->edge_one, (unsigned long long)v[CMASK_INV_ONE]);
}

#endif

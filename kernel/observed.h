/* SPDX-License-Identifier: MIT */
/*
 * What a failed check was about and what it saw: its subject
 * (the MSR, the RDPMC ECX value, the counter, the event) and its observed
 * outcome (the vector, the value's class against the expectation, or the
 * reserved bits accepted). The checks (kernel/check.c) print them with
 * every failure ("#   observed: ..."), and a known-deviation row
 * (kernel/known.c) excuses a failure only when its subject and outcome are
 * the ones the row's source describes: a different deviation of the same
 * rule in the same test stays a plain FAIL.
 *
 * A test names the subject of its next check with t_subject_*() (test.h);
 * the outcome comes from the check itself (expect_vector(): the vector;
 * expect_eq/ne/range(): the value's class), or from t_outcome_bits() for a
 * check that aggregates reserved bits. A failure whose subject or outcome
 * is not given matches no row.
 */
#ifndef PMUTEST_OBSERVED_H
#define PMUTEST_OBSERVED_H

#include <stdint.h>

enum subject_kind {
	SUBJECT_NONE,	   /* not given: matches no row */
	SUBJECT_MSR,	   /* id: the MSR address */
	SUBJECT_RDPMC,	   /* id: the ECX value */
	SUBJECT_GP,	   /* id: the general-purpose counter's index */
	SUBJECT_FIXED,	   /* id: the fixed counter's index */
	SUBJECT_EVENT,	   /* id: the event select code; counter: where it counted */
	SUBJECT_APIC,	   /* id: the local APIC register's offset (340H: LVT PMI) */
	SUBJECT_CPUID,	   /* id: the CPUID leaf */
	SUBJECT_INTERCEPT, /* id: the intercepted instruction (enum arch_intercept) */
	SUBJECT_KIND_COUNT
};

#define SUBJECT_APIC_LVT_PMI 0x340 /* SUBJECT_APIC: the LVT performance-counter entry */

struct check_subject {
	enum subject_kind kind;
	uint64_t id;
	unsigned counter; /* SUBJECT_EVENT: the counter it was programmed on */
};

/* The observed outcome's class: one bit each in a row's `outcomes`. */
enum outcome_class {
	OUTCOME_NONE,	  /* not given: matches no row */
	OUTCOME_NO_FAULT, /* the access completed (no exception) */
	OUTCOME_GP,	  /* #GP(0) */
	OUTCOME_GP_CODE,  /* #GP with a non-zero error code */
	OUTCOME_UD,	  /* #UD */
	OUTCOME_FAULT,	  /* another exception */
	OUTCOME_ZERO,	  /* the value read 0 */
	OUTCOME_BELOW,	  /* a non-zero value below the expected one (or range) */
	OUTCOME_ABOVE,	  /* a value above the expected one (or range) */
	OUTCOME_EQUAL,	  /* expect_ne(): the value it must not be */
	OUTCOME_BITS,	  /* reserved bits accepted: the mask in `bits` */
	/* A count one event per iteration of the test's loop above what was
	 * expected: the loop's one intercepted instruction counted. */
	OUTCOME_PLUS_ONE_PER_ITER,
	OUTCOME_CLASS_COUNT
};

struct check_outcome {
	enum outcome_class cls;
	uint64_t bits; /* OUTCOME_BITS: the bits accepted */
};

#define OUTCOME_BIT(c) (1u << (c))

#endif

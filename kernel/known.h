/* SPDX-License-Identifier: MIT */
/*
 * Known deviations of real processors and hypervisors: the table of
 * failures that are documented (an erratum, or the Linux / KVM code that
 * works around them), built into the kernel and the simulator alike.
 *
 * The check that catches a deviation stays strict. When a failed check of a
 * test matches an entry (same test, same rule, and the machine's vendor,
 * family, model, stepping and hypervisor), the failure is reported with the
 * entry's id and source; a test whose every failure is known is reported
 * "ok N name # XFAIL <id>: <source>" (KTAP v1's directive for an expected
 * failure), and the run's verdict is PASS when only known deviations failed.
 * `known = 0` turns the table off: every failure is a plain one.
 */
#ifndef PMUTEST_KNOWN_H
#define PMUTEST_KNOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "caps.h"

/* Which platforms an entry covers: bare metal only, any, or a hypervisor's
 * CPUID.40000000H signature (e.g. "KVMKVMKVM"). */
#define KNOWN_BARE_METAL ""
#define KNOWN_ANY_HV	 "*"

#define KNOWN_MAX_MODELS 8

struct known_deviation {
	const char *id;	  /* short name, printed with the failure */
	const char *test; /* "suite.test" */
	const char *rule; /* the failing check's rule (a RULE_* of tests/rules.h) */
	enum cpu_vendor vendor;
	unsigned family;		  /* DisplayFamily */
	uint8_t models[KNOWN_MAX_MODELS]; /* DisplayModel, n_models of them */
	unsigned n_models;
	unsigned stepping_min, stepping_max;
	const char *hypervisor; /* KNOWN_BARE_METAL, KNOWN_ANY_HV or a signature */
	const char *what;	/* the deviation, in one line */
	const char *source;	/* erratum ID, or the Linux / KVM function */
};

/* The entry that explains a failed check of suite.test under `rule` on this
 * machine, or NULL. */
const struct known_deviation *known_match(const struct caps *c, const char *suite, const char *test,
					  const char *rule);

/* The table, for reports and the README (known_count() entries). */
unsigned known_count(void);
const struct known_deviation *known_at(unsigned i);

#endif

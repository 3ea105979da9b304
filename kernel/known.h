/* SPDX-License-Identifier: MIT */
/*
 * Known deviations of real processors and hypervisors: the table of
 * failures that are documented (an erratum, Intel's own event description,
 * or the Linux / KVM code that works around them), built into the kernel and
 * the simulator alike.
 *
 * The check that catches a deviation stays strict. When a failed check of a
 * test matches an entry (one of the entry's checks: same test, same rule,
 * a subject in the check's range and an observed outcome of the classes
 * (and, for reserved bits, within the bits) the source describes
 * (kernel/observed.h); and the CPU the test ran on: vendor, family, model
 * and stepping range, hybrid core type from CPUID.1AH, the CPUID bits a
 * microcode update changes, the platform, and for a hypervisor's row the
 * host kernel's version range), the failure is reported with the entry's id
 * and source; a test whose every failure is known is reported
 * "ok N name # XFAIL <id>: <source>" (KTAP v1's directive for an expected
 * failure), and the run's verdict is PASS when only known deviations failed.
 * `known = 0` turns the table off: every failure is a plain one.
 *
 * An entry covers exactly what its source covers: a CPU outside the range
 * its source names never matches. A deviation whose source gives only the
 * mechanism (not the symptom a check sees) is not an entry: docs/rules.md lists
 * those as "expected, unconfirmed".
 */
#ifndef PMUTEST_KNOWN_H
#define PMUTEST_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "observed.h"
#include "options.h"

/* Where an entry applies: bare metal only, under any hypervisor, or under
 * the hypervisor with that CPUID.40000000H signature (known_platform_name()). */
enum known_platform {
	KNOWN_BARE_METAL,
	KNOWN_ANY_PLATFORM, /* the silicon's own: bare metal or a guest */
	KNOWN_HV_KVM,	    /* "KVMKVMKVM" */
	KNOWN_PLATFORM_COUNT
};

/* CPUID bits a microcode update changes, that an entry may require set
 * (features_set) or clear (features_clear). */
enum known_feature {
	KNOWN_F_TSX_FORCE_ABORT = 1u << 0,  /* CPUID.(07H,0):EDX[13] */
	KNOWN_F_RTM_ALWAYS_ABORT = 1u << 1, /* CPUID.(07H,0):EDX[11] */
	KNOWN_F_HYBRID = 1u << 2,	    /* CPUID.(07H,0):EDX[15] */
	KNOWN_F_L3 = 1u << 3,		    /* CPUID.02H names an L3 cache */
	/* CPUID.0AH version 2 or later enumerating no fixed counter (EDX[4:0]
	 * = 0, ECX = 0, no leaf 23H bitmap): what Core 2 reports. */
	KNOWN_F_V2_NO_FIXED = 1u << 4,
};
#define KNOWN_FEATURE_COUNT 5

#define KNOWN_ANY_VENDOR 0

/* One DisplayFamily and DisplayModel (or every model of the family) with
 * its stepping range. */
struct known_model {
	uint16_t family;
	bool any_model;
	uint8_t model, stepping_min, stepping_max;
};

/* A check the deviation fails: "suite.test" and its rule (a RULE_* of
 * kernel/rules.h), the subjects its source names (kind, ids lo..hi, and for
 * an event the counters counter_lo..counter_hi) and the outcomes it
 * describes (OUTCOME_BIT()s; with OUTCOME_BITS, the failure's accepted bits
 * must be within `bits`). */
struct known_check {
	const char *test, *rule;
	enum subject_kind subject;
	uint64_t lo, hi;
	unsigned counter_lo, counter_hi;
	unsigned outcomes;
	uint64_t bits;
};

/* A failed check, as known_match() judges it. */
struct known_failure {
	const char *suite, *test, *rule;
	const struct check_subject *subject;
	const struct check_outcome *outcome;
	uint32_t host_kernel; /* HOST_KERNEL(), HOST_KERNEL_UNKNOWN */
};

/* known_match()'s answer: the row that excuses the failure, or, when none
 * does, a row that would on a host in its version range (host_unknown: the
 * host's version was not given; otherwise it is outside the range). */
struct known_verdict {
	const struct known_deviation *row;
	const struct known_deviation *host_row;
	bool host_unknown;
};

struct known_deviation {
	const char *id;	  /* short name, printed with the failure */
	unsigned vendors; /* BIT(enum cpu_vendor) of each, or KNOWN_ANY_VENDOR */
	/* DisplayFamily, DisplayModel and stepping ranges, n_models of them
	 * (0: every CPU of the vendors, for a hypervisor's rows). */
	const struct known_model *models;
	unsigned n_models;
	/* CPUID.1AH:EAX[31:24] of the CPU the test ran on, or CORE_TYPE_NONE
	 * for every CPU. */
	enum core_type core_type;
	unsigned features_set, features_clear; /* enum known_feature bits */
	enum known_platform platform;
	const struct known_check *checks; /* n_checks of them */
	unsigned n_checks;
	/* A hypervisor's row: the host kernels its source names,
	 * host_min <= version < host_max (HOST_KERNEL(); host_max 0: not
	 * fixed). host_min = 0 and host_max = 0: any host. */
	uint32_t host_min, host_max;
	/* A hypervisor's row: the VMM condition its source gives (which vPMU,
	 * which VMM, whether a firmware ran), printed with the row; every
	 * KNOWN_HV_KVM row has one (testing/check-known.sh). */
	const char *vmm;
	/* The source describes every check of the row in one test failing at
	 * once (an erratum that adds to two events): a test where only some of
	 * them failed has another deviation, which the row does not excuse. */
	bool together;
	const char *what;   /* the deviation, in one line */
	const char *source; /* erratum ID, event description, or the Linux / KVM function */
};

/* The entry that explains the failed check f on this CPU, if any. */
struct known_verdict known_match(const struct caps *c, const struct known_failure *f);

/* "msr=0x309 outcome=no-fault" ...: the form of kernel/check.c's
 * "observed:" line, also for a row's check (--list-known). */
void known_format_observed(char *buf, size_t n, const struct check_subject *s,
			   const struct check_outcome *o);
void known_format_check(char *buf, size_t n, const struct known_check *k);
/* "6.6.0" into buf. */
void known_format_kernel(char *buf, size_t n, uint32_t version);

/* A failed check a row excused: its rule and its subject. */
struct known_seen {
	const char *rule;
	enum subject_kind kind;
	uint64_t id;
};
/* k is not a `together` row, or for each subject (the same intercepted
 * instruction, MSR, ...) of a failure seen[0..n) of one of k's checks on
 * suite.test, every check of k on that test failed on that subject too:
 * the source describes its checks failing together per subject, not two
 * partial deviations on different subjects. */
bool known_together_met(const struct known_deviation *k, const char *suite, const char *test,
			const struct known_seen *seen, unsigned n);

/* Whether row k covers this CPU (vendor, models, features, platform),
 * whatever failed: pmusim --known-rows, for explain. */
bool known_covers_cpu(const struct known_deviation *k, const struct caps *c);

/* The table, for reports and docs/rules.md (known_count() entries). */
unsigned known_count(void);
const struct known_deviation *known_at(unsigned i);

/* "bare metal", "any platform", "KVMKVMKVM" ... */
const char *known_platform_name(enum known_platform p);
/* "TSX_FORCE_ABORT", ... for one enum known_feature bit. */
const char *known_feature_name(unsigned bit);

#endif

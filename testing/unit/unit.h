/* SPDX-License-Identifier: MIT */
/*
 * A tiny unit-test framework for host tests of the project's own code.
 * Each UNIT_* assertion is one numbered result line, TAP-style; the program
 * ends with "N passed, N failed" and exits 1 when anything failed.
 *
 *     int main(void) { UNIT_EQ(add(1, 2), 3, "add"); return unit_done(); }
 */
#ifndef PMUTEST_UNIT_H
#define PMUTEST_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned unit_passed, unit_failed;

static inline void unit_result(int ok, const char *name, const char *file, int line,
			       const char *detail)
{
	if (ok) {
		unit_passed++;
		printf("ok %u - %s\n", unit_passed + unit_failed, name);
	} else {
		unit_failed++;
		printf("not ok %u - %s\n#   at %s:%d\n#   %s\n", unit_passed + unit_failed, name,
		       file, line, detail);
	}
}

#define UNIT_EQ(actual, expected, name)                                                            \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(actual);                              \
		unsigned long long e_ = (unsigned long long)(expected);                            \
		char d_[160];                                                                      \
		snprintf(d_, sizeof(d_), "expected %#llx, got %#llx", e_, a_);                     \
		unit_result(a_ == e_, name, __FILE__, __LINE__, d_);                               \
	} while (0)

#define UNIT_STREQ(actual, expected, name)                                                         \
	do {                                                                                       \
		const char *a_ = (actual), *e_ = (expected);                                       \
		char d_[4096];                                                                     \
		snprintf(d_, sizeof(d_), "expected \"%s\", got \"%s\"", e_ ? e_ : "(null)",        \
			 a_ ? a_ : "(null)");                                                      \
		unit_result(a_ &&e_ && !strcmp(a_, e_), name, __FILE__, __LINE__, d_);             \
	} while (0)

#define UNIT_TRUE(cond, name)                                                                      \
	unit_result(!!(cond), name, __FILE__, __LINE__, "condition false: " #cond)

static inline int unit_done(void)
{
	printf("%u passed, %u failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif

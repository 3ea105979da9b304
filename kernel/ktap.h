/* SPDX-License-Identifier: MIT */
/*
 * Output: formatting (no libc in the kernel) and the KTAP v1 writer.
 * The writer emits to a sink so the host unit tests can capture it.
 */
#ifndef PMUTEST_KTAP_H
#define PMUTEST_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* printf subset: %d %i %u %x %X %o %c %s %p %% with flags '-', '0', '#', ' ',
 * '+', width, precision, '*', and length modifiers hh h l ll z j t. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* kvsnprintf returning the length actually stored (size > 0): what a caller
 * that writes the buffer out needs, truncation included. */
size_t kvformat(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Console output (arch_console_write, plus the report buffer). */
void kputs(const char *s);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- KTAP v1 (Documentation/dev-tools/ktap.rst) ----------------------- */

/* KTAP_XFAIL: a failure the known-deviations table explains (kernel/known.h),
 * written "ok N name # XFAIL text", KTAP v1's directive for a test that is
 * expected to fail (Documentation/dev-tools/ktap.rst; kselftest writes it
 * after "ok" too, and kunit's parser reads the line as a pass). */
/* KTAP_INFERRED: a test whose checks all held but for some of an inferred
 * rule (kernel/test.h RULE_INFERRED: pmutest's own inference, not a
 * manual's text), written "ok N name # INFERRED text": not a failure unless
 * strict=1, and never a plain "ok". */
enum ktap_result {
	KTAP_PASS,
	KTAP_FAIL,
	KTAP_SKIP,
	KTAP_TIMEOUT,
	KTAP_ERROR,
	KTAP_XFAIL,
	KTAP_INFERRED
};
#define KTAP_RESULTS (KTAP_INFERRED + 1) /* how many results there are */

/* A SKIP reason equal to the previous test's in the same subtest is written
 * as this word when the writer's ditto is set (compact = 1; the host tools,
 * tools/pmureport/expand.py, put the reason back). */
#define KTAP_DITTO	      "ditto"
#define KTAP_DITTO_REASON_MAX 200 /* longer reasons are always written out */

struct ktap_writer {
	void (*sink)(void *ctx, const char *s, size_t n);
	void *ctx;
	unsigned depth; /* 0 = top level */
	bool ditto;	/* say a repeat once: a SKIP reason, a failure block's
			 * field (check.c), an access trace (trace.c) */
	/* The previous result's SKIP reason in this subtest ("" none). */
	char last_skip[KTAP_DITTO_REASON_MAX];
};

void ktap_header(struct ktap_writer *w, unsigned planned);
/* "# Subtest: name", then the nested header and plan; depth + 1. */
void ktap_begin_subtest(struct ktap_writer *w, const char *name, unsigned planned);
/* Closes a subtest level: depth - 1 (the caller then writes its result). */
void ktap_end_subtest(struct ktap_writer *w);
/* A result's KTAP status and directive, for every writer of result lines
 * (ktap_result, the compact form's "same as cpuN" lines): FAIL, TIMEOUT and
 * ERROR are "not ok", the rest "ok"; SKIP, TIMEOUT, XFAIL and INFERRED carry
 * their directive word, the others none (NULL). */
bool ktap_failed(enum ktap_result r);
const char *ktap_status(enum ktap_result r);
const char *ktap_directive(enum ktap_result r);
/* "ok N name", "not ok N name", "ok N name # SKIP reason",
 * "not ok N name # TIMEOUT", "ok N name # XFAIL text", "ok N name # INFERRED
 * text", at the current depth. */
void ktap_result(struct ktap_writer *w, unsigned number, const char *name, enum ktap_result r,
		 const char *directive_text);
/* "# text" at the current depth; newlines in text start new "# " lines. */
void ktap_diag(struct ktap_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ktap_vdiag(struct ktap_writer *w, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* The console writer the kernel uses (sink = kputs). */
extern struct ktap_writer g_ktap;

#endif

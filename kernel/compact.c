/* SPDX-License-Identifier: MIT */
/*
 * Say each thing once: the compact report of CPUs that behave alike
 * (kernel/compact.h has the form and the contract). The reference CPU's
 * tests are hashed as they go out; another CPU's suite is held here and
 * written when it ends: one line where the whole suite matches, else its
 * header, each test compacted or in full, and its closing lines.
 */
#include "compact.h"

#include "cpus.h"
#include "kstring.h"

#define COMPACT_REFS	    4		/* configurations with a reference kept */
#define COMPACT_MAX_TESTS   1024	/* registration indexes (runner.c MAX_TESTS) */
#define COMPACT_SUITE_TESTS 128		/* tests of one suite held back */
#define COMPACT_BUF	    (64 * 1024) /* a held-back suite's text */
#define FNV_OFFSET	    0xcbf29ce484222325ULL
#define FNV_PRIME	    0x100000001b3ULL

/* Each configuration's reference CPU and its tests' hashes and results. */
static struct ref {
	bool used;
	unsigned config, cpu;
	bool seen[COMPACT_MAX_TESTS];
	uint8_t result[COMPACT_MAX_TESTS];
	uint64_t hash[COMPACT_MAX_TESTS];
} refs[COMPACT_REFS];

/* The CPU running now: the reference it records (record) or compares with
 * (cmp), or neither. */
static struct ref *record, *cmp;

/* The suite under way. */
static struct {
	struct ktap_writer *w;
	void (*sink)(void *ctx, const char *s, size_t n); /* the writer's own */
	void *ctx;
	bool held;     /* text kept in buf (cmp, and it has fitted so far) */
	bool overflow; /* did not fit: written out as it came, in full */
	uint64_t hash; /* the current test's text */
	size_t start;  /* where the current test's text begins in buf */
	unsigned n;    /* tests ended */
	struct held_test {
		size_t start, end;
		unsigned number;
		uint8_t result;
		bool same;
		const char *name;
	} tests[COMPACT_SUITE_TESTS];
	size_t len;
	char buf[COMPACT_BUF];
} su;

/* FNV-1a's step on 8 bytes at a time, the rest a byte at a time: under a
 * hypervisor where each load of the guest costs microseconds,
 * a load per byte of every line was a visible part of the console's cost.
 * Each step is a bijection of h for a given word, so two texts written in
 * the same calls that differ in one word never hash equal; the same text
 * written in other calls may hash differently, and is then printed in
 * full (the safe direction). A CPU writes a test's text through the same
 * calls as its reference. */
typedef uint64_t __attribute__((may_alias, aligned(1))) word_at_any;

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (; n >= sizeof(uint64_t); n -= sizeof(uint64_t), s += sizeof(uint64_t))
		h = (h ^ *(const word_at_any *)s) * FNV_PRIME;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * FNV_PRIME;
	return h;
}

void compact_cpu_begin(const struct options *o, unsigned cpu, unsigned config)
{
	record = cmp = NULL;
	if (!o->compact || config == CPUS_NO_CONFIG)
		return;
	for (unsigned i = 0; i < COMPACT_REFS; i++) {
		if (refs[i].used && refs[i].config == config) {
			cmp = &refs[i];
			return;
		}
	}
	for (unsigned i = 0; i < COMPACT_REFS; i++) {
		if (!refs[i].used) {
			record = &refs[i];
			kmemset(record, 0, sizeof(*record));
			record->used = true;
			record->config = config;
			record->cpu = cpu;
			return;
		}
	}
}

/* Everything held so far goes out as it is; the rest of the suite follows
 * it directly. */
static void release(void)
{
	if (su.held && su.len)
		su.sink(su.ctx, su.buf, su.len);
	su.held = false;
	su.len = 0;
}

static void hold_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	su.hash = fnv(su.hash, s, n);
	if (su.held && su.len + n > sizeof(su.buf)) {
		release();
		su.overflow = true;
	}
	if (su.held) {
		kmemcpy(su.buf + su.len, s, n);
		su.len += n;
	} else {
		su.sink(su.ctx, s, n);
	}
}

void compact_suite_begin(struct ktap_writer *w)
{
	if (!record && !cmp)
		return;
	su.w = w;
	su.sink = w->sink;
	su.ctx = w->ctx;
	su.held = cmp != NULL;
	su.overflow = false;
	su.len = 0;
	su.n = 0;
	w->sink = hold_sink;
	w->ctx = NULL;
}

void compact_test_begin(void)
{
	su.hash = FNV_OFFSET;
	su.start = su.len;
}

void compact_test_end(unsigned id, unsigned number, const char *name, enum ktap_result r)
{
	if ((!record && !cmp) || !su.w)
		return;
	/* A reason written "ditto" is compared in full. */
	const char *skip = su.w->last_skip;
	uint64_t h = fnv(su.hash, skip, kstrlen(skip) + 1);
	bool ok_id = id < COMPACT_MAX_TESTS;

	if (record && ok_id) {
		record->seen[id] = true;
		record->result[id] = (uint8_t)r;
		record->hash[id] = h;
	}
	if (!cmp)
		return;
	if (su.n == COMPACT_SUITE_TESTS) {
		release(); /* more tests than remembered: this suite in full */
		su.overflow = true;
	}
	if (su.n < COMPACT_SUITE_TESTS) {
		struct held_test *t = &su.tests[su.n];
		t->start = su.start;
		t->end = su.len;
		t->number = number;
		t->result = (uint8_t)r;
		t->name = name;
		t->same = ok_id && cmp->seen[id] && cmp->result[id] == r && cmp->hash[id] == h;
	}
	su.n++;
}

static void out(const char *s, size_t n)
{
	su.sink(su.ctx, s, n);
}

/* "ok 3 name # SKIP same as cpu0" at the given indentation. */
static void same_line(const char *indent, unsigned number, const char *name, enum ktap_result r)
{
	const char *d = ktap_directive(r);
	char line[192];
	ksnprintf(line, sizeof(line), "%s%s %u %s # %s%ssame as cpu%u\n", indent, ktap_status(r),
		  number, name, d ? d : "", d ? " " : "", cmp->cpu);
	out(line, kstrlen(line));
}

void compact_suite_end(struct ktap_writer *w, unsigned number, const char *label,
		       enum ktap_result r)
{
	if (!su.w)
		return;
	w->sink = su.sink;
	w->ctx = su.ctx;
	su.w = NULL;
	if (!su.held || su.overflow || !su.n) {
		release();
		return;
	}
	bool all_same = true;
	for (unsigned i = 0; i < su.n; i++)
		all_same &= su.tests[i].same && !ktap_failed(su.tests[i].result);
	if (all_same && (r == KTAP_PASS || r == KTAP_SKIP)) {
		same_line("", number, label, r);
		su.held = false;
		su.len = 0;
		return;
	}
	out(su.buf, su.tests[0].start); /* version, "# Subtest:", plan */
	for (unsigned i = 0; i < su.n; i++) {
		const struct held_test *t = &su.tests[i];
		if (t->same)
			same_line("    ", t->number, t->name, t->result);
		else
			out(su.buf + t->start, t->end - t->start);
	}
	size_t tail = su.tests[su.n - 1].end;
	out(su.buf + tail, su.len - tail); /* the suite's totals and result line */
	su.held = false;
	su.len = 0;
}

void compact_flush(void)
{
	if (!su.w)
		return;
	struct ktap_writer *w = su.w;
	w->sink = su.sink;
	w->ctx = su.ctx;
	su.w = NULL;
	release();
}

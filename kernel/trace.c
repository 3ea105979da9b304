/* SPDX-License-Identifier: MIT */
/* The access trace under a failed check (trace.h). */
#include "trace.h"

#include "arch.h"
#include "bits.h"
#include "kstring.h"
#include "ktap.h"

struct access {
	uint32_t seq, addr;
	uint64_t value;
	uint8_t op;
	int8_t vector;
};

static const char *const op_names[] = {
    [TRACE_RDMSR] = "rdmsr",
    [TRACE_WRMSR] = "wrmsr",
    [TRACE_RDPMC] = "rdpmc",
};
_Static_assert(ARRAY_SIZE(op_names) == TRACE_RDPMC + 1, "a name per enum trace_op");

static struct access ring[TRACE_RING];
static struct access test_log[TRACE_LOG_MAX];
static uint32_t seq;	  /* accesses of the running test so far */
static uint32_t log_from; /* the first access test_log[] keeps */
static bool on, keep_log;

/* The accesses this test has printed (each ring: [lo, hi)), in order: a
 * ring printed again, or the trace = 2 log, says "trace: A..B shown above"
 * for those with compact = 1 (the writer's ditto); tools/pmureport/expand.py puts
 * the lines back from the test's earlier ones. A ring's window never starts
 * before the previous one's, so it joins the last span or opens a new one. */
static struct span {
	uint32_t lo, hi;
} shown[TRACE_FAILS_SHOWN];
static unsigned n_shown;

void trace_begin(bool full, uint32_t from)
{
	seq = 0;
	log_from = from;
	keep_log = full;
	n_shown = 0;
	on = true;
}

void trace_end(void)
{
	on = false;
}

void trace_access(enum trace_op op, uint32_t addr, uint64_t value, int vector)
{
	if (!on)
		return;
	struct access a = {seq, addr, value, (uint8_t)op, (int8_t)vector};
	ring[seq % TRACE_RING] = a;
	if (keep_log && seq >= log_from && seq - log_from < TRACE_LOG_MAX)
		test_log[seq - log_from] = a;
	seq++;
}

static void print_one(const struct access *a)
{
	ktap_diag(&g_ktap, "trace: %u %s %#x %#llx %s", a->seq, op_names[a->op], a->addr,
		  (unsigned long long)a->value, a->vector ? x86_vector_name(a->vector) : "ok");
}

static bool was_shown(uint32_t s)
{
	for (unsigned i = 0; i < n_shown; i++) {
		if (s >= shown[i].lo && s < shown[i].hi)
			return true;
	}
	return false;
}

static void remember_shown(uint32_t lo, uint32_t hi)
{
	struct span *last = n_shown ? &shown[n_shown - 1] : NULL;

	if (last && lo >= last->lo && lo <= last->hi) {
		if (hi > last->hi)
			last->hi = hi;
	} else if (n_shown < TRACE_FAILS_SHOWN) {
		shown[n_shown++] = (struct span){lo, hi};
	} /* else not remembered: printed again in full, never lost */
}

/* "trace: A..B shown above" for the run [from, to) of shown accesses. */
static void print_shown(uint32_t from, uint32_t to)
{
	if (to - from == 1)
		ktap_diag(&g_ktap, "trace: %u shown above", from);
	else if (to > from)
		ktap_diag(&g_ktap, "trace: %u..%u shown above", from, to - 1);
}

/* Accesses [from, to), at(s) the one numbered s: each printed, or a run of
 * those printed before in this test as one line. */
static void print_span(uint32_t from, uint32_t to, const struct access *(*at)(uint32_t))
{
	uint32_t run = from; /* the run of shown accesses under way: [run, s) */

	for (uint32_t s = from; s < to; s++) {
		if (g_ktap.ditto && was_shown(s))
			continue;
		print_shown(run, s);
		print_one(at(s));
		run = s + 1;
	}
	print_shown(run, to);
}

static const struct access *ring_at(uint32_t s)
{
	return &ring[s % TRACE_RING];
}

static const struct access *log_at(uint32_t s)
{
	return &test_log[s - log_from];
}

void trace_print_ring(void)
{
	uint32_t first = seq > TRACE_RING ? seq - TRACE_RING : 0;

	print_span(first, seq, ring_at);
	remember_shown(first, seq);
}

void trace_print_log(void)
{
	if (!keep_log)
		return;
	uint32_t end = seq - log_from > TRACE_LOG_MAX ? log_from + TRACE_LOG_MAX : seq;
	if (seq > log_from)
		print_span(log_from, end, log_at);
	if (seq > log_from && seq - log_from > TRACE_LOG_MAX)
		ktap_diag(&g_ktap, "trace: %u more accesses not shown",
			  seq - log_from - TRACE_LOG_MAX);
}

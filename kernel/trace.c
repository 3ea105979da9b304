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

void trace_begin(bool full, uint32_t from)
{
	seq = 0;
	log_from = from;
	keep_log = full;
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

void trace_print_ring(void)
{
	uint32_t first = seq > TRACE_RING ? seq - TRACE_RING : 0;

	for (uint32_t s = first; s < seq; s++)
		print_one(&ring[s % TRACE_RING]);
}

void trace_print_log(void)
{
	if (!keep_log)
		return;
	for (uint32_t s = 0; log_from + s < seq && s < TRACE_LOG_MAX; s++)
		print_one(&test_log[s]);
	if (seq > log_from && seq - log_from > TRACE_LOG_MAX)
		ktap_diag(&g_ktap, "trace: %u more accesses not shown",
			  seq - log_from - TRACE_LOG_MAX);
}

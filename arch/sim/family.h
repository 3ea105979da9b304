/* SPDX-License-Identifier: MIT */
/*
 * The simulator's family interface: one row per PMU family (the Intel
 * architectural PMU, AMD, NetBurst, the Nehalem uncore, RDT, ...), each a
 * table of unit operations that the engine (engine.c), the MSR dispatcher
 * (msr.c) and RDPMC (rdpmc.c) loop over in the order of sim_families[]
 * (families.c). A family never calls back into the engine: it hands its
 * counting counters over through sim_counter_add() (below, inline) and
 * raises interrupts through the local APIC (sim_pmi_request()).
 *
 * Contract of each operation (a NULL operation is "nothing to do"):
 *  - rdmsr / wrmsr: SIM_MSR_NOT_MINE when the address is not the family's
 *    (or the family is absent on this CPU): the dispatcher asks the next
 *    row; SIM_MSR_OK when done; SIM_MSR_GP when the MSR is the family's and
 *    the access raises #GP(0) (an absent counter, a reserved bit, ...).
 *  - collect: add every counter that counts right now (enabled, at the
 *    current CPL, not frozen) to the set. Called before each run of
 *    segments: a family may reprogram anything in between.
 *  - overflow: the counter `c` (one the family collected) wrapped; set the
 *    status bits, request the PMI. `c->kind` and `c->idx` are the family's
 *    own numbering.
 *  - rdpmc: decode RDPMC's ECX; SIM_RDPMC_NOT_MINE when the family does not
 *    implement RDPMC on this CPU, SIM_RDPMC_READ with the 64-bit value (fast
 *    reads applied), SIM_RDPMC_INVALID for an encoding it rejects.
 *  - reset: the family's power-up state, after g_sim.pmu was zeroed.
 *  - advance: effects of `k` runs of segment `s` other than counter
 *    increments (accumulators such as PERF_METRICS, RDT occupancy).
 */
#ifndef PMUTEST_SIM_FAMILY_H
#define PMUTEST_SIM_FAMILY_H

/* Included by sim.h after the counting model (struct sim_filter). */
#include <stdbool.h>
#include <stdint.h>

enum sim_msr_result {
	SIM_MSR_NOT_MINE,
	SIM_MSR_OK,
	SIM_MSR_GP,
};

/* Is `msr` one of the n consecutive MSRs from `base` (a bank of counters or
 * selects)? Then *i is its index in the bank. */
static inline bool sim_msr_in(uint32_t msr, uint32_t base, unsigned n, unsigned *i)
{
	if (msr < base || msr - base >= n)
		return false;
	*i = msr - base;
	return true;
}

/* RDMSR of a bank whose registers the family keeps in regs[0..n-1]: when
 * `msr` is one of them, *val is its value and the result is true. */
static inline bool sim_msr_read_bank(uint32_t msr, uint32_t base, unsigned n, const uint64_t *regs,
				     uint64_t *val)
{
	unsigned i;

	if (!sim_msr_in(msr, base, n, &i))
		return false;
	*val = regs[i];
	return true;
}

enum sim_rdpmc_result {
	SIM_RDPMC_NOT_MINE,
	SIM_RDPMC_READ,
	SIM_RDPMC_INVALID,
};

struct sim_family;
struct sim_segment;

/* A counter that counts in the coming run of segments. */
struct sim_counter {
	uint64_t *val;
	bool *last; /* the event condition of the last cycle (EDGE) */
	unsigned width;
	struct sim_filter f;
	const struct sim_family *family;
	unsigned kind, idx; /* the family's own: e.g. GP or fixed, index */
};

#define SIM_MAX_ACTIVE 96
struct sim_counter_set {
	struct sim_counter c[SIM_MAX_ACTIVE];
	unsigned n;
};

static inline void sim_counter_add(struct sim_counter_set *set, const struct sim_counter *c)
{
	if (set->n < SIM_MAX_ACTIVE)
		set->c[set->n++] = *c;
}

struct sim_family {
	const char *name;
	enum sim_msr_result (*rdmsr)(uint32_t msr, uint64_t *val);
	enum sim_msr_result (*wrmsr)(uint32_t msr, uint64_t val);
	void (*collect)(struct sim_counter_set *set);
	void (*overflow)(const struct sim_counter *c);
	enum sim_rdpmc_result (*rdpmc)(uint32_t ecx, uint64_t *val);
	void (*reset)(void);
	void (*advance)(const struct sim_segment *s, uint64_t k);
};

/*
 * A family's descriptor, at the end of its file:
 *
 *   const struct sim_family sim_family_<id> =
 *       SIM_FAMILY("<name>", rdmsr, wrmsr, collect, overflow, rdpmc, reset, advance);
 *
 * the operations in the order of struct sim_family, NULL for each one the
 * family does not have (nothing to do). Each operation has a function type
 * of its own, so an operation in the wrong place does not compile.
 */
#define SIM_FAMILY(name_, rdmsr_, wrmsr_, collect_, overflow_, rdpmc_, reset_, advance_)           \
	{                                                                                          \
		.name = (name_), .rdmsr = (rdmsr_), .wrmsr = (wrmsr_), .collect = (collect_),      \
		.overflow = (overflow_), .rdpmc = (rdpmc_), .reset = (reset_),                     \
		.advance = (advance_)                                                              \
	}

/* families.c: every family, in dispatch order. */
extern const struct sim_family *const sim_families[];
extern const unsigned sim_family_count;

extern const struct sim_family sim_family_arch, sim_family_amd, sim_family_uncore,
    sim_family_netburst, sim_family_rdt, sim_family_rdt_alloc, sim_family_lbr, sim_family_pebs,
    sim_family_cpu, sim_family_p6;

/* sim_family_arch's counter kinds (struct sim_counter.kind). */
enum arch_counter_kind { ARCH_GP, ARCH_FIXED };

/* dead.c: the counters the dead-counter quirks kill. A value register that
 * reads 0 and drops writes; a counter that is not counting, whatever its
 * event select says. */
bool dead_counter_msr(uint32_t msr);
bool dead_counter_silent(const struct sim_counter *c);

#endif

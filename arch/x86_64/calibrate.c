/* SPDX-License-Identifier: MIT */
/*
 * The TSC and local APIC timer rates (calibrate.h), decided the way Linux
 * decides (arch/x86/kernel/tsc.c: pit_calibrate_tsc(), the reference
 * cross-check in tsc_refine / native_calibrate_tsc()), exact sources first:
 *
 *   0. exact, nothing measured:
 *      a. under a hypervisor (CPUID.01H:ECX[31]), its timing leaf
 *         CPUID.40000010H when 40000000H:EAX reaches it: EAX the TSC rate
 *         in kHz, EBX the APIC timer's (bus) rate in kHz (VMware's
 *         interface; Cloud Hypervisor publishes it with EBX 1000000, KVM's
 *         1 GHz APIC timer, arch/src/x86_64/mod.rs; QEMU with
 *         vmware-cpuid-freq; Linux vmware_get_tsc_khz() reads the same);
 *      b. on bare metal, CPUID.15H with the crystal enumerated (ECX != 0):
 *         TSC = ECX x EBX / EAX, the APIC timer at the crystal clock (SDM
 *         Vol. 3A 10.5.4 "APIC Timer"; Linux native_calibrate_tsc() marks
 *         such a rate known). Not under a hypervisor: a VMM may pass the
 *         host's 15H through while KVM's APIC timer runs at 1 GHz;
 *      c. under a hypervisor without 40000010H, its paravirtual clock's TSC
 *         rate (KVM's kvmclock, CPUID.40000001H:EAX[3]: the pvclock scale,
 *         as Linux kvm_get_tsc_khz() / pvclock_tsc_khz() read it), and the
 *         APIC timer measured against that TSC over PV_WINDOW_MS (its rate
 *         is the VMM's choice: KVM's 1 GHz by default, another with
 *         KVM_CAP_X86_APIC_BUS_CYCLES_NS): no port is read, each of which
 *         is a VM exit, and the window is a fifth of the PIT's;
 *   1. PIT channel 2 over 10 ms, trusted only when the run was plausible:
 *      OUT2 rose within a bound (a PIT that is gated off never does), after
 *      at least 1000 reads (a floating port reads "ready" at once), and no
 *      gap between two reads was more than 10x the shortest and 2% of the
 *      window (an SMI or a preemption stretched it);
 *   2. the ACPI PM timer (FADT PM_TMR_BLK, 3.579545 MHz) over 10 ms as the
 *      reference (without one, PIT channel 0 read by latch commands): the
 *      channel 2 rates stand when they are within 2% of it, the
 *      reference's otherwise, and alone when channel 2 was not plausible.
 *      A reference that reads the same value STUCK_READS times in a row is
 *      abandoned at once (a counter of >= 1 MHz moves within a few reads;
 *      Cloud Hypervisor has no PIT, its ports 40H/43H read FFH); a window
 *      with a gap between reads of half the counter's wrap or more (a
 *      preempted vCPU: whole periods may be lost) is measured again;
 *   3. neither: CPUID.15H, TSC = crystal x EBX / EAX, the crystal from ECX
 *      or, where ECX is 0 (Skylake-class clients), from CPUID.16H's base
 *      frequency x EAX / EBX; the local APIC timer runs at the crystal clock
 *      on such processors (Linux native_calibrate_tsc() sets
 *      lapic_timer_period from it; SDM Vol. 3A 10.5.4 "APIC Timer": the
 *      timer counts the core crystal clock where CPUID.15H enumerates it);
 *   4. nothing: a 100 MHz APIC timer is assumed and the report says so.
 */
#include "calibrate.h"

#define WINDOW_MS    10
#define PV_WINDOW_MS 2	  /* the APIC timer against an exact TSC: 2 ms is 0.05% at 1 us reads */
#define MIN_READS    1000 /* Linux CAL_PIT_LOOPS for a 10 ms window */
#define MAX_READS    (1u << 18) /* 10x the reads of a 10 ms window at 0.4 us each: give up */
#define AGREE_PART   50		/* within 1/50 = 2% */
#define STUCK_READS  1000	/* the same reference value this often: it does not count */
#define REF_TRIES    5		/* reference windows spoiled by a long gap, at most */

#define CPUID_HYPERVISOR (1u << 31) /* CPUID.01H:ECX */
#define HV_LEAF_BASE	 0x40000000u
#define HV_LEAF_TIMING	 0x40000010u

static const char *const source_names[] = {
    [CLOCK_PIT_CHECKED] = "PIT, checked by the",
    [CLOCK_PIT] = "PIT (no reference timer to check it)",
    [CLOCK_REFERENCE] = "",
    [CLOCK_CPUID] = "CPUID.15H/16H",
    [CLOCK_HV_LEAF] = "CPUID.40000010H (the hypervisor's TSC and APIC rates)",
    [CLOCK_CRYSTAL] = "CPUID.15H (the enumerated crystal)",
    [CLOCK_PVCLOCK] = "the paravirtual clock (kvmclock), APIC timer over 2 ms or more",
    [CLOCK_ASSUMED] = "nothing: 100 MHz assumed",
};
_Static_assert(sizeof(source_names) / sizeof(source_names[0]) == CLOCK_SOURCE_COUNT,
	       "a name per enum clock_source");

static const char *const pit_names[] = {
    [PIT_OK] = "ok",
    [PIT_NEVER_READY] = "never ready",
    [PIT_READY_AT_ONCE] = "ready at once",
    [PIT_STALL] = "stalled",
    [PIT_NOT_RUN] = "not run: an exact source",
};
_Static_assert(sizeof(pit_names) / sizeof(pit_names[0]) == PIT_VERDICT_COUNT,
	       "a name per enum pit_verdict");

const char *clock_source_name(enum clock_source s)
{
	return s < CLOCK_SOURCE_COUNT ? source_names[s] : "?";
}

const char *pit_verdict_name(enum pit_verdict v)
{
	return v < PIT_VERDICT_COUNT ? pit_names[v] : "?";
}

/* APIC timer ticks at divide-by-1 from count c0 to c1, over num / den s. */
static uint64_t apic_rate(uint32_t c0, uint32_t c1, uint64_t num, uint64_t den)
{
	return (uint64_t)(c0 - c1) * 16 * den / num;
}

static enum pit_verdict pit_measure(const struct clock_ops *o, uint64_t *tsc_hz, uint64_t *apic_hz)
{
	const uint16_t latch = (uint16_t)(PIT_HZ * WINDOW_MS / 1000);
	uint64_t min_gap = ~0ULL, max_gap = 0;
	uint32_t reads = 0;

	o->apic_start(o->ctx);
	o->pit_start(o->ctx, latch);
	uint32_t c0 = o->apic_count(o->ctx);
	uint64_t t0 = o->tsc(o->ctx), prev = t0;
	for (;;) {
		bool out = o->pit_out(o->ctx);
		uint64_t now = o->tsc(o->ctx), gap = now - prev;
		prev = now;
		min_gap = gap < min_gap ? gap : min_gap;
		max_gap = gap > max_gap ? gap : max_gap;
		if (out)
			break;
		if (++reads >= MAX_READS)
			return PIT_NEVER_READY;
	}
	if (reads < MIN_READS)
		return PIT_READY_AT_ONCE;
	/* Linux's test (10x the shortest gap), and the gap long enough to
	 * matter (2% of the window: SMIs take 100s of microseconds), so that an
	 * emulator's uneven port reads do not count as a stall. */
	if (max_gap > 10 * min_gap && max_gap * AGREE_PART > prev - t0)
		return PIT_STALL;
	*tsc_hz = (prev - t0) * PIT_HZ / latch;
	*apic_hz = apic_rate(c0, o->apic_count(o->ctx), latch, PIT_HZ);
	return PIT_OK;
}

/* One window of WINDOW_MS of the reference counter, from one of its
 * edges; false when it does not count (or stopped counting), or when one
 * gap between reads may have hidden a wrap of the counter (*spoiled). */
static bool ref_window(const struct clock_ops *o, uint32_t *n, uint64_t *tsc_hz, uint64_t *apic_hz,
		       bool *spoiled)
{
	uint32_t mask = o->ref_bits >= 32 ? 0xFFFFFFFFu : (1u << o->ref_bits) - 1;
	uint32_t want = (uint32_t)(o->ref_hz * WINDOW_MS / 1000), r0, r, same = 0;

	o->apic_start(o->ctx);
	r0 = o->ref_read(o->ctx) & mask;
	while ((r = o->ref_read(o->ctx) & mask) == r0)
		if (++same >= STUCK_READS)
			return false;
	/* Each clock read right after the reference's edge and right after
	 * its last read: the three windows match to a read's time. */
	uint32_t c0 = o->apic_count(o->ctx), c1, elapsed = 0, prev_elapsed, gap_ref = 0;
	uint64_t t0 = o->tsc(o->ctx), t = t0, prev, gap = 0;
	r0 = r;
	do {
		prev_elapsed = elapsed;
		elapsed = ((o->ref_read(o->ctx) & mask) - r0) & mask;
		c1 = o->apic_count(o->ctx);
		prev = t;
		t = o->tsc(o->ctx);
		if (t - prev > gap) {
			gap = t - prev;
			gap_ref = elapsed - prev_elapsed;
		}
		if (++*n >= 2 * MAX_READS)
			return false;
	} while (elapsed < want);
	/* The longest gap in reference ticks, at the rate the rest of the
	 * window shows: half a wrap or more, and whole periods may be lost. */
	uint64_t rest = t - t0 - gap, rest_ref = elapsed - gap_ref;
	*spoiled = !rest_ref || gap * rest_ref * 2 >= rest * ((uint64_t)mask + 1);
	*tsc_hz = (t - t0) * o->ref_hz / elapsed;
	*apic_hz = apic_rate(c0, c1, elapsed, o->ref_hz);
	return *tsc_hz != 0;
}

/* The reference's rates over a window no read gap spoiled: a gap longer
 * than the counter's wrap (PIT channel 0: 55 ms; a vCPU preempted on a
 * loaded host) loses whole periods; such a window is measured again, up
 * to REF_TRIES times. */
static bool ref_measure(const struct clock_ops *o, uint64_t *tsc_hz, uint64_t *apic_hz)
{
	uint32_t n = 0;
	bool spoiled;

	if (!o->ref_read || !o->ref_hz)
		return false;
	for (int i = 0; i < REF_TRIES; i++) {
		if (!ref_window(o, &n, tsc_hz, apic_hz, &spoiled))
			return false;
		if (!spoiled)
			return true;
	}
	return false;
}

/* Step 0 (the header): an exact source, or CLOCK_SOURCE_COUNT for none. */
static enum clock_source exact_source(const struct clock_ops *o, uint64_t *tsc_hz,
				      uint64_t *apic_hz)
{
	uint32_t r[4];

	o->cpuid(o->ctx, 0, r);
	uint32_t max = r[0];
	o->cpuid(o->ctx, 1, r);
	if (r[2] & CPUID_HYPERVISOR) {
		o->cpuid(o->ctx, HV_LEAF_BASE, r);
		if (r[0] < HV_LEAF_TIMING || r[0] >= HV_LEAF_BASE + 0x10000)
			return CLOCK_SOURCE_COUNT;
		o->cpuid(o->ctx, HV_LEAF_TIMING, r);
		if (!r[0] || !r[1])
			return CLOCK_SOURCE_COUNT;
		*tsc_hz = (uint64_t)r[0] * 1000;
		*apic_hz = (uint64_t)r[1] * 1000;
		return CLOCK_HV_LEAF;
	}
	if (max < 0x15)
		return CLOCK_SOURCE_COUNT;
	o->cpuid(o->ctx, 0x15, r);
	if (!r[0] || !r[1] || !r[2])
		return CLOCK_SOURCE_COUNT;
	*tsc_hz = (uint64_t)r[2] * r[1] / r[0];
	*apic_hz = r[2];
	return CLOCK_CRYSTAL;
}

/* An APIC read (a VM exit) between two TSC reads, timed at their midpoint:
 * the exit's time does not count into the window. *bracket: the two TSC
 * reads' distance, twice the most the midpoint can be off. */
static uint32_t apic_at(const struct clock_ops *o, uint64_t *t, uint64_t *bracket)
{
	uint64_t a = o->tsc(o->ctx);
	uint32_t c = o->apic_count(o->ctx);
	uint64_t b = o->tsc(o->ctx);

	*bracket = b - a;
	*t = a + *bracket / 2;
	return c;
}

/*
 * Step 0c: the APIC timer over at least PV_WINDOW_MS of a TSC whose rate is
 * exact. The window is at least PV_BRACKETS times its reads' brackets, so
 * that where the midpoints are off (a vCPU preempted within a read: seen on
 * this project's loaded KVM host as an error over 2%) the rate is
 * still within 1/PV_BRACKETS; a first read longer than PV_READ_MAX_US, or a
 * last read whose bracket breaks that bound, starts it again, PV_TRIES
 * times at most; then the measured steps below decide.
 */
#define PV_BRACKETS    200
#define PV_READ_MAX_US 250
#define PV_TRIES       5
static bool from_pvclock(const struct clock_ops *o, uint64_t *tsc_hz, uint64_t *apic_hz)
{
	uint64_t hz = o->pv_tsc_hz ? o->pv_tsc_hz(o->ctx) : 0;

	if (!hz)
		return false;
	o->apic_start(o->ctx);
	for (unsigned k = 0; k < PV_TRIES; k++) {
		uint64_t t0, t1, w0, w1;
		uint32_t c0 = apic_at(o, &t0, &w0);
		if (w0 > hz / 1000000 * PV_READ_MAX_US)
			continue;
		uint64_t span = hz / 1000 * PV_WINDOW_MS;
		if (span < PV_BRACKETS * w0)
			span = PV_BRACKETS * w0;
		while (o->tsc(o->ctx) - t0 < span)
			;
		uint32_t c1 = apic_at(o, &t1, &w1);
		if ((w0 + w1) / 2 * PV_BRACKETS > t1 - t0)
			continue;
		*tsc_hz = hz;
		*apic_hz = apic_rate(c0, c1, t1 - t0, hz);
		return *apic_hz != 0;
	}
	return false;
}

static bool from_cpuid(const struct clock_ops *o, uint64_t *tsc_hz, uint64_t *apic_hz)
{
	uint32_t r[4];

	o->cpuid(o->ctx, 0, r);
	uint32_t max = r[0];
	if (max < 0x15)
		return false;
	o->cpuid(o->ctx, 0x15, r);
	uint64_t den = r[0], num = r[1], crystal = r[2];
	if (!den || !num)
		return false;
	if (!crystal && max >= 0x16) {
		o->cpuid(o->ctx, 0x16, r);
		crystal = (uint64_t)(r[0] & 0xFFFF) * 1000000 * den / num;
	}
	if (!crystal)
		return false;
	*tsc_hz = crystal * num / den;
	*apic_hz = crystal;
	return true;
}

void clock_calibrate(const struct clock_ops *o, struct clock_result *res)
{
	uint64_t ptsc = 0, papic = 0, rtsc = 0, rapic = 0;

	res->source = exact_source(o, &res->tsc_hz, &res->apic_hz);
	if (res->source == CLOCK_SOURCE_COUNT && from_pvclock(o, &res->tsc_hz, &res->apic_hz))
		res->source = CLOCK_PVCLOCK;
	if (res->source != CLOCK_SOURCE_COUNT) {
		res->pit = PIT_NOT_RUN;
		res->ref_ok = false;
		return;
	}
	res->pit = pit_measure(o, &ptsc, &papic);
	res->ref_ok = ref_measure(o, &rtsc, &rapic);
	bool agree =
	    res->ref_ok && ptsc + rtsc / AGREE_PART >= rtsc && ptsc <= rtsc + rtsc / AGREE_PART;

	if (res->pit == PIT_OK && (agree || !res->ref_ok)) {
		res->source = res->ref_ok ? CLOCK_PIT_CHECKED : CLOCK_PIT;
		res->tsc_hz = ptsc;
		res->apic_hz = papic;
	} else if (res->ref_ok) {
		res->source = CLOCK_REFERENCE;
		res->tsc_hz = rtsc;
		res->apic_hz = rapic;
	} else if (from_cpuid(o, &res->tsc_hz, &res->apic_hz)) {
		res->source = CLOCK_CPUID;
	} else {
		res->source = CLOCK_ASSUMED;
		res->tsc_hz = 0;
		res->apic_hz = 100000000;
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/calibrate.c on a fake machine: a 3 GHz TSC that every port
 * read advances by 100 ns, a PIT whose OUT2 is honest, never rises, is high
 * at once, or takes an SMI-sized stall; an ACPI PM timer that is honest,
 * absent, stuck, fast, or near its 24-bit wrap; a 100 MHz APIC timer; and
 * CPUID leaves 15H/16H, the hypervisor bit and 40000010H; a paravirtual
 * clock's TSC rate (kvmclock). Each case checks the source chosen and the
 * rates.
 */
#include "calibrate.h"
#include "unit.h"

#define TSC_HZ	3000000000ULL
#define APIC_HZ 100000000ULL
#define READ_NS 100

enum pit_mode { PIT_HONEST, PIT_DEAD, PIT_HIGH, PIT_SMI };
enum ref_mode {
	REF_NONE,
	REF_HONEST,
	REF_STUCK,
	REF_FAST,
	REF_WRAP,
	REF_PREEMPTED,
	REF_PREEMPTED_SHORT
};

struct fake {
	uint64_t ns; /* machine time */
	enum pit_mode pit;
	enum ref_mode ref;
	uint64_t pit_start_ns, apic_start_ns;
	uint16_t latch;
	unsigned pit_reads, ref_reads;
	uint32_t leaf15[4], leaf16[4], max_leaf;
	uint32_t leaf1_ecx, hv_max, leaf_hv_timing[4];
	uint64_t pv_hz; /* the paravirtual clock's TSC rate, 0: none */
	/* The vCPU preempted for apic_stall_ns right after APIC read number
	 * apic_stall_at (from 1) sampled the count: the exit returns late. */
	unsigned apic_reads, apic_stall_at;
	uint64_t apic_stall_ns;
};

static uint64_t f_tsc(void *ctx)
{
	struct fake *f = ctx;
	f->ns += 10; /* RDTSC takes time too: a loop on it alone ends */
	return f->ns * (TSC_HZ / 1000000) / 1000;
}

static uint64_t f_pv_tsc_hz(void *ctx)
{
	struct fake *f = ctx;
	return f->pv_hz;
}

static void f_pit_start(void *ctx, uint16_t latch)
{
	struct fake *f = ctx;
	f->pit_start_ns = f->ns;
	f->latch = latch;
}

static bool f_pit_out(void *ctx)
{
	struct fake *f = ctx;
	f->ns += READ_NS;
	if (f->pit == PIT_SMI && ++f->pit_reads == 500)
		f->ns += 3000000; /* a 3 ms SMI inside the window */
	if (f->pit == PIT_DEAD)
		return false;
	if (f->pit == PIT_HIGH)
		return true;
	return f->ns - f->pit_start_ns >= (uint64_t)f->latch * 1000000000ULL / PIT_HZ;
}

static uint32_t f_ref(void *ctx)
{
	struct fake *f = ctx;
	f->ns += READ_NS;
	f->ref_reads++;
	/* The vCPU preempted for 5 s (beyond the 24-bit PM timer's 4.69 s
	 * wrap) in the first window only: that window loses a whole period. */
	if (f->ref == REF_PREEMPTED && f->ref_reads == 5000)
		f->ns += 5000000000ULL;
	/* 1 s (under half the wrap): nothing lost, the window stands. */
	if (f->ref == REF_PREEMPTED_SHORT && f->ref_reads == 5000)
		f->ns += 1000000000ULL;
	uint64_t hz = f->ref == REF_FAST ? PM_TIMER_HZ * 11 / 10 : PM_TIMER_HZ;
	uint64_t v = f->ns * hz / 1000000000ULL;
	if (f->ref == REF_STUCK)
		return 0xFFFFFF;
	if (f->ref == REF_WRAP)
		v += 0xFFFFFF - 1000; /* wraps a few hundred microseconds in */
	return (uint32_t)v & 0xFFFFFF;
}

static void f_apic_start(void *ctx)
{
	struct fake *f = ctx;
	f->apic_start_ns = f->ns;
}

static uint32_t f_apic_count(void *ctx)
{
	struct fake *f = ctx;
	uint32_t c =
	    (uint32_t)(0xFFFFFFFFu - (f->ns - f->apic_start_ns) * (APIC_HZ / 16) / 1000000000ULL);
	if (++f->apic_reads == f->apic_stall_at)
		f->ns += f->apic_stall_ns;
	return c;
}

static void f_cpuid(void *ctx, uint32_t leaf, uint32_t r[4])
{
	struct fake *f = ctx;
	const uint32_t *src = leaf == 0x15	    ? f->leaf15
			      : leaf == 0x16	    ? f->leaf16
			      : leaf == 0x40000010u ? f->leaf_hv_timing
						    : NULL;
	for (int i = 0; i < 4; i++)
		r[i] = src ? src[i] : 0;
	if (leaf == 0)
		r[0] = f->max_leaf;
	if (leaf == 1)
		r[2] = f->leaf1_ecx;
	if (leaf == 0x40000000u)
		r[0] = f->hv_max;
}

static struct clock_result run(struct fake *f)
{
	struct clock_ops o = {
	    .ctx = f,
	    .tsc = f_tsc,
	    .pit_start = f_pit_start,
	    .pit_out = f_pit_out,
	    .ref_read = f->ref == REF_NONE ? NULL : f_ref,
	    .ref_hz = PM_TIMER_HZ,
	    .ref_bits = 24,
	    .apic_start = f_apic_start,
	    .apic_count = f_apic_count,
	    .cpuid = f_cpuid,
	    .pv_tsc_hz = f_pv_tsc_hz,
	};
	struct clock_result r;
	clock_calibrate(&o, &r);
	return r;
}

/* Within 0.5%. */
static int near(uint64_t got, uint64_t want)
{
	return got >= want - want / 200 && got <= want + want / 200;
}

#define CASE(name, pitm, refm, want_src, want_pit, tsc, apic, ...)                                 \
	do {                                                                                       \
		struct fake f_ = {.pit = pitm, .ref = refm, __VA_ARGS__};                          \
		struct clock_result r_ = run(&f_);                                                 \
		UNIT_EQ(r_.source, want_src, name ": source");                                     \
		UNIT_EQ(r_.pit, want_pit, name ": PIT verdict");                                   \
		char d_[120];                                                                      \
		snprintf(d_, sizeof(d_), "tsc %llu (want %llu), apic %llu (want %llu)",            \
			 (unsigned long long)r_.tsc_hz, (unsigned long long)(tsc),                 \
			 (unsigned long long)r_.apic_hz, (unsigned long long)(apic));              \
		unit_result(near(r_.tsc_hz, tsc) && near(r_.apic_hz, apic), name ": rates",        \
			    __FILE__, __LINE__, d_);                                               \
		unit_result(f_.ns < 2000000000ULL, name ": bounded (under 2 s)", __FILE__,         \
			    __LINE__, "took too long");                                            \
	} while (0)

int main(void)
{
	/* Leaf 15H: crystal 24 MHz, TSC = crystal x 250 / 2 = 3 GHz. */
	const uint32_t l15[4] = {2, 250, 24000000, 0}, l15_no_crystal[4] = {2, 250, 0, 0};
	const uint32_t l16[4] = {3000, 3000, 100, 0};

	CASE("honest PIT, PM timer agrees", PIT_HONEST, REF_HONEST, CLOCK_PIT_CHECKED, PIT_OK,
	     TSC_HZ, APIC_HZ);
	CASE("honest PIT, no PM timer", PIT_HONEST, REF_NONE, CLOCK_PIT, PIT_OK, TSC_HZ, APIC_HZ);
	CASE("PIT never ready (pit=off, gated)", PIT_DEAD, REF_HONEST, CLOCK_REFERENCE,
	     PIT_NEVER_READY, TSC_HZ, APIC_HZ);
	CASE("PIT ready at once (floating port)", PIT_HIGH, REF_HONEST, CLOCK_REFERENCE,
	     PIT_READY_AT_ONCE, TSC_HZ, APIC_HZ);
	CASE("PIT window stalled by an SMI", PIT_SMI, REF_HONEST, CLOCK_REFERENCE, PIT_STALL,
	     TSC_HZ, APIC_HZ);
	CASE("PM timer across its 24-bit wrap", PIT_DEAD, REF_WRAP, CLOCK_REFERENCE,
	     PIT_NEVER_READY, TSC_HZ, APIC_HZ);
	/* A PIT 10% off its reference: the reference wins (its own rate). */
	CASE("PIT disagrees with the PM timer", PIT_HONEST, REF_FAST, CLOCK_REFERENCE, PIT_OK,
	     TSC_HZ * 10 / 11, APIC_HZ * 10 / 11);
	/* Bare metal, leaf 15H with the crystal: exact, nothing measured
	 * (the PIT and PM timer here would say 3 GHz / 100 MHz). */
	CASE("bare metal, CPUID.15H crystal enumerated: exact", PIT_HONEST, REF_HONEST,
	     CLOCK_CRYSTAL, PIT_NOT_RUN, TSC_HZ, 24000000, .max_leaf = 0x16,
	     .leaf15 = {l15[0], l15[1], l15[2]});
	/* Under a hypervisor the same leaf is only the last resort. */
	CASE("hypervisor, no PIT, PM timer stuck, CPUID.15H crystal", PIT_DEAD, REF_STUCK,
	     CLOCK_CPUID, PIT_NEVER_READY, TSC_HZ, 24000000, .max_leaf = 0x16,
	     .leaf15 = {l15[0], l15[1], l15[2]}, .leaf1_ecx = 1u << 31, .hv_max = 0x40000001);
	/* Cloud Hypervisor: 40000010H {TSC kHz, 1000000}: exact, preferred
	 * over an honest PIT and PM timer (which run at other rates here). */
	CASE("hypervisor timing leaf 40000010H: exact, first", PIT_HONEST, REF_HONEST,
	     CLOCK_HV_LEAF, PIT_NOT_RUN, 2994000000ULL, 1000000000ULL, .max_leaf = 0xD,
	     .leaf1_ecx = 1u << 31, .hv_max = 0x40000010, .leaf_hv_timing = {2994000, 1000000});
	CASE("hypervisor without 40000010H (KVM's 40000001H): measured", PIT_HONEST, REF_HONEST,
	     CLOCK_PIT_CHECKED, PIT_OK, TSC_HZ, APIC_HZ, .leaf1_ecx = 1u << 31,
	     .hv_max = 0x40000001, .leaf_hv_timing = {2994000, 1000000});
	/* KVM's kvmclock: the TSC rate exact, the APIC timer measured against
	 * the TSC alone (no PIT, no reference read: each is a VM exit). */
	{
		struct fake f = {.pit = PIT_HONEST,
				 .ref = REF_HONEST,
				 .leaf1_ecx = 1u << 31,
				 .hv_max = 0x40000001,
				 .pv_hz = TSC_HZ};
		struct clock_result r = run(&f);
		char d[120];
		snprintf(d, sizeof(d), "tsc %llu, apic %llu, %u PIT / %u reference reads",
			 (unsigned long long)r.tsc_hz, (unsigned long long)r.apic_hz, f.pit_reads,
			 f.ref_reads);
		UNIT_EQ(r.source, CLOCK_PVCLOCK, "kvmclock: the paravirtual clock's rate");
		UNIT_EQ(r.pit, PIT_NOT_RUN, "kvmclock: the PIT not run");
		unit_result(r.tsc_hz == TSC_HZ && near(r.apic_hz, APIC_HZ) && !f.ref_reads,
			    "kvmclock: TSC exact, APIC timer against it, no port read", __FILE__,
			    __LINE__, d);
		unit_result(f.ns < 3000000, "kvmclock: the APIC window is short (under 3 ms)",
			    __FILE__, __LINE__, d);
	}
	/* A loaded host: the vCPU preempted inside an APIC read. The midpoint
	 * of its TSC bracket is then up to half the stall off: 100 us on a
	 * 2 ms window is 5%; over 2% was seen. The window grows
	 * to 200 brackets (a 100 us stall at the start), or the measurement
	 * starts again (a 100 us stall at the end, 2 ms at the start). */
	CASE("kvmclock, the first APIC read preempted 100 us", PIT_HONEST, REF_HONEST,
	     CLOCK_PVCLOCK, PIT_NOT_RUN, TSC_HZ, APIC_HZ, .leaf1_ecx = 1u << 31,
	     .hv_max = 0x40000001, .pv_hz = TSC_HZ, .apic_stall_at = 1, .apic_stall_ns = 100000);
	CASE("kvmclock, the last APIC read preempted 100 us", PIT_HONEST, REF_HONEST, CLOCK_PVCLOCK,
	     PIT_NOT_RUN, TSC_HZ, APIC_HZ, .leaf1_ecx = 1u << 31, .hv_max = 0x40000001,
	     .pv_hz = TSC_HZ, .apic_stall_at = 2, .apic_stall_ns = 100000);
	CASE("kvmclock, the first APIC read preempted 2 ms", PIT_HONEST, REF_HONEST, CLOCK_PVCLOCK,
	     PIT_NOT_RUN, TSC_HZ, APIC_HZ, .leaf1_ecx = 1u << 31, .hv_max = 0x40000001,
	     .pv_hz = TSC_HZ, .apic_stall_at = 1, .apic_stall_ns = 2000000);
	CASE("40000010H before the paravirtual clock", PIT_HONEST, REF_HONEST, CLOCK_HV_LEAF,
	     PIT_NOT_RUN, 2994000000ULL, 1000000000ULL, .leaf1_ecx = 1u << 31, .hv_max = 0x40000010,
	     .leaf_hv_timing = {2994000, 1000000}, .pv_hz = TSC_HZ);
	CASE("hypervisor leaf 40000010H with zeros: measured", PIT_HONEST, REF_HONEST,
	     CLOCK_PIT_CHECKED, PIT_OK, TSC_HZ, APIC_HZ, .leaf1_ecx = 1u << 31,
	     .hv_max = 0x40000010);
	/* A loaded host (make test on 2 shared cores): the first reference
	 * window has a gap longer than the counter's wrap; measured again. */
	{
		struct fake f = {.pit = PIT_HIGH, .ref = REF_PREEMPTED, .max_leaf = 0xD};
		struct clock_result r = run(&f);
		char d[120];
		snprintf(d, sizeof(d), "tsc %llu (want %llu)", (unsigned long long)r.tsc_hz,
			 (unsigned long long)TSC_HZ);
		UNIT_EQ(r.source, CLOCK_REFERENCE, "preempted past the wrap: the reference still");
		unit_result(near(r.tsc_hz, TSC_HZ) && near(r.apic_hz, APIC_HZ),
			    "preempted past the wrap: the window measured again, rates right",
			    __FILE__, __LINE__, d);
	}
	{
		struct fake f = {.pit = PIT_HIGH, .ref = REF_PREEMPTED_SHORT, .max_leaf = 0xD};
		struct clock_result r = run(&f);
		UNIT_EQ(r.source, CLOCK_REFERENCE, "preempted under half the wrap: the reference");
		UNIT_EQ(near(r.tsc_hz, TSC_HZ) && f.ref_reads < 10000, 1,
			"preempted under half the wrap: one window, rates right");
	}
	/* Cloud Hypervisor without the leaf: port 61H reads 20H (ready at
	 * once), no PIT (channel 0 reads a constant): the dead reference is
	 * abandoned after STUCK_READS reads, not 2^18 (port exits are slow). */
	{
		struct fake f = {.pit = PIT_HIGH, .ref = REF_STUCK, .max_leaf = 0xD};
		struct clock_result r = run(&f);
		UNIT_EQ(r.source, CLOCK_ASSUMED, "dead reference: nothing measured");
		char d[80];
		snprintf(d, sizeof(d), "%u reads of the dead reference", f.ref_reads);
		unit_result(f.ref_reads <= 2000, "dead reference abandoned within 2000 reads",
			    __FILE__, __LINE__, d);
	}
	CASE("no PIT, no PM timer, crystal from CPUID.16H", PIT_HIGH, REF_NONE, CLOCK_CPUID,
	     PIT_READY_AT_ONCE, TSC_HZ, 24000000, .max_leaf = 0x16,
	     .leaf15 = {l15_no_crystal[0], l15_no_crystal[1], 0},
	     .leaf16 = {l16[0], l16[1], l16[2]});
	CASE("nothing at all", PIT_DEAD, REF_NONE, CLOCK_ASSUMED, PIT_NEVER_READY, 0, 100000000,
	     .max_leaf = 0xD);

	UNIT_STREQ(clock_source_name(CLOCK_PIT_CHECKED), "PIT, checked by the",
		   "source name (apic.c adds the reference's)");
	UNIT_STREQ(pit_verdict_name(PIT_STALL), "stalled", "PIT verdict name");
	return unit_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * The local APIC (SDM Vol. 3A chapter 10): xAPIC MMIO, or x2APIC MSRs when
 * CPUID.01H:ECX[21] says the CPU has it; the spurious vector, the LVT
 * performance-monitoring entry, EOI, and the timer as the watchdog.
 *
 * Timer calibration (calibrate.c): PIT channel 2 where its run is
 * plausible, checked against the ACPI PM timer; the PM timer alone where
 * the PIT is gated off or disagrees; CPUID.15H/16H where neither counts.
 * The platform line names the source used.
 */
#include "x86.h"

#include "calibrate.h"

#include "kstring.h"
#include "ktap.h"

static volatile uint32_t *xapic;
static bool x2apic;
static uint64_t timer_hz; /* APIC timer ticks per second at divide-by-1 */
static const char *calibration = "uncalibrated";
static uint64_t tsc_hz; /* 0: unknown */

uint64_t arch_tsc_hz(void)
{
	return tsc_hz;
}

static uint32_t apic_read(uint32_t off)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(off));
	return xapic[off / 4];
}

static void apic_write(uint32_t off, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(off), v);
	else
		xapic[off / 4] = v;
}

bool arch_apic_is_x2apic(void)
{
	return x2apic;
}

uint32_t arch_apic_read_lvt_pmi(void)
{
	return apic_read(APIC_REG_LVT_PMI);
}

void arch_apic_write_lvt_pmi(uint32_t val)
{
	struct x86_percpu *c = this_cpu();
	unsigned vec = val & 0xFF;

	/* What the PMU can send from now on is its own, not the platform's
	 * (trap.c): the NMI mode, the vector. */
	c->lvt_nmi_seen |= FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, val) == APIC_DM_NMI;
	c->lvt_vectors[vec / 64] |= BIT_ULL(vec % 64);
	apic_write(APIC_REG_LVT_PMI, val);
}

void arch_apic_eoi(void)
{
	apic_write(APIC_REG_EOI, 0);
}

/*
 * An IPI by physical destination, no shorthand, edge (Figure 10-12). xAPIC:
 * the high half first, the write of the low half sends; then wait for
 * Delivery Status idle, bounded so that a send that never completes does not
 * hang the caller. x2APIC: one WRMSR of all 64 bits, no Delivery Status
 * (10.12.9).
 */
/* This CPU's APIC ID: x2APIC's 32 bits, or xAPIC's ID[31:24]. */
uint32_t apic_self_id(void)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(APIC_REG_ID));
	return (uint32_t)FIELD_GET_ULL(APIC_ID_XAPIC, apic_read(APIC_REG_ID));
}

bool apic_send_ipi(uint32_t apic_id, uint32_t low)
{
	if (x2apic) {
		wrmsr(X2APIC_MSR(APIC_REG_ICR),
		      low | FIELD_PREP_ULL(APIC_ICR_X2APIC_DEST, (uint64_t)apic_id));
		return true;
	}
	if (apic_id > 0xFF)
		return false;
	uint64_t icr = FIELD_PREP_ULL(APIC_ICR_XAPIC_DEST, (uint64_t)apic_id);
	apic_write(APIC_REG_ICR_HI, (uint32_t)(icr >> 32));
	apic_write(APIC_REG_ICR, low);
	for (unsigned i = 0; i < 1000000; i++) {
		if (!(apic_read(APIC_REG_ICR) & APIC_ICR_DELIVERY_STATUS))
			return true;
		cpu_relax();
	}
	return false;
}

/* An NMI to this CPU by its physical APIC ID: the "self" shorthand is valid
 * with fixed delivery only (SDM Vol. 3A 10.6.1 Table 10-3). */
void arch_apic_self_nmi(void)
{
	uint32_t low = FIELD_PREP_ULL(APIC_ICR_DELIVERY_MODE, APIC_DM_NMI) | APIC_ICR_LEVEL_ASSERT;

	apic_send_ipi(apic_self_id(), low);
}

/* A fixed interrupt at `vector` to this CPU: the self shorthand (ICR bits
 * 19:18 = 01b) is valid with fixed delivery (SDM Vol. 3A 10.6.1). */
void apic_self_ipi(uint8_t vector)
{
	uint64_t icr = vector | (1ULL << 18) | APIC_ICR_LEVEL_ASSERT;

	if (x2apic) {
		wrmsr(X2APIC_MSR(APIC_REG_ICR), icr);
		return;
	}
	apic_write(APIC_REG_ICR_HI, 0);
	apic_write(APIC_REG_ICR, (uint32_t)icr);
	for (unsigned i = 0; i < 1000000 && (apic_read(APIC_REG_ICR) & APIC_ICR_DELIVERY_STATUS);
	     i++)
		cpu_relax();
}

uint32_t apic_timer_hz(void)
{
	return (uint32_t)timer_hz;
}

const char *apic_calibration_source(void)
{
	return calibration;
}

/* Divide configuration register encodings, SDM Vol. 3A Figure 10-10. */
static const struct {
	uint32_t div, bits;
} dividers[] = {{1, 0xB},  {2, 0x0},  {4, 0x1},	 {8, 0x2},
		{16, 0x3}, {32, 0x8}, {64, 0x9}, {128, 0xA}};

/* The machine side of calibrate.c: ports, the TSC, the APIC timer. */
static uint64_t op_tsc(void *ctx)
{
	(void)ctx;
	return arch_rdtsc();
}

static void op_pit_start(void *ctx, uint16_t latch)
{
	(void)ctx;
	outb(0x61, (inb(0x61) & ~0x02) | 0x01); /* gate on, speaker off */
	outb(0x43, 0xB0);			/* channel 2, lobyte/hibyte, mode 0, binary */
	outb(0x42, latch & 0xFF);
	outb(0x42, (uint8_t)(latch >> 8));
}

static bool op_pit_out(void *ctx)
{
	(void)ctx;
	return inb(0x61) & 0x20;
}

static uint32_t op_pm_timer(void *ctx)
{
	uint32_t v;
	__asm__ volatile("inl %w1, %0" : "=a"(v) : "Nd"((uint16_t)(uintptr_t)ctx));
	return v;
}

/* PIT channel 0 as an up-counter: mode 2 (rate generator), reload 0
 * (65536), so it counts 65536 periods over and over; a latch command
 * (counter 0, 00H) freezes the count for the two reads (8254 data sheet,
 * "Counter Latch Command"). */
static void pit0_start(void)
{
	outb(0x43, 0x34); /* channel 0, lobyte/hibyte, mode 2, binary */
	outb(0x40, 0);
	outb(0x40, 0);
}

static uint32_t op_pit0(void *ctx)
{
	(void)ctx;
	outb(0x43, 0x00);
	uint32_t lo = inb(0x40);
	return 0x10000u - (lo | (uint32_t)inb(0x40) << 8);
}

static void op_apic_start(void *ctx)
{
	(void)ctx;
	apic_write(APIC_REG_TIMER_INITIAL, 0);
	apic_write(APIC_REG_TIMER_DIVIDE, 0x3);
	apic_write(APIC_REG_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
	apic_write(APIC_REG_TIMER_INITIAL, 0xFFFFFFFF);
}

static uint32_t op_apic_count(void *ctx)
{
	(void)ctx;
	return apic_read(APIC_REG_TIMER_CURRENT);
}

static void op_cpuid(void *ctx, uint32_t leaf, uint32_t r[4])
{
	(void)ctx;
	arch_cpuid(leaf, 0, (struct cpuid_regs *)r);
}

static uint64_t op_pv_tsc_hz(void *ctx)
{
	(void)ctx;
	return x86_pvclock_tsc_hz();
}

static void calibrate(const struct acpi_reg *pm)
{
	static char text[112];
	struct clock_result res;
	bool io = pm->addr && pm->space == ACPI_SPACE_IO;
	const struct clock_ops o = {
	    .ctx = (void *)(uintptr_t)pm->addr,
	    .tsc = op_tsc,
	    .pit_start = op_pit_start,
	    .pit_out = op_pit_out,
	    .ref_read = io ? op_pm_timer : op_pit0,
	    .ref_hz = io ? PM_TIMER_HZ : PIT_HZ,
	    .ref_bits = io ? pm->bits : 16,
	    .ref_name = io ? "ACPI PM timer" : "PIT channel 0",
	    .apic_start = op_apic_start,
	    .apic_count = op_apic_count,
	    .cpuid = op_cpuid,
	    .pv_tsc_hz = op_pv_tsc_hz,
	};

	if (!io)
		pit0_start();
	clock_calibrate(&o, &res);
	apic_write(APIC_REG_TIMER_INITIAL, 0);
	timer_hz = res.apic_hz;
	tsc_hz = res.tsc_hz;
	/* "PIT, checked by the ACPI PM timer", "PIT channel 0", ...: the
	 * reference named where it decided or checked. */
	bool ref = res.source == CLOCK_PIT_CHECKED || res.source == CLOCK_REFERENCE;
	ksnprintf(text, sizeof(text), "%s%s%s (PIT: %s)", clock_source_name(res.source),
		  res.source == CLOCK_PIT_CHECKED ? " " : "", ref ? o.ref_name : "",
		  res.pit == PIT_OK && res.source == CLOCK_REFERENCE ? "off by >2%"
								     : pit_verdict_name(res.pit));
	calibration = text;
}

/* This CPU's local APIC in the mode the boot CPU chose (apic_init): x2APIC
 * where CPUID.01H:ECX[21] has it, enabled, every interrupt priority
 * accepted, the timer and PMI entries masked. */
void apic_cpu_init(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	if (x2apic) {
		/* xAPIC -> x2APIC: EN must already be set (SDM Vol. 3A 10.12.5);
		 * a CPU already in x2APIC mode keeps EXTD in `base`. */
		base |= APIC_BASE_EN;
		wrmsr(MSR_IA32_APIC_BASE, base);
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EXTD);
	} else if (!(base & APIC_BASE_EN)) {
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN);
	}
	apic_write(0x80, 0); /* TPR: accept every priority class */
	apic_write(APIC_REG_SVR, SPURIOUS_VECTOR | APIC_SVR_ENABLE);
	apic_write(APIC_REG_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
	/* A PMI before the kernel asks for one would be a surprise: masked,
	 * fixed delivery at PMI_VECTOR. */
	apic_write(APIC_REG_LVT_PMI, APIC_LVT_MASKED | PMI_VECTOR);
}

void apic_init(uint64_t lapic_phys, const struct acpi_reg *pm_timer)
{
	struct cpuid_regs r;

	/* The legacy PICs stay silent: every interrupt we take is the APIC's. */
	outb(0x21, 0xFF);
	outb(0xA1, 0xFF);

	if (!lapic_phys)
		lapic_phys = rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR;
	arch_cpuid(1, 0, &r);
	x2apic = r.ecx & BIT_ULL(21);
	if (!x2apic)
		xapic = (volatile uint32_t *)lapic_phys;
	apic_cpu_init();
	calibrate(pm_timer);
}

void apic_watchdog_arm(uint32_t ms)
{
	uint64_t ticks = timer_hz * ms / 1000;
	unsigned i = 0;

	while (i + 1 < ARRAY_SIZE(dividers) && ticks / dividers[i].div > 0xFFFFFFFFULL)
		i++;
	ticks /= dividers[i].div;
	if (ticks > 0xFFFFFFFFULL)
		ticks = 0xFFFFFFFFULL;
	if (ticks == 0)
		ticks = 1;
	apic_write(APIC_REG_TIMER_INITIAL, 0);
	apic_write(APIC_REG_TIMER_DIVIDE, dividers[i].bits);
	apic_write(APIC_REG_LVT_TIMER, TIMER_VECTOR); /* one-shot, unmasked */
	apic_write(APIC_REG_TIMER_INITIAL, (uint32_t)ticks);
}

void apic_watchdog_disarm(void)
{
	apic_write(APIC_REG_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
	apic_write(APIC_REG_TIMER_INITIAL, 0);
}

/* A one-shot timer that fired has counted down to 0; a tick still pending
 * from a run that ended just as it fired finds the next run's count. */
bool apic_watchdog_expired(void)
{
	return apic_read(APIC_REG_TIMER_CURRENT) == 0;
}

/* ---- Saved around each test (state.c) ---------------------------------- */

#define APIC_REG_TPR	 0x080
#define APIC_REG_ISR	 0x100 /* 8 registers of 32 bits, 10H apart */
#define APIC_REG_LINT0	 0x350
#define APIC_REG_LINT1	 0x360
#define APIC_REG_LVT_ERR 0x370

bool apic_in_service(unsigned v)
{
	return apic_read(APIC_REG_ISR + 0x10 * (v / 32)) & (1u << (v % 32));
}

/* Per CPU: a CPU's run may happen inside another CPU's (smp.c). */
static uint64_t saved_base_of[ARCH_MAX_CPUS];
static uint32_t saved_lvt_pmi_of[ARCH_MAX_CPUS];
#define saved_base    (saved_base_of[this_cpu()->index])
#define saved_lvt_pmi (saved_lvt_pmi_of[this_cpu()->index])
/* The last restore put every saved register back (or found it so). */
static bool kept_of[ARCH_MAX_CPUS];
#define kept (kept_of[this_cpu()->index])

void apic_state_save(uint32_t *tpr, uint32_t *svr, uint32_t *lint0, uint32_t *lint1,
		     uint32_t *lvt_err)
{
	/* The values saved last stand after a complete restore: it left each
	 * register equal to them, and outside a guarded run only a CPU's start
	 * (apic_cpu_init) writes them. Seven reads fewer per guarded run,
	 * each a VM exit under a hypervisor. */
	if (kept)
		return;
	saved_base = rdmsr(MSR_IA32_APIC_BASE);
	saved_lvt_pmi = apic_read(APIC_REG_LVT_PMI);
	*tpr = apic_read(APIC_REG_TPR);
	*svr = apic_read(APIC_REG_SVR);
	*lint0 = apic_read(APIC_REG_LINT0);
	*lint1 = apic_read(APIC_REG_LINT1);
	*lvt_err = apic_read(APIC_REG_LVT_ERR);
}

static bool any_in_service(void)
{
	for (uint32_t i = 0; i < 8; i++)
		if (apic_read(APIC_REG_ISR + 0x10 * i))
			return true;
	return false;
}

/* In the guard's epilogue: in x2APIC mode a reserved bit is #GP (SDM Vol.
 * 3A 10.12.1.2), and a fault here would re-enter the same epilogue, so the
 * WRMSR is a probe. */
static void apic_write_safe(uint32_t off, uint32_t v)
{
	if (x2apic)
		(void)wrmsr_safe(X2APIC_MSR(off), v);
	else
		xapic[off / 4] = v;
}

static void put_back(uint32_t reg, uint32_t want, const char *name, char *changed, size_t size)
{
	if (apic_read(reg) == want)
		return;
	apic_write_safe(reg, want);
	size_t n = kstrlen(changed);
	ksnprintf(changed + n, size - n, "%slocal APIC %s", n ? ", " : "", name);
}

/* Puts the local APIC back (names of what differed appended to changed);
 * returns the number of EOIs it took to leave no vector in service. */
unsigned apic_state_restore(uint32_t tpr, uint32_t svr, uint32_t lint0, uint32_t lint1,
			    uint32_t lvt_err, char *changed, size_t size)
{
	uint64_t base;
	unsigned eois = 0;
	bool ok = true;

	kept = false;

	/* A disabled APIC, or one left in the other mode, first (SDM Vol. 3A
	 * 10.12.5: x2APIC is entered from xAPIC, with EN set, and left only
	 * by disabling: from x2APIC mode the saved value is written at once). */
	if (rdmsr_safe(MSR_IA32_APIC_BASE, &base) == 0 && base != saved_base) {
		if (!(base & APIC_BASE_EXTD))
			wrmsr_safe(MSR_IA32_APIC_BASE,
				   (saved_base & ~APIC_BASE_EXTD) | APIC_BASE_EN);
		ok = wrmsr_safe(MSR_IA32_APIC_BASE, saved_base) == 0;
		size_t n = kstrlen(changed);
		ksnprintf(changed + n, size - n, "%sIA32_APIC_BASE", n ? ", " : "");
	}
	put_back(APIC_REG_SVR, svr, "SVR (software enable)", changed, size);
	put_back(APIC_REG_TPR, tpr, "TPR", changed, size);
	put_back(APIC_REG_LINT0, lint0, "LVT LINT0", changed, size);
	put_back(APIC_REG_LINT1, lint1, "LVT LINT1", changed, size);
	put_back(APIC_REG_LVT_ERR, lvt_err, "LVT error", changed, size);
	apic_write_safe(APIC_REG_LVT_PMI, saved_lvt_pmi);
	/* Each EOI retires the highest-priority vector in service (10.8.5). */
	while (any_in_service() && eois < 256) {
		arch_apic_eoi();
		eois++;
	}
	kept = ok;
	return eois;
}

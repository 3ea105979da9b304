/* SPDX-License-Identifier: MIT */
/*
 * The watchdog a test cannot block: an NMI at the deadline, from an HPET
 * comparator routed through the I/O APIC in NMI delivery mode.
 *
 * The local APIC timer ends hangs as a maskable interrupt; its LVT has no
 * delivery-mode field (SDM Vol. 3A 11.5.1, Figure 11-8), so RFLAGS.IF = 0, a
 * raised TPR, a masked LVT or a disabled APIC hold it back. An NMI is held
 * back by none of these (Vol. 3A 6.7.1; a software-disabled local APIC still
 * accepts NMI messages, 11.4.7.2). The I/O APIC's redirection entries have a
 * delivery mode (NMI = 100B, 82093AA datasheet 3.2.4), and the HPET's timers
 * can be routed to an I/O APIC input (IA-PC HPET 1.0a, 2.3.8: Tn_INT_ROUTE_CNF
 * among the pins of Tn_INT_ROUTE_CAP, taken only from 16 up), or through the
 * legacy replacement route (timer 0 on IRQ0, pin 2, the PIT's IRQ0 cut off,
 * 2.3.9) where no such pin is offered (QEMU's i440FX machine offers pin 2
 * only), one-shot against a 64-bit counter.
 *
 * It is a backstop: armed for the test's timeout plus a margin, so the APIC
 * timer reports first when it can. Where there is no HPET at FED00000H or no
 * I/O APIC at FEC00000H (the PC defaults; both mapped by paging.c), or no
 * usable route, there is no NMI watchdog, the platform line says so, and a
 * hang with interrupts off stays a hang (docs/robustness.md).
 */
#include "x86.h"

#include "ktap.h"

#define HPET_BASE   0xFED00000ULL
#define IOAPIC_BASE 0xFEC00000ULL

#define HPET_GCAP	   0x000
#define HPET_GCONF	   0x010
#define HPET_COUNTER	   0x0F0
#define HPET_TCONF(n)	   (0x100 + 0x20 * (n))
#define HPET_TCMP(n)	   (0x108 + 0x20 * (n))
#define HPET_ENABLE	   BIT_ULL(0)
#define HPET_LEGACY	   BIT_ULL(1)
#define HPET_T_INT_ENB	   BIT_ULL(2)
#define HPET_T_PERIODIC	   BIT_ULL(3)
#define HPET_T_SIZE_64	   BIT_ULL(5)
#define HPET_T_32MODE	   BIT_ULL(8)
#define HPET_T_ROUTE_SHIFT 9
#define HPET_T_FSB	   BIT_ULL(14)

#define MARGIN_MS 250

static volatile uint64_t *hpet;
static volatile uint32_t *ioapic;
static uint64_t fs_per_tick;
static unsigned timer, pin;
static volatile bool armed, fired, swallow;
static volatile uint64_t deadline;
static const char *status = "none (no HPET at FED00000H)";

static uint64_t hpet_read(unsigned off)
{
	return hpet[off / 8];
}

static void hpet_write(unsigned off, uint64_t v)
{
	hpet[off / 8] = v;
}

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic[0] = reg;
	return ioapic[4];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic[0] = reg;
	ioapic[4] = v;
}

const char *nmi_watchdog_status(void)
{
	return status;
}

void nmi_watchdog_init(uint32_t bsp_apic_id)
{
	hpet = (volatile uint64_t *)HPET_BASE;
	uint64_t cap = hpet_read(HPET_GCAP);
	fs_per_tick = cap >> 32;
	/* Period 0 or above 100 ns is no HPET (spec 2.3.4); all ones: nothing. */
	if (cap == ~0ULL || fs_per_tick == 0 || fs_per_tick > 100000000ULL) {
		hpet = NULL;
		return;
	}
	ioapic = (volatile uint32_t *)IOAPIC_BASE;
	uint32_t ver = ioapic_read(1);
	unsigned max_entry = (ver >> 16) & 0xFF;
	if (ver == ~0U || max_entry == 0 || bsp_apic_id > 0xFF) {
		status = "none (no I/O APIC at FEC00000H, or an APIC ID above FFH)";
		hpet = NULL;
		return;
	}
	unsigned timers = (unsigned)((cap >> 8) & 0x1F) + 1;
	uint64_t g = hpet_read(HPET_GCONF);
	bool legacy = false;
	/* The last timer with a 64-bit comparator and a route to an I/O APIC
	 * pin of its own (16 and up: pins below are ISA IRQs, the PIT's among
	 * them, whose interrupts would arrive as NMIs too). */
	for (unsigned n = timers; n-- > 0;) {
		uint64_t conf = hpet_read(HPET_TCONF(n));
		uint32_t routes = (uint32_t)(conf >> 32);
		if (!(conf & HPET_T_SIZE_64))
			continue;
		for (unsigned p = max_entry + 1; p-- > 16;) {
			if (p < 32 && (routes & (1U << p))) {
				timer = n;
				pin = p;
				goto found;
			}
		}
	}
	/* Else the legacy replacement route (spec 2.3.9): timer 0 drives IRQ0,
	 * I/O APIC pin 2 on a PC, and the PIT's IRQ0 is cut off. */
	if (!(hpet_read(HPET_TCONF(0)) & HPET_T_SIZE_64) || max_entry < 2) {
		status = "none (no HPET timer with a 64-bit comparator and a route of its own)";
		hpet = NULL;
		return;
	}
	timer = 0;
	pin = 2;
	legacy = true;
	hpet_write(HPET_GCONF, g | HPET_LEGACY); /* the PIT's IRQ0 stops here */
found:;
	/* The timer: one-shot, edge, disabled until armed (routed to the pin
	 * unless the legacy route applies). */
	uint64_t conf = hpet_read(HPET_TCONF(timer));
	conf &=
	    ~(HPET_T_INT_ENB | HPET_T_PERIODIC | HPET_T_32MODE | HPET_T_FSB | (0x1FULL << 9) | 2);
	hpet_write(HPET_TCONF(timer), conf | (legacy ? 0 : (uint64_t)pin << HPET_T_ROUTE_SHIFT));
	/* The pin: NMI delivery (100B), physical destination, edge, unmasked. */
	ioapic_write(0x11 + 2 * pin, bsp_apic_id << 24);
	ioapic_write(0x10 + 2 * pin, 4u << 8);
	g = hpet_read(HPET_GCONF);
	hpet_write(HPET_GCONF, (legacy ? g : g & ~HPET_LEGACY) | HPET_ENABLE);
	static char desc[112];
	ksnprintf(desc, sizeof(desc), "HPET timer %u one-shot, %s I/O APIC pin %u, NMI", timer,
		  legacy ? "legacy IRQ0 route to" : "routed to", pin);
	status = desc;
}

bool nmi_watchdog_available(void)
{
	return hpet != NULL;
}

void nmi_watchdog_arm(uint32_t ms)
{
	if (!hpet)
		return;
	uint64_t ticks = ((uint64_t)ms + MARGIN_MS) * (1000000000000ULL / fs_per_tick);
	/* To the CPU that runs the guarded code (smp.c: any CPU may): the pin's
	 * physical destination is an 8-bit APIC ID. */
	uint32_t id = apic_self_id();
	if (id > 0xFF)
		return;
	ioapic_write(0x11 + 2 * pin, id << 24);
	fired = false;
	deadline = hpet_read(HPET_COUNTER) + ticks;
	hpet_write(HPET_TCMP(timer), deadline);
	armed = true;
	hpet_write(HPET_TCONF(timer), hpet_read(HPET_TCONF(timer)) | HPET_T_INT_ENB);
}

void nmi_watchdog_disarm(void)
{
	if (!hpet || !armed)
		return;
	hpet_write(HPET_TCONF(timer), hpet_read(HPET_TCONF(timer)) & ~HPET_T_INT_ENB);
	armed = false;
	/* Past the deadline and not taken: its NMI is on its way; not a test's. */
	if (!fired && hpet_read(HPET_COUNTER) >= deadline)
		swallow = true;
}

/* From the NMI path: true when this NMI is the watchdog's (then the caller
 * abandons the test), or a late one to ignore (*ignore set). */
bool nmi_watchdog_claims(bool *ignore)
{
	*ignore = false;
	if (!hpet)
		return false;
	if (armed && hpet_read(HPET_COUNTER) >= deadline) {
		fired = true;
		armed = false;
		hpet_write(HPET_TCONF(timer), hpet_read(HPET_TCONF(timer)) & ~HPET_T_INT_ENB);
		return true;
	}
	if (swallow) {
		swallow = false;
		*ignore = true;
	}
	return false;
}

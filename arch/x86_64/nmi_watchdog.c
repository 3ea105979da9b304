/* SPDX-License-Identifier: MIT */
/*
 * The watchdog a test cannot block: an NMI at the deadline from an HPET
 * comparator (IA-PC HPET 1.0a), one-shot against its 64-bit counter.
 *
 * The local APIC timer ends hangs as a maskable interrupt; its LVT has no
 * delivery-mode field (SDM Vol. 3A 11.5.1, Figure 11-8), so RFLAGS.IF = 0, a
 * raised TPR, a masked LVT or a disabled APIC hold it back. An NMI is held
 * back by none of these (Vol. 3A 6.7.1; a software-disabled local APIC still
 * accepts NMI messages, 11.4.7.2).
 *
 * Where everything is, from ACPI only (boot/acpi.c): the HPET from its
 * ACPI table, the I/O APICs and the ISA overrides from the MADT. Firmware
 * may leave HPET timers enabled; every timer's interrupt is switched off
 * first (Linux hpet_enable() clears Tn_INT_ENB, level and FSB on every
 * channel the same way), so that enabling the HPET starts nothing else.
 * The route, in order of preference:
 *
 *   1. an FSB message (Tn_FSB_INT_DEL_CAP, HPET 2.3.8): an MSI write to the
 *      local APIC with NMI delivery (SDM Vol. 3A 11.11.1-2): no interrupt
 *      pin at all. Intel PCHs offer it on every timer; their I/O APIC routes
 *      (pins 20-23) are PCI INTx lines, and the datasheets (e.g. 6 Series
 *      5.17.2) forbid an edge-mode timer on a pin shared with PCI;
 *   2. an I/O APIC pin of Tn_INT_ROUTE_CAP from 16 up (Linux's hpet driver
 *      also skips the ISA IRQs 0-15) that no ISA override targets and whose
 *      entry firmware left masked: NMI delivery, which the I/O APIC takes
 *      edge-triggered only (82093AA 3.2.4), so the timer is in edge mode and
 *      the pin active high, the level an edge-mode HPET drives (Linux
 *      registers a level, active-low line only for level mode, to share it
 *      with PCI);
 *   3. the legacy replacement route (HPET 2.3.9): timer 0 on ISA IRQ0 (the
 *      PIT's IRQ0 cut off), at the GSI and polarity the MADT's override for
 *      IRQ0 gives (identity, active high without one).
 *
 * The destination is an 8-bit APIC ID in both message formats: a boot CPU
 * above FFH has no NMI watchdog. Each arm targets the CPU that runs the
 * guarded code; a step on another CPU (smp.c) puts the previous target and
 * deadline back when it ends (nmi_watchdog_resume). It is a backstop: armed
 * for the test's timeout plus a margin, so the APIC timer reports first
 * when it can. Without it the platform line says "none" and why.
 */
#include "x86.h"

#include "ktap.h"

#define HPET_GCAP	   0x000
#define HPET_GCONF	   0x010
#define HPET_COUNTER	   0x0F0
#define HPET_TCONF(n)	   (0x100 + 0x20 * (n))
#define HPET_TCMP(n)	   (0x108 + 0x20 * (n))
#define HPET_TFSB(n)	   (0x110 + 0x20 * (n))
#define HPET_ENABLE	   BIT_ULL(0)
#define HPET_LEGACY	   BIT_ULL(1)
#define HPET_LEGACY_CAP	   BIT_ULL(15)
#define HPET_T_LEVEL	   BIT_ULL(1)
#define HPET_T_INT_ENB	   BIT_ULL(2)
#define HPET_T_PERIODIC	   BIT_ULL(3)
#define HPET_T_SIZE_64	   BIT_ULL(5)
#define HPET_T_32MODE	   BIT_ULL(8)
#define HPET_T_ROUTE_SHIFT 9
#define HPET_T_FSB	   BIT_ULL(14)
#define HPET_T_FSB_CAP	   BIT_ULL(15)
#define IOAPIC_NMI	   (4u << 8) /* delivery mode 100B; edge, unmasked */
#define IOAPIC_ACTIVE_LOW  BIT_ULL(13)
#define IOAPIC_MASKED	   BIT_ULL(16)
#define MSI_ADDRESS	   0xFEE00000u /* + destination APIC ID << 12 */
#define INTI_POLARITY_LOW  3u	       /* MPS INTI flags bits 1:0 = 11B */

#define MARGIN_MS 250

enum route { ROUTE_FSB, ROUTE_PIN, ROUTE_LEGACY };

static volatile uint64_t *hpet;
static volatile uint32_t *ioapic;
static uint64_t fs_per_tick;
static unsigned timer, pin;
static enum route route;
static volatile bool armed, fired, swallow;
static volatile uint64_t deadline;
static uint32_t target_id;
/* The timer's configuration register as last written: the timer is ours
 * from init on, so arming and disarming write it without reading it first
 * (under a hypervisor each HPET access is an exit to the VMM). */
static uint64_t tconf;
static const char *status = "none (no ACPI HPET table)";

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

/* The I/O APIC of GSI gsi (its pin in *p); false when none has it. */
static bool ioapic_of(const struct x86_handoff *h, uint32_t gsi, unsigned *p)
{
	for (uint32_t i = 0; i < h->ioapic_count; i++) {
		ioapic = (volatile uint32_t *)h->ioapics[i].phys;
		paging_map_uncached(h->ioapics[i].phys, 4096);
		uint32_t ver = ioapic_read(1), first = h->ioapics[i].gsi_base;
		if (ver != ~0U && gsi >= first && gsi - first <= ((ver >> 16) & 0xFF)) {
			*p = gsi - first;
			return true;
		}
	}
	return false;
}

/* A pin for `gsi` nothing else uses: no ISA override names it, and
 * firmware left its redirection entry masked. */
static bool free_pin(const struct x86_handoff *h, uint32_t gsi, unsigned *p)
{
	for (uint32_t i = 0; i < h->override_count; i++)
		if (h->overrides[i].gsi == gsi)
			return false;
	return ioapic_of(h, gsi, p) && (ioapic_read(0x10 + 2 * *p) & IOAPIC_MASKED);
}

/* Deliver to APIC ID id: the FSB message's address or the pin's
 * destination field (SDM Vol. 3A 11.11.1; 82093AA 3.2.4). */
static void target(uint32_t id)
{
	static bool targeted;

	if (targeted && id == target_id)
		return; /* already there: no device access (an exit under a VMM) */
	targeted = true;
	target_id = id;
	if (route == ROUTE_FSB)
		hpet_write(HPET_TFSB(timer), (uint64_t)(MSI_ADDRESS | id << 12) << 32 | IOAPIC_NMI);
	else
		ioapic_write(0x11 + 2 * pin, id << 24);
}

static const char *choose(const struct x86_handoff *h)
{
	unsigned timers = (unsigned)((hpet_read(HPET_GCAP) >> 8) & 0x1F) + 1;

	/* Every timer's interrupt off before anything is enabled. */
	for (unsigned n = 0; n < timers; n++)
		hpet_write(HPET_TCONF(n), hpet_read(HPET_TCONF(n)) &
					      ~(HPET_T_INT_ENB | HPET_T_LEVEL | HPET_T_FSB));
	for (route = ROUTE_FSB; route <= ROUTE_PIN; route++) {
		for (timer = timers; timer-- > 0;) {
			uint64_t conf = hpet_read(HPET_TCONF(timer));
			if (!(conf & HPET_T_SIZE_64))
				continue;
			if (route == ROUTE_FSB && (conf & HPET_T_FSB_CAP))
				return NULL;
			for (unsigned g = 32; route == ROUTE_PIN && g-- > 16;)
				if (((conf >> 32) & (1u << g)) && free_pin(h, g, &pin)) {
					pin = g; /* the route field takes the GSI */
					return NULL;
				}
		}
	}
	if (!(hpet_read(HPET_GCAP) & HPET_LEGACY_CAP) ||
	    !(hpet_read(HPET_TCONF(0)) & HPET_T_SIZE_64))
		return "none (no 64-bit HPET timer with a free route)";
	route = ROUTE_LEGACY;
	timer = 0;
	pin = 0;
	return NULL;
}

void nmi_watchdog_init(const struct x86_handoff *h, uint32_t bsp_apic_id)
{
	static char desc[112];
	uint32_t gsi = 0;
	uint64_t low = IOAPIC_NMI;

	if (!h->hpet_phys)
		return;
	paging_map_uncached(h->hpet_phys, 4096);
	hpet = (volatile uint64_t *)h->hpet_phys;
	uint64_t cap = hpet_read(HPET_GCAP);
	fs_per_tick = cap >> 32;
	/* Period 0 or above 100 ns is no HPET (spec 2.3.4); all ones: nothing. */
	if (cap == ~0ULL || fs_per_tick == 0 || fs_per_tick > 100000000ULL)
		status = "none (no working HPET)";
	else if (bsp_apic_id > 0xFF)
		status = "none (boot CPU APIC ID above FFH)";
	else
		status = choose(h);
	if (status) {
		hpet = NULL;
		return;
	}
	if (route == ROUTE_LEGACY)
		for (uint32_t i = 0; i < h->override_count; i++)
			if (h->overrides[i].irq == 0) {
				gsi = h->overrides[i].gsi;
				if ((h->overrides[i].flags & 3) == INTI_POLARITY_LOW)
					low |= IOAPIC_ACTIVE_LOW;
			}
	if (route == ROUTE_PIN)
		gsi = pin;
	if (route != ROUTE_FSB && !ioapic_of(h, gsi, &pin)) {
		status = "none (no I/O APIC for the route)";
		hpet = NULL;
		return;
	}
	/* The timer: one-shot, edge, 64-bit, disabled until armed, on its
	 * route; the pin (not for FSB): NMI, edge, physical destination. */
	uint64_t conf = hpet_read(HPET_TCONF(timer)) &
			~(HPET_T_PERIODIC | HPET_T_32MODE | (0x1FULL << HPET_T_ROUTE_SHIFT));
	if (route == ROUTE_PIN)
		conf |= (uint64_t)gsi << HPET_T_ROUTE_SHIFT;
	if (route == ROUTE_FSB)
		conf |= HPET_T_FSB;
	hpet_write(HPET_TCONF(timer), conf);
	tconf = conf;
	target(bsp_apic_id);
	if (route != ROUTE_FSB)
		ioapic_write(0x10 + 2 * pin, (uint32_t)low);
	uint64_t g = hpet_read(HPET_GCONF) & ~HPET_LEGACY;
	hpet_write(HPET_GCONF, g | HPET_ENABLE | (route == ROUTE_LEGACY ? HPET_LEGACY : 0));
	if (route == ROUTE_FSB)
		ksnprintf(desc, sizeof(desc), "HPET timer %u one-shot, FSB message, NMI", timer);
	else
		ksnprintf(desc, sizeof(desc), "HPET timer %u one-shot, %sI/O APIC GSI %u, NMI",
			  timer, route == ROUTE_LEGACY ? "legacy IRQ0 route, " : "", gsi);
	status = desc;
}

/* For this CPU: its APIC ID must fit the messages' 8 bits. */
bool nmi_watchdog_available(void)
{
	return hpet != NULL && apic_self_id() <= 0xFF;
}

static void tconf_write(uint64_t v)
{
	tconf = v;
	hpet_write(HPET_TCONF(timer), v);
}

static void set_deadline(uint64_t when)
{
	fired = false;
	deadline = when;
	hpet_write(HPET_TCMP(timer), when);
	armed = true;
	tconf_write(tconf | HPET_T_INT_ENB);
}

void nmi_watchdog_arm(uint32_t ms, struct nmi_watch *prev)
{
	if (!hpet)
		return;
	*prev = (struct nmi_watch){armed, deadline, target_id};
	uint64_t ticks = ((uint64_t)ms + MARGIN_MS) * (1000000000000ULL / fs_per_tick);
	uint32_t id = apic_self_id();
	if (id > 0xFF)
		return;
	target(id);
	set_deadline(hpet_read(HPET_COUNTER) + ticks);
}

/* The watchdog as it was before a nested or another CPU's arm: the previous
 * target, and its deadline (a comparator written in the past would not fire
 * until the counter wraps: one tick ahead then). */
void nmi_watchdog_resume(const struct nmi_watch *prev)
{
	if (!hpet)
		return;
	tconf_write(tconf & ~HPET_T_INT_ENB);
	armed = false;
	if (!prev->armed || prev->apic_id > 0xFF)
		return;
	target(prev->apic_id);
	uint64_t now = hpet_read(HPET_COUNTER) + 1;
	set_deadline(prev->deadline > now ? prev->deadline : now);
}

void nmi_watchdog_disarm(void)
{
	if (!hpet || !armed)
		return;
	tconf_write(tconf & ~HPET_T_INT_ENB);
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
		tconf_write(tconf & ~HPET_T_INT_ENB);
		return true;
	}
	if (swallow) {
		swallow = false;
		*ignore = true;
	}
	return false;
}

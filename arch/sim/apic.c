/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's LVT performance-monitoring entry, the PMI path and NMIs
 * (SDM Vol. 3A 10.5.1 "Local Vector Table", 10.8 "Handling Interrupts",
 * 6.7.1 "Handling Multiple NMIs", 6.8.1 "Masking Maskable Hardware
 * Interrupts"; 11.5.1 / 11.8 in 2023+ editions).
 *
 * Model: a counter overflow with its INT / PMI bit set requests a PMI.
 *  - LVT masked: the request is discarded (Vol. 3A 10.5.1: a masked entry
 *    inhibits reception of the interrupt);
 *  - delivery mode fixed (000B): it sets the vector's IRR bit; it is
 *    delivered when RFLAGS.IF is 1 and the vector is not in service (ISR),
 *    i.e. at once, or at arch_irq_enable(), or at the EOI that ends the
 *    previous one; delivery moves IRR to ISR and calls the PMI handler at
 *    CPL 0 with IF = 0 when the entry's vector is PMI_VECTOR. Another vector
 *    counts as a stray interrupt (the kernel's handler for it EOIs);
 *  - delivery mode NMI (100B): the vector is ignored and the NMI is latched
 *    at the core; RFLAGS.IF does not hold it (6.8.1), it needs no EOI and
 *    never enters ISR; it is taken unless an NMI handler is running (NMIs
 *    are blocked until that handler's IRET, 6.7.1) and calls the NMI handler
 *    at CPL 0 with IF = 0;
 *  - in both modes sending it sets the LVT mask bit (Vol. 3A 10.5.1 and
 *    Vol. 3B 20.2: "the local APIC sets the mask bit in the LVT performance
 *    counter register when it delivers a PMI").
 * Delivery is synchronous: at the end of the workload iteration that
 * overflowed (engine.c), or at the IF / EOI / ICR write that unblocks it.
 */
#include "sim.h"

/* The kernel's handlers: one IDT for every CPU, as on the machine. */
static pmi_handler_fn pmi_handler;
static nmi_handler_fn nmi_handler;

/* The LVT entry asks for an NMI (Q_PMI_NMI_AS_FIXED: the APIC ignores that). */
static bool nmi_mode(void)
{
	return FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, g_sim.apic.lvt_pmi) == APIC_DM_NMI &&
	       !quirk(Q_PMI_NMI_AS_FIXED);
}

/* Intel SDM Vol.3A 11.5.1: the APIC sets the LVT performance-counter mask
 * when it delivers a PMI. AMD's APIC does not (the APM has no such rule:
 * the mask bit is software's; KVM masks LVTPC on PMI only for
 * Intel-compatible guests since Linux 6.9, kvm_apic_local_deliver()). */
static void mask_on_delivery(void)
{
	const struct caps *c = &g_sim.caps;
	bool amd = caps_amd_like(c);
	bool masks = amd ? quirk(Q_AMD_LVT_MASKED_ON_PMI) : !quirk(Q_LVT_NO_MASK);

	if (masks)
		g_sim.apic.lvt_pmi |= APIC_LVT_MASKED;
}

/* The LVT sends its NMI to the core: the first of this CPU lost or late
 * (taken only when the NMI handler is gone), or each one twice, the copy
 * late, where a quirk says so. */
static void pmi_send_nmi(void)
{
	bool first = g_sim.apic.nmi_pmis++ == 0;

	mask_on_delivery();
	g_sim.apic.delivered_vector = X86_VEC_NMI;
	if (first && quirk(Q_PMI_NMI_LOST_ONCE))
		return;
	if (first && quirk(Q_PMI_NMI_LATE)) {
		g_sim.apic.nmi_after_handler++;
		return;
	}
	if (quirk(Q_PMI_NMI_DUPLICATED))
		g_sim.apic.nmi_after_handler++;
	g_sim.apic.nmi_latched = true;
}

void sim_pmi_request(void)
{
	if (quirk(Q_SMP_PMI_TO_CPU0) && g_sim.index != 0) {
		sim_pmi_request_on(sim_cpu_at(0));
		return;
	}
	if ((g_sim.apic.lvt_pmi & APIC_LVT_MASKED) && !quirk(Q_PMI_WHILE_MASKED))
		return;
	if (nmi_mode()) {
		if (!g_sim.irq_enabled && quirk(Q_PMI_NMI_BLOCKED_BY_IF)) {
			g_sim.apic.nmi_held_by_if = true; /* until arch_irq_enable() */
			return;
		}
		pmi_send_nmi();
		return;
	}
	if (!g_sim.irq_enabled && quirk(Q_PMI_LOST_IF0))
		return;
	g_sim.apic.irr = true;
	/* Delivery happens at the end of the current instruction / iteration:
	 * the engine and the IF / EOI paths call sim_pmi_deliver_pending(). */
}

/* Take the latched NMI, if any, unless one is being handled. With no handler
 * it is counted and resumed from, as on the machine (arch/x86_64/trap.c,
 * arch/sim/platform.c). */
static void deliver_nmi(void)
{
	while (g_sim.apic.nmi_latched && !g_sim.apic.nmi_blocked) {
		int cpl = g_sim.cpl;
		bool irq = g_sim.irq_enabled;
		uint32_t error_code = g_sim.fault_error_code;

		g_sim.apic.nmi_latched = false;
		g_sim.nmi_count++;
		if (!nmi_handler) {
			sim_unclaimed_nmi();
			continue;
		}
		g_sim.apic.nmi_blocked = true;
		g_sim.cpl = 0;
		g_sim.irq_enabled = false;
		nmi_handler();
		/* IRET: RFLAGS, CPL back; NMIs unblocked; a probe's error code
		 * the NMI struck between is the interrupted code's. */
		g_sim.apic.nmi_blocked = false;
		g_sim.cpl = cpl;
		g_sim.irq_enabled = irq;
		g_sim.fault_error_code = error_code;
	}
}

void sim_nmi_raise(void)
{
	g_sim.apic.nmi_latched = true;
	deliver_nmi();
}

void sim_pmi_deliver_pending(void)
{
	deliver_nmi();
	while (g_sim.apic.irr && !g_sim.apic.isr &&
	       (g_sim.irq_enabled || quirk(Q_PMI_IGNORES_IF))) {
		uint32_t vec = FIELD_GET_ULL(APIC_LVT_VECTOR, g_sim.apic.lvt_pmi);
		g_sim.apic.irr = false;
		mask_on_delivery();
		g_sim.apic.delivered_vector = vec;
		if (vec != PMI_VECTOR && !quirk(Q_PMI_ANY_VECTOR)) {
			/* trap.c: the spurious vector's handler just returns */
			if (vec != SPURIOUS_VECTOR)
				sim_unowned_vector(vec);
			continue;
		}
		g_sim.apic.isr = true;
		g_sim.pmi_count++;
		int cpl = g_sim.cpl;
		bool irq = g_sim.irq_enabled;
		g_sim.cpl = 0;
		g_sim.irq_enabled = false;
		if (pmi_handler) {
			pmi_handler();
		} else {
			g_sim.apic.isr = false; /* trap.c: EOI; a PMI nobody took */
			g_sim.events.pmu++;
		}
		g_sim.cpl = cpl;
		g_sim.irq_enabled = irq; /* IRET restores RFLAGS */
	}
}

uint32_t arch_apic_read_lvt_pmi(void)
{
	return g_sim.apic.lvt_pmi;
}

void arch_apic_write_lvt_pmi(uint32_t val)
{
	/* Vector 7:0, delivery mode 10:8, mask 16 are writable; delivery
	 * status (12) is read-only. */
	uint32_t w = (uint32_t)(APIC_LVT_VECTOR | APIC_LVT_DELIVERY_MODE | APIC_LVT_MASKED);

	if (quirk(Q_LVT_VECTOR_IGNORED))
		w &= ~(uint32_t)APIC_LVT_VECTOR;
	/* What the PMU can send from now on is its own (platform.c, as
	 * arch/x86_64/apic.c records it). */
	g_sim.lvt_nmi_seen |= FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, val) == APIC_DM_NMI;
	g_sim.lvt_vectors[(val & 0xFF) / 64] |= BIT_ULL((val & 0xFF) % 64);
	g_sim.apic.lvt_pmi = (g_sim.apic.lvt_pmi & ~w) | (val & w);
}

void arch_apic_eoi(void)
{
	g_sim.apic.isr = false;
	sim_pmi_deliver_pending();
}

bool arch_apic_is_x2apic(void)
{
	return false;
}

void arch_set_pmi_handler(pmi_handler_fn fn)
{
	pmi_handler = fn;
}

void arch_set_nmi_handler(nmi_handler_fn fn)
{
	nmi_handler = fn;
	/* What Q_PMI_NMI_LATE / _DUPLICATED held back arrives now. */
	for (; !fn && g_sim.apic.nmi_after_handler; g_sim.apic.nmi_after_handler--)
		sim_nmi_raise();
}

/* The ICR's NMI reaches this core at the end of the write. */
void arch_apic_self_nmi(void)
{
	sim_nmi_raise();
}

void arch_irq_enable(void)
{
	g_sim.irq_enabled = true;
	if (g_sim.apic.nmi_held_by_if) {
		g_sim.apic.nmi_held_by_if = false;
		pmi_send_nmi();
	}
	sim_pmi_deliver_pending();
}

void arch_irq_disable(void)
{
	g_sim.irq_enabled = false;
}

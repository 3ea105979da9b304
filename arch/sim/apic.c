/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's LVT performance-monitoring entry and the PMI path
 * (SDM Vol. 3A 10.5.1 "Local Vector Table", 10.8 "Handling Interrupts").
 *
 * Model: a counter overflow with its INT / PMI bit set requests a PMI.
 *  - LVT masked: the request is discarded (Vol. 3A 10.5.1: a masked entry
 *    inhibits reception of the interrupt);
 *  - otherwise it sets the vector's IRR bit; it is delivered when RFLAGS.IF
 *    is 1 and the vector is not in service (ISR), i.e. at once, or at
 *    arch_irq_enable(), or at the EOI that ends the previous one;
 *  - delivery moves IRR to ISR, sets the LVT mask bit (Vol. 3A 10.5.1 and
 *    Vol. 3B 20.2: "the local APIC sets the mask bit in the LVT performance
 *    counter register when it delivers a PMI") and calls the handler at
 *    CPL 0 with IF = 0 when the entry's vector is PMI_VECTOR. Another vector
 *    counts as a stray interrupt (the kernel's handler for it EOIs).
 *  - NMI delivery mode (100B) ignores IF.
 */
#include "sim.h"

static bool nmi_mode(void)
{
	return FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, g_sim.apic.lvt_pmi) == 4;
}

void sim_pmi_request(void)
{
	if ((g_sim.apic.lvt_pmi & APIC_LVT_MASKED) && !quirk(Q_PMI_WHILE_MASKED))
		return;
	if (!g_sim.irq_enabled && quirk(Q_PMI_LOST_IF0) && !nmi_mode())
		return;
	g_sim.apic.irr = true;
	/* Delivery happens at the end of the current instruction / iteration:
	 * the engine and the IF / EOI paths call sim_pmi_deliver_pending(). */
}

void sim_pmi_deliver_pending(void)
{
	while (g_sim.apic.irr && !g_sim.apic.isr &&
	       (g_sim.irq_enabled || nmi_mode() || quirk(Q_PMI_IGNORES_IF))) {
		uint32_t vec = FIELD_GET_ULL(APIC_LVT_VECTOR, g_sim.apic.lvt_pmi);
		g_sim.apic.irr = false;
		if (!quirk(Q_LVT_NO_MASK))
			g_sim.apic.lvt_pmi |= APIC_LVT_MASKED;
		g_sim.apic.delivered_vector = vec;
		if (vec != PMI_VECTOR && !nmi_mode() && !quirk(Q_PMI_ANY_VECTOR)) {
			g_sim.stray_interrupts++;
			continue;
		}
		g_sim.apic.isr = !nmi_mode();
		g_sim.pmi_count++;
		int cpl = g_sim.cpl;
		bool irq = g_sim.irq_enabled;
		g_sim.cpl = 0;
		g_sim.irq_enabled = false;
		if (g_sim.pmi_handler)
			g_sim.pmi_handler();
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
	g_sim.apic.lvt_pmi =
	    val & (uint32_t)(APIC_LVT_VECTOR | APIC_LVT_DELIVERY_MODE | APIC_LVT_MASKED);
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
	g_sim.pmi_handler = fn;
}

void arch_irq_enable(void)
{
	g_sim.irq_enabled = true;
	sim_pmi_deliver_pending();
}

void arch_irq_disable(void)
{
	g_sim.irq_enabled = false;
}

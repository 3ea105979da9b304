/* SPDX-License-Identifier: MIT */
/*
 * Pentium 4 / Xeon (NetBurst) counters, SDM Vol. 3B 20.6.3
 * ("Performance Monitoring (Processors Based on Intel NetBurst
 * Microarchitecture)"): 18 counters of 40 bits
 * at 300H, their CCCRs at 360H, ESCRs from 3A0H.
 *
 * Model (simplified, documented): only the instruction-retirement ESCRs are
 * modelled. A counter (CCCR.ENABLE set) whose ESCR_SELECT names one of the
 * CRU ESCRs it is wired to (Vol. 3B Table 18-26 in editions that number the
 * NetBurst section 18.18: IQ_COUNTER0/1/4 = 12, 13, 16 take CRU_ESCR0 with select 4
 * and CRU_ESCR2 with select 5; IQ_COUNTER2/3/5 = 14, 15, 17 take CRU_ESCR1 /
 * CRU_ESCR3), where that ESCR selects
 * instr_retired (event 02H) with a non-bogus mask bit (NBOGUSNTAG,
 * NBOGUSTAG), counts retired instructions under the ESCR's T0_USR / T0_OS;
 * anything else counts nothing. Per cycle the
 * counter's input is the instructions retired in that cycle (0..4); the
 * CCCR threshold logic of 20.6.3.5.2 applies: with COMPARE the counter adds
 * 1 per cycle whose input is > THRESHOLD (COMPLEMENT clear) or <= THRESHOLD
 * (set), EDGE counts false-to-true transitions of that comparison.
 *
 * CCCR flags (Vol. 3B 20.6.3.3, CCCR figure): FORCE_OVF makes every
 * increment an overflow; an overflow sets the sticky OVF flag and, with
 * OVF_PMI, requests a PMI through the LVT performance-monitoring entry
 * (20.6.3.5.8; the SDM adds that the PMI comes with the next event count
 * after the overflow: the model requests it at the overflow and the engine
 * delivers it at the end of that iteration, within the same skid). CASCADE
 * (20.6.3.5.6): counters are paired within a block, 0/2 and 1/3 (and
 * likewise 4/6, 5/7, 8/10, 9/11, 12/14, 13/15); in the IQ block 16 can only
 * be started by 14 and 17 by 15, and neither 16 nor 17 starts another. The
 * overflow of a counter starts its alternate counter when that one has
 * CASCADE set ("the second way that a counter can be started", 20.6.3.5.3),
 * without software setting its Enable flag; the next write of its CCCR ends
 * that state. Bits 17:16 "must be set to 11B": the SDM gives no behaviour
 * for other values, so the model accepts any.
 */
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

/* ESCR addresses of the Prescott family (Vol. 3B Table 18-26 in
 * editions that number the NetBurst section 18.18). */
static bool escr_exists(uint32_t msr)
{
	return (msr >= 0x3A0 && msr <= 0x3BE) || (msr >= 0x3C0 && msr <= 0x3C5) ||
	       (msr >= 0x3C8 && msr <= 0x3CD) || (msr >= 0x3E0 && msr <= 0x3E1);
}

/* CCCR: bits 11:0, 29:27, 63:32 reserved (Figure 20-4x). */
#define P4_CCCR_VALID (GENMASK_ULL(26, 12) | P4_CCCR_CASCADE | P4_CCCR_OVF)
/* ESCR: bits 63:31 reserved. */
#define P4_ESCR_VALID GENMASK_ULL(30, 0)

static enum sim_msr_result p4_rdmsr(uint32_t msr, uint64_t *val)
{
	if (!g_sim.caps.netburst)
		return SIM_MSR_NOT_MINE;
	if (sim_msr_read_bank(msr, MSR_BPU_COUNTER0, P4_NUM_COUNTERS, P->p4_ctr, val) ||
	    sim_msr_read_bank(msr, MSR_BPU_CCCR0, P4_NUM_COUNTERS, P->p4_cccr, val))
		return SIM_MSR_OK;
	if (escr_exists(msr)) {
		*val = P->p4_escr[msr - 0x3A0];
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result p4_wrmsr(uint32_t msr, uint64_t val)
{
	unsigned i;
	if (!g_sim.caps.netburst)
		return SIM_MSR_NOT_MINE;
	if (sim_msr_in(msr, MSR_BPU_COUNTER0, P4_NUM_COUNTERS, &i)) {
		/* 40-bit counters; the model ignores bits 63:40. */
		P->p4_ctr[i] = val & width_mask(P4_COUNTER_WIDTH);
		return SIM_MSR_OK;
	}
	if (sim_msr_in(msr, MSR_BPU_CCCR0, P4_NUM_COUNTERS, &i)) {
		if (val & ~P4_CCCR_VALID)
			return SIM_MSR_GP;
		P->p4_cccr[i] = val;
		P->p4_last[i] = false;
		P->p4_cascaded[i] = false;
		return SIM_MSR_OK;
	}
	if (escr_exists(msr)) {
		if (val & ~P4_ESCR_VALID)
			return SIM_MSR_GP;
		P->p4_escr[msr - 0x3A0] = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static void p4_collect(struct sim_counter_set *set)
{
	if (!g_sim.caps.netburst)
		return;
	for (unsigned i = 0; i < P4_NUM_COUNTERS; i++) {
		uint64_t cccr = P->p4_cccr[i];
		if (!(cccr & P4_CCCR_ENABLE) && !P->p4_cascaded[i] &&
		    !quirk(Q_P4_CCCR_ENABLE_IGNORED))
			continue;
		unsigned sel = FIELD_GET_ULL(P4_CCCR_ESCR_SELECT, cccr);
		bool left = i == 12 || i == 13 || i == 16, right = i == 14 || i == 15 || i == 17;
		uint32_t msr = 0;
		if (quirk(Q_P4_ESCR_SELECT_IGNORED))
			msr = i >= 12 ? MSR_CRU_ESCR0 : 0;
		else if (sel == 4)
			msr = left ? MSR_CRU_ESCR0 : right ? MSR_CRU_ESCR1 : 0;
		else if (sel == 5)
			msr = left ? 0x3CC : right ? 0x3CD : 0; /* CRU_ESCR2 / 3 */
		if (!msr)
			continue;
		uint64_t escr = P->p4_escr[msr - 0x3A0];
		if (FIELD_GET_ULL(P4_ESCR_EVENT_SELECT, escr) != 0x02 ||
		    !(FIELD_GET_ULL(P4_ESCR_EVENT_MASK, escr) & 0x3))
			continue;
		bool usr = escr & P4_ESCR_USR, os = escr & P4_ESCR_OS;
		if (quirk(Q_P4_ESCR_CPL_IGNORED) ? !(usr || os) : !(g_sim.cpl == 0 ? os : usr))
			continue;
		struct sim_filter f = {.ev = EV_INSNS};
		f.force_ovf = (cccr & P4_CCCR_FORCE_OVF) && !quirk(Q_P4_FORCE_OVF_IGNORED);
		if ((cccr & P4_CCCR_COMPARE) && !quirk(Q_P4_COMPARE_IGNORED)) {
			/* > threshold is ">= threshold + 1"; <= is "< threshold + 1". */
			f.cmask = (unsigned)FIELD_GET_ULL(P4_CCCR_THRESHOLD, cccr) + 1;
			f.inv = cccr & P4_CCCR_COMPLEMENT;
			f.edge = cccr & P4_CCCR_EDGE;
		}
		sim_counter_add(set, &(struct sim_counter){&P->p4_ctr[i], &P->p4_last[i],
							   P4_COUNTER_WIDTH, f,
							   &sim_family_netburst, 0, i});
	}
}

/* The counter whose CCCR.CASCADE lets counter i's overflow start it, -1
 * when none (20.6.3.5.6): 0<->2, 1<->3 in each block of four, 14->16,
 * 15->17; 16 and 17 start nothing. */
static int cascade_partner(unsigned i)
{
	if (i >= 16)
		return -1;
	if (i == 14 || i == 15)
		return -1; /* 14/15 -> 12/13 or 16/17: see p4_overflow */
	return (int)(i ^ 2);
}

static void cascade_start(int j)
{
	if (j >= 0 && (P->p4_cccr[j] & P4_CCCR_CASCADE) && !quirk(Q_P4_CASCADE_IGNORED))
		P->p4_cascaded[j] = true;
}

/* Overflow sets the sticky CCCR.OVF; with OVF_PMI a PMI (20.6.3.5.8); and
 * it starts the alternate counter when that one has CASCADE set. */
static void p4_overflow(const struct sim_counter *c)
{
	unsigned i = c->idx;
	bool pmi = P->p4_cccr[i] & P4_CCCR_OVF_PMI;

	if (!quirk(Q_P4_OVF_NOT_SET))
		P->p4_cccr[i] |= P4_CCCR_OVF;
	if (quirk(Q_P4_OVF_PMI_IGNORED))
		pmi = false;
	if (pmi || quirk(Q_P4_PMI_WITHOUT_OVF_PMI))
		sim_pmi_request();
	if (i == 14 || i == 15) {
		/* IQ: 14 cascades into 12 or 16, 15 into 13 or 17. */
		cascade_start((int)i - 2);
		cascade_start((int)i + 2);
	} else {
		cascade_start(cascade_partner(i));
	}
}

/* RDPMC without an architectural PMU (Vol. 2B RDPMC): ECX[30:0] the
 * counter index, ECX[31] a fast read (EAX = bits 31:0, EDX = 0). */
static enum sim_rdpmc_result p4_rdpmc(uint32_t ecx, uint64_t *v)
{
	uint32_t idx = ecx & 0x7FFFFFFF;

	if (!g_sim.caps.netburst)
		return SIM_RDPMC_NOT_MINE;
	/* Xeon with L3: indices 18-25 are the 32-bit L3 event counters
	 * (MSR_EMON_L3_CTR_CTL0-7; the model keeps them at 0). */
	if (idx >= P4_NUM_COUNTERS && idx <= P4_NUM_COUNTERS + 7 && quirk(Q_P4_L3_RDPMC_18_25)) {
		*v = 0;
		return SIM_RDPMC_READ;
	}
	if (idx >= P4_NUM_COUNTERS || ((ecx & BIT_ULL(31)) && quirk(Q_P4_FAST_RDPMC_GP)))
		return SIM_RDPMC_INVALID;
	*v = P->p4_ctr[idx] & width_mask(P4_COUNTER_WIDTH);
	if ((ecx & BIT_ULL(31)) && !quirk(Q_P4_FAST_FULL))
		*v &= 0xFFFFFFFFULL;
	return SIM_RDPMC_READ;
}

const struct sim_family sim_family_netburst =
    SIM_FAMILY("netburst", p4_rdmsr, p4_wrmsr, p4_collect, p4_overflow, p4_rdpmc, NULL, NULL);

/* SPDX-License-Identifier: MIT */
/*
 * The simulated machine's CPUs: a plain profile is one CPU; a machine
 * profile (profiles.c) is several, each with its own profile's CPUID (so a
 * hybrid machine has P-cores and E-cores with their own PMUs), its own APIC
 * ID, PMU and local APIC.
 *
 * Topology: APIC IDs are given the way the SDM's enumeration reads them
 * (Vol. 3A 9.9 "Programming Considerations for Hardware Multi-Threading
 * Capable Processors", CPUID leaf 0BH): CPUs of one part fill the threads of
 * a core (CPUID.(0BH,0):EBX[15:0] threads, the ID's low
 * CPUID.(0BH,0):EAX[4:0] bits), then the next core. All CPUs are one
 * package: the Nehalem uncore is shared by all of them.
 *
 * Only one CPU runs at a time (g_sim_cur); the others are parked with
 * interrupts on, as on the machine (arch/x86_64/smp.c), so an interrupt
 * request sent to a parked CPU is taken at once, there.
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"

static struct sim_cpu cpus[SIM_MAX_CPUS];
static unsigned n_cpus = 1;
struct sim_cpu *g_sim_cur = &cpus[0];

unsigned sim_cpu_count(void)
{
	return n_cpus;
}

struct sim_cpu *sim_cpu_at(unsigned i)
{
	return i < n_cpus ? &cpus[i] : NULL;
}

static unsigned smt_shift(const struct sim_cpu *c)
{
	struct sim_cpu *saved = g_sim_cur;
	struct cpuid_regs r = {0};

	g_sim_cur = (struct sim_cpu *)c;
	if (c->caps.max_basic_leaf >= 0xB)
		sim_cpuid_raw(0xB, 0, &r);
	g_sim_cur = saved;
	return r.eax & 0x1F;
}

unsigned sim_core_of(const struct sim_cpu *c)
{
	return c->apic_id >> smt_shift(c);
}

/* Each CPU's other thread: same core, SMT level present. */
static void find_siblings(void)
{
	for (unsigned i = 0; i < n_cpus; i++)
		for (unsigned j = 0; j < n_cpus; j++)
			if (i != j && smt_shift(&cpus[i]) > 0 &&
			    sim_core_of(&cpus[j]) == sim_core_of(&cpus[i]))
				cpus[i].sibling = &cpus[j];
}

/* Threads per core and the SMT field's width of a profile, from its CPUID
 * leaf 0BH (1 and 0 without one). */
static void topology(struct sim_cpu *c, unsigned *threads, unsigned *shift)
{
	struct cpuid_regs r = {0};

	if (c->caps.max_basic_leaf >= 0xB)
		sim_cpuid_raw(0xB, 0, &r);
	*shift = r.eax & 0x1F;
	*threads = r.ebx & 0xFFFF;
	if (*threads == 0 || *shift == 0)
		*threads = 1;
	if (*threads > (1u << *shift))
		*threads = 1u << *shift;
}

static void name_machine(const struct sim_profile *m)
{
	for (unsigned i = 0; i < n_cpus; i++) {
		char *pl = cpus[i].platform, rest[256] = "";
		const char *q = strstr(pl, ", quirks ");
		if (q)
			snprintf(rest, sizeof(rest), "%s", q);
		snprintf(pl, sizeof(cpus[i].platform), "profile %s (%u CPUs)%s", m->name, n_cpus,
			 rest);
	}
}

/* The APIC ID a CPU of a dump reports: CPUID.(0BH,0):EDX (the x2APIC ID)
 * where leaf 0BH exists, else CPUID.01H:EBX[31:24]. */
static uint32_t reported_apic_id(void)
{
	struct cpuid_regs r;

	if (g_sim.caps.max_basic_leaf >= 0xB && sim_cpuid_raw(0xB, 0, &r) && r.ebx)
		return r.edx;
	sim_cpuid_raw(1, 0, &r);
	return r.ebx >> 24;
}

/*
 * A whole machine's dump (`cpuid -r` prints every CPU, "CPU N:"): each CPU
 * of the file is a CPU of the machine with its own CPUID, so a hybrid
 * part's P-cores and E-cores have the PMUs their own leaves 1AH, 0AH and 23H
 * enumerate, and the APIC ID the dump shows (in file order; by position when
 * two CPUs of the file report the same one).
 */
static enum sim_config_result configure_whole_dump(const struct sim_profile *p, unsigned n,
						   const bool *quirks, char *err, unsigned errlen)
{
	bool unique = true;

	if (n > SIM_MAX_CPUS) {
		snprintf(err, errlen, "%s: %u CPUs, the simulator has room for %d (use --cpu N)",
			 p->dump_path, n, SIM_MAX_CPUS);
		return SIM_CONFIG_BAD_DUMP;
	}
	unsigned number[SIM_MAX_CPUS];
	for (unsigned i = 0; i < n; i++)
		number[i] = sim_dump_cpu_number(i); /* of the file sim_configure() read */
	n_cpus = 1; /* until all are read: CPUID shows each CPU's own APIC ID */
	for (unsigned i = 0; i < n; i++) {
		struct sim_cpu *c = &cpus[i];

		c->index = i;
		if (sim_configure_cpu(c, p, number[i], quirks, err, errlen) != SIM_CONFIG_OK)
			return SIM_CONFIG_BAD_DUMP;
		c->apic_id = reported_apic_id();
		for (unsigned j = 0; j < i; j++)
			unique = unique && cpus[j].apic_id != c->apic_id;
		c->state = CPU_ONLINE;
	}
	for (unsigned i = 0; !unique && i < n; i++)
		cpus[i].apic_id = i;
	n_cpus = n;
	name_machine(p);
	find_siblings();
	g_sim_cur = &cpus[0];
	return SIM_CONFIG_OK;
}

enum sim_config_result sim_configure(const struct sim_profile *p, const bool *quirks, char *err,
				     unsigned errlen)
{
	enum sim_config_result rc;

	memset(cpus, 0, sizeof(cpus));
	if (!p->parts && p->dump_path && g_sim_cpu_select == SIM_FIRST_CPU &&
	    !sim_profile_is_platform(p)) {
		unsigned n = sim_dump_cpu_count(p->dump_path, err, errlen);
		if (!n)
			return SIM_CONFIG_BAD_DUMP;
		if (n > 1)
			return configure_whole_dump(p, n, quirks, err, errlen);
	}
	if (!p->parts) {
		n_cpus = 1;
		rc = sim_configure_cpu(&cpus[0], p, g_sim_cpu_select, quirks, err, errlen);
		cpus[0].state = CPU_ONLINE;
		return rc;
	}
	n_cpus = 0;
	unsigned core = 0;
	for (unsigned k = 0; k < p->n_parts; k++) {
		const struct sim_profile *part = sim_find_profile(p->parts[k].profile);
		if (!part || part->parts) {
			snprintf(err, errlen, "machine %s: no CPU profile %s", p->name,
				 p->parts[k].profile);
			return SIM_CONFIG_BAD_DUMP;
		}
		unsigned threads = 1, shift = 0;
		for (unsigned j = 0; j < p->parts[k].cpus; j++) {
			if (n_cpus == SIM_MAX_CPUS) {
				snprintf(err, errlen, "machine %s: more than %d CPUs", p->name,
					 SIM_MAX_CPUS);
				return SIM_CONFIG_BAD_DUMP;
			}
			struct sim_cpu *c = &cpus[n_cpus];
			c->index = n_cpus++;
			rc = sim_configure_cpu(c, part, g_sim_cpu_select, quirks, err, errlen);
			if (rc != SIM_CONFIG_OK)
				return rc;
			if (j == 0)
				topology(c, &threads, &shift);
			c->apic_id = ((core + j / threads) << shift) | (j % threads);
			c->state = CPU_ONLINE;
		}
		core += (p->parts[k].cpus + threads - 1) / threads;
	}
	name_machine(p);
	find_siblings();
	g_sim_cur = &cpus[0];
	return SIM_CONFIG_OK;
}

/*
 * State that is not per logical processor moves with the running CPU: the
 * Nehalem uncore is one per package (Vol. 3B 20.3.1.2: "the uncore PMU ...
 * shared by the processor cores"), so every CPU sees the last writer's
 * registers. The quirks make per-CPU state shared the same way.
 */
void sim_switch_cpu(struct sim_cpu *c)
{
	struct sim_pmu *from = &g_sim_cur->pmu, *to = &c->pmu;

	if (c == g_sim_cur)
		return;
	to->unc = from->unc;
	if (quirk(Q_SMP_SHARED_COUNTERS)) {
		memcpy(to->pmc, from->pmc, sizeof(to->pmc));
		memcpy(to->evtsel, from->evtsel, sizeof(to->evtsel));
		memcpy(to->fixed, from->fixed, sizeof(to->fixed));
		to->fixed_ctrl = from->fixed_ctrl;
		to->global_ctrl = from->global_ctrl;
		to->global_status = from->global_status;
	}
	if (quirk(Q_SMP_SHARED_PQR_ASSOC))
		to->pqr_assoc = from->pqr_assoc;
	g_sim_cur = c;
}

void sim_pmi_request_on(struct sim_cpu *to)
{
	struct sim_cpu *from = g_sim_cur;

	if (to == from) {
		sim_pmi_request();
		return;
	}
	/* Parked in HLT with interrupts on: taken now, there, then back. */
	g_sim_cur = to;
	bool irq = g_sim.irq_enabled;
	g_sim.irq_enabled = true;
	sim_pmi_request();
	sim_pmi_deliver_pending();
	g_sim.irq_enabled = irq;
	g_sim_cur = from;
}

/* ---- include/arch.h: every CPU ------------------------------------------ */

unsigned arch_cpu_count(void)
{
	return n_cpus;
}

unsigned arch_cpu_boot(void)
{
	return 0;
}

unsigned arch_cpu_current(void)
{
	return g_sim.index;
}

uint32_t arch_cpu_apic_id(unsigned cpu)
{
	return cpu < n_cpus ? cpus[cpu].apic_id : 0;
}

enum cpu_state arch_cpu_state(unsigned cpu)
{
	return cpu < n_cpus ? cpus[cpu].state : CPU_NOT_STARTED;
}

/* The simulated CPUs are online from the start; the silent one models a CPU
 * that never answers the SIPI. */
unsigned arch_cpus_start(unsigned silent_cpu)
{
	unsigned online = 0;

	for (unsigned i = 0; i < n_cpus; i++) {
		if (i == silent_cpu && i != arch_cpu_boot())
			cpus[i].state = CPU_NO_ANSWER;
		online += cpus[i].state == CPU_ONLINE;
	}
	return online;
}

enum arch_guard_result arch_run_on_cpu(unsigned cpu, void (*fn)(void *), void *arg,
				       uint32_t timeout_ms, struct arch_exception *ex)
{
	struct sim_cpu *from = g_sim_cur;

	if (cpu == g_sim.index)
		return arch_run_guarded(fn, arg, timeout_ms, ex);
	memset(ex, 0, sizeof(*ex));
	if (cpu >= n_cpus || cpus[cpu].state != CPU_ONLINE)
		return ARCH_RUN_CPU_OFFLINE;
	/* The caller waits with interrupts off (arch/x86_64/smp.c). */
	bool irq = g_sim.irq_enabled;
	g_sim.irq_enabled = false;
	sim_switch_cpu(&cpus[cpu]);
	enum arch_guard_result rc = arch_run_guarded(fn, arg, timeout_ms, ex);
	sim_switch_cpu(from);
	g_sim.irq_enabled = irq;
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * What strikes a machine that no test asked for, modelled so that the
 * runner's handling of it (kernel/runner.c) is tested as the suites are:
 *
 *  - platform events (arch_platform_events), counted per CPU as
 *    arch/x86_64/trap.c counts them: an NMI no handler takes, an interrupt
 *    at a vector no handler owns, a machine check. `pmusim --platform-event
 *    KIND@suite.test` makes one strike the first run of that test (nmi;
 *    irq; mce, RIPV set: counted and resumed; mce-fatal, RIPV clear: the
 *    test's exception, vector 18);
 *  - SMIs: MSR_SMI_COUNT (34H) where kernel/fw_state.c fw_smi_count() reads
 *    it; `--smi-every N` sends an SMI into every Nth counting window
 *    (arch_workload_gated) of each CPU. The SMM handler's instructions
 *    count, at CPL 0, unless IA32_DEBUGCTL.FREEZE_WHILE_SMM is set (SDM
 *    Vol. 3B 18.4.7 and 20.8: the counters are frozen while in SMM);
 *    Q_SMM_COUNTS_FROZEN counts them anyway.
 *
 * Two quirks strike through the same paths: Q_MISCOUNT_ONCE (the first run
 * of every test miscounts once, with a stray interrupt) and the NMI-mode PMI
 * quirks of apic.c.
 */
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "sim.h"

#define SMM_INSTRUCTIONS 1000 /* what an SMM handler executes (counted at CPL 0) */
#define SMI_EVERY_QUIRK	 5    /* Q_SMM_COUNTS_FROZEN without --smi-every */
#define PLATFORM_VECTOR	 0x41 /* an interrupt nobody programmed */
#define MAX_INJECTIONS	 8

enum injection_kind { INJECT_NMI, INJECT_IRQ, INJECT_MCE, INJECT_MCE_FATAL };

static const char *const kind_names[] = {
    [INJECT_NMI] = "nmi",
    [INJECT_IRQ] = "irq",
    [INJECT_MCE] = "mce",
    [INJECT_MCE_FATAL] = "mce-fatal",
};

static struct injection {
	enum injection_kind kind;
	char test[96]; /* suite.test */
	bool done;
} injections[MAX_INJECTIONS];
static unsigned n_injections;
static unsigned smi_every;

bool sim_platform_event_option(const char *arg)
{
	const char *at = strchr(arg, '@');
	if (!at || n_injections == MAX_INJECTIONS || !at[1] ||
	    strlen(at + 1) >= sizeof(injections[0].test))
		return false;
	for (unsigned k = 0; k < ARRAY_SIZE(kind_names); k++) {
		if (strlen(kind_names[k]) == (size_t)(at - arg) &&
		    !strncmp(arg, kind_names[k], (size_t)(at - arg))) {
			struct injection *in = &injections[n_injections++];
			in->kind = (enum injection_kind)k;
			strcpy(in->test, at + 1);
			return true;
		}
	}
	return false;
}

bool sim_smi_option(const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);
	if (!*arg || *end || n == 0 || n > 1000000)
		return false;
	smi_every = (unsigned)n;
	return true;
}

static bool is_test(const struct test_desc *d, const char *name)
{
	size_t n = strlen(d->suite);
	return !strncmp(name, d->suite, n) && name[n] == '.' && !strcmp(name + n + 1, d->name);
}

static void inject(enum injection_kind kind)
{
	switch (kind) {
	case INJECT_NMI:
		sim_nmi_raise();
		break;
	case INJECT_IRQ:
		sim_unowned_vector(PLATFORM_VECTOR);
		break;
	case INJECT_MCE:
	case INJECT_MCE_FATAL:
		g_sim.events.mce++;
		g_sim.events.mce_bank = 0;
		g_sim.events.mce_status = BIT_ULL(63) | BIT_ULL(61); /* VAL, UC */
		if (kind == INJECT_MCE_FATAL)
			sim_raise(X86_VEC_MC, 0, (uint64_t)__builtin_return_address(0), 0);
		break;
	}
}

/* The outermost guarded run of a test begins (arch/sim/run.c). */
void sim_platform_test_start(void)
{
	static const struct test_desc *last;
	const struct test_desc *d = runner_current_test();

	if (!d)
		return;
	/* Q_MISCOUNT_ONCE strikes a test's first run, never its retry. */
	g_sim.glitched = d == last;
	last = d;
	for (unsigned i = 0; i < n_injections; i++) {
		struct injection *in = &injections[i];
		if (!in->done && is_test(d, in->test)) {
			in->done = true;
			inject(in->kind);
		}
	}
}

/* The PMU under test can have sent it (arch/x86_64/trap.c's rule): the LVT
 * was in NMI mode since arch_pmu_sources_forget, or an overflow bit is set
 * in IA32_PERF_GLOBAL_STATUS (AMD: PerfCntrGlobalStatus). */
static bool pmu_sent_nmi(void)
{
	uint64_t st;

	if (g_sim.lvt_nmi_seen ||
	    FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, g_sim.apic.lvt_pmi) == APIC_DM_NMI)
		return true;
	if (sim_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS, &st) == 0)
		return st & (GENMASK_ULL(48, 0) | BIT_ULL(62));
	if (sim_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, &st) == 0)
		return st & GENMASK_ULL(15, 0);
	return false;
}

/* An NMI that neither the watchdog nor an installed handler claims: the
 * PMU's, or a platform event; counted and resumed from (trap.c). */
void sim_unclaimed_nmi(void)
{
	if (pmu_sent_nmi())
		g_sim.events.pmu++;
	else
		g_sim.events.nmi++;
}

/* An interrupt at a vector no handler owns: the PMU's at a vector the LVT
 * held, else a platform event; counted, resumed (trap.c). */
void sim_unowned_vector(uint32_t vec)
{
	g_sim.stray_interrupts++;
	if (vec < 256 && (g_sim.lvt_vectors[vec / 64] >> (vec % 64)) & 1) {
		g_sim.events.pmu++;
		return;
	}
	g_sim.events.irq++;
	g_sim.events.last_vector = vec;
}

void arch_pmu_sources_forget(void)
{
	g_sim.lvt_nmi_seen = false;
	memset(g_sim.lvt_vectors, 0, sizeof(g_sim.lvt_vectors));
}

void arch_platform_events(unsigned cpu, struct arch_platform_events *e)
{
	*e = (struct arch_platform_events){0};
	for (unsigned i = 0; sim_cpu_at(i); i++) {
		if (cpu == ARCH_ALL_CPUS || cpu == i)
			arch_platform_events_add(e, &sim_cpu_at(i)->events);
	}
}

bool sim_smi_count(uint64_t *v)
{
	const struct caps *c = &g_sim.caps;
	/* The CPUs kernel/fw_state.c fw_smi_count() reads it on (SDM Vol. 4
	 * Table 2-20 on: MSR_SMI_COUNT, Nehalem and later). */
	if (c->vendor != VENDOR_INTEL || c->family != 6 || c->model < 0x1a)
		return false;
	*v = g_sim.smi_count & 0xFFFFFFFF; /* bits 31:0 SMI count, read only */
	return true;
}

void sim_window_begins(void)
{
	unsigned every = smi_every;

	if (!every && quirk(Q_SMM_COUNTS_FROZEN))
		every = SMI_EVERY_QUIRK;
	g_sim.windows++;
	if (quirk(Q_MISCOUNT_ONCE) && !g_sim.glitched) {
		/* One instruction too many, and a stray interrupt with it. */
		g_sim.glitched = true;
		sim_run_segments(SEG_INSN, 1);
		sim_unowned_vector(PLATFORM_VECTOR);
	}
	if (!every || g_sim.windows % every)
		return;
	g_sim.smi_count++;
	if ((g_sim.pmu.debugctl & DEBUGCTL_FREEZE_WHILE_SMM) && !quirk(Q_SMM_COUNTS_FROZEN))
		return;
	int cpl = g_sim.cpl;
	g_sim.cpl = 0;
	sim_run_segments(SEG_INSN, SMM_INSTRUCTIONS);
	g_sim.cpl = cpl;
}

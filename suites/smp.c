/* SPDX-License-Identifier: MIT */
/*
 * Checks that need two CPUs: counters and IA32_PQR_ASSOC are per logical
 * processor, a PMI reaches the overflowing CPU's local APIC only, AnyThread
 * counts the sibling thread, the Nehalem uncore's PMI goes to the cores
 * EN_PMI_COREx selects. Each test runs on the CPU the runner is on ("this
 * CPU") and hands steps to another online CPU with arch_run_on_cpu(); on a
 * machine with one CPU (or without the partner a test needs) it is skipped.
 *
 * Remote steps use raw MSRs and the other CPU's own record (a hybrid
 * machine's CPUs enumerate different PMUs): caps() is this CPU's record.
 * A window or read-back on a counter asks the finding of the CPU that owns
 * the counter (kernel/precondition.h) first.
 */
#include "arch.h"
#include "cpus.h"
#include "ktap.h"
#include "msr.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define STEP_TIMEOUT_MS 5000
#define RULE_SMP_STEP	"pmutest harness: a step handed to another CPU runs there and returns"

/* Run fn(arg) on cpu: a fault or a hang there fails the check. On this CPU
 * it is a plain call (the test's own guard and watchdog stay in force). */
static bool on_cpu(struct t *t, unsigned cpu, void (*fn)(void *), void *arg, const char *what)
{
	struct arch_exception ex;
	char got[96];

	if (cpu == arch_cpu_current()) {
		fn(arg);
		return true;
	}
	enum arch_guard_result rc = arch_run_on_cpu(cpu, fn, arg, STEP_TIMEOUT_MS, &ex);

	ksnprintf(got, sizeof(got), "run status: %s, %s", arch_guard_result_name(rc),
		  rc != ARCH_GUARD_RETURNED ? x86_vector_name(ex.vector) : "-");
	return expect_true(t, rc == ARCH_GUARD_RETURNED, "the step returns", got, RULE_SMP_STEP,
			   "cpu %u: %s", cpu, what);
}

/* ---- Topology: CPUID leaf 0BH of this CPU (SDM Vol. 3A 9.9) --------------- */

/* Width of the SMT field (level 0) and of SMT + core (level 1) in the APIC
 * ID; 0 and 0 without leaf 0BH. */
static void id_fields(unsigned *smt, unsigned *core)
{
	struct cpuid_regs r;

	*smt = *core = 0;
	arch_cpuid(0, 0, &r);
	if (r.eax < 0xB)
		return;
	arch_cpuid(0xB, 0, &r);
	if (r.ebx == 0)
		return;
	*smt = r.eax & 0x1F;
	arch_cpuid(0xB, 1, &r);
	*core = r.ebx ? r.eax & 0x1F : *smt;
}

/* The core of a CPU within its package; the package above that. */
static unsigned core_of(unsigned cpu)
{
	unsigned smt, core;

	id_fields(&smt, &core);
	return (arch_cpu_apic_id(cpu) >> smt) & ((1u << (core - smt)) - 1);
}

static unsigned package_of(unsigned cpu)
{
	unsigned smt, core;

	id_fields(&smt, &core);
	return arch_cpu_apic_id(cpu) >> core;
}

static bool usable(unsigned cpu)
{
	return arch_cpu_state(cpu) == CPU_ONLINE && cpus_config_of(cpu) != CPUS_NO_CONFIG;
}

enum partner { ANY_OTHER, SIBLING, OTHER_CORE };

/* What a test that needs such a partner lacks without one. */
static const char *const partner_needed[] = {
    [ANY_OTHER] = "needs a second online CPU",
    [SIBLING] = "needs the other thread of this core online (CPUID.0BH SMT level)",
    [OTHER_CORE] = "needs an online CPU on another core of this package",
};
_Static_assert(ARRAY_SIZE(partner_needed) == OTHER_CORE + 1, "a text per enum partner");

/* The first usable CPU other than this one in the given relation to it. */
static unsigned partner(enum partner rel)
{
	unsigned me = arch_cpu_current(), smt, core;

	id_fields(&smt, &core);
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		if (c == me || !usable(c))
			continue;
		bool same_core = package_of(c) == package_of(me) && core_of(c) == core_of(me);
		if (rel == ANY_OTHER || (rel == SIBLING && smt > 0 && same_core) ||
		    (rel == OTHER_CORE && package_of(c) == package_of(me) && !same_core))
			return c;
	}
	return ARCH_NO_CPU;
}

/* *cpu = partner(rel); false, the test skipped, when there is none. */
static bool partner_or_skip(struct t *t, enum partner rel, unsigned *cpu)
{
	*cpu = partner(rel);
	if (*cpu != ARCH_NO_CPU)
		return true;
	t_skip(t, "%s", partner_needed[rel]);
	return false;
}

static const struct caps *record_of(unsigned cpu)
{
	return cpus_config(cpus_config_of(cpu));
}

/* A GP counter both CPUs have (leaf 23H aware), -1 when none. */
static int common_gp(unsigned other)
{
	const struct caps *o = record_of(other);

	for_each_gp_counter(c) {
		if (c.idx < o->pm.gp_counters && (o->pm.gp_mask & BIT_ULL(c.idx)))
			return (int)c.idx;
	}
	return -1;
}

/* *gp = a GP counter this CPU and `other` (its `both`: "CPUs", "threads")
 * have, to count instructions retired; false, the test skipped, when there
 * is none or the event is unavailable. */
static bool instructions_gp_or_skip(struct t *t, unsigned other, const char *both, int *gp)
{
	*gp = common_gp(other);
	if (*gp >= 0 && pmu_event_available(ARCH_EVENT_INSTRUCTIONS))
		return true;
	t_skip(t, "no GP counter on both %s, or instructions retired unavailable", both);
	return false;
}

/* Run fn(arg) on every usable CPU, this one included. */
static void on_every_cpu(struct t *t, void (*fn)(void *), void *arg, const char *what)
{
	for (unsigned c = 0; c < arch_cpu_count(); c++)
		if (usable(c))
			on_cpu(t, c, fn, arg, what);
}

/* ---- Remote steps --------------------------------------------------------- */

struct step {
	unsigned gp;
	bool global; /* the CPU that runs the step has IA32_PERF_GLOBAL_CTRL */
	uint64_t evtsel, value, iters;
	int vector; /* of the CPL 3 run */
};

/* The calibrated workload at CPL 3. */
static void user_work(void *arg)
{
	struct step *s = arg;
	uint64_t r;

	s->vector = arch_call_at_cpl(3, pmu_user_workload, s->iters, &r);
}

/* Count user_work with GP counter s->gp and s->evtsel; s->value = count. */
static void count_user_work(void *arg)
{
	struct step *s = arg;
	uint64_t global = s->global ? rdmsr(MSR_IA32_PERF_GLOBAL_CTRL) : 0;

	wrmsr(MSR_IA32_PERFEVTSEL(s->gp), 0);
	wrmsr(MSR_IA32_PMC(s->gp), 0);
	if (s->global)
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(s->gp));
	wrmsr(MSR_IA32_PERFEVTSEL(s->gp), s->evtsel);
	user_work(s);
	wrmsr(MSR_IA32_PERFEVTSEL(s->gp), 0);
	s->value = rdmsr(MSR_IA32_PMC(s->gp));
	wrmsr(MSR_IA32_PMC(s->gp), 0);
	if (s->global)
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, global);
}

static void write_pmc(void *arg)
{
	struct step *s = arg;
	wrmsr(MSR_IA32_PMC(s->gp), s->value);
}

static void read_pmc(void *arg)
{
	struct step *s = arg;
	s->value = rdmsr(MSR_IA32_PMC(s->gp));
}

/* This CPU: GP counter gp counts evtsel from 0 while `other` runs user_work.
 * Returns the count. */
static uint64_t count_other_cpus_work(struct t *t, unsigned gp, uint64_t evtsel, unsigned other,
				      struct step *work)
{
	pmu_gp_program(gp, evtsel, 0);
	if (pmu_has_global())
		pmu_global_enable(GLOBAL_PMC_BIT(gp));
	on_cpu(t, other, user_work, work, "the workload at CPL 3");
	wrmsr(MSR_IA32_PERFEVTSEL(gp), 0);
	if (pmu_has_global())
		pmu_global_disable();
	return pmu_gp_read(gp);
}

/* ---- Counters are per logical processor ----------------------------------- */

TEST(smp, counters_per_cpu, REQ_ARCH_PMU)
{
	unsigned other;
	int gp;

	if (!partner_or_skip(t, ANY_OTHER, &other) ||
	    !instructions_gp_or_skip(t, other, "CPUs", &gp))
		return;
	uint64_t insns = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;
	uint64_t evtsel = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_USR | PERFEVTSEL_EN);
	struct step s = {.gp = (unsigned)gp,
			 .global = record_of(other)->pm.version >= 2,
			 .evtsel = evtsel,
			 .iters = PMU_ITERS};

	unsigned me = arch_cpu_current();
	struct counter c = GP_COUNTER((unsigned)gp);

	/* Control: the other CPU's own counter sees its CPL 3 workload. */
	if (t_cpu_counter_counts(t, other, c) &&
	    on_cpu(t, other, count_user_work, &s, "counting its own CPL 3 workload"))
		expect_range(
		    t, s.value, insns, insns + PMU_OVERHEAD_EVENTS, RULE_SMP_COUNTERS_PER_CPU,
		    "cpu %u: IA32_PMC%d counting its own CPL 3 workload (control)", other, gp);

	/* This CPU stays at CPL 0 throughout: a USR-only counter here has
	 * nothing of its own to count (which shows something only on a
	 * counter that counts). */
	if (t_counter_counts(t, c)) {
		uint64_t here = count_other_cpus_work(t, (unsigned)gp, evtsel, other, &s);
		expect_range(t, here, 0, PMU_OVERHEAD_EVENTS, RULE_SMP_COUNTERS_PER_CPU,
			     "cpu %u: IA32_PMC%d (USR) while cpu %u ran %llu instructions at CPL 3",
			     me, gp, other, (unsigned long long)insns);
	}

	/* MSR values: each CPU reads back what it wrote (counters disabled). */
	struct step w = {.gp = (unsigned)gp, .value = 0x5678};
	wrmsr(MSR_IA32_PERFEVTSEL(gp), 0);
	pmu_gp_write((unsigned)gp, 0x1234);
	on_cpu(t, other, write_pmc, &w, "WRMSR IA32_PMCx = 0x5678");
	if (t_counter_holds(t, c))
		expect_eq(t, pmu_gp_read((unsigned)gp), 0x1234, RULE_SMP_COUNTERS_PER_CPU,
			  "cpu %u: IA32_PMC%d after cpu %u wrote 0x5678 to its own", me, gp, other);
	w.value = 0;
	if (t_cpu_counter_holds(t, other, c) && on_cpu(t, other, read_pmc, &w, "RDMSR IA32_PMCx"))
		expect_eq(t, w.value, 0x5678, RULE_SMP_COUNTERS_PER_CPU,
			  "cpu %u: IA32_PMC%d after cpu %u wrote 0x1234 to its own", other, gp, me);
	w.value = 0;
	on_cpu(t, other, write_pmc, &w, "WRMSR IA32_PMCx = 0");
	pmu_gp_write((unsigned)gp, 0);
}

/* ---- A PMI reaches the overflowing CPU's local APIC only ------------------ */

static volatile unsigned pmis_on[ARCH_MAX_CPUS];

static void count_pmi(void)
{
	pmis_on[arch_cpu_current()]++;
	arch_apic_eoi();
}

static void write_lvt(void *arg)
{
	arch_apic_write_lvt_pmi(*(const uint32_t *)arg);
}

/* The LVT performance-counter entry of every usable CPU. */
static void lvt_everywhere(struct t *t, uint32_t lvt)
{
	on_every_cpu(t, write_lvt, &lvt, "writing its LVT performance-counter entry");
}

static void pmis_reset(void)
{
	for (unsigned c = 0; c < ARCH_MAX_CPUS; c++)
		pmis_on[c] = 0;
}

static unsigned pmis_elsewhere(unsigned *where)
{
	unsigned n = 0;

	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		if (c != arch_cpu_current() && pmis_on[c]) {
			n += pmis_on[c];
			*where = c;
		}
	}
	return n;
}

TEST(smp, pmi_to_overflowing_cpu, REQ_ARCH_PMU | REQ_APIC)
{
	unsigned me = arch_cpu_current(), where = ARCH_NO_CPU, other;
	enum arch_event ev;
	uint64_t per_iter;
	int gp = pmu_gp_nth(0);

	if (!partner_or_skip(t, ANY_OTHER, &other))
		return;
	if (gp < 0 || !pmu_exact_event(&ev, &per_iter)) {
		t_skip_return(t, "no GP counter or no exactly counted event");
	}
	if (!t_counter_counts(t, GP_COUNTER((unsigned)gp)))
		return; /* no overflow to route */
	pmis_reset();
	arch_set_pmi_handler(count_pmi);
	lvt_everywhere(t, PMI_VECTOR); /* unmasked, fixed: any CPU could take it */

	pmu_gp_program((unsigned)gp, 0, 0);
	pmu_gp_preload((unsigned)gp, 1000);
	wrmsr(MSR_IA32_PERFEVTSEL(gp),
	      pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_INT | PERFEVTSEL_EN));
	arch_irq_enable();
	if (pmu_has_global())
		pmu_global_enable(GLOBAL_PMC_BIT(gp));
	arch_workload(PMU_ITERS);
	if (pmu_has_global())
		pmu_global_disable();
	arch_irq_disable();
	wrmsr(MSR_IA32_PERFEVTSEL(gp), 0);

	lvt_everywhere(t, APIC_LVT_MASKED | PMI_VECTOR);
	arch_set_pmi_handler(NULL);
	expect_eq(t, pmis_on[me], 1, RULE_SMP_PMI_LOCAL,
		  "PMIs on cpu %u, whose IA32_PMC%d (INT) wrapped once", me, gp);
	unsigned n = pmis_elsewhere(&where);
	expect_eq(t, n, 0, RULE_SMP_PMI_LOCAL,
		  "PMIs on the other CPUs (LVT unmasked there too; last one on cpu %u)", where);
}

/* ---- AnyThread counts the sibling thread (v3, not deprecated) ------------- */

TEST(smp, anythread_counts_sibling, REQ_ARCH_PMU_V3)
{
	unsigned sib;
	int gp;

	if (caps()->pm.anythread_deprecated)
		t_skip_return(t, "AnyThread deprecated (CPUID.0AH:EDX[15])");
	if (!partner_or_skip(t, SIBLING, &sib) || !instructions_gp_or_skip(t, sib, "threads", &gp))
		return;
	uint64_t insns = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;
	uint64_t usr = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_USR | PERFEVTSEL_EN);
	struct step work = {.iters = PMU_ITERS};

	/* Both windows count on this CPU's counter (AnyThread adds the
	 * sibling's events to it; the sibling's own counters take no part). */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)gp)))
		return;
	uint64_t any = count_other_cpus_work(t, (unsigned)gp, usr | PERFEVTSEL_ANY, sib, &work);
	expect_range(t, any, insns, insns + PMU_OVERHEAD_EVENTS, RULE_SMP_ANYTHREAD,
		     "cpu %u: IA32_PMC%d (USR, AnyThread) while its sibling cpu %u ran %llu "
		     "instructions at CPL 3",
		     arch_cpu_current(), gp, sib, (unsigned long long)insns);
	uint64_t own = count_other_cpus_work(t, (unsigned)gp, usr, sib, &work);
	expect_range(t, own, 0, PMU_OVERHEAD_EVENTS, RULE_SMP_ANYTHREAD,
		     "cpu %u: IA32_PMC%d (USR, no AnyThread) while its sibling cpu %u ran %llu "
		     "instructions at CPL 3",
		     arch_cpu_current(), gp, sib, (unsigned long long)insns);
}

/* ---- IA32_PQR_ASSOC is per logical processor ------------------------------ */

struct pqr_step {
	uint64_t value, saved;
};

static void pqr_set(void *arg)
{
	struct pqr_step *s = arg;

	s->saved = rdmsr(MSR_IA32_PQR_ASSOC);
	wrmsr(MSR_IA32_PQR_ASSOC, (s->saved & ~PQR_ASSOC_RMID) | s->value);
}

static void pqr_read(void *arg)
{
	struct pqr_step *s = arg;
	s->value = rdmsr(MSR_IA32_PQR_ASSOC) & PQR_ASSOC_RMID;
}

static void pqr_restore(void *arg)
{
	struct pqr_step *s = arg;
	wrmsr(MSR_IA32_PQR_ASSOC, s->saved);
}

TEST(smp, pqr_assoc_per_cpu, REQ_RDT_MON)
{
	unsigned other = partner(ANY_OTHER);

	if (other == ARCH_NO_CPU || !record_of(other)->rdt.mon_present)
		t_skip_return(t, "needs a second online CPU with RDT monitoring");
	if (caps()->rdt.max_rmid < 2 || record_of(other)->rdt.max_rmid < 2) {
		t_skip_return(t, "needs RMIDs 1 and 2 (CPUID.(0FH,0):EBX)");
	}
	struct pqr_step here = {.value = 1}, there = {.value = 2};

	pqr_set(&here);
	if (!on_cpu(t, other, pqr_set, &there, "IA32_PQR_ASSOC.RMID = 2")) {
		pqr_restore(&here);
		return;
	}
	pqr_read(&here);
	expect_eq(t, here.value, 1, RULE_SMP_PQR_ASSOC,
		  "cpu %u: IA32_PQR_ASSOC.RMID after cpu %u wrote 2 to its own", arch_cpu_current(),
		  other);
	if (on_cpu(t, other, pqr_read, &there, "RDMSR IA32_PQR_ASSOC"))
		expect_eq(t, there.value, 2, RULE_SMP_PQR_ASSOC,
			  "cpu %u: IA32_PQR_ASSOC.RMID after cpu %u wrote 1 to its own", other,
			  arch_cpu_current());
	on_cpu(t, other, pqr_restore, &there, "restoring IA32_PQR_ASSOC");
	pqr_restore(&here);
}

/* ---- Nehalem uncore: the PMI goes to the EN_PMI_COREx cores --------------- */

static void uncore_pmi_accept(void *arg)
{
	bool on = *(const bool *)arg;
	uint64_t d = rdmsr(MSR_IA32_DEBUGCTL);

	wrmsr(MSR_IA32_DEBUGCTL,
	      on ? d | DEBUGCTL_ENABLE_UNCORE_PMI : d & ~DEBUGCTL_ENABLE_UNCORE_PMI);
	arch_apic_write_lvt_pmi(on ? PMI_VECTOR : APIC_LVT_MASKED | PMI_VECTOR);
}

/* FixedCntr0 from 10 below the wrap, its PMI bit, routed to `core` only;
 * the PMIs each CPU took are in pmis_on[]. */
static void uncore_pmi_run(unsigned core)
{
	pmis_reset();
	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL,
	      UNCORE_STATUS_FC0 | UNCORE_STATUS_OVF_PMI | UNCORE_STATUS_CHG);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR0, width_mask(UNCORE_WIDTH) - 9);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, UNCORE_FIXED_CTRL_EN | UNCORE_FIXED_CTRL_PMI);
	arch_irq_enable();
	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, UNCORE_GLOBAL_EN_FC0 | UNCORE_GLOBAL_EN_PMI_CORE(core));
	arch_workload(PMU_ITERS);
	arch_irq_disable();
	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL,
	      UNCORE_STATUS_FC0 | UNCORE_STATUS_OVF_PMI | UNCORE_STATUS_CHG);
}

/* PMIs taken by the CPUs on `core` of this package, and by the others. */
static void pmis_by_core(unsigned core, unsigned *on, unsigned *off)
{
	*on = *off = 0;
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		if (package_of(c) == package_of(arch_cpu_current()) && core_of(c) == core)
			*on += pmis_on[c];
		else
			*off += pmis_on[c];
	}
}

TEST(smp, uncore_pmi_to_en_cores, REQ_NEHALEM_UNCORE | REQ_APIC)
{
	unsigned other, me = arch_cpu_current();

	if (!partner_or_skip(t, OTHER_CORE, &other))
		return;
	if (core_of(me) > 3 || core_of(other) > 3) {
		t_skip_return(t, "EN_PMI_COREx names cores 0-3 only");
	}
	bool on = true, off = false;
	arch_set_pmi_handler(count_pmi);
	on_every_cpu(t, uncore_pmi_accept, &on, "IA32_DEBUGCTL.Offcore_PMI_EN, LVT unmasked");

	const unsigned cores[2] = {core_of(other), core_of(me)};
	for (unsigned i = 0; i < 2; i++) {
		unsigned got, stray;
		uncore_pmi_run(cores[i]);
		pmis_by_core(cores[i], &got, &stray);
		expect_true(
		    t, got >= 1, "at least one", got ? "some" : "none", RULE_SMP_UNCORE_PMI,
		    "PMIs on the CPUs of core %u, the only EN_PMI_COREx set (run on cpu %u)",
		    cores[i], me);
		expect_eq(t, stray, 0, RULE_SMP_UNCORE_PMI,
			  "PMIs on CPUs of the other cores (EN_PMI_CORE%u only)", cores[i]);
	}
	on_every_cpu(t, uncore_pmi_accept, &off, "Offcore_PMI_EN clear, LVT masked");
	arch_set_pmi_handler(NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Harness self-tests: not conformance checks but proof that the harness
 * survives what a broken PMU or a broken test does to it. The first eight
 * MUST be reported as data/expectations/selftest.txt says: an exception
 * (page_fault, invalid_opcode, stack_overflow, fault_in_pmi_handler), a
 * failure (corrupt_machine_state, failing_check) or a timeout (endless_loop,
 * endless_loop_interrupts_off). environment_restored then checks that CR4
 * and the rings came back intact and the run went on; self_nmi and
 * nmi_probe_keeps_nmis_blocked prove the NMI path (self-NMIs through the
 * local APIC); hang_interrupts_off, last, is ended by another CPU.
 * They run only with selftest=1 (or suites=selftest).
 */
#include "arch.h"
#include "msr.h"
#include "test.h"

#define RULE_HARNESS "pmutest harness: a fault or hang in a test fails that test only"

static uint64_t cr4_before_faults;
static bool faults_ran;

/* Flip CR4.PCE before faulting: the runner must put CR4 back. */
static void perturb_cr4(void)
{
	cr4_before_faults = arch_read_cr4();
	faults_ran = true;
	arch_write_cr4(cr4_before_faults ^ CR4_PCE);
}

TEST_FULL(selftest, page_fault, REQ_NONE, TEST_SELFTEST, 0)
{
	perturb_cr4();
	arch_selftest_page_fault();
	expect_true(t, false, "a #PF before this line", "execution went on", RULE_HARNESS,
		    "page fault raised by arch_selftest_page_fault");
}

TEST_FULL(selftest, invalid_opcode, REQ_NONE, TEST_SELFTEST, 0)
{
	perturb_cr4();
	arch_selftest_invalid_opcode();
	expect_true(t, false, "a #UD before this line", "execution went on", RULE_HARNESS,
		    "UD2 executed by arch_selftest_invalid_opcode");
}

TEST_FULL(selftest, stack_overflow, REQ_NONE, TEST_SELFTEST, 0)
{
	perturb_cr4();
	arch_selftest_overflow_stack();
	expect_true(t, false, "a #PF in the stack guard page", "the recursion returned",
		    RULE_HARNESS, "unbounded recursion by arch_selftest_overflow_stack");
}

TEST_FULL(selftest, fault_in_pmi_handler, REQ_APIC, TEST_SELFTEST, 0)
{
	perturb_cr4();
	arch_selftest_fault_in_pmi_handler();
	expect_true(t, false, "a #UD in the PMI handler", "no PMI, or its handler returned",
		    RULE_HARNESS, "PMI handler that executes UD2");
}

TEST_FULL(selftest, corrupt_machine_state, REQ_NONE, TEST_SELFTEST, 0)
{
	/* Returns normally: the failure is the state left behind (empty IDTR
	 * and GDTR, a zeroed #UD gate, CR8 = 15), which the harness reports and
	 * puts back; the tests after this one prove it did. */
	arch_selftest_corrupt_machine_state();
	expect_true(t, true, "a return", "a return", RULE_HARNESS,
		    "arch_selftest_corrupt_machine_state returned");
}

static volatile uint64_t spin_counter;

TEST_FULL(selftest, endless_loop, REQ_NONE, TEST_SELFTEST, 500)
{
	perturb_cr4();
	for (;;)
		spin_counter++;
}

/* The same hang with interrupts off: only an NMI can end it. */
TEST_FULL(selftest, endless_loop_interrupts_off, REQ_NONE, TEST_SELFTEST, 500)
{
	if (!arch_watchdog_stops_any_hang()) {
		t_skip_return(t, "no NMI source for the watchdog here: a hang with interrupts off "
				 "would not end (docs/robustness.md)");
	}
	arch_irq_disable();
	for (;;)
		spin_counter++;
}

TEST_FULL(selftest, failing_check, REQ_NONE, TEST_SELFTEST, 0)
{
	/* Shows the failure format: expected, actual, rule. */
	expect_eq(t, 1, 2, RULE_HARNESS, "a check that is wrong on purpose");
}

static __user_code uint64_t add_one_at_cpl3(uint64_t x)
{
	return x + 1;
}

TEST_FULL(selftest, environment_restored, REQ_NONE, TEST_SELFTEST, 0)
{
	if (!faults_ran)
		t_skip_return(t, "the fault self-tests did not run before this one");
	expect_eq(t, arch_read_cr4(), cr4_before_faults, RULE_HARNESS,
		  "CR4 after the tests that flipped CR4.PCE and then faulted or hung");
	/* Ring transitions still work after the faults. */
	uint64_t result = 0;
	int vec = arch_call_at_cpl(3, add_one_at_cpl3, 41, &result);
	expect_vector(t, vec, 0, RULE_HARNESS, "a plain function called at CPL 3");
	expect_eq(t, result, 42, RULE_HARNESS, "its result, carried back to CPL 0");
	expect_eq(t, spin_counter > 0, 1, RULE_HARNESS,
		  "the endless loop ran before its watchdog fired");
}

#define RULE_HARNESS_NMI                                                                           \
	"pmutest harness: an NMI reaches arch_set_nmi_handler's handler once, whatever RFLAGS.IF " \
	"says, and the interrupted code resumes (SDM Vol.3A 6.7.1, 6.8.1; ICR NMI 10.6.1)"

static volatile unsigned self_nmis;

static void count_self_nmi(void)
{
	self_nmis = self_nmis + 1;
}

/*
 * The NMI path the PMI tests in delivery mode NMI rely on, proven where no
 * PMU exists (QEMU TCG): one NMI sent through the local APIC's ICR with
 * interrupts off is seen by the handler exactly once, and this test goes on
 * after it (an IRET back here, not the recovery path).
 */
TEST_FULL(selftest, self_nmi, REQ_APIC, TEST_SELFTEST, 0)
{
	unsigned with_if_clear;

	self_nmis = 0;
	arch_set_nmi_handler(count_self_nmi);
	arch_irq_disable();
	arch_apic_self_nmi();
	/* The ICR's NMI may land a few instructions after the write. */
	for (uint32_t i = 0; i < 100000000 && self_nmis == 0; i++)
		continue;
	with_if_clear = self_nmis;
	arch_irq_enable();
	arch_workload(1000); /* room for a second one, which must not come */
	arch_set_nmi_handler(NULL);
	expect_eq(t, with_if_clear, 1, RULE_HARNESS_NMI,
		  "NMIs the handler saw after one self-NMI sent with RFLAGS.IF = 0");
	expect_eq(t, self_nmis, 1, RULE_HARNESS_NMI, "NMIs the handler saw in all");
}

static volatile unsigned nmi_depth, nmi_max_depth, nmi_calls, nmi_probe_vector;

/* RDPMC of counter index FFFFH, which no CPU has: #GP (SDM Vol. 2B RDPMC;
 * #UD where there is no PMU, as under TCG), fixed up. The first call then
 * sends itself a second NMI while still inside. */
static void nmi_handler_with_probe(void)
{
	uint64_t lo, hi;

	nmi_depth = nmi_depth + 1;
	if (nmi_depth > nmi_max_depth)
		nmi_max_depth = nmi_depth;
	nmi_calls = nmi_calls + 1;
	if (nmi_calls == 1) {
		nmi_probe_vector = (unsigned)rdpmc_safe(0xffff, &lo, &hi);
		arch_apic_self_nmi();
		for (uint32_t i = 0; i < 10000000 && nmi_calls == 1; i++)
			continue; /* a nested NMI would land here */
	}
	nmi_depth = nmi_depth - 1;
}

/*
 * NMI nesting: a probe fixed up inside an NMI handler returns without
 * unblocking NMIs, so the second NMI waits for the handler's own IRET and
 * runs after it, never on top of it (the NMI stack would be overwritten).
 */
TEST_FULL(selftest, nmi_probe_keeps_nmis_blocked, REQ_APIC, TEST_SELFTEST, 0)
{
	nmi_depth = nmi_max_depth = nmi_calls = 0;
	arch_set_nmi_handler(nmi_handler_with_probe);
	arch_apic_self_nmi();
	for (uint32_t i = 0; i < 100000000 && nmi_calls < 2; i++)
		continue;
	arch_set_nmi_handler(NULL);
	expect_eq(t, nmi_calls, 2, RULE_HARNESS_NMI, "NMI handler calls (one sent from inside)");
	expect_eq(t, nmi_max_depth, 1, RULE_HARNESS_NMI,
		  "NMI handlers running at once after a probe faulted inside one");
	expect_ne(t, nmi_probe_vector, 0, RULE_HARNESS_NMI,
		  "the probe inside the handler faulted (fixed up)");
}

static void step_elsewhere(void *arg)
{
	(void)arg;
}

/*
 * The NMI watchdog after a step on another CPU (arch_run_on_cpu from inside
 * a test): the step's own guarded run re-targets the watchdog to its CPU;
 * when it ends, the watchdog must be back on this CPU with this test's
 * deadline, or this hang with interrupts off on the boot CPU, which nothing
 * else can end, hangs the run. On the boot CPU only: an AP's hang the boot
 * CPU would end anyway.
 */
TEST_FULL(selftest, nmi_watchdog_after_step, REQ_NONE, TEST_SELFTEST, 500)
{
	unsigned other = 0, me = arch_cpu_current();
	struct arch_exception ex;

	if (me != arch_cpu_boot() || !arch_watchdog_stops_any_hang())
		t_skip_return(t, "the boot CPU's case, with an NMI watchdog");
	while (other < arch_cpu_count() && (other == me || arch_cpu_state(other) != CPU_ONLINE))
		other++;
	if (other == arch_cpu_count())
		t_skip_return(t, "no second CPU online for the step");
	expect_eq(t, arch_run_on_cpu(other, step_elsewhere, NULL, 200, &ex), ARCH_GUARD_RETURNED,
		  RULE_HARNESS, "a step on another CPU returned");
	arch_irq_disable();
	for (;;)
		spin_counter++;
}

/*
 * A hang that the CPU's own watchdog cannot end (interrupts off): only another
 * CPU can notice it and stop the hung one (arch_run_on_cpu: a bounded wait,
 * then INIT). Nothing could on the CPU that runs the runner, so it is skipped
 * there. Must be reported as a TIMEOUT and the run must go on with the next
 * CPU. Last in this file: the CPU runs nothing after it.
 */
TEST_FULL(selftest, hang_interrupts_off, REQ_NONE, TEST_SELFTEST, 500)
{
	if (arch_cpu_current() == arch_cpu_boot())
		t_skip_return(t, "a hang with interrupts off is recoverable on another CPU only");
	arch_irq_disable();
	for (;;)
		spin_counter++;
}

/* SPDX-License-Identifier: MIT */
/*
 * Harness self-tests: not conformance checks but proof that the harness
 * survives what a broken PMU or a broken test does to it. Each of the first
 * four MUST be reported as failing (the expectations say so); the last one
 * checks that the environment came back intact and the run went on.
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

static volatile uint64_t spin_counter;

TEST_FULL(selftest, endless_loop, REQ_NONE, TEST_SELFTEST, 500)
{
	perturb_cr4();
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
	if (!faults_ran) {
		t_skip(t, "the fault self-tests did not run before this one");
		return;
	}
	expect_eq(t, arch_read_cr4(), cr4_before_faults, RULE_HARNESS,
		  "CR4 after three tests that flipped CR4.PCE and then faulted or hung");
	/* Ring transitions still work after the faults. */
	uint64_t result = 0;
	int vec = arch_call_at_cpl(3, add_one_at_cpl3, 41, &result);
	expect_vector(t, vec, 0, RULE_HARNESS, "a plain function called at CPL 3");
	expect_eq(t, result, 42, RULE_HARNESS, "its result, carried back to CPL 0");
	expect_eq(t, spin_counter > 0, 1, RULE_HARNESS,
		  "the endless loop ran before its watchdog fired");
}

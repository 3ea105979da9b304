/* SPDX-License-Identifier: MIT */
/*
 * A first check: RDPMC returns a GP counter's value zero-extended from the
 * counter's width. The worked example of docs/adding-a-check.md: make test
 * (testing/check-docs.sh) builds it into build/host/pmusim-example, runs it
 * and breaks it with a quirk, so the page cannot drift from the code.
 */
#include "pmu.h"
#include "rules.h"
#include "test.h"

TEST(example, rdpmc_zero_extends, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	uint64_t mask = width_mask(caps()->pm.gp_width);

	for_each_gp_counter(c) {
		/* a legacy IA32_PMCx write sign-extends EAX bit 31 to the width */
		uint64_t want = 0xFFFFFFFF80000000ULL & mask;
		uint64_t ecx = RDPMC_ECX(RDPMC_TYPE_GP, c.idx), rax, rdx;
		int vec;

		pmu_gp_program(c.idx, 0, 0); /* disabled: the value stays put */
		wrmsr(MSR_IA32_PMC(c.idx), 0x80000000ULL);
		vec = rdpmc_safe(ecx, &rax, &rdx);
		if (!expect_no_fault(t, vec, RULE_RDPMC_GP, "RDPMC ECX=%#llx",
				     (unsigned long long)ecx))
			continue;
		t_subject_rdpmc(t, ecx); /* what the failure below is about */
		expect_eq(t, rdpmc_edx_eax(rax, rdx), want, RULE_RDPMC_WIDTH,
			  "RDPMC %u after IA32_PMC%u <- 0x80000000", c.idx, c.idx);
	}
}

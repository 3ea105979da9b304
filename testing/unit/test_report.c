/* SPDX-License-Identifier: MIT */
/* Unit tests of the saved report (kernel/console.c): a run whose output
 * overflows the buffer still keeps its failures, totals and verdict. */
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "ktap.h"
#include "report.h"
#include "unit.h"

void arch_console_write(const char *s, size_t n)
{
	(void)s;
	(void)n;
}

/* No TSC rate: kernel/timing.c measures nothing (as in the simulator). */
uint64_t arch_tsc_hz(void)
{
	return 0;
}

uint64_t arch_rdtsc(void)
{
	return 0;
}

int main(void)
{
	size_t len;
	bool truncated;
	char name[64];

	kputs("KTAP version 1\n1..1\n");
	report_text(&len, &truncated);
	UNIT_TRUE(!truncated && len == 20, "a short run is kept whole");

	/* 10,000 option errors, with failed tests among them. */
	for (int i = 0; i < 10000; i++) {
		ktap_diag(&g_ktap, "option error: pmutest.cfg:%d: line has a NUL byte", i);
		if (i % 1000 == 999)
			kprintf("    not ok %d failing_test_%d\n", i / 1000 + 1, i);
	}
	kputs("# Totals: pass:0 fail:10 skip:0 total:10\n# verdict: FAIL\n");
	const char *text = report_text(&len, &truncated);
	UNIT_TRUE(truncated, "a flood of diagnostics truncates the report");
	UNIT_TRUE(len <= REPORT_MAX, "the report fits its buffer");
	UNIT_TRUE(memmem(text, len, "KTAP version 1", 14) != NULL, "the head is kept");
	UNIT_TRUE(memmem(text, len, "# verdict: FAIL\n", 16) != NULL, "the verdict is kept");
	UNIT_TRUE(memmem(text, len, "# Totals: pass:0 fail:10", 24) != NULL, "the totals are kept");
	UNIT_TRUE(memmem(text, len, "report truncated", 16) != NULL, "the cut is said");
	unsigned kept = 0;
	for (int i = 999; i < 10000; i += 1000) {
		snprintf(name, sizeof(name), "not ok %d failing_test_%d\n", i / 1000 + 1, i);
		kept += memmem(text, len, name, strlen(name)) != NULL;
	}
	UNIT_EQ(kept, 10, "every failed test's result line is kept");
	return unit_done();
}

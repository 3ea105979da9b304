/* SPDX-License-Identifier: MIT */
/* Where a run's time goes: timing.h. */
#include "timing.h"

#include "arch.h"
#include "ktap.h"

static uint64_t cycles[TIME_PHASES];
static unsigned counts[TIME_PHASES];

bool timing_on(void)
{
	return arch_tsc_hz() != 0;
}

uint64_t timing_now(void)
{
	return timing_on() ? arch_rdtsc() : 0;
}

void timing_add(enum timing_phase p, uint64_t since)
{
	if (since)
		cycles[p] += arch_rdtsc() - since;
}

void timing_count(enum timing_phase p)
{
	counts[p]++;
}

static unsigned long long ms(uint64_t c)
{
	return (unsigned long long)(c / (arch_tsc_hz() / 1000));
}

void timing_report(uint64_t tsc_at_entry, uint64_t main_start, uint64_t first_test)
{
	if (!timing_on() || arch_tsc_hz() < 1000)
		return;
	ktap_diag(&g_ktap,
		  "time: boot %llu ms, to the first test %llu ms; %u skipped tests %llu ms; %u run "
		  "tests: body %llu ms, guard %llu ms, PMU reset %llu ms, result %llu ms; console "
		  "output %llu ms in all",
		  tsc_at_entry ? ms(main_start - tsc_at_entry) : 0ULL, ms(first_test - main_start),
		  counts[TIME_SKIP], ms(cycles[TIME_SKIP]), counts[TIME_BODY],
		  ms(cycles[TIME_BODY]), ms(cycles[TIME_GUARD] - cycles[TIME_BODY]),
		  ms(cycles[TIME_RESET]), ms(cycles[TIME_RESULT]), ms(cycles[TIME_OUTPUT]));
}

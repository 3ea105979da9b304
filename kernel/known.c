/* SPDX-License-Identifier: MIT */
/*
 * The known-deviations table (see known.h). One row per documented
 * deviation; add a row with its source, never a loosened check. Each row
 * names the exact check (test and rule) it explains, so any other failure
 * of the same test stays a plain FAIL.
 */
#include "known.h"

#include "../tests/rules.h"
#include "kstring.h"

static const struct known_deviation table[] = {
    {
	/* Core 2 (Merom/Conroe 0FH, Conroe-L/Merom-L 16H) reports version 2
	 * with CPUID.0AH:EDX = 0, yet has the three fixed counters version 2
	 * introduces; corpus genuineintel00006f2_conroe ... 0010661_conroel
	 * (later steppings, 6F9H/6FBH, report EDX = 503H). */
	.id = "core2-v2-no-fixed-enumerated",
	.test = "cpuid.leaf_0ah_fields",
	.rule = RULE_CPUID_V2_FIXED,
	.vendor = VENDOR_INTEL,
	.family = 0x6,
	.models = {0x0F, 0x16},
	.n_models = 2,
	.stepping_min = 0,
	.stepping_max = 0xF,
	.hypervisor = KNOWN_BARE_METAL,
	.what = "Core 2 enumerates architectural PMU version 2 with CPUID.0AH:EDX = 0 (no fixed "
		"counters)",
	.source = "Linux arch/x86/events/intel/core.c intel_pmu_init(): 'v2 perfmon does not "
		  "report fixed-purpose events' (assumes 3 fixed counters on bare metal)",
    },
};

static bool model_listed(const struct known_deviation *k, unsigned model)
{
	for (unsigned i = 0; i < k->n_models && i < KNOWN_MAX_MODELS; i++)
		if (k->models[i] == model)
			return true;
	return false;
}

static bool platform_matches(const struct known_deviation *k, const struct caps *c)
{
	if (!kstrcmp(k->hypervisor, KNOWN_ANY_HV))
		return true;
	if (!kstrcmp(k->hypervisor, KNOWN_BARE_METAL))
		return !c->hypervisor;
	return c->hypervisor && !kstrcmp(k->hypervisor, c->hypervisor_vendor);
}

/* "suite.test" against the two parts. */
static bool test_is(const char *full, const char *suite, const char *test)
{
	size_t n = kstrlen(suite);

	return !kstrncmp(full, suite, n) && full[n] == '.' && !kstrcmp(full + n + 1, test);
}

const struct known_deviation *known_match(const struct caps *c, const char *suite, const char *test,
					  const char *rule)
{
	for (unsigned i = 0; i < ARRAY_SIZE(table); i++) {
		const struct known_deviation *k = &table[i];

		if (rule && !kstrcmp(k->rule, rule) && test_is(k->test, suite, test) &&
		    c->vendor == k->vendor && c->family == k->family && model_listed(k, c->model) &&
		    c->stepping >= k->stepping_min && c->stepping <= k->stepping_max &&
		    platform_matches(k, c))
			return k;
	}
	return NULL;
}

unsigned known_count(void)
{
	return ARRAY_SIZE(table);
}

const struct known_deviation *known_at(unsigned i)
{
	return i < ARRAY_SIZE(table) ? &table[i] : NULL;
}

/* SPDX-License-Identifier: MIT */
/* Every CPU's capability record and the run's CPU selection (cpus.h). */
#include "cpus.h"

#include "arch.h"
#include "fw_state.h"
#include "kstring.h"
#include "ktap.h"
#include "msr.h"

_Static_assert(OPT_MAX_CPUS == ARCH_MAX_CPUS, "the cpus option covers every CPU");

static const char *const state_names[] = {
    [CPU_ONLINE] = "online",
    [CPU_NOT_STARTED] = "not started",
    [CPU_NO_ANSWER] = "did not answer the start-up IPIs",
    [CPU_NOT_ADDRESSABLE] = "APIC ID above 255 with the local APIC in xAPIC mode",
    [CPU_NO_TRAMPOLINE] = "no start-up page below 1 MiB",
    [CPU_LOST] = "stopped answering; stopped with INIT",
};
_Static_assert(ARRAY_SIZE(state_names) == CPU_LOST + 1, "a name per enum cpu_state");

const char *arch_cpu_state_name(enum cpu_state s)
{
	return (unsigned)s < ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

static struct caps configs[CPUS_MAX_CONFIGS];
static unsigned n_configs;
static uint8_t config_of[ARCH_MAX_CPUS];
/* What reading a record ran into, reported later (cpus_report). */
static int perf_cap_vector[ARCH_MAX_CPUS];
static enum arch_guard_result read_rc[ARCH_MAX_CPUS];
static unsigned too_many_configs;

/* The machine behind a configuration, raw, for the report (so that
 * `pmusim --replay` rebuilds it): every CPUID (leaf, sub-leaf) the record
 * read, in reading order, and IA32_PERF_CAPABILITIES as read. */
#define CPUS_RAW_LEAVES 64
struct raw_machine {
	unsigned n;
	struct {
		uint32_t leaf, subleaf;
		struct cpuid_regs r;
	} e[CPUS_RAW_LEAVES];
	bool perf_cap_read; /* PDCM, and the MSR read without a fault */
	uint64_t perf_cap;
};

struct reading {
	struct caps c;
	int perf_cap_vector;
	struct raw_machine raw;
};
static struct raw_machine raw_of[CPUS_MAX_CONFIGS];

/* Leaves the suites read themselves (suites/smp.c, suites/bounds.c), beyond
 * the record's: they go into the report as well. */
#define LEAF_HV_FEATURES 0x40000001u
static const uint32_t cache_leaves[] = {0x4, 0x8000001Du};

static const struct {
	uint32_t leaf, subleaf;
} suite_leaves[] = {{0x0B, 0}, {0x0B, 1}, {0x16, 0}};

static void raw_note(struct raw_machine *m, uint32_t leaf, uint32_t subleaf,
		     const struct cpuid_regs *r)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->e[i].leaf == leaf && m->e[i].subleaf == subleaf)
			return;
	if (m->n == CPUS_RAW_LEAVES)
		return;
	m->e[m->n].leaf = leaf;
	m->e[m->n].subleaf = subleaf;
	m->e[m->n].r = *r;
	m->n++;
}

static bool machine_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	arch_cpuid(leaf, subleaf, r);
	bool known = arch_cpuid_known(leaf, subleaf);
	if (known && ctx)
		raw_note(ctx, leaf, subleaf, r);
	return known;
}

/* On the CPU whose record it is. */
static void read_record(void *arg)
{
	struct reading *rd = arg;

	kmemset(&rd->c, 0, sizeof(rd->c));
	fw_state_lift_cpuid_limit(); /* the CPUID the record reads is the CPU's */
	fw_state_read_cpu();	     /* before any test wrote its PMU */
	rd->raw.n = 0;
	caps_decode(&rd->c, machine_cpuid, &rd->raw);
	for (unsigned i = 0; i < ARRAY_SIZE(suite_leaves); i++) {
		struct cpuid_regs r;
		if (suite_leaves[i].leaf <= rd->c.max_basic_leaf)
			(void)machine_cpuid(&rd->raw, suite_leaves[i].leaf, suite_leaves[i].subleaf,
					    &r);
	}
	/* The deterministic cache parameters suites/rdt.c walks (CPUID.04H,
	 * 8000001DH), sub-leaf by sub-leaf up to the first of type 0. */
	for (unsigned i = 0; i < ARRAY_SIZE(cache_leaves); i++) {
		uint32_t leaf = cache_leaves[i];
		bool basic = leaf < 0x80000000u;
		if (basic ? leaf > rd->c.max_basic_leaf
			  : !rd->c.max_ext_valid || leaf > rd->c.max_ext_leaf)
			continue;
		for (uint32_t sub = 0; sub < 16; sub++) {
			struct cpuid_regs r;
			if (!machine_cpuid(&rd->raw, leaf, sub, &r) || !(r.eax & 0x1F))
				break;
		}
	}
	/* The hypervisor's leaf 40000001H (KVM's features), where its leaf
	 * 40000000H gives it: the report names the platform whole. */
	for (unsigned i = 0; i < rd->raw.n; i++) {
		struct cpuid_regs r;
		if (rd->raw.e[i].leaf == LEAF_HV_FEATURES - 1 &&
		    rd->raw.e[i].r.eax >= LEAF_HV_FEATURES && rd->raw.e[i].r.eax <= 0x400000FFu)
			(void)machine_cpuid(&rd->raw, LEAF_HV_FEATURES, 0, &r);
	}
	rd->perf_cap_vector = 0;
	rd->raw.perf_cap_read = false;
	rd->raw.perf_cap = 0;
	if (rd->c.pdcm) {
		uint64_t v;
		rd->perf_cap_vector = rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &v);
		if (rd->perf_cap_vector == 0) {
			caps_decode_perf_capabilities(&rd->c, v);
			rd->raw.perf_cap_read = true;
			rd->raw.perf_cap = v;
		}
	}
}

/* The raw lines of a configuration (docs/reports.md "What the report carries"):
 * each a `cpuid -r` register line after its prefix. */
static void raw_report(unsigned k)
{
	const struct raw_machine *m = &raw_of[k];

	for (unsigned i = 0; i < m->n; i++)
		ktap_diag(&g_ktap,
			  "cpuid: config %u: 0x%08x 0x%02x: eax=0x%08x ebx=0x%08x "
			  "ecx=0x%08x edx=0x%08x",
			  k + 1, m->e[i].leaf, m->e[i].subleaf, m->e[i].r.eax, m->e[i].r.ebx,
			  m->e[i].r.ecx, m->e[i].r.edx);
	if (m->n == CPUS_RAW_LEAVES)
		ktap_diag(&g_ktap, "cpuid: config %u: more than %u leaves read: the rest not shown",
			  k + 1, CPUS_RAW_LEAVES);
	if (m->perf_cap_read)
		ktap_diag(&g_ktap, "msr: config %u: IA32_PERF_CAPABILITIES (345H) = %#llx", k + 1,
			  (unsigned long long)m->perf_cap);
}

void cpus_read_records(void)
{
	static struct reading rd;

	n_configs = 0;
	for (unsigned cpu = 0; cpu < arch_cpu_count(); cpu++) {
		struct arch_exception ex;

		config_of[cpu] = CPUS_NO_CONFIG;
		if (arch_cpu_state(cpu) != CPU_ONLINE)
			continue;
		read_rc[cpu] = arch_run_on_cpu(cpu, read_record, &rd, 2000, &ex);
		if (read_rc[cpu] != ARCH_GUARD_RETURNED)
			continue;
		perf_cap_vector[cpu] = rd.perf_cap_vector;
		unsigned k = 0;
		while (k < n_configs && kmemcmp(&configs[k], &rd.c, sizeof(rd.c)) != 0)
			k++;
		if (k == n_configs) {
			if (n_configs == CPUS_MAX_CONFIGS) {
				too_many_configs++;
				continue;
			}
			kmemcpy(&raw_of[n_configs], &rd.raw, sizeof(rd.raw));
			kmemcpy(&configs[n_configs++], &rd.c, sizeof(rd.c));
		}
		config_of[cpu] = (uint8_t)k;
	}
	/* Until a run picks one: the boot CPU's record. */
	cpus_use(arch_cpu_boot());
}

unsigned cpus_untested(const struct options *o, char *buf, size_t size)
{
	static uint32_t none;
	unsigned n = 0, left = arch_cpus_left_out(&none, 0);
	size_t at = 0;

	buf[0] = 0;
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		if (config_of[c] != CPUS_NO_CONFIG)
			continue; /* it has a record: cpus_selected decides */
		/* Only a list can exclude a CPU whose PMU nobody read: "one per
		 * configuration" cannot tell that it has none of its own. */
		if (o->cpus_mode == CPUS_LIST && !((o->cpus_list[c / 64] >> (c % 64)) & 1))
			continue;
		const char *why = arch_cpu_state(c) != CPU_ONLINE
				      ? arch_cpu_state_name(arch_cpu_state(c))
				      : "its capability record could not be read";
		n++;
		if (at < size)
			at += (size_t)ksnprintf(buf + at, size - at, "%scpu %u (%s)",
						n > 1 ? ", " : "", c, why);
	}
	if (left && o->cpus_mode != CPUS_LIST) {
		n += left;
		if (at < size)
			ksnprintf(buf + at, size - at, "%s%u beyond %u CPUs", n > left ? ", " : "",
				  left, ARCH_MAX_CPUS);
	}
	return n;
}

unsigned cpus_config_count(void)
{
	return n_configs;
}

unsigned cpus_config_of(unsigned cpu)
{
	return cpu < arch_cpu_count() ? config_of[cpu] : CPUS_NO_CONFIG;
}

const struct caps *cpus_config(unsigned config)
{
	return config < n_configs ? &configs[config] : NULL;
}

void cpus_use(unsigned cpu)
{
	unsigned k = cpus_config_of(cpu);

	if (k != CPUS_NO_CONFIG)
		kmemcpy(&g_caps, &configs[k], sizeof(g_caps));
}

static bool wanted(const struct options *o, unsigned cpu, bool *config_seen)
{
	unsigned k = cpus_config_of(cpu);

	switch (o->cpus_mode) {
	case CPUS_ALL:
		return true;
	case CPUS_PER_CONFIG:
		if (config_seen[k])
			return false;
		config_seen[k] = true;
		return true;
	case CPUS_LIST:
		return (o->cpus_list[cpu / 64] >> (cpu % 64)) & 1;
	}
	return false;
}

unsigned cpus_selected(const struct options *o, unsigned *list)
{
	bool config_seen[CPUS_MAX_CONFIGS] = {0};
	unsigned n = 0;

	for (unsigned cpu = 0; cpu < arch_cpu_count(); cpu++)
		if (cpus_config_of(cpu) != CPUS_NO_CONFIG && wanted(o, cpu, config_seen))
			list[n++] = cpu;
	return n;
}

/* "0-3, 6" into buf: the CPUs whose mark is `k`. */
static void cpu_ranges(const uint8_t *mark, uint8_t k, char *buf, size_t len)
{
	size_t at = 0;
	unsigned n = arch_cpu_count();

	buf[0] = 0;
	for (unsigned c = 0; c < n; c++) {
		if (mark[c] != k)
			continue;
		unsigned e = c;
		while (e + 1 < n && mark[e + 1] == k)
			e++;
		at +=
		    (size_t)ksnprintf(buf + at, at < len ? len - at : 0, "%s%u", at ? ", " : "", c);
		if (e > c)
			at += (size_t)ksnprintf(buf + at, at < len ? len - at : 0, "-%u", e);
		c = e;
		if (at >= len)
			break;
	}
}

void cpus_report(const struct options *o)
{
	unsigned n = arch_cpu_count(), online = 0;
	char ranges[160];

	for (unsigned c = 0; c < n; c++)
		online += arch_cpu_state(c) == CPU_ONLINE;
	ktap_diag(&g_ktap, "cpus: %u of %u online (boot CPU %u); %u distinct PMU configuration%s",
		  online, n, arch_cpu_boot(), n_configs, n_configs == 1 ? "" : "s");
	/* Enabled in the firmware's list but beyond ARCH_MAX_CPUS: never
	 * started, never tested, each named. */
	static uint32_t out[ARCH_MAX_CPUS];
	kmemset(out, 0xFF, sizeof(out)); /* ARCH_NO_CPU: no APIC ID recorded */
	unsigned left = arch_cpus_left_out(out, ARCH_MAX_CPUS);
	if (left)
		ktap_diag(&g_ktap, "cpus left out: %u beyond %u: not tested", left, ARCH_MAX_CPUS);
	for (unsigned i = 0; i < left && i < ARCH_MAX_CPUS && out[i] != ARCH_NO_CPU; i++)
		ktap_diag(&g_ktap, "cpu left out: APIC ID %#x", out[i]);
	for (unsigned c = 0; c < n; c++) {
		const struct caps *r = cpus_config(config_of[c]);
		char what[64] = "";
		if (r && r->hybrid)
			ksnprintf(what, sizeof(what), ", hybrid core type %s (CPUID.1AH)",
				  caps_core_type_name(r->core_type));
		if (arch_cpu_state(c) != CPU_ONLINE)
			ktap_diag(&g_ktap, "cpu %u: APIC ID %#x: %s: not tested", c,
				  arch_cpu_apic_id(c), arch_cpu_state_name(arch_cpu_state(c)));
		else if (read_rc[c] != ARCH_GUARD_RETURNED)
			ktap_diag(&g_ktap,
				  "cpu %u: APIC ID %#x: reading its capability record failed "
				  "(run status: %s): not tested",
				  c, arch_cpu_apic_id(c), arch_guard_result_name(read_rc[c]));
		else if (!r)
			ktap_diag(&g_ktap,
				  "cpu %u: APIC ID %#x: more than %d distinct PMU configurations: "
				  "not tested",
				  c, arch_cpu_apic_id(c), CPUS_MAX_CONFIGS);
		else
			ktap_diag(&g_ktap, "cpu %u: APIC ID %#x: online, PMU configuration %u%s", c,
				  arch_cpu_apic_id(c), config_of[c] + 1, what);
		if (perf_cap_vector[c])
			ktap_diag(&g_ktap,
				  "cpu %u: CPUID.01H:ECX[15] PDCM is set but RDMSR "
				  "IA32_PERF_CAPABILITIES raised %s: capabilities taken as 0",
				  c, x86_vector_name(perf_cap_vector[c]));
	}
	for (unsigned k = 0; k < n_configs; k++) {
		cpu_ranges(config_of, (uint8_t)k, ranges, sizeof(ranges));
		if (n_configs > 1)
			ktap_diag(&g_ktap, "PMU configuration %u of %u: cpus %s", k + 1, n_configs,
				  ranges);
		caps_report(&configs[k]);
		raw_report(k);
	}
	static unsigned list[ARCH_MAX_CPUS];
	static uint8_t chosen[ARCH_MAX_CPUS];
	unsigned sel = cpus_selected(o, list);
	kmemset(chosen, 0, sizeof(chosen));
	for (unsigned i = 0; i < sel; i++)
		chosen[list[i]] = 1;
	cpu_ranges(chosen, 1, ranges, sizeof(ranges));
	ktap_diag(&g_ktap, "the suite runs on %u cpu%s: %s (cpus = %s)", sel, sel == 1 ? "" : "s",
		  ranges,
		  o->cpus_mode == CPUS_ALL	    ? "all"
		  : o->cpus_mode == CPUS_PER_CONFIG ? "per-config"
						    : "a list");
}

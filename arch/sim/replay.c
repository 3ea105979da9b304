/* SPDX-License-Identifier: MIT */
/*
 * pmusim --replay REPORT: the machine a pmutest report describes, rebuilt
 * The report carries it (docs/reports.md "What the report carries"):
 *
 *   # cpuid: config K: 0xLEAF 0xSUB: eax=.. ebx=.. ecx=.. edx=..   every
 *             CPUID (leaf, sub-leaf) configuration K's record read, raw
 *   # msr: config K: IA32_PERF_CAPABILITIES (345H) = V
 *   # cpu N: APIC ID X: online, PMU configuration K[, hybrid core type T ...]
 *   # option: KEY = VALUE                the options of the run
 *   # pmutest V on sim: profile P, quirks A,B    (a simulator's report)
 *
 * From these it writes a `cpuid -r` dump of every online CPU (its
 * configuration's leaves, its APIC ID in leaves 01H and 0BH/1FH; marked
 * sparse: a leaf the report lacks stays unknown) and runs it like
 * --cpuid-dump, with the run's options. The deviations that are not in
 * CPUID come back as quirks: a simulator report's own, or for a KVM guest
 * (CPUID.40000000H "KVMKVMKVM") the quirks of the matching platform model
 * (arch/sim/platforms.c; its guest CPUID is already what the report holds),
 * for QEMU TCG ("TCGTCGTCGTCG") the quirks of its expectations files.
 * Whether a firmware ran before pmutest comes back from `# before
 * pmutest:` (cpuid.global_ctrl_reset_value judges only where none did);
 * what a report does not carry is not replayed: the firmware's state at
 * hand-over, the microcode revision (reported, never judged).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuid_dump.h"
#include "replay.h"
#include "sim.h"

#define REPLAY_MAX_LINE	  4096
#define REPLAY_MAX_CONFIG 16

struct config {
	char *leaves; /* the `cpuid -r` lines, '\n'-separated */
	size_t len;
	bool has_perf_cap;
	uint64_t perf_cap;
	enum core_type core_type;
};

static struct config configs[REPLAY_MAX_CONFIG];

static void append(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *b = realloc(*buf, *len + n + 1);
	if (!b)
		exit(SIM_EXIT_ERROR);
	memcpy(b + *len, s, n + 1);
	*buf = b;
	*len += n;
}

static bool starts(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n))
		return false;
	*rest = s + n;
	return true;
}

/* The KVM platform model whose run-time deviations a KVM guest's report
 * replays with: by vendor, and whether the guest has a vPMU. */
static const struct sim_platform *kvm_platform(const struct caps *c)
{
	bool amd = caps_amd_like(c);
	bool pmu = amd ? c->amd.perfctr_core : c->pm.present;
	const char *name =
	    amd ? (pmu ? "kvm-amd-zen4" : "kvm-amd-zen4-pmu-off")
		: (pmu ? "kvm-intel-sapphirerapids" : "kvm-intel-sapphirerapids-pmu-off");
	for (unsigned i = 0; i < sim_platform_count; i++)
		if (!strcmp(sim_platforms[i].name, name))
			return &sim_platforms[i];
	return NULL;
}

/* QEMU TCG (CPUID.40000000H "TCGTCGTCGTCG") has no PMU and no platform
 * model: what it does at run time is these quirks, each a line of
 * data/expectations/qemu-tcg.txt (AMD: the `max` CPU) or
 * qemu-tcg-skylake-client.txt (Intel), which the round trip of make test
 * step sim-replay checks against a TCG log of each: RDPMC #UD (helper_rdpmc),
 * PMU MSRs that read 0 and ignore writes (unknown MSRs under TCG; on AMD the
 * legacy and the C001_02xxH counters), IA32_PERF_CAPABILITIES read as 0
 * without PDCM (Intel). */
static const enum quirk tcg_amd_quirks[] = {Q_RDPMC_UD, Q_KVM_AMD_NO_VPMU, Q_AMD_EXT_WITHOUT_CORE};
static const enum quirk tcg_intel_quirks[] = {Q_RDPMC_UD, Q_NO_PMU_MSRS_RAZ,
					      Q_PERF_CAP_WITHOUT_PDCM};

/* A one-line reason in err, false: the report cannot be replayed. */
static bool parse(FILE *f, const char *path, struct replay *r, char **cpu_dump, size_t *cpu_len,
		  char *err, size_t errlen)
{
	static char line[REPLAY_MAX_LINE + 2];
	unsigned n_cpus = 0;
	bool ktap = false;

	while (fgets(line, sizeof(line), f)) {
		const char *s = line, *rest;
		unsigned k, cpu, apic;
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (strstr(line, "KTAP version 1"))
			ktap = true;
		if (starts(s, "# cpuid: config ", &rest) && sscanf(rest, "%u: ", &k) == 1 &&
		    k >= 1 && k <= REPLAY_MAX_CONFIG) {
			const char *regs = strchr(rest, ':');
			if (!regs)
				continue;
			append(&configs[k - 1].leaves, &configs[k - 1].len, regs + 2);
			append(&configs[k - 1].leaves, &configs[k - 1].len, "\n");
			r->n_configs = k > r->n_configs ? k : r->n_configs;
		} else if (starts(s, "# msr: config ", &rest) && sscanf(rest, "%u: ", &k) == 1 &&
			   k >= 1 && k <= REPLAY_MAX_CONFIG) {
			const char *v = strstr(rest, "IA32_PERF_CAPABILITIES (345H) = ");
			unsigned long long x;
			if (v && sscanf(v + 32, "%llx", &x) == 1) {
				configs[k - 1].has_perf_cap = true;
				configs[k - 1].perf_cap = x;
			}
		} else if (starts(s, "# cpu ", &rest) &&
			   sscanf(rest, "%u: APIC ID %x: online, PMU configuration %u", &cpu, &apic,
				  &k) == 3 &&
			   k >= 1 && k <= REPLAY_MAX_CONFIG) {
			char head[96];
			if (strstr(rest, "hybrid core type core"))
				configs[k - 1].core_type = CORE_TYPE_CORE;
			else if (strstr(rest, "hybrid core type atom"))
				configs[k - 1].core_type = CORE_TYPE_ATOM;
			snprintf(head, sizeof(head), "CPU %u:\n", cpu);
			append(cpu_dump, cpu_len, head);
			/* This CPU's leaves: its configuration's, its APIC ID. */
			snprintf(head, sizeof(head), "@%u %x\n", k, apic);
			append(cpu_dump, cpu_len, head);
			n_cpus++;
		} else if (starts(s, "# before pmutest: a firmware may have written", &rest) ||
			   starts(s, "# before pmutest: Linux ", &rest)) {
			const char *why = strchr(rest, '(');
			snprintf(r->firmware_why, sizeof(r->firmware_why), "%s",
				 why ? why + 1 : "the report says a firmware may have run");
			r->firmware_why[strcspn(r->firmware_why, "\n")] = 0;
			char *close = strrchr(r->firmware_why, ')'); /* the line's last */
			if (close)
				*close = 0;
			r->profile.firmware = r->firmware_why;
		} else if (starts(s, "# option: ", &rest)) {
			append(&r->config_text, &r->config_len, rest);
			append(&r->config_text, &r->config_len, "\n");
		} else if (starts(s, "# pmutest ", &rest) && (rest = strstr(rest, " on sim: "))) {
			const char *q = strstr(rest, ", quirks ");
			r->simulated = true;
			if (q) {
				snprintf(r->quirks_text, sizeof(r->quirks_text), "%s", q + 9);
				r->quirks_text[strcspn(r->quirks_text, " ")] = 0;
			}
		}
	}
	if (ferror(f) || !ktap) {
		snprintf(err, errlen, "%s: not a pmutest KTAP report", path);
		return false;
	}
	if (!r->n_configs || !configs[0].len) {
		snprintf(err, errlen,
			 "%s: no '# cpuid: config' lines: the report does not carry its machine "
			 "(a pmutest without # cpuid: lines, or a cut log)",
			 path);
		return false;
	}
	if (!n_cpus) {
		snprintf(err, errlen, "%s: no '# cpu N: APIC ID ...: online' line", path);
		return false;
	}
	return true;
}

/* One CPU's leaves: its configuration's, with its APIC ID where CPUID
 * reports it (01H:EBX[31:24], 0BH/1FH:EDX). */
static void write_cpu(FILE *out, const struct config *c, uint32_t apic)
{
	const char *p = c->leaves;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		unsigned leaf, sub, eax, ebx, ecx, edx;
		if (sscanf(p, "0x%x 0x%x: eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x", &leaf, &sub, &eax,
			   &ebx, &ecx, &edx) == 6) {
			if (leaf == 1)
				ebx = (ebx & 0x00FFFFFFu) | ((apic & 0xFF) << 24);
			if (leaf == 0xB || leaf == 0x1F)
				edx = apic;
			fprintf(out,
				"   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n",
				leaf, sub, eax, ebx, ecx, edx);
		}
		p = e ? e + 1 : NULL;
	}
}

bool sim_replay_load(const char *path, struct replay *r, bool *quirks, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *cpus = NULL;
	size_t cpus_len = 0;

	memset(r, 0, sizeof(*r));
	if (!f) {
		snprintf(err, errlen, "cannot read report %s", path);
		return false;
	}
	bool ok = parse(f, path, r, &cpus, &cpus_len, err, errlen);
	fclose(f);
	if (!ok)
		return false;

	snprintf(r->dump_path, sizeof(r->dump_path), "/tmp/pmusim-replay-XXXXXX");
	int fd = mkstemp(r->dump_path);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		snprintf(err, errlen, "cannot write a temporary CPUID dump");
		return false;
	}
	fprintf(out, "%s: the leaves of %s\n", CPUID_DUMP_SPARSE_MARK, path);
	for (const char *p = cpus; p && *p;) {
		const char *e = strchr(p, '\n');
		unsigned k, apic;
		if (sscanf(p, "@%u %x", &k, &apic) == 2)
			write_cpu(out, &configs[k - 1], apic);
		else
			fprintf(out, "%.*s\n", (int)(e - p), p);
		p = e + 1;
	}
	free(cpus);
	fclose(out);

	r->profile.name = "replay";
	r->profile.desc = "a pmutest report's machine (pmusim --replay)";
	r->profile.dump_path = r->dump_path;
	r->profile.perf_capabilities = configs[0].perf_cap;
	for (unsigned k = 0; k < r->n_configs; k++)
		if (configs[k].has_perf_cap && configs[k].core_type != CORE_TYPE_NONE)
			sim_set_perf_capabilities(configs[k].core_type, configs[k].perf_cap);

	/* The deviations CPUID does not show. */
	if (r->simulated) {
		char *save = NULL, *names = strdup(r->quirks_text);
		for (char *q = strtok_r(names, ",", &save); q; q = strtok_r(NULL, ",", &save)) {
			enum quirk id;
			if (!quirk_find(q, &id)) {
				snprintf(err, errlen, "%s: quirk '%s' unknown to this pmusim", path,
					 q);
				free(names);
				return false;
			}
			quirks[id] = true;
		}
		free(names);
	} else {
		struct cpuid_dump d;
		struct caps c;
		char derr[256];
		if (cpuid_dump_load(&d, r->dump_path, derr, sizeof(derr)) == 0) {
			struct cpuid_dump_source src = {&d, cpuid_dump_cpu_number(&d, 0)};
			memset(&c, 0, sizeof(c));
			caps_decode(&c, cpuid_dump_source_fn, &src);
			if (c.hypervisor && !strcmp(c.hypervisor_vendor, "KVMKVMKVM")) {
				const struct sim_platform *pl = kvm_platform(&c);
				for (unsigned i = 0; pl && i < pl->n_quirks; i++)
					quirks[pl->quirks[i]] = true;
				r->platform = pl ? pl->name : NULL;
			} else if (c.hypervisor && !strcmp(c.hypervisor_vendor, "TCGTCGTCGTCG")) {
				bool amd = caps_amd_like(&c);
				const enum quirk *q = amd ? tcg_amd_quirks : tcg_intel_quirks;
				unsigned n =
				    amd ? ARRAY_SIZE(tcg_amd_quirks) : ARRAY_SIZE(tcg_intel_quirks);
				for (unsigned i = 0; i < n; i++)
					quirks[q[i]] = true;
				r->platform = "QEMU TCG";
			}
			cpuid_dump_free(&d);
		}
	}
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * The simulated processor: CPUID from the profile, the PMU it enumerates
 * (decoded by caps_decode(), the project's one decoder), CR4, CPL, TSC.
 */
#include <stdio.h>
#include <string.h>

#include "cpuid_dump.h"
#include "sim.h"

unsigned g_sim_cpu_select = SIM_FIRST_CPU;

/* On a machine of several CPUs each reports its own APIC ID (the dump was
 * taken on one CPU): 01H:EBX[31:24] and the x2APIC ID of 0BH / 1FH. */
static void patch_apic_id(uint32_t leaf, struct cpuid_regs *r)
{
	if (sim_cpu_count() < 2)
		return;
	if (leaf == 1)
		r->ebx = (r->ebx & 0x00FFFFFFu) | ((g_sim.apic_id & 0xFF) << 24);
	if (leaf == 0xB || leaf == 0x1F)
		r->edx = g_sim.apic_id;
}

/* Q_CPUID_FIXED_HIDDEN: leaf 0AH of version 2+ without its fixed counters
 * (EDX[12:0] and ECX zero), as Core 2 Merom/Conroe report it. */
static void hide_fixed_counters(uint32_t leaf, struct cpuid_regs *r)
{
	if (leaf == 0xA && quirk(Q_CPUID_FIXED_HIDDEN) && (r->eax & 0xFF) >= 2) {
		r->edx &= ~0x1FFFU;
		r->ecx = 0;
	}
}

static bool cpuid_unlimited(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

/* IA32_MISC_ENABLE[22] (Limit CPUID Maxval, Vol. 4 Table 2-2): CPUID.0H:EAX
 * reads at most 2, and a basic leaf above the maximum returns the highest
 * basic leaf's data (Vol. 2A CPUID, "If a value entered for CPUID.EAX is
 * higher than the maximum input value..."). */
bool sim_cpuid_raw(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	if (!g_sim.cpuid_limited || leaf >= 0x80000000u)
		return cpuid_unlimited(leaf, subleaf, r);
	if (leaf > 2)
		return cpuid_unlimited(2, 0, r);
	bool known = cpuid_unlimited(leaf, subleaf, r);
	if (leaf == 0 && r->eax > 2)
		r->eax = 2;
	return known;
}

/* --hypervisor SIG: the profile's CPUID seen as a guest of a hypervisor with
 * that CPUID.40000000H signature (01H:ECX[31] set, leaves 40000000H-01H),
 * and nothing else changed: how a known deviation's platform is proven. */
const char *g_sim_hypervisor;

static bool hypervisor_leaf(uint32_t leaf, struct cpuid_regs *r)
{
	char sig[12] = {0};

	if (!g_sim_hypervisor || (leaf != 0x40000000 && leaf != 0x40000001))
		return false;
	memset(r, 0, sizeof(*r));
	if (leaf == 0x40000000) {
		memcpy(sig, g_sim_hypervisor, strnlen(g_sim_hypervisor, sizeof(sig)));
		r->eax = 0x40000001;
		memcpy(&r->ebx, sig, 4);
		memcpy(&r->ecx, sig + 4, 4);
		memcpy(&r->edx, sig + 8, 4);
	}
	return true;
}

static bool sim_cpuid_profile(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

static bool cpuid_unlimited(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	if (hypervisor_leaf(leaf, r))
		return true;
	bool known = sim_cpuid_profile(leaf, subleaf, r);
	if (g_sim_hypervisor && leaf == 1)
		r->ecx |= 1u << 31;
	return known;
}

static bool sim_cpuid_profile(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	const struct sim_profile *p = g_sim.profile;

	memset(r, 0, sizeof(*r));
	if (!p)
		return false;
	if (p->dump_path) {
		bool known =
		    g_sim.dump && cpuid_dump_lookup(g_sim.dump, g_sim.dump_cpu, leaf, subleaf, r);
		for (unsigned i = 0; i < p->n_entries; i++)
			if (p->entries[i].leaf == leaf && p->entries[i].subleaf == subleaf) {
				*r = p->entries[i].r;
				known = true;
			}
		if (p->guest_cpuid) {
			p->guest_cpuid(leaf, subleaf, r);
			/* The hypervisor's leaves are the platform's, not the
			 * host dump's. */
			known = known || leaf == 0x40000000 || leaf == 0x40000001;
		}
		hide_fixed_counters(leaf, r);
		patch_apic_id(leaf, r);
		return known;
	}
	for (unsigned i = 0; i < p->n_entries; i++) {
		if (p->entries[i].leaf == leaf && p->entries[i].subleaf == subleaf) {
			*r = p->entries[i].r;
			hide_fixed_counters(leaf, r);
			patch_apic_id(leaf, r);
			return true;
		}
	}
	/* Leaves whose sub-leaf is ignored: fall back to sub-leaf 0. */
	for (unsigned i = 0; i < p->n_entries; i++) {
		if (p->entries[i].leaf == leaf && p->entries[i].subleaf == 0 &&
		    (leaf == 0x1 || leaf == 0xA || leaf == 0x80000001 || leaf == 0x80000022 ||
		     leaf < 0x4)) {
			*r = p->entries[i].r;
			patch_apic_id(leaf, r);
			return true;
		}
	}
	return false;
}

static bool caps_source(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	(void)ctx;
	return sim_cpuid_raw(leaf, subleaf, r);
}

/* Dumps stay loaded for the life of the process: each CPU of a machine
 * keeps a pointer to its own, and a file is read once (the mutation plan
 * configures every profile in turn). */
#define DUMPS_LOADED_MAX 256
enum sim_config_result sim_load_dump(const char *path, unsigned cpu, char *err, unsigned errlen)
{
	static struct {
		const char *path;
		struct cpuid_dump d;
	} loaded[DUMPS_LOADED_MAX];
	static unsigned n_loaded;
	unsigned i = 0;

	while (i < n_loaded && strcmp(loaded[i].path, path) != 0)
		i++;
	if (i == n_loaded) {
		if (n_loaded == DUMPS_LOADED_MAX) {
			snprintf(err, errlen, "%s: more than %d dumps in one run", path,
				 DUMPS_LOADED_MAX);
			return SIM_CONFIG_BAD_DUMP;
		}
		if (cpuid_dump_load(&loaded[i].d, path, err, errlen) != 0)
			return SIM_CONFIG_BAD_DUMP;
		loaded[i].path = path;
		n_loaded++;
	}
	if (cpu == SIM_FIRST_CPU) {
		cpu = cpuid_dump_cpu_number(&loaded[i].d, 0);
	} else if (!cpuid_dump_has_cpu(&loaded[i].d, cpu)) {
		snprintf(err, errlen, "%s: no CPU %u in the dump", path, cpu);
		return SIM_CONFIG_BAD_DUMP;
	}
	g_sim.dump = &loaded[i].d;
	g_sim.dump_cpu = cpu;
	return SIM_CONFIG_OK;
}

/* A whole machine's dump (`cpuid -r` prints every CPU): how many CPUs, and
 * the logical CPU number of the index-th (file order). */
unsigned sim_dump_cpu_count(const char *path, char *err, unsigned errlen)
{
	if (sim_load_dump(path, SIM_FIRST_CPU, err, errlen) != SIM_CONFIG_OK)
		return 0;
	return cpuid_dump_cpu_count(g_sim.dump);
}

unsigned sim_dump_cpu_number(unsigned index)
{
	return cpuid_dump_cpu_number(g_sim.dump, index);
}

/* --perf-capabilities [core=|atom=]VALUE: IA32_PERF_CAPABILITIES for every
 * CPU, or for the CPUs of one hybrid core type (CPUID.1AH), which no dump
 * holds. */
static struct {
	bool set;
	uint64_t value;
} perf_cap_for[3]; /* every CPU, Atom cores, Core cores */

void sim_set_perf_capabilities(enum core_type t, uint64_t value)
{
	unsigned k = t == CORE_TYPE_ATOM ? 1 : t == CORE_TYPE_CORE ? 2 : 0;

	perf_cap_for[k].set = true;
	perf_cap_for[k].value = value;
}

static uint64_t perf_capabilities_of(const struct sim_profile *p, enum core_type t)
{
	unsigned k = t == CORE_TYPE_ATOM ? 1 : t == CORE_TYPE_CORE ? 2 : 0;

	if (k && perf_cap_for[k].set)
		return perf_cap_for[k].value;
	return perf_cap_for[0].set ? perf_cap_for[0].value : p->perf_capabilities;
}

/* What the enumerated PMU allows, precomputed from the record. */
static void derive(void)
{
	const struct caps *c = &g_sim.caps;
	struct sim_cpu *s = &g_sim;

	/* Leaf 0AH defines the PMU on every vendor that defines the leaf (the
	 * decoder leaves it absent on AMD and Hygon, which reserve it). */
	s->arch_pmu = c->pm.present && c->pm.version >= 1;
	s->version = s->arch_pmu ? c->pm.version : 0;
	s->n_gp = c->pm.gp_counters > SIM_MAX_GP ? SIM_MAX_GP : c->pm.gp_counters;
	s->gp_width = c->pm.gp_width;
	s->fixed_width = c->pm.fixed_width;
	s->gp_exists = c->pm.gp_mask;
	if (quirk(Q_GP_BITMAP_IGNORED))
		s->gp_exists = width_mask(s->n_gp);
	if (quirk(Q_GP_LAST_MISSING) && s->gp_exists)
		s->gp_exists &= ~BIT_ULL(63 - __builtin_clzll(s->gp_exists));
	s->fixed_exists = s->version >= 2 ? c->pm.fixed_supported : 0;
	if (quirk(Q_FIXED_BITMASK_IGNORED))
		s->fixed_exists &= (uint32_t)width_mask(c->pm.fixed_counters_edx);
	/* Core 2: CPUID hides the three fixed counters, the silicon has them
	 * (40 bits wide, as the model-specific fixed counters of version 1,
	 * SDM Vol. 3B 20.6.2.1, when CPUID gives no width). */
	if (quirk(Q_CPUID_FIXED_HIDDEN) && s->version >= 2) {
		s->fixed_exists |= 0x7;
		if (!s->fixed_width)
			s->fixed_width = 40;
	}
	/* Alder Lake / Raptor Lake P-cores: two GP and one fixed counter more
	 * than CPUID enumerates (not on an Atom core: the E-cores have none). */
	/* The reset value of IA32_PERF_GLOBAL_CTRL: the enumerated counters
	 * (the extra P-core counters' reset state is not documented). */
	s->gp_reset = s->gp_exists;
	bool pcore = s->arch_pmu && c->core_type != CORE_TYPE_ATOM;
	if (quirk(Q_PCORE_EXTRA_COUNTERS) && pcore && s->version >= 2) {
		unsigned n = 64 - (s->gp_exists ? (unsigned)__builtin_clzll(s->gp_exists) : 64);
		for (unsigned i = n; i < n + 2 && i < GLOBAL_FIXED_SHIFT; i++)
			s->gp_exists |= BIT_ULL(i);
		unsigned f = 32 - (s->fixed_exists ? (unsigned)__builtin_clz(s->fixed_exists) : 32);
		if (f < GLOBAL_FIXED_BITS)
			s->fixed_exists |= 1u << f;
	}
	s->perf_cap = c->pdcm ? s->perf_cap_value : 0;
	s->fw_write = s->arch_pmu && (s->perf_cap & PERF_CAP_FW_WRITE);
	/* PERF_METRICS needs TOPDOWN.SLOTS (fixed counter 3) to accumulate. */
	s->perf_metrics = s->arch_pmu && (s->perf_cap & PERF_CAP_PERF_METRICS_AVAILABLE);
	if (quirk(Q_PCORE_PERF_METRICS) && pcore)
		s->perf_metrics = true;

	/* AnyThread (bit 21 / fixed bit 4i+2): defined from version 3 (Vol. 3B
	 * 20.2.3), reserved when CPUID.0AH:EDX[15] deprecates it. */
	bool any = s->version >= 3 && !c->pm.anythread_deprecated;
	if (s->version >= 3 && c->pm.anythread_deprecated && quirk(Q_ANY_DEPRECATION_IGNORED))
		any = true;
	if (s->version >= 3 && !c->pm.anythread_deprecated && quirk(Q_ANY_REJECTED_V3))
		any = false;
	if (s->version >= 1 && s->version < 3 && quirk(Q_ANY_ACCEPTED_V2))
		any = true;
	s->anythread_ok = any;

	/* Adaptive_Record in IA32_FIXED_CTR_CTRL (bit 4i+32) with PEBS_BASELINE
	 * (Vol. 3B 20.9); IA32_PERFEVTSELx's bit 34 is caps_evtsel_high_reserved()'s. */
	bool adaptive = s->perf_cap & PERF_CAP_PEBS_BASELINE;

	uint64_t fcv = 0;
	for (unsigned i = 0; i < SIM_MAX_FIXED && i < GLOBAL_FIXED_BITS; i++)
		if ((s->fixed_exists >> i) & 1)
			fcv |= FIXED_CTRL_FIELD(i, FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI |
						       (any ? FIXED_CTRL_ANY : 0)) |
			       (adaptive ? FIXED_CTRL_ADAPTIVE(i) : 0);
	/* Defined since 2023: RDPMC_USR_DISABLE, bit 33 + 4i,
	 * with CPUID.(23H,0):EBX[2] (ISE, Linux 59af95e028d4); METRICS_CLEAR_EN,
	 * bit 14, with FIXED_CTR3 and IA32_PERF_CAPABILITIES[19] (ISE, Linux
	 * 0e45818ec189). */
	if (c->l23.present && c->l23.rdpmc_user_disable && !quirk(Q_RDPMC_USR_DIS_RESERVED))
		for (unsigned i = 0; i < FIXED_CTRL_HIGH_FIELDS; i++)
			if ((s->fixed_exists >> i) & 1)
				fcv |= FIXED_CTRL_RDPMC_USR_DISABLE(i);
	if ((s->perf_cap & PERF_CAP_RDPMC_METRICS_CLEAR) && (s->fixed_exists & BIT_ULL(3)))
		fcv |= FIXED_CTRL_METRICS_CLEAR;
	s->fixed_ctrl_valid = fcv;

	/* GP counters at bits 31:0, fixed counters 0-15 at 47:32: a counter
	 * beyond those has no global bit (bits 63:48 are defined otherwise). */
	uint64_t counters = (s->gp_exists & GENMASK_ULL(31, 0)) |
			    ((uint64_t)(s->fixed_exists & GENMASK_ULL(GLOBAL_FIXED_BITS - 1, 0))
			     << GLOBAL_FIXED_SHIFT);
	/* IA32_PERF_GLOBAL_CTRL: EN_PMCn, EN_FIXED_CTRi; bit 48 enables
	 * PERF_METRICS when available. */
	s->global_ctrl_valid =
	    counters | (s->perf_metrics && !quirk(Q_METRICS_CTRL_BIT_GP) ? BIT_ULL(48) : 0);
	/* OVF_CTRL / STATUS_RESET (Vol. 4 Table 2-2, 390H): the counters,
	 * OvfBuf (62) and CondChgd (63) from v1, Ovf_Uncore (61) from v3,
	 * TraceToPAPMI (55), LBR_FRZ (58), CTR_FRZ (59) from v4. */
	uint64_t r = counters | GLOBAL_STATUS_OVF_BUFFER | GLOBAL_STATUS_COND_CHGD;
	if (s->perf_metrics)
		r |= GLOBAL_STATUS_PERF_METRICS;
	if (s->version >= 3)
		r |= GLOBAL_STATUS_OVF_UNCORE;
	if (s->version >= 4)
		r |= GLOBAL_STATUS_TOPA_PMI | GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
	/* Architectural PEBS: its threshold interrupt, bit 54 (Linux
	 * GLOBAL_STATUS_ARCH_PEBS_THRESHOLD, d243d0bb64af). */
	if (caps_arch_pebs(&s->caps))
		r |= GLOBAL_STATUS_ARCH_PEBS;
	s->status_reset_valid = r;
	/* STATUS_SET (v4, Figure 20-38): as RESET without CondChgd. */
	s->status_set_valid = r & ~GLOBAL_STATUS_COND_CHGD;
}

/* Power-up / RESET state: zero, then each family's own. */
void sim_pmu_reset(void)
{
	memset(&g_sim.pmu, 0, sizeof(g_sim.pmu));
	for (unsigned i = 0; i < sim_family_count; i++)
		if (sim_families[i]->reset)
			sim_families[i]->reset();
	/* Vol. 3A 10.4.7.1: LVT entries reset masked. */
	g_sim.apic.lvt_pmi = APIC_LVT_MASKED;
	g_sim.apic.irr = g_sim.apic.isr = false;
	if (quirk(Q_FW_LEFT_COUNTERS))
		sim_firmware_left_counters();
	/* The firmware option "Limit CPUID Maxval" (Linux early_init_intel()
	 * clears it on family 6 from model 0DH and later families). */
	if (quirk(Q_FW_CPUID_LIMIT))
		sim_wrmsr(MSR_IA32_MISC_ENABLE, MISC_ENABLE_LIMIT_CPUID);
}

/* What firmware that uses the PMU leaves behind (Linux check_hw_exists():
 * "Broken BIOS detected"), written through WRMSR as the firmware would: a
 * write the PMU refuses (#GP) is simply not made. */
void sim_firmware_left_counters(void)
{
	const uint64_t evtsel = 0x43003c; /* EN | OS | USR, unhalted core cycles */
	int saved_cpl = g_sim.cpl;
	g_sim.cpl = 0;
	if (caps_amd_like(&g_sim.caps)) {
		sim_wrmsr(g_sim.caps.amd.perfctr_core ? MSR_F15H_PERF_CTL0 : MSR_K7_EVNTSEL0,
			  evtsel);
		sim_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 1);
	} else if (g_sim.version >= 1) {
		sim_wrmsr(MSR_IA32_PERFEVTSEL(0), evtsel);
		if (g_sim.version >= 2) {
			/* counters 1 and 2 at every ring, as the board left them */
			uint64_t fixed = 0x330, global = 0;
			if (sim_wrmsr(MSR_IA32_FIXED_CTR_CTRL, fixed) == 0)
				global = BIT_ULL(33) | BIT_ULL(34);
			uint64_t g = 0;
			sim_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL, &g);
			sim_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, g | global);
		}
	}
	g_sim.cpl = saved_cpl;
}

/* One CPU of the machine, made current: its profile's CPUID and PMU. */
enum sim_config_result sim_configure_cpu(struct sim_cpu *cpu, const struct sim_profile *p,
					 unsigned dump_cpu, const bool *quirks, char *err,
					 unsigned errlen)
{
	unsigned index = cpu->index;
	uint32_t apic_id = cpu->apic_id;

	g_sim_cur = cpu;
	memset(&g_sim, 0, sizeof(g_sim));
	g_sim.index = index;
	g_sim.apic_id = apic_id;
	g_sim.state = CPU_NOT_STARTED;
	g_sim.profile = p;
	for (unsigned q = 0; quirks && q < QUIRK_COUNT; q++)
		g_sim.quirks[q] = quirks[q];
	for (unsigned i = 0; i < p->n_quirks; i++)
		g_sim.quirks[p->quirks[i]] = true;
	if (p->dump_path && sim_load_dump(p->dump_path, dump_cpu, err, errlen) != SIM_CONFIG_OK)
		return SIM_CONFIG_BAD_DUMP;
	caps_decode(&g_sim.caps, caps_source, NULL);
	g_sim.perf_cap_value = perf_capabilities_of(p, g_sim.caps.core_type);
	if (g_sim.caps.pdcm)
		caps_decode_perf_capabilities(&g_sim.caps, g_sim.perf_cap_value);
	derive();
	g_sim.cr4 = 0x6A0; /* PAE, PGE, OSFXSR, OSXMMEXCPT; PCE clear */
	g_sim.cpl = 0;
	g_sim.irq_enabled = false;
	sim_pmu_reset();

	size_t n = (size_t)snprintf(g_sim.platform, sizeof(g_sim.platform), "profile %s", p->name);
	const char *sep = ", quirks ";
	for (unsigned q = 0; q < QUIRK_COUNT && n < sizeof(g_sim.platform); q++) {
		if (!g_sim.quirks[q])
			continue;
		n += (size_t)snprintf(g_sim.platform + n, sizeof(g_sim.platform) - n, "%s%s", sep,
				      g_quirks[q].name);
		sep = ",";
	}
	return SIM_CONFIG_OK;
}

/* ---- include/arch.h: identification, CPUID, CR4, TSC --------------------- */

const char *arch_name(void)
{
	return "sim";
}

const char *arch_platform(void)
{
	return g_sim.platform;
}

bool arch_cpuid_known(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	return sim_cpuid_raw(leaf, subleaf, &r);
}

void arch_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	sim_cpuid_raw(leaf, subleaf, r);
}

uint64_t arch_read_cr4(void)
{
	/* MOV from CR4 is privileged: #GP(0) at CPL > 0 (Vol. 2B MOV). */
	if (g_sim.cpl != 0)
		sim_raise(X86_VEC_GP, 0, (uint64_t)__builtin_return_address(0), 0);
	return g_sim.cr4;
}

void arch_write_cr4(uint64_t val)
{
	if (g_sim.cpl != 0)
		sim_raise(X86_VEC_GP, 0, (uint64_t)__builtin_return_address(0), 0);
	g_sim.cr4 = val;
}

/* The simulated TSC counts modelled reference cycles, not time. */
uint64_t arch_tsc_hz(void)
{
	return 0;
}

uint64_t arch_rdtsc(void)
{
	/* The TSC runs at the reference clock: it advances with the reference
	 * cycles of the workload, plus 100 per RDTSC so that it always moves. */
	g_sim.tsc += 100;
	return g_sim.tsc;
}

void arch_serialize(void)
{
	/* CPUID retires (as a branch too on Core 2: erratum W146) */
	sim_run_segments(quirk(Q_CPUID_COUNTS_AS_BRANCH) ? SEG_CPUID_AS_BRANCH : SEG_INSN, 1);
}

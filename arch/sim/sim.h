/* SPDX-License-Identifier: MIT */
/*
 * The simulated CPU: shared state of arch/sim. One logical processor, one
 * local APIC, and the PMU that the profile's CPUID enumerates, decoded by the
 * project's own caps_decode() (kernel/caps.c) so that the simulator and the
 * suite can never disagree about what exists.
 *
 * Every rule the model follows cites the SDM beside the code that applies
 * it; every deviation is a quirk (quirk_table.h), tested at the exact point of the
 * rule it breaks.
 */
#ifndef PMUTEST_SIM_H
#define PMUTEST_SIM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "caps.h"
#include "quirks.h"

/* Machine state a self-test "changed" (run.c), reported like the machine's. */
extern const char *g_sim_state_changed;
extern unsigned g_sim_watchdog_divisor; /* run.c: --watchdog-divisor */
/* MSR write trace (msr_trace.c, PMUSIM_MSR_TRACE). */
void sim_msr_trace_before_write(uint32_t msr);
void sim_msr_trace_write(uint32_t msr, int vector);
void sim_msr_trace_test_start(void);
void sim_msr_undo_begin(void);
void sim_msr_undo_end(void);

#define SIM_MAX_GP    32
#define SIM_MAX_FIXED 32
/* AMD core counters at C001_0200H + 2n / C001_0201H + 2n: up to 15. */
#define SIM_MAX_AMD_CORE AMD_CORE_COUNTERS_MAX

/* ---- Profile: where CPUID comes from ---------------------------------- */

struct sim_cpuid_entry {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
};

struct sim_profile {
	const char *name;
	const char *desc;
	/* Built-in profiles: a table; dump profiles: a file, and in `entries`
	 * the leaves that replace the file's (generations.c). */
	const struct sim_cpuid_entry *entries;
	unsigned n_entries;
	const char *dump_path; /* NULL for built-ins */
	/* IA32_PERF_CAPABILITIES when CPUID.01H:ECX[15] (PDCM) is set. Dumps
	 * carry no MSRs: chosen per profile, documented in profiles.c. */
	uint64_t perf_capabilities;
	/* Platform models only (platforms.c): the guest's view of each leaf
	 * (called with the host's values), and the deviations always on. */
	void (*guest_cpuid)(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
	const enum quirk *quirks;
	unsigned n_quirks;
	/* Platform models only: the firmware that runs before pmutest there,
	 * NULL where nothing does (sim_platform_firmware()). */
	const char *firmware;
	/* A machine of several CPUs (smp.c): its parts in CPU order, each
	 * `cpus` CPUs of the named profile; NULL for a one-CPU profile. */
	const struct sim_machine_part *parts;
	unsigned n_parts;
};

struct sim_machine_part {
	const char *profile;
	unsigned cpus;
};

/* A platform: a host dump seen through a hypervisor (platforms.c). It is a
 * profile, but not a conforming one: the mutation matrix leaves it out. */
struct sim_platform {
	const char *name, *desc;
	const char *releases;  /* the hypervisor releases the model describes */
	const char *host_dump; /* a file of the dumps directory */
	void (*guest_cpuid)(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
	uint64_t perf_capabilities;
	const enum quirk *quirks;
	unsigned n_quirks;
};
extern const struct sim_platform sim_platforms[];
/* What runs before pmutest on platform pl, NULL for nothing: QEMU always
 * boots a firmware first (SeaBIOS, OVMF, or qboot even for -kernel), so a
 * QEMU/KVM guest's IA32_PERF_GLOBAL_CTRL at hand-over is the firmware's to
 * have written; Firecracker and Xen PVH enter the kernel directly. */
const char *sim_platform_firmware(const struct sim_platform *pl);

/* A CPU generation (generations.c): a dump of the dumps directory
 * and the leaves that replace the dump's, with the part's
 * IA32_PERF_CAPABILITIES. A conforming profile like any other. */
struct sim_generation {
	const char *name, *desc;
	const char *dump; /* a file of the dumps directory */
	const struct sim_cpuid_entry *overrides;
	unsigned n_overrides;
	uint64_t perf_capabilities;
};
extern const struct sim_generation sim_generations[];
extern const unsigned sim_generation_count;
extern const unsigned sim_platform_count;

static inline bool sim_profile_is_platform(const struct sim_profile *p)
{
	return p->quirks != NULL || p->guest_cpuid != NULL;
}

/* ---- Counting model (pmu_model.c) -------------------------------------- */

/* Events the workload generates, per simulated cycle. */
enum sim_event {
	EV_NONE = -1,
	EV_CYCLES = 0,
	EV_INSNS,
	EV_REF,
	EV_LLC_REF,
	EV_LLC_MISS,
	EV_BRANCHES,
	EV_BR_MISS,
	EV_TD_SLOTS,
	EV_TD_BACKEND,
	EV_TD_BADSPEC,
	EV_TD_FRONTEND,
	EV_TD_RETIRING,
	/* Of EV_INSNS, the instructions a hypervisor intercepts (CPUID, WRMSR,
	 * IN): a vPMU that counts them in software (Q_KVM_EMULATED_RETIRE)
	 * adds them outside the counter's CMASK/INV/EDGE logic. */
	EV_INTERCEPTED,
	/* Of EV_BRANCHES, by kind, for the model-specific events of
	 * include/model_events.h: the conditional branches, those taken
	 * (SEG_LOOP's JNZ, taken backward), those taken forward. */
	EV_BR_COND,
	EV_BR_COND_TAKEN,
	EV_BR_COND_TAKEN_FWD,
	EV_COUNT
};

/* A segment: a fixed run of cycles with its per-cycle events. The workload
 * is an entry segment, iters loop segments and an exit segment. Cycles,
 * reference cycles, topdown slots, retiring and backend-bound slots are not
 * stored in ev[]: they follow from the others (pmu_model.c). */
#define SEG_MAX_CYCLES 20
struct sim_segment {
	unsigned cycles;
	uint8_t ev[EV_COUNT][SEG_MAX_CYCLES];
};
/* SEG_LLC_LINE: one line of arch_workload_llc_miss(); SEG_BRMISS_PAIR / _ITER:
 * two iterations / one of arch_workload_branch_miss() (pmu_model.c). */
enum {
	SEG_ENTRY,
	SEG_LOOP,
	SEG_EXIT,
	SEG_GATED_EDGE,
	SEG_INSN,
	SEG_LLC_LINE,
	SEG_BRMISS_PAIR,
	SEG_BRMISS_ITER,
	SEG_INTERCEPT_ITER,
	SEG_INTERCEPT_CLOSE,
	/* Q_CPUID_COUNTS_AS_BRANCH: a CPUID that also counts as a retired
	 * branch (SEG_INSN, SEG_INTERCEPT_ITER of CPUID otherwise). */
	SEG_CPUID_AS_BRANCH,
	SEG_INTERCEPT_CPUID_AS_BRANCH,
	/* Atom erratum SRF7: the VM exit and entry of an intercepted
	 * instruction add one instruction (and one branch, before Clearwater
	 * Forest) to SEG_INTERCEPT_ITER. */
	SEG_INTERCEPT_EXIT_OVERCOUNT,
	SEG_INTERCEPT_EXIT_OVERCOUNT_INSNS,
	SEG_COUNT
};
extern const struct sim_segment sim_segments[]; /* SEG_COUNT rows */

/* How one counter turns per-cycle events into increments. */
struct sim_filter {
	enum sim_event ev;
	unsigned cmask; /* 0: add the event count each cycle */
	bool inv, edge;
	/* EQ (IA32_PERFEVTSELx bit 36, CPUID.(23H,0):EBX[1]): the model's
	 * reading, CMASK compared with = instead of >= (suites/filtering.c). */
	bool eq;
	/* NetBurst CCCR.FORCE_OVF: every increment is an overflow. */
	bool force_ovf;
	/* AnyThread (Vol. 3B 20.2.3): also counts the sibling thread's events
	 * (engine.c). */
	bool any_thread;
	/* A vPMU counting intercepted instructions in software
	 * (Q_KVM_EMULATED_RETIRE): EV_INTERCEPTED is taken out of `ev` before
	 * CMASK/INV/EDGE and added back unfiltered. */
	bool emulated_retire;
	/* Q_CYCLES_SCALED: each increment counts this many times (0: once). */
	unsigned scale;
};
/* Increment over one segment given the condition of the cycle before;
 * *last gets the condition of its last cycle (for EDGE). */
uint64_t sim_segment_count(const struct sim_segment *s, const struct sim_filter *f, bool *last);
/* The events of one kind over the whole segment. */
uint64_t sim_segment_total(const struct sim_segment *s, enum sim_event ev);

#include "family.h"

/* ---- The machine ------------------------------------------------------ */

struct sim_pmu {
	/* architectural (Intel) */
	uint64_t pmc[SIM_MAX_GP], evtsel[SIM_MAX_GP];
	uint64_t apmc_shadow[SIM_MAX_GP]; /* quirk a-pmc-separate-register */
	/* quirks v6-alias-separate-register and v6-alias-ctr-stale: the 19xxH
	 * aliases' own storage, and IA32_PMCx as last written (not counted). */
	uint64_t v6_ctr[SIM_MAX_GP], v6_cfg_a[SIM_MAX_GP], v6_fx[SIM_MAX_FIXED];
	uint64_t v6_written[SIM_MAX_GP];
	/* Auto Counter Reload: IA32_PMC_GPn_CFG_B / _CFG_C, IA32_PMC_FXm_CFG_B /
	 * _CFG_C (the cause bitmap: GP n at bit n, fixed m at bit 32 + m). */
	uint64_t acr_b[SIM_MAX_GP], acr_c[SIM_MAX_GP];
	uint64_t acr_fx_b[SIM_MAX_FIXED], acr_fx_c[SIM_MAX_FIXED];
	bool gp_last[SIM_MAX_GP];
	uint64_t fixed[SIM_MAX_FIXED];
	bool fixed_last[SIM_MAX_FIXED];
	uint64_t fixed_ctrl, global_ctrl, global_status;
	uint64_t debugctl;
	uint64_t td_acc[4];		      /* retiring, bad spec, frontend, backend slots */
	uint64_t txcp_checkpoint[SIM_MAX_GP]; /* IA32_PMCx at XBEGIN (IN_TXCP) */
	/* Q_REF_TSC_STICKY_OVF: IA32_FIXED_CTR2 overflowed; since then its
	 * status bit was cleared / the counter rewritten. */
	bool ref_sticky, ref_cleared, ref_rewritten;
	/* P6 family (p6.c) */
	uint64_t p6_ctr[P6_NUM_COUNTERS], p6_sel[P6_NUM_COUNTERS];
	bool p6_last[P6_NUM_COUNTERS];
	/* AMD */
	uint64_t amd_ctr[SIM_MAX_AMD_CORE], amd_sel[SIM_MAX_AMD_CORE];
	bool amd_last[SIM_MAX_AMD_CORE];
	uint64_t amd_lctr[4], amd_lsel[4]; /* only with Q_AMD_NOT_ALIASED */
	uint64_t amd_global_ctl, amd_global_status;
	bool amd_svme; /* EFER.SVME (amd.c): HostOnly / GuestOnly apply */
	/* Nehalem uncore: one per package, every CPU sees the same (smp.c) */
	struct sim_uncore {
		uint64_t pmc[UNCORE_NUM_GP], sel[UNCORE_NUM_GP];
		bool last[UNCORE_NUM_GP + 1]; /* GP counters, then the fixed one */
		uint64_t fixed, fixed_ctrl, global_ctrl, status, opcode;
	} unc;
	/* NetBurst */
	uint64_t p4_ctr[P4_NUM_COUNTERS], p4_cccr[P4_NUM_COUNTERS];
	uint64_t p4_escr[0x42]; /* ESCRs at 3A0H..3E1H */
	bool p4_last[P4_NUM_COUNTERS];
	/* started by its cascade partner's overflow (CCCR.CASCADE) */
	bool p4_cascaded[P4_NUM_COUNTERS];
	/* RDT */
	uint64_t pqr_assoc, qm_evtsel;
	uint64_t rmid_occ[1024], rmid_bw[1024];
	bool rmid_used[1024];
	bool scratch_cached; /* arch_scratch_buffer() in the model's caches */
	/* RDT allocation (rdt_alloc.c): CAT masks, CDP enables, MBA delays,
	 * AMD bandwidth limits and BMEC configurations. */
	uint64_t l3_mask[128], l2_mask[64];
	uint64_t l3_qos_cfg, l2_qos_cfg;
	uint64_t mba_delay[64];
	uint64_t amd_bw[64], amd_smbw[64], amd_evt_cfg[8];
};

struct sim_apic {
	uint32_t lvt_pmi;
	bool irr, isr; /* the PMI vector's IRR / ISR bits */
	uint32_t delivered_vector;
	/* NMI (Vol. 3A 6.7.1): one can be latched while another's handler runs
	 * (NMIs blocked until its IRET). held_by_if: Q_PMI_NMI_BLOCKED_BY_IF's
	 * request waiting for IF = 1. */
	bool nmi_latched, nmi_blocked, nmi_held_by_if;
	/* platform.c: NMI-mode PMIs sent so far; a copy or a late one that
	 * waits for the NMI handler to go (Q_PMI_NMI_DUPLICATED, _LATE). */
	unsigned nmi_pmis;
	unsigned nmi_after_handler;
};

struct cpuid_dump;

struct sim_cpu {
	const struct sim_profile *profile;
	/* Which CPU of the machine (smp.c): arch number, APIC ID (CPUID
	 * reports it: 01H:EBX[31:24], 0BH/1FH:EDX), state. */
	unsigned index;
	uint32_t apic_id;
	enum cpu_state state;
	const struct cpuid_dump *dump; /* a dump profile's CPUID */
	unsigned dump_cpu;
	struct sim_cpu *sibling;  /* the other thread of its core, if any */
	struct caps caps;	  /* what the CPUID enumerates (caps_decode) */
	bool quirks[QUIRK_COUNT]; /* the deviations switched on */
	char platform[256];

	/* derived from caps */
	bool arch_pmu;
	unsigned version, n_gp, gp_width, fixed_width;
	uint64_t gp_exists;    /* bit i: IA32_PMCi / PERFEVTSELi exist */
	uint64_t gp_reset;     /* IA32_PERF_GLOBAL_CTRL's GP bits at reset */
	uint32_t fixed_exists; /* bit i: IA32_FIXED_CTRi exists */
	bool fw_write, perf_metrics, anythread_ok;
	uint64_t fixed_ctrl_valid, global_ctrl_valid;
	uint64_t status_reset_valid, status_set_valid;
	uint64_t perf_cap;
	bool cpuid_limited;	 /* IA32_MISC_ENABLE[22] Limit CPUID Maxval set */
	uint64_t perf_cap_value; /* IA32_PERF_CAPABILITIES this CPU reads with PDCM */

	/* architectural state */
	int cpl;
	uint64_t user_entries; /* calls to CPL > 0 so far (arch_call_at_cpl) */
	bool irq_enabled;
	uint64_t cr4;
	uint64_t tsc;
	struct sim_pmu pmu;
	struct sim_apic apic;
	uint32_t fault_error_code;
	unsigned segment; /* the segment the engine is running (SEG_*) */
	bool in_tx;	  /* inside an RTM transaction (arch_workload_tsx) */
	unsigned pmi_count, stray_interrupts, nmi_count;
	/* platform.c: what this CPU took that no test asked for (as
	 * arch/x86_64/trap.c counts it), MSR_SMI_COUNT, counting windows seen. */
	struct arch_platform_events events;
	bool lvt_nmi_seen;	 /* what the PMU can have sent since */
	uint64_t lvt_vectors[4]; /* arch_pmu_sources_forget (trap.c's rule) */
	uint64_t smi_count;
	unsigned windows;
	bool glitched; /* Q_MISCOUNT_ONCE struck already */
};

/* The CPU that runs now (smp.c): only one runs at a time. */
extern struct sim_cpu *g_sim_cur;
/* RDT allocation (rdt_alloc.c), for rdt.c: the highest COS of any
 * allocation resource (false: none known), whether IA32_PQR_ASSOC takes
 * `val`, and the bytes of a fill that stay in an LLC of `llc` bytes under
 * the current COS's L3 mask. */
bool sim_rdt_alloc_max_cos(unsigned *max);
bool sim_rdt_alloc_pqr_ok(uint64_t val);
uint64_t sim_rdt_alloc_fill_bytes(uint64_t bytes, uint64_t llc);

#define g_sim (*g_sim_cur)

static inline bool quirk(enum quirk q)
{
	return g_sim.quirks[q];
}

/* cpu.c */
enum sim_config_result {
	SIM_CONFIG_OK,
	SIM_CONFIG_BAD_DUMP, /* the profile's dump cannot be read: err says why */
};
/* quirks: QUIRK_COUNT flags, or NULL for none */
enum sim_config_result sim_configure(const struct sim_profile *p, const bool *quirks, char *err,
				     unsigned errlen);
bool sim_cpuid_raw(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
void sim_pmu_reset(void);
/* The firmware-left-counters quirk: counters programmed as firmware leaves them. */
void sim_firmware_left_counters(void);

/* msr.c: the dispatcher over the families; returns the vector (0 or
 * X86_VEC_GP). */
int sim_rdmsr(uint32_t msr, uint64_t *val);
int sim_wrmsr(uint32_t msr, uint64_t val);

/* engine.c: the counting engine; rdpmc.c / cpu.c retire instructions with it. */
void sim_run_segments(unsigned seg, uint64_t n);

/* pmu_arch.c: the architectural PMU's view, for its RDPMC (rdpmc_arch.c). */
uint64_t sim_perf_metrics(void);
bool sim_arch_gp_value(unsigned i, uint64_t *v);
bool sim_arch_user_disable_faults(uint32_t ecx);
/* After an RDPMC of the metrics: the metrics clear mode (pmu_arch.c). */
void sim_arch_metrics_read(void);
bool sim_arch_fixed_value(unsigned i, bool edx_rule_only, uint64_t *v);
/* The simulator's own encoding of architectural event i (Table 20-1). */
bool sim_arch_event_encoding(unsigned i, uint8_t *event, uint8_t *umask);
/* An RTM transaction begins / aborts (engine.c arch_workload_tsx): a counter
 * with IN_TXCP goes back to its value at the begin (Vol. 3B 20.3.6.5). */
void sim_arch_tx_begin(void);
void sim_arch_tx_abort(void);
enum sim_rdpmc_result sim_arch_rdpmc(uint32_t ecx, uint64_t *v);

/* pebs.c: a PEBS-enabled counter overflowed (pmu_arch.c asks first): true
 * when the PEBS assist took it (record, reload, OvfBuf), false for an
 * ordinary overflow. */
bool sim_pebs_overflow(bool fixed, unsigned idx);
/* lbr.c: IA32_LBR_DEPTH (0 without Arch LBR): the depth an arch-PEBS LBR
 * group of NUM_VAR entries takes. */
unsigned sim_arch_lbr_depth(void);
/* pmu_arch.c: whether the model's IA32_PERF_METRICS has the level-2 bytes
 * 4-7 on this CPU (not on the Ice Lake cores, as Linux reads them). */
bool sim_metrics_level2(const struct caps *c);
/* amd.c: PerfCntrGlobalStatus's LBRs-frozen bit (58) where LbrAndPmcFreeze
 * is enumerated, else 0; lbr.c stops recording while it is set. */
uint64_t amd_lbr_frozen_bit(void);

/* pmusim --hypervisor: a CPUID.40000000H signature, or NULL (cpu.c). */
extern const char *g_sim_hypervisor;

/* A dump profile's CPUID. */
enum sim_config_result sim_load_dump(const char *path, unsigned cpu, char *err, unsigned errlen);
#define SIM_FIRST_CPU 0xFFFFFFFFU
extern unsigned g_sim_cpu_select; /* --cpu N, or the dump's first CPU */

/* platform.c: the platform's events (pmusim --platform-event, --smi-every)
 * and how an NMI or interrupt no handler takes is counted. */
bool sim_platform_event_option(const char *arg);
bool sim_smi_option(const char *arg);
void sim_platform_test_start(void);
void sim_unclaimed_nmi(void);
void sim_unowned_vector(uint32_t vec);
/* A counting window begins (arch_workload_gated): an SMI may strike it. */
void sim_window_begins(void);
bool sim_smi_count(uint64_t *v);

/* apic.c: an overflow asked for a PMI. */
void sim_pmi_request(void);
void sim_pmi_deliver_pending(void);
/* An NMI reaches the core (LVT in NMI mode, or the ICR); taken at once
 * unless an NMI handler is running. */
void sim_nmi_raise(void);

/* run.c: raise an exception out of an unchecked operation (whether the
 * vector carries an error code is x86_vector_has_error_code()'s to say). */
__attribute__((noreturn)) void sim_raise(int vector, uint32_t error_code, uint64_t rip,
					 uint64_t cr2);

/* smp.c: the machine's CPUs. sim_configure() sets up a machine profile's
 * CPUs (or the one CPU of a plain profile) and leaves CPU 0 current. */
#define SIM_MAX_CPUS 64
unsigned sim_cpu_count(void);
struct sim_cpu *sim_cpu_at(unsigned i);
/* dump_cpu: the logical CPU of a dump profile's file (SIM_FIRST_CPU: its
 * first). */
enum sim_config_result sim_configure_cpu(struct sim_cpu *c, const struct sim_profile *p,
					 unsigned dump_cpu, const bool *quirks, char *err,
					 unsigned errlen);
/* A dump file's CPU count (0 and err when it cannot be read) and the i-th
 * CPU's number (cpu.c). */
unsigned sim_dump_cpu_count(const char *path, char *err, unsigned errlen);
unsigned sim_dump_cpu_number(unsigned index);
/* IA32_PERF_CAPABILITIES for every CPU (CORE_TYPE_NONE) or one core type. */
void sim_set_perf_capabilities(enum core_type t, uint64_t value);
/* IA32_PERFEVTSELi bits defined since 2023 (pmu_arch.c): BR_CNTR, RDPMC
 * user disable, where their enumeration says so. */
uint64_t sim_evtsel_new_bits(unsigned i);
/* Make c the running CPU (state the CPUs share moves with it). */
void sim_switch_cpu(struct sim_cpu *c);
/* An interrupt request raised on CPU `to` while another runs: `to` is
 * parked (HLT, interrupts on) and takes it at once. */
void sim_pmi_request_on(struct sim_cpu *to);
/* Core number of a CPU within the package (APIC ID above the SMT bits). */
unsigned sim_core_of(const struct sim_cpu *c);

/* profiles.c */
extern const char *g_sim_dumps_dir;
const struct sim_profile *sim_find_profile(const char *name);
unsigned sim_profile_count(void);
const struct sim_profile *sim_profile_at(unsigned i);
void sim_load_profiles(const char *dumps_dir);

/* pmusim's exit status, as its usage text states (main.c; arch_exit in
 * run.c maps the kernel's enum run_status onto it). */
enum sim_exit {
	SIM_EXIT_PASS = 0,  /* the run passed; also --help and the listings */
	SIM_EXIT_FAIL = 1,  /* a check failed */
	SIM_EXIT_USAGE = 2, /* bad usage: nothing was run */
	SIM_EXIT_ERROR = 3, /* the run or the environment broke */
};

#endif

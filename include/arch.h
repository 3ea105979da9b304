/* SPDX-License-Identifier: MIT */
/*
 * The machine interface.
 *
 * kernel/ and suites/ see the machine only through this header. It has two
 * implementations:
 *   arch/x86_64/  the real thing: bare metal (or a VM) after ExitBootServices;
 *   arch/sim/     a simulated CPU with an SDM-exact PMU, in a Linux process.
 * The suite compiles unchanged against either; that is how every check is
 * proven on the simulator to catch the deviation it exists for.
 *
 * Fault idiom: every probe returns the exception vector it raised, 0 when
 * none. The error code of the last fault raised by a probe is kept and read
 * with arch_fault_error_code().
 */
#ifndef PMUTEST_ARCH_H
#define PMUTEST_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exception vectors, SDM Vol. 3A Table 6-1 "Protected-Mode Exceptions and
 * Interrupts". */
enum x86_vector {
	X86_VEC_NONE = 0, /* probes return 0 for "no exception"; #DE is never
			     a probe result in this project */
	X86_VEC_DE = 0,
	X86_VEC_DB = 1,
	X86_VEC_NMI = 2,
	X86_VEC_BP = 3,
	X86_VEC_OF = 4,
	X86_VEC_BR = 5,
	X86_VEC_UD = 6,
	X86_VEC_NM = 7,
	X86_VEC_DF = 8,
	X86_VEC_TS = 10,
	X86_VEC_NP = 11,
	X86_VEC_SS = 12,
	X86_VEC_GP = 13,
	X86_VEC_PF = 14,
	X86_VEC_MF = 16,
	X86_VEC_AC = 17,
	X86_VEC_MC = 18,
	X86_VEC_XM = 19,
	X86_VEC_VE = 20,
	X86_VEC_CP = 21,
	X86_VEC_VC = 29, /* AMD64 APM Vol. 2 8.2: VMM communication (SEV-ES) */
	X86_VEC_SX = 30, /* AMD64 APM Vol. 2 8.2: security exception */
};

/* Does the processor push an error code for this exception? SDM Vol. 3A
 * Table 6-1 (#DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP) and AMD64 APM Vol. 2
 * Table 8-1 (#VC, #SX). The trap entry and the reports both ask here. */
static inline bool x86_vector_has_error_code(int vec)
{
	return vec == X86_VEC_DF || (vec >= X86_VEC_TS && vec <= X86_VEC_PF) || vec == X86_VEC_AC ||
	       vec == X86_VEC_CP || vec == X86_VEC_VC || vec == X86_VEC_SX;
}

/* Vectors the kernel programs into the local APIC. */
#define PMI_VECTOR	0xF0 /* LVT performance-monitoring entry */
#define TIMER_VECTOR	0xF1 /* LVT timer: the watchdog */
#define SPURIOUS_VECTOR 0xFF /* spurious-interrupt vector register */

/* Not a vector: arch_exception.vector when the watchdog ended a guarded run. */
#define ARCH_TIMEOUT (-1)

/* Mnemonic of a vector ("#GP"): the exceptions of SDM Vol. 3A Table 6-1 and
 * AMD64 APM Vol. 2 Table 8-1 (#HV, #VC, #SX), the kernel's vectors above,
 * "timeout" for ARCH_TIMEOUT, "#??" otherwise. One table for the
 * machine and the simulator (one copy, not one per caller: the image's
 * size). */
const char *x86_vector_name(int vector); /* kernel/vector_name.c */

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/* ---- Identification -------------------------------------------------- */

/* "x86_64" or "sim"; the platform text describes the machine or profile. */
const char *arch_name(void);
const char *arch_platform(void);

/* ---- CPUID, MSRs, RDPMC ------------------------------------------------ */

void arch_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
/* Whether arch_cpuid() has real data for (leaf, sub-leaf): always on a
 * machine; false on a simulated CPU whose CPUID dump lacks that sub-leaf
 * (the capability decoder then takes it as unknown, never as zeros). */
bool arch_cpuid_known(uint32_t leaf, uint32_t subleaf);

/* Probes, callable at any CPL (a fault at CPL > 0 is returned the same way).
 * Each returns the vector raised (0 when none). At CPL 0 each access, and
 * each of rdmsr()/wrmsr() below, is also handed to the kernel's access trace
 * (kernel/trace.h: trace_access()), on the machine and the simulator alike. */
int rdmsr_safe(uint32_t msr, uint64_t *val);
int wrmsr_safe(uint32_t msr, uint64_t val);

/*
 * RDPMC with RCX passed whole (the CPU must ignore RCX[63:32]). RAX and RDX
 * are loaded with ARCH_RDPMC_POISON before the instruction and returned whole,
 * so a CPU that leaves their high halves set is visible to the caller.
 */
#define ARCH_RDPMC_POISON 0xA5A5A5A5A5A5A5A5ULL
int rdpmc_safe(uint64_t rcx, uint64_t *rax, uint64_t *rdx);

/* Error code pushed by the last fault a probe returned (0 when it had none). */
uint32_t arch_fault_error_code(void);

/* Unchecked accessors: a fault here is an unexpected exception, reported with
 * vector, RIP and error code; the test fails and the suite goes on. */
uint64_t rdmsr(uint32_t msr);
void wrmsr(uint32_t msr, uint64_t val);

/* ---- Control registers, time, serialization -------------------------- */

uint64_t arch_read_cr4(void);
void arch_write_cr4(uint64_t val);
uint64_t arch_rdtsc(void);
/* TSC ticks per second, 0 when unknown (the simulator's TSC is a model). */
uint64_t arch_tsc_hz(void);
/* A serializing instruction (CPUID), as the SDM asks around exact reads. */
void arch_serialize(void);

/* ---- Privilege ------------------------------------------------------- */

/*
 * Code that runs at CPL > 0 must live in pages that carry the user bit: mark
 * such functions (and only those) __user_code. They may use their stack and
 * call other __user_code functions (the probes above and arch_workload are
 * __user_code), and must not touch kernel data.
 */
#define __user_code __attribute__((section(".text.user"), noinline))

typedef uint64_t (*cpl_fn)(uint64_t arg);

/*
 * Run fn(arg) at CPL 1, 2 or 3 (0 calls it directly) and come back to CPL 0.
 * Returns 0 and stores fn's result, or returns the vector of an exception fn
 * raised and did not handle (fn is abandoned at that point; the error code is
 * in arch_fault_error_code()).
 */
int arch_call_at_cpl(int cpl, cpl_fn fn, uint64_t arg, uint64_t *result);

/* ---- The calibrated workload ----------------------------------------- */

/*
 * A loop of `iters` iterations (iters >= 1), each retiring exactly
 * WORKLOAD_INSNS_PER_ITER instructions of which WORKLOAD_BRANCHES_PER_ITER is
 * a conditional branch (taken in every iteration but the last). Callable at
 * any CPL. The count of two runs of different lengths therefore differs by
 * exactly (iters2 - iters1) * WORKLOAD_INSNS_PER_ITER instructions.
 */
#define WORKLOAD_INSNS_PER_ITER	   10
#define WORKLOAD_BRANCHES_PER_ITER 1
void arch_workload(uint64_t iters);

/*
 * The same loop, bracketed by WRMSR(msr, on) immediately before and
 * WRMSR(msr, off) immediately after, with nothing else in between: counting
 * that is gated by `msr` (usually IA32_PERF_GLOBAL_CTRL) sees the loop and a
 * constant overhead only. CPL 0 only.
 */
void arch_workload_gated(uint64_t iters, uint32_t msr, uint64_t on, uint64_t off);

/*
 * The intercepted-instruction workload: the gate of arch_workload_gated()
 * around a loop whose every iteration executes one instruction that a
 * hypervisor always intercepts, so that a vPMU has to count it in software:
 *   ARCH_INTERCEPT_CPUID  CPUID leaf 0 (SDM Vol. 3C 26.1.2: always a VM exit)
 *   ARCH_INTERCEPT_WRMSR  WRMSR(target) <- 0, target an unused counter's
 *                         IA32_PERFEVTSELx (a vPMU intercepts it to
 *                         reprogram its event)
 *   ARCH_INTERCEPT_IN     IN AL, DX from port `target` (an unused port:
 *                         port I/O exits to the VMM)
 * Each iteration retires exactly INTERCEPT_INSNS_PER_ITER instructions, one
 * of them the intercepted one and INTERCEPT_BRANCHES_PER_ITER a conditional
 * branch; after the loop, INTERCEPT_CLOSE_INSNS instructions load the
 * closing WRMSR's operands. On bare metal these are ordinary instructions.
 * iters >= 1; CPL 0 only.
 */
#define INTERCEPT_INSNS_PER_ITER    6
#define INTERCEPT_BRANCHES_PER_ITER 1
#define INTERCEPT_CLOSE_INSNS	    3
enum arch_intercept {
	ARCH_INTERCEPT_CPUID,
	ARCH_INTERCEPT_WRMSR,
	ARCH_INTERCEPT_IN,
	ARCH_INTERCEPT_COUNT
};
void arch_workload_intercepted(enum arch_intercept kind, uint64_t iters, uint32_t msr, uint64_t on,
			       uint64_t off, uint32_t target);

/*
 * The cache-miss workload: for each of `lines` lines (lines >= 1), line i at
 * buf + i * WORKLOAD_LLC_STRIDE, CLFLUSH the line, MFENCE, then load one
 * quadword from it. Needs CPUID.01H:EDX.CLFSH[19]. The code is __user_code,
 * but `buf` must be readable at the caller's CPL: the kernel's buffer
 * (pmu_llc_buffer(), kernel memory) makes it CPL 0 only.
 *
 * Why each load is an LLC reference and an LLC miss (SDM Vol. 3B Table
 * 20-1, "Last Level Cache References" 2EH/4FH counts "requests originating
 * from the core that reference a cache line in the last level on-die cache",
 * "Last Level Cache Misses" 2EH/41H "each cache miss condition for
 * references to the last level on-die cache"): CLFLUSH invalidates the line
 * "from every level of the cache hierarchy" (Vol. 2A CLFLUSH) and MFENCE
 * orders the flush before the load, so the load misses L1 and L2, is a
 * request from the core to the LLC, and misses there.
 *
 * What it does NOT guarantee, so checks use margins: CLFLUSH "is not
 * ordered with respect to ... any of the speculative fetching mechanisms"
 * (a prefetcher may bring the line back between the flush and the load;
 * Table 20-1 lets the events exclude fills by prefetchers other than the
 * first-level one); prefetches, page walks and the flushes themselves may add
 * references and misses. One line per 4 KiB page keeps the load of line
 * i + 1 out of the page the prefetchers of line i work in (they do not cross
 * 4 KiB pages), so a prefetched line is rare, not excluded.
 *
 * Retires WORKLOAD_LLC_INSNS_PER_LINE instructions per line, one of them a
 * conditional branch.
 */
#define WORKLOAD_LLC_STRIDE	    4096
#define WORKLOAD_LLC_INSNS_PER_LINE 6
void arch_workload_llc_miss(const void *buf, uint64_t lines);

/*
 * The branch-miss workload: `iters` iterations (iters >= 1), each advancing
 * a xorshift64* generator (state x <- seed, 1 when seed is 0; x ^= x >> 12,
 * x ^= x << 25, x ^= x >> 27; output x * 2545F4914F6CDD1DH) and taking a
 * conditional branch (JS) on bit 63 of the output. Both directions retire
 * the same instructions: each iteration retires exactly
 * WORKLOAD_BRMISS_INSNS_PER_ITER instructions of which
 * WORKLOAD_BRMISS_BRANCHES_PER_ITER are branches (the JS, one JMP, the loop
 * JNZ). Callable at any CPL.
 *
 * Why about half the JS are mispredicted: the direction is the top bit of a
 * 64-bit multiply of a 64-bit hidden state, a sequence no predictor can
 * learn from branch history (its next bit is not a function of any short
 * history); given a fresh seed, each direction is a coin flip to the
 * predictor and so is each prediction. Not guaranteed: a predictor that has
 * seen the same seed's sequence may have memorized part of it (modern
 * predictors memorize repeated sequences of a few thousand branches), so
 * callers pass a fresh seed each run and bound the count far below half
 * (see counting.branch_misses_lower_bound, suites/counting.c).
 */
#define WORKLOAD_BRMISS_INSNS_PER_ITER	  17
#define WORKLOAD_BRMISS_BRANCHES_PER_ITER 3
void arch_workload_branch_miss(uint64_t iters, uint64_t seed);

/*
 * The transactional workload (CPUID.(07H,0):EBX.RTM[11] only: XBEGIN, XEND
 * and XABORT are #UD without it, SDM Vol. 2A): `outside` iterations of the
 * arch_workload() loop (WORKLOAD_INSNS_PER_ITER instructions each; 0 runs
 * none), then one RTM transaction (XBEGIN ... XEND) around `inside`
 * iterations (inside >= 1) of the same kind of loop, ended by XEND, or by
 * XABORT ARCH_TSX_XABORT_CODE when `abort` is true. Interrupts are held off
 * across it (an interrupt aborts a transaction, Vol. 1 16.3.8.2); RFLAGS
 * comes back as it was. Returns ARCH_TSX_COMMITTED when the transaction
 * committed, else the abort status XBEGIN's fallback path found in EAX
 * (Vol. 1 16.3.5, Table 16-1: ARCH_TSX_ABORT_EXPLICIT with the XABORT code
 * in bits 31:24 for the requested abort; any other value is an abort for
 * another reason, which software may not rule out, Vol. 1 16.3.8.2).
 * CPL 0 only.
 */
#define ARCH_TSX_COMMITTED	0xFFFFFFFFu /* no abort status: its EAX[23:6] are 0 */
#define ARCH_TSX_ABORT_EXPLICIT 0x1u	    /* EAX[0]: XABORT */
#define ARCH_TSX_XABORT_CODE	0xA5u
#define ARCH_TSX_STATUS_CODE(s) (((s) >> 24) & 0xFFu)
uint32_t arch_workload_tsx(uint64_t outside, uint64_t inside, bool abort);

/*
 * Where the gated workload's code lies: [*start, *end) covers
 * arch_workload_gated() from its first instruction to its last, so the
 * instruction pointer of any event it causes (a PEBS record's IP) is inside.
 */
void arch_workload_gated_range(uint64_t *start, uint64_t *end);

/* ---- Branches at known addresses (LBR checks) -------------------------- */

/* The kinds of near branch the chain takes, in the categories the LBR
 * filters name (SDM Vol. 3B 19.1 IA32_LBR_CTL; MSR_LBR_SELECT, "Filtering of
 * Last Branch Records"). */
enum arch_branch_kind {
	ARCH_BRANCH_JMP,  /* near relative JMP */
	ARCH_BRANCH_JCC,  /* conditional, taken */
	ARCH_BRANCH_CALL, /* near relative CALL */
	ARCH_BRANCH_RET,  /* near RET */
};
#define ARCH_BRANCH_CHAIN_LEN 8
/* The chain's branches in the order they are taken. */
#define ARCH_BRANCH_CHAIN_KINDS                                                                    \
	{                                                                                          \
		ARCH_BRANCH_JMP, ARCH_BRANCH_JCC, ARCH_BRANCH_JMP, ARCH_BRANCH_JCC,                \
		    ARCH_BRANCH_JMP, ARCH_BRANCH_JCC, ARCH_BRANCH_CALL, ARCH_BRANCH_RET            \
	}

/*
 * WRMSR(msr, on), then exactly ARCH_BRANCH_CHAIN_LEN taken branches of the
 * kinds above, then WRMSR(msr, off): no other branch is taken between the two
 * WRMSRs, so an LBR enabled by the first and disabled by the second holds
 * exactly the chain. CPL 0 only; an unchecked WRMSR (a fault is an
 * unexpected exception).
 */
void arch_branch_chain(uint32_t msr, uint64_t on, uint64_t off);

/*
 * The chain's branch addresses: from[i] is the address of the i-th branch
 * instruction, to[i] its target, the two addresses an LBR entry records
 * ("the linear address of the branch instruction itself" and "of the
 * target", SDM Vol. 3B 19.4.8.1 / 19.1).
 */
void arch_branch_chain_sites(uint64_t from[ARCH_BRANCH_CHAIN_LEN],
			     uint64_t to[ARCH_BRANCH_CHAIN_LEN]);

/*
 * The chain's first ARCH_BRANCH_USER_CHAIN_LEN branches (JMP, Jcc
 * alternating, all taken) as a __user_code cpl_fn for arch_call_at_cpl():
 * no WRMSR, the caller switches the LBRs on before the call and off after
 * it, and filters out what else runs. Besides fn, arch_call_at_cpl() takes
 * at CPL > 0 only a near indirect CALL (into fn), fn's near RET and the far
 * transfers into and out of the ring, never a near relative JMP or a Jcc:
 * with only those two kinds selected, an LBR records exactly this chain.
 * Returns 0.
 */
#define ARCH_BRANCH_USER_CHAIN_LEN 6
uint64_t arch_branch_chain_user(uint64_t arg);
void arch_branch_chain_user_sites(uint64_t from[ARCH_BRANCH_USER_CHAIN_LEN],
				  uint64_t to[ARCH_BRANCH_USER_CHAIN_LEN]);

/*
 * Memory workloads for RDT monitoring (SDM Vol. 3B 17.18), CPL 0 only.
 *
 * arch_scratch_buffer() is ARCH_SCRATCH_BYTES of ordinary write-back RAM,
 * 64-byte aligned, mapped at CPL 0 (NULL when the machine has none to give):
 * more than any L2 holds, so that a touched part of it lands in the L3 (also
 * where the L3 is a victim cache of the L2).
 *
 * arch_flush_buffer(buf, bytes): CLFLUSH every 64-byte line of the range,
 * then MFENCE: none of it is in any cache afterwards (Vol. 2A CLFLUSH), so
 * the next load of each line is a fill from memory, tagged with the RMID of
 * IA32_PQR_ASSOC at that time (17.18.2). Needs CPUID.01H:EDX.CLFSH[19].
 *
 * arch_workload_touch(buf, bytes): load one quadword of every 64-byte line
 * of the range, in order. After arch_flush_buffer, every line is read from
 * memory (total bandwidth >= bytes) and filled into the cache hierarchy.
 */
#define ARCH_SCRATCH_BYTES (16u << 20)
void *arch_scratch_buffer(void);
void arch_flush_buffer(const void *buf, uint64_t bytes);
void arch_workload_touch(const void *buf, uint64_t bytes);

/* ---- Local APIC and interrupts ---------------------------------------- */

/* LVT performance-monitoring counters register (xAPIC offset 340H, x2APIC
 * MSR 834H), SDM Vol. 3A 10.5.1. */
uint32_t arch_apic_read_lvt_pmi(void);
void arch_apic_write_lvt_pmi(uint32_t val);
void arch_apic_eoi(void);
bool arch_apic_is_x2apic(void);

/* Called (at CPL 0, interrupts off) on every interrupt at PMI_VECTOR; the
 * handler sends EOI itself when it wants to. NULL uninstalls. */
typedef void (*pmi_handler_fn)(void);
void arch_set_pmi_handler(pmi_handler_fn fn);

/*
 * Called on every NMI (vector 2), at CPL 0 with interrupts off, on the NMI's
 * own stack (IST on the machine); the interrupted code resumes where it was
 * (IRET), whatever it was doing: a probe, a fault's recovery, CPL 3. NMIs
 * stay blocked until that IRET (SDM Vol. 3A 6.7.1), so the handler must not
 * fault: a fault's own IRET would unblock them on the NMI stack. An NMI needs
 * no EOI. NULL uninstalls; with no handler an NMI is an unexpected exception
 * (reported like a fault: the running test fails, the suite goes on).
 */
typedef void (*nmi_handler_fn)(void);
void arch_set_nmi_handler(nmi_handler_fn fn);

/* Send this CPU an NMI through the local APIC's ICR (delivery mode NMI,
 * physical destination = own APIC ID; the "self" shorthand is not valid with
 * NMI, SDM Vol. 3A 10.6.1 Table 10-3). It may arrive a little after return. */
void arch_apic_self_nmi(void);

void arch_irq_enable(void);
void arch_irq_disable(void);

/* ---- Running a test --------------------------------------------------- */

struct arch_exception {
	int vector;	     /* X86_VEC_*, or ARCH_TIMEOUT */
	uint32_t error_code; /* 0 when the vector pushes none */
	bool has_error_code;
	uint64_t rip;
	uint64_t cr2; /* #PF only */
	int cpl;      /* CPL at the time of the exception */
	/* Machine state the test left changed and the harness put back (names,
	 * ", "-separated), or NULL: a failure of the test whatever else it did. */
	const char *state_restored;
};
/* How a guarded run ended. The values are the ones each implementation's
 * unwinding carries (x86_ctx_restore / siglongjmp): 0 is "returned". The
 * last two only arch_run_on_cpu() returns (below). */
enum arch_guard_result {
	ARCH_GUARD_RETURNED = 0,
	ARCH_GUARD_EXCEPTION = 1,
	ARCH_GUARD_TIMEOUT = 2,
	ARCH_RUN_CPU_LOST = 3,
	ARCH_RUN_CPU_OFFLINE = 4,
	ARCH_GUARD_RESULT_COUNT
};

/* The result's name, for diagnostics ("returned", "exception", ...). */
static inline const char *arch_guard_result_name(enum arch_guard_result r)
{
	static const char *const names[] = {
	    [ARCH_GUARD_RETURNED] = "returned",	    [ARCH_GUARD_EXCEPTION] = "exception",
	    [ARCH_GUARD_TIMEOUT] = "timeout",	    [ARCH_RUN_CPU_LOST] = "cpu lost",
	    [ARCH_RUN_CPU_OFFLINE] = "cpu offline",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == ARCH_GUARD_RESULT_COUNT,
		       "one name per enum arch_guard_result");
	return (unsigned)r < ARCH_GUARD_RESULT_COUNT ? names[r] : "?";
}

/*
 * Run fn(arg) so that whatever happens the caller gets control back:
 * ARCH_GUARD_RETURNED when fn returned; ARCH_GUARD_EXCEPTION with *ex filled
 * when an exception outside any probe hit fn (or code it called);
 * ARCH_GUARD_TIMEOUT with ex->vector = ARCH_TIMEOUT when the watchdog fired
 * after `timeout_ms`. In every case CPL is 0, interrupts are off,
 * CR4 is as it was on entry and the stack is the caller's; on the machine the
 * descriptor tables, CR0, CR8, EFER and the local APIC are too (anything the
 * test changed among those is named in ex->state_restored, whatever rc is).
 */
enum arch_guard_result arch_run_guarded(void (*fn)(void *), void *arg, uint32_t timeout_ms,
					struct arch_exception *ex);

/* ---- Every CPU of the machine ------------------------------------------ */

/*
 * The logical CPUs the firmware lists (ACPI MADT on the machine, the profile
 * on the simulator), numbered 0..arch_cpu_count()-1 in that order; the boot
 * CPU is whichever number it has there (arch_cpu_boot()). Each has its own
 * local APIC ID, descriptor tables, stacks and local APIC.
 */
#define ARCH_MAX_CPUS 1024
#define ARCH_NO_CPU   0xFFFFFFFFu

enum cpu_state {
	CPU_ONLINE,	     /* answered the start-up, parked, takes work */
	CPU_NOT_STARTED,     /* not started yet (before arch_cpus_start) */
	CPU_NO_ANSWER,	     /* INIT-SIPI-SIPI sent, never reported in */
	CPU_NOT_ADDRESSABLE, /* APIC ID > 255 with the local APIC in xAPIC mode */
	CPU_NO_TRAMPOLINE,   /* no start-up page below 1 MiB could be reserved */
	CPU_LOST,	     /* stopped answering a run; stopped with INIT */
};
const char *arch_cpu_state_name(enum cpu_state s);

unsigned arch_cpu_count(void);
/* CPUs the firmware lists as enabled that did not fit in ARCH_MAX_CPUS: how
 * many, and the APIC IDs of the first `max` of those recorded into ids (the
 * machine records 1024; entries past them are left as they were). */
unsigned arch_cpus_left_out(uint32_t *ids, unsigned max);
unsigned arch_cpu_boot(void);
unsigned arch_cpu_current(void);
uint32_t arch_cpu_apic_id(unsigned cpu);
enum cpu_state arch_cpu_state(unsigned cpu);

/*
 * Start every application processor and park it (INIT-SIPI-SIPI, SDM Vol. 3A
 * 9.4.4.1 / 8.4.4.1), each with a bounded wait: a CPU that does not report in
 * is CPU_NO_ANSWER and left alone, never waited for again. `silent_cpu` is a
 * test hook: that CPU gets the INIT but no SIPI, so it never answers
 * (ARCH_NO_CPU: none). Returns the number of CPUs online, the boot CPU
 * included. Call once.
 */
unsigned arch_cpus_start(unsigned silent_cpu);

/*
 * arch_run_guarded() on CPU `cpu` (the caller's own CPU runs it directly):
 * the same results (an enum arch_guard_result), plus ARCH_RUN_CPU_LOST when
 * the CPU did not come back within timeout_ms and a grace period (a hang with
 * interrupts off, a triple fault...). That CPU is then stopped with an INIT,
 * marked CPU_LOST and never used again; ex->vector is ARCH_TIMEOUT. A CPU
 * that is not online is not touched: ARCH_RUN_CPU_OFFLINE. The caller waits
 * with interrupts off; only one CPU runs kernel code at a time, except what
 * the callee's interrupt handlers do.
 */
enum arch_guard_result arch_run_on_cpu(unsigned cpu, void (*fn)(void *), void *arg,
				       uint32_t timeout_ms, struct arch_exception *ex);
/* Inside a guarded run: the MSRs it wrote so far keep their new values (the
 * harness puts back none of them). The runner's PMU reset, so that every
 * test starts from the state pmutest set, not from what the firmware left. */
void arch_msr_keep(void);

/*
 * Platform events: what struck a CPU that no test asked for, counted since
 * boot per CPU. An NMI that is neither the NMI watchdog's nor taken by an
 * installed NMI handler (a PMI's), an interrupt at a vector no handler owns,
 * a machine check (its first bank: MCi_STATUS, SDM Vol. 3B 16.3.2.2). None
 * ends the run; the runner retries a test that ended in an exception or a
 * timeout one of them explains (kernel/runner.c).
 *
 * An NMI or interrupt that the PMU under test can have sent is never a
 * platform event: `pmu` counts those no handler took. An NMI is the PMU's
 * when the LVT performance-counter entry was in NMI mode since the last
 * arch_pmu_sources_forget() on that CPU, or IA32_PERF_GLOBAL_STATUS (AMD:
 * PerfCntrGlobalStatus) has an overflow bit set; an interrupt is the PMU's
 * at PMI_VECTOR or a vector the LVT entry held since then. The runner fails
 * the test they struck (a PMI after the test removed its handler).
 */
struct arch_platform_events {
	uint32_t nmi, irq, mce;
	uint32_t pmu;	      /* the PMU's NMIs / interrupts that no handler took */
	uint32_t last_vector; /* of the latest unexpected interrupt */
	uint32_t mce_bank;    /* of the first machine check with a valid bank */
	uint64_t mce_status;  /* its IA32_MCi_STATUS */
};
#define ARCH_ALL_CPUS (~0u)
/* Adds c's counts to sum (the latest vector and machine check kept): the
 * ARCH_ALL_CPUS total, on the machine and the simulator alike. */
static inline void arch_platform_events_add(struct arch_platform_events *sum,
					    const struct arch_platform_events *c)
{
	sum->nmi += c->nmi;
	sum->irq += c->irq;
	sum->mce += c->mce;
	sum->pmu += c->pmu;
	if (c->irq)
		sum->last_vector = c->last_vector;
	if (c->mce) {
		sum->mce_bank = c->mce_bank;
		sum->mce_status = c->mce_status;
	}
}
/* cpu's events; ARCH_ALL_CPUS: every CPU's, summed. */
void arch_platform_events(unsigned cpu, struct arch_platform_events *e);
/* On this CPU: the LVT modes and vectors seen so far are no longer the PMU's
 * (the runner, once the PMU is reset after a test). */
void arch_pmu_sources_forget(void);

/* ---- Output, exit ------------------------------------------------------ */

/* Serial port (COM1) and screen on the machine; stdout on the simulator. */
void arch_console_write(const char *s, size_t n);

/* Verdicts the run ends with; QEMU's isa-debug-exit turns them into its exit
 * status (see testing/), the simulator into its own. */
enum run_status {
	RUN_PASS = 0,
	RUN_FAIL = 1,
	RUN_ERROR = 2, /* the environment broke (#DF, no console...) */
};
__attribute__((noreturn)) void arch_exit(enum run_status status);

/* Provided by the kernel for the arch's last words (#DF, an exception outside
 * any guarded run): prints, as KTAP diagnostics, which test was running and
 * the totals so far. Uses no locks and no allocation. */
void kernel_emergency_summary(const char *why);

/* ---- Harness self-tests ------------------------------------------------- */

/* Raise a genuine fault outside any probe, so the self-tests can check that
 * the runner reports it and goes on. */
void arch_selftest_page_fault(void);
void arch_selftest_invalid_opcode(void);
/* Recurse until the stack's guard page: a #PF (on its own stack), never a
 * double fault. */
void arch_selftest_overflow_stack(void);
/* A PMI (fixed self-IPI at PMI_VECTOR) whose handler raises #UD: the fault
 * is reported and the PMI left in service gets its EOI. */
void arch_selftest_fault_in_pmi_handler(void);
/* Load an empty IDTR and GDTR, zero an IDT gate, raise TPR/CR8 to 15 and
 * return with interrupts off: the harness must put everything back and
 * report the test as failed. */
void arch_selftest_corrupt_machine_state(void);
/* True when the watchdog also ends a hang with interrupts off (an NMI
 * source; arch/x86_64/nmi_watchdog.c), false where only the maskable timer
 * exists. */
bool arch_watchdog_stops_any_hang(void);

/* ---- The screen ------------------------------------------------------------
 * A text grid on the machine's display, on which kernel/screen.c draws the
 * progress view and the summary (the serial port keeps the full KTAP).
 * Until the kernel first calls arch_screen_clear() the screen shows the
 * console log; after arch_exit(RUN_ERROR) from the arch it shows it again.
 * Cells are (col, row) from the top left; text is clipped at the right
 * edge. Without a display arch_screen_size() is false and the rest does
 * nothing. */
enum screen_color {
	SCREEN_GREY,
	SCREEN_WHITE,
	SCREEN_GREEN,
	SCREEN_RED,
	SCREEN_YELLOW,
	SCREEN_CYAN,
	SCREEN_COLOR_COUNT
};
bool arch_screen_size(unsigned *cols, unsigned *rows);
void arch_screen_clear(void);
void arch_screen_text(unsigned col, unsigned row, enum screen_color color, const char *s);
/* Text at scale x scale cells a character (the verdict): the grid keeps
 * the characters in the top row of the area, the rest of it blank. */
void arch_screen_big(unsigned col, unsigned row, unsigned scale, enum screen_color color,
		     const char *s);
/* The grid as text, one line a row, to a second output where there is one
 * (x86_64: COM2, which `make test` reads). */
void arch_screen_publish(void);

/* A key pressed since the last call (true once a key), and whether there is
 * a keyboard to ask at all. */
enum arch_key { ARCH_KEY_NONE, ARCH_KEY_PRESSED, ARCH_KEY_NO_KEYBOARD };
enum arch_key arch_key_poll(void);
/* Halt about ms milliseconds, woken by a timer (interrupts off again on
 * return): between key polls after the verdict, so that a machine left on
 * does not spin at full power. Returns at once where no timer can wake it. */
void arch_idle_ms(unsigned ms);

/* Called by arch_exit() when the machine stays up after the verdict (no
 * exit device: real hardware): the kernel's last screen, paged by key or
 * cycled. Interrupts are off; it never returns. */
__attribute__((noreturn)) void kernel_halted(enum run_status status);

/* Keep the report for the boot medium (real hardware); false when it
 * cannot. name: the machine, without extension (the stored file's name adds
 * the date and ".ktap", see boot/uefi/report_store.c). */
bool arch_save_report(const char *name, const char *data, size_t len);
/* Why the last arch_save_report() kept nothing (e.g. the variable store
 * has no room to spare), NULL when unknown. */
const char *arch_save_report_error(void);

#endif

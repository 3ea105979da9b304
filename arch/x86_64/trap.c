/* SPDX-License-Identifier: MIT */
/*
 * What happens on every interrupt and exception, and the two ways the
 * kernel gets control back from code that may fault or hang:
 *
 *   arch_run_guarded   a recovery point (setjmp-like) plus a watchdog;
 *   arch_call_at_cpl   a run at CPL 1..3 that returns to ring 0.
 *
 * An NMI with a handler installed is not a fault: x86_trap calls the handler
 * and IRETs to wherever the NMI struck, before any of the steps below, so it
 * can never be taken for a probe's fault or end a guarded run.
 *
 * NMI nesting: NMIs stay blocked from the NMI's delivery to the next IRET
 * (SDM Vol. 3A 6.7.1). A probe that faults inside an NMI handler must not
 * return with IRET, or a second NMI would be delivered on the same IST
 * stack and overwrite the first one's frame; x86_trap returns to it without
 * IRET instead (entry.asm), and a recovery that leaves the handler through
 * x86_ctx_restore ends NMI blocking itself (x86_iret_to_self).
 *
 * What no test asked for is a platform event (arch_platform_events), counted
 * per CPU and resumed from, never a test's fault: an NMI that neither the
 * watchdog nor an installed handler claims (a BMC, IOCHK/SERR, an unknown
 * source: Linux logs "NMI received for unknown reason" and goes on), an
 * interrupt at a vector no handler owns, and a machine check (below) whose
 * RIPV says the interrupted code can resume. An unclaimed NMI or interrupt
 * the PMU under test can have sent (pmu_sent_nmi, pmu_vector) is counted
 * apart, as the PMU's: the runner fails the test it struck.
 *
 * Order of decisions for a fault (x86_trap):
 *   1. the #UD of the UD2 at x86_user_return, at CPL > 0 inside
 *      arch_call_at_cpl -> the way back: that call returns fn's result;
 *   2. a registered probe instruction -> its fixup, vector in RAX (any CPL);
 *   3. #DF -> the environment is broken: KTAP bail out, RUN_ERROR;
 *   4. at CPL > 0 inside arch_call_at_cpl -> that call returns the vector;
 *   5. inside arch_run_guarded -> it returns ARCH_GUARD_EXCEPTION, the record filled;
 *   6. anywhere else -> bail out (nothing is left to report it to).
 */
#include "x86.h"

uint32_t g_fault_error_code;
extern char x86_user_return[];

struct guard {
	struct x86_ctx ctx;
	struct guard *prev;
	struct cpl_call *cpl_at_entry;
	struct arch_exception *ex;
	bool watchdog;
	bool restoring;		   /* the epilogue is putting the state back */
	struct nmi_watch nmi_prev; /* the NMI watchdog before this run armed it */
};

struct cpl_call {
	struct x86_ctx ctx;
	struct cpl_call *prev;
	uint64_t result;
};

/* Innermost active guard / ring call of this CPU (each CPU has its own
 * chain, smp.c). Written before the context is saved and read by the trap
 * handler, hence volatile. */
#define g_guard (*(struct guard *volatile *)&this_cpu()->guard)
#define g_cpl	(*(struct cpl_call *volatile *)&this_cpu()->cpl_call)
static pmi_handler_fn volatile g_pmi_handler;
static nmi_handler_fn volatile g_nmi_handler;
static uint64_t g_user_stack_top;
static volatile unsigned g_nmi_depth; /* NMI handlers running (0 or 1) */
#define g_events (this_cpu()->events)

/* Machine-check registers, SDM Vol. 3B 16.3.1 / 16.3.2. */
#define MSR_IA32_MCG_CAP    0x179
#define MSR_IA32_MCG_STATUS 0x17A
#define MSR_IA32_MC0_STATUS 0x401 /* IA32_MCi_STATUS = 401H + 4i */
#define MCG_STATUS_RIPV	    BIT_ULL(0)
#define MCG_STATUS_MCIP	    BIT_ULL(2)
#define MCI_STATUS_VAL	    BIT_ULL(63)

void arch_platform_events(unsigned cpu, struct arch_platform_events *e)
{
	if (cpu != ARCH_ALL_CPUS) {
		*e = x86_cpu(cpu)->events;
		return;
	}
	*e = (struct arch_platform_events){0};
	for (unsigned i = 0; i < arch_cpu_count(); i++) {
		arch_platform_events_add(e, &x86_cpu(i)->events);
	}
}

void arch_pmu_sources_forget(void)
{
	struct x86_percpu *c = this_cpu();

	c->lvt_nmi_seen = false;
	for (unsigned i = 0; i < ARRAY_SIZE(c->lvt_vectors); i++)
		c->lvt_vectors[i] = 0;
}

/* Overflow bits of IA32_PERF_GLOBAL_STATUS (counters, PERF_METRICS, the DS
 * buffer: SDM Vol. 4 Table 2-2, 38EH) or AMD PerfCntrGlobalStatus (APM
 * Vol. 2 13.2.2: counters 5:0... 15:0). */
#define INTEL_OVF_BITS (GENMASK_ULL(48, 0) | BIT_ULL(62))
#define AMD_OVF_BITS   GENMASK_ULL(15, 0)

/* Could the PMU under test have sent this unclaimed NMI? Inside the NMI:
 * the probes' faults return without IRET (g_nmi_depth). */
static bool pmu_sent_nmi(void)
{
	uint64_t st;
	bool ovf = false;

	if (this_cpu()->lvt_nmi_seen ||
	    FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, arch_apic_read_lvt_pmi()) == APIC_DM_NMI)
		return true;
	g_nmi_depth++;
	if (rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &st) == 0)
		ovf = st & INTEL_OVF_BITS;
	else if (rdmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, &st) == 0)
		ovf = st & AMD_OVF_BITS;
	g_nmi_depth--;
	return ovf;
}

/* An interrupt at PMI_VECTOR or a vector the LVT entry held: the PMU's. */
static bool pmu_vector(unsigned vec)
{
	return vec == PMI_VECTOR || (this_cpu()->lvt_vectors[vec / 64] >> (vec % 64)) & 1;
}

/*
 * #MC: MCG_STATUS.MCIP is cleared first, as software must before it
 * returns (Vol. 3B 16.3.1.2; a second #MC while MCIP is set shuts the
 * processor down); then every bank with MCi_STATUS.VAL is noted (the
 * latest kept) and cleared. True when RIPV says the code may resume.
 */
static bool machine_check(void)
{
	uint32_t error_code = g_fault_error_code;
	uint64_t cap = 0, st, mcg = 0;

	/* The probes themselves: a machine check is no access of the test's
	 * (kernel/trace.h). MCIP first: an NMI (not held back by #MC) that abandons this handler
	 * must not leave it set. */
	(void)x86_rdmsr_probe(MSR_IA32_MCG_STATUS, &mcg);
	(void)x86_wrmsr_probe(MSR_IA32_MCG_STATUS, mcg & ~MCG_STATUS_MCIP);
	(void)x86_rdmsr_probe(MSR_IA32_MCG_CAP, &cap);
	for (uint32_t i = 0; i < (cap & 0xFF); i++) {
		if (x86_rdmsr_probe(MSR_IA32_MC0_STATUS + 4 * i, &st) || !(st & MCI_STATUS_VAL))
			continue;
		g_events.mce_bank = i;
		g_events.mce_status = st;
		(void)x86_wrmsr_probe(MSR_IA32_MC0_STATUS + 4 * i, 0);
	}
	__atomic_fetch_add(&g_events.mce, 1, __ATOMIC_RELAXED);
	g_fault_error_code = error_code;
	return mcg & MCG_STATUS_RIPV;
}

/* Values x86_ctx_restore passes to arch_call_at_cpl. */
#define CPL_RETURNED 0x1000
#define CPL_FAULTED  0x2000 /* + vector */

uint32_t arch_fault_error_code(void)
{
	return g_fault_error_code;
}

void arch_set_pmi_handler(pmi_handler_fn fn)
{
	g_pmi_handler = fn;
}

void arch_set_nmi_handler(nmi_handler_fn fn)
{
	g_nmi_handler = fn;
}

/* The NMI may have struck between a probe's fault and the caller's read of
 * arch_fault_error_code(), and the handler may use probes: keep the value. */
static void call_nmi_handler(nmi_handler_fn fn)
{
	uint32_t error_code = g_fault_error_code;

	fn();
	g_fault_error_code = error_code;
}

static void fill_exception(struct arch_exception *ex, const struct x86_frame *f)
{
	ex->vector = (int)f->vector;
	ex->has_error_code = f->vector < 32 && x86_vector_has_error_code((int)f->vector);
	ex->error_code = ex->has_error_code ? (uint32_t)f->error_code : 0;
	ex->rip = f->rip;
	ex->cr2 = f->vector == X86_VEC_PF ? read_cr2() : 0;
	ex->cpl = (int)(f->cs & 3);
}

static bool apply_fixup(struct x86_frame *f)
{
	for (const struct x86_fixup *e = __start_x86_fixup; e < __stop_x86_fixup; e++) {
		if (e->insn == f->rip) {
			f->rip = e->fixup;
			f->rax = f->vector;
			g_fault_error_code =
			    x86_vector_has_error_code((int)f->vector) ? (uint32_t)f->error_code : 0;
			return true;
		}
	}
	return false;
}

static void bail(const char *what, const struct x86_frame *f)
{
	fbcon_log_mode(); /* the bail-out on the screen too */
	x86_puts("\n");
	kernel_emergency_summary(what);
	x86_puts("Bail out! ");
	x86_puts(what);
	x86_puts(" ");
	x86_puts(x86_vector_name((int)f->vector));
	x86_puts(" vector=");
	x86_put_hex(f->vector);
	x86_puts(" error_code=");
	x86_put_hex(f->error_code);
	x86_puts(" rip=");
	x86_put_hex(f->rip);
	x86_puts(" cs=");
	x86_put_hex(f->cs);
	x86_puts(" rsp=");
	x86_put_hex(f->rsp);
	x86_puts(" cr2=");
	x86_put_hex(read_cr2());
	x86_puts("\n");
	arch_exit(RUN_ERROR);
}

/* Return to the interrupted CPL-0 code without IRET: RFLAGS and RIP go
 * below its RSP (no red zone in the kernel), for entry.asm's .no_iret. */
static enum x86_trap_exit return_without_iret(struct x86_frame *f)
{
	uint64_t *sp = (uint64_t *)f->rsp - 2;
	sp[0] = f->rflags;
	sp[1] = f->rip;
	f->rsp = (uint64_t)sp;
	return X86_TRAP_NO_IRET;
}

enum x86_trap_exit x86_trap(struct x86_frame *f)
{
	unsigned vec = (unsigned)f->vector;
	int cpl = (int)(f->cs & 3);

	switch (vec) {
	case X86_VEC_NMI: {
		nmi_handler_fn fn = g_nmi_handler;
		bool late;

		/* The NMI watchdog first: a test that hangs with interrupts
		 * off ends here (nmi_watchdog.c). */
		if (nmi_watchdog_claims(&late) && g_guard && g_guard->watchdog) {
			fill_exception(g_guard->ex, f);
			g_guard->ex->vector = ARCH_TIMEOUT;
			x86_ctx_restore(&g_guard->ctx, ARCH_GUARD_TIMEOUT);
		}
		if (late)
			return X86_TRAP_IRET; /* a disarmed watchdog's NMI, already on its way */

		if (fn) {
			g_nmi_depth++;
			call_nmi_handler(fn);
			g_nmi_depth--;
			/* IRET: unblocks NMIs, resumes the interrupted code */
			return X86_TRAP_IRET;
		}
		if (pmu_sent_nmi())
			__atomic_fetch_add(&g_events.pmu, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&g_events.nmi, 1, __ATOMIC_RELAXED);
		return X86_TRAP_IRET; /* nobody's: the PMU's or a platform event */
	}
	case X86_VEC_MC:
		if (machine_check())
			return X86_TRAP_IRET;
		break; /* RIPV clear: the test cannot go on (an exception, below) */
	case PMI_VECTOR:
		if (g_pmi_handler) {
			g_pmi_handler(); /* it sends EOI itself */
			return X86_TRAP_IRET;
		}
		arch_apic_eoi();
		__atomic_fetch_add(&g_events.pmu, 1, __ATOMIC_RELAXED); /* a PMI nobody took */
		return X86_TRAP_IRET;
	case SPURIOUS_VECTOR:
		return X86_TRAP_IRET; /* no EOI for a spurious interrupt (SDM Vol. 3A 10.9) */
	case WAKE_VECTOR:
		arch_apic_eoi(); /* a parked CPU has work (smp.c) */
		return X86_TRAP_IRET;
	case TIMER_VECTOR:
		arch_apic_eoi();
		if (g_guard && g_guard->watchdog && apic_watchdog_expired()) {
			struct arch_exception *ex = g_guard->ex;
			fill_exception(ex, f);
			ex->vector = ARCH_TIMEOUT;
			x86_ctx_restore(&g_guard->ctx, ARCH_GUARD_TIMEOUT);
		}
		return X86_TRAP_IRET; /* a late tick of a disarmed watchdog */
	default:
		break;
	}

	/* The way back from arch_call_at_cpl (user.asm x86_user_return). */
	if (vec == X86_VEC_UD && cpl != 0 && g_cpl && f->rip == (uint64_t)x86_user_return) {
		g_cpl->result = f->rdi;
		x86_ctx_restore(&g_cpl->ctx, CPL_RETURNED);
	}
	/* An NMI or #MC is not raised by the instruction at RIP: never a probe's. */
	if (vec < 32 && vec != X86_VEC_NMI && vec != X86_VEC_MC && apply_fixup(f))
		return g_nmi_depth && cpl == 0 ? return_without_iret(f) : X86_TRAP_IRET;
	if (vec == X86_VEC_DF)
		bail("double fault", f);
	if (vec >= 32) {
		/* An interrupt no handler owns: EOI only if the local APIC has it
		 * in service (an ExtINT from the 8259 is not; an EOI would retire
		 * another vector, SDM Vol. 3A 10.8.5), then resume. */
		if (apic_in_service(vec))
			arch_apic_eoi();
		if (pmu_vector(vec)) {
			__atomic_fetch_add(&g_events.pmu, 1, __ATOMIC_RELAXED);
			return X86_TRAP_IRET;
		}
		g_events.last_vector = vec;
		__atomic_fetch_add(&g_events.irq, 1, __ATOMIC_RELAXED);
		return X86_TRAP_IRET;
	}

	if (cpl != 0 && g_cpl) {
		g_fault_error_code =
		    x86_vector_has_error_code((int)vec) ? (uint32_t)f->error_code : 0;
		x86_ctx_restore(&g_cpl->ctx, (int)(CPL_FAULTED + vec));
	}
	if (g_guard) {
		fill_exception(g_guard->ex, f);
		x86_ctx_restore(&g_guard->ctx, ARCH_GUARD_EXCEPTION);
	}
	bail("unexpected exception outside any guarded run:", f);
	return X86_TRAP_IRET;
}

enum arch_guard_result arch_run_guarded(void (*fn)(void *), void *arg, uint32_t timeout_ms,
					struct arch_exception *ex)
{
	struct guard g;
	uint64_t cr4 = arch_read_cr4();

	arch_irq_disable();
	*ex = (struct arch_exception){0};
	/* The state is saved once, by the runner's run; a step another CPU's test
	 * hands to this one (smp.c) is part of that test, which puts back what
	 * it changes here. */
	bool outermost = g_guard == NULL && !this_cpu()->in_step;
	if (outermost)
		x86_state_save();
	g.prev = g_guard;
	g.cpl_at_entry = g_cpl;
	g.ex = ex;
	g.watchdog = timeout_ms != 0;
	g.restoring = false;
	g_guard = &g;
	int r = x86_ctx_save(&g.ctx);
	if (r == 0) {
		if (timeout_ms) {
			apic_watchdog_arm(timeout_ms);
			nmi_watchdog_arm(timeout_ms, &g.nmi_prev);
		}
		/* Interrupts on while fn runs: the watchdog is an interrupt. */
		arch_irq_enable();
		fn(arg);
		arch_irq_disable();
	}
	/* Here after fn returned or from x86_trap; in both cases interrupts
	 * are off and g is the innermost guard. */
	struct guard *gp = g_guard;
	/* The tables, control registers and APIC first: a PMI left in service
	 * or a raised TPR would block the next test's watchdog. */
	const char *changed = NULL;
	if (gp->restoring) /* a fault while putting it back: never again */
		changed = "(restore faulted)";
	else if (outermost && (gp->restoring = true))
		changed = x86_state_restore();
	apic_watchdog_disarm();
	if (outermost)
		nmi_watchdog_disarm();
	else if (gp->watchdog) /* back to the outer run's CPU and deadline */
		nmi_watchdog_resume(&gp->nmi_prev);
	g_guard = gp->prev;
	g_cpl = gp->cpl_at_entry;
	arch_write_cr4(cr4);
	gp->ex->state_restored = changed;
	if (r != ARCH_GUARD_RETURNED) {
		g_nmi_depth = 0;
		x86_iret_to_self(); /* unblock NMIs if we left an NMI handler */
	}
	return (enum arch_guard_result)r;
}

void x86_set_user_stack(uint64_t top)
{
	g_user_stack_top = top;
}

int arch_call_at_cpl(int cpl, cpl_fn fn, uint64_t arg, uint64_t *result)
{
	struct cpl_call c;

	if (cpl == 0) {
		*result = fn(arg);
		return 0;
	}
	if (cpl < 0 || cpl > 3) {
		x86_puts("# arch_call_at_cpl: no ring ");
		x86_put_hex((uint64_t)cpl);
		x86_puts(", returning #GP\n");
		g_fault_error_code = 0;
		return X86_VEC_GP;
	}
	uint64_t flags = read_rflags();
	arch_irq_disable();
	c.prev = g_cpl;
	g_cpl = &c;
	int r = x86_ctx_save(&c.ctx);
	if (r == 0)
		/* IOPL 0, IF as the caller had it (so the watchdog can still
		 * end a hang), everything else clear. */
		x86_enter_ring(SEL_CODE(cpl) | (unsigned)cpl, SEL_DATA(cpl) | (unsigned)cpl,
			       g_user_stack_top, (flags & RFLAGS_IF) | 0x2, fn, arg);
	struct cpl_call *cp = g_cpl;
	g_cpl = cp->prev;
	if (flags & RFLAGS_IF)
		arch_irq_enable();
	if (r == CPL_RETURNED) {
		*result = cp->result;
		return 0;
	}
	return r - CPL_FAULTED;
}

void arch_selftest_page_fault(void)
{
	(void)*(volatile uint64_t *)PF_HOLE_ADDR;
}

void arch_selftest_invalid_opcode(void)
{
	__asm__ volatile("ud2");
}

/* Deep enough to pass any stack: each frame keeps a page of its own. */
__attribute__((noinline)) static uint64_t recurse(uint64_t depth)
{
	volatile uint8_t frame[4096];
	frame[0] = (uint8_t)depth;
	if (depth > (1ULL << 40)) /* 4 PiB of stack: never */
		return 0;
	return recurse(depth + 1) + frame[0];
}

void arch_selftest_overflow_stack(void)
{
	(void)recurse(0);
}

static void faulting_pmi_handler(void)
{
	__asm__ volatile("ud2");
}

void arch_selftest_fault_in_pmi_handler(void)
{
	arch_set_pmi_handler(faulting_pmi_handler);
	apic_self_ipi(PMI_VECTOR);
	/* Interrupts are on in a guarded run: the PMI arrives here. */
	for (uint32_t i = 0; i < 100000000; i++)
		cpu_relax();
}

void arch_selftest_corrupt_machine_state(void)
{
	static const struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} empty = {0, 0};
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} idtr;

	arch_irq_disable(); /* no interrupt may meet the empty IDT */
	__asm__ volatile("sidt %0" : "=m"(idtr));
	((volatile uint64_t *)idtr.base)[2 * X86_VEC_UD] = 0; /* the #UD gate */
	__asm__ volatile("mov %0, %%cr8" : : "r"(15ULL) : "memory");
	__asm__ volatile("lidt %0" : : "m"(empty) : "memory");
	__asm__ volatile("lgdt %0" : : "m"(empty) : "memory");
}

bool arch_watchdog_stops_any_hang(void)
{
	return nmi_watchdog_available();
}

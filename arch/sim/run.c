/* SPDX-License-Identifier: MIT */
/*
 * Exceptions, privilege and the watchdog in a Linux process.
 *
 * The *_safe probes return vectors. Everything else that faults (an
 * unchecked rdmsr()/wrmsr(), a CR4 access at CPL > 0, the self-test faults)
 * calls sim_raise(), which unwinds with siglongjmp to the innermost frame:
 * arch_call_at_cpl() (it returns the vector) or arch_run_guarded() (it
 * reports the exception). The watchdog is SIGALRM from setitimer; its
 * handler unwinds to the innermost arch_run_guarded(), so even an endless C
 * loop in a test is abandoned.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "sim.h"

struct frame {
	sigjmp_buf env;
	bool guarded;
	struct frame *prev;
};

static struct frame *volatile top;
static struct arch_exception last_ex;

void sim_raise(int vector, uint32_t error_code, uint64_t rip, uint64_t cr2)
{
	last_ex.vector = vector;
	last_ex.error_code = error_code;
	last_ex.has_error_code = x86_vector_has_error_code(vector);
	last_ex.rip = rip;
	last_ex.cr2 = cr2;
	last_ex.cpl = g_sim.cpl;
	g_sim.fault_error_code = error_code;
	if (!top) {
		char msg[160];
		int n = snprintf(
		    msg, sizeof(msg),
		    "# pmusim: unexpected exception %s (vector %d) at %#llx outside any test\n",
		    x86_vector_name(vector), vector, (unsigned long long)rip);
		arch_console_write(msg, (size_t)n);
		arch_exit(RUN_ERROR);
	}
	siglongjmp(((struct frame *)top)->env, ARCH_GUARD_EXCEPTION);
}

static void on_alarm(int sig)
{
	(void)sig;
	struct frame *f = top;
	while (f && !f->guarded)
		f = f->prev;
	if (f)
		siglongjmp(f->env, ARCH_GUARD_TIMEOUT);
}

/* --watchdog-divisor N: every watchdog fires after 1/N of its time (at
 * least 20 ms). The simulator's time is not the machine's (its TSC counts
 * modelled cycles), and a bulk run of the harness's own hang self-tests
 * (testing/check-expectations.py: the self-test model with every quirk)
 * otherwise spends a real half second in each endless loop; the report
 * still names the test's own bound. */
unsigned g_sim_watchdog_divisor = 1;

static void arm(uint32_t ms)
{
	struct itimerval it;
	if (g_sim_watchdog_divisor > 1) {
		ms /= g_sim_watchdog_divisor;
		ms = ms < 20 ? 20 : ms;
	}
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

enum arch_guard_result arch_run_guarded(void (*fn)(void *), void *arg, uint32_t timeout_ms,
					struct arch_exception *ex)
{
	static bool installed;
	struct frame f;
	uint64_t cr4 = g_sim.cr4;
	int rc;

	if (ex)
		memset(ex, 0, sizeof(*ex));
	g_sim_state_changed = NULL;
	/* A run inside another (a step a test hands to another CPU, smp.c) is
	 * part of that test: the undo and the trace belong to the outer run. */
	volatile bool outermost = true;
	for (struct frame *x = top; x; x = x->prev)
		outermost = outermost && !x->guarded;
	if (outermost) {
		sim_msr_trace_test_start();
		sim_msr_undo_begin();
	}
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		installed = true;
	}
	/* The enclosing run's watchdog (a guarded run on another CPU inside a
	 * test, smp.c) is put back afterwards, with the time it had left. */
	struct itimerval outer;
	getitimer(ITIMER_REAL, &outer);
	f.guarded = true;
	f.prev = top;
	rc = sigsetjmp(f.env, 1);
	if (rc == ARCH_GUARD_RETURNED) {
		top = &f;
		arm(timeout_ms ? timeout_ms : 10000);
		if (outermost)
			sim_platform_test_start(); /* what strikes the test (platform.c) */
		fn(arg);
	}
	setitimer(ITIMER_REAL, &outer, NULL);
	top = f.prev;
	if (rc == ARCH_GUARD_EXCEPTION && ex)
		*ex = last_ex;
	if (rc == ARCH_GUARD_TIMEOUT && ex) {
		memset(ex, 0, sizeof(*ex));
		ex->vector = ARCH_TIMEOUT;
		ex->cpl = g_sim.cpl;
	}
	/* Whatever happened: CPL 0, interrupts off, CR4 as on entry, no
	 * interrupt left in service, NMIs unblocked (the machine's recovery
	 * ends with an IRET, arch/x86_64/trap.c). */
	g_sim.cpl = 0;
	g_sim.irq_enabled = false;
	g_sim.cr4 = cr4;
	g_sim.apic.isr = false;
	g_sim.apic.nmi_blocked = false;
	if (outermost)
		sim_msr_undo_end();
	/* What the machine's arch_run_guarded puts back and reports (x86_64/
	 * state.c): the simulated CPU has no tables, only the record of the
	 * self-test that changed them. */
	if (ex)
		ex->state_restored = g_sim_state_changed;
	g_sim_state_changed = NULL;
	return (enum arch_guard_result)rc;
}

int arch_call_at_cpl(int cpl, cpl_fn fn, uint64_t arg, uint64_t *result)
{
	struct frame f;
	int saved = g_sim.cpl;
	uint64_t r;

	if (cpl < 0 || cpl > 3)
		return X86_VEC_GP;
	if (cpl == 0) {
		r = fn(arg);
		if (result)
			*result = r;
		return 0;
	}
	f.guarded = false;
	f.prev = top;
	if (sigsetjmp(f.env, 1) == 0) {
		top = &f;
		g_sim.user_entries++;
		g_sim.cpl = cpl;
		r = fn(arg);
		top = f.prev;
		g_sim.cpl = saved;
		if (result)
			*result = r;
		return 0;
	}
	top = f.prev;
	g_sim.cpl = saved;
	return last_ex.vector;
}

void arch_selftest_page_fault(void)
{
	/* A read of an unmapped page at CPL 0: #PF, error code 0 (not present,
	 * read, supervisor), CR2 = the address. */
	sim_raise(X86_VEC_PF, 0, (uint64_t)__builtin_return_address(0), 0xFFFFDEAD00000000ULL);
}

const char *g_sim_state_changed;

/* SIGALRM ends any hang of the process, simulated RFLAGS.IF or not. */
bool arch_watchdog_stops_any_hang(void)
{
	return true;
}

/* arch/sim/smp.c refuses a profile of more CPUs than it models. */
unsigned arch_cpus_left_out(uint32_t *ids, unsigned max)
{
	(void)ids;
	(void)max;
	return 0;
}

void arch_selftest_overflow_stack(void)
{
	/* The machine's #PF in the stack's guard page: a write, not present. */
	sim_raise(X86_VEC_PF, 2, (uint64_t)__builtin_return_address(0), 0xFFFFBEEF00000FF8ULL);
}

void arch_selftest_fault_in_pmi_handler(void)
{
	g_sim.apic.isr = true; /* the PMI in service when its handler faults */
	sim_raise(X86_VEC_UD, 0, (uint64_t)__builtin_return_address(0), 0);
}

void arch_selftest_corrupt_machine_state(void)
{
	g_sim_state_changed = "IDTR, IDT contents, GDTR, CR8, local APIC TPR";
}

void arch_selftest_invalid_opcode(void)
{
	sim_raise(X86_VEC_UD, 0, (uint64_t)__builtin_return_address(0), 0);
}

void arch_console_write(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void arch_exit(enum run_status status)
{
	_exit(status == RUN_PASS   ? SIM_EXIT_PASS
	      : status == RUN_FAIL ? SIM_EXIT_FAIL
				   : SIM_EXIT_ERROR);
}

bool arch_save_report(const char *name, const char *data, size_t len)
{
	(void)name;
	(void)data;
	(void)len;
	return false; /* the simulator's report is its stdout */
}

const char *arch_save_report_error(void)
{
	return "the simulator keeps no report: it is its standard output";
}

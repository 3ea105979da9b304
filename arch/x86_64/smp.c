/* SPDX-License-Identifier: MIT */
/*
 * Every CPU of the machine: the application processors (APs) the ACPI MADT
 * lists are started with INIT-SIPI-SIPI, given their own descriptor tables,
 * stacks and local APIC, and parked; arch_run_on_cpu() hands one of them a
 * function and waits for it.
 *
 * Start-up (SDM Vol. 3A 9.4.4.1 "Typical BSP Initialization Sequence" and
 * 10.6.1 "Interrupt Command Register"; 8.4.4.1 / 10.6.1 in older editions):
 * for one AP at a time, an INIT IPI, 10 ms, a Start-Up IPI whose vector is
 * the trampoline page number, 200 us, a second SIPI if the AP has not
 * reported yet, then a bounded wait (AP_START_MS) for it to report in. One
 * at a time because they share the trampoline's parameter block (stack,
 * argument). An AP that does not report is sent INIT again (so that a late
 * start cannot run on the next AP's parameters) and is CPU_NO_ANSWER.
 *
 * Work: the caller posts (fn, arg, timeout) in the AP's per-CPU block, wakes
 * it with a fixed IPI (WAKE_VECTOR; a parked AP sleeps in HLT with
 * interrupts on), and waits until the AP publishes the result or the
 * deadline passes: the runner's caller, outside any guarded run, sleeps in
 * HLT until the AP's WAKE_VECTOR IPI says it is done (its local APIC timer,
 * free outside a guarded run, ends the sleep at the deadline), so that a
 * hypervisor gives the host CPU to the vCPU that works (the
 * second vCPU of a 2-CPU run took 2.5x the first's time while the first
 * spun); a test's step, posted from inside a guarded run, spins with
 * interrupts off (its own watchdog owns the timer). The AP runs fn under its own
 * arch_run_guarded(): its own recovery chain (trap.c keeps one per CPU) and
 * its own local APIC timer as the watchdog. A deadline that passes means the
 * AP is beyond its own watchdog (interrupts off, a triple fault...): it gets
 * an INIT, which stops whatever it does, and is CPU_LOST.
 */
#include "x86.h"

#define AP_STACK_SIZE	   (64 * 1024)
#define AP_TRAP_STACK_SIZE (16 * 1024)
#define AP_IST_STACK_SIZE  (8 * 1024)
#define AP_START_MS	   1000 /* a CPU that has not reported by then never will */
#define AP_GRACE_MS	   2000 /* beyond a job's own watchdog */

static struct x86_percpu cpus[ARCH_MAX_CPUS];
static unsigned n_cpus, boot_cpu;
/* CPUs beyond ARCH_MAX_CPUS (the MADT's, and the one the boot CPU took the
 * last place from when the MADT listed it beyond the limit). */
static const struct x86_handoff *g_h;
static uint32_t evicted_id, evicted;
static uint64_t trampoline;
/* Control registers the APs copy from the boot CPU. */
static uint64_t boot_cr0, boot_cr4, boot_efer, boot_pat;

unsigned arch_cpu_count(void)
{
	return n_cpus;
}

unsigned arch_cpu_boot(void)
{
	return boot_cpu;
}

struct x86_percpu *x86_cpu(unsigned i)
{
	return &cpus[i];
}

unsigned arch_cpu_current(void)
{
	return this_cpu()->index;
}

unsigned arch_cpus_left_out(uint32_t *ids, unsigned max)
{
	unsigned n = 0, count = g_h->cpus_beyond_max + evicted;
	unsigned known =
	    g_h->cpus_beyond_max < HANDOFF_MAX_CPUS ? g_h->cpus_beyond_max : HANDOFF_MAX_CPUS;

	for (unsigned i = 0; i < known; i++) {
		if (g_h->beyond_ids[i] == cpus[boot_cpu].apic_id)
			count--; /* the boot CPU took a place (smp_init_boot_cpu) */
		else if (n < max)
			ids[n++] = g_h->beyond_ids[i];
	}
	if (evicted && n < max)
		ids[n++] = evicted_id;
	return count;
}

uint32_t arch_cpu_apic_id(unsigned cpu)
{
	return cpu < n_cpus ? cpus[cpu].apic_id : 0;
}

enum cpu_state arch_cpu_state(unsigned cpu)
{
	return cpu < n_cpus ? cpus[cpu].state : CPU_NOT_STARTED;
}

/* This CPU's APIC ID before its local APIC is set up: CPUID.0BH:EDX (the
 * x2APIC ID) where leaf 0BH exists, else CPUID.01H:EBX[31:24]. */
static uint32_t own_apic_id(void)
{
	struct cpuid_regs r;

	arch_cpuid(0, 0, &r);
	if (r.eax >= 0xB) {
		arch_cpuid(0xB, 0, &r);
		if (r.ebx != 0)
			return r.edx;
	}
	arch_cpuid(1, 0, &r);
	return r.ebx >> 24;
}

/* First thing on each CPU: everything else (wrmsr's undo log, trap.c's
 * chains) finds its state through the GS base. A raw WRMSR: wrmsr() itself
 * needs this_cpu(). */
static void set_this_cpu(struct x86_percpu *c)
{
	uint64_t v = (uint64_t)c;

	c->self = c;
	__asm__ volatile("wrmsr"
			 :
			 : "c"(MSR_IA32_GS_BASE), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

void smp_init_boot_cpu(const struct x86_handoff *h, struct cpu_tables *t)
{
	uint32_t me = own_apic_id();

	g_h = h;

	n_cpus = h->cpu_count < ARCH_MAX_CPUS ? h->cpu_count : ARCH_MAX_CPUS;
	boot_cpu = ARCH_NO_CPU;
	for (unsigned i = 0; i < n_cpus; i++) {
		cpus[i].index = i;
		cpus[i].apic_id = h->apic_ids[i];
		cpus[i].state = CPU_NOT_STARTED;
		if (h->apic_ids[i] == me)
			boot_cpu = i;
	}
	if (boot_cpu == ARCH_NO_CPU) {
		/* No MADT, or one without us: we are the one CPU we know of. */
		if (n_cpus == ARCH_MAX_CPUS) {
			evicted_id = cpus[--n_cpus].apic_id;
			evicted = 1;
		}
		boot_cpu = n_cpus++;
		cpus[boot_cpu].index = boot_cpu;
		cpus[boot_cpu].apic_id = me;
	}
	cpus[boot_cpu].state = CPU_ONLINE;
	cpus[boot_cpu].alive = 1;
	cpus[boot_cpu].tables = t;
	cpus[boot_cpu].saved_state = x86_state_alloc();
	trampoline = h->trampoline_phys;
	set_this_cpu(&cpus[boot_cpu]);
}

/* Busy-wait: the TSC when its rate is known, else a generous guess. */
static void delay_us(uint64_t us)
{
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 4000000000ULL;
	uint64_t t0 = arch_rdtsc(), ticks = hz / 1000000 * us;

	while (arch_rdtsc() - t0 < ticks)
		cpu_relax();
}

static uint32_t icr_low(unsigned mode, unsigned vector)
{
	return (uint32_t)(FIELD_PREP_ULL(APIC_ICR_DELIVERY_MODE, mode) | APIC_ICR_LEVEL_ASSERT |
			  vector);
}

#define NO_WAITER 0xFFFFFFFFu

/* wait_flag, asleep: HLT with interrupts on between checks, woken by the
 * AP's WAKE_VECTOR IPI (trap.c: EOI, nothing else) or by the local APIC
 * timer armed for the deadline, a second at most (trap.c: a tick outside a
 * guarded run is only EOI'd). Returns with interrupts off. */
static bool sleep_on_flag(volatile uint32_t *flag, uint32_t want, uint64_t ms)
{
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 4000000000ULL;
	uint64_t t0 = arch_rdtsc(), ticks = hz / 1000 * ms;
	bool done;

	for (;;) {
		arch_irq_disable();
		done = __atomic_load_n(flag, __ATOMIC_ACQUIRE) == want;
		uint64_t spent = arch_rdtsc() - t0;
		if (done || spent > ticks)
			break;
		/* At most a second ahead: the timer's count has 32 bits. */
		uint64_t left_ms = (ticks - spent) / (hz / 1000) + 1;
		apic_watchdog_arm(left_ms < 1000 ? (uint32_t)left_ms : 1000);
		/* STI's shadow: an IPI pending since the check wakes the HLT. */
		__asm__ volatile("sti; hlt" : : : "memory");
	}
	apic_watchdog_disarm();
	return done;
}

static bool wait_flag(volatile uint32_t *flag, uint32_t want, uint64_t ms)
{
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 4000000000ULL;
	uint64_t t0 = arch_rdtsc(), ticks = hz / 1000 * ms;

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
		if (arch_rdtsc() - t0 > ticks)
			return false;
		cpu_relax();
	}
	return true;
}

/* A parked AP: sleeps until woken, runs what it was given, publishes. */
__attribute__((noreturn)) static void park(struct x86_percpu *c)
{
	for (;;) {
		arch_irq_disable();
		uint32_t seq = __atomic_load_n(&c->job_seq, __ATOMIC_ACQUIRE);
		if (seq != c->done_seq) {
			c->in_step = c->job_is_step;
			c->job_rc =
			    arch_run_guarded(c->job_fn, c->job_arg, c->job_timeout_ms, &c->job_ex);
			c->in_step = false;
			uint32_t waiter = c->job_waiter;
			__atomic_store_n(&c->done_seq, seq, __ATOMIC_RELEASE);
			if (waiter != NO_WAITER)
				apic_send_ipi(waiter, icr_low(APIC_DM_FIXED, WAKE_VECTOR));
			continue;
		}
		/* STI's one-instruction shadow: no wake-up is lost between the
		 * check above and the HLT. */
		__asm__ volatile("sti; hlt" : : : "memory");
	}
}

/* The AP's C entry, on its own stack (trampoline.asm). */
static void ap_main(void *arg)
{
	struct x86_percpu *c = arg;

	set_this_cpu(c);
	__asm__ volatile("mov %0, %%cr0" : : "r"(boot_cr0) : "memory");
	arch_write_cr4(boot_cr4);
	wrmsr(MSR_IA32_PAT, boot_pat);
	cpu_init_descriptors(c->tables, c->trap_stack, c->ist);
	apic_cpu_init();
	__atomic_store_n(&c->alive, 1, __ATOMIC_RELEASE);
	park(c);
}

static void prepare_trampoline(void)
{
	uint8_t *page = (uint8_t *)trampoline;
	const uint8_t *code = (const uint8_t *)x86_trampoline_start;
	size_t len = (size_t)(x86_trampoline_end - x86_trampoline_start);
	struct ap_boot *b = (struct ap_boot *)(page + AP_BOOT_OFFSET);
	uint64_t *pml4_copy = (uint64_t *)(page + 4096);
	const uint64_t *pml4 = (const uint64_t *)(read_cr3() & GENMASK_ULL(51, 12));

	if (len > AP_BOOT_OFFSET)
		x86_panic("AP trampoline larger than its page", len, AP_BOOT_OFFSET);
	for (size_t i = 0; i < len; i++)
		page[i] = code[i];
	for (int i = 0; i < 512; i++)
		pml4_copy[i] = pml4[i];

	__asm__ volatile("mov %%cr0, %0" : "=r"(boot_cr0));
	boot_cr4 = arch_read_cr4();
	boot_efer = rdmsr(MSR_IA32_EFER);
	boot_pat = rdmsr(MSR_IA32_PAT);

	/* Flat 4 GiB code and data for the 32-bit step, then 64-bit code. */
	b->gdt[0] = 0;
	b->gdt[1] = 0x00CF9A000000FFFFULL;
	b->gdt[2] = 0x00CF92000000FFFFULL;
	b->gdt[3] = 0x00AF9A000000FFFFULL;
	b->gdtr_limit = sizeof(b->gdt) - 1;
	b->gdtr_base = (uint32_t)(trampoline + AP_BOOT_OFFSET + offsetof(struct ap_boot, gdt));
	b->pm_entry =
	    (uint32_t)(trampoline + (uint64_t)(x86_trampoline_pm32 - x86_trampoline_start));
	b->pm_selector = 0x08;
	b->cr3_low = (uint32_t)(uint64_t)pml4_copy;
	b->cr4 = BIT_ULL(5); /* PAE: all that long mode needs; ap_main sets the rest */
	b->efer = (boot_efer & ~BIT_ULL(10)) | BIT_ULL(8); /* LMA is the CPU's; LME */
	b->cr3 = read_cr3();
	b->entry = (uint64_t)ap_main;
}

static void start_one(struct x86_percpu *c, bool silent)
{
	struct ap_boot *b = (struct ap_boot *)(trampoline + AP_BOOT_OFFSET);
	unsigned page = (unsigned)(trampoline >> 12);

	if (!arch_apic_is_x2apic() && c->apic_id > 0xFF) {
		c->state = CPU_NOT_ADDRESSABLE;
		return;
	}
	c->tables = cpu_tables_alloc();
	/* An unmapped guard page below the stack: an overflow is a #PF (on its
	 * own IST stack), as on the boot CPU. */
	uint64_t stack = (uint64_t)pool_alloc_stack(AP_STACK_SIZE + 4096);
	paging_unmap_guard(stack);
	c->stack_top = stack + 4096 + AP_STACK_SIZE;
	c->trap_stack = (uint64_t)pool_alloc_stack(AP_TRAP_STACK_SIZE) + AP_TRAP_STACK_SIZE;
	for (int i = 0; i < CPU_IST_STACKS; i++)
		c->ist[i] = (uint64_t)pool_alloc_stack(AP_IST_STACK_SIZE) + AP_IST_STACK_SIZE;
	c->saved_state = x86_state_alloc();
	b->stack = c->stack_top;
	b->arg = (uint64_t)c;
	__atomic_store_n(&c->alive, 0, __ATOMIC_RELEASE);

	apic_send_ipi(c->apic_id, icr_low(APIC_DM_INIT, 0));
	delay_us(10000);
	if (!silent) {
		for (int sipi = 0; sipi < 2 && !c->alive; sipi++) {
			apic_send_ipi(c->apic_id, icr_low(APIC_DM_SIPI, page));
			delay_us(200);
		}
	}
	if (wait_flag(&c->alive, 1, AP_START_MS)) {
		c->state = CPU_ONLINE;
		return;
	}
	/* Back to wait-for-SIPI: a late start must not use the next CPU's
	 * stack. */
	apic_send_ipi(c->apic_id, icr_low(APIC_DM_INIT, 0));
	c->state = CPU_NO_ANSWER;
}

unsigned arch_cpus_start(unsigned silent_cpu)
{
	unsigned online = 1;

	if (trampoline)
		prepare_trampoline();
	for (unsigned i = 0; i < n_cpus; i++) {
		if (i == boot_cpu)
			continue;
		if (!trampoline) {
			cpus[i].state = CPU_NO_TRAMPOLINE;
			continue;
		}
		start_one(&cpus[i], i == silent_cpu);
		online += cpus[i].state == CPU_ONLINE;
	}
	return online;
}

enum arch_guard_result arch_run_on_cpu(unsigned cpu, void (*fn)(void *), void *arg,
				       uint32_t timeout_ms, struct arch_exception *ex)
{
	if (cpu == this_cpu()->index)
		return arch_run_guarded(fn, arg, timeout_ms, ex);
	*ex = (struct arch_exception){0};
	if (cpu >= n_cpus || cpus[cpu].state != CPU_ONLINE)
		return ARCH_RUN_CPU_OFFLINE;

	struct x86_percpu *c = &cpus[cpu];
	uint64_t flags = read_rflags();
	uint64_t limit = timeout_ms ? timeout_ms + timeout_ms / 2 + AP_GRACE_MS : 600000;
	enum arch_guard_result rc;

	arch_irq_disable();
	c->job_fn = fn;
	c->job_arg = arg;
	c->job_timeout_ms = timeout_ms;
	c->job_is_step = this_cpu()->guard != NULL;
	c->job_waiter = c->job_is_step ? NO_WAITER : this_cpu()->apic_id;
	uint32_t seq = c->job_seq + 1;
	__atomic_store_n(&c->job_seq, seq, __ATOMIC_RELEASE);
	apic_send_ipi(c->apic_id, icr_low(APIC_DM_FIXED, WAKE_VECTOR));
	if (c->job_is_step ? wait_flag(&c->done_seq, seq, limit)
			   : sleep_on_flag(&c->done_seq, seq, limit)) {
		*ex = c->job_ex;
		rc = c->job_rc;
	} else {
		apic_send_ipi(c->apic_id, icr_low(APIC_DM_INIT, 0));
		c->state = CPU_LOST;
		ex->vector = ARCH_TIMEOUT;
		rc = ARCH_RUN_CPU_LOST;
	}
	if (flags & RFLAGS_IF)
		arch_irq_enable();
	return rc;
}

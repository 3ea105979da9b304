/* SPDX-License-Identifier: MIT */
/*
 * From the loader to kernel_main: build the environment (descriptors,
 * paging, APIC, consoles) on our own stacks, then identification, console
 * output, the report store and the exit.
 */
#include "x86.h"

#include "kstring.h"
#include "ktap.h"

#define KSTACK_SIZE	(64 * 1024)
#define TRAP_STACK_SIZE (32 * 1024)
#define IST_STACK_SIZE	(16 * 1024)
#define USER_STACK_SIZE (16 * 1024)

static struct x86_handoff *g_handoff;
static bool g_hypervisor;
static char g_platform[384];

void arch_console_write(const char *s, size_t n)
{
	serial_write(s, n);
	fbcon_write(s, n);
}

void x86_puts(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	arch_console_write(s, n);
}

void x86_put_hex(uint64_t v)
{
	char b[19] = "0x";
	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xF];
	b[18] = 0;
	x86_puts(b);
}

void x86_panic(const char *msg, uint64_t a, uint64_t b)
{
	fbcon_log_mode(); /* the message on the screen too */
	x86_puts("\nBail out! pmutest arch: ");
	x86_puts(msg);
	x86_puts(" ");
	x86_put_hex(a);
	x86_puts(" ");
	x86_put_hex(b);
	x86_puts("\n");
	arch_exit(RUN_ERROR);
}

const char *arch_name(void)
{
	return "x86_64";
}

static size_t append(char *d, size_t at, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] && at + 1 < sizeof(g_platform); i++)
		d[at++] = s[i];
	d[at] = 0;
	return at;
}

/* "QEMU TCG", "KVM", another hypervisor's signature, or bare metal; then
 * the CPU's brand string. */
static void describe_platform(void)
{
	struct cpuid_regs r;
	char sig[13] = {0};
	size_t n = 0;

	arch_cpuid(1, 0, &r);
	g_hypervisor = r.ecx & BIT_ULL(31);
	if (g_hypervisor) {
		arch_cpuid(0x40000000, 0, &r);
		for (int i = 0; i < 4; i++) {
			sig[i] = (char)(r.ebx >> (8 * i));
			sig[4 + i] = (char)(r.ecx >> (8 * i));
			sig[8 + i] = (char)(r.edx >> (8 * i));
		}
		const char *name = sig;
		if (!__builtin_memcmp(sig, "TCGTCGTCGTCG", 12))
			name = "QEMU TCG";
		else if (!__builtin_memcmp(sig, "KVMKVMKVM", 9))
			name = "KVM";
		else if (!__builtin_memcmp(sig, "Microsoft Hv", 12))
			name = "Hyper-V";
		else if (!__builtin_memcmp(sig, "VMwareVMware", 12))
			name = "VMware";
		else if (!__builtin_memcmp(sig, "XenVMMXenVMM", 12))
			name = "Xen";
		n = append(g_platform, n, name, 12);
	} else {
		n = append(g_platform, n, "bare metal", 32);
	}
	arch_cpuid(0x80000000, 0, &r);
	if (r.eax >= 0x80000004) {
		char brand[49];
		for (uint32_t l = 0; l < 3; l++) {
			arch_cpuid(0x80000002 + l, 0, &r);
			uint32_t w[4] = {r.eax, r.ebx, r.ecx, r.edx};
			for (int i = 0; i < 16; i++)
				brand[16 * l + i] = (char)(w[i / 4] >> (8 * (i % 4)));
		}
		brand[48] = 0;
		const char *b = brand;
		while (*b == ' ')
			b++;
		if (*b) { /* a VMM may give no brand string */
			n = append(g_platform, n, ", ", 2);
			n = append(g_platform, n, b, 48);
		}
	}
}

/* The watchdog's clock, so that a report says what its timeouts rest on;
 * the NMI watchdog; the CPUs left out (docs/platform.md). */
static size_t g_platform_len;
static void describe_timer(void)
{
	size_t n = kstrlen(g_platform);
	uint32_t none;

	n += (size_t)ksnprintf(g_platform + n, sizeof(g_platform) - n,
			       "; APIC timer %llu MHz, TSC %llu MHz by %s; NMI watchdog: %s",
			       (unsigned long long)apic_timer_hz() / 1000000,
			       (unsigned long long)arch_tsc_hz() / 1000000,
			       apic_calibration_source(), nmi_watchdog_status());
	unsigned left = arch_cpus_left_out(&none, 0);
	if (left && n < sizeof(g_platform))
		n += (size_t)ksnprintf(g_platform + n, sizeof(g_platform) - n,
				       "; %u CPUs left out (beyond %u)", left, ARCH_MAX_CPUS);
	g_platform_len = n < sizeof(g_platform) ? n : sizeof(g_platform) - 1;
}

/* With the platform events so far (the screen's summary shows this). */
const char *arch_platform(void)
{
	struct arch_platform_events e;

	arch_platform_events(ARCH_ALL_CPUS, &e);
	g_platform[g_platform_len] = 0;
	if (e.nmi || e.irq || e.mce)
		ksnprintf(g_platform + g_platform_len, sizeof(g_platform) - g_platform_len,
			  "; platform events: %u NMI, %u IRQ, %u #MC", e.nmi, e.irq, e.mce);
	return g_platform;
}

bool arch_save_report(const char *name, const char *data, size_t len)
{
	return g_handoff->store_report && g_handoff->store_report(name, data, len);
}

const char *arch_save_report_error(void)
{
	const char *e = g_handoff->store_error;
	return e && e[0] ? e : NULL;
}

/*
 * Ending the run, in order (the KTAP "# verdict:" line, printed before, is
 * the authority; the host reads it, not how the machine ended):
 *  1. QEMU's isa-debug-exit, only under a hypervisor (on bare metal port
 *     F4H may belong to something else);
 *  2. with a screen, nothing more: the summary stays up, paged, until the
 *     user powers off (a stick on a real machine);
 *  3. without one, ACPI S5 (Cloud Hypervisor, QEMU microvm: the sleep
 *     control register; pc/q35: PM1a_CNT);
 *  4. then, under a hypervisor only, the i8042 reset: Firecracker's one
 *     guest-initiated exit, a reboot elsewhere (never first: on bare metal
 *     it would run the stick again), and never where it restarts the VM
 *     (Cloud Hypervisor: poweroff.reset_reboots), which would rerun the
 *     suite forever;
 *  5. halt.
 */
void arch_exit(enum run_status status)
{
	const char *v = status == RUN_PASS ? "PASS" : status == RUN_FAIL ? "FAIL" : "ERROR";

	arch_irq_disable();
	if (g_hypervisor)
		outl(DEBUG_EXIT_PORT, DEBUG_EXIT_BASE + (uint32_t)status);
	x86_puts("\n# pmutest: ");
	x86_puts(v);
	if (!g_handoff->bi.fb.base) {
		x86_puts(". Switching off (ACPI S5).\n");
		x86_acpi_power_off(&g_handoff->poweroff);
		if (g_hypervisor && g_handoff->poweroff.reset_reboots) {
			x86_puts("# pmutest: still on; no i8042 reset: it restarts this VMM\n");
		} else if (g_hypervisor) {
			x86_puts("# pmutest: still on: the i8042 reset.\n");
			x86_i8042_reset();
		}
		x86_puts("# pmutest: still on");
	}
	x86_puts(". The machine is halted; power it off.\n");
	kernel_halted(status);
}

/* A CPU without a local APIC (CPUID.01H:EDX[9] clear; SDM Vol. 3A 10.4.2):
 * no timer for the watchdog every test runs under, no PMI, no other CPU.
 * No test can run safely, and "xAPIC mode" would be untrue: a report of
 * its own, verdict ERROR, before anything touches the APIC. */
static void require_local_apic(void)
{
	struct cpuid_regs r;

	arch_cpuid(1, 0, &r);
	if (r.edx & BIT_ULL(9))
		return;
	x86_puts("\nKTAP version 1\n1..0\n# local APIC: none (CPUID.01H:EDX[9] clear)\n"
		 "# error: no local APIC: no timer watchdog, no PMI, no other CPU; no test can "
		 "run safely\n# verdict: ERROR\n");
	arch_exit(RUN_ERROR);
}

static void enter_kernel(void *arg)
{
	struct x86_handoff *h = arg;
	kernel_main(&h->bi);
}

void x86_start(struct x86_handoff *h)
{
	arch_irq_disable();
	g_handoff = h;
	serial_init();
	describe_platform();
	paging_pool_init(h);

	/* Stacks: the kernel's (with an unmapped guard page below it), the
	 * trap stack for entries from CPL > 0, IST stacks for #DF, NMI and #MC,
	 * and the one user stack the outer rings run on. */
	uint64_t kstack = (uint64_t)pool_alloc_stack(KSTACK_SIZE + 4096);
	uint64_t trap = (uint64_t)pool_alloc_stack(TRAP_STACK_SIZE) + TRAP_STACK_SIZE;
	uint64_t ist[CPU_IST_STACKS];
	for (int i = 0; i < CPU_IST_STACKS; i++)
		ist[i] = (uint64_t)pool_alloc_stack(IST_STACK_SIZE) + IST_STACK_SIZE;
	uint64_t ustack = (uint64_t)pool_alloc_stack(USER_STACK_SIZE);

	struct cpu_tables *tables = cpu_tables_alloc();
	cpu_init_descriptors(tables, trap, ist);
	smp_init_boot_cpu(h, tables);
	paging_init(h, kstack);
	paging_map_user(ustack, USER_STACK_SIZE, true);
	x86_set_user_stack(ustack + USER_STACK_SIZE);
	fbcon_init(&h->bi.fb);
	require_local_apic();
	apic_init(h->bi.lapic_phys, &h->pm_timer);
	nmi_watchdog_init(h, apic_self_id());
	describe_timer();

	x86_switch_stack(kstack + 4096 + KSTACK_SIZE, enter_kernel, h);
}

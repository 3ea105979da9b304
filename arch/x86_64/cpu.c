/* SPDX-License-Identifier: MIT */
/*
 * Descriptor tables: our own GDT (rings 0..3), the 64-bit TSS and the IDT.
 * SDM Vol. 3A 3.4.5 (segment descriptors), 7.7 (64-bit TSS), 6.14.1 (64-bit
 * IDT gates).
 */
#include "x86.h"

#include "trace.h"

/* Code: L=1, D=0, P=1, S=1, type execute/read. Data: P=1, S=1, type
 * read/write, G=1, limit ignored in 64-bit mode. DPL in bits 46:45. */
#define DESC_CODE64(dpl) (0x00AF9A000000FFFFULL | ((uint64_t)(dpl) << 45))
#define DESC_DATA(dpl)	 (0x00CF92000000FFFFULL | ((uint64_t)(dpl) << 45))

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct __attribute__((packed)) idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr; /* P | DPL | 0 | type (0xE = 64-bit interrupt gate) */
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
};

struct __attribute__((packed)) table_ptr {
	uint16_t limit;
	uint64_t base;
};

/* IST slots (1-based in the gate): their own stacks, so that a fault with a
 * broken stack, an NMI and a machine check always have one. */
#define IST_DF	1
#define IST_NMI 2
#define IST_MC	3
/* #PF too: a test that overflows its stack faults in the guard page below
 * it, and the CPU could not push the #PF frame on that stack (it would be a
 * #DF and the end of the run). On its own stack the #PF is a reported fault
 * of that test: arch_run_guarded's context is above the overflow. */
#define IST_PF 4

/* Per CPU: the TSS holds the CPU's own stacks, and its descriptor's busy
 * bit is set by LTR, so each CPU has its own GDT too. */
struct cpu_tables {
	uint64_t gdt[11];
	struct tss64 tss;
};

static struct idt_gate idt[256] __attribute__((aligned(16)));
static bool idt_built;

struct cpu_tables *cpu_tables_alloc(void)
{
	return pool_alloc(sizeof(struct cpu_tables), 16);
}

static void set_gate(int vec, uint64_t handler, int ist, int dpl)
{
	struct idt_gate *g = &idt[vec];
	g->offset_lo = (uint16_t)handler;
	g->selector = SEL_KCODE;
	g->ist = (uint8_t)ist;
	g->type_attr = (uint8_t)(0x80 | (dpl << 5) | 0xE);
	g->offset_mid = (uint16_t)(handler >> 16);
	g->offset_hi = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

static void build_idt(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, x86_vector_stubs[v], 0, 0);
	set_gate(X86_VEC_DF, x86_vector_stubs[X86_VEC_DF], IST_DF, 0);
	set_gate(X86_VEC_NMI, x86_vector_stubs[X86_VEC_NMI], IST_NMI, 0);
	set_gate(X86_VEC_MC, x86_vector_stubs[X86_VEC_MC], IST_MC, 0);
	set_gate(X86_VEC_PF, x86_vector_stubs[X86_VEC_PF], IST_PF, 0);
	idt_built = true;
}

void cpu_init_descriptors(struct cpu_tables *t, uint64_t trap_stack,
			  const uint64_t ist[CPU_IST_STACKS])
{
	uint64_t *gdt = t->gdt;
	struct tss64 *tss = &t->tss;

	gdt[0] = 0;
	for (int cpl = 0; cpl < 4; cpl++) {
		gdt[SEL_CODE(cpl) / 8] = DESC_CODE64(cpl);
		gdt[SEL_DATA(cpl) / 8] = DESC_DATA(cpl);
	}
	/* Interrupts and exceptions from CPL 1..3 arrive on RSP0: the trap
	 * stack, never the stack the kernel was running on. RSP1/RSP2 would
	 * serve gates into rings 1/2, which this kernel has none of; they are
	 * set anyway so that no transfer can ever use a zero stack. */
	tss->rsp[0] = tss->rsp[1] = tss->rsp[2] = trap_stack;
	tss->ist[IST_DF - 1] = ist[0];
	tss->ist[IST_NMI - 1] = ist[1];
	tss->ist[IST_MC - 1] = ist[2];
	tss->ist[IST_PF - 1] = ist[3];
	tss->iomap_base = sizeof(*tss); /* no I/O bitmap: IN/OUT fault at CPL > IOPL */

	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;
	gdt[SEL_TSS / 8] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ULL << 40) |
			   (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
	gdt[SEL_TSS / 8 + 1] = base >> 32;

	struct table_ptr gp = {sizeof(t->gdt) - 1, (uint64_t)gdt};
	__asm__ volatile("lgdt %0" : : "m"(gp) : "memory");
	x86_load_segments();
	__asm__ volatile("ltr %w0" : : "r"(SEL_TSS));

	if (!idt_built)
		build_idt();
	struct table_ptr ip = {sizeof(idt) - 1, (uint64_t)idt};
	__asm__ volatile("lidt %0" : : "m"(ip) : "memory");
}

bool arch_cpuid_known(uint32_t leaf, uint32_t subleaf)
{
	(void)leaf;
	(void)subleaf;
	return true; /* the processor answers every leaf */
}

void arch_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
			 : "a"(leaf), "c"(subleaf));
}

/* The access trace (kernel/trace.h) leaves out the local APIC's registers in
 * x2APIC mode that apic.c reads and writes through rdmsr()/wrmsr() (EOI,
 * ICR, LVT): the arch's own accesses, which the simulator's APIC makes
 * without MSRs; a test's own probes of them (rdmsr_safe) are traced. */
#define X2APIC_REGISTER(msr) ((msr) >= 0x800 && (msr) <= 0x8FF)

uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	if (!X2APIC_REGISTER(msr)) /* a fault does not return */
		trace_access(TRACE_RDMSR, msr, ((uint64_t)hi << 32) | lo, 0);
	return ((uint64_t)hi << 32) | lo;
}

void wrmsr(uint32_t msr, uint64_t val)
{
	x86_msr_note_write(msr); /* the test's writes are undone after it (state.c) */
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : "memory");
	if (!X2APIC_REGISTER(msr))
		trace_access(TRACE_WRMSR, msr, val, 0);
}

uint64_t arch_read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

void arch_write_cr4(uint64_t val)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(val) : "memory");
}

uint64_t arch_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

void arch_flush_buffer(const void *buf, uint64_t bytes)
{
	for (uint64_t off = 0; off < bytes; off += 64)
		__asm__ volatile("clflush (%0)" ::"r"((const uint8_t *)buf + off) : "memory");
	__asm__ volatile("mfence" ::: "memory");
}

void arch_workload_touch(const void *buf, uint64_t bytes)
{
	for (uint64_t off = 0; off < bytes; off += 64)
		(void)*(const volatile uint64_t *)((const uint8_t *)buf + off);
}

void arch_serialize(void)
{
	struct cpuid_regs r;
	arch_cpuid(0, 0, &r);
	__asm__ volatile("" : : : "memory");
}

void arch_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

void arch_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}

/* The watchdog's one-shot APIC timer is free after the verdict; its
 * interrupt outside a guarded run is only acknowledged (trap.c). STI's
 * interrupt shadow keeps the interrupt from arriving before HLT. */
void arch_idle_ms(unsigned ms)
{
	if (!apic_timer_hz())
		return; /* no calibrated timer: nothing would wake the CPU */
	apic_watchdog_arm(ms);
	__asm__ volatile("sti; hlt; cli" ::: "memory");
	apic_watchdog_disarm();
}

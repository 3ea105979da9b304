/* SPDX-License-Identifier: MIT */
/*
 * The machine state a test must leave as it found it, saved before each
 * guarded run and put back after it (arch_run_guarded), whatever the test
 * did: returned, faulted (even inside the PMI handler) or hung.
 *
 *   descriptor tables  IDTR, GDTR and the contents of both tables: a test
 *                      that loads a bad IDTR and returns would otherwise
 *                      triple-fault the next test with no message
 *   control registers  CR0, CR8 (the TPR), EFER
 *   local APIC         TPR, spurious-vector register (software enable),
 *                      LVT LINT0/LINT1/error; every vector still in service
 *                      gets its EOI (a fault in the PMI handler leaves the
 *                      PMI in service, and the watchdog's vector, in the
 *                      same priority class, would never be delivered again)
 *
 *   MSRs               every MSR the test wrote (WRMSR at CPL 0, through
 *                      wrmsr() or wrmsr_safe()) gets back the value it had
 *                      before the test's first write to it, in the reverse
 *                      order of those first writes (global enables last);
 *                      an MSR that cannot be read cannot be put back (the
 *                      write-only status-set/reset MSRs, whose effect is on
 *                      other MSRs). x2APIC registers (800H-8FFH) are left
 *                      out: writing the ICR back would send an IPI again;
 *                      the APIC is restored as a device, below.
 *
 * A difference in any of these but the MSRs is a failure of the test (reported by the
 * runner from arch_exception.state_restored). CR4, the LVT performance-
 * monitoring entry and the timer are restored silently: tests change them on
 * purpose (CR4.PCE, PMI delivery) and the watchdog owns the timer.
 *
 * The limit: a test that corrupts the IDT or GDT and then faults, before it
 * returns, triple-faults (the CPU needs the tables to deliver the fault);
 * that resets the machine, and the report ends without a verdict, which the
 * host tools refuse (never a PASS).
 */
#include "x86.h"

#include "kstring.h"
#include "ktap.h"

struct __attribute__((packed)) table_reg {
	uint16_t limit;
	uint64_t base;
};

#define TABLE_COPY_MAX 4096 /* the IDT (256 x 16 bytes); the GDT is smaller */

#define MSR_UNDO_MAX 512

struct machine_state {
	struct table_reg idtr, gdtr;
	uint64_t cr0, cr8, efer;
	uint32_t tpr, svr, lint0, lint1, lvt_err;
	/* Aligned as the tables are, so that the copy and the compare go a
	 * word at a time (kstring.c): byte by byte they were most of a
	 * guarded run's cost under this project's KVM. */
	uint8_t idt[TABLE_COPY_MAX] __attribute__((aligned(16)));
	uint8_t gdt[TABLE_COPY_MAX] __attribute__((aligned(16)));
	size_t idt_len, gdt_len;
	bool tables_kept; /* idt/gdt are the tables as the last restore left them */
	struct {
		uint32_t msr;
		uint64_t value;
	} undo[MSR_UNDO_MAX];
	unsigned n_undo;
	bool undo_active, undo_overflow;
};

/* One per CPU (smp.c): each has its own GDT, control registers and local
 * APIC, and a CPU's run may happen inside another CPU's (arch_run_on_cpu). */
void *x86_state_alloc(void)
{
	return pool_alloc(sizeof(struct machine_state), 16);
}
#define saved (*(struct machine_state *)this_cpu()->saved_state)

static char changed[160];
static void note(const char *what);

/* The undo log is per CPU too (struct machine_state). */
#define undo	      (saved.undo)
#define n_undo	      (saved.n_undo)
#define undo_active   (saved.undo_active)
#define undo_overflow (saved.undo_overflow)

/* Called before every WRMSR at CPL 0 (cpu.c wrmsr, user.asm wrmsr_safe).
 * Not the local APIC's (apic.c puts it back), nor MCG_STATUS and the
 * machine-check banks (400H-47FH), which only trap.c's #MC handler writes:
 * putting back MCIP would make the next #MC shut the processor down. */
void x86_msr_note_write(uint32_t msr)
{
	uint64_t v;

	if (!undo_active || (msr >= 0x800 && msr <= 0x8ff) || msr == MSR_IA32_APIC_BASE ||
	    msr == 0x17A || (msr >= 0x400 && msr < 0x480))
		return;
	for (unsigned i = 0; i < n_undo; i++)
		if (undo[i].msr == msr)
			return;
	if (n_undo == MSR_UNDO_MAX) {
		undo_overflow = true;
		return;
	}
	undo_active = false; /* the read below is not a write to note */
	if (x86_rdmsr_probe(msr, &v) == 0) {
		undo[n_undo].msr = msr;
		undo[n_undo].value = v;
		n_undo++;
	}
	undo_active = true;
}

static void msr_undo(void)
{
	uint64_t v;

	undo_active = false;
	for (unsigned i = n_undo; i-- > 0;)
		if (x86_rdmsr_probe(undo[i].msr, &v) != 0 || v != undo[i].value)
			x86_wrmsr_probe(undo[i].msr, undo[i].value);
	n_undo = 0;
	if (undo_overflow)
		note("more than 512 MSRs written: the rest not put back");
	undo_overflow = false;
}

static bool differs(const void *a, const void *b, size_t n)
{
	return kmemcmp(a, b, n) != 0;
}

static uint64_t read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static uint64_t read_cr8(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr8, %0" : "=r"(v));
	return v;
}

static void note(const char *what)
{
	size_t n = kstrlen(changed);
	ksnprintf(changed + n, sizeof(changed) - n, "%s%s", n ? ", " : "", what);
}

static size_t table_len(const struct table_reg *r)
{
	size_t n = (size_t)r->limit + 1;
	return n > TABLE_COPY_MAX ? TABLE_COPY_MAX : n;
}

static bool same_reg(const struct table_reg *a, const struct table_reg *b)
{
	return a->base == b->base && a->limit == b->limit;
}

void x86_state_save(void)
{
	struct table_reg idtr, gdtr;

	__asm__ volatile("sidt %0" : "=m"(idtr));
	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	saved.cr0 = read_cr0();
	saved.cr8 = read_cr8();
	saved.efer = rdmsr(MSR_IA32_EFER);
	apic_state_save(&saved.tpr, &saved.svr, &saved.lint0, &saved.lint1, &saved.lvt_err);
	/* The copies of the last run stand while the registers are the same:
	 * its restore left the tables equal to them, and only a CPU's start
	 * (cpu.c) writes the tables outside a guarded run. */
	if (!saved.tables_kept || !same_reg(&idtr, &saved.idtr) || !same_reg(&gdtr, &saved.gdtr)) {
		saved.idtr = idtr;
		saved.gdtr = gdtr;
		saved.idt_len = table_len(&saved.idtr);
		saved.gdt_len = table_len(&saved.gdtr);
		kmemcpy(saved.idt, (const void *)saved.idtr.base, saved.idt_len);
		kmemcpy(saved.gdt, (const void *)saved.gdtr.base, saved.gdt_len);
	}
	n_undo = 0;
	undo_active = true;
}

void arch_msr_keep(void)
{
	n_undo = 0;
	undo_overflow = false;
}

/* Puts everything back; returns the names of what differed, or NULL. */
const char *x86_state_restore(void)
{
	struct table_reg idtr, gdtr;

	changed[0] = '\0';
	saved.tables_kept = false; /* until they are back, below */
	/* The tables first: nothing below may fault, but if it did, the fault
	 * must find a valid IDT. */
	__asm__ volatile("sidt %0" : "=m"(idtr));
	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	if (idtr.base != saved.idtr.base || idtr.limit != saved.idtr.limit) {
		__asm__ volatile("lidt %0" : : "m"(saved.idtr) : "memory");
		note("IDTR");
	}
	if (differs((const void *)saved.idtr.base, saved.idt, saved.idt_len)) {
		kmemcpy((void *)saved.idtr.base, saved.idt, saved.idt_len);
		note("IDT contents");
	}
	if (differs((const void *)saved.gdtr.base, saved.gdt, saved.gdt_len)) {
		kmemcpy((void *)saved.gdtr.base, saved.gdt, saved.gdt_len);
		note("GDT contents");
	}
	if (gdtr.base != saved.gdtr.base || gdtr.limit != saved.gdtr.limit) {
		__asm__ volatile("lgdt %0" : : "m"(saved.gdtr) : "memory");
		note("GDTR");
	}
	if (kstrlen(changed)) /* reload the segment caches from the good GDT */
		x86_load_segments();
	saved.tables_kept = true;
	if (read_cr0() != saved.cr0) {
		__asm__ volatile("mov %0, %%cr0" : : "r"(saved.cr0) : "memory");
		note("CR0");
	}
	if (rdmsr(MSR_IA32_EFER) != saved.efer) {
		wrmsr(MSR_IA32_EFER, saved.efer);
		note("EFER");
	}
	if (read_cr8() != saved.cr8) {
		__asm__ volatile("mov %0, %%cr8" : : "r"(saved.cr8) : "memory");
		note("CR8");
	}
	msr_undo();
	unsigned eois = apic_state_restore(saved.tpr, saved.svr, saved.lint0, saved.lint1,
					   saved.lvt_err, changed, sizeof(changed));
	(void)eois; /* in service after a fault is recovery, not the test's doing */
	return changed[0] ? changed : NULL;
}

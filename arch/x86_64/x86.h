/* SPDX-License-Identifier: MIT */
/*
 * Internals of arch/x86_64: descriptor layout, the trap frame, and the
 * tiny instruction wrappers. Only arch/x86_64 includes this.
 */
#ifndef PMUTEST_X86_H
#define PMUTEST_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "msr.h"
#include "handoff.h"

/* GDT selectors (cpu.c); keep in sync with entry.asm. Ring n code/data
 * have DPL n so that CPL n can run on them (SDM Vol. 3A 5.5). */
#define SEL_KCODE     0x08
#define SEL_KDATA     0x10
#define SEL_CODE(cpl) (0x08 + 0x10 * (cpl)) /* ring cpl code, RPL 0 */
#define SEL_DATA(cpl) (0x10 + 0x10 * (cpl))
#define SEL_TSS	      0x48

/* The IPI that wakes a parked application processor (smp.c). */
#define WAKE_VECTOR 0xF3

/* What the entry stubs push (entry.asm): general registers, then the vector
 * and error code, then the CPU's own frame. */
struct x86_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* Saved callee-saved state for a non-local return (entry.asm). */
struct x86_ctx {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};
__attribute__((returns_twice)) int x86_ctx_save(struct x86_ctx *c);
__attribute__((noreturn)) void x86_ctx_restore(const struct x86_ctx *c, int val);

/* entry.asm: the 256 entry stubs, and the ring-down transfer. */
extern const uint64_t x86_vector_stubs[256];
__attribute__((noreturn)) void x86_enter_ring(uint64_t cs, uint64_t ss, uint64_t rsp,
					      uint64_t rflags, cpl_fn fn, uint64_t arg);
void x86_load_segments(void); /* reload CS/DS/ES/SS/FS/GS with ring 0 */
void x86_iret_to_self(void);
__attribute__((noreturn)) void x86_switch_stack(uint64_t top, void (*fn)(void *), void *arg);

/* The exception-fixup table (user.asm), sorted by nothing: it is tiny. */
struct x86_fixup {
	uint64_t insn, fixup;
};
extern const struct x86_fixup __start_x86_fixup[], __stop_x86_fixup[];

/* Linker-script symbols (boot/uefi/linker.ld, boot/direct/linker.ld). */
extern char __user_text_start[], __user_text_end[];
extern char __user_data_start[], __user_data_end[];
extern char ImageBase[], _edata[];

/* cpu.c: each CPU has its own GDT and TSS (cpu_tables_alloc() for the
 * application processors); the IDT is one for all. */
struct cpu_tables;
struct cpu_tables *cpu_tables_alloc(void);
/* IST stacks: #DF, NMI, #MC, #PF (cpu.c). */
#define CPU_IST_STACKS 4
void cpu_init_descriptors(struct cpu_tables *t, uint64_t trap_stack,
			  const uint64_t ist[CPU_IST_STACKS]);

/* smp.c: per-CPU state, reached through the GS base (gs:[0] holds its own
 * address; nothing in the kernel reloads GS after cpu_init_descriptors). */
struct x86_percpu {
	struct x86_percpu *self;
	unsigned index;	  /* arch CPU number */
	uint32_t apic_id; /* from the MADT */
	struct cpu_tables *tables;
	void *guard;	   /* trap.c: innermost arch_run_guarded on this CPU */
	void *cpl_call;	   /* trap.c: innermost arch_call_at_cpl on this CPU */
	void *saved_state; /* state.c: what its outermost guarded run saved */
	volatile enum cpu_state state;
	volatile uint32_t alive; /* set by the AP once it is parked */
	/* The work the AP is asked to do (arch_run_on_cpu). */
	void (*job_fn)(void *);
	void *job_arg;
	uint32_t job_timeout_ms;
	enum arch_guard_result job_rc;
	struct arch_exception job_ex;
	volatile uint32_t job_seq, done_seq;
	bool job_is_step;	      /* posted from inside a guarded run (a test's step) */
	volatile uint32_t job_waiter; /* APIC ID to wake when done, NO_WAITER: it spins */
	bool in_step;		      /* running such a step: no state save / restore */
	uint64_t stack_top, trap_stack, ist[CPU_IST_STACKS];
	/* trap.c: this CPU's platform events, and what its PMU can have sent
	 * since arch_pmu_sources_forget (apic.c records the LVT's writes). */
	struct arch_platform_events events;
	bool lvt_nmi_seen;
	uint64_t lvt_vectors[4];
};
/* smp.c: CPU i's state (i < arch_cpu_count()). */
struct x86_percpu *x86_cpu(unsigned i);
static inline struct x86_percpu *this_cpu(void)
{
	struct x86_percpu *p;
	__asm__("mov %%gs:0, %0" : "=r"(p));
	return p;
}
void smp_init_boot_cpu(const struct x86_handoff *h, struct cpu_tables *t);
/* The AP start-up page: trampoline.asm, and its parameter block at
 * AP_BOOT_OFFSET (keep in sync with the APB_* offsets there). */
extern char x86_trampoline_start[], x86_trampoline_pm32[], x86_trampoline_end[];
#define AP_BOOT_OFFSET 0xF00
struct __attribute__((packed)) ap_boot {
	uint16_t gdtr_limit;
	uint32_t gdtr_base;
	uint16_t pad0;
	uint32_t pm_entry;
	uint16_t pm_selector;
	uint16_t pad1;
	uint32_t cr3_low, cr4;
	uint64_t efer, cr3, stack, entry, arg;
	uint64_t gdt[4]; /* null, 32-bit code, 32-bit data, 64-bit code */
};
_Static_assert(sizeof(struct ap_boot) == 96, "struct ap_boot: trampoline.asm's APB_* offsets");

/* trap.c */
/* How entry.asm leaves an exception: through IRETQ, or without it (a fault
 * fixed up inside an NMI handler: an IRET there would unblock NMIs on the NMI
 * stack, trap.c), x86_trap having put RFLAGS and RIP below the interrupted
 * RSP. entry.asm tests the value for zero. */
enum x86_trap_exit {
	X86_TRAP_IRET = 0,
	X86_TRAP_NO_IRET = 1,
};
enum x86_trap_exit x86_trap(struct x86_frame *f);
extern uint32_t g_fault_error_code;
void x86_set_user_stack(uint64_t top);

/* paging.c */
void paging_pool_init(const struct x86_handoff *h);
void paging_init(struct x86_handoff *h, uint64_t stack_guard);
void *pool_alloc(uint64_t bytes, uint64_t align); /* zeroed */
void *pool_alloc_stack(uint64_t bytes);		  /* 4 KiB aligned, not zeroed */
void paging_map_user(uint64_t base, uint64_t size, bool writable);
void paging_map_uncached(uint64_t base, uint64_t size);
/* Unmap one 4 KiB page: the guard below an application processor's stack. */
void paging_unmap_guard(uint64_t addr);
#define PF_HOLE_ADDR 0x00007FFFFFFFF000ULL /* never mapped: #PF self-test */

/* apic.c */
void apic_init(uint64_t lapic_phys, const struct acpi_reg *pm_timer);
void apic_cpu_init(void); /* this CPU's local APIC: mode, enable, LVTs masked */
/* Send an IPI by physical destination; `low` is the ICR's low half (delivery
 * mode, level, vector). Bounded wait for the send on xAPIC; true when sent. */
bool apic_send_ipi(uint32_t apic_id, uint32_t low);
void apic_watchdog_arm(uint32_t ms);
void apic_watchdog_disarm(void);
bool apic_watchdog_expired(void);
void apic_self_ipi(uint8_t vector);
uint32_t apic_self_id(void);
bool apic_in_service(unsigned vector); /* ISR bit of `vector` set */
/* nmi_watchdog.c: the backstop a test cannot block. */
void nmi_watchdog_init(const struct x86_handoff *h, uint32_t bsp_apic_id);
/* What an arm replaced: put back when a nested or another CPU's run ends. */
struct nmi_watch {
	bool armed;
	uint64_t deadline;
	uint32_t apic_id;
};
const char *nmi_watchdog_status(void);
bool nmi_watchdog_available(void);
void nmi_watchdog_arm(uint32_t ms, struct nmi_watch *prev);
void nmi_watchdog_resume(const struct nmi_watch *prev);
void nmi_watchdog_disarm(void);
bool nmi_watchdog_claims(bool *ignore);
void apic_state_save(uint32_t *tpr, uint32_t *svr, uint32_t *lint0, uint32_t *lint1,
		     uint32_t *lvt_err);
unsigned apic_state_restore(uint32_t tpr, uint32_t svr, uint32_t lint0, uint32_t lint1,
			    uint32_t lvt_err, char *changed, size_t size);
/* state.c: what a test must not change, saved and put back around it. */
void *x86_state_alloc(void); /* a CPU's saved state (x86_percpu.saved_state) */
void x86_state_save(void);
const char *x86_state_restore(void);
void x86_msr_note_write(uint32_t msr);
/* The probes themselves (user.asm), untraced: include/arch.h's rdmsr_safe,
 * wrmsr_safe and rdpmc_safe are these plus the access trace (probes.c). The
 * harness's own accesses during a test (the undo log) use them directly. */
int x86_rdmsr_probe(uint32_t msr, uint64_t *val);
int x86_wrmsr_probe(uint32_t msr, uint64_t val);
int x86_rdpmc_probe(uint64_t rcx, uint64_t *rax, uint64_t *rdx);
/* include/arch.h's gated workloads without the trace of their gate writes
 * (user.asm, intercept.asm; probes.c adds it). */
void x86_workload_gated(uint64_t iters, uint32_t msr, uint64_t on, uint64_t off);
void x86_workload_intercepted(enum arch_intercept kind, uint64_t iters, uint32_t msr, uint64_t on,
			      uint64_t off, uint32_t target);
uint32_t apic_timer_hz(void);
const char *apic_calibration_source(void);
/* The TSC rate KVM's kvmclock gives, 0 without one (pvclock.c). */
uint64_t x86_pvclock_tsc_hz(void);

/* serial.c, fbcon.c */
void serial_init(void);
void serial_write(const char *s, size_t n);
void serial2_write(const char *s, size_t n); /* COM2: the screen's text */
void fbcon_init(const struct boot_framebuffer *fb);
void fbcon_write(const char *s, size_t n);
void fbcon_log_mode(void);
void fbcon_dump(void (*out)(const char *s, size_t n));
extern const uint8_t font8x8[96][8];

/* start.c */
/* QEMU's isa-debug-exit (iobase F4H, iosize 4): QEMU exits with status
 * (value << 1) | 1, so DEBUG_EXIT_BASE + enum run_status gives 33 pass,
 * 35 fail, 37 error (tools/run-qemu.sh). */
#define DEBUG_EXIT_PORT 0xF4
#define DEBUG_EXIT_BASE 0x10
void x86_panic(const char *msg, uint64_t a, uint64_t b) __attribute__((noreturn));
void x86_puts(const char *s);
void x86_put_hex(uint64_t v);

/* poweroff.c: ACPI S5 as the FADT and \_S5 describe it (returns when the
 * machine is still on), and the i8042 keyboard controller's reset line. */
void x86_acpi_power_off(const struct acpi_poweroff *p);
void x86_i8042_reset(void);

/* ---- Instruction wrappers ---------------------------------------------- */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
/* n bytes from s to one port, one string instruction (REP OUTSB). */
static inline void outsb(uint16_t port, const void *s, size_t n)
{
	__asm__ volatile("rep outsb" : "+S"(s), "+c"(n) : "d"(port) : "memory");
}
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}
static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}
static inline uint64_t read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}
#define RFLAGS_IF BIT_ULL(9)
static inline void cpu_relax(void)
{
	__asm__ volatile("pause");
}

#endif

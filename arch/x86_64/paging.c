/* SPDX-License-Identifier: MIT */
/*
 * Our own identity-mapped 4-level page tables (SDM Vol. 3A 4.5).
 *
 *  - Every physical address below phys_end (all RAM, runtime regions and
 *    MMIO the firmware map lists, at least 4 GiB) is mapped 1:1, write-back,
 *    with 2 MiB pages (1 GiB pages above 4 GiB when the CPU has them).
 *  - MMIO from the memory map, the local APIC and the framebuffer are
 *    uncached (PCD|PWT: PAT entry 3, UC, in the power-on PAT).
 *  - Leaf entries carry the user bit only for .text.user, .data.user and
 *    the user stack (4 KiB pages); upper levels all carry it, so that the
 *    leaf alone decides.
 *  - PF_HOLE_ADDR is never mapped (the #PF self-test), nor is the page
 *    below the kernel stack (an overflow faults, then #DF on its IST).
 *
 * Tables and stacks come from the pool boot/ allocated (pool_alloc).
 */
#include "x86.h"

#include "kstring.h"

#define PTE_P	 BIT_ULL(0)
#define PTE_RW	 BIT_ULL(1)
#define PTE_US	 BIT_ULL(2)
#define PTE_PWT	 BIT_ULL(3)
#define PTE_PCD	 BIT_ULL(4)
#define PTE_PS	 BIT_ULL(7)
#define PTE_ADDR GENMASK_ULL(51, 12)

#define SZ_4K 0x1000ULL
#define SZ_2M 0x200000ULL
#define SZ_1G 0x40000000ULL

static uint64_t pool_next, pool_end;
static uint64_t *pml4;

static void *pool_take(uint64_t bytes, uint64_t align)
{
	uint64_t p = (pool_next + align - 1) & ~(align - 1);
	if (p + bytes > pool_end)
		x86_panic("page-table pool exhausted", bytes, pool_end - pool_next);
	pool_next = p + bytes;
	return (void *)p;
}

void *pool_alloc(uint64_t bytes, uint64_t align)
{
	void *p = pool_take(bytes, align);
	kmemset(p, 0, bytes);
	return p;
}

/* A stack is written before it is read: not zeroed. Zeroing the boot CPU's
 * 160 KiB of stacks was about 200 ms of the boot under this project's
 * nested KVM, where each guest instruction (and each iteration of a string
 * instruction) costs microseconds. */
void *pool_alloc_stack(uint64_t bytes)
{
	return pool_take(bytes, SZ_4K);
}

/* include/arch.h: carved from the pool on first use (boot/ sized the pool
 * for it), zeroed like every pool allocation. */
void *arch_scratch_buffer(void)
{
	static void *buf;

	if (!buf && pool_end - pool_next >= ARCH_SCRATCH_BYTES + SZ_4K)
		buf = pool_alloc(ARCH_SCRATCH_BYTES, SZ_4K);
	return buf;
}

static uint64_t *new_table(void)
{
	return pool_alloc(SZ_4K, SZ_4K);
}

static uint64_t *table_of(uint64_t e)
{
	return (uint64_t *)(e & PTE_ADDR);
}

/* The entry for addr at the given level (3 = PDPT, 2 = PD, 1 = PT),
 * creating missing tables and splitting large pages above that level. */
static uint64_t *entry_at(uint64_t addr, int level)
{
	uint64_t *t = pml4;
	for (int l = 4; l > level; l--) {
		uint64_t *e = &t[(addr >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PTE_P)) {
			*e = (uint64_t)new_table() | PTE_P | PTE_RW | PTE_US;
		} else if (*e & PTE_PS) {
			/* Split a 1 GiB or 2 MiB page into 512 of the next size,
			 * same attributes. */
			uint64_t step = 1ULL << (12 + 9 * (l - 2));
			uint64_t *n = new_table();
			uint64_t base = *e & PTE_ADDR & ~((step << 9) - 1);
			uint64_t attrs = *e & (PTE_P | PTE_RW | PTE_US | PTE_PWT | PTE_PCD);
			for (int i = 0; i < 512; i++)
				n[i] = (base + i * step) | attrs | (l - 1 > 1 ? PTE_PS : 0);
			*e = (uint64_t)n | PTE_P | PTE_RW | PTE_US;
		}
		t = table_of(*e);
	}
	return &t[(addr >> (12 + 9 * (level - 1))) & 511];
}

static void map_large(uint64_t addr, uint64_t size, uint64_t attrs)
{
	*entry_at(addr, size == SZ_1G ? 3 : 2) = addr | PTE_P | PTE_PS | attrs;
}

/* Set or clear attribute bits on [base, base+size), in 2 MiB pages where a
 * whole one is covered, else in 4 KiB pages. The 4 KiB pages of one page
 * table are walked in place, not each from the PML4: a split 2 MiB page
 * (an MMIO window, the APIC page) is 512 of them, and under a slow
 * hypervisor those walks were most of paging_init. */
static void change_range(uint64_t base, uint64_t size, uint64_t set, uint64_t clear)
{
	uint64_t a = base & ~(SZ_4K - 1), end = base + size;
	while (a < end) {
		if (!(a & (SZ_2M - 1)) && end - a >= SZ_2M) {
			uint64_t *e = entry_at(a, 2);
			if (!(*e & PTE_P))
				*e = a | PTE_P | PTE_RW | PTE_PS;
			if (*e & PTE_PS) {
				*e = (*e | set) & ~clear;
				a += SZ_2M;
				continue;
			}
			/* already split: its 4 KiB pages, below */
		}
		uint64_t stop = (a | (SZ_2M - 1)) + 1; /* the end of this page table */
		uint64_t *e = entry_at(a, 1);
		for (; a < end && a < stop; a += SZ_4K, e++) {
			if (!(*e & PTE_P))
				*e = a | PTE_P | PTE_RW;
			*e = (*e | set) & ~clear;
		}
	}
}

/* Once our tables are live, a change is followed by a full TLB flush. */
static void flush_if_live(void)
{
	if (pml4 && read_cr3() == (uint64_t)pml4)
		write_cr3((uint64_t)pml4);
}

void paging_map_user(uint64_t base, uint64_t size, bool writable)
{
	change_range(base, size, PTE_US | (writable ? PTE_RW : 0), writable ? 0 : PTE_RW);
	flush_if_live();
}

void paging_map_uncached(uint64_t base, uint64_t size)
{
	change_range(base, size, PTE_PCD | PTE_PWT, 0);
	flush_if_live();
}

static void unmap_page(uint64_t addr)
{
	*entry_at(addr, 1) = 0;
}

void paging_unmap_guard(uint64_t addr)
{
	unmap_page(addr);
	flush_if_live();
}

static bool has_1g_pages(void)
{
	struct cpuid_regs r;
	arch_cpuid(0x80000000, 0, &r);
	if (r.eax < 0x80000001)
		return false;
	arch_cpuid(0x80000001, 0, &r);
	return r.edx & BIT_ULL(26); /* Page1GB */
}

void paging_pool_init(const struct x86_handoff *h)
{
	pool_next = h->pool_base;
	pool_end = h->pool_base + h->pool_size;
}

void paging_init(struct x86_handoff *h, uint64_t stack_guard)
{
	bool gb = has_1g_pages();
	uint64_t end = (h->phys_end + SZ_1G - 1) & ~(SZ_1G - 1);

	if (arch_read_cr4() & BIT_ULL(12)) /* LA57 */
		x86_panic("the firmware runs 5-level paging; not supported", 0, 0);
	pml4 = new_table();
	for (uint64_t a = 0; a < end; a += SZ_1G) {
		if (gb && a >= 4 * SZ_1G) {
			map_large(a, SZ_1G, PTE_RW);
			continue;
		}
		/* A whole page directory of 2 MiB pages, filled in one loop: a
		 * walk from the PML4 for each of its 512 entries was most of
		 * paging_init's time under a slow hypervisor. */
		uint64_t *pd = new_table();
		*entry_at(a, 3) = (uint64_t)pd | PTE_P | PTE_RW | PTE_US;
		for (uint64_t i = 0; i < 512; i++)
			pd[i] = (a + i * SZ_2M) | PTE_P | PTE_PS | PTE_RW;
	}
	for (uint32_t i = 0; i < h->range_count; i++)
		if (h->ranges[i].kind == PHYS_MMIO)
			paging_map_uncached(h->ranges[i].base, h->ranges[i].size);
	/* The 32-bit APIC window (I/O APIC, local APIC): uncached whatever the
	 * map says. */
	paging_map_uncached(0xFEC00000ULL, 0x400000ULL);
	if (h->bi.lapic_phys)
		paging_map_uncached(h->bi.lapic_phys & ~(SZ_4K - 1), SZ_4K);
	if (h->bi.fb.base)
		paging_map_uncached(h->bi.fb.base,
				    (uint64_t)h->bi.fb.pixels_per_scanline * h->bi.fb.height * 4);

	paging_map_user((uint64_t)__user_text_start,
			(uint64_t)(__user_text_end - __user_text_start), false);
	paging_map_user((uint64_t)__user_data_start,
			(uint64_t)(__user_data_end - __user_data_start), true);
	if (stack_guard)
		unmap_page(stack_guard);
	if (*entry_at(PF_HOLE_ADDR, 4) & PTE_P)
		x86_panic("the #PF hole is mapped", PF_HOLE_ADDR, 0);

	/* SMEP/SMAP would fault the kernel's own calls into .text.user (the
	 * probes and the workload are called at CPL 0 too). */
	arch_write_cr4(arch_read_cr4() & ~(BIT_ULL(20) | BIT_ULL(21)));
	write_cr3((uint64_t)pml4);
}

/* SPDX-License-Identifier: MIT */
/*
 * minivmm: the smallest VMM that boots build/pmutest.elf on this machine's
 * KVM the way each cloud VMM does, so that `make test` proves the direct
 * boot against what those VMMs really build (none of them can be installed
 * here). A mode per VMM, each reproduced from that VMM's source (read at
 * Firecracker 81b38b9da (v1.16.0-dev), Cloud Hypervisor ae44c2971 (v53.0+),
 * crosvm f1e797a68 and rust-vmm linux-loader v0.14.0; file:line cited where
 * each behaviour is built below):
 *
 *   linux64            the Linux 64-bit boot protocol at e_entry, no ACPI,
 *                      one vCPU, QEMU's isa-debug-exit at F4H (make test's
 *                      direct-linux64 step; the entry mechanics only);
 *   firecracker        Firecracker >= 1.12 (PVH, src/vmm/src/arch/x86_64/);
 *   cloud-hypervisor   Cloud Hypervisor (PVH, arch/src/x86_64/, vmm/src/);
 *   crosvm             crosvm (Linux 64-bit at e_entry, x86_64/src/).
 *
 * For each: the entry and CPU state, the boot data (start_info or the zero
 * page, E820, the RSDP passed or not), the ACPI tables it builds, the ports
 * pmutest relies on (PIT or none, port 61H, what an unhandled port reads,
 * the 16550, the PM timer, sleep control) and how the VM ends (or reboots).
 * See struct vmm below: one row per mode.
 *
 * usage: minivmm [--vmm MODE] [--cpus N] [--bad WHAT] [--acpi off]
 *                [--timeout S] ELF [COMMAND-LINE]
 * --acpi off: no ACPI tables (Firecracker before 1.8: its MP table only).
 * --bad injects bad boot data (see bad_names[]): the kernel must end the VM
 * with verdict ERROR and the cause on one line.
 *
 * stderr: "minivmm: MODE: rates: TSC N kHz, APIC timer N kHz" (what the
 * guest really runs at: KVM_GET_TSC_KHZ, KVM's 1 GHz APIC bus), then
 * "minivmm: MODE: ended: HOW".
 * Exit status: 0 the VM ended the way that VMM ends a VM (i8042 reset on
 * Firecracker, S5 on Cloud Hypervisor and crosvm); 33/35/37 QEMU's exit
 * device (linux64 mode: pass, fail, error); 4 that VMM would have rebooted
 * the VM here (Cloud Hypervisor's i8042 reset, reset register, triple
 * fault: the suite would run again); 2 the guest cannot be started (one
 * line on stderr); 3 it ended otherwise (halt, KVM error, the time limit).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MEM_SIZE     (256u << 20)
#define GDT_ADDR     0x500
#define IDT_ADDR     0x520
#define START_INFO   0x6000 /* FC layout.rs PVH_INFO_START; CH layout.rs */
#define MODLIST_ADDR 0x6040 /* FC/CH MODLIST_START */
#define ZERO_PAGE    0x7000 /* the zero page, or PVH's memmap (MEMMAP_START) */
#define PML4_ADDR    0x9000
#define PDPT_ADDR    0xA000
#define PD_ADDR	     0xB000 /* 4 page directories: up to 4 GiB */
#define CMDLINE_ADDR 0x20000
#define HIGH_RAM     0x100000
#define COM1	     0x3F8
#define DEBUG_EXIT   0xF4
#define MAX_CPUID    256
#define MAX_VCPUS    8
#define PVH_MAGIC    0x336EC578u

enum mode { LINUX64, FIRECRACKER, CLOUD_HV, CROSVM, MODE_COUNT };
enum entry { ENTRY_LINUX64, ENTRY_PVH };
enum irqchip { IRQ_KERNEL_PIT_DUMMY, IRQ_KERNEL_PIT, IRQ_SPLIT };

/* One row per VMM: what pmutest meets there. */
struct vmm {
	const char *name;
	enum entry entry;
	uint64_t cr0;	      /* at entry */
	unsigned map_gib;     /* Linux64: the identity map at entry */
	uint16_t code_sel;    /* the GDT's code selector at entry */
	uint64_t ebda;	      /* E820 RAM [0, ebda) */
	uint64_t rsdp;	      /* where the RSDP is written; 0: no ACPI */
	bool rsdp_passed;     /* in start_info / boot_params */
	enum irqchip irqchip; /* PIT or none, who owns port 61H */
	uint8_t unhandled;    /* what an unhandled port reads */
	bool stub61;	      /* an i8042 stub answers port 61H with 20H */
	bool i8042_exits;     /* FEH on port 64H: the VMM exits (else: reboot) */
	bool hv_timing_leaf;  /* CPUID.40000010H published */
	bool fc_normalize;    /* Firecracker's CPUID normalization */
	uint16_t pm1a_cnt;    /* full ACPI PM1a_CNT (crosvm); 0: none */
	uint16_t sleep_ctl;   /* hardware-reduced sleep control (CH); 0: none */
	uint16_t pm_timer;    /* PM timer port; 0: none */
	int s5_typ;	      /* \_S5 SLP_TYPa in the DSDT; -1: no \_S5 */
	bool x2apic_madt;     /* MADT type 9 entries (CH) */
	const char *oem;      /* ACPI OEM ID */
	const char *ends;     /* how a run ends there */
};

static const struct vmm vmms[MODE_COUNT] = {
    [LINUX64] = {.name = "linux64",
		 .entry = ENTRY_LINUX64,
		 .cr0 = 0x80000031, /* PE ET NE PG */
		 .map_gib = 1,
		 .code_sel = 0x08,
		 .ebda = 0x9FC00,
		 .irqchip = IRQ_KERNEL_PIT_DUMMY,
		 .unhandled = 0xFF,
		 .s5_typ = -1,
		 .ends = "QEMU's isa-debug-exit"},
    /* Firecracker (src/vmm/src/arch/x86_64/regs.rs:86-94, 196-247: PVH
     * CR0 = PE|ET, CR4 0, EFER 0, GDT at 500H, RBX 6000H; mod.rs:305-395
     * start_info without rsdp_paddr; acpi/mod.rs:99-201: RSDP at E0000H,
     * FADT hardware-reduced without PM timer, sleep registers or \_S5;
     * vm.rs:171-184 KVM PIT with KVM_PIT_SPEAKER_DUMMY; vcpu.rs:759-779
     * unhandled reads 0, F4H dropped; devices/legacy/i8042.rs:258-266 FEH
     * -> vcpus_exit_evt: Firecracker exits; cpuid/intel/normalize.rs:
     * 243-254 leaf 0AH zeroed on Intel, normalize.rs:241-244 PDCM clear). */
    [FIRECRACKER] = {.name = "firecracker",
		     .entry = ENTRY_PVH,
		     .cr0 = 0x11,
		     .code_sel = 0x08,
		     .ebda = 0x9FC00,
		     .rsdp = 0xE0000,
		     .irqchip = IRQ_KERNEL_PIT_DUMMY,
		     .unhandled = 0x00,
		     .i8042_exits = true,
		     .fc_normalize = true,
		     .s5_typ = -1,
		     .oem = "FIRECK",
		     .ends = "i8042 reset (Firecracker exits)"},
    /* Cloud Hypervisor (arch/src/x86_64/regs.rs:123-139 PVH CR0 = PE;
     * mod.rs:1318-1425 start_info with rsdp_paddr A0000H, memmap [0,A0000H)
     * RAM; vmm/src/acpi.rs:305-408 FADT HW_REDUCED|RESET_REG_SUP|
     * TMR_VAL_EXT, sleep control/status/reset at 600H, X_PM_TMR_BLK 608H;
     * device_manager.rs:5923-5932 \_S5 {5,5,0,0}; cpu.rs:1769-1814 MADT
     * type 9; vm.rs:1466 split irqchip, no PIT; vm.rs:501-515 unhandled
     * reads FFH; devices/src/legacy/i8042.rs 61H reads 20H, FEH -> reset_evt
     * -> reboot (vmm/src/lib.rs:2143-2149); devices/src/acpi.rs:55-95 34H
     * to 600H -> exit, 1 -> reboot; mod.rs:1105-1121 40000010H). Older
     * releases put the sleep control at 3C0H and the PM timer at B008H. */
    [CLOUD_HV] = {.name = "cloud-hypervisor",
		  .entry = ENTRY_PVH,
		  .cr0 = 0x01,
		  .code_sel = 0x08,
		  .ebda = 0xA0000,
		  .rsdp = 0xA0000,
		  .rsdp_passed = true,
		  .irqchip = IRQ_SPLIT,
		  .unhandled = 0xFF,
		  .stub61 = true,
		  .hv_timing_leaf = true,
		  .sleep_ctl = 0x600,
		  .pm_timer = 0x608,
		  .s5_typ = 5,
		  .x2apic_madt = true,
		  .oem = "CLOUDH",
		  .ends = "S5 through the sleep control register (600H)"},
    /* crosvm (hypervisor/src/x86_64.rs:936-937 + x86_64/src/regs.rs:
     * 214-248, 294-337: CR0 = ET|CD|PE|PG, 4 GiB identity map, code 10H;
     * x86_64/src/lib.rs:575-625 boot_params without acpi_rsdp_addr, E820
     * [0,640K) RAM; acpi.rs:228-417 RSDP at E0000H, FADT full ACPI,
     * PM_TMR_BLK 0, PM1a_CNT at pm_iobase; devices/src/acpi.rs:373-378
     * \_S5 {0,0,0,0}, 597-643 SLP_EN -> exit; KVM PIT without the speaker
     * dummy, the i8042 stub at 61H reads 20H (devices/src/i8042.rs:39-58),
     * FEH -> VmReset: crosvm exits; bus.rs:735-741 unhandled reads 0). */
    [CROSVM] = {.name = "crosvm",
		.entry = ENTRY_LINUX64,
		.cr0 = 0x80000051, /* PG CD ET PE */
		.map_gib = 4,
		.code_sel = 0x10,
		.ebda = 0xA0000,
		.rsdp = 0xE0000,
		.irqchip = IRQ_KERNEL_PIT,
		.unhandled = 0x00,
		.stub61 = true,
		.i8042_exits = true,
		.pm1a_cnt = 0x604,
		.s5_typ = 0,
		.oem = "CROSVM",
		.ends = "S5 through PM1a_CNT"},
};

/* Bad boot data, one kind per run. */
enum bad {
	BAD_NONE,
	BAD_MAGIC,	  /* start_info magic wrong / RSI beyond 4 GiB */
	BAD_NO_RAM,	  /* a memory map without RAM */
	BAD_MEMMAP_FAR,	  /* the memory map beyond 4 GiB */
	BAD_MODLIST_FAR,  /* a module list beyond 4 GiB */
	BAD_MODULE_FAR,	  /* module 0 beyond the guest's memory */
	BAD_CMDLINE_LONG, /* a command line of 64 KiB */
	BAD_RSDP,	  /* the RSDP passed points at garbage */
	BAD_XSDT,	  /* the XSDT's checksum is wrong */
	BAD_E820_COUNT,	  /* boot_params e820_entries > 128 */
	BAD_NO_APIC,	  /* not boot data: the local APIC off (IA32_APIC_BASE.EN 0) */
	BAD_COUNT,
};
static const char *const bad_names[BAD_COUNT] = {
    [BAD_NONE] = "none",
    [BAD_MAGIC] = "magic",
    [BAD_NO_RAM] = "no-ram",
    [BAD_MEMMAP_FAR] = "memmap-far",
    [BAD_MODLIST_FAR] = "modlist-far",
    [BAD_MODULE_FAR] = "module-far",
    [BAD_CMDLINE_LONG] = "cmdline-long",
    [BAD_RSDP] = "rsdp",
    [BAD_XSDT] = "xsdt",
    [BAD_E820_COUNT] = "e820-count",
    [BAD_NO_APIC] = "no-apic",
};

static const struct vmm *V;
static enum mode g_mode;
static enum bad g_bad;
static uint8_t *mem;
static int g_ncpus = 2;
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what)
{
	fprintf(stderr, "minivmm: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(2);
}

/* The VM is over: the stream flushed, how it ended on stderr. */
static void end(int status, const char *how)
{
	fflush(stdout);
	fprintf(stderr, "minivmm: %s: ended: %s\n", V->name, how);
	_exit(status);
}

static void put(uint64_t at, const void *p, size_t n)
{
	if (at + n > MEM_SIZE)
		die("guest address out of range");
	memcpy(mem + at, p, n);
}

static void put8(uint64_t at, uint8_t v)
{
	put(at, &v, 1);
}

static void put16(uint64_t at, uint16_t v)
{
	put(at, &v, 2);
}

static void put32(uint64_t at, uint32_t v)
{
	put(at, &v, 4);
}

static void put64(uint64_t at, uint64_t v)
{
	put(at, &v, 8);
}

/* The ELF: every PT_LOAD at its physical address (linux-loader and
 * crosvm's kernel_loader alike); the PVH entry from the Xen note
 * (XEN_ELFNOTE_PHYS32_ENTRY, type 18: linux-loader elf/mod.rs:312-411 reads
 * 4 bytes of it). crosvm refuses a segment below 2 MiB
 * (kernel_loader/src/lib.rs:141-143). */
static uint64_t load_elf(const char *path, uint32_t *pvh_entry)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		die("cannot open the kernel");
	uint8_t *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f == MAP_FAILED)
		die("cannot read the kernel");
	const Elf64_Ehdr *eh = (const void *)f;
	if ((size_t)st.st_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > (uint64_t)st.st_size)
		die("not an x86-64 ELF kernel");
	errno = 0;
	*pvh_entry = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(f + eh->e_phoff + i * sizeof(Elf64_Phdr));
		if (ph->p_offset + ph->p_filesz > (uint64_t)st.st_size)
			die("a segment outside the file");
		if (ph->p_type == PT_NOTE) {
			for (uint64_t o = 0; o + 12 <= ph->p_filesz;) {
				const uint32_t *n = (const void *)(f + ph->p_offset + o);
				uint64_t name = (n[0] + 3) & ~3u, desc = (n[1] + 3) & ~3u;
				if (n[2] == 18 && n[0] == 4 && !memcmp(n + 3, "Xen", 4) &&
				    n[1] >= 4)
					*pvh_entry =
					    *(const uint32_t *)((const uint8_t *)(n + 3) + name);
				o += 12 + name + desc;
			}
			continue;
		}
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_memsz < ph->p_filesz || ph->p_paddr + ph->p_memsz > MEM_SIZE)
			die("a LOAD segment outside the guest's memory");
		if (g_mode == CROSVM && ph->p_paddr < 0x200000)
			die("crosvm: a LOAD segment below 2 MiB (KERNEL_START_OFFSET)");
		put(ph->p_paddr, f + ph->p_offset, ph->p_filesz);
		/* linux-loader loads p_filesz only (elf/mod.rs:254-294): the
		 * rest stays as the guest's memory was, zero here. */
	}
	uint64_t entry = eh->e_entry;
	munmap(f, (size_t)st.st_size);
	close(fd);
	return entry;
}

/* ---- ACPI tables (ACPI 6.x 5.2) ---- */

static uint64_t acpi_next;

static void checksum(uint64_t at, uint32_t len, uint32_t field)
{
	uint8_t sum = 0;
	mem[at + field] = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += mem[at + i];
	mem[at + field] = (uint8_t)-sum;
}

static uint64_t sdt_begin(const char *sig, uint8_t rev)
{
	uint64_t at = (acpi_next + 15) & ~15ull;
	put(at, sig, 4);
	put8(at + 8, rev);
	put(at + 10, V->oem, 6);
	put(at + 16, "MINIVMM ", 8);
	put32(at + 24, 1);
	return at;
}

static void sdt_end(uint64_t at, uint32_t len)
{
	put32(at + 4, len);
	checksum(at, len, 9);
	acpi_next = at + len;
}

static void gas_io(uint64_t at, uint16_t port, uint8_t bits)
{
	put8(at, 1); /* SystemIO */
	put8(at + 1, bits);
	put8(at + 3, bits == 32 ? 3 : 1);
	put64(at + 4, port);
}

static uint64_t build_dsdt(void)
{
	uint64_t at = sdt_begin("DSDT", 6);
	uint32_t n = 36;
	if (V->s5_typ >= 0) {
		/* Name(_S5_, Package(4){typ, typ, 0, 0}) */
		uint8_t aml[] = {0x08, '_',
				 'S',  '5',
				 '_',  0x12,
				 0x0A, 0x04,
				 0x0A, (uint8_t)V->s5_typ,
				 0x0A, (uint8_t)V->s5_typ,
				 0x00, 0x00};
		put(at + n, aml, sizeof(aml));
		n += sizeof(aml);
	}
	sdt_end(at, n);
	return at;
}

static uint64_t build_fadt(uint64_t dsdt)
{
	uint64_t at = sdt_begin("FACP", 6);
	uint32_t flags = 0;
	if (V->pm1a_cnt) {
		put32(at + 56, V->pm1a_cnt - 4);   /* PM1a_EVT_BLK */
		put32(at + 64, V->pm1a_cnt);	   /* PM1a_CNT_BLK */
		put8(at + 88, 4);		   /* PM1_EVT_LEN */
		put8(at + 89, 2);		   /* PM1_CNT_LEN */
		gas_io(at + 172, V->pm1a_cnt, 16); /* X_PM1a_CNT_BLK */
	} else {
		flags |= 1u << 20; /* HW_REDUCED_ACPI */
	}
	if (V->pm_timer) {
		gas_io(at + 208, V->pm_timer, 32); /* X_PM_TMR_BLK */
		flags |= 1u << 8;		   /* TMR_VAL_EXT */
	}
	if (V->sleep_ctl) {
		gas_io(at + 116, V->sleep_ctl, 8); /* RESET_REG */
		put8(at + 128, 1);
		gas_io(at + 244, V->sleep_ctl, 8); /* SLEEP_CONTROL_REG */
		gas_io(at + 256, V->sleep_ctl, 8); /* SLEEP_STATUS_REG */
		flags |= 1u << 10;		   /* RESET_REG_SUP */
	}
	put32(at + 112, flags);
	put8(at + 131, 3);     /* minor version */
	put64(at + 140, dsdt); /* X_DSDT only (crosvm, CH) */
	put(at + 268,
	    g_mode == CLOUD_HV	    ? "CLOUDHYP"
	    : g_mode == FIRECRACKER ? "FIRECKVM"
				    : "CROSVM  ",
	    8);
	sdt_end(at, 276);
	return at;
}

static uint64_t build_madt(void)
{
	uint64_t at = sdt_begin("APIC", V->x2apic_madt ? 5 : 4);
	uint32_t n = 44;
	put32(at + 36, 0xFEE00000);
	for (int i = 0; i < g_ncpus; i++) {
		if (V->x2apic_madt) { /* type 9: Enabled | Online Capable */
			put8(at + n, 9);
			put8(at + n + 1, 16);
			put32(at + n + 4, (uint32_t)i);
			put32(at + n + 8, 3);
			put32(at + n + 12, (uint32_t)i);
			n += 16;
		} else { /* type 0, Enabled */
			put8(at + n, 0);
			put8(at + n + 1, 8);
			put8(at + n + 2, (uint8_t)i);
			put8(at + n + 3, (uint8_t)i);
			put32(at + n + 4, 1);
			n += 8;
		}
	}
	put8(at + n, 1); /* I/O APIC */
	put8(at + n + 1, 12);
	put8(at + n + 2, (uint8_t)g_ncpus);
	put32(at + n + 4, 0xFEC00000);
	n += 12;
	sdt_end(at, n);
	return at;
}

/* RSDP rev 2 -> XSDT -> FADT (-> DSDT), MADT; returns the RSDP's address. */
static uint64_t build_acpi(void)
{
	acpi_next = V->rsdp + 64;
	uint64_t dsdt = build_dsdt();
	uint64_t tables[2] = {build_fadt(dsdt), build_madt()};
	uint64_t x = sdt_begin("XSDT", 1);
	put64(x + 36, tables[0]);
	put64(x + 44, tables[1]);
	sdt_end(x, 52);
	if (g_bad == BAD_XSDT)
		mem[x + 9]++;
	put(V->rsdp, "RSD PTR ", 8);
	put(V->rsdp + 9, V->oem, 6);
	put8(V->rsdp + 15, 2);
	put32(V->rsdp + 20, 36);
	put64(V->rsdp + 24, x);
	checksum(V->rsdp, 20, 8);
	checksum(V->rsdp, 36, 32);
	return V->rsdp;
}

/* The MP table (MultiProcessor Specification 1.4) Firecracker always
 * writes (src/vmm/src/arch/x86_64/mptable.rs: the floating pointer at
 * 9FC00H, then the PCMP table: a processor entry per vCPU, the BSP first,
 * an ISA bus, the I/O APIC). */
static void build_mptable(void)
{
	const uint64_t fp = 0x9FC00, ct = fp + 16;
	uint64_t e = ct + 44;
	uint16_t count = 0;

	for (int i = 0; i < g_ncpus; i++, e += 20, count++) {
		put8(e, 0);
		put8(e + 1, (uint8_t)i);
		put8(e + 2, 0x14);
		put8(e + 3, i ? 1 : 3); /* enabled; the BSP */
	}
	put8(e, 1); /* bus 0: ISA */
	put(e + 2, "ISA   ", 6);
	e += 8, count++;
	put8(e, 2); /* the I/O APIC */
	put8(e + 1, (uint8_t)g_ncpus);
	put8(e + 2, 0x11);
	put8(e + 3, 1);
	put32(e + 4, 0xFEC00000);
	e += 8, count++;
	put(ct, "PCMP", 4);
	put16(ct + 4, (uint16_t)(e - ct));
	put8(ct + 6, 4);
	put(ct + 8, "FC      ", 8);
	put16(ct + 34, count);
	put32(ct + 36, 0xFEE00000);
	checksum(ct, (uint32_t)(e - ct), 7);
	put(fp, "_MP_", 4);
	put32(fp + 4, (uint32_t)ct);
	put8(fp + 8, 1);
	put8(fp + 9, 4);
	checksum(fp, 16, 10);
}

/* ---- boot data ---- */

static void e820(uint64_t table, unsigned stride, int i, uint64_t addr, uint64_t size,
		 uint32_t type)
{
	uint64_t at = table + (uint64_t)stride * i;
	put64(at, addr);
	put64(at + 8, size);
	put32(at + 16, type);
}

static int memory_map(uint64_t table, unsigned stride)
{
	int n = 0;
	uint32_t ram = g_bad == BAD_NO_RAM ? 2 : 1;
	e820(table, stride, n++, 0, V->ebda, ram);
	if (V->ebda < 0xE0000 && g_mode != LINUX64)
		e820(table, stride, n++, V->ebda, 0x100000 - V->ebda, 2);
	e820(table, stride, n++, HIGH_RAM, MEM_SIZE - HIGH_RAM, ram);
	return n;
}

static void command_line(const char *cmdline)
{
	if (g_bad == BAD_CMDLINE_LONG) {
		memset(mem + CMDLINE_ADDR, 'a', 65536); /* no NUL within 64 KiB */
		return;
	}
	put(CMDLINE_ADDR, cmdline, strlen(cmdline) + 1);
}

/* PVH start_info (xen/include/public/arch-x86/hvm/start_info.h: magic 0,
 * version 4, flags 8, nr_modules 12, modlist_paddr 16, cmdline_paddr 24,
 * rsdp_paddr 32, memmap_paddr 40, memmap_entries 48), as
 * Firecracker and Cloud Hypervisor fill it; RBX = its address. */
static void boot_pvh(const char *cmdline, uint64_t rsdp)
{
	put32(START_INFO, g_bad == BAD_MAGIC ? 0x12345678 : PVH_MAGIC);
	put32(START_INFO + 4, 1);	      /* version */
	put64(START_INFO + 24, CMDLINE_ADDR); /* cmdline_paddr */
	put64(START_INFO + 32, V->rsdp_passed ? rsdp : 0);
	if (g_bad == BAD_RSDP)
		put64(START_INFO + 32, 0x30000); /* zeros: no RSDP there */
	put64(START_INFO + 40, g_bad == BAD_MEMMAP_FAR ? 0x200000000ull : ZERO_PAGE);
	put32(START_INFO + 48, (uint32_t)memory_map(ZERO_PAGE, 24));
	if (g_bad == BAD_MODLIST_FAR || g_bad == BAD_MODULE_FAR) {
		put32(START_INFO + 12, 1); /* nr_modules */
		put64(START_INFO + 16, g_bad == BAD_MODLIST_FAR ? 0x300000000ull : MODLIST_ADDR);
		put64(MODLIST_ADDR, 0x3F000000); /* beyond the guest's 256 MiB */
		put64(MODLIST_ADDR + 8, 64);
	}
	command_line(cmdline);
}

/* The zero page (Documentation/arch/x86/zero-page.rst); RSI = its
 * address. crosvm passes no acpi_rsdp_addr (x86_64/src/lib.rs:575-625). */
static void boot_linux64(const char *cmdline)
{
	put16(ZERO_PAGE + 0x1FE, 0xAA55);
	put(ZERO_PAGE + 0x202, "HdrS", 4);
	put8(ZERO_PAGE + 0x1E8, (uint8_t)memory_map(ZERO_PAGE + 0x2D0, 20));
	if (g_bad == BAD_E820_COUNT)
		put8(ZERO_PAGE + 0x1E8, 200); /* the table has 128 slots */
	if (g_bad == BAD_RSDP)
		put64(ZERO_PAGE + 0x70, 0x30000);
	if (g_bad == BAD_MODULE_FAR) {
		put32(ZERO_PAGE + 0x218, 0x3F000000);
		put32(ZERO_PAGE + 0x21C, 64);
	}
	put32(ZERO_PAGE + 0x228, CMDLINE_ADDR);
	command_line(cmdline);
}

static void page_tables(void)
{
	put64(PML4_ADDR, PDPT_ADDR | 3);
	for (uint64_t g = 0; g < V->map_gib; g++) {
		put64(PDPT_ADDR + 8 * g, (PD_ADDR + 0x1000 * g) | 3);
		for (uint64_t i = 0; i < 512; i++)
			put64(PD_ADDR + 0x1000 * g + 8 * i, (g << 30) | (i << 21) | 0x83);
	}
}

/* The boot GDT: a null entry, then code and data at code_sel, code_sel+8,
 * a TSS after them (Firecracker/CH: 08H 10H 18H; crosvm: 10H 18H 20H). */
static void gdt(void)
{
	uint64_t code = V->entry == ENTRY_PVH ? 0x00CF9B000000FFFFull : 0x00AF9B000000FFFFull;
	put64(GDT_ADDR + V->code_sel, code);
	put64(GDT_ADDR + V->code_sel + 8, 0x00CF93000000FFFFull);
	put64(GDT_ADDR + V->code_sel + 16, 0x008F8B000000FFFFull);
}

/* ---- vCPUs ---- */

static void set_seg(struct kvm_segment *s, uint16_t sel, int code, int l)
{
	*s = (struct kvm_segment){
	    .base = 0, .limit = 0xFFFFFFFF, .selector = sel, .present = 1, .s = 1, .g = 1};
	s->type = code ? 11 : 3;
	s->l = l;
	s->db = !l;
}

static uint32_t host_tsc_khz;

static void patch_cpuid(struct kvm_cpuid2 *c, int id, uint32_t tsc_khz)
{
	char vendor[13] = {0};
	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];
		if (e->function == 0) {
			memcpy(vendor, &e->ebx, 4);
			memcpy(vendor + 4, &e->edx, 4);
			memcpy(vendor + 8, &e->ecx, 4);
		}
	}
	bool intel = !strcmp(vendor, "GenuineIntel");
	unsigned h_a, h_b, h_c, h_d;
	bool invariant_tsc = __get_cpuid(0x80000007, &h_a, &h_b, &h_c, &h_d) && (h_d & (1u << 8));
	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];
		/* Every VMM gives each vCPU its APIC ID (FC cpuid/common.rs,
		 * CH update_cpuid_topology, crosvm adjust_cpuid). */
		if (e->function == 1)
			e->ebx = (e->ebx & 0x00FFFFFF) | (uint32_t)id << 24;
		if (e->function == 0xB || e->function == 0x1F)
			e->edx = (uint32_t)id;
		if (e->function == 0x8000001E)
			e->eax = (uint32_t)id;
		if (V->fc_normalize && e->function == 1)
			e->ecx &= ~(1u << 15); /* PDCM */
		if (V->fc_normalize && intel && e->function == 0xA)
			e->eax = e->ebx = e->ecx = e->edx = 0;
		if (V->hv_timing_leaf && invariant_tsc && e->function == 0x40000000)
			e->eax = 0x40000010;
	}
	if (V->hv_timing_leaf && invariant_tsc && c->nent < MAX_CPUID)
		c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		    .function = 0x40000010, .eax = tsc_khz, .ebx = 1000000};
}

static void setup_vcpu(int kvm, int vcpu, int id, uint64_t entry)
{
	static struct {
		struct kvm_cpuid2 h;
		struct kvm_cpuid_entry2 e[MAX_CPUID];
	} cpuid;
	memset(&cpuid, 0, sizeof(cpuid));
	cpuid.h.nent = MAX_CPUID - 1;
	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, &cpuid) < 0)
		die("KVM_GET_SUPPORTED_CPUID");
	int khz = ioctl(vcpu, KVM_GET_TSC_KHZ, 0);
	if (khz > 0)
		host_tsc_khz = (uint32_t)khz;
	patch_cpuid(&cpuid.h, id, host_tsc_khz);
	if (ioctl(vcpu, KVM_SET_CPUID2, &cpuid) < 0)
		die("KVM_SET_CPUID2");
	if (id)
		return; /* the APs wait for INIT/SIPI in KVM's local APIC */

	struct kvm_sregs sr;
	if (ioctl(vcpu, KVM_GET_SREGS, &sr) < 0)
		die("KVM_GET_SREGS");
	bool pvh = V->entry == ENTRY_PVH;
	set_seg(&sr.cs, V->code_sel, 1, !pvh);
	set_seg(&sr.ds, V->code_sel + 8, 0, 0);
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	sr.tr = (struct kvm_segment){
	    .selector = V->code_sel + 16, .limit = 0x67, .type = 11, .present = 1};
	sr.ldt = (struct kvm_segment){.type = 2, .unusable = 1};
	sr.gdt.base = GDT_ADDR;
	sr.gdt.limit = V->code_sel + 23;
	sr.idt.base = IDT_ADDR;
	sr.idt.limit = 7;
	sr.cr0 = V->cr0;
	if (pvh) {
		sr.cr3 = 0;
		sr.cr4 = 0;
		sr.efer = 0;
	} else {
		sr.cr3 = PML4_ADDR;
		sr.cr4 = 1u << 5;		  /* PAE */
		sr.efer = (1u << 8) | (1u << 10); /* LME LMA */
	}
	if (ioctl(vcpu, KVM_SET_SREGS, &sr) < 0)
		die("KVM_SET_SREGS");
	if (g_bad == BAD_NO_APIC) {
		/* IA32_APIC_BASE with EN clear: the CPU is then "functionally
		 * equivalent to an IA-32 processor without an on-chip APIC" and
		 * CPUID.01H:EDX[9] reads 0 (SDM Vol. 3A 10.4.3; KVM derives the
		 * bit from EN, kvm_update_cpuid_runtime()). */
		struct {
			struct kvm_msrs h;
			struct kvm_msr_entry e;
		} msr = {.h.nmsrs = 1, .e = {.index = 0x1B, .data = 0xFEE00000 | 0x100}};
		if (ioctl(vcpu, KVM_SET_MSRS, &msr) != 1)
			die("KVM_SET_MSRS IA32_APIC_BASE");
	}
	struct kvm_regs r = {.rip = entry, .rflags = 2};
	if (pvh)
		r.rbx = START_INFO;
	else
		r.rsi = g_bad == BAD_MAGIC ? 0x100000000ull : ZERO_PAGE;
	if (g_mode == CROSVM)
		r.rsp = 0x8000;
	if (ioctl(vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
}

/* ---- ports and MMIO ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t t0_ns;
static bool f4_warned;
static uint8_t com1_scratch;

/* The 16550 (enough for serial.c), the i8042, PM timer and sleep
 * registers; returns -1 to go on, else the status to end with. */
static int port_out(uint16_t port, uint32_t v)
{
	static uint8_t lcr;

	if (port == COM1 + 3) {
		lcr = (uint8_t)v; /* bit 7 DLAB: port +0 is the divisor */
	} else if (port == COM1 && !(lcr & 0x80)) {
		fputc((int)(v & 0xFF), stdout);
		if ((v & 0xFF) == '\n')
			fflush(stdout);
	} else if (port == COM1 + 7) {
		com1_scratch = (uint8_t)v;
	} else if (port == DEBUG_EXIT) {
		if (g_mode == LINUX64) {
			fflush(stdout);
			int status = (int)(((v & 0xFF) << 1) | 1);
			fprintf(stderr, "minivmm: %s: ended: %s (status %d)\n", V->name, V->ends,
				status);
			_exit(status);
		}
		if (!f4_warned) /* Firecracker logs a WARN, CH an info line: dropped */
			fprintf(stderr, "minivmm: %s: write to port F4H dropped (no device)\n",
				V->name);
		f4_warned = true;
	} else if (port == 0x64 && (v & 0xFF) == 0xFE && g_mode != LINUX64) {
		if (V->i8042_exits)
			end(0, g_mode == CROSVM ? "i8042 reset (crosvm exits: VmReset)"
						: "i8042 reset (Firecracker exits)");
		end(4, "i8042 reset: Cloud Hypervisor reboots the VM here");
	} else if (V->sleep_ctl && port == V->sleep_ctl) {
		uint8_t b = (uint8_t)v;
		if (b == ((5 << 2) | (1 << 5)))
			end(0, V->ends);
		if (b == 1)
			end(4, "reset register: Cloud Hypervisor reboots the VM here");
	} else if (V->pm1a_cnt && port == V->pm1a_cnt) {
		if ((v & (1u << 13)) && ((v >> 10) & 7) == (uint32_t)V->s5_typ)
			end(0, V->ends);
	}
	return -1;
}

static uint32_t port_in(uint16_t port, unsigned size)
{
	uint32_t all = V->unhandled ? 0xFFFFFFFFu : 0;
	(void)size;
	if (port == COM1 + 5)
		return 0x60; /* LSR: transmitter empty */
	if (port == COM1 + 7)
		return com1_scratch;
	if (V->stub61 && port == 0x61)
		return 0x20; /* "like kvmtool": OUT2 always high */
	if ((V->stub61 || V->i8042_exits) && port == 0x64)
		return 0;
	if (V->pm_timer && port == V->pm_timer)
		return (uint32_t)((now_ns() - t0_ns) * 3579545ull / 1000000000ull);
	if (V->sleep_ctl && port == V->sleep_ctl)
		return 0;
	if (V->pm1a_cnt && port >= V->pm1a_cnt - 4 && port < V->pm1a_cnt + 2)
		return 0;
	return all;
}

static int port_io(struct kvm_run *run)
{
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint16_t port = run->io.port;

	for (uint32_t n = 0; n < run->io.count; n++, data += run->io.size) {
		if (run->io.direction == KVM_EXIT_IO_OUT) {
			uint32_t v = 0;
			memcpy(&v, data, run->io.size);
			if (port == COM1 + 7)
				memcpy(&v, data, 1);
			port_out(port, v);
			continue;
		}
		uint32_t v = port_in(port, run->io.size);
		memcpy(data, &v, run->io.size);
	}
	return -1;
}

/* Cloud Hypervisor's I/O APIC is in the VMM (split irqchip): IOREGSEL at
 * +0, IOWIN at +10H, 24 entries, every one masked until written. */
static void ioapic_mmio(struct kvm_run *run)
{
	static uint32_t sel, regs[0x40];
	uint64_t off = run->mmio.phys_addr - 0xFEC00000;
	uint32_t v = 0;

	if (run->mmio.is_write) {
		memcpy(&v, run->mmio.data, run->mmio.len < 4 ? run->mmio.len : 4);
		if (off == 0)
			sel = v & 0xFF;
		else if (off == 0x10 && sel >= 0x10 && sel < 0x40)
			regs[sel] = v;
		return;
	}
	if (off == 0)
		v = sel;
	else if (off == 0x10)
		v = sel == 1 ? 0x00170020 : sel == 0 ? 0 : sel < 0x40 ? regs[sel] : 0;
	memset(run->mmio.data, 0, sizeof(run->mmio.data));
	memcpy(run->mmio.data, &v, run->mmio.len < 4 ? run->mmio.len : 4);
}

struct vcpu_arg {
	int fd, id;
	struct kvm_run *run;
};

static void *vcpu_loop(void *p)
{
	struct vcpu_arg *a = p;
	struct kvm_run *run = a->run;

	for (;;) {
		/* EAGAIN: an AP woken from its wait for SIPI (KVM returns it
		 * once the SIPI is taken); run again. */
		if (ioctl(a->fd, KVM_RUN, 0) < 0) {
			if (errno != EINTR && errno != EAGAIN)
				die("KVM_RUN");
			continue;
		}
		pthread_mutex_lock(&io_lock);
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			port_io(run);
			break;
		case KVM_EXIT_MMIO:
			if (V->irqchip == IRQ_SPLIT && run->mmio.phys_addr >= 0xFEC00000 &&
			    run->mmio.phys_addr < 0xFEC01000)
				ioapic_mmio(run);
			else if (!run->mmio.is_write)
				memset(run->mmio.data, V->unhandled, sizeof(run->mmio.data));
			break;
		case KVM_EXIT_HLT:
			end(3, "the guest halted");
			break;
		case KVM_EXIT_SHUTDOWN:
			/* A triple fault: Firecracker errors out (vstate/vcpu.rs
			 * 486-505), Cloud Hypervisor reboots (kvm/mod.rs:
			 * 2586-2589), crosvm stops. */
			end(g_mode == CLOUD_HV ? 4 : 3, "triple fault (KVM_EXIT_SHUTDOWN)");
			break;
		default: {
			struct kvm_regs r;
			ioctl(a->fd, KVM_GET_REGS, &r);
			char how[96];
			snprintf(how, sizeof(how), "KVM exit reason %u on vCPU %d at RIP %#llx",
				 run->exit_reason, a->id, (unsigned long long)r.rip);
			end(3, how);
		}
		}
		pthread_mutex_unlock(&io_lock);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "minivmm: ended: the time limit\n";
	fflush(stdout);
	(void)!write(2, m, sizeof(m) - 1);
	_exit(3);
}

static void usage(void)
{
	fprintf(stderr, "usage: minivmm [--vmm linux64|firecracker|cloud-hypervisor|crosvm] "
			"[--cpus N] [--bad WHAT] [--acpi off] [--timeout S] ELF [COMMAND-LINE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int timeout = 300, i = 1;
	bool no_acpi = false;
	g_mode = LINUX64;
	bool cpus_given = false;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		const char *o = argv[i], *val = argv[i + 1];
		if (!strcmp(o, "--vmm")) {
			int m = 0;
			while (m < MODE_COUNT && strcmp(vmms[m].name, val))
				m++;
			if (m == MODE_COUNT)
				usage();
			g_mode = (enum mode)m;
		} else if (!strcmp(o, "--cpus")) {
			g_ncpus = atoi(val);
			cpus_given = true;
			if (g_ncpus < 1 || g_ncpus > MAX_VCPUS)
				usage();
		} else if (!strcmp(o, "--bad")) {
			int b = 1;
			while (b < BAD_COUNT && strcmp(bad_names[b], val))
				b++;
			if (b == BAD_COUNT)
				usage();
			g_bad = (enum bad)b;
		} else if (!strcmp(o, "--acpi")) {
			no_acpi = !strcmp(val, "off"); /* Firecracker before 1.8 */
		} else if (!strcmp(o, "--timeout")) {
			timeout = atoi(val);
		} else {
			usage();
		}
	}
	if (i >= argc || argc - i > 2 || argv[i][0] == '-')
		usage();
	V = &vmms[g_mode];
	if (g_mode == LINUX64 && !cpus_given)
		g_ncpus = 1; /* no ACPI: the boot CPU alone */

	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("no usable /dev/kvm");
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		die("guest memory");
	struct kvm_userspace_memory_region region = {
	    .slot = 0, .memory_size = MEM_SIZE, .userspace_addr = (uintptr_t)mem};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	ioctl(vm, KVM_SET_TSS_ADDR, 0xFFFBD000ul); /* VMX real mode for the APs' SIPI */
	if (V->irqchip == IRQ_SPLIT) {
		struct kvm_enable_cap cap = {.cap = KVM_CAP_SPLIT_IRQCHIP, .args = {24}};
		if (ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
			die("KVM_CAP_SPLIT_IRQCHIP");
	} else {
		struct kvm_pit_config pit = {
		    .flags = V->irqchip == IRQ_KERNEL_PIT_DUMMY ? KVM_PIT_SPEAKER_DUMMY : 0};
		if (ioctl(vm, KVM_CREATE_IRQCHIP, 0) < 0 || ioctl(vm, KVM_CREATE_PIT2, &pit) < 0)
			die("KVM in-kernel APIC and PIT");
	}

	uint32_t pvh_entry;
	uint64_t entry = load_elf(argv[i], &pvh_entry);
	const char *cmdline = i + 1 < argc ? argv[i + 1] : "";
	if (V->entry == ENTRY_PVH) {
		if (!pvh_entry)
			die("no PVH note (XEN_ELFNOTE_PHYS32_ENTRY): this VMM needs one");
		entry = pvh_entry;
	}
	put64(GDT_ADDR, 0);
	gdt();
	uint64_t rsdp = V->rsdp && !no_acpi ? build_acpi() : 0;
	if (g_mode == FIRECRACKER)
		build_mptable();
	if (g_mode == CLOUD_HV)
		put16(0x40E, 0xA000); /* EBDA pointer (arch/src/x86_64/mod.rs:1204-1207) */
	if (V->entry == ENTRY_PVH) {
		boot_pvh(cmdline, rsdp);
	} else {
		page_tables();
		boot_linux64(cmdline);
	}

	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	static struct vcpu_arg args[MAX_VCPUS];
	for (int c = 0; c < g_ncpus; c++) {
		int fd = ioctl(vm, KVM_CREATE_VCPU, c);
		if (fd < 0 || size <= 0)
			die("KVM_CREATE_VCPU");
		struct kvm_run *run =
		    mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (run == MAP_FAILED)
			die("the vCPU's run area");
		setup_vcpu(kvm, fd, c, entry);
		args[c] = (struct vcpu_arg){fd, c, run};
	}
	fprintf(stderr, "minivmm: %s: rates: TSC %u kHz, APIC timer 1000000 kHz\n", V->name,
		host_tsc_khz);

	signal(SIGALRM, on_alarm);
	alarm((unsigned)timeout);
	t0_ns = now_ns();
	for (int c = 1; c < g_ncpus; c++) {
		pthread_t t;
		if (pthread_create(&t, NULL, vcpu_loop, &args[c]))
			die("a vCPU thread");
	}
	vcpu_loop(&args[0]);
	return 3;
}

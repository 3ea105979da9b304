/* SPDX-License-Identifier: MIT */
/*
 * minivmm: the smallest VMM that boots build/pmutest.elf the way crosvm
 * and Firecracker's non-PVH path do, so that `make test` exercises the
 * ELF's Linux 64-bit entry (linux64_start) on this machine's KVM:
 *
 *   - the ELF's PT_LOAD segments at their physical addresses;
 *   - long mode already on: a GDT with a 64-bit code segment, page tables
 *     mapping the first 1 GiB with 2 MiB pages (Firecracker's layout:
 *     PML4 at 9000H), CR0.PG, CR4.PAE, EFER.LME/LMA;
 *   - RSI = the zero page (7000H): "HdrS", boot_flag AA55H, an E820 map
 *     and the command line at 20000H (Linux Documentation/arch/x86/boot.rst
 *     "64-bit Boot Protocol", zero-page.rst);
 *   - no firmware and no ACPI tables (what a VMM without ACPI gives: the
 *     kernel must find no RSDP and run on the boot CPU alone);
 *   - KVM's in-kernel local APIC and PIT; COM1 (the KTAP stream to stdout,
 *     with a scratch register so that the kernel finds it) and QEMU's
 *     isa-debug-exit at F4H emulated here; every other port reads FFH.
 *
 * usage: minivmm ELF [COMMAND-LINE]
 * Exit status: the exit device's (33 pass, 35 fail, 37 error), 2 when the
 * guest cannot be started (one line on stderr: no /dev/kvm, a bad ELF),
 * 3 when it ended without the exit device (halt, shutdown, KVM error,
 * 300 s).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MEM_SIZE     (256u << 20)
#define GDT_ADDR     0x500
#define ZERO_PAGE    0x7000
#define PML4_ADDR    0x9000
#define PDPT_ADDR    0xA000
#define PD_ADDR	     0xB000
#define CMDLINE_ADDR 0x20000
#define EBDA_START   0x9FC00
#define HIGH_RAM     0x100000
#define COM1	     0x3F8
#define DEBUG_EXIT   0xF4
#define TIME_LIMIT_S 300
#define MAX_CPUID    256

static void die(const char *what)
{
	fprintf(stderr, "minivmm: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(2);
}

static uint8_t *mem;

static void put(uint64_t at, const void *p, size_t n)
{
	if (at + n > MEM_SIZE)
		die("guest address out of range");
	memcpy(mem + at, p, n);
}

static void put32(uint64_t at, uint32_t v)
{
	put(at, &v, 4);
}

static void put64(uint64_t at, uint64_t v)
{
	put(at, &v, 8);
}

/* Every PT_LOAD at its physical address; returns e_entry. */
static uint64_t load_elf(const char *path)
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
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(f + eh->e_phoff + i * sizeof(Elf64_Phdr));
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_offset + ph->p_filesz > (uint64_t)st.st_size ||
		    ph->p_memsz < ph->p_filesz || ph->p_paddr + ph->p_memsz > MEM_SIZE)
			die("a LOAD segment outside the file or the guest's memory");
		put(ph->p_paddr, f + ph->p_offset, ph->p_filesz);
		memset(mem + ph->p_paddr + ph->p_filesz, 0, ph->p_memsz - ph->p_filesz);
	}
	uint64_t entry = eh->e_entry;
	munmap(f, (size_t)st.st_size);
	close(fd);
	return entry;
}

static void e820(int i, uint64_t addr, uint64_t size, uint32_t type)
{
	uint64_t at = ZERO_PAGE + 0x2D0 + 20 * (uint64_t)i;
	put64(at, addr);
	put64(at + 8, size);
	put32(at + 16, type);
}

static void boot_data(const char *cmdline)
{
	put64(GDT_ADDR, 0);
	put64(GDT_ADDR + 8, 0x00AF9B000000FFFFull);  /* 08H: 64-bit code */
	put64(GDT_ADDR + 16, 0x00CF93000000FFFFull); /* 10H: data */
	put64(PML4_ADDR, PDPT_ADDR | 3);
	put64(PDPT_ADDR, PD_ADDR | 3);
	for (uint64_t i = 0; i < 512; i++)
		put64(PD_ADDR + 8 * i, (i << 21) | 0x83);

	mem[ZERO_PAGE + 0x1FE] = 0x55;
	mem[ZERO_PAGE + 0x1FF] = 0xAA;
	put(ZERO_PAGE + 0x202, "HdrS", 4);
	mem[ZERO_PAGE + 0x1E8] = 2;
	e820(0, 0, EBDA_START, 1);
	e820(1, HIGH_RAM, MEM_SIZE - HIGH_RAM, 1);
	put(CMDLINE_ADDR, cmdline, strlen(cmdline) + 1);
	put32(ZERO_PAGE + 0x228, CMDLINE_ADDR);
}

static void set_seg(struct kvm_segment *s, uint16_t sel, int code)
{
	*s = (struct kvm_segment){.base = 0,
				  .limit = 0xFFFFFFFF,
				  .selector = sel,
				  .present = 1,
				  .dpl = 0,
				  .s = 1,
				  .g = 1};
	s->type = code ? 11 : 3;
	s->l = code;
	s->db = !code;
}

static void setup_vcpu(int kvm, int vcpu, uint64_t entry)
{
	static struct {
		struct kvm_cpuid2 h;
		struct kvm_cpuid_entry2 e[MAX_CPUID];
	} cpuid = {.h.nent = MAX_CPUID};
	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, &cpuid) < 0 ||
	    ioctl(vcpu, KVM_SET_CPUID2, &cpuid) < 0)
		die("KVM CPUID");

	struct kvm_sregs sr;
	if (ioctl(vcpu, KVM_GET_SREGS, &sr) < 0)
		die("KVM_GET_SREGS");
	set_seg(&sr.cs, 0x08, 1);
	set_seg(&sr.ds, 0x10, 0);
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	sr.tr = (struct kvm_segment){.limit = 0x67, .type = 11, .present = 1};
	sr.ldt = (struct kvm_segment){.type = 2, .unusable = 1};
	sr.gdt.base = GDT_ADDR;
	sr.gdt.limit = 23;
	sr.cr3 = PML4_ADDR;
	sr.cr4 = 1u << 5;					 /* PAE */
	sr.cr0 = (1u << 0) | (1u << 4) | (1u << 5) | (1u << 31); /* PE ET NE PG */
	sr.efer = (1u << 8) | (1u << 10);			 /* LME LMA */
	if (ioctl(vcpu, KVM_SET_SREGS, &sr) < 0)
		die("KVM_SET_SREGS");
	/* No stack: the boot protocol promises none (RSP 0 here, so that a
	 * kernel that pushes before setting its own faults at once). */
	struct kvm_regs r = {.rip = entry, .rsi = ZERO_PAGE, .rflags = 2};
	if (ioctl(vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
}

/* COM1 enough for arch/x86_64/serial.c, and the exit device. Returns the
 * exit device's status, or -1 to go on. */
static int port_io(struct kvm_run *run)
{
	static uint8_t scratch, lcr;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint16_t port = run->io.port;

	for (uint32_t n = 0; n < run->io.count; n++, data += run->io.size) {
		if (run->io.direction == KVM_EXIT_IO_OUT) {
			if (port == COM1 + 3) {
				lcr = data[0]; /* bit 7 DLAB: port +0 is the divisor */
			} else if (port == COM1 && !(lcr & 0x80)) {
				fputc(data[0], stdout);
				if (data[0] == '\n')
					fflush(stdout);
			} else if (port == COM1 + 7) {
				scratch = data[0];
			} else if (port == DEBUG_EXIT) {
				fflush(stdout);
				return (data[0] << 1) | 1;
			}
			continue;
		}
		memset(data, 0xFF, run->io.size);
		if (port == COM1 + 5)
			data[0] = 0x60; /* LSR: transmitter empty */
		else if (port == COM1 + 7)
			data[0] = scratch;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: minivmm ELF [COMMAND-LINE]\n");
		return 2;
	}
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
	struct kvm_userspace_memory_region region = {.slot = 0,
						     .guest_phys_addr = 0,
						     .memory_size = MEM_SIZE,
						     .userspace_addr = (uintptr_t)mem};
	struct kvm_pit_config pit = {.flags = KVM_PIT_SPEAKER_DUMMY};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	if (ioctl(vm, KVM_CREATE_IRQCHIP, 0) < 0 || ioctl(vm, KVM_CREATE_PIT2, &pit) < 0)
		die("KVM in-kernel APIC and PIT");

	uint64_t entry = load_elf(argv[1]);
	boot_data(argc == 3 ? argv[2] : "");
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || size <= 0)
		die("KVM_CREATE_VCPU");
	struct kvm_run *run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("the vCPU's run area");
	setup_vcpu(kvm, vcpu, entry);

	alarm(TIME_LIMIT_S);
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0 && errno != EINTR)
			die("KVM_RUN");
		switch (run->exit_reason) {
		case KVM_EXIT_IO: {
			int status = port_io(run);
			if (status >= 0)
				return status;
			break;
		}
		case KVM_EXIT_MMIO:
			if (!run->mmio.is_write)
				memset(run->mmio.data, 0xFF, sizeof(run->mmio.data));
			break;
		case KVM_EXIT_HLT:
			fflush(stdout);
			fprintf(stderr, "minivmm: the guest halted without the exit device\n");
			return 3;
		default: {
			struct kvm_regs r;
			fflush(stdout);
			ioctl(vcpu, KVM_GET_REGS, &r);
			fprintf(stderr,
				"minivmm: the guest stopped: KVM exit reason %u at RIP %#llx\n",
				run->exit_reason, (unsigned long long)r.rip);
			return 3;
		}
		}
	}
}

; SPDX-License-Identifier: MIT
;
; The direct-boot kernel's two entries (build/pmutest.elf, boot/direct/
; linker.ld), both ending in direct_main(info, protocol) on our own stack,
; GDT and page tables:
;
;  - pvh_start32, named by the XEN_ELFNOTE_PHYS32_ENTRY note: the x86/HVM
;    direct boot ABI (Xen's docs/misc/pvh.pandoc; QEMU -kernel on pc, q35
;    and microvm, Firecracker, Cloud Hypervisor). 32-bit protected mode,
;    paging off, flat CS/DS, EBX = physical address of hvm_start_info, no
;    stack.
;  - linux64_start, the ELF entry point: the Linux x86-64 boot protocol's
;    64-bit entry (Documentation/arch/x86/boot.rst, "64-bit Boot Protocol";
;    crosvm, Firecracker without PVH). Long mode, paging on with the VMM's
;    identity map, RSI = physical address of boot_params (the zero page).
;
; The VMM's GDT and page tables live in memory we do not own, so both
; entries switch to ours at once: a GDT with one 64-bit code and one data
; segment, and page tables fixed at link time that map the first 4 GiB 1:1
; with 2 MiB pages (the kernel, the boot data, the pool boot/direct picks
; and the APIC window are all below 4 GiB; arch/x86_64/paging.c builds the
; real tables later). No multiboot header anywhere: QEMU tries multiboot
; before PVH and refuses an ELF64 that has one.

%define XEN_ELFNOTE_PHYS32_ENTRY 18
%define SEL_CODE64 0x08
%define SEL_DATA   0x10
%define STACK_SIZE (16 * 1024)
%define DIRECT_PVH     1 ; enum direct_protocol (boot/direct/direct.h)
%define DIRECT_LINUX64 2

%define CR0_PE   (1 << 0)
%define CR0_PG   (1 << 31)
%define CR0_DEFINED 0x80010033 ; PG WP NE ET MP PE
%define CR4_PAE  (1 << 5)
%define MSR_EFER 0xC0000080
%define EFER_LME (1 << 8)
%define PTE_P_RW 0x03
%define PTE_PS   0x80

extern direct_main
extern __bss_start, __bss_end
global pvh_start32, linux64_start, direct_entry_tsc, direct_entry_cr0

; The PVH note: name "Xen", the physical entry address as 8 bytes (Linux's
; _ASM_PTR form): QEMU reads a size_t from an ELF64's note (x86-common.c
; read_pvh_start_addr) and keeps its low 32 bits; rust-vmm's linux-loader
; (Firecracker, Cloud Hypervisor) needs a descriptor of 4 bytes or more and
; reads 4 (elf/mod.rs:397-410). Aligned 4, not 8: QEMU 7.2 finds the
; descriptor by rounding the name size up to the note segment's p_align.
section .note.pvh note alloc noexec nowrite align=4
	dd 4, 8, XEN_ELFNOTE_PHYS32_ENTRY
	db "Xen", 0
	dq pvh_start32

section .text.direct_entry progbits alloc exec nowrite align=16

bits 32
pvh_start32:
	cli
	cld
	rdtsc
	mov [direct_entry_tsc], eax
	mov [direct_entry_tsc + 4], edx
	mov esi, ebx			; hvm_start_info (kept across the switch)
	lgdt [gdt_desc]
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, pml4
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax
	jmp SEL_CODE64:.long_mode
bits 64
.long_mode:
	mov edi, esi			; info (zero-extended)
	mov esi, DIRECT_PVH
	jmp common64

linux64_start:
	cli
	cld
	mov r8, rsi			; boot_params
	rdtsc
	mov [rel direct_entry_tsc], eax
	mov [rel direct_entry_tsc + 4], edx
	lea rsp, [rel stack_top]	; the protocol promises no stack
	lgdt [rel gdt_desc]
	lea rax, [rel pml4]
	mov cr3, rax
	lea rax, [rel .reload_cs]
	push SEL_CODE64
	push rax
	retfq
.reload_cs:
	mov rdi, r8
	mov esi, DIRECT_LINUX64
	; fall through

common64:
	; A defined CR0, whatever the VMM left: PE MP ET NE WP PG (0x80010033).
	; Firecracker's Linux64 path and crosvm hand over CD (and NW) set,
	; every PVH path WP and NE clear; the UEFI front end runs with WP and
	; NE set. The entry value is kept for the report.
	mov rax, cr0
	mov [rel direct_entry_cr0], rax
	mov eax, CR0_DEFINED
	mov cr0, rax
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	; .bss is ours to clear (a loader may not), with caches on (CR0.CD
	; clear above) and a qword per iteration: both entries come here, the
	; PVH one from 32-bit code that could store only a dword at a time. A
	; guest that runs slowly pays per iteration (1.8 MiB was
	; 456K REP STOSD iterations, 20-40% of a short run's instructions).
	; Nothing here uses .bss before: the Linux entry's stack in .bss held
	; only its far return.
	mov r9, rdi			; the boot data pointer, kept
	lea rdi, [rel __bss_start]
	lea rcx, [rel __bss_end]
	sub rcx, rdi
	mov rdx, rcx
	shr rcx, 3
	rep stosq			; rax = 0
	mov rcx, rdx
	and ecx, 7
	rep stosb
	mov rdi, r9
	lea rsp, [rel stack_top]
	call direct_main		; never returns
.halt:
	cli
	hlt
	jmp .halt

section .data
align 8
direct_entry_tsc: dq 0			; TSC at the first instruction (.data:
					; written before .bss is cleared)
direct_entry_cr0: dq 0			; CR0 as the VMM left it
align 16
gdt:
	dq 0
	dq 0x00AF9A000000FFFF		; 08H: 64-bit code, DPL 0
	dq 0x00CF92000000FFFF		; 10H: data, DPL 0
gdt_end:
gdt_desc:
	dw gdt_end - gdt - 1
	dq gdt

; 4 GiB identity map: PML4[0] -> PDPT[0..3] -> four page directories of
; 512 2 MiB pages each, write-back (SDM Vol. 3A 4.5).
align 4096
pml4:
	dq pdpt + PTE_P_RW
	times 511 dq 0
pdpt:
%assign g 0
%rep 4
	dq pd + g * 4096 + PTE_P_RW
%assign g g + 1
%endrep
	times 508 dq 0
pd:
%assign i 0
%rep 2048
	dq (i << 21) | PTE_PS | PTE_P_RW
%assign i i + 1
%endrep

section .bss
align 16
stack: resb STACK_SIZE
stack_top:

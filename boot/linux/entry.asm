; SPDX-License-Identifier: MIT
;
; The protected-mode kernel of build/pmutest.bin (boot/linux/setup.asm puts
; it after the real-mode part), linked at 0 and run wherever the loader put
; it (relocatable_kernel = 1: GRUB at pref_address or elsewhere, kexec
; wherever it finds room, QEMU at 100000H). Its two entries, as Linux
; Documentation/arch/x86/boot.rst defines them:
;
;  - startup_32 at offset 0 (code32_start): "32-bit Boot Protocol". Flat
;    protected mode, paging off, ESI = the zero page (boot_params), no
;    stack. GRUB's linux (BIOS and EFI: it leaves long mode itself),
;    setup.asm's real-mode code (QEMU -kernel, syslinux, iPXE, linux16).
;  - startup_64 at offset 200H: "64-bit Boot Protocol". Long mode, an
;    identity map of the kernel, the zero page and the command line, RSI =
;    the zero page. kexec -l (bzImage64).
;
; Both take our GDT and page tables (the loader's are in memory we do not
; own): the first 4 GiB mapped 1:1 with 2 MiB pages, as boot/direct/
; entry.asm maps them, but built at run time, since their addresses depend
; on where the image sits. The code and data used before the image is
; relocated are in this one section, addressed from the load address (EBP /
; RBP) by same-section offsets: nothing here needs a relocation. Then
; .bss is cleared, the RELR table applied (boot/uefi/relocate.c, as the
; UEFI image applies its own), and direct_main() reads what the loader
; gave (boot/direct/direct_main.c, protocol DIRECT_LINUX_IMAGE).

%define SEL_CODE64 0x08
%define SEL_DATA   0x10
%define STACK_SIZE (16 * 1024)
%define DIRECT_LINUX_IMAGE32 3	; enum direct_protocol (boot/direct/direct.h)
%define DIRECT_LINUX_IMAGE64 4
%define BP_SCRATCH 0x1E4	; zero-page.rst: "scratch", 4 bytes

%define CR0_PG   (1 << 31)
%define CR0_PE   (1 << 0)
%define CR0_DEFINED 0x80010033	; PG WP NE ET MP PE, as boot/direct/entry.asm
%define CR4_PAE  (1 << 5)
%define MSR_EFER 0xC0000080
%define EFER_LME (1 << 8)
%define PTE_P_RW 0x03
%define PTE_PS   0x80

extern direct_main, efi_apply_relr
extern __bss_start, __bss_end
global startup_32, startup_64, direct_entry_tsc, direct_entry_cr0

section .text.linux_entry progbits alloc exec write align=4096

%define OFF(x) ((x) - startup_32)

bits 32
startup_32:
	cli
	cld
	; Our address: a call through a 4-byte stack in the zero page's
	; scratch field, the one word the protocol gives a kernel before it
	; has a stack of its own.
	lea esp, [esi + BP_SCRATCH + 4]
	call .here
.here:
	pop ebp
	sub ebp, OFF(.here)
	rdtsc
	mov [ebp + OFF(direct_entry_tsc)], eax
	mov [ebp + OFF(direct_entry_tsc) + 4], edx
	mov eax, cr0
	mov [ebp + OFF(direct_entry_cr0)], eax
	lea esp, [ebp + OFF(boot_stack_top)]
	call build_page_tables
	lea eax, [ebp + OFF(gdt)]
	mov [ebp + OFF(gdt_desc) + 2], eax
	lgdt [ebp + OFF(gdt_desc)]
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	lea eax, [ebp + OFF(pml4)]
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax
	lea eax, [ebp + OFF(.long_mode)]
	push SEL_CODE64
	push eax
	retf
bits 64
.long_mode:
	mov esi, esi			; the zero page, zero-extended
	mov r13d, DIRECT_LINUX_IMAGE32
	jmp common64

; PML4[0] -> PDPT[0..3] -> four page directories of 2 MiB pages, 0-4 GiB,
; write-back (SDM Vol. 3A 4.5). EBP = the load address; 32-bit code, run
; with paging off (startup_64 runs it too, from a 32-bit-clean address:
; the kernel is below 4 GiB, xloadflags says so).
bits 32
build_page_tables:
	lea edi, [ebp + OFF(pml4)]
	lea eax, [ebp + OFF(pdpt) + PTE_P_RW]
	mov [edi], eax
	mov dword [edi + 4], 0
	lea edi, [ebp + OFF(pdpt)]
	lea eax, [ebp + OFF(pd) + PTE_P_RW]
	xor ecx, ecx
.pdpt:
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	add eax, 4096
	inc ecx
	cmp ecx, 4
	jb .pdpt
	lea edi, [ebp + OFF(pd)]
	xor ecx, ecx
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_PS | PTE_P_RW
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 2048
	jb .pd
	ret

	align 512, db 0xCC
bits 64
startup_64:				; offset 200H (boot.rst)
	cli
	cld
	lea rbp, [rel startup_32]
	mov r12, rsi			; the zero page
	rdtsc
	mov [rbp + OFF(direct_entry_tsc)], eax
	mov [rbp + OFF(direct_entry_tsc) + 4], edx
	mov rax, cr0
	mov [rbp + OFF(direct_entry_cr0)], rax
	lea rsp, [rbp + OFF(boot_stack_top)]
	; The tables, written through the loader's identity map (it maps the
	; kernel); the same code as the 32-bit path, addresses below 4 GiB.
	mov rax, rbp
	shr rax, 32
	jnz .too_high
	call build_page_tables_64
	lea rax, [rbp + OFF(gdt)]
	mov [rbp + OFF(gdt_desc) + 2], rax
	lgdt [rbp + OFF(gdt_desc)]
	lea rax, [rbp + OFF(pml4)]
	mov cr3, rax
	lea rax, [rbp + OFF(.reload_cs)]
	push SEL_CODE64
	push rax
	retfq
.reload_cs:
	mov rsi, r12
	mov r13d, DIRECT_LINUX_IMAGE64
	jmp common64
.too_high:				; xloadflags has no XLF_CAN_BE_LOADED_ABOVE_4G:
	hlt				; a loader that ignores it gets a halt
	jmp .too_high

build_page_tables_64:
	lea rdi, [rbp + OFF(pml4)]
	lea rax, [rbp + OFF(pdpt) + PTE_P_RW]
	mov [rdi], rax
	lea rdi, [rbp + OFF(pdpt)]
	lea rax, [rbp + OFF(pd) + PTE_P_RW]
	xor ecx, ecx
.pdpt:
	mov [rdi + rcx * 8], rax
	add rax, 4096
	inc ecx
	cmp ecx, 4
	jb .pdpt
	lea rdi, [rbp + OFF(pd)]
	xor ecx, ecx
.pd:
	mov rax, rcx
	shl rax, 21
	or rax, PTE_PS | PTE_P_RW
	mov [rdi + rcx * 8], rax
	inc ecx
	cmp ecx, 2048
	jb .pd
	ret

; RSI = the zero page, R13 = the entry taken; our GDT and page tables are in.
common64:
	; A defined CR0 whatever the loader left (boot/direct/entry.asm says
	; why); the entry value is kept for the report.
	mov eax, CR0_DEFINED
	mov cr0, rax
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	lea rsp, [rel boot_stack_top]
	mov r12, rsi
	lea rdi, [rel __bss_start]
	lea rcx, [rel __bss_end]
	sub rcx, rdi
	mov rdx, rcx
	shr rcx, 3
	rep stosq			; rax = 0
	mov rcx, rdx
	and ecx, 7
	rep stosb
	call efi_apply_relr		; PC-relative only: safe before it has run
	mov rdi, r12
	mov esi, r13d
	call direct_main		; never returns
.halt:
	cli
	hlt
	jmp .halt

align 8
direct_entry_tsc: dq 0			; TSC at the first instruction
direct_entry_cr0: dq 0			; CR0 as the loader left it
align 16
gdt:
	dq 0
	dq 0x00AF9A000000FFFF		; 08H: 64-bit code, DPL 0
	dq 0x00CF92000000FFFF		; 10H: data, DPL 0
gdt_end:
gdt_desc:
	dw gdt_end - gdt - 1
	dq 0				; its address, written at entry

; Zero-filled in the file (the loader loads them with the image, so no
; .bss clearing or relocation is needed before they are used).
align 4096
pml4: times 4096 db 0
pdpt: times 4096 db 0
pd: times 4 * 4096 db 0
boot_stack: times STACK_SIZE db 0
boot_stack_top:

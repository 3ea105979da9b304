; SPDX-License-Identifier: MIT
;
; The application processors' start-up code (arch/x86_64/smp.c copies it to
; a page below 1 MiB; the Start-Up IPI's vector names that page, and the AP
; begins there in real mode with CS = page >> 4, IP = 0, SDM Vol. 3A 9.4.4 /
; 10.6.1). From real mode to long mode in the order of SDM Vol. 3A 9.9.1 and
; 9.8.5: a temporary GDT, CR0.PE, then CR4.PAE, CR3, EFER.LME, CR0.PG, and a
; far return to a 64-bit code segment. CR3 is loaded in 32-bit mode, so it
; must be below 4 GiB: it is a copy of the kernel's PML4 in the second page
; (same entries, so the same address space); the 64-bit code then loads the
; kernel's own CR3, stack and argument from the parameter block and calls
; the C entry. Everything is addressed relative to the page (EBX = its
; physical address), so the code runs wherever smp.c put it.

bits 16
default abs

; struct ap_boot in arch/x86_64/x86.h, at AP_BOOT_OFFSET in the page.
%define AP_BOOT_OFFSET 0xF00
%define APB_GDTR	0	; u16 limit, u32 base
%define APB_PM_ENTRY	8	; u32 offset, u16 selector: far pointer
%define APB_CR3_LOW	16	; the PML4 copy (below 4 GiB)
%define APB_CR4		20	; CR4 for the switch (PAE)
%define APB_EFER	24	; u64
%define APB_CR3		32	; u64, the kernel's PML4
%define APB_STACK	40	; u64
%define APB_ENTRY	48	; u64, void entry(void *arg)
%define APB_ARG		56	; u64

%define SEL_CODE32	0x08
%define SEL_DATA32	0x10
%define SEL_CODE64	0x18

section .text

global x86_trampoline_start:data hidden
global x86_trampoline_pm32:data hidden
global x86_trampoline_end:data hidden

x86_trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	movzx ebx, ax
	shl ebx, 4			; EBX: the page's physical address
	o32 lgdt [AP_BOOT_OFFSET + APB_GDTR]
	mov eax, cr0
	or eax, 1			; PE
	mov cr0, eax
	jmp dword far [AP_BOOT_OFFSET + APB_PM_ENTRY]

bits 32
x86_trampoline_pm32:
	mov ax, SEL_DATA32
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea esp, [ebx + AP_BOOT_OFFSET]	; a stack below the parameters
	mov eax, [ebx + AP_BOOT_OFFSET + APB_CR4]
	mov cr4, eax
	mov eax, [ebx + AP_BOOT_OFFSET + APB_CR3_LOW]
	mov cr3, eax
	mov ecx, 0xC0000080		; IA32_EFER
	mov eax, [ebx + AP_BOOT_OFFSET + APB_EFER]
	mov edx, [ebx + AP_BOOT_OFFSET + APB_EFER + 4]
	wrmsr
	mov eax, cr0
	or eax, 0x80000001		; PG | PE
	mov cr0, eax
	lea eax, [ebx + (long_mode - x86_trampoline_start)]
	push dword SEL_CODE64
	push eax
	retf

bits 64
long_mode:
	mov ebx, ebx			; the upper half is undefined after the switch
	mov rax, [rbx + AP_BOOT_OFFSET + APB_CR3]
	mov cr3, rax
	mov rsp, [rbx + AP_BOOT_OFFSET + APB_STACK]
	mov rdi, [rbx + AP_BOOT_OFFSET + APB_ARG]
	mov rax, [rbx + AP_BOOT_OFFSET + APB_ENTRY]
	xor ebp, ebp
	call rax
.halt:
	cli
	hlt
	jmp .halt

x86_trampoline_end:

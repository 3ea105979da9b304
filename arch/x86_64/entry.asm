; SPDX-License-Identifier: MIT
;
; Interrupt and exception entry, non-local returns, and the transfer to an
; outer ring. Every vector gets a stub (so a stray interrupt is reported,
; never a triple fault); all stubs build the same struct x86_frame (x86.h)
; and call x86_trap(), which may change the frame (fixups) or leave through
; x86_ctx_restore() and never come back.

bits 64
default rel

%define SEL_KCODE 0x08
%define SEL_KDATA 0x10

extern x86_trap

section .text

; Vectors whose exceptions push an error code, SDM Vol. 3A Table 6-1:
; #DF 8, #TS 10, #NP 11, #SS 12, #GP 13, #PF 14, #AC 17, #CP 21, #VC 29,
; #SX 30. The others get a 0 pushed so that the frame is uniform.
%macro VECTOR_STUB 1
align 16
vector_stub_%1:
%if %1 == 8 || (%1 >= 10 && %1 <= 14) || %1 == 17 || %1 == 21 || %1 == 29 || %1 == 30
%else
	push 0
%endif
	push %1
	jmp trap_common
%endmacro

%assign i 0
%rep 256
VECTOR_STUB i
%assign i i + 1
%endrep

%macro POP_GPRS 0
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
%endmacro

align 16
trap_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp		; struct x86_frame *; the CPU aligned RSP to 16
	call x86_trap		; and 22 quadwords keep it aligned
	test eax, eax
	jnz .no_iret
	POP_GPRS
	add rsp, 16		; vector, error code
	iretq
; Back into an NMI handler that took a fault (a probe's fixup): IRET would
; unblock NMIs while the handler still runs on the NMI stack, and a second
; NMI would overwrite its frame (SDM Vol. 3A 6.7.1). x86_trap has stored
; [RFLAGS][RIP] below the interrupted RSP and pointed frame.rsp at them.
.no_iret:
	POP_GPRS
	add rsp, 16		; vector, error code -> RIP, CS, RFLAGS, RSP, SS
	mov rsp, [rsp + 24]	; the interrupted stack, RFLAGS and RIP on top
	popfq
	ret

; int x86_ctx_save(struct x86_ctx *c): setjmp. 0 now, val from restore.
global x86_ctx_save:function hidden
x86_ctx_save:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]
	mov [rdi + 48], rax	; RSP after our return
	mov rax, [rsp]
	mov [rdi + 56], rax	; our return address
	xor eax, eax
	ret

; void x86_ctx_restore(const struct x86_ctx *c, int val): longjmp, also from
; a trap handler running on another stack. Interrupts stay off; the data
; segments are reloaded because a trap from an outer ring left them null.
global x86_ctx_restore:function hidden
x86_ctx_restore:
	cli
	mov ax, SEL_KDATA
	mov ss, ax
	mov ds, ax
	mov es, ax
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	mov eax, esi
	jmp [rdi + 56]

; void x86_enter_ring(cs, ss, rsp, rflags, fn, arg): IRETQ to the outer
; ring at x86_user_trampoline, which calls fn(arg) and comes back through
; the #UD of its UD2 at x86_user_return (user.asm).
global x86_enter_ring:function hidden
extern x86_user_trampoline
x86_enter_ring:
	push rsi		; SS
	push rdx		; RSP
	push rcx		; RFLAGS
	push rdi		; CS
	lea rax, [x86_user_trampoline]
	push rax		; RIP
	mov rdi, r9		; arg
	mov rsi, r8		; fn
	; Nothing of the kernel's registers reaches the outer ring.
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor edx, edx
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	iretq

; void x86_load_segments(void): after LGDT, reload CS with a far return and
; the data segments with the ring-0 data selector.
global x86_load_segments:function hidden
x86_load_segments:
	; Loading GS clears its base, which holds this CPU's per-CPU pointer
	; (smp.c): kept across the reload.
	mov ecx, 0xC0000101	; IA32_GS_BASE
	rdmsr
	mov r8d, eax
	mov r9d, edx
	mov ax, SEL_KDATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov eax, r8d
	mov edx, r9d
	wrmsr
	pop rax			; our return address
	push SEL_KCODE
	push rax
	retfq

; void x86_iret_to_self(void): an IRETQ to the next instruction. Leaving an
; NMI handler through x86_ctx_restore leaves NMIs blocked until the next
; IRET (SDM Vol. 3A 6.7.1); this is that IRET.
global x86_iret_to_self:function hidden
x86_iret_to_self:
	mov rax, rsp
	push SEL_KDATA		; SS
	push rax		; RSP as it was before these pushes
	pushfq
	push SEL_KCODE
	lea rax, [.back]
	push rax
	iretq
.back:
	ret

; void x86_switch_stack(uint64_t top, void (*fn)(void *), void *arg)
global x86_switch_stack:function hidden
x86_switch_stack:
	mov rsp, rdi
	xor ebp, ebp
	mov rdi, rdx
	call rsi
	ud2

section .data
align 8
global x86_vector_stubs:data hidden
x86_vector_stubs:
%assign i 0
%rep 256
	dq vector_stub_%+i
%assign i i + 1
%endrep

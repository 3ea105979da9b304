; SPDX-License-Identifier: MIT
;
; The branch chain of include/arch.h: a run of taken near branches at
; addresses the kernel can name, between the two WRMSRs that switch an LBR
; on and off. The LBR suites compare the recorded FROM/TO with these labels.

bits 64
default rel

section .text progbits alloc exec nowrite align=64

; Six taken branches, JMP and JZ alternating (ZF must be set), labelled
; .b0-.b5 (the branch) and .t0-.t5 (its target) under the enclosing
; function's name; a not-taken path would be a UD2, never reached.
%define CHAIN_BRANCHES 6
%macro JMP_JZ_CHAIN 0
%assign i 0
%rep CHAIN_BRANCHES
%if i % 2
.b%[i]:	jz .t%[i]
%else
.b%[i]:	jmp .t%[i]
%endif
	ud2
.t%[i]:
%assign i i + 1
%endrep
%endmacro

; void arch_branch_chain(uint32_t msr, uint64_t on, uint64_t off)
; ZF is set before the first WRMSR (WRMSR and JMP leave flags alone), so
; every JZ is taken; each not-taken path would be a UD2, never reached.
; Interrupts are held off across it (the LBRs would record an interrupt
; and its IRET); RFLAGS comes back as it was.
align 64
global arch_branch_chain:function hidden
arch_branch_chain:
	pushfq
	cli
	mov r8, rdx		; off
	mov r9d, r8d		; off[31:0]
	shr r8, 32		; off[63:32]
	mov ecx, edi		; msr
	mov eax, esi		; on[31:0]
	mov rdx, rsi
	shr rdx, 32		; on[63:32]
	cmp ecx, ecx		; ZF = 1
	wrmsr
	JMP_JZ_CHAIN
	mov eax, r9d
	mov edx, r8d
.b6:	call .t6
.r6:	wrmsr
	popfq
	ret
.t6:
.b7:	ret

; void arch_branch_chain_sites(uint64_t from[8], uint64_t to[8])
%macro SITE 3 ; index, from label, to label
	lea rax, [%2]
	mov [rdi + 8 * %1], rax
	lea rax, [%3]
	mov [rsi + 8 * %1], rax
%endmacro
; The sites of a JMP_JZ_CHAIN's branches, .bN to .tN under function %1, as
; entries 0 to CHAIN_BRANCHES - 1.
%macro CHAIN_SITES 1 ; the function holding the chain
%assign i 0
%rep CHAIN_BRANCHES
	SITE i, %1.b%[i], %1.t%[i]
%assign i i + 1
%endrep
%endmacro
global arch_branch_chain_sites:function hidden
arch_branch_chain_sites:
	CHAIN_SITES arch_branch_chain
	SITE 6, arch_branch_chain.b6, arch_branch_chain.t6
	SITE 7, arch_branch_chain.b7, arch_branch_chain.r6
	ret

; uint64_t arch_branch_chain_user(uint64_t arg): JMP, JZ, JMP, JZ, JMP, JZ,
; all taken (XOR sets ZF), then RET with RAX = 0. In the user pages.
section .text.user progbits alloc exec nowrite align=64
align 64
global arch_branch_chain_user:function hidden
arch_branch_chain_user:
	xor eax, eax		; ZF = 1, the result 0
	JMP_JZ_CHAIN
	ret

section .text
; void arch_branch_chain_user_sites(uint64_t from[6], uint64_t to[6])
global arch_branch_chain_user_sites:function hidden
arch_branch_chain_user_sites:
	CHAIN_SITES arch_branch_chain_user
	ret

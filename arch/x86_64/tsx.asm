; SPDX-License-Identifier: MIT
;
; arch_workload_tsx (include/arch.h): a loop outside, then the same kind of
; loop inside one RTM transaction, so that IN_TX / IN_TXCP (SDM Vol. 3B
; 20.3.6.5) can be checked against a known split of retired instructions.
; Only called where CPUID.(07H,0):EBX.RTM[11] = 1 (the test requires it).

bits 64
default rel

section .text progbits alloc exec nowrite align=64

; WORKLOAD_INSNS_PER_ITER (10) register-only instructions, the last a JNZ
; taken in every iteration but the last; RDI counts down. Nothing here
; touches memory, so the transaction has no data conflicts to abort on.
%macro TSX_LOOP 0
%%loop:
	add r8, 1		; 1
	xor r9, r8		; 2
	add r9, 7		; 3
	or r8, 1		; 4
	sub r9, r8		; 5
	and r9, 0xff		; 6
	add r10, 3		; 7
	xor r10, r9		; 8
	dec rdi			; 9
	jnz %%loop		; 10
%endmacro

; uint32_t arch_workload_tsx(uint64_t outside /* RDI */,
;                            uint64_t inside /* RSI */, bool abort /* DL */)
align 64
global arch_workload_tsx:function hidden
arch_workload_tsx:
	pushfq
	cli			; before XBEGIN: CLI inside may abort (Vol. 1 16.3.8.1)
	mov r11, rsi		; inside
	test rdi, rdi
	jz .transaction
	TSX_LOOP
.transaction:
	mov rdi, r11
	xbegin .fallback	; EAX keeps its value on the started path
	TSX_LOOP
	test dl, dl
	jz .commit
	xabort 0xA5		; ARCH_TSX_XABORT_CODE
.commit:
	xend
	mov eax, 0xFFFFFFFF	; ARCH_TSX_COMMITTED
.fallback:			; an abort lands here with its status in EAX
	popfq
	ret

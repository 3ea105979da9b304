; SPDX-License-Identifier: MIT
;
; arch_workload_intercepted (include/arch.h): the gate of
; arch_workload_gated around a loop of instructions a hypervisor intercepts.
; Between the two WRMSRs: each iteration retires exactly 6 instructions
; (INTERCEPT_INSNS_PER_ITER), the last a JNZ, then 3 MOVs
; (INTERCEPT_CLOSE_INSNS) load the closing WRMSR; no other instruction, no
; other branch. CPL 0 only (WRMSR, IN).

bits 64
default rel
section .text

; The closing MOVs and WRMSR, repeated in each variant so that no jump
; follows the loop inside the window.
%macro CLOSE 0
	mov ecx, r10d		; 1: msr
	mov eax, r11d		; 2: off[31:0]
	mov edx, r12d		; 3: off[63:32]
	wrmsr
	jmp .done
%endmacro

; void x86_workload_intercepted(enum arch_intercept kind /* EDI */,
;     uint64_t iters /* RSI */, uint32_t msr /* EDX */, uint64_t on /* RCX */,
;     uint64_t off /* R8 */, uint32_t target /* R9D */)
; iters == 0 or an unknown kind does nothing.
global x86_workload_intercepted:function hidden
x86_workload_intercepted:
	test rsi, rsi
	jz .out
	cmp edi, 2
	ja .out
	push rbx		; CPUID clobbers EBX
	push r12
	push r13
	mov r10d, edx		; msr
	mov r11d, r8d		; off[31:0]
	mov r12, r8
	shr r12, 32		; off[63:32]
	mov r13, rsi		; iters
	mov eax, ecx		; on[31:0]
	shr rcx, 32
	mov edx, ecx		; on[63:32]
	mov ecx, r10d
	cmp edi, 1
	je .wrmsr
	ja .in

.cpuid:
	wrmsr
.cpuid_loop:
	xor eax, eax		; 1
	xor ecx, ecx		; 2
	cpuid			; 3: intercepted
	nop			; 4
	dec r13			; 5
	jnz .cpuid_loop		; 6
	CLOSE

.wrmsr:
	wrmsr
.wrmsr_loop:
	mov ecx, r9d		; 1
	xor eax, eax		; 2
	xor edx, edx		; 3
	wrmsr			; 4: intercepted
	dec r13			; 5
	jnz .wrmsr_loop		; 6
	CLOSE

.in:
	wrmsr
.in_loop:
	mov edx, r9d		; 1
	nop			; 2
	nop			; 3
	in al, dx		; 4: intercepted
	dec r13			; 5
	jnz .in_loop		; 6
	CLOSE

.done:
	pop r13
	pop r12
	pop rbx
.out:
	ret

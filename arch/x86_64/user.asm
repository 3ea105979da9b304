; SPDX-License-Identifier: MIT
;
; Code that runs at any CPL (section .text.user: the only code pages with
; the user bit): the fault probes of include/arch.h, the calibrated
; workload, and the trampoline arch_call_at_cpl enters the outer ring by.
;
; Probes: a fault at a registered instruction (section x86_fixup) resumes
; at its fixup with the vector in RAX (x86_trap sets it). Returning the
; vector in a register, not through kernel data, is what lets the probes
; run at CPL 1..3; the error code is kept by the ring-0 handler.

bits 64
default rel

%define RDPMC_POISON 0xA5A5A5A5A5A5A5A5

; FIXUP insn, fixup: a fault at insn continues at fixup, RAX = vector.
%macro FIXUP 2
section x86_fixup progbits alloc noexec write align=8
	dq %1, %2
section .text.user
%endmacro

section .text.user progbits alloc exec nowrite align=64

; int x86_rdmsr_probe (rdmsr_safe of include/arch.h, untraced: probes.c)(uint32_t msr, uint64_t *val); *val = 0 on a fault.
global x86_rdmsr_probe:function hidden
x86_rdmsr_probe:
	mov ecx, edi
x86_rdmsr_probe.insn:
	rdmsr
	shl rdx, 32
	mov eax, eax
	or rax, rdx
	mov [rsi], rax
	xor eax, eax
	ret
x86_rdmsr_probe.fix:
	mov qword [rsi], 0
	ret
FIXUP x86_rdmsr_probe.insn, x86_rdmsr_probe.fix

; int x86_wrmsr_probe(uint32_t msr, uint64_t val)
global x86_wrmsr_probe:function hidden
extern x86_msr_note_write
x86_wrmsr_probe:
	; At CPL 0 the write is noted for its undo after the test (state.c);
	; at CPL 1-3 it faults anyway, and kernel text is not reachable there.
	mov ax, cs
	test al, 3
	jnz .write
	push rdi
	push rsi
	sub rsp, 8		; the call needs RSP 16-byte aligned
	call x86_msr_note_write
	add rsp, 8
	pop rsi
	pop rdi
.write:
	mov ecx, edi
	mov eax, esi
	mov rdx, rsi
	shr rdx, 32
x86_wrmsr_probe.insn:
	wrmsr
	xor eax, eax
	ret
x86_wrmsr_probe.fix:
	ret
FIXUP x86_wrmsr_probe.insn, x86_wrmsr_probe.fix

; int x86_rdpmc_probe(uint64_t rcx, uint64_t *rax, uint64_t *rdx): RCX whole;
; RAX and RDX poisoned first and returned whole. On a fault both outputs
; are the poison (RDPMC wrote nothing).
global x86_rdpmc_probe:function hidden
x86_rdpmc_probe:
	mov r8, rsi
	mov r9, rdx
	mov rcx, rdi
	mov rax, RDPMC_POISON
	mov rdx, rax
x86_rdpmc_probe.insn:
	rdpmc
	mov [r8], rax
	mov [r9], rdx
	xor eax, eax
	ret
x86_rdpmc_probe.fix:
	mov [r9], rdx		; still the poison
	mov [r8], rdx
	ret
FIXUP x86_rdpmc_probe.insn, x86_rdpmc_probe.fix

; The loop body of both workloads: WORKLOAD_INSNS_PER_ITER (10)
; instructions, one of them a conditional branch (JNZ, taken in every
; iteration but the last). The two MOVs load EAX/EDX from R10/R11 so that
; the gated variant's closing WRMSR follows the loop directly.
%macro WORKLOAD_LOOP 0
%%loop:
	mov eax, r10d		; 1
	mov edx, r11d		; 2
	add r8, 1		; 3
	xor r9, r8		; 4
	add r9, 7		; 5
	or r8, 1		; 6
	sub r9, r8		; 7
	and r9, 0xff		; 8
	dec rdi			; 9
	jnz %%loop		; 10
%endmacro

; void arch_workload(uint64_t iters); iters == 0 does nothing.
; Aligned so that each loop sits in one 64-byte line (no line-crossing
; effects on cycle counts); the padding precedes the entry, never runs.
align 64
global arch_workload:function hidden
arch_workload:
	test rdi, rdi
	jz .done
	WORKLOAD_LOOP
.done:
	ret

; void x86_workload_gated (arch_workload_gated untraced: probes.c)(uint64_t iters, uint32_t msr, uint64_t on,
;                          uint64_t off)
; WRMSR(msr, on); the loop; WRMSR(msr, off): between the two WRMSRs there
; are only the loop's instructions. iters == 0 does nothing (no WRMSR).
align 64
global x86_workload_gated:function hidden
x86_workload_gated:
	test rdi, rdi
	jz .done
	mov r10d, ecx		; off[31:0]
	mov r11, rcx
	shr r11, 32		; off[63:32]
	mov ecx, esi		; msr
	mov eax, edx		; on[31:0]
	shr rdx, 32		; on[63:32]
	wrmsr
	WORKLOAD_LOOP
	wrmsr
.done:
	ret
x86_workload_gated.end:

; void arch_workload_gated_range(uint64_t *start, uint64_t *end)
global arch_workload_gated_range:function hidden
arch_workload_gated_range:
	lea rax, [x86_workload_gated]
	mov [rdi], rax
	lea rax, [x86_workload_gated.end]
	mov [rsi], rax
	ret

; void arch_workload_llc_miss(const void *buf, uint64_t lines)
; Per line: CLFLUSH it, MFENCE (CLFLUSH is ordered by fences, SDM Vol. 2A
; CLFLUSH: the load below cannot complete before the flush), load it, and
; step WORKLOAD_LLC_STRIDE (4096) bytes to the next page: the hardware
; prefetchers that line i wakes work inside its page. 6 instructions per line
; (include/arch.h WORKLOAD_LLC_INSNS_PER_LINE). lines == 0 does nothing.
align 64
global arch_workload_llc_miss:function hidden
arch_workload_llc_miss:
	test rsi, rsi
	jz .done
.line:
	clflush [rdi]		; 1
	mfence			; 2
	mov rax, [rdi]		; 3: misses every cache level
	add rdi, 4096		; 4
	dec rsi			; 5
	jnz .line		; 6
.done:
	ret

; void arch_workload_branch_miss(uint64_t iters, uint64_t seed)
; xorshift64* (state RDX, multiplier R8); JS on bit 63 of the product. Both
; directions retire the same 3 instructions (JS, ADD or SUB, JMP), so every
; iteration retires 17 instructions and 3 branches
; (WORKLOAD_BRMISS_INSNS_PER_ITER / _BRANCHES_PER_ITER). iters == 0 does
; nothing; seed 0 (a fixed point of xorshift) is replaced by 1.
align 64
global arch_workload_branch_miss:function hidden
arch_workload_branch_miss:
	test rdi, rdi
	jz .done
	mov rdx, rsi
	test rdx, rdx
	jnz .seeded
	mov edx, 1
.seeded:
	mov r8, 0x2545F4914F6CDD1D
.iter:
	mov rax, rdx		; 1
	shr rax, 12		; 2
	xor rdx, rax		; 3
	mov rax, rdx		; 4
	shl rax, 25		; 5
	xor rdx, rax		; 6
	mov rax, rdx		; 7
	shr rax, 27		; 8
	xor rdx, rax		; 9
	mov rax, rdx		; 10
	imul rax, r8		; 11 (IMUL leaves SF undefined:)
	test rax, rax		; 12 SF = bit 63 of the output
	js .one			; 13 the unpredictable branch
	add r9, 1		; 14
	jmp .next		; 15
.one:
	sub r9, 1		; 14
	jmp .next		; 15
.next:
	dec rdi			; 16
	jnz .iter		; 17
.done:
	ret

; Entered by IRETQ from x86_enter_ring with RDI = arg, RSI = fn and a
; 16-byte aligned stack; fn's result goes back to ring 0 in RDI through the
; #UD of the UD2 at x86_user_return, which x86_trap() knows by its address.
; An exception, not INT n through a DPL 3 gate: every hypervisor delivers
; an outer ring's exceptions (they are how user space faults), while a
; software interrupt from CPL 1-3 is something some re-inject by emulating
; INT n, which KVM's emulator cannot do outside real mode (seen on this
; project's KVM host: "KVM internal error ... emulation failure" at CPL 1,
; the INT skipped at CPL 3).
global x86_user_trampoline:function hidden
global x86_user_return:function hidden
x86_user_trampoline:
	call rsi
	mov rdi, rax
x86_user_return:
	ud2

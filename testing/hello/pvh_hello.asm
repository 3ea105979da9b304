; SPDX-License-Identifier: MIT
;
; The direct-boot baseline of `make bench` and the probe of
; tools/kvm-host.sh: the smallest PVH kernel that reaches a verdict the
; way build/pmutest.elf does. Entered in 32-bit protected mode by the PVH
; note (as boot/direct/entry.asm), it writes one KTAP line to COM1 and ends
; QEMU through isa-debug-exit (port F4H: status 33, "pass"), so that QEMU
; start, the option ROM or qboot and the ELF loading cost what they cost
; pmutest, and nothing else.

bits 32

section .note.pvh note alloc noexec nowrite align=4
	dd 4, 4, 18			; "Xen", 4-byte desc, XEN_ELFNOTE_PHYS32_ENTRY
	db "Xen", 0
	dd pvh_hello

section .text progbits alloc exec nowrite align=16
global pvh_hello
pvh_hello:
	mov esi, line
.next:
	lodsb
	test al, al
	jz .exit
	mov dx, 0x3F8 + 5		; LSR: wait for THRE
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov al, [esi - 1]
	mov dx, 0x3F8
	out dx, al
	jmp .next
.exit:
	mov dx, 0xF4
	mov eax, 0x10
	out dx, eax
.halt:
	cli
	hlt
	jmp .halt

section .rodata
line: db "KTAP version 1", 10, "1..0", 10, "# verdict: PASS", 10, 0

; SPDX-License-Identifier: MIT
;
; build/pmutest.bin, the Linux-format image: what a Linux x86 boot loader
; loads (GRUB's linux and linux16, syslinux, iPXE, kexec -l, QEMU -kernel),
; laid out as the x86 boot protocol says (Linux Documentation/arch/x86/
; boot.rst, protocol 2.15):
;
;   sector 0            the boot sector's place: the setup header starts at
;                       01F1H (setup_sects ... syssize), boot_flag 0AA55H
;   0200H ...           the rest of the header ("HdrS", version, loadflags,
;                       code32_start, cmdline_size, pref_address, init_size)
;                       after a two-byte jump, then the real-mode code
;   setup_sects * 512   the protected-mode kernel (build/linux/payload.bin,
;   + 512               boot/linux/entry.asm first): its 32-bit entry at
;                       offset 0, its 64-bit entry at 0200H
;
; The real-mode code runs only when a loader starts the image in real mode
; (QEMU -kernel's linuxboot ROM, syslinux, iPXE, GRUB's linux16): it builds
; the zero page (struct boot_params) that GRUB's linux and kexec build
; themselves: the setup header copied, the E820 map from INT 15H E820H,
; then flat 32-bit protected mode and a jump to code32_start with ESI =
; the zero page, as "32-bit Boot Protocol" describes. Everything else (the
; judgement of what a loader gave) is the protected-mode kernel's.
;
; Assembled with -DPAYLOAD=file -DINIT_SIZE=bytes (mk/linux.mk): the payload
; and the memory it needs from its load address (its .bss and stacks).

%ifndef PAYLOAD
%error "PAYLOAD (the protected-mode kernel) must be given"
%endif

%define SETUP_SECTS 4		; sectors after the boot sector
%define BP_OFF      0x1000	; our zero page, inside the setup segment
%define E820_MAX    128
%define STACK_TOP   0x3000	; below X+8000H, the real-mode part's bound
%define SEL_CS      0x10	; boot.rst: __BOOT_CS, __BOOT_DS
%define SEL_DS      0x18

; Zero page offsets (zero-page.rst), as boot/direct/direct.h has them.
%define BP_E820_ENTRIES 0x1E8
%define BP_E820_TABLE   0x2D0
%define HDR_START       0x1F1
%define HDR_END         0x270	; past kernel_info_offset (0264H)

bits 16
org 0

boot_sector:
	; A loader never runs sector 0 (boot.rst, "The real-mode kernel
	; header"); a BIOS that boots the image as a disk does: say so.
	jmp 0x07C0:.bs_start
.bs_start:
	mov ax, cs
	mov ds, ax
	mov si, bs_msg - boot_sector
.bs_putc:
	lodsb
	test al, al
	jz .bs_halt
	mov ah, 0x0E
	mov bx, 7
	int 0x10
	jmp .bs_putc
.bs_halt:
	cli
	hlt
	jmp .bs_halt
bs_msg: db "pmutest.bin is a Linux-format kernel: boot it with a boot loader "
	db "(GRUB, syslinux, iPXE, kexec, QEMU -kernel).", 13, 10, 0

	times HDR_START - ($ - $$) db 0
setup_sects:	db SETUP_SECTS
root_flags:	dw 0
syssize:	dd (payload_end - payload + 15) / 16
ram_size:	dw 0
vid_mode:	dw 0xFFFF		; "normal"
root_dev:	dw 0
boot_flag:	dw 0xAA55
; 0200H
		jmp short real_start
header:		db "HdrS"
version:	dw 0x020F
realmode_swtch:	dd 0
start_sys_seg:	dw 0x1000		; obsolete
kernel_version:	dw version_str - 0x200
type_of_loader:	db 0
loadflags:	db 0x01			; LOADED_HIGH: the kernel at 100000H
setup_move_size: dw 0x8000
code32_start:	dd 0x100000		; a loader may change it (boot.rst)
ramdisk_image:	dd 0
ramdisk_size:	dd 0
bootsect_kludge: dd 0
heap_end_ptr:	dw 0
ext_loader_ver:	db 0
ext_loader_type: db 0
cmd_line_ptr:	dd 0
initrd_addr_max: dd 0x7FFFFFFF
kernel_alignment: dd 0x200000
relocatable_kernel: db 1		; entry.asm is position-independent
min_alignment:	db 12			; 4 KiB
; XLF_KERNEL_64 (the 64-bit entry at +200H), XLF_CAN_BE_LOADED_ABOVE_4G is
; not set: entry.asm maps the first 4 GiB only, and direct_main reads the
; boot data there.
xloadflags:	dw 0x0001
cmdline_size:	dd 4095			; boot/direct/direct_main.c CMDLINE_MAX - 1
hardware_subarch: dd 0			; PC
hardware_subarch_data: dq 0
payload_offset:	dd 0			; not compressed
payload_length:	dd 0
setup_data:	dq 0
pref_address:	dq 0x1000000		; 16 MiB: clear of the low memory loaders use
init_size:	dd INIT_SIZE
handover_offset: dd 0			; no EFI handover entry
kernel_info_offset: dd 0

real_start:
	; CS = X/16 + 20H, DS = ES = SS = X/16 (boot.rst, "Running the kernel").
	cli
	cld
	mov ax, ds
	mov ss, ax
	mov sp, STACK_TOP
	; The zero page: zeros, then the setup header as the loader left it.
	mov di, BP_OFF
	mov cx, 4096 / 2
	xor ax, ax
	rep stosw
	mov si, HDR_START
	mov di, BP_OFF + HDR_START
	mov cx, HDR_END - HDR_START
	rep movsb
	call e820
	call enable_a20
	; Linear addresses: the segment base is not known until now.
	xor ebx, ebx
	mov bx, ds
	shl ebx, 4
	lea eax, [ebx + gdt]
	mov [gdt_desc + 2], eax
	lea esi, [ebx + BP_OFF]		; ESI: the zero page
	mov edx, [BP_OFF + code32_start]
	lgdt [gdt_desc]
	mov eax, cr0
	or al, 1
	mov cr0, eax
	mov ax, SEL_DS
	mov ds, ax
	mov es, ax
	mov fs, ax
	mov gs, ax
	mov ss, ax
	lea esp, [ebx + STACK_TOP]
	xor ebx, ebx
	xor edi, edi
	xor ebp, ebp
	push dword SEL_CS
	push edx
	o32 retf			; to code32_start, 32-bit

; INT 15H E820H into the zero page's table (ACPI 6.x 15.1, "INT 15H,
; E820H - Query System Address Map"); none is an empty map, which the
; kernel reports as bad boot data.
e820:
	xor ebx, ebx
	mov di, BP_OFF + BP_E820_TABLE
.next:
	mov eax, 0xE820
	mov edx, 0x534D4150		; "SMAP"
	mov ecx, 20
	int 0x15
	jc .done
	cmp eax, 0x534D4150
	jne .done
	cmp ecx, 20
	jb .skip
	inc byte [BP_OFF + BP_E820_ENTRIES]
	add di, 20
.skip:
	test ebx, ebx
	jz .done
	cmp byte [BP_OFF + BP_E820_ENTRIES], E820_MAX
	jb .next
.done:
	ret

; A20 on: the BIOS call, then the fast gate (port 92H bit 1). Every loader
; that runs this code runs on a BIOS; what it leaves is checked by nothing
; else, so both are tried.
enable_a20:
	mov ax, 0x2401
	int 0x15
	in al, 0x92
	or al, 2
	and al, 0xFE			; bit 0 would reset the machine
	out 0x92, al
	ret

align 8
gdt:
	dq 0
	dq 0
	dq 0x00CF9A000000FFFF		; 10H: flat 32-bit code
	dq 0x00CF92000000FFFF		; 18H: flat data
gdt_end:
gdt_desc:
	dw gdt_end - gdt - 1
	dd 0

version_str: db "pmutest (Linux x86 boot protocol image)", 0

	times (SETUP_SECTS + 1) * 512 - ($ - $$) db 0
payload:
	incbin PAYLOAD
payload_end:

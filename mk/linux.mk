# SPDX-License-Identifier: MIT
# The Linux-format image: build/pmutest.bin, what a Linux x86 boot loader
# loads (GRUB's linux/linux16 on BIOS and EFI, syslinux, iPXE, kexec -l,
# QEMU -kernel). The objects of build/pmutest.elf (mk/direct.mk: the
# machine, boot/direct's readers and direct_main) with boot/linux/entry.asm
# for entries and boot/uefi/relocate.c for the relocations, linked at 0 as
# a static PIE (boot/linux/linker.ld), flattened, and put after the
# real-mode part and setup header of boot/linux/setup.asm.

LINUX_IMAGE := $(BUILD)/pmutest.bin
LINUX_BUILD := $(BUILD)/linux
LINUX_ELF := $(LINUX_BUILD)/payload.elf
LINUX_PAYLOAD := $(LINUX_BUILD)/payload.bin
LINUX_OBJS := $(patsubst %.c,$(EFI_BUILD)/%.o,$(MACHINE_C_SRCS) $(DIRECT_C_SRCS) boot/uefi/relocate.c) \
	$(patsubst %.asm,$(EFI_BUILD)/%.o,$(EFI_ASM_SRCS) boot/linux/entry.asm)
LINUX_LDFLAGS := -nostdlib -static -pie --no-dynamic-linker -z pack-relative-relocs \
	-z noexecstack -z max-page-size=4096 --no-warn-rwx-segments --gc-sections \
	-T boot/linux/linker.ld

.PHONY: linux-image
linux-image: $(LINUX_IMAGE)

$(LINUX_ELF): $(LINUX_OBJS) boot/linux/linker.ld mk/linux.mk
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)ld $(LINUX_LDFLAGS) $(LINUX_OBJS) -o $@
	@# Nothing left to resolve, and every relocation packed into RELR
	@# (entry.asm applies those and nothing else).
	@if nm -u $@ | grep . ; then echo "error: undefined symbols in $@" >&2; rm -f $@; exit 1; fi
	@if readelf -r $@ | grep -q 'R_X86_64_[A-Z]'; then \
		echo "error: $@ has relocations other than RELR" >&2; readelf -r $@ | head >&2; rm -f $@; exit 1; fi
	@# The boot protocol's fixed entries: 32-bit at 0, 64-bit at 200H.
	@nm $@ | grep -q '^0000000000000000 T startup_32' && nm $@ | grep -q '^0000000000000200 T startup_64' || \
		{ echo "error: $@: startup_32/startup_64 not at 0/200H" >&2; rm -f $@; exit 1; }

$(LINUX_PAYLOAD): $(LINUX_ELF)
	$(call quiet,BIN,$@)objcopy -O binary --remove-section=.bss $< $@

# init_size: from the load address to __kernel_end (the .bss included).
$(LINUX_IMAGE): $(LINUX_PAYLOAD) boot/linux/setup.asm mk/linux.mk
	$(call quiet,IMG,$@)nasm -f bin -Werror -DPAYLOAD='"$(LINUX_PAYLOAD)"' \
		-DINIT_SIZE=0x$$(nm $(LINUX_ELF) | awk '$$3 == "__kernel_end" { print $$1 }') \
		-o $@ boot/linux/setup.asm

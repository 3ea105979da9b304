# SPDX-License-Identifier: MIT
# The machine image: build/BOOTX64.EFI, a PE32+ UEFI application.
#
# GNU-EFI's crt0 (+ libefi/libgnuefi) links the core (kernel/, suites/), the
# UEFI front end (boot/uefi/, with boot/'s shared readers) and the machine
# layer (arch/x86_64/) into a position-
# independent ELF through boot/uefi/linker.ld; objcopy turns that into PE.
#
#   make efi                      the image
#   make efi EFI_EXTRA_SRCS=x.c   add sources (throwaway kernels in tests)

EFI_BUILD := $(BUILD)/efi
EFI_IMAGE := $(BUILD)/BOOTX64.EFI
EFI_ELF := $(EFI_BUILD)/pmutest.so

EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
EFI_CRT0 := $(EFI_LIB)/crt0-efi-x86_64.o

# What every front end shares: the kernel, the machine layer and boot/'s
# firmware-independent readers (ACPI). mk/direct.mk links the same objects.
MACHINE_C_SRCS := $(CORE_SRCS) $(sort $(wildcard boot/*.c)) $(sort $(wildcard arch/x86_64/*.c))
EFI_C_SRCS := $(MACHINE_C_SRCS) $(sort $(wildcard boot/uefi/*.c)) $(EFI_EXTRA_SRCS)
EFI_ASM_SRCS := $(sort $(wildcard arch/x86_64/*.asm))
EFI_OBJS := $(patsubst %.c,$(EFI_BUILD)/%.o,$(EFI_C_SRCS)) \
	$(patsubst %.asm,$(EFI_BUILD)/%.o,$(EFI_ASM_SRCS))

# Relink when the object list changes (EFI_EXTRA_SRCS, added files).
EFI_OBJS_LIST := $(EFI_BUILD)/objects.list
$(shell mkdir -p $(EFI_BUILD) && echo '$(EFI_OBJS)' | cmp -s - $(EFI_OBJS_LIST) || \
	echo '$(EFI_OBJS)' > $(EFI_OBJS_LIST))

# Size before speed: the image must stay within its budget
# (testing/lib/efi-budget.sh: a stick every
# firmware loads fast; `make test` checks it), and the suites' time is
# dominated by the firmware, not by this code (`make bench`). Hidden
# visibility keeps the symbols out of .dynsym and lets --gc-sections drop
# what nothing references.
EFI_OPT := -Os -ffunction-sections -fdata-sections -fvisibility=hidden

# Freestanding, position-independent (GNU-EFI relocates the image itself),
# no red zone (interrupts arrive on the current stack at CPL 0), no SSE (the
# exception entry saves general registers only), UEFI's 16-bit wchar_t.
EFI_CFLAGS := -std=gnu11 $(EFI_OPT) -g -ffreestanding -fno-builtin \
	-fno-tree-loop-distribute-patterns -fpic \
	-fshort-wchar -mno-red-zone -fno-stack-protector -mgeneral-regs-only \
	-fno-strict-aliasing -fno-asynchronous-unwind-tables -fno-omit-frame-pointer \
	-DGNU_EFI_USE_MS_ABI -DPMUTEST_EFI \
	$(WARN) $(INCLUDES) -Iarch/x86_64 -Iboot
# Only boot/uefi sees the firmware headers (GNU-EFI's own headers trip -Wextra
# in places, so they are system includes).
EFI_BOOT_CFLAGS := -Iboot/uefi -isystem $(EFI_INC) -isystem $(EFI_INC)/x86_64 \
	-isystem $(EFI_INC)/protocol
EFI_LDFLAGS := -nostdlib -znocombreloc -z noexecstack -shared -Bsymbolic \
	--gc-sections --exclude-libs ALL -T boot/uefi/linker.ld -L$(EFI_LIB)
EFI_SECTIONS := -j .text -j .sdata -j .data -j .sbat -j .bss -j .dynamic -j .dynsym -j .relr \
	-j .rel -j .rela -j .rel.* -j .rela.* -j .reloc

.PHONY: efi
efi: $(EFI_IMAGE)

# --strip-all: the COFF symbol table (40 KiB) is of no use to a firmware;
# the ELF keeps the symbols for debugging. Zero-filled data is .bss, which
# the PE file does not store (boot/uefi/linker.ld): `make test` keeps the image within
# testing/lib/efi-budget.sh.
EFI_OBJCOPY := objcopy $(EFI_SECTIONS) --strip-all --target efi-app-x86_64 --subsystem=10

$(EFI_IMAGE): $(EFI_ELF)
	$(call quiet,PE,$@)$(EFI_OBJCOPY) $< $@

$(EFI_ELF): $(EFI_OBJS) $(EFI_OBJS_LIST) boot/uefi/linker.ld mk/efi.mk
	$(call quiet,LD,$@)ld $(EFI_LDFLAGS) -z pack-relative-relocs $(EFI_CRT0) $(EFI_OBJS) -lgnuefi -o $@
	@# Every relocation packed into RELR (boot/uefi/relocate.c applies those);
	@# crt0 applies RELA entries, which must then be none.
	@if readelf -r $@ | grep -q 'R_X86_64_[A-Z]'; then \
		echo "error: $@ has relocations other than RELR" >&2; readelf -r $@ | head >&2; rm -f $@; exit 1; fi
	@# No unresolved symbols may survive into the image (ld -shared allows them).
	@if nm -u $@ | grep -v '^ *w ' | grep . ; then \
		echo "error: undefined symbols in $@" >&2; rm -f $@; exit 1; fi

$(EFI_BUILD)/boot/uefi/%.o: boot/uefi/%.c mk/efi.mk
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(EFI_CFLAGS) $(EFI_BOOT_CFLAGS) -MMD -MP -c $< -o $@

$(EFI_BUILD)/%.o: %.c mk/efi.mk
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(EFI_CFLAGS) -MMD -MP -c $< -o $@

$(EFI_BUILD)/%.o: %.asm mk/efi.mk
	@mkdir -p $(dir $@)
	$(call quiet,AS,$@)nasm -f elf64 -g -Werror -MD $(@:.o=.d) -MP -o $@ $<

-include $(EFI_OBJS:.o=.d)

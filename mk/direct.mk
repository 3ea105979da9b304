# SPDX-License-Identifier: MIT
# The direct-boot kernel: build/pmutest.elf, an ELF64 a VMM loads without
# firmware (PVH note for QEMU -kernel, Firecracker, Cloud Hypervisor; Linux
# 64-bit entry for crosvm). The same objects as the UEFI image (mk/efi.mk's
# MACHINE_C_SRCS, compiled once) with boot/direct/ in place of boot/uefi/,
# linked at a fixed address by boot/direct/linker.ld.

DIRECT_ELF := $(BUILD)/pmutest.elf
DIRECT_C_SRCS := $(sort $(wildcard boot/direct/*.c))
DIRECT_ASM_SRCS := $(sort $(wildcard boot/direct/*.asm))
DIRECT_OBJS := $(patsubst %.c,$(EFI_BUILD)/%.o,$(MACHINE_C_SRCS) $(DIRECT_C_SRCS)) \
	$(patsubst %.asm,$(EFI_BUILD)/%.o,$(EFI_ASM_SRCS) $(DIRECT_ASM_SRCS))
# Static, not PIE: the objects are position-independent code, and ld
# resolves their GOT references at the fixed address.
DIRECT_LDFLAGS := -nostdlib -static -z noexecstack -z max-page-size=0x200000 \
	--no-warn-rwx-segments --gc-sections -T boot/direct/linker.ld

.PHONY: direct
direct: $(DIRECT_ELF)

$(DIRECT_ELF): $(DIRECT_OBJS) boot/direct/linker.ld mk/direct.mk
	$(call quiet,LD,$@)ld $(DIRECT_LDFLAGS) $(DIRECT_OBJS) -o $@
	@# Nothing may be left to resolve, and the PVH note must be there.
	@if nm -u $@ | grep . ; then echo "error: undefined symbols in $@" >&2; rm -f $@; exit 1; fi
	@readelf -n $@ | grep -q 'Xen.*0x00000012' || { echo "error: $@ has no PVH note" >&2; rm -f $@; exit 1; }

# Rebuild the front end when a header it includes changes (handoff.h: a
# stale direct_main.o with an older hand-over layout passed a trampoline
# page the arch never saw).
-include $(patsubst %.c,$(EFI_BUILD)/%.d,$(DIRECT_C_SRCS))

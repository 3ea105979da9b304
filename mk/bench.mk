# SPDX-License-Identifier: MIT
# The baseline of `make bench`: build/bench/hello.efi, a minimal UEFI
# application (testing/hello/hello.c) built like BOOTX64.EFI (same crt0, linker
# script and PE conversion), so that the ratio of the two boot times is the
# cost of pmutest itself.

HELLO_EFI := $(BUILD)/bench/hello.efi
HELLO_ELF := $(BUILD)/bench/hello.so

$(BUILD)/bench/hello.o: testing/hello/hello.c mk/bench.mk
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(EFI_CFLAGS) $(EFI_BOOT_CFLAGS) -c $< -o $@

$(HELLO_ELF): $(BUILD)/bench/hello.o boot/uefi/linker.ld
	$(call quiet,LD,$@)ld $(EFI_LDFLAGS) $(EFI_CRT0) $< -lefi -lgnuefi -o $@

$(HELLO_EFI): $(HELLO_ELF)
	$(call quiet,PE,$@)$(EFI_OBJCOPY) $< $@

# The direct-boot baseline (and tools/kvm-host.sh's probe of /dev/kvm):
# build/bench/hello-pvh.elf, a PVH kernel that prints one KTAP line and
# exits (testing/hello/pvh_hello.asm).
HELLO_PVH := $(BUILD)/bench/hello-pvh.elf

$(BUILD)/bench/pvh_hello.o: testing/hello/pvh_hello.asm mk/bench.mk
	@mkdir -p $(@D)
	$(call quiet,AS,$@)nasm -f elf64 -Werror -o $@ $<

$(HELLO_PVH): $(BUILD)/bench/pvh_hello.o testing/hello/pvh_hello.ld
	$(call quiet,LD,$@)ld -nostdlib -static --no-warn-rwx-segments -z noexecstack \
		-T testing/hello/pvh_hello.ld $< -o $@

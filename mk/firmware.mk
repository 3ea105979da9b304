# SPDX-License-Identifier: MIT
# The firmware image that tools/run-qemu.sh boots: Debian's OVMF.fd (code
# and variable store in one image) after one boot of the same QEMU machine.
# On its first boot OVMF writes its boot options, console paths and the
# like into its variable store, byte by byte through emulated flash: about
# a second under TCG that every later boot from this image skips. The boot
# is of the `make bench` baseline (build/bench/hello.efi), which ends at
# once. If it fails, nothing is written and run-qemu.sh boots the pristine
# OVMF.fd instead (slower, same function).

OVMF_PRISTINE := /usr/share/ovmf/OVMF.fd
OVMF_WARM := $(BUILD)/ovmf/OVMF-warm.fd

firmware: $(OVMF_WARM)

$(OVMF_WARM): $(OVMF_PRISTINE) $(HELLO_EFI) tools/run-qemu.sh mk/firmware.mk
	@mkdir -p $(@D)
	@rm -f $@ $@.tmp
	$(call quiet,RUN,$@)tools/run-qemu.sh --efi $(HELLO_EFI) --vars $@.tmp \
		--log $(@D)/warm-up.log --timeout 120 >/dev/null 2>$(@D)/warm-up.err && mv $@.tmp $@ || \
		{ echo "  firmware warm-up failed ($(@D)/warm-up.err): QEMU boots start from $(OVMF_PRISTINE)"; rm -f $@.tmp; }
	@rm -f $@.tmp.lock

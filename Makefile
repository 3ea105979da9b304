# SPDX-License-Identifier: MIT
# pmutest: a PMU conformance test kernel.
#
#   make            build/BOOTX64.EFI, build/pmutest.elf (direct boot),
#                   build/pmutest.bin (Linux-format image), the host
#                   tools (build/host/...) and the firmware image QEMU boots
#                   (mk/firmware.mk)
#   make run        boot the suite in QEMU (TCG; KVM=1 for KVM; BOOT=direct
#                   MACHINE=pc|q35|microvm for the direct-boot kernel) and
#                   print the report
#   make test       host unit tests, the suite on the simulator, the mutation
#                   matrix, and the QEMU boot against its expectations
#   make mutation   the mutation matrix alone
#
# Each part of the tree has its own fragment under mk/.

BUILD := build
HOST_BUILD := $(BUILD)/host

# Machine-independent code: compiled once for the machine (EFI) and once for
# the simulator, unchanged.
CORE_SRCS := $(sort $(wildcard kernel/*.c)) $(sort $(wildcard suites/*.c))

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wstrict-prototypes \
	-Wmissing-prototypes -Wshadow -Wformat=2
INCLUDES := -Iinclude -Ikernel

# Quiet by default: one line per step; `make V=1` shows the commands.
ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-3s %s\n' '$(1)' '$(2)';
endif

.PHONY: all host run test mutation clean deps format bench image screenshot firmware
# deps first, alone: with -j a missing package would otherwise fail mid-build.
all: deps
	@$(MAKE) -s --no-print-directory efi direct linux-image host firmware $(HELLO_PVH)

include mk/deps.mk
include mk/efi.mk
include mk/direct.mk
include mk/linux.mk
include mk/deb.mk
include mk/host.mk
include mk/bench.mk
include mk/firmware.mk

run: all
	$(if $(filter-out direct uefi,$(BOOT)),$(error BOOT is uefi (the default) or direct, not '$(BOOT)'))
	tools/run.sh $(if $(KVM),--kvm) $(if $(KVMCPU),--kvm-cpu $(KVMCPU)) $(if $(filter direct,$(BOOT)),--direct) $(if $(MACHINE),--machine $(MACHINE)) $(if $(CPU),--cpu $(CPU)) $(if $(SMP),--smp $(SMP)) $(if $(CONFIG),--config $(CONFIG)) $(if $(EXPECT),--expect $(EXPECT)) $(if $(LIST_SKIPS),--list-skips)

# STEPS=PATTERNS: only the steps matching them (and what they need);
# LIST=1: print the steps instead (testing/steps.sh is the list).
test: $(if $(LIST),,deps-test)
	testing/run-tests.sh$(if $(STEPS), --steps '$(STEPS)')$(if $(LIST), --list)

mutation: host
	testing/mutation.sh

bench: all $(HELLO_EFI) $(HELLO_PVH)
	testing/bench.sh

screenshot: all
	tools/screenshot.py

# SIGN_KEY/SIGN_CERT: signed for Secure Boot; SHIM=1: the shim layout
# (build/pmutest-usb-shim.img). docs/booting.md "Secure Boot".
image: all
	tools/make-usb-image.sh $(if $(SIGN_KEY),--sign-key $(SIGN_KEY)) \
		$(if $(SIGN_CERT),--sign-cert $(SIGN_CERT)) \
		$(if $(SHIM),--shim --out $(BUILD)/pmutest-usb-shim.img)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)

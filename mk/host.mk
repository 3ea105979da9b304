# SPDX-License-Identifier: MIT
# Host-side builds: the simulator, the host tools and the unit tests.
# Fragments add to HOST_TOOLS and UNIT_TESTS.

HOST_CC ?= gcc
HOST_CFLAGS := -O2 -g $(WARN) $(INCLUDES) -Ilib -Itools -MMD -MP
HOST_TOOLS :=
UNIT_TESTS :=

# lib/: host libraries in their own right, used by several tools. The
# `cpuid -r` dump reader (lib/cpuid_dump.h): pmusim and pmucaps load dumps
# with it, the unit tests pin it.
LIB_CPUID_DUMP_SRCS := lib/cpuid_dump.c

-include mk/caps.mk
-include mk/sim.mk

# Unit tests of the kernel's own machine-independent code.
UNIT_TESTS += $(HOST_BUILD)/unit/test_ktap $(HOST_BUILD)/unit/test_options \
	$(HOST_BUILD)/unit/test_report $(HOST_BUILD)/unit/test_lz \
	$(HOST_BUILD)/unit/test_efivars $(HOST_BUILD)/unit/test_calibrate $(HOST_BUILD)/unit/test_madt \
	$(HOST_BUILD)/unit/test_kstring $(HOST_BUILD)/unit/test_precondition

$(HOST_BUILD)/unit/test_ktap: testing/unit/test_ktap.c kernel/ktap.c kernel/fmt.c kernel/kstring.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Itesting/unit -o $@ $(filter %.c,$^)

$(HOST_BUILD)/unit/test_kstring: testing/unit/test_kstring.c kernel/kstring.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Itesting/unit -o $@ $(filter %.c,$^)

# The counting preconditions, with stand-ins for the checks (the test says
# how they stand in for kernel/check.c and its known rows).
$(HOST_BUILD)/unit/test_precondition: testing/unit/test_precondition.c kernel/precondition.c \
		kernel/ktap.c kernel/fmt.c kernel/kstring.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Itesting/unit -o $@ $(filter %.c,$^)

$(HOST_BUILD)/unit/test_options: testing/unit/test_options.c kernel/options.c kernel/fmt.c kernel/kstring.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Itesting/unit -o $@ $(filter %.c,$^)

$(HOST_BUILD)/unit/test_report: testing/unit/test_report.c kernel/console.c kernel/ktap.c kernel/fmt.c \
		kernel/kstring.c kernel/timing.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -D_GNU_SOURCE -Itesting/unit -o $@ $(filter %.c,$^)

# The report store's compressor; reads real reports from testing/unit/data/.
$(HOST_BUILD)/unit/test_lz: testing/unit/test_lz.c kernel/lz.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Itesting/unit -o $@ $(filter %.c,$^)

# Reading the stored report from Linux (efivarfs), and its test.
HOST_TOOLS += $(HOST_BUILD)/pmutest-efivars
$(HOST_BUILD)/pmutest-efivars: tools/report_efivars.c kernel/lz.c boot/uefi/report_format.h
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iboot/uefi -o $@ $(filter %.c,$^)

$(HOST_BUILD)/unit/test_efivars: testing/unit/test_efivars.c tools/report_efivars.c kernel/lz.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -DREPORT_EFIVARS_NO_MAIN -Iboot/uefi -Itesting/unit -o $@ \
		$(filter %.c,$^)

# The smallest VMM that boots build/pmutest.elf by the Linux 64-bit entry
# on KVM (tools/minivmm.c; make test's step direct-linux64).
HOST_TOOLS += $(HOST_BUILD)/minivmm
$(HOST_BUILD)/minivmm: tools/minivmm.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< -lpthread

# The clock calibration's decisions and the ACPI reader, on the host.
$(HOST_BUILD)/unit/test_calibrate: testing/unit/test_calibrate.c arch/x86_64/calibrate.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iarch/x86_64 -Itesting/unit -o $@ $(filter %.c,$^)

# The direct-boot data's readers, with every malformation.
UNIT_TESTS += $(HOST_BUILD)/unit/test_bootdata
$(HOST_BUILD)/unit/test_bootdata: testing/unit/test_bootdata.c boot/direct/bootdata.c kernel/fmt.c \
		kernel/kstring.c boot/direct/bootdata.h boot/direct/direct.h
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iboot/direct -Ikernel -Itesting/unit -o $@ \
		$(filter %.c,$^)

# The Linux-format image's loader fields: the command line a loader may have cut.
UNIT_TESTS += $(HOST_BUILD)/unit/test_loader
$(HOST_BUILD)/unit/test_loader: testing/unit/test_loader.c boot/direct/loader.c kernel/fmt.c \
		kernel/kstring.c boot/direct/loader.h boot/direct/bootdata.h boot/direct/direct.h
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iboot/direct -Ikernel -Itesting/unit -o $@ \
		$(filter %.c,$^)

$(HOST_BUILD)/unit/test_madt: testing/unit/test_madt.c boot/acpi.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iboot -Iarch/x86_64 -Itesting/unit -o $@ $(filter %.c,$^)

host: $(HOST_TOOLS) $(UNIT_TESTS)

.PHONY: unit
unit: $(UNIT_TESTS)
	@testing/run-unit.sh $(UNIT_TESTS)

-include $(shell find $(HOST_BUILD) -name '*.d' 2>/dev/null)

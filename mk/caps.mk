# SPDX-License-Identifier: MIT
# Capability decoder on the host: build/host/pmucaps (decode a `cpuid -r`
# dump to JSON) and the decoder's unit tests. kernel/caps.c is compiled
# unchanged from the kernel's source: there is one decoder.
#
#   make build/host/pmucaps
#   make build/host/unit/test_caps && build/host/unit/test_caps
#   make check-dumps      every dump in data/cpuid against `cpuid -f`

CAPS_OBJDIR := $(HOST_BUILD)/caps
CAPS_CFLAGS := -O2 -g $(WARN) $(INCLUDES) -Ilib -Itools -MMD -MP

# The decoder and what it needs from kernel/ (kstrcmp, kmemset, ksnprintf).
CAPS_CORE_OBJS := $(CAPS_OBJDIR)/kernel/caps.o $(CAPS_OBJDIR)/kernel/kstring.o \
	$(CAPS_OBJDIR)/kernel/requires.o $(CAPS_OBJDIR)/kernel/fmt.o
CAPS_DUMP_OBJS := $(patsubst %.c,$(CAPS_OBJDIR)/%.o,$(LIB_CPUID_DUMP_SRCS))

$(CAPS_OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(CAPS_CFLAGS) -c -o $@ $<

$(HOST_BUILD)/pmucaps: $(CAPS_OBJDIR)/tools/pmucaps.o $(CAPS_DUMP_OBJS) $(CAPS_CORE_OBJS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) -o $@ $^

# The report goes through the KTAP writer, so the test links it too.
$(HOST_BUILD)/unit/test_caps: $(CAPS_OBJDIR)/testing/unit/test_caps.o $(CAPS_DUMP_OBJS) \
		$(CAPS_CORE_OBJS) $(CAPS_OBJDIR)/kernel/caps_report.o \
		$(CAPS_OBJDIR)/kernel/ktap.o $(CAPS_OBJDIR)/kernel/known.o
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) -o $@ $^

$(CAPS_OBJDIR)/testing/unit/test_caps.o: CAPS_CFLAGS += -Itesting/unit

HOST_TOOLS += $(HOST_BUILD)/pmucaps
UNIT_TESTS += $(HOST_BUILD)/unit/test_caps

.PHONY: check-dumps
check-dumps: $(HOST_BUILD)/pmucaps
	testing/check-dumps.py

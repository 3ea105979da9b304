# SPDX-License-Identifier: MIT
# The simulator: kernel/ and suites/ unchanged, arch/sim for the machine.
#   build/host/pmusim          the binary
#   build/host/sim/...         its objects (source paths kept)

SIM_SRCS := $(CORE_SRCS) $(sort $(wildcard arch/sim/*.c)) $(LIB_CPUID_DUMP_SRCS)
SIM_OBJS := $(patsubst %.c,$(HOST_BUILD)/sim/%.o,$(SIM_SRCS))
PMUSIM := $(HOST_BUILD)/pmusim

$(HOST_BUILD)/sim/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iarch/sim -c -o $@ $<

$(PMUSIM): $(SIM_OBJS)
	$(call quiet,CC,$@)$(HOST_CC) -o $@ $(SIM_OBJS)

HOST_TOOLS += $(PMUSIM)

# Host unit tests pinning the simulator's SDM rules (expected values from
# the SDM text). They link the simulator without its main() and with a stub
# kernel_main.
SIM_UNIT_SRCS := testing/unit/test_sim.c $(filter-out arch/sim/main.c,$(sort $(wildcard arch/sim/*.c))) \
	kernel/caps.c kernel/lbr.c kernel/kstring.c kernel/fmt.c kernel/vector_name.c $(LIB_CPUID_DUMP_SRCS)
$(HOST_BUILD)/unit/test_sim: $(SIM_UNIT_SRCS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(HOST_CC) $(HOST_CFLAGS) -Iarch/sim -Itesting/unit -o $@ $(SIM_UNIT_SRCS)

UNIT_TESTS += $(HOST_BUILD)/unit/test_sim

.PHONY: pmusim
pmusim: $(PMUSIM)

# The worked example of docs/adding-a-check.md: the simulator with one suite
# more (testing/examples/*.c), built and run by make test's docs step
# (testing/check-docs.sh) so that the page's code cannot drift. Not in
# `make all`: the real pmusim has no example suite.
EXAMPLE_SRCS := $(sort $(wildcard testing/examples/*.c))
PMUSIM_EXAMPLE := $(HOST_BUILD)/pmusim-example

$(PMUSIM_EXAMPLE): $(SIM_OBJS) $(patsubst %.c,$(HOST_BUILD)/sim/%.o,$(EXAMPLE_SRCS))
	$(call quiet,CC,$@)$(HOST_CC) -o $@ $^

.PHONY: pmusim-example
pmusim-example: $(PMUSIM_EXAMPLE)

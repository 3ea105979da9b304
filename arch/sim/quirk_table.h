/* SPDX-License-Identifier: MIT */
/*
 * The quirk table: one row per named deviation from the SDM, ordered by the
 * feature it breaks,
 *   QUIRK(id, kind, "name", applies, "where seen", "what it does")
 * - kind: who deviates. CPU: the processor (a real part's erratum, or a
 *   plausible implementation mistake); FIRMWARE: what firmware may leave at
 *   hand-over (reported in # firmware state, never a FAIL); PLATFORM: what
 *   runs the processor, a hypervisor or an emulator (KVM, QEMU, Xen, a vPMU).
 * - applies: a predicate of quirks.c,
 *   bool applies(const struct caps *c, const struct sim_profile *p),
 *   true on the machines where the deviation is observable (p for
 *   IA32_PERF_CAPABILITIES, which CPUID does not carry): the mutation matrix
 *   runs each quirk on the profiles its predicate accepts.
 * - "where seen": the erratum, or the KVM/QEMU/Linux function and the version
 *   read; "hypothetical" means no known real-world instance: a plausible
 *   implementation mistake. A quirk that names a kernel/known.c row
 *   reproduces that row (testing/check-known.sh proves each both ways).
 * Each quirk is a flag tested at the exact point of the rule it breaks (grep
 * for its Q_ id).
 *
 * No include guard: quirks.h (the enum) and quirks.c (g_quirks) each define
 * QUIRK and include this table.
 */

/* ---- RDPMC (Vol. 2B RDPMC; the user disable bit: suites/privilege.c) ---- */
QUIRK(Q_RDPMC_FAST_ON_ARCH, PLATFORM, "rdpmc-fast-on-arch", on_arch_pmu,
      "KVM intel_rdpmc_ecx_to_pmc() before the 2024 rework decoding ECX[31:16] as a type "
      "(INTEL_RDPMC_TYPE_MASK): ECX[31:30] masked off, ECX[31] a 32-bit read (read at "
      "torvalds/linux 0033fa35)",
      "RDPMC ignores ECX[31] on an architectural PMU (reads the counter) instead of #GP(0)")
QUIRK(Q_RDPMC_TYPE_FLAGS, PLATFORM, "rdpmc-type-as-flags", on_fixed_counters,
      "hypothetical (KVM tests ECX[30] as a flag but keeps ECX[29:16] in the index, so "
      "other types still #GP: intel_rdpmc_ecx_to_pmc(), torvalds/linux 0033fa35)",
      "RDPMC treats ECX[30] as a 'fixed' flag and ignores the other type bits")
QUIRK(Q_RDPMC_RCX_HIGH, CPU, "rdpmc-rcx-high-used", on_arch_pmu, "hypothetical",
      "RDPMC raises #GP when RCX[63:32] is non-zero instead of ignoring it")
QUIRK(Q_RDPMC_KEEP_HIGH, PLATFORM, "rdpmc-high-halves-kept", on_arch_pmu,
      "hypothetical (an emulator writing EAX/EDX as 32-bit sub-registers)",
      "RDPMC leaves RAX[63:32] and RDX[63:32] unchanged instead of clearing them")
QUIRK(Q_RDPMC_SIGN_EXT, CPU, "rdpmc-sign-extends", on_arch_pmu, "hypothetical",
      "RDPMC returns the counter sign-extended from its top bit (bits above the width "
      "not zero)")
QUIRK(Q_RDPMC_PCE_IGNORED, CPU, "rdpmc-pce-ignored", on_arch_or_netburst, "hypothetical",
      "RDPMC at CPL > 0 with CR4.PCE = 0 succeeds instead of #GP(0)")
QUIRK(Q_RDPMC_CPL3_GP, CPU, "rdpmc-cpl3-always-gp", on_arch_pmu, "hypothetical",
      "RDPMC at CPL 3 raises #GP even with CR4.PCE = 1")
QUIRK(Q_RDPMC_UD, PLATFORM, "rdpmc-ud", on_any_cpu, "QEMU TCG (helper_rdpmc raises #UD)",
      "RDPMC raises #UD instead of #GP(0) for an encoding it does not support")
QUIRK(Q_RDPMC_GP_UNBOUNDED, CPU, "rdpmc-gp-index-unchecked", on_arch_pmu,
      "hypothetical as modelled (reads 0); the real cases are exact quirks of their own: "
      "rdpmc-special-counters-2-9 (Xeon 7400), pcore-counters-beyond-cpuid (Alder Lake)",
      "RDPMC of a GP index >= CPUID.0AH:EAX[15:8] returns 0 instead of #GP(0)")
QUIRK(Q_RDPMC_INDEX_TRUNC, CPU, "rdpmc-index-truncated", on_arch_pmu, "hypothetical",
      "RDPMC ignores ECX[15:8] (GP) and ECX[15:5] (fixed): index 100H reads counter 0")
QUIRK(Q_RDPMC_FIXED_EDX_ONLY, CPU, "rdpmc-fixed-bitmask-ignored", on_fixed_beyond_edx,
      "hypothetical (any implementation predating CPUID.0AH:ECX, v5)",
      "RDPMC type 4000H checks the index against EDX[4:0] only, not ECX[x] = 1")
QUIRK(Q_RDPMC_ERRCODE, CPU, "rdpmc-gp-error-code", on_arch_pmu, "hypothetical",
      "RDPMC faults with #GP but a non-zero error code (the SDM's fault is #GP(0))")
QUIRK(Q_RDPMC_USER_FROZEN, PLATFORM, "rdpmc-user-value-frozen", on_arch_pmu,
      "hypothetical (a vPMU refreshing the guest-visible counter only on exits)",
      "RDPMC at CPL > 0 returns, for the whole stay there, the value of its first read")
QUIRK(Q_RDPMC_USR_DIS_IGNORED, PLATFORM, "rdpmc-user-disable-ignored", on_rdpmc_user_disable,
      "hypothetical (a vPMU that stores the bit but reads the counter)",
      "RDPMC at CPL > 0 of a counter with RDPMC_USR_DISABLE set returns its count")
QUIRK(Q_RDPMC_USR_DIS_ALL_COUNTERS, CPU, "rdpmc-user-disable-all-counters", on_rdpmc_user_disable,
      "hypothetical (one global flag for the per-counter bits)",
      "one counter's RDPMC_USR_DISABLE makes RDPMC at CPL > 0 return 0 for every counter")
QUIRK(Q_RDPMC_USR_DIS_AT_CPL0, CPU, "rdpmc-user-disable-at-cpl0", on_rdpmc_user_disable,
      "hypothetical", "RDPMC at CPL 0 of a counter with RDPMC_USR_DISABLE returns 0")
QUIRK(Q_RDPMC_USR_DIS_STOPS, CPU, "rdpmc-user-disable-stops-counting", on_rdpmc_user_disable,
      "hypothetical", "a counter with RDPMC_USR_DISABLE set does not count")
QUIRK(Q_RDPMC_USR_DIS_FAULTS, CPU, "rdpmc-user-disable-faults", on_rdpmc_user_disable,
      "hypothetical (the ISE says 0, not #GP)",
      "RDPMC at CPL > 0 of a counter with RDPMC_USR_DISABLE raises #GP(0) instead of "
      "returning 0")
QUIRK(Q_RDPMC_USR_DIS_OVERRIDES_PCE, CPU, "rdpmc-user-disable-overrides-pce", on_rdpmc_user_disable,
      "hypothetical",
      "with CR4.PCE = 0, RDPMC at CPL > 0 of a user-disabled counter returns 0 instead of "
      "#GP(0)")
QUIRK(Q_RDPMC_USR_DIS_RESERVED, CPU, "rdpmc-user-disable-bit-reserved", on_rdpmc_user_disable,
      "hypothetical (an implementation predating the feature but enumerating it)",
      "IA32_PERFEVTSELx bit 37 and IA32_FIXED_CTR_CTRL bit 33 + 4i raise #GP(0) although "
      "CPUID.(23H,0):EBX[2] enumerates them")
QUIRK(Q_RDPMC_SPECIAL_2_9, CPU, "rdpmc-special-counters-2-9", on_two_gp_only,
      "Xeon 7400 (Dunnington, 06_1DH): SDM Vol. 2B RDPMC (editions up to 2011): eight "
      "32-bit special-purpose counters at indices 2-9, ECX[30] = 0 (kernel/known.c "
      "dunnington-rdpmc-special-2-9)",
      "RDPMC type 0 with index 2-9 reads a 32-bit counter instead of #GP(0)")
QUIRK(Q_KVM_VMWARE_PMCS, PLATFORM, "kvm-vmware-backdoor-pmcs", on_arch_pmu,
      "KVM kvm_pmu_rdpmc() (pmu.c, torvalds/linux 004a0aa5): with a vPMU (pmu->version "
      "!= 0), is_vmware_backdoor_pmc() ECX is answered by kvm_pmu_rdpmc_vmware() "
      "whatever enable_vmware_backdoor says; on Intel RDPMC exits before the #GP check "
      "(kvm_pmu_check_rdpmc_early(); kernel/known.c kvm-vmware-backdoor-pmcs)",
      "RDPMC ECX = 10000H, 10001H, 10002H return the host TSC, boot time and apparent "
      "time in ns instead of #GP(0)")

/* ---- MSR existence and access (Vol. 4 Table 2-2) ---- */
QUIRK(Q_NO_PMU_MSRS_RAZ, PLATFORM, "pmu-msrs-raz-wi", on_intel_without_pmu,
      "QEMU TCG (unknown MSRs read 0 and ignore writes)",
      "without a PMU, PMU MSRs read 0 and ignore writes instead of #GP(0)")
QUIRK(Q_GP_BEYOND_COUNT, CPU, "gp-msrs-beyond-count", on_fewer_than_32_gp,
      "hypothetical as modelled (read 0); the real case, Alder Lake P-core PMC6-7 that "
      "count, is quirk pcore-counters-beyond-cpuid",
      "IA32_PMCx / IA32_PERFEVTSELx for x >= CPUID.0AH:EAX[15:8] read 0, writes ignored")
QUIRK(Q_FIXED_BEYOND_COUNT, CPU, "fixed-msrs-beyond-count", on_fixed_counters,
      "hypothetical as modelled (read 0); the real cases, counters that count, are quirks "
      "cpuid-v2-fixed-counters-hidden (Core 2), pcore-counters-beyond-cpuid (Alder Lake)",
      "IA32_FIXED_CTRx MSRs of unsupported counters read 0 instead of #GP(0)")
QUIRK(Q_FIXED_BITMASK_IGNORED, CPU, "fixed-bitmask-ignored", on_fixed_beyond_edx,
      "hypothetical (any implementation predating CPUID.0AH:ECX, v5)",
      "fixed counters enumerated only by CPUID.0AH:ECX[x] (x >= EDX[4:0]) do not exist")
QUIRK(Q_GP_BITMAP_IGNORED, CPU, "gp-bitmap-holes-ignored", on_gp_bitmap_holes, "hypothetical",
      "GP counters absent from the CPUID.(23H,1):EAX bitmap exist anyway")
QUIRK(Q_FW_WITHOUT_CAP, CPU, "full-width-without-cap", on_arch_without_fw_write, "hypothetical",
      "IA32_A_PMCx exist without IA32_PERF_CAPABILITIES[13] (FW_WRITE)")
QUIRK(Q_FW_NO_WIDTH_GP, CPU, "full-width-no-width-gp", on_fw_write_below_64, "hypothetical",
      "IA32_A_PMCx writes with bits above the width are truncated instead of #GP(0)")
QUIRK(Q_FIXED_NO_WIDTH_GP, PLATFORM, "fixed-write-no-width-gp", on_fixed_counters,
      "KVM intel_pmu_set_msr(): no reserved-bit check on IA32_FIXED_CTRx, the value is "
      "masked to the width (torvalds/linux 0033fa35)",
      "IA32_FIXED_CTRx writes with bits above the width are truncated instead of #GP(0)")
QUIRK(Q_LEGACY_ZERO_EXT, CPU, "legacy-write-zero-extended", on_gp_wider_than_32, "hypothetical",
      "IA32_PMCx writes zero-extend EAX instead of sign-extending bit 31")
QUIRK(Q_LEGACY_FULL, CPU, "legacy-write-full-width", on_gp_wider_than_32, "hypothetical",
      "IA32_PMCx writes take all bits (like IA32_A_PMCx) instead of sign-extended EAX")
QUIRK(Q_WIDTH_NOT_MASKED, CPU, "width-not-masked", on_gp_narrower_than_64, "hypothetical",
      "counters keep bits above their width: RDMSR returns them")
QUIRK(Q_STATUS_WRITABLE, CPU, "global-status-writable", on_v2, "hypothetical",
      "WRMSR to the read-only IA32_PERF_GLOBAL_STATUS is accepted and sets it")
QUIRK(Q_PERF_CAP_WRITABLE, CPU, "perf-capabilities-writable", on_pdcm, "hypothetical",
      "WRMSR to the read-only IA32_PERF_CAPABILITIES is ignored instead of #GP(0)")
QUIRK(Q_EVTSEL_RESERVED, CPU, "evtsel-reserved-accepted", on_arch_pmu, "hypothetical",
      "IA32_PERFEVTSELx writes with reserved bits set are accepted")
QUIRK(Q_FIXED_CTRL_RESERVED, CPU, "fixed-ctrl-reserved-accepted", on_v2, "hypothetical",
      "IA32_FIXED_CTR_CTRL writes with reserved bits set are accepted")
QUIRK(Q_GLOBAL_CTRL_RESERVED, CPU, "global-ctrl-reserved-accepted", on_v2, "hypothetical",
      "IA32_PERF_GLOBAL_CTRL writes with reserved bits set are accepted")
QUIRK(Q_OVF_CTRL_RESERVED, CPU, "ovf-ctrl-reserved-accepted", on_v2, "hypothetical",
      "IA32_PERF_GLOBAL_OVF_CTRL writes with reserved bits set are accepted")
QUIRK(Q_CLR_COND_CHGD_GP, CPU, "ovf-ctrl-clrcondchgd-rejected", on_v2, "hypothetical",
      "IA32_PERF_GLOBAL_OVF_CTRL bit 63 (ClrCondChgd) is treated as reserved: #GP(0)")
QUIRK(Q_EVTSEL_UNAVAIL_GP, PLATFORM, "evtsel-unavailable-event-rejected", on_arch_event_unavailable,
      "hypothetical (a vPMU filtering events by CPUID.0AH:EBX; the KVM selftest "
      "pmu_counters_test guards against it)",
      "WRMSR IA32_PERFEVTSELx with the encoding of an event CPUID.0AH:EBX marks "
      "unavailable raises #GP(0)")
QUIRK(Q_MSR_CPL_UNCHECKED, CPU, "msr-cpl-unchecked", on_arch_pmu, "hypothetical",
      "RDMSR / WRMSR execute at CPL > 0 instead of #GP(0)")
QUIRK(Q_A_PMC_SHADOW, CPU, "a-pmc-separate-register", on_fw_write, "hypothetical",
      "IA32_A_PMCx reads a register of its own (the last IA32_A_PMCx write), not the "
      "counter that IA32_PMCx and counting change")
QUIRK(Q_EVTSEL_SHARED, CPU, "counters-share-event-select", on_two_gp, "hypothetical",
      "with several GP counters enabled, each counts the event of the lowest enabled one")
QUIRK(Q_PERF_CAP_CLEAR_ACCEPTED, PLATFORM, "perf-capabilities-clearing-accepted", on_pdcm,
      "hypothetical (a vPMU letting a guest disable features)",
      "WRMSR IA32_PERF_CAPABILITIES with bits cleared is ignored instead of #GP(0)")
QUIRK(Q_PERF_CAP_WITHOUT_PDCM, CPU, "perf-capabilities-without-pdcm", on_intel_without_pdcm,
      "hypothetical", "IA32_PERF_CAPABILITIES reads 0 without CPUID.01H:ECX[15] PDCM")
QUIRK(Q_DEBUGCTL_FREEZE_GP, PLATFORM, "debugctl-freeze-perfmon-rejected", on_v2,
      "KVM vmx_is_valid_debugctl(): FREEZE_PERFMON_ON_PMI is not in "
      "vmx_get_supported_debugctl(), the WRMSR fails",
      "WRMSR IA32_DEBUGCTL with FREEZE_PERFMON_ON_PMI (bit 12) raises #GP(0)")
QUIRK(Q_KVM_P6_MSRS_RAZ, PLATFORM, "no-pmu-p6-msrs-raz-wi", on_intel_without_pmu,
      "KVM kvm_get_msr_common() / kvm_set_msr_common() (x86.c): without a vPMU, "
      "MSR_P6_PERFCTR0/1 and MSR_P6_EVNTSEL0/1 read 0 and writes are dropped",
      "without a PMU, IA32_PMC0/1 and IA32_PERFEVTSEL0/1 read 0 and ignore writes "
      "instead of #GP(0)")
QUIRK(Q_ADAPTIVE_RECORD_REJECTED, PLATFORM, "evtsel-adaptive-record-rejected", on_pebs_baseline,
      "hypothetical (a vPMU predating Ice Lake's adaptive PEBS)",
      "IA32_PERFEVTSELx bit 34 (Adaptive_Record) raises #GP although "
      "IA32_PERF_CAPABILITIES.PEBS_BASELINE = 1")
QUIRK(Q_IN_TX_REJECTED, CPU, "evtsel-in-tx-rejected", on_tsx, "hypothetical",
      "IA32_PERFEVTSELx bits 32/33 (IN_TX, IN_TXCP) raise #GP although CPUID enumerates "
      "HLE or RTM")
QUIRK(Q_IN_TXCP_EVERY_COUNTER, CPU, "evtsel-in-txcp-every-counter", on_tsx, "hypothetical",
      "IN_TXCP (bit 33) is accepted on every IA32_PERFEVTSELx, not only on "
      "IA32_PERFEVTSEL2")
QUIRK(Q_CPUID_FIXED_HIDDEN, CPU, "cpuid-v2-fixed-counters-hidden", on_fixed_by_leaf_0ah,
      "Core 2 Merom/Conroe (CPUID.0AH:EDX = 0 on version 2; Linux intel_pmu_init() "
      "assumes the three fixed counters on bare metal; kernel/known.c "
      "core2-v2-no-fixed-enumerated)",
      "CPUID.0AH reports version 2+ with EDX[12:0] = 0 and ECX = 0, yet "
      "IA32_FIXED_CTR0-2 exist and count (40 bits when CPUID gives no width)")
QUIRK(Q_GP_LAST_MISSING, PLATFORM, "enumerated-gp-counter-missing", on_arch_pmu,
      "hypothetical (a vPMU exposing fewer counters than its CPUID)",
      "the highest enumerated IA32_PMCx / IA32_PERFEVTSELx do not exist (#GP)")
QUIRK(Q_PMC_LEGACY_WRITE_IGNORED, CPU, "pmc-legacy-write-ignored", on_fw_write, "hypothetical",
      "with FW_WRITE, WRMSR to IA32_PMCx (the legacy address) is ignored: only "
      "IA32_A_PMCx writes the counter")
QUIRK(Q_V1_GLOBAL_MSRS, CPU, "v1-global-msrs-exist", on_v1, "hypothetical",
      "IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL and IA32_FIXED_CTR_CTRL exist on "
      "version 1")
QUIRK(Q_PCORE_EXTRA_COUNTERS, CPU, "pcore-counters-beyond-cpuid", on_non_atom_below_31_gp,
      "Alder Lake / Raptor Lake P-cores: Linux intel_pmu_init() gives the cpu_core PMU "
      "num_counters + 2 and num_counters_fixed + 1 over CPUID.0AH (kernel/known.c "
      "adl-rpl-pcore-counters-beyond-cpuid)",
      "on a CPU whose core type is not Atom, two IA32_PMCx / IA32_PERFEVTSELx and one "
      "IA32_FIXED_CTRx beyond what CPUID enumerates exist and count")
QUIRK(Q_EVTSEL_NEW_BITS_REJECTED, PLATFORM, "evtsel-br-cntr-usr-disable-rejected",
      on_evtsel_new_bits,
      "hypothetical (a VMM or CPU predating CPUID.(1CH,0):ECX[19:16] / (23H,0):EBX[2])",
      "IA32_PERFEVTSELx bits 35 (BR_CNTR) and 37 (RDPMC_USR_DISABLE) raise #GP(0) "
      "where CPUID enumerates them")
QUIRK(Q_XEN_IPC_ONLY, PLATFORM, "xen-vpmu-ipc-events-only", on_arch_pmu,
      "Xen vpmu=ipc: core2_vpmu_do_wrmsr() (xen/arch/x86/cpu/vpmu_intel.c) refuses an "
      "IA32_PERFEVTSELx write whose bits 15:0 are not 003CH, 00C0H or 013CH, enabled or "
      "not (XENPMU_FEATURE_IPC_ONLY); the refusal is the guest's #GP",
      "WRMSR IA32_PERFEVTSELx with an event other than core cycles, instructions "
      "retired or reference cycles (0 included) raises #GP(0)")
QUIRK(Q_XEN_ARCH_ONLY, PLATFORM, "xen-vpmu-arch-events-only", on_arch_pmu,
      "Xen vpmu=arch: core2_vpmu_do_wrmsr() (xen/arch/x86/cpu/vpmu_intel.c) refuses an "
      "IA32_PERFEVTSELx write whose bits 15:0 are not one of the first seven "
      "architectural events, enabled or not (XENPMU_FEATURE_ARCH_ONLY): the guest's #GP",
      "WRMSR IA32_PERFEVTSELx with an event other than the first seven architectural "
      "events (0 included) raises #GP(0)")

/* ---- Reset values and the firmware's hand-over (Vol. 4 Table 2-2; suites/fw_state is reported,
 * never judged) ---- */
QUIRK(Q_GLOBAL_CTRL_RESET_ZERO, PLATFORM, "global-ctrl-reset-zero", on_v2,
      "QEMU/KVM: QEMU kvm_put_msrs() writes its reset value 0 at KVM_PUT_RESET_STATE; KVM "
      "from c49467a45fe0 (v6.0) until de120e1d692d (kvm_pmu_refresh(), v6.10) zeroes it "
      "(kernel/known.c kvm-global-ctrl-reset-zero)",
      "IA32_PERF_GLOBAL_CTRL resets to 0 instead of the GP enable bits set")
QUIRK(Q_AMD_GLOBAL_CTL_RESET_ZERO, CPU, "amd-global-ctl-reset-zero", on_amd_perfmon_v2,
      "hypothetical", "PerfCntrGlobalCtl resets to 0 instead of each core counter's PerfCntrEn")
QUIRK(Q_GLOBAL_CTRL_RESET_RSVD, CPU, "global-ctrl-reset-reserved", on_v2, "hypothetical",
      "IA32_PERF_GLOBAL_CTRL comes out of reset with reserved bit 62 set")
QUIRK(Q_FW_LEFT_COUNTERS, FIRMWARE, "firmware-left-counters", fw_on_counters,
      "HP ProLiant, Lenovo ThinkSystem, AMD boards (Linux check_hw_exists())",
      "firmware hands over with counters enabled (FIXED_CTR_CTRL = 0x330, PerfEvtSel0)")
QUIRK(Q_FW_CPUID_LIMIT, FIRMWARE, "firmware-cpuid-limit", fw_on_cpuid_limit,
      "firmware option \"Limit CPUID Maxval\" (Linux early_init_intel())",
      "firmware hands over with IA32_MISC_ENABLE[22] set: CPUID.0H:EAX reads 2")
QUIRK(Q_GLOBAL_CTRL_RESET_AP, CPU, "global-ctrl-reset-wrong-on-aps", on_v2_smp, "hypothetical",
      "IA32_PERF_GLOBAL_CTRL comes out of reset with every enable bit clear on the "
      "application processors (right on the boot CPU)")

/* ---- Counting: enables, filters, overflow (Vol. 3B 20.2) ---- */
QUIRK(Q_GLOBAL_CTRL_IGNORED, CPU, "global-ctrl-not-gating", on_v2, "hypothetical",
      "counting is not gated by IA32_PERF_GLOBAL_CTRL")
QUIRK(Q_EN_IGNORED, CPU, "evtsel-en-ignored", on_arch_pmu, "hypothetical",
      "a GP counter counts with IA32_PERFEVTSELx.EN = 0")
QUIRK(Q_CPL_FILTER_IGNORED, CPU, "usr-os-ignored", on_arch_pmu, "hypothetical",
      "USR / OS do not filter by CPL: either one counts at every CPL")
QUIRK(Q_USR_CPL3_ONLY, CPU, "usr-counts-cpl3-only", on_arch_pmu, "hypothetical",
      "USR counts at CPL 3 only, not at CPL 1 and 2")
QUIRK(Q_FIXED_EN_SWAPPED, CPU, "fixed-os-usr-swapped", on_fixed_counters, "hypothetical",
      "IA32_FIXED_CTR_CTRL enable bits swapped: bit 0 counts CPL > 0, bit 1 CPL 0")
QUIRK(Q_CMASK_IGNORED, CPU, "cmask-ignored", on_arch_pmu, "hypothetical",
      "the counter mask (CMASK) is ignored")
QUIRK(Q_INV_IGNORED, CPU, "inv-ignored", on_arch_pmu, "hypothetical",
      "INV does not invert the CMASK comparison")
QUIRK(Q_EDGE_IGNORED, CPU, "edge-ignored", on_arch_pmu, "hypothetical",
      "EDGE does not restrict counting to deasserted-to-asserted transitions")
QUIRK(Q_ANY_DEPRECATION_IGNORED, CPU, "anythread-deprecation-ignored", on_v3_anythread_deprecated,
      "hypothetical",
      "AnyThread (bit 21 / fixed bit 4i+2) is accepted although CPUID.0AH:EDX[15] "
      "deprecates it")
QUIRK(Q_ANY_REJECTED_V3, CPU, "anythread-rejected-on-v3", on_v3_anythread, "hypothetical",
      "AnyThread raises #GP on a version-3 PMU that supports it")
QUIRK(Q_ANY_ACCEPTED_V2, CPU, "anythread-accepted-before-v3", on_v1_or_v2, "hypothetical",
      "AnyThread (reserved before version 3) is accepted on a v1/v2 PMU")
QUIRK(Q_OVF_NO_STATUS, CPU, "overflow-no-status", on_v2, "hypothetical",
      "a counter overflow does not set its IA32_PERF_GLOBAL_STATUS bit")
QUIRK(Q_OVF_CTRL_NO_CLEAR, CPU, "ovf-ctrl-no-clear", on_v2,
      "hypothetical as modelled (never clears); the real case, Zhaoxin ZXC clearing only "
      "while GLOBAL_CTRL is enabled, is quirk ovf-clear-needs-global-enable",
      "IA32_PERF_GLOBAL_OVF_CTRL (STATUS_RESET) does not clear status bits")
QUIRK(Q_STATUS_SET_IGNORED, CPU, "status-set-ignored", on_v4, "hypothetical",
      "IA32_PERF_GLOBAL_STATUS_SET writes are ignored")
QUIRK(Q_INUSE_ZERO, CPU, "inuse-reads-zero", on_v4, "hypothetical",
      "IA32_PERF_GLOBAL_INUSE always reads 0")
QUIRK(Q_COUNTER_SATURATES, CPU, "counter-saturates", on_arch_pmu, "hypothetical",
      "a counter stops at all-ones instead of wrapping to 0")
QUIRK(Q_OVF_EARLY, CPU, "overflow-one-early", on_v2, "hypothetical",
      "overflow is signalled when the counter reaches all-ones, one event early")
QUIRK(Q_FREEZE_IGNORED, CPU, "freeze-on-pmi-ignored", on_v2,
      "hypothetical (KVM rejects the bit with #GP instead: "
      "debugctl-freeze-perfmon-rejected)",
      "IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI does not freeze the counters on a PMI")
QUIRK(Q_FREEZE_LEGACY_ON_V4, CPU, "v4-freeze-legacy", on_v4, "hypothetical",
      "on v4, freeze on PMI clears IA32_PERF_GLOBAL_CTRL instead of setting CTR_FRZ")
QUIRK(Q_IN_TX_COUNTS_OUTSIDE, CPU, "in-tx-counts-outside", on_rtm, "hypothetical",
      "a counter with IN_TX (IA32_PERFEVTSELx bit 32) also counts outside transactions")
QUIRK(Q_IN_TXCP_KEEPS_ABORTED, CPU, "in-txcp-keeps-aborted", on_rtm, "hypothetical",
      "IA32_PMC2 with IN_TXCP (bit 33) keeps the counts of an aborted transaction")
QUIRK(Q_UMASK2_IGNORED, CPU, "umask2-ignored", on_lion_cove_umask2, "hypothetical",
      "IA32_PERFEVTSELx UMASK2 (47:40) is stored but the event counted is the one of "
      "event and UMASK alone (BR_INST_RETIRED.COND_TAKEN_FWD, C4H 00H / 01H, counts all "
      "branches)")
QUIRK(Q_EQ_IGNORED, CPU, "eq-ignored", on_eq_three_gp, "hypothetical",
      "IA32_PERFEVTSELx.EQ (bit 36) is stored but CMASK still counts cycles >= CMASK")
QUIRK(Q_TSX_USES_PMC3, CPU, "tsx-microcode-uses-pmc3", on_rtm_four_gp,
      "Skylake-family parts with the 2019 TSX microcode (CPUID.(7,0):EDX[13] = 1): Linux "
      "tfa_get_event_constraints() 'Without TFA we must not use PMC3' (kernel/known.c "
      "skl-tsx-force-abort-pmc3)",
      "IA32_PMC3 does not count its event while an RTM transaction runs (the microcode "
      "holds it; MSR_TSX_FORCE_ABORT bit 0 is left 0)")
QUIRK(Q_ZXC_OVF_CLEAR_NEEDS_ENABLE, CPU, "ovf-clear-needs-global-enable", on_v2,
      "Zhaoxin ZXC (family 6 model 0FH stepping E-F, model 19H): Linux zhaoxin/core.c "
      "'Clearing status works only if the global control is enable on zxc' "
      "(x86_pmu.enabled_ack; kernel/known.c zxc-ovf-clear-needs-global-enable)",
      "IA32_PERF_GLOBAL_OVF_CTRL clears status bits only while IA32_PERF_GLOBAL_CTRL "
      "is non-zero; written with it 0, the write is ignored")
QUIRK(Q_REF_TSC_STICKY_OVF, CPU, "ref-tsc-overflow-sticky", on_fixed_ctr2_and_above,
      "Intel's event description of CPU_CLK_UNHALTED.REF_TSC (intel/perfmon event lists "
      "of Broadwell through Granite Rapids and the hybrid P-cores): the overflow status "
      "bit may appear 'sticky' (kernel/known.c ref-tsc-overflow-sticky)",
      "after IA32_FIXED_CTR2 overflows, clearing its status bit and rewriting the "
      "counter below MAX sets the bit again and raises another PMI if enabled")

/* ---- Counters that do not count (dead.c): the counting preconditions ---- */
QUIRK(Q_COUNTER1_DEAD, PLATFORM, "counter-1-dead", on_gp_counter_1,
      "hypothetical (one counter of a vPMU left unbacked)",
      "IA32_PMC1 / AMD PerfCtr1 reads 0, drops writes and never counts; the other "
      "counters work")
QUIRK(Q_COUNTER1_NEVER_COUNTS, CPU, "counter-1-holds-never-counts", on_gp_counter_1,
      "hypothetical (a counter register whose event logic is not wired)",
      "IA32_PMC1 / AMD PerfCtr1 holds what is written but never counts")
QUIRK(Q_COUNTER0_INSNS_ONLY, PLATFORM, "counter-0-counts-instructions-only", on_gp_counter_0,
      "hypothetical (an emulator that counts retired instructions only)",
      "IA32_PMC0 / AMD PerfCtr0 counts retired instructions and no other event")
QUIRK(Q_FIXED0_DEAD, PLATFORM, "fixed-counter-0-dead", on_fixed_ctr0,
      "hypothetical (one fixed counter of a vPMU left unbacked)",
      "IA32_FIXED_CTR0 reads 0, drops writes and never counts; the other fixed and GP "
      "counters work")
QUIRK(Q_CPU1_COUNTERS_DEAD, PLATFORM, "cpu1-counters-dead", on_smp_counters,
      "hypothetical (one vCPU whose vPMU was not set up)",
      "on CPU 1 every counter (GP, fixed, AMD) reads 0, drops writes and never counts")
/* The boot CPU's: the other CPUs' two-CPU tests meet a partner whose
 * finding was established before them (the runner runs CPU by CPU). */
QUIRK(Q_CPU0_COUNTERS_DEAD, PLATFORM, "cpu0-counters-dead", on_smp_counters,
      "hypothetical (the boot vCPU's vPMU was not set up)",
      "on CPU 0 every counter (GP, fixed, AMD) reads 0, drops writes and never counts")
/* ---- What is counted: the architectural events, intercepted instructions, SMM ---- */
QUIRK(Q_LLC_NEVER_COUNT, PLATFORM, "llc-events-never-count", on_llc_events,
      "hypothetical (a vPMU that drops events it does not emulate)",
      "LLC References (2EH/4FH) and LLC Misses (2EH/41H) never count, although "
      "CPUID.0AH:EBX marks them available")
QUIRK(Q_BR_MISS_NEVER_COUNTS, PLATFORM, "branch-miss-never-counts", on_branch_miss_event,
      "hypothetical (a vPMU that drops events it does not emulate)",
      "Branch Misses Retired (C5H/00H) never counts, although CPUID.0AH:EBX marks it "
      "available")
QUIRK(Q_KVM_EMULATED_RETIRE, PLATFORM, "intercepted-insns-counted-unfiltered", on_arch_pmu,
      "KVM kvm_pmu_trigger_event() (pmu.c): an instruction KVM emulates or skips is "
      "added to every counter whose event and CPL match, 'Ignore checks for edge "
      "detect, pin control, invert and CMASK bits' (torvalds/linux 004a0aa5)",
      "intercepted instructions (CPUID, WRMSR, IN) count as retired whatever "
      "CMASK/INV/EDGE say")
QUIRK(Q_EMULATED_OVF_NO_PMI, PLATFORM, "intercepted-overflow-no-pmi", on_arch_pmu,
      "hypothetical (a vPMU that counts intercepted instructions in software but "
      "synthesizes no PMI for the overflow they cause)",
      "an overflow caused by an intercepted instruction sets its status bit but raises "
      "no PMI")
QUIRK(Q_GATE_COUNTS_HOST, PLATFORM, "gate-counts-host-instructions", on_arch_pmu,
      "hypothetical (a vPMU enabling the host counter before VM entry: a constant "
      "per window, which 2N-N checks cancel)",
      "a counter enabled by a WRMSR also counts 33 instructions and 3 branches of the "
      "hypervisor around the guest's window")
QUIRK(Q_CYCLES_SCALED, PLATFORM, "core-cycles-scaled-by-16", on_arch_pmu,
      "hypothetical (a vPMU scaling a host count by a wrong clock ratio)",
      "core cycles (3CH/00H, IA32_FIXED_CTR1) count 16 per cycle")
QUIRK(Q_REF_TSC_SLOW, PLATFORM, "fixed-ref-cycles-below-tsc-rate", on_fixed_ctr2,
      "hypothetical (a vPMU counting IA32_FIXED_CTR2 on the core crystal clock)",
      "IA32_FIXED_CTR2 (REF_TSC) counts at a fraction of the TSC rate")
QUIRK(Q_INSNS_EXTRA_PER_ITER, PLATFORM, "insns-one-extra-per-iteration", on_counting_pmu,
      "hypothetical (an emulator counting the loop branch twice)",
      "instructions retired counts one more than retired per workload loop iteration")
QUIRK(Q_FIXED_4_6_CYCLES, CPU, "fixed-4-6-count-cycles", on_fixed_4_6_events, "hypothetical",
      "IA32_FIXED_CTR4-6 count core cycles instead of the topdown events 0073H, 019CH, "
      "02C2H")
QUIRK(Q_CPUID_COUNTS_AS_BRANCH, CPU, "cpuid-counted-as-branch", on_branch_event,
      "Core 2 (65 nm Core microarchitecture): Intel specification update erratum W146 "
      "'Performance Monitoring Event BR_INST_RETIRED May Count CPUID Instructions as "
      "Branches' (kernel/known.c core2-cpuid-counted-as-branch)",
      "BR_INST_RETIRED.ANY (C4H/00H, Branch Instructions Retired) also counts every "
      "CPUID")
QUIRK(Q_ATOM_VMEXIT_OVERCOUNT, CPU, "atom-vmexit-overcount", on_instructions_and_branches,
      "Sierra Forest and earlier Atom servers, erratum SRF7 (kvm-unit-tests 3ffdf39c; "
      "kernel/known.c atom-srf7-vmexit-overcount)",
      "each VM exit and entry of an intercepted instruction counts one more instruction "
      "retired and one more branch retired")
QUIRK(Q_CWF_VMEXIT_INSN_OVERCOUNT, CPU, "cwf-vmexit-insn-overcount", on_instructions_event,
      "Clearwater Forest, erratum SRF7 as kvm-unit-tests 3ffdf39c applies it there "
      "(kernel/known.c cwf-vmexit-insn-overcount)",
      "each VM exit and entry of an intercepted instruction counts one more instruction "
      "retired")
QUIRK(Q_MISCOUNT_ONCE, CPU, "miscount-once-with-irq", on_arch_pmu, "hypothetical",
      "strikes only sometimes: the first run of each test counts one instruction too "
      "many in its first counting window, and the CPU takes a stray interrupt with it; "
      "a second run of the test is exact")
QUIRK(Q_SMM_COUNTS_FROZEN, CPU, "smm-counts-while-frozen", on_freeze_while_smm, "hypothetical",
      "counters count the SMM handler's instructions although "
      "IA32_DEBUGCTL.FREEZE_WHILE_SMM is set (an SMI every 5th counting window unless "
      "pmusim --smi-every says otherwise)")

/* ---- PMI and the local APIC (Vol. 3A 10.5.1, Vol. 3B 20.2) ---- */
QUIRK(Q_LVT_NO_MASK, PLATFORM, "lvt-mask-not-set-on-pmi", on_intel_pmi_source,
      "KVM kvm_apic_local_deliver() before its Sept. 2023 fix (v6.6); since Apr. 2024 "
      "again for AMD/Hygon guests only (guest_cpuid_is_intel_compatible())",
      "PMI delivery does not set the LVT performance-counter mask bit")
QUIRK(Q_PMI_WHILE_MASKED, CPU, "pmi-while-lvt-masked", on_arch_pmu, "hypothetical",
      "a PMI is delivered while the LVT entry is masked")
QUIRK(Q_PMI_INT_CLEAR, CPU, "pmi-without-int", on_arch_pmu, "hypothetical",
      "an overflow raises a PMI although the counter's INT / PMI bit is clear")
QUIRK(Q_PMI_ANY_VECTOR, CPU, "pmi-ignores-lvt-vector", on_arch_pmu, "hypothetical",
      "the PMI is delivered at PMI_VECTOR whatever vector the LVT entry holds")
QUIRK(Q_PMI_IGNORES_IF, CPU, "pmi-ignores-if", on_arch_pmu, "hypothetical",
      "a PMI is delivered while RFLAGS.IF = 0 instead of being held pending")
QUIRK(Q_PMI_LOST_IF0, CPU, "pmi-lost-while-if-clear", on_arch_pmu, "hypothetical",
      "a PMI requested while RFLAGS.IF = 0 is dropped instead of held pending")
QUIRK(Q_FIXED_PMI_IGNORED, CPU, "fixed-pmi-ignored", on_fixed_counters, "hypothetical",
      "the PMI bit of IA32_FIXED_CTR_CTRL does not raise a PMI on overflow")
QUIRK(Q_PMI_NMI_AS_FIXED, PLATFORM, "pmi-nmi-mode-as-fixed", on_arch_pmu,
      "hypothetical (a vPMU injecting every LVTPC delivery as an external interrupt)",
      "LVT delivery mode NMI (100B) delivers a maskable interrupt at the LVT vector "
      "instead of an NMI")
QUIRK(Q_PMI_NMI_BLOCKED_BY_IF, CPU, "pmi-nmi-blocked-by-if", on_arch_pmu, "hypothetical",
      "an NMI-mode PMI is held while RFLAGS.IF = 0 (delivered at IF = 1) instead of "
      "being taken at once")
QUIRK(Q_PMI_NO_INT_ABOVE_0, CPU, "pmi-without-int-above-counter-0", on_arch_pmu,
      "hypothetical (an INT check wired to counter 0 only)",
      "an overflow of a GP or fixed counter other than 0 raises a PMI whatever its INT / "
      "PMI bit")
QUIRK(Q_LVT_VECTOR_IGNORED, CPU, "lvt-vector-not-written", on_arch_pmu, "hypothetical",
      "a write of the LVT performance-counter entry keeps the old vector")
QUIRK(Q_PMI_NMI_LATE, CPU, "pmi-nmi-late", on_arch_pmu, "hypothetical",
      "the first NMI-mode PMI of each CPU arrives late, after the test removed its NMI "
      "handler")
QUIRK(Q_PMI_NMI_DUPLICATED, CPU, "pmi-nmi-duplicated", on_arch_pmu, "hypothetical",
      "every NMI-mode PMI is delivered twice, the copy after the test removed its NMI "
      "handler")
QUIRK(Q_PMI_NMI_LOST_ONCE, CPU, "pmi-nmi-lost-once", on_arch_pmu, "hypothetical",
      "the first NMI-mode PMI of each CPU is lost")

/* ---- Architectural PMU version 6, the 19xxH aliases (suites/v6.c) ---- */
QUIRK(Q_V6_ALIAS_SEPARATE, CPU, "v6-alias-separate-register", on_v6, "hypothetical",
      "IA32_PMC_GPn_CTR / _CFG_A and IA32_PMC_FXm_CTR are registers of their own, not "
      "IA32_PMCn / IA32_PERFEVTSELn / IA32_FIXED_CTRm (they neither count nor program)")
QUIRK(Q_V6_ALIAS_STALE, PLATFORM, "v6-alias-ctr-stale", on_v6,
      "hypothetical (an emulator keeping the alias as the last value written)",
      "IA32_PMC_GPn_CTR reads the value last written to the counter, not its count")
QUIRK(Q_V6_CFG_A_RESERVED, CPU, "v6-cfg-a-reserved-accepted", on_v6, "hypothetical",
      "IA32_PMC_GPn_CFG_A accepts the bits IA32_PERFEVTSELn reserves")
QUIRK(Q_V6_ALIAS_BEYOND_BITMAP, CPU, "v6-aliases-beyond-bitmap", on_v6, "hypothetical",
      "the 19xxH aliases of counters CPUID does not enumerate read 0 and ignore writes "
      "instead of #GP(0)")
QUIRK(Q_V6_FX_CFG_A, CPU, "v6-fixed-cfg-a-exists", on_v6, "hypothetical",
      "IA32_PMC_FXm_CTR + 1 (an FXm_CFG_A the ISE does not define) reads 0 and ignores "
      "writes instead of #GP(0)")

/* ---- Auto Counter Reload (suites/acr.c) ---- */
QUIRK(Q_ACR_NO_RELOAD, CPU, "acr-reload-ignored", on_acr, "hypothetical",
      "CFG_B / CFG_C are stored but no overflow reloads a counter")
QUIRK(Q_ACR_RELOAD_ZERO, CPU, "acr-reload-to-zero", on_acr, "hypothetical",
      "a reloaded counter restarts from 0 instead of its CFG_C reload value")
QUIRK(Q_ACR_SELF_STATUS, CPU, "acr-self-reload-sets-status", on_acr,
      "hypothetical (Linux 1271aeccc307 relies on the opposite)",
      "a counter that reloads itself sets its IA32_PERF_GLOBAL_STATUS bit")
QUIRK(Q_ACR_CFG_C_MISSING, CPU, "acr-cfg-c-missing", on_acr, "hypothetical",
      "IA32_PMC_GPn_CFG_C / IA32_PMC_FXm_CFG_C of a reloadable counter raise #GP(0)")
QUIRK(Q_ACR_MSRS_EVERYWHERE, CPU, "acr-msrs-beyond-bitmap", on_acr, "hypothetical",
      "CFG_B / CFG_C of counters CPUID.(23H,2) does not name read 0 and ignore writes")
QUIRK(Q_ACR_CAUSE_UNCHECKED, CPU, "acr-cause-bitmap-ignored", on_acr_non_cause, "hypothetical",
      "CFG_B accepts a counter CPUID.(23H,2) ECX / EDX does not name as a cause, and its "
      "overflow reloads")

/* ---- PERF_METRICS and the topdown events (suites/metrics.c) ---- */
QUIRK(Q_RDPMC_METRICS_UNCHECKED, CPU, "rdpmc-metrics-without-cap", on_arch_without_perf_metrics,
      "hypothetical as modelled (reads 0); the real case, Alder Lake / Raptor Lake "
      "P-cores, is quirk pcore-perf-metrics-without-cap",
      "RDPMC type 2000H returns 0 without PERF_CAPABILITIES.PERF_METRICS_AVAILABLE")
QUIRK(Q_METRICS_NOT_FF, CPU, "perf-metrics-sum-not-ff", on_perf_metrics, "hypothetical",
      "the IA32_PERF_METRICS level-1 fractions sum to F0H instead of FFH")
QUIRK(Q_METRICS_NO_CLEAR, CPU, "perf-metrics-write-no-clear", on_perf_metrics, "hypothetical",
      "writing 0 to FIXED_CTR3 and IA32_PERF_METRICS does not clear the metrics")
QUIRK(Q_TD_SLOTS_NEVER, CPU, "topdown-slots-never-count", on_perf_metrics, "hypothetical",
      "fixed counter 3 (TOPDOWN.SLOTS) never counts")
QUIRK(Q_RDPMC_METRICS_ZERO, CPU, "rdpmc-metrics-reads-zero", on_perf_metrics, "hypothetical",
      "RDPMC type 2000H returns 0 instead of IA32_PERF_METRICS")
QUIRK(Q_METRICS_CTRL_BIT_GP, CPU, "global-ctrl-metrics-bit-rejected", on_perf_metrics,
      "hypothetical", "IA32_PERF_GLOBAL_CTRL bit 48 (EN_PERF_METRICS) raises #GP")
QUIRK(Q_TD_BACKEND_NEVER, CPU, "topdown-backend-never-counts", on_topdown_events, "hypothetical",
      "the architectural Topdown Backend Bound event (A4H/02H) never "
      "counts, although CPUID.0AH:EBX marks it available")
QUIRK(Q_METRICS_L2_ABOVE_PARENT, CPU, "perf-metrics-level2-above-parent", on_perf_metrics_l2,
      "hypothetical",
      "the heavy-operations byte (4) of IA32_PERF_METRICS exceeds its "
      "level-1 parent, retiring (byte 0)")
QUIRK(Q_METRICS_CLEAR_IGNORED, CPU, "metrics-clear-ignored", on_metrics_clear, "hypothetical",
      "RDPMC of the metrics with METRICS_CLEAR_EN leaves IA32_PERF_METRICS and "
      "IA32_FIXED_CTR3 as they were")
QUIRK(Q_METRICS_CLEAR_ALWAYS, CPU, "metrics-clear-without-enable", on_metrics_clear, "hypothetical",
      "RDPMC of the metrics clears them although METRICS_CLEAR_EN is 0")
QUIRK(Q_METRICS_CLEAR_KEEPS_SLOTS, CPU, "metrics-clear-keeps-slots", on_metrics_clear,
      "hypothetical",
      "the metrics clear mode clears IA32_PERF_METRICS but not "
      "IA32_FIXED_CTR3")
QUIRK(Q_PCORE_PERF_METRICS, CPU, "pcore-perf-metrics-without-cap", on_non_atom_no_metrics,
      "Alder Lake / Raptor Lake P-cores: Linux intel_pmu_cpu_starting() ('The perf "
      "metrics is a model-specific feature ... always be 0 on a hybrid platform') and "
      "the ADL init setting intel_cap.perf_metrics for cpu_core (kernel/known.c "
      "adl-rpl-pcore-perf-metrics-unenumerated)",
      "on a CPU whose core type is not Atom, IA32_PERF_METRICS, RDPMC type 2000H and "
      "IA32_PERF_GLOBAL_CTRL bit 48 work although PERF_CAPABILITIES[15] = 0")

/* ---- LBR and Arch LBR (suites/lbr.c) ---- */
QUIRK(Q_LBR_STACK_SHORT, CPU, "lbr-stack-half-depth", on_legacy_lbr, "hypothetical",
      "the LBR stack has half the entries the SDM gives for the DisplayModel: the "
      "upper FROM/TO MSRs raise #GP")
QUIRK(Q_LBR_TOS_READONLY, CPU, "lbr-tos-readonly", on_legacy_lbr, "hypothetical",
      "WRMSR MSR_LASTBRANCH_TOS is ignored")
QUIRK(Q_LBR_SELECT_READONLY, CPU, "lbr-select-readonly", on_lbr_select, "hypothetical",
      "WRMSR MSR_LBR_SELECT is ignored")
QUIRK(Q_LBR_ONE_SHORT, CPU, "lbr-records-one-branch-short", on_lbr_any, "hypothetical",
      "the first branch after the LBRs are enabled is not recorded")
QUIRK(Q_LBR_RING3_NOT_RECORDED, CPU, "lbr-outer-rings-not-recorded", on_lbr_any, "hypothetical",
      "branches taken at CPL > 0 are never recorded")
QUIRK(Q_LBR_FROM_TO_SWAPPED, CPU, "lbr-from-to-swapped", on_legacy_lbr, "hypothetical",
      "MSR_LASTBRANCH_x_FROM_IP holds the target and _TO_IP the source")
QUIRK(Q_LBR_CPL_FILTER_IGNORED, CPU, "lbr-select-cpl-ignored", on_lbr_select, "hypothetical",
      "MSR_LBR_SELECT CPL_EQ_0 / CPL_NEQ_0 do not suppress branches")
QUIRK(Q_LBR_JMP_FILTER_IGNORED, CPU, "lbr-select-near-rel-jmp-ignored", on_lbr_select,
      "hypothetical", "MSR_LBR_SELECT NEAR_REL_JMP does not suppress near relative JMPs")
QUIRK(Q_LBR_IN_TX_SET, CPU, "lbr-in-tx-flag-set", on_lbr_tsx_flags, "hypothetical",
      "LBR entries carry IN_TX although no transaction ran")
QUIRK(Q_LBR_FRZ_NOT_SET, CPU, "lbr-frz-not-set", on_lbr_v4, "hypothetical",
      "FREEZE_LBRS_ON_PMI on v4: a PMI neither sets IA32_PERF_GLOBAL_STATUS.LBR_Frz nor "
      "stops the LBRs")
QUIRK(Q_LBR_FREEZE_ALWAYS, CPU, "lbr-frozen-without-freeze-bit", on_lbr_pmi, "hypothetical",
      "every PMI freezes the LBRs (clears DEBUGCTL.LBR / sets LBR_Frz), "
      "FREEZE_LBRS_ON_PMI or not")
QUIRK(Q_LBR_FREEZE_IGNORED, CPU, "lbr-freeze-on-pmi-ignored", on_legacy_lbr_v2_v3,
      "Atom 06_1CH before stepping 10: Linux lbr.c intel_pmu_lbr_init_atom() "
      "(kernel/known.c atom-bonnell-lbr-no-freeze)",
      "FREEZE_LBRS_ON_PMI before v4: a PMI does not clear "
      "IA32_DEBUGCTL.LBR")
QUIRK(Q_ALBR_DEPTH_ANY, CPU, "arch-lbr-any-depth-accepted", on_arch_lbr_depth_gaps, "hypothetical",
      "IA32_LBR_DEPTH accepts any depth up to 64, not only those CPUID.1CH:EAX[7:0] "
      "lists")
QUIRK(Q_ALBR_DEPTH_KEEPS_ENTRIES, CPU, "arch-lbr-depth-write-keeps-entries", on_arch_lbr,
      "hypothetical", "a write to IA32_LBR_DEPTH leaves the LBR entries as they were")
QUIRK(Q_ALBR_CTL_RESERVED, CPU, "arch-lbr-ctl-reserved-accepted", on_arch_lbr, "hypothetical",
      "IA32_LBR_CTL writes with reserved bits set are accepted")
QUIRK(Q_ALBR_OLDEST_FIRST, CPU, "arch-lbr-oldest-first", on_arch_lbr, "hypothetical",
      "Arch LBR entries fill from IA32_LBR_0 upward: entry 0 is the oldest, not the "
      "youngest")
QUIRK(Q_ALBR_INFO_MISSING, CPU, "arch-lbr-info-msrs-missing", on_arch_lbr, "hypothetical",
      "IA32_LBR_x_INFO raise #GP")
QUIRK(Q_ALBR_CPL_IGNORED, CPU, "arch-lbr-cpl-filter-ignored", on_arch_lbr_cpl, "hypothetical",
      "IA32_LBR_CTL.OS / USR do not filter by CPL")
QUIRK(Q_ALBR_TYPE_FILTER_IGNORED, CPU, "arch-lbr-branch-filter-ignored", on_arch_lbr_filter,
      "hypothetical",
      "IA32_LBR_CTL branch-type bits do not filter: every branch is "
      "recorded")
QUIRK(Q_ALBR_CALLSTACK_NO_POP, CPU, "arch-lbr-call-stack-no-pop", on_arch_lbr_call_stack,
      "hypothetical", "in call-stack mode a RET is recorded instead of popping its CALL")
QUIRK(Q_ALBR_BR_TYPE_ZERO, CPU, "arch-lbr-br-type-zero", on_arch_lbr_br_type, "hypothetical",
      "IA32_LBR_x_INFO.BR_TYPE is always 0 (JCC)")

/* ---- PEBS (suites/pebs.c) ---- */
QUIRK(Q_PEBS_ENABLE_RESERVED, CPU, "pebs-enable-reserved-accepted", on_pebs_baseline_below_32_gp,
      "hypothetical", "IA32_PEBS_ENABLE accepts the bit of a GP counter that does not exist")
QUIRK(Q_PEBS_FIXED_IGNORED, CPU, "pebs-fixed-counters-unsupported", on_pebs_baseline_fixed,
      "hypothetical",
      "with PEBS_BASELINE, IA32_PEBS_ENABLE rejects the fixed-counter bits (32 + i)")
QUIRK(Q_PEBS_OVFBUF_NEVER, CPU, "pebs-ovfbuf-never-set", on_pebs_baseline, "hypothetical",
      "reaching the PEBS interrupt threshold neither sets OvfBuf (bit 62) nor raises a "
      "PMI")
QUIRK(Q_PEBS_OVFBUF_EARLY, CPU, "pebs-ovfbuf-before-threshold", on_pebs_baseline, "hypothetical",
      "every PEBS record sets OvfBuf and raises a PMI, below the "
      "threshold too")
QUIRK(Q_PEBS_DUPLICATE_RECORD, CPU, "pebs-duplicate-record", on_pebs_baseline, "hypothetical",
      "one counter overflow writes its PEBS record twice")
QUIRK(Q_PEBS_SIZE_IGNORES_XMM, CPU, "pebs-record-size-ignores-xmm", on_pebs_baseline,
      "hypothetical",
      "the record-size field of an adaptive record leaves out the XMM "
      "group")
QUIRK(Q_PEBS_FORMAT_FIELD_ZERO, CPU, "pebs-format-field-zero", on_pebs_baseline, "hypothetical",
      "the format field of an adaptive record does not echo "
      "MSR_PEBS_DATA_CFG")
QUIRK(Q_PEBS_IP_ZERO, CPU, "pebs-ip-zero", on_pebs_baseline, "hypothetical",
      "the IP of a PEBS record is 0")
QUIRK(Q_PEBS_APPLICABLE_ZERO, CPU, "pebs-applicable-counters-zero", on_pebs_baseline,
      "hypothetical", "the applicable-counters field of a PEBS record is 0")
QUIRK(Q_PEBS_FIRST_COUNTER_ONLY, CPU, "pebs-first-counter-only", on_pebs_baseline_two_gp,
      "hypothetical",
      "only the lowest counter enabled in IA32_PEBS_ENABLE writes records; the others "
      "overflow the ordinary way")
QUIRK(Q_PEBS_ADAPTIVE_ALWAYS, CPU, "pebs-adaptive-bit-ignored", on_pebs_baseline, "hypothetical",
      "records take the MSR_PEBS_DATA_CFG groups even with Adaptive_Record clear")
QUIRK(Q_PEBS_RECORD_ON_ENABLE, CPU, "pebs-record-on-enable", on_pebs_baseline, "hypothetical",
      "a PEBS record is written when IA32_PEBS_ENABLE switches a GP counter on, before "
      "any overflow")
QUIRK(Q_PEBS_CNTR_SNAPSHOT_ZERO, CPU, "pebs-counter-snapshot-zero", on_pebs_fmt6, "hypothetical",
      "the PEBS counters group holds 0 for every counter it names")
QUIRK(Q_PEBS_SIZE_IGNORES_CNTR, CPU, "pebs-size-ignores-counter-group", on_pebs_fmt6,
      "hypothetical", "the record size field leaves out the counters group")
QUIRK(Q_PEBS_CNTR_METRICS_MISSING, CPU, "pebs-counter-metrics-missing", on_pebs_fmt6_metrics,
      "hypothetical",
      "MSR_PEBS_DATA_CFG[5] is accepted but the counters group holds no metrics (field 0, "
      "no SLOTS / PERF_METRICS quadwords)")
QUIRK(Q_PEBS_TIMED_GROUPS_HIGH, CPU, "pebs-timed-groups-in-latency", on_pebs_timed,
      "hypothetical (a timed-PEBS part writing the groups where the latency goes)",
      "with PEBS_TIMING_INFO the record format field [31:0] is 0 and the groups are "
      "written at [47:32]")
QUIRK(Q_PEBS_RESET_FMT4_LAYOUT, CPU, "pebs-reset-format4-layout", on_pebs_fmt5_fixed,
      "hypothetical (the layout before PEBS format 5, Linux 2145e77fecfb)",
      "on a PEBS format 5+ part the fixed counters' reset values are read at DS reset "
      "field 8 + i instead of 32 + i")

/* ---- Architectural PEBS (suites/arch_pebs.c) ---- */
QUIRK(Q_APEBS_INDEX_RSVD, CPU, "arch-pebs-index-reserved-writable", on_arch_pebs, "hypothetical",
      "IA32_PEBS_INDEX takes writes to its reserved bits")
QUIRK(Q_APEBS_WR_STUCK, CPU, "arch-pebs-wr-stuck", on_arch_pebs, "hypothetical",
      "a record is written but IA32_PEBS_INDEX.WR does not advance")
QUIRK(Q_APEBS_SIZE_NO_HEADER, CPU, "arch-pebs-size-without-header", on_arch_pebs, "hypothetical",
      "the record header's size field leaves out the 16-byte header")
QUIRK(Q_APEBS_APPLICABLE_ZERO, CPU, "arch-pebs-applicable-zero", on_arch_pebs, "hypothetical",
      "the basic group's applicable counters field is 0")
QUIRK(Q_APEBS_THRESH_EARLY, CPU, "arch-pebs-threshold-early", on_arch_pebs, "hypothetical",
      "every record sets IA32_PERF_GLOBAL_STATUS[54] and raises a PMI, below THRESH too")
QUIRK(Q_APEBS_THRESH_NO_STATUS, CPU, "arch-pebs-threshold-ignored", on_arch_pebs, "hypothetical",
      "WR reaching THRESH neither sets GLOBAL_STATUS[54] nor raises a PMI")
QUIRK(Q_APEBS_OVERRUN, CPU, "arch-pebs-buffer-overrun", on_arch_pebs, "hypothetical",
      "a record that does not fit is written past the buffer's end, FULL not set")
QUIRK(Q_APEBS_GROUPS_UNCHECKED, CPU, "arch-pebs-groups-unenumerated", on_arch_pebs_group_gap,
      "hypothetical", "CFG_C takes group bits CPUID.(23H,4):EBX does not enumerate")
QUIRK(Q_APEBS_GPR_NO_SSP, CPU, "arch-pebs-gpr-group-short", on_arch_pebs_gpr, "hypothetical",
      "the GPR group leaves out SSP and its reserved quadword (90H instead of A0H)")
QUIRK(Q_APEBS_SPLIT_NO_CONT, CPU, "arch-pebs-split-without-cont", on_arch_pebs_split,
      "hypothetical", "a record split into fragments has CONT[31] clear in every fragment header")
QUIRK(Q_APEBS_LBR_DEPTH_WRONG, CPU, "arch-pebs-lbr-depth-wrong", on_arch_pebs_lbr, "hypothetical",
      "the LBR group's header gives a depth 8 more than the entries it holds")
QUIRK(Q_APEBS_CNTR_ALLOW_IGNORED, CPU, "arch-pebs-counters-allow-ignored", on_arch_pebs_cntr,
      "hypothetical", "the counters group snapshots every GP counter, CFG_C.ALLOW[35] or not")

/* ---- AMD core counters (APM Vol. 2 13.2) ---- */
QUIRK(Q_AMD_NOT_ALIASED, CPU, "amd-legacy-not-aliased", on_amd_perfctr_core, "hypothetical",
      "legacy PerfCtr0..3 are separate from PerfCtr0..3 at C001_0201H+2n")
QUIRK(Q_AMD_EXT_WITHOUT_CORE, CPU, "amd-ext-msrs-without-perfctr-core", on_amd_legacy_only,
      "hypothetical", "C001_0200H..020BH exist without CPUID.80000001H:ECX[23] PerfCtrExtCore")
QUIRK(Q_AMD_GLOBAL_IGNORED, CPU, "amd-global-ctl-ignored", on_amd_perfmon_v2, "hypothetical",
      "PerfMonV2 PerfCntrGlobalCtl does not gate the core counters")
QUIRK(Q_AMD_RDPMC_UNBOUNDED, CPU, "amd-rdpmc-index-unchecked", on_amd, "hypothetical",
      "RDPMC with ECX beyond the core counters returns 0 instead of #GP")
QUIRK(Q_AMD_CYCLES_NEVER_COUNT, PLATFORM, "amd-cycles-never-count", on_amd,
      "hypothetical (a vPMU that drops events it does not emulate); the real case, family "
      "15h counting 076H on PerfCtr0-2 only, is quirk amd-f15h-cycles-on-counters-0-2",
      "PMCx076 (cycles not in halt) never counts")
QUIRK(Q_AMD_BRANCHES_AS_INSNS, PLATFORM, "amd-branches-count-instructions", on_amd,
      "hypothetical (an event-table mistake in a vPMU)",
      "PMCx0C2 (retired branch instructions) counts retired instructions")
QUIRK(Q_AMD_BR_MISS_NEVER_COUNTS, PLATFORM, "amd-branch-miss-never-counts", on_amd,
      "hypothetical (a vPMU that drops events it does not emulate)",
      "PMCx0C3 (retired mispredicted branches) never counts")
QUIRK(Q_AMD_PMI_CTR0_ONLY, CPU, "amd-pmi-counter0-only", on_amd, "hypothetical",
      "only PerfCtr0 raises a PMI on overflow; INT on the other counters is ignored")
QUIRK(Q_AMD_RUNNING_WRITE_IGNORED, CPU, "amd-running-counter-write-ignored", on_amd, "hypothetical",
      "WRMSR to a PerfCtr whose PerfEvtSel.En = 1 is dropped")
QUIRK(Q_AMD_EVTSEL_SHARED, CPU, "amd-counters-share-event-select", on_amd, "hypothetical",
      "with several counters enabled, each counts the event of the lowest enabled one")
QUIRK(Q_AMD_SEL_HIGH_RESERVED, CPU, "amd-evtsel-high-fields-rejected", on_amd, "hypothetical",
      "PerfEvtSel writes with EventSelect[11:8] or HG_ONLY set raise #GP")
QUIRK(Q_AMD_CNTMASK_IGNORED, CPU, "amd-cntmask-ignored", on_amd, "hypothetical",
      "PerfEvtSel CntMask is ignored")
QUIRK(Q_AMD_INV_IGNORED, CPU, "amd-inv-ignored", on_amd, "hypothetical",
      "PerfEvtSel Inv does not invert the CntMask comparison")
QUIRK(Q_AMD_EDGE_IGNORED, CPU, "amd-edge-ignored", on_amd, "hypothetical",
      "PerfEvtSel Edge does not restrict counting to rising edges")
QUIRK(Q_AMD_PMI_WITHOUT_INT, CPU, "amd-pmi-without-int", on_amd, "hypothetical",
      "a PerfCtr overflow raises a PMI although PerfEvtSel.INT is clear")
QUIRK(Q_AMD_WIDTH_47, PLATFORM, "amd-counters-wrap-at-47-bits", on_amd,
      "hypothetical (a vPMU backing the 48-bit counter with a narrower one)",
      "PerfCtr wraps (and overflows) at 47 bits instead of 48")
QUIRK(Q_AMD_HG_BOTH_NOTHING, CPU, "amd-hg-only-both-counts-nothing", on_amd, "hypothetical",
      "PerfEvtSel with HostOnly = GuestOnly = 1 counts nothing instead of everything")
QUIRK(Q_AMD_STATUS_SET_GP, PLATFORM, "amd-global-status-set-gp", on_amd_perfmon_v2,
      "KVM before its 2025 PerfCntrGlobalStatusSet support: kvm_pmu_set_msr() has no "
      "case for C000_0303H (torvalds/linux 004a0aa5)",
      "PerfCntrGlobalStatusSet (C000_0303H) raises #GP(0) instead of setting status bits")
QUIRK(Q_KVM_AMD_RESERVED_DROPPED, PLATFORM, "kvm-amd-reserved-writes-dropped", on_amd,
      "KVM amd_pmu_set_msr() (svm/pmu.c) clears pmu->reserved_bits, 0xfffffff000280000 "
      "from amd_pmu_refresh(), since Jim Mattson's Feb. 2022 change (before it: #GP); "
      "kvm_pmu_set_msr() (pmu.c) ignores guest writes to PerfCntrGlobalStatus and masks "
      "the others' reserved bits (torvalds/linux 004a0aa5, svm/pmu.c 02918f00)",
      "PerfEvtSel writes drop bits 19, 21 and 63:36 (HostOnly / GuestOnly included) "
      "without #GP; PerfCntrGlobalStatus writes are ignored; PerfCntrGlobalCtl / "
      "StatusClr / StatusSet drop their reserved bits")
QUIRK(Q_KVM_AMD_NO_VPMU, PLATFORM, "kvm-amd-no-vpmu-legacy-raz-wi", on_amd,
      "KVM with kvm.enable_pmu=N on an AMD host: kvm_get_msr_common() / "
      "kvm_set_msr_common() (x86.c) answer MSR_K7_EVNTSEL0-3 and MSR_K7_PERFCTR0-3 "
      "with 0 and drop writes when kvm_pmu_is_valid_msr() is false; kvm_pmu_rdpmc() "
      "(pmu.c) fails RDPMC (#GP) without pmu->version (torvalds/linux 004a0aa5); seen "
      "on this project's KVM host (data/expectations/kvm-amd-pmu-off.txt)",
      "the four legacy AMD counters read 0, ignore writes and never count; RDPMC "
      "raises #GP(0)")
QUIRK(Q_AMD_LVT_MASKED_ON_PMI, PLATFORM, "amd-lvt-masked-on-pmi", on_amd,
      "KVM AMD guests from its 2023 LVTPC masking until Linux 6.9 (Intel's rule applied "
      "to every vendor)",
      "the AMD local APIC sets the LVT performance-counter mask bit on PMI delivery")
QUIRK(Q_AMD_F15H_CU_EVENTS, CPU, "amd-f15h-cycles-on-counters-0-2", on_amd_six_ctrs,
      "AMD family 15h: Linux amd/core.c family 15h event table ('0x076 ... CU ... "
      "PERF_CTL[2:0]') and amd_get_event_constraints_f15h() (kernel/known.c "
      "amd-f15h-cu-events-ctr0-2)",
      "event 076H (CPU clocks not halted) counts on PerfCtr0-2 only: counters 3-5 stay "
      "at their value")
QUIRK(Q_KVM_AMD_MEDIATED_SEL_DROPPED, PLATFORM, "kvm-amd-mediated-evtsel-bits-dropped", on_amd,
      "KVM mediated vPMU, Linux 7.0: PerfEvtSel stays intercepted; amd_pmu_set_msr() "
      "(svm/pmu.c) clears pmu->reserved_bits (HostOnly / GuestOnly included) and "
      "a2f4ba534cc5 'Always stuff GuestOnly=1,HostOnly=0 for mediated PMCs on AMD' "
      "loads eventsel_hw with them; the counters and PerfCntrGlobal* are passed through",
      "PerfEvtSel writes drop bits 19, 21 and 63:36 (HostOnly / GuestOnly included) "
      "without #GP; PerfCntrGlobal* MSRs are the hardware's")
QUIRK(Q_AMD_HG_NOTHING_NO_SVME, CPU, "amd-hg-only-counts-nothing-without-svme", on_amd,
      "Family 15h as Linux 1018faa6cf23 ('perf/x86/kvm: Fix Host-Only/Guest-Only "
      "counting with SVM disabled') describes it",
      "with EFER.SVME = 0 a counter with HostOnly or GuestOnly (not both) set counts "
      "nothing")
QUIRK(Q_AMD_HG_SVME_IGNORED, PLATFORM, "amd-guest-only-counts-in-host-mode", on_amd,
      "hypothetical on hardware; what a vPMU that drops HostOnly / GuestOnly (KVM "
      "amd_pmu_set_msr()) shows a guest that sets EFER.SVME",
      "with EFER.SVME = 1 outside a guest, GuestOnly (01B) counts like 00B")

/* ---- AMD LBR v2 (suites/amd_lbr.c) ---- */
QUIRK(Q_AMD_LBR_SELECT_RSVD, CPU, "amd-lbr-select-reserved-writable", on_amd_lbr_v2, "hypothetical",
      "LBR_SELECT takes writes to bits 63:9")
QUIRK(Q_AMD_LBR_OLDEST_FIRST, CPU, "amd-lbr-oldest-first", on_amd_lbr_v2, "hypothetical",
      "the stack fills from entry 0 up, the youngest branch last, not at entry 0")
QUIRK(Q_AMD_LBR_SELECT_TYPE_IGNORED, CPU, "amd-lbr-select-type-ignored", on_amd_lbr_v2,
      "hypothetical", "LBR_SELECT's branch-type bits suppress nothing (CPL bits do)")
QUIRK(Q_AMD_LBR_FREEZE_IGNORED, CPU, "amd-lbr-freeze-ignored", on_amd_lbr_freeze, "hypothetical",
      "with LbrAndPmcFreeze and DEBUGCTL.FREEZE_LBRS_ON_PMI a PMI neither "
      "freezes the LBR stack nor sets PerfCntrGlobalStatus[58]")

/* ---- P6 family (suites/p6.c) ---- */
QUIRK(Q_P6_NO_SIGN_EXTEND, CPU, "p6-write-not-sign-extended", on_p6, "hypothetical",
      "a WRMSR to PerfCtr0/1 stores EAX zero-extended instead of sign-extending bit 31 "
      "into bits 39:32")
QUIRK(Q_P6_EN_PER_COUNTER, CPU, "p6-en-per-counter", on_p6,
      "hypothetical (the architectural PMU's rule applied to a P6)",
      "PerfEvtSel1's own bit 22 enables PerfCtr1 instead of PerfEvtSel0.EN enabling both")
QUIRK(Q_P6_EN_IGNORED, CPU, "p6-en-ignored", on_p6, "hypothetical",
      "the P6 counters count with PerfEvtSel0.EN clear")

/* ---- NetBurst (Vol. 3B 20.6.3) ---- */
QUIRK(Q_P4_OVF_NOT_SET, CPU, "p4-cccr-ovf-not-set", on_netburst,
      "NetBurst: Linux p4.c p4_pmu_clear_cccr_ovf(), an overflow may raise the NMI "
      "without setting P4_CCCR_OVF (kernel/known.c p4-cccr-ovf-not-set)",
      "a NetBurst counter overflow does not set CCCR.OVF")
QUIRK(Q_P4_ESCR_CPL_IGNORED, CPU, "p4-escr-usr-os-ignored", on_netburst, "hypothetical",
      "ESCR T0_USR / T0_OS do not filter by CPL")
QUIRK(Q_P4_FAST_FULL, CPU, "p4-fast-rdpmc-full", on_netburst, "hypothetical",
      "fast RDPMC (ECX[31]) returns all 40 bits instead of bits 31:0 with EDX = 0")
QUIRK(Q_P4_FORCE_OVF_IGNORED, CPU, "p4-force-ovf-ignored", on_netburst, "hypothetical",
      "CCCR.FORCE_OVF does not force an overflow (CCCR.OVF) on every increment")
QUIRK(Q_P4_OVF_PMI_IGNORED, CPU, "p4-ovf-pmi-ignored", on_netburst, "hypothetical",
      "a NetBurst counter overflow with CCCR.OVF_PMI raises no PMI")
QUIRK(Q_P4_PMI_WITHOUT_OVF_PMI, CPU, "p4-pmi-without-ovf-pmi", on_netburst, "hypothetical",
      "a NetBurst counter overflow raises a PMI although CCCR.OVF_PMI is clear")
QUIRK(Q_P4_CASCADE_IGNORED, CPU, "p4-cascade-ignored", on_netburst, "hypothetical",
      "a counter with CCCR.CASCADE is not started by its alternate counter's overflow")
QUIRK(Q_P4_ESCR_SELECT_IGNORED, CPU, "p4-escr-select-ignored", on_netburst, "hypothetical",
      "IQ counters take CRU_ESCR0 whatever CCCR.ESCR_SELECT and the counter's ESCR wiring")
QUIRK(Q_P4_COMPARE_IGNORED, CPU, "p4-compare-ignored", on_netburst, "hypothetical",
      "CCCR Compare / Threshold / Complement are ignored: every input is added")
QUIRK(Q_P4_CCCR_ENABLE_IGNORED, CPU, "p4-cccr-enable-ignored", on_netburst, "hypothetical",
      "a NetBurst counter counts its ESCR's event with CCCR.Enable clear")
QUIRK(Q_P4_FAST_RDPMC_GP, CPU, "p4-fast-rdpmc-gp", on_netburst,
      "hypothetical (ECX[31] decoded as an architectural type)",
      "RDPMC with ECX[31] (fast read) raises #GP(0) on NetBurst")
QUIRK(Q_P4_L3_RDPMC_18_25, CPU, "p4-l3-rdpmc-18-25", on_netburst,
      "64-bit Xeon with L3 (0F_03H/04H) and Xeon 7100 (0F_06H): SDM Vol. 2B RDPMC up to "
      "2011, indices 18-25 are 32-bit counters (kernel/known.c p4-xeon-l3-rdpmc-18-25)",
      "RDPMC ECX = 18-25 reads a 32-bit counter instead of #GP(0)")

/* ---- Nehalem uncore (Vol. 3B 20.3.1.2) ---- */
QUIRK(Q_UNC_GLOBAL_IGNORED, CPU, "uncore-global-enable-ignored", on_nehalem_uncore, "hypothetical",
      "uncore counters count without their MSR_UNCORE_PERF_GLOBAL_CTRL enable")
QUIRK(Q_UNC_WIDTH32, CPU, "uncore-width-32", on_nehalem_uncore, "hypothetical",
      "uncore counters are 32 bits wide instead of 48")
QUIRK(Q_UNC_PMI_NOT_DELIVERED, CPU, "uncore-pmi-not-delivered", on_nehalem_uncore, "hypothetical",
      "an uncore overflow with PMI, EN_PMI_COREx and ENABLE_UNCORE_PMI raises no PMI")
QUIRK(Q_UNC_PMI_IGNORES_EN_CORE, CPU, "uncore-pmi-ignores-en-pmi-core", on_nehalem_uncore,
      "hypothetical", "an uncore PMI reaches this core although no EN_PMI_COREx bit is set")
QUIRK(Q_UNC_PMI_IGNORES_DEBUGCTL, CPU, "uncore-pmi-ignores-debugctl", on_nehalem_uncore,
      "hypothetical",
      "an uncore PMI is delivered although IA32_DEBUGCTL.ENABLE_UNCORE_PMI is clear")
QUIRK(Q_UNC_PMI_FRZ_IGNORED, CPU, "uncore-pmi-frz-ignored", on_nehalem_uncore, "hypothetical",
      "PMI_FRZ does not disable the uncore counters when one signals a PMI")
QUIRK(Q_UNC_OVF_PMI_NOT_SET, CPU, "uncore-ovf-pmi-not-set", on_nehalem_uncore, "hypothetical",
      "MSR_UNCORE_PERF_GLOBAL_STATUS.OVF_PMI (61) is not set by an interrupting overflow")
QUIRK(Q_UNC_CHG_NOT_SET, CPU, "uncore-chg-not-set", on_nehalem_uncore, "hypothetical",
      "MSR_UNCORE_PERF_GLOBAL_STATUS.CHG (63) is not set when a status bit is set")
QUIRK(Q_UNC_STATUS_WRITABLE, CPU, "uncore-global-status-writable", on_nehalem_uncore,
      "hypothetical", "WRMSR to the read-only MSR_UNCORE_PERF_GLOBAL_STATUS is accepted")
QUIRK(Q_UNC_FIXED_CTRL_RESERVED, CPU, "uncore-fixed-ctrl-reserved-accepted", on_nehalem_uncore,
      "hypothetical",
      "MSR_UNCORE_FIXED_CTR_CTRL writes with reserved bits (1, 63:3) set are accepted")
QUIRK(Q_UNC_GLOBAL_CTRL_RESERVED, CPU, "uncore-global-ctrl-reserved-accepted", on_nehalem_uncore,
      "hypothetical", "MSR_UNCORE_PERF_GLOBAL_CTRL writes with reserved bits set are accepted")

/* ---- Several CPUs (suites/smp.c): machine profiles of several CPUs ---- */
QUIRK(Q_SMP_SHARED_COUNTERS, CPU, "smp-counters-shared", on_smp_arch, "hypothetical",
      "the GP and fixed counters and their controls are one set shared by every CPU")
QUIRK(Q_SMP_PMI_TO_CPU0, PLATFORM, "smp-pmi-to-cpu0", on_smp_arch_apic,
      "hypothetical (a VMM injecting every vPMI into vCPU 0)",
      "a counter overflow's PMI goes to CPU 0's local APIC whatever CPU overflowed")
QUIRK(Q_SMP_ANYTHREAD_IGNORED, PLATFORM, "smp-anythread-ignored", on_smp_anythread,
      "KVM (AnyThread accepted but counts this vCPU only; version not verified)",
      "AnyThread set counts this logical processor's events only, not its sibling's")
QUIRK(Q_SMP_SHARED_PQR_ASSOC, CPU, "smp-pqr-assoc-shared", on_smp_rdt, "hypothetical",
      "IA32_PQR_ASSOC is one register shared by every CPU")
QUIRK(Q_SMP_UNC_PMI_CORE0, CPU, "smp-uncore-pmi-to-core0", on_smp_uncore, "hypothetical",
      "the uncore PMI goes to core 0 whenever an EN_PMI_COREx is set, whichever it is")

/* ---- RDT monitoring (Vol. 3B 17.18) ---- */
QUIRK(Q_RDT_RMID_NO_ERROR, CPU, "rdt-rmid-range-no-error", on_rdt_l3_two_maxima, "hypothetical",
      "IA32_QM_CTR does not set Error (bit 63) for an RMID above the L3's maximum "
      "(CPUID.(0FH,1):ECX) and within CPUID.(0FH,0):EBX")
QUIRK(Q_RDT_RMID_ABOVE_MAX_TAKEN, CPU, "rdt-rmid-above-max-taken", on_rdt_l3, "hypothetical",
      "WRMSR IA32_QM_EVTSEL with an RMID above CPUID.(0FH,0):EBX is taken instead of #GP(0); "
      "IA32_QM_CTR then reports Error")
QUIRK(Q_RDT_EVENT_NO_ERROR, CPU, "rdt-bad-event-no-error", on_rdt_l3, "hypothetical",
      "IA32_QM_CTR does not set Error (bit 63) for an unsupported event ID")
QUIRK(Q_RDT_QM_CTR_WRITABLE, CPU, "rdt-qm-ctr-writable", on_rdt_l3, "hypothetical",
      "WRMSR to the read-only IA32_QM_CTR is ignored instead of #GP(0)")
QUIRK(Q_RDT_OCC_IGNORES_FILLS, PLATFORM, "rdt-occupancy-ignores-fills", on_rdt_occupancy,
      "hypothetical (a hypervisor exposing CMT without backing it)",
      "lines filled under an RMID are not charged to its L3 occupancy")
QUIRK(Q_RDT_OCC_EVERY_RMID, CPU, "rdt-occupancy-charged-to-every-rmid", on_rdt_occupancy,
      "hypothetical", "lines filled under one RMID are charged to the occupancy of every RMID")
QUIRK(Q_RDT_MBM_IGNORES_READS, CPU, "rdt-mbm-ignores-reads", on_rdt_total_bw, "hypothetical",
      "bytes read from memory under an RMID are not counted in its total bandwidth")
QUIRK(Q_RDT_MBM_WIDTH_UNMASKED, CPU, "rdt-mbm-not-wrapped-at-width", on_rdt_total_bw,
      "hypothetical (an implementation ignoring CPUID.(0FH,1):EAX[7:0])",
      "MBM counters do not wrap at 24 + CPUID.(0FH,1):EAX[7:0] bits: data above the "
      "width is reported")
QUIRK(Q_RDT_RMID_TRUNCATED, CPU, "rdt-pqr-rmid-truncated", on_rdt_l3_rmid_8, "hypothetical",
      "IA32_PQR_ASSOC.RMID keeps bits 2:0 only")
QUIRK(Q_RDT_MAX_RMID_ERROR, CPU, "rdt-max-rmid-error", on_rdt_l3,
      "hypothetical (an off-by-one range check)",
      "IA32_QM_CTR sets Error (bit 63) for the highest valid RMID, CPUID.(0FH,1):ECX")
/* ---- Intel CAT and CDP (SDM Vol. 3B 17.19) ---- */
QUIRK(Q_CAT_RESERVED_DROPPED, CPU, "cat-mask-reserved-bits-dropped", on_intel_cat, "hypothetical",
      "CBM bits at or above the CBM length and bits 63:32 are dropped "
      "instead of #GP(0)")
QUIRK(Q_CAT_MASK_BEYOND_COS, CPU, "cat-mask-beyond-max-cos", on_cat_mask_beyond_cos,
      "hypothetical (a range check on the architectural 128 / 64 masks only)",
      "CAT mask MSRs of a COS above CPUID.(10H,ResID):EDX[15:0] read 0 and ignore "
      "writes instead of #GP(0)")
QUIRK(Q_CAT_NONCONT_ACCEPTED, PLATFORM, "cat-noncontiguous-accepted", on_intel_cat_contiguous,
      "hypothetical (an emulator with no CBM validation)",
      "a non-contiguous or zero CBM is accepted although CPUID.(10H,ResID):ECX[3] = 0")
QUIRK(Q_CAT_NONCONT_GP, CPU, "cat-noncontiguous-gp-despite-cpuid", on_intel_cat_noncont,
      "hypothetical",
      "a non-contiguous CBM raises #GP(0) although "
      "CPUID.(10H,ResID):ECX[3] = 1")
QUIRK(Q_CAT_READBACK_WIDENED, CPU, "cat-mask-readback-widened", on_intel_cat,
      "one report: intel/intel-cmt-cat#69 (Skylake-SP, L3 mask 400H read back as "
      "600H; no erratum names it)",
      "a CBM reads back with the bit below its lowest set bit also set (400H as 600H)")
QUIRK(Q_PQR_COS_UNCHECKED, CPU, "pqr-cos-above-max-accepted", on_pqr_cos_range, "hypothetical",
      "IA32_PQR_ASSOC accepts a COS above the highest COS of every "
      "allocation resource instead of #GP(0)")
QUIRK(Q_CDP_ENABLE_IGNORED, CPU, "cdp-enable-ignored", on_intel_cdp, "hypothetical",
      "IA32_L3_QOS_CFG / IA32_L2_QOS_CFG bit 0 (CDP enable) reads 0 after writing 1")
QUIRK(Q_CDP_CFG_RESERVED_DROPPED, CPU, "cdp-cfg-reserved-bits-dropped", on_intel_cat,
      "hypothetical",
      "IA32_L3_QOS_CFG / IA32_L2_QOS_CFG bits 63:1 (and bit 0 without "
      "CDP) are dropped instead of #GP(0)")
QUIRK(Q_CDP_CODE_ALIASES_DATA, CPU, "cdp-code-mask-aliases-data", on_intel_cdp, "hypothetical",
      "with CDP enabled a write to the code mask of COS n (base + 2n + 1) also writes its "
      "data mask (base + 2n)")
QUIRK(Q_CAT_FILLS_IGNORE_MASK, PLATFORM, "cat-fills-ignore-mask", on_cat_occupancy,
      "hypothetical (a hypervisor accepting the masks without enforcing them)",
      "lines filled under a COS are not confined to its L3 CBM: its RMID's occupancy "
      "grows with the buffer")
/* ---- Intel MBA (SDM Vol. 3B 17.19, Memory Bandwidth Allocation) ---- */
QUIRK(Q_MBA_ROUNDED_UP, CPU, "mba-delay-rounded-up", on_intel_mba, "hypothetical",
      "an MBA delay that is not a multiple of the precision is rounded up, not down")
QUIRK(Q_MBA_READBACK_REMAPPED, CPU, "mba-delay-readback-remapped", on_intel_mba,
      "reports on Skylake-SP: intel/intel-cmt-cat#69 and #115 (30 written, 10 read "
      "back; no erratum names it)",
      "IA32_L2_QoS_Ext_BW_Thrtl_n reads back a model-specific mapping of the delay: "
      "30-60 as 10, 70-90 as 90")
QUIRK(Q_MBA_BEYOND_COS, CPU, "mba-msr-beyond-max-cos", on_intel_mba, "hypothetical",
      "IA32_L2_QoS_Ext_BW_Thrtl_n of a COS above CPUID.(10H,3):EDX[15:0] reads 0 and "
      "ignores writes instead of #GP(0)")
/* ---- AMD PQoS (APM Vol. 2 chapter 19) ---- */
QUIRK(Q_AMD_CAT_SPARSE_GP, CPU, "amd-cat-sparse-mask-gp", on_amd_cat,
      "hypothetical (Intel's "
      "contiguity rule applied on AMD)",
      "an AMD L3_MASK_n with non-contiguous or no bits set raises #GP(0)")
QUIRK(Q_AMD_CAT_RAZ_KEPT, CPU, "amd-cat-mask-high-bits-kept", on_amd_cat, "hypothetical",
      "AMD L3_MASK_n bits above the CBM length read back as written instead of 0")
QUIRK(Q_AMD_PQR_MBZ_ACCEPTED, CPU, "amd-pqr-assoc-mbz-accepted", on_amd_cat, "hypothetical",
      "AMD PQR_ASSOC accepts its must-be-zero bits 31:12 / 63:36 without #GP(0)")
QUIRK(Q_AMD_BW_UNLIMITED_DROPPED, CPU, "amd-bw-unlimited-bit-dropped", on_amd_bw, "hypothetical",
      "L3QOS_BW_CONTROL_n / L3QOS_SMBW_CONTROL_n drop the U bit (bit "
      "BW_LEN) on a write")
QUIRK(Q_AMD_BMEC_RESERVED_ACCEPTED, CPU, "amd-bmec-reserved-accepted", on_amd_bmec, "hypothetical",
      "QOS_EVT_CFG_n accepts bits 63:7 and bandwidth types "
      "CPUID.(8000_0020H,3):ECX does not enumerate instead of #GP(0)")

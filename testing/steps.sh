# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The steps of `make test`, in the order they start; read by
# testing/run-tests.sh (the scheduler). Their bodies are the scripts of
# testing/ and the functions of testing/lib/steps/ (common.sh, sim.sh,
# qemu.sh, kvm.sh).
#
#   step NAME LANE NEEDS AFTER COMMAND...
#
# LANE: fg runs in the foreground, one step after another (the simulator's
#   steps and the host tools; a matrix of runs uses both cores itself);
#   any other lane runs in the background, beside the foreground, each of
#   its steps after the one before it: tcg and tcg2 the QEMU boots under TCG
#   (one host core each), kvm and kvm2 the KVM and minivmm guests (mostly
#   waiting for VM exits), python, lava and lint; own: a lane of its own.
# NEEDS: the steps it cannot run without (comma-separated, - for none),
#   listed before it: `make test STEPS=` runs them too. A step that reads
#   another's output needs it.
# AFTER: steps it starts after when they run too (lane:NAME: the lane's
#   steps so far), for time, not for what they make.
#
# What the steps prove, in this order:
#   - the build (EFI image and host tools), warning-free; the C formatted,
#     the shell scripts shellcheck-clean, every #include within its layer
#   - the KVM guests: direct boot under this machine's KVM (2 vCPUs) and the
#     cloud VMMs reproduced by tools/minivmm, each against the shipped
#     expectations of the host's kind; where KVM cannot run a guest the step
#     says skipped and why and counts 0 passed, 0 failed
#   - the pages in docs/ against the code (testing/check-docs.sh)
#   - the host unit tests of the report package, mypy --strict on it, flake8
#     on every Python file of the tree; the LAVA jobs of lava/ run by lava-run without a server
#     (testing/test-lava.sh); the Debian package installed, upgraded and
#     removed in a throwaway root (testing/test-deb.sh)
#   - the suite booted in QEMU under TCG against its expectations: UEFI and
#     direct boot (pc, q35, microvm), the USB stick, the self-tests, 4 and 8
#     CPUs and a CPU that never answers its start-up IPI; the machines it
#     will meet (x2APIC, pit=off, hpet=off, HPET FSB delivery, a stray NMI,
#     machine checks); build/pmutest.bin by QEMU -kernel, GRUB (BIOS and
#     UEFI), kexec, iPXE and syslinux; Secure Boot enforced
#     (testing/test-secureboot.sh);
#     the compact form read back equal to the full form
#   - the HTML report in headless Chromium (testing/test-html-report.sh)
#   - the hypervisor platform models (pmusim kvm-*, firecracker-*, xen-*)
#     against their shipped expectations, and the host range each file names
#   - the C unit tests; the capability decoder against Debian's cpuid tool on
#     every real dump; the robustness set (bad options, broken runs, hostile
#     inputs); every MSR the suite writes listed in docs/msrs.md with its gate
#   - the suite on the simulator: every real CPUID dump and its corpus, the
#     2023-2026 generations, the safety nets, the frontier features, the
#     self-tests, replay of every report, the mutation matrix (every quirk
#     caught), every known deviation (kernel/known.c) proven both ways
#   - the host tools judge a run by what it was: each shipped expectations
#     file rejects every quirk run of its model whose failures it does not
#     describe; KCIDB submissions valid against the schema; a selection
#     compared with a platform's file checks only what it selected; one
#     verdict, every reader: a run of each verdict (PASS, FAIL, ERROR with an
#     XFAIL only, ERROR, INCOMPLETE, PASS-INFERRED) through JSON, JUnit,
#     HTML, KCIDB, bugreport, diff, compare and the LAVA patterns, each
#     saying what the kernel said (testing/check-readers.py)
#
# The lanes are queued before the foreground's simulator steps, so that the
# longest chains (tcg, tcg2: one boot after another) start with the build.

#    NAME                       LANE    NEEDS                    AFTER      COMMAND
step build                      fg      -                        -          make -j2 all
# Nothing outside the clone, LICENSE, the package table.
step tree                       fg      -                        -          testing/check-tree.sh
# Generated blocks current, links resolve, the worked example built and run,
# every #include within the layering docs/architecture.md states.
step docs                       fg      build                    -          testing/check-docs.sh

step kvm-direct                 kvm     build                    -          kvm_direct
# An AMD guest on a KVM without a vPMU (any host) against qemu-kvm-amd-pmu-off.txt.
step kvm-amd-guest              kvm2    build                    -          kvm_amd_guest
step direct-linux64             kvm2    build                    -          direct_linux64
# build/pmutest.bin by QEMU -kernel, and a bad command line.
step linux-image-kernel         kvm2    build                    -          linux_image_kernel
step vmm-firecracker            kvm2    build                    -          vmm_mode firecracker
step vmm-cloud-hypervisor       kvm     build                    -          vmm_mode cloud-hypervisor
step vmm-crosvm                 kvm2    build                    -          vmm_mode crosvm
step vmm-bad-boot-data          kvm     build                    -          vmm_bad_boot_data
step unit-python                python  build                    -          python3 testing/unit/report/run.py
# One verdict, every reader: a run of each verdict through every reader.
step readers                    python  build                    -          python3 testing/check-readers.py
step py-lint                    python  -                        -          py_lint
step py-types                   python  -                        -          py_types
step lava                       lava    build                    -          testing/test-lava.sh
# make deb in a throwaway root: install, upgrade, remove; lintian.
step deb                        python  build                    -          testing/test-deb.sh
step format                     lint    -                        -          testing/check-format.sh
step shellcheck                 lint    -                        -          testing/check-shell.sh

step qemu-tcg                   tcg     build                    -          qemu_run qemu-tcg "" data/expectations/qemu-tcg.txt
step qemu-tcg-skylake           tcg     build                    -          qemu_run qemu-tcg-skylake "" \
	data/expectations/qemu-tcg-skylake-client.txt --cpu Skylake-Client
step qemu-usb-stick             tcg     build                    -          testing/test-stick.sh
step qemu-selftest              tcg     build                    -          qemu_run qemu-selftest \
	testing/fixtures/configs/selftest.cfg data/expectations/selftest.txt
step qemu-tcg-smp4              tcg     build                    -          qemu_smp4
step qemu-smp4-silent           tcg     build                    -          qemu_smp4_silent
step direct-pc                  tcg     build                    -          qemu_run direct-pc "" \
	data/expectations/qemu-tcg.txt --kernel --machine pc
step direct-q35                 tcg     build                    -          qemu_run direct-q35 "" \
	data/expectations/qemu-tcg.txt --kernel --machine q35
step direct-microvm             tcg     build                    -          qemu_run direct-microvm "" \
	data/expectations/qemu-tcg.txt --kernel --machine microvm
# A lagging serial reader loses no byte.
step serial-slow                tcg     build                    -          python3 testing/test-serial-slow.py
step direct-selftest            tcg     build                    -          qemu_run direct-selftest \
	testing/fixtures/configs/selftest.cfg data/expectations/selftest.txt --kernel --machine pc
step direct-smp4                tcg     build                    -          direct_smp4
step direct-append              tcg     build                    -          direct_append
# The HTML report's pages in a headless browser, once lane tcg's first run
# (one of its pages) is there; its timed part (html-report-fleet) waits for
# the end.
step html-report                own     build,qemu-tcg           -          testing/test-html-report.sh --only pages

# The hypervisor platform models, each against its shipped file (a KVM model
# with a vPMU gets the host kernel it models: host_kernel).
step sim-kvm-amd-pmu-off        fg      build                    -          sim_platform kvm-amd-zen4-pmu-off \
	data/expectations/qemu-kvm-amd-pmu-off.txt --set host_kernel=6.8.0
step sim-kvm-intel-mediated     fg      build                    -          sim_platform \
	kvm-intel-sapphirerapids-mediated data/expectations/qemu-kvm-intel-mediated.txt --set host_kernel=7.0.0
step sim-kvm-amd-mediated       fg      build                    -          sim_platform kvm-amd-zen4-mediated \
	data/expectations/qemu-kvm-amd-mediated.txt --set host_kernel=7.0.0
step sim-firecracker-intel      fg      build                    -          sim_platform \
	firecracker-intel-sapphirerapids data/expectations/firecracker-intel.txt --set host_kernel=6.1.0
step sim-firecracker-amd        fg      build                    -          sim_platform firecracker-amd-zen4 \
	data/expectations/firecracker-amd.txt --set host_kernel=6.1.0
step sim-xen-vpmu-off           fg      build                    -          sim_platform \
	xen-intel-sapphirerapids-vpmu-off data/expectations/xen-intel-vpmu-off.txt
step sim-xen-vpmu-on            fg      build                    -          sim_platform \
	xen-intel-sapphirerapids-vpmu-on data/expectations/xen-intel-vpmu-on.txt
step sim-xen-vpmu-ipc           fg      build                    -          sim_platform \
	xen-intel-sapphirerapids-vpmu-ipc data/expectations/xen-intel-vpmu-ipc.txt
step sim-xen-vpmu-arch          fg      build                    -          sim_platform \
	xen-intel-sapphirerapids-vpmu-arch data/expectations/xen-intel-vpmu-arch.txt
step sim-list-platforms         fg      build                    -          list_platforms
step expect-host-ranges         fg      -                        -          python3 testing/expect-range.py check \
	data/expectations/qemu-kvm-*.txt data/expectations/firecracker-*.txt data/expectations/xen-*.txt
# Signed, refused, shim + MOK.
step qemu-secureboot            own     build                    -          testing/test-secureboot.sh
# No room in the report store: said, and the run ends normally.
step qemu-store-full            tcg2    build                    -          testing/test-store-full.sh

# The machines it will meet (docs/platform.md).
step qemu-x2apic-get            fg      -                        -          qemu_x2apic_get
step qemu-x2apic                tcg2    build,qemu-x2apic-get    -          qemu_x2apic
step qemu-x2apic-selftest       tcg2    build,qemu-x2apic-get    -          qemu_x2apic_selftest
step qemu-x2apic-smp4           tcg2    build,qemu-x2apic-get    -          qemu_x2apic_smp4
step qemu-x2apic-smp4-silent    tcg2    build,qemu-x2apic-get    -          qemu_x2apic_smp4_silent
step qemu-x2apic-id105          tcg2    build,qemu-x2apic-get    -          qemu_x2apic_id105
step qemu-pit-off               tcg2    build                    -          rates_run qemu-pit-off --machine q35,pit=off
step qemu-hpet-off              tcg2    build                    -          qemu_hpet_off
step qemu-hpet-fsb              tcg2    build                    -          qemu_hpet_fsb
step qemu-nmi                   tcg2    build                    -          nmi_run
# build/pmutest.bin by the loaders a person meets: GRUB on SeaBIOS and on
# OVMF booting the entries the package's grub.d script writes, kexec from
# Debian's kernel by tools/pmutest-kexec (and a command line kexec refuses),
# iPXE from a SeaBIOS network boot, ISOLINUX from a CD.
step linux-grub-bios            tcg     build                    -          linux_grub_bios
step linux-grub-efi             tcg2    build                    -          linux_grub_efi
step linux-kexec                tcg2    build                    -          linux_kexec
step linux-kexec-bad            tcg     build                    -          linux_kexec_bad
step linux-ipxe                 tcg2    build                    -          linux_ipxe
step linux-syslinux             tcg     build                    -          linux_syslinux
step qemu-mce                   tcg2    build                    -          mce_run
step qemu-tcg-smp8              tcg     build                    -          qemu_smp8
# Say each thing once: the compact form read back by the host tools equals
# the full form, every CPU's every test (the simulator, and the -smp 8 boot).
step compact-form               tcg     build,qemu-tcg-smp8      -          testing/check-compact.sh \
	--smp8-log "$LOGS/qemu-tcg-smp8.ktap"

# The simulator's steps and the host tools, in the foreground, once every
# lane has its steps.
step unit-c                     fg      -                        -          make -s unit
step cpuid-dumps                fg      build                    -          python3 testing/check-dumps.py
step robustness                 fg      build                    -          testing/robustness.sh
step msr-writes                 fg      build                    -          python3 testing/check-msrs.py
# Every real dump clean.
step sim-corpus                 fg      build                    -          testing/check-corpus.sh
# The 2023-2026 generations (gen-* profiles) clean, their checks run.
step sim-generations            fg      build                    -          testing/check-generations.sh
# Retry, stray NMIs, SMIs, reset value, untested CPUs.
step sim-safety-nets            fg      build                    -          testing/check-safety-nets.sh
# v6 aliases, RDPMC user disable, ACR, arch PEBS, metrics level 2, PEBS
# counter snapshots, AMD LBR v2: run where enumerated, skip elsewhere.
step sim-frontier               fg      build                    -          testing/check-frontier.sh
step sim-selftest               fg      build                    -          sim_selftest
step sim-kvm-intel              fg      build                    -          sim_platform kvm-intel-sapphirerapids \
	data/expectations/qemu-kvm-intel.txt --set host_kernel=6.8.0
step sim-kvm-intel-pmu-off      fg      build                    -          sim_platform \
	kvm-intel-sapphirerapids-pmu-off data/expectations/qemu-kvm-intel-pmu-off.txt --set host_kernel=6.8.0
step sim-kvm-amd                fg      build                    -          sim_platform kvm-amd-zen4 \
	data/expectations/qemu-kvm-amd.txt --set host_kernel=6.8.0
# Every report replays to the same results (profiles, platforms, corpus
# sample, the real-KVM log of testing/fixtures/); explain and bugreport.
step sim-replay                 fg      build                    -          testing/test-replay.sh
step sim-smp-silent             fg      build                    -          sim_smp_silent
# The simulator's heavy steps (two cores each) beside lane tcg.
step sim-mutation               fg      build                    -          testing/mutation.sh
# Every known deviation proven both ways.
step sim-known                  fg      build                    -          testing/check-known.sh

# Host tools that judge a run by what it was.
step sim-expectations           fg      build                    -          python3 testing/check-expectations.py
# What reads the QEMU runs: the 4-CPU run's summary screen, row by row (a
# row per suite per CPU); the HTML report's 500-run matrix, timed, so after
# lanes tcg and tcg2 and the pages (not beside the heavy steps).
step qemu-smp4-screen           fg      qemu-tcg-smp4            -          python3 testing/check-screen.py \
	"$LOGS/qemu-tcg-smp4.ktap" "$LOGS/qemu-tcg-smp4.screen"
step html-report-fleet          fg      build       lane:tcg,lane:tcg2,html-report testing/test-html-report.sh \
	--only fleet "$LOGS/html-fleet"
step kcidb                      fg      build                    -          python3 testing/test-kcidb.py "$LOGS/kcidb"
step sim-selection              fg      build                    -          selection_run

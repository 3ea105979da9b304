# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # kvm_cpu_opts, kvm_expect, LOGS: set by run-tests.sh
# shellcheck shell=bash
# Step bodies for build/pmutest.bin, the Linux-format image (sourced by
# testing/run-tests.sh with the other files here, which give compare_run,
# boot_facts, sum_counts, kvm_host_ready; $LOGS is its log directory). Each is a real QEMU boot by a real loader
# (testing/test-linux-boot.sh, tools/run-qemu.sh) reaching a verdict that
# is compared with the platform's expectations, plus the facts of the
# hand-over that loader makes. Linux guests do not get past the
# decompressor under this project's KVM host, and TCG boots GRUB in a few
# seconds, so every loader but QEMU's own -kernel boots under TCG.

# linux_boot_run MODE NAME EXPECT [test-linux-boot.sh args...]: the boot and
# its comparison; the facts are the caller's.
linux_boot_run() {
	local mode=$1 name=$2 expect=$3 rc
	shift 3
	testing/test-linux-boot.sh "$mode" --log "$LOGS/$name.ktap" --timeout "${QEMU_TIMEOUT:-300}" "$@"
	rc=$?
	if [[ $rc == 4 ]]; then
		echo "skipped: a tool the $mode boot needs is missing (above)"
		echo "0 passed, 0 failed"
		return 0
	fi
	if [[ $rc != 0 ]]; then
		echo "not ok - the $mode boot reached no verdict (status $rc)"
		echo "0 passed, 1 failed"
		return 1
	fi
	compare_run "$LOGS/$name.ktap" "$expect"
}

# linux_image_kernel: QEMU -kernel (qboot's Linux loader, real-mode entry)
# on KVM, 2 vCPUs, every suite against the host's file; then a command line
# naming a suite that does not exist: verdict ERROR, never PASS.
linux_image_kernel() {
	local log=$LOGS/linux-image-kernel.ktap bad=$LOGS/linux-image-kernel-bad.ktap out
	kvm_host_ready || return 0
	out=$( (tools/run-qemu.sh --kvm --kvm-cpu "$kvm_cpu_opts" --kernel build/pmutest.bin --machine pc \
		--qemu-arg=-bios --qemu-arg=qboot.rom --smp 2 --append "console=ttyS0 pmutest.timeout_ms=60000" \
		--log "$log" --timeout "${KVM_TIMEOUT:-900}"
		echo "run-qemu.sh exit status $? (the comparison decides)"
		compare_run "$log" "$kvm_expect"
		tools/run-qemu.sh --kvm --kvm-cpu "$kvm_cpu_opts" --kernel build/pmutest.bin --machine pc \
			--qemu-arg=-bios --qemu-arg=qboot.rom --append "console=ttyS0 pmutest.suites=nosuch" \
			--log "$bad" --timeout 120
		echo "run-qemu.sh exit status $? (bad command line)"
		boot_facts "$log" "loaded by QEMU's Linux loader, entered at its 32-bit entry" \
			'^# firmware: QEMU \(Linux boot protocol: from a BIOS, 32-bit entry\)' \
			"the zero page names the loader, and a firmware ran before it" \
			'^# before pmutest: a firmware may have written the PMU.s MSRs \(a BIOS and the boot loader QEMU \(boot_params type_of_loader B0H\)\)' \
			"both vCPUs online" '^# cpus: 2 of 2 online'
		boot_facts "$bad" "a bad command line: its error named" "^# option error: 'suites': no suite named 'nosuch'" \
			"a bad command line: verdict ERROR" '^# verdict: ERROR$') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_grub_bios: GRUB (grub-pc-bin) on SeaBIOS boots the serial-console
# entry tools/grub/20_pmutest wrote.
linux_grub_bios() {
	local log=$LOGS/linux-grub-bios.ktap out
	out=$( (linux_boot_run grub-bios linux-grub-bios data/expectations/qemu-tcg.txt
		boot_facts "$log" "GRUB loaded it from a BIOS, at its 32-bit entry" \
			'^# firmware: GRUB \(Linux boot protocol: from a BIOS, 32-bit entry\)' \
			"the serial-console entry ran (its console= word)" \
			'^# boot: .*command line words not for pmutest: BOOT_IMAGE=/boot/pmutest.bin console=ttyS0' \
			"a BIOS and GRUB ran before it: firmware state, not reset values" \
			'^# before pmutest: a firmware may have written .*boot loader GRUB \(boot_params type_of_loader 72H\)') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_grub_efi: GRUB (grub-efi-amd64-bin) on OVMF boots the plain entry;
# the RSDP comes from the EFI system table GRUB passes in efi_info.
linux_grub_efi() {
	local log=$LOGS/linux-grub-efi.ktap out
	out=$( (linux_boot_run grub-efi linux-grub-efi data/expectations/qemu-tcg.txt
		boot_facts "$log" "GRUB loaded it from UEFI (EDK II named from the system table)" \
			'^# firmware: EDK II, then GRUB \(Linux boot protocol: from UEFI, 32-bit entry\)' \
			"the RSDP from the EFI system table's configuration table" \
			'^# boot: ACPI tables through the XSDT \(RSDP from the EFI system table\)' \
			"the plain entry ran (no console= word)" \
			'^# boot: .*command line words not for pmutest: BOOT_IMAGE=/boot/pmutest.bin;') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_kexec: Debian's kernel on 2 CPUs runs tools/pmutest-kexec; pmutest
# starts the CPU Linux parked, and names Linux as what ran before it.
linux_kexec() {
	local log=$LOGS/linux-kexec.ktap out release
	release=$(find /boot -maxdepth 1 -name 'vmlinuz-*-amd64' | sort -V | tail -n 1)
	release=${release#/boot/vmlinuz-}
	out=$( (linux_boot_run kexec linux-kexec data/expectations/qemu-tcg.txt --smp 2
		boot_facts "$log" "before pmutest: Linux $release (kexec)" \
			"^# before pmutest: Linux ${release//./\\.} \\(kexec\\), which may have written the PMU.s MSRs" \
			"kexec-tools named as the loader" "^# firmware: none: Linux .* \\(kexec; kexec-tools, 32-bit entry\\)" \
			"both CPUs online: the one Linux parked started again" '^# cpus: 2 of 2 online' \
			"cpu 1 ran the suites" '^ *(not )?ok [0-9]+ [a-z0-9_]+@cpu1( |$)|^# cpu 1: .*online') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_kexec_bad: a command line longer than the image's cmdline_size:
# kexec refuses it, the helper says so, and no pmutest verdict (least of
# all PASS) appears.
linux_kexec_bad() {
	local log=$LOGS/linux-kexec-bad.ktap out
	out=$( (testing/test-linux-boot.sh kexec-bad --log "$log" --timeout "${QEMU_TIMEOUT:-300}"
		echo "test-linux-boot.sh exit status $?"
		boot_facts "$log.raw" "pmutest-kexec reports the refusal" 'pmutest-kexec: kexec refused' \
			"the helper's status is 1" 'guest: pmutest-kexec exit status 1'
		if grep -q '^# verdict: PASS' "$log"; then
			echo "not ok - a refused command line reached PASS"
			echo "0 passed, 1 failed"
		else
			echo "1 passed, 0 failed"
		fi) 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_ipxe: iPXE (Debian's ipxe-qemu ROM, SeaBIOS network boot) fetches
# a script by TFTP whose `kernel` loads the image and starts its real-mode
# code; then the same with a command line naming a suite that does not
# exist, and with one longer than the image's cmdline_size (iPXE cuts it,
# and the suite word at its end is lost): verdict ERROR, never PASS.
linux_ipxe() {
	local log=$LOGS/linux-ipxe.ktap bad=$LOGS/linux-ipxe-bad.ktap long=$LOGS/linux-ipxe-long.ktap out
	out=$( (linux_boot_run ipxe linux-ipxe data/expectations/qemu-tcg.txt
		boot_facts "$log" "iPXE loaded it from a BIOS, at its real-mode code (then the 32-bit entry)" \
			'^# firmware: Etherboot/gPXE/iPXE \(Linux boot protocol: from a BIOS, 32-bit entry\)' \
			"a BIOS and iPXE ran before it: firmware state, not reset values" \
			'^# before pmutest: a firmware may have written .*boot loader Etherboot/gPXE/iPXE \(boot_params type_of_loader 46H\)' \
			"the script's command line reached it" '^# boot: .*command line words not for pmutest: console=ttyS0;'
		testing/test-linux-boot.sh ipxe --log "$bad" --timeout "${QEMU_TIMEOUT:-300}" --append "pmutest.suites=nosuch"
		echo "test-linux-boot.sh exit status $? (bad command line)"
		boot_facts "$bad" "a bad command line: its error named" "^# option error: 'suites': no suite named 'nosuch'" \
			"a bad command line: verdict ERROR" '^# verdict: ERROR$'
		testing/test-linux-boot.sh ipxe --log "$long" --timeout "${QEMU_TIMEOUT:-300}" \
			--append "pmutest.timeout_ms=60000 $(printf 'y%.0s' $(seq 4090)) pmutest.suites=nosuch"
		echo "test-linux-boot.sh exit status $? (a command line longer than cmdline_size)"
		boot_facts "$long" "a cut command line: refused at the image's bound" \
			"^# error: bad boot data: the command line is 409[45] characters, the image's cmdline_size 4095" \
			"a cut command line: verdict ERROR" '^# verdict: ERROR$') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

# linux_syslinux: ISOLINUX on SeaBIOS loads the image with LINUX and starts
# its real-mode code; then the same with a command line naming a suite
# that does not exist: verdict ERROR, never PASS.
linux_syslinux() {
	local log=$LOGS/linux-syslinux.ktap bad=$LOGS/linux-syslinux-bad.ktap out
	out=$( (linux_boot_run syslinux linux-syslinux data/expectations/qemu-tcg.txt
		boot_facts "$log" "syslinux loaded it from a BIOS, at its real-mode code (then the 32-bit entry)" \
			'^# firmware: Syslinux \(Linux boot protocol: from a BIOS, 32-bit entry\)' \
			"a BIOS and syslinux ran before it: firmware state, not reset values" \
			'^# before pmutest: a firmware may have written .*boot loader Syslinux \(boot_params type_of_loader 30H\)' \
			"APPEND's command line reached it" \
			'^# boot: .*command line words not for pmutest: BOOT_IMAGE=/boot/pmutest.bin console=ttyS0;'
		testing/test-linux-boot.sh syslinux --log "$bad" --timeout "${QEMU_TIMEOUT:-300}" --append "pmutest.suites=nosuch"
		echo "test-linux-boot.sh exit status $? (bad command line)"
		boot_facts "$bad" "a bad command line: its error named" "^# option error: 'suites': no suite named 'nosuch'" \
			"a bad command line: verdict ERROR" '^# verdict: ERROR$') 2>&1)
	echo "$out"
	sum_counts <<<"$out"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot build/BOOTX64.EFI in QEMU (OVMF), or build/pmutest.elf by direct
# kernel boot (--kernel), and turn the run into a verdict.
#
# The machine is chosen for boot speed where speed costs no function (see
# `make bench`): the i440FX "pc" machine without its default devices (no
# IDE CD-ROM for the firmware to try first; -nodefaults, then the VGA back
# for the screen), the ESP on virtio-blk, 256 MiB. The firmware is Debian's
# OVMF.fd, code and variable store in one image (under TCG about a second
# faster than the split OVMF_CODE_4M + OVMF_VARS_4M), as it is after one
# boot of this machine: build/ovmf/OVMF-warm.fd, made by `make`
# (mk/firmware.mk), or OVMF.fd itself before that.
#
# The variable store, where the kernel keeps its report for the next boot:
#   - by default nothing outlives the run, so the image is read-only flash:
#     OVMF then keeps its variables in RAM, and SetVariable, the report
#     store included, works as on flash for everything that runs in this
#     boot. Emulated flash is slow under TCG (every byte written is a block
#     write in QEMU: about 0.4 s for a report, a second for a first boot's
#     boot options), and what it would keep is thrown away with the run;
#   - with --keep-vars / --vars the image is a writable copy that lives
#     from one boot to the next, so a stored report is written to the ESP
#     on the next boot (make test's stick step checks that round trip).
#
# Direct boot (--kernel): QEMU loads the ELF itself (-kernel: the PVH note,
# through SeaBIOS's PVH option ROM on pc/q35, qboot on microvm), with the
# options file as module 0 (-initrd); no OVMF, no disk, no screen. This is
# also what runs under a KVM that cannot run OVMF (this project's host).
#
# The verdict is the kernel's "# verdict:" line: the exit device's status
# (isa-debug-exit, when the guest gets that far) only confirms it, and a
# direct-boot guest may end by ACPI S5 instead, which QEMU reports as 0.

usage() {
	cat <<'USAGE'
usage: tools/run-qemu.sh [options]

  --kvm             use KVM (-accel kvm -cpu host,pmu=on) instead of TCG
  --kvm-cpu OPTS    with --kvm: -cpu host,OPTS instead of host,pmu=on, e.g.
                    pmu=on,migratable=no (LBR/PEBS formats visible) or
                    pmu=off (the no-PMU path)
  --cpu MODEL       CPU model for TCG (default: max; see below)
  --machine SPEC    QEMU -machine (default pc), e.g. q35,pit=off or q35,hpet=off;
                    microvm with --kernel only
  --qemu BINARY     this qemu-system-x86_64 (e.g. tools/qemu-x2apic.sh's)
  --smp N           N logical CPUs (default 1); the kernel starts them all
  --config FILE     options file, installed as \EFI\BOOT\pmutest.cfg
  --timeout SECS    kill QEMU after SECS seconds, 1 or more (default 120)
                    -> status 3
  --log FILE        serial log (default build/qemu-<tcg|kvm>.log); the raw
                    log, firmware output included, is FILE.raw
  --efi PATH        the image to boot (default build/BOOTX64.EFI)
  --kernel [ELF]    direct kernel boot of ELF (default build/pmutest.elf)
                    instead of UEFI; --config becomes the initrd (module 0)
  --append TEXT     with --kernel: the kernel command line (key=value
                    options when there is no --config)
  --image IMG       boot this FAT image (tools/make-usb-image.sh) instead
                    of a directory made from --efi/--config; it is written
                    to (the report of a previous run lands in \pmutest\)
  --keep-vars       keep UEFI variables between runs (build/qemu-vars.fd,
                    the firmware image with its variable store), so a
                    report stored by arch_save_report is written to the
                    ESP on the next boot
  --vars FILE       like --keep-vars, with this firmware image (a copy of
                    the warm OVMF.fd, see above, made on first use)
  --screen FILE     the kernel's screen as text: a second serial port
                    (COM2) to FILE, where the kernel writes its text grid
                    when the summary screen is up
  --monitor SOCKET  a QEMU monitor on this UNIX socket (make screenshot)
  --hold            no exit device: the machine stays up after the verdict,
                    as real hardware does (the summary screen pages); QEMU
                    runs until --timeout or a "quit" on the monitor
  --qemu-arg ARG    pass ARG to QEMU (repeatable), e.g. --qemu-arg=-vga
                    --qemu-arg=none for a run without a framebuffer
  --display         show the screen (GTK/SDL) instead of -display none
  -h, --help        this text

Exit status: 0 pass, 1 fail, 2 error (kernel verdict ERROR or INCOMPLETE, or the run
could not start: no QEMU/OVMF/KVM, unwritable log), 3 timeout or no
verdict, 143 (130) stopped by SIGTERM (SIGINT), QEMU stopped with it.

TCG's default CPU is "max": every feature TCG can emulate, so the
capability record and the skips it causes are the richest TCG can give
(qemu64 lacks e.g. PDCM and x2APIC reporting). TCG has no PMU either way:
CPUID.0AH is 0 and RDPMC raises #UD when CR4.PCE/CPL allow it.
USAGE
}

die() {
	echo "run-qemu.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
kernel=
machine=pc
append=
kvm=0
kvm_cpu=pmu=on
cpu=max
qemu='qemu-system-x86_64'
smp=1
config=
timeout_s=120
log=
efi=$here/build/BOOTX64.EFI
keep_vars=0
exit_device=(-device 'isa-debug-exit,iobase=0xf4,iosize=0x04')
vars=
screen=
monitor=
image=
display=(-display none)
extra=()

while [ $# -gt 0 ]; do
	case $1 in
	--kvm) kvm=1 ;;
	--kvm-cpu) kvm_cpu=${2:?--kvm-cpu needs options}; shift ;;
	--cpu) cpu=${2:?--cpu needs a model}; shift ;;
	--smp) smp=${2:?--smp needs a CPU count}; shift ;;
	--machine) machine=${2:?--machine needs a machine}; shift ;;
	--qemu) qemu=${2:?--qemu needs a binary}; shift ;;
	--config) config=${2:?--config needs a file}; shift ;;
	--timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
	--log) log=${2:?--log needs a file}; shift ;;
	--efi) efi=${2:?--efi needs a path}; shift ;;
	--kernel)
		kernel=$here/build/pmutest.elf
		case ${2:-} in -* | '') ;; *) kernel=$2; shift ;; esac ;;
	--append) append=${2?--append needs text}; shift ;;
	--image) image=${2:?--image needs a file}; shift ;;
	--keep-vars) keep_vars=1 ;;
	--vars) keep_vars=1; vars=${2:?--vars needs a file}; shift ;;
	--screen) screen=${2:?--screen needs a file}; shift ;;
	--monitor) monitor=${2:?--monitor needs a socket path}; shift ;;
	--hold) exit_device=() ;;
	--display) display=() ;;
	--qemu-arg) extra+=("${2:?--qemu-arg needs an argument}"); shift ;;
	--qemu-arg=*) extra+=("${1#--qemu-arg=}") ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
	shift
done

case $smp in
'' | *[!0-9]* | 0*) die "--smp wants a CPU count from 1, got '$smp'" ;;
esac
case $kvm_cpu in
'' | *[!A-Za-z0-9=,_.+-]*) die "--kvm-cpu wants QEMU CPU options like pmu=on,migratable=no, got '$kvm_cpu'" ;;
esac
case ${machine%%,*} in
pc | q35) ;;
microvm) [ -n "$kernel" ] || die "--machine microvm boots no firmware: add --kernel" ;;
*) die "--machine wants pc, q35 or microvm (with QEMU machine options), got '$machine'" ;;
esac
if [ -n "$kernel" ]; then
	{ [ -z "$image" ] && [ "$keep_vars" = 0 ] && [ -z "$screen" ]; } ||
		die "--kernel boots no firmware: --image, --keep-vars, --vars and --screen need UEFI"
else
	[ -z "$append" ] || die "--append needs --kernel"
fi
case $timeout_s in
'' | *[!0-9]* | 0*) die "--timeout wants whole seconds from 1 (0 would mean no limit), got '$timeout_s'" ;;
esac
accel=tcg
[ "$kvm" = 1 ] && accel=kvm
log=${log:-$here/build/qemu-$accel.log}
raw=$log.raw
# First of all, the previous run's report goes: whatever happens below, the
# log holds this run or nothing.
rm -f "$log" "$raw" ${screen:+"$screen"} 2>/dev/null || true
{ [ ! -e "$log" ] && [ ! -e "$raw" ]; } || die "cannot remove the previous log $log"
mkdir -p "$(dirname "$log")" "$here/build" 2>/dev/null || die "cannot create $(dirname "$log") or $here/build"
{ : >"$raw" && : >"$log"; } 2>/dev/null || die "cannot write the log $log (read-only?)"
rm -f "$log" "$raw"
if [ -n "$kernel" ]; then
	[ -f "$kernel" ] || die "no kernel at $kernel (run 'make direct')"
elif [ -n "$image" ]; then
	[ -f "$image" ] || die "no FAT image at $image"
else
	[ -f "$efi" ] || die "no image at $efi (run 'make efi')"
fi
[ -z "$config" ] || [ -f "$config" ] || die "options file not found: $config"
command -v "$qemu" >/dev/null ||
	die "$qemu missing: apt-get install qemu-system-x86 (or tools/qemu-x2apic.sh)"
ovmf=/usr/share/ovmf/OVMF.fd
[ -n "$kernel" ] || [ -f "$ovmf" ] || die "OVMF missing: apt-get install ovmf"
warm=$here/build/ovmf/OVMF-warm.fd
# (warmed up on "pc": another machine's devices are elsewhere, its boot
# options with them, and OVMF would stop in its shell)
if [ -f "$warm" ] && [ "$warm" -nt "$ovmf" ] && [ "$machine" = pc ]; then
	ovmf=$warm
fi

if [ "$kvm" = 1 ] && [ ! -w /dev/kvm ]; then
	die "--kvm: /dev/kvm is not available here"
fi

# The ESP: a directory QEMU presents as a FAT drive (a scratch copy, gone
# after the run), or the FAT image given with --image.
work=$(mktemp -d "$here/build/qemu-run.XXXXXX" 2>/dev/null) || die "cannot create a scratch directory in $here/build"
trap 'rm -rf "$work"' EXIT
if [ -n "$kernel" ]; then
	disk=(-kernel "$kernel")
	[ -z "$config" ] || disk+=(-initrd "$config")
	[ -z "$append" ] || disk+=(-append "$append")
elif [ -n "$image" ]; then
	# shellcheck disable=SC2054 # commas belong to QEMU's option syntax
	disk=(-drive format=raw,if=virtio,file="$image")
else
	esp=$work/esp
	mkdir -p "$esp/EFI/BOOT"
	cp "$efi" "$esp/EFI/BOOT/BOOTX64.EFI"
	[ -z "$config" ] || cp "$config" "$esp/EFI/BOOT/pmutest.cfg"
	# shellcheck disable=SC2054
	disk=(-drive file.driver=vvfat,file.dir="$esp",file.rw=on,format=raw,if=virtio)
fi

if [ -n "$kernel" ]; then
	firmware=()
elif [ "$keep_vars" = 1 ]; then
	vars=${vars:-$here/build/qemu-vars.fd}
	[ -f "$vars" ] || cp "$ovmf" "$vars"
	# A store kept by an older pmutest (OVMF_VARS_4M alone) is no firmware.
	[ "$(stat -c %s "$vars")" = "$(stat -c %s "$ovmf")" ] ||
		die "$vars is not an image of $ovmf (kept by an older pmutest?): delete it"
	# One run at a time may own the variable store.
	exec 9>"$vars.lock"
	flock -n 9 || die "another run is using $vars (--keep-vars)"
	# shellcheck disable=SC2054
	firmware=(-drive if=pflash,format=raw,unit=0,file="$vars")
else
	# shellcheck disable=SC2054
	firmware=(-drive if=pflash,format=raw,unit=0,readonly=on,file="$ovmf")
fi
vga=(-vga std)
[ -z "$kernel" ] || vga=()
serials=(-serial stdio)
[ -z "$screen" ] || serials+=(-serial file:"$screen")
monitor_args=(-monitor none)
[ -z "$monitor" ] || monitor_args=(-monitor "unix:$monitor,server=on,wait=off")

if [ "$kvm" = 1 ]; then
	# shellcheck disable=SC2054
	cpu_args=(-accel kvm -cpu "host,$kvm_cpu")
else
	cpu_args=(-accel tcg -cpu "$cpu")
fi

# QEMU runs in the background so that a SIGTERM (CI cancelling `make run`)
# or SIGINT reaches this script at once: it stops QEMU, then exits.
set +e
trap - ERR
(
	timeout -k 5 "$timeout_s" "$qemu" \
		-machine "$machine" -nodefaults ${vga[@]+"${vga[@]}"} -m 256M -smp "$smp" "${cpu_args[@]}" \
		${firmware[@]+"${firmware[@]}"} "${disk[@]}" \
		-net none "${display[@]}" "${serials[@]}" "${monitor_args[@]}" \
		${exit_device[@]+"${exit_device[@]}"} -no-reboot ${extra[@]+"${extra[@]}"} </dev/null \
		2> >(tee "$work/qemu.err" >&2) &
	qpid=$!
	echo $qpid >"$work/qemu.pid"
	# A KVM internal error (an instruction KVM could not emulate) pauses
	# the guest for good: stop it now rather than at the timeout. (Under
	# TCG there is none: no watcher, whose grep and sleep five times a
	# second were a CPU-second a minute of boot.)
	[ "$kvm" = 1 ] && while kill -0 $qpid 2>/dev/null; do
		if grep -q 'KVM internal error' "$work/qemu.err" 2>/dev/null; then
			kill -TERM $qpid 2>/dev/null
			echo internal >"$work/kvm-error"
		fi
		sleep 0.2
	done &
	wait $qpid
	echo $? >"$work/status"
) | tee "$raw" | tr -d '\r' | awk '
	/KTAP version 1/ { on = 1 }
	on || /^pmutest|Bail out!/ { print; fflush() }' &
pipeline=$!
stop() { # stop SIGNAL-STATUS: QEMU (through timeout) first, then this script
	trap - TERM INT HUP
	[ -s "$work/qemu.pid" ] && kill -TERM "$(cat "$work/qemu.pid")" 2>/dev/null
	wait "$pipeline" 2>/dev/null
	echo "run-qemu.sh: stopped by a signal; QEMU stopped with it" >&2
	exit "$1"
}
trap 'stop 143' TERM
trap 'stop 130' INT
trap 'stop 129' HUP
wait "$pipeline"
status=$(cat "$work/status" 2>/dev/null || echo none)
set -e
trap 'echo "run-qemu.sh: command failed at line $LINENO: $BASH_COMMAND" >&2; exit 2' ERR
# The log: KTAP from its header on, plus a bail-out that came before it.
tr -d '\r' <"$raw" | awk '/KTAP version 1/ { on = 1 } on || /Bail out!/' >"$log"

# The kernel's own verdict line decides; the exit device's status (33 pass,
# 35 fail, 37 error; INCOMPLETE exits as error) must agree with it when there
# is one.
said=$(sed -n 's/^# verdict: \([A-Z]*\).*/\1/p' "$log" | tail -n 1)
case $status in
33) device=PASS ;;
35) device=FAIL ;;
37) device=ERROR ;;
*) device= ;;
esac
case $said in
PASS) verdict=PASS; rc=0 ;;
FAIL) verdict=FAIL; rc=1 ;;
ERROR) verdict=ERROR; rc=2 ;;
INCOMPLETE) verdict=INCOMPLETE; rc=2 ;; # an enumerated CPU ran no test: not a pass
*) rc=3 ;;
esac
if [ -s "$work/kvm-error" ]; then
	verdict="NO VERDICT: KVM internal error (the guest was stopped; $raw has KVM's register dump)"
	rc=3
elif [ "$rc" = 3 ]; then
	case $status in
	124 | 137) verdict="TIMEOUT after ${timeout_s}s" ;;
	*) verdict="NO VERDICT (QEMU exit status $status)" ;;
	esac
elif [ -n "$device" ] && [ "$device" != "$said" ] && ! { [ "$said" = INCOMPLETE ] && [ "$device" = ERROR ]; }; then
	verdict="$verdict (but the exit device said $device)"
fi
[ -s "$work/kvm-error" ] && cat "$work/qemu.err" >>"$raw"
echo "run-qemu.sh: $verdict ($accel, $machine, cpu ${cpu_args[*]: -1}${kernel:+, direct boot}; log $log, raw $raw)" >&2
exit $rc

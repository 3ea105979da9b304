#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make run`: boot the suite in QEMU, stream the report, then compare it with
# the platform's expectations. Exit 0 only when they match.
#   tools/run.sh [--kvm [--kvm-cpu OPTS]] [--direct] [--machine pc|q35|microvm]
#                  [--cpu MODEL] [--smp N] [--config FILE] [--expect FILE] [--list-skips]
# --list-skips lists each skip the expectations do not name (default: their
# number, in one line).
# --direct boots build/pmutest.elf without firmware (PVH; machine pc unless
# --machine says otherwise; under KVM the pc machine's BIOS is QEMU's qboot);
# the expectations are the UEFI run's.
# The expectations file defaults to data/expectations/qemu-tcg.txt, or
# qemu-tcg-<model, lower case>.txt for a TCG CPU model other than the default;
# with --kvm to qemu-kvm-<host vendor: intel|amd>.txt, -pmu-off appended for
# --kvm-cpu pmu=off or a host whose KVM has no vPMU (kvm.enable_pmu=N),
# -mediated for a host whose kvm_intel / kvm_amd has enable_mediated_pmu=Y
# (tools/kvm-host.sh vpmu). The guest is told which (option vpmu =
# off|emulated|mediated, added to the options file, and host_kernel = uname -r
# when the kernel knows that option), and a host kernel outside the range the
# expectations file names (its "# host-kernel:" line) is warned about. A KVM
# run first checks the host (tools/kvm-host.sh probe: can /dev/kvm run a
# guest, with which -cpu options, does OVMF start under it) and boots the
# direct-boot kernel when OVMF cannot run, saying why; it warns about host
# settings that skew a vPMU (kvm-host.sh check) and ends its report with the
# host kernel, QEMU version and those settings ("# host:" lines).
# Each run has its own log, build/runs/<platform>-<time>-<pid>.log (runs at
# the same time in one tree share nothing); build/<platform>.log links to the
# latest. A run that could not start, timed out or was stopped is the result
# (exit 2 or more), never the comparison of some older log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

accel=tcg
direct=0
machine=
cpu=
kvm_cpu=
expect=
config=
list_skips=()
args=()
while [[ $# -gt 0 ]]; do
	case $1 in
	-h | --help)
		sed -n '3,29p' "$0" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	--kvm) accel=kvm; args+=(--kvm) ;;
	--direct) direct=1 ;;
	--machine)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --machine needs pc, q35 or microvm" >&2; exit 2; }
		machine=$2; shift ;;
	--kvm-cpu)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --kvm-cpu needs QEMU CPU options" >&2; exit 2; }
		kvm_cpu=$2; shift ;;
	--config)
		[[ $# -ge 2 ]] || { echo "run: --config needs a file" >&2; exit 2; }
		[[ -r $2 ]] || { echo "run: cannot read config file '$2'" >&2; exit 2; }
		config=$2; shift ;;
	--smp)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --smp needs a CPU count" >&2; exit 2; }
		args+=(--smp "$2"); shift ;;
	--cpu)
		[[ $# -ge 2 && -n $2 ]] || { echo "run: --cpu needs a model" >&2; exit 2; }
		cpu=$2; args+=(--cpu "$2"); shift ;;
	--expect)
		[[ $# -ge 2 ]] || { echo "run: --expect needs a file" >&2; exit 2; }
		[[ -r $2 ]] || { echo "run: cannot read expectations file '$2'" >&2; exit 2; }
		expect=$2; shift ;;
	--list-skips) list_skips=(--list-skips) ;;
	*) echo "run: unknown argument '$1' (use --kvm, --kvm-cpu OPTS, --direct, --machine M, --cpu MODEL, --smp N, --config FILE, --expect FILE, --list-skips)" >&2; exit 2 ;;
	esac
	shift
done

[[ -n $kvm_cpu && $accel != kvm ]] && { echo "run: --kvm-cpu applies to --kvm only" >&2; exit 2; }
platform=qemu-$accel
[[ -n $cpu && $accel == tcg && $cpu != max ]] && platform=qemu-tcg-$(echo "$cpu" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9\n' '-')
[[ -n $machine && $direct == 0 && $machine != pc ]] && [[ $machine == microvm ]] &&
	{ echo "run: --machine microvm has no firmware: add --direct (make run BOOT=direct MACHINE=microvm)" >&2; exit 2; }
if [[ $accel == kvm ]]; then
	platform=qemu-kvm-$(tools/kvm-host.sh vendor)
	vpmu=$(tools/kvm-host.sh vpmu)
	[[ ,$kvm_cpu, == *,pmu=off,* ]] && vpmu=off
	case $vpmu in
	off) platform=$platform-pmu-off ;;
	mediated) platform=$platform-mediated ;;
	unknown) echo "run: KVM's enable_pmu is unreadable: assuming its emulated vPMU; the guest is not told" >&2 ;;
	esac
	ovmf=(--ovmf)
	[[ $direct == 1 ]] && ovmf=()
	probe=$(tools/kvm-host.sh probe "${kvm_cpu:-pmu=on}" "${ovmf[@]}")
	if [[ $probe != *"kvm: yes"* ]]; then
		echo "run: this host's KVM cannot run a guest: ${probe#kvm: }" >&2
		exit 2
	fi
	host_cpu=$(sed -n 's/^cpu: //p' <<<"$probe")
	[[ $host_cpu == "${kvm_cpu:-pmu=on}" ]] || echo "run: this host's KVM needs -cpu host,$host_cpu" >&2
	args+=(--kvm-cpu "$host_cpu")
	if [[ $direct == 0 && $probe == *"ovmf: no"* ]]; then
		echo "run: OVMF does not start under this KVM ($(sed -n 's/^ovmf: no (\(.*\))$/\1/p' <<<"$probe")): booting build/pmutest.elf directly (PVH) instead" >&2
		direct=1
	fi
	tools/kvm-host.sh check
fi
if [[ $direct == 1 ]]; then
	args+=(--kernel --machine "${machine:-pc}")
	# Under KVM the pc machine boots through QEMU's qboot, not SeaBIOS: it
	# hands over the same machine (make test's kvm-direct step compares the
	# report with the same expectations) and on a nested KVM SeaBIOS alone
	# takes seconds of every boot (testing/lib/steps/kvm.sh measures it).
	[[ $accel == kvm && ${machine:-pc} == pc ]] && args+=(--qemu-arg=-bios --qemu-arg=qboot.rom)
elif [[ -n $machine ]]; then
	args+=(--machine "$machine")
fi
if [[ -z $expect ]]; then
	expect=data/expectations/$platform.txt
	[[ -r $expect ]] || { echo "run: no expectations file $expect for this platform: give one with --expect (start one from any log with 'python3 tools/ktap-report.py baseline LOG')" >&2; exit 2; }
fi
mkdir -p build/runs || { echo "run: cannot create build/runs" >&2; exit 2; }
# Keep the newest 40 runs (a log, its .raw and a KVM run's .cfg each; a
# stopped run has only its .raw).
find build/runs -maxdepth 1 -type f -printf '%T@ %p\n' 2>/dev/null | sort -rn | tail -n +121 | cut -d' ' -f2- |
	while read -r old; do rm -f "$old"; done
log=build/runs/$platform-$(date -u +%Y%m%dT%H%M%S)-$$.log
ln -sfn "runs/${log##*/}" "build/$platform.log" 2>/dev/null
if [[ $accel == kvm ]]; then
	# One options file: make test's KVM settings (testing/fixtures/configs/kvm-host.cfg:
	# the longer watchdog a slow KVM host needs), what the guest is told (its
	# vPMU; the host kernel when the kernel knows that option), then the
	# user's options, which win where they repeat a key.
	kvm_cfg=$log.cfg
	{ cat testing/fixtures/configs/kvm-host.cfg; tools/kvm-host.sh options \
		"$([[ $direct == 1 ]] && echo build/pmutest.elf || echo build/BOOTX64.EFI)" "$kvm_cpu"
	  [[ -n $config ]] && cat "$config"; } >"$kvm_cfg"
	config=$kvm_cfg
	[[ $(testing/expect-range.py match "$expect" "$(uname -r)") == out ]] &&
		echo "run: WARNING: this host's kernel $(uname -r) is outside the range $expect describes" \
			"($(sed -n 's/^# host-kernel: //p' "$expect")): expect mismatches" >&2
fi
[[ -n $config ]] && args+=(--config "$config")
# run-qemu.sh in the background, so that a SIGTERM (CI cancelling the job)
# or ^C is passed on to it at once: it stops QEMU and exits.
# A KVM host may be slow (nested, or every VM exit emulated): 15 minutes.
[[ $accel == kvm ]] && args+=(--timeout 900)
tools/run-qemu.sh "${args[@]}" --log "$log" &
child=$!
trap 'kill -TERM $child 2>/dev/null; wait $child; exit 143' TERM
trap 'kill -INT $child 2>/dev/null; wait $child; exit 130' INT
wait $child
qemu_rc=$?
trap - TERM INT
# The host a KVM run depends on, at the end of its report (KTAP diagnostics).
[[ $accel == kvm && -s $log ]] && tools/kvm-host.sh facts >>"$log"
echo
case $qemu_rc in
0 | 1) ;; # a verdict: the comparison below decides whether it is the expected one
*)
	echo "run: the run did not complete (run-qemu.sh status $qemu_rc): that is its result" >&2
	[[ -s $log ]] && python3 tools/ktap-report.py validate "$log" >&2
	exit "$qemu_rc" ;;
esac
if [[ ! -s $log ]]; then
	echo "run: no report in $log (QEMU status $qemu_rc)" >&2
	exit 2
fi
python3 tools/ktap-report.py validate "$log" || exit 2
echo "== compared with $expect"
python3 tools/ktap-report.py compare "${list_skips[@]}" "$log" "$expect"

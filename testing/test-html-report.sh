#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`'s HTML report step: `ktap-report.py html` pages
# opened in a real headless browser (Debian's chromium), checked against
# their logs by testing/check-report-page.py.
#
#   1. one run's page for runs of every verdict (the simulator: a known
#      deviation that passes, a KVM model that fails, a selection where nothing runs:
#      ERROR; the QEMU run of this make test when there is one): verdict,
#      counts, failures, known deviations, machine and measurements equal
#      the log's; the screenshot is not blank and the banner has the
#      verdict's colour;
#   2. the matrix of those runs: its rows, failing cells and marked first
#      changes, unfiltered and through each filter (#failures, #changes,
#      #suite=NAME);
#   3. a matrix of 500 runs drawn within 2 s of the page's request
#      (performance.now() in the page, read from the DOM);
#   4. ktap-report.py diff between two of those runs agrees with the page.
#
# Without chromium (mk/deps.sh --test installs it) the step says it is
# skipped and why, and counts nothing. The last line is "N passed, N failed".
#
#   testing/test-html-report.sh [--only pages|fleet] [OUTDIR]
#     --only pages  1, 2 and the diff of a run with itself: nothing timed,
#                   so make test runs it beside its other steps
#     --only fleet  3 and the diff of two of its runs: make test runs it
#                   last, alone, for its 2 s limit (one step of
#                   both was 40 s with one core idle at the end of the run)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=testing/lib/checks.sh
. testing/lib/checks.sh

part=all
if [[ ${1:-} == --only ]]; then
	part=${2:-}
	shift 2
fi
case $part in
all | pages | fleet) ;;
*) echo "usage: testing/test-html-report.sh [--only pages|fleet] [OUTDIR]" >&2; exit 2 ;;
esac
out=${1:-build/test-logs/html}
mkdir -p "$out"
rm -rf "${out:?}"/*
out=$(cd "$out" && pwd)
LIMIT_MS=${HTML_LIMIT_MS:-2000}

if ! command -v chromium >/dev/null 2>&1; then
	# make test installs it beforehand (mk/deps.sh --test); no step installs.
	echo "skipped: chromium is missing (mk/deps.sh --test installs it as root)"
	echo "0 passed, 0 failed"
	exit 0
fi
echo "# $(chromium --version 2>/dev/null)"

browser() { # browser ARGS... URL: headless chromium with a new, empty profile
	rm -rf "$out/profile"
	mkdir -p "$out/profile"
	timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$out/profile" "$@" 2>>"$out/chromium.err"
}

counted() { # counted NAME COMMAND...: a checker's lines, its counts added to ours
	local name=$1 line rc
	shift
	"$@" >"$out/$name.check" 2>&1
	rc=$?
	sed 's/^/    /' "$out/$name.check"
	line=$(tail -n 1 "$out/$name.check")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		checks_passed=$((checks_passed + BASH_REMATCH[1]))
		checks_failed=$((checks_failed + BASH_REMATCH[2]))
	else
		check "$name: the checker gives its counts (exit $rc)" 1
	fi
}

# The runs: the simulator (fast, every verdict), and QEMU's when make test
# has booted it.
sim() { # sim NAME ARGS...: a pmusim run as $out/NAME.ktap (its exit status is its verdict)
	local name=$1
	shift
	build/host/pmusim "$@" >"$out/$name.ktap" 2>&1
}
sim pass-known --profile synth-core2-conroe
sim fail-kvm --profile kvm-intel-sapphirerapids
sim fail-amd --profile kvm-amd-zen4
sim pass-icelake --profile intel_icelake_client_706e5
sim error-nothing-run --profile synth-no-pmu --set suites=pebs
logs=(pass-known fail-kvm fail-amd pass-icelake error-nothing-run)
if [[ -s build/test-logs/qemu-tcg.ktap ]]; then
	cp build/test-logs/qemu-tcg.ktap "$out/qemu-tcg.ktap"
	logs+=(qemu-tcg)
fi
if [[ $part != fleet ]]; then
	grep -q "^# verdict: ERROR" "$out/error-nothing-run.ktap"
	check "the ERROR run is one (no test applies)" $?

	# 1. One run a page.
	for name in "${logs[@]}"; do
		python3 tools/ktap-report.py html "$out/$name.ktap" -o "$out/$name.html" 2>"$out/$name.err"
		rc=$?
		check "ktap-report.py html $name.ktap writes $name.html$([[ -s $out/$name.err ]] && echo ": $(head -n 1 "$out/$name.err")")" $rc
		browser --dump-dom "file://$out/$name.html" >"$out/$name.dom"
		browser --window-size=1024,700 --screenshot="$out/$name.png" "file://$out/$name.html" >/dev/null
		counted "$name" python3 testing/check-report-page.py single "$out/$name.ktap" "$out/$name.dom" --png "$out/$name.png"
	done

	# 2. The matrix of those runs, through each filter.
	paths=()
	for name in "${logs[@]}"; do paths+=("$out/$name.ktap"); done
	python3 tools/ktap-report.py html "${paths[@]}" -o "$out/matrix.html"
	check "ktap-report.py html writes the matrix of ${#paths[@]} runs" $?
	browser --window-size=1280,900 --screenshot="$out/matrix.png" "file://$out/matrix.html" >/dev/null
	for filter in "" failures changes suite=rdpmc; do
		tag=${filter:-all}
		tag=${tag//=/-}
		browser --dump-dom "file://$out/matrix.html${filter:+#$filter}" >"$out/matrix-$tag.dom"
		png=()
		[[ -z $filter ]] && png=(--png "$out/matrix.png")
		counted "matrix-$tag" python3 testing/check-report-page.py matrix "$out/matrix-$tag.dom" "${paths[@]}" \
			${filter:+--filter "$filter"} "${png[@]}"
	done

	# 4. (first half) diff agrees with the page: a run against itself exits 0.
	python3 tools/ktap-report.py diff "$out/pass-icelake.ktap" "$out/pass-icelake.ktap" >"$out/diff-same.txt" 2>&1
	rc=$?
	[[ $rc -eq 0 ]] && grep -q '^# 0 regressed, 0 fixed, 0 appeared, 0 disappeared, 0 known, 0 refailed, 0 inferred, 0 skip-reason, 0 changed' "$out/diff-same.txt"
	ck=$? # before the message's $(...), which sets $? itself
	check "diff of a run with itself: no change, exit $rc ($(tail -n 1 "$out/diff-same.txt"))" "$ck"
fi
[[ $part == pages ]] && checks_finish

# 3. 500 runs.
python3 testing/check-report-page.py make-runs "$out/fail-kvm.ktap" 500 "$out/fleet" >/dev/null
t0=$SECONDS
python3 tools/ktap-report.py html "$out"/fleet/run-*.ktap -o "$out/fleet.html"
rc=$?
check "ktap-report.py html writes the matrix of 500 runs ($((SECONDS - t0)) s, $(($(stat -c %s "$out/fleet.html" 2>/dev/null || echo 0) / 1024)) KiB)" $rc
browser --dump-dom "file://$out/fleet.html" >"$out/fleet.dom"
counted fleet python3 testing/check-report-page.py matrix "$out/fleet.dom" "$out"/fleet/run-*.ktap --max-ms "$LIMIT_MS"

# 4. (second half) a regression between two runs exits 1 and names the test.
python3 tools/ktap-report.py diff "$out/fleet/run-0000.ktap" "$out/fleet/run-0001.ktap" >"$out/diff.txt" 2>&1
rc=$?
regressed=$(grep -c '^regressed: ' "$out/diff.txt")
[[ $regressed -gt 0 && $rc -eq 1 ]]
ok=$?
check "diff run-0000 run-0001: exit $rc with $regressed regressions ($(tail -n 1 "$out/diff.txt"))" $ok
checks_summary

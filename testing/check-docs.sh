#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The documentation holds (make test step docs): what README.md and docs/
# show is what the code does.
#  - the generated blocks (testing/gen-docs.py) are current, and a block
#    edited by hand is caught, naming the command that rewrites it;
#  - every relative link and #anchor of README.md and docs/ resolves;
#  - the worked example of docs/adding-a-check.md is the code that is built
#    (testing/examples/example.c into build/host/pmusim-example, the rule in
#    kernel/rules.h): its test passes on the simulator and prints what the
#    page shows, fails under its quirk as shown, and the mutation matrix's
#    line for that quirk names it as the page says;
#  - the README's failure block is what its command prints;
#  - no page names an issue number, a wave or a session;
#  - every #include keeps to the layering docs/architecture.md states.
#
#   testing/check-docs.sh     one "ok"/"not ok" line a check, then
#                             "N passed, N failed"; exit 0 when all pass
set -u
cd "$(dirname "$0")/.." || exit 2
. testing/lib/checks.sh

DOCS=(README.md docs/*.md)
OUT=build/docs-check
checks_outdir "$OUT"
PMUSIM=build/host/pmusim
EXAMPLE=build/host/pmusim-example
PROFILE=intel_icelake_client_706e5 # the page's CPU
QUIRK=rdpmc-sign-extends           # the page's quirk
lib() { python3 testing/lib/docs.py "$@"; }

# show FILE: its lines as diagnostics under the check before.
show() { sed 's/^/# /' "$1"; }

python3 testing/gen-docs.py --check >"$OUT/gen.txt" 2>&1
check "the generated blocks of README.md and docs/ are current" $?
show "$OUT/gen.txt"

# A generated block edited by hand: a copy of docs/rules.md with one cell
# changed must be named stale, with the command that rewrites it.
# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
sed '/^<!-- gen: known -->$/,/^<!-- \/gen -->$/ s/| `kvm-rdpmc-fast-bit` |/| `kvm-rdpmc-fast-bit` (edited) |/' \
	docs/rules.md >"$OUT/hand-rules.md"
python3 testing/gen-docs.py --check "$OUT/hand-rules.md" >"$OUT/hand.txt" 2>&1
st=$?
[[ $st -eq 1 ]] && grep -q 'stale; regenerate: python3 testing/gen-docs.py' "$OUT/hand.txt" &&
	! cmp -s docs/rules.md "$OUT/hand-rules.md"
check "a block edited by hand is stale (exit $st: $(head -1 "$OUT/hand.txt"))" $?

lib links "${DOCS[@]}" >"$OUT/links.txt"
check "every link of README.md and docs/ resolves" $?
show "$OUT/links.txt"

lib history "${DOCS[@]}" >"$OUT/history.txt"
check "no page names an issue number, a wave or a session" $?
show "$OUT/history.txt"

lib layering >"$OUT/layering.txt"
check "every #include keeps to docs/architecture.md's layering" $?
show "$OUT/layering.txt"

# The worked example.
make -s pmusim-example >"$OUT/build.txt" 2>&1
check "the worked example builds (make pmusim-example)" $?
show "$OUT/build.txt"
[[ -x $EXAMPLE && -x $PMUSIM ]] || checks_finish

lib code docs/adding-a-check.md testing/examples/example.c kernel/rules.h >"$OUT/code.txt"
check "docs/adding-a-check.md's C is testing/examples/example.c and kernel/rules.h, verbatim" $?
show "$OUT/code.txt"

lib output README.md readme-code testing/examples/example.c >"$OUT/readme-code.txt"
check "README's excerpt of the test is testing/examples/example.c's lines" $?
show "$OUT/readme-code.txt"

"$EXAMPLE" --profile "$PROFILE" --set suites=example >"$OUT/pass.ktap" 2>&1
check "the example passes on $PROFILE" $?
lib output docs/adding-a-check.md pass "$OUT/pass.ktap" >"$OUT/pass.txt"
check "docs/adding-a-check.md shows what that run prints" $?
show "$OUT/pass.txt"

"$EXAMPLE" --profile "$PROFILE" --set suites=example --quirk "$QUIRK" --set trace=0 >"$OUT/quirk.ktap" 2>&1
st=$?
[[ $st -eq 1 ]] && grep -q '^    not ok 1 rdpmc_zero_extends$' "$OUT/quirk.ktap"
check "the example fails under --quirk $QUIRK (exit $st)" $?
lib output docs/adding-a-check.md quirk "$OUT/quirk.ktap" >"$OUT/quirk.txt"
check "docs/adding-a-check.md shows what the quirk run prints" $?
show "$OUT/quirk.txt"

# The mutation matrix's line for the quirk on the page's profile, computed
# as testing/mutation.sh does: the tests the quirk run (known = 0) fails
# that the conforming run does not.
"$EXAMPLE" --mutation-plan | grep -q "^quirk	$QUIRK	$PROFILE\$"
check "the mutation plan runs $QUIRK on $PROFILE" $?
"$EXAMPLE" --profile "$PROFILE" >"$OUT/base.ktap" 2>&1
"$EXAMPLE" --profile "$PROFILE" --quirk "$QUIRK" --set known=0 >"$OUT/mq.ktap" 2>&1
new=$(comm -13 <(lib failed-tests "$OUT/base.ktap") <(lib failed-tests "$OUT/mq.ktap") | tr '\n' ' ')
printf '  %-34s %-32s %s\n' "$QUIRK" "$PROFILE" "${new% }" >"$OUT/matrix.txt"
grep -q 'example.rdpmc_zero_extends' "$OUT/matrix.txt"
check "the matrix's $QUIRK line names example.rdpmc_zero_extends" $?
lib output docs/adding-a-check.md mutation "$OUT/matrix.txt" >"$OUT/mutation.txt"
check "docs/adding-a-check.md shows that line" $?
show "$OUT/mutation.txt"

# The README's failure block: its command, run.
cmd=$(awk '/^<!-- docs-run: readme -->$/ { on = 1; next } on && /^\$ / { print substr($0, 3); exit }' README.md)
[[ $cmd == build/host/pmusim\ * ]]
check "README's example names a pmusim command ($cmd)" $?
read -ra argv <<<"${cmd#build/host/pmusim }"
"$PMUSIM" "${argv[@]}" >"$OUT/readme.ktap" 2>&1
lib output README.md readme "$OUT/readme.ktap" >"$OUT/readme.txt"
check "README's failure block is what that command prints" $?
show "$OUT/readme.txt"

checks_finish

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tree stands on its own (make test step tree): a clone from a forge has
# nothing beside it, so no tracked file may name the companion folder the
# developers' machines have next to the repository, nor an issue of a
# tracker it cannot see; the licence the SPDX lines promise is there; the README's package table is mk/deps.sh's own
# (one list, generated, never kept by hand).
#
#   testing/check-tree.sh     one "ok"/"not ok" line a check, then
#                             "N passed, N failed"; exit 0 when all pass
set -u
cd "$(dirname "$0")/.." || exit 2
. testing/lib/checks.sh

# The pattern is built so that this file does not name what it looks for.
# Both spellings: a path ("../NAME/...") and a path built by parts ("..", "NAME").
sib='\.\./'"shared"'|"\.\.", *"'"shared"'"'
named=$(git grep -l -E "$sib" -- . 2>/dev/null)
check "no tracked file names the folder beside the clone${named:+ (named in: $(echo "$named" | tr '\n' ' '))}" \
	"$([[ -z $named ]]; echo $?)"

# History lives in the commits and CHANGES.md: a file that says "issue N"
# points a stranger at a tracker they cannot see. Another project's issue
# is cited as owner/repo#N.
hist=$(git grep -l -E '[Ii]ssues? [0-9]+' -- . ':!CHANGES.md' 2>/dev/null)
check "no tracked file but CHANGES.md names an issue by number${hist:+ (named in: $(echo "$hist" | tr '\n' ' '))}" \
	"$([[ -z $hist ]]; echo $?)"

spdx=$(git grep -l 'SPDX-License-Identifier: MIT' -- . | wc -l)
grep -q '^MIT License' LICENSE 2>/dev/null && grep -q '^Copyright (c)' LICENSE
check "LICENSE holds the MIT text the $spdx SPDX lines name" $?

want=$(mk/deps.sh --markdown)
have=$(awk '/^<!-- deps: mk\/deps.sh --markdown -->$/ { on = 1; next } /^<!-- \/deps -->$/ { on = 0 } on' README.md)
[[ -n $have && $have == "$want" ]]
check "README's package table is mk/deps.sh --markdown" $?
[[ $have != "$want" && -n $have ]] && diff <(echo "$want") <(echo "$have") | sed 's/^/# /'

checks_summary

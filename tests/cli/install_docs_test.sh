#!/usr/bin/env bash
# The install rules of the man pages and the bash completion: `cmake --install` of the
# components "man" and "completion" into a scratch prefix puts npukit(1) and one page per
# command in share/man/man1 and the completion in share/bash-completion/completions/npukit,
# the file bash-completion loads for the command 'npukit'; the installed completion works.
# usage: install_docs_test.sh CMAKE BUILD_DIR NPUKIT
set -u
CMAKE=$1 BUILD=$2 NPK=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

for c in man completion; do
  "$CMAKE" --install "$BUILD" --prefix "$T/p" --component "$c" >"$T/log" 2>&1 && ok ||
    { bad "cmake --install --component $c failed"; cat "$T/log" >&2; }
done
for cmd in "" $("$NPK" info --list commands); do
  p=$T/p/share/man/man1/npukit${cmd:+-$cmd}.1
  [ -s "$p" ] && ok || bad "not installed: ${p#$T/p/}"
done
n=$(ls "$T/p/share/man/man1" | wc -l)
[ "$n" = $(($("$NPK" info --list commands | wc -l) + 1)) ] && ok || bad "share/man/man1 has $n files"
f=$T/p/share/bash-completion/completions/npukit
[ -s "$f" ] && ok || bad "not installed: share/bash-completion/completions/npukit"
# the installed file defines the completion and completes a subcommand
out=$(PATH=$(dirname "$NPK"):$PATH bash -c '. "$1"; COMP_LINE="npukit ru" COMP_POINT=9
        COMP_WORDS=(npukit ru) COMP_CWORD=1; _npukit; echo "${COMPREPLY[*]}"' _ "$f")
[ "$out" = "run run-model" ] && ok || bad "installed completion: 'npukit ru<TAB>' gave '$out'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

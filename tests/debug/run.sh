#!/bin/bash
# Run one `npukit debug --batch` case of tests/debug: CASE.dbg holds the commands and, in its
# comments, "# args: ..." (the command line; @SRC@ is the source tree), "# status: N" and
# optionally "# stderr: TEXT" (a fragment the standard error must contain). Standard output
# must equal CASE.out exactly (when there is one). Runs in a scratch directory, so 'save FILE'
# writes there.
set -u
NPK=$1 SRC=$2 CASE=$3
DBG=$SRC/tests/debug/$CASE.dbg
args=$(sed -n 's/^# args: //p' "$DBG" | sed "s|@SRC@|$SRC|g")
want_status=$(sed -n 's/^# status: //p' "$DBG")
want_err=$(sed -n 's/^# stderr: //p' "$DBG")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# shellcheck disable=SC2086
"$NPK" debug $args --batch "$DBG" >out.txt 2>err.txt
status=$?
fail=0
if [ "$status" != "$want_status" ]; then
    echo "FAIL $CASE: status $status, expected $want_status"
    fail=1
fi
if [ -n "$want_err" ] && ! grep -qF -- "$want_err" err.txt; then
    echo "FAIL $CASE: standard error lacks: $want_err"
    fail=1
fi
if [ -z "$want_err" ] && [ -s err.txt ]; then
    echo "FAIL $CASE: unexpected standard error"
    fail=1
fi
if [ -f "$SRC/tests/debug/$CASE.out" ] && ! diff -u "$SRC/tests/debug/$CASE.out" out.txt; then
    echo "FAIL $CASE: standard output differs from $CASE.out (diff above: - expected, + got)"
    fail=1
fi
if [ "$fail" = 0 ]; then echo "ok $CASE"; else echo "--- stderr:"; cat err.txt; fi
exit $fail

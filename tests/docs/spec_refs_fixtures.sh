#!/bin/sh
# spec_refs on its fixtures: every citation form in fixtures/good resolves, to the target and
# section listed in good.expected; every wrong citation in fixtures/bad is reported as
# bad.expected says, with exit status 1.
# usage: spec_refs_fixtures.sh SPEC_REFS SPECDIR TESTDIR
set -u
tool=$1 spec=$2 dir=$3/fixtures
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

"$tool" --list "$spec" "$dir/good" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL good: exit status $rc, want 0"; fail=1; fi
cat "$tmp/err" "$tmp/out" >"$tmp/all"
if ! diff -u "$dir/good.expected" "$tmp/all"; then echo "FAIL good: output differs"; fail=1; fi

"$tool" "$spec" "$dir/bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ]; then echo "FAIL bad: exit status $rc, want 1"; fail=1; fi
cat "$tmp/err" "$tmp/out" >"$tmp/all"
if ! diff -u "$dir/bad.expected" "$tmp/all"; then echo "FAIL bad: output differs"; fail=1; fi

"$tool" "$spec" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 125 ]; then echo "FAIL usage: exit status $rc, want 125"; fail=1; fi

[ $fail -eq 0 ] && echo "spec_refs fixtures: all passed"
exit $fail

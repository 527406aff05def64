#!/usr/bin/env bash
# The build configures without the test-only packages: with MPFR/GMP hidden from CMake the
# configuration succeeds (the demo and library build), and the src/num tests are replaced by
# one test that fails naming the package.
# usage: configure_without_test_deps.sh CMAKE CTEST SOURCE_DIR MPFR_INCLUDE_DIR LIBMPFR
set -u
cmake=$1 ctest=$2 src=$3 mpfr_h=$4 libmpfr=$5
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# Hide the directories MPFR was found in (CMAKE_IGNORE_PATH: find_path/find_library skip them).
# (both spellings of a merged-/usr library directory)
lib=$(dirname "$libmpfr")
case $lib in /usr/*) lib2=${lib#/usr} ;; *) lib2=/usr$lib ;; esac
ignore="$mpfr_h;$lib;$lib2"
"$cmake" -S "$src" -B "$T/b" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_IGNORE_PATH=$ignore" >"$T/log" 2>&1
st=$?
[ $st = 0 ] && ok "configure without MPFR: status 0" || { bad "configure without MPFR: status $st"; tail -20 "$T/log"; }
grep -q "tests/num need MPFR.*libmpfr-dev" "$T/log" && ok "configure names the package" ||
  bad "no note about MPFR in the configure output"
grep -q "^MPFR_LIBRARY:FILEPATH=.*NOTFOUND" "$T/b/CMakeCache.txt" && ok "MPFR really hidden" ||
  bad "MPFR was found although hidden: $(grep MPFR_LIBRARY "$T/b/CMakeCache.txt")"
[ -f "$T/b/Makefile" ] && grep -q "npukit_cli" "$T/b/Makefile" && ok "the npukit command (the demo) is a build target" ||
  bad "no npukit_cli target"
(cd "$T/b" && "$ctest" -R '^num_mpfr_oracle$' >"$T/ctest" 2>&1); st=$?
[ $st != 0 ] && grep -q "tests passed, 1 tests failed out of 1" "$T/ctest" &&
  ok "num_mpfr_oracle fails: a test run cannot pass without the oracle" || { bad "num_mpfr_oracle: status $st"; cat "$T/ctest"; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]

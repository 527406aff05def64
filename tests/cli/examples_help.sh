#!/usr/bin/env bash
# Every example and benchmark program answers --help (and -h) with its usage on standard
# output, nothing on standard error, and status 0, as `npukit --help` does. The programs are
# found in the build tree, so a new one is checked without being listed here; unit tests
# (test_*) are not example programs.
# usage: examples_help.sh BUILD_DIR
set -u
BUILD=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
n=0
while IFS= read -r prog; do
  case $(basename "$prog") in test_*) continue ;; esac
  n=$((n + 1))
  for opt in --help -h; do
    timeout 20 "$prog" $opt >"$T/out" 2>"$T/err" </dev/null
    s=$?
    if [ "$s" != 0 ] || ! grep -q '^usage: ' "$T/out" || [ -s "$T/err" ]; then
      fail=$((fail + 1))
      echo "FAIL: $prog $opt -> status $s, stdout $(wc -c <"$T/out") bytes ($(head -c 60 "$T/out" | head -1)), stderr $(wc -c <"$T/err") bytes" >&2
    else
      pass=$((pass + 1))
    fi
  done
done < <(find "$BUILD/examples" "$BUILD/bench" -type f -perm -u+x ! -name '*.so*' \
           ! -path '*/CMakeFiles/*' 2>/dev/null | sort)
# the programs the README and the example READMEs name must be among them
for p in examples/opennpu/gemm/onpu-gemm examples/opennpu/activations/onpu-lutgen \
         examples/pccx/pccx_tinylm examples/pccx/pccx_decoder_layer bench/pccx/pccx_gemma; do
  [ -x "$BUILD/$p" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: $BUILD/$p is missing" >&2; }
done
echo "$n programs; $pass passed, $fail failed"
[ "$fail" = 0 ]

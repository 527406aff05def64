#!/usr/bin/env bash
# The committed ONNX files (examples/models/lenet.onnx, tests/bad/inputs/onnx_*.onnx and the fuzz
# seeds tests/fuzz/corpus/onnx_model/seed_*.onnx) are what `model_onnx --write` builds today,
# byte for byte.
# usage: files.sh MODEL_ONNX SOURCE_DIR
set -u
gen=$1 src=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$gen" --write "$T" || { echo "FAIL: $gen --write"; exit 1; }
fail=0
for f in "$T"/*.onnx; do
  n=$(basename "$f")
  case $n in
    lenet.onnx) c=$src/examples/models/$n ;;
    seed_*) c=$src/tests/fuzz/corpus/onnx_model/$n ;;
    *) c=$src/tests/bad/inputs/$n ;;
  esac
  if cmp -s "$f" "$c"; then echo "ok: $n"; else echo "FAIL: $c differs from what model_onnx --write makes (copy it from there)"; fail=1; fi
done
exit $fail

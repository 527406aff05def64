#!/usr/bin/env bash
# `npukit run-model -t host` end to end: the hand-checked MLP of test_plan.c written as a file
# with its input, run from the command line, the .npy output checked by test_plan --check
# against the values worked out there; and the report's lines.
# usage: run_model.sh NPUKIT MODEL_PLAN_TEST
set -u
NPK=$1 PLAN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
"$PLAN" --write "$T" || { echo "FAIL: cannot write the model"; exit 1; }
out=$("$NPK" run-model -t host --input "$T/x.npy" --output "$T/y.npy" "$T/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "run-model exit status: $out"
"$PLAN" --check "$T/y.npy" >/dev/null && ok || bad "the outputs differ from the hand-worked values"
grep -q "model: $T/mlp.onnx, 3 layers, 10 MACs per inference" <<<"$out" && ok || bad "report: $out"
grep -q "target: host, 2 inputs" <<<"$out" && ok || bad "report: $out"
grep -q "argmax equal 2 of 2" <<<"$out" && ok || bad "report: $out"
# labels: class 0 is the argmax of both inputs; labels (0, 1) give 50 %
d="{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }"
printf '\x93NUMPY\x01\x00\x76\x00%s%*s\n' "$d" $((0x76 - ${#d} - 1)) '' >"$T/l.npy"
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00' >>"$T/l.npy"
out=$("$NPK" run-model -t host --input "$T/x.npy" --labels "$T/l.npy" "$T/mlp.onnx" 2>&1)
grep -q "accuracy: 50.00 % (1 of 2); float64 host run 50.00 %" <<<"$out" && ok || bad "labels: $out"
# --limit 1 runs one input
out=$("$NPK" run-model -t host --limit 1 --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
grep -q "target: host, 1 input$" <<<"$out" && ok || bad "limit: $out"
# a NaN among the inputs is refused, naming the input and the element (3 float32: 1, NaN, 2)
d="{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
printf '\x93NUMPY\x01\x00\x76\x00%s%*s\n' "$d" $((0x76 - ${#d} - 1)) '' >"$T/nan.npy"
printf '\x00\x00\x80\x3f\x00\x00\xc0\x7f\x00\x00\x00\x40' >>"$T/nan.npy"
out=$("$NPK" run-model -t host --input "$T/nan.npy" "$T/mlp.onnx" 2>&1)
[ $? = 1 ] && grep -q "nan.npy: input 0, element 1 is NaN: the inputs must be finite" <<<"$out" &&
  ok || bad "NaN input: $out"
# int8 models (test_plan.c): --calib is ignored for a model with its own scales; a QLinearMatMul
# with zero points 1 and 3 runs on the host (y = (-5, 5, -2), worked out in test_plan.c) and
# is refused by the int8 lowerings, naming the layer and the zero point
out=$("$NPK" run-model -t host --calib "$T/x.npy" --input "$T/x.npy" "$T/qdq.onnx" 2>&1)
[ $? = 0 ] && grep -q "qdq.onnx: the model carries its own int8 scales: --calib .* is ignored" \
  <<<"$out" && ok || bad "--calib with an int8 model: $out"
"$NPK" run-model -t host --input "$T/xq.npy" --output "$T/yq.npy" "$T/qmm_zp.onnx" >/dev/null 2>&1 &&
  ok || bad "the host does not run a QLinearMatMul with zero points"
od -An -tf4 -j128 "$T/yq.npy" | tr -s ' ' | grep -qx ' -5 5 -2' && ok || bad "qmm_zp: $(od -An -tf4 -j128 "$T/yq.npy")"
for t in $("$NPK" run-model --list | grep -x 'opennpu\|rvnpu'); do
  out=$("$NPK" run-model -t "$t" --input "$T/xq.npy" "$T/qmm_zp.onnx" 2>&1)
  [ $? = 1 ] && grep -q "$t: layer 0 (node 1 'qmm', QLinearMatMul): tensor 0 is quantised to int8 with zero point 1: the int8 lowerings take symmetric int8 tensors (zero point 0)" <<<"$out" &&
    ok || bad "$t with a zero point: $out"
done
# the output may not overwrite the input
"$NPK" run-model -t host --input "$T/x.npy" --output "$T/x.npy" "$T/mlp.onnx" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--output onto --input was not refused"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# The rvnpu lowering from the command line: the MLP of test_plan.c (model_plan --write) run by
# `npukit run-model -t rvnpu` (fp32, and int8 calibrated on its inputs), compiled by
# `npukit compile` into an ELF that `npukit run --write model_input:f32:X` runs to the same
# bits; and the refusals (no calibration for int8, an unknown setting). Also the hand-worked DAG
# of test_plan.c in fp32 (seed and rev2) against its values, and int8's refusal of it.
# usage: rvnpu_cli.sh NPUKIT MODEL_PLAN_TEST
set -u
NPK=$1 PLAN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
"$PLAN" --write "$T" || { echo "FAIL: cannot write the model"; exit 1; }
# the hand-worked DAG of test_plan.c (LayerNorm, dense on 2 rows, residual, a rank-2 Transpose,
# MatMul of two activations, Div): fp32 gives its values; int8 refuses its first layer
for s in precision=fp32 precision=fp32,isa_rev=rev2; do
  out=$("$NPK" run-model -t rvnpu:$s --input "$T/dag_x.npy" --output "$T/dag_y.npy" \
        "$T/dag.onnx" 2>&1)
  [ $? = 0 ] && ok || bad "run-model dag $s: $out"
  "$PLAN" --check-dag "$T/dag_y.npy" >/dev/null && ok || bad "dag $s: not the hand-worked values"
done
out=$("$NPK" run-model -t rvnpu --calib "$T/dag_x.npy" --input "$T/dag_x.npy" "$T/dag.onnx" 2>&1)
[ $? = 1 ] && grep -q "layer 0 (node 0 'ln', LayerNormalization): rvnpu lowers chains" <<<"$out" &&
  ok || bad "int8 dag: $out"
out=$("$NPK" run-model -t rvnpu:precision=fp32 --input "$T/x.npy" --output "$T/y.npy" \
      "$T/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "run-model fp32: $out"
grep -q "argmax equal 2 of 2" <<<"$out" && ok || bad "fp32 report: $out"
grep -q "per inference: [1-9][0-9]* cycles, [1-9][0-9]* instructions, 10 MACs" <<<"$out" &&
  ok || bad "fp32 cost: $out"
out=$("$NPK" run-model -t rvnpu --calib "$T/x.npy" --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "run-model int8: $out"
grep -q "argmax equal 2 of 2" <<<"$out" && ok || bad "int8 report: $out"
# the compiled ELF, on the first input (1, 2, -1) as a one-row float32 .npy
out=$("$NPK" compile "$T/mlp.onnx" -t rvnpu:precision=fp32 -o "$T/mlp.elf" 2>&1)
[ $? = 0 ] && ok || bad "compile: $out"
grep -q -- "--write model_input:f32:X.npy --dump model_output:f32" <<<"$out" && ok ||
  bad "compile note: $out"
d="{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
printf '\x93NUMPY\x01\x00\x76\x00%s%*s\n' "$d" $((0x76 - ${#d} - 1)) '' >"$T/x1.npy"
printf '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x80\xbf' >>"$T/x1.npy"
"$NPK" run "$T/mlp.elf" --write "model_input:f32:$T/x1.npy" --dump model_output:f32 \
  --dump-file "$T/y1.npy" >"$T/run.txt" 2>&1
[ $? = 0 ] && ok || bad "npukit run: $(cat "$T/run.txt")"
# the ELF's output is run-model's first row, bit for bit
cmp -s <(tail -c 8 "$T/y1.npy") <(tail -c 16 "$T/y.npy" | head -c 8) && ok ||
  bad "npukit run's output differs from run-model's"
out=$("$NPK" compile "$T/mlp.onnx" -t rvnpu -o "$T/m8.elf" 2>&1)
[ $? = 1 ] && grep -q "int8 needs a calibrated plan" <<<"$out" && ok || bad "no calib: $out"
out=$("$NPK" run-model -t rvnpu:precision=int4 --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
[ $? = 1 ] && grep -q "unknown setting 'precision=int4'" <<<"$out" && ok ||
  bad "bad setting: $out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

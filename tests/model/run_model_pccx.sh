#!/usr/bin/env bash
# `npukit run-model -t pccx` and `npukit compile -t pccx` end to end: the hand-checked MLP of
# test_plan.c (Gemm, Relu, MatMul + Add, Softmax) and examples/models/lenet.onnx (Conv, Relu,
# MaxPool, Flatten, Gemm) on a zero image; the reports' lines and the compiled file's note.
# usage: run_model_pccx.sh NPUKIT MODEL_PLAN_TEST SOURCE_DIR
set -u
NPK=$1 PLAN=$2 SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
"$PLAN" --write "$T" || { echo "FAIL: cannot write the model"; exit 1; }
out=$("$NPK" run-model -t pccx --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "run-model exit status: $out"
grep -q "target: pccx, 2 inputs" <<<"$out" && ok || bad "report: $out"
grep -q "argmax equal 2 of 2" <<<"$out" && ok || bad "report: $out"
grep -Eq "per inference: [1-9][0-9]* cycles, [1-9][0-9]* instructions" <<<"$out" && ok || bad "report: $out"
out=$("$NPK" compile -t pccx -o "$T/mlp.s" "$T/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "compile exit status: $out"
grep -q "input: 3 BF16 values at host byte 0x0" <<<"$out" && ok || bad "note: $out"
grep -q "^.profile ext" "$T/mlp.s" && ok || bad "the file has no .profile ext line"
"$NPK" run -t pccx "$T/mlp.s" >/dev/null 2>&1 && ok || bad "npukit run of the compiled file failed"
# settings are refused with the reason
out=$("$NPK" compile -t pccx:fast -o "$T/x.s" "$T/mlp.onnx" 2>&1)
[ $? = 1 ] && grep -q "pccx takes no settings (got 'fast')" <<<"$out" && ok || bad "settings: $out"
# LeNet on one zero image: (1, 1, 28, 28) float32
d="{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 28, 28), }"
printf '\x93NUMPY\x01\x00\x76\x00%s%*s\n' "$d" $((0x76 - ${#d} - 1)) '' >"$T/z.npy"
head -c 3136 /dev/zero >>"$T/z.npy"
out=$("$NPK" run-model -t pccx --input "$T/z.npy" "$SRC/examples/models/lenet.onnx" 2>&1)
[ $? = 0 ] && ok || bad "lenet: $out"
grep -q "argmax equal 1 of 1" <<<"$out" && ok || bad "lenet: $out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# `npukit run-model -t tinytpu` and `npukit compile MODEL.onnx -t tinytpu` end to end
# (docs/models.md, "Lowering to tinytpu"). Always: the hand-checked MLP of test_plan.c ends in a
# Softmax, which the lowering refuses naming the layer; a bad setting is refused. With
# models/onnx/mlp.onnx in the tree (the Fashion-MNIST MLP, 784 -> 128 ReLU -> 10): its 8
# sample images run, each program's UB checked against the compiler's prediction inside
# run-model, the argmax equal to the float64 run on all 8 and the largest difference within
# the tolerance measured on the 10,000 test images (0.25, docs/models.md); compile writes the
# three programs. Without the file that part is skipped (exit 77) after the first part passed.
# usage: run_model_tinytpu.sh NPUKIT MODEL_PLAN_TEST SOURCE_DIR
set -u
NPK=$1 PLAN=$2 ROOT=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
"$PLAN" --write "$T" >/dev/null || { echo "FAIL: cannot write the model"; exit 1; }
out=$("$NPK" run-model -t tinytpu --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
[ $? = 1 ] && ok || bad "softmax: exit status: $out"
grep -q "tinytpu: layer 2 (node 4 'sm', Softmax): tinytpu lowers dense layers only (this is a softmax layer; the VPU has no exp)" <<<"$out" && ok || bad "softmax: $out"
out=$("$NPK" compile "$T/mlp.onnx" -t tinytpu:lanes=4 -o "$T/o.tt" 2>&1)
[ $? = 1 ] && ok || bad "compile softmax: exit status: $out"
out=$("$NPK" run-model -t tinytpu:lanes=300 --input "$T/x.npy" "$T/mlp.onnx" 2>&1)
grep -q "lanes=300 out of range (2..256)" <<<"$out" && ok || bad "lanes=300: $out"
M=$ROOT/models/onnx
if [ ! -f "$M/mlp.onnx" ]; then
    echo "$pass passed, $fail failed; SKIP: no $M/mlp.onnx"
    [ "$fail" = 0 ] && exit 77
    exit 1
fi
out=$("$NPK" run-model -t tinytpu --input "$M/mlp_samples.npy" --labels "$M/mlp_labels.npy" "$M/mlp.onnx" 2>&1)
[ $? = 0 ] && ok || bad "mlp: exit status: $out"
# 3 programs at lanes=16: 13,579 + 13,579 + 467 cycles; 101,632 MACs
grep -q "per inference: 27625 cycles, 27625 instructions, 101632 MACs, utilisation 1.4 %" <<<"$out" && ok || bad "mlp cost: $out"
grep -q "argmax equal 8 of 8" <<<"$out" && ok || bad "mlp argmax: $out"
d=$(sed -n 's/.*max |difference| \([0-9.e+-]*\) .*/\1/p' <<<"$out")
awk -v d="$d" 'BEGIN { exit !(d != "" && d <= 0.25) }' && ok || bad "mlp difference '$d' above 0.25: $out"
out=$("$NPK" compile "$M/mlp.onnx" -t tinytpu -o "$T/mlp.tt" 2>&1)
[ $? = 0 ] && ok || bad "mlp compile: $out"
grep -q "tinytpu: 3 programs, 27625 cycles per inference (lanes=16, ub_words=65536); Q8.8 weights and biases, 0 saturated" <<<"$out" && ok || bad "mlp compile: $out"
for f in mlp.tt mlp.2.tt mlp.3.tt; do [ -s "$T/$f" ] && ok || bad "compile did not write $f"; done
# the last program (layer 2, X = 0) runs as written: 467 cycles
out=$("$NPK" run -t tinytpu:lanes=16,ub_words=65536,lr=0x0000 "$T/mlp.3.tt" 2>&1)
[ $? = 0 ] && ok || bad "npukit run mlp.3.tt: $out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

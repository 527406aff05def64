#!/usr/bin/env bash
# The committed models (models/onnx) run by `npukit run-model` on the host and on each target
# with a lowering, their outputs compared with the float64 NumPy reference
# (tests/model/ref/onnx_ref.py --compare) within the tolerance of the target's arithmetic
# (docs/models.md gives each and why); the class agreement is printed.
# usage: run_models_ref.sh NPUKIT PYTHON SOURCE_DIR [MODEL@]TARGET[:SETTINGS]:ATOL:RTOL...
#   (host: the plan's float64 run written as float32, so 1e-6 relative; MODEL@: that model
#   only, for a target that cannot run the others, e.g. mlp@tinytpu:0.25:0; M1,M2@: those)
# Models: mlp, lenet (float, calibrated on their samples) and the int8 mlp_qdq, lenet_qlinear
# (their own scales: --calib is ignored), each on the samples of its float model.
set -u
NPK=$1 PY=$2 SRC=$3
shift 3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
M=$SRC/models/onnx
for spec in "$@"; do
  only="mlp lenet mlp_qdq lenet_qlinear"
  case $spec in *@*) only=${spec%%@*} only=${only//,/ } spec=${spec#*@} ;; esac
  t=${spec%:*:*}
  IFS=: read -r atol rtol <<<"${spec#"$t":}"
  for m in $only; do
    b=${m%_qdq} b=${b%_qlinear} x=$M/${b}_samples.npy   # the int8 models use their float model's
    out=$("$NPK" run-model -t "$t" --calib "$x" --input "$x" \
          --output "$T/$m.$t.npy" "$M/$m.onnx" 2>&1)
    if [ $? != 0 ]; then
      bad "$t $m: run-model failed: $out"
      continue
    fi
    ok
    cmp=$("$PY" "$SRC/tests/model/ref/onnx_ref.py" "$M/$m.npz" --input "$x" \
          --compare "$T/$m.$t.npy" --atol "$atol" --rtol "$rtol" 2>&1)
    [ $? = 0 ] && ok || bad "$t $m: outside atol $atol rtol $rtol of the NumPy reference: $cmp"
    echo "$t $m: $(grep -i 'worst\|agree' <<<"$cmp" | tr '\n' ' ')"
  done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

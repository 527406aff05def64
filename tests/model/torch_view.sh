#!/usr/bin/env bash
# A small model exported from PyTorch run with `npukit run-model` against PyTorch's output.
# Default: the x.view(x.size(0), -1) export (Shape, Gather, Unsqueeze, Concat, Reshape; folded
# by the reader), tests/model/data/view_flatten.onnx on the host on two inputs, each output
# within 1e-5 of the largest |output| of PyTorch's float32 run (view_flatten_torch.npy, written
# by the export script view_flatten.py).
# usage: torch_view.sh NPUKIT PYTHON DATA_DIR [NAME REPORT TARGET:REL_TOL...]
#   NAME: data/NAME.onnx with NAME_x.npy and NAME_torch.npy; REPORT: a line run-model must
#   print; each TARGET run (calibrated on the inputs) within REL_TOL of the largest |output|
set -u
NPK=$1 PY=$2 D=$3
NAME=${4:-view_flatten}
# conv 1->2 3x3 on 6x6 (2*16*9 = 288 MACs) + ReLU, the view, linear 32->3 (96 MACs)
REPORT=${5:-2 layers, 384 MACs per inference}
shift $(($# < 5 ? $# : 5))
[ $# -gt 0 ] || set -- host:1e-5
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
for tt in "$@"; do
    t=${tt%%:*} tol=${tt#*:}
    calib=()
    [ "$t" = host ] || calib=(--calib "$D/${NAME}_x.npy")
    out=$("$NPK" run-model -t "$t" "${calib[@]}" --input "$D/${NAME}_x.npy" --output "$T/y.npy" \
          "$D/$NAME.onnx" 2>&1)
    [ $? = 0 ] && ok || bad "run-model -t $t: $out"
    grep -q "$REPORT" <<<"$out" && ok || bad "report on $t: $out"
    res=$("$PY" - "$T/y.npy" "$D/${NAME}_torch.npy" "$tol" <<'PYEOF'
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
d = float(np.abs(got.astype(np.float64) - want).max()) if got.shape == want.shape else -1
print("ok" if 0 <= d <= float(sys.argv[3]) * float(np.abs(want).max()) else
      "shape %s/%s diff %g" % (got.shape, want.shape, d))
PYEOF
)
    [ "$res" = ok ] && ok || bad "outputs on $t against PyTorch: $res"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# PyTorch's x.view(x.size(0), -1) export (Shape, Gather, Unsqueeze, Concat, Reshape; folded by
# the reader): tests/model/data/view_flatten.onnx run with `npukit run-model -t host` on two
# inputs, each output within 1e-5 of the largest |output| of PyTorch's float32 run
# (view_flatten_torch.npy, written by the export script view_flatten.py).
# usage: torch_view.sh NPUKIT PYTHON DATA_DIR
set -u
NPK=$1 PY=$2 D=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
out=$("$NPK" run-model -t host --input "$D/view_flatten_x.npy" --output "$T/y.npy" \
      "$D/view_flatten.onnx" 2>&1)
[ $? = 0 ] && ok || bad "run-model: $out"
# conv 1->2 3x3 on 6x6 (2*16*9 = 288 MACs) + ReLU, the view, linear 32->3 (96 MACs)
grep -q "2 layers, 384 MACs per inference" <<<"$out" && ok || bad "report: $out"
res=$("$PY" - "$T/y.npy" "$D/view_flatten_torch.npy" <<'PYEOF'
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
d = float(np.abs(got.astype(np.float64) - want).max()) if got.shape == want.shape else -1
print("ok" if 0 <= d <= 1e-5 * float(np.abs(want).max()) else "shape %s/%s diff %g" %
      (got.shape, want.shape, d))
PYEOF
)
[ "$res" = ok ] && ok || bad "outputs against PyTorch: $res"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# ctest model_api: the public model API (tests/model/test_api.c) on the committed MLP's samples
# against the float64 NumPy reference. The reference (tests/model/ref/onnx_ref.py) runs here and
# hands the samples and its outputs to the C test as raw little-endian float32 and float64.
# usage: api_ref.sh MODEL_API PYTHON SOURCE_DIR
set -u
api=$1 py=$2 src=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
M=$src/models/onnx
"$py" - "$src/tests/model/ref" "$M/mlp.npz" "$M/mlp_samples.npy" "$T" <<'PY' || { echo "FAIL: the NumPy reference"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import onnx_ref
x = np.load(sys.argv[3])
y = onnx_ref.run(onnx_ref.load_sidecar(sys.argv[2]), x)
x.astype("<f4").tofile(sys.argv[4] + "/x.f32")
np.asarray(y, dtype="<f8").tofile(sys.argv[4] + "/ref.f64")
PY
exec "$api" "$M/mlp.onnx" "$T/x.f32" "$T/ref.f64" "$src/tests/bad/inputs/onnx_truncated.onnx" \
  "$src/tests/fuzz/corpus/onnx_model/seed_broadcast.onnx" "$T"

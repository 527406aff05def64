#!/usr/bin/env bash
# The same models on every NPU, side by side (issue 19; docs/models.md "Side by side"): each
# model of models/onnx run with `npukit run-model` on the host (float64) and on every target
# with a lowering, the classifiers on all 10,000 Fashion-MNIST test images. Prints one
# Markdown table: cycles, instructions, MACs and utilisation per inference, accuracy, host CPU
# time per inference, and for a target that cannot run a model the reason it gives.
#
# usage: bench/models/models_table.sh [--limit N] [--models LIST] [--npukit PATH] [--out FILE]
#   --limit N     the first N test images only (default all 10,000)
#   --models L    these models only (default "mlp mlp_qdq lenet lenet_qlinear transformer_block rmsnorm_block")
#   --npukit P    the npukit to run (default build/npukit)
#   --out FILE    also write the table to FILE
# Needs NumPy (python3-numpy) and the dataset (dataset-fashion-mnist).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NPK=$ROOT/build/npukit LIMIT= OUT= MODELS="mlp mlp_qdq lenet lenet_qlinear transformer_block rmsnorm_block"
while [ $# -gt 0 ]; do
  case $1 in
    --limit) LIMIT=$2; shift 2 ;;
    --models) MODELS=$2; shift 2 ;;
    --npukit) NPK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "models_table.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
[ -x "$NPK" ] || { echo "models_table.sh: no npukit at $NPK (make build)" >&2; exit 2; }
DATA=/usr/share/datasets/fashion-mnist PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the dataset as .npy: test images and labels, and 1,000 training images for calibration
"$PY" - "$DATA" "$T" <<'PYEOF' || { echo "models_table.sh: cannot read the dataset (dataset-fashion-mnist, python3-numpy)" >&2; exit 1; }
import gzip, sys
import numpy as np
d, t = sys.argv[1], sys.argv[2]
def idx(name, dims):
    raw = gzip.open(d + "/" + name).read()
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims)
np.save(t + "/test_x.npy", idx("t10k-images-idx3-ubyte.gz", 3).reshape(10000, 784))
np.save(t + "/test_y.npy", idx("t10k-labels-idx1-ubyte.gz", 1).astype(np.int64))
np.save(t + "/calib_x.npy", idx("train-images-idx3-ubyte.gz", 3).reshape(60000, 784)[:1000])
PYEOF
targets="host $("$NPK" run-model --list | grep -vx host | tr '\n' ' ')"
lim=${LIMIT:+--limit $LIMIT}
row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
{
  echo "| model | target | cycles | instructions | MACs | utilisation | accuracy (float64 host) | host CPU per inference |"
  echo "|---|---|---:|---:|---:|---:|---|---:|"
  # the int8 models (mlp_qdq, lenet_qlinear) carry their own scales: --calib is ignored
  for m in $MODELS; do
    f=$ROOT/models/onnx/$m.onnx
    [ -f "$f" ] || continue
    ts=$targets
    if [ "$m" = transformer_block ] || [ "$m" = rmsnorm_block ]; then
      # the sequence models: their samples; rvnpu's fp32 too (its int8 refuses them)
      args="--input $ROOT/models/onnx/${m}_samples.npy --calib $ROOT/models/onnx/${m}_samples.npy"
      ts=$(sed 's/\<rvnpu\>/rvnpu rvnpu:precision=fp32/' <<<"$targets")
    else
      args="--input $T/test_x.npy --labels $T/test_y.npy --calib $T/calib_x.npy --scale 0.00392156862745098 $lim"
    fi
    for t in $ts; do
      # shellcheck disable=SC2086
      out=$("$NPK" run-model -t "$t" $args "$f" 2>"$T/err")
      if [ $? != 0 ]; then
        why=$(grep -v -e ' of .* inputs$' -e ' is ignored$' "$T/err" | head -1 | sed "s|$ROOT/||g; s/|/\\\\|/g")
        row "$m" "$t" "–" "–" "–" "–" "cannot run: ${why#npukit: }" "–"
        continue
      fi
      per=$(grep '^per inference:' <<<"$out")
      num() { local v; v=$(sed -nE "s/.* ([0-9.]+) $1.*/\1/p" <<<"$per"); echo "${v:-–}"; }
      util=$(sed -nE 's/.*utilisation ([0-9.]+ %).*/\1/p' <<<"$per")
      acc=$(sed -nE 's/^accuracy: ([0-9.]+ %).*float64 host run ([0-9.]+ %)/\1 (\2)/p' <<<"$out")
      [ -n "$acc" ] || acc=$(sed -nE 's/.*max \|difference\| ([^ ]+).*/max abs difference \1 from float64/p' <<<"$out")
      ms=$(sed -nE 's/^host CPU time: ([0-9.]+ ms).*/\1/p' <<<"$out")
      row "$m" "$t" "$(num cycles)" "$(num instructions)" "$(num MACs)" "${util:-–}" "$acc" "$ms"
    done
  done
} | tee ${OUT:+"$OUT"}

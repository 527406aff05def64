#!/usr/bin/env bash
# `npukit model-info`'s plan and targets sections on the committed models: the layers and how
# they connect, as the models' export scripts build them (models/onnx/*.py: the MLP 784-128-10,
# LeNet's conv/pool/dense chain, the transformer block's attention and residual adds), and the
# targets' verdicts checked against run-model itself: every "yes" runs one sample (with --calib
# for "int8 with calibration inputs"), every "no" is run-model's own refusal, word for word.
# usage: model_info.sh NPUKIT SOURCE_DIR
set -u
NPK=$1 M=$2/models/onnx
[ -f "$M/transformer_block.onnx" ] || { echo "models/onnx not in the tree: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
has() { grep -qF -- "$2" <<<"$1" && ok || bad "$3: no line '$2'"; }
line() { grep -qE -- "$2" <<<"$1" && ok || bad "$3: no line matching '$2' in: $1"; }

info() { "$NPK" model-info "$M/$1.onnx" 2>&1 | sed -n '/^plan/,$p'; }
mlp=$(info mlp)
has "$mlp" "plan: 2 layers; t0 is the model's input" mlp
line "$mlp" '^ +0 dense +relu +/0/Gemm +t0 -> t1 +\[784\] -> \[128\]$' "mlp layer 0"
line "$mlp" '^ +1 dense +/2/Gemm +t1 -> t2 +\[128\] -> \[10\]$' "mlp layer 1"
lenet=$(info lenet)
has "$lenet" "plan: 7 layers" lenet
line "$lenet" '^ +3 maxpool +/5/MaxPool +t3 -> t4 +\[16,10,10\] -> \[16,5,5\]$' "lenet layer 3"
line "$lenet" '^ +4 dense +relu +/7/Gemm +t4 -> t5 +\[16,5,5\] -> \[120\]$' "lenet layer 4"
tb=$(info transformer_block)
has "$tb" "plan: 18 layers" transformer_block
# Q K^T reads the head splits of Q (layer 4 writes t6) and of K transposed (layer 5, t5);
# the first residual adds the model's input t0 to the output projection's t13
line "$tb" '^ +7 matmul +/MatMul +t6, t5 -> t7 +\[2,8,16\] -> \[2,8,8\]$' "transformer layer 7"
line "$tb" '^ +13 add +/Add +t0, t13 -> t14 +\[8,32\] -> \[8,32\]$' "transformer layer 13"
line "$tb" '^ +15 dense +gelu +/ff1/MatMul +t15 -> t16 +\[8,32\] -> \[8,64\]$' "transformer layer 15"
line "$tb" '^ +17 add +/Add_2 +t14, t17 -> t18 ' "transformer layer 17"

# --no-targets: the plan, no verdicts
nt=$("$NPK" model-info --no-targets "$M/mlp.onnx" 2>&1)
line "$nt" '^ +1 dense +/2/Gemm +t1 -> t2 ' "--no-targets"
grep -q '^targets' <<<"$nt" && bad "--no-targets printed the targets" || ok

# the verdicts: the ones the lowerings are documented to give (docs/models.md) ...
has "$mlp" "  opennpu                yes, int8 with calibration inputs (--calib X.npy)" mlp
has "$mlp" "  tinytpu                yes" mlp
has "$lenet" "  tinytpu                no: layer 0 (node 0 '/0/Conv', Conv): tinytpu lowers dense layers only" lenet
if grep -q "^  rvnpu.*built without the model firmware" <<<"$tb"; then
    echo "(no RISC-V firmware toolchain in this build: rvnpu's verdicts say so)"
else
    has "$tb" "  rvnpu:precision=fp32   yes" transformer_block
fi
has "$tb" "  opennpu                no: layer 0 (node 0 '/ln1/LayerNormalization', LayerNormalization)" transformer_block
q=$(info lenet_qlinear)
has "$q" "  opennpu                yes" lenet_qlinear     # its own scales: no --calib
# ... and each one against run-model on one sample
for name in mlp lenet transformer_block lenet_qlinear; do
    x="$M/${name%_qlinear}_samples.npy"
    out=$(info "$name")
    while read -r tgt verdict; do
        r=$("$NPK" run-model -t "$tgt" --limit 1 --input "$x" --calib "$x" "$M/$name.onnx" 2>&1)
        rc=$?
        case $verdict in
        "yes, int8 with calibration inputs"*)
            [ $rc = 0 ] && ok || bad "$name on $tgt: said yes, run-model: $r"
            "$NPK" run-model -t "$tgt" --limit 1 --input "$x" "$M/$name.onnx" >/dev/null 2>&1 &&
                bad "$name on $tgt: runs without --calib, yet model-info asks for it" || ok ;;
        yes*) [ $rc = 0 ] && ok || bad "$name on $tgt: said yes, run-model: $r" ;;
        no:*) [ $rc = 1 ] && grep -qF -- "${verdict#no: }" <<<"$r" && ok ||
                  bad "$name on $tgt: said '$verdict', run-model ($rc): $r" ;;
        *) bad "$name on $tgt: verdict '$verdict'" ;;
        esac
    done < <(sed -n '/^targets/,$p' <<<"$out" | tail -n +3)
done
echo "model_info: $pass passed, $fail failed"
[ $fail = 0 ]

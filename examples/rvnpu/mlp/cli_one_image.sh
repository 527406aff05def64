#!/bin/sh
# ctest rvnpu_mlp_cli: the README's one-image command, checked against the host reference.
# For each test image index K: `mlp_ref --extract K` writes the raw 784-byte image, then the
# output of `npukit run -t rvnpu --write test_image:IMG mlp.elf` (exit status 0) must be
# byte-for-byte the output of `mlp_ref --image IMG` (the class digit and a newline).
# usage: cli_one_image.sh NPUKIT MLP_REF ELF DATA_DIR WORKDIR K...
# Exit status 77 (skip) when the Fashion-MNIST test set is not installed.
set -u
if [ $# -lt 6 ]; then
    echo "usage: $0 NPUKIT MLP_REF ELF DATA_DIR WORKDIR K..." >&2
    exit 2
fi
npukit=$1 ref=$2 elf=$3 data=$4 work=$5
shift 5
if [ ! -r "$data/t10k-images-idx3-ubyte.gz" ] || [ ! -r "$data/t10k-labels-idx1-ubyte.gz" ]; then
    echo "SKIP: $data/t10k-*-ubyte.gz not found (install the Debian package dataset-fashion-mnist)"
    exit 77
fi
mkdir -p "$work" || exit 1
for k in "$@"; do
    img=$work/mlp_image_$k.bin
    "$ref" --data-dir "$data" --extract "$k" "$img" || { echo "FAIL: mlp_ref --extract $k"; exit 1; }
    "$ref" --image "$img" > "$work/mlp_want_$k.txt" || { echo "FAIL: mlp_ref --image $img"; exit 1; }
    "$npukit" run -t rvnpu --write "test_image:$img" "$elf" > "$work/mlp_got_$k.txt"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: image $k: npukit run exited with status $rc"
        exit 1
    fi
    if ! cmp -s "$work/mlp_want_$k.txt" "$work/mlp_got_$k.txt"; then
        echo "FAIL: image $k: firmware printed '$(cat "$work/mlp_got_$k.txt")', reference '$(cat "$work/mlp_want_$k.txt")'"
        exit 1
    fi
    echo "image $k: $(cat "$work/mlp_got_$k.txt")"
done
echo PASS

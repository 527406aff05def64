#!/bin/sh
# Statistics alone (exec.c: the recording loop without records, npk_obs_stats_only; and the
# observed loop's lean path for what it hands over) against the observed loop's full path:
# for each firmware, the JSON statistics of `--stats` alone and of `--stats --trace=/dev/null`
# (which takes the full path) must be identical, counters, per-mnemonic counts, unit busy
# cycles and cycles included.
# usage: stats_lean.sh NPUKIT ELF...
set -u
npukit=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npk-stats.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for elf in "$@"; do
    run="timeout 120 $npukit run --stats=json --stats-output"
    $run "$tmp/lean.json" "$elf" >/dev/null 2>&1
    $run "$tmp/full.json" --trace=/dev/null "$elf" >/dev/null 2>&1
    if [ ! -s "$tmp/lean.json" ] || ! grep -q '"cycles"' "$tmp/lean.json"; then
        echo "FAIL: $elf: no statistics"
        fail=1
    elif ! cmp -s "$tmp/lean.json" "$tmp/full.json"; then
        echo "FAIL: $elf: --stats alone and with --trace differ"
        diff "$tmp/lean.json" "$tmp/full.json" | head -5
        fail=1
    else
        echo "ok: $elf: $(grep -o '"instructions":[0-9]*' "$tmp/lean.json")"
    fi
done
[ $fail = 0 ] && echo "1 passed, 0 failed" && exit 0
echo "0 passed, 1 failed"
exit 1

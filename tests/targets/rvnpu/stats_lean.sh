#!/bin/sh
# Statistics alone (exec.c: the threaded statistics loop, fast_loop.h with RVNPU_FL_STATS;
# npk_obs_stats_only; and the observed loop's lean path for what it hands over) against the
# observed loop's full path: for each firmware, the JSON statistics of `--stats` alone and of
# `--stats --trace=/dev/null` (which takes the full path) must be identical, counters,
# per-mnemonic counts, unit busy cycles, stalls and cycles included. Each firmware runs with
# the default latencies and with others that make every kind of interlock stall (loads,
# multiplies, divisions, FP) and a taken jump cost more, and every run stops after at most
# 2,000,000 instructions (a long program stops on its budget, mid-loop, in both runs).
# usage: stats_lean.sh NPUKIT ELF...
set -u
npukit=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npk-stats.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
slow=lat_alu=2,lat_load=5,lat_mul=4,lat_div=7,lat_fp=6,lat_fdiv=9,lat_taken=3
for elf in "$@"; do
    for cfg in "" "--config $slow"; do
        run="timeout 120 $npukit run --max-insns 2000000 --stats=json $cfg --stats-output"
        $run "$tmp/lean.json" "$elf" >/dev/null 2>&1
        $run "$tmp/full.json" --trace=/dev/null "$elf" >/dev/null 2>&1
        if [ ! -s "$tmp/lean.json" ] || ! grep -q '"cycles"' "$tmp/lean.json"; then
            echo "FAIL: $elf${cfg:+ $cfg}: no statistics"
            fail=1
        elif ! cmp -s "$tmp/lean.json" "$tmp/full.json"; then
            echo "FAIL: $elf${cfg:+ $cfg}: --stats alone and with --trace differ"
            diff "$tmp/lean.json" "$tmp/full.json" | head -5
            fail=1
        else
            echo "ok: $elf${cfg:+ $cfg}: $(grep -o '"instructions":[0-9]*' "$tmp/lean.json")"
        fi
    done
done
[ $fail = 0 ] && echo "1 passed, 0 failed" && exit 0
echo "0 passed, 1 failed"
exit 1

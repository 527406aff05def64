#!/bin/sh
# `make fuzz`: run each libFuzzer harness of BUILD_DIR for a time or a number of executions,
# one after the other, and print one summary line per harness. New corpus entries go to a
# scratch directory (SCRATCH/<harness>, the repo's seeds are read-only input), crash, leak,
# timeout and OOM inputs to tests/fuzz/crashes/<harness>/, the full log to SCRATCH/<h>.log.
# Settings (environment): FUZZ_TIME seconds per harness (default 60), FUZZ_RUNS executions
# per harness and job (overrides FUZZ_TIME), FUZZ_JOBS parallel jobs (default 1),
# FUZZ_HARNESS names (default all), FUZZ_FLAGS extra libFuzzer flags, FUZZ_TAG a name for
# this run's log and work directory (SCRATCH/<h>.<tag>.log), so that several runs of one
# harness can share its corpus at once (the campaign's chunks do).
set -u
BUILD_DIR=${1:?usage: run.sh BUILD_DIR SCRATCH_DIR}
SCRATCH=${2:?usage: run.sh BUILD_DIR SCRATCH_DIR}
SRC=$(cd "$(dirname "$0")" && pwd)
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_RUNS=${FUZZ_RUNS:-}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_FLAGS=${FUZZ_FLAGS:-}
TAG=${FUZZ_TAG:+.$FUZZ_TAG}
ALL="asm_toy asm_rvnpu asm_opennpu asm_tinytpu asm_pccx bin_toy bin_rvnpu bin_opennpu bin_pccx
     words_tinytpu elf_rvnpu compile_tinytpu syscall_rvnpu snapshot gdb_rvnpu onnx_model npy"
HARNESSES=${FUZZ_HARNESS:-$ALL}
if [ -n "$FUZZ_RUNS" ]; then LIMIT="-runs=$FUZZ_RUNS"; else LIMIT="-max_total_time=$FUZZ_TIME"; fi
mkdir -p "$SCRATCH"
SCRATCH=$(cd "$SCRATCH" && pwd)
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
status=0
for h in $HARNESSES; do
    exe="$BUILD_DIR/tests/fuzz/fuzz_$h"
    if [ ! -x "$exe" ]; then
        echo "fuzz: no harness '$h' (known: $(echo $ALL))" >&2
        status=1
        continue
    fi
    crashes="$SRC/crashes/$h"
    work="$SCRATCH/$h$TAG.work"
    mkdir -p "$crashes" "$SCRATCH/$h" "$work"
    before=$(ls "$crashes" | wc -l)
    log="$SCRATCH/$h$TAG.log"
    # -max_len 65536: the harnesses ignore longer inputs; -rss_limit_mb: leave room for the
    # other developers; -malloc_limit_mb: pccx .hostsize may calloc (lazily) up to 4 GiB.
    # A worker's output goes to fuzz-<n>.log in the current directory: run from $work.
    # -jobs=1 would still fork a worker; one job runs in-process
    if [ "$FUZZ_JOBS" -gt 1 ]; then JOBS="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"; else JOBS=; fi
    (cd "$work" && rm -f fuzz-*.log &&
     "$exe" $LIMIT $JOBS -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=4608 -print_final_stats=1 \
        -artifact_prefix="$crashes/" $FUZZ_FLAGS "$SCRATCH/$h" "$SRC/corpus/$h" \
        </dev/null >"$log" 2>&1)
    rc=$?
    after=$(ls "$crashes" | wc -l)
    # executions and exec/s: the final stats of every job (summed), else the last status line
    execs=$(awk -F: '/stat::number_of_executed_units/ {s += $NF} END {print s + 0}' "$log")
    rate=$(awk -F: '/stat::average_exec_per_sec/ {s += $NF} END {print s + 0}' "$log")
    if [ "$execs" = 0 ]; then
        execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
        rate=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
    fi
    new=$((after - before))
    printf 'fuzz: %-16s %12s execs %8s exec/s  %d new crash input(s)  log %s\n' \
        "$h" "${execs:-0}" "${rate:-0}" "$new" "$log"
    if [ "$new" -gt 0 ] || [ "$rc" -ne 0 ]; then
        status=1
        grep -m 3 -E 'ERROR|SUMMARY|runtime error|npukit fuzz:' "$log" | sed 's/^/      /'
        ls -t "$crashes" | head -n "$((new > 0 ? new : 1))" | sed "s|^|      saved: $crashes/|"
    fi
done
exit $status

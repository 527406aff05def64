#!/bin/sh
# The long fuzzing campaign (docs/reliability.md): every harness of a frozen copy of the fuzz
# binaries to a target number of executions, in chunks, on several cores, resumable across
# sessions and machines. Each finished chunk is one line of the ledger (CAMPAIGN_LEDGER,
# default CAMPAIGN_DIR/ledger.tsv; the project keeps its ledgers in tests/fuzz/campaign/):
#   harness  chunk  executions  exec/s  new-crash-inputs  exit-status  finished-at
# The ledger's first line names the frozen commit; a ledger is only continued by binaries of
# that commit (on a new machine: check the commit out, make build-fuzz, freeze again).
# A harness is done when it has enough clean chunks (no crash input, exit status 0); chunks
# add up because every chunk of a harness starts from the corpus the earlier ones grew.
#
#   tests/fuzz/campaign.sh freeze CAMPAIGN_DIR [BUILD_DIR]   copy build-fuzz's binaries and
#                                                            note the commit (once)
#   tests/fuzz/campaign.sh run CAMPAIGN_DIR                  work until done or stopped
#   tests/fuzz/campaign.sh drain CAMPAIGN_DIR                let the chunks under way finish,
#                                                            start no new one (end of session)
#   tests/fuzz/campaign.sh status CAMPAIGN_DIR               executions per harness so far
#   tests/fuzz/campaign.sh merge CAMPAIGN_DIR                add the grown corpus inputs that
#                                                            reach new coverage to the repo's
#                                                            tests/fuzz/corpus (end of session)
#
# Settings (environment): CAMPAIGN_TARGET executions per harness (default 10000000),
# CAMPAIGN_CHUNK executions per chunk (default 1000000), CAMPAIGN_JOBS parallel chunks
# (default: the number of cores), CAMPAIGN_HARNESS names (default all), CAMPAIGN_NICE (19),
# CAMPAIGN_LEDGER the ledger file, CAMPAIGN_MERGE_MAX and CAMPAIGN_MERGE_KIB the most inputs and
# KiB `merge` adds to a harness's corpus in the tree (default 32 and 128: the smallest first).
# `run` hands the next chunk to the harness with the fewest executions done or under way,
# so every harness gets its first million early; a harness gets a second chunk at once (on
# the same corpus, as libFuzzer's -jobs; a crash input then marks both) only when no other
# harness is left to start. Stopping `run` (Ctrl-C, or kill its process group) loses only the
# chunks under way; `drain` loses nothing: every runner of the directory ends after its
# chunk under way (a new `run` cancels the drain). Crash inputs go to tests/fuzz/crashes/<h>/.
set -u
cmd=${1:-}
DIR=${2:-}
SRC=$(cd "$(dirname "$0")" && pwd)
TARGET=${CAMPAIGN_TARGET:-10000000}
CHUNK=${CAMPAIGN_CHUNK:-1000000}
JOBS=${CAMPAIGN_JOBS:-$(nproc 2>/dev/null || echo 1)}
NICE=${CAMPAIGN_NICE:-19}
MERGE_MAX=${CAMPAIGN_MERGE_MAX:-32}
MERGE_KIB=${CAMPAIGN_MERGE_KIB:-128}
ALL=$(sed -n 's/^ALL="\(.*\)/\1/p; s/^ *\([a-z_ ]*\)"$/\1/p' "$SRC/run.sh" | tr '\n' ' ')
HARNESSES=${CAMPAIGN_HARNESS:-$ALL}
# by default the harnesses the frozen commit has (later ones are not part of its campaign)
if [ -z "${CAMPAIGN_HARNESS:-}" ] && [ -d "$DIR/tests/fuzz" ]; then
    HARNESSES=$(for h in $ALL; do [ -x "$DIR/tests/fuzz/fuzz_$h" ] && echo "$h"; done)
fi
LEDGER=${CAMPAIGN_LEDGER:-$DIR/ledger.tsv}
case $LEDGER in /*) ;; *) LEDGER=$(pwd)/$LEDGER ;; esac

usage() {
    sed -n '2,32s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
[ -n "$cmd" ] && [ -n "$DIR" ] || usage

# executions of harness $1 in finished clean chunks, and in chunks under way ($DIR/claims)
done_execs() {
    awk -v h="$1" '$1 == h && $5 == 0 && $6 == 0 {s += $3} END {print s + 0}' \
        "$LEDGER" 2>/dev/null || echo 0
}
dirty() { awk -v h="$1" '$1 == h && ($5 != 0 || $6 != 0) {n++} END {print n + 0}' \
    "$LEDGER" 2>/dev/null || echo 0; }
claimed() { grep -c "^$1 " "$DIR/claims" 2>/dev/null || true; }

case $cmd in
freeze)
    BUILD=${3:-$SRC/../../build-fuzz}
    [ -d "$DIR/tests/fuzz" ] && { echo "campaign: $DIR is frozen already" >&2; exit 2; }
    ls "$BUILD"/tests/fuzz/fuzz_* >/dev/null 2>&1 ||
        { echo "campaign: no fuzz binaries in $BUILD/tests/fuzz (make build-fuzz)" >&2; exit 2; }
    mkdir -p "$DIR/tests/fuzz" "$DIR/scratch"
    cp "$BUILD"/tests/fuzz/fuzz_* "$DIR/tests/fuzz/"
    # the commit of the binaries: the source tree BUILD belongs to
    commit=$(git -C "$BUILD/.." describe --always --abbrev=7 --dirty 2>/dev/null)
    [ -n "$commit" ] || { echo "campaign: $BUILD is not inside a git checkout" >&2; exit 2; }
    if [ -s "$LEDGER" ]; then
        was=$(sed -n '1s/^# commit //p' "$LEDGER")
        [ "$was" = "$commit" ] || { echo "campaign: $LEDGER is the ledger of" \
            "${was:-an unknown commit}, the binaries are of $commit: use a new ledger" >&2
            rm -rf "$DIR/tests" "$DIR/scratch"; exit 2; }
    else
        echo "# commit $commit" >"$LEDGER"
    fi
    echo "$commit" >"$DIR/commit"
    echo "campaign: froze $(ls "$DIR/tests/fuzz" | wc -l) harnesses of $(cat "$DIR/commit") in $DIR"
    ;;
status)
    [ -f "$DIR/commit" ] || { echo "campaign: $DIR is not a campaign (freeze first)" >&2; exit 2; }
    echo "campaign of $(cat "$DIR/commit"), target $TARGET executions per harness"
    printf '%-16s %12s %8s %s\n' harness executions exec/s state
    left=0
    for h in $HARNESSES; do
        n=$(done_execs "$h")
        rate=$(awk -v h="$h" '$1 == h && $6 == 0 {e += $3; t += $3 / ($4 > 0 ? $4 : 1)}
                              END {print (t > 0 ? int(e / t) : 0)}' "$LEDGER")
        if [ "$(dirty "$h")" -gt 0 ]; then st="REPORT (see the ledger)"
        elif [ "$n" -ge "$TARGET" ]; then st=done
        else st=running; left=1; fi
        printf '%-16s %12s %8s %s\n' "$h" "$n" "$rate" "$st"
    done
    exit $left
    ;;
run)
    [ -f "$DIR/commit" ] || { echo "campaign: $DIR is not a campaign (freeze first)" >&2; exit 2; }
    DIR=$(cd "$DIR" && pwd)
    rm -f "$DIR/drain"
    # claims are "harness runner-pid": several runners may share a campaign (each with its own
    # CAMPAIGN_HARNESS); a new one drops only the claims of runners that are gone
    live() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q campaign; }
    (flock 9 && touch "$DIR/claims" && while read -r h pid; do
        if [ -n "$pid" ] && live "$pid"; then echo "$h $pid"; fi
    done <"$DIR/claims" >"$DIR/claims.new" && mv "$DIR/claims.new" "$DIR/claims") 9>"$DIR/lock"
    # the next harness, claimed: below the target counting the chunks under way, no report
    # yet; of those, one with no chunk under way if there is one, then the fewest executions
    # done + under way. Called with the lock held.
    pick() {
        best='' bestn=0 bestc=0
        [ -e "$DIR/drain" ] && return 0
        for h in $HARNESSES; do
            [ "$(dirty "$h")" -gt 0 ] && continue
            c=$(claimed "$h")
            n=$(($(done_execs "$h") + c * CHUNK))
            [ "$n" -ge "$TARGET" ] && continue
            [ "$c" -gt 0 ] && c=1
            if [ -z "$best" ] || [ "$c" -lt "$bestc" ] ||
                { [ "$c" -eq "$bestc" ] && [ "$n" -lt "$bestn" ]; }; then
                best=$h bestn=$n bestc=$c
            fi
        done
        [ -n "$best" ] && echo "$best $$" >>"$DIR/claims"
        echo "$best"
    }
    # record a finished chunk and drop its claim (one of this runner's claims of the harness).
    # Called with the lock held.
    record() { # harness execs rate new ok
        n=$(awk -v h="$1" '$1 == h' "$LEDGER" | wc -l)
        printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$1" $((n + 1)) "$2" "$3" "$4" "$5" \
            "$(date -u +%FT%TZ)" >>"$LEDGER"
        { grep -v "^$1 $$\$" "$DIR/claims"; grep "^$1 $$\$" "$DIR/claims" | tail -n +2; } \
            >"$DIR/claims.new"
        mv "$DIR/claims.new" "$DIR/claims"
    }
    worker() { # $1: the worker's number in this runner
        while :; do
            h=$( (flock 9 && pick) 9>"$DIR/lock")
            [ -n "$h" ] || return 0
            d=$(done_execs "$h")
            runs=$((TARGET - d < CHUNK ? TARGET - d : CHUNK))
            line=$(FUZZ_RUNS=$runs FUZZ_HARNESS=$h FUZZ_TAG=$$.$1 nice -n "$NICE" \
                sh "$SRC/run.sh" "$DIR" \
                "$DIR/scratch" 2>&1 | grep "^fuzz: $h ")
            execs=$(echo "$line" | awk '{print $3}')
            rate=$(echo "$line" | awk '{print $5}')
            new=$(echo "$line" | awk '{print $7}')
            # a clean chunk: run.sh saw no new crash input, and libFuzzer ran all its runs
            ok=1
            [ -n "$execs" ] && [ "$new" = 0 ] && [ "$execs" -ge "$runs" ] && ok=0
            (flock 9 && record "$h" "${execs:-0}" "${rate:-0}" "${new:-?}" "$ok") 9>"$DIR/lock"
            echo "campaign: $h +${execs:-0} executions, $(done_execs "$h") done," \
                "${rate:-?} exec/s, ${new:-?} new crash input(s)$([ $ok = 0 ] || echo ': REPORT')"
        done
    }
    cd "$DIR" || exit 2
    i=0
    while [ "$i" -lt "$JOBS" ]; do
        worker "$i" &
        i=$((i + 1))
    done
    wait
    sh "$SRC/campaign.sh" status "$DIR"
    ;;
drain)
    [ -f "$DIR/commit" ] || { echo "campaign: $DIR is not a campaign (freeze first)" >&2; exit 2; }
    touch "$DIR/drain"
    n=$(cut -d' ' -f1 "$DIR/claims" 2>/dev/null | tr '\n' ' ')
    echo "campaign: draining $DIR; chunks under way: ${n:-none}"
    ;;
merge)
    [ -f "$DIR/commit" ] || { echo "campaign: $DIR is not a campaign (freeze first)" >&2; exit 2; }
    DIR=$(cd "$DIR" && pwd)
    for h in $HARNESSES; do
        [ -d "$DIR/scratch/$h" ] || continue
        before=$(ls "$SRC/corpus/$h" | wc -l)
        # -merge=1 copies into the first directory the inputs of the others that add coverage;
        # it works on a copy, and only the smallest of the new inputs join the repository's
        # corpus (at most MERGE_MAX inputs and MERGE_KIB KiB per harness: the corpora in the
        # tree stay small and `make test` replays them in seconds; the whole grown corpus stays
        # in the campaign directory)
        rm -rf "$DIR/scratch/$h.merged"
        cp -r "$SRC/corpus/$h" "$DIR/scratch/$h.merged"
        (cd "$DIR/scratch" && nice -n "$NICE" "$DIR/tests/fuzz/fuzz_$h" -merge=1 -max_len=65536 \
            -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=4608 \
            "$DIR/scratch/$h.merged" "$DIR/scratch/$h" >"$DIR/scratch/$h.merge.log" 2>&1) ||
            { echo "campaign: merging $h failed, see $DIR/scratch/$h.merge.log" >&2; exit 1; }
        new=0 kib=0
        for f in $(cd "$DIR/scratch/$h.merged" && ls -S -r); do
            [ -e "$SRC/corpus/$h/$f" ] && continue
            k=$(( ($(wc -c <"$DIR/scratch/$h.merged/$f") + 1023) / 1024 ))
            [ "$new" -lt "$MERGE_MAX" ] && [ $((kib + k)) -le "$MERGE_KIB" ] || break
            cp "$DIR/scratch/$h.merged/$f" "$SRC/corpus/$h/$f"
            new=$((new + 1)) kib=$((kib + k))
        done
        echo "campaign: $h corpus $before -> $(ls "$SRC/corpus/$h" | wc -l) inputs," \
            "$(du -sk "$SRC/corpus/$h" | cut -f1) KiB ($(ls "$DIR/scratch/$h.merged" | wc -l)" \
            "with every new input that adds coverage)"
    done
    ;;
*) usage ;;
esac

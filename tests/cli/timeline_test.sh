#!/bin/bash
# Timelines as a viewer reads them: every demo's showcase run (npukit demo --timeline DIR) is
# valid JSON whose slices nest properly on every track (Perfetto refuses partial overlaps),
# with at least one slice on each unit that the program uses (the tracks docs/<target>.md
# promise); and tinytpu's unit tracks add up to --stats' busy cycles.
# usage: timeline_test.sh NPUKIT TIMELINE_CHECK SOURCE_DIR
NPK=$1 CHECK=$2 SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"

# The tracks each demo's program uses; a demo missing here fails the test, so a new demo
# gets its list. (toy: no fp in the sieve; opennpu: "none" is the unit of nothing; pccx:
# front_end only in hw-compat mode; tinytpu: every track.)
declare -A want=(
  [toy]="ctl alu mul lsu"
  [rvnpu]="alu branch mul lsu npu sys"
  [rvnpu-mlp]="alu branch mul lsu npu sys"
  [rvnpu-transformer]="alu branch mul lsu fpu fdiv fnpu sys"
  [opennpu]="valu mma mem"
  [opennpu-mlp]="valu mma mem"
  [tinytpu]="array vpu vpu.bias vpu.lrelu vpu.loss vpu.deriv ub_read ub_read.input
             ub_read.weight ub_read.bias ub_read.y ub_read.h ub_read.gbias ub_read.gweight
             ub_write gd"
  [pccx]="memset mem gemv gemm cvo port_b"
)

# the checker itself: each of these files breaks one rule
M='{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"a"}}'
x() { printf '{"ph":"X","pid":1,"tid":%s,"ts":%s,"dur":%s,"name":"s"}' "$1" "$2" "$3"; }
printf '{"traceEvents":[%s,%s,%s]}' "$M" "$(x 1 0 2)" "$(x 1 1 2)" >"$T/overlap.json"
printf '{"traceEvents":[%s,%s,%s]}' "$M" "$(x 1 2 1)" "$(x 1 2 3)" >"$T/order.json"
printf '{"traceEvents":[%s,%s]}' "$M" "$(x 2 0 1)" >"$T/unnamed.json"
printf '{"traceEvents":[%s,%s' "$M" "$(x 1 0 1)" >"$T/cut.json"
printf '{"traceEvents":[%s,%s,%s,%s]}' "$M" "$(x 1 0 4)" "$(x 1 1 2)" "$(x 1 4 1)" >"$T/good.json"
expect 1 "overlaps [0, 2)" -- "$CHECK" "$T/overlap.json"
expect 1 "comes before the longer [2, 5)" -- "$CHECK" "$T/order.json"
expect 1 "a slice on a track without a thread_name" -- "$CHECK" "$T/unnamed.json"
expect 1 "invalid JSON" -- "$CHECK" "$T/cut.json"
expect 1 "no track named: b" -- "$CHECK" "$T/good.json" a b
expect 0 "a 3 7" -- "$CHECK" -l "$T/good.json" a
printf '{"traceEvents":[%s]}' "$M" >"$T/empty.json"
expect 1 "no slice on track: a" -- "$CHECK" "$T/empty.json" a

demos=$("$NPK" demo --help | awk '/^demos:/ { d = 1; next } d && /^$/ { exit } d { print $1 }')
[ -n "$demos" ] && ok || bad "npukit demo --help lists no demos"
if "$NPK" demo --timeline "$T" >"$T/demo.out" 2>&1; then ok; else
  bad "npukit demo --timeline failed"; tail -20 "$T/demo.out" >&2
fi
for d in $demos; do
  if [ -z "${want[$d]+x}" ]; then bad "demo $d: this test does not know its tracks"; continue; fi
  # shellcheck disable=SC2086 # the track list splits into arguments
  "$CHECK" "$T/$d.json" ${want[$d]} && ok || bad "timeline of demo $d"
  rm -f "$T/$d.json" # the toy's is 120 MB
done

# one demo by name, --timeline=DIR; bad uses
mkdir "$T/one"
expect 0 "1 of 1 demos ran as expected" -- "$NPK" demo --timeline="$T/one" tinytpu
[ "$(ls "$T/one")" = tinytpu.json ] && ok || bad "demo --timeline=DIR tinytpu wrote $(ls "$T/one")"
expect 2 "option --timeline needs a directory" -- "$NPK" demo toy --timeline
expect 1 "$T/none/toy.json: cannot write timeline" -- "$NPK" demo --timeline "$T/none" toy

# tinytpu: the unit tracks' slices add up to the busy cycles of --stats
"$NPK" run -t tinytpu --stats --timeline "$T/tt.json" "$SRC/examples/tinytpu/xor/xor_step.tt" \
  >/dev/null 2>"$T/tt.stats" && ok || bad "tinytpu run with --timeline failed"
"$CHECK" -l "$T/tt.json" >"$T/tt.tracks" && ok || bad "tinytpu timeline"
for u in array vpu ub_read ub_write gd; do
  busy=$(awk -v u="$u" '$1 == u && NF == 3 { print $2 }' "$T/tt.stats")
  tl=$(awk -v u="$u" '$1 == u { print $3 }' "$T/tt.tracks")
  [ -n "$busy" ] && [ "$busy" != 0 ] && [ "$busy" = "$tl" ] && ok ||
    bad "tinytpu $u: $tl cycles on the timeline, $busy busy in --stats"
done
# xor_step's reads, one slice each, named as the assembly writes them (cycle 11: weight read)
grep -qF '"name":"weight addr=' "$T/tt.json" && ok || bad "tinytpu: no weight read slice"

finish

#!/usr/bin/env bash
# tinytpu program files end to end: `npukit compile` writes the format its -o extension names,
# every file it writes runs without repeating its settings (lr, reset cycles and the word format
# are declared in the file), the spec's options --lr, --reset-at, --lanes and --ub-words, and the
# program-length limit (max_cycles) said once. The check value is the XOR step's updated W1
# row 0 at UB words 12-13 (docs/tinytpu-compiler.md: 0044 FF66; before the step 004C FF6C).
# usage: tinytpu_cli_test.sh NPUKIT SOURCE_DIR
set -u
NPK=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"
NET=$SRC/examples/tinytpu/xor/xor.net   # has 'format w94' on line 11
TRAINED="ub:00000018: 44 00 66 ff"
UNTRAINED="ub:00000018: 4c 00 6c ff"
cd "$T" || exit 1

# w1 FILE [run options...]: run FILE, expect the trained W1 row
w1() {
  local f=$1; shift
  expect 0 "$TRAINED" -- "$NPK" run -t tinytpu "$@" --dump ub:24:4 "$f"
}

# --- compile: the -o extension names the format (it overrides the file's 'format' line) ---
expect 0 "note: -o xor.tt (.tt) overrides 'format w94' of $NET:11" -- "$NPK" compile -t tinytpu "$NET" -o xor.tt
grep -q '^\.lanes 2$' xor.tt && ! grep -q '^[0-9A-F]\{24\}$' xor.tt && ok || bad "xor.tt is not assembly"
w1 xor.tt
expect 0 "-> xor.hex (w94)" -- "$NPK" compile -t tinytpu "$NET" -o xor.hex
grep -q '^# tinytpu w94 words (94 bits), N = 2' xor.hex && ok || bad "xor.hex has no w94 header"
w1 xor.hex
expect 0 "-> xor.w130 (w130)" -- "$NPK" compile -t tinytpu "$NET" -o xor.w130
w1 xor.w130
expect 0 "-> xor.wfull (wfull)" -- "$NPK" compile -t tinytpu "$NET" -o xor.wfull
w1 xor.wfull
expect 0 "-> xor.port (port)" -- "$NPK" compile -t tinytpu "$NET" -o xor.port
w1 xor.port
# a .hex output with no width anywhere is w130 (wfull for lanes >= 3)
grep -v '^format' "$NET" >plain.net
expect 0 "-> plain.hex (w130)" -- "$NPK" compile -t tinytpu plain.net -o plain.hex
w1 plain.hex
# -f wins over everything, but not against the extension it contradicts
expect 0 "-> f.hex (wfull)" -- "$NPK" compile -t tinytpu -f wfull "$NET" -o f.hex
expect 2 "-f w94 writes hex words, but -o x.tt says asm (.tt)" -- "$NPK" compile -t tinytpu -f w94 "$NET" -o x.tt
[ ! -e x.tt ] && ok || bad "a refused compile wrote x.tt"
expect 2 "-f asm writes assembly, but -o x.port says port (.port)" -- "$NPK" compile -t tinytpu -f asm "$NET" -o x.port
# other names: the file's format line
expect 0 "-> xor.txt (w94)" -- "$NPK" compile -t tinytpu "$NET" -o xor.txt
w1 xor.txt

# --- the loader reads what a file declares ---
# an explicit format that matches is fine; one that contradicts the header is one error
w1 xor.hex --config format=w94
w1 xor.hex --format w94
expect 1 "the file declares w94 words, but it is read as w130" -- "$NPK" disasm -t tinytpu --format w130 xor.hex
expect 125 "xor.hex:2:11: error: the file declares w94 words, but it is read as w130" -- \
  "$NPK" run -t tinytpu:format=w130 xor.hex
[ "$(grep -c 'error:' out)" = 1 ] && ok || bad "a contradicting header gave $(grep -c 'error:' out) errors, want 1"
# lr comes from the file: the setting is overridden (and said) when it differs
expect 0 "warning: the file sets lr 0x00C0 from cycle 1: the lr setting 0x0040 is not used" -- \
  "$NPK" run -t tinytpu --lr 0x0040 --dump ub:24:4 xor.hex
grep -qF "$TRAINED" out && ok || bad "the file's lr did not apply"
# without the declaration the setting is the learning rate (spec B7.1, B6)
grep -v '^# cycle 1: lr' xor.hex >nolr.hex
expect 0 "$UNTRAINED" -- "$NPK" run -t tinytpu --dump ub:24:4 nolr.hex
w1 nolr.hex --lr 0.75
w1 nolr.hex --config lr=0x00C0
# disassembly needs no format= and keeps lr and the reset
expect 0 ".lr 0x00C0 ; 0.75" -- "$NPK" disasm -t tinytpu xor.hex
grep -q '^\.reset$' out && ok || bad "disasm lost the reset cycle"
expect 0 ".lr 0x00C0 ; 0.75" -- "$NPK" disasm -t tinytpu xor.port

# --- the spec's options are the machine settings ---
expect 0 "ub:00000018: 00 00 00 00" -- "$NPK" run -t tinytpu --lr 0.75 --reset-at 2,93 --dump ub:24:4 nolr.hex
expect 0 "reset_cycles   3" -- "$NPK" run -t tinytpu --reset-at 2,93 --stats xor.hex
expect 126 "UB size 32" -- "$NPK" run -t tinytpu --ub-words 32 xor.hex
printf '.lanes 3\nhost2=1.0\n' >l3.tt
# a shorthand comes after --config: it wins
expect 0 "(lanes=3,ub_words=64," -- "$NPK" run -t tinytpu --config lanes=2 --lanes 3 --ub-words 64 --stats l3.tt
expect 125 "'.lanes 3' does not match the machine's N = 2" -- "$NPK" run -t tinytpu l3.tt
expect 0 "# cycle 1: lr 0x00C0" -- "$NPK" asm -t tinytpu --lr 0.75 l3.tt --lanes 3 -o -
"$NPK" asm -t tinytpu --lanes 3 l3.tt -o l3.hex && ok || bad "asm --lanes 3"
expect 0 "host2=0x0100" -- "$NPK" disasm -t tinytpu --lanes 3 l3.hex
expect 0 "max_cycles=4194304" -- "$NPK" info -t tinytpu:max_cycles=4M

# --- program length: above the old 4194304-cycle cap, and the limit said once ---
printf 'nop 5000000\nhost0=1.0\n' >long.tt
expect 0 "ub:00000000: 00 01" -- "$NPK" run -t tinytpu --dump ub:0:2 long.tt
{ echo 'nop 3'; for i in $(seq 20); do echo 'sw'; done; } >over.tt
expect 125 "over.tt:3:1: error: program longer than 4 cycles: the rest of the file is not read" -- \
  "$NPK" run -t tinytpu:max_cycles=4 over.tt
[ "$(grep -c 'error:' out)" = 1 ] && ok || bad "the limit was said $(grep -c 'error:' out) times, want once"
grep -v '^#' xor.hex >bare.hex
expect 125 "bare.hex:5:1: error: more than 4 cycles" -- "$NPK" run -t tinytpu:max_cycles=4,format=w94 bare.hex
[ "$(grep -c 'error:' out)" = 1 ] && ok || bad "the word-file limit was said $(grep -c 'error:' out) times, want once"
expect 0 "$TRAINED" -- "$NPK" run -t tinytpu:max_cycles=93 --dump ub:24:4 xor.hex

# --- stream=1: word files read as a stream give the same results and the same errors ---
w1 xor.port --config stream=1
w1 xor.hex --config stream=1
w1 xor.tt --config stream=1                # assembly is not streamed: read whole
expect 0 "reset_cycles   3" -- "$NPK" run -t tinytpu:stream=1 --reset-at 2,93 --stats xor.hex
expect 125 "bare.hex:5:1: error: more than 4 cycles" -- \
  "$NPK" run -t tinytpu:max_cycles=4,format=w94,stream=1 bare.hex
expect 125 "xor.hex:2:11: error: the file declares w94 words, but it is read as w130" -- \
  "$NPK" run -t tinytpu:format=w130,stream=1 xor.hex
expect 125 "missing.port: cannot open" -- "$NPK" run -t tinytpu:stream=1 missing.port
expect 125 "not kept in snapshots: load it with stream=0" -- \
  "$NPK" run -t tinytpu:stream=1 --save-state st.snap xor.port

finish

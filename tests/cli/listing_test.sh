#!/usr/bin/env bash
# `npukit asm --listing` for every target: each source line with its address (tinytpu: its
# cycle numbers), the words it produced and the line itself. Words are checked against
# hand-encoded values (RISC-V encodings for rvnpu, tinytpu spec B5) or against the same
# program's `-f hex` image.
# usage: listing_test.sh NPUKIT SOURCE_DIR
set -u
NPK=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"

# has FILE LINE: FILE holds the exact line LINE
has() {
  if grep -qxF -- "$2" "$1"; then ok; else bad "$1 lacks the line '$2'"; sed 's/^/    /' "$1" | head -20 >&2; fi
}

cd "$T" || exit 1

# --- toy: 4-byte words at byte addresses ---
printf 'li r0, 0\n\n        halt\n' >toy.s
expect 0 "" -- "$NPK" asm -t toy -l toy.s -o toy.bin
cp out toy.lst
has toy.lst "00000000  10000000               toy.s:1: li r0, 0"
has toy.lst "00000004                         toy.s:2: "
halt=$("$NPK" asm -t toy -f hex toy.s -o - | sed -n 2p)
has toy.lst "00000004  $halt               toy.s:3:         halt"

# --- rvnpu: RISC-V encodings, addresses from the RAM base ---
printf 'addi x1, x0, 5\nloop: jal x0, loop\n' >rv.s
expect 0 "" -- "$NPK" asm -t rvnpu --listing rv.s -o rv.bin
cp out rv.lst
has rv.lst "80000000  00500093               rv.s:1: addi x1, x0, 5"
has rv.lst "80000004  0000006f               rv.s:2: loop: jal x0, loop"

# --- opennpu ---
printf '; relu prologue\nvmovi ve14, 0\nvmovi ve15, 0\n' >onpu.s
expect 0 "" -- "$NPK" asm -t opennpu -l onpu.s -o onpu.bin
cp out onpu.lst
w=$("$NPK" asm -t opennpu -f hex onpu.s -o -)
has onpu.lst "00000000                         onpu.s:1: ; relu prologue"
has onpu.lst "00000000  $(echo "$w" | sed -n 1p)               onpu.s:2: vmovi ve14, 0"
has onpu.lst "00000004  $(echo "$w" | sed -n 2p)               onpu.s:3: vmovi ve15, 0"

# --- pccx: 8-byte words ---
printf 'memset fmap, idx=1, a=1, b=64, c=1\nmemset fmap, idx=2, a=1, b=16, c=1\n' >pccx.s
expect 0 "" -- "$NPK" asm -t pccx -l pccx.s -o pccx.bin
cp out pccx.lst
w=$("$NPK" asm -t pccx -f hex pccx.s -o -)
has pccx.lst "00000000  $(echo "$w" | sed -n 1p)                       pccx.s:1: memset fmap, idx=1, a=1, b=64, c=1"
has pccx.lst "00000008  $(echo "$w" | sed -n 2p)                       pccx.s:2: memset fmap, idx=2, a=1, b=16, c=1"

# --- tinytpu: cycles (spec B7.3), the w130 word of the line's cycle ---
printf '.lanes 2\n.reset\nhost1=0 host0=1.0\n@5 sw read weight addr=12 rows=2 cols=2 t\nnop 3\n' >tt.tt
expect 0 "" -- "$NPK" asm -t tinytpu -l tt.tt -o tt.hex
cp out tt.lst
has tt.lst "cycle            w130                               line  source (tt.tt; '*': the cycle's read issues)"
has tt.lst "                                                       1  .lanes 2"
has tt.lst "1                reset                                 2  .reset"
# hv0 bit 3, hv1 bit 4, hd0 = 0x0100 at bit 62
has tt.lst "2                000000000000000400000000000000018     3  host1=0 host0=1.0"
# sw, start, T = 7; cols 2 << 5; rows 2 << 21; addr 12 << 37; sel 1 << 53
has tt.lst "3-4 idle, 5*     000000000000000000020018000400047     4  @5 sw read weight addr=12 rows=2 cols=2 t"
has tt.lst "6-8              000000000000000000000000000000000     5  nop 3"
# the listing shows the machine's word format, and goes to a file with --listing-output
expect 0 "" -- "$NPK" asm -t tinytpu:words=w94 --listing-output tt94.lst tt.tt -o tt94.hex
# w94: hd0 at bit 26
has tt94.lst "2                000000000000000400000018     3  host1=0 host0=1.0"
# what the listing says is what was written
[ "$(grep -v '^#' tt.hex | sed -n 2p)" = "000000000000000400000000000000018" ] && ok ||
  bad "tt.hex cycle 2: $(grep -v '^#' tt.hex | sed -n 2p)"

# the listing is on standard output, so the image cannot also be
expect 2 "would both go to standard output" -- "$NPK" asm -t toy -l toy.s -o -
expect 0 "" -- "$NPK" asm -t toy --listing-output - toy.s -o toy2.bin
grep -qF "toy.s:1: li r0, 0" out && ok || bad "--listing-output - did not list on standard output"

finish

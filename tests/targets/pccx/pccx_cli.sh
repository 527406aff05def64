#!/usr/bin/env bash
# pccx through the npukit command: the example programs run, assemble and disassemble back to
# the same words; --stats, --trace and a --timeline that is valid trace-event JSON with a track
# per engine; and the bad programs of the issue (reserved opcode, out-of-range L2 address, shape
# mismatch, CVO length too long, empty weight stream) stop with a clear message and exit status.
# usage: pccx_cli.sh NPUKIT JSON_CHECK SOURCE_DIR
set -u
NPK=$1 JSON=$2 SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"
EX=$SRC/examples/pccx

# --- the examples run; statistics and trace ---
for f in softmax.s rmsnorm_base.s rmsnorm_ext.s gemv_int4.s gemm_int4.s; do
  expect 0 "program exited with status 0" -- "$NPK" run -t pccx "$EX/$f" --stats
done
expect 0 "gemv dst=0x300, src=0x40, size=5, shape=4, findemax, w_scale" -- "$NPK" run -t pccx "$EX/softmax.s" --trace
expect 0 "hp2_bytes" -- "$NPK" run -t pccx "$EX/softmax.s" --stats
# §6.4 through the command line: the probabilities' first word (P = element 0x2400)
expect 0 "l2:00004800:" -- "$NPK" run -t pccx "$EX/softmax.s" --dump l2:0x4800:16

# --- timeline: valid JSON, one track per engine used ---
expect 0 "" -- "$NPK" run -t pccx "$EX/gemv_int4.s" --timeline "$T/t.json"
expect 0 "" -- "$JSON" "$T/t.json"
for track in memset mem gemv gemm cvo port_b front_end; do
  grep -qF "\"name\":\"thread_name\",\"args\":{\"name\":\"$track\"}" "$T/t.json" &&
    ok || bad "timeline lacks a track named $track"
done
expect 0 "idle_gemv" -- "$NPK" run -t pccx "$EX/gemv_int4.s" --stats
# cycles per instruction means nothing with concurrent engines: the time to the last
# completion instead (195 cycles at the default 400 MHz, 179 at 300 MHz)
expect 0 "  cycles        195  (0.487 us at 400 MHz, to the last completion; the engines run concurrently: see their busy cycles)" -- \
  "$NPK" run -t pccx "$EX/softmax.s" --stats
"$NPK" run -t pccx "$EX/softmax.s" --stats 2>&1 | grep -q CPI && bad "pccx --stats prints a CPI" || ok
expect 0 "  cycles        179  (0.597 us at 300 MHz" -- "$NPK" run -t pccx:f_core_mhz=300 "$EX/softmax.s" --stats

# --- asm / disasm round trip of every example's words ---
for f in softmax.s rmsnorm_base.s rmsnorm_ext.s gemv_int4.s gemm_int4.s; do
  b=${f%.s}
  expect 0 "" -- "$NPK" asm -t pccx:ext "$EX/$f" -o "$T/$b.bin"
  expect 0 "" -- "$NPK" disasm -t pccx:ext -s "$T/$b.bin" -o "$T/$b.dis.s"
  expect 0 "" -- "$NPK" asm -t pccx:ext "$T/$b.dis.s" -o "$T/$b.round.bin"
  cmp -s "$T/$b.bin" "$T/$b.round.bin" && ok || bad "$f: disassembly does not reassemble to the same words"
done
expect 0 "memset fmap, idx=4, a=1, b=8, c=1" -- "$NPK" disasm -t pccx "$T/softmax.bin"
# an illegal word: `.word` (§13.2) and, in a comment, why, as for the other targets
printf '.word 0xffffffffffffffff\n.word 0x0807060504030201\n.word 0x%016x\n' $((0x5 << 60)) >"$T/illegal.s"
expect 0 "" -- "$NPK" asm -t pccx "$T/illegal.s" -o "$T/illegal.bin"
expect 0 "       0:  ffffffffffffffff  .word 0xffffffffffffffff  ; illegal: reserved opcode 0xF" -- \
  "$NPK" disasm -t pccx "$T/illegal.bin"
expect 0 "       8:  0807060504030201  .word 0x0807060504030201  ; illegal: reserved bits set (word mask 0x1)" -- \
  "$NPK" disasm -t pccx "$T/illegal.bin"
expect 0 ".word 0xffffffffffffffff  ; illegal: reserved opcode 0xF (hw-compat drops it)" -- \
  "$NPK" disasm -t pccx:mode=hw-compat "$T/illegal.bin"
expect 0 ".word 0x0807060504030201  ; illegal: reserved bits set (word mask 0x1) (hw-compat runs it, the bits read as zero)" -- \
  "$NPK" disasm -t pccx:mode=hw-compat "$T/illegal.bin"
expect 0 ".word 0x5000000000000000  ; illegal: reserved opcode 0x5" -- "$NPK" disasm -t pccx "$T/illegal.bin"
expect 0 "" -- "$NPK" disasm -t pccx -s "$T/illegal.bin" -o "$T/illegal.dis.s"
expect 0 "" -- "$NPK" asm -t pccx "$T/illegal.dis.s" -o "$T/illegal.round.bin"
cmp -s "$T/illegal.bin" "$T/illegal.round.bin" && ok || bad "illegal words: disassembly does not reassemble to the same words"

# --- bad programs ---
printf '    .word 0x5000000000000000\n' >"$T/opcode.s"
expect 126 "PCCX_E_ILLEGAL_OPCODE at instruction 0 (word 0x5000000000000000" -- "$NPK" run -t pccx "$T/opcode.s"
expect 0 "" -- "$NPK" run -t pccx:mode=hw-compat "$T/opcode.s"
cat >"$T/range.s" <<'S'
    memset fmap, idx=1, a=1, b=64, c=1
    memcpy.h2l dst=0x1BFFF, aux=0, shape=1
S
expect 126 "PCCX_E_L2_RANGE at instruction 1" -- "$NPK" run -t pccx "$T/range.s"
expect 126 "leave L2 (114688 words)" -- "$NPK" run -t pccx "$T/range.s"
cat >"$T/shape.s" <<'S'
.weight W, k=4, n=2
  .scale 1, 1
  .row 1, 1, 1, 1
  .row 1, 1, 1, 1
.endweight
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=2, b=2, c=1      ; X*Z = 2 != M = 1
.wpush W
    gemv dst=0x10, src=0, size=2, shape=1
S
expect 126 "PCCX_E_SHAPE at instruction 2" -- "$NPK" run -t pccx "$T/shape.s"
printf '    exp src=0, dst=0x100, len=65536\n' >"$T/len.s"
expect 125 "len.s:1:" -- "$NPK" run -t pccx "$T/len.s"
expect 125 "65536" -- "$NPK" run -t pccx "$T/len.s"
printf '    exp src=0, dst=0x100, len=0\n' >"$T/len0.s"
expect 126 "PCCX_E_SHAPE" -- "$NPK" run -t pccx "$T/len0.s"
cat >"$T/empty.s" <<'S'
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=1, b=2, c=1
    gemv dst=0x10, src=0, size=2, shape=1
S
expect 126 "PCCX_E_WEIGHT_EMPTY at instruction 2" -- "$NPK" run -t pccx "$T/empty.s"
expect 126 "the weight queue is empty" -- "$NPK" run -t pccx "$T/empty.s"
printf '    tanh src=0, dst=0x100, len=4\n' >"$T/ext.s"
expect 125 "ext.s:1:" -- "$NPK" run -t pccx "$T/ext.s"
expect 0 "" -- "$NPK" run -t pccx:ext "$T/ext.s"
# .hostsize sizes host DDR unless the command line does (§13.3: the command line wins)
printf '.hostsize 4096\n.host byte=0\n.bf16 1.0\n    memset fmap, idx=1, a=1, b=8, c=1\n    memcpy.h2l dst=0, aux=256, shape=1\n' >"$T/hs.s"
expect 126 "leave host DDR (4096 bytes)" -- "$NPK" run -t pccx "$T/hs.s"
expect 0 "" -- "$NPK" run -t pccx:host_ddr_bytes=1M "$T/hs.s"
# .profile likewise: the file's ext applies unless the command line says base
printf '.profile ext\n    tanh src=0, dst=0x100, len=4\n' >"$T/prof.s"
expect 0 "" -- "$NPK" run -t pccx "$T/prof.s"
expect 125 "prof.s:2:" -- "$NPK" run -t pccx:base "$T/prof.s"
expect 125 "unknown setting 'frob'" -- "$NPK" run -t pccx:frob "$T/ext.s"
expect 125 "not a multiple of 16" -- "$NPK" run -t pccx:host_ddr_bytes=100 "$T/ext.s"
expect 125 "pccx: host_ddr_bytes=1T (1099511627776 bytes) is larger than the 4 GiB maximum" -- \
  "$NPK" run -t pccx:host_ddr_bytes=1T "$T/ext.s"
# issue 13: a view whose strides wrap int64 faults (it used to read host memory, SIGSEGV)
printf '.profile ext\n.wview V, host=0x100, n=2, k=2, sn=0x4000000000000000, sk=0x4000000000000000\n    memset fmap, idx=1, a=1, b=2, c=1\n    memset fmap, idx=2, a=1, b=2, c=1\n.wpush V\n    gemv dst=0x80, src=0x40, size=2, shape=1\n' >"$T/wrap.s"
expect 126 "PCCX_E_HOST_RANGE" -- "$NPK" run -t pccx "$T/wrap.s"

finish

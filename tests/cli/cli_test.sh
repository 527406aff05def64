#!/usr/bin/env bash
# End-to-end checks of the npukit command line: each subcommand's help, exit codes from
# --help, diagnostics with file:line:col, round trips, statistics/timeline files.
# usage: cli_test.sh NPUKIT JSON_CHECK SOURCE_DIR
set -u
NPK=$1 JSON=$2 SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"

# --- help and usage ---
expect 0 "usage: npukit <command>" -- "$NPK" --help
expect 0 "125 the run could not start" -- "$NPK" --help
expect 2 "" -- "$NPK"
expect 2 "unknown command 'frob'" -- "$NPK" frob
expect 0 "npukit 0." -- "$NPK" --version
for c in asm disasm run info demo; do
  expect 0 "usage: npukit $c" -- "$NPK" $c --help
  expect 0 "exit status" -- "$NPK" $c --help
  expect 0 "usage: npukit $c" -- "$NPK" help $c
done
expect 2 "unknown option '--frob'" -- "$NPK" asm --frob
expect 2 "no source file" -- "$NPK" asm -t toy
expect 2 "option --target needs a value" -- "$NPK" asm x.s --target

# --- info ---
expect 0 "toy" -- "$NPK" info
expect 0 "mem=SIZE" -- "$NPK" info -t toy
expect 0 "effective configuration: mem=1024" -- "$NPK" info -t toy:mem=1K
expect 2 "unknown target 'nosuch'" -- "$NPK" info -t nosuch
expect 2 "mem=5 is out of range" -- "$NPK" info -t toy --config mem=5
# the state by name (docs/state.md): every register as NAME:BITS, '*' for read-only ones
expect 0 "registers (NAME:BITS, * read-only" -- "$NPK" info -t rvnpu
for r in "zero:32*" "fflags:5" "frm:3" "fcsr:8" "cycle:32*" "mcycle:64" "misa:32*" \
         "mhartid:32*" "acc:64" "facc:64" "v3:32"; do
  expect 0 " $r" -- "$NPK" info -t rvnpu
done
for r in "vx31:64" "ve15:128" "vr7:256" "P[7]:256"; do expect 0 " $r" -- "$NPK" info -t opennpu; done
expect 0 " P[3]:128" -- "$NPK" info -t opennpu:K=4
for r in "E[1]:1" "weight.skip:16" "vpu.lastH[1]:16" "pe[1][1].psum:16" "pe[1][1].swout:1"; do
  expect 0 " $r" -- "$NPK" info -t tinytpu
done
for r in "E_MAX:32" "status:64*" "cmd_fifo:32*" "queue.gemm:32*" "busy.cvo:1*" \
         "cc_weight[63].Z:17"; do
  expect 0 " $r" -- "$NPK" info -t pccx
done
printf "halt\n" >"$T/x.s"
expect 2 "mem=5 is out of range" -- "$NPK" asm -t toy:mem=5 "$T/x.s"
# an absurd memory size is refused at creation, with the size and the maximum (issue 13)
expect 2 "rvnpu: ram_size=1T (1099511627776 bytes) is larger than the 2 GiB maximum" -- \
  "$NPK" asm -t rvnpu:ram_size=1T "$T/x.s"
expect 125 "rvnpu: ram_size=1T (1099511627776 bytes) is larger than the 2 GiB maximum" -- \
  "$NPK" run -t rvnpu:ram_size=1T "$T/x.s"
expect 125 "toy: mem=1G (1073741824 bytes) is larger than the 16 MiB maximum" -- \
  "$NPK" run -t toy --config mem=1G "$T/x.s"

# --- asm / disasm round trip ---
cp "$SRC/examples/toy/demo.s" "$T/demo.s"
expect 0 "" -- "$NPK" asm -t toy "$T/demo.s"
[ -s "$T/demo.bin" ] && ok || bad "asm wrote no demo.bin"
expect 0 "" -- "$NPK" disasm -t toy -s "$T/demo.bin" -o "$T/round.s"
expect 0 "" -- "$NPK" asm -t toy "$T/round.s" -o "$T/round.bin"
cmp -s "$T/demo.bin" "$T/round.bin" && ok || bad "disassembly does not reassemble to the same image"
expect 0 "" -- "$NPK" asm -t toy -f hex "$T/demo.s" -o "$T/demo.hex"
[ "$(head -1 "$T/demo.hex")" = "10000000" ] && ok || bad "hex listing: first word $(head -1 "$T/demo.hex"), want 10000000 (li r0, 0)"
expect 0 "       0:  10000000  li r0, 0" -- "$NPK" disasm -t toy "$T/demo.bin"
printf 'abcdef' >"$T/odd.bin"
expect 1 "not a whole number of 4-byte words" -- "$NPK" disasm -t toy "$T/odd.bin"
expect 1 "cannot open" -- "$NPK" disasm -t toy "$T/missing.bin"

# malformed source: file:line:col errors, exit 1, no crash
printf 'li r1, 5\n  add r1, r2\nfrob r1\n  li r9, 1\n' >"$T/bad.s"
expect 1 "bad.s:2:" -- "$NPK" asm -t toy "$T/bad.s"
expect 1 "bad.s:3:1: error:" -- "$NPK" asm -t toy "$T/bad.s"
expect 1 "bad.s:4:" -- "$NPK" asm -t toy "$T/bad.s"
head -c 3000 /dev/urandom | tr -d '\000' >"$T/noise.s"
"$NPK" asm -t toy "$T/noise.s" -o "$T/noise.bin" >/dev/null 2>&1; s=$?
[ "$s" = 1 ] || [ "$s" = 0 ] && ok || bad "asm of random bytes exited $s"
expect 2 "no target: give -t/--target" -- "$NPK" asm "$T/demo.s"
printf '.target toy\nhalt\n' >"$T/tgt.s"
expect 0 "" -- "$NPK" run "$T/tgt.s"

# --- run: exit codes ---
expect 0 "5133" -- "$NPK" run -t toy:mem=256K "$T/demo.s"
expect 0 "5133" -- "$NPK" run -t toy --config mem=256K "$T/demo.bin"
printf 'li r1, 42\nexit r1\n' >"$T/exit42.s"
expect 42 "" -- "$NPK" run -t toy "$T/exit42.s"
printf 'loop: jmp loop\n' >"$T/loop.s"
expect 124 "stopped after --max-insns=1000 instructions" -- "$NPK" run -t toy --max-insns 1000 "$T/loop.s"
printf 'li r1, 1\n.word 0xfc000000\n' >"$T/illegal.s"
expect 126 "npukit: illegal instruction at pc 0x00000004, word 0xfc000000" -- "$NPK" run -t toy "$T/illegal.s"
printf 'li r1, 100\nld r2, 0(r1)\n' >"$T/badaddr.s"
expect 126 "load from bad address 0x00000064" -- "$NPK" run -t toy:mem=64 "$T/badaddr.s"
expect 125 "unknown option '--frob'" -- "$NPK" run --frob "$T/exit42.s"
expect 125 "cannot open" -- "$NPK" run -t toy "$T/missing.s"
expect 125 "mem=3 is out of range" -- "$NPK" run -t toy:mem=3 "$T/exit42.s"
expect 125 "bad.s:3:1: error:" -- "$NPK" run -t toy "$T/bad.s"
expect 125 "ELF files are not supported" -- "$NPK" run -t toy /bin/true
expect 125 "no target" -- "$NPK" run "$T/exit42.s"
expect 125 "ELF for machine 62 (x86-64)" -- "$NPK" run /bin/true
head -c 10 /bin/true >"$T/trunc.elf"
expect 125 "truncated ELF" -- "$NPK" run "$T/trunc.elf"
expect 125 "expected SPACE:ADDR:FILE" -- "$NPK" run -t toy --load mem "$T/exit42.s"

# --- backdoor options, stats, trace, timeline ---
printf 'ld r1, 0x100(r0)\nexit r1\n' >"$T/ldexit.s"
printf '\x07\x00\x00\x00' >"$T/seven.bin"
expect 7 "" -- "$NPK" run -t toy --load mem:0x100:"$T/seven.bin" "$T/ldexit.s"
expect 7 "mem:00000100: 07 00 00 00" -- "$NPK" run -t toy --load mem:0x100:"$T/seven.bin" --dump mem:0x100:4 "$T/ldexit.s"
expect 7 "r1     0x00000007" -- "$NPK" run -t toy --load mem:0x100:"$T/seven.bin" --regs "$T/ldexit.s"
expect 125 "outside mem" -- "$NPK" run -t toy:mem=64 --load mem:0x100:"$T/seven.bin" "$T/ldexit.s"
expect 42 "instructions  2" -- "$NPK" run -t toy --stats "$T/exit42.s"
"$NPK" run -t toy --stats=json --stats-output "$T/stats.json" "$T/exit42.s" >/dev/null 2>&1
"$JSON" "$T/stats.json" && ok || bad "--stats=json output is not valid JSON"
grep -qF '"instructions":2' "$T/stats.json" && ok || bad "stats.json lacks the instruction count"
expect 42 "00000004:  08100000  exit r1" -- "$NPK" run -t toy --trace "$T/exit42.s"
"$NPK" run -t toy:mem=256K --timeline "$T/tl.json" "$T/demo.s" >/dev/null 2>&1
"$JSON" "$T/tl.json" && ok || bad "timeline is not valid JSON"
for u in ctl alu mul fpu lsu; do
  grep -qF "\"thread_name\",\"args\":{\"name\":\"$u\"}" "$T/tl.json" && ok || bad "timeline lacks track $u"
done

# target-option shorthands are settings; toy has none of them
expect 125 "unknown setting 'isa_rev'" -- "$NPK" run -t toy --isa-rev rev2 "$T/exit42.s"
expect 125 "unknown setting 'syscalls'" -- "$NPK" run -t toy --no-syscalls "$T/exit42.s"
expect 125 "must not contain a comma" -- "$NPK" run -t toy --fs-root a,b "$T/exit42.s"
# --write over an assembly label
printf 'ld r1, data(r0)\nexit r1\ndata: .word 0\n' >"$T/wr.s"
expect 7 "" -- "$NPK" run -t toy --write data:"$T/seven.bin" "$T/wr.s"
expect 125 "no symbol 'nodata'" -- "$NPK" run -t toy --write nodata:"$T/seven.bin" "$T/wr.s"
expect 125 "expected SYMBOL:FILE" -- "$NPK" run -t toy --write data "$T/wr.s"

# --- rvnpu file sandbox end to end: openat(AT_FDCWD, PATH, O_WRONLY|O_CREAT) -> exit status ---
mkdir -p "$T/fs/root" "$T/fs/outside"
ln -s ../outside/pwn.txt "$T/fs/root/dang"
mkfifo "$T/fs/root/fifo"
printf 'x' >"$T/fs/root/in.txt"
for p in dang fifo in.txt; do
  printf '    addi a0, zero, -100\n    auipc a1, 0\n    addi a1, a1, path - . + 4\n    addi a2, zero, 0x41\n    addi a7, zero, 56\n    ecall\n    addi a7, zero, 93\n    ecall\npath: .asciz "%s"\n' "$p" >"$T/open_$p.s"
done
# -EACCES is 243 as an exit status; the FIFO answers at once, timeout only guards a regression
expect 243 "" -- "$NPK" run -t rvnpu --fs-root "$T/fs/root" "$T/open_dang.s"
[ ! -e "$T/fs/outside/pwn.txt" ] && ok || bad "a dangling link let the guest create a file outside --fs-root"
expect 243 "" -- timeout 10 "$NPK" run -t rvnpu --fs-root "$T/fs/root" "$T/open_fifo.s"
expect 3 "" -- "$NPK" run -t rvnpu --fs-root "$T/fs/root" "$T/open_in.txt.s"

# --- a NUL byte in source is an error with its place, for every target (issue 13.4) ---
printf '\n  ha\000lt\n# more text after the NUL byte\n' >"$T/nul.s"
for t in toy rvnpu opennpu tinytpu pccx; do
  expect 1 "nul.s:2:5: error: NUL byte in source" -- "$NPK" asm -t $t "$T/nul.s" -o "$T/nul.bin"
  expect 125 "nul.s:2:5: error: NUL byte in source" -- "$NPK" run -t $t "$T/nul.s"
done
# in an included file the engine finds it (its caret line shows the NUL as '?')
printf 'li r1, 1\n.include "nul.inc"\nhalt\n' >"$T/incnul.s"
printf 'li r2, 2\nli r3,\0003\n' >"$T/nul.inc"
expect 1 "nul.inc:2:7: error: NUL byte in source" -- "$NPK" asm -t toy "$T/incnul.s" -o "$T/nul.bin"
expect 1 "li r3,?3" -- "$NPK" asm -t toy "$T/incnul.s" -o "$T/nul.bin"
expect 125 "nul.inc:2:7: error: NUL byte in source" -- "$NPK" run -t toy "$T/incnul.s"

# --- an output never replaces its input (issue 13.5) ---
printf '.target toy\nli r1, 3\nexit r1\n' >"$T/prog.bin"
cp "$T/prog.bin" "$T/prog.orig"
expect 2 "the default output $T/prog.bin would overwrite the input $T/prog.bin; give -o FILE" -- "$NPK" asm "$T/prog.bin"
cmp -s "$T/prog.bin" "$T/prog.orig" && ok || bad "asm prog.bin replaced its own source"
expect 2 "would overwrite the input" -- "$NPK" asm "$T/prog.bin" -o "$T/prog.bin"
(cd "$T" && "$NPK" asm ./prog.bin -o prog.bin >"$T/out" 2>&1); s=$?
[ "$s" = 2 ] && grep -qF "would overwrite the input ./prog.bin" "$T/out" && ok || bad "asm ./prog.bin -o prog.bin exited $s"
ln -s prog.bin "$T/link.bin"
expect 2 "would overwrite the input" -- "$NPK" asm "$T/prog.bin" -o "$T/link.bin"
cp "$T/prog.bin" "$T/hard.s"
ln "$T/hard.s" "$T/hard.bin"
expect 2 "the default output $T/hard.bin would overwrite the input $T/hard.s" -- "$NPK" asm "$T/hard.s"
cmp -s "$T/hard.s" "$T/prog.orig" && ok || bad "asm replaced its own source through a hard link"
cmp -s "$T/prog.bin" "$T/prog.orig" && ok || bad "asm replaced its own source through a link"
expect 0 "" -- "$NPK" asm "$T/prog.bin" -o "$T/prog.img"
cp "$T/prog.img" "$T/img.orig"
expect 2 "would overwrite the input" -- "$NPK" disasm -t toy "$T/prog.img" -o "$T/prog.img"
cmp -s "$T/prog.img" "$T/img.orig" && ok || bad "disasm -o replaced its own input"
expect 125 "would overwrite the input" -- "$NPK" run --trace="$T/prog.bin" "$T/prog.bin"
expect 125 "would overwrite the input" -- "$NPK" run --stats-output "$T/prog.bin" "$T/prog.bin"
expect 125 "would overwrite the input" -- "$NPK" run --timeline "$T/prog.bin" "$T/prog.bin"
cmp -s "$T/prog.bin" "$T/prog.orig" && ok || bad "run replaced its own program"
cp "$SRC/examples/tinytpu/xor/xor.net" "$T/net.tt"
expect 2 "the default output $T/net.tt would overwrite the input" -- "$NPK" compile -t tinytpu -f asm "$T/net.tt"
cmp -s "$T/net.tt" "$SRC/examples/tinytpu/xor/xor.net" && ok || bad "compile replaced its own input"
cp "$T/net.tt" "$T/net.hex"
expect 2 "would overwrite the input" -- "$NPK" compile -t tinytpu "$T/net.hex"
expect 2 "would overwrite the input" -- "$NPK" compile -t tinytpu "$T/net.tt" -o "$T/net.tt"
expect 2 "would overwrite the input" -- "$NPK" compile -t tinytpu "$T/net.tt" -o "$T/x.hex" --map "$T/net.tt"
cmp -s "$T/net.tt" "$SRC/examples/tinytpu/xor/xor.net" && ok || bad "compile replaced its own input"

# --- every output is checked: a failed write is an error (issue 13.7) ---
printf 'li r1, 3\nexit r1\n' >"$T/three.s"
expect 1 "npukit: /dev/full: write error: No space left on device" -- "$NPK" asm -t toy "$T/three.s" -o /dev/full
expect 1 "npukit: standard output: write error: No space left on device" -- bash -c '"$0" asm -t toy "$1" -o - >/dev/full' "$NPK" "$T/three.s"
expect 1 "npukit: /dev/full: write error" -- "$NPK" disasm -t toy "$T/prog.img" -o /dev/full
expect 1 "npukit: standard output: write error" -- bash -c '"$0" disasm -t toy "$1" >/dev/full' "$NPK" "$T/prog.img"
expect 1 "npukit: standard output: write error" -- bash -c '"$0" info >/dev/full' "$NPK"
expect 1 "npukit: standard output: write error" -- bash -c '"$0" info -t toy >/dev/full' "$NPK"
expect 1 "npukit: standard output: write error" -- bash -c '"$0" --help >/dev/full' "$NPK"
expect 125 "npukit: /dev/full: write error" -- "$NPK" run -t toy --trace=/dev/full "$T/three.s"
expect 125 "npukit: /dev/full: write error" -- "$NPK" run -t toy --stats-output /dev/full "$T/three.s"
expect 125 "npukit: /dev/full: write error" -- "$NPK" run -t toy --stats=json --stats-output /dev/full "$T/three.s"
expect 125 "npukit: /dev/full: write error" -- "$NPK" run -t toy --timeline /dev/full "$T/three.s"
expect 125 "npukit: standard output: write error" -- bash -c '"$0" run -t toy --dump mem:0:4 "$1" >/dev/full' "$NPK" "$T/three.s"
expect 125 "npukit: standard output: write error" -- bash -c '"$0" run -t toy --regs "$1" >/dev/full' "$NPK" "$T/three.s"
expect 1 "npukit: /dev/full: write error" -- "$NPK" compile -t tinytpu "$SRC/examples/tinytpu/xor/xor.net" -o /dev/full
expect 1 "npukit: /dev/full: write error" -- "$NPK" compile -t tinytpu "$SRC/examples/tinytpu/xor/xor.net" -o "$T/x.hex" --map /dev/full
# the working outputs still work
expect 3 "" -- "$NPK" run -t toy --trace="$T/tr.txt" --stats-output "$T/st.txt" --timeline "$T/tl2.json" "$T/three.s"
grep -qF "exit r1" "$T/tr.txt" && grep -qF "instructions  2" "$T/st.txt" && "$JSON" "$T/tl2.json" && ok || bad "trace, statistics or timeline file wrong"

# --- the commit log (docs/commit-log.md) ---
# sum.s: li, li, li, then 10 x (add, addi, bne), exit: 34 records, 55 the exit status
expect 55 "" -- "$NPK" run -t toy --commit-log "$T/c.log" "$SRC/examples/toy/sum.s"
[ "$(wc -l <"$T/c.log")" = 34 ] && ok || bad "commit log of sum.s: $(wc -l <"$T/c.log") lines, want 34"
[ "$(sed -n 4p "$T/c.log")" = "4 0x0000000c 0x20940000 r1=0x00000001 ; add r1, r1, r2" ] && ok ||
  bad "commit log line 4: '$(sed -n 4p "$T/c.log")'"
[ "$(tail -1 "$T/c.log")" = "34 0x00000018 0x08100000 ; exit r1" ] && ok || bad "commit log last line: '$(tail -1 "$T/c.log")'"
# .jsonl: JSON lines by the name; --commit-log-format overrides it
expect 55 "" -- "$NPK" run -t toy --commit-log "$T/c.jsonl" "$SRC/examples/toy/sum.s"
head -1 "$T/c.jsonl" | grep -qF '{"seq":1,"cycle":0,"pc":"0x00000000","word":"0x10800000","disasm":"li r1, 0","retired":true,"effects":[{"reg":"r1","value":"0x00000000"}]}' &&
  ok || bad "JSON commit log line 1: '$(head -1 "$T/c.jsonl")'"
expect 55 "" -- "$NPK" run -t toy --commit-log "$T/c2.jsonl" --commit-log-format text "$SRC/examples/toy/sum.s"
cmp -s "$T/c.log" "$T/c2.jsonl" && ok || bad "--commit-log-format text did not win over .jsonl"
# '-': the log alone on standard output, the program's output on standard error
"$NPK" run -t toy --commit-log - "$SRC/examples/toy/hello.s" >"$T/c3.log" 2>"$T/c3.err"
grep -qF "Hello, toy!" "$T/c3.err" && ! grep -qF "Hello" "$T/c3.log" && head -1 "$T/c3.log" | grep -q '^1 0x00000000 ' &&
  ok || bad "--commit-log -: the log is not alone on standard output"
expect 125 "--commit-log-format frob: expected text or jsonl" -- "$NPK" run -t toy --commit-log "$T/c.log" --commit-log-format frob "$SRC/examples/toy/sum.s"
expect 125 "--commit-log-format: no --commit-log to write" -- "$NPK" run -t toy --commit-log-format text "$SRC/examples/toy/sum.s"
expect 125 "--trace and --commit-log both name" -- "$NPK" run -t toy --trace="$T/same.log" --commit-log "$T/same.log" "$SRC/examples/toy/sum.s"
expect 125 "npukit: /dev/full: write error" -- "$NPK" run -t toy --commit-log /dev/full "$SRC/examples/toy/sum.s"
# pccx: one record per issued instruction (tests/core/commit/pccx.s derives them), text and jsonl
expect 0 "" -- "$NPK" run -t pccx --commit-log "$T/p.log" "$SRC/tests/core/commit/pccx.s"
cmp -s "$T/p.log" "$SRC/tests/core/commit/pccx.expected" && ok || bad "pccx commit log differs from pccx.expected"
expect 0 "" -- "$NPK" run -t pccx --commit-log "$T/p.jsonl" "$SRC/tests/core/commit/pccx.s"
[ "$(wc -l <"$T/p.jsonl")" = 7 ] && sed -n 4p "$T/p.jsonl" | grep -qF '{"seq":4,"cycle":12,"pc":"0x0000000000000003","word":"0x0004000102808100","disasm":"gemv dst=0x80, src=0x40, size=2, shape=1, findemax, w_scale","retired":true,"effects":[{"reg":"E_MAX","value":"0x41200000"},{"reg":"weight_queue","value":"0x00000000"},{"reg":"queue.gemv","value":"0x00000001"},{"mem":"l2","addr":"0x00000800","size":4,"value":"0x412040d0","bytes":"d0402041"}]}' &&
  ok || bad "pccx JSON commit log line 4: '$(sed -n 4p "$T/p.jsonl")'"
# --commit-log-digest N: writes longer than N bytes as a range and their CRC-32 (the bytes of
# line 3 are 004080bf803e80400000000000000000: zlib.crc32 gives 0x071cc73b)
expect 0 "" -- "$NPK" run -t pccx --commit-log "$T/pd.log" --commit-log-digest 8 "$SRC/tests/core/commit/pccx.s"
sed -n 3p "$T/pd.log" | grep -qF " busy.mem=0x1 l2[0x00000400..0x00000410]=crc32:071cc73b ; memcpy.h2l" &&
  sed -n 4p "$T/pd.log" | grep -qF " l2[0x00000800]=0x412040d0 ; " && ok || bad "--commit-log-digest 8: '$(sed -n 3p "$T/pd.log")'"
expect 0 "" -- "$NPK" run -t pccx --commit-log "$T/pd0.log" --commit-log-digest 0 "$SRC/tests/core/commit/pccx.s"
cmp -s "$T/pd0.log" "$SRC/tests/core/commit/pccx.expected" && ok || bad "--commit-log-digest 0 changed the log"
expect 125 "--commit-log-digest: no --commit-log to write" -- "$NPK" run -t toy --commit-log-digest 8 "$SRC/examples/toy/sum.s"
expect 125 "--commit-log-digest eight is not a number of bytes" -- "$NPK" run -t toy --commit-log - --commit-log-digest eight "$SRC/examples/toy/sum.s"
# tinytpu: a record per clock edge; the XOR step's 92 cycles begin with a reset cycle (no word);
# cycle 3 appends host1 = 0 at wp = 2 and host0 = 0x0100 at wp = 3 (bytes 4..7: 00 00 00 01)
expect 0 "" -- "$NPK" run -t tinytpu --commit-log "$T/tt.log" "$SRC/examples/tinytpu/xor/xor_step.tt"
[ "$(wc -l <"$T/tt.log")" = 92 ] && ok || bad "tinytpu commit log: $(wc -l <"$T/tt.log") lines, want 92"
[ "$(head -1 "$T/tt.log")" = "1 0x0000000000000000 - ; (no instruction)" ] && ok || bad "tinytpu commit log line 1: '$(head -1 "$T/tt.log")'"
[ "$(sed -n 3p "$T/tt.log")" = "3 0x0000000000000002 0x0002000200000000400000000000000018 wp=0x00000004 ub[0x00000004]=0x01000000 ; host0=0x0100 host1=0x0000 ; pathway=0000 leak=0x0080 inv=0x0080" ] &&
  ok || bad "tinytpu commit log line 3: '$(sed -n 3p "$T/tt.log")'"
expect 0 "" -- "$NPK" run -t tinytpu --commit-log "$T/tt.jsonl" "$SRC/examples/tinytpu/xor/xor_step.tt"
sed -n 3p "$T/tt.jsonl" | grep -qF '{"seq":3,"cycle":3,"pc":"0x0000000000000002","word":"0x0002000200000000400000000000000018","disasm":"host0=0x0100 host1=0x0000 ; pathway=0000 leak=0x0080 inv=0x0080","retired":true,"effects":[{"reg":"wp","value":"0x00000004"},{"mem":"ub","addr":"0x00000004","size":4,"value":"0x01000000","bytes":"00000001"}]}' &&
  ok || bad "tinytpu JSON commit log line 3: '$(sed -n 3p "$T/tt.jsonl")'"

# --- --dump and --load are checked before the run (issue 13.8) ---
printf 'li r1, 81\nputc r1\nputc r1\nputc r1\nhalt\n' >"$T/qqq.s"
expect 0 "QQQ" -- "$NPK" run -t toy "$T/qqq.s"
for d in mem:0xfffffffffffffff0:0x20 mem:0x10000:1 mem:0xfffc:8 mem:0:0x10001; do
  expect 125 "npukit: --dump $d: " -- "$NPK" run -t toy:mem=64K --dump $d "$T/qqq.s"
  grep -q "outside mem" "$T/out" && ! grep -q QQQ "$T/out" && ok || bad "--dump $d: ran the program or gave no reason"
done
expect 125 "npukit: --dump nosuch:0:4: toy has no memory 'nosuch' (it has: mem)" -- "$NPK" run -t toy --dump nosuch:0:4 "$T/qqq.s"
expect 125 "npukit: --dump mem:0:zz: COUNT 'zz' is not a number" -- "$NPK" run -t toy --dump mem:0:zz "$T/qqq.s"
expect 125 "npukit: --dump mem:0:0: COUNT is 0" -- "$NPK" run -t toy --dump mem:0:0 "$T/qqq.s"
expect 125 "npukit: --dump mem4: no symbol 'mem4' in the loaded program" -- "$NPK" run -t toy --dump mem4 "$T/qqq.s"
expect 125 "npukit: --dump mem:0:4:f32:x: expected SPACE:ADDR:COUNT[:TYPE] or SYMBOL[:TYPE][:COUNT]" -- "$NPK" run -t toy --dump mem:0:4:f32:x "$T/qqq.s"
grep -q QQQ "$T/out" && bad "a bad --dump let the program run" || ok
expect 0 "mem:0000fffc: 00 00 00 00" -- "$NPK" run -t toy:mem=64K --dump mem:0xfffc:4 "$T/qqq.s"
expect 125 "npukit: --load nosuch:0:$T/seven.bin: toy has no memory 'nosuch'" -- "$NPK" run -t toy --load nosuch:0:"$T/seven.bin" "$T/qqq.s"
expect 125 "npukit: --load mem:0xfffffffffffffffe:$T/seven.bin: 0xfffffffffffffffe + 4 bytes is outside mem" -- "$NPK" run -t toy --load mem:0xfffffffffffffffe:"$T/seven.bin" "$T/qqq.s"
expect 125 "cannot open" -- "$NPK" run -t toy --load mem:0:"$T/missing.bin" "$T/qqq.s"
grep -q QQQ "$T/out" && bad "a bad --load let the program run" || ok

# --- input files: pipes, FIFOs, devices, one reader for all (issue 13) ---
# run reads its program once: through a pipe the program itself runs (it used to read the
# pipe twice and run the empty second reading)
expect 42 "" -- bash -c '"$0" run -t toy <(cat "$1")' "$NPK" "$T/exit42.s"
printf '.target toy\nli r1, 42\nexit r1\n' >"$T/tgt42.s"
expect 42 "" -- bash -c '"$0" run <(cat "$1")' "$NPK" "$T/tgt42.s"
expect 42 "" -- bash -c '"$0" run -t toy - <"$1"' "$NPK" "$T/exit42.s"
expect 7 "" -- bash -c '"$0" run -t toy --load mem:0x100:<(cat "$1") "$2"' "$NPK" "$T/seven.bin" "$T/ldexit.s"
expect 7 "" -- bash -c '"$0" run -t toy --write data:<(cat "$1") "$2"' "$NPK" "$T/seven.bin" "$T/wr.s"
# a FIFO whose writer comes within the 2 s wait works, for run and asm and .include
mkfifo "$T/in.fifo"
(sleep 0.5; cat "$T/exit42.s" >"$T/in.fifo") &
expect 42 "" -- timeout 20 "$NPK" run -t toy "$T/in.fifo"
wait
(sleep 0.5; cat "$T/exit42.s" >"$T/in.fifo") &
expect 0 "" -- timeout 20 "$NPK" asm -t toy "$T/in.fifo" -o "$T/fifo.bin"
wait
cmp -s "$T/fifo.bin" <("$NPK" asm -t toy "$T/exit42.s" -o -) && ok || bad "asm of a FIFO: another image"
printf '.include "in.fifo"\n' >"$T/incfifo.s"
(sleep 0.5; cat "$T/exit42.s" >"$T/in.fifo") &
expect 42 "" -- timeout 20 "$NPK" run -t toy "$T/incfifo.s"
wait
# no writer: a clean error after 2 s, never a hang
start=$SECONDS
expect 1 "npukit: $T/in.fifo: a FIFO with no writer (waited 2 s)" -- timeout 20 "$NPK" asm -t toy "$T/in.fifo" -o "$T/fifo.bin"
[ $((SECONDS - start)) -le 6 ] && ok || bad "a FIFO with no writer took $((SECONDS - start)) s"
expect 1 "cannot read '$T/in.fifo': a FIFO with no writer (waited 2 s)" -- timeout 20 "$NPK" asm -t toy "$T/incfifo.s" -o "$T/fifo.bin"
# devices are refused unread, directories named as such
expect 125 "npukit: /dev/urandom: not a regular file or pipe" -- "$NPK" run -t toy /dev/urandom
expect 1 "npukit: /dev/zero: not a regular file or pipe" -- "$NPK" disasm -t toy /dev/zero
expect 125 "npukit: /dev/zero: not a regular file or pipe" -- "$NPK" run -t toy --load mem:0:/dev/zero "$T/exit42.s"
expect 1 "cannot read '/dev/zero': not a regular file or pipe" -- bash -c 'cd "$1" && printf ".include \"/dev/zero\"\n" >z.s && "$0" asm -t toy z.s -o z.bin' "$NPK" "$T"
mkdir -p "$T/adir"
expect 1 "npukit: $T/adir: Is a directory" -- "$NPK" asm -t toy "$T/adir"
# the cap (1 GiB) holds for a file by its size, before anything is read
truncate -s 1025M "$T/huge.bin"
expect 1 "npukit: $T/huge.bin: larger than the 1 GiB input limit (1074790400 bytes)" -- "$NPK" disasm -t toy "$T/huge.bin"
rm -f "$T/huge.bin"
# compile rejects a NUL byte with its place, like the assemblers (it used to cut the line)
printf 'lanes 2\nlayers 2\0 2 1\n' >"$T/nul.net"
expect 1 "nul.net:2:9: error: NUL byte in source" -- "$NPK" compile -t tinytpu "$T/nul.net" -o "$T/nul.tt"
# a 64 MiB file of zeros is one line: the NUL is reported at once, with a short excerpt
truncate -s 64M "$T/zeros.bin"
start=$SECONDS
expect 1 "zeros.bin:1:1: error: NUL byte in source" -- timeout 20 "$NPK" asm -t toy "$T/zeros.bin" -o "$T/zeros.out"
[ $((SECONDS - start)) -le 5 ] && [ "$(wc -c <"$T/out")" -lt 1000 ] && ok || bad "NUL in 64 MiB of zeros: $((SECONDS - start)) s, $(wc -c <"$T/out") bytes of message"
rm -f "$T/zeros.bin"

# --- run input/output (issue 14): '-' is standard output, JSON statistics alone on standard
# output with how the run ended, outputs checked against each other, typed --load/--write/--dump
mkdir -p "$T/dash"
# '-' is standard output for every output option, never a file named '-'
expect 42 "00000004:  08100000  exit r1" -- bash -c 'cd "$1" && "$0" run -t toy --trace=- exit42.s 2>/dev/null' "$NPK" "$T"
[ ! -e "$T/-" ] && ok || bad "--trace=- wrote a file named '-'"
(cd "$T" && "$NPK" run -t toy:mem=256K --timeline - demo.s >"$T/tl_stdout.json" 2>/dev/null)
"$JSON" "$T/tl_stdout.json" && ok || bad "--timeline - did not write one JSON document to standard output"
[ ! -e "$T/-" ] && ok || bad "--timeline - wrote a file named '-'"
expect 42 "instructions  2" -- bash -c 'cd "$1" && "$0" run -t toy --stats-output - exit42.s 2>/dev/null' "$NPK" "$T"
[ ! -e "$T/-" ] && ok || bad "--stats-output - wrote a file named '-'"
expect 0 "# memory map" -- bash -c 'cd "$1" && "$0" compile -t tinytpu "$2" -o x.hex --map - 2>/dev/null' "$NPK" "$T" "$SRC/examples/tinytpu/xor/xor.net"
[ ! -e "$T/-" ] && ok || bad "compile --map - wrote a file named '-'"
expect 0 "       0:  10000000  li r0, 0" -- bash -c 'cd "$1" && "$0" disasm -t toy -o - demo.bin' "$NPK" "$T"
(cd "$T" && "$NPK" asm -t toy -o - demo.s | cmp -s - demo.bin) && ok || bad "asm -o - did not write the image to standard output"
[ ! -e "$T/-" ] && ok || bad "asm or disasm -o - wrote a file named '-'"
expect 42 "mem:00000000: 2a 00 80 10" -- bash -c 'cd "$1" && "$0" run -t toy --dump mem:0:4 --dump-file - exit42.s' "$NPK" "$T"
[ ! -e "$T/-" ] && ok || bad "--dump-file - wrote a file named '-'"
expect 2 "--map - and the output both name standard output" -- "$NPK" compile -t tinytpu "$SRC/examples/tinytpu/xor/xor.net" -o - --map -
expect 0 '$timescale 1ns $end' -- bash -c 'cd "$1" && "$0" run -t tinytpu:vcd=- "$2" 2>/dev/null' "$NPK" "$T" "$SRC/tests/bad/inputs/tinytpu_ok.tt"
[ ! -e "$T/-" ] && ok || bad "vcd=- wrote a file named '-'"

# --stats=json: one JSON document alone on standard output (the program's output goes to
# standard error), with how the run ended and the full exit value
printf 'li r1, 81\nputc r1\nli r1, 300\nexit r1\n' >"$T/q300.s"
"$NPK" run -t toy --stats=json "$T/q300.s" >"$T/st.out" 2>"$T/st.err"; s=$?
[ "$s" = 44 ] && ok || bad "exit 300 gave status $s, want 44 (300 & 0xff)"
"$JSON" "$T/st.out" && ok || bad "--stats=json: standard output is not one JSON document"
grep -qF '"stop":{"reason":"exit","exit_code":300,' "$T/st.out" && ok || bad "--stats=json lacks the stop reason or the full exit value 300: $(cat "$T/st.out")"
grep -qF '"instructions":4' "$T/st.out" && ok || bad "--stats=json lacks the instruction count"
grep -q Q "$T/st.out" && bad "guest output on standard output with --stats=json" || ok
grep -q Q "$T/st.err" && ok || bad "guest output lost with --stats=json"
expect 44 "  stop          exit, exit value 300 (status 44)" -- "$NPK" run -t toy --stats "$T/q300.s"
expect 124 "  stop          budget: " -- "$NPK" run -t toy --max-insns 10 --stats "$T/loop.s"
printf 'li a0, -1\nli a7, 93\necall\n' >"$T/rvexit.s"
"$NPK" run -t rvnpu --stats=json "$T/rvexit.s" >"$T/st.out" 2>/dev/null; s=$?
[ "$s" = 255 ] && grep -qF '"reason":"exit","exit_code":-1,' "$T/st.out" && ok || bad "rvnpu exit(-1): status $s, $(cat "$T/st.out")"
"$NPK" run -t toy --max-insns 100 --stats=json "$T/loop.s" >"$T/st.out" 2>/dev/null; s=$?
[ "$s" = 124 ] && grep -qF '"stop":{"reason":"budget"' "$T/st.out" && "$JSON" "$T/st.out" && ok || bad "budget stop: status $s, $(cat "$T/st.out")"
"$NPK" run -t toy --stats=json --stats-output "$T/st.json" "$T/illegal.s" >/dev/null 2>&1; s=$?
[ "$s" = 126 ] && grep -qF '"stop":{"reason":"fault","pc":4,"message":"illegal instruction' "$T/st.json" && ok || bad "fault stop: status $s, $(cat "$T/st.json")"

# outputs are checked before the run: one file twice, or standard output twice, is refused
expect 125 "--trace and --stats-output both name ./twice.txt" -- bash -c 'cd "$1" && "$0" run -t toy --trace=twice.txt --stats-output ./twice.txt qqq.s' "$NPK" "$T"
grep -q QQQ "$T/out" && bad "a clash of outputs let the program run" || ok
[ ! -e "$T/twice.txt" ] && ok || bad "a refused run created its output"
expect 125 "--trace and --stats-output both write standard output (--stats=json does by default)" -- "$NPK" run -t toy --trace=- --stats=json "$T/qqq.s"
expect 125 "--stats-output and --timeline both write standard output" -- "$NPK" run -t toy --stats-output - --timeline - "$T/qqq.s"
expect 125 "--dump-file $T/two.npy: a .npy file holds one array: give one --dump (there are 2)" -- "$NPK" run -t toy --dump mem:0:4 --dump mem:4:4 --dump-file "$T/two.npy" "$T/qqq.s"

# typed input and output. 1.5 = f32 0x3fc00000 (bytes 00 00 c0 3f), -2 = 0xc0000000,
# 0.1 = 0x3dcccccd; the program exits with the low byte of the first word (0)
printf 'ld r1, data(r0)\nexit r1\ndata: .word 0, 0, 0, 0\n' >"$T/data4.s"
printf 'halt\n' >"$T/exit0.s"
printf '1.5, -2\n# a comment\n300 0.1\n' >"$T/f.txt"
expect 0 "data:00000008: 1.5 -2 300 0.1" -- "$NPK" run -t toy --write data:f32:"$T/f.txt" --dump data:f32:4 "$T/data4.s"
expect 0 "data:00000008: 00 00 c0 3f 00 00 00 c0" -- "$NPK" run -t toy --write data:f32:"$T/f.txt" --dump data:u8:8 --dump data:8 "$T/data4.s"
grep -qF "data:00000008: 0 0 192 63 0 0 0 192" "$T/out" && ok || bad "--dump data:u8:8: $(cat "$T/out")"
# bf16 halves of 0x3fc00000: 0x0000 (0) and 0x3fc0 (1.5)
expect 0 "data:00000008: 0 1.5" -- "$NPK" run -t toy --write data:f32:"$T/f.txt" --dump data:bf16:2 "$T/data4.s"
# q8.8: 1.5 x 256 = 384 = 0x0180, -0.25 x 256 = -64 = 0xffc0
printf '1.5 -0.25\n' >"$T/q.txt"
expect 0 "mem:00000100: 80 01 c0 ff" -- "$NPK" run -t toy --load mem:0x100:q8.8:"$T/q.txt" --dump mem:0x100:4 "$T/exit0.s"
grep -qF "mem:00000100: 1.5 -0.25" <("$NPK" run -t toy --load mem:0x100:q8.8:"$T/q.txt" --dump mem:0x100:2:q8.8 "$T/exit0.s") && ok || bad "q8.8 dump"
# e4m3: 448 = 0 1111 110 = 0x7e, -2^-9 (smallest subnormal) = 0x81, printed as the shortest
# decimal that reads back: -0.002 (0.002 / 2^-9 = 1.02 rounds to 1)
printf '448 -0.001953125\n' >"$T/e.txt"
expect 0 "mem:00000100: 7e 81" -- "$NPK" run -t toy --load mem:0x100:e4m3:"$T/e.txt" --dump mem:0x100:2 "$T/exit0.s"
expect 0 "mem:00000100: 448 -0.002" -- "$NPK" run -t toy --load mem:0x100:e4m3:"$T/e.txt" --dump mem:0x100:2:e4m3 "$T/exit0.s"
# bad numbers and types stop the run before it starts
expect 125 "npukit: --write data:i8:$T/f.txt: $T/f.txt:1: '1.5' is not an integer (type i8)" -- "$NPK" run -t toy --write data:i8:"$T/f.txt" "$T/qqq.s"
grep -q QQQ "$T/out" && bad "a bad typed --write let the program run" || ok
printf '1\n2\n256\n' >"$T/big.txt"
expect 125 "$T/big.txt:3: 256 is out of range for u8 (0 .. 255)" -- "$NPK" run -t toy --load mem:0x100:u8:"$T/big.txt" "$T/qqq.s"
expect 125 "npukit: --dump mem:0:4:f64: unknown type 'f64' (types: i8, u8," -- "$NPK" run -t toy --dump mem:0:4:f64 "$T/qqq.s"
expect 125 "symbol 'data' has no size (an assembly label); give a type and a count: --dump data:u8:COUNT" -- "$NPK" run -t toy --dump data "$T/data4.s"
expect 125 "npukit: --dump nosuch:f32: no symbol 'nosuch' in the loaded program" -- "$NPK" run -t toy --dump mem:0:4:f32 --dump nosuch:f32 "$T/data4.s"
expect 125 "0xfff8 + 16 bytes is outside mem" -- "$NPK" run -t toy --dump mem:0xfff8:4:f32 "$T/data4.s"
# .npy: '<i2' [1, -2, 300] (10 bytes of magic, version and length 118, the 57-byte dict,
# 60 blanks and a newline: 128 bytes), then 01 00 fe ff 2c 01
{ printf '\223NUMPY\001\000\166\000'; printf "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }"
  printf '%60s\n' ''; printf '\001\000\376\377\054\001'; } >"$T/a.npy"
expect 0 "mem:00000100: 01 00 fe ff 2c 01" -- "$NPK" run -t toy --load mem:0x100:"$T/a.npy" --dump mem:0x100:6 "$T/exit0.s"
expect 0 "mem:00000100: 1 -2 300" -- "$NPK" run -t toy --load mem:0x100:"$T/a.npy" --dump mem:0x100:3:i16 "$T/exit0.s"
# as i32: each element widened (300 = 0x12c)
expect 0 "mem:00000100: 01 00 00 00 fe ff ff ff 2c 01 00 00" -- "$NPK" run -t toy --load mem:0x100:i32:"$T/a.npy" --dump mem:0x100:12 "$T/exit0.s"
expect 125 "element 2: 300 is out of range for i8" -- "$NPK" run -t toy --load mem:0x100:i8:"$T/a.npy" "$T/qqq.s"
# a dump to a .npy is the same file back
expect 0 "" -- "$NPK" run -t toy --load mem:0x100:"$T/a.npy" --dump mem:0x100:3:i16 --dump-file "$T/back.npy" "$T/exit0.s"
cmp -s "$T/a.npy" "$T/back.npy" && ok || bad "--dump-file back.npy differs from the .npy loaded"
# a text dump file
expect 0 "" -- "$NPK" run -t toy --load mem:0x100:"$T/a.npy" --dump mem:0x100:3:i16 --dump-file "$T/dump.txt" "$T/exit0.s"
[ "$(cat "$T/dump.txt")" = "mem:00000100: 1 -2 300" ] && ok || bad "--dump-file dump.txt: $(cat "$T/dump.txt")"
# big-endian .npy: refused with the way out
sed 's/<i2/>i2/' "$T/a.npy" >"$T/be.npy"
expect 125 "dtype '>i2' is big-endian; save it little-endian (arr.astype('<i2'))" -- "$NPK" run -t toy --load mem:0x100:"$T/be.npy" "$T/qqq.s"
# --regs: rvnpu f registers as numbers too (0x3fc00000 = 1.5)
printf 'li a0, 0x3fc00000\nfmv.w.x fa0, a0\nli a0, 0\nli a7, 93\necall\n' >"$T/freg.s"
expect 0 "fa0    0x3fc00000 1.5" -- "$NPK" run -t rvnpu --regs "$T/freg.s"
# --regs: the NPU state too, and a register wider than 64 bits as one number on its own line
expect 0 "acc    0x0000000000000000" -- "$NPK" run -t rvnpu --regs "$T/freg.s"
printf "nop\n" >"$T/onop.s"
expect 0 "vr1    0x00000000000000000000000000000000" -- "$NPK" run -t opennpu:K=4 --regs "$T/onop.s"
printf "nop\n" >"$T/tnop.tt"
expect 0 "pe[1][1].swout 0x0" -- "$NPK" run -t tinytpu --regs "$T/tnop.tt"

# --- rvnpu firmware (when the firmware toolchain built it) ---
FW=$(dirname "$NPK")/firmware
if [ -f "$FW/hello.elf" ]; then
  expect 0 "hello from rvnpu firmware (write)" -- "$NPK" run -t rvnpu "$FW/hello.elf"
  expect 0 "hello from rvnpu firmware (write)" -- "$NPK" run "$FW/hello.elf"
  expect 0 "80000000:  80100137  lui sp, 0x80100" -- "$NPK" disasm "$FW/hello.elf"
  expect 0 "; section .text at 0x80000000" -- "$NPK" disasm -t rvnpu "$FW/hello.elf"
  n=$(stat -c %s "$FW/hello.elf")
  "$NPK" disasm "$FW/hello.elf" | tail -1 | grep -q "\.byte\|  [a-z]" && ok || bad "disasm of an ELF shows no last line"
  head -c 100 "$FW/hello.elf" >"$T/trunc2.elf"
  expect 1 "truncated" -- "$NPK" disasm -t rvnpu "$T/trunc2.elf"
  expect 125 "truncated" -- "$NPK" run -t rvnpu "$T/trunc2.elf"
  expect 125 "ELF class 2 is not ELF32 (target rvnpu)" -- "$NPK" run -t rvnpu /bin/true
  expect 1 "ELF files are not supported" -- "$NPK" disasm -t toy "$FW/hello.elf"
fi
# --dump SYMBOL of an ELF: the symbol's size gives the count; the dumped counter is the one
# the program prints
if [ -f "$FW/fpu_test.elf" ]; then
  "$NPK" run --dump checks:u32 --dump failures:u32 --dump failures "$FW/fpu_test.elf" >"$T/fw.out" 2>&1
  n=$(sed -n 's/.*fpu_test: \([0-9]*\) checks.*/\1/p' "$T/fw.out")
  [ -n "$n" ] && grep -qE "^checks:[0-9a-f]{8}: $n\$" "$T/fw.out" && grep -qE "^failures:[0-9a-f]{8}: 0\$" "$T/fw.out" &&
    grep -qE "^failures:[0-9a-f]{8}: 00 00 00 00\$" "$T/fw.out" && ok || bad "--dump SYMBOL of fpu_test.elf: $(cat "$T/fw.out")"
  expect 125 "npukit: --dump checks:u32:2: 2 x u32 (4 bytes each) do not fit symbol 'checks' (4 bytes)" -- "$NPK" run --dump checks:u32:2 "$FW/fpu_test.elf"
fi
if [ -f "$FW/mlp.elf" ]; then
  expect 125 "symbol 'main.msg' is 58 bytes, not a whole number of f32 (4 bytes)" -- "$NPK" run --dump main.msg:f32 "$FW/mlp.elf"
fi

# --- demo ---
expect 0 "output as expected" -- "$NPK" demo
expect 0 "host speed" -- "$NPK" demo toy
expect 2 "no demo for 'nosuch'" -- "$NPK" demo nosuch
if "$NPK" demo --help | grep -q '^  rvnpu'; then
  expect 0 "outputs identical" -- "$NPK" demo rvnpu
  expect 0 "NPU vs plain:" -- "$NPK" demo rvnpu
fi

finish

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

# --- rvnpu firmware (when the firmware toolchain built it) ---
FW=$(dirname "$NPK")/firmware
if [ -f "$FW/hello.elf" ]; then
  expect 0 "hello from rvnpu firmware (write)" -- "$NPK" run -t rvnpu "$FW/hello.elf"
  expect 0 "hello from rvnpu firmware (write)" -- "$NPK" run "$FW/hello.elf"
  expect 0 "80000000:  80100137  lui sp, 0x80100" -- "$NPK" disasm "$FW/hello.elf"
  expect 0 "; segment at 0x80000000" -- "$NPK" disasm -t rvnpu "$FW/hello.elf"
  n=$(stat -c %s "$FW/hello.elf")
  "$NPK" disasm "$FW/hello.elf" | tail -1 | grep -q "\.byte\|  [a-z]" && ok || bad "disasm of an ELF shows no last line"
  head -c 100 "$FW/hello.elf" >"$T/trunc2.elf"
  expect 1 "truncated" -- "$NPK" disasm -t rvnpu "$T/trunc2.elf"
  expect 125 "truncated" -- "$NPK" run -t rvnpu "$T/trunc2.elf"
  expect 125 "ELF class 2 is not ELF32 (target rvnpu)" -- "$NPK" run -t rvnpu /bin/true
  expect 1 "ELF files are not supported" -- "$NPK" disasm -t toy "$FW/hello.elf"
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

#!/usr/bin/env bash
# The npukit command with rvnpu program files as users bring them: an odd-sized raw image
# (objcopy -O binary), ELF e_flags rvnpu cannot honour, disassembly of an ELF by sections and
# symbols (or by segments without section headers), and assembler warnings for NPU mnemonics
# of the other revision.
# usage: rvnpu_programs.sh NPUKIT SOURCE_DIR
set -u
NPK=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"
FW=$(dirname "$NPK")/firmware

# --- raw images of any size: addi a0, zero, 7; addi a7, zero, 93; ecall cut to its first
# byte (9 bytes): loaded padded with zero bytes
printf '\x13\x05\x70\x00\x93\x08\xd0\x05\x73' >"$T/exit7.bin"
expect 7 "" -- "$NPK" run -t rvnpu "$T/exit7.bin"
expect 0 "       8:  .byte 0x73" -- "$NPK" disasm -t rvnpu "$T/exit7.bin"
expect 0 "       4:  05d00893  addi a7, zero, 93" -- "$NPK" disasm -t rvnpu "$T/exit7.bin"
# toy words are still whole words
expect 1 "9 bytes is not a whole number of 4-byte words (1 trailing bytes)" -- \
  "$NPK" disasm -t toy "$T/exit7.bin"

# --- assembler: an NPU instruction of the other revision is a warning
printf 'npu.fvadd a0, a1, a2\nnpu.vmac a0, a1, a2\n' >"$T/rev.s"
expect 0 "rev.s:1:1: warning: 'npu.fvadd' is a rev2 instruction; with isa_rev=seed its word is an illegal instruction" -- \
  "$NPK" asm -t rvnpu "$T/rev.s" -o "$T/rev.bin"
expect 0 "" -- "$NPK" asm -t rvnpu:isa_rev=rev2 "$T/rev.s" -o "$T/rev.bin"
grep -q warning "$T/out" && bad "rev2 source warned about with isa_rev=rev2" || ok

if [ -f "$FW/hello.elf" ]; then
  # --- disassembly by sections, with labels
  expect 0 "; section .text at 0x80000000" -- "$NPK" disasm "$FW/hello.elf"
  expect 0 "80000000 <_start>:" -- "$NPK" disasm "$FW/hello.elf"
  grep -q "^80000000:  80100137  lui sp, 0x80100$" "$T/out" && ok || bad "no first word"
  m=$(grep " <main>:$" "$T/out" | cut -d' ' -f1)
  [ -n "$m" ] && grep -A1 " <main>:$" "$T/out" | tail -1 | grep -q "^$m:  " && ok ||
    bad "the label <main> is not followed by the word at its address"
  grep -q "; section .rodata" "$T/out" && bad "a data section shown without -D" || ok
  grep -q '<\$' "$T/out" && bad "a mapping symbol shown as a label" || ok
  expect 0 "; section .rodata at 0x" -- "$NPK" disasm -D "$FW/hello.elf"
  expect 0 "; section .text at 0x80000000" -- "$NPK" disasm --all-sections "$FW/hello.elf"
  expect 0 "lui sp, 0x80100" -- "$NPK" disasm -s "$FW/hello.elf"
  grep -q "<\|^;\|:  " "$T/out" && bad "-s output has labels, headings or addresses" || ok

  # --- without section headers (e_shoff = 0, e_shnum = 0): by program headers
  cp "$FW/hello.elf" "$T/nosec.elf"
  printf '\0\0\0\0' | dd of="$T/nosec.elf" bs=1 seek=32 conv=notrunc status=none
  printf '\0\0\0\0' | dd of="$T/nosec.elf" bs=1 seek=48 conv=notrunc status=none
  expect 0 "; segment at 0x80000000" -- "$NPK" disasm "$T/nosec.elf"
  grep -q "<_start>" "$T/out" && bad "labels without a symbol table" || ok
  expect 0 "hello from rvnpu firmware" -- "$NPK" run "$T/nosec.elf"

  # --- e_flags: RVC (0x1) and a double-float ABI (0x4): warned about, run anyway
  cp "$FW/hello.elf" "$T/rvc.elf"
  printf '\x05\0\0\0' | dd of="$T/rvc.elf" bs=1 seek=36 conv=notrunc status=none
  expect 0 "npukit: warning: $T/rvc.elf: e_flags 0x5: EF_RISCV_RVC: the code may use compressed" -- \
    "$NPK" run "$T/rvc.elf"
  grep -q "npukit: warning: $T/rvc.elf: e_flags 0x5: double-float ABI (ilp32d)" "$T/out" && ok ||
    bad "no double-float warning from run"
  grep -q "hello from rvnpu firmware" "$T/out" && ok || bad "the flagged ELF did not run"
  expect 0 "npukit disasm: $T/rvc.elf: warning: e_flags 0x5: EF_RISCV_RVC" -- \
    "$NPK" disasm "$T/rvc.elf"
  expect 0 "" -- "$NPK" run "$FW/hello.elf"
  grep -q "warning" "$T/out" && bad "warning for an ilp32f ELF" || ok
fi
finish

#!/bin/sh
# usage: same_image.sh NPUKIT A.elf B.elf
# Passes when the two ELFs load the same bytes at the same addresses (as `npukit disasm -D`
# lists them: every allocated section, word by word), whatever their symbols or debug info
# (the symbol labels of the listing are left out of the comparison).
set -eu
npukit=$1 a=$2 b=$3
ta=$(mktemp) tb=$(mktemp)
trap 'rm -f "$ta" "$tb"' EXIT
"$npukit" disasm -D "$a" | grep -v '^ *[0-9a-f]* <.*>:$' > "$ta"
"$npukit" disasm -D "$b" | grep -v '^ *[0-9a-f]* <.*>:$' > "$tb"
if ! cmp -s "$ta" "$tb"; then
  echo "$a and $b load different images:" >&2
  diff "$ta" "$tb" | head -20 >&2
  exit 1
fi
echo "$a and $b load the same image ($(wc -l < "$ta") lines of disassembly)"

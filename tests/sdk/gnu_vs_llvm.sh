#!/usr/bin/env bash
# The rvnpu SDK with the GNU toolchain: build example firmware by hand exactly as
# sdk/rvnpu/README.md says, run it on npukit, and compare its output and exit status with the
# clang/ld.lld build made by CMake. Both toolchains must give the same bytes (issue 3).
# usage: gnu_vs_llvm.sh NPUKIT FIRMWARE_DIR SOURCE_DIR
set -u
NPK=$1 FW=$2 SRC=$3
SDK=$SRC/sdk/rvnpu
GCC=$(command -v riscv64-unknown-elf-gcc || command -v riscv64-elf-gcc) || {
  echo "FAIL: riscv64-unknown-elf-gcc not found: install the Debian package gcc-riscv64-unknown-elf" >&2
  exit 1
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CFLAGS="-march=rv32imf -mabi=ilp32f -O2 -g -Wall -Wextra -nostdlib -ffreestanding -I$SDK"
pass=0 fail=0
for prog in hello fpu_test npu_tour; do
  objs=()
  for f in "$SDK/crt0.S" "$SDK/syscalls.c" "$SDK/mem.c" "$SRC/examples/rvnpu/$prog.c"; do
    o="$T/$prog-$(basename "$f").o"
    "$GCC" $CFLAGS -c "$f" -o "$o" || { echo "FAIL: compiling $f" >&2; fail=$((fail + 1)); continue 2; }
    objs+=("$o")
  done
  if ! "$GCC" -march=rv32imf -mabi=ilp32f -nostdlib -T "$SDK/link.ld" -Wl,--no-warn-rwx-segments \
       "${objs[@]}" -o "$T/$prog.elf" 2>"$T/ld.err"; then
    # older binutils have no --no-warn-rwx-segments (the README's note)
    "$GCC" -march=rv32imf -mabi=ilp32f -nostdlib -T "$SDK/link.ld" "${objs[@]}" -o "$T/$prog.elf" ||
      { echo "FAIL: linking $prog" >&2; fail=$((fail + 1)); continue; }
  fi
  "$NPK" run -t rvnpu "$T/$prog.elf" >"$T/gnu.out" 2>&1; gs=$?
  "$NPK" run -t rvnpu "$FW/$prog.elf" >"$T/llvm.out" 2>&1; ls=$?
  if [ "$gs" = "$ls" ] && [ "$gs" = 0 ] && cmp -s "$T/gnu.out" "$T/llvm.out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $prog: GNU build exit $gs, clang build exit $ls; output diff:" >&2
    diff "$T/gnu.out" "$T/llvm.out" | head -20 >&2
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

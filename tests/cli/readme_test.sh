#!/usr/bin/env bash
# The README's commands, run as written: every line of the CLI tour (in a scratch directory
# holding copies of examples/ and models/ and links to the build and include directories, as
# if run from the top of the repository), and the library section's link commands on its C
# example. A tour line must exit 0 (or the status its comment gives: "exit 124"), print what
# its comment says it prints ("prints 5133", "a warning"), finish in 60 s and leave no file
# over 16 MiB; a line whose firmware was not built (no riscv32 toolchain) is skipped. In the
# sanitizer build (SANITIZE=ON) the benchmark lines are skipped (speed is their point, and
# they take minutes there) and the link commands get the sanitizer flags the library needs.
# usage: readme_test.sh SOURCE_DIR BUILD_DIR CC [SANITIZE]
set -u
SRC=$1 BUILD=$2 CC=$3 SANITIZE=${4:-OFF}
[ "$SANITIZE" = ON ] && CC="$CC -fsanitize=address,undefined"
export CC
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"
W=$T/repo
mkdir -p "$W"
cp -r "$SRC/examples" "$SRC/models" "$W/"
ln -s "$BUILD" "$W/build"
ln -s "$SRC/include" "$W/include"

# The lines of the ```sh blocks between two headings, continuation lines joined.
sh_lines() {
  awk -v from="$1" -v to="$2" '
    $0 == from { sec = 1; next }
    $0 == to { sec = 0 }
    sec && /^```sh/ { blk = 1; next }
    sec && /^```/ { blk = 0; next }
    sec && blk {
      if (sub(/\\$/, "")) { acc = acc $0; next }
      print acc $0; acc = ""
    }' "$SRC/README.md"
}

# --- the tour ---
n=0 skipped=0
while IFS= read -r line; do
  case $line in '' | '#'* | 'B='*) continue ;; esac
  cmd=$(printf '%s' "$line" | sed 's/[[:space:]]\{2,\}#[[:space:]].*$//')
  note=${line#"$cmd"}
  want=0
  [[ $note =~ exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}
  pat=
  [[ $note =~ prints\ ([0-9]+) ]] && pat=${BASH_REMATCH[1]}
  [[ $note =~ warning ]] && pat="warning:"
  fw=$(printf '%s' "$cmd" | grep -o 'build/firmware/[A-Za-z0-9_]*\.elf' | head -1)
  if [ -n "$fw" ] && [ ! -f "$BUILD/${fw#build/}" ]; then
    skipped=$((skipped + 1))
    continue
  fi
  if [ "$SANITIZE" = ON ] && [[ $cmd == build/bench/* ]]; then
    skipped=$((skipped + 1))
    continue
  fi
  n=$((n + 1))
  start=$(date +%s)
  (cd "$W" && B=build/npukit timeout 60 bash -c "$cmd") >"$T/out" 2>&1 </dev/null
  got=$?
  secs=$(($(date +%s) - start))
  if [ "$got" != "$want" ]; then
    bad "tour: '$cmd' -> exit $got, want $want"; sed 's/^/    /' "$T/out" | head -8 >&2
  elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$T/out"; then
    bad "tour: '$cmd' -> output lacks '$pat'"; sed 's/^/    /' "$T/out" | head -8 >&2
  else
    ok
  fi
  big=$(find "$W" -type f -size +16M -printf '%P (%s bytes) ')
  [ -z "$big" ] && ok || { bad "tour: '$cmd' ($secs s) wrote $big"; find "$W" -type f -size +16M -delete; }
  cp "$T/out" "$T/out.$n"
done < <(sh_lines "## A tour of the CLI" "## The library")
[ "$n" -ge 40 ] && ok || bad "tour: only $n command lines found in README.md"

# --- what the tour's outputs say ---
# the GEMM generator and `npukit run --stats` give MMA utilisation in the same unit (per
# mille, rounded down) and the same value for the same 64^3 program
(cd "$W" && build/examples/opennpu/gemm/onpu-gemm --run 64 64 64) >"$T/gemm" 2>&1
(cd "$W" && build/npukit run -t opennpu --load mem:0:g.mem --stats g.s) >"$T/stats" 2>&1
u1=$(sed -n 's/.*MMA utilisation \([0-9]*\) per mille.*/\1/p' "$T/gemm")
u2=$(sed -n 's/^ *mma_util_permille \([0-9]*\)$/\1/p' "$T/stats")
[ -n "$u1" ] && [ "$u1" = "$u2" ] && ok ||
  bad "MMA utilisation: onpu-gemm says '${u1:-no per mille figure}', --stats says '${u2:-none}'"
grep -Eq "utilisation [0-9.]+ ?%" "$T/gemm" && bad "onpu-gemm gives MMA utilisation in percent" || ok
expect 0 "instruction word: one 130-bit control word per cycle" -- "$BUILD/npukit" info -t tinytpu
"$BUILD/npukit" info -t tinytpu | grep -q "0 bytes" && bad "info -t tinytpu: 0-byte instructions" || ok

# --- the library: the C example, linked with each documented command ---
{
  printf '#include <stdio.h>\n#include "npukit/npukit.h"\nint main(void)\n{\n'
  awk '/^## The library/ { sec = 1 } /^## Layout/ { sec = 0 }
       sec && /^```c/ { n++; if (n == 1) { blk = 1; next } }
       blk && /^```/ { blk = 0 }
       blk' "$SRC/README.md"
  printf '    printf("exit %%lld\\n", (long long)stop.exit_code);\n    return 0;\n}\n'
} >"$W/prog.c"
printf 'li r1, 42\nexit r1\n' >"$W/prog.s"
links=0
while IFS= read -r line; do
  case $line in 'cc '*) ;; *) continue ;; esac
  links=$((links + 1))
  cmd=$(printf '%s' "$line" | sed 's/[[:space:]]\{2,\}#[[:space:]].*$//')
  rm -f "$W/prog"
  (cd "$W" && bash -c "${cmd/#cc /\$CC }") >"$T/out" 2>&1 && ok ||
    { bad "link: '$cmd' failed"; sed 's/^/    /' "$T/out" | head -8 >&2; continue; }
  expect 0 "exit 42" -- bash -c "cd '$W' && ./prog"
done < <(sh_lines "## The library" "### Install and embed")  # installed use: tests/install
[ "$links" = 2 ] && ok || bad "library: $links cc command lines in README.md, want 2 (static, shared)"

echo "$n tour lines run, $skipped skipped (firmware not built, or benchmarks under sanitizers)"
finish

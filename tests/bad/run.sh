#!/usr/bin/env bash
# The bad-input catalogue (issue 13): runs every case of tests/bad/cases.txt (and, with
# --pending, tests/bad/pending.txt: contracts not implemented yet) against the npukit command
# and checks its exit status, a fragment of its message on standard error, and that it neither
# crashed, hung nor printed a sanitizer report.
#
# usage: run.sh NPUKIT SOURCE_DIR FIRMWARE_DIR [--pending | --pending-only] [-v] [NAME...]
#   FIRMWARE_DIR  where the rvnpu firmware ELFs are (build/firmware; '-' or a missing
#                 directory: the cases that need one are skipped)
#   --pending     also run tests/bad/pending.txt; --pending-only: only that
#   NAME...       run only the cases with these names
#   -v       show the output of failed and passed cases
#
# Manifest lines: NAME | STATUS[ maxrss=MB] | FRAGMENT | COMMAND   ('#' starts a comment line)
#   STATUS    the expected exit status (S1,S2: either); maxrss=MB also bounds the peak resident memory
#             (checked when /usr/bin/time is available)
#   FRAGMENT  a fixed string that must appear on standard error (empty: not checked)
#   COMMAND   run by bash with a timeout, after these replacements:
#     @NPUKIT@  the npukit binary           @DIR@  tests/bad/inputs
#     @SRC@     the source tree             @TMP@  a scratch directory with generated inputs
#     @FW@      the rvnpu firmware directory (a case naming a missing @FW@ file is skipped)
#     @MEMCAP@  a memory cap for the rest of the command (ulimit -v, or the allocator limit
#               of a sanitizer build, where ulimit -v cannot be used)
set -u
usage="usage: run.sh NPUKIT SOURCE_DIR FIRMWARE_DIR [--pending|--pending-only] [-v] [NAME...]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
NPK=$1 SRC=$2 FW=$3
shift 3
[ -d "$FW" ] || FW=""
manifests=("$SRC/tests/bad/cases.txt")
verbose=0 only=()
for a in "$@"; do
  case $a in
    --pending) manifests+=("$SRC/tests/bad/pending.txt") ;;
    --pending-only) manifests=("$SRC/tests/bad/pending.txt") ;;
    -v) verbose=1 ;;
    *) only+=("$a") ;;
  esac
done
abs() { (cd "$(dirname "$1")" && printf '%s/%s' "$(pwd)" "$(basename "$1")"); }
NPK=$(abs "$NPK"); SRC=$(cd "$SRC" && pwd); [ -n "$FW" ] && FW=$(cd "$FW" && pwd)
LIMIT=${NPK_BAD_TIMEOUT:-20}
DIR=$SRC/tests/bad/inputs
T=$(mktemp -d "${TMPDIR:-/tmp}/npk-bad.XXXXXX")
trap 'rm -rf "$T"' EXIT

# A sanitizer build cannot run under ulimit -v (the shadow memory is reserved up front).
if grep -qa __asan_init "$NPK" 2>/dev/null; then
  MEMCAP='export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=512";'
else
  MEMCAP='ulimit -v 1048576;'
fi
TIME=""
[ -x /usr/bin/time ] && TIME=/usr/bin/time
[ -n "$TIME" ] || echo "note: /usr/bin/time not found (Debian package time): peak-memory bounds not checked"

# ---- generated inputs (binary, large or special files) ----------------------------------
gen() {
  local elf=$SRC/examples/rvnpu/hello.elf
  # patch NAME OFFSET BYTES: a copy of hello.elf with BYTES (printf escapes) at OFFSET.
  # hello.elf: ELF32 header (52 bytes), one PT_LOAD program header at 52 (offset 0x1000,
  # vaddr 0x80000000, filesz 0x35a, memsz 0x100000), section headers at 5048 (7 x 40), 5328 bytes.
  patch() { cp "$elf" "$T/$1"; printf "$3" | dd of="$T/$1" bs=1 seek="$2" conv=notrunc status=none; }
  : >"$T/empty"
  head -c 4 "$elf" >"$T/trunc4.elf"
  head -c 30 "$elf" >"$T/trunc30.elf"
  head -c 60 "$elf" >"$T/trunc60.elf"
  head -c 2000 "$elf" >"$T/trunc2000.elf"
  head -c 5000 "$elf" >"$T/trunc5000.elf"
  patch phoff.elf 28 '\xff\xff\x00\x00'          # e_phoff = 65535, past EOF
  patch phnum.elf 44 '\xff\xff'                  # e_phnum = 65535
  patch phentsize.elf 42 '\x10\x00'              # e_phentsize = 16
  patch phnum0.elf 44 '\x00\x00'                 # no program headers
  patch class64.elf 4 '\x02'                     # ELFCLASS64
  patch bigendian.elf 5 '\x02'                   # ELFDATA2MSB
  patch version.elf 6 '\x02'                     # EI_VERSION 2
  patch x86.elf 18 '\x3e\x00'                    # EM_X86_64
  patch dyn.elf 16 '\x03\x00'                    # ET_DYN
  patch seg_low.elf 60 '\x00\x00\x00\x10'        # p_vaddr 0x10000000: below RAM
  patch seg_wrap.elf 60 '\x00\xff\xff\xff'       # p_vaddr 0xffffff00: wraps 2^32
  patch memsz_huge.elf 72 '\x00\x00\x00\x7f'     # p_memsz 0x7f000000
  patch filesz_gt_memsz.elf 68 '\x00\x00\x20\x00' # p_filesz 2 MiB > p_memsz 1 MiB
  patch filesz_eof.elf 68 '\x00\x10\x00\x00'     # p_filesz 4 KiB: past EOF
  patch offset_eof.elf 56 '\x00\x00\x00\xf0'     # p_offset 0xf0000000
  patch entry_low.elf 24 '\x00\x00\x00\x10'      # e_entry outside RAM
  patch entry_odd.elf 24 '\x02\x00\x00\x80'      # e_entry not 4-byte aligned
  patch shoff.elf 32 '\xff\xff\xff\x00'          # e_shoff past EOF
  patch shentsize.elf 46 '\x10\x00'              # e_shentsize 16
  patch shnum.elf 48 '\xff\xff'                  # e_shnum 65535
  patch no_load.elf 52 '\x06\x00\x00\x00'        # the only program header is PT_PHDR
  mkdir "$T/dir"
  mkfifo "$T/fifo"
  truncate -s 64M "$T/big64.bin"
  printf 'abcd' >"$T/raw4.bin"
  printf 'abcdef' >"$T/raw6.bin"
  printf 'abcdefghijkl' >"$T/raw12.bin"
  printf '\x13\x00\x00\x00\x13\x00\x00\x00' >"$T/rv_nop2.bin"
  head -c 1000 /dev/zero >"$T/zero1000.bin"
  # 1 MB lines
  { printf 'li r1, '; head -c 1000000 /dev/zero | tr '\0' 1; printf '\n'; } >"$T/long_literal.s"
  { printf '# '; head -c 1000000 /dev/zero | tr '\0' x; printf '\nli r1, 7\nexit r1\n'; } \
    >"$T/long_comment.s"
  { printf 'frob'; head -c 1000000 /dev/zero | tr '\0' x; printf ' r1\n'; } >"$T/long_mnemonic.s"
  printf 'li r1, 1 # caf\xc3\n\xff\xfe halt\n' >"$T/utf8_bad.s"
  printf 'li r1, \xe2\x80\x8b5\n' >"$T/utf8_zero_width.s"
  printf '.target pccx\n\xff\xfe\n' >"$T/pccx_utf8_bad.s"
  printf 'li r1, 7\nexit r1\n' >"$T/exit7.s"
  # NUL bytes inside otherwise good sources (pending: the NUL-byte contract)
  printf 'halt\nli r1,\0 2\n' >"$T/nul_toy.s"
  printf 'addi a0, zero, 0\n\0\n' >"$T/nul_rvnpu.s"
  printf 'nop\nno\0p\n' >"$T/nul_opennpu.s"
  printf '.lanes 2\n.reset\0\n' >"$T/nul_tinytpu.tt"
  printf '.target pccx\n.word 0\0\n' >"$T/nul_pccx.s"
  printf 'lanes 2\nlayers 2\0 2 1\n' >"$T/nul.net"
}
gen

# ---- the cases ---------------------------------------------------------------------------
pass=0 fail=0 skip=0
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

run_case() {
  local name=$1 want=$2 frag=$3 cmd=$4 maxrss=""
  case $want in *maxrss=*) maxrss=${want##*maxrss=}; want=${want%% *} ;; esac
  if [ "${#only[@]}" -gt 0 ]; then
    local hit=0 o
    for o in "${only[@]}"; do [ "$o" = "$name" ] && hit=1; done
    [ $hit = 1 ] || return 0
  fi
  local f
  for f in $(grep -o '@FW@/[A-Za-z0-9_.-]*' <<<"$cmd"); do
    if [ -z "$FW" ] || [ ! -f "$FW/${f#@FW@/}" ]; then
      echo "SKIP $name (no firmware ${f#@FW@/})"; skip=$((skip + 1)); return 0
    fi
  done
  cmd=${cmd//@MEMCAP@/$MEMCAP}
  cmd=${cmd//@NPUKIT@/$NPK}
  cmd=${cmd//@DIR@/$DIR}
  cmd=${cmd//@SRC@/$SRC}
  cmd=${cmd//@TMP@/$T}
  cmd=${cmd//@FW@/$FW}
  local out=$T/case.out err=$T/case.err rss=$T/case.rss got
  rm -f "$rss"
  if [ -n "$maxrss" ] && [ -n "$TIME" ]; then
    (cd "$T" && timeout -s KILL --preserve-status "$LIMIT" \
       "$TIME" -q -f %M -o "$rss" bash -c "$cmd") >"$out" 2>"$err" </dev/null
  else
    (cd "$T" && timeout -s KILL --preserve-status "$LIMIT" bash -c "$cmd") \
      >"$out" 2>"$err" </dev/null
  fi
  got=$?
  local why=""
  if [ "$got" = 137 ] && [[ ",$want," != *",137,"* ]]; then
    why="killed after ${LIMIT}s (hang?)"
  elif [[ ",$want," != *",$got,"* ]]; then
    why="exit $got, want $want"
  elif [ -n "$frag" ] && ! grep -qF -- "$frag" "$err"; then
    why="standard error lacks '$frag'"
  fi
  if [ -z "$why" ] && grep -qE 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer|Segmentation fault|core dumped' "$out" "$err"; then
    why="sanitizer report or crash message"
  fi
  if [ -z "$why" ] && [ -s "$rss" ]; then
    local kb; kb=$(tail -1 "$rss")
    if [ "$kb" -gt $((maxrss * 1024)) ] 2>/dev/null; then
      why="peak memory $((kb / 1024)) MiB, limit $maxrss MiB"
    fi
  fi
  if [ -z "$why" ]; then
    pass=$((pass + 1)); echo "ok   $name"
  else
    fail=$((fail + 1)); echo "FAIL $name: $why"
    echo "     \$ $cmd" | cut -c1-300
  fi
  if [ -n "$why" ] || [ $verbose = 1 ]; then
    head -c 2000 "$err" | head -12 | cut -c1-300 | sed 's/^/     | /'
  fi
  # a case must not leave its scratch files behind for the next one
  rm -f "$T"/out.* "$T"/*.out.bin
}

for m in "${manifests[@]}"; do
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in ''|'#'*) continue ;; esac
    name=$(trim "${line%%|*}"); rest=${line#*|}
    want=$(trim "${rest%%|*}"); rest=${rest#*|}
    frag=$(trim "${rest%%|*}"); cmd=$(trim "${rest#*|}")
    if [ -z "$name" ] || [ -z "$cmd" ] || [ "$rest" = "$line" ]; then
      echo "FAIL malformed manifest line in $m: $line"; fail=$((fail + 1)); continue
    fi
    run_case "$name" "$want" "$frag" "$cmd"
  done <"$m"
done
echo "$pass passed, $fail failed${skip:+, $skip skipped}"
[ "$fail" = 0 ]

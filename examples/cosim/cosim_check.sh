#!/bin/sh
# Check a run of the cosim testbench against npukit (ctest, examples/cosim/CMakeLists.txt).
#   cosim_check.sh NPUKIT COSIM ELF [PLUSARGS...]
#       the testbench's standard output, exit status and retired-instruction count equal
#       those of `npukit run -t rvnpu` on the same ELF (with +lockstep also: no mismatch)
#   cosim_check.sh NPUKIT --expect-bug sra|lh|sb COSIM ELF
#       COSIM has that planted bug: alone, the planted firmware reports the wrong result;
#       in lock-step the run stops with status 123 at the planted instruction (<cosim_BUG_site+0x0>,
#       a0 or the stored byte with the core's and npukit's values, and npukit's commit record),
#       and it is the N-th retirement where npukit's N-th instruction is at that same pc
#       (checked with npukit run --max-insns N-1).
#   cosim_check.sh NPUKIT --min-insns N COSIM ELF [PLUSARGS...]
#       as the first form, and at least N instructions retired
#   cosim_check.sh NPUKIT --expect-status STATUS REGEX COSIM [ARGS...]
#       COSIM ARGS exits with STATUS and a standard-error line matching REGEX (grep -E)
set -u
npukit=$1; shift
if [ "$1" = --expect-status ]; then
  want=$2; re=$3; cosim=$4; shift 4
  err=$("$cosim" "$@" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL: status $rc, expected $want; stderr: $err"; exit 1; }
  printf '%s\n' "$err" | grep -Eq "$re" || { echo "FAIL: stderr does not match '$re': $err"; exit 1; }
  echo "ok: status $rc, $err"
  exit 0
fi
bug=
min=0
if [ "$1" = --expect-bug ]; then bug=$2; shift 2; fi
if [ "$1" = --min-insns ]; then min=$2; shift 2; fi
cosim=$1; elf=$2; shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*; do echo "--- $f"; head -c 4000 "$f"; done; exit 1; }

"$npukit" run -t rvnpu --stats "$elf" >"$tmp/ref.out" 2>"$tmp/ref.err"
ref_rc=$?
ref_n=$(sed -n 's/^  instructions  *\([0-9][0-9]*\)$/\1/p' "$tmp/ref.err")
[ -n "$ref_n" ] || fail "no instruction count from npukit"

if [ -z "$bug" ]; then
  "$cosim" +elf="$elf" "$@" >"$tmp/rtl.out" 2>"$tmp/rtl.err"
  rc=$?
  [ "$rc" = "$ref_rc" ] || fail "exit status $rc, npukit's $ref_rc"
  cmp -s "$tmp/rtl.out" "$tmp/ref.out" || fail "standard output differs from npukit's"
  n=$(sed -n 's/^cosim: \([0-9][0-9]*\) instructions retired.*/\1/p' "$tmp/rtl.err")
  [ "$n" = "$ref_n" ] || fail "retired $n instructions, npukit $ref_n"
  [ "$n" -ge "$min" ] || fail "retired $n instructions, fewer than $min"
  case " $* " in
    *" +lockstep "*) grep -q 'lock-step with npukit rvnpu: no mismatch' "$tmp/rtl.err" || fail "no lock-step summary" ;;
  esac
  echo "ok: $n instructions, status $rc, output as npukit's"
  exit 0
fi

# what the report says, the instruction, what the core and npukit wrote, npukit's record
reg='destination register value'
case $bug in
  sra) what=SRA; msg=$reg; insn='sra a0, a0, a1'                                  # -64 >> 3
       core_w=' a0 <- 0x1ffffff8'; ref_w=' a0 <- 0xfffffff8'; rec=' x10=0xfffffff8 ; sra a0, a0, a1)' ;;
  lh)  what=LH;  msg=$reg; insn='lh a0, 0(a0)'                                    # (short)-2
       core_w=' a0 <- 0x0000fffe'; ref_w=' a0 <- 0xfffffffe'; rec=' x10=0xfffffffe ; lh a0, 0(a0))' ;;
  sb)  what=SB;  msg='store value'; insn='sb a1, 0(a0)'                           # (char)0x1234
       core_w='] <- 0x12 (1 bytes)'; ref_w='] <- 0x34 (1 bytes)'; rec=']=0x34 ; sb a1, 0(a0))' ;;
  *) echo "unknown bug $bug"; exit 2 ;;
esac
grep -qx 'planted: ok' "$tmp/ref.out" || fail "npukit does not pass the planted firmware"
"$cosim" +elf="$elf" >"$tmp/rtl.out" 2>"$tmp/rtl.err"
rc=$?
[ "$rc" = 1 ] || fail "alone, the buggy core's run exited $rc, expected 1"
grep -qx "planted: $what gave a wrong result" "$tmp/rtl.out" || fail "alone, the firmware did not see the $what bug"

"$cosim" +elf="$elf" +lockstep >"$tmp/rtl.out" 2>"$tmp/rtl.err"
rc=$?
[ "$rc" = 123 ] || fail "lock-step exit status $rc, expected 123"
grep -q "^cosim: MISMATCH at retirement [0-9]* (cycle [0-9]*): $msg\$" "$tmp/rtl.err" ||
  fail "no '$msg' mismatch report"
core=$(grep '^  core ' "$tmp/rtl.err")
ref=$(grep '^  npukit ' "$tmp/rtl.err")
record=$(grep "^  (npukit's commit record: " "$tmp/rtl.err")
case $core in *"<cosim_${bug}_site+0x0>  "*"$insn"*"$core_w"*) ;; *) fail "core line: $core" ;; esac
case $ref in *"<cosim_${bug}_site+0x0>  "*"$insn"*"$ref_w"*) ;; *) fail "npukit line: $ref" ;; esac
case $record in *"$rec") ;; *) fail "npukit's record: $record" ;; esac
# a store: both sides name the same address, and the record has it too
if [ "$bug" = sb ]; then
  a_core=$(echo "$core" | sed -n 's/.* mem\[\(0x[0-9a-f]*\)\] <- .*/\1/p')
  a_ref=$(echo "$ref" | sed -n 's/.* mem\[\(0x[0-9a-f]*\)\] <- .*/\1/p')
  [ -n "$a_core" ] && [ "$a_core" = "$a_ref" ] || fail "store addresses: core '$a_core', npukit '$a_ref'"
  case $record in *" bus[$a_core]=0x34 "*) ;; *) fail "npukit's record does not write $a_core: $record" ;; esac
fi
n=$(sed -n 's/^cosim: MISMATCH at retirement \([0-9]*\) .*/\1/p' "$tmp/rtl.err")
pc=$(echo "$core" | sed -n 's/^  core *pc \(0x[0-9a-f]*\) .*/\1/p')
"$npukit" run -t rvnpu --max-insns $((n - 1)) "$elf" >/dev/null 2>"$tmp/budget.err"
grep -q "next: pc $pc," "$tmp/budget.err" || fail "npukit's instruction $n is not at $pc"
echo "ok: the $what bug is caught at retirement $n, pc $pc"

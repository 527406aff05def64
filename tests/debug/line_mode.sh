#!/bin/bash
# npukit debug in line mode, fed from a pipe (no terminal): the prompt, a step, a failed
# command reported without ending the session, a print, quit; status 0.
set -u
NPK=$1 SRC=$2
out=$(printf 'step\nbogus\nprint r1 r2\nquit\n' | "$NPK" debug -t toy "$SRC/examples/toy/sum.s" 2>err.$$)
status=$?
err=$(cat err.$$); rm -f err.$$
fail=0
check() { if ! grep -qF -- "$2" <<<"$1"; then echo "FAIL: missing: $2"; fail=1; fi; }
# toy sum.s: li r1, 0; li r2, 1: one step runs the first
check "$out" "npukit debug: $SRC/examples/toy/sum.s on toy; 'help' lists the commands"
check "$out" "(npk) insn 1, cycle 1: pc 0x4  0x11000001  li r2, 1"
check "$out" "(npk) (npk) r1 = 0x00000000 = 0"
check "$out" "r2 = 0x00000000 = 0"
check "$err" "error: unknown command 'bogus' ('help' lists them)"
[ "$status" = 0 ] || { echo "FAIL: status $status, expected 0"; fail=1; }
# a snapshot saved in one session starts the next (--load-state, target from the snapshot):
# after 5 instructions of sum.s (li, li, li, add, addi) r1 = 1, r2 = 2
tmp=$(mktemp -d)
printf 'until 5
save %s/s.snap
' "$tmp" | "$NPK" debug -t toy --batch - "$SRC/examples/toy/sum.s" >/dev/null
out=$(printf 'where
print r1 r2
' | "$NPK" debug --batch - --load-state "$tmp/s.snap" 2>&1)
rm -rf "$tmp"
check "$out" "insn 5, cycle 5: pc 0x14  0x6426fffe  bne r2, r3, 0xc"
check "$out" "r1 = 0x00000001 = 1"
check "$out" "r2 = 0x00000002 = 2"
[ "$fail" = 0 ] && echo "ok line_mode"
exit $fail

#!/bin/bash
# Reverse execution is exact: after 'until N+K' and 'reverse-step K' the registers, the
# statistics and the program's output equal those of a session that ran 'until N' (the
# '*' marks of changed registers and the location lines aside), on every target.
set -u
NPK=$1 SRC=$2
fail=0
view() { # ARGS... < commands: the views from 'regs' on, without the echoes, the '*' marks
  # and the padding they change
  "$NPK" debug --batch - "$@" 2>&1 | sed -n '/^(npk) regs$/,$p' | grep -v '^(npk) ' |
    tr -d '*' | tr -s ' '
}
case_() { # N K ARGS...
  local n=$1 k=$2; shift 2
  local fwd back
  fwd=$(printf 'until %s\nregs\nstats\noutput\n' "$n" | view "$@")
  back=$(printf 'until %s\nreverse-step %s\nregs\nstats\noutput\n' $((n + k)) "$k" | view "$@")
  if [ "$fwd" != "$back" ] || [ -z "$fwd" ]; then
    echo "FAIL: $* until $n vs until $((n + k)) and reverse-step $k:"
    diff <(echo "$fwd") <(echo "$back") | head -20
    fail=1
  else
    echo "ok: $* at $n"
  fi
}
case_ 30 7 -t toy "$SRC/examples/toy/hello.s"
case_ 12 5 -t rvnpu "$SRC/tests/debug/rvnpu.s"
case_ 60 100 "$SRC/examples/rvnpu/hello.elf"
case_ 4 2 -t opennpu:K=4,L=8 "$SRC/tests/core/commit/opennpu.s"
case_ 3 3 -t tinytpu "$SRC/tests/core/commit/tinytpu.s"
case_ 3 3 -t pccx "$SRC/tests/core/commit/pccx.s"
exit $fail

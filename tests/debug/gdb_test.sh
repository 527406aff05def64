#!/usr/bin/env bash
# gdb-multiarch against `npukit gdb` over loopback, in batch mode, on tests/debug/gdb_fw.c:
# break on a function, continue, next, step, print a C variable and the NPU registers ($acc
# after two npu.macc, $v1 after npu.ldvec, $facc), `info registers`, a watchpoint hit, Ctrl-C
# (SIGINT to gdb) of a spinning loop, the program's exit, detach and kill, reverse-stepi back
# over an NPU instruction (acc restored), reverse-continue to a breakpoint, reverse-step.
# Each session starts its own server on 127.0.0.1 with --port 0 (any free port, read from its
# message), and every wait is bounded: the server's start, each gdb run (killed after 60 s),
# the server's end.
# usage: gdb_test.sh NPUKIT GDB_FW.ELF GDB
set -u
NPK=$1 FW=$2 GDB=$3
T=$(mktemp -d)
SPID= GPID=
cleanup() {
  [ -n "$GPID" ] && kill -9 "$GPID" 2>/dev/null
  [ -n "$SPID" ] && kill -9 "$SPID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
. "$(dirname "$0")/../cli/expect.sh"

# start the server (extra options: "$@"; BIND: the address it says it listens on); PORT is
# its port
start_server() {
  rm -f "$T/srv.out" "$T/srv.err" && : >"$T/srv.err"   # no port of the last server
  "$NPK" gdb --port 0 "$@" "$FW" >"$T/srv.out" 2>>"$T/srv.err" &
  SPID=$!
  PORT=
  local addr=${BIND:-127.0.0.1}
  for _ in $(seq 100); do
    PORT=$(sed -n "s/^npukit gdb: listening on ${addr//./\\.}:\([0-9][0-9]*\)\$/\1/p" "$T/srv.err")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  bad "the server did not say its port within 10 s"; sed 's/^/    /' "$T/srv.err" >&2
  return 1
}

# the server's exit status in ST, waiting at most 10 s (not in a $(...) subshell: only this
# shell can wait for its children)
server_status() {
  for _ in $(seq 100); do
    kill -0 "$SPID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$SPID" 2>/dev/null; then
    kill -9 "$SPID"; wait "$SPID" 2>/dev/null; SPID=; ST=timeout; return
  fi
  wait "$SPID"; ST=$?; SPID=
}

# gdb in batch mode in the background, with the -ex commands given; wait_gdb ends it
run_gdb() {
  "$GDB" -batch -nx -ex 'set pagination off' -ex 'set confirm off' \
    -ex "target remote 127.0.0.1:$PORT" "$@" "$FW" >"$T/gdb.out" 2>&1 </dev/null &
  GPID=$!
}
wait_gdb() {
  for _ in $(seq 600); do
    kill -0 "$GPID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$GPID" 2>/dev/null; then
    bad "gdb still running after 60 s"; kill -9 "$GPID"
  fi
  wait "$GPID" 2>/dev/null; GPID=
}

has() { # PATTERN (a fixed string) in gdb's output
  if grep -qF -- "$1" "$T/gdb.out"; then ok; else bad "gdb output lacks '$1'"; SHOW=1; fi
}
has_re() { # an extended regular expression
  if grep -qE -- "$1" "$T/gdb.out"; then ok; else bad "gdb output lacks /$1/"; SHOW=1; fi
}
show_on_fail() {
  if [ "${SHOW:-0}" = 1 ]; then sed 's/^/    gdb: /' "$T/gdb.out" >&2; sed 's/^/    server: /' "$T/srv.err" >&2; fi
  SHOW=0
}

# 1: break, next, step, print, NPU registers, info registers, a watchpoint, Ctrl-C, the end
if start_server; then
  run_gdb -ex 'break main' -ex 'continue' -ex 'step' \
    -ex 'next' -ex 'next' -ex 'print counter' -ex 'print local' \
    -ex 'break npu_loaded' -ex 'continue' -ex 'print $acc' -ex 'print $v1' -ex 'print $facc' \
    -ex 'print/x $v1' -ex 'info registers' -ex 'monitor npu' -ex 'monitor isa-rev' \
    -ex 'watch watched' -ex 'continue' -ex 'print $pc' -ex 'delete' \
    -ex 'echo SPIN-NEXT\n' -ex 'continue' \
    -ex 'print $pc' -ex 'set var spinning = 0' -ex 'continue'
  # Ctrl-C: once gdb has sent the continue into spin(), SIGINT to gdb (it sends 0x03)
  for _ in $(seq 300); do grep -q '^SPIN-NEXT' "$T/gdb.out" && break; sleep 0.1; done
  sleep 0.5
  kill -INT "$GPID" 2>/dev/null
  wait_gdb
  grep -q warning "$T/srv.err" && bad "session 1: a warning for 127.0.0.1" || ok
  has 'Breakpoint 1, main () at'
  has_re '^compute \(a=6, b=7\) at .*gdb_fw.c:[0-9]+'
  has '$1 = 43'                        # counter = 6 * 7 + 1
  has '$2 = 43'                        # local
  has 'Breakpoint 2, npu_loaded () at'
  has '$3 = 54'                        # acc = 6 * 7 + 3 * 4 after two npu.macc
  has '$4 = {1, -2, 3, -4}'            # v1 after npu.ldvec of vec
  has '$5 = 0'                         # facc
  has '$6 = {0x1, 0xfe, 0x3, 0xfc}'
  has_re '^acc[[:space:]]+0x36[[:space:]]+54$'             # info registers shows the NPU feature
  has_re '^facc[[:space:]]+0[[:space:]]+\(raw 0x0000000000000000\)$'
  has_re '^v1[[:space:]]+\{0x1, 0xfe, 0x3, 0xfc\}$'
  has_re '^pc[[:space:]]+0x800002d4[[:space:]]+0x800002d4 <npu_loaded>$'
  has_re '^ra[[:space:]]+0x[0-9a-f]+[[:space:]]+0x[0-9a-f]+ <compute\+[0-9]+>$'
  has 'acc   0x0000000000000036'       # monitor npu
  has 'v1    0xfc03fe01'
  has_re '^seed$'                      # monitor isa-rev
  has 'Hardware watchpoint 3: watched'
  has 'Old value = 0'
  has 'New value = 54'
  # gdb stops right after the store, still in touch() (the stub reports the hit before the
  # access and gdb steps over it)
  has_re '^0x[0-9a-f]+ in touch \(v=54\) at .*gdb_fw.c:[0-9]+$'
  has_re '^\$7 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <touch\+[0-9]+>$'
  has 'Program received signal SIGINT, Interrupt.'
  has_re '^\$8 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <spin\+[0-9]+>$'
  has '[Inferior 1 (Remote target) exited with code 052]'
  server_status; st=$ST
  [ "$st" = 42 ] && ok || bad "session 1: server exit $st, want 42 (the firmware's)"
  show_on_fail
fi

# 2: detach: the firmware runs on without the debugger, to its end
if start_server; then
  run_gdb -ex 'break spin' -ex 'continue' -ex 'set var spinning = 0' -ex 'detach'
  wait_gdb
  has 'Breakpoint 1, spin () at'
  has '[Inferior 1 (Remote target) detached]'
  server_status; st=$ST
  [ "$st" = 42 ] && ok || bad "session 2: server exit $st, want 42"
  grep -q 'npukit gdb: detached; the firmware runs on' "$T/srv.err" && ok ||
    bad "session 2: no detach message"
  show_on_fail
fi

# 3: kill, with stepi and x/i on the way; the server ends with status 0
if start_server; then
  run_gdb -ex 'stepi' -ex 'x/i $pc' -ex 'kill'
  wait_gdb
  has_re '^=> 0x80000004'
  has '[Inferior 1 (Remote target) killed]'
  server_status; st=$ST
  [ "$st" = 0 ] && ok || bad "session 3: server exit $st, want 0"
  grep -q 'npukit gdb: killed by the debugger' "$T/srv.err" && ok || bad "session 3: no kill message"
  show_on_fail
fi

# 4: the connection dropped (gdb killed with SIGKILL while the firmware spins)
if start_server; then
  run_gdb -ex 'continue'
  sleep 1
  kill -9 "$GPID" 2>/dev/null; wait "$GPID" 2>/dev/null; GPID=
  server_status; st=$ST
  [ "$st" = 0 ] && ok || bad "session 4: server exit $st, want 0"
  grep -q 'npukit gdb: the debugger closed the connection' "$T/srv.err" && ok ||
    bad "session 4: no message about the closed connection"
fi

# 5: reverse execution: reverse-stepi back over an NPU instruction (acc restored), stepi
# forward again, reverse-continue to a breakpoint (memory restored), reverse-step
if start_server; then
  cat >"$T/rev.gdb" <<'GDB'
break compute
break npu_loaded
continue
continue
print $acc
set $n = 0
while $acc == 54 && $n < 20
  reverse-stepi
  set $n = $n + 1
end
print $acc
x/i $pc
stepi
print $acc
reverse-continue
print counter
print $acc
reverse-step
echo REVERSE-DONE\n
delete
set var spinning = 0
continue
GDB
  run_gdb -x "$T/rev.gdb"
  wait_gdb
  has '$1 = 54'
  has '$2 = 42'                        # before the second npu.macc: 6 * 7
  has_re '^=> 0x[0-9a-f]+ <compute\+[0-9]+>:[[:space:]]+\.4byte[[:space:]]+0xb5000b$'  # macc
  has '$3 = 54'                        # stepi: the macc again
  # reverse-continue stops at breakpoint 1 (compute), counter and acc as they were there
  [ "$(grep -c '^Breakpoint 1, compute (a=6, b=7) at' "$T/gdb.out")" = 2 ] && ok ||
    { bad "reverse-continue: breakpoint 1 not reported twice"; SHOW=1; }
  has '$4 = 0'
  has '$5 = 0'
  has 'REVERSE-DONE'
  has '[Inferior 1 (Remote target) exited with code 052]'
  server_status; st=$ST
  [ "$st" = 42 ] && ok || bad "session 5: server exit $st, want 42"
  show_on_fail
fi

# 6: --bind elsewhere than the loopback: a warning; the session still works (over loopback)
if BIND=0.0.0.0 start_server --bind 0.0.0.0; then
  grep -q '^npukit gdb: warning: listening on 0.0.0.0, not the loopback: anyone who can reach it' \
    "$T/srv.err" && ok || bad "session 6: no warning for --bind 0.0.0.0"
  run_gdb -ex 'print $pc' -ex 'kill'
  wait_gdb
  has_re '^\$1 = \(void \(\*\)\(\)\) 0x80000000 <_start>$'
  server_status; st=$ST
  [ "$st" = 0 ] && ok || bad "session 6: server exit $st, want 0"
  show_on_fail
fi
finish

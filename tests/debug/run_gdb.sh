#!/usr/bin/env bash
# `npukit run --gdb=0` serves the same stub as `npukit gdb`, with run's options honoured
# (--isa-rev, --load), driven by a raw protocol client (bash's /dev/tcp) over loopback, on
# tests/debug/rvnpu.s (prints "ok", exits with status 63 = 0x3f); also `monitor npu state` and
# what the stub does after the program's end. Every wait is bounded: the
# server's port line (10 s), each reply (5 s), the server's end (10 s).
# usage: run_gdb.sh NPUKIT SRCDIR
set -u
NPK=$1 SRC=$2
T=$(mktemp -d)
SPID=
cleanup() {
  [ -n "$SPID" ] && kill -9 "$SPID" 2>/dev/null
  exec 3>&- 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
. "$(dirname "$0")/../cli/expect.sh"
PROG=$SRC/tests/debug/rvnpu.s
printf '\x11\x22\x33\x44' >"$T/blob"

# start `npukit run --gdb=0 "$@"` and connect fd 3 to it (ADDR: where it says it listens)
start() {
  : >"$T/srv.err"
  "$NPK" run --gdb=0 "$@" >"$T/srv.out" 2>"$T/srv.err" &
  SPID=$!
  PORT=
  local addr=${ADDR:-127.0.0.1}
  for _ in $(seq 100); do
    PORT=$(sed -n "s/^npukit run: listening on ${addr//./\\.}:\([0-9][0-9]*\)\$/\1/p" "$T/srv.err")
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  if [ -z "$PORT" ]; then bad "no port line within 10 s"; sed 's/^/    /' "$T/srv.err" >&2; return 1; fi
  exec 3<>"/dev/tcp/127.0.0.1/$PORT"
}

# send packet $1 (in no-ack mode) and put the reply's body in R ("" on a timeout)
ask() {
  local b=$1 s=0 i c
  for ((i = 0; i < ${#b}; i++)); do printf -v c '%d' "'${b:i:1}"; s=$((s + c)); done
  printf '$%s#%02x' "$b" $((s % 256)) >&3
  R=
  IFS= read -r -t 5 -d '#' -u 3 R || { R=; return; }
  read -r -t 5 -n 2 -u 3 _
  R=${R#*\$}       # the '+' acking our packet (before no-ack mode), then the '$'
}
hexf() { printf "$@" | od -An -tx1 -v | tr -d ' \n'; }   # printf's output in hex
want() { # PACKET REPLY
  ask "$1"
  [ "$R" = "$2" ] && ok || bad "$1 -> '$R', want '$2'"
}
# the server's exit status in ST (at most 10 s)
server_status() {
  exec 3>&-
  for _ in $(seq 100); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$SPID" 2>/dev/null; then kill -9 "$SPID"; wait "$SPID" 2>/dev/null; SPID=; ST=timeout; return; fi
  wait "$SPID"; ST=$?; SPID=
}

# 1: the options reach the machine: --isa-rev rev2 ('monitor isa-rev' says "rev2\n", hex
# 726576320a), --load puts the four bytes at RAM offset 0x2000 = 0x80002000. The program runs
# to its exit (W3f), a further continue is refused (E03), kill: status 63, its output once.
if start -t rvnpu --isa-rev rev2 --load "ram:0x2000:$T/blob" "$PROG"; then
  printf '+' >&3
  want QStartNoAckMode OK
  want m80002000,4 11223344
  want qRcmd,6973612d726576 726576320a          # "isa-rev"
  want Z0,8000000c,4 OK                          # at the first npu.macc
  want c T05thread:01\;
  want p20 0c000080                              # pc 0x8000000c, little-endian
  # 'monitor npu state' before the first npu.macc: the NPU registers all zero
  want "qRcmd,$(hexf 'npu state')" \
    "$(hexf 'acc   0x%016x\nfacc  0x%016x\nv0    0x%08x\nv1    0x%08x\nv2    0x%08x\nv3    0x%08x\n' 0 0 0 0 0 0)"
  want z0,8000000c,4 OK
  want c W3f
  # after the end nothing runs (E03 for c and s), going back does: reverse-step to the exit
  # ecall (pc 0x80000048), then continue ends the program again
  want c E03
  want s E03
  want bs T05thread:01\;
  want p20 48000080
  want c W3f
  printf '$k#6b' >&3
  server_status
  [ "$ST" = 63 ] && ok || bad "session 1: exit $ST, want 63"
  grep -q '^npukit run: killed by the debugger$' "$T/srv.err" && ok || bad "session 1: no kill message"
  [ "$(cat "$T/srv.out")" = ok ] && ok || bad "session 1: output '$(cat "$T/srv.out")', want 'ok'"
fi

# 2: --gdb-bind elsewhere than the loopback: a warning; detach runs the program to its end
if ADDR=0.0.0.0 start --gdb-bind 0.0.0.0 -t rvnpu "$PROG"; then
  grep -q '^npukit run: warning: listening on 0.0.0.0, not the loopback' "$T/srv.err" && ok ||
    bad "session 2: no warning for --gdb-bind 0.0.0.0"
  printf '+' >&3
  want QStartNoAckMode OK
  want p20 00000080                              # pc at the entry, 0x80000000
  want D OK
  server_status
  [ "$ST" = 63 ] && ok || bad "session 2: exit $ST, want 63"
  grep -q '^npukit run: detached; the firmware runs on$' "$T/srv.err" && ok || bad "session 2: no detach message"
  [ "$(cat "$T/srv.out")" = ok ] && ok || bad "session 2: output '$(cat "$T/srv.out")', want 'ok'"
fi

# 3: refused before listening (status 125): another target, a run option, a bad port
expect 125 "target toy has no GDB register description (only rvnpu has one); debug it with 'npukit debug -t toy'" -- \
  "$NPK" run --gdb -t toy "$SRC/examples/toy/hello.s"
expect 125 "--gdb and --max-insns" -- "$NPK" run --gdb --max-insns 5 -t rvnpu "$PROG"
expect 125 "--gdb and --trace" -- "$NPK" run --trace --gdb -t rvnpu "$PROG"
expect 125 "--gdb 70000: not a port number (0 to 65535)" -- "$NPK" run --gdb=70000 -t rvnpu "$PROG"
expect 125 "--gdb-bind 0.0.0.0: no --gdb session" -- "$NPK" run --gdb-bind 0.0.0.0 -t rvnpu "$PROG"
finish

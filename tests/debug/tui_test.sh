#!/bin/bash
# The full-screen UI of `npukit debug` (src/debug/tui.c) driven under tmux: a detached session
# of 120x40 on a server of its own (-L, no configuration file), keys sent with send-keys, the
# screen read with capture-pane until the expected text shows (at most 10 s for each). Runs
# rvnpu (tests/debug/rvnpu.s), opennpu at K = 4, L = 8, tinytpu and pccx (the programs of
# tests/core/commit), a toy endless loop (Ctrl-C), a tiny terminal, and the mode selection
# (--tui, --line, TERM=dumb).
# The expected values come from the programs' comments (derivations repeated below); the
# batch tests (rvnpu.out, opennpu.out) show the same values.
# usage: tui_test.sh NPUKIT SOURCE_DIR; exit 77 (skipped) without tmux or without ncurses.
set -u
NPK=$1 SRC=$2
command -v tmux >/dev/null || { echo "tmux is not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
# one tmux server per session (-L: a socket of this test's own; no configuration file)
SOCK=npk-tui-test-$$ n=0
T() { tmux -L "$SOCK-$n" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# Without a terminal --tui is refused.
"$NPK" debug --tui -t toy "$SRC/examples/toy/sum.s" </dev/null >out 2>err
status=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ "$status" = 125 ] || bad "--tui without a terminal: status $status, expected 125"
grep -qF -- '--tui needs a terminal on standard input and output' err ||
    bad "--tui without a terminal: message: $(cat err)"

screen() { T capture-pane -p -t s 2>/dev/null; }
# poll HOW TEXT: wait until the screen shows TEXT (HOW -F: a fixed string, -E: an extended
# regular expression), or no longer shows the fixed string TEXT (HOW -v); at most 10 s in
# steps of 0.1 s, then a failure that names TEXT and shows the screen
poll() {
    local i
    for ((i = 0; i < 100; i++)); do
        if [ "$1" = -v ]; then
            screen | grep -qF -- "$2" || return 0
        else
            screen | grep -q "$1" -- "$2" && return 0
        fi
        sleep 0.1
    done
    bad "waited in vain for the screen ($1): $2"
    screen | sed 's/^/    | /'
    return 1
}
wait_for() { poll -F "$1"; }
wait_re() { poll -E "$1"; }
wait_gone() { poll -v "$1"; }
keys() { T send-keys -t s "$@"; }
# cmd LINE: type a command line (':' first, so its letters are not key bindings) and Enter
cmd() { keys ':'; keys -l "$1"; keys Enter; }
# start ARGS...: a new session running npukit debug ARGS; when it ends the pane shows
# "EXITED status" and stays (the shell survives Ctrl-C: it traps SIGINT)
start() {
    T kill-server 2>/dev/null
    n=$((n + 1))
    T new-session -d -s s -x 120 -y 40 \
        "trap : INT; env TERM=${TUI_TERM:-screen} $NPK debug $*; echo EXITED \$?; sleep 100"
}

# ---- --tui on a terminal: full screen, or (a build without ncurses) the reason: skip the rest
start --tui -t toy "$SRC/examples/toy/sum.s"
for ((i = 0; i < 100; i++)); do
    if screen | grep -q 'built without ncurses'; then
        echo "npukit has no full-screen UI: skipped"
        exit 77
    fi
    screen | grep -qF 'on toy | insn 0, cycle 0: pc 0x0  0x10800000  li r1, 0' && break
    sleep 0.1
done
keys q
wait_for "EXITED 0"

# ---- rvnpu: tests/debug/rvnpu.s (addresses and effects in its comments) ---------------------
start -t rvnpu "$SRC/tests/debug/rvnpu.s"
wait_for "npukit debug: rvnpu.s on rvnpu | insn 0, cycle 0: pc 0x80000000  0x00300513  addi a0, zero, 3"
wait_for " Registers ('*' changed; [ ] scroll)"
wait_for " NPU / engine state"
wait_for " Disassembly"
wait_for " Memory x/x ram:0 (t: type)"
wait_for " Statistics"
wait_for " Guest output"
# ram:0 holds the program: addi a0, zero, 3 = 0x00300513, little-endian 13 05 30 00
wait_for "ram:0x0: 13 05 30 00 93 05 e0 ff"
# two steps: a0 = 3 (first step), a1 = -2 (second); '*' marks what the last command changed
keys s
wait_for "insn 1, cycle 1: pc 0x80000004"
keys s
wait_for "insn 2, cycle 2: pc 0x80000008  0x044000ef  jal ra, 0x8000004c"
wait_re "a0 +0x00000003\$"
wait_re "^a1 +0xfffffffe\\* "
# next runs the call (jal, mul, ret: insn 2 -> 5, 7 cycles: mul takes 3): a0 = 9, ra = 0x8000000c
keys n
wait_for "insn 5, cycle 7: pc 0x8000000c  0x00b5000b  npu.macc a0, a1"
wait_for "a0        0x00000009*"
wait_for "ra        0x8000000c*"
wait_for "=> 0x8000000c:  0x00b5000b  npu.macc a0, a1"
# the changed value is drawn highlighted (bold), an unchanged one is not
# an SGR sequence with the parameter 1 (bold), then any others, then the text
bold=$'\e\\[([0-9]+;)*1(;[0-9]+)*m(\e\\[[0-9;]*m)*'
row=$(T capture-pane -p -e -t s | grep -F '0x00000009*' | head -1)
grep -qE "${bold}0x00000009\\*" <<<"$row" || bad "a0 (changed) is not bold: $(cat -v <<<"$row")"
row=$(T capture-pane -p -e -t s | grep -F '0xfffffffe' | head -1)
grep -qE "${bold}0xfffffffe" <<<"$row" && bad "a1 (unchanged) is bold: $(cat -v <<<"$row")"
# two macc: acc = 9 * -2 + 9 * 9 = 63 = 0x3f
keys s s
wait_for "insn 7, cycle 11: pc 0x80000014"
wait_for "acc        0x000000000000003f = 63"
# a breakpoint before npu.rstacc and continue: sw then npu.ldvec ran, v1 = (-2, -1, -1, -1)
cmd "b 0x80000020"
wait_for "breakpoint 1 at pc 0x80000020"
keys c
wait_for "breakpoint 1, stopped at pc 0x80000020"
wait_for "insn 10, cycle 19: pc 0x80000020  0x0000560b  npu.rstacc a2"
wait_for "v1               -2       -1       -1       -1"
# memory typed: 1.5 = 0x3fc00000, bytes 00 00 c0 3f at 0x1004; as f32: 1.5; the panel
# follows the x command, and t cycles its type x -> i8 -> f32 -> bf16 -> q8.8 -> x:
# bf16 pairs 0x0000 = 0, 0x3fc0 = 1.5; q8.8 0x3fc0 = 16320 / 256 = 63.75; i8: 0 0 -64 63
cmd "set/f32 ram:0x1004 1.5"
cmd "x/f32 ram:0x1004 2"
wait_for "(npk) x/f32 ram:0x1004 2"
wait_for " Memory x/f32 ram:0x1004 (t: type)"
wait_for "ram:0x1004: 1.5 0 0 0 0 0 0 0"
keys t
wait_for " Memory x/bf16 ram:0x1004"
wait_for "ram:0x1004: 0 1.5 0 0 0 0 0 0"
keys t
wait_for " Memory x/q8.8 ram:0x1004"
wait_for "ram:0x1004: 0 63.75 0 0 0 0 0 0"
keys t
wait_for "ram:0x1004: 00 00 c0 3f 00 00"
keys t
wait_for "ram:0x1004: 0 0 -64 63 0 0 0 0"
# a failing command reports in the log; the session goes on
cmd "print nosuchreg"
wait_for "error: "
# reverse-step: back before npu.ldvec (insn 9, cycle 14), v1 = 0 again
keys r
wait_for "insn 9, cycle 14: pc 0x8000001c  0x0004608b  npu.ldvec v1, 0(s0)"
wait_for "v1                0        0        0        0"
# reverse-continue: no breakpoint hit before insn 9, so back to the start
keys R
wait_for "no breakpoint or watchpoint hit before: at the start"
wait_for "| insn 0, cycle 0: pc 0x80000000"
# to the breakpoint and on to the end: "ok\n" on the UART, exit status a2 = 63
keys c
wait_for "insn 10, cycle 19: pc 0x80000020"
keys c
wait_for "program exited with status 63 (exit value 63)"
row=$(screen | grep -n ' Guest output' | cut -d: -f1)
[ -n "$row" ] && screen | sed -n "$((row + 1))p" | grep -q 'ok' || bad "the guest output panel lacks 'ok'"
keys q
wait_for "EXITED 0"

# ---- opennpu K = 4, L = 8: tests/core/commit/opennpu.s ----------------------------------
# words at 4 x index: vbcast.imm vx1, 3; vbcast.imm vx2, 5; vadd vx3, vx1, vx2; vmovi ve0,
# 0x234; st.vx vx3, 16(vr1); mma.reset; mma vr0, vx1, vx2
start -t opennpu:K=4,L=8 "$SRC/tests/core/commit/opennpu.s"
wait_for "on opennpu | insn 0, cycle 0: pc 0x0  0x00301095  vbcast.imm vx1, 3"
# three steps: vx1 = 3, vx2 = 5, vx3 = 3 + 5 = 8 in every lane (only vx3 changed by the last)
keys s s s
wait_for "insn 3, cycle 3: pc 0xc  0x23401018  vmovi ve0, 564"
wait_for "vx1      0x03030303          vx2      0x05050505"
wait_for "vx3      0x08080808*"
# vmovi: VE0 lane 0 = 0x0234, rows 0, 1 = 34 00 00 00 / 02 03 03 03: ve0 = 0x0300030003000234
keys s
wait_for "ve0      0x0300030003000234*"
# break before mma: VR0 = rows 3..0, lane 0 08 05 02 34 = 134545972, lanes 1..3 08 05 03 00
# = 134546176; P = 0 after mma.reset
cmd "break 0x18"
keys c
wait_for "breakpoint 1, stopped at pc 0x18"
wait_for "vr0        134545972 134546176 134546176 134546176"
wait_for "P[0]              0        0        0        0"
# mma: P[i][j] = vx1[i] * vx2[j], vx1 = (2, 3, 3, 3) (vmovi set row 1 lane 0 to 2), vx2 = 5s
keys s
wait_for "program exited with status 0"
wait_for "P[0]             10       10       10       10"
wait_for "P[1]             15       15       15       15"
keys r
wait_for "P[1]              0        0        0        0"
# a tiny terminal: a message instead of panels; back to full size: the panels again
T resize-window -t s -x 40 -y 10
wait_for "terminal too small (40x10)"
T resize-window -t s -x 120 -y 40
wait_for " NPU / engine state"
wait_gone "terminal too small"
keys q
wait_for "EXITED 0"

# ---- tinytpu, lanes = 2: tests/core/commit/tinytpu.s (every edge derived in its comments);
# a step is a cycle. Q8.8: 0x0200 = 2, 0x0180 = 1.5
start -t tinytpu "$SRC/tests/core/commit/tinytpu.s"
wait_for "on tinytpu | insn 0, cycle 0: next cycle record 0"
# (the disassembly and the NPU state share the 120 columns: both lines are clipped)
wait_for "=> cycle 0: host0=0x0200 ; pathway=0000"
# host0 appends 2 at ub[0] and 1.5 at ub[1]
keys s s
wait_for "insn 2, cycle 2: next cycle record 2"
cmd "x/q8.8 ub:0 2"
wait_for " Memory x/q8.8 ub:0 (t: type)"
wait_for "ub:0x0: 2 1.5 0 0 0 0 0 0"
# edges 3, 4: pe[0][0] latches the weight 2 into its shadow and passes it on (wout)
keys s s
wait_for "cycle 4; PE grid (Q8.8): pe[k][j] shadow active xout psum wout"
wait_for "pe[0][0]         2         0         0         0         2 0 0"
keys q
wait_for "EXITED 0"

# ---- pccx: tests/core/commit/pccx.s (every push derived in its comments); a step issues
# one instruction, the cycle is the host clock (t_push = 4)
start -t pccx "$SRC/tests/core/commit/pccx.s"
wait_for "on pccx | insn 0, cycle 0: pc 0x0  0x3010001000400010  memset fmap, idx=1, a=1, b=4, c=1"
# three pushes: host clock 12, the memcpy executes on the MEM engine (BUSY, busy.mem = 1)
keys s s s
wait_for "insn 3, cycle 12: pc 0x18"
wait_for "host clock 12, issued 3, status 0x1 (BUSY 1 DONE 0 ERROR 0)"
wait_re " mem +0 +1$"
# the gemv writes 6.5 and 10.0 (BF16 0x40d0, 0x4120) at L2 bytes 0x800..0x803; at host
# clock 16 it is decoded and waits for the memcpy (queue.gemv = 1)
cmd "watch w l2:0x800+4"
keys c
wait_for "watchpoint 1: write of l2:0x800+4 by pc 0x18, value 0x412040d0"
cmd "x/bf16 l2:0x800 2"
wait_for "l2:0x800: 6.5 10 0 0 0 0 0 0"
wait_for "host clock 16, issued 4, status 0x1 (BUSY 1 DONE 0 ERROR 0)"
wait_re " gemv +1 +0$"
keys q
wait_for "EXITED 0"

# ---- Ctrl-C stops a continue: toy, an endless loop -------------------------------------
printf 'loop:   jmp loop\n' >loop.s
start -t toy loop.s
wait_for "on toy | insn 0, cycle 0: pc 0x0"
keys c
wait_for "running 'continue' (Ctrl-C interrupts)"
sleep 0.3
keys C-c
wait_gone "running 'continue'"
# stopped somewhere in the loop: pc 0 still (one instruction), at an instruction count > 0
wait_for "(npk) continue"
screen | grep -qE '^insn [1-9][0-9]*, cycle [0-9]+: pc 0x0  ' || bad "no stop after Ctrl-C"
keys q
wait_for "EXITED 0"

# ---- the mode: --line and TERM=dumb give the prompt on a terminal -------------------------
start --line -t toy "$SRC/examples/toy/sum.s"
wait_for "'help' lists the commands"
wait_for "(npk)"
keys -l quit
keys Enter
wait_for "EXITED 0"
TUI_TERM=dumb start -t toy "$SRC/examples/toy/sum.s"
wait_for "'help' lists the commands"
keys -l quit
keys Enter
wait_for "EXITED 0"
"$NPK" debug --tui --line -t toy "$SRC/examples/toy/sum.s" </dev/null >/dev/null 2>err
[ $? = 125 ] && grep -qF 'give one of --tui, --line and --batch' err || bad "--tui --line: $(cat err)"

[ "$fail" = 0 ] && echo "ok tui"
exit $fail

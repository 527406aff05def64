#!/bin/bash
# `npukit run --save-state` / `--load-state` (docs/snapshot.md): a run split at --max-insns
# and resumed from its snapshot prints the same output, ends with the same status and
# statistics and leaves the same memory as the whole run; snapshots through pipes; the
# refusals (other target or configuration, a program as well, cut or corrupt files, outputs
# that cannot be written), each before anything runs, with status 125.
# usage: snapshot_test.sh NPUKIT SOURCE_DIR
NPK=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"

cat >"$T/p.s" <<'PROG'
    li s0, 0x10000000
    li t0, 97
    li t1, 123
    la t3, result
loop:
    sb t0, 0(s0)
    sw t0, 0(t3)
    addi t0, t0, 1
    blt t0, t1, loop
    li a0, 7
    li a7, 93
    ecall
result: .word 0
PROG
cd "$T" || exit 1

# the whole run: 6 + 26 * 4 + 3 = 113 instructions (li 0x10000000 and la are two each)
"$NPK" run -t rvnpu p.s --stats=json --stats-output whole.json --dump result:u32:1 >whole.out 2>&1
[ $? = 7 ] && ok || bad "whole run: status $?"
grep -qF '"instructions":113' whole.json && ok || bad "whole run: $(cat whole.json)"

# split at 50: status 124, then the rest from the snapshot
"$NPK" run -t rvnpu p.s --max-insns 50 --stats --save-state half.npks >first.out 2>first.err
[ $? = 124 ] && ok || bad "first half: status $?"
[ -s half.npks ] && [ "$(head -c 7 half.npks)" = NPKSNAP ] && ok || bad "no snapshot written"
"$NPK" run --load-state half.npks --stats=json --stats-output rest.json --dump result:u32:1 \
  >rest.out 2>&1
[ $? = 7 ] && ok || bad "resumed run: status $?"
[ "$(cat first.out rest.out)" = "$(cat whole.out)" ] && ok ||
  bad "split output '$(cat first.out rest.out)', whole '$(cat whole.out)'"
grep -qF "abcdefghijklmnopqrstuvwxyz" whole.out && grep -qF "122" whole.out && ok ||
  bad "whole output: $(cat whole.out)"
# the statistics of both halves add up (the first half had --stats on)
grep -qF '"instructions":113' rest.json && ok || bad "resumed statistics: $(cat rest.json)"
sed 's/"stop":{[^}]*}//' whole.json >w.json
sed 's/"stop":{[^}]*}//' rest.json >r.json
cmp -s w.json r.json && ok || bad "statistics differ: $(cat w.json) / $(cat r.json)"

# -t and settings that agree are fine; the same snapshot twice gives the same run
expect 7 "lmnopqrstuvwxyz" -- "$NPK" run -t rvnpu --load-state half.npks
expect 7 "lmnopqrstuvwxyz" -- "$NPK" run --ram-size 4M --load-state half.npks
# through pipes: '-' writes the snapshot to standard output (the guest's output moves to
# standard error) and reads it from standard input
"$NPK" run -t rvnpu p.s --max-insns 50 --stats --save-state - >piped.npks 2>/dev/null
cmp -s piped.npks half.npks && ok || bad "--save-state - wrote another snapshot"
expect 7 "lmnopqrstuvwxyz" -- sh -c "'$NPK' run --load-state - <half.npks"

# refusals: status 125, a message naming the file, and nothing run
expect 125 "half.npks: a snapshot of target rvnpu, not of toy" -- "$NPK" run -t toy --load-state half.npks
expect 125 "this machine's is 'isa_rev=seed,ram_size=8388608" -- "$NPK" run -t rvnpu --ram-size 8M --load-state half.npks
expect 125 "the snapshot holds its program; give one of them" -- "$NPK" run --load-state half.npks p.s
expect 125 "no program to run (give PROGRAM or --load-state FILE)" -- "$NPK" run -t rvnpu
head -c 1000 half.npks >cut.npks
expect 125 "cut.npks: truncated" -- "$NPK" run --load-state cut.npks
expect 125 "cut.npks: truncated" -- "$NPK" run -t rvnpu --load-state cut.npks
cp half.npks bad.npks
printf 'Z' | dd of=bad.npks bs=1 seek=3000 conv=notrunc 2>/dev/null
expect 125 "bad.npks: checksum mismatch: the snapshot is corrupt" -- "$NPK" run --load-state bad.npks
expect 125 "p.s: not an npukit snapshot" -- "$NPK" run -t rvnpu --load-state p.s
expect 125 "missing.npks: cannot open" -- "$NPK" run --load-state missing.npks
# outputs are checked before the run: no guest output appears
"$NPK" run -t rvnpu p.s --save-state "$T/no/such/dir/s.npks" >none.out 2>none.err
[ $? = 125 ] && [ ! -s none.out ] && grep -qF "no/such/dir/s.npks: cannot write the snapshot" none.err &&
  ok || bad "--save-state into a missing directory: $(cat none.out none.err)"
expect 125 "--save-state half.npks would overwrite the input half.npks" -- "$NPK" run --load-state half.npks --save-state half.npks
expect 125 "--save-state p.s would overwrite the input p.s" -- "$NPK" run -t rvnpu p.s --save-state p.s
expect 125 "--trace and --save-state both name" -- "$NPK" run -t rvnpu p.s --trace=x --save-state x
expect 125 "--stats-output and --save-state both write standard output" -- "$NPK" run -t rvnpu p.s --stats=json --save-state -
# a state the target cannot capture: the run's results stand, the status says an output failed
mkdir root && echo hi >root/f
cat >open.s <<'PROG'
    li a0, -100
    la a1, name
    li a2, 0
    li a7, 56
    ecall
spin: j spin
name: .asciz "f"
PROG
expect 125 "open.npks: no snapshot written: rvnpu: cannot save a snapshot while the guest has files open (descriptors 3)" -- "$NPK" run -t rvnpu --fs-root root open.s --max-insns 20 --save-state open.npks

# toy too, with a program from the examples
"$NPK" run -t toy "$SRC/examples/toy/demo.s" >toy_whole.out 2>&1
tw=$?
"$NPK" run -t toy "$SRC/examples/toy/demo.s" --max-insns 1000 --save-state toy.npks >toy1.out 2>/dev/null
[ $? = 124 ] && ok || bad "toy first half: status $?"
"$NPK" run --load-state toy.npks >toy2.out 2>&1
[ $? = "$tw" ] && [ "$(cat toy1.out toy2.out)" = "$(cat toy_whole.out)" ] && ok ||
  bad "toy split run differs from the whole run"

# pccx: the softmax example split after its GEMV (3 of 6 pushed, the engines busy): the same
# statistics (cycles, engine busy times, port and stall counters) and probabilities; with a
# timing parameter set, the configuration travels in the snapshot
PX="$SRC/examples/pccx/softmax.s"
"$NPK" run -t pccx:cmd_fifo_depth=2 "$PX" --stats=json --stats-output px_whole.json --dump l2:0x4800:32 >px_whole.out 2>&1
[ $? = 0 ] && ok || bad "pccx whole run: status $?"
"$NPK" run -t pccx:cmd_fifo_depth=2 "$PX" --max-insns 3 --stats --save-state px.npks >/dev/null 2>&1
[ $? = 124 ] && ok || bad "pccx first half: status $?"
"$NPK" run --load-state px.npks --stats=json --stats-output px_rest.json --dump l2:0x4800:32 >px_rest.out 2>&1
[ $? = 0 ] && ok || bad "pccx resumed run: status $?"
sed 's/"stop":{[^}]*}//' px_whole.json >pw.json
sed 's/"stop":{[^}]*}//' px_rest.json >pr.json
cmp -s pw.json pr.json && grep -qF '"instructions":6' pr.json && ok || bad "pccx statistics differ: $(cat pw.json) / $(cat pr.json)"
grep -F 'l2:' px_whole.out >pw.dump
grep -F 'l2:' px_rest.out >pr.dump
[ -s pw.dump ] && cmp -s pw.dump pr.dump && ok || bad "pccx probabilities differ: $(cat pw.dump) / $(cat pr.dump)"
expect 125 "this machine's is 'ext=0,mode=strict,host_ddr_bytes=67108864,f_core_mhz=400,f_axi_mhz=250'" -- "$NPK" run -t pccx --load-state px.npks
# tinytpu: the XOR training step split at cycle 40 (mid-pass: reads, the array and the VPU
# busy) leaves the same UB, registers and statistics as the whole run; the configuration
# (lanes, lr, ...) comes from the snapshot
XOR="$SRC/examples/tinytpu/xor/xor_step.tt"
"$NPK" run -t tinytpu --lr 0.75 "$XOR" --stats=json --stats-output tt_whole.json --regs \
  --dump ub:0:128 >tt_whole.out 2>&1
[ $? = 0 ] && ok || bad "tinytpu whole run: status $?"
"$NPK" run -t tinytpu --lr 0.75 "$XOR" --max-insns 40 --stats --save-state tt.npks >/dev/null 2>&1
[ $? = 124 ] && ok || bad "tinytpu first part: status $?"
"$NPK" run --load-state tt.npks --stats=json --stats-output tt_rest.json --regs --dump ub:0:128 \
  >tt_rest.out 2>&1
[ $? = 0 ] && ok || bad "tinytpu resumed run: status $?"
cmp -s tt_whole.out tt_rest.out && ok || bad "tinytpu split run: registers or UB differ"
sed 's/"stop":{[^}]*}//' tt_whole.json >ttw.json
sed 's/"stop":{[^}]*}//' tt_rest.json >ttr.json
grep -qF '"instructions":92' ttr.json && cmp -s ttw.json ttr.json && ok ||
  bad "tinytpu statistics differ: $(cat ttw.json) / $(cat ttr.json)"
expect 125 "tt.npks: a snapshot of tinytpu with configuration 'lanes=2,ub_words=128,lr=0x00C0," -- \
  "$NPK" run -t tinytpu --lanes 3 --load-state tt.npks
finish

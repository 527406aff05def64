#!/usr/bin/env bash
# The bash completion (completion/npukit.bash) driven as bash drives it: COMP_LINE,
# COMP_POINT, and COMP_WORDS/COMP_CWORD split the way readline splits them (at blanks, and
# a run of ':' or '=' is a word of its own), then COMPREPLY checked: subcommands, every
# option each --help prints, targets, settings after "-t TARGET:", --config, option values,
# memories, demos, files. Also that every listed setting is one the target accepts.
# usage: completion_test.sh NPUKIT SOURCE_DIR
set -u
NPK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"
# the completion runs the 'npukit' the line starts with: this build's
mkdir -p "$T/bin" && ln -s "$NPK" "$T/bin/npukit"
PATH=$T/bin:$PATH
. "$SRC/completion/npukit.bash"
complete -p npukit 2>/dev/null | grep -q -- '-F _npukit npukit' && ok || bad "no 'complete -F _npukit npukit'"

# comp LINE: complete at the end of LINE; prints each candidate as the whole blank-delimited
# word it makes (bash replaces only its own last word, the part after the last ':' or '=').
comp() {
  local line=$1 i ch w="" brk=0
  COMP_LINE=$line COMP_POINT=${#line} COMP_WORDS=()
  for ((i = 0; i < ${#line}; i++)); do
    ch=${line:i:1}
    case $ch in
    ' ') [[ -n $w ]] && COMP_WORDS+=("$w"); w="" brk=0 ;;
    [:=]) if ((brk)); then w+=$ch; else [[ -n $w ]] && COMP_WORDS+=("$w"); w=$ch brk=1; fi ;;
    *) if ((brk)); then COMP_WORDS+=("$w"); w="" brk=0; fi; w+=$ch ;;
    esac
  done
  COMP_WORDS+=("$w")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _npukit
  local last=${line##* } c
  for c in "${COMPREPLY[@]}"; do printf '%s\n' "${last%"$w"}$c"; done | sort -u
}

# want_same LINE WORDS...: the candidates are exactly WORDS.
want_same() {
  local line=$1; shift
  local got want
  got=$(comp "$line")
  want=$(printf '%s\n' "$@" | sort -u)
  [ "$got" = "$want" ] && ok || bad "'$line<TAB>': got [$(echo $got)], want [$(echo $want)]"
}
# want_has LINE WORDS...: the candidates include every one of WORDS.
want_has() {
  local line=$1; shift
  local got w
  got=$(comp "$line")
  for w in "$@"; do
    grep -qxF -- "$w" <<<"$got" && ok || bad "'$line<TAB>': '$w' not among [$(echo $got)]"
  done
}

# Option names in the option column of --help (text before two blanks on lines starting
# with blanks and a dash).
help_options() {
  "$NPK" "$1" --help | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' |
    grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|(]//' | sort -u
}

cd "$T"
commands=$("$NPK" info --list commands)
targets=$("$NPK" info --list targets)
[ -n "$commands" ] && [ -n "$targets" ] && ok || bad "info --list commands/targets printed nothing"

# subcommands after 'npukit ', and after 'npukit help '
want_same "npukit " $commands help
want_same "npukit di" disasm
want_same "npukit help " $commands
want_has "npukit --v" --version
# options after 'npukit CMD -' and 'npukit CMD --': every one --help prints
for c in $commands; do
  opts=$(help_options "$c")
  [ -n "$opts" ] && ok || bad "npukit $c --help: no options found"
  want_same "npukit $c -" $opts
  want_same "npukit $c --" $(grep -- '^--' <<<"$opts")
done
want_same "npukit run --st" --stats --stats-output
want_same "npukit run --max" --max-insns
# targets after -t, --target and --target=, and for info's argument
want_same "npukit run -t " $targets
want_same "npukit asm --target " $targets
want_same "npukit disasm --target=" $(printf -- '--target=%s\n' $targets)
want_same "npukit run -t rv" rvnpu
want_same "npukit info " $targets
# settings after -t TARGET: (every target), in a list after ',', and with --config
for t in $targets; do
  settings=$("$NPK" info --list settings -t "$t")
  [ -n "$settings" ] && ok || bad "info --list settings -t $t printed nothing"
  want_same "npukit run -t $t:" $(printf "$t:%s\n" $settings)
done
want_has "npukit run -t rvnpu:" rvnpu:isa_rev= rvnpu:ram_size= rvnpu:fs_root= rvnpu:syscalls=
want_same "npukit run -t rvnpu:isa" rvnpu:isa_rev=
want_same "npukit run -t rvnpu:isa_rev=rev2,ram" rvnpu:isa_rev=rev2,ram_size=
want_same "npukit run --target=opennpu:t" --target=opennpu:test --target=opennpu:top
want_same "npukit run -t pccx:hw" pccx:hw-compat
want_same "npukit run -t opennpu --config t" test top
want_same "npukit asm -t opennpu --config=mem_size=4K,mem_l" --config=mem_size=4K,mem_latency=
want_same "npukit info -t toy --config m" mem=
want_same "npukit run -t rvnpu:isa_rev=" # a value: nothing offered
# option values
want_same "npukit run --stats=" --stats=text --stats=json
want_same "npukit asm -f " bin hex
want_same "npukit asm --format=h" --format=hex
want_same "npukit info --list " commands targets settings memories
# memories for --load and --dump, of the -t target; a file after SPACE:ADDR:
want_same "npukit run -t opennpu --dump " $("$NPK" info --list memories -t opennpu | sed 's/$/:/')
want_same "npukit run -t pccx --load l" l2:
touch data.bin prog.s
want_same "npukit run -t toy --load mem:0x100:da" mem:0x100:data.bin
want_same "npukit run -t rvnpu --write input:da" input:data.bin
want_has "npukit run --uart-in " - data.bin
# demos, and files as the positional argument
want_same "npukit demo " $("$NPK" demo --help | sed -n '/^demos:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
want_same "npukit demo rvnpu-t" $("$NPK" demo --help | awk '$1 == "rvnpu-transformer" { print $1 }')
want_same "npukit run -t toy pr" prog.s
want_same "npukit asm -o da" data.bin

# every listed setting is one the target accepts: a preset word is accepted as it is, a
# KEY= is never "unknown" (whatever its value's fate), and every key of the effective
# configuration is listed
for t in $targets; do
  for s in $("$NPK" info --list settings -t "$t"); do
    case $s in
    *=) "$NPK" info -t "$t" --config "${s}1" >out 2>&1
        grep -q "unknown" out && bad "$t: listed setting '$s' is unknown to it: $(cat out)" || ok ;;
    *) expect 0 "" -- "$NPK" info -t "$t:$s" ;;
    esac
  done
  for k in $("$NPK" info -t "$t" | sed -n 's/^effective configuration: //p' | tr ',' '\n' | sed 's/=.*//'); do
    "$NPK" info --list settings -t "$t" | grep -qx -- "$k=" && ok ||
      bad "$t: key '$k' of the effective configuration is not listed"
  done
done
expect 2 "unknown target 'nosuch'" -- "$NPK" info --list settings -t nosuch
expect 2 "--list settings needs a target" -- "$NPK" info --list settings
expect 2 "--list frob: expected commands, targets, settings or memories" -- "$NPK" info --list frob
finish

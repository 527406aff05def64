#!/usr/bin/env bash
# The man pages (docs/man) against the command they describe: every option each --help
# prints is an item of its page's OPTIONS and every option item there is one --help prints;
# every exit status the help names is in EXIT STATUS; every command, target and demo has its
# entry; the version is the command's; the pages use only known macros and, when groff is
# installed, render without a warning; and every example runs (in a scratch copy of
# examples/) with status 0, or the one a '.\" exit N' line before it names.
# usage: man_test.sh NPUKIT SOURCE_DIR MAN_DIR
set -u
NPK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 MAN=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/cli/expect.sh"

# roff to plain text: \- is -, fonts and \(xx characters go; a font macro line is its
# arguments (.B, .I: blank-separated; .BR and the other alternating ones: joined), other
# macro lines and comments go.
plain() {
  sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\([a-z][a-z]//g' -e 's/\\c$//' "$@" | awk '
    /^\.(B|I|BR|BI|IB|IR|RB|RI)( |$)/ {
      m = $1; s = substr($0, length(m) + 2); out = ""; n = 0
      sep = (m == ".B" || m == ".I") ? " " : ""
      for (;;) {
        sub(/^ +/, "", s)
        if (s == "") break
        if (substr(s, 1, 1) == "\"") {
          i = index(substr(s, 2), "\""); a = substr(s, 2, i ? i - 1 : length(s))
          s = i ? substr(s, i + 2) : ""
        } else {
          i = index(s, " "); a = i ? substr(s, 1, i - 1) : s; s = i ? substr(s, i + 1) : ""
        }
        out = out (n++ ? sep : "") a
      }
      print out; next
    }
    /^\./ { next }
    { print }'
}

# Option names (-x, --name) in the option column of --help (text before two blanks on lines
# starting with blanks and a dash) and in the usage lines.
help_options() {
  { grep -E '^ +-' | sed -E 's/^ +//; s/  .*//'; } <"$1" >"$T/cols"
  grep -E '^(usage: |       npukit )' "$1" >>"$T/cols"
  grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' "$T/cols" | sed -E 's/^[][ ,|(]//' | sort -u
}

# Option names in the tags of .TP items (the line after .TP).
man_options() {
  awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$1" | plain |
    grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|(]//' | sort -u
}

# The text of section NAME of a page, plain.
section() { awk -v s=".SH $2" '$0 == s { on = 1; next } /^\.SH / { on = 0 } on' "$1" | plain; }

check_page() { # PAGE HELP_FILE
  local page=$1 help=$2 name
  name=$(basename "$page")
  [ -s "$page" ] || { bad "$name: missing"; return; }
  help_options "$help" >"$T/h"
  man_options "$page" >"$T/m"
  local o
  for o in $(comm -23 "$T/h" "$T/m"); do bad "$name: option $o of --help has no item in the page"; done
  for o in $(comm -13 "$T/h" "$T/m"); do bad "$name: option $o is in the page but not in --help"; done
  [ -s "$T/h" ] && ok || bad "$name: no options found in --help"
  # exit statuses: every number the help's exit-status text names
  local st
  section "$page" "EXIT STATUS" >"$T/exit"
  for st in $(sed -n '/exit status/,$p' "$help" | grep -oE '\b(0|1|2|123|124|125|126)\b' | sort -u); do
    grep -qw -- "$st" "$T/exit" && ok || bad "$name: exit status $st (in --help) is not in EXIT STATUS"
  done
  # the version the command prints
  grep -q "^\.TH .* \"npukit ${VERSION}\"" "$page" && ok ||
    bad "$name: .TH does not carry the version 'npukit $VERSION'"
  # only the macros these pages use (a typo is a silently dropped line to man)
  local bad_macros
  bad_macros=$(grep -E '^\.' "$page" | grep -vE '^\.(\\"|TH|SH|SS|TP|PP|RS|RE|nf|fi|br|B|I|BR|BI|IB|IR|RB|RI)( |$)')
  [ -z "$bad_macros" ] && ok || bad "$name: unknown macro lines: $bad_macros"
  if command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww -z "$page" >"$T/gw" 2>&1
    [ ! -s "$T/gw" ] && ok || { bad "$name: groff warnings:"; sed 's/^/    /' "$T/gw" >&2; }
  fi
  # the examples, in order, in a scratch directory with a copy of examples/
  local dir=$T/ex-$name want=0 line args
  mkdir -p "$dir" && cp -R "$SRC/examples" "$dir/"
  while IFS= read -r line; do
    if [[ $line =~ ^\.\\\"\ exit\ ([0-9]+)$ ]]; then want=${BASH_REMATCH[1]}; continue; fi
    [[ $line == "npukit "* ]] || continue
    read -r -a args <<<"$(printf '%s\n' "$line" | plain)"
    (cd "$dir" && "$NPK" "${args[@]:1}" >"$T/out" 2>&1)
    local got=$?
    [ "$got" = "$want" ] && ok || { bad "$name: example '$(printf '%s' "$line" | plain)' -> exit $got, want $want"; sed 's/^/    /' "$T/out" | head -5 >&2; }
    want=0
  done < <(awk '$0 == ".SH EXAMPLES" { on = 1; next } /^\.SH / { on = 0 } on' "$page")
}

VERSION=$("$NPK" --version | sed 's/^npukit //')
"$NPK" --help >"$T/help.npukit" 2>&1
check_page "$MAN/npukit.1" "$T/help.npukit"
for cmd in $("$NPK" info --list commands); do
  "$NPK" "$cmd" --help >"$T/help.$cmd" 2>&1
  check_page "$MAN/npukit-$cmd.1" "$T/help.$cmd"
  # npukit(1) lists the command and refers to its page
  section "$MAN/npukit.1" COMMANDS | grep -qx -- "$cmd" && ok || bad "npukit.1: no COMMANDS item for $cmd"
  section "$MAN/npukit.1" "SEE ALSO" | grep -qF -- "npukit-$cmd(1)" && ok || bad "npukit.1: SEE ALSO lacks npukit-$cmd(1)"
done
for t in $("$NPK" info --list targets); do
  section "$MAN/npukit.1" TARGETS | grep -qx -- "$t" && ok || bad "npukit.1: no TARGETS item for $t"
done
# every demo of this build (the page also lists those a build may leave out)
for d in $(sed -n '/^demos:/,/^$/p' "$T/help.demo" | awk 'NR > 1 && NF { print $1 }'); do
  section "$MAN/npukit-demo.1" DESCRIPTION | grep -qx -- "$d" && ok || bad "npukit-demo.1: no item for demo $d"
done
# no page for a command that does not exist
for p in "$MAN"/npukit-*.1; do
  c=$(basename "$p" .1); c=${c#npukit-}
  "$NPK" info --list commands | grep -qx -- "$c" && ok || bad "$(basename "$p"): no command '$c'"
done
finish

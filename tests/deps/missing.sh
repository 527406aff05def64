#!/usr/bin/env bash
# A missing Debian package stops `make demo` at once with the one apt-get line (for a user who
# is not root), naming only the missing packages of the purpose asked for.
# usage: missing.sh SOURCE_DIR
set -u
src=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v dpkg-query >/dev/null || { echo "SKIP: not a Debian system"; exit 77; }

# A list with the real demo packages (installed) plus two that do not exist, one per purpose.
grep -E '^demo ' "$src/.ci/packages" >"$T/packages"
echo "demo npk-no-such-package-demo a demo package that is missing" >>"$T/packages"
echo "test npk-no-such-package-test a test package that is missing" >>"$T/packages"
export NPK_PACKAGES=$T/packages

NPK_PACKAGES=$src/.ci/packages "$src/.ci/deps" --check demo >"$T/out" 2>"$T/err"
[ $? = 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && ok "installed demo packages: silent, status 0" ||
  bad "installed demo packages: status/output $(cat "$T/out" "$T/err")"

"$src/.ci/deps" --check demo >"$T/out" 2>"$T/err"; st=$?
[ $st = 1 ] && ok "a missing package: status 1" || bad "a missing package: status $st"
grep -c '^apt-get install' "$T/err" | grep -qx 1 && ok "one apt-get line" || bad "apt-get lines: $(cat "$T/err")"
grep -qx 'apt-get install npk-no-such-package-demo' "$T/err" && ok "it names only the missing demo package" ||
  bad "the apt-get line: $(grep apt-get "$T/err")"

"$src/.ci/deps" --check demo test 2>"$T/err"
grep -qx 'apt-get install npk-no-such-package-demo npk-no-such-package-test' "$T/err" &&
  ok "demo test: both missing packages on the one line" || bad "demo test: $(cat "$T/err")"

"$src/.ci/deps" --check demo bogus 2>"$T/err"; st=$?
[ $st = 2 ] && grep -q "unknown purpose or option 'bogus'" "$T/err" && ok "a bad purpose: status 2" ||
  bad "a bad purpose: status $st, $(cat "$T/err")"
echo "demo npk-x" >"$T/broken"
NPK_PACKAGES=$T/broken "$src/.ci/deps" --check demo 2>"$T/err"; st=$?
[ $st = 2 ] && grep -q "broken:1: expected PURPOSE PACKAGE WHAT-FOR" "$T/err" && ok "a malformed list: status 2 with file:line" ||
  bad "a malformed list: status $st, $(cat "$T/err")"

# `make demo` as a user who is not root: stops before building, with the line on stderr.
user=yes
if [ "$(id -u)" != 0 ]; then
  as_user=()
elif command -v setpriv >/dev/null; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)  # nobody
  # A checkout under root's home may be closed to other users: then this part cannot run.
  "${as_user[@]}" test -r "$src/Makefile" -a -x "$src/.ci/deps" || user=no
else
  user=no
fi
if [ $user = yes ]; then
  chmod 777 "$T" && chmod 644 "$T/packages"  # writable: a make that went on would build there
  "${as_user[@]}" make -C "$src" --no-print-directory demo BUILD="$T/never" >"$T/out" 2>"$T/err"
  st=$?
  [ $st != 0 ] && ok "make demo (not root): status $st" || bad "make demo (not root): status 0"
  grep -qx 'apt-get install npk-no-such-package-demo' "$T/err" && ok "make demo (not root): the apt-get line" ||
    bad "make demo (not root): $(cat "$T/err")"
  [ ! -e "$T/never" ] && ok "make demo (not root): stopped before configuring" || bad "make demo built $T/never"
else
  echo "note: no user other than root can run make in $src here: make demo as a user is not checked"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

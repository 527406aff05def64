# Shared by the command-line test scripts (source it after setting T, a scratch directory):
# pass/fail counters, ok/bad, and expect.
pass=0 fail=0

ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect STATUS PATTERN -- command...: run, check the exit status and that PATTERN (fixed
# string; empty = skip) appears in stdout+stderr.
expect() {
  local want=$1 pat=$2; shift 3
  "$@" >"$T/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want"; sed 's/^/    /' "$T/out" | head -20 >&2; return; fi
  if [ -n "$pat" ] && ! grep -qF -- "$pat" "$T/out"; then
    bad "$* -> output lacks '$pat'"; sed 's/^/    /' "$T/out" | head -20 >&2; return
  fi
  ok
}

# The closing line and status.
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}

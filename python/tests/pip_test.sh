#!/usr/bin/env bash
# `pip install --no-build-isolation ./python` offline (Debian's pip and setuptools) over this
# build tree, into a temporary target, then import it from there and run a program.
# usage: pip_test.sh PYTHON SOURCE_DIR BUILD_DIR
set -u
py=$1 src=$2 build=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/npukit-pip.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$py" -m pip --version >/dev/null 2>&1 || { echo "SKIP: no pip for $py (python3-pip)"; exit 77; }
cp -r "$src/python" "$T/py" # setuptools writes build/ and *.egg-info beside setup.py
(cd "$T/py" && NPUKIT_BUILD_DIR=$build NPUKIT_SOURCE_DIR=$src PIP_NO_INDEX=1 \
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
  "$py" -m pip install -q --no-build-isolation --target "$T/site" . >"$T/log" 2>&1) ||
  { cat "$T/log"; fail "pip install"; }
# toy: li r1, 7; exit r1 -> exit status 7
out=$(cd "$T" && PYTHONPATH=$T/site "$py" -c "
import npukit
m = npukit.Machine('toy'); m.load(asm='li r1, 7\nexit r1\n'); s = m.run()
assert (s.reason, s.exit_code) == ('exit', 7), s
assert npukit.__file__.startswith('$T/site/'), npukit.__file__
print('PASS: pip-installed npukit', npukit.__version__)
" 2>&1) || fail "$out"
echo "$out"

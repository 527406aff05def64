#!/bin/sh
# usage: cli_check.sh EXPECTED COMMAND [ARG...]
# Run COMMAND (an `npukit run ... --dump ...` line), show it, and compare its standard output
# with the file EXPECTED (written by `onpu_act_test cli-data` from the host reference).
expected=$1
shift
echo "\$ $*"
out=$("$@") || { echo "FAIL: exit status $?"; exit 1; }
echo "$out"
if [ "$out" != "$(cat "$expected")" ]; then
    echo "FAIL: expected (host reference):"
    cat "$expected"
    exit 1
fi
echo "PASS: matches the host reference"

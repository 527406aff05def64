#!/usr/bin/env bash
# README.md's package table and .ci/packages (the one list) name the same packages with the
# same purposes. usage: readme_table.sh SOURCE_DIR
set -u
src=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
grep -Ev '^[[:space:]]*(#|$)' "$src/.ci/packages" | awk '{ print $1, $2 }' | sort >"$T/list"
# The table of the "## Dependencies" section: | `package` | purpose | used for |
awk '/^## / { in_deps = ($0 ~ /^## Dependencies/) } in_deps && /^\| `/' "$src/README.md" |
  sed -E 's/^\| `([^`]+)` \| ([a-z]+) \|.*/\2 \1/' | sort >"$T/readme"
n=$(wc -l <"$T/list")
[ "$n" -ge 10 ] || { echo "FAIL: only $n packages in .ci/packages"; exit 1; }
if ! diff -u "$T/list" "$T/readme" >"$T/diff"; then
  echo "FAIL: README.md's package table (+) differs from .ci/packages (-):"
  cat "$T/diff"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "PASS: README.md's table has the $n packages of .ci/packages with their purposes"
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# libnpukit.so exports exactly the public API: every dynamic symbol it defines is a function
# the headers in include/npukit/ declare with NPK_API, and every such function is exported.
# usage: exported_symbols.sh NM LIBNPUKIT_SO INCLUDE_DIR
set -u
nm=$1 lib=$2 inc=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$nm" -D --defined-only "$lib" >"$T/nm" || { echo "FAIL: $nm -D $lib"; exit 1; }
awk 'NF >= 3 { print $3 }' "$T/nm" | sed 's/@.*//' | sort -u >"$T/exported"
# A declaration starts its line with NPK_API; the function's name is the last identifier
# before the first '('.
grep -h '^NPK_API ' "$inc"/npukit/*.h | sed -E 's/\(.*//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' |
  sort -u >"$T/declared"
n_exp=$(wc -l <"$T/exported") n_decl=$(wc -l <"$T/declared")
[ "$n_decl" -gt 50 ] || { echo "FAIL: only $n_decl NPK_API declarations found in $inc/npukit"; exit 1; }
fail=0
# A function declared at file scope without NPK_API would silently not be exported.
if grep -nE '^[A-Za-z_][A-Za-z0-9_ ]*[ *]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$inc"/npukit/*.h |
   grep -vE ':(NPK_API|typedef|extern|enum|struct|union|static|#)' >"$T/bare"; then
  echo "FAIL: public functions declared without NPK_API (put NPK_API first):"
  sed 's/^/  /' "$T/bare"
  fail=1
fi
extra=$(comm -23 "$T/exported" "$T/declared")
if [ -n "$extra" ]; then
  echo "FAIL: $lib exports $(echo "$extra" | wc -l) symbol(s) that no header of" \
       "$inc/npukit/ declares with NPK_API:"
  echo "$extra" | head -40 | sed 's/^/  /'
  fail=1
fi
missing=$(comm -13 "$T/exported" "$T/declared")
if [ -n "$missing" ]; then
  echo "FAIL: declared NPK_API but not exported by $lib:"
  echo "$missing" | sed 's/^/  /'
  fail=1
fi
[ $fail = 0 ] && echo "PASS: $n_exp exported symbols, all and only the $n_decl NPK_API functions"
echo "$((1 - fail)) passed, $fail failed"
exit $fail

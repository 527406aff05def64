#!/usr/bin/env bash
# Install the build into a temporary prefix (staged, then moved: every installed file must
# find the others relative to itself) and use it from outside the source tree.
# usage: install_test.sh MODE CMAKE BUILD_DIR SOURCE_DIR LIBDIR CC [CFLAG...]
#   layout     the installed files: command, libraries (SONAME), headers, npukit.pc, the
#              CMake package, the rvnpu SDK and its helper, the DPI-C package
#   pkgconfig  build consumer/consumer.c with pkg-config, shared and static, and run both
#   cmake      build consumer/ with find_package(npukit), shared and static, and run both
#   firmware   build firmware/ (rvnpu) with the installed SDK and helper, run it on the
#              installed npukit
#   dpi        verilate dpi/dpi_tb.sv against the installed sv/npukit_dpi.sv and libnpukit.so
#              (with proto_check.cpp: Verilator's import prototypes equal npukit/dpi.h's) and
#              run it; the environment gives NPK_VERILATOR and, when not Verilator's g++,
#              NPK_VL_CXX (the C++ compiler matching CC)
#   python     import the installed npukit package (NPK_PYTHON: the interpreter,
#              NPK_PYTHON_DIR: the package's directory under the prefix) from outside the
#              tree and run a program on each target with it, and the MLP through
#              npukit.Model; the extension must use the prefix's libnpukit.so
set -u
mode=$1 cmake=$2 build=$3 src=$4 libdir=$5 cc=$6
shift 6
cflags=("$@")
here=$src/tests/install
T=$(mktemp -d "${TMPDIR:-/tmp}/npukit-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
run() { "$@" >"$T/log" 2>&1 || { cat "$T/log"; fail "$*"; }; }

run "$cmake" --install "$build" --prefix "$T/stage"
mv "$T/stage" "$T/prefix"
P=$T/prefix L=$P/$libdir
version=$(sed -n 's/^#define NPK_VERSION_STRING "\(.*\)"$/\1/p' "$src/include/npukit/npukit.h")
[ -n "$version" ] || fail "no NPK_VERSION_STRING in $src/include/npukit/npukit.h"
major=${version%%.*}

case $mode in
layout)
  for f in bin/npukit "$libdir/libnpukit.a" "$libdir/libnpukit.so.$version" \
           include/npukit/npukit.h include/npukit/pccx.h "$libdir/pkgconfig/npukit.pc" \
           "$libdir/cmake/npukit/npukitConfig.cmake" "$libdir/cmake/npukit/npukitConfigVersion.cmake" \
           "$libdir/cmake/npukit/npukitTargets.cmake" share/npukit/cmake/rvnpu_firmware.cmake \
           share/npukit/sdk/rvnpu/link.ld share/npukit/sdk/rvnpu/crt0.S share/npukit/sdk/rvnpu/README.md \
           include/npukit/dpi.h share/npukit/sv/npukit_dpi.sv; do
    [ -f "$P/$f" ] || fail "not installed: $f"
  done
  [ "$(readlink "$L/libnpukit.so")" = "libnpukit.so.$major" ] || fail "libnpukit.so -> $(readlink "$L/libnpukit.so")"
  [ "$(readlink "$L/libnpukit.so.$major")" = "libnpukit.so.$version" ] || fail "libnpukit.so.$major link"
  soname=$(objdump -p "$L/libnpukit.so.$version" | awk '$1 == "SONAME" { print $2 }')
  [ "$soname" = "libnpukit.so.$major" ] || fail "SONAME '$soname', expected libnpukit.so.$major"
  for h in "$src"/include/npukit/*.h; do
    cmp -s "$h" "$P/include/npukit/${h##*/}" || fail "installed header ${h##*/} differs"
  done
  for f in "$src"/sdk/rvnpu/*; do
    case ${f##*/} in CMakeLists.txt) continue ;; esac
    cmp -s "$f" "$P/share/npukit/sdk/rvnpu/${f##*/}" || fail "installed SDK file ${f##*/} differs"
  done
  cmp -s "$src/sv/npukit_dpi.sv" "$P/share/npukit/sv/npukit_dpi.sv" || fail "installed sv/npukit_dpi.sv differs"
  [ "$("$P/bin/npukit" --version)" = "npukit $version" ] || fail "npukit --version: $("$P/bin/npukit" --version)"
  # Nothing installed may name the staging prefix or the source tree (relocatable, standalone).
  if grep -rlI -e "$T/stage" -e "$src" "$L/pkgconfig" "$L/cmake" "$P/share" "$P/include" >"$T/abs"; then
    fail "installed files name an absolute build path: $(cat "$T/abs")"
  fi
  echo "PASS: installed tree, SONAME $soname, npukit $version"
  ;;
pkgconfig)
  command -v pkg-config >/dev/null || fail "pkg-config not found (Debian package pkg-config)"
  export PKG_CONFIG_PATH=$L/pkgconfig
  [ "$(pkg-config --modversion npukit)" = "$version" ] || fail "pkg-config --modversion: $(pkg-config --modversion npukit)"
  libs=$(pkg-config --libs npukit) || fail "pkg-config --libs npukit"
  case " $libs " in *" -lm "*) ;; *) fail "pkg-config --libs lacks -lm: $libs" ;; esac
  mkdir "$T/c" && cp "$here/consumer/consumer.c" "$T/c/"
  cd "$T/c" || fail "cd"
  # shellcheck disable=SC2046
  run "$cc" -std=c11 -Wall -Wextra -Werror -pedantic "${cflags[@]}" $(pkg-config --cflags npukit) \
      consumer.c $libs -o consumer_shared
  objdump -p consumer_shared | grep -q "NEEDED *libnpukit.so.$major\$" || fail "consumer_shared does not need libnpukit.so.$major"
  out=$(LD_LIBRARY_PATH=$L ./consumer_shared) || fail "consumer_shared: $out"
  [ "$out" = "npukit $version: toy sum 1..10 = 55, pccx sync 0" ] || fail "consumer_shared printed: $out"
  # Static: the same flags with the archive named instead of -lnpukit.
  static_libs=$(pkg-config --static --libs npukit)
  # shellcheck disable=SC2046
  run "$cc" -std=c11 -Wall -Wextra -Werror -pedantic "${cflags[@]}" $(pkg-config --cflags npukit) \
      consumer.c ${static_libs/-lnpukit/$(pkg-config --variable=libdir npukit)/libnpukit.a} -o consumer_static
  if objdump -p consumer_static | grep -q "NEEDED *libnpukit"; then fail "consumer_static needs libnpukit.so"; fi
  out=$(./consumer_static) || fail "consumer_static: $out"
  [ "$out" = "npukit $version: toy sum 1..10 = 55, pccx sync 0" ] || fail "consumer_static printed: $out"
  echo "PASS: pkg-config consumer, shared and static: $out"
  ;;
cmake)
  cp -r "$here/consumer" "$T/c"
  run "$cmake" -S "$T/c" -B "$T/c/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="-Wall -Wextra -Werror ${cflags[*]}" -DCMAKE_BUILD_TYPE=Release
  run "$cmake" --build "$T/c/build"
  grep -qx "version=$version" "$T/c/build/package.txt" || fail "package: $(cat "$T/c/build/package.txt")"
  grep -qx "executable=$P/bin/npukit" "$T/c/build/package.txt" || fail "package: $(cat "$T/c/build/package.txt")"
  for v in shared static; do
    out=$("$T/c/build/consumer_$v") || fail "consumer_$v: $out"
    [ "$out" = "npukit $version: toy sum 1..10 = 55, pccx sync 0" ] || fail "consumer_$v printed: $out"
  done
  objdump -p "$T/c/build/consumer_shared" | grep -q "NEEDED *libnpukit.so.$major\$" || fail "consumer_shared does not need libnpukit.so.$major"
  # The version file: a later major version is not compatible.
  mkdir "$T/v" && printf 'cmake_minimum_required(VERSION 3.16)\nproject(v LANGUAGES NONE)\nfind_package(npukit %s REQUIRED)\n' \
    "$((major + 1)).0" >"$T/v/CMakeLists.txt"
  if "$cmake" -S "$T/v" -B "$T/v/build" -DCMAKE_PREFIX_PATH="$P" >"$T/log" 2>&1; then
    fail "find_package(npukit $((major + 1)).0) accepted version $version"
  fi
  echo "PASS: find_package(npukit) consumer, npukit::npukit and npukit::npukit_static: $out"
  ;;
firmware)
  cp -r "$here/firmware" "$T/fw"
  run "$cmake" -S "$T/fw" -B "$T/fw/build" -DCMAKE_PREFIX_PATH="$P"
  grep -q "^RVNPU_SDK_DIR:INTERNAL=$P/share/npukit/sdk/rvnpu\$" "$T/fw/build/CMakeCache.txt" ||
    fail "the helper did not use the installed SDK: $(grep RVNPU_SDK_DIR "$T/fw/build/CMakeCache.txt")"
  run "$cmake" --build "$T/fw/build"
  out=$("$P/bin/npukit" run -t rvnpu "$T/fw/build/firmware/fw.elf") || fail "firmware exit $?: $out"
  [ "$out" = "installed SDK: dot = 6" ] || fail "firmware printed: $out"
  echo "PASS: rvnpu firmware from the installed SDK: $out"
  ;;
dpi)
  vl=${NPK_VERILATOR:-verilator}
  cp -r "$here/dpi" "$T/d"
  cd "$T/d" || fail "cd"
  vlflags=()
  if [ -n "${NPK_VL_CXX:-}" ]; then
    # Debian's verilator is configured for g++ (-fcoroutines); clang takes C++20 instead
    vlflags=(-MAKEFLAGS "CXX=$NPK_VL_CXX" -MAKEFLAGS "LINK=$NPK_VL_CXX"
             -MAKEFLAGS "CFG_CXXFLAGS_COROUTINES=-std=c++20" -CFLAGS -Wno-macro-redefined)
  fi
  # One job, without a parent make's jobserver: this is the slow part of the test.
  run env MAKEFLAGS= "$vl" --binary -Wall -j 1 --top-module dpi_tb --prefix Vdpi_tb -Mdir obj -o dpi_tb \
      "${vlflags[@]}" -CFLAGS "-I$P/include ${cflags[*]}" \
      -LDFLAGS "-L$L -Wl,-rpath,$L ${cflags[*]}" -LDFLAGS "-lnpukit -lm" \
      "$P/share/npukit/sv/npukit_dpi.sv" dpi_tb.sv proto_check.cpp
  objdump -p obj/dpi_tb | grep -q "NEEDED *libnpukit.so.$major\$" || fail "dpi_tb does not need libnpukit.so.$major"
  out=$(./obj/dpi_tb 2>&1) || fail "dpi_tb exit $?: $out"
  case $out in *"PASS: "*" checks of npukit_dpi $version from the installed package"*) ;;
    *) fail "dpi_tb printed: $out" ;; esac
  echo "$out" | grep '^PASS'
  ;;
python)
  py=${NPK_PYTHON:?} pydir=${NPK_PYTHON_DIR:?}
  [ -f "$P/$pydir/npukit/__init__.py" ] || fail "not installed: $pydir/npukit/__init__.py"
  cd "$T" || fail "cd"
  # Each target's program, results derived in the programs' comments: the toy sieve demo
  # (5133 primes below 50000), rvnpu hello (its two lines), opennpu VX3 = 3 + 5, tinytpu
  # psum 0x0300 = 3.0 appended at ub[2] after 7 cycles, pccx GEMV 6.5 and 10.0.
  run env PYTHONPATH="$P/$pydir" PYTHONDONTWRITEBYTECODE=1 "$py" -c "
import sys, npukit
src, prefix = sys.argv[1], sys.argv[2]
m = npukit.Machine('toy', mem='256K'); m.load(src + '/examples/toy/demo.s'); s = m.run()
assert s.reason == 'exit' and '5133' in m.output, (s, m.output)
m = npukit.Machine('rvnpu'); m.load(src + '/examples/rvnpu/hello.elf'); m.run()
assert m.output.count('hello from rvnpu firmware') == 2, m.output
m = npukit.Machine('opennpu', K=4, L=8); m.load(src + '/tests/core/commit/opennpu.s'); m.run()
assert m.read('rf', 12, 4, 'i8').tolist() == [8] * 4
m = npukit.Machine('tinytpu'); m.load(src + '/tests/core/commit/tinytpu.s'); m.run(7)
assert m.read('ub', 4, 1, 'q8.8')[0] == 3.0
m = npukit.Machine('pccx'); m.load(src + '/tests/core/commit/pccx.s'); m.run()
assert m.read('l2', 0x800, 2, 'bf16').tolist() == [6.5, 10.0]
# an ONNX model through the installed library's model API (include/npukit/model.h): the MLP's
# first sample on the host against the NumPy reference
if npukit.model.supported():
    import numpy as np
    sys.path.insert(0, src + '/tests/model/ref')
    import onnx_ref
    x = np.load(src + '/models/onnx/mlp_samples.npy')[:1]
    y, _ = npukit.Model(src + '/models/onnx/mlp.onnx').run(x)
    ref = onnx_ref.run(onnx_ref.load_sidecar(src + '/models/onnx/mlp.npz'), x)
    assert np.abs(y - ref).max() <= 1e-6 + 1e-6 * np.abs(ref).max(), (y, ref)
libs = [l.split()[-1] for l in open('/proc/self/maps') if 'libnpukit.so' in l]
assert libs and all(l.startswith(prefix + '/') for l in libs), libs
assert npukit.__file__.startswith(prefix + '/'), npukit.__file__
print('PASS: npukit', npukit.__version__, 'from', npukit.__file__.rsplit('/', 2)[0])
" "$src" "$P"
  cat "$T/log"
  # Each target's demo program from Python (npukit.demos: the programs `npukit demo` runs,
  # from the package's data/ directory, checked as the command checks them); the figures must
  # be the installed command's.
  names="toy opennpu tinytpu pccx"
  [ -f "$P/$pydir/npukit/data/gemm_i8.elf" ] && names="toy rvnpu opennpu tinytpu pccx"
  run env PYTHONPATH="$P/$pydir" PYTHONDONTWRITEBYTECODE=1 "$py" -c "
import sys, npukit.demos
sys.exit(npukit.demos.main(sys.argv[1:]))
" $names
  cp "$T/log" "$T/pydemo"
  n=$(wc -w <<<"$names")
  grep -q "^npukit demo: $n of $n demos ran as expected" "$T/pydemo" || fail "python demos: $(cat "$T/pydemo")"
  run env -u LD_PRELOAD "$P/bin/npukit" demo $names
  for pat in 'instructions retired in [0-9]* cycles' '[0-9]* ticks; no schedule' \
             'program: [0-9]* cycles' 'NPU: .*' 'gemm checksum 0x[0-9a-f]*'; do
    [ "$(grep -o "$pat" "$T/pydemo" | head -1)" = "$(grep -o "$pat" "$T/log" | head -1)" ] ||
      fail "python and command demos differ in '$pat': $(grep -o "$pat" "$T/pydemo" | head -1) vs $(grep -o "$pat" "$T/log" | head -1)"
  done
  echo "PASS: the demos of $names from the installed package, figures as the installed command's"
  # the installed `npukit sweep` finds the installed package: sum.s exits with 55 at both
  # memory sizes
  printf 'target = "toy"\nprogram = "%s/examples/toy/sum.s"\n[grid]\nmem = ["64K", "128K"]\n' \
    "$src" >"$T/s.toml"
  # (not with the environment's LD_PRELOAD of a sanitizer build: npukit carries its own runtime
  # and preloads the shared one for python3 itself)
  run env -u LD_PRELOAD PYTHONDONTWRITEBYTECODE=1 "$P/bin/npukit" sweep -q -j 1 -o "$T/s" \
    "$T/s.toml"
  [ "$(grep -c ',exit,55,' "$T/s.csv")" = 2 ] || fail "installed npukit sweep: $(cat "$T/s.csv")"
  echo "PASS: installed npukit sweep ran 2 points"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "1 passed, 0 failed"

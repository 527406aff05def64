"""Build and install the npukit Python package with Debian's setuptools, offline:

    make install PREFIX=/usr/local                 # libnpukit first (pkg-config npukit)
    pip install --no-build-isolation ./python      # then the package, over that library

or over a build tree without installing: NPUKIT_BUILD_DIR=$PWD/build pip install
--no-build-isolation ./python (the extension then loads build/libnpukit.so from there).
NPUKIT_SOURCE_DIR names the source tree (its include/) when python/ was copied elsewhere.
`make install` installs the package itself as well (python/CMakeLists.txt); docs/python.md.
"""
import os
import pathlib
import re
import shlex
import subprocess

from setuptools import Extension, setup

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = pathlib.Path(os.environ.get("NPUKIT_SOURCE_DIR", HERE.parent))


def from_build(build):
    build = pathlib.Path(build).resolve()
    if not (build / "libnpukit.so").exists():
        raise SystemExit(f"npukit: no libnpukit.so in NPUKIT_BUILD_DIR={build} (make build)")
    header = SOURCE / "include" / "npukit" / "npukit.h"
    if not header.exists():
        raise SystemExit(f"npukit: no {header}: set NPUKIT_SOURCE_DIR to the source tree")
    version = re.search(r'#define NPK_VERSION_STRING "([0-9.]+)"', header.read_text()).group(1)
    return version, dict(include_dirs=[str(SOURCE / "include")], library_dirs=[str(build)],
                         runtime_library_dirs=[str(build)], libraries=["npukit"])


def from_pkg_config():
    try:
        version = subprocess.run(["pkg-config", "--modversion", "npukit"], check=True,
                                 capture_output=True, text=True).stdout.strip()
        flags = shlex.split(subprocess.run(["pkg-config", "--cflags", "--libs", "npukit"],
                                           check=True, capture_output=True, text=True).stdout)
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("npukit: libnpukit not found: `make install` it first (pkg-config "
                         "npukit must find it: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), or set "
                         "NPUKIT_BUILD_DIR to a build tree")
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    return version, dict(include_dirs=[f[2:] for f in flags if f.startswith("-I")],
                         library_dirs=libdirs, runtime_library_dirs=libdirs,
                         libraries=[f[2:] for f in flags if f.startswith("-l")])


if os.environ.get("NPUKIT_BUILD_DIR"):
    VERSION, FLAGS = from_build(os.environ["NPUKIT_BUILD_DIR"])
else:
    VERSION, FLAGS = from_pkg_config()

setup(
    name="npukit",
    version=VERSION,
    description="Assemblers, disassemblers and exact simulators for small published NPU ISAs",
    license="Apache-2.0",
    packages=["npukit"],
    python_requires=">=3.11",
    install_requires=[],  # NumPy: Debian's python3-numpy (nothing is downloaded)
    ext_modules=[Extension("npukit._core", ["src/_core.c", "src/pccx.c", "src/tinytpu.c", "src/opennpu.c", "src/model.c"], depends=["src/core.h"], extra_compile_args=["-std=c11"],
                           **FLAGS)],
)

#!/usr/bin/env bash
# Build libgpuarray with CMake into $PREFIX (conda-build's build.sh contract).
set -euxo pipefail

mkdir -p build
cd build
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags set by the compiler activation.
cmake ${CMAKE_ARGS:-} .. \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="${PREFIX}" \
    -DCMAKE_INSTALL_LIBDIR=lib
cmake --build . --target all -- -j"${CPU_COUNT:-1}"
cmake --build . --target install

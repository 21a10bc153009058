#!/usr/bin/env bash
# Build pygpu against the libgpuarray installed in $PREFIX (conda-build's build.sh contract).
set -euxo pipefail

export CFLAGS="${CFLAGS:-} -I${PREFIX}/include -L${PREFIX}/lib"
export LDFLAGS="${LDFLAGS:-} -L${PREFIX}/lib -Wl,-rpath,${PREFIX}/lib"
"${PYTHON}" -m pip install . --no-deps --no-build-isolation -vv

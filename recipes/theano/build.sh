#!/usr/bin/env bash
# Install Theano from its sdist into $PREFIX (conda-build's build.sh contract).
set -euxo pipefail

"${PYTHON}" -m pip install . --no-deps --no-build-isolation -vv

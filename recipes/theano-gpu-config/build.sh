#!/usr/bin/env bash
# Install theano-gpu-config into $PREFIX (conda-build's build.sh contract): its
# activation scripts, nothing else. They find the environment's g++ and cuDNN and
# write Theano's config file at activation time, so nothing here depends on a
# compiler, a Python or the install prefix. The same files are what the wheel of
# setup.py (the env files' `pip:` section) puts under sys.prefix.
set -euo pipefail

for change in activate deactivate; do
    mkdir -p "${PREFIX}/etc/conda/${change}.d"
    cp "${RECIPE_DIR}/etc/conda/${change}.d/${PKG_NAME}_${change}.sh" "${PREFIX}/etc/conda/${change}.d/"
done

#!/usr/bin/env bash
# Install theano-gpu-config into $PREFIX (conda-build's build.sh contract): the
# activation scripts, the environment's Theano config file and a Jupyter kernel
# spec. The last two name $PREFIX; conda replaces it at install time.
set -euo pipefail

# The environment's g++: the binary of the cxx compiler package, which is a run
# requirement too (gxx_linux-64 7.3.0: x86_64-conda_cos6-linux-gnu-g++). Its
# activation sets GXX to the g++ and CXX to the c++ of the same compiler;
# Theano wants the g++ name.
gxx="${GXX:-${CXX:?neither GXX nor CXX is set: the cxx compiler must be a build requirement}}"
cxx="${PREFIX}/bin/$(basename "${gxx}")"

for change in activate deactivate; do
    mkdir -p "${PREFIX}/etc/conda/${change}.d"
    cp "${RECIPE_DIR}/${change}.sh" "${PREFIX}/etc/conda/${change}.d/${PKG_NAME}_${change}.sh"
done

mkdir -p "${PREFIX}/etc/theano"
cat > "${PREFIX}/etc/theano/theanorc" <<EOF_RC
# Theano settings of the conda environment ${PREFIX}, from ${PKG_NAME}.
# Activation puts this file last in THEANORC, so these values win over
# ~/.theanorc; THEANO_FLAGS and theano.config assignments still win over them.
[global]
# This environment's g++, not the first g++ on PATH.
cxx = ${cxx}
device = cuda
floatX = float32

[dnn]
# The cudnn package's header and library.
include_path = ${PREFIX}/include
library_path = ${PREFIX}/lib
bin_path = ${PREFIX}/lib
EOF_RC

# Kernels started by Jupyter get no activation: the spec carries the settings.
mkdir -p "${PREFIX}/share/jupyter/kernels/theano-gpu"
cat > "${PREFIX}/share/jupyter/kernels/theano-gpu/kernel.json" <<EOF_KERNEL
{
 "argv": ["${PREFIX}/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
 "display_name": "Python (Theano GPU, ${PREFIX})",
 "language": "python",
 "env": {
  "THEANORC": "~/.theanorc:${PREFIX}/etc/theano/theanorc",
  "MKL_THREADING_LAYER": "GNU",
  "PATH": "${PREFIX}/bin:\${PATH}"
 }
}
EOF_KERNEL

# shellcheck shell=sh
# theano-gpu-config: restore THEANORC and MKL_THREADING_LAYER as they were
# before activation (sourced by `conda deactivate`).

if [ -n "${_THEANO_GPU_CONFIG_THEANORC+set}" ]; then
    THEANORC=$_THEANO_GPU_CONFIG_THEANORC
    export THEANORC
    unset _THEANO_GPU_CONFIG_THEANORC
else
    unset THEANORC
fi

if [ -n "${_THEANO_GPU_CONFIG_MKL_THREADING_LAYER+set}" ]; then
    MKL_THREADING_LAYER=$_THEANO_GPU_CONFIG_MKL_THREADING_LAYER
    export MKL_THREADING_LAYER
    unset _THEANO_GPU_CONFIG_MKL_THREADING_LAYER
else
    unset MKL_THREADING_LAYER
fi

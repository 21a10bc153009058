# shellcheck shell=sh
# theano-gpu-config: point Theano at this conda environment (sourced by
# `conda activate`). This environment's config file goes last in THEANORC, so
# its cxx, cuDNN paths, device and floatX win over ~/.theanorc (THEANO_FLAGS
# still wins over both), and MKL_THREADING_LAYER=GNU as Theano asks.
# deactivate.d restores what was there before.

if [ -n "${THEANORC+set}" ]; then
    _THEANO_GPU_CONFIG_THEANORC=$THEANORC
    export _THEANO_GPU_CONFIG_THEANORC
else
    # Theano's own default list; it expands the ~ itself.
    # shellcheck disable=SC2088
    THEANORC='~/.theanorc'
fi
case ":${THEANORC}:" in
    *":${CONDA_PREFIX}/etc/theano/theanorc:"*) ;;
    *) THEANORC="${THEANORC}:${CONDA_PREFIX}/etc/theano/theanorc" ;;
esac
export THEANORC

if [ -n "${MKL_THREADING_LAYER+set}" ]; then
    _THEANO_GPU_CONFIG_MKL_THREADING_LAYER=$MKL_THREADING_LAYER
    export _THEANO_GPU_CONFIG_MKL_THREADING_LAYER
fi
MKL_THREADING_LAYER=GNU
export MKL_THREADING_LAYER

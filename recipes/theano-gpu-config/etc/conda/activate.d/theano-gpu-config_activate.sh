# shellcheck shell=sh
# theano-gpu-config: point Theano at this conda environment (sourced by
# `conda activate`). At each activation it writes the environment's Theano config
# file, $CONDA_PREFIX/etc/theano/theanorc, from what the environment has now:
#   cxx     the environment's g++: $GXX of its compiler package (gxx_linux-64's
#           activate-gxx_linux-64.sh runs before this file: conda runs activate.d
#           in sorted order), else $CONDA_PREFIX/bin/g++; none: Theano's own choice
#   [dnn]   cuDNN 5.1 ... 7 in the environment (include/cudnn.h without cudnn_version.h):
#           include_path/library_path/bin_path, its folders; cuDNN 8 or newer
#           (cudnn_version.h) or none: enabled = False, with the reason as a comment.
#           Theano 1.0.5 calls functions cuDNN 8 and 9 removed (Theano #6791) and would
#           otherwise pick up a system cuDNN; GpuCorrMM does the convolutions.
#   device = cuda, floatX = float32
# and a Jupyter kernel spec with the same settings. Then THEANORC gets that file
# last, so its values win over ~/.theanorc (THEANO_FLAGS still wins over both),
# and MKL_THREADING_LAYER=GNU as Theano asks. deactivate.d restores both.
# Nothing is compiled or configured at install time: the same file serves every
# Python and every environment, from the conda package or from the wheel that the
# env files' `pip:` section installs.

_theano_gpu_config_cxx=
if [ -n "${GXX:-}" ] && [ -x "${CONDA_PREFIX}/bin/${GXX##*/}" ]; then
    _theano_gpu_config_cxx="${CONDA_PREFIX}/bin/${GXX##*/}"
elif [ -n "${GXX:-}" ] && [ -x "${GXX}" ]; then
    _theano_gpu_config_cxx=$GXX
elif [ -x "${CONDA_PREFIX}/bin/g++" ]; then
    _theano_gpu_config_cxx="${CONDA_PREFIX}/bin/g++"
else
    echo "theano-gpu-config: no g++ in ${CONDA_PREFIX} (conda install gxx_linux-64): Theano will use the first g++ on PATH" >&2
fi
if [ -n "${_theano_gpu_config_cxx}" ]; then
    _theano_gpu_config_cxx="# The g++ of this environment, not the first g++ on PATH.
cxx = ${_theano_gpu_config_cxx}
"
fi

if [ -f "${CONDA_PREFIX}/include/cudnn_version.h" ]; then
    _theano_gpu_config_dnn="# cuDNN 8 or newer in this environment (include/cudnn_version.h): Theano 1.0.5
# calls functions it removed (Theano #6791), so cuDNN is off; GpuCorrMM does the convolutions.
enabled = False"
elif [ -f "${CONDA_PREFIX}/include/cudnn.h" ]; then
    _theano_gpu_config_dnn="# The cudnn package's header and library (cuDNN 7 or older).
include_path = ${CONDA_PREFIX}/include
library_path = ${CONDA_PREFIX}/lib
bin_path = ${CONDA_PREFIX}/lib"
else
    _theano_gpu_config_dnn="# No cuDNN in this environment, and Theano 1.0.5 can use only cuDNN 5.1 ... 7:
# cuDNN is off (not even a system one), GpuCorrMM does the convolutions.
enabled = False"
fi

_theano_gpu_config_rc="${CONDA_PREFIX}/etc/theano/theanorc"
_theano_gpu_config_text="# Theano settings of the conda environment ${CONDA_PREFIX}, written at
# activation by theano-gpu-config (do not edit: the next activation rewrites it).
# Activation puts this file last in THEANORC, so these values win over
# ~/.theanorc; THEANO_FLAGS and theano.config assignments still win over them.
[global]
${_theano_gpu_config_cxx}device = cuda
floatX = float32

[dnn]
${_theano_gpu_config_dnn}"
if [ ! -f "${_theano_gpu_config_rc}" ] || \
        [ "$(cat "${_theano_gpu_config_rc}")" != "${_theano_gpu_config_text}" ]; then
    if ! { mkdir -p "${CONDA_PREFIX}/etc/theano" &&
           printf '%s\n' "${_theano_gpu_config_text}" > "${_theano_gpu_config_rc}.$$" &&
           mv -f "${_theano_gpu_config_rc}.$$" "${_theano_gpu_config_rc}"; } 2>/dev/null; then
        rm -f "${_theano_gpu_config_rc}.$$"
        echo "theano-gpu-config: cannot write ${_theano_gpu_config_rc}: Theano keeps its old settings" >&2
    fi
fi

# Kernels started by Jupyter get no activation: the spec carries the settings.
_theano_gpu_config_kernel="${CONDA_PREFIX}/share/jupyter/kernels/theano-gpu"
_theano_gpu_config_text="{
 \"argv\": [\"${CONDA_PREFIX}/bin/python\", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"],
 \"display_name\": \"Python (Theano GPU, ${CONDA_PREFIX})\",
 \"language\": \"python\",
 \"env\": {
  \"THEANORC\": \"~/.theanorc:${_theano_gpu_config_rc}\",
  \"MKL_THREADING_LAYER\": \"GNU\",
  \"PATH\": \"${CONDA_PREFIX}/bin:\${PATH}\"
 }
}"
if [ ! -f "${_theano_gpu_config_kernel}/kernel.json" ] || \
        [ "$(cat "${_theano_gpu_config_kernel}/kernel.json")" != "${_theano_gpu_config_text}" ]; then
    { mkdir -p "${_theano_gpu_config_kernel}" &&
      printf '%s\n' "${_theano_gpu_config_text}" > "${_theano_gpu_config_kernel}/kernel.json.$$" &&
      mv -f "${_theano_gpu_config_kernel}/kernel.json.$$" "${_theano_gpu_config_kernel}/kernel.json"
    } 2>/dev/null || rm -f "${_theano_gpu_config_kernel}/kernel.json.$$"
fi

if [ -n "${THEANORC+set}" ]; then
    _THEANO_GPU_CONFIG_THEANORC=$THEANORC
    export _THEANO_GPU_CONFIG_THEANORC
else
    # Theano's own default list; it expands the ~ itself.
    # shellcheck disable=SC2088
    THEANORC='~/.theanorc'
fi
case ":${THEANORC}:" in
    *":${_theano_gpu_config_rc}:"*) ;;
    *) THEANORC="${THEANORC}:${_theano_gpu_config_rc}" ;;
esac
export THEANORC

if [ -n "${MKL_THREADING_LAYER+set}" ]; then
    _THEANO_GPU_CONFIG_MKL_THREADING_LAYER=$MKL_THREADING_LAYER
    export _THEANO_GPU_CONFIG_MKL_THREADING_LAYER
fi
MKL_THREADING_LAYER=GNU
export MKL_THREADING_LAYER
unset _theano_gpu_config_cxx _theano_gpu_config_dnn _theano_gpu_config_rc _theano_gpu_config_text _theano_gpu_config_kernel

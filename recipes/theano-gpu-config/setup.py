"""theano-gpu-config as a wheel: the same activation scripts as the conda package.

A wheel's data files land under sys.prefix, i.e. in the conda environment pip runs
in, so ``pip install <this folder>`` (the env files' ``pip:`` section) puts the
scripts in <env>/etc/conda/activate.d and deactivate.d, where ``conda activate``
runs them. The version is meta.yaml's: one source for both packages.

It also builds, with the environment's own gcc, what the published libgpuarray 0.7.6
needs to load a CUDA >= 11 in this environment (shims/build_shims.py decides from the files
the environment has): nvrtc64_91.dll + cublas64_91.dll on Windows, libnvrtc.so /
libcublas.so on Linux where the CUDA package ships only the SONAME. They are data files
of the wheel, so `pip uninstall theano-gpu-config` removes them. Without a compiler it
says so and installs the rest.

Theano from PyPI gets its top-k kernels fixed for GPUs since Volta here too:
theano_gpu_config_topk.py, imported at every start-up by theano-gpu-config.pth in
site-packages, rewrites them when Theano loads them (its docstring says why). gpuforge's conda
build of Theano carries the same change as a patch instead.
"""
import re
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "shims"))
import build_shims as shims  # noqa: E402  (shims/build_shims.py, beside this file)

PLATFORM = "win-64" if sys.platform == "win32" else "linux-64"
BUILT = HERE / "build" / "shims"
VERSION = re.search(r'{% set version = "([^"]+)" %}', (HERE / "meta.yaml").read_text()).group(1)
SCRIPTS = {change: sorted(str(p.relative_to(HERE)) for p in (HERE / "etc" / "conda" / f"{change}.d").iterdir())
           for change in ("activate", "deactivate")}

try:
    LIBS = [str(Path(p).relative_to(HERE)) for p in shims.build(sys.prefix, PLATFORM, out=str(BUILT))]
except (RuntimeError, OSError) as exc:
    print("theano-gpu-config: WARNING: " + str(exc) + ": libgpuarray 0.7.6 will not find this "
          "environment's CUDA", file=sys.stderr)
    LIBS = []
LIB_DIR = "Library/bin" if PLATFORM == "win-64" else "lib"
PTH = "theano-gpu-config.pth"


class BuildWithPth(build_py):
    """The .pth lands beside the module in site-packages, where Python runs its import line."""

    def run(self):
        super().run()
        self.copy_file(str(HERE / PTH), str(Path(self.build_lib) / PTH))

setup(
    name="theano-gpu-config",
    version=VERSION,
    description="Configures Theano 1.0 for the conda environment it is installed in (g++, cuDNN, device)",
    license="BSD-3-Clause",
    py_modules=["theano_gpu_config_topk"],
    cmdclass={"build_py": BuildWithPth},
    data_files=[(f"etc/conda/{change}.d", files) for change, files in SCRIPTS.items()]
    + ([(LIB_DIR, LIBS)] if LIBS else []),
    zip_safe=False,
)

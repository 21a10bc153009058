"""theano-gpu-config as a wheel: the same activation scripts as the conda package.

A wheel's data files land under sys.prefix, i.e. in the conda environment pip runs
in, so ``pip install <this folder>`` (the env files' ``pip:`` section) puts the
scripts in <env>/etc/conda/activate.d and deactivate.d, where ``conda activate``
runs them. The version is meta.yaml's: one source for both packages.
"""
import re
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
VERSION = re.search(r'{% set version = "([^"]+)" %}', (HERE / "meta.yaml").read_text()).group(1)
SCRIPTS = {change: sorted(str(p.relative_to(HERE)) for p in (HERE / "etc" / "conda" / f"{change}.d").iterdir())
           for change in ("activate", "deactivate")}

setup(
    name="theano-gpu-config",
    version=VERSION,
    description="Configures Theano 1.0 for the conda environment it is installed in (g++, cuDNN, device)",
    license="BSD-3-Clause",
    py_modules=[],
    data_files=[(f"etc/conda/{change}.d", files) for change, files in SCRIPTS.items()],
    zip_safe=False,
)

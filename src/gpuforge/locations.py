"""Where gpuforge finds what it reads: every data location, named once.

Three kinds, found three ways, the same from a checkout and from an installed wheel:

- **Package data** ships inside the wheel and is found beside this module: the failure
  catalog, the GPU table, the mirrors, the published records, the scripts run under the
  interpreter being examined (``inside/``) and the mock driver's C sources.
- **Repository content** (``envs/``, ``recipes/``, ``ci/``: what a checkout of gpuforge holds
  and a user edits) is found in the working folder or named by a flag; where a command needs
  it and it is absent, the error names the flag (``repository_dir``).
- **The user's machine**: the cache (``$GPUFORGE_CACHE``, else ``$XDG_CACHE_HOME/gpuforge``
  or ``~/.cache/gpuforge``) and the conda tools' wheels (``$GPUFORGE_CONDA_TOOLS``).
"""

from __future__ import annotations

import os
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import home

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE / "data"

CATALOG = PACKAGE / "doctor" / "catalog.yaml"  # the failure catalog (doctor/catalog.py)
GPU_ENVS = DATA / "gpu-envs.yaml"  # which GPU env file for which GPU and driver
MIRRORS = DATA / "mirrors.yaml"  # the channel mirrors; envs/mirrors/*.condarc are made from it
RECORDS = DATA / "records.yaml"  # the published conda records the env files are solved on
THEANO_API = DATA / "theano_api.json"  # the Theano release adding each name (tools/theano_api.py)
PYPI_WHEELS = DATA / "pypi_wheels.json"  # torch's and mxnet's releases on PyPI (tools/pypi_wheels.py)
INSIDE = PACKAGE / "inside"  # run by the interpreter being examined: stdlib only, Python 2.7+
MOCKGPU = PACKAGE / "smoke" / "mockgpu"  # the mock CUDA driver's C sources

# Repository content: (folder in the working folder, the flag that names it elsewhere)
ENVS_DIR = ("envs", "--envs-dir")
RECIPES_DIR = ("recipes", "--recipes-dir")

CACHE_ENV = "GPUFORGE_CACHE"
CONDA_TOOLS_ENV = "GPUFORGE_CONDA_TOOLS"


def shown(path: Path) -> str:
    """A data file as output names it: gpuforge's own as ``gpuforge's data/records.yaml`` (the
    same from a checkout and from an install), another as its path."""
    try:
        return f"gpuforge's {Path(path).resolve().relative_to(PACKAGE).as_posix()}"
    except ValueError:
        return str(path)


def inside_script(name: str) -> Path:
    """One of the scripts run under the interpreter being examined (``probe.py``, ...)."""
    return INSIDE / name


def cache_dir() -> Path:
    """``$GPUFORGE_CACHE``, else ``$XDG_CACHE_HOME/gpuforge``, else ``~/.cache/gpuforge``."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or home() / ".cache") / "gpuforge"


def conda_tools_dir() -> Path | None:
    """``$GPUFORGE_CONDA_TOOLS``: a folder of conda, conda-build and conda-smithy wheels."""
    chosen = os.environ.get(CONDA_TOOLS_ENV)
    return Path(chosen) if chosen else None


def repository_dir(given: Path | None, kind: tuple[str, str], *, needed: bool = True) -> Path | None:
    """A repository folder (``ENVS_DIR``, ``RECIPES_DIR``): the flag's, else ``./envs`` ...

    A flag naming no folder is an error naming the flag; without the flag and without the
    folder here, the error says to run from a checkout or pass the flag (``needed``), or the
    answer is None (a command that runs without it).
    """
    folder, flag = kind
    if given is not None:
        if not Path(given).is_dir():
            raise GpuforgeError(f"{flag} {given}: no such folder")
        return Path(given)
    here = Path(folder)
    if here.is_dir():
        return here
    if not needed:
        return None
    raise GpuforgeError(
        f"no {folder}/ folder here ({Path.cwd()}): run from a gpuforge checkout or pass {flag} DIR"
    )

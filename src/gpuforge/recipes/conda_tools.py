"""The real conda-build, conda-render and conda-smithy, where conda is absent.

conda, conda-build and conda-smithy are not on PyPI. ``$GPUFORGE_CONDA_TOOLS`` names a folder of
wheels (the noxfile sets it to ``shared/vendor/conda-tools`` beside the checkout, where that is) that
holds wheels built unmodified from their release tags
and an install.sh that adds the rest from PyPI; its README gives the tags and commits. The venv is
made once, under the gpuforge cache, keyed by the hashes of those wheels and install.sh. Where
they are absent, the tools on PATH (a conda installation with conda-build and conda-smithy) serve.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gpuforge import locations, processes
from gpuforge.errors import GpuforgeError
from gpuforge.locks import FileLock
from gpuforge.downloads import sha256_of

VENDOR_ENV = locations.CONDA_TOOLS_ENV
# The releases vendored there (shared/vendor/conda-tools/README.md: tags 26.7.1 of conda/conda-build
# and v3.60.0 of conda-forge/conda-smithy); the same ones a user with internet installs.
CONDA_BUILD_VERSION = "26.7.1"
CONDA_SMITHY_VERSION = "3.60.0"
HOW_TO_GET = (
    f"with internet, install Miniforge (https://github.com/conda-forge/miniforge) and run "
    f"`conda install -n base conda-build=={CONDA_BUILD_VERSION} conda-smithy=={CONDA_SMITHY_VERSION}`, "
    f"or set ${VENDOR_ENV} to a copy of shared/vendor/conda-tools (wheels of those releases)"
)
# Read by conda only from a file whose name ends in .yml (vendor README). The rattler solver is
# the one on PyPI that solves conda-build's environments; no channel unless a caller adds one.
CONDARC = "solver: rattler\nchannels: []\nauto_update_conda: false\nnotify_outdated_conda: false\n"
COMPLETE = ".gpuforge-complete"
INSTALL_TIMEOUT_S = 900


@dataclass(frozen=True)
class CondaTools:
    """Paths of the real tools, and the environment to run them in."""

    render: Path          # conda-render
    build: Path           # conda-build (same as `conda build`)
    smithy: Path          # conda-smithy
    python: Path          # the interpreter that imports conda_build (its Python API)
    condarc: Path | None  # None: the installation's own configuration (tools from PATH)

    def env(self, work: Path) -> dict[str, str]:
        """os.environ with this installation's condarc and package cache + build root under ``work``."""
        env = dict(os.environ)
        if self.condarc is not None:
            env["CONDARC"] = str(self.condarc)
            env["CONDA_PKGS_DIRS"] = str(work / "pkgs")
            env["CONDA_BLD_PATH"] = str(work / "conda-bld")  # conda_build/config.py: Config.croot
        return env


def vendor_dir() -> Path | None:
    return locations.conda_tools_dir()


def _venv_key(vendor: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([*vendor.glob("*.whl"), vendor / "install.sh"]):
        digest.update(f"{path.name} {sha256_of(path)}\n".encode())
    return digest.hexdigest()[:16]


def _from_vendor(vendor: Path, cache: Path) -> CondaTools:
    venv = cache / "conda-tools" / _venv_key(vendor)
    with FileLock(venv.parent / f"{venv.name}.lock", f"the conda tools' venv {venv}"):  # one maker
        tools = [venv / "bin" / name for name in ("python", "conda-render", "conda-build", "conda-smithy")]
        if not ((venv / COMPLETE).exists() and all(t.exists() for t in tools)):
            shutil.rmtree(venv, ignore_errors=True)  # half-made (an interrupted run) or damaged
            print(f"conda tools: making {venv} from {vendor} and PyPI (once, about a minute)",
                  file=sys.stderr)
            try:
                proc = processes.run(
                    ["bash", str(vendor / "install.sh"), str(venv)],
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=INSTALL_TIMEOUT_S,
                    progress=lambda s: print(f"conda tools: still installing ({s:.0f} s)", file=sys.stderr),
                )
            except processes.TimedOut as exc:
                shutil.rmtree(venv, ignore_errors=True)
                raise GpuforgeError(f"{exc.line()} (a hung pip or a slow index): run it again") from None
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                shutil.rmtree(venv, ignore_errors=True)
                raise GpuforgeError(f"{vendor / 'install.sh'} failed ({last}); it needs PyPI for "
                                    f"py-rattler-build and the tools' other dependencies; {HOW_TO_GET}")
            (venv / "condarc.yml").write_text(CONDARC)
            (venv / COMPLETE).write_text("")
    bin_dir = venv / "bin"
    return CondaTools(render=bin_dir / "conda-render", build=bin_dir / "conda-build",
                      smithy=bin_dir / "conda-smithy", python=bin_dir / "python",
                      condarc=venv / "condarc.yml")


def conda_tools(cache: Path | None = None) -> CondaTools:
    """The real tools: the vendored releases' venv (made on first use), else those on PATH."""
    vendor = vendor_dir()
    if vendor is not None and (vendor / "install.sh").is_file() and sys.platform != "win32":  # bash
        return _from_vendor(vendor, cache or locations.cache_dir())
    found = {name: shutil.which(name) for name in ("conda-render", "conda-build", "conda-smithy")}
    paths = {name: Path(path) for name, path in found.items() if path}
    if len(paths) == len(found):
        build = paths["conda-build"]
        return CondaTools(render=paths["conda-render"], build=build, smithy=paths["conda-smithy"],
                          python=build.parent / "python", condarc=None)
    missing = ", ".join(name for name in found if name not in paths)
    where = f"no {vendor}" if vendor is not None else "no folder"
    raise GpuforgeError(
        f"the real conda tools are missing: {where} (${VENDOR_ENV}) and no {missing} on PATH; {HOW_TO_GET}"
    )

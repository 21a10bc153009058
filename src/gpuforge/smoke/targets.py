"""The environments gpu_smoke proves, declared in one place, and how to make them.

Local targets run for real on a Linux host without conda:
- ``cpu``: pyenv's Python 3.7 + numpy 1.19.5 + scipy 1.7.3 + Theano 1.0.5 from PyPI;
- ``opencl``: the system python3 with Debian's python3-pygpu + libgpuarray and
  pocl's OpenCL CPU device, in a venv with the system site packages and the
  pins that make Theano 1.0.5 work on Python 3.11 (FACTS.md);
- ``torch``: the system python3 with PyTorch 2.13.0's CPU build (from a local
  wheel) beside Theano, for the torch check and the torch._C shadow test;
- ``cuda``: the same stack as ``opencl`` on ``device=cuda0``, where an NVIDIA
  driver is present.
Conda targets are the env files in envs/ for the host's platform, created
with conda, mamba or micromamba when one is installed.

Each environment lives under the cache (``~/.cache/gpuforge/targets``), in a
folder named by a hash of its spec: a changed pin makes a new folder (and a
new Theano compile cache), so a stale environment cannot hide a failure.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.sources import default_cache_dir

APT = "apt-get install -y $(grep -v '^#' ci/apt-packages.txt)  (as root)"
CONDA_TOOLS = ("micromamba", "mamba", "conda")
READY_MARK = ".gpuforge-ready"


@dataclass(frozen=True)
class Target:
    """One environment to prove: how to make it and which Theano device it uses."""

    name: str
    description: str
    python: str  # "pyenv:3.7", an absolute path, or "conda" (from the env file)
    device: str
    theano_flags: tuple[str, ...] = ()
    pip: tuple[str, ...] = ()
    system_site_packages: bool = False
    needs: tuple[str, ...] = ()  # names of NEEDS entries
    env_file: str | None = None
    require_cuda: bool = False

    def spec_hash(self) -> str:
        """Hash of what the environment is made of (not the run-time flags)."""
        spec = [self.python, self.pip, self.system_site_packages, self.env_file]
        return hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:12]


# The local targets. Pins: FACTS.md ("Measured on this kind of machine").
CPU = Target(
    name="cpu",
    description="pyenv Python 3.7 + numpy 1.19.5 + scipy 1.7.3 + Theano 1.0.5 + mxnet 1.9.1, device=cpu",
    python="pyenv:3.7",
    device="cpu",
    # mxnet's CPU wheel: the mxnet check runs for real and shows what mx.gpu() says without CUDA
    pip=("numpy==1.19.5", "scipy==1.7.3", "six==1.16.0", "Theano==1.0.5", "mxnet==1.9.1"),
    needs=("pyenv-3.7", "g++"),
)
OPENCL = Target(
    name="opencl",
    description="system python3 + Debian python3-pygpu/libgpuarray + pocl, device=opencl0:0",
    python="/usr/bin/python3",
    device="opencl0:0",
    # numpy < 1.24 for Theano; blas.ldflags set: numpy 1.23's distutils has no
    # blas_opt_info on 3.11; local_gpua_gemv excluded: GpuGemv through CLBlast
    # leaks NaN from uninitialised memory (opencl_gemv_beta0).
    theano_flags=("blas.ldflags=", "optimizer_excluding=local_gpua_gemv"),
    pip=("numpy==1.23.5", "scipy==1.10.1", "six==1.16.0", "Theano==1.0.5"),
    system_site_packages=True,
    needs=("system-pygpu", "opencl-icd", "g++"),
)
LOCAL_TARGETS = (
    CPU,
    OPENCL,
    replace(
        OPENCL,
        name="torch",
        description="system python3 + PyTorch 2.13.0 (CPU build) + Theano 1.0.5, device=cpu",
        device="cpu",
        theano_flags=("blas.ldflags=",),
        # Only from a local wheel: from the index, torch pulls GBs of CUDA packages.
        pip=(*OPENCL.pip, "torch==2.13.0"),
        system_site_packages=False,
        needs=("torch-wheel", "g++"),
    ),
    # The opencl environment itself (same pins, same folder) on the NVIDIA GPU.
    replace(
        OPENCL,
        name="cuda",
        description="system python3 + Debian python3-pygpu/libgpuarray on an NVIDIA GPU, device=cuda0",
        device="cuda0",
        theano_flags=("blas.ldflags=",),
        needs=("system-pygpu", "nvidia-driver", "g++"),
        require_cuda=True,
    ),
)


@dataclass(frozen=True)
class Interpreter:
    """An interpreter's ``major.minor`` and pointer size, read by running it."""

    path: str
    version: str
    bits: int

    @classmethod
    def probe(cls, path: str) -> Interpreter:
        code = "import sys, struct; print('%d.%d' % sys.version_info[:2]); print(struct.calcsize('P') * 8)"
        try:
            proc = subprocess.run([path, "-c", code], capture_output=True, text=True, timeout=60)
        except OSError as exc:
            raise GpuforgeError(f"cannot run {path}: {exc.strerror}") from None
        lines = proc.stdout.split()
        if proc.returncode != 0 or len(lines) != 2:
            raise GpuforgeError(f"{path} did not run: {proc.stderr.strip()[-200:]}")
        return cls(path, lines[0], int(lines[1]))


def pyenv_python(minor: str) -> str | None:
    """Path of pyenv's newest ``python<minor>`` (e.g. "3.7"), or None."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = sorted(root.glob(f"{minor}.*/bin/python{minor}"),
                   key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()])
    return str(found[-1]) if found else None


def _system_pygpu() -> bool:
    if not Path("/usr/bin/python3").exists():
        return False
    proc = subprocess.run(["/usr/bin/python3", "-c", "import pygpu"], capture_output=True)
    return proc.returncode == 0


def _nvidia_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def _local_wheel(pattern: str) -> bool:
    """Is a wheel matching ``pattern`` in pip's find-links folders (PIP_FIND_LINKS)?"""
    folders = os.environ.get("PIP_FIND_LINKS", "").split()
    return any(list(Path(f).glob(pattern)) for f in folders if Path(f).is_dir())


def conda_tool() -> str | None:
    """The first of micromamba, mamba, conda on PATH."""
    return next((t for t in CONDA_TOOLS if shutil.which(t)), None)


# name -> (is it there?, what is missing and the command that provides it)
NEEDS: dict[str, tuple[Callable[[], bool], str]] = {
    "pyenv-3.7": (lambda: pyenv_python("3.7") is not None,
                  "pyenv's Python 3.7 is missing: `pyenv install 3.7.16`"),
    "g++": (lambda: shutil.which("g++") is not None,
            "no g++ on PATH (Theano compiles with it): `apt-get install -y g++`"),
    "system-pygpu": (_system_pygpu,
                     f"Debian's python3-pygpu is not importable by /usr/bin/python3: `{APT}`"),
    "opencl-icd": (lambda: any(Path("/etc/OpenCL/vendors").glob("*.icd")),
                   f"no OpenCL driver (/etc/OpenCL/vendors/*.icd): `{APT}` (pocl-opencl-icd)"),
    "torch-wheel": (lambda: _local_wheel("torch-2.13.0+cpu-*.whl"),
                    "no local CPU wheel of torch 2.13.0 in $PIP_FIND_LINKS: `pip download "
                    "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu -d DIR`, "
                    "then PIP_FIND_LINKS=DIR"),
    "nvidia-driver": (_nvidia_driver,
                      "no NVIDIA driver (libcuda.so.1 does not load): run on a machine with an "
                      "NVIDIA GPU and its driver"),
    "conda": (lambda: conda_tool() is not None,
              "no conda, mamba or micromamba on PATH: install Miniforge "
              "(https://github.com/conda-forge/miniforge) and run again"),
}


def host_platform() -> str:
    return "win-64" if sys.platform.startswith("win") else "linux-64"


def conda_targets(envs_dir: Path) -> list[Target]:
    """One target per env file of the host's platform (``envs/*-linux64.yml``)."""
    suffix = host_platform().replace("-", "")
    return [
        Target(name=f"env:{path.stem}", description=f"conda env from {path.as_posix()}",
               python="conda", device="cuda" if path.stem.startswith("gpu") else "cpu",
               needs=("conda",), env_file=str(path), require_cuda=path.stem.startswith("gpu"))
        for path in sorted(Path(envs_dir).glob(f"*-{suffix}.yml"))
    ]


def all_targets(envs_dir: Path) -> list[Target]:
    return [*LOCAL_TARGETS, *conda_targets(envs_dir)]


def missing_needs(target: Target) -> list[str]:
    """What the host lacks for ``target``, each with the command that provides it."""
    return [NEEDS[n][1] for n in target.needs if not NEEDS[n][0]()]


@dataclass
class TargetEnv:
    """A made environment: its python, folder and the flags checks run with."""

    target: Target
    root: Path
    python: Path
    created: bool
    seconds: float
    log: list[str] = field(default_factory=list)

    @property
    def compiledir(self) -> Path:
        return self.root / "theano-compiledir"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "THEANO_FLAGS", "THEANORC")}
        flags = [f"device={self.target.device}", "floatX=float32",
                 f"base_compiledir={self.compiledir}", *self.target.theano_flags]
        env["THEANO_FLAGS"] = ",".join(flags)
        env["THEANORC"] = str(self.root / "theanorc")  # an empty file: no user config leaks in
        env["MKL_THREADING_LAYER"] = "GNU"
        return env


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join("    | " + ln for ln in (proc.stdout + proc.stderr).splitlines()[-12:])
        raise GpuforgeError(f"`{' '.join(cmd)}` failed (exit {proc.returncode}):\n{tail}")


def ensure_env(target: Target, cache_dir: Path | None = None, channel: Path | None = None,
               fresh: bool = False, say: Callable[[str], None] = print) -> TargetEnv:
    """Create ``target``'s environment, or reuse it when its spec is unchanged."""
    cache_dir = Path(cache_dir or default_cache_dir())
    safe = target.name.replace(":", "-")
    root = cache_dir / "targets" / f"{safe}-{target.spec_hash()}"
    python = root / ("python.exe" if host_platform() == "win-64" else "bin/python")
    ready = root / READY_MARK
    start = time.monotonic()
    if ready.exists() and python.exists() and not fresh:
        return TargetEnv(target, root, python, False, time.monotonic() - start)
    if root.exists():
        shutil.rmtree(root)
    if target.python == "conda":
        _create_conda(target, root, channel, say)
    else:
        _create_venv(target, root, say)
    (root / "theanorc").write_text("", encoding="utf-8")
    ready.write_text(json.dumps(asdict(target), sort_keys=True), encoding="utf-8")
    return TargetEnv(target, root, python, True, time.monotonic() - start)


def _create_venv(target: Target, root: Path, say: Callable[[str], None]) -> None:
    base = pyenv_python(target.python.split(":", 1)[1]) if target.python.startswith("pyenv:") \
        else target.python
    if base is None:
        raise GpuforgeError(f"target {target.name}: no interpreter for {target.python}")
    cmd = [base, "-m", "venv", str(root)]
    if target.system_site_packages:
        cmd.insert(3, "--system-site-packages")
    say(f"creating venv {root} from {base}")
    _run(cmd)
    if target.pip:
        say(f"pip install {' '.join(target.pip)}")
        _run([str(root / "bin" / "python"), "-m", "pip", "install", "-q",
              "--disable-pip-version-check", *target.pip])


CONDA_LOCK = threading.Lock()  # conda tools share one package cache: one create at a time


def _create_conda(target: Target, root: Path, channel: Path | None,
                  say: Callable[[str], None]) -> None:
    tool = conda_tool()
    if tool is None:
        raise GpuforgeError(NEEDS["conda"][1])
    env_file = Path(str(target.env_file))
    if channel:
        from gpuforge.ci.workflow import local_env_file

        env_file = local_env_file(env_file, channel, root.with_suffix(".yml"))
    say(f"{tool}: creating {root} from {target.env_file}" + (f" + {channel}" if channel else ""))
    create = [tool, "create", "-y"] if tool == "micromamba" else [tool, "env", "create"]
    with CONDA_LOCK:
        _run([*create, "-p", str(root), "-f", str(env_file)])

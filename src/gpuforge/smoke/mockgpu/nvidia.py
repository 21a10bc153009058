"""NVIDIA's NVRTC and ptxas from their PyPI wheels: pinned files, fetched once into the cache.

Each url and sha256 is the one PyPI's simple index publishes for the file
(https://pypi.org/simple/<project>/, read 2026-11-24). The wheels are NVIDIA's own builds:
``nvidia/cuda_nvrtc/lib/libnvrtc.so.*`` (Linux, SONAME only: no unversioned ``libnvrtc.so``)
and ``nvidia/cuda_nvrtc/bin/nvrtc64_*.dll`` (Windows); ptxas is ``nvidia/cuda_nvcc/bin/ptxas``.
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuforge import locations
from gpuforge.downloads import Source, fetch
from gpuforge.errors import GpuforgeError

FILES = "https://files.pythonhosted.org/packages/"


@dataclass(frozen=True)
class Nvrtc:
    """One NVRTC release: its Linux and Windows wheels and the names the libraries have."""

    version: str  # "12.9"
    linux: Source
    windows: Source
    soname: str  # libnvrtc.so.12
    dll: str  # nvrtc64_120_0.dll
    in_tests: bool  # part of `nox -s tests` (else the longer `nox -s mockgpu`)


NVRTC = (
    # NVRTC 11.7 knows compute_35 ... 87 (not 89/90): "an NVRTC that lacks the arch" of an Ada/Hopper
    Nvrtc(
        "11.7",
        Source(
            FILES + "ea/8d/0709ba16c2831c17ec1c2ea1eeb89ada11ffa8d966d773cce0a7463b22bb/"
            "nvidia_cuda_nvrtc_cu11-11.7.99-py3-none-manylinux1_x86_64.whl",
            "f7d9610d9b7c331fa0da2d1b2858a4a8315e6d49765091d28711c8946e7425e7",
        ),
        Source(
            FILES + "9e/10/c9fc448f33d439981d6a74b693526871c4ef13e8d81a7b4de12e3a12a1b9/"
            "nvidia_cuda_nvrtc_cu11-11.7.99-py3-none-win_amd64.whl",
            "f2effeb1309bdd1b3854fc9b17eaf997808f8b25968ce0c7070945c4265d64a3",
        ),
        "libnvrtc.so.11.2",
        "nvrtc64_112_0.dll",
        in_tests=False,
    ),
    Nvrtc(
        "11.8",
        Source(
            FILES + "83/08/a9833e4e9f9165bedb7f36033b47aa399b053b9cb2eaf7b84d1e28705cf7/"
            "nvidia_cuda_nvrtc_cu11-11.8.89-py3-none-manylinux1_x86_64.whl",
            "1f27d67b0f72902e9065ae568b4f6268dfe49ba3ed269c9a3da99bb86d1d2008",
        ),
        Source(
            FILES + "c9/19/17745076214b0cc985cfdbabe2b3108f1237704985dab5b748e48432aca1/"
            "nvidia_cuda_nvrtc_cu11-11.8.89-py3-none-win_amd64.whl",
            "e18a23a8f4064664a6f1c4a64f38c581cbebfb5935280e94a4943ea8ae3791b1",
        ),
        "libnvrtc.so.11.2",
        "nvrtc64_112_0.dll",
        in_tests=True,
    ),
    Nvrtc(
        "12.0",
        Source(
            FILES + "1b/63/f85b7f22e0c6d4ae44287986eedf5956b20fe4150a518563d0db73360ace/"
            "nvidia_cuda_nvrtc_cu12-12.0.140-py3-none-manylinux1_x86_64.whl",
            "8e94e991d85c422de4da87bdc7472fdc1364367bd4aace7000b559cd33122071",
        ),
        Source(
            FILES + "e3/5d/a96c6ac367017cdd2e5853ed12db845e0265666fd12257f9f9324418ba45/"
            "nvidia_cuda_nvrtc_cu12-12.0.140-py3-none-win_amd64.whl",
            "5fb35744e31365b684731ca5b52d7fbb429f7dbfa7d0cceeeeeb5e04c73a36fa",
        ),
        "libnvrtc.so.12",
        "nvrtc64_120_0.dll",
        in_tests=False,
    ),
    Nvrtc(
        "12.9",
        Source(
            FILES + "b8/85/e4af82cc9202023862090bfca4ea827d533329e925c758f0cde964cb54b7/"
            "nvidia_cuda_nvrtc_cu12-12.9.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
            "210cf05005a447e29214e9ce50851e83fc5f4358df8b453155d5e1918094dcb4",
        ),
        Source(
            FILES + "52/de/823919be3b9d0ccbf1f784035423c5f18f4267fb0123558d58b813c6ec86/"
            "nvidia_cuda_nvrtc_cu12-12.9.86-py3-none-win_amd64.whl",
            "72972ebdcf504d69462d3bcd67e7b81edd25d0fb85a2c46d3ea3517666636349",
        ),
        "libnvrtc.so.12",
        "nvrtc64_120_0.dll",
        in_tests=True,
    ),
    Nvrtc(
        "13.0",
        Source(
            FILES + "c3/68/483a78f5e8f31b08fb1bb671559968c0ca3a065ac7acabfc7cee55214fd6/"
            "nvidia_cuda_nvrtc-13.0.88-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
            "ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575",
        ),
        Source(
            FILES + "4a/af/345fedb9f4c76c84ab4fa445b36bd4048a4d9db60e6bc76b4f913ff4b852/"
            "nvidia_cuda_nvrtc-13.0.88-py3-none-win_amd64.whl",
            "6bcd4e7f8e205cbe644f5a98f2f799bef9556fefc89dd786e79a16312ce49872",
        ),
        "libnvrtc.so.13",
        "nvrtc64_130_0.dll",
        in_tests=False,
    ),
)
# ptxas of CUDA 12.9: assembles sm_50 ... sm_120 from PTX ISA <= 8.8 (NVRTC <= 12.9's PTX)
PTXAS = Source(
    FILES + "25/48/b54a06168a2190572a312bfe4ce443687773eb61367ced31e064953dd2f7/"
    "nvidia_cuda_nvcc_cu12-12.9.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
    "5d6a0d32fdc7ea39917c20065614ae93add6f577d840233237ff08e9a38f58f0",
)
PTXAS_VERSION = "12.9"


def nvrtc(version: str) -> Nvrtc:
    return next(n for n in NVRTC if n.version == version)


def _unpacked(source: Source, cache_dir: Path, say: Callable[[str], None]) -> Path:
    """The wheel's libraries and programs (not its headers), unpacked once into the cache."""
    dest = cache_dir / "mockgpu" / "wheels" / source.sha256[:16]
    done = dest / ".unpacked"
    if not done.exists():
        wheel = fetch(source, cache_dir, say=say)
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if (
                    info.filename.startswith("nvidia/")
                    and "/include/" not in info.filename
                    and not info.is_dir()
                ):
                    Path(zf.extract(info, tmp)).chmod(0o755)
        shutil.rmtree(dest, ignore_errors=True)
        tmp.rename(dest)
        done.write_text(source.url + "\n", encoding="utf-8")
    return dest


def _folder_of(root: Path, name: str, source: Source) -> Path:
    found = sorted(root.rglob(name))
    if not found:
        raise GpuforgeError(f"no {name} in {source.filename}", source.url)
    return found[0].parent


def linux_nvrtc(version: str, cache_dir: Path | None = None, say: Callable[[str], None] = print) -> Path:
    """The folder holding NVIDIA's ``libnvrtc.so.*`` (and its builtins) of ``version``."""
    n = nvrtc(version)
    return _folder_of(_unpacked(n.linux, cache_dir or locations.cache_dir(), say), n.soname, n.linux)


def windows_nvrtc(version: str, cache_dir: Path | None = None, say: Callable[[str], None] = print) -> Path:
    """The folder holding NVIDIA's ``nvrtc64_*.dll`` (and its builtins DLL) of ``version``."""
    n = nvrtc(version)
    return _folder_of(_unpacked(n.windows, cache_dir or locations.cache_dir(), say), n.dll, n.windows)


def ptxas(cache_dir: Path | None = None, say: Callable[[str], None] = print) -> Path:
    """NVIDIA's ptxas (CUDA 12.9) from the nvidia-cuda-nvcc-cu12 wheel."""
    return _folder_of(_unpacked(PTXAS, cache_dir or locations.cache_dir(), say), "ptxas", PTXAS) / "ptxas"

"""theano-gpu-config's NVRTC shim and cuBLAS forwarder (recipes/theano-gpu-config/shims/):
what each environment gets, built for real with gcc and mingw-w64, their exports, and
their behaviour against NVIDIA's real NVRTC 11.8 (PyPI's nvidia-cuda-nvrtc-cu11 wheels, pinned
in gpuforge.smoke.mockgpu.nvidia),
on Linux and on Windows under Wine, driven the way libgpuarray 0.7.6 calls them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT

from gpuforge import locations
from gpuforge.smoke.mockgpu import nvidia  # the pinned PyPI wheels of NVIDIA's NVRTC
from gpuforge.interpreters import WINE, WINE_INSTALL

SHIMS = RECIPES / "theano-gpu-config" / "shims"
DATA = ROOT / "tests" / "data" / "shims"
sys.path.insert(0, str(SHIMS))
import build_shims as shims  # noqa: E402  (recipes/theano-gpu-config/shims/build_shims.py)

MINGW = shutil.which("x86_64-w64-mingw32-gcc")
OBJDUMP = shutil.which("x86_64-w64-mingw32-objdump")
NVRTC_NAMES = {"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcDestroyProgram", "nvrtcGetProgramLog",
               "nvrtcGetProgramLogSize", "nvrtcGetPTX", "nvrtcGetPTXSize", "nvrtcGetErrorString",
               "nvrtcVersion", "nvrtcGetNumSupportedArchs", "nvrtcGetSupportedArchs",
               "gpuforge_nvrtc_shim_clamp"}
# libgpuarray 0.7.6's src/loaders/libcublas.fn, the _v2 names as it looks them up
CUBLAS_NAMES = {"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasSetPointerMode_v2",
                "cublasGetPointerMode_v2", "cublasSetAtomicsMode", "cublasSdot_v2", "cublasDdot_v2",
                "cublasSgemm_v2", "cublasDgemm_v2", "cublasSgemv_v2", "cublasDgemv_v2", "cublasSger_v2",
                "cublasDger_v2", "cublasSgemmEx", "cublasGemmEx", "cublasSgemmBatched",
                "cublasDgemmBatched", "cublasHgemmStridedBatched", "cublasSgemmStridedBatched",
                "cublasDgemmStridedBatched"}


def touch(path: Path, data: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("files, want", [
    (["Library/bin/nvrtc64_112_0.dll", "Library/bin/cublas64_11.dll"], ["nvrtc64_91.dll", "cublas64_91.dll"]),
    (["Library/bin/nvrtc64_120_0.dll"], ["nvrtc64_91.dll", "cublas64_91.dll"]),
    (["Library/bin/nvrtc64_90.dll", "Library/bin/cublas64_90.dll"], []),  # CUDA 9.0: 0.7.6 finds it
    ([], []),
])
def test_windows_plan(tmp_path, files, want):
    for f in files:
        touch(tmp_path / f)
    assert [name for name, _ in shims.plan(str(tmp_path), "win-64")[0]] == want


def test_linux_plan_builds_only_the_missing_unversioned_names(tmp_path):
    lib = tmp_path / "lib"
    touch(lib / "libnvrtc.so.12")
    touch(lib / "libcublas.so.12")
    assert [n for n, _ in shims.plan(str(tmp_path), "linux-64")[0]] == ["libnvrtc.so", "libcublas.so"]
    # cudatoolkit 11.8 style: the package ships libnvrtc.so itself: kept
    os.symlink("libnvrtc.so.12", lib / "libnvrtc.so")
    wanted, why = shims.plan(str(tmp_path), "linux-64")
    assert [n for n, _ in wanted] == ["libcublas.so"]
    assert "libnvrtc.so is the CUDA package's own: kept" in why
    # one built here before is ours to rebuild
    (lib / "libnvrtc.so").unlink()
    touch(lib / "libnvrtc.so", b"\x7fELF...gpuforge_nvrtc_shim_clamp...")
    assert [n for n, _ in shims.plan(str(tmp_path), "linux-64")[0]] == ["libnvrtc.so", "libcublas.so"]
    # CUDA 10.2 (legacy env): nothing
    assert shims.plan(str(tmp_path / "none"), "linux-64")[0] == []


@pytest.fixture(scope="module")
def linux_build(tmp_path_factory):
    """Both shims and the test harness, built with gcc into a fake environment's lib/ beside
    NVIDIA's real libnvrtc.so.11.2 (+ builtins) and a stand-in libcublas.so.12."""
    prefix = tmp_path_factory.mktemp("env")
    lib = prefix / "lib"
    real = nvidia.linux_nvrtc("11.8", say=lambda _: None)  # the NVRTC of CUDA 11.8
    for name in ("libnvrtc.so.11.2", "libnvrtc-builtins.so.11.8"):
        touch(lib / name, (real / name).read_bytes())
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(lib / "libcublas.so.12"), str(DATA / "fake_cublas.c")],
                   check=True)
    built = shims.build(str(prefix), "linux-64", cc="gcc", say=lambda _: None)
    assert sorted(Path(p).name for p in built) == ["libcublas.so", "libnvrtc.so"]
    harness = prefix / "harness"
    subprocess.run(["gcc", "-O2", "-o", str(harness), str(DATA / "harness.c"), "-ldl"], check=True)
    return prefix


def run(*cmd, env=None) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, env=env)
    return proc.stdout + proc.stderr


def test_linux_exports(linux_build):
    def exported(path):
        out = run("nm", "-D", "--defined-only", path)
        return {ln.split()[-1] for ln in out.splitlines() if " T " in ln}

    assert exported(linux_build / "lib" / "libnvrtc.so") == NVRTC_NAMES
    assert exported(linux_build / "lib" / "libcublas.so") == CUBLAS_NAMES


@pytest.mark.parametrize("arch, target", [
    ("compute_12", ".target sm_90"),   # 0.7.6's truncated cc 12.0 (Blackwell)
    ("compute_10", ".target sm_90"),   # ... and cc 10.0
    ("compute_86", ".target sm_86"),   # an arch NVRTC 11.8 knows: as asked
    ("compute_89", ".target sm_89"),
])
def test_linux_shim_rewrites_the_arch_for_the_real_nvrtc(linux_build, arch, target):
    out = run(linux_build / "harness", "nvrtc", linux_build / "lib" / "libnvrtc.so", arch)
    assert out.splitlines()[:2] == ["compile=0", target], out


def test_without_the_shim_the_real_nvrtc_refuses_the_truncated_arch(linux_build):
    """The failure the shim fixes, from NVIDIA's own library."""
    out = run(linux_build / "harness", "nvrtc", linux_build / "lib" / "libnvrtc.so.11.2", "compute_12")
    assert "compile=5" in out and "invalid value for --gpu-architecture (-arch)" in out


def test_linux_shim_says_when_no_arch_fits(linux_build):
    out = run(linux_build / "harness", "nvrtc", linux_build / "lib" / "libnvrtc.so", "compute_30")
    assert "compile=5" in out
    assert "nvrtc shim: this NVRTC supports no architecture up to compute_30" in out


def test_linux_shim_names_a_missing_nvrtc(linux_build, tmp_path):
    shutil.copy(linux_build / "lib" / "libnvrtc.so", tmp_path / "libnvrtc.so")
    env = dict(os.environ, LD_LIBRARY_PATH="")
    out = run(linux_build / "harness", "nvrtc", tmp_path / "libnvrtc.so", "compute_86", env=env)
    assert "nvrtc shim: no CUDA >= 11 NVRTC found (libnvrtc.so.13 ... libnvrtc.so.11.0" in out
    assert "create=11" in out  # NVRTC_ERROR_INTERNAL_ERROR, not a crash


def test_linux_forwarder_passes_every_argument(linux_build):
    out = run(linux_build / "harness", "cublas", linux_build / "lib" / "libcublas.so")
    assert out.splitlines() == ["before=1", "create=0 handle=ok", "sgemm=0"], out


@pytest.fixture(scope="module")
def windows_build(tmp_path_factory):
    if not MINGW or not OBJDUMP:
        pytest.skip("needs mingw-w64: `apt-get install gcc-mingw-w64-x86-64-win32` (ci/apt-packages.txt)")
    prefix = tmp_path_factory.mktemp("winenv")
    bin_dir = prefix / "Library" / "bin"
    real = nvidia.windows_nvrtc("11.8", say=lambda _: None)
    for name in ("nvrtc64_112_0.dll", "nvrtc-builtins64_118.dll"):
        touch(bin_dir / name, (real / name).read_bytes())
    subprocess.run([MINGW, "-shared", "-o", str(bin_dir / "cublas64_11.dll"), str(DATA / "fake_cublas.c")],
                   check=True)
    built = shims.build(str(prefix), "win-64", cc=MINGW, say=lambda _: None)
    assert sorted(Path(p).name for p in built) == ["cublas64_91.dll", "nvrtc64_91.dll"]
    subprocess.run([MINGW, "-O2", "-o", str(bin_dir / "harness.exe"), str(DATA / "harness.c")], check=True)
    return bin_dir


def test_windows_exports_and_imports(windows_build):
    for dll, names in (("nvrtc64_91.dll", NVRTC_NAMES), ("cublas64_91.dll", CUBLAS_NAMES)):
        out = run(OBJDUMP, "-p", windows_build / dll)
        table = out[out.index("[Ordinal/Name Pointer] Table"):].splitlines()[1:]
        assert {ln.split()[-1] for ln in table if ln.strip().startswith("[")} == names
        # nothing but Windows itself: no MSVC or mingw runtime DLL to ship beside them
        assert {ln.split()[-1] for ln in out.splitlines() if "DLL Name:" in ln} == {"KERNEL32.dll",
                                                                                   "msvcrt.dll"}


def test_windows_under_wine_with_the_real_nvrtc(windows_build):
    """nvrtc64_91.dll loads NVIDIA's nvrtc64_112_0.dll from its own folder and rewrites the
    arch; cublas64_91.dll forwards to cublas64_11.dll; the bare NVRTC refuses compute_12."""
    if not WINE.is_file():
        pytest.skip(f"needs Wine: {WINE_INSTALL}")
    wineprefix = locations.cache_dir() / "wine" / "prefix"  # shared with the windows smoke target
    wineprefix.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(wineprefix))
    script = windows_build / "run.bat"
    script.write_text("@harness.exe nvrtc nvrtc64_91.dll compute_12\r\n"
                      "@harness.exe nvrtc nvrtc64_91.dll compute_86\r\n"
                      "@harness.exe nvrtc nvrtc64_112_0.dll compute_12\r\n"
                      "@harness.exe cublas cublas64_91.dll\r\n")
    proc = subprocess.run([str(WINE), "cmd", "/c", "run.bat"], cwd=windows_build, env=env,
                          capture_output=True, text=True, timeout=300)
    lines = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]
    assert lines == ["compile=0", ".target sm_90", "compile=0", ".target sm_86", "compile=5",
                     "log=nvrtc: error: invalid value for --gpu-architecture (-arch)",
                     "before=1", "create=0 handle=ok", "sgemm=0"], proc.stdout + proc.stderr


@pytest.mark.slow
def test_pip_install_of_theano_gpu_config_carries_the_shims(python37, tmp_path):
    """The env files' route (`pip install ../recipes/theano-gpu-config` in an environment whose
    CUDA 12 packages ship only libnvrtc.so.12 / libcublas.so.12): setup.py builds both with the
    environment's compiler into the wheel, whose data files land in <env>/lib."""
    env = tmp_path / "env"
    subprocess.run([python37, "-m", "venv", str(env)], check=True, timeout=300)
    touch(env / "lib" / "libnvrtc.so.12")
    touch(env / "lib" / "libcublas.so.12")
    work = tmp_path / "src" / "theano-gpu-config"
    shutil.copytree(RECIPES / "theano-gpu-config", work)  # pip builds in place
    proc = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           "--disable-pip-version-check", str(work)],
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, CC="gcc"))
    if proc.returncode != 0 and "setuptools" in proc.stderr:
        pytest.skip(f"needs setuptools from PyPI for pip's isolated build: {proc.stderr[-200:]}")
    assert proc.returncode == 0, proc.stderr
    for name in ("libnvrtc.so", "libcublas.so"):
        assert b"gpuforge_" in (env / "lib" / name).read_bytes()
    assert (env / "etc" / "conda" / "activate.d" / "theano-gpu-config_activate.sh").is_file()

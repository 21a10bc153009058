"""The doctor on the GPU, the driver and the env's NVRTC: can this environment compile for this
GPU, and which env file fits? Live probes against gpuforge's mock driver (no GPU: the mock reports
the compute capability and driver version it is given) with NVIDIA's real NVRTC."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from gpuforge.doctor import gpu_fit
from gpuforge.smoke.mockgpu import build, nvidia

SYSTEM_PYTHON = "/usr/bin/python3"
LONG = pytest.mark.skipif(not os.environ.get("GPUFORGE_MOCKGPU_LONG"),
                          reason="part of the long mock tier: `nox -s mockgpu`")


def mock_env(tmp_path: Path, cc: str, driver: int, nvrtc: str) -> dict[str, str]:
    """What a live probe sees: the mock driver as libcuda.so.1 and NVIDIA's NVRTC ``nvrtc`` as the
    libnvrtc.so libgpuarray 0.7.6 loads."""
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"the live probe runs {SYSTEM_PYTHON}")
    mocks = build.linux_mocks()
    real = nvidia.linux_nvrtc(nvrtc, say=lambda _m: None)
    folder = tmp_path / "lib"
    folder.mkdir()
    for name in ("libcuda.so", "libcuda.so.1"):
        os.symlink(mocks / name, folder / name)
    os.symlink(real / nvidia.nvrtc(nvrtc).soname, folder / "libnvrtc.so")
    return {"LD_LIBRARY_PATH": f"{folder}:{real}", "MOCK_CC": cc, "MOCK_DRIVER": str(driver),
            "MOCK_LOG": str(tmp_path / "mock.log")}


def doctor_json(*args: str, **env: str) -> dict:
    proc = run_cli("doctor", "--json", *args, timeout=300, **env)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_cc120_in_the_cuda118_env_names_the_truncation_and_the_blackwell_env(tmp_path):
    report = doctor_json("--python", SYSTEM_PYTHON, **mock_env(tmp_path, "12.0", 12080, "11.8"))
    found = {f["id"]: f for f in report["findings"]}
    assert "arch_truncated_blackwell" in found, report
    evidence = found["arch_truncated_blackwell"]["evidence"]
    assert "cc 12.0, driver CUDA 12.8" in evidence and "compute_12" in evidence
    assert evidence.endswith("-> use envs/gpu-linux64-blackwell.yml")
    assert "nvrtc_arch_unsupported" not in found  # the truncation is the cause, named alone
    # the probe read the mock driver through ctypes (cuInit, cuDeviceGetAttribute)
    assert "cuInit (a mock driver, not a GPU): cc 12.0, driver 12080" in (tmp_path / "mock.log").read_text()


def test_cc86_with_its_nvrtc_has_nothing_to_say(tmp_path):
    report = doctor_json("--python", SYSTEM_PYTHON, **mock_env(tmp_path, "8.6", 12060, "11.8"))
    ids = [f["id"] for f in report["findings"]]
    assert not {"arch_truncated_blackwell", "nvrtc_arch_unsupported", "ptx_newer_than_driver"} & set(ids)


def test_nvrtc_newer_than_the_driver_is_named_before_anything_runs(tmp_path):
    report = doctor_json("--python", SYSTEM_PYTHON, **mock_env(tmp_path, "8.6", 12060, "12.9"))
    found = {f["id"]: f for f in report["findings"]}
    assert "ptx_newer_than_driver" in found, report
    assert "NVRTC 12.9 writes PTX ISA 8.8; the driver (CUDA 12.6) loads up to 8.5" in \
        found["ptx_newer_than_driver"]["evidence"]


def test_cc86_driver560_in_the_cuda90_env_names_the_arch_problem_and_gpu_win64():
    """A Windows probe report (tests/data/probes: the Windows CPython under Wine against the mock
    nvcuda.dll as an RTX 30 under driver 560; CUDA 9.0's nvrtc64_90.dll written in by hand)."""
    report = ROOT / "tests" / "data" / "probes" / "win64-cc86-driver560-cuda90.json"
    proc = run_cli("doctor", "--facts", str(report))
    assert proc.returncode == 1, proc.stderr
    assert "CANNOT compile for it: NVRTC 9.0 (this environment) does not accept compute_86" in proc.stdout
    assert "env file for this GPU and driver: envs/gpu-win64.yml:" in proc.stdout
    found = {f["id"]: f for f in doctor_json("--facts", str(report))["findings"]}
    evidence = found["nvrtc_arch_unsupported"]["evidence"]
    assert "cc 8.6, driver CUDA 12.6: NVRTC 9.0" in evidence
    assert evidence.endswith("-> use envs/gpu-win64.yml")
    assert "old_cublas_new_gpu" in found  # CUDA 9.0's cuBLAS on an Ampere GPU


def test_nvrtc_arch_tables():
    assert gpu_fit.nvrtc_archs({"version": "9.0"})[-1] == 70
    assert gpu_fit.nvrtc_archs({"version": "10.2"})[-1] == 75
    assert gpu_fit.nvrtc_archs({"version": "11.8", "archs": [90, 35]}) == (35, 90)
    assert [gpu_fit.ptx_isa(v) for v in ("11.8", "12.6", "12.9", "13.0")] == [78, 85, 88, 90]


# Real texts from the issue threads each catalog entry cites (quoted as the users pasted them).
REAL_TEXTS = [
    ("nvrtc_arch_unsupported",  # xmrig/xmrig-nvidia#286: RTX 2060 (cc 7.5) with CUDA 9.0's NVRTC
     "[2019-07-16 16:16:47] nvrtcCompileProgram failed: NVRTC_ERROR_INVALID_OPTION\n"
     "[2019-07-16 16:16:47] Program compile log: nvrtc: error: invalid value for --gpu-architecture (-arch)"),
    ("nvrtc_arch_unsupported",  # Acellera/htmd#1015: RTX 3090, cudatoolkit 10.2
     "Error compiling program: nvrtc: error: invalid value for --gpu-architecture (-arch)"),
    ("ptx_newer_than_driver",  # ComputationalRadiationPhysics/cuda_memtest#31: CUDA 11.3, driver 460
     "[05/23/2021 18:30:06][computer][0]:ERROR: CUDA error: the provided PTX was compiled with an "
     "unsupported toolchain., line 148, file "
     "/var/tmp/pamac-build-user/cuda_memtest/src/cuda_memtest/cuda_memtest.cu"),
    ("ptx_newer_than_driver",  # huggingface/candle#1846
     'Error: Cuda(Load { cuda: DriverError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was '
     'compiled with an unsupported toolchain."), module_name: "urelu_f32" })'),
    ("old_cublas_new_gpu",  # QingyongHu/SensatUrban#25: cudatoolkit 9.0 on an RTX 30
     "failed to run cuBLAS routine cublasSgemm_v2: CUBLAS_STATUS_EXECUTION_FAILED"),
    ("old_cublas_new_gpu",  # facebookresearch/SparseConvNet#208: RTX 3080, cudatoolkit 10.0
     "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, "
     "opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"),
    ("cudnn8_theano",  # Theano #6791 (CUDA 11.7, cuDNN 8.5, Theano 1.0.5), its title
     "theano error cannot convert 'cudnnConvolutionFwdAlgo_t*' to 'cudnnConvolutionFwdAlgoPerf_t*'"),
    ("cudnn8_theano",  # BVLC/caffe#6970 (cuDNN 8.0.3): the same removed enum g++ reports
     "error: \u2018CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT\u2019 was not declared in this scope"),
    ("nvrtc_missing",  # the mock tier's Windows harness, 0.7.6's loader order under Wine
     'context FAILED: Could not load "nvrtc64_70.dll": Module not found.'),
    ("arch_truncated_blackwell",  # the mock tier: Debian's libgpuarray3 and NVIDIA's NVRTC 12.9, cc 12.0
     "ERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n"
     "pygpu.gpuarray.GpuArrayException: (b'nvrtcCompileProgram: NVRTC_ERROR_INVALID_OPTION', 3)\n"
     "NVRTC's log for -arch compute_12: nvrtc: error: invalid value for --gpu-architecture (-arch)"),
]


@pytest.mark.parametrize(("expected", "text"), REAL_TEXTS)
def test_real_texts_name_their_entry_first(expected, text):
    from gpuforge.doctor.catalog import diagnose_text

    assert [f.id for f in diagnose_text(text)][:1] == [expected]


@pytest.fixture(scope="module")
def windows_probe_prefix(tmp_path_factory):
    """A Wine prefix whose system32 holds the mock nvcuda.dll (Python 3.8's ctypes does not search
    PATH for it), made once in the cache."""
    from gpuforge.smoke.mockgpu.cases import _wine_prefix
    from gpuforge.smoke.targets import WINE

    if not WINE.is_file():
        pytest.skip("needs Wine: `apt-get install -y wine64` (ci/apt-packages.txt)")
    prefix = _wine_prefix(nvidia.default_cache_dir() / "mockgpu" / "probe", WINE)
    system32 = prefix / "drive_c" / "windows" / "system32"
    (system32 / "nvcuda.dll").write_bytes((build.windows_mocks() / "nvcuda.dll").read_bytes())
    return prefix


@pytest.mark.parametrize("with_shim", [False, pytest.param(True, marks=LONG)], ids=["published", "shim"])
def test_windows_live_probe_a_modern_nvrtc_and_the_shim(windows_env, windows_probe_prefix, tmp_path,
                                                        with_shim):
    """The Windows CPython's probe under Wine, the mock driver as an RTX 30 under driver 560 and
    NVIDIA's nvrtc64_112_0.dll (CUDA 11.8) on PATH: 0.7.6 finds no NVRTC (nvrtc_missing) until
    theano-gpu-config's nvrtc64_91.dll shim is beside it, which it loads and which compiles."""
    from gpuforge.smoke.targets import windows_path

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for dll in nvidia.windows_nvrtc("11.8", say=lambda _m: None).glob("*.dll"):
        (bin_dir / dll.name).write_bytes(dll.read_bytes())
    if with_shim:
        (bin_dir / "nvrtc64_91.dll").write_bytes((build.shims()["windows"] / "nvrtc64_91.dll").read_bytes())
    report = doctor_json("--python", str(windows_env.python), GPUFORGE_WINEPREFIX=str(windows_probe_prefix),
                         WINEPATH=windows_path(bin_dir), MOCK_CC="8.6", MOCK_DRIVER="12060")
    found = {f["id"]: f for f in report["findings"]}
    if with_shim:
        assert "nvrtc_missing" not in found and "nvrtc_arch_unsupported" not in found, report
    else:
        assert found["nvrtc_missing"]["evidence"] == (
            "derived.nvrtc_unfindable = nvrtc64_112_0.dll is here; libgpuarray 0.7.6 tries only "
            "nvrtc64_126.dll, nvrtc64_91.dll, nvrtc64_90.dll, nvrtc64_80.dll, nvrtc64_75.dll, nvrtc64_70.dll")

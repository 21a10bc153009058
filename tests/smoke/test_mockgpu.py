"""The mock GPU tier: Debian's libgpuarray3 (the published, unpatched 0.7.6), theano-gpu-config's
shims and Theano's kernel compile path against gpuforge's mock CUDA driver, with NVIDIA's real
NVRTC (PyPI wheels) and the PTX assembled by NVIDIA's ptxas for the real architecture; Windows
through the harness that replays 0.7.6's loader order under Wine. No GPU runs anything here:
the mock executes no kernel and every number through it is meaningless.

Each case fails as published with its real error text and compiles with each of its fixes."""

from __future__ import annotations

import _ctypes
import ctypes
import os
import subprocess

import pytest

from gpuforge.smoke.mockgpu import build, cases, nvidia

# The 48 driver functions libgpuarray 0.7.6 loads (src/loaders/libcuda.fn at tag v0.7.6, with
# the _v2 names its DEF_PROC_V2 asks for), and the one NVRTC >= 12 asks for.
LIBCUDA_FN = """cuInit cuDriverGetVersion cuGetErrorName cuGetErrorString cuDeviceGet cuDeviceGetCount
cuDeviceGetName cuDeviceGetAttribute cuDeviceGetPCIBusId cuDevicePrimaryCtxGetState
cuDevicePrimaryCtxSetFlags cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRetain cuCtxGetDevice
cuCtxPushCurrent_v2 cuCtxPopCurrent_v2 cuLinkCreate cuLinkAddData cuLinkComplete cuLinkDestroy
cuModuleLoadData cuModuleLoadDataEx cuModuleUnload cuModuleGetFunction cuMemGetInfo_v2 cuMemAlloc_v2
cuMemFree_v2 cuMemAllocHost_v2 cuMemFreeHost cuMemcpyHtoDAsync_v2 cuMemcpyHtoD_v2 cuMemcpyDtoHAsync_v2
cuMemcpyDtoDAsync_v2 cuMemcpyPeerAsync cuMemsetD8Async cuLaunchKernel cuFuncGetAttribute cuEventCreate
cuEventRecord cuEventSynchronize cuEventDestroy_v2 cuStreamCreate cuStreamWaitEvent cuStreamSynchronize
cuStreamDestroy_v2 cuIpcGetMemHandle cuIpcOpenMemHandle cuIpcCloseMemHandle cuGetExportTable""".split()


@pytest.fixture(scope="module")
def mock_driver():
    """The mock driver in this process, unloaded afterwards: while loaded, its soname answers every
    dlopen("libcuda.so.1") here, and the smoke targets' driver check would take it for NVIDIA's."""
    driver = ctypes.CDLL(str(build.linux_mocks() / "libcuda.so.1"))
    yield driver
    _ctypes.dlclose(driver._handle)


def test_the_mock_driver_exports_what_libgpuarray_and_nvrtc_load(mock_driver):
    assert len(LIBCUDA_FN) == 49
    assert [n for n in LIBCUDA_FN if not hasattr(mock_driver, n)] == []


@pytest.mark.parametrize(
    ("ptx", "cc", "driver", "code"),
    [
        (".version 7.8\n.target sm_86\n", "8.6", "12060", 0),
        (".version 8.8\n.target sm_86\n", "8.6", "12060", 222),  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION
        (".version 8.5\n.target sm_86\n", "8.6", "12060", 0),  # 12.6 loads 12.5's ISA 8.5
        (".version 9.0\n.target sm_90\n", "12.0", "13000", 0),
        (".version 7.8\n.target sm_90\n", "8.6", "12060", 218),  # CUDA_ERROR_INVALID_PTX: newer than the GPU
    ],
)
def test_the_mock_driver_refuses_ptx_as_a_driver_does(
    mock_driver, monkeypatch, tmp_path, ptx, cc, driver, code
):
    monkeypatch.setenv("MOCK_CC", cc)
    monkeypatch.setenv("MOCK_DRIVER", driver)
    monkeypatch.setenv("MOCK_LOG", str(tmp_path / "log"))
    state = ctypes.c_void_p()
    assert mock_driver.cuLinkCreate(0, None, None, ctypes.byref(state)) == 0
    data = ptx.encode()
    assert mock_driver.cuLinkAddData(state, 1, data, len(data), b"k", 0, None, None) == code
    name = ctypes.c_char_p()
    mock_driver.cuGetErrorName(code, ctypes.byref(name))
    expected = {
        0: b"CUDA_SUCCESS",
        218: b"CUDA_ERROR_INVALID_PTX",
        222: b"CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    }
    assert name.value == expected[code]
    assert "mockcuda: cuLinkAddData" in (tmp_path / "log").read_text()


def test_ptxas_refuses_ptx_for_a_newer_gpu(tmp_path):
    """The ptxas check can fail: PTX for sm_86 does not assemble for a Turing (sm_75)."""
    ptx = tmp_path / "ptx"
    ptx.mkdir()
    (ptx / "mod001.ptx").write_text(".version 7.8\n.target sm_86\n.address_size 64\n")
    assert cases.assemble(ptx, "8.6", nvidia.locations.cache_dir(), print)["assembled"] == 1
    refused = cases.assemble(ptx, "7.5", nvidia.locations.cache_dir(), print)
    assert refused["assembled"] == 0
    assert "SM version specified by .target is higher than default SM version" in refused["failed"][0]


LONG = bool(os.environ.get("GPUFORGE_MOCKGPU_LONG"))  # `nox -s mockgpu`: the long matrix too


@pytest.mark.parametrize("case", cases.tier(long=LONG), ids=lambda c: c.name)
def test_mock_tier(case, tmp_path):
    result = cases.check_case(case, tmp_path, say=lambda _m: None)
    if result.status == "skip":
        pytest.skip(result.reason)
    assert result.status == "pass", result.reason
    outcomes = result.outcomes
    for fixed in outcomes[1:]:
        if fixed.status == "skip":
            continue
        assert fixed.ptxas["assembled"] >= 1 and not fixed.ptxas["failed"]
        targets = {m["target"] for m in fixed.modules}
        if float(case.broken.cc) >= 10:  # the shim / patched build ask for compute_90: JIT on Blackwell
            assert targets == {"sm_90"}, targets
        if fixed.config.what == "theano":
            assert {"GpuElemwise", "GpuDot22"} <= set(fixed.ops), fixed.ops
    if case.broken.what == "theano" and case.error:
        assert outcomes[0].ops and not any(op.startswith("Gpu") for op in outcomes[0].ops)


def test_the_smoke_target_says_no_gpu_ran():
    from gpuforge.smoke.targets import LOCAL_TARGETS

    target = next(t for t in LOCAL_TARGETS if t.name == "mockgpu")
    assert target.description.startswith("NOT a GPU")
    assert "nothing ran on a GPU" in cases.NOT_A_GPU


def test_the_wheels_are_pinned_https_with_sha256():
    for n in nvidia.NVRTC:
        for source in (n.linux, n.windows):
            assert source.url.startswith("https://files.pythonhosted.org/") and len(source.sha256) == 64
    assert nvidia.PTXAS.url.startswith("https://") and len(nvidia.PTXAS.sha256) == 64


def test_the_windows_mocks_are_pe_dlls():
    folder = build.windows_mocks()
    for name in ("nvcuda.dll", "cublas64_11.dll", "winloader.exe"):
        assert (folder / name).read_bytes()[:2] == b"MZ"
    if os.path.exists("/usr/bin/x86_64-w64-mingw32-objdump"):
        out = subprocess.run(
            ["x86_64-w64-mingw32-objdump", "-p", str(folder / "nvcuda.dll")], capture_output=True, text=True
        ).stdout
        assert "cuGetExportTable" in out and "cuLinkAddData" in out


def test_a_wine_that_started_nothing_is_run_once_more(tmp_path, monkeypatch):
    """The windows harness prints from its first line on: a Wine run that printed nothing and
    failed (a wineserver still shutting down) is run once more, and only once; a harness that
    printed and failed is its result."""
    import gpuforge.interpreters

    mocks = tmp_path / "mocks"
    mocks.mkdir()
    for name in ("winloader.exe", "nvcuda.dll", *build.CUBLAS_DLLS):
        (mocks / name).write_bytes(b"")
    (tmp_path / "prefix" / "system.reg").parent.mkdir()
    (tmp_path / "prefix" / "system.reg").write_text("")
    monkeypatch.setattr(build, "windows_mocks", lambda cache_dir: mocks)
    monkeypatch.setattr(nvidia, "windows_nvrtc", lambda *a, **k: mocks)
    monkeypatch.setattr(cases, "_wine_prefix", lambda cache_dir, wine: tmp_path / "prefix")
    runs = tmp_path / "runs"
    fake_wine = tmp_path / "wine"
    monkeypatch.setattr(gpuforge.interpreters, "WINE", fake_wine)
    config = cases.Config("windows", "8.6", "11.8")
    said: list[str] = []

    def run(first_run: str) -> cases.Outcome:
        runs.write_text("")
        fake_wine.write_text(
            f'#!/bin/sh\necho x >> "{runs}"\n'
            f'if [ "$(wc -l < "{runs}")" -eq 1 ]; then {first_run}; fi\n'
            'echo "winloader: loaded nvcuda.dll"\necho "RESULT ok"\n'
        )
        fake_wine.chmod(0o755)
        return cases.run_windows(config, tmp_path / "work", tmp_path, said.append)

    outcome = run("exit 1")  # Wine started nothing
    assert outcome.status == "ok" and len(runs.read_text().split()) == 2
    assert said == ["Wine started nothing (exit 1): running the harness once more"]
    outcome = run('echo "winloader: loaded nvcuda.dll"; echo "RESULT fail no NVRTC"; exit 1')
    assert outcome.status == "fail" and outcome.error.startswith("no NVRTC")
    assert len(runs.read_text().split()) == 1  # the harness ran and failed: not run again

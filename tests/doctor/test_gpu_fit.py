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
LONG = pytest.mark.skipif(
    not os.environ.get("GPUFORGE_MOCKGPU_LONG"), reason="part of the long mock tier: `nox -s mockgpu`"
)


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
    return {
        "LD_LIBRARY_PATH": f"{folder}:{real}",
        "MOCK_CC": cc,
        "MOCK_DRIVER": str(driver),
        "MOCK_LOG": str(tmp_path / "mock.log"),
    }


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
    assert (
        "NVRTC 12.9 writes PTX ISA 8.8; the driver (CUDA 12.6) loads up to 8.5"
        in found["ptx_newer_than_driver"]["evidence"]
    )


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


def test_a_driver_older_than_the_envs_floor_is_named_before_anything_runs(tmp_path):
    """The CUDA 11.8 env (NVRTC 11.8) under a driver that reports CUDA 11.4 (R470): its PTX would
    be refused at the first kernel; the doctor says so from the probe, and what to do (an
    Ampere has no env for that driver: the legacy CUDA 10.2 env stops at cc 7.5)."""
    report = doctor_json("--python", SYSTEM_PYTHON, **mock_env(tmp_path, "8.6", 11040, "11.8"))
    found = {f["id"]: f for f in report["findings"]}
    assert "ptx_newer_than_driver" in found, report
    evidence = found["ptx_newer_than_driver"]["evidence"]
    assert "NVRTC 11.8 writes PTX ISA 7.8; the driver (CUDA 11.4) loads up to 7.4" in evidence
    assert "envs/gpu-linux64.yml (cc 8.6) needs CUDA >= 11.8: update the NVIDIA driver" in evidence


def test_a_cudnn_theano_would_pick_up_is_named_before_anything_runs(tmp_path):
    """From probed facts alone: cuDNN 9 found, device=cuda, dnn.enabled left at auto (the H100's
    machine cuDNN): cudnn8_theano, with its fix (dnn.enabled = False); off, nothing to say."""
    facts = json.loads((ROOT / "tests" / "data" / "probes" / "win64-cc86-driver560-cuda90.json").read_text())
    facts["cuda"]["cudnn"] = {"header": None, "library": "cudnn64_9.dll", "version": "9.14.0"}
    facts["imports"]["theano"]["config"]["device"] = "cuda"
    probe = tmp_path / "probe.json"
    probe.write_text(json.dumps(facts))
    found = {f["id"]: f for f in doctor_json("--facts", str(probe))["findings"]}
    assert "cudnn8_theano" in found and "dnn.enabled" in found["cudnn8_theano"]["fix"]
    facts["imports"]["theano"]["config"]["dnn.enabled"] = "False"
    probe.write_text(json.dumps(facts))
    assert "cudnn8_theano" not in {f["id"] for f in doctor_json("--facts", str(probe))["findings"]}

"""Before anything runs: can this environment compile GPU kernels for this GPU, under this
driver, and which env file of the GPU table (data/gpu-envs.yaml) fits the GPU and driver?

From the probe's facts: the GPU's compute capability and the driver's CUDA version (the driver
through ctypes, else nvidia-smi) and the NVRTC libgpuarray 0.7.6 would load (its version, the
archs it lists, whether it is theano-gpu-config's arch-rewriting shim). The decisions are
gpuforge.envs.gpu_envs's (can_compile, pick); this module only turns facts into their inputs.
"""

from __future__ import annotations

from typing import Any

from gpuforge.doctor.catalog import lookup, version_key
from gpuforge.envs import gpu_envs
from gpuforge.errors import GpuforgeError

# The compute_XY an NVRTC without nvrtcGetSupportedArchs (< 11.2) accepts, by its version:
# newest 62 below 9.0, 70 for 9.x, 75 for 10.x, 80 for 11.0, 86 for 11.1 (nvcc's lists of those
# releases, which NVRTC shares: CUDA 10.2's is quoted in Kitware CMake #23293; MODERN_GPU.md 5.2),
# and 86 up to 11.7 (PyTorch's codegenOutputQuery, aten/src/ATen/native/cuda/jit_utils.cpp:
# "nvrtc_major == 11 && nvrtc_minor < 8" clamps to 8.6, the fix of pytorch#87595 for sm_89).
# A newer NVRTC's list is what the probe asks it (nvrtcGetSupportedArchs); a paste stating only
# its version is not judged.
KNOWN_ARCHS = (20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86)
OLD_NVRTC = (
    (9, 0, 20, 62),
    (10, 0, 30, 70),
    (11, 0, 30, 75),
    (11, 1, 35, 80),
    (11, 2, 35, 86),
    (11, 8, 35, 86),
)
# PTX ISA of each CUDA release (NVIDIA's PTX ISA release history, as cuda-python's
# cuda/bindings/utils/_ptx_utils.py encodes it): a driver refuses PTX of a newer ISA
# (CUDA_ERROR_UNSUPPORTED_PTX_VERSION). CUDA 12.6 loads 8.5, as 12.5 does.
PTX_ISA = (
    (13, 1, 91),
    (13, 0, 90),
    (12, 9, 88),
    (12, 8, 87),
    (12, 7, 86),
    (12, 5, 85),
    (12, 4, 84),
    (12, 3, 83),
    (12, 2, 82),
    (12, 1, 81),
    (12, 0, 80),
    (11, 8, 78),
    (11, 7, 77),
    (11, 6, 76),
    (11, 5, 75),
    (11, 4, 74),
    (11, 3, 73),
    (11, 2, 72),
    (11, 1, 71),
    (11, 0, 70),
    (10, 2, 65),
    (10, 1, 64),
    (10, 0, 63),
    (9, 2, 62),
    (9, 1, 61),
    (9, 0, 60),
)


# The oldest driver each CUDA's runtime runs on (the Linux x86_64 column of the CUDA Toolkit
# Release Notes' table "CUDA Toolkit and Corresponding Driver Versions"; Windows' minimums are a
# little higher, so a Windows driver is never judged too old by it): before CUDA 11 a runtime needs
# its own release's driver; from CUDA 11 on, any driver of its major release family ("Minor
# Version Compatibility", docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html,
# Table 1: CUDA 11.x >= 450, 12.x >= 525, 13.x >= 580).
DRIVER_FLOOR = (
    ((13, 0), (580,)),
    ((12, 0), (525,)),
    ((11, 0), (450,)),
    ((10, 2), (440, 33)),
    ((10, 1), (418, 39)),
    ((10, 0), (410, 48)),
    ((9, 2), (396, 26)),
    ((9, 1), (390, 46)),
    ((9, 0), (384, 81)),
    ((8, 0), (367, 48)),
    ((7, 5), (352, 31)),
    ((7, 0), (346, 46)),
)


def _floor_cuda(cuda: tuple[int, int]) -> tuple[int, int]:
    """What a runtime of CUDA ``cuda`` needs the driver to support: its own release before
    CUDA 11, its major release's first from 11 on (minor version compatibility)."""
    return (cuda[0], 0) if cuda[0] >= 11 else cuda


def driver_cuda_of(driver_version: str) -> str | None:
    """The newest CUDA a driver of this version runs (DRIVER_FLOOR), as "X.Y"."""
    number = version_key(driver_version)
    cuda = next((cuda for cuda, floor in DRIVER_FLOOR if number >= floor), None)
    return f"{cuda[0]}.{cuda[1]}" if cuda else None


def driver_below_runtime(driver_cuda: str, runtime_cuda: str) -> bool:
    """Whether a driver that supports up to CUDA ``driver_cuda`` (nvidia-smi's "CUDA Version")
    is too old for a runtime of CUDA ``runtime_cuda``."""
    return _mm(driver_cuda) < _floor_cuda(_mm(runtime_cuda))


def _mm(version: str) -> tuple[int, int]:
    key = version_key(version) + (0, 0)
    return key[0], key[1]


def nvrtc_archs(nvrtc: dict[str, Any]) -> tuple[int, ...]:
    archs = nvrtc.get("archs")
    if isinstance(archs, list) and archs and all(isinstance(a, int) and 0 < a < 1000 for a in archs):
        return tuple(sorted(archs))
    version = _mm(nvrtc.get("version") or "0.0")
    for below_major, below_minor, low, high in OLD_NVRTC:
        if version < (below_major, below_minor):
            return tuple(a for a in KNOWN_ARCHS if low <= a <= high)
    return ()


def ptx_isa(version: str) -> int:
    mm = _mm(version)
    return next((isa for major, minor, isa in PTX_ISA if mm >= (major, minor)), 0)


def gpu_of(facts: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(compute capability, GPU name, the driver's CUDA version), each None when unknown."""
    driver = lookup(facts, "cuda.driver")
    smi = lookup(facts, "cuda.nvidia_smi")
    driver, smi = (d if isinstance(d, dict) else {} for d in (driver, smi))
    devices = driver.get("devices") or smi.get("gpus") or []
    first = devices[0] if isinstance(devices, list) and devices and isinstance(devices[0], dict) else {}
    version = driver.get("version") or smi.get("cuda_version")
    text = [str(v) if isinstance(v, str) else None for v in (first.get("cc"), first.get("name"), version)]
    return text[0], text[1], text[2]


def platform_of(facts: dict[str, Any]) -> str:
    return "win-64" if lookup(facts, "platform.sys_platform") == "win32" else "linux-64"


def derive_gpu(facts: dict[str, Any]) -> dict[str, Any]:
    """The derived facts the GPU entries of the catalog match on (absent: nothing to say)."""
    cc, name, driver = gpu_of(facts)
    nvrtc = lookup(facts, "cuda.nvrtc")
    nvrtc = nvrtc if isinstance(nvrtc, dict) else {}
    out: dict[str, Any] = {}
    if not cc or not gpu_envs.VERSION_RE.match(str(cc)):
        return out
    platform = platform_of(facts)
    driver_cuda = driver if driver and gpu_envs.VERSION_RE.match(driver) else None
    try:
        choice = gpu_envs.pick(platform, cc, driver_cuda)
    except (GpuforgeError, ValueError) as exc:  # a malformed table or value: said, not a finding
        choice = gpu_envs.Choice(None, f"no env file could be picked: {exc}")
    fits = f"envs/{choice.entry.file}" if choice.entry else "none"
    gpu = f"cc {cc}, driver CUDA {driver or 'unknown'}"
    out["gpu"] = {"cc": cc, "name": name, "driver_cuda": driver, "env_file": fits, "pick": choice.reason}
    if not isinstance(nvrtc.get("version"), str) or not gpu_envs.VERSION_RE.match(nvrtc["version"]):
        return out
    archs = nvrtc_archs(nvrtc)
    if not archs and (nvrtc.get("shim") or gpu_envs.arch_of(cc) < gpu_envs.TRUNCATED_FROM):
        return out  # an NVRTC whose list is neither probed nor known: nothing to judge
    here = gpu_envs.GpuEnv(
        file="this environment",
        platform=platform,
        gpus="",
        cuda=nvrtc["version"],
        cc_min="0.0",
        cc_max="99.9",
        driver_cuda_min=nvrtc["version"],
        nvrtc_archs=archs or (0,),  # unknown: only libgpuarray's truncation is judged
        arch_rewrite=bool(nvrtc.get("shim")),
        cudnn=None,
        evidence="probed",
    )
    ok, reason = gpu_envs.can_compile(here, cc)
    use = f"use {fits}" if choice.entry else f"no env file fits ({choice.reason})"
    out["gpu"]["can_compile"], out["gpu"]["compile"] = ok, reason
    if not ok:
        text = f"{gpu}: {reason} -> {use}"
        truncated = gpu_envs.arch_of(cc) >= gpu_envs.TRUNCATED_FROM and not nvrtc.get("shim")
        out["arch_truncated" if truncated else "nvrtc_arch"] = text
    if driver_cuda and ptx_isa(nvrtc["version"]) > ptx_isa(driver_cuda):
        out["ptx_newer_than_driver"] = (
            f"NVRTC {nvrtc['version']} writes PTX ISA "
            f"{ptx_isa(nvrtc['version']) / 10:.1f}; the driver "
            f"(CUDA {driver_cuda}) loads up to {ptx_isa(driver_cuda) / 10:.1f}"
            f" -> {use}"
        )
    # a GPU newer than the newest architecture its CUDA knows (OLD_NVRTC: CUDA 9.x up to sm_70,
    # 10.x sm_75, 11.0 sm_80): that CUDA's cuBLAS has no kernels for it
    if archs and gpu_envs.arch_of(cc) > max(archs):
        out["old_cuda_new_gpu"] = f"{gpu}; this environment's CUDA is {nvrtc['version']} -> {use}"
    return out


def unfindable_nvrtc(facts: dict[str, Any]) -> str | None:
    """Windows: a CUDA >= 10 NVRTC is here but 0.7.6 loads none of its names."""
    nvrtc = lookup(facts, "cuda.nvrtc")
    if (
        not isinstance(nvrtc, dict)
        or platform_of(facts) != "win-64"
        or nvrtc.get("loaded")
        or not isinstance(nvrtc.get("present"), list)
        or not nvrtc["present"]
    ):
        return None
    tried = nvrtc["tried"] if isinstance(nvrtc.get("tried"), list) else []
    return (
        f"{', '.join(map(str, nvrtc['present']))} is here; libgpuarray 0.7.6 tries only "
        f"{', '.join(map(str, tried))}"
    )


def dnn_not_disabled(facts: dict[str, Any]) -> bool:
    settings = lookup(facts, "config.settings")
    setting = settings.get("dnn.enabled") if isinstance(settings, dict) else None
    config = lookup(facts, "imports.theano.config")
    effective = config.get("dnn.enabled") if isinstance(config, dict) else None
    value = str(
        effective
        if effective is not None
        else setting.get("value", "auto")
        if isinstance(setting, dict)
        else "auto"
    )
    return value.lower() not in ("false", "0", "no")

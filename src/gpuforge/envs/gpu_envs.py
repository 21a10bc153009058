"""The GPU table (package data, data/gpu-envs.yaml): which GPU env file fits which GPU and driver.

``load()`` reads the table (a malformed entry is one error naming the file and line);
``pick(platform, cc, driver_cuda)`` returns the first entry whose compute capability
range holds the GPU and whose CUDA the driver runs, with a one-line reason either
way; ``can_compile(entry, cc)`` says whether the env's NVRTC, as the published
libgpuarray 0.7.6 drives it (or through theano-gpu-config's arch-rewriting shim where
the env installs it), can compile kernels for that GPU.

How 0.7.6 picks the arch (MODERN_GPU.md 1.1): ``-arch compute_<major><minor>`` of the
device, written into an 11-byte buffer, so cc 10.0 and 12.0 become ``compute_10`` and
``compute_12``, which no NVRTC accepts. The shim (and the patched recipe build) asks
for the newest arch the NVRTC lists that is not newer than the device, capped at
compute_90; the driver JIT-compiles that PTX for any newer GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuforge import locations
from gpuforge.errors import InputError
from gpuforge.yamlio import expect_list, expect_mapping, item_line, key_line, read_yaml

PLATFORMS = ("linux-64", "win-64")
KEYS = (
    "file",
    "platform",
    "gpus",
    "cuda",
    "cc_min",
    "cc_max",
    "driver_cuda_min",
    "nvrtc_archs",
    "arch_rewrite",
    "cudnn",
    "evidence",
)
VERSION_RE = re.compile(r"^\d+\.\d+$")
REWRITE_CAP = 90  # the shim and the patched build never ask for more (Theano reads two digits)
TRUNCATED_FROM = 100  # 0.7.6's buffer holds two digits after "compute_"


@dataclass(frozen=True)
class GpuEnv:
    """One row of the GPU table."""

    file: str
    platform: str
    gpus: str
    cuda: str
    cc_min: str
    cc_max: str
    driver_cuda_min: str
    nvrtc_archs: tuple[int, ...]
    arch_rewrite: bool
    cudnn: str | None
    evidence: str
    line: int = 0


@dataclass(frozen=True)
class Choice:
    """pick()'s answer: the entry (None when nothing fits) and why, in one line."""

    entry: GpuEnv | None
    reason: str


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def arch_of(cc: str) -> int:
    """``"8.6"`` -> 86, ``"12.0"`` -> 120: the XY of compute_XY."""
    major, minor = _version(cc)
    return major * 10 + minor


def _entry(raw: Any, path: Path, line: int) -> GpuEnv:
    expect_mapping(raw, path, line, "an entry of envs:")
    missing = [k for k in KEYS if k not in raw]
    unknown = sorted(set(raw) - set(KEYS))
    if missing or unknown:
        what = f"missing {', '.join(missing)}" if missing else f"unknown key(s) {', '.join(unknown)}"
        raise InputError(f"gpu env entry: {what}", path, line)

    def at(key: str) -> int:
        return key_line(raw, key) or line

    for key in ("file", "gpus", "evidence"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise InputError(f"{key}: expected text", path, at(key))
    if not re.fullmatch(r"[a-z0-9.-]+-(win|linux)64(-[a-z0-9.-]+)?\.yml", raw["file"]):
        raise InputError(
            f"file {raw['file']!r}: expected an env file name of envs/ "
            "(gpu-linux64.yml, gpu-win64-blackwell.yml ...)",
            path,
            at("file"),
        )
    if raw["platform"] not in PLATFORMS:
        raise InputError(
            f"platform {raw['platform']!r}: expected one of {', '.join(PLATFORMS)}", path, at("platform")
        )
    for key in ("cuda", "cc_min", "cc_max", "driver_cuda_min"):
        if not isinstance(raw[key], str) or not VERSION_RE.match(raw[key]):
            raise InputError(
                f'{key}: expected a quoted major.minor version such as "8.6", got {raw[key]!r}', path, at(key)
            )
    if _version(raw["cc_min"]) > _version(raw["cc_max"]):
        raise InputError(f"cc_min {raw['cc_min']} is above cc_max {raw['cc_max']}", path, at("cc_min"))
    archs = expect_list(
        raw["nvrtc_archs"],
        path,
        at("nvrtc_archs"),
        "nvrtc_archs",
        empty="list the compute_XY values its NVRTC accepts",
    )
    if not all(isinstance(a, int) and not isinstance(a, bool) and 10 <= a < 1000 for a in archs):
        raise InputError(
            "nvrtc_archs: expected numbers such as 75, 86, 120 (compute_XY)", path, at("nvrtc_archs")
        )
    if not isinstance(raw["arch_rewrite"], bool):
        raise InputError("arch_rewrite: expected true or false", path, at("arch_rewrite"))
    cudnn = raw["cudnn"]
    if cudnn is not None and not (isinstance(cudnn, str) and VERSION_RE.match(cudnn)):
        raise InputError(
            f'cudnn: expected null or a quoted version such as "7.6", got {cudnn!r}', path, at("cudnn")
        )
    return GpuEnv(
        raw["file"],
        raw["platform"],
        raw["gpus"].strip(),
        raw["cuda"],
        raw["cc_min"],
        raw["cc_max"],
        raw["driver_cuda_min"],
        tuple(sorted(archs)),
        raw["arch_rewrite"],
        cudnn,
        " ".join(raw["evidence"].split()),
        line,
    )


def load(path: str | Path | None = None) -> list[GpuEnv]:
    """The entries of the GPU table (or of ``path``), in the file's order."""
    path = Path(path) if path is not None else locations.GPU_ENVS
    doc = expect_mapping(read_yaml(path), path, 1, "the GPU table (gpu-envs.yaml)")
    rows = expect_list(
        doc.get("envs"), path, key_line(doc, "envs") or 1, "envs", empty="list the GPU env files"
    )
    entries = [_entry(raw, path, item_line(rows, i) or 1) for i, raw in enumerate(rows)]
    seen: dict[str, int] = {}
    for e in entries:
        if e.file in seen:
            raise InputError(f"{e.file} is listed twice (first at line {seen[e.file]})", path, e.line)
        seen[e.file] = e.line
    return entries


def _cc_text(cc: str) -> str:
    if not VERSION_RE.match(cc or ""):
        raise ValueError(f"compute capability {cc!r}: expected major.minor, e.g. 8.6")
    return cc


def can_compile(entry: GpuEnv, cc: str, *, arch_rewrite: bool | None = None) -> tuple[bool, str]:
    """Whether ``entry``'s NVRTC compiles libgpuarray's kernels for a GPU of capability ``cc``.

    ``arch_rewrite`` (default: the entry's) models the shim or the patched libgpuarray:
    the newest listed arch <= min(device, 90). Without it, the published 0.7.6 asks for
    exactly compute_<cc>, truncated to two digits for cc >= 10.0.
    """
    want = arch_of(_cc_text(cc))
    rewrite = entry.arch_rewrite if arch_rewrite is None else arch_rewrite
    nvrtc = f"NVRTC {entry.cuda} ({entry.file})"
    if rewrite:
        cap = min(want, REWRITE_CAP)
        fit = [a for a in entry.nvrtc_archs if a <= cap]
        if not fit:
            return False, (
                f"{nvrtc} accepts compute_{entry.nvrtc_archs[0]} and newer: nothing up to "
                f"compute_{want} of this cc {cc} GPU"
            )
        how = "as asked" if max(fit) == want else f"rewritten from compute_{want}, JIT-compiled by the driver"
        return True, f"{nvrtc} compiles compute_{max(fit)} PTX for this cc {cc} GPU ({how})"
    if want >= TRUNCATED_FROM:
        return False, (
            f"libgpuarray 0.7.6 truncates compute_{want} to compute_{str(want)[:2]} "
            f"(cc {cc}), which no NVRTC accepts: NVRTC_ERROR_INVALID_OPTION"
        )
    if want not in entry.nvrtc_archs:
        return False, (
            f"{nvrtc} does not accept compute_{want} (it knows compute_"
            f"{entry.nvrtc_archs[0]} ... compute_{entry.nvrtc_archs[-1]}): "
            "nvrtc: error: invalid value for --gpu-architecture (-arch)"
        )
    return True, f"{nvrtc} accepts compute_{want} of this cc {cc} GPU"


def pick(platform: str, cc: str, driver_cuda: str | None, entries: list[GpuEnv] | None = None) -> Choice:
    """The first env file for ``platform`` that serves a GPU of capability ``cc`` under a
    driver reporting CUDA ``driver_cuda`` (None: unknown, not checked), and why."""
    if platform not in PLATFORMS:
        return Choice(None, f"no GPU env file for {platform} (only {', '.join(PLATFORMS)})")
    _cc_text(cc)
    if driver_cuda is not None and not VERSION_RE.match(driver_cuda):
        raise ValueError(f"driver CUDA version {driver_cuda!r}: expected major.minor, e.g. 12.4")
    entries = load() if entries is None else entries
    mine = [e for e in entries if e.platform == platform]
    by_cc = [e for e in mine if _version(e.cc_min) <= _version(cc) <= _version(e.cc_max)]
    if not by_cc:
        return Choice(
            None,
            f"no {platform} env file serves compute capability {cc} "
            f"(known: {', '.join(f'{e.file} {e.cc_min}-{e.cc_max}' for e in mine)})",
        )
    for e in by_cc:
        if driver_cuda is None or _version(driver_cuda) >= _version(e.driver_cuda_min):
            if not can_compile(e, cc)[0]:
                continue
            driver = (
                f"the driver's CUDA {driver_cuda} >= {e.driver_cuda_min}"
                if driver_cuda
                else f"needs a driver reporting CUDA >= {e.driver_cuda_min}"
            )
            return Choice(e, f"envs/{e.file}: {e.gpus}, cc {e.cc_min}-{e.cc_max}, CUDA {e.cuda}; {driver}")
    need = min(by_cc, key=lambda e: _version(e.driver_cuda_min))
    return Choice(
        None,
        f"the driver reports CUDA {driver_cuda}; envs/{need.file} (cc {cc}) needs "
        f"CUDA >= {need.driver_cuda_min}: update the NVIDIA driver",
    )


def _archs(entry: GpuEnv) -> str:
    return f"compute_{entry.nvrtc_archs[0]} ... {entry.nvrtc_archs[-1]}"


def table(entries: list[GpuEnv]) -> str:
    """The table as Markdown (docs/modern-gpus.md carries it; a test compares)."""
    rows = [
        "| env file | GPUs | compute capability | CUDA (NVRTC archs) | driver must report CUDA | "
        "cuDNN | arch rewrite (shim) |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        rows.append(
            f"| envs/{e.file} | {e.gpus} | {e.cc_min} - {e.cc_max} | {e.cuda} ({_archs(e)}) | "
            f">= {e.driver_cuda_min} | {e.cudnn or 'none (dnn.enabled = False)'} | "
            f"{'yes' if e.arch_rewrite else 'no'} |"
        )
    return "\n".join(rows)

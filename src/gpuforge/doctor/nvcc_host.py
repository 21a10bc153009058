"""The newest gcc each CUDA release's nvcc accepts as its host compiler.

nvcc preprocesses every .cu file with the host compiler and CUDA's own header refuses a newer
gcc: `#error -- unsupported GNU version! gcc versions later than N are not supported!` under
`#if __GNUC__ > N` (include/host_config.h, include/crt/host_config.h from CUDA 9.0). The old
back-end of Theano (device=gpu) compiles every op with nvcc, so a gcc too new for the CUDA
installed fails it before any of Theano's code compiles. The same table judges the probe's
facts (the g++ Theano uses, the nvcc it finds) and a paste's (a gcc and a CUDA it states).

Sources, by row:
- 5.5 to 9.0: host_config.h's guards as github.com/denizyuret/CUDAapi.jl src/compatibility.jl
  (`cuda_gcc_db`, "Source: CUDA/include/host_config.h") quotes them: 5.5-6.5
  `__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 8)`, 7.0-7.5 the same with `> 9`, 8.0
  `__GNUC__ > 5`, 9.0 `__GNUC__ > 6`;
- 11.7 to 12.9: include/crt/host_config.h of PyPI's nvidia-cuda-nvcc-cu11 11.7.99 and 11.8.89
  (`__GNUC__ > 11`) and nvidia-cuda-nvcc-cu12 12.0.140, 12.1.105, 12.2.140, 12.3.107 (`> 12`),
  12.4.131, 12.5.82, 12.6.85 (`> 13`), 12.8.93, 12.9.86 (`> 14`);
- 13.0: include/crt/host_config.h:135 of CUDA 13.0 (`__GNUC__ > 15`; tests read it where
  the toolkit is installed).

The releases between (9.1 to 11.6, 12.7) are not recorded here, so not judged.
"""

from __future__ import annotations

from typing import Any

from gpuforge.doctor.catalog import lookup, version_key

# CUDA major.minor -> the newest gcc its nvcc accepts: "4.8" (that minor and older), "5" (any 5.x)
NEWEST_GCC = {
    "5.5": "4.8",
    "6.0": "4.8",
    "6.5": "4.8",
    "7.0": "4.9",
    "7.5": "4.9",
    "8.0": "5",
    "9.0": "6",
    "11.7": "11",
    "11.8": "11",
    "12.0": "12",
    "12.1": "12",
    "12.2": "12",
    "12.3": "12",
    "12.4": "13",
    "12.5": "13",
    "12.6": "13",
    "12.8": "14",
    "12.9": "14",
    "13.0": "15",
}
# every CUDA release of a major version, so that "CUDA 7" (7.0 or 7.5, both 4.9) is judged and
# "CUDA 9" (9.0, or 9.1 and 9.2, not recorded) is not
RELEASES = {
    "5": ("5.0", "5.5"),
    "6": ("6.0", "6.5"),
    "7": ("7.0", "7.5"),
    "8": ("8.0",),
    "9": ("9.0", "9.1", "9.2"),
    "10": ("10.0", "10.1", "10.2"),
    "11": tuple(f"11.{m}" for m in range(9)),
    "12": tuple(f"12.{m}" for m in range(10)),
    "13": ("13.0",),
}


def newest_gcc(cuda: str) -> str | None:
    """The newest gcc the CUDA release's nvcc accepts; a bare major version only where every
    release of it agrees."""
    parts = version_key(cuda)[:2]
    if not parts:
        return None
    if len(parts) == 2:
        return NEWEST_GCC.get(f"{parts[0]}.{parts[1]}")
    newest = {NEWEST_GCC.get(r) for r in RELEASES.get(str(parts[0]), ())}
    return newest.pop() if len(newest) == 1 else None


def gcc_refused(cuda: str, gcc: str) -> str | None:
    """Why this CUDA's nvcc refuses this gcc, or None (accepted, or not known)."""
    newest = newest_gcc(cuda)
    version = version_key(gcc)[:2]
    if newest is None or not version:
        return None
    limit = version_key(newest)
    if version[: len(limit)] <= limit:
        return None
    return f"gcc {gcc} is newer than CUDA {cuda}'s nvcc accepts (gcc {newest} at most)"


def refused_gcc(facts: dict[str, Any]) -> str | None:
    """The facts' gcc (compiler.cxx_version: the probe's g++, a paste's gcc) against their nvcc's
    CUDA (cuda.nvcc.release)."""
    gcc, cuda = lookup(facts, "compiler.cxx_version"), lookup(facts, "cuda.nvcc.release")
    if not isinstance(gcc, str) or not isinstance(cuda, str):
        return None
    return gcc_refused(cuda, gcc)

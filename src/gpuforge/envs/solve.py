"""Offline solve: do an env file's pins meet one set of the real published records?

A local file:// channel is written for the env's platform (and noarch):

- every record of data/records.yaml that the env's channels reach (``defaults`` is
  pkgs/main, pkgs/r and, on Windows, pkgs/msys2), with the depends and constrains
  the evidence shows (cudatoolkit's hotfixed ``__cuda >=X`` constraint among them);
- a stand-in record only for a package the table lacks (a dependency nobody
  recorded): one per version some spec names literally, plus version 0. Every
  stand-in is reported by name.

py-rattler then solves the env's conda specs for the platform with the virtual
packages ``__win`` (or ``__unix``/``__linux``) and, for CUDA envs, ``__cuda`` of the
driver. A solution proves the pins and the recorded builds fit together (a Python
with no pygpu build, a cuDNN for another CUDA, a driver older than the toolkit all
fail it). The ``pip:`` section is pip's: not part of the solve.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import rattler
from rattler import BuildString, GenericVirtualPackage, MatchSpec, PackageName, Version

from gpuforge.envs.envfile import EnvFile, literals
from gpuforge.envs.records import UNRECORDED_BUILD, Records
from gpuforge.errors import GpuforgeError

DEFAULT_CUDA_DRIVER = "12.0"  # a current driver: it runs every older CUDA toolkit
CHANNEL_PREFIX_RE = re.compile(r"^[^\s:]+::")
CUDA_VERSION_RE = re.compile(r"^\d+\.\d+$")
# What makes an env a CUDA env: cudatoolkit (CUDA <= 11.8) or CUDA 12's split packages.
CUDA_PACKAGES = ("cudatoolkit", "cudnn", "cuda-version", "cuda-nvrtc", "libcublas")


@dataclass(frozen=True)
class SolvedPackage:
    name: str
    version: str
    build: str
    origin: str  # the record's channel, or "stand-in"


def below(version: str) -> str:
    """The CUDA release before ``version`` (11.8 -> 11.7, 12.0 -> 11.0): a driver just too old."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return f"{major}.{minor - 1}" if minor else f"{major - 1}.0"


def driver_cuda(env: EnvFile, cuda: str | None) -> str | None:
    """The ``__cuda`` a solve of ``env`` sees: ``cuda`` (the driver's CUDA, --cuda), by default the
    env's driver floor (its ``__cuda>=X.Y``) or DEFAULT_CUDA_DRIVER; None for a CPU env."""
    if not any(d.name in (*CUDA_PACKAGES, "__cuda") for d in env.conda_deps):
        return None
    return cuda or env.driver_floor or DEFAULT_CUDA_DRIVER


def virtual_packages(env: EnvFile, cuda: str | None) -> list[GenericVirtualPackage]:
    """The platform's virtual packages, and ``__cuda`` when ``cuda`` (a driver's CUDA version)."""
    names = ["__win"] if env.platform.startswith("win") else ["__unix", "__linux"]
    pkgs = [GenericVirtualPackage(PackageName(n), Version("0"), BuildString("0")) for n in names]
    if cuda:
        if not CUDA_VERSION_RE.match(cuda):
            raise GpuforgeError(f"--cuda {cuda!r}: expected a driver's CUDA version, e.g. 12.0")
        pkgs.append(GenericVirtualPackage(PackageName("__cuda"), Version(cuda), BuildString("0")))
    return pkgs


def _record(
    name: str,
    version: str,
    build: str,
    subdir: str,
    depends: list[str],
    constrains: list[str],
    noarch: str | None = None,
) -> dict:
    rec = {
        "name": name,
        "version": version,
        "build": build,
        "build_number": 0,
        "depends": depends,
        "constrains": constrains,
        "subdir": subdir,
    }
    if noarch:
        rec["noarch"] = noarch
    return rec


def channel_records(env: EnvFile, records: Records) -> dict[str, dict[str, dict]]:
    """repodata ``packages`` per subdir (platform, noarch) for the local channel."""
    subdirs: dict[str, dict[str, dict]] = {env.platform: {}, "noarch": {}}
    named: dict[str, set[str]] = {}  # package -> versions specs name

    def note(spec_text: str) -> None:
        spec = MatchSpec(spec_text)
        name = spec.name.normalized
        if not name.startswith("__"):
            named.setdefault(name, set()).update(literals(str(spec.version) if spec.version else ""))

    channels = env.channel_names + [d.channel for d in env.conda_deps if d.channel]
    for r in records.for_channels(list(dict.fromkeys(channels)), env.platform):
        build = r.build or UNRECORDED_BUILD
        subdirs[r.subdir][f"{r.name}-{r.version}-{build}.tar.bz2"] = _record(
            r.name, r.version, build, r.subdir, list(r.depends), list(r.constrains)
        )
        for spec in r.depends + r.constrains:
            note(spec)
    for dep in env.conda_deps:
        note(CHANNEL_PREFIX_RE.sub("", dep.text))
    recorded = records.names()
    for name, versions in sorted(named.items()):
        if name in recorded:
            continue
        for version in sorted(versions | {"0"}, key=lambda v: (Version(v), v)):
            subdirs[env.platform][f"{name}-{version}-stand_in.tar.bz2"] = _record(
                name, version, "stand_in", env.platform, [], []
            )
    return subdirs


def write_channel(env: EnvFile, records: Records, dest: Path) -> Path:
    """Write the local channel (repodata.json per subdir) under ``dest``; return it."""
    for subdir, packages in channel_records(env, records).items():
        folder = dest / subdir
        folder.mkdir(parents=True, exist_ok=True)
        repodata = {"info": {"subdir": subdir}, "packages": packages, "packages.conda": {}}
        (folder / "repodata.json").write_text(json.dumps(repodata, indent=1, sort_keys=True))
    return dest


def solve_specs(env: EnvFile, channel_map: dict[str, list[str]] | None = None) -> list[str]:
    """The env's conda specs; channel names replaced by URLs (``channel_map``) or dropped."""
    specs = []
    for dep in env.conda_deps:
        text = CHANNEL_PREFIX_RE.sub("", dep.text)
        if channel_map is not None and dep.channel:
            text = f"{channel_map[dep.channel][0]}::{text}"
        specs.append(text)
    return specs


def solver_message(exc: BaseException, keep: int = 1) -> str:
    """The solver's explanation on one line: its first ``keep`` sentences."""
    text = " ".join(p for p in (ln.strip(" └├│─") for ln in str(exc).splitlines()) if p)
    sentences = re.split(r"(?<=\.)\s+", text)
    more = f" (+{len(sentences) - keep} more: `gpuforge envs solve`)" if len(sentences) > keep else ""
    return " ".join(sentences[:keep]) + more


def solve_offline(env: EnvFile, records: Records, cuda: str | None = None) -> list[SolvedPackage]:
    """Solve the env's conda specs against the real records; SolverError when they conflict.

    CUDA envs (CUDA_PACKAGES, or a ``__cuda`` line) get ``__cuda`` = ``driver_cuda(env, cuda)``.
    """
    wants_cuda = driver_cuda(env, cuda)
    channel_of = {(r.name, r.version, r.build or UNRECORDED_BUILD): r.channel for r in records.records}
    # Windows: a failed solve may still hold a repodata file open; what is left is a temp folder
    with tempfile.TemporaryDirectory(prefix="gpuforge-solve-", ignore_cleanup_errors=True) as tmp:
        channel = write_channel(env, records, Path(tmp) / "channel")
        solved = asyncio.run(
            rattler.solve(
                [rattler.Channel(channel.as_uri())],
                solve_specs(env),
                gateway=rattler.Gateway(cache_dir=Path(tmp) / "cache"),
                platforms=[rattler.Platform(env.platform), rattler.Platform("noarch")],
                virtual_packages=virtual_packages(env, wants_cuda),
                channel_relations="disabled",
            )
        )
    out = []
    for r in sorted(solved, key=lambda r: r.name.normalized):
        key = (r.name.normalized, str(r.version), str(r.build))
        out.append(SolvedPackage(key[0], key[1], key[2], channel_of.get(key, "stand-in")))
    return out


def first_named_line(env: EnvFile, message: str) -> int:
    """The line of the first env dependency the solver's message names."""
    hits = [
        (m.start(), d.line)
        for d in env.conda_deps
        if (m := re.search(rf"(?<![\w-]){re.escape(d.name)}(?![\w-])", message))
    ]
    return min(hits)[1] if hits else env.deps_line

"""Offline solve: do an env file's pins and the recipes' requirements admit one solution?

A local file:// channel is written for the env's platform (and noarch):

- one record per rendering of each recipe in recipes/ (every python/numpy variant),
  its rendered ``run`` as depends and ``run_constrained`` as constrains;
- stand-in records for every other package the env or those requirements name: one
  per version some spec names literally (``numpy >=1.16,<1.20`` names 1.16 and 1.20),
  plus version 0 (for unversioned names), with the env's build string if it pins one.
  Stand-ins have no dependencies of their own, except that cudatoolkit X needs a
  driver for CUDA >= X (``__cuda >=X``).

py-rattler then solves the env's specs for the platform with the virtual packages
``__win`` (or ``__unix``/``__linux``) and, for CUDA envs, ``__cuda`` of the driver.

A solution proves the pins, the recipes' run requirements and the variant matrix are
consistent with each other (a python without a variant, a numpy theano refuses, a CUDA
libgpuarray cannot load all make it fail). It does not prove that the real channels
carry those builds: `nox -s lock` solves against them.
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

from gpuforge.envs.envfile import EnvFile, RecipeOutputs, literals
from gpuforge.errors import GpuforgeError

DEFAULT_CUDA_DRIVER = "12.0"  # a current driver: it runs every older CUDA toolkit
CHANNEL_PREFIX_RE = re.compile(r"^[^\s:]+::")
CUDA_VERSION_RE = re.compile(r"^\d+\.\d+$")


@dataclass(frozen=True)
class SolvedPackage:
    name: str
    version: str
    build: str
    origin: str  # "recipe" or "stand-in"


def virtual_packages(env: EnvFile, cuda: str | None) -> list[GenericVirtualPackage]:
    """The platform's virtual packages, and ``__cuda`` when ``cuda`` (a driver's CUDA version)."""
    names = ["__win"] if env.platform.startswith("win") else ["__unix", "__linux"]
    pkgs = [GenericVirtualPackage(PackageName(n), Version("0"), BuildString("0")) for n in names]
    if cuda:
        if not CUDA_VERSION_RE.match(cuda):
            raise GpuforgeError(f"--cuda {cuda!r}: expected a driver's CUDA version, e.g. 12.0")
        pkgs.append(GenericVirtualPackage(PackageName("__cuda"), Version(cuda), BuildString("0")))
    return pkgs


def _record(name: str, version: str, build: str, subdir: str, depends: list[str],
            constrains: list[str], noarch: str | None = None) -> dict:
    rec = {"name": name, "version": version, "build": build, "build_number": 0,
           "depends": depends, "constrains": constrains, "subdir": subdir}
    if noarch:
        rec["noarch"] = noarch
    return rec


def _tag(variant: dict[str, str]) -> str:
    py = variant.get("python", "").replace(".", "")
    np = variant.get("numpy", "").replace(".", "")
    return (f"py{py}" if py else "") + (f"np{np}" if np else "")


def channel_records(env: EnvFile, outputs: RecipeOutputs) -> dict[str, dict[str, dict]]:
    """repodata ``packages`` per subdir (platform, noarch) for the local channel."""
    subdirs: dict[str, dict[str, dict]] = {env.platform: {}, "noarch": {}}
    named: dict[str, set[str]] = {}  # package -> versions specs name

    def note(spec_text: str) -> None:
        spec = MatchSpec(spec_text)
        name = spec.name.normalized
        if not name.startswith("__"):
            named.setdefault(name, set()).update(literals(str(spec.version) if spec.version else ""))

    built = set()
    for i, r in enumerate(outputs.renderings):
        noarch = (r.meta.get("build") or {}).get("noarch")
        subdir = "noarch" if noarch else env.platform
        number = int((r.meta.get("build") or {}).get("number") or 0)
        build = f"{_tag(r.variant)}h{i}_{number}"
        depends = r.run_as_built()
        constrains = r.requirements.get("run_constrained", [])
        subdirs[subdir][f"{r.name}-{r.version}-{build}.tar.bz2"] = _record(
            r.name, r.version, build, subdir, depends, constrains, noarch and str(noarch))
        built.add(r.name)
        for spec in depends + constrains:
            note(spec)
    builds = {}
    for dep in env.conda_deps:
        note(CHANNEL_PREFIX_RE.sub("", dep.text))
        if dep.spec.build:
            builds[dep.name] = str(dep.spec.build).replace("*", "")
    for name, versions in sorted(named.items()):
        if name in built:
            continue
        for version in sorted(versions | {"0"}, key=lambda v: (Version(v), v)):
            build = builds.get(name, "0")
            depends = [f"__cuda >={version}"] if name == "cudatoolkit" and version != "0" else []
            subdirs[env.platform][f"{name}-{version}-{build}.tar.bz2"] = _record(
                name, version, build, env.platform, depends, [])
    return subdirs


def write_channel(env: EnvFile, outputs: RecipeOutputs, dest: Path) -> Path:
    """Write the local channel (repodata.json per subdir) under ``dest``; return it."""
    for subdir, packages in channel_records(env, outputs).items():
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


def solve_offline(env: EnvFile, outputs: RecipeOutputs, cuda: str | None = None
                  ) -> list[SolvedPackage]:
    """Solve the env's pins against the recipes' outputs; SolverError when they conflict.

    CUDA envs (cudatoolkit or cudnn) get ``__cuda`` = ``cuda`` (default: DEFAULT_CUDA_DRIVER).
    """
    cuda = cuda or DEFAULT_CUDA_DRIVER
    built = {r.name for r in outputs.renderings}
    wants_cuda = cuda if any(d.name in ("cudatoolkit", "cudnn") for d in env.conda_deps) else None
    with tempfile.TemporaryDirectory(prefix="gpuforge-solve-") as tmp:
        channel = write_channel(env, outputs, Path(tmp) / "channel")
        records = asyncio.run(rattler.solve(
            [rattler.Channel(channel.as_uri())], solve_specs(env),
            gateway=rattler.Gateway(cache_dir=Path(tmp) / "cache"),
            platforms=[env.platform, "noarch"], virtual_packages=virtual_packages(env, wants_cuda),
            channel_relations="disabled"))
    return [SolvedPackage(r.name.normalized, str(r.version), str(r.build),
                          "recipe" if r.name.normalized in built else "stand-in")
            for r in sorted(records, key=lambda r: r.name.normalized)]


def first_named_line(env: EnvFile, message: str) -> int:
    """The line of the first env dependency the solver's message names."""
    hits = [(m.start(), d.line) for d in env.conda_deps
            if (m := re.search(rf"(?<![\w-]){re.escape(d.name)}(?![\w-])", message))]
    return min(hits)[1] if hits else env.deps_line


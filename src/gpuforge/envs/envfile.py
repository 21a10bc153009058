"""Environment files (envs/*.yml): load them and check every pin.

An env file is conda's environment.yml named ``<flavor>-<win64|linux64>[-<variant>].yml``
(the name gives the platform; ``gpu-win64-blackwell.yml``, ``gpu-linux64-legacy-cuda10.yml``).
The checks: every dependency parses as a conda MatchSpec
(py-rattler) and carries a comment saying why; channels are names defined in
data/mirrors.yaml (https URLs come from there) that someone publishes (a record of
data/records.yaml comes from them), and every conda spec matches a real record there;
no 32-bit platform; and the pins agree with recipes/conda_build_config.yaml, with
the recipes' versions, and with the compatibility facts (libgpuarray 0.7.6's nvrtc
loader, Theano 1.0.5's numpy, cuDNN and Windows toolchain needs). A ``pip:`` entry
is an exact ``==`` pin or a local project folder (relative to the env file, as
``conda env create`` runs pip there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from rattler import MatchSpec, Version, VersionSpec
from rattler.exceptions import InvalidMatchSpecError, InvalidVersionError, InvalidVersionSpecError

from gpuforge import locations
from gpuforge.channels import secure_url
from gpuforge.envs.gpu_envs import GpuEnv
from gpuforge.envs.mirrors import THIRTY_TWO_BIT_RE, Mirrors
from gpuforge.envs.records import Records
from gpuforge.fileio import read_text
from gpuforge.recipes.lint import (
    CUDNN_UNLOADABLE,
    THEANO_WIN_TOOLCHAIN,
    WIN_CUDA_UNLOADABLE,
    Problem,
)
from gpuforge.recipes.render import Recipe, Rendered, render_variants
from gpuforge.recipes.variants import VariantConfig
from gpuforge.yamlio import expect_dependencies, expect_mapping, item_line, key_line, load_yaml

ENV_FILE_RE = re.compile(
    r"^(?P<flavor>[a-z0-9][a-z0-9.]*(?:-[a-z0-9.]+)*?)-(?P<os>win|linux)"
    r"(?P<bits>\d+)(?P<variant>(?:-[a-z0-9.]+)*)\.yml$"
)
ENV_KEYS = ("name", "channels", "dependencies", "variables")
RECIPES_CHANNEL = "gpuforge"  # what `nox -s build` builds recipes/ into: published nowhere
NO_DEFAULTS = "nodefaults"  # conda env create: use only the file's channels (not .condarc's)
COMMENT_RE = re.compile(r"\s#\s*\S")
DRIVER_FLOOR_RE = re.compile(r"^>=\s*(\d+\.\d+)$")  # the version of a `__cuda>=X.Y` line
LITERAL_RE = re.compile(r"[0-9][0-9A-Za-z_.+!]*")
CUDA_BUILD_RE = re.compile(r"cuda(?P<version>\d+\.\d+)")
# numpy's release notes: the first release without builds for a Python.
NUMPY_FIRST_WITHOUT = {"3.6": "1.20", "3.7": "1.22", "3.8": "1.25"}
NUMPY_THEANO_BREAKS = "1.24"  # np.bool, np.complex ... removed (FACTS.md)


@dataclass
class Dependency:
    """One entry of ``dependencies`` (``spec``) or of its ``pip`` list (``requirement``)."""

    text: str
    line: int
    spec: MatchSpec | None = None
    requirement: Requirement | None = None
    project: Path | None = None  # a pip: entry that is a local project folder

    @property
    def name(self) -> str:
        if self.spec is not None:
            return self.spec.name.normalized
        if self.project is not None:
            return self.project.name
        return self.requirement.name.lower() if self.requirement else ""

    @property
    def version(self) -> str | None:
        return str(self.spec.version) if self.spec is not None and self.spec.version else None

    @property
    def channel(self) -> str | None:
        return self.spec.channel.name if self.spec is not None and self.spec.channel else None

    @property
    def match_spec(self) -> MatchSpec:
        """The conda spec of a conda dependency (``EnvFile.conda_deps`` are those with one)."""
        assert self.spec is not None, f"not a conda dependency: {self.text}"
        return self.spec


@dataclass
class EnvFile:
    """A parsed env file; ``problems`` holds what was wrong item by item."""

    path: Path
    platform: str
    name: str = ""
    channels: list[tuple[str, int]] = field(default_factory=list)
    deps: list[Dependency] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unparsed: list[Problem] = field(default_factory=list)  # specs that do not parse: no solve
    deps_line: int = 1

    @property
    def conda_deps(self) -> list[Dependency]:
        return [d for d in self.deps if d.spec is not None]

    @property
    def pip_deps(self) -> list[Dependency]:
        return [d for d in self.deps if d.spec is None]

    def names(self) -> set[str]:
        """Every package the env installs by name, conda or pip (lower case)."""
        return {d.name for d in self.deps}

    @property
    def channel_names(self) -> list[str]:
        return [name for name, _ in self.channels if name != NO_DEFAULTS]

    def get(self, name: str) -> Dependency | None:
        return next((d for d in self.conda_deps if d.name == name), None)

    @property
    def driver_floor(self) -> str | None:
        """The CUDA version the driver must report: the env's ``- __cuda>=X.Y`` line."""
        dep = self.get("__cuda")
        found = DRIVER_FLOOR_RE.match(str(dep.match_spec.version)) if dep and dep.match_spec.version else None
        return found.group(1) if found else None

    def add(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(str(self.path), line or 0, message))


def env_platform(path: Path) -> tuple[str, str | None]:
    """The platform a file name says (``gpu-win64.yml`` -> win-64), and a problem if any."""
    m = ENV_FILE_RE.match(path.name)
    if not m:
        return "", (
            "name env files <flavor>-win64[-<variant>].yml or <flavor>-linux64[-<variant>].yml "
            "(it names the platform)"
        )
    platform = f"{m.group('os')}-{m.group('bits')}"
    if m.group("bits") != "64":
        return platform, (
            f"{platform} is a 32-bit platform: Theano's g++ and PyTorch need 64-bit "
            "Python (no win-32 builds, seed 001); use -win64/-linux64"
        )
    return platform, None


def _has_comment(lines: list[str], line: int | None) -> bool:
    return line is not None and line > 0 and bool(COMMENT_RE.search(lines[line - 1]))


def load_env(path: Path) -> EnvFile:
    """Parse an env file. Unreadable or malformed YAML raises; item problems are collected."""
    path = Path(path)
    platform, bad_name = env_platform(path)
    env = EnvFile(path, platform)
    if bad_name:
        env.add(1, bad_name)
    text = read_text(path)
    lines = text.splitlines()
    doc = expect_mapping(load_yaml(text, path), path, 1, "an env file (name, channels, dependencies)")
    for key in doc:
        if key not in ENV_KEYS:
            env.add(key_line(doc, key), f"unknown key {key!r}: conda env create knows {', '.join(ENV_KEYS)}")
    if not isinstance(doc.get("name"), str) or not doc["name"]:
        env.add(key_line(doc, "name") or 1, "needs a `name:` for conda env create")
    else:
        env.name = doc["name"]
    channels = doc.get("channels")
    if not isinstance(channels, list) or not channels:
        env.add(key_line(doc, "channels") or 1, "needs a `channels:` list")
        channels = []
    for i, channel in enumerate(channels):
        env.channels.append((str(channel), item_line(channels, i) or 0))
    env.deps_line = key_line(doc, "dependencies") or 1
    deps = expect_dependencies(doc, path)
    for i, item in enumerate(deps):
        line = item_line(deps, i) or env.deps_line
        if isinstance(item, dict):  # a `pip:` list
            for j, req in enumerate(item["pip"]):
                _add_pip(env, req, item_line(item["pip"], j) or line, lines)
            continue
        try:
            spec = MatchSpec(item, strict=True)
        except InvalidMatchSpecError as exc:
            env.add(line, f"{item!r} is not a valid conda MatchSpec: {str(exc).splitlines()[0]}")
            env.unparsed.append(env.problems[-1])
            continue
        env.deps.append(Dependency(item, line, spec=spec))
        if not _has_comment(lines, line):
            env.add(line, f"{item}: every pin needs a comment saying why")
    return env


def looks_like_path(text: str) -> bool:
    """As pip reads a requirements line: a path when it starts with . or has a slash."""
    return text.startswith(".") or "/" in text or "\\" in text


PIP_URL_OPTIONS = ("--index-url", "-i", "--extra-index-url", "--find-links", "-f")
PINNED_URL_RE = re.compile(r"#sha256=[0-9a-f]{64}$|@[0-9a-f]{40}(?:#|$)")


def _pip_option(env: EnvFile, text: str, line: int) -> None:
    """An option line of the pip: list (conda writes them into a requirements file): the https
    rule for its index and links; switching certificate checks off is refused."""
    option, _, value = text.partition(" ") if " " in text else text.partition("=")
    value = value.strip()
    if option == "--trusted-host":
        env.add(
            line,
            f"pip: {text}: --trusted-host turns off pip's certificate checks for that host: "
            "use its https URL instead",
        )
    elif option in PIP_URL_OPTIONS and value and not secure_url(value) and not value.startswith("file:"):
        env.add(line, f"pip: {text}: not https: packages fetched in the clear can be swapped on the way")


def _pip_url(env: EnvFile, text: str, line: int) -> None:
    """A requirement by URL (``name @ https://...`` or the URL alone): https, pinned to content."""
    url = text.split("@", 1)[1].strip() if " @ " in text else text
    bare = url.removeprefix("git+")
    if not secure_url(bare):
        env.add(line, f"pip: {text}: not https: packages fetched in the clear can be swapped on the way")
    if not PINNED_URL_RE.search(url):
        env.add(
            line,
            f"pip: {text}: a URL needs its content pinned: #sha256=<64 hex> on a file, "
            "@<40-hex commit> on a git URL",
        )


def _add_pip(env: EnvFile, text: str, line: int, lines: list[str]) -> None:
    if text.startswith("-"):
        _pip_option(env, text, line)
        return
    if "://" in text:
        _pip_url(env, text, line)
        if not _has_comment(lines, line):
            env.add(line, f"pip: {text}: every pin needs a comment saying why")
        return
    if looks_like_path(text):
        folder = (env.path.parent / text).resolve()
        env.deps.append(Dependency(text, line, project=folder))
        if not _has_comment(lines, line):
            env.add(line, f"pip: {text}: every pin needs a comment saying why")
        if not any((folder / f).is_file() for f in ("setup.py", "pyproject.toml")):
            env.add(
                line,
                f"pip: {text}: no project there ({folder}: no setup.py or pyproject.toml); "
                "conda env create runs pip in the env file's folder",
            )
        return
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        env.add(line, f"pip: {text!r} is not a valid requirement: {exc}")
        return
    env.deps.append(Dependency(text, line, requirement=req))
    if not _has_comment(lines, line):
        env.add(line, f"pip: {text}: every pin needs a comment saying why")
    if not any(s.operator == "==" for s in req.specifier):
        env.add(line, f"pip: {text}: pin it with == (pip does not solve with conda)")


# --- version spec helpers -------------------------------------------------------------


def admits(spec: str | None, version: str) -> bool:
    """Whether a version spec (None: any) admits ``version``."""
    if spec is None:
        return True
    try:
        return VersionSpec(spec).matches(Version(version))
    except (InvalidVersionError, InvalidVersionSpecError):
        return False


def literals(spec: str | None) -> set[str]:
    """The versions a spec names literally (``>=1.16,<1.20`` -> 1.16, 1.20)."""
    found = set()
    for raw in LITERAL_RE.findall(spec or ""):
        raw = raw.rstrip(".")
        try:
            Version(raw)
        except InvalidVersionError:
            continue
        found.add(raw)
    return found


def escapes(inner: str | None, outer: str) -> str | None:
    """A version ``inner`` admits and ``outer`` does not, probing every version either
    spec names plus one below and one above all (range specs change only there)."""
    probes = literals(inner) | literals(outer) | {"0", "99999"}
    for version in sorted(probes, key=lambda v: (Version(v), -len(v), v)):  # 11.0 before 11
        if admits(inner, version) and not admits(outer, version):
            return version
    return None


# --- checks -------------------------------------------------------------------------


@dataclass
class RecipeOutputs:
    """What recipes/ builds for one platform: every rendering, by package name."""

    platform: str
    renderings: list[Rendered]

    @property
    def versions(self) -> dict[str, str]:
        return {r.name: r.version for r in self.renderings}


def recipe_outputs(recipes_dir: Path, config: VariantConfig) -> RecipeOutputs:
    """Render every recipe in ``recipes_dir`` (any folder with a meta.yaml) for the platform."""
    rendered: list[Rendered] = []
    for meta in sorted(Path(recipes_dir).glob("*/meta.yaml")):
        rendered.extend(render_variants(Recipe.load(meta.parent), config))
    return RecipeOutputs(config.platform, rendered)


def check_env(
    env: EnvFile,
    config: VariantConfig,
    outputs: RecipeOutputs,
    mirrors: Mirrors,
    records: Records,
    gpu_table: list[GpuEnv] | None = None,
) -> None:
    """Add the pin problems of ``env`` to ``env.problems``."""
    _check_channels(env, mirrors, records)
    if not env.platform.endswith("-64"):
        return
    _check_records(env, records)
    if gpu_table is not None:
        _check_driver_floor(env, gpu_table)
    cfg = Where(config)
    python = _check_python(env, config, cfg)
    _check_numpy(env, config, cfg, python)
    _check_vc(env, config, cfg)
    _check_cuda(env, config, cfg)
    _check_recipe_packages(env, outputs)


@dataclass(frozen=True)
class Where:
    """``recipes/conda_build_config.yaml:LINE`` of a matrix key, for messages."""

    config: VariantConfig

    def __call__(self, key: str) -> str:
        return f"{self.config.path}:{self.config.lines.get(key, 1)}"


def _check_python(env: EnvFile, config: VariantConfig, cfg: Where) -> str | None:
    """The one matrix Python the env pins, or None (with a problem)."""
    python = env.get("python")
    pythons = config.values.get("python", [])
    listed = f"({', '.join(pythons)}, {cfg('python')})"
    if python is None or python.version is None:
        env.add(
            python.line if python else env.deps_line, f"pin python to one of the recipes' matrix {listed}"
        )
        return None
    hits = [v for v in pythons if admits(python.version, v)]
    if len(hits) != 1:
        what = "is not in" if not hits else "admits several Pythons of"
        env.add(python.line, f"python {python.version} {what} the recipes' matrix {listed}: pin one")
        return None
    return hits[0]


def _check_numpy(env: EnvFile, config: VariantConfig, cfg: Where, python: str | None) -> None:
    numpy = env.get("numpy")
    names = env.names()
    if python and numpy is not None and names & {"pygpu", "theano"}:
        zipped = dict(zip(config.values.get("python", []), config.values.get("numpy", []), strict=False))
        built_against = zipped.get(python)
        if built_against and not admits(numpy.version, built_against):
            env.add(
                numpy.line,
                f"numpy {numpy.version} excludes numpy {built_against}, which pygpu "
                f"for python {python} is built against ({cfg('numpy')})",
            )
        gone = NUMPY_FIRST_WITHOUT.get(python)
        if gone and admits(numpy.version, gone):
            env.add(
                numpy.line,
                f"numpy {numpy.version} admits {gone}, which has no builds for "
                f"python {python}: cap it below {gone}",
            )
    if "theano" in names and (numpy is None or admits(numpy.version, NUMPY_THEANO_BREAKS)):
        env.add(
            numpy.line if numpy else env.deps_line,
            f"pin numpy below {NUMPY_THEANO_BREAKS}: Theano 1.0.5 uses np.bool and np.complex, "
            f"removed in numpy {NUMPY_THEANO_BREAKS}",
        )


def _check_vc(env: EnvFile, config: VariantConfig, cfg: Where) -> None:
    vc = env.get("vc")
    matrix = next(iter(config.values.get("vc") or []), None)
    if not env.platform.startswith("win"):
        if vc is not None:
            env.add(vc.line, "vc is the Windows runtime pin: not on linux-64")
    elif vc is None or vc.version is None or matrix is None or not admits(vc.version, matrix):
        env.add(
            vc.line if vc else env.deps_line,
            f"pin vc={matrix}: the runtime the recipes and Python's Windows builds use "
            f"({cfg('vc')}; seed 001's vc14 conflicts)",
        )


def _check_recipe_packages(env: EnvFile, outputs: RecipeOutputs) -> None:
    """What recipes/ builds is pinned at its recipe's version; Theano's companions."""
    built = outputs.versions
    names = env.names()
    for dep in env.conda_deps:
        if dep.name in built and not admits(dep.version, built[dep.name]):
            env.add(
                dep.line,
                f"{dep.name} {dep.version} excludes {built[dep.name]}, the version recipes/{dep.name} builds",
            )
    for dep in env.pip_deps:
        req = dep.requirement
        if req is not None and dep.name in built and not req.specifier.contains(built[dep.name]):
            env.add(
                dep.line,
                f"pip: {dep.text} excludes {built[dep.name]}, the version "
                f"recipes/{dep.name} builds (its variant takes that one)",
            )
    pygpu, libgpuarray = env.get("pygpu"), env.get("libgpuarray")
    if (pygpu is None) != (libgpuarray is None) or (
        pygpu and libgpuarray and pygpu.version != libgpuarray.version
    ):
        for pinned in (pygpu, libgpuarray):
            if pinned is not None:
                env.add(
                    pinned.line,
                    "pygpu and libgpuarray are one source and one API: pin both to the same version",
                )
    if "theano" in names and env.platform.startswith("win"):
        for need in THEANO_WIN_TOOLCHAIN:
            if need not in names:
                env.add(
                    env.deps_line,
                    f"win-64: Theano compiles with m2w64's g++: add {need} "
                    "(conda-forge's theano does not bring it)",
                )
    if "theano" in names and names & {"cudatoolkit", "cuda-nvrtc"} and "theano-gpu-config" not in names:
        env.add(
            env.deps_line,
            "a CUDA env with Theano needs theano-gpu-config (cxx, cuDNN paths, "
            "device=cuda without editing .theanorc): `- ../recipes/theano-gpu-config` "
            "under pip:",
        )


def _check_driver_floor(env: EnvFile, gpu_table: list[GpuEnv]) -> None:
    """A GPU env file asks for the driver its CUDA needs: `- __cuda>=X.Y`, the GPU table's
    driver_cuda_min. The CUDA packages' own `constrains` on __cuda ask less (pkgs/main's
    cudatoolkit 11.8.0: >=11.0; conda-forge's cuda-version 12.8: >=12) and conda's classic
    solver ignores a `constrains` on a virtual package (conda/conda#10803); a requested
    __cuda is honoured by conda, conda-libmamba-solver >= 24.7, mamba and rattler."""
    entry = next((e for e in gpu_table if e.file == env.path.name), None)
    dep = env.get("__cuda")
    if entry is None:
        if dep is not None:
            env.add(
                dep.line,
                f"{dep.text}: {env.path.name} is not in the GPU table: a driver floor there "
                "stops the env on machines it would run on",
            )
        return
    want = f"__cuda>={entry.driver_cuda_min}"
    if dep is None:
        env.add(
            env.deps_line,
            f"no driver floor: add `- {want}` (the GPU table's driver_cuda_min): "
            "without it the env creates on a driver too old for its CUDA and fails at the first kernel",
        )
    elif env.driver_floor != entry.driver_cuda_min:
        env.add(
            dep.line,
            f"{dep.text}: the GPU table says this env needs a driver reporting CUDA >= "
            f"{entry.driver_cuda_min} ({locations.shown(locations.GPU_ENVS)}): write `- {want}`",
        )


def _check_records(env: EnvFile, records: Records) -> None:
    """Every conda spec matches a real published record (data/records.yaml); a virtual package
    (``__cuda``) is the machine's, not a channel's."""
    for dep in env.conda_deps:
        if dep.name.startswith("__"):
            continue
        channels = [dep.channel] if dep.channel else env.channel_names
        if not records.matching(dep.match_spec, channels, env.platform):
            same_name = [str(r) for r in records.for_channels(channels, env.platform) if r.name == dep.name]
            known = f" (it has {', '.join(same_name)})" if same_name else ""
            env.add(
                dep.line,
                f"{dep.text}: no real record in {locations.shown(records.path)} matches it on "
                f"{env.platform} from {', '.join(channels)}{known}: pin what the "
                "channels publish, or add the record with its evidence",
            )


def _check_cuda(env: EnvFile, config: VariantConfig, cfg: Where) -> None:
    toolkit, cudnn = env.get("cudatoolkit"), env.get("cudnn")
    facts = {  # FACTS.md: what libgpuarray 0.7.6 and Theano 1.0.5 can load
        "cudatoolkit": (
            WIN_CUDA_UNLOADABLE if env.platform.startswith("win") else (),
            "win-64: libgpuarray 0.7.6 cannot load CUDA 10's nvrtc64_10x_0.dll, and "
            "theano-gpu-config's nvrtc64_91.dll shim loads CUDA >= 11's: pin "
            "cudatoolkit <=9.1 or >=11.2",
        ),
        "cudnn": (CUDNN_UNLOADABLE, "Theano 1.0.5 loads cuDNN 5.1 to 7 only"),
    }
    for dep, key in ((toolkit, "cudatoolkit"), (cudnn, "cudnn")):
        if dep is None:
            continue
        matrix = next(iter(config.values.get(key) or []), None)
        unloadable, why = facts[key]
        if dep.version is None or matrix is None:
            env.add(dep.line, f"pin {key} within the recipes' range {matrix} ({cfg(key)})")
        elif any(admits(dep.version, v) for v in unloadable):
            env.add(dep.line, f"{key} {dep.version}: {why}")
        elif outside := escapes(dep.version, matrix):
            env.add(
                dep.line,
                f"{key} {dep.version} admits {outside}, outside the recipes' "
                f"{config.platform} range {matrix} ({cfg(key)})",
            )
    if cudnn is not None:
        build = str(cudnn.match_spec.build) if cudnn.match_spec.build else ""
        if toolkit is None:
            env.add(cudnn.line, "cudnn needs cudatoolkit pinned beside it")
        elif (m := CUDA_BUILD_RE.search(build)) and not admits(toolkit.version, m.group("version")):
            env.add(
                cudnn.line,
                f"cudnn build {build} is for CUDA {m.group('version')}, but cudatoolkit is {toolkit.version}",
            )


def _unpublished(name: str, records: Records) -> str:
    why = (
        f"channel {name!r} is published nowhere "
        f"(no record of {locations.shown(records.path)} comes from it): "
        "conda env create stops with UnavailableInvalidChannel or PackagesNotFoundError "
        "(`gpuforge doctor`: channel_missing)"
    )
    if name == RECIPES_CHANNEL:
        why += (
            "; gpuforge's own builds are opt-in: build the channel (ci/build.sh) and make the "
            "variant with `gpuforge ci env-file FILE --channel DIR`"
        )
    return why


def _check_channels(env: EnvFile, mirrors: Mirrors, records: Records) -> None:
    known = mirrors.channel_names()
    published = records.published_channels()
    listed = set(env.channel_names)
    for name, line in env.channels:
        if name == NO_DEFAULTS:
            continue
        if "://" in name or name.startswith(("/", ".")):
            if not name.startswith("https://"):
                env.add(line, f"channel {name} is not https")
            env.add(
                line,
                f"channel {name}: use a channel name from {mirrors.path}; the URL comes "
                "from envs/mirrors/<mirror>.condarc, so exports stay portable",
            )
        elif name not in published and (name in known or name == RECIPES_CHANNEL):
            env.add(line, _unpublished(name, records))
        elif name not in known:
            env.add(
                line, f"channel {name!r} is not defined in {mirrors.path} (known: {', '.join(sorted(known))})"
            )
        if THIRTY_TWO_BIT_RE.search(name):
            env.add(line, f"channel {name}: 32-bit subdirs are not supported")
    if NO_DEFAULTS not in {name for name, _ in env.channels}:
        env.add(
            env.deps_line if not env.channels else env.channels[-1][1],
            f"end channels: with `- {NO_DEFAULTS}`: without it conda adds the .condarc's "
            "channels (Miniforge's conda-forge) to the solve",
        )
    for dep in env.conda_deps:
        subdir = dep.match_spec.subdir
        if subdir and subdir.endswith("-32"):
            env.add(dep.line, f"{dep.name}: subdir {subdir} is 32-bit (not supported)")
        if not dep.channel:
            continue
        if dep.channel not in published and (dep.channel in known or dep.channel == RECIPES_CHANNEL):
            env.add(dep.line, f"{dep.name}: {_unpublished(dep.channel, records)}")
        elif dep.channel not in known:
            env.add(dep.line, f"{dep.name}: channel {dep.channel!r} is not defined in {mirrors.path}")
        elif dep.channel not in listed:
            env.add(
                dep.line,
                f"{dep.name}: list channel {dep.channel} under channels: too "
                "(its packages' dependencies are found there)",
            )

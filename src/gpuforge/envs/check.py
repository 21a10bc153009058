"""`gpuforge envs check`: every env file, the mirror definition and its generated files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rattler import MatchSpec
from rattler.exceptions import InvalidMatchSpecError, SolverError

from gpuforge import locations
from gpuforge.envs.envfile import EnvFile, RecipeOutputs, check_env, load_env, recipe_outputs
from gpuforge.envs.gpu_envs import GpuEnv
from gpuforge.envs.gpu_envs import load as load_gpu_table
from gpuforge.envs.mirrors import Mirrors, drift_problems, load_mirrors
from gpuforge.envs.records import Records, load_records
from gpuforge.envs.solve import below, driver_cuda, first_named_line, solve_offline, solver_message
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.recipes.lint import Problem
from gpuforge.recipes.variants import VariantConfig, load_config

# The channels a build's requirements come from (src/gpuforge/ci/workflow.py, BUILD_CHANNELS),
# as records.yaml names them.
BUILD_RECORD_CHANNELS = ("main", "msys2")


@dataclass
class CheckResult:
    problems: list[Problem] = field(default_factory=list)
    stand_ins: dict[str, list[str]] = field(default_factory=dict)  # env file -> packages
    errors: list[Problem] = field(default_factory=list)  # files that cannot be read or parsed: exit 2
    env_files: int = 0
    solved: int = 0
    generated: int = 0
    cuda: str | None = None  # --cuda: every CUDA env solved at it; None: each at its own floor
    floors: int = 0  # GPU env files whose driver floor held: refused one CUDA release below it
    # platform -> build/host requirements of the recipes that no record of the build channels
    # shows published (what the CI's builds need with no evidence here)
    build_needs: dict[str, list[str]] = field(default_factory=dict)


def env_files(envs_dir: Path) -> list[Path]:
    return sorted(Path(envs_dir).glob("*.yml"))


class Platforms:
    """The variant config and the recipes' renderings, once per platform."""

    def __init__(self, recipes_dir: Path, config_path: Path | None = None):
        self.recipes_dir = Path(recipes_dir)
        self.config_path = config_path or self.recipes_dir / "conda_build_config.yaml"
        self._cache: dict[str, tuple[VariantConfig, RecipeOutputs]] = {}

    def get(self, platform: str) -> tuple[VariantConfig, RecipeOutputs]:
        if platform not in self._cache:
            config = load_config(self.config_path, platform)
            self._cache[platform] = (config, recipe_outputs(self.recipes_dir, config))
        return self._cache[platform]


def check_one(
    env: EnvFile,
    platforms: Platforms,
    mirrors: Mirrors,
    records: Records,
    result: CheckResult,
    gpu_table: list[GpuEnv] | None = None,
) -> None:
    """Pins and records, then (when they are sound) the offline solve on the records: at --cuda,
    else at the env's driver floor (a current driver, DEFAULT_CUDA_DRIVER, when it has none),
    and for a GPU env one CUDA release below its floor, where the solve must refuse."""
    if env.platform.endswith("-64"):
        config, outputs = platforms.get(env.platform)
        check_env(env, config, outputs, mirrors, records, gpu_table)
        if not env.problems:
            cuda = driver_cuda(env, result.cuda)
            try:
                solved = solve_offline(env, records, cuda)
                result.solved += 1
                result.stand_ins[str(env.path)] = [p.name for p in solved if p.origin == "stand-in"]
            except SolverError as exc:
                message = solver_message(exc)
                env.add(
                    first_named_line(env, message),
                    f"the pins do not solve against the real {env.platform} records "
                    f"(offline{f', __cuda={cuda}' if cuda else ''}): {message}",
                )
            if env.driver_floor and not env.problems:
                _refuses_below_floor(env, records, result)
    result.problems += env.problems


def _refuses_below_floor(env: EnvFile, records: Records, result: CheckResult) -> None:
    older = below(env.driver_floor or "")
    try:
        solve_offline(env, records, older)
    except SolverError:
        result.floors += 1
        return
    env.add(
        env.get("__cuda").line if env.get("__cuda") else 0,  # type: ignore[union-attr]
        f"solves on a driver reporting CUDA {older}, below its floor {env.driver_floor}",
    )


def unrecorded_build_needs(outputs: RecipeOutputs, records: Records) -> list[str]:
    """The build and host requirements of every rendering that no record of the build channels
    matches (the recipes' own packages aside: the CI builds them)."""
    own = {r.name for r in outputs.renderings}
    missing: dict[str, None] = {}
    for rendered in outputs.renderings:
        for spec_text in rendered.requirements.get("build", []) + rendered.requirements.get("host", []):
            try:
                spec = MatchSpec(spec_text)
            except InvalidMatchSpecError:  # a broken matrix value: `recipes lint` says which
                missing[spec_text] = None
                continue
            if spec.name.normalized in own:
                continue
            if not records.matching(spec, list(BUILD_RECORD_CHANNELS), outputs.platform):
                missing[spec_text] = None
    return sorted(missing)


def check_all(
    envs_dir: Path,
    recipes_dir: Path,
    files: list[Path] | None = None,
    cuda: str | None = None,
    mirrors_path: Path = locations.MIRRORS,
    records_path: Path = locations.RECORDS,
) -> CheckResult:
    """Check the env files (default: all in ``envs_dir``), the mirrors and their generated files."""
    result = CheckResult(cuda=cuda)
    envs_dir = Path(envs_dir)
    try:
        mirrors = load_mirrors(mirrors_path)
        records = load_records(records_path)
        gpu_table = load_gpu_table()
    except GpuforgeError as exc:
        found = result.errors if isinstance(exc, InputError) else result.problems
        found.append(Problem(str(exc.path or ""), exc.line or 0, exc.message))
        return result
    for path, line, message in drift_problems(mirrors, envs_dir):
        result.problems.append(Problem(str(path), line, message))
    result.generated = len(mirrors.mirrors)
    platforms = Platforms(recipes_dir)
    for platform in ("linux-64", "win-64"):
        try:
            result.build_needs[platform] = unrecorded_build_needs(platforms.get(platform)[1], records)
        except GpuforgeError as exc:  # a broken recipe or matrix: `recipes lint` reports it
            result.problems.append(Problem(str(exc.path or recipes_dir), exc.line or 0, exc.message))
    for path in files or env_files(envs_dir):
        result.env_files += 1
        try:
            env = load_env(path)
            check_one(env, platforms, mirrors, records, result, gpu_table)
        except GpuforgeError as exc:
            found = result.errors if isinstance(exc, InputError) else result.problems
            found.append(Problem(str(exc.path or path), exc.line or 0, exc.message))
    result.problems.sort()
    return result

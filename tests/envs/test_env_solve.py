"""The offline solve (real py-rattler) on a local channel of the recipes' rendered outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli
from rattler.exceptions import SolverError

from gpuforge.envs.check import Platforms
from gpuforge.envs.envfile import load_env
from gpuforge.envs.solve import solve_offline, write_channel

ENVS = ROOT / "envs"


@pytest.fixture(scope="module")
def platforms() -> Platforms:
    return Platforms(RECIPES)


def env_with(tmp_path: Path, name: str, *edits: tuple[str, str]):
    """A copy of envs/<name> with ``edits`` applied, loaded WITHOUT the pin checks."""
    path = tmp_path / name
    text = (ENVS / name).read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)
    env = load_env(path)
    assert env.problems == [], env.problems
    return env


def test_local_channel_holds_the_rendered_recipes(tmp_path, platforms):
    env = load_env(ENVS / "gpu-win64.yml")
    _, outputs = platforms.get("win-64")
    channel = write_channel(env, outputs, tmp_path / "channel")
    packages = json.loads((channel / "win-64" / "repodata.json").read_text())["packages"]
    assert json.loads((channel / "noarch" / "repodata.json").read_text())["packages"] == {}
    theano = [r for r in packages.values() if r["name"] == "theano"]
    assert len(theano) == 6  # one per python/numpy of the matrix
    py36 = next(r for r in theano if "python >=3.6,<3.7.0a0" in r["depends"])
    assert {"m2w64-toolchain", "libpython >=2.0", "mkl-service", "pygpu >=0.7.0,<0.8",
            "numpy >=1.9.1,<1.24"} <= set(py36["depends"])
    assert py36["constrains"] == ["cudnn >=5.1,<8"]
    libgpuarray = next(r for r in packages.values() if r["name"] == "libgpuarray")
    assert libgpuarray["constrains"] == ["cudatoolkit >=8.0,<9.2"]
    toolkits = {r["version"]: r["depends"] for r in packages.values() if r["name"] == "cudatoolkit"}
    assert toolkits["9.0"] == ["__cuda >=9.0"]


@pytest.mark.parametrize("name", sorted(p.name for p in ENVS.glob("*.yml")))
def test_every_env_solves(name, platforms):
    env = load_env(ENVS / name)
    solved = {p.name: p for p in solve_offline(env, platforms.get(env.platform)[1])}
    assert solved["python"].version in ("3.6", "3.7")
    if "theano" in solved:
        assert solved["theano"].origin == "recipe"
        assert solved["pygpu"].origin == solved["libgpuarray"].origin == "recipe"
        assert solved["pygpu"].build.startswith("py" + solved["python"].version.replace(".", ""))


def test_gpu_win64_solution(platforms):
    env = load_env(ENVS / "gpu-win64.yml")
    solved = {p.name: (p.version, p.origin) for p in solve_offline(env, platforms.get("win-64")[1])}
    assert solved["theano"] == ("1.0.5", "recipe")
    assert solved["cudatoolkit"] == ("9.0", "stand-in")
    assert solved["numpy"][0] in ("1.16", "1.17", "1.19")  # the matrix's numpys inside the pin
    assert {"m2w64-toolchain", "libpython", "mkl-service", "mako", "six", "vc"} <= set(solved)


# A pin that conflicts with the recipes' requirements (the pin checks bypassed): no solution.
CONFLICTS = [
    ("gpu-win64.yml", ("numpy>=1.16,<1.20", "numpy>=1.24"), "numpy"),  # theano: numpy <1.24
    ("gpu-win64.yml", ("numpy>=1.16,<1.20", "numpy<1.16"), "numpy"),  # pygpu built on 1.16
    ("gpu-win64.yml", ("python=3.6 ", "python=3.12 "), "python"),  # no variant for 3.12
    ("gpu-win64.yml", ("cudatoolkit=9.0 ", "cudatoolkit=10.0 "), "cudatoolkit"),  # nvrtc naming
    ("gpu-win64.yml", ("cudnn=7.1[", "cudnn=8.0["), "cudnn"),  # theano: cudnn <8
    ("cpu-win64.yml", ("vc=14 ", "vc=15 "), "vc"),  # recipes built for vc 14
    ("cpu-linux64.yml", ("gpuforge::pygpu=0.7.6", "gpuforge::pygpu=0.7.5"), "pygpu"),
    ("cpu-linux64.yml", ("  - nose  #", "  - mako<0.7  # old\n  - nose  #"), "mako"),
    ("pytorch04-win64.yml", ("  - pip  #", "  - python=3.7  # twice\n  - pip  #"), "python"),
]


@pytest.mark.parametrize("case", CONFLICTS, ids=lambda c: f"{c[0]}:{c[1][1].strip()}")
def test_a_conflicting_pin_does_not_solve(tmp_path, platforms, case):
    name, edit, package = case
    env = env_with(tmp_path, name, edit)
    with pytest.raises(SolverError, match=package):
        solve_offline(env, platforms.get(env.platform)[1])


def test_a_driver_too_old_for_the_toolkit_does_not_solve(platforms):
    env = load_env(ENVS / "gpu-win64.yml")
    outputs = platforms.get("win-64")[1]
    assert solve_offline(env, outputs, cuda="9.0")
    with pytest.raises(SolverError, match=r"cudatoolkit 9.0 would require\n.*__cuda >=9.0"):
        solve_offline(env, outputs, cuda="8.0")


def test_cli_solve_prints_the_solution_and_refuses_a_conflict(tmp_path):
    proc = run_cli("envs", "solve", "envs/gpu-win64.yml")
    assert proc.returncode == 0, proc.stderr
    assert "  theano               1.0.5" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("envs/gpu-win64.yml: 16 packages solve")
    proc = run_cli("envs", "solve", "envs/gpu-win64.yml", "--cuda", "8.0")
    assert proc.returncode == 2
    assert proc.stderr == ("gpuforge: error: envs/gpu-win64.yml: no solution (win-64, __cuda=8.0): "
                           "Cannot solve the request because of: cudatoolkit 9.0.* cannot be "
                           "installed because there are no viable options: cudatoolkit 9.0 would "
                           "require __cuda >=9.0, for which no candidates were found.\n")
    proc = run_cli("envs", "solve", "envs/gpu-win64.yml", "--cuda", "new")
    assert proc.returncode == 2
    assert proc.stderr == ("gpuforge: error: --cuda 'new': expected a driver's CUDA version, "
                           "e.g. 12.0\n")


def test_a_recipe_added_later_replaces_its_stand_in(tmp_path):
    """theano-gpu-config: a stand-in until recipes/ builds it, then its rendered record."""
    recipes = tmp_path / "recipes"
    shutil.copytree(RECIPES, recipes)
    if (recipes / "theano-gpu-config").exists():
        shutil.rmtree(recipes / "theano-gpu-config")
    env = load_env(ENVS / "gpu-win64.yml")
    solved = {p.name: p for p in solve_offline(env, Platforms(recipes).get("win-64")[1])}
    assert solved["theano-gpu-config"].origin == "stand-in"
    recipe = recipes / "theano-gpu-config"
    recipe.mkdir()
    (recipe / "meta.yaml").write_text(
        "package:\n  name: theano-gpu-config\n  version: 0.1.0\nbuild:\n  number: 0\n"
        "  noarch: generic\nrequirements:\n  run:\n    - theano 1.0.5\n    - cudnn\n")
    solved = {p.name: p for p in solve_offline(env, Platforms(recipes).get("win-64")[1])}
    assert solved["theano-gpu-config"].origin == "recipe"
    (recipe / "meta.yaml").write_text(
        (recipe / "meta.yaml").read_text().replace("theano 1.0.5", "theano 1.0.4"))
    with pytest.raises(SolverError, match="theano-gpu-config"):
        solve_offline(env, Platforms(recipes).get("win-64")[1])

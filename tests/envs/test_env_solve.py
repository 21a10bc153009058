"""The offline solve (real py-rattler) on a local channel of the real records, data/records.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, run_cli
from rattler.exceptions import SolverError

from gpuforge import locations
from gpuforge.envs.envfile import load_env
from gpuforge.envs.records import load_records
from gpuforge.envs.solve import solve_offline, write_channel

ENVS = ROOT / "envs"


@pytest.fixture(scope="module")
def records():
    return load_records(locations.RECORDS)


def env_with(tmp_path: Path, name: str, *edits: tuple[str, str]):
    """A copy of envs/<name> with ``edits`` applied, loaded WITHOUT the pin checks."""
    path = tmp_path / "envs" / name
    path.parent.mkdir()
    text = (ENVS / name).read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)
    (tmp_path / "recipes").symlink_to(ROOT / "recipes")  # the pip: entry's project folder
    env = load_env(path)
    assert env.problems == [], env.problems
    return env


def test_local_channel_holds_the_real_records(tmp_path, records):
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    channel = write_channel(env, records, tmp_path / "channel")
    packages = json.loads((channel / "win-64" / "repodata.json").read_text())["packages"]
    assert json.loads((channel / "noarch" / "repodata.json").read_text())["packages"] == {}
    pygpu = packages["pygpu-0.7.6-py36h452e1ab_0.tar.bz2"]
    assert pygpu["depends"] == ["libgpuarray 0.7.6", "python 3.6.*"]
    assert packages["cudatoolkit-9.0-1.tar.bz2"]["constrains"] == ["__cuda >=9.0"]
    assert "m2w64-toolchain-5.3.0-7.tar.bz2" in packages  # pkgs/msys2: part of defaults on win-64
    assert not any(r["subdir"] != "win-64" for r in packages.values())
    assert not any(name.startswith("pytorch-") for name in packages)  # not a channel of this env


@pytest.mark.parametrize("name", sorted(p.name for p in ENVS.glob("*.yml")))
def test_every_env_solves_on_real_records_only(name, records):
    env = load_env(ENVS / name)
    solved = {p.name: p for p in solve_offline(env, records)}
    assert [p.name for p in solved.values() if p.origin == "stand-in"] == []
    assert solved["python"].version.startswith(("3.6.", "3.7."))
    if "pygpu" in solved:
        assert solved["pygpu"].build.startswith("py" + "".join(solved["python"].version.split(".")[:2]))
        assert solved["libgpuarray"].version == "0.7.6"


def test_gpu_win64_solution(records):
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    solved = {p.name: (p.version, p.build, p.origin) for p in solve_offline(env, records)}
    assert solved["cudatoolkit"] == ("9.0", "1", "pkgs/main")
    assert solved["cudnn"] == ("7.1.4", "cuda9.0_0", "pkgs/main")
    assert solved["m2w64-toolchain"] == ("5.3.0", "7", "pkgs/msys2")
    assert solved["pygpu"] == ("0.7.6", "py36h452e1ab_0", "pkgs/main")
    assert solved["numpy"][0] in ("1.16.4", "1.19.2")


def test_a_package_the_table_lacks_is_a_named_stand_in(tmp_path, records):
    env = env_with(tmp_path, "cpu-linux64.yml", ("  - nose  #", "  - mako>=1.0  # new\n  - nose  #"))
    solved = {p.name: p for p in solve_offline(env, records)}
    assert solved["mako"].origin == "stand-in"
    assert [p for p in solved.values() if p.origin == "stand-in"] == [solved["mako"]]


# A pin no real record satisfies together with the others (the pin checks bypassed).
CONFLICTS = [
    ("gpu-win64-legacy-cuda9.yml", ("python=3.6 ", "python=3.7 "), "python 3.7"),  # no win-64 record of 3.7
    ("gpu-win64-legacy-cuda9.yml", ("cudatoolkit=9.0 ", "cudatoolkit=10.0 "), "cudatoolkit"),  # none recorded
    ("gpu-win64-legacy-cuda9.yml", ("cudnn=7.1[build=cuda9.0*]", "cudnn=7.1[build=cuda8.0*]"), "cudnn"),
    ("cpu-win64.yml", ("vc=14 ", "vc=15 "), "vc"),
    ("cpu-linux64.yml", ("pygpu=0.7.6", "pygpu=0.7.5"), "pygpu"),
    ("cpu-win64.yml", ("  - pip  #", "  - python=3.7  # twice\n  - pip  #"), "python"),
]


@pytest.mark.parametrize("case", CONFLICTS, ids=lambda c: f"{c[0]}:{c[1][1].strip()}")
def test_a_conflicting_pin_does_not_solve(tmp_path, records, case):
    name, edit, package = case
    env = env_with(tmp_path, name, edit)
    with pytest.raises(SolverError, match=package):
        solve_offline(env, records)


def test_a_driver_too_old_for_the_toolkit_does_not_solve(records):
    """The env's driver floor stops it; without that line, cudatoolkit 9.0's own constrains does."""
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    assert solve_offline(env, records, cuda="9.0")
    with pytest.raises(SolverError, match=r"No candidates were found for __cuda >=9.0"):
        solve_offline(env, records, cuda="8.0")
    env.deps = [d for d in env.deps if d.name != "__cuda"]
    with pytest.raises(SolverError, match=r"cudatoolkit 9.0 would constrain\n.*__cuda >=9.0"):
        solve_offline(env, records, cuda="8.0")


def test_cli_solve_prints_the_solution_and_refuses_a_conflict():
    proc = run_cli("envs", "solve", "envs/gpu-win64-legacy-cuda9.yml")
    assert proc.returncode == 0, proc.stderr
    assert "  pygpu                0.7.6      py36h452e1ab_0" in proc.stdout
    assert proc.stdout.splitlines()[-2] == (
        "envs/gpu-win64-legacy-cuda9.yml: 12 packages solve for win-64 "
        "on the "
        "real records of gpuforge's data/records.yaml; no stand-ins"
    )
    assert proc.stdout.splitlines()[-1] == (
        "  pip installs after the solve (not solved here): "
        "scipy==1.5.4, Theano==1.0.5, ../recipes/theano-gpu-config"
    )
    proc = run_cli("envs", "solve", "envs/gpu-win64-legacy-cuda9.yml", "--cuda", "8.0")
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "gpuforge: error: envs/gpu-win64-legacy-cuda9.yml:19: needs a driver that reports CUDA >= 9.0"
    )
    assert "No candidates were found for __cuda >=9.0" in proc.stderr
    proc = run_cli("envs", "solve", "envs/gpu-win64-legacy-cuda9.yml", "--cuda", "new")
    assert proc.returncode == 2
    assert proc.stderr == ("gpuforge: error: --cuda 'new': expected a driver's CUDA version, e.g. 12.0\n")

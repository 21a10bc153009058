"""The driver floor: each GPU env file's `- __cuda>=X.Y` line (the GPU table's driver_cuda_min)
stops the solve on a driver too old for its CUDA, where the CUDA packages' own `constrains` on
__cuda ask less. Shown with py-rattler's solver (gpuforge's offline solve) and, where the real
conda tools are here, with conda 26.7.1's own classic and rattler solvers."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import RECIPES, ROOT, conda_create_dry_run, run_cli
from rattler.exceptions import SolverError

from gpuforge import locations
from gpuforge.envs import gpu_envs
from gpuforge.envs.check import check_all
from gpuforge.envs.envfile import load_env
from gpuforge.envs.records import load_records
from gpuforge.envs.solve import below, solve_offline, solve_specs, write_channel

ENVS = ROOT / "envs"
TABLE = gpu_envs.load()


@pytest.mark.parametrize("entry", TABLE, ids=lambda e: e.file)
def test_every_gpu_env_solves_at_its_floor_and_not_below(entry):
    env = load_env(ENVS / entry.file)
    assert env.driver_floor == entry.driver_cuda_min
    records = load_records(locations.RECORDS)
    assert solve_offline(env, records, entry.driver_cuda_min)
    with pytest.raises(SolverError, match=r"__cuda >=" + entry.driver_cuda_min.replace(".", r"\.")):
        solve_offline(env, records, below(entry.driver_cuda_min))


def test_the_cuda_packages_alone_would_let_an_old_driver_through():
    """Without the floor line, pkgs/main's cudatoolkit 11.8.0 (constrains __cuda >=11.0) solves on a
    driver reporting CUDA 11.4: the reason for the line."""
    env = load_env(ENVS / "gpu-linux64.yml")
    env.deps = [d for d in env.deps if d.name != "__cuda"]
    assert solve_offline(env, load_records(locations.RECORDS), "11.4")


def test_envs_solve_names_the_driver_and_the_floor():
    old = run_cli("envs", "solve", "envs/gpu-linux64.yml", "--cuda", "11.4")
    line = next(
        i for i, text in enumerate((ENVS / "gpu-linux64.yml").read_text().splitlines(), 1) if "__cuda" in text
    )
    assert old.returncode == 2 and old.stdout == ""
    assert old.stderr.startswith(
        f"gpuforge: error: envs/gpu-linux64.yml:{line}: needs a driver that reports CUDA >= 11.8 (its "
        "`__cuda>=11.8` line); a driver reporting CUDA 11.4 is older: update the NVIDIA driver"
    ), old.stderr
    assert len(old.stderr.strip().splitlines()) == 1
    new = run_cli("envs", "solve", "envs/gpu-linux64.yml", "--cuda", "12.0")
    assert new.returncode == 0, new.stderr
    assert "11 packages solve for linux-64" in new.stdout


def test_envs_check_wants_the_tables_floor_in_every_gpu_env_file(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    linux = tmp_path / "envs" / "gpu-linux64.yml"
    linux.write_text(linux.read_text().replace("__cuda>=11.8", "__cuda>=11.0"))
    win = tmp_path / "envs" / "gpu-win64.yml"
    win.write_text("".join(ln for ln in win.read_text().splitlines(keepends=True) if "__cuda" not in ln))
    cpu = tmp_path / "envs" / "cpu-linux64.yml"
    cpu.write_text(cpu.read_text().replace("  - nose  #", "  - __cuda>=11.8  # wrong here\n  - nose  #"))
    messages = [p.message for p in check_all(tmp_path / "envs", RECIPES).problems]
    assert any(
        "__cuda>=11.0: the GPU table says this env needs a driver reporting CUDA >= 11.8" in m
        for m in messages
    )
    assert any(m.startswith("no driver floor: add `- __cuda>=11.8`") for m in messages)
    assert any("cpu-linux64.yml is not in the GPU table" in m for m in messages), messages


@pytest.mark.parametrize("solver", ["classic", "rattler"])
def test_real_conda_honours_the_floor(conda_tools, solver, tmp_path):
    """conda 26.7.1 itself (the vendored release), offline, on a channel of the env's real records:
    the env's specs with its floor line fail on a driver reporting CUDA 11.4 and with no driver,
    and solve on one reporting 12.0 (CONDA_OVERRIDE_CUDA sets what the driver reports)."""
    env = load_env(ENVS / "gpu-linux64.yml")
    channel = write_channel(env, load_records(locations.RECORDS), tmp_path / "channel")
    specs = solve_specs(env)
    assert "__cuda>=11.8" in specs
    outcomes = {}
    for cuda in ("11.4", "", "12.0"):
        proc = conda_create_dry_run(
            conda_tools,
            tmp_path / "prefix",
            channel,
            "--offline",
            "--json",
            "--solver",
            solver,
            *specs,
            env=dict(conda_tools.env(tmp_path), CONDA_OVERRIDE_CUDA=cuda),
        )
        outcomes[cuda] = (proc.returncode, proc.stdout + proc.stderr)
    for cuda in ("11.4", ""):
        code, said = outcomes[cuda]
        assert code != 0 and "__cuda" in said and ">=11.8" in said, (cuda, said[-2000:])
    code, said = outcomes["12.0"]
    assert "DryRunExit" in said or code == 0, said[-2000:]
    try:
        doc = json.loads(said)
    except json.JSONDecodeError:
        doc = {}
    assert doc.get("dry_run", True), said[-2000:]

"""gpuforge as its users install it: a wheel of this checkout, pip-installed into a fresh venv,
every subcommand run from an empty folder (nothing of the checkout on sys.path or in the
working folder). What needs package data works as in the checkout; what needs the checkout's
envs/ or recipes/ says so in one line naming the flag, and works with the flag."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PROBE = ROOT / "tests" / "data" / "probes" / "win64-cc86-driver560-cuda90.json"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `gpuforge` script of a fresh venv holding this checkout's wheel and its dependencies."""
    work = tmp_path_factory.mktemp("installed")
    wheels = work / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    (wheel,) = wheels.glob("gpuforge-*.whl")
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if install.returncode != 0:
        last = (install.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"gpuforge's dependencies could not be installed from PyPI here ({last})")
    return venv / "bin" / "gpuforge"


@pytest.fixture
def empty(tmp_path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


def gpuforge(script: Path, *args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "THEANORC", "THEANO_FLAGS")}
    env["HOME"] = str(home or cwd)
    return subprocess.run([str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpuforge: error: "), proc.stderr
    return lines[0]


def test_the_installed_package_is_not_the_checkout(installed, empty):
    where = subprocess.run(
        [str(installed.parent / "python"), "-c", "import gpuforge; print(gpuforge.__file__)"],
        cwd=empty,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout


def test_envs_gpus_names_the_env_file_for_this_host(installed, empty):
    proc = gpuforge(installed, "envs", "gpus", "--cc", "9.0", "--driver-cuda", "13.0", cwd=empty)
    assert proc.returncode == 0, proc.stderr
    assert "envs/gpu-linux64.yml" in proc.stdout.splitlines()[0]
    table = gpuforge(installed, "envs", "gpus", cwd=empty)
    assert table.returncode == 0 and "envs/gpu-win64-legacy-cuda9.yml" in table.stdout


def test_envs_solve_a_file_of_the_checkout(installed, empty):
    proc = gpuforge(installed, "envs", "solve", str(ROOT / "envs" / "gpu-linux64.yml"), cwd=empty)
    assert proc.returncode == 0, proc.stderr
    assert "on the real records of gpuforge's data/records.yaml" in proc.stdout


def test_doctor_facts_picks_the_env_file(installed, empty):
    proc = gpuforge(installed, "doctor", "--facts", str(PROBE), cwd=empty)
    assert "env file for this GPU and driver: envs/gpu-win64.yml" in proc.stdout, proc.stdout + proc.stderr


def test_doctor_reads_a_theanorc_whose_header_has_a_comment(installed, empty):
    (empty / ".theanorc").write_text("[global] # my GPU box\nfloatX = float32\n", encoding="utf-8")
    python = shutil.which("python3") or sys.executable
    proc = gpuforge(installed, "doctor", "--python", python, cwd=empty)
    assert proc.returncode in (0, 1), proc.stderr
    assert "floatX=float32" in proc.stdout, proc.stdout


def test_doctor_log_and_explain(installed, empty):
    log = empty / "err.txt"
    log.write_text("ImportError: No module named 'torch._C'\n", encoding="utf-8")
    proc = gpuforge(installed, "doctor", "--log", str(log), cwd=empty)
    assert proc.returncode == 1 and proc.stdout.startswith("[torch_C_shadow]"), proc
    explained = gpuforge(installed, "doctor", "--explain", "torch_C_shadow", "--json", cwd=empty)
    assert json.loads(explained.stdout)["id"] == "torch_C_shadow"


def test_theanorc_write_and_migrate(installed, empty):
    rc = empty / "rc"
    written = gpuforge(installed, "theanorc", "write", "--profile", "fast", "--path", str(rc), cwd=empty)
    assert written.returncode == 0 and "device = cuda" in rc.read_text()
    old = empty / "old"
    old.write_text("[global]\ndevice = gpu0\n", encoding="utf-8")
    migrated = gpuforge(installed, "theanorc", "migrate", "--path", str(old), "--yes", cwd=empty)
    assert migrated.returncode == 0 and old.read_text() == "[global]\ndevice = cuda0\n"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["envs", "check"], "--envs-dir"),
        (["envs", "render"], "--envs-dir"),
        (["envs", "lock"], "--envs-dir"),
        (["recipes", "render"], "--recipes-dir"),
        (["recipes", "lint", "--conda-smithy", "skip"], "--recipes-dir"),
        (["recipes", "build"], "--recipes-dir"),
        (["recipes", "build-local", "theano", "--python", sys.executable], "--recipes-dir"),
        (["ci", "render", "--check"], "--root"),
        (["ci", "matrix"], "--root"),
        (["ci", "envs", "linux-64"], "--root"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_checkout_commands_name_their_flag_in_an_empty_folder(installed, empty, args, flag):
    assert flag in one_line(gpuforge(installed, *args, cwd=empty))
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["envs", "check", "--envs-dir", str(ROOT / "envs"), "--recipes-dir", str(ROOT / "recipes")],
        ["recipes", "render", "--recipes-dir", str(ROOT / "recipes"), "--platform", "win-64"],
        ["recipes", "lint", "--conda-smithy", "skip", "--recipes-dir", str(ROOT / "recipes")],
        ["ci", "render", "--check", "--root", str(ROOT)],
        ["ci", "matrix", "--root", str(ROOT)],
        ["ci", "envs", "win-64", "--root", str(ROOT)],
    ],
    ids=lambda v: " ".join(v[:2]),
)
def test_checkout_commands_run_with_their_flag(installed, empty, args):
    proc = gpuforge(installed, *args, cwd=empty)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_smoke_lists_its_targets_and_says_where_the_conda_ones_are(installed, empty):
    proc = gpuforge(installed, "smoke", "--list", cwd=empty)
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == ["cpu", "opencl", "torch", "cuda", "windows", "mockgpu", "env:*"]
    assert "pass --envs-dir" in proc.stdout
    listed = gpuforge(installed, "smoke", "--list", "--envs-dir", str(ROOT / "envs"), cwd=empty)
    assert "env:gpu-linux64" in listed.stdout


def test_ci_env_file_writes_the_local_variant(installed, empty):
    out = empty / "env.yml"
    (empty / "channel").mkdir()  # a channel of gpuforge's builds (ci/build.sh fills it)
    proc = gpuforge(
        installed,
        "ci",
        "env-file",
        str(ROOT / "envs" / "gpu-linux64.yml"),
        "--channel",
        str(empty / "channel"),
        "--output",
        str(out),
        cwd=empty,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()

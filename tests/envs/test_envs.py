"""envs/: the env files pass every check, and each check fires on a real broken copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli

from gpuforge.envs.check import check_all
from gpuforge.envs.envfile import escapes, load_env

ENVS = ROOT / "envs"
ENV_FILES = sorted(p.name for p in ENVS.glob("*.yml"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A writable copy of envs/ and recipes/ (the layout `gpuforge envs check` reads)."""
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    return tmp_path


def edit(path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))
    return path


def line_of(path: Path, fragment: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if fragment in ln)


def test_the_five_env_files_exist():
    assert ENV_FILES == ["cpu-linux64.yml", "cpu-win64.yml", "gpu-linux64.yml", "gpu-win64.yml",
                         "pytorch04-win64.yml"]


def test_repository_envs_are_clean_and_solve():
    result = check_all(ENVS, RECIPES)
    assert [str(p) for p in result.problems] == []
    assert result.env_files == len(ENV_FILES)
    assert result.solved == len(ENV_FILES)
    assert result.generated == 4
    for warning in result.warnings:  # only until recipes/theano-gpu-config is merged
        assert "theano-gpu-config: no recipe" in warning
        assert not (RECIPES / "theano-gpu-config" / "meta.yaml").exists()


def test_cli_check_prints_a_summary():
    proc = run_cli("envs", "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == (
        "envs check: 5 env files clean, 5 solved offline against the recipes (__cuda=12.0), "
        "4 mirror files up to date")


def test_headline_pins():
    env = load_env(ENVS / "gpu-win64.yml")
    pins = {d.name: (d.channel, d.version, str(d.spec.build or "")) for d in env.conda_deps}
    assert pins["python"][1] == "3.6.*" and pins["vc"][1] == "14.*"
    assert pins["cudatoolkit"][1] == "9.0.*"
    assert pins["cudnn"][1:] == ("7.1.*", "cuda9.0*")
    assert pins["numpy"][1] == ">=1.16,<1.20"
    for name, version in (("theano", "1.0.5.*"), ("pygpu", "0.7.6.*"), ("libgpuarray", "0.7.6.*"),
                          ("theano-gpu-config", "0.1.0.*")):
        assert pins[name][:2] == ("gpuforge", version)
    assert {"m2w64-toolchain", "libpython", "mkl-service", "scipy", "nose"} <= set(pins)
    assert env.platform == "win-64"


# (file, old, new, line fragment, expected message fragment)
PIN_CASES = [
    ("gpu-win64.yml", "python=3.6 ", "python=3.5 ", "python=3.5", "is not in the recipes' matrix"),
    ("gpu-win64.yml", "python=3.6 ", "python>=3.6 ", "python>=3.6", "admits several Pythons"),
    ("gpu-win64.yml", "numpy>=1.16,<1.20", "numpy>=1.16,<1.25", "numpy>=1.16,<1.25",
     "pin numpy below 1.24"),
    ("gpu-win64.yml", "numpy>=1.16,<1.20", "numpy>=1.16,<1.21", "numpy>=1.16,<1.21",
     "admits 1.20, which has no builds for python 3.6"),
    ("gpu-win64.yml", "numpy>=1.16,<1.20", "numpy>=1.14,<1.16", "numpy>=1.14",
     "excludes numpy 1.16, which pygpu for python 3.6 is built against"),
    ("cpu-win64.yml", "vc=14 ", "vc=15 ", "vc=15", "pin vc=14"),
    ("cpu-linux64.yml", "  - nose ", "  - vc=14  # no\n  - nose ", "vc=14",
     "vc is the Windows runtime pin"),
    ("gpu-win64.yml", "cudatoolkit=9.0 ", "cudatoolkit=10.0 ", "cudatoolkit=10.0",
     "cannot load CUDA >= 10's nvrtc64_100_0.dll"),
    ("gpu-win64.yml", "cudatoolkit=9.0 ", "cudatoolkit>=9.0,<10 ", "cudatoolkit>=9.0",
     "admits 9.2, outside the recipes' win-64 range >=8.0,<9.2"),
    ("gpu-linux64.yml", "cudatoolkit=10.2 ", "cudatoolkit=11.0 ", "cudatoolkit=11.0",
     "admits 11.0, outside the recipes' linux-64 range >=8.0,<11"),
    ("gpu-win64.yml", "cudnn=7.1[build=cuda9.0*]", "cudnn=8.0[build=cuda9.0*]", "cudnn=8.0",
     "Theano 1.0.5 loads cuDNN 5.1 to 7 only"),
    ("gpu-win64.yml", "cudnn=7.1[build=cuda9.0*]", "cudnn=7.1[build=cuda8.0*]", "cudnn=7.1",
     "cudnn build cuda8.0* is for CUDA 8.0, but cudatoolkit is 9.0.*"),
    ("gpu-win64.yml", "cudatoolkit=9.0 ", "cudatoolkit ", "cudatoolkit ", "pin cudatoolkit within"),
    ("gpu-win64.yml", "gpuforge::pygpu=0.7.6", "gpuforge::pygpu=0.7.5", "pygpu=0.7.5",
     "pygpu 0.7.5.* excludes 0.7.6, the version recipes/pygpu builds"),
    ("gpu-linux64.yml", "gpuforge::libgpuarray=0.7.6", "gpuforge::libgpuarray>=0.7",
     "libgpuarray>=0.7", "pin both to the same version"),
    ("gpu-win64.yml", "gpuforge::theano=1.0.5", "theano=1.0.5", "theano=1.0.5",
     "take it from the recipes' channel: `gpuforge::theano`"),
    ("cpu-win64.yml", "  - m2w64-toolchain", "  # - m2w64-toolchain", "dependencies:",
     "add m2w64-toolchain (conda-forge's theano does not bring it)"),
    ("gpu-win64.yml", "  - gpuforge::theano-gpu-config", "  # - theano-gpu-config",
     "dependencies:", "needs theano-gpu-config"),
    ("gpu-win64.yml", "  - scipy  # Theano's sparse and signal ops; any build for Python 3.6 (theano "
     "asks scipy >=0.14)", "  - scipy", "- scipy",
     "every pin needs a comment saying why"),
    ("cpu-linux64.yml", "  - scipy  #", "  - scipy>=>1  #", "scipy>=>1",
     "is not a valid conda MatchSpec"),
    ("cpu-linux64.yml", "  - defaults  #", "  - http://repo.anaconda.com/pkgs/main  #",
     "http://repo", "is not https"),
    ("cpu-linux64.yml", "  - defaults  #", "  - https://mirrors.tuna.tsinghua.edu.cn/anaconda/"
     "pkgs/main  #", "https://mirrors", "use a channel name from"),
    ("cpu-linux64.yml", "  - defaults  #", "  - conda-forgee  #", "conda-forgee",
     "channel 'conda-forgee' is not defined in"),
    ("cpu-linux64.yml", "  - nose  #", "  - nose[subdir=linux-32]  #", "nose[subdir",
     "subdir linux-32 is 32-bit"),
    ("pytorch04-win64.yml", "torchvision==0.2.1", "torchvision>=0.2", "torchvision>=0.2",
     "pin it with =="),
    ("pytorch04-win64.yml", "name: pytorch04-cuda90", "name: pytorch04-cuda90\nplatforms: [win-64]",
     "platforms:", "unknown key 'platforms'"),
    ("pytorch04-win64.yml", "  - pytorch  # the official", "  - conda-forge  # the official",
     "pytorch::pytorch", "list channel pytorch under channels: too"),
    ("cpu-linux64.yml", "  - nose  #", "  - nose  # ok\n  - six<1.9  #", "gpuforge::theano",
     "the pins do not solve against the recipes' linux-64 outputs (offline, __cuda=12.0): "
     "Cannot solve the request because of: theano 1.0.5.* cannot be installed"),
]


@pytest.mark.parametrize("case", PIN_CASES, ids=lambda c: f"{c[0]}:{c[4][:40]}")
def test_each_check_fires_on_a_broken_copy(tree, case):
    name, old, new, fragment, message = case
    path = edit(tree / "envs" / name, old, new)
    result = check_all(tree / "envs", tree / "recipes", [path])
    line = line_of(path, fragment)
    shown = [str(p) for p in result.problems]
    assert any(p.startswith(f"{path}:{line}: ") and message in p for p in shown), shown


def test_a_32bit_env_file_is_refused(tree):
    path = tree / "envs" / "gpu-win32.yml"
    (tree / "envs" / "gpu-win64.yml").rename(path)
    result = check_all(tree / "envs", tree / "recipes", [path])
    assert [str(p) for p in result.problems] == [
        f"{path}:1: win-32 is a 32-bit platform: Theano's g++ and PyTorch need 64-bit Python "
        "(no win-32 builds, seed 001); use -win64/-linux64"]


def test_broken_yaml_is_one_line_from_the_cli(tree):
    path = edit(tree / "envs" / "gpu-win64.yml", "name: gpuforge-gpu", "name: gpuforge-gpu: x")
    proc = run_cli("envs", "check", "envs/gpu-win64.yml", cwd=tree)
    assert proc.returncode == 2  # bad input, not a finding
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr == (f"gpuforge: error: envs/gpu-win64.yml:{line_of(path, 'name:')}: invalid YAML: "
                           "mapping values are not allowed here\n")


# The matrix moves, the env files stay: the check names the drift.
MATRIX_DRIFT = [
    ("  - 3.6\n", "", "gpu-win64.yml", "python=3.6", "python 3.6.* is not in the recipes' matrix"),
    ("  - 1.16  # python 3.6\n", "  - 1.20  # python 3.6\n", "cpu-win64.yml", "numpy>=",
     "excludes numpy 1.20, which pygpu for python 3.6 is built against"),
    ("  - '>=8.0,<9.2'  # [win]", "  - '>=8.0,<9.0'  # [win]", "gpu-win64.yml", "cudatoolkit=9.0",
     "admits 9.0, outside the recipes' win-64 range >=8.0,<9.0"),
    ("  - '>=5.1,<8'", "  - '>=5.1,<7.5'", "gpu-linux64.yml", "cudnn=7.6",
     "admits 7.6, outside the recipes' linux-64 range >=5.1,<7.5"),
    ("  - 14  # [win]", "  - 15  # [win]", "pytorch04-win64.yml", "vc=14", "pin vc=15"),
]


@pytest.mark.parametrize("case", MATRIX_DRIFT, ids=lambda c: c[2] + ":" + c[3])
def test_env_pins_follow_the_recipes_matrix(tree, case):
    old, new, name, fragment, message = case
    config = edit(tree / "recipes" / "conda_build_config.yaml", old, new)
    if old == "  - 3.6\n":  # python and numpy are zipped: drop 3.6's numpy too
        edit(config, "  - 1.16  # python 3.6\n", "")
    path = tree / "envs" / name
    result = check_all(tree / "envs", tree / "recipes", [path])
    shown = [str(p) for p in result.problems]
    assert any(p.startswith(f"{path}:{line_of(path, fragment)}: ") and message in p
               for p in shown), shown


def test_escapes_probes_every_named_version():
    assert escapes("9.0.*", ">=8.0,<9.2") is None
    assert escapes(">=9.0", ">=8.0,<9.2") == "9.2"
    assert escapes("<10", ">=8.0,<9.2") == "0"
    assert escapes("9.*", ">=8.0,<9.2") == "9.2"
    assert escapes(">=9.1.5", ">=8.0,<9.2") == "9.2"

"""The GPU table (data/gpu-envs.yaml): the table loads, picks the env file a GPU and driver need, says
whether the env's NVRTC compiles for a GPU, and a broken table is one located error."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from gpuforge import locations
from gpuforge.envs.gpu_envs import can_compile, load, pick
from gpuforge.errors import InputError


@pytest.fixture(scope="module")
def table():
    return load()


def by_file(table, name):
    return next(e for e in table if e.file == name)


def test_table_is_package_data_and_names_real_env_files(table):
    assert locations.GPU_ENVS == ROOT / "src" / "gpuforge" / "data" / "gpu-envs.yaml"
    assert [e.file for e in table] == [
        "gpu-linux64.yml",
        "gpu-win64.yml",
        "gpu-linux64-blackwell.yml",
        "gpu-win64-blackwell.yml",
        "gpu-linux64-legacy-cuda10.yml",
        "gpu-win64-legacy-cuda9.yml",
    ]
    for e in table:
        assert (ROOT / "envs" / e.file).is_file(), e.file
        assert e.platform == ("win-64" if "-win64" in e.file else "linux-64")


@pytest.mark.parametrize(
    "platform, cc, driver, want",
    [
        # the done-criteria: an RTX 30 (cc 8.6) on driver 560 (CUDA 12.6), an RTX 50 (cc 12.0)
        ("win-64", "8.6", "12.6", "gpu-win64.yml"),
        ("linux-64", "8.6", "12.6", "gpu-linux64.yml"),
        ("win-64", "12.0", "12.8", "gpu-win64-blackwell.yml"),
        ("linux-64", "10.0", "13.0", "gpu-linux64-blackwell.yml"),
        ("linux-64", "9.0", None, "gpu-linux64.yml"),
        # Pascal with an old driver: the legacy env; with a new one: the modern env
        ("linux-64", "6.1", "11.4", "gpu-linux64-legacy-cuda10.yml"),
        ("win-64", "6.1", "10.0", "gpu-win64-legacy-cuda9.yml"),
        ("win-64", "6.1", "12.2", "gpu-win64.yml"),
        ("linux-64", "3.5", "11.4", "gpu-linux64-legacy-cuda10.yml"),
    ],
)
def test_pick(table, platform, cc, driver, want):
    choice = pick(platform, cc, driver, table)
    assert choice.entry is not None, choice.reason
    assert choice.entry.file == want
    assert want in choice.reason and "\n" not in choice.reason


@pytest.mark.parametrize(
    "platform, cc, driver, says",
    [
        ("linux-64", "8.6", "11.4", "needs CUDA >= 11.8: update the NVIDIA driver"),
        ("win-64", "12.0", "12.4", "gpu-win64-blackwell.yml (cc 12.0) needs CUDA >= 12.8"),
        ("win-64", "2.1", "9.0", "no win-64 env file serves compute capability 2.1"),
        ("osx-64", "8.6", "12.0", "no GPU env file for osx-64"),
    ],
)
def test_pick_says_why_nothing_fits(table, platform, cc, driver, says):
    choice = pick(platform, cc, driver, table)
    assert choice.entry is None and says in choice.reason


def test_can_compile_the_published_076_way(table):
    """Without the shim 0.7.6 asks for compute_<cc> as it is: NVRTC 9.0 and 10.2 refuse an
    Ampere GPU (the issue's failure), NVRTC 11.8 takes Ada/Hopper, and no NVRTC takes
    Blackwell's truncated compute_12."""
    legacy9 = by_file(table, "gpu-win64-legacy-cuda9.yml")
    legacy10 = by_file(table, "gpu-linux64-legacy-cuda10.yml")
    modern = by_file(table, "gpu-linux64.yml")
    ok, why = can_compile(legacy9, "8.6")
    assert not ok and "invalid value for --gpu-architecture" in why
    assert not can_compile(legacy10, "8.6")[0] and can_compile(legacy10, "7.5")[0]
    assert can_compile(modern, "8.9")[0] and can_compile(modern, "9.0")[0]
    ok, why = can_compile(modern, "12.0")
    assert not ok and "truncates compute_120 to compute_12" in why


def test_can_compile_through_the_shim(table):
    win = by_file(table, "gpu-win64.yml")
    blackwell = by_file(table, "gpu-linux64-blackwell.yml")
    ok, why = can_compile(blackwell, "12.0")
    assert ok and "compute_90" in why and "rewritten from compute_120" in why
    assert can_compile(win, "10.0") == (
        True,
        "NVRTC 11.8 (gpu-win64.yml) compiles compute_90 PTX "
        "for this cc 10.0 GPU (rewritten from compute_100, "
        "JIT-compiled by the driver)",
    )
    ok, why = can_compile(blackwell, "3.5")
    assert not ok and "accepts compute_50 and newer" in why
    # the patched libgpuarray behaves as the shim: ask for it explicitly
    assert can_compile(by_file(table, "gpu-linux64.yml"), "12.0", arch_rewrite=True)[0]


GOOD = """envs:
  - file: gpu-linux64.yml
    platform: linux-64
    gpus: Ampere
    cuda: "11.8"
    cc_min: "5.0"
    cc_max: "9.0"
    driver_cuda_min: "11.8"
    nvrtc_archs: [75, 86]
    arch_rewrite: false
    cudnn: null
    evidence: measured
"""


@pytest.mark.parametrize(
    "old, new, line, says",
    [
        ('cuda: "11.8"', "cuda: 11.8", 5, "cuda: expected a quoted major.minor version"),
        ("platform: linux-64", "platform: linux-32", 3, "platform 'linux-32'"),
        ("nvrtc_archs: [75, 86]", "nvrtc_archs: [sm_75]", 9, "nvrtc_archs: expected numbers"),
        ('cc_min: "5.0"', 'cc_min: "9.5"', 6, "cc_min 9.5 is above cc_max 9.0"),
        ("    cudnn: null\n", "", 2, "missing cudnn"),
        ("arch_rewrite: false", "arch_rewrite: maybe", 10, "arch_rewrite: expected true or false"),
        ("gpus: Ampere", "gpus: [Ampere", 5, "invalid YAML"),
    ],
)
def test_a_broken_table_is_one_located_error(tmp_path: Path, old, new, line, says):
    path = tmp_path / "gpu-envs.yaml"
    assert old in GOOD
    path.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as info:
        load(path)
    assert info.value.path == path and info.value.line == line, str(info.value)
    assert says in info.value.message and "\n" not in str(info.value)
    path.write_text(GOOD)
    assert load(path)[0].nvrtc_archs == (75, 86)


def test_cli_names_the_env_file_or_says_why_not():
    from conftest import run_cli

    proc = run_cli("envs", "gpus", "--platform", "win-64", "--cc", "8.6", "--driver-cuda", "12.6")
    assert proc.returncode == 0 and proc.stdout.startswith("envs/gpu-win64.yml: "), proc.stderr
    proc = run_cli("envs", "gpus", "--platform", "linux-64", "--cc", "12.0", "--driver-cuda", "12.4")
    assert proc.returncode == 1 and "needs CUDA >= 12.8: update the NVIDIA driver" in proc.stdout
    proc = run_cli("envs", "gpus", "--cc", "8.x")
    assert proc.returncode == 2 and proc.stderr == (
        "gpuforge: error: compute capability '8.x': expected major.minor, e.g. 8.6\n"
    )

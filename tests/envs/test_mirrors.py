"""Mirrors: one definition (data/mirrors.yaml), generated .condarc files that never drift."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli
from ruamel.yaml import YAML

from gpuforge import locations
from gpuforge.envs.check import check_all
from gpuforge.envs.mirrors import load_mirrors, render_condarc
from gpuforge.errors import GpuforgeError

ENVS = ROOT / "envs"
TUNA = "https://mirrors.tuna.tsinghua.edu.cn/anaconda"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A checkout's envs/ and recipes/, and a copy of the mirrors to edit (`--mirrors mirrors.yaml`)."""
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    shutil.copy(locations.MIRRORS, tmp_path / "mirrors.yaml")
    return tmp_path


def test_committed_condarc_files_are_what_render_writes():
    mirrors = load_mirrors(locations.MIRRORS)
    assert sorted(mirrors.mirrors) == ["bfsu", "official", "sjtu", "tuna"]
    committed = sorted(p.stem for p in (ENVS / "mirrors").glob("*.condarc"))
    assert committed == sorted(mirrors.mirrors)
    for name in mirrors.mirrors:
        assert (ENVS / "mirrors" / f"{name}.condarc").read_text() == render_condarc(mirrors, name)


def test_tuna_condarc_is_the_recommended_form():
    config = YAML(typ="safe").load((ENVS / "mirrors" / "tuna.condarc").read_text())
    assert config["default_channels"] == [f"{TUNA}/pkgs/main", f"{TUNA}/pkgs/r", f"{TUNA}/pkgs/msys2"]
    # no gpuforge: nothing is published under that name (UnavailableInvalidChannel)
    assert config["custom_channels"] == {"conda-forge": f"{TUNA}/cloud", "pytorch": f"{TUNA}/cloud"}
    assert config["channels"] == ["defaults"]
    text = (ENVS / "mirrors" / "tuna.condarc").read_text()
    assert "cloud/msys2" not in text and "pkgs/free" not in text


def test_channel_urls_per_platform():
    mirrors = load_mirrors(locations.MIRRORS)
    assert mirrors.channel_urls("defaults", "sjtu", "win-64") == [
        "https://mirror.sjtu.edu.cn/anaconda/pkgs/main",
        "https://mirror.sjtu.edu.cn/anaconda/pkgs/r",
        "https://mirror.sjtu.edu.cn/anaconda/pkgs/msys2",
    ]
    assert mirrors.channel_urls("defaults", "official", "linux-64") == [
        "https://repo.anaconda.com/pkgs/main",
        "https://repo.anaconda.com/pkgs/r",
    ]
    assert mirrors.channel_urls("pytorch", "bfsu", "win-64") == [
        "https://mirrors.bfsu.edu.cn/anaconda/cloud/pytorch"
    ]
    with pytest.raises(GpuforgeError, match="channel 'gpuforge' is not defined"):
        mirrors.channel_urls("gpuforge", "tuna", "win-64")


def test_render_writes_atomically_with_a_backup(tree):
    target = tree / "envs" / "mirrors" / "tuna.condarc"
    proc = run_cli("envs", "render", "--mirror", "tuna", "--mirrors", "mirrors.yaml", cwd=tree)
    assert (proc.returncode, proc.stdout) == (0, "envs/mirrors/tuna.condarc: unchanged\n")
    edited = target.read_text().replace("pkgs/r\n", "pkgs/rr\n")
    target.write_text(edited)
    proc = run_cli("envs", "render", "--mirror", "tuna", "--mirrors", "mirrors.yaml", cwd=tree)
    assert (proc.returncode, proc.stdout) == (0, "envs/mirrors/tuna.condarc: written\n")
    assert target.read_text() == (ENVS / "mirrors" / "tuna.condarc").read_text()
    assert (target.parent / "tuna.condarc.bak").read_text() == edited
    assert not list(target.parent.glob(".*.tmp"))


def test_a_new_mirror_is_one_entry(tree):
    source = tree / "mirrors.yaml"
    source.write_text(
        source.read_text() + "  nju:\n    pkgs: https://mirror.nju.edu.cn/anaconda/pkgs\n"
        "    cloud: https://mirror.nju.edu.cn/anaconda/cloud\n"
    )
    result = check_all(tree / "envs", tree / "recipes", mirrors_path=tree / "mirrors.yaml")
    assert [str(p) for p in result.problems] == [
        f"{tree}/envs/mirrors/nju.condarc: missing: run `gpuforge envs render --mirror nju`"
    ]
    proc = run_cli("envs", "render", "--mirrors", "mirrors.yaml", cwd=tree)
    assert "envs/mirrors/nju.condarc: written" in proc.stdout
    assert "https://mirror.nju.edu.cn/anaconda/pkgs/msys2" in (tree / "envs/mirrors/nju.condarc").read_text()
    assert check_all(tree / "envs", tree / "recipes", mirrors_path=tree / "mirrors.yaml").problems == []


def test_hand_edited_generated_file_is_drift(tree):
    target = tree / "envs" / "mirrors" / "bfsu.condarc"
    lines = target.read_text().splitlines(keepends=True)
    n = next(i for i, ln in enumerate(lines) if "pkgs/msys2" in ln)
    lines[n] = lines[n].replace("pkgs/msys2", "cloud/msys2")
    target.write_text("".join(lines))
    (tree / "envs" / "mirrors" / "ustc.condarc").write_text("channels: [defaults]\n")
    proc = run_cli("envs", "check", "--mirrors", "mirrors.yaml", cwd=tree)
    assert proc.returncode == 1
    assert (
        f"envs/mirrors/bfsu.condarc:{n + 1}: differs from what mirrors.yaml generates: "
        "run `gpuforge envs render --mirror bfsu`"
    ) in proc.stdout.splitlines()
    assert (
        "envs/mirrors/ustc.condarc: no mirror 'ustc' in mirrors.yaml: delete it or define the mirror"
    ) in proc.stdout.splitlines()


BAD_SOURCES = [
    (
        "pkgs: https://mirrors.bfsu.edu.cn/anaconda/pkgs",
        "pkgs: http://mirrors.bfsu.edu.cn/anaconda/pkgs",
        "http://mirrors.bfsu",
        "bfsu.pkgs: 'http://mirrors.bfsu.edu.cn/anaconda/pkgs' is not an https URL",
    ),
    (
        "  - pytorch  #",
        "  - msys2  # from cloud\n  - pytorch  #",
        "msys2  # from cloud",
        "custom_channels: msys2: cloud/msys2 was removed from the mirrors (2024-09)",
    ),
    ("  - r\n", "  - r\n  - free\n", "  - free", "defaults: free: pkgs/free is frozen"),
    (
        "cloud: https://mirror.sjtu.edu.cn/anaconda/cloud",
        "cloud: https://mirror.sjtu.edu.cn/win-32",
        "sjtu.edu.cn/win-32",
        "is a 32-bit subdir",
    ),
    ("  official:", "  offcial:", "mirrors:", "mirrors: needs a mapping with at least `official`"),
    ("windows_only:", "windows-only:", "windows-only:", "unknown key 'windows-only'"),
]


@pytest.mark.parametrize("case", BAD_SOURCES, ids=lambda c: c[3][:30])
def test_bad_mirror_definition_is_one_located_line(tree, case):
    old, new, fragment, message = case
    source = tree / "mirrors.yaml"
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new, 1))
    line = next(i for i, ln in enumerate(source.read_text().splitlines(), 1) if fragment in ln)
    with pytest.raises(GpuforgeError) as err:
        load_mirrors(source)
    assert str(err.value).startswith(f"{source}:{line}: ") and message in str(err.value)
    proc = run_cli("envs", "check", "--mirrors", "mirrors.yaml", cwd=tree)
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0].startswith(f"mirrors.yaml:{line}: ")


def test_render_refuses_an_unknown_mirror(tree):
    proc = run_cli("envs", "render", "--mirror", "ustc", "--mirrors", "mirrors.yaml", cwd=tree)
    assert proc.returncode == 2
    assert proc.stderr == (
        "gpuforge: error: mirrors.yaml: no mirror 'ustc' (known: official, tuna, bfsu, sjtu)\n"
    )

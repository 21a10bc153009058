"""The variant matrix, read as conda-build reads it."""

from __future__ import annotations

import pytest
from conftest import RECIPES
from rattler import Version

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.variants import load_config, uncommented_keys

CONFIG = RECIPES / "conda_build_config.yaml"


@pytest.mark.parametrize("platform", ["linux-64", "win-64"])
def test_python_and_numpy_are_zipped_and_bounded(platform):
    config = load_config(CONFIG, platform)
    assert config.values["python"] == ["3.6", "3.7", "3.8", "3.9", "3.10", "3.11"]
    assert ["python", "numpy"] in config.zip_keys
    variants = config.expand({"python"})
    assert len(variants) == 6  # zipped, not the 6 x 6 product
    assert {v["python"]: v["numpy"] for v in variants}["3.10"] == "1.21"
    assert all(Version(v["numpy"]) < Version("1.24") for v in variants)


def test_platform_selectors_pick_the_toolchain():
    win = load_config(CONFIG, "win-64").values
    linux = load_config(CONFIG, "linux-64").values
    assert win["vc"] == ["14"] and win["c_compiler"] == ["vs2019"]
    assert "vc" not in linux and linux["c_compiler"] == ["gcc"]
    assert "c_compiler_version" not in win
    # One bound on both platforms: the patch series (0003) loads CUDA >= 10's library names.
    assert win["cudatoolkit"] == linux["cudatoolkit"] == [">=8.0,<12"]


def test_every_key_has_a_comment():
    assert uncommented_keys(CONFIG) == []


def test_a_key_without_comment_is_found(tmp_path):
    path = tmp_path / "cbc.yaml"
    path.write_text("# why python\npython:\n  - 3.7\n\ncudnn:\n  - 7\n")
    assert uncommented_keys(path) == [(5, "cudnn")]


def test_unequal_zip_groups_are_refused_with_the_line(tmp_path):
    path = tmp_path / "cbc.yaml"
    path.write_text("python:\n  - 3.7\n  - 3.8\nnumpy:\n  - 1.16\nzip_keys:\n"
                    "  - - python\n    - numpy\n")
    with pytest.raises(GpuforgeError) as err:
        load_config(path, "linux-64")
    assert str(err.value).startswith(f"{path}:6: zip_keys group")


def test_broken_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "cbc.yaml"
    path.write_text("python:\n  - 3.7\nnumpy: [1.16\n")
    with pytest.raises(GpuforgeError) as err:
        load_config(path, "linux-64")
    message = str(err.value)
    assert message.startswith(f"{path}:") and "invalid YAML" in message
    assert "\n" not in message

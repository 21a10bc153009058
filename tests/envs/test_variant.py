"""The gpuforge-built variant of every env file (`gpuforge ci env-file --channel`)."""

from __future__ import annotations

import pytest
from conftest import RECIPES, ROOT, run_cli
from rattler import MatchSpec
from ruamel.yaml import YAML

from gpuforge.envs.envfile import load_env

ENVS = ROOT / "envs"
ENV_FILES = sorted(p.name for p in ENVS.glob("*.yml"))
BUILT = {"libgpuarray", "pygpu", "theano", "theano-gpu-config"}  # what recipes/ builds


@pytest.mark.parametrize("name", ENV_FILES)
def test_variant_takes_every_recipe_package_from_the_local_channel(tmp_path, name):
    channel = tmp_path / "channel"
    channel.mkdir()
    out = tmp_path / "elsewhere" / name
    proc = run_cli("ci", "env-file", f"envs/{name}", "--channel", str(channel), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    url = channel.as_uri()
    doc = YAML(typ="safe").load(out.read_text())
    default = load_env(ENVS / name)
    assert doc["channels"] == [url, *default.channel_names, "nodefaults"]
    conda = [d for d in doc["dependencies"] if isinstance(d, str)]
    pip = [e for d in doc["dependencies"] if isinstance(d, dict) for e in d["pip"]]
    specs = {MatchSpec(d.split("::", 1)[-1]).name.normalized: d for d in conda}
    wanted = BUILT & default.names()
    for pkg in wanted:
        assert specs[pkg].startswith(f"{url}::"), specs[pkg]
    assert not any(e.lower().startswith("theano") or e.startswith(".") for e in pip), pip
    if "theano-gpu-config" in wanted:
        version = (RECIPES / "theano-gpu-config" / "meta.yaml").read_text().split('version = "')[1][:5]
        assert specs["theano-gpu-config"] == f"{url}::theano-gpu-config={version}"
        assert specs["theano"] == f"{url}::theano=1.0.5"
    untouched = {d.text for d in default.conda_deps if d.name not in BUILT}
    assert untouched <= set(conda)


def test_a_relative_pip_path_that_is_not_a_recipe_becomes_absolute(tmp_path):
    (tmp_path / "envs").mkdir()
    (tmp_path / "mypkg").mkdir()
    env = tmp_path / "envs" / "x-linux64.yml"
    env.write_text(
        "name: x\nchannels:\n  - defaults\ndependencies:\n  - python=3.7\n  - pip\n"
        "  - pip:\n      - ../mypkg  # ours\n"
    )
    (tmp_path / "channel").mkdir()
    proc = run_cli(
        "ci",
        "env-file",
        str(env),
        "--channel",
        str(tmp_path / "channel"),
        "--output",
        str(tmp_path / "out.yml"),
    )
    assert proc.returncode == 0, proc.stderr
    doc = YAML(typ="safe").load((tmp_path / "out.yml").read_text())
    assert doc["dependencies"][-1] == {"pip": [str(tmp_path / "mypkg")]}

"""`gpuforge recipes build` (nox -s build): the real conda-build, py-rattler installs, offline first."""

from __future__ import annotations

import json
import os

import pytest
from conftest import RECIPES, ROOT, run_cli

from gpuforge.recipes.conda_build import build

NO_CHANNEL = ROOT / "tests" / "data" / "recipes" / "no-channel"
UNREACHABLE = "https://127.0.0.1:9/"  # nothing listens on the discard port: refused at once


@pytest.mark.slow
def test_a_conda_built_here_is_installed_by_py_rattler_and_its_test_runs(conda_tools, tmp_path):
    """The whole pipeline with no channel, on the smallest recipe that needs none (the real
    recipes' build environments need packages from a channel: see the offline test)."""
    lines = []
    outcome, = build(RECIPES, [str(NO_CHANNEL)], tmp_path / "channel", conda_tools, [],
                     say=lines.append, test_prefixes=tmp_path / "prefixes")
    assert (outcome.failed, outcome.notes) == (False, []), lines
    package, = outcome.packages
    assert package.name == "gpuforge-no-channel-0.1.0-0.conda" and package.parent.name == "linux-64"
    assert outcome.tested == [package.name]
    prefix = tmp_path / "prefixes" / "gpuforge-no-channel-0"
    record = json.loads((prefix / "conda-meta" / "gpuforge-no-channel-0.1.0-0.json").read_text())
    assert record["name"] == "gpuforge-no-channel"
    # conda-build recorded the build prefix as a placeholder; py-rattler put this prefix there.
    assert (prefix / "etc" / "gpuforge-no-channel" / "prefix.txt").read_text().strip() == str(prefix)
    assert f"  {package.name}: its test section passed in {prefix}" in lines


def test_offline_build_says_per_recipe_what_it_could_not_do(conda_tools, tmp_path):
    proc = run_cli("recipes", "build", "--channel", UNREACHABLE, "--output-folder",
                   str(tmp_path / "channel"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith(f"channel {UNREACHABLE}: unreachable (")
    for recipe, needs in (("libgpuarray", "cmake, gcc_linux-64, make"),
                          ("theano", "pip, python, setuptools")):
        assert (f"{recipe}: not built: its build/host environments need {needs} from a channel, "
                "and none is reachable") in out
    assert len([ln for ln in out if ": not built: " in ln]) == 3
    # theano-gpu-config needs no compiler or host package: built with no channel, then what
    # could not be done without one is said (its test environment and its run requirements)
    assert any(ln.startswith("  built theano-gpu-config-0.1.0-") for ln in out)
    # (cudnn is a run_constrained of it, not a run requirement: not needed from a channel)
    assert ("theano-gpu-config: not tested by conda-build: its test environment needs gxx_linux-64, "
            "theano from a channel, and none is reachable") in out
    assert out[-1] == f"1 package(s) built into {tmp_path / 'channel'}, 0 installed and tested; no failures"


def test_build_without_the_tools_is_one_line_saying_how_to_get_them(tmp_path):
    proc = run_cli("recipes", "build", "--output-folder", str(tmp_path / "channel"),
                   GPUFORGE_CONDA_TOOLS=str(tmp_path / "none"), PATH=os.path.dirname(os.__file__))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "conda-build==26.7.1 conda-smithy==3.60.0" in proc.stderr
    assert not (tmp_path / "channel").exists()

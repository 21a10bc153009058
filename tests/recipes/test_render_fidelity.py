"""`gpuforge recipes render` held to the real conda-build's render, every recipe x variant x platform.

conda-build renders with no channel here (conda_build.api.render with bypass_env_check, run by
the conda-tools venv: tests/recipes/conda_build_render.py); gpuforge must produce the same
requirements and test section for the same variants. The pins conda-build adds after solving the
host environment (pin_compatible, pin_run_as_build) are not in either: Rendered.run_as_built().
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT

from gpuforge.recipes.render import Recipe, find_recipes, render_variants
from gpuforge.recipes.selectors import PLATFORMS
from gpuforge.recipes.variants import load_config

SELECTOR_FORMS = ROOT / "tests" / "data" / "recipes" / "selector-forms"
HARNESS = Path(__file__).with_name("conda_build_render.py")


def _key(name: str, variant: dict, requirements: dict, test: dict) -> str:
    variant = {k: str(v) for k, v in variant.items() if k != "target_platform"}
    return json.dumps({"name": name, "variant": variant, "requirements": requirements, "test": test},
                      sort_keys=True)


@pytest.fixture(scope="module", params=PLATFORMS)
def both_renders(request, conda_tools, tmp_path_factory):
    """(conda-build's renderings, gpuforge's) of every recipe and the selector-forms recipe."""
    platform = request.param
    work = tmp_path_factory.mktemp(f"conda-render-{platform}")
    recipes = [*find_recipes(RECIPES), Recipe.load(SELECTOR_FORMS)]
    out = work / "render.json"
    env = {**conda_tools.env(work), "CONDA_SUBDIR": platform}  # vendor README: not --variants
    proc = subprocess.run([str(conda_tools.python), str(HARNESS), str(out),
                           str(RECIPES / "conda_build_config.yaml"), *(str(r.path) for r in recipes)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = {_key(r["name"], r["variant"], r["requirements"], r["test"])
              for r in json.loads(out.read_text())}
    config = load_config(RECIPES / "conda_build_config.yaml", platform)
    ours = {_key(r.name, r.variant, r.requirements, r.meta.get("test") or {})
            for recipe in recipes for r in render_variants(recipe, config)}
    return platform, theirs, ours


def test_gpuforge_renders_what_conda_build_renders(both_renders):
    platform, theirs, ours = both_renders
    assert len(theirs) >= 14  # every recipe: 1 + 6 + 6 + 1 variants, and selector-forms
    differ = "\n".join([*(f"conda-build only: {k}" for k in sorted(theirs - ours)),
                         *(f"gpuforge only:    {k}" for k in sorted(ours - theirs))])
    assert not differ, f"{platform}: renderings differ\n{differ}"


def test_selector_forms_are_honoured_the_same_way(both_renders):
    platform, theirs, _ = both_renders
    forms = [json.loads(k) for k in theirs if json.loads(k)["name"] == "selector-forms"]
    assert forms, "conda-build did not render tests/data/recipes/selector-forms"
    for r in forms:
        run = r["requirements"]["run"]
        expected = ["only-win"] if platform == "win-64" else ["only-linux", "linux-with-words"]
        assert [s for s in run if s.startswith(("only-", "linux-"))] == expected
        assert "never" not in run and "not-undefined" in run
        assert r["requirements"]["build"][1] == f"c_{platform}"  # stdlib('c') with no c_stdlib key

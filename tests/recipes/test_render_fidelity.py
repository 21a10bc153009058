"""`gpuforge recipes render` and the v1 recipes held to the real conda-build's render, every
recipe x variant x platform.

conda-build renders with no channel here (conda_build.api.render with bypass_env_check, run by
the conda-tools venv: tests/recipes/conda_build_render.py); gpuforge must produce the same
requirements and test section for the same variants. The pins conda-build adds after solving the
host environment (pin_compatible, pin_run_as_build) are not in either: Rendered.run_as_built().
py-rattler-build renders recipes/v1/*/recipe.yaml the same way (tests/recipes/rattler_build_render.py).
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
V1_HARNESS = Path(__file__).with_name("rattler_build_render.py")
V1_RECIPES = sorted((RECIPES / "v1").glob("*/recipe.yaml"))


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
    v1 = work / "v1.json"
    proc = subprocess.run([str(conda_tools.python), str(V1_HARNESS), str(v1), platform,
                           str(RECIPES / "conda_build_config.yaml"), *map(str, V1_RECIPES)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return platform, theirs, ours, [_v1_key(r) for r in json.loads(v1.read_text())]


def _v1_key(r: dict) -> str:
    """A rattler-build rendering in conda-build's terms. The mapping is the formats' own, not a
    tolerance: rattler-build applies a variant value to a bare build/host requirement of that
    name when it solves (conda-build writes it into the render); pin_compatible stays unresolved
    in both (rattler-build as an object, conda-build as the bare name); run_constraints is v1's
    run_constrained; tests are a list of script and python tests with the recipe's files."""
    variant = {k: v for k, v in r["variant"].items()}
    requirements = {}
    for section, specs in r["requirements"].items():
        out = []
        for spec in specs:
            if isinstance(spec, dict):
                spec = spec["pin_compatible"]["name"]
            elif section in ("build", "host") and spec in variant:
                spec = f"{spec} {variant[spec]}.*"
            out.append(spec)
        requirements[{"run_constraints": "run_constrained"}.get(section, section)] = out
    test: dict = {}
    for t in r["tests"]:
        if "script" in t:
            script = t["script"]
            test["commands"] = [script] if isinstance(script, str) else script
            test.update({"files": [Path(f).name for f in t["files"]["recipe"]]} if "files" in t else {})
        if "python" in t:
            test["imports"] = t["python"]["imports"]
    name = r["package"]["name"]
    return _key(name, variant, requirements, test)


def test_gpuforge_renders_what_conda_build_renders(both_renders):
    platform, theirs, ours, _ = both_renders
    assert len(theirs) >= 14  # every recipe: 1 + 6 + 6 + 1 variants, and selector-forms
    differ = "\n".join([*(f"conda-build only: {k}" for k in sorted(theirs - ours)),
                         *(f"gpuforge only:    {k}" for k in sorted(ours - theirs))])
    assert not differ, f"{platform}: renderings differ\n{differ}"


def test_selector_forms_are_honoured_the_same_way(both_renders):
    platform, theirs, _, _ = both_renders
    forms = [json.loads(k) for k in theirs if json.loads(k)["name"] == "selector-forms"]
    assert forms, "conda-build did not render tests/data/recipes/selector-forms"
    for r in forms:
        run = r["requirements"]["run"]
        expected = ["only-win"] if platform == "win-64" else ["only-linux", "linux-with-words"]
        assert [s for s in run if s.startswith(("only-", "linux-"))] == expected
        assert "never" not in run and "not-undefined" in run
        assert r["requirements"]["build"][1] == f"c_{platform}"  # stdlib('c') with no c_stdlib key


def test_v1_recipes_render_as_conda_build_renders_meta_yaml(both_renders):
    platform, theirs, _, v1 = both_renders
    assert [p.parent.name for p in V1_RECIPES] == ["libgpuarray", "pygpu", "theano"]
    names = {json.loads(k)["name"] for k in v1}
    expected = {k for k in theirs if json.loads(k)["name"] in names}
    assert len(v1) == len(expected) == 13  # 1 libgpuarray + 6 pygpu + 6 theano variants
    differ = "\n".join([*(f"conda-build only: {k}" for k in sorted(expected - set(v1))),
                         *(f"rattler-build only: {k}" for k in sorted(set(v1) - expected))])
    assert not differ, f"{platform}: v1 renderings differ\n{differ}"

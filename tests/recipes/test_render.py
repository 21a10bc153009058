"""Rendering every recipe for every variant, checked against what conda-build would produce."""

from __future__ import annotations

import pytest
from conftest import RECIPES

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.render import Recipe, pin_expression, render_all, render_variants
from gpuforge.recipes.variants import load_config


@pytest.fixture(scope="module")
def renders():
    return {(r.name, r.platform, r.variant.get("python")): r
            for r in render_all(RECIPES, ["linux-64", "win-64"])}


def test_every_recipe_renders_for_every_variant(renders):
    counts = {}
    for name, platform, _ in renders:
        counts[(name, platform)] = counts.get((name, platform), 0) + 1
    assert counts == {
        ("libgpuarray", "linux-64"): 1, ("libgpuarray", "win-64"): 1,  # no python in it
        ("pygpu", "linux-64"): 6, ("pygpu", "win-64"): 6,
        ("theano", "linux-64"): 6, ("theano", "win-64"): 6,
        ("theano-gpu-config", "linux-64"): 1, ("theano-gpu-config", "win-64"): 1,  # no python
    }


def test_libgpuarray_toolchain_and_cuda_constraint(renders):
    win = renders[("libgpuarray", "win-64", None)].requirements
    linux = renders[("libgpuarray", "linux-64", None)].requirements
    assert win["build"] == ["vs2019_win-64", "cmake >=3.0,<4.0a0"]
    assert win["run"] == ["vc 14.*"]
    assert win["run_constrained"] == ["cudatoolkit >=8.0,<12"]  # with patches/0003 (CUDA >= 10 names)
    assert linux["build"] == ["gcc_linux-64 7.3.0.*", "cmake >=3.0,<4.0a0", "make"]  # conda-build's spec form
    assert "run" not in linux
    assert linux["run_constrained"] == ["cudatoolkit >=8.0,<12"]


@pytest.mark.parametrize(("python", "numpy"), [("3.6", "1.16"), ("3.8", "1.17"),
                                               ("3.11", "1.23")])
def test_pygpu_pins_numpy_python_and_libgpuarray(renders, python, numpy):
    r = renders[("pygpu", "win-64", python)]
    assert f"python {python}.*" in r.requirements["host"]
    assert f"numpy {numpy}.*" in r.requirements["host"]
    assert "cython >=0.25,<3" in r.requirements["host"]
    # conda-build pins these from the solved host environment at build time: bare in its render.
    assert r.requirements["run"][:2] == ["python", "numpy"]
    major, minor = python.split(".")
    assert r.run_as_built()[:2] == [f"python >={python},<{major}.{int(minor) + 1}.0a0",
                                    f"numpy >={numpy},<2.0a0"]
    assert r.run_as_built({"numpy": "1.16.6"})[1] == "numpy >=1.16.6,<2.0a0"
    for section in ("host", "run"):
        assert "libgpuarray ==0.7.6" in r.requirements[section]
        assert "vc 14.*" in r.requirements[section]
    assert "vc 14.*" not in renders[("pygpu", "linux-64", python)].requirements["run"]


def test_theano_windows_runs_g_plus_plus_from_m2w64(renders):
    run = renders[("theano", "win-64", "3.6")].requirements["run"]
    for spec in ("m2w64-toolchain", "libpython >=2.0", "mkl-service", "pygpu >=0.7.0,<0.8",
                 "numpy >=1.9.1,<1.24"):
        assert spec in run
    assert not any(s.startswith("gxx_") for s in run)
    linux_run = renders[("theano", "linux-64", "3.6")].requirements["run"]
    assert "gxx_linux-64 7.3.0.*" in linux_run and "m2w64-toolchain" not in linux_run
    assert renders[("theano", "win-64", "3.6")].requirements["run_constrained"] == [
        "cudnn >=5.1,<8"]
    assert renders[("theano", "win-64", "3.6")].meta["test"]["files"] == ["test_exp.py"]


@pytest.mark.parametrize(("version", "min_pin", "max_pin", "expected"), [
    ("1.16", "x.x.x.x.x.x", "x", ">=1.16,<2.0a0"),
    ("3.7", "x.x", "x.x", ">=3.7,<3.8.0a0"),
    ("3.11", "x.x", "x.x", ">=3.11,<3.12.0a0"),
    ("0.7.6", "x.x.x", "x.x.x", ">=0.7.6,<0.7.7.0a0"),
    ("1.16", None, "x", "<2.0a0"),
])
def test_pin_expression_matches_conda_build(version, min_pin, max_pin, expected):
    assert pin_expression(version, min_pin, max_pin) == expected


def _broken(tmp_path, text):
    (tmp_path / "meta.yaml").write_text(text)
    return Recipe.load(tmp_path)


def test_undefined_jinja_name_on_a_kept_line_names_the_line(tmp_path):
    recipe = _broken(tmp_path, "package:\n  name: x\n  version: {{ versoin }}\n")
    with pytest.raises(GpuforgeError) as err:
        render_variants(recipe, load_config(RECIPES / "conda_build_config.yaml", "linux-64"))
    assert str(err.value) == f"{tmp_path / 'meta.yaml'}:3: Jinja2: 'versoin' is undefined on linux-64"


def test_undefined_name_on_an_unselected_line_is_fine(tmp_path):
    recipe = _broken(tmp_path, "package:\n  name: x\n  version: 1\nrequirements:\n  run:\n"
                               "    - vc {{ vc }}  # [win]\n")
    config = load_config(RECIPES / "conda_build_config.yaml", "linux-64")
    assert render_variants(recipe, config)[0].requirements == {}


def test_selector_forms_and_undefined_names_as_conda_build(tmp_path):
    """conda-build's rules (metadata.sel_pat, eval_selector); test_render_fidelity checks them
    against conda-build itself on tests/data/recipes/selector-forms."""
    recipe = _broken(tmp_path, "package:\n  name: x\n  version: 1\nrequirements:\n  run:\n"
                               "    - a  # text [win]\n    - b [linux]\n    - c  # [linux] more words\n"
                               "    - d  # [winn]\n    - e  # [not winn]\n    # f  # [linux]\n")
    linux = render_variants(recipe, load_config(RECIPES / "conda_build_config.yaml", "linux-64"))
    win = render_variants(recipe, load_config(RECIPES / "conda_build_config.yaml", "win-64"))
    assert linux[0].requirements == {"run": ["b", "c", "e"]}
    assert win[0].requirements == {"run": ["a", "e"]}


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("package:\n  name: x\n{% if %}\n", 3, "Jinja2:"),
    ("package:\n  name: x\n  version: 1  # [win and]\n", 3, "selector [win and]"),
    ("package:\n  name: [x\n", None, "invalid YAML"),
])
def test_broken_recipe_is_one_located_line(tmp_path, text, line, fragment):
    recipe = _broken(tmp_path, text)
    with pytest.raises(GpuforgeError) as err:
        render_variants(recipe, load_config(RECIPES / "conda_build_config.yaml", "win-64"))
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'meta.yaml'}:{line or ''}")
    assert fragment in message and "\n" not in message


def test_pin_compatible_arguments_reach_the_pin_as_built():
    """`pin_compatible('numpy', max_pin='x.x')` in tests/data/recipes/selector-forms."""
    recipe = Recipe.load(RECIPES.parent / "tests" / "data" / "recipes" / "selector-forms")
    first = render_variants(recipe, load_config(RECIPES / "conda_build_config.yaml", "linux-64"))[0]
    assert first.requirements["run"][:2] == ["python", "numpy"]
    assert first.run_as_built({"numpy": "1.16.6"})[:2] == ["python >=3.6,<3.7.0a0",
                                                          "numpy >=1.16.6,<1.17.0a0"]


def test_theano_linux_test_compiles_with_the_declared_gcc(renders):
    """The Linux recipe test runs Theano with the recipe's own g++ (gxx_linux-64 7.3.0 from its
    run requirements, GXX set by its activation), never the build machine's g++."""
    theano = {key: r for key, r in renders.items() if key[0] == "theano"}
    assert len(theano) == 12
    for (_, platform, _), rendered in theano.items():
        commands = rendered.meta["test"]["commands"]
        if platform == "linux-64":
            assert "gxx_linux-64 7.3.0.*" in rendered.requirements["run"]
            assert ('THEANO_FLAGS="cxx=${GXX}" python test_exp.py --cxx-in-prefix "${PREFIX}" '
                    "--cxx-package gxx_linux-64") in commands
            assert "python test_exp.py" not in commands
        else:
            assert "python test_exp.py" in commands

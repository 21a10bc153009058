"""Recipe lint: clean on the repository, and each rule fires on a real broken copy."""

from __future__ import annotations

import pytest
from conftest import RECIPES, run_cli

from gpuforge.recipes.lint import conda_smithy_lint, lint


def test_repository_recipes_are_clean():
    assert [str(p) for p in lint(RECIPES)] == []


def test_repository_recipes_are_clean_under_the_real_conda_smithy(conda_tools):
    assert [str(p) for p in conda_smithy_lint(RECIPES, conda_tools)] == []


def test_the_real_conda_smithy_findings_are_reported(conda_tools, recipes_copy):
    """What conda-smithy found in these recipes before (issue 14), put back into a copy."""
    _break(recipes_copy, "pygpu/meta.yaml", "extra:\n", "extra:\n  archive_sha256: " + "a" * 64 + "\n")
    _break(recipes_copy, "theano/meta.yaml", "url: https://files.pythonhosted.org/packages/6b/97/"
           "bcd5654ba60f35f180931afabbd3b4c46c0379852f961c7a2819ff897f5d/",
           "url: https://pypi.io/packages/source/T/Theano/")
    _break(recipes_copy, "v1/theano/recipe.yaml", "  license_file: LICENSE.txt\n", "")
    (recipes_copy / "conda-forge.yml").unlink()  # its lint_stdlib switch, with the reason
    problems = [str(p) for p in conda_smithy_lint(recipes_copy, conda_tools)]
    pygpu, theano = recipes_copy / "pygpu" / "meta.yaml", recipes_copy / "theano" / "meta.yaml"
    assert f"{pygpu}: conda-smithy: The extra section contained an unexpected subsection name. " \
           "archive_sha256 is not a valid subsection name." in problems
    assert f"{theano}: conda-smithy hint: PyPI default URL is now pypi.org, and not pypi.io. " \
           "You may want to update the default source url." in problems
    assert f"{recipes_copy / 'v1' / 'theano' / 'recipe.yaml'}: conda-smithy: license_file entry is " \
           "missing, but is required." in problems
    stdlib = {p.split(":")[0] for p in problems if 'requires adding a build dependence on `{{ stdlib("c") }}`' in p}
    assert stdlib == {str(recipes_copy / r / "meta.yaml")
                      for r in ("libgpuarray", "pygpu")}  # theano-gpu-config compiles nothing


def _break(recipes, relpath, old, new):
    path = recipes / relpath
    text = path.read_text()
    assert old in text, f"{old!r} not in {relpath}"
    path.write_text(text.replace(old, new, 1))
    return path


def _line_of(path, fragment):
    """The line that is ``fragment`` (a command), else the first line containing it."""
    lines = path.read_text().splitlines()
    exact = [i for i, ln in enumerate(lines, 1) if ln.strip() == fragment]
    return exact[0] if exact else next(i for i, ln in enumerate(lines, 1) if fragment in ln)


CASES = [
    # (file, old, new, line fragment (None: no line), expected message fragment)
    ("theano/meta.yaml", "  sha256: {{ sha256 }}\n", "", None, "url source without sha256"),
    ("theano/meta.yaml", "url: https://files.", "url: http://files.", "url: http://",
     "source url is not https"),
    ("libgpuarray/meta.yaml", "  license_file: LICENSE\n", "", None, "about: no license_file"),
    ("pygpu/meta.yaml", "  number: 0\n", "", None, "build: no build number"),
    ("theano/meta.yaml", "    - mkl-service\n", "    - mkl-service # [win]\n", "mkl-service",
     "selector should read `  # [win]`"),
    ("pygpu/meta.yaml", "    - libgpuarray =={{ version }}\n    - vc {{ vc }}.*  # [win]\n  run:",
     "    - libgpuarray >=0.7\n    - vc {{ vc }}.*  # [win]\n  run:", "libgpuarray >=0.7",
     "needs exactly `libgpuarray ==0.7.6`"),
    ("theano/meta.yaml", "pygpu >=0.7.0,<0.8", "pygpu >=0.8", "pygpu >=0.8",
     "theano's pygpu range must admit pygpu 0.7.6"),
    ("theano/meta.yaml", "numpy >=1.9.1,<1.24", "numpy >=1.9.1", "numpy >=1.9.1",
     "theano needs `numpy <1.24`"),
    ("theano/meta.yaml", "    - libpython >=2.0  # [win]\n", "", None,
     "win-64: theano runs g++ from m2w64: run needs libpython"),
    ("theano/meta.yaml", "    - six >=1.9.0\n", "    - six >=>1.9\n", "six >=>1.9",
     "is not a valid conda MatchSpec"),
    ("libgpuarray/bld.bat", "nmake\nif errorlevel 1 exit 1\n", "nmake\n", "nmake",
     "`nmake` is not followed by `if errorlevel 1 exit 1`"),
    ("libgpuarray/meta.yaml", "    - patches/0003-cuda-10-library-names.patch", "", None,
     "cannot load CUDA 10's nvrtc64_10x_0.dll; run_constrained needs `cudatoolkit <9.2`, or apply "
     "0003-cuda-10-library-names.patch"),
    ("conda_build_config.yaml", "  - '>=5.1,<8'", "  - '>=5.1'", None,
     "needs `cudnn >=5.1,<8`"),
    ("conda_build_config.yaml", "  - 1.23  # python 3.11: first numpy built for 3.11",
     "  - 1.24  # python 3.11", "numpy:", "numpy 1.24 (python 3.11) is outside theano's"),
    ("conda_build_config.yaml", "  - 3.11\n", "  - 3.12\n", "python:",
     "python 3.12: Theano 1.0.5 imports distutils"),
    ("conda_build_config.yaml", "# The vc feature pin of the vc14 era: packages and envs on "
     "win-64 ask for vc 14.\n", "", "vc:", "vc: every pin needs a comment"),
    ("theano/meta.yaml", "about:", "aboot:", "aboot:", "unknown section 'aboot'"),
    ("theano-gpu-config/meta.yaml", "    - cudnn {{ cudnn }}\n", "    - cudnn >=7\n", "cudnn >=7",
     "requirements/run_constrained (linux-64): needs `cudnn >=5.1,<8` (conda_build_config.yaml)"),
    ("theano-gpu-config/meta.yaml", "theano >=1.0.5,<1.1", "theano >=1.1", "theano >=1.1",
     "theano-gpu-config's theano range must admit theano 1.0.5"),
    ("theano-gpu-config/meta.yaml", "    - m2w64-toolchain  # [win]\n", "", None,
     "win-64: cxx is m2w64's g++: run needs m2w64-toolchain"),
    ("theano-gpu-config/meta.yaml", "    - {{ compiler('cxx') }}  # [linux]\n    - m2w64",
     "    - m2w64", None, "linux-64: run needs theano's compiler (gxx_linux-64 7.3.0.*)"),
    ("theano-gpu-config/bld.bat", "\\%PKG_NAME%_activate.bat\"\nif errorlevel 1 exit 1\n",
     "\\%PKG_NAME%_activate.bat\"\n", "%PKG_NAME%_activate.bat", "`copy` is not followed by"),
    ("theano/meta.yaml", "package:\n  name: {{ name|lower }}\n  version: {{ version }}\n",
     "package:\n  name: {{ name|lower }}\n  version: 1.0.5.x!\n", "1.0.5.x!", "invalid version"),
]


@pytest.mark.parametrize(("relpath", "old", "new", "line_fragment", "message"), CASES,
                         ids=[c[4][:40] for c in CASES])
def test_each_rule_fires_on_a_broken_copy(recipes_copy, relpath, old, new, line_fragment,
                                          message):
    path = _break(recipes_copy, relpath, old, new)
    problems = [str(p) for p in lint(recipes_copy)]
    hits = [p for p in problems if message in p]
    assert hits, f"expected {message!r}, got {problems}"
    if line_fragment:
        assert any(h.startswith(f"{path}:{_line_of(path, line_fragment)}: ") for h in hits), hits


def test_section_order(recipes_copy):
    path = recipes_copy / "theano" / "meta.yaml"
    text = path.read_text()
    about = text[text.index("about:"):text.index("extra:")]
    path.write_text(about + text.replace(about, ""))
    assert any("sections out of order" in str(p) for p in lint(recipes_copy))


def test_noarch_recipe_with_selectors(recipes_copy):
    path = _break(recipes_copy, "theano/meta.yaml", "  number: 2  #", "  noarch: python\n  number: 2  #")
    problems = [str(p) for p in lint(recipes_copy)]
    line = _line_of(path, "m2w64-toolchain")
    assert f"{path}:{line}: noarch recipes cannot use selectors" in problems


def test_cli_lint_clean_exit_zero():
    proc = run_cli("recipes", "lint")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "lint: all recipes clean"


def test_cli_broken_meta_yaml_is_one_line_not_a_traceback(recipes_copy):
    path = _break(recipes_copy, "pygpu/meta.yaml", "  number: 0\n", "  number: [0\n")
    proc = run_cli("recipes", "lint", "--recipes-dir", str(recipes_copy), "--conda-smithy", "skip")
    assert proc.returncode == 2  # bad input, not a finding
    assert "Traceback" not in proc.stdout + proc.stderr
    [bad] = proc.stderr.splitlines()
    assert bad.startswith(f"gpuforge: error: {path}:") and "invalid YAML" in bad


def test_cli_render_unknown_recipe_is_a_clear_error():
    proc = run_cli("recipes", "render", "theanoo")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("gpuforge: error: recipes: no recipe named 'theanoo' "
                                   "(known: libgpuarray, pygpu, theano, theano-gpu-config)")

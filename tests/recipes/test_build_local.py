"""build-local: the recipes' own build.sh and test sections, run for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import RECIPES, pyenv_python, run_cli

from gpuforge.recipes.build_local import pip_requirement, plan_requirements, tool_version, version_matches
from gpuforge.recipes.render import Recipe
from gpuforge.downloads import Source, fetch

LIBGPUARRAY_SOURCE = os.environ.get("GPUFORGE_LIBGPUARRAY_SOURCE")
NEEDS_SOURCE = (
    "needs libgpuarray 0.7.6's source, which this machine cannot download: set "
    "GPUFORGE_LIBGPUARRAY_SOURCE to the release tarball "
    "(https://github.com/Theano/libgpuarray/releases/download/v0.7.6/libgpuarray-0.7.6.tar.gz), "
    "a `git archive --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` of the tag, or a source tree"
)


@pytest.mark.parametrize(("spec", "expected"), [
    ("numpy 1.16.*", "numpy==1.16.*"),
    ("numpy >=1.16,<2.0a0", "numpy>=1.16,<2.0a0"),
    ("cython >=0.25,<3", "cython>=0.25,<3"),
    ("mako", "mako"),
    ("six 1.16", "six==1.16.*"),
    ("six 1.16.0", "six==1.16.0"),
])
def test_conda_specs_become_pip_requirements(spec, expected):
    assert pip_requirement(spec) == expected


def test_requirements_are_sorted_by_who_provides_them():
    plan = plan_requirements(["python 3.7.*", "numpy 1.16.*", "cmake", "gcc_linux-64 7.3.0",
                              "libgpuarray ==0.7.6", "mkl-service", "m2w64-toolchain"])
    assert plan.pip == ["numpy==1.16.*"]
    assert plan.tools == ["cmake", "gcc"]
    assert plan.pinned_tools == {}
    assert plan.local == ["libgpuarray"]
    assert plan.conda_only == ["mkl-service", "m2w64-toolchain"]


def test_a_versioned_cmake_is_a_pinned_tool_and_compilers_stay_stand_ins():
    plan = plan_requirements(["cmake >=3.0,<4.0a0", "gcc_linux-64 7.3.0"])
    assert plan.pinned_tools == {"cmake": ">=3.0,<4.0a0"}
    assert plan.tools == ["gcc"]


@pytest.mark.parametrize(("version", "matches"), [
    ("3.25.1", True), ("3.31.10", True), ("4.0.0rc1", False), ("4.0.0", False), ("4.4.4", False)])
def test_cmake_versions_against_the_recipes_pin(version, matches):
    assert version_matches(version, ">=3.0,<4.0a0") is matches


def test_tool_version_reads_the_real_cmake():
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH: `apt-get install cmake` (ci/apt-packages.txt)")
    first_line = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    assert first_line == f"cmake version {tool_version(cmake)}"
    assert tool_version("/nonexistent/cmake") is None


@pytest.fixture(scope="module")
def theano_sdist(tmp_path_factory) -> Path:
    """Theano's sdist, downloaded for real and verified against the recipe's sha256."""
    from gpuforge.recipes.render import render_variants
    from gpuforge.recipes.variants import load_config

    rendered = render_variants(Recipe.load(RECIPES / "theano"),
                               load_config(RECIPES / "conda_build_config.yaml", "linux-64"))[0]
    src = rendered.meta["source"]
    cache = Path(os.environ.get("GPUFORGE_CACHE") or tmp_path_factory.mktemp("cache"))
    return fetch(Source(src["url"], src["sha256"]), cache, say=lambda _: None)


@pytest.mark.slow
def test_theano_builds_on_python37_and_its_test_section_compiles(python37, theano_sdist,
                                                                  tmp_path):
    proc = run_cli("recipes", "build-local", "theano", "--python", python37,
                   "--source", str(theano_sdist), "--work-dir", str(tmp_path))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "matches the recipe" in out
    assert "not installed (conda-only): mkl-service" in out
    # the recipe's test_exp.py: a real C compile of exp(), checked against numpy
    assert "[Elemwise{exp,no_inplace}(<TensorType(float64, vector)>)]" in out
    assert "used=cpu matches_numpy=True" in out
    assert "theano 1.0.5: build and test passed" in out
    prefix = tmp_path / "theano" / "prefix"
    assert list(prefix.glob("lib/python3.7/site-packages/theano/__init__.py"))
    assert (prefix / "bin" / "theano-cache").exists()
    assert list((tmp_path / "theano" / "theano-compiledir").rglob("*.so"))


def test_failing_build_script_is_one_error_with_the_log(recipes_copy, python37, theano_sdist,
                                                        tmp_path):
    (recipes_copy / "theano" / "build.sh").write_text("echo compiling; echo boom >&2; exit 3\n")
    proc = run_cli("recipes", "build-local", "theano", "--python", python37, "--source",
                   str(theano_sdist), "--recipes-dir", str(recipes_copy), "--work-dir",
                   str(tmp_path), "--no-test")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "failed (exit 3)" in proc.stderr and "| boom" in proc.stderr
    assert f"full log: {tmp_path / 'theano' / 'build.log'}" in proc.stderr


def test_tampered_tarball_is_refused(python37, theano_sdist, tmp_path):
    bad = tmp_path / "Theano-1.0.5.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        tar.add(RECIPES / "theano" / "meta.yaml", arcname="Theano-1.0.5/setup.py")
    proc = run_cli("recipes", "build-local", "theano", "--python", python37, "--source",
                   str(bad), "--work-dir", str(tmp_path / "w"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"gpuforge: error: {bad}: sha256 mismatch: got ")
    assert "6e9439dd53ba995fcae27bf20626074bfc2fff446899dc5c53cb28c1f9202e89" in proc.stderr
    assert not (tmp_path / "w" / "theano" / "prefix").exists()


def test_python_outside_the_matrix_is_refused(tmp_path):
    python = pyenv_python("3.12") or pyenv_python("2.7")
    if python is None:
        pytest.skip("needs pyenv's Python 3.12 or 2.7 (outside the 3.6..3.11 matrix)")
    proc = run_cli("recipes", "build-local", "theano", "--python", python,
                   "--work-dir", str(tmp_path))
    assert proc.returncode == 2
    assert "is not in the variant matrix (3.6, 3.7, 3.8, 3.9, 3.10, 3.11)" in proc.stderr


def test_pygpu_without_libgpuarray_in_the_prefix_says_what_to_build_first(python37, tmp_path):
    dummy = tmp_path / "src"
    dummy.mkdir()
    proc = run_cli("recipes", "build-local", "pygpu", "--python", python37, "--source",
                   str(dummy), "--work-dir", str(tmp_path / "w"), timeout=300)
    assert proc.returncode == 2
    assert "pygpu needs libgpuarray in the prefix: first run `gpuforge recipes build-local " \
           "libgpuarray" in proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(not LIBGPUARRAY_SOURCE, reason=NEEDS_SOURCE)
def test_libgpuarray_and_pygpu_build_and_initialise_opencl(python37, tmp_path):
    prefix = tmp_path / "prefix"
    for recipe in ("libgpuarray", "pygpu"):
        proc = run_cli("recipes", "build-local", recipe, "--python", python37, "--source",
                       LIBGPUARRAY_SOURCE, "--prefix", str(prefix), "--work-dir", str(tmp_path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"{recipe} 0.7.6: build and test passed" in proc.stdout
    assert (prefix / "lib" / "libgpuarray.so").exists()
    if not list(Path("/etc/OpenCL/vendors").glob("*.icd")) or shutil.which("clinfo") is None:
        pytest.skip("no OpenCL ICD: `apt-get install pocl-opencl-icd ocl-icd-opencl-dev clinfo`")
    code = (
        "import numpy, pygpu\n"
        "ctx = pygpu.init('opencl0:0')\n"
        "a = pygpu.gpuarray.array(numpy.arange(10, dtype='float32'), context=ctx,"
        " cls=pygpu.ndgpuarray)\n"
        "assert (numpy.asarray(a * 2) == numpy.arange(10) * 2).all()\n"
        "print(ctx.devname)\n"
        "print([l.split()[-1] for l in open('/proc/self/maps') if '/libgpuarray.so' in l][0])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    proc = subprocess.run([str(prefix / "bin" / "python"), "-c", code], capture_output=True,
                          text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    devname, library = proc.stdout.split("\n")[:2]
    assert devname  # e.g. pthread-skylake-avx512-AMD EPYC (pocl)
    # the rpath from build.sh: our libgpuarray, not Debian's /usr/lib one
    assert library.startswith(str(prefix / "lib" / "libgpuarray.so"))


@pytest.fixture(scope="module")
def cmake4_path(tmp_path_factory) -> str:
    """PATH with PyPI's cmake 4.x first: what pkgs/main serves an unpinned `cmake` today."""
    venv = tmp_path_factory.mktemp("cmake4")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                           "--disable-pip-version-check", "cmake>=4,<5"], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot install PyPI's cmake 4.x (needs PyPI): {proc.stderr.strip()[-300:]}")
    assert tool_version(str(venv / "bin" / "cmake")).startswith("4.")
    return f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.slow
@pytest.mark.skipif(not LIBGPUARRAY_SOURCE, reason=NEEDS_SOURCE)
@pytest.mark.parametrize(("policy_minimum", "cmake_error"), [
    (None, "Compatibility with CMake < 3.5 has been removed from CMake."),
    # the documented override gets past cmake_minimum_required, not past CMP0063 OLD
    ("3.5", "Policy CMP0063 may not be set to OLD behavior"),
])
def test_cmake_4_cannot_configure_libgpuarray_without_the_recipes_pin(
        recipes_copy, python37, cmake4_path, tmp_path, policy_minimum, cmake_error):
    meta = recipes_copy / "libgpuarray" / "meta.yaml"
    pinned = "    - cmake >=3.0,<4.0a0\n"
    assert pinned in meta.read_text()
    meta.write_text(meta.read_text().replace(pinned, "    - cmake\n"))
    env = {"PATH": cmake4_path}
    if policy_minimum:
        env["CMAKE_POLICY_VERSION_MINIMUM"] = policy_minimum
    proc = run_cli("recipes", "build-local", "libgpuarray", "--python", python37, "--source",
                   LIBGPUARRAY_SOURCE, "--recipes-dir", str(recipes_copy), "--work-dir", str(tmp_path),
                   **env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Configuring incomplete, errors occurred!" in proc.stderr
    assert cmake_error in (tmp_path / "libgpuarray" / "build.log").read_text()


@pytest.mark.slow
@pytest.mark.skipif(not LIBGPUARRAY_SOURCE, reason=NEEDS_SOURCE)
def test_libgpuarray_builds_with_the_cmake_the_recipe_asks_for_when_cmake_4_is_on_path(
        python37, cmake4_path, tmp_path):
    proc = run_cli("recipes", "build-local", "libgpuarray", "--python", python37, "--source",
                   LIBGPUARRAY_SOURCE, "--work-dir", str(tmp_path), PATH=cmake4_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "pip install (build tool): cmake>=3.0,<4.0a0 (cmake on PATH is 4." in out
    prefix = tmp_path / "libgpuarray" / "prefix"
    assert f"({prefix / 'bin' / 'cmake'}) matches the recipe's cmake >=3.0,<4.0a0" in out
    assert tool_version(str(prefix / "bin" / "cmake")).startswith("3.")
    assert "libgpuarray 0.7.6: build and test passed" in out
    assert (prefix / "lib" / "libgpuarray.so").exists()

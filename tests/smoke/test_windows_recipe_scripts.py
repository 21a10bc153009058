"""The recipes' Windows scripts meet a real Windows CPython: bld.bat and the activation
scripts run under Wine's cmd, and the Windows Python then has what they installed or set."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import RECIPES

from gpuforge import locations
from gpuforge.downloads import Source, fetch, unpack
from gpuforge.errors import GpuforgeError
from gpuforge.interpreters import WINE, windows_path, wine_env
from gpuforge.smoke.targets import THEANO_SDIST

# What pip needs to build and install an sdist in the embeddable CPython 3.8, which ships
# without pip. Both say Requires-Python >=3.8; sha256 as PyPI's simple index publishes them.
PIP = Source(
    "https://files.pythonhosted.org/packages/d4/55/90db48d85f7689ec6f81c0db0622d704306c5284850383c09"
    "0e6c7195a5c/pip-24.2-py3-none-any.whl",
    "2cd581cf58ab7fcfca4ce8efa6dcacd0de5bf8d0a3eb9ec927e07405f4d9e2a2",
)
SETUPTOOLS = Source(
    "https://files.pythonhosted.org/packages/90/12/282ee9bce8b58130cb762fbc9beabd531549952cac11"
    "fc56add11dcb7ea0/setuptools-75.3.0-py3-none-any.whl",
    "f2504966861356aa38616760c0f66568e535562374995367b4e69c7143cf6bcd",
)


def run_bat(driver: Path, python: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    """``driver`` under Wine's cmd, in the Wine prefix of the windows target's Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "THEANO"))}
    env.update(extra)
    return subprocess.run(
        [str(WINE), "cmd", "/c", windows_path(driver)],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        env=wine_env(python, env),
        timeout=600,
    )


@pytest.mark.slow
def test_theano_bld_bat_installs_theano_into_the_windows_python(windows_env, tmp_path):
    """recipes/theano/bld.bat (`%PYTHON% -m pip install . --no-deps --no-build-isolation`) in
    Theano's unpacked sdist, with %PYTHON% a bare copy of the windows target's CPython."""
    bare = tmp_path / "python"
    site = bare / "Lib" / "site-packages"
    site.mkdir(parents=True)
    for item in windows_env.root.iterdir():  # the CPython itself, not its packages or prefix
        if item.is_file():
            shutil.copy2(item, bare / item.name)
    try:
        wheels = [fetch(w, locations.cache_dir(), say=lambda _m: None) for w in (PIP, SETUPTOOLS)]
        sdist = fetch(THEANO_SDIST, locations.cache_dir(), say=lambda _m: None)
    except GpuforgeError as exc:
        pytest.skip(
            f"pip, setuptools and Theano's sdist come from PyPI, which is not reachable here "
            f"({exc}): run where it is"
        )
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
    src = unpack(sdist, tmp_path / "src")
    python = bare / "python.exe"
    driver = tmp_path / "build.bat"
    driver.write_text(
        f'@call "{windows_path(RECIPES / "theano" / "bld.bat")}"\r\n'
        "@if errorlevel 1 exit 1\r\n"
        '@"%PYTHON%" -c "import importlib.metadata as m, importlib.util as u; '
        "print('installed', m.version('Theano'), u.find_spec('theano').origin)\"\r\n"
    )
    proc = run_bat(
        driver, windows_env.python, src, PYTHON=windows_path(python), PIP_NO_CACHE_DIR="1", PIP_NO_INDEX="1"
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert f"installed 1.0.5 {windows_path(site / 'theano' / '__init__.py')}" in proc.stdout
    assert (site / "theano" / "gpuarray" / "__init__.py").is_file()


@pytest.mark.slow
def test_theano_gpu_config_activation_sets_and_restores_what_windows_theano_reads(windows_env, tmp_path):
    """theano-gpu-config's bld.bat writes the environment's theanorc; activate.bat puts it in
    THEANORC for the real Windows Theano (floatX from it; THEANO_FLAGS still wins: device, and
    cxx, as its m2w64 g++ is not here), and deactivate.bat restores THEANORC and
    MKL_THREADING_LAYER as they were."""
    recipe = RECIPES / "theano-gpu-config"
    prefix = tmp_path / "env"
    show = (
        '"%PY%" -c "import os, theano; c = theano.config; '
        "print('SHOW {}|'.format(os.environ.get('THEANORC')), os.environ.get('MKL_THREADING_LAYER'), "
        'c.device, c.floatX, c.cxx)" 2>nul'
    )
    driver = tmp_path / "activate-run.bat"
    driver.write_text(
        "\r\n".join(
            [
                f'@set "PREFIX={windows_path(prefix)}"',
                f'@set "RECIPE_DIR={windows_path(recipe)}"',
                '@set "PKG_NAME=theano-gpu-config"',
                f'@call "{windows_path(recipe / "bld.bat")}" >nul',
                "@if errorlevel 1 exit 1",
                '@set "CONDA_PREFIX=%PREFIX%"',
                "@set MKL_THREADING_LAYER=INTEL",
                f"@{show}",
                '@call "%CONDA_PREFIX%\\etc\\conda\\activate.d\\theano-gpu-config_activate.bat"',
                f"@{show}",
                '@call "%CONDA_PREFIX%\\etc\\conda\\deactivate.d\\theano-gpu-config_deactivate.bat"',
                f"@{show}",
                "",
            ]
        )
    )
    proc = run_bat(
        driver,
        windows_env.python,
        tmp_path,
        PY=windows_path(windows_env.python),
        THEANO_FLAGS="device=cpu,cxx=",
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    shown = [ln[5:] for ln in proc.stdout.splitlines() if ln.startswith("SHOW ")]
    assert len(shown) == 3, proc.stdout[-3000:]
    before, active, after = shown
    assert before == "None| INTEL cpu float64 "
    env_rc = windows_path(prefix / "etc" / "theano" / "theanorc")
    assert active == f"~/.theanorc;~/.theanorc.txt;{env_rc}| GNU cpu float32 "
    assert after == before

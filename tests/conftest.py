"""Shared fixtures: the repository's recipes, pyenv interpreters, and running the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuforge.interpreters import pyenv_python

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["faults.harness"]  # the fault suite's fixtures (record, fault_table)
RECIPES = ROOT / "recipes"


# --- hermetic: what differs between machines of one kind never reaches a test --------------
# pip's configuration files (a global constraints file, extra indexes) change what a child pip
# prints; pytest's numbered temp folders (pytest-0 ... pytest-123) change the length of every
# path a test prints. Both are pinned here for the whole session, children included, and
# tests/test_hermetic.py fails when either leaks again.
# Kept: the variables a machine of this kind sets that only say where files are
# (PIP_FIND_LINKS: the torch target's local wheel) or how pip talks to the index.
PIP_KEPT = ("PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_DISABLE_PIP_VERSION_CHECK")
BASETEMP_PREFIX = "gpuforge-tests-"  # + mkdtemp's 8 random characters: always one length
KEPT_FAILED_RUNS = 3  # a failed run's temp folder (GBs: venvs, a Wine prefix) is kept to look into


def isolate_pip(env: dict[str, str]) -> dict[str, str]:
    """``env`` with pip's configuration files off (PIP_CONFIG_FILE=os.devnull: pip then reads
    no global, user or site file) and no PIP_* setting but PIP_KEPT."""
    env = {k: v for k, v in env.items() if not k.startswith("PIP_") or k in PIP_KEPT}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def pytest_configure(config: pytest.Config) -> None:
    vendored = ROOT.parent / "shared" / "vendor" / "conda-tools"  # as noxfile.py: the conda tools
    if vendored.is_dir():
        os.environ.setdefault("GPUFORGE_CONDA_TOOLS", str(vendored))
    isolated = isolate_pip(dict(os.environ))
    os.environ.clear()
    os.environ.update(isolated)
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        import tempfile

        parent = Path(tempfile.gettempdir()) / f"pytest-of-{os.getuid()}"
        parent.mkdir(mode=0o700, exist_ok=True)
        prune_kept_basetemps(parent)
        config.option.basetemp = tempfile.mkdtemp(prefix=BASETEMP_PREFIX, dir=parent)


def prune_kept_basetemps(
    parent: Path, keep: int = KEPT_FAILED_RUNS, quiet_for: float = 2 * 3600
) -> list[Path]:
    """Remove the temp folders failed runs left in ``parent`` but the newest ``keep``, and any
    folder written in the last ``quiet_for`` seconds (a session still running): each holds GBs,
    and without this a machine that runs the suite often fills its disk. Returns the removed."""
    import time

    kept = sorted(
        (d for d in parent.glob(f"{BASETEMP_PREFIX}*") if d.is_dir() and not d.is_symlink()),
        key=lambda d: d.stat().st_mtime,
        reverse=True,
    )
    now = time.time()
    removed = [d for d in kept[keep:] if now - d.stat().st_mtime > quiet_for]
    for d in removed:
        shutil.rmtree(d, ignore_errors=True)
    return removed


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The session's temp folder goes when every test passed (it holds venvs: GBs); a failed
    run keeps it to look into."""
    base = Path(str(session.config.option.basetemp or ""))
    if exitstatus == 0 and base.name.startswith(BASETEMP_PREFIX):
        shutil.rmtree(base, ignore_errors=True)


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for running this checkout's gpuforge in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def run_cli(*args: str, cwd: Path = ROOT, timeout: int = 600, **env: str) -> subprocess.CompletedProcess:
    """Run this checkout's ``python -m gpuforge ARGS`` for real and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "gpuforge", *args],
        cwd=cwd,
        text=True,
        capture_output=True,
        timeout=timeout,
        env=cli_env(**env),
    )


@pytest.fixture
def recipes_copy(tmp_path: Path) -> Path:
    """A writable copy of recipes/ to break on purpose."""
    dest = tmp_path / "recipes"
    shutil.copytree(RECIPES, dest)
    return dest


@pytest.fixture(scope="session")
def conda_tools():
    """The real conda-render, conda-build and conda-smithy (gpuforge.recipes.conda_tools)."""
    from gpuforge.errors import GpuforgeError
    from gpuforge.recipes.conda_tools import conda_tools as find_conda_tools

    try:
        return find_conda_tools()
    except GpuforgeError as exc:
        pytest.skip(str(exc))


def conda_create_dry_run(
    conda_tools, prefix: Path, channel: Path, *args: str, env: dict[str, str], timeout: int = 600
) -> subprocess.CompletedProcess:
    """The real conda's `create --dry-run` into ``prefix`` from ``channel`` alone (``args``: the
    specs and conda's other options). A conda killed by a signal (the rattler solver's process
    has segfaulted once at exit here, after printing its answer: -11) is run once more, so a
    crash of the tool is not read as its answer; a second crash stays for the test to see."""
    for _ in range(2):
        proc = subprocess.run(
            [str(conda_tools.python), "-m", "conda", "create", "--dry-run", "-p", str(prefix)]
            + ["--override-channels", "-c", channel.as_uri(), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
        if proc.returncode >= 0:
            break
    return proc


def pyenv_or_skip(minor: str) -> str:
    """pyenv's newest Python ``minor``; the test skips, naming the install command, without it."""
    path = pyenv_python(minor)
    if path is None:
        pytest.skip(
            f"needs pyenv's Python {minor} ($PYENV_ROOT/versions/{minor}.*): "
            f"install it with `pyenv install {minor}`"
        )
    return path


@pytest.fixture(scope="session")
def python37() -> str:
    return pyenv_or_skip("3.7")


@pytest.fixture(scope="session")
def theano_python(python37, tmp_path_factory) -> str:
    """Real Theano 1.0.5: a venv of pyenv's Python 3.7 with the cpu target's pins.

    Its own venv, not the cpu target's: tests install into it (a kernel spec, ipykernel).
    """
    from gpuforge.smoke.targets import CPU

    venv = tmp_path_factory.mktemp("theano-venv")
    subprocess.run([python37, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    proc = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *CPU.pip],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(
            f"needs {' '.join(CPU.pip)} from PyPI for Python 3.7, which pip could "
            f"not install here ({last}); run where PyPI is reachable"
        )
    return python


@pytest.fixture(scope="session")
def theano_cache(tmp_path_factory) -> Path:
    """One Theano compile cache for the session (Theano compiles its helpers once)."""
    return tmp_path_factory.mktemp("theano-cache")


def theano_env(home: Path, cache: Path | None = None, **extra: str) -> dict[str, str]:
    """An environment for running Theano hermetically: HOME is ``home`` (no ~/.theanorc
    of this machine), THEANORC and THEANO_FLAGS unset unless given; ``home/.theano``
    links to ``cache`` when given (else Theano compiles into a fresh one)."""
    home.mkdir(parents=True, exist_ok=True)
    if cache is not None and not (home / ".theano").exists():
        (home / ".theano").symlink_to(cache, target_is_directory=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("THEANORC", "THEANO_FLAGS", "MKL_THREADING_LAYER", "CONDA_PREFIX")
    }
    env["HOME"] = str(home)
    env.update(extra)
    return env


# --- a real Windows CPython under Wine (the windows target's environment) -------------------


@pytest.fixture(scope="session")
def windows_env():
    """gpu_smoke's windows target: python.org's Windows CPython 3.8 + numpy, scipy, Theano 1.0.5,
    made once in the gpuforge cache (the downloads are pinned and sha256-checked)."""
    from gpuforge.errors import GpuforgeError
    from gpuforge.smoke.targets import WINDOWS, ensure_env, missing_needs

    missing = missing_needs(WINDOWS)
    if missing:
        pytest.skip(f"the Windows CPython runs under Wine: {missing[0]}")
    try:
        return ensure_env(WINDOWS, say=lambda _message: None)
    except GpuforgeError as exc:
        pytest.skip(
            f"the windows target could not be made here ({exc}); its files come from "
            "files.pythonhosted.org: run where PyPI is reachable"
        )


# Wine sets USERPROFILE, TEMP, LOCALAPPDATA and PATH of a process it starts from Linux itself;
# a parent Windows Python sets them for its child, as a Windows shell would.
WINDOWS_LAUNCH = (
    "import json, os, subprocess, sys; os.environ.update(json.loads(sys.argv[1])); "
    "sys.exit(subprocess.call(sys.argv[2:]))"
)


def run_windows(
    python: str | Path,
    *args: str,
    cwd: Path | None = None,
    windows_env: dict | None = None,
    env: dict | None = None,
    timeout: int = 300,
) -> subprocess.CompletedProcess:
    """Run the Windows ``python`` under Wine (stdout and stderr through pipes: Wine's Python
    cannot start with them redirected into files); ``windows_env`` is set inside Windows."""
    import json

    from gpuforge.interpreters import python_command, windows_path, wine_env

    cmd = [*python_command(python), *args]
    if windows_env:
        cmd = [
            *python_command(python),
            "-c",
            WINDOWS_LAUNCH,
            json.dumps(windows_env),
            windows_path(python),
            *args,
        ]
    return subprocess.run(
        cmd,
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        env=wine_env(python, env),
        timeout=timeout,
    )

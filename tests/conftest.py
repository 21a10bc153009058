"""Shared fixtures: the repository's recipes, pyenv interpreters, and running the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "recipes"


def pyenv_python(minor: str) -> str | None:
    """Path of pyenv's newest ``python<minor>`` (e.g. "3.7"), or None."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = sorted(root.glob(f"{minor}.*/bin/python{minor}"),
                   key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()])
    return str(found[-1]) if found else None


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for running this checkout's gpuforge in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def run_cli(*args: str, cwd: Path = ROOT, timeout: int = 600, **env: str
            ) -> subprocess.CompletedProcess:
    """Run this checkout's ``python -m gpuforge ARGS`` for real and capture its output."""
    return subprocess.run([sys.executable, "-m", "gpuforge", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout, env=cli_env(**env))


@pytest.fixture
def recipes_copy(tmp_path: Path) -> Path:
    """A writable copy of recipes/ to break on purpose."""
    dest = tmp_path / "recipes"
    shutil.copytree(RECIPES, dest)
    return dest


@pytest.fixture(scope="session")
def python37() -> str:
    path = pyenv_python("3.7")
    if path is None:
        pytest.skip("needs pyenv's Python 3.7 ($PYENV_ROOT/versions/3.7.*): "
                    "install it with `pyenv install 3.7`")
    return path

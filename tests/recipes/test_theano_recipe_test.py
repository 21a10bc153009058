"""recipes/theano/test_exp.py, the recipe's test, run with real Theano 1.0.5: it refuses a
compiler that is not the environment's own g++ (what the Linux recipe test passes: --cxx-in-prefix
$PREFIX --cxx-package gxx_linux-64), or one of another version than the compiler package
installed there, and passes (compiling exp()) with the right one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import RECIPES

TEST_EXP = RECIPES / "theano" / "test_exp.py"
GXX = shutil.which("g++")


def run_test_exp(python: str, cxx: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, THEANO_FLAGS=f"cxx={cxx},compiledir={tmp_path / 'compiledir'}")
    return subprocess.run([python, str(TEST_EXP), *args], capture_output=True, text=True,
                          timeout=600, env=env, cwd=tmp_path)


def env_prefix(tmp_path: Path, package_version: str) -> tuple[Path, Path]:
    """An environment with its own g++ (a wrapper running the machine's, as gxx_linux-64's
    x86_64-conda-linux-gnu-g++ is the package's) and the compiler package's conda-meta record."""
    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "conda-meta").mkdir()
    cxx = prefix / "bin" / "x86_64-conda-linux-gnu-g++"
    cxx.write_text(f'#!/bin/sh\nexec {os.path.realpath(GXX)} "$@"\n')
    cxx.chmod(0o755)
    (prefix / "conda-meta" / f"gxx_linux-64-{package_version}-h0_0.json").write_text(
        json.dumps({"name": "gxx_linux-64", "version": package_version}))
    return prefix, cxx


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="no g++: `apt-get install -y g++` (ci/apt-packages.txt)")
def test_test_exp_takes_only_the_environments_gxx_of_its_package_version(theano_python, tmp_path):
    version = subprocess.check_output([GXX, "-dumpversion"], text=True).strip()
    prefix, cxx = env_prefix(tmp_path, "7.3.0")
    machine = os.path.realpath(GXX)
    outside = run_test_exp(theano_python, machine, tmp_path, "--cxx-in-prefix", str(prefix),
                           "--cxx-package", "gxx_linux-64")
    assert outside.returncode == 1
    assert outside.stderr.strip().splitlines()[-1] == (
        f"cxx={machine!r} is not the environment's g++ (under {prefix}): THEANO_FLAGS=cxx=$GXX did "
        "not take effect, or the compiler package is missing")
    other = run_test_exp(theano_python, str(cxx), tmp_path, "--cxx-in-prefix", str(prefix),
                         "--cxx-package", "gxx_linux-64")
    assert other.returncode == 1
    assert other.stderr.strip().splitlines()[-1] == (
        f"cxx={str(cxx)!r} is g++ {version}, the environment's gxx_linux-64 is 7.3.0")
    prefix, cxx = env_prefix(tmp_path / "right", version)
    right = run_test_exp(theano_python, str(cxx), tmp_path, "--cxx-in-prefix", str(prefix),
                         "--cxx-package", "gxx_linux-64")
    assert right.returncode == 0, right.stdout + right.stderr
    assert f"cxx: {cxx} (g++ {version}, gxx_linux-64 {version})" in right.stdout
    assert "matches_numpy=True" in right.stdout

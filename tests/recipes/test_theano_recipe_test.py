"""recipes/theano/test_exp.py, the recipe's test, run with real Theano 1.0.5: it refuses a
compiler that is not the environment's own g++ of the declared version (what the Linux recipe
test passes: --cxx-in-prefix $PREFIX --cxx-version 7.3.0), and passes with the right one."""

from __future__ import annotations

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


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="no g++: `apt-get install -y g++` (ci/apt-packages.txt)")
def test_test_exp_refuses_the_machines_gxx_and_accepts_the_declared_one(theano_python, tmp_path):
    real = os.path.realpath(GXX)
    version = subprocess.check_output([real, "-dumpversion"], text=True).strip()
    elsewhere = run_test_exp(theano_python, real, tmp_path, "--cxx-in-prefix", str(tmp_path),
                             "--cxx-version", "7.3.0")
    assert elsewhere.returncode == 1
    assert elsewhere.stderr.strip().splitlines()[-1] == (
        f"cxx={real!r} is not the environment's g++ (under {tmp_path}): THEANO_FLAGS=cxx=$GXX did "
        "not take effect, or the compiler package is missing")
    prefix = str(Path(real).parent.parent)  # (the version check: exercised by hand, see docs)
    right = run_test_exp(theano_python, real, tmp_path, "--cxx-in-prefix", prefix, "--cxx-version", version)
    assert right.returncode == 0, right.stdout + right.stderr
    assert f"cxx: {real} (g++ {version})" in right.stdout
    assert "matches_numpy=True" in right.stdout

"""`nox -s build`: real conda-build where it is installed, a clear stop where it is not."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def test_build_without_conda_build_stops_with_the_install_hint():
    if shutil.which("conda"):
        pytest.skip("conda is installed here: `nox -s build` runs the real conda-build "
                    "(exercised by the CI workflow); this test covers machines without it")
    proc = subprocess.run([sys.executable, "-m", "nox", "-s", "build"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "conda-build is not installed" in proc.stderr
    assert "conda install -n base conda-build" in proc.stderr
    assert "Traceback" not in proc.stderr

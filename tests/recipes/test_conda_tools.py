"""The real conda-build and conda-smithy, installed the project's one way (gpuforge.recipes.conda_tools)."""

from __future__ import annotations

import subprocess

import pytest

from gpuforge.errors import GpuforgeError
from gpuforge.recipes import conda_tools as ct


def test_the_tools_run_and_are_the_vendored_releases(conda_tools, tmp_path):
    for exe, expected in ((conda_tools.build, f"conda-build {ct.CONDA_BUILD_VERSION}"),
                          (conda_tools.smithy, ct.CONDA_SMITHY_VERSION)):
        proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=120,
                              env=conda_tools.env(tmp_path))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == expected
    assert conda_tools.render.is_file()


def test_missing_tools_name_what_is_missing_and_how_to_get_them(monkeypatch, tmp_path):
    monkeypatch.setenv(ct.VENDOR_ENV, str(tmp_path / "no-such-vendor"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no conda-build here
    with pytest.raises(GpuforgeError) as err:
        ct.conda_tools(cache=tmp_path / "cache")
    message = str(err.value)
    assert "no-such-vendor" in message and "conda-render, conda-build, conda-smithy" in message
    assert "conda-build==26.7.1 conda-smithy==3.60.0" in message and "\n" not in message
    assert not (tmp_path / "cache").exists()

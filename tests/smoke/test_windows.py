"""The windows target for real: python.org's Windows CPython 3.8 under Wine, with Theano 1.0.5."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli, run_windows

from gpuforge.errors import GpuforgeError
from gpuforge.interpreters import Interpreter, windows_path
from gpuforge.smoke.targets import THEANO_SDIST, WINDOWS


def test_windows_target_pins_the_theano_sdist_of_the_recipe():
    meta = (ROOT / "recipes" / "theano" / "meta.yaml").read_text()
    assert re.search(r'set sha256 = "([0-9a-f]{64})"', meta).group(1) == THEANO_SDIST.sha256
    assert re.search(r'set version = "([^"]+)"', meta).group(1) in THEANO_SDIST.url
    url = re.search(r"^  url: (.+)$", meta, re.M).group(1)
    assert url.replace("{{ name }}", "Theano").replace("{{ version }}", "1.0.5") == THEANO_SDIST.url
    assert all(d.url.startswith("https://") and len(d.sha256) == 64 for d in WINDOWS.downloads)


def test_a_windows_python_is_read_from_its_pe_header(windows_env, tmp_path):
    found = Interpreter.probe(str(windows_env.python))
    assert (found.version, found.bits) == ("3.8", 64)
    fake = tmp_path / "python.exe"
    fake.write_text("#!/bin/sh\n")
    with pytest.raises(GpuforgeError, match="not a Windows executable"):
        Interpreter.probe(str(fake))


@pytest.mark.slow
def test_windows_target_runs_theano_on_the_windows_cpython(tmp_path):
    """`gpuforge smoke --target windows`: the same checks and import tests as Linux, run by
    the Windows interpreter; what cannot run there (g++, pygpu, CUDA) skips or is named."""
    proc = run_cli("smoke", "--target", "windows", "--report-dir", str(tmp_path), timeout=900)
    report = json.loads((tmp_path / "gpu_smoke.json").read_text())
    target = report["targets"][0]
    if target["status"] == "skip":
        pytest.skip(f"the windows target cannot run here: {target['reason']}")
    assert target["status"] == "pass", (target["reason"], proc.stdout[-3000:], proc.stderr[-3000:])
    checks = {c["check"]: c for c in target["checks"]}
    exp = checks["exp"]
    assert exp["executable"].startswith("Z:\\") and exp["executable"].endswith("\\python.exe")
    assert exp["python"] == "3.8.10" and exp["bits"] == 64
    assert exp["theano"] == "1.0.5" and exp["cxx"] == "" and exp["used"] == "cpu"
    # the Windows home of the target's own Wine prefix: both config files, Windows compiledir
    home = exp["config_files"][0].rsplit("/", 1)[0]
    assert home.startswith("C:\\users\\")
    assert exp["config_files"] == [f"{home}/.theanorc", f"{home}/.theanorc.txt"]
    assert exp["compiledir"].startswith(f"{home}\\AppData\\Local\\Theano\\compiledir_Windows-")
    # Theano's Windows-only warning, from the real configdefaults.py on win32
    assert any(
        "g++ not available, if using conda: `conda install m2w64-toolchain`" in line
        for line in exp["stderr_tail"]
    )
    assert checks["logreg"]["status"] == "pass" and checks["logreg"]["accuracy"] >= 0.9
    assert checks["pygpu"]["status"] == "skip" and checks["torch"]["status"] == "skip"
    tests = {t["name"]: t for t in target["import_tests"]}
    shadow = tests["torch.py shadows torch"]
    assert shadow["status"] == "pass" and shadow["module_file"].endswith("\\torch-py\\torch.py")
    # what cannot run on this Windows says why: no g++, no NVIDIA driver (ctypes' real error)
    assert checks["compiler"]["status"] == "skip" and "no g++ on this Windows" in checks["compiler"]["reason"]
    assert checks["driver"]["status"] == "skip"
    assert "Could not find module 'nvcuda.dll' (or one of its dependencies)" in checks["driver"]["reason"]


def test_conda_bat_found_on_the_windows_path_is_started(windows_env, tmp_path):
    """CI issue 13, item 4: setup-miniconda puts only condabin\\conda.bat on PATH. gpuforge's
    conda target code, run by the Windows CPython, must start the .bat it found (Windows
    starts no .bat for the bare name `conda`: FileNotFoundError [WinError 2])."""
    condabin = tmp_path / "condabin"
    condabin.mkdir()
    calls = tmp_path / "calls.txt"
    # a stand-in for conda: what is under test is Windows starting a .bat through subprocess
    (condabin / "conda.bat").write_text(
        f'@echo off\r\necho %*>> "{windows_path(calls)}"\r\nmkdir "%4"\r\n', encoding="ascii"
    )
    env_file = tmp_path / "gpu-win64.yml"
    env_file.write_text("name: x\ndependencies:\n  - python=3.6\n")
    code = f"""
import os, sys
sys.path.insert(0, {windows_path(ROOT / "src")!r})
os.environ["PATH"] = {windows_path(condabin)!r} + ";" + os.environ["PATH"]
os.environ.pop("CONDA_EXE", None)
from pathlib import Path
from gpuforge.smoke import targets
print("tool", targets.conda_tool())
target = targets.Target(name="env:gpu-win64", description="", python="conda", device="cpu",
                        env_file={windows_path(env_file)!r})
targets._create_conda(target, Path({windows_path(tmp_path / "env")!r}), None, print)
print("created", os.path.isdir({windows_path(tmp_path / "env")!r}))
"""
    proc = run_windows(windows_env.python, "-c", code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"tool {windows_path(condabin / 'conda.bat')}" in proc.stdout
    assert "created True" in proc.stdout
    assert calls.read_text().split() == [
        "env",
        "create",
        "-p",
        windows_path(tmp_path / "env"),
        "-f",
        windows_path(env_file),
    ]


def test_windows_paths_name_linux_files_under_wine(windows_env):
    from gpuforge.interpreters import linux_path, wine_prefix

    prefix = wine_prefix(windows_env.python)
    assert prefix == Path(windows_env.python).parent / "wineprefix"
    home = linux_path("C:\\users\\root/.theanorc", prefix)
    assert home == (prefix / "drive_c").resolve() / "users" / "root" / ".theanorc"
    assert linux_path(windows_path(ROOT / "README.md"), prefix) == ROOT / "README.md"
    with pytest.raises(GpuforgeError, match="not an absolute Windows path"):
        linux_path("relative\\path", prefix)

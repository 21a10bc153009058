"""libgpuarray's bld.bat under Wine's cmd: it stops, saying why, when the compiler
activation left no cl.exe or nmake.exe on PATH (instead of failing later inside cmake)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import RECIPES

WINE = Path("/usr/lib/wine/wine64")
BLD_BAT = RECIPES / "libgpuarray" / "bld.bat"


def windows_path(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")


def run_bld_bat(cwd: Path, winepath: str = "") -> subprocess.CompletedProcess:
    # one Wine prefix for both runs: making one takes most of a run's time
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(cwd.parent / "wineprefix"), WINEPATH=winepath)
    return subprocess.run([str(WINE), "cmd", "/c", windows_path(BLD_BAT)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not WINE.exists(), reason="Wine's cmd is not installed: `apt-get install -y "
                    "--no-install-recommends wine64` (ci/apt-packages.txt lists it), then run again")
def test_bld_bat_stops_with_a_message_without_cl_and_nmake(tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    proc = run_bld_bat(bare)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = [line for line in proc.stdout.splitlines() if line.startswith("bld.bat: ")]  # not echoed commands
    assert said == ["bld.bat: nmake.exe is not on PATH after the MSVC activation of vs2019_win-64: in CI, "
                    "ci/msvc.sh loads the 14.29 toolset; elsewhere run conda build from a prompt where "
                    "vcvarsall.bat x64 -vcvars_ver=14.29 has run"]
    assert not (bare / "build").exists()  # stopped before anything else ran

    # cl.exe and nmake.exe on PATH (only their presence is checked): on to the build, which
    # stops at cmake, not installed here.
    tools, toolchain = tmp_path / "tools", tmp_path / "toolchain"
    tools.mkdir()
    toolchain.mkdir()
    (tools / "cl.exe").write_bytes(b"")
    (tools / "nmake.exe").write_bytes(b"")
    proc = run_bld_bat(toolchain, winepath=windows_path(tools))
    assert not [line for line in proc.stdout.splitlines() if line.startswith("bld.bat: ")]
    assert (toolchain / "build").is_dir()
    assert "cmake -G" in proc.stdout

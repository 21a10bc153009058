"""Lock files: written for real from a reachable (local) channel; a clear stop where none is."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli
from rattler import LockFile

from gpuforge.envs.envfile import load_env
from gpuforge.envs.lock import lock_envs, lock_texts, solve_locked
from gpuforge.envs.mirrors import Mirror, Mirrors, load_mirrors
from gpuforge.envs.records import load_records
from gpuforge.envs.solve import write_channel
from gpuforge.errors import GpuforgeError

ENVS = ROOT / "envs"


def official_reachable() -> bool:
    try:
        socket.getaddrinfo("repo.anaconda.com", 443)
        return True
    except OSError:
        return False


needs_offline = pytest.mark.skipif(
    official_reachable(), reason="repo.anaconda.com resolves here: `nox -s lock` would solve on the "
    "real channels (the CI workflows do); these tests cover machines without them")


@needs_offline
def test_cli_lock_stops_when_the_channels_cannot_be_reached(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    proc = run_cli("envs", "lock", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert re.match(r"gpuforge: error: envs/cpu-linux64.yml: cannot reach the channels: "
                    r"https://repo\.anaconda\.com/pkgs/(main|r)/"
                    r"\S+: .*(lookup|resolv)", line), line
    assert "run `nox -s lock` where they can be reached" in line
    assert line.endswith("Nothing was written")
    assert not (tmp_path / "envs" / "locks").exists()


@needs_offline
@pytest.mark.slow
def test_nox_lock_session_stops_with_the_message():
    proc = subprocess.run([sys.executable, "-m", "nox", "-s", "lock"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "gpuforge: error: envs/cpu-linux64.yml: cannot reach the channels" in output
    assert "Traceback" not in output
    assert not (ROOT / "envs" / "locks").exists()


def test_lock_refuses_env_files_that_fail_the_check(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    path = tmp_path / "envs" / "cpu-win64.yml"
    path.write_text(path.read_text().replace("vc=14 ", "vc=15 "))
    proc = run_cli("envs", "lock", "envs/cpu-win64.yml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("gpuforge: error: envs/cpu-win64.yml:11: pin vc=14")
    assert "fix what `gpuforge envs check` reports before locking" in proc.stderr


@pytest.fixture
def local_channels(tmp_path: Path) -> tuple[Path, Mirrors]:
    """The official mirror pointed at local file:// channels holding the real win-64 records."""
    base = tmp_path / "channels"
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    records = load_records(ENVS / "records.yaml")
    for name in ("main", "r", "msys2"):  # not pytorch: that one cannot be reached
        write_channel(env, records, base / name)
    real = load_mirrors(ENVS / "mirrors.yaml")
    local = Mirror("official", base.as_uri(), base.as_uri())
    return base, Mirrors(real.path, real.defaults, real.windows_only, real.custom, real.unmirrored,
                         {"official": local})


def test_lock_files_are_written_and_read_back(tmp_path, local_channels):
    base, mirrors = local_channels
    out = tmp_path / "locks"
    written = lock_envs([load_env(ENVS / "gpu-win64-legacy-cuda9.yml")], mirrors, "official", out)
    assert sorted(p.name for p in written) == ["gpu-win64-legacy-cuda9.explicit.txt",
                                               "gpu-win64-legacy-cuda9.lock"]
    lock = LockFile.from_path(out / "gpu-win64-legacy-cuda9.lock")
    env = lock.default_environment()
    [platform] = env.platforms()
    assert platform.name == "win-64"
    packages = {p.name.normalized: p for p in env.conda_repodata_records_for_platform(platform)}
    assert str(packages["pygpu"].build) == "py36h452e1ab_0"
    assert str(packages["cudatoolkit"].version) == "9.0"
    assert str(packages["pygpu"].url).startswith((base / "main").as_uri())
    assert [str(c).rstrip("/") for c in env.channels()] == [
        (base / n).as_uri() for n in ("main", "r", "msys2")]
    explicit = (out / "gpu-win64-legacy-cuda9.explicit.txt").read_text().splitlines()
    assert explicit[1:3] == ["# platform: win-64", "@EXPLICIT"]
    assert len(explicit[3:]) == len(packages)
    assert all(line.startswith(base.as_uri()) for line in explicit[3:])


def test_an_unreachable_channel_writes_nothing(tmp_path, local_channels):
    _, mirrors = local_channels
    out = tmp_path / "locks"
    envs = [load_env(ENVS / "gpu-win64-legacy-cuda9.yml"), load_env(ENVS / "pytorch04-win64.yml")]
    with pytest.raises(GpuforgeError, match=r"pytorch04-win64.yml: cannot reach the channels: "
                                            r".*pytorch.*Nothing was written"):
        lock_envs(envs, mirrors, "official", out)
    assert not out.exists()


def test_lock_texts_match_the_solution(local_channels):
    base, _ = local_channels
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    url = (base / "main").as_uri()
    locked = solve_locked(env, {"defaults": [url]})
    texts = lock_texts(locked)
    assert texts["gpu-win64-legacy-cuda9.lock"].startswith("version: ")
    names = sorted(r.name.normalized for r in locked.records)
    assert [ln.rsplit("/", 1)[1].rsplit("-", 2)[0] for ln in
            texts["gpu-win64-legacy-cuda9.explicit.txt"].splitlines()[3:]] == names

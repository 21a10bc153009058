"""Lock files: written for real from a reachable (local) channel; a clear stop where none is."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli
from rattler import LockFile

from gpuforge import locations
from gpuforge.envs.envfile import load_env
from gpuforge.envs.lock import lock_envs, lock_texts, solve_locked
from gpuforge.envs.mirrors import Mirror, Mirrors, load_mirrors
from gpuforge.envs.records import load_records
from gpuforge.envs.solve import write_channel

ENVS = ROOT / "envs"


def official_reachable() -> bool:
    try:
        socket.getaddrinfo("repo.anaconda.com", 443)
        return True
    except OSError:
        return False


needs_offline = pytest.mark.skipif(
    official_reachable(),
    reason="repo.anaconda.com resolves here: `nox -s lock` would solve on the "
    "real channels (the CI workflows do); these tests cover machines without them",
)


@needs_offline
def test_cli_lock_reports_each_env_that_cannot_reach_its_channels(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    proc = run_cli("envs", "lock", "envs/cpu-linux64.yml", "envs/gpu-linux64.yml", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    *errors, summary = proc.stderr.splitlines()
    assert len(errors) == 2
    for line, name in zip(errors, ("cpu-linux64", "gpu-linux64"), strict=True):
        assert re.match(
            rf"gpuforge: error: envs/{name}.yml: cannot reach the channels: "
            r"https://repo\.anaconda\.com/pkgs/(main|r)/\S+: .*(lookup|resolv)",
            line,
        ), line
        assert "run `nox -s lock` where they can be reached" in line
    assert summary == "envs lock: 0 of 2 env file(s) locked; not locked: cpu-linux64.yml, gpu-linux64.yml"
    assert not (tmp_path / "envs" / "locks").exists()


@needs_offline
@pytest.mark.slow
def test_nox_lock_session_stops_with_the_message():
    proc = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "lock"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "gpuforge: error: envs/cpu-linux64.yml: cannot reach the channels" in output
    assert "Traceback" not in output


def test_lock_refuses_env_files_that_fail_the_check(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    path = tmp_path / "envs" / "cpu-win64.yml"
    path.write_text(path.read_text().replace("vc=14 ", "vc=15 "))
    proc = run_cli("envs", "lock", "envs/cpu-win64.yml", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("gpuforge: error: envs/cpu-win64.yml:11: pin vc=14")
    assert "fix what `gpuforge envs check` reports before locking" in proc.stderr
    assert proc.stderr.endswith("not locked: cpu-win64.yml\n")


@pytest.fixture
def local_channels(tmp_path: Path) -> tuple[Path, Mirrors]:
    """The official mirror pointed at local file:// channels holding the real win-64 records."""
    base = tmp_path / "channels"
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    records = load_records(locations.RECORDS)
    for name in ("main", "r", "msys2"):  # not pytorch: that one cannot be reached
        write_channel(env, records, base / name)
    real = load_mirrors(locations.MIRRORS)
    local = Mirror("official", base.as_uri(), base.as_uri())
    return base, Mirrors(
        real.path, real.defaults, real.windows_only, real.custom, real.unmirrored, {"official": local}
    )


def test_lock_files_are_written_and_read_back(tmp_path, local_channels):
    base, mirrors = local_channels
    out = tmp_path / "locks"
    result = lock_envs([load_env(ENVS / "gpu-win64-legacy-cuda9.yml")], mirrors, "official", out)
    assert result.failed == {}
    assert sorted(p.name for p in result.written) == [
        "gpu-win64-legacy-cuda9.explicit.txt",
        "gpu-win64-legacy-cuda9.lock",
    ]
    lock = LockFile.from_path(out / "gpu-win64-legacy-cuda9.lock")
    env = lock.default_environment()
    [platform] = env.platforms()
    assert platform.name == "win-64"
    packages = {p.name.normalized: p for p in env.conda_repodata_records_for_platform(platform)}
    assert str(packages["pygpu"].build) == "py36h452e1ab_0"
    assert str(packages["cudatoolkit"].version) == "9.0"
    assert str(packages["pygpu"].url).startswith((base / "main").as_uri())
    assert [str(c).rstrip("/") for c in env.channels()] == [
        (base / n).as_uri() for n in ("main", "r", "msys2")
    ]
    explicit = (out / "gpu-win64-legacy-cuda9.explicit.txt").read_text().splitlines()
    assert explicit[1:3] == ["# platform: win-64", "@EXPLICIT"]
    assert len(explicit[3:]) == len(packages)
    assert all(line.startswith(base.as_uri()) for line in explicit[3:])


def test_one_env_that_does_not_solve_stops_no_other(tmp_path, local_channels):
    """A package vanished from the (real, file://) channel: its env fails, the others lock."""
    base, mirrors = local_channels
    for channel in ("main", "r", "msys2"):  # the fixture's channels each hold every record
        path = base / channel / "win-64" / "repodata.json"
        repodata = json.loads(path.read_text())
        gone = [k for k in repodata["packages"] if k.startswith("cudnn-")]
        assert gone
        for key in gone:  # cuDNN withdrawn: only gpu-win64-legacy-cuda9.yml needs it
            del repodata["packages"][key]
        path.write_text(json.dumps(repodata))
    out = tmp_path / "locks"
    (out).mkdir()
    (out / "gpu-win64-legacy-cuda9.lock").write_text("the old lock\n")
    unreachable = tmp_path / "forge-win64.yml"  # a channel the local mirror does not have
    unreachable.write_text(
        (ENVS / "cpu-win64.yml").read_text().replace("  - nodefaults", "  - conda-forge\n  - nodefaults")
    )
    envs = [
        load_env(ENVS / "gpu-win64-legacy-cuda9.yml"),
        load_env(ENVS / "cpu-win64.yml"),
        load_env(unreachable),
    ]
    result = lock_envs(envs, mirrors, "official", out, say=lambda line: None)
    assert sorted(p.name for p in result.written) == ["cpu-win64.explicit.txt", "cpu-win64.lock"]
    assert sorted(p.name for p in result.failed) == ["forge-win64.yml", "gpu-win64-legacy-cuda9.yml"]
    assert re.search(
        r"gpu-win64-legacy-cuda9.yml:\d+: no solution on the channels .*cudnn",
        result.failed[ENVS / "gpu-win64-legacy-cuda9.yml"],
    )
    assert "cannot reach the channels" in result.failed[unreachable]
    assert (out / "gpu-win64-legacy-cuda9.lock").read_text() == "the old lock\n"  # its old lock kept
    assert LockFile.from_path(out / "cpu-win64.lock").default_environment() is not None


def test_lock_texts_match_the_solution(local_channels):
    base, _ = local_channels
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    url = (base / "main").as_uri()
    locked = solve_locked(env, {"defaults": [url]})
    texts = lock_texts(locked)
    assert texts["gpu-win64-legacy-cuda9.lock"].startswith("version: ")
    names = sorted(r.name.normalized for r in locked.records)
    assert [
        ln.rsplit("/", 1)[1].rsplit("-", 2)[0]
        for ln in texts["gpu-win64-legacy-cuda9.explicit.txt"].splitlines()[3:]
    ] == names

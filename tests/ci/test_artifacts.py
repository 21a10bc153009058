"""Build artifacts cannot collide: each job's packages travel with their sha256, and a channel
is assembled only from files that match them (real files, the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, run_cli

from gpuforge.ci.workflow import make_plan


def built(tmp_path: Path, job: str, files: dict[str, bytes]) -> Path:
    """What conda-build left in a job's output folder, published as that job's artifact."""
    out, artifact = tmp_path / "out" / job, tmp_path / "artifacts" / f"build-{job}"
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    (out / "linux-64" / "repodata.json").parent.mkdir(parents=True, exist_ok=True)
    (out / "linux-64" / "repodata.json").write_text("{}")  # not a package: never published
    proc = run_cli("ci", "outputs", job, "--from", str(out), "--to", str(artifact))
    assert proc.returncode == 0, proc.stderr
    return artifact


def collect(tmp_path: Path):
    return run_cli("ci", "collect", str(tmp_path / "artifacts"), "--channel", str(tmp_path / "channel"))


def test_verified_artifacts_make_one_channel_with_a_manifest(tmp_path):
    base = built(tmp_path, "linux-64", {"linux-64/libgpuarray-0.7.6-h0_0.conda": b"lib"})
    built(
        tmp_path,
        "linux-64_python3.6_numpy1.16",
        {"linux-64/pygpu-0.7.6-py36_0.conda": b"py36", "linux-64/libgpuarray-0.7.6-h0_0.conda": b"lib"},
    )
    assert json.loads((base / "manifest.json").read_text())["job"] == "linux-64"
    assert not (base / "linux-64" / "repodata.json").exists()
    proc = collect(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "channel" / "linux-64").iterdir()) == [
        "libgpuarray-0.7.6-h0_0.conda",
        "pygpu-0.7.6-py36_0.conda",
    ]  # the same file twice is one
    manifest = json.loads((tmp_path / "channel" / "manifest.json").read_text())
    assert sorted(manifest["packages"]) == [
        "linux-64/libgpuarray-0.7.6-h0_0.conda",
        "linux-64/pygpu-0.7.6-py36_0.conda",
    ]


def test_two_same_named_artifacts_with_different_contents_are_refused(tmp_path):
    name = "linux-64/theano-gpu-config-0.1.0-h1_0.conda"
    built(tmp_path, "linux-64_python3.6_numpy1.16", {name: b"built at 10:01"})
    built(tmp_path, "linux-64_python3.7_numpy1.16", {name: b"built at 10:02"})
    proc = collect(tmp_path)
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert line.startswith(
        f"gpuforge: error: refused, nothing copied into {tmp_path / 'channel'}: "
        f"{name}: two different files of that name, from "
        "build-linux-64_python3.6_numpy1.16 (job linux-64_python3.6_numpy1.16, sha256 "
    )
    assert line.endswith("a package must be built by one job")
    assert not (tmp_path / "channel").exists()


def test_a_file_changed_after_its_build_is_refused(tmp_path):
    artifact = built(tmp_path, "linux-64", {"linux-64/libgpuarray-0.7.6-h0_0.conda": b"lib"})
    (artifact / "linux-64/libgpuarray-0.7.6-h0_0.conda").write_bytes(b"li")  # a cut download
    (artifact / "linux-64/stray-1.0-0.conda").write_bytes(b"?")
    proc = collect(tmp_path)
    assert proc.returncode == 2
    assert "linux-64/libgpuarray-0.7.6-h0_0.conda: sha256 " in proc.stderr
    assert "but job linux-64 built " in proc.stderr
    assert "build-linux-64/linux-64/stray-1.0-0.conda: not in its manifest.json" in proc.stderr


def test_merged_downloads_without_manifests_are_refused(tmp_path):
    (tmp_path / "artifacts" / "linux-64").mkdir(parents=True)
    (tmp_path / "artifacts" / "linux-64" / "x-1-0.conda").write_bytes(b"x")
    proc = collect(tmp_path)
    assert proc.returncode == 2
    assert "no artifact folders with a manifest.json" in proc.stderr


def test_each_package_is_built_by_one_job_per_platform():
    jobs = make_plan(ROOT).jobs
    for platform in ("linux-64", "win-64"):
        builders = [
            j.name for j in jobs if j.platform == platform for r in j.recipes if r.name == "theano-gpu-config"
        ]
        assert builders == [f"{platform}_python3.6_numpy1.16"]


def test_a_single_downloaded_artifact_is_its_own_folder(tmp_path):
    """download-artifact extracts a pattern that matched one artifact into `path` itself."""
    artifact = built(tmp_path, "linux-64", {"linux-64/libgpuarray-0.7.6-h0_0.conda": b"lib"})
    proc = run_cli("ci", "collect", str(artifact), "--channel", str(tmp_path / "channel"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "channel/linux-64/libgpuarray-0.7.6-h0_0.conda").read_bytes() == b"lib"

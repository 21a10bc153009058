"""Build artifacts that cannot collide: each build job publishes its packages with their sha256
(``manifest.json``), and a channel is assembled only from files that match it.

``gpuforge ci outputs JOB --from OUT --to DIR`` copies what conda-build wrote into ``OUT``
(``<subdir>/*.conda``, ``*.tar.bz2``) to ``DIR`` with ``DIR/manifest.json``. The workflow
downloads every artifact into its own folder (never merged by the download), and ``gpuforge
ci collect ARTIFACTS --channel CHANNEL`` checks each folder's files against its manifest,
refuses two different files of the same name (two jobs built the same package, or a download
was interleaved or cut) and only then copies them into the channel, which gets a manifest of
its own for the next job (publish).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpuforge.downloads import sha256_of
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.fileio import read_text, write_atomic

MANIFEST = "manifest.json"
PACKAGE_PATTERNS = ("*/*.conda", "*/*.tar.bz2")
# What a manifest may name: a package file in a conda subdir folder, nothing else and nowhere
# else (a manifest comes from another job: `../build-linux/x.sh` is refused, not copied).
PACKAGE_REL_RE = re.compile(r"(?:noarch|[a-z]+-[a-z0-9]+)/[A-Za-z0-9_][A-Za-z0-9_.+!-]*\.(?:conda|tar\.bz2)")
SHA256_RE = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Package:
    rel: str  # "<subdir>/<file name>"
    sha256: str
    size: int
    origin: str  # the artifact folder (or channel) it was taken from
    job: str
    path: Path  # the file


def package_files(folder: Path) -> list[str]:
    """The packages under ``folder`` as ``<subdir>/<name>``, sorted."""
    folder = Path(folder)
    return sorted(
        {
            p.relative_to(folder).as_posix()
            for pattern in PACKAGE_PATTERNS
            for p in folder.glob(pattern)
            if p.is_file()
        }
    )


def manifest_text(job: str, folder: Path, rels: list[str]) -> str:
    packages = {
        rel: {"sha256": sha256_of(folder / rel), "size": (folder / rel).stat().st_size} for rel in rels
    }
    return json.dumps({"job": job, "packages": packages}, indent=1, sort_keys=True) + "\n"


def write_outputs(job: str, source: Path, dest: Path) -> list[str]:
    """Copy the packages conda-build wrote into ``source`` to ``dest`` with their manifest."""
    source, dest = Path(source), Path(dest)
    rels = package_files(source)
    if not rels:
        raise GpuforgeError(f"no packages (<subdir>/*.conda or *.tar.bz2): job {job} built nothing", source)
    for rel in rels:
        _copy(source / rel, dest / rel)
    write_atomic(dest / MANIFEST, manifest_text(job, dest, rels))
    return rels


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)  # exclusive
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out)
        os.replace(name, dest)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def read_manifest(folder: Path) -> tuple[str, dict[str, dict]]:
    path = Path(folder) / MANIFEST
    try:
        doc = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"not a manifest: invalid JSON ({exc.msg})", path, exc.lineno) from None
    packages = doc.get("packages") if isinstance(doc, dict) else None
    if not isinstance(packages, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("sha256"), str) for v in packages.values()
    ):
        raise InputError(
            'not a manifest: expected {"job": ..., "packages": {"<subdir>/<file>": {"sha256": ...}}}', path, 1
        )
    for rel, meta in packages.items():
        if not PACKAGE_REL_RE.fullmatch(rel):
            raise InputError(
                f"names {rel!r}, not a package file in a subdir folder (<subdir>/<name>.conda or "
                ".tar.bz2): refused, nothing copied",
                path,
            )
        if not SHA256_RE.fullmatch(meta["sha256"]):
            raise InputError(
                f"{rel}: sha256 {meta['sha256']!r} is not 64 lowercase hex digits: refused", path
            )
    return str(doc.get("job") or Path(folder).name), packages


def verify(artifacts: Path) -> tuple[dict[str, Package], list[str]]:
    """Every artifact folder under ``artifacts`` checked against its manifest: the packages to
    take (by ``<subdir>/<name>``) and one line per problem."""
    artifacts = Path(artifacts)
    # actions/download-artifact puts each artifact in its own folder, except when the pattern
    # matched only one: then that one is the folder itself (src/download-artifact.ts, v8.0.1).
    single = (artifacts / MANIFEST).is_file()
    folders = [artifacts] if single else sorted(p.parent for p in artifacts.glob(f"*/{MANIFEST}"))
    if not folders:
        raise InputError(
            f"no artifact folders with a {MANIFEST} (download each artifact into its "
            "own folder: actions/download-artifact without merge-multiple)",
            artifacts,
        )
    chosen: dict[str, Package] = {}
    problems: list[str] = []
    for folder in folders:
        job, listed = read_manifest(folder)
        where = folder.relative_to(artifacts).as_posix() if not single else artifacts.name
        for rel in package_files(folder):
            if rel not in listed:
                problems.append(f"{where}/{rel}: not in its {MANIFEST} (job {job} did not build it)")
        for rel, meta in sorted(listed.items()):
            path = folder / rel
            if not path.is_file():
                problems.append(f"{where}/{rel}: listed in its {MANIFEST} (job {job}) but missing")
                continue
            found = Package(rel, sha256_of(path), path.stat().st_size, where, job, path)
            if found.sha256 != meta["sha256"]:
                problems.append(
                    f"{where}/{rel}: sha256 {found.sha256[:16]}..., but job {job} built "
                    f"{meta['sha256'][:16]}...: changed after the build (a cut or "
                    "interleaved download?)"
                )
                continue
            other = chosen.get(rel)
            if other is None:
                chosen[rel] = found
            elif other.sha256 != found.sha256:
                problems.append(
                    f"{rel}: two different files of that name, from {other.origin} (job "
                    f"{other.job}, sha256 {other.sha256[:16]}...) and {where} (job {job}, "
                    f"sha256 {found.sha256[:16]}...): a package must be built by one job"
                )
    return chosen, problems


def collect(artifacts: Path, channel: Path) -> list[Package]:
    """Verify the artifacts, then copy their packages into ``channel`` (nothing on a problem)."""
    channel = Path(channel)
    chosen, problems = verify(artifacts)
    for rel, package in chosen.items():
        present = channel / rel
        if present.is_file() and sha256_of(present) != package.sha256:
            problems.append(
                f"{rel}: {channel} already holds a different file of that name "
                f"(sha256 {sha256_of(present)[:16]}...) than {package.origin}"
            )
    if problems:
        raise GpuforgeError(f"refused, nothing copied into {channel}: " + "; ".join(problems))
    for rel, package in chosen.items():
        _copy(package.path, channel / rel)
        if sha256_of(channel / rel) != package.sha256:
            raise GpuforgeError(f"{rel}: the copy differs from {package.origin}'s file", channel)
    rels = package_files(channel)
    write_atomic(channel / MANIFEST, manifest_text(f"channel {channel.name}", channel, rels))
    return [chosen[rel] for rel in sorted(chosen)]

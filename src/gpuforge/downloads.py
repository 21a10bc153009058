"""Downloads: fetched once into the cache, always verified by sha256.

A recipe's source, a Windows CPython, a wheel, NVIDIA's NVRTC: every file gpuforge downloads is a
``Source`` (a URL and its published sha256) and comes through ``fetch``, which never lets a
file that fails its hash into the cache.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from gpuforge import processes
from gpuforge.channels import INFRA_STATUSES, ChannelFailure, InfrastructureError, attempts, secure_url
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import process_alive

PYPI_HOSTS = ("pypi.io", "pypi.org", "files.pythonhosted.org")
CHUNK = 1 << 20
PIP_TIMEOUT_S = 600  # `pip download` of one sdist
# Other published hashes of a recipe source's same tree, by the recipe's sha256 (conda-smithy
# allows no such key in a recipe's `extra`). libgpuarray 0.7.6's release tarball (libgpuarray and
# pygpu recipes): `git archive --format=tar --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` of tag
# v0.7.6 (f036aef3a425560161de362f390d238f4e7c1721) reproduces GitHub's archive/v0.7.6.tar.gz byte
# for byte, whose hash Spack's py-pygpu publishes: a local copy of the tag is verified against it.
SAME_TREE = {
    "887b6433a30282cb002117da89b05812c770fd9469f93950ff3866ddd02bfc64": (
        "ad1c00dd47c3d36ee1708e5167377edbfcdb7226e837ef9c68b841afbb4a4f6a",
    ),
}


SHA256_RE = re.compile(r"[0-9a-f]{64}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class Source:
    """A recipe's url source: where from, and the hashes a copy may have."""

    url: str
    sha256: str
    # Other published hashes of the same tree, besides SAME_TREE's.
    alternates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """A source names a file in the cache by its hash and its URL's last part: both must be
        plain (a hash written as ``../../x`` or a URL ending in ``..`` would put the download
        outside the cache), and the URL https (a download in the clear can be swapped)."""
        for digest in (self.sha256, *self.alternates):
            if not SHA256_RE.fullmatch(digest):
                raise GpuforgeError(
                    f"source sha256 {digest!r} is not 64 lowercase hex digits: nothing downloaded"
                )
        if not secure_url(self.url):
            raise GpuforgeError(f"source url {self.url!r} is not https: nothing downloaded")
        if self.filename in ("", ".", "..") or "\\" in self.filename:
            raise GpuforgeError(f"source url {self.url!r} does not end in a file name: nothing downloaded")

    @property
    def filename(self) -> str:
        return Path(urlparse(self.url).path).name

    def check(self, path: Path) -> str:
        """Verify a tarball against the recipe; return which hash it matched."""
        actual = sha256_of(path)
        if actual == self.sha256:
            return f"sha256 {actual[:12]}... matches the recipe"
        alternates = (*self.alternates, *SAME_TREE.get(self.sha256, ()))
        if actual in alternates:
            return f"sha256 {actual[:12]}... matches the same tree's other hash (git archive of the tag)"
        known = " or ".join([self.sha256, *alternates])
        raise GpuforgeError(f"sha256 mismatch: got {actual}, the recipe expects {known}", path)


def _pypi_sdist(url: str) -> str | None:
    """``Theano==1.0.5`` for a PyPI sdist URL (``https://files.pythonhosted.org/.../Theano-1.0.5.tar.gz``)."""
    parsed = urlparse(url)
    if parsed.hostname not in PYPI_HOSTS:
        return None
    stem = Path(parsed.path).name.removesuffix(".tar.gz").removesuffix(".zip")
    project, _, version = stem.rpartition("-")
    return f"{project}=={version}" if project and version else None


def _download(url: str, dest: Path, say: Callable[[str], None]) -> None:
    with urllib.request.urlopen(url, timeout=60) as resp, open(dest, "wb") as out:  # noqa: S310
        total = int(resp.headers.get("Content-Length") or 0)
        done, shown = 0, -1
        while chunk := resp.read(CHUNK):
            processes.check_stop()  # an interrupted run stops between chunks
            out.write(chunk)
            done += len(chunk)
            if total and (pct := done * 100 // total) // 10 != shown:
                shown = pct // 10
                say(f"  {done / 1e6:6.1f} / {total / 1e6:.1f} MB ({pct}%)")


def _download_with_retries(url: str, dest: Path, say: Callable[[str], None]) -> None:
    """``_download``; a server failure (403, 429, 5xx, a timeout) is retried with backoff and,
    when it persists, raised as InfrastructureError naming the host and the status."""
    for failed in attempts(say):
        try:
            return _download(url, dest, say)
        except urllib.error.HTTPError as exc:
            if exc.code not in INFRA_STATUSES:
                raise
            failed(ChannelFailure(urlparse(url).netloc, exc.code, url))
        except (urllib.error.URLError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            if not isinstance(reason, TimeoutError) and "timed out" not in str(reason):
                raise
            failed(ChannelFailure(urlparse(url).netloc, None, url))


def _pip_download(requirement: str, dest_dir: Path) -> Path:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(dest_dir),
        requirement,
    ]
    proc = processes.run(cmd, capture_output=True, text=True, errors="replace", timeout=PIP_TIMEOUT_S)
    files = list(dest_dir.iterdir())
    if proc.returncode != 0 or len(files) != 1:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no file"]
        raise GpuforgeError(f"pip download {requirement} failed: {tail[0]}")
    return files[0]


def fetch(source: Source, cache_dir: Path, say: Callable[[str], None] = print) -> Path:
    """The verified tarball for ``source``, from the cache or downloaded into it.

    A PyPI sdist URL that cannot be reached directly is fetched with
    ``pip download`` (which honours the machine's index configuration); the
    hash is checked either way, and a bad download never enters the cache.
    """
    target = Path(cache_dir) / "sources" / source.sha256[:16] / source.filename
    if target.is_dir():
        raise GpuforgeError("a folder where the downloaded file belongs: delete it", target)
    if target.is_file():
        try:
            source.check(target)
            say(f"source: {target} (cached, sha256 verified)")
            return target
        except GpuforgeError as exc:
            say(f"source: the cached copy failed its sha256 check ({exc.message}): downloading again")
            try:
                target.unlink()
            except OSError as err:
                raise GpuforgeError(
                    f"failed its sha256 check and cannot be deleted ({err.strerror}): delete it", target
                ) from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        in_way = next(p for p in (target.parent, *target.parent.parents) if p.is_file())
        raise GpuforgeError("a file where the source cache needs a folder: delete it", in_way) from None
    _remove_dead_downloads(target.parent)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".download-{os.getpid()}-") as tmp:
        tmp_file = Path(tmp) / source.filename
        say(f"source: downloading {source.url}")
        try:
            _download_with_retries(source.url, tmp_file, say)
        except (urllib.error.URLError, OSError, InfrastructureError) as exc:
            requirement = _pypi_sdist(source.url)
            if requirement is None:
                raise GpuforgeError(
                    f"cannot download {source.url}: {getattr(exc, 'reason', exc)}; "
                    "download it elsewhere and pass --source PATH"
                ) from None
            say(f"  unreachable ({getattr(exc, 'reason', exc)}); trying pip download {requirement}")
            tmp_file = _pip_download(requirement, Path(tmp) / "pip")
        say("  " + source.check(tmp_file))
        os.replace(tmp_file, target)
    return target


def _remove_dead_downloads(folder: Path) -> None:
    """The temporary folders of downloads whose process was killed (its pid in the name)."""
    for leftover in folder.glob(".download-*"):
        pid = leftover.name.split("-")[1]
        if not pid.isdigit() or not process_alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def unpack(archive_or_tree: Path, dest: Path) -> Path:
    """Put the source tree at ``dest`` (replacing it); strip a single top-level folder."""
    src = Path(archive_or_tree)
    if dest.exists():
        shutil.rmtree(dest)
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return dest
    tmp = dest.with_name(dest.name + ".unpack")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        with tarfile.open(src) as tar:
            tar.extractall(tmp, filter="data")
    except (tarfile.TarError, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise GpuforgeError(f"cannot unpack: {exc}", src) from None
    entries = list(tmp.iterdir())
    top = entries[0] if len(entries) == 1 and entries[0].is_dir() else tmp
    shutil.move(str(top), dest)
    shutil.rmtree(tmp, ignore_errors=True)
    return dest

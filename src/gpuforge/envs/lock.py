"""`nox -s lock`: lock files for every env file, solved by py-rattler on the real channels.

For envs/<env>.yml it writes envs/locks/<env>.lock (the lock format of rattler and pixi,
``pixi install --frozen``-style) and envs/locks/<env>.explicit.txt (``@EXPLICIT`` URLs,
for ``conda create -n NAME --file ...``). Each env is solved and written on its own: one
env file that does not solve (a package withdrawn from its channel, a channel that refuses)
leaves its own old lock files as they were and stops no other env's.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import rattler
from rattler import LockChannel, LockFile, LockPlatform, RepoDataRecord
from rattler.exceptions import GatewayError, SolverError

from gpuforge import processes
from gpuforge.channels import InfrastructureError, attempts, classify
from gpuforge.envs.envfile import EnvFile
from gpuforge.envs.mirrors import Mirrors
from gpuforge.envs.solve import driver_cuda, solve_specs, solver_message, virtual_packages
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import write_atomic

LOCK_DIR = "locks"
URL_RE = re.compile(r"url \((?P<url>[^)]+)\)")


@dataclass
class Locked:
    env: EnvFile
    channels: list[str]
    records: list[RepoDataRecord]


def channel_map(env: EnvFile, mirrors: Mirrors, mirror: str) -> dict[str, list[str]]:
    """Each channel name the env uses (listed or ``channel::``) -> its URLs behind ``mirror``."""
    names = env.channel_names + [d.channel for d in env.conda_deps if d.channel]
    return {name: mirrors.channel_urls(name, mirror, env.platform) for name in dict.fromkeys(names)}


def _cause(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[-1].removeprefix("Caused by: ") if lines else type(exc).__name__


def _solve_with_retries(
    env: EnvFile,
    listed: list[str],
    specs: list[str],
    virtual: list,
    gateway: rattler.Gateway | None,
    say: Callable[[str], None],
) -> list:
    """rattler's solve; a channel failure (403, 429, 5xx, a timeout) is retried with backoff
    and, when it persists, raised as InfrastructureError (host and status), not GatewayError."""
    for failed in attempts(say):
        try:
            return asyncio.run(
                rattler.solve(
                    [rattler.Channel(url) for url in listed],
                    specs,
                    gateway=gateway,
                    platforms=[rattler.Platform(env.platform), rattler.Platform("noarch")],
                    virtual_packages=virtual,
                    channel_relations="disabled",
                )
            )
        except GatewayError as exc:
            failure = classify(str(exc))
            if failure is None:
                raise
            failed(failure)
    raise AssertionError("unreachable")  # attempts() raises on the last failure


def solve_locked(
    env: EnvFile,
    channels: dict[str, list[str]],
    cuda: str | None = None,
    gateway: rattler.Gateway | None = None,
    say: Callable[[str], None] = print,
) -> Locked:
    """Solve ``env`` against real channels; GpuforgeError names what could not be reached."""
    listed = list(dict.fromkeys(url for name in env.channel_names for url in channels[name]))
    wants_cuda = driver_cuda(env, cuda)
    try:
        records = _solve_with_retries(
            env, listed, solve_specs(env, channels), virtual_packages(env, wants_cuda), gateway, say
        )
    except InfrastructureError as exc:
        raise GpuforgeError(f"{exc}. Nothing was written for this env", env.path) from None
    except GatewayError as exc:
        m = URL_RE.search(str(exc))
        where = m.group("url") if m else ", ".join(listed)
        raise GpuforgeError(
            f"cannot reach the channels: {where}: {_cause(exc)}. Lock files are solved against the "
            "real channels: run `nox -s lock` where they can be reached, or behind a mirror "
            "(`nox -s lock -- --mirror tuna`); the CI workflows refresh envs/locks/. "
            "Nothing was written",
            env.path,
        ) from None
    except SolverError as exc:
        raise GpuforgeError(
            f"no solution on the channels ({', '.join(listed)}): {solver_message(exc)}",
            env.path,
            env.deps_line,
        ) from None
    return Locked(env, listed, records)


def lock_texts(locked: Locked) -> dict[str, str]:
    """The lock file (rattler/pixi format) and the @EXPLICIT list for one env."""
    platform = LockPlatform(locked.env.platform)
    lock = LockFile([platform])
    lock.set_channels("default", [LockChannel(url) for url in locked.channels])
    for record in sorted(locked.records, key=lambda r: r.name.normalized):
        lock.add_conda_package("default", platform, record)
    with tempfile.TemporaryDirectory(prefix="gpuforge-lock-") as tmp:
        path = Path(tmp) / "env.lock"
        lock.to_path(path)
        lock_text = path.read_text(encoding="utf-8")
    explicit = [
        f"# {locked.env.path.name}, solved by `gpuforge envs lock` (py-rattler)",
        f"# platform: {locked.env.platform}",
        "@EXPLICIT",
    ]
    for record in sorted(locked.records, key=lambda r: r.name.normalized):
        md5 = record.md5.hex() if record.md5 else None
        explicit.append(f"{record.url}#{md5}" if md5 else str(record.url))
    stem = locked.env.path.stem
    return {f"{stem}.lock": lock_text, f"{stem}.explicit.txt": "\n".join(explicit) + "\n"}


@dataclass
class LockResult:
    written: list[Path]
    failed: dict[Path, str]  # env file -> why it was not locked


def lock_envs(
    envs: list[EnvFile],
    mirrors: Mirrors,
    mirror: str,
    out_dir: Path,
    cuda: str | None = None,
    gateway: rattler.Gateway | None = None,
    say: Callable[[str], None] = print,
) -> LockResult:
    """Solve each env on ``mirror``'s channels and write its lock files (atomically), each env
    on its own: the ones that fail are reported and the others still locked."""
    if mirror not in mirrors.mirrors:
        raise GpuforgeError(f"no mirror {mirror!r} (known: {', '.join(mirrors.mirrors)})", mirrors.path)
    result = LockResult([], {})
    for env in envs:
        try:
            locked = solve_locked(env, channel_map(env, mirrors, mirror), cuda, gateway, say)
        except GpuforgeError as exc:
            result.failed[env.path] = str(exc)
            continue
        # an env's .lock and .explicit.txt are written as one step: Ctrl-C, SIGTERM or SIGHUP
        # wait until both are (a few ms), so neither is left newer than the other
        with processes.signals_held():
            for name, text in lock_texts(locked).items():
                write_atomic(Path(out_dir) / name, text)
                result.written.append(Path(out_dir) / name)
    return result

"""Running a Python interpreter: Linux, or a Windows ``python.exe`` under Wine.

Every interpreter gpuforge examines or builds with is started through here: the probe, the
Theano configuration helper, the smoke checks, build-local's. A Windows python.exe named on
this Linux host runs under Wine, in a Wine prefix of its own (never the user's ``~/.wine``),
and the paths it is handed are named as Windows names them (drive ``Z:`` is ``/``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuforge import locations, processes
from gpuforge.errors import GpuforgeError

# Debian's wine64 (ci/apt-packages.txt) keeps its loader here, off PATH; elsewhere wine64 or wine
WINE = next(
    (
        Path(p)
        for p in ("/usr/lib/wine/wine64", shutil.which("wine64"), shutil.which("wine"))
        if p and Path(p).is_file()
    ),
    Path("/usr/lib/wine/wine64"),
)
WINE_INSTALL = "`apt-get install -y --no-install-recommends wine64` (as root; ci/apt-packages.txt)"


def host_platform() -> str:
    """The conda platform of this host: ``linux-64`` or ``win-64``."""
    return "win-64" if sys.platform.startswith("win") else "linux-64"


def default_python() -> str:
    """The interpreter a user would run: the first python on PATH (the activated environment's)."""
    return shutil.which("python") or shutil.which("python3") or sys.executable


def is_windows_python(python: str | Path) -> bool:
    """A Windows ``python.exe`` named on this (Linux) host: it runs under Wine."""
    return sys.platform != "win32" and str(python).lower().endswith(".exe")


def windows_path(path: str | Path) -> str:
    """How a Windows process under Wine names a Linux path (drive Z: is /)."""
    return "Z:" + str(Path(path).absolute()).replace("/", "\\")


def linux_path(path: str, prefix: Path) -> Path:
    """The Linux file behind a Windows path of ``prefix`` (its dosdevices name the drives)."""
    drive, _, rest = path.replace("\\", "/").partition(":")
    if len(drive) != 1 or not rest.startswith("/"):
        raise GpuforgeError(f"not an absolute Windows path: {path}")
    device = (prefix / "dosdevices" / f"{drive.lower()}:").resolve()
    return device / rest.lstrip("/")


def wine_prefix(python: str | Path, env: dict[str, str] | None = None) -> Path:
    """The Wine prefix a Windows python.exe runs in, never the user's ~/.wine:
    ``$GPUFORGE_WINEPREFIX``, else the prefix made with its environment (the windows
    target's ``wineprefix/``, whose ``C:\\users`` is that environment's Windows home),
    else one under the gpuforge cache."""
    chosen = (os.environ if env is None else env).get("GPUFORGE_WINEPREFIX")
    if chosen:
        return Path(chosen)
    own = Path(python).parent / "wineprefix"
    return own if own.is_dir() else locations.cache_dir() / "wine" / "prefix"


def python_command(python: str | Path) -> list[str]:
    """How to start ``python``: through Wine for a Windows python.exe."""
    if not is_windows_python(python):
        return [str(python)]
    if not WINE.is_file():
        raise GpuforgeError(f"{python} is a Windows Python and there is no Wine to run it: {WINE_INSTALL}")
    return [str(WINE), str(python)]


def script_path(python: str | Path, script: Path) -> str:
    """``script`` as ``python`` names it (a Windows path for a Windows python.exe)."""
    return windows_path(script) if is_windows_python(python) else str(script)


def wine_env(python: str | Path, env: dict[str, str] | None) -> dict[str, str] | None:
    """``env`` (None: this process's) plus Wine's settings when ``python`` runs under Wine.

    Wine passes the Linux environment into the Windows one, except what Windows itself
    sets (PATH, USERPROFILE, TEMP, APPDATA, LOCALAPPDATA): those come from the prefix.
    """
    if not is_windows_python(python):
        return env
    env = dict(os.environ if env is None else env)
    prefix = wine_prefix(python, env)
    try:
        prefix.mkdir(parents=True, exist_ok=True)  # Wine makes a prefix only in a folder that exists
    except OSError:
        pass  # Wine then names the folder it cannot use
    env["WINEPREFIX"] = str(prefix)
    env["WINEDEBUG"] = "-all"
    return env


def run_python(
    python: str | Path,
    args: Sequence[str | Path],
    *,
    timeout: float,
    what: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    script: Path | None = None,
    limit: str = "",
) -> subprocess.CompletedProcess[str]:
    """``python [script] ARGS`` (under Wine for a python.exe), its output as text.

    ``script`` is named as ``python`` names it. A missing or unrunnable interpreter, and one
    that runs past ``timeout`` (killed with everything it started), are one GpuforgeError
    naming the interpreter and ``what`` it was running (``limit`` says which limit it ran past:
    default the timeout in seconds).
    """
    if os.path.isdir(python):
        raise GpuforgeError("a directory, not an interpreter", python)
    try:
        start = python_command(python)
    except GpuforgeError as exc:
        raise GpuforgeError(exc.message, python) from None
    head = [script_path(python, script)] if script is not None else []
    try:
        return processes.run(
            [*start, *head, *map(str, args)],
            capture_output=True,
            text=True,
            errors="replace",
            cwd=cwd,
            env=wine_env(python, env),
            timeout=timeout,
        )
    except FileNotFoundError:
        raise GpuforgeError("no such interpreter", python) from None
    except PermissionError:
        raise GpuforgeError("not an executable interpreter", python) from None
    except OSError as exc:
        raise GpuforgeError(f"cannot run it: {exc.strerror or exc}", python) from None
    except processes.TimedOut as exc:
        if exc.waiting_on:  # a program it ran hangs, not the interpreter
            raise GpuforgeError(
                f"{what} did not finish in {limit or f'{timeout:g} s'} and was stopped: it was waiting "
                f"on {' -> '.join(exc.waiting_on)}, which hangs (run that by hand to see why)",
                python,
            ) from None
        raise GpuforgeError(
            f"{what} did not finish in {limit or f'{timeout:g} s'} and was stopped: the interpreter "
            "hangs, or its imports take longer",
            python,
        ) from None


def _pyenv_default() -> Path:
    try:
        return Path.home() / ".pyenv"
    except RuntimeError:  # no HOME: no pyenv either
        return Path("/nonexistent")


def pyenv_python(minor: str) -> str | None:
    """Path of pyenv's newest ``python<minor>`` (e.g. "3.7"), or None."""
    root = Path(os.environ.get("PYENV_ROOT") or _pyenv_default()) / "versions"
    found = sorted(
        root.glob(f"{minor}.*/bin/python{minor}"),
        key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()],
    )
    return str(found[-1]) if found else None


@dataclass(frozen=True)
class Interpreter:
    """An interpreter's ``major.minor`` and pointer size, read by running it."""

    path: str
    version: str
    bits: int

    @classmethod
    def probe(cls, path: str) -> Interpreter:
        if is_windows_python(path):
            return cls.read_windows(path)
        code = "import sys, struct; print('%d.%d' % sys.version_info[:2]); print(struct.calcsize('P') * 8)"
        proc = run_python(path, ["-c", code], timeout=60, what="reading its version")
        lines = proc.stdout.split()[-2:]  # a sitecustomize may print before
        if proc.returncode != 0 or len(lines) != 2 or not lines[1].isdigit():
            why = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}")[-200:]
            raise GpuforgeError(f"{path} did not run: {why}")
        return cls(path, lines[0], int(lines[1]))

    @classmethod
    def read_windows(cls, path: str) -> Interpreter:
        """A Windows python.exe, read without starting Wine (a start costs seconds): its PE
        header's machine type, and the version in the name of its ``python3X.dll``."""
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096)
        except OSError as exc:
            raise GpuforgeError(f"cannot read {path}: {exc.strerror}") from None
        pe = int.from_bytes(head[0x3C:0x40], "little") if head[:2] == b"MZ" else -1
        if not 0 <= pe <= len(head) - 6 or head[pe : pe + 4] != b"PE\0\0":
            raise GpuforgeError(f"{path} is not a Windows executable (no PE header)")
        machine = int.from_bytes(head[pe + 4 : pe + 6], "little")
        bits = {0x8664: 64, 0xAA64: 64, 0x14C: 32}.get(machine)
        digits = [d.stem[len("python") :] for d in Path(path).parent.glob("python3*.dll")]
        names = [n for n in digits if n.isdigit() and len(n) >= 2]  # python38.dll, not python3.dll
        if bits is None or not names:
            raise GpuforgeError(
                f"{path}: not a CPython for Windows (machine {machine:#x}, no python3X.dll beside it)"
            )
        return cls(path, f"{names[0][0]}.{names[0][1:]}", bits)

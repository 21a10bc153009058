"""The gpuforge command line.

Exit status, the same for every command: 0 clean, 1 problems found (the check ran and
reports them), 2 bad input or usage (one line naming the file and line; nothing written),
130 interrupted (Ctrl-C), 143 stopped by SIGTERM, 129 by SIGHUP (one line, no traceback).
A closed standard output, or a reader that went away (`| head -1`), changes nothing: the
command runs to its end and exits with its own status. An unexpected exception is a bug in
gpuforge: one line and status 70 (EX_SOFTWARE), or its traceback with GPUFORGE_TRACEBACK=1.
"""

from __future__ import annotations

import argparse
import os
import sys

from gpuforge import __version__, processes, stopped
from gpuforge.ci import cli as ci_cli
from gpuforge.doctor import cli as doctor_cli
from gpuforge.envs import cli as envs_cli
from gpuforge.errors import GpuforgeError
from gpuforge.recipes import cli as recipes_cli
from gpuforge.smoke import cli as smoke_cli

EXIT_BUG = 70  # sysexits.h EX_SOFTWARE: never expected, the fuzz suite checks it stays unseen


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuforge", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"gpuforge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for concern in (recipes_cli, smoke_cli, envs_cli, ci_cli, doctor_cli):
        concern.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GpuforgeError as exc:
        print(f"gpuforge: error: {exc}", file=sys.stderr)
        return 2
    except processes.TimedOut as exc:  # a program with no more specific handler hung
        print(f"gpuforge: error: {exc.line()}: run it by hand to see where it waits", file=sys.stderr)
        return 2
    except processes.Interrupted as exc:
        processes.stop()
        stopped.say(exc.message)
        return exc.exit_status
    except KeyboardInterrupt:
        processes.stop()
        stopped.say("interrupted")
        return 130
    except OSError as exc:  # a file the command names (an output folder, an interpreter)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gpuforge: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - one line for the user, the traceback on request
        if os.environ.get("GPUFORGE_TRACEBACK"):
            raise
        print(
            f"gpuforge: internal error (a bug, please report it): {type(exc).__name__}: {exc} "
            "(GPUFORGE_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_BUG


def never_unencodable() -> None:
    """Write characters the output's encoding lacks as ``\\uXXXX`` instead of failing.

    On Windows, Python writes a pipe or a file (``gpuforge doctor > out.txt``, a CI log, a
    parent process reading the output) in the ANSI code page, e.g. cp1252: a path or a
    pasted line with a letter outside it (``C:\\Users\\张伟``) stopped the command with
    UnicodeEncodeError after half its output (``strict``; ``surrogateescape`` under Wine's
    C locale fails the same way). The console itself takes any character.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and stream.errors in ("strict", "surrogateescape"):
            reconfigure(errors="backslashreplace")


def run() -> None:
    """The console entry point (`gpuforge`, `python -m gpuforge`): main(), then exit.

    Where py-rattler was used (envs solve/lock/check), the process ends with os._exit
    after flushing its output, skipping interpreter finalization: rattler's tokio worker
    threads cannot be shut down (pyo3-async-runtimes issue #40) and one may still be
    inside the asyncio completion callback of a solve that has already returned; on
    CPython < 3.14 finalization makes such a thread exit with pthread_exit while it holds
    Python objects (cpython gh-87135), which aborts the process ("Fatal Python error:
    PyGILState_Release ... Python runtime state: finalizing") instead of exiting 2.
    Every file gpuforge writes is closed and fsync'ed before main() returns.
    """
    guard_streams()
    try:
        os.getcwd()
    except FileNotFoundError:
        print(
            "gpuforge: error: the current folder no longer exists (deleted?): cd to one that does",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    processes.install_signal_handlers()
    try:
        code = main()
    except KeyboardInterrupt as exc:  # a signal outside main()'s handlers (building the parser)
        processes.stop()
        code = getattr(exc, "exit_status", 130)
        stopped.say(getattr(exc, "message", "interrupted"))
    processes.ignore_signals()  # the run is over: a late signal changes nothing
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a closed stream
            pass
    if "rattler" not in sys.modules:
        raise SystemExit(code)
    os._exit(code)


class ReaderGone:
    """A standard stream whose reader may go away (`| head -1`): what it no longer takes is
    dropped (the descriptor then points at /dev/null), and the command goes on."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def _gone(self) -> None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # type: ignore[attr-defined]
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)  # type: ignore[attr-defined]
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()  # type: ignore[attr-defined]
        except BrokenPipeError:
            self._gone()
            try:
                self._stream.flush()  # type: ignore[attr-defined]
            except OSError:
                pass

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def guard_streams() -> None:
    """A closed stdin, stdout or stderr (`>&-`) becomes /dev/null, so that neither print()
    nor a file opened later (which would get descriptor 1) nor a child's output is
    affected; stdout and stderr survive a reader that goes away."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:  # closed: give the descriptor to /dev/null
            devnull = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
            setattr(sys, name, open(fd, mode, encoding="utf-8", errors="replace", closefd=False))
    never_unencodable()  # a non-ASCII path on an ASCII console (LC_ALL=C, UTF-8 mode off) too
    sys.stdout = ReaderGone(sys.stdout)
    sys.stderr = ReaderGone(sys.stderr)

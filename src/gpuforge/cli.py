"""The gpuforge command line.

Exit status, the same for every command: 0 clean, 1 problems found (the check ran and
reports them), 2 bad input or usage (one line naming the file and line; nothing written),
130 interrupted. An unexpected exception is a bug in gpuforge: one line and status 70
(EX_SOFTWARE), or its traceback with GPUFORGE_TRACEBACK=1.
"""

from __future__ import annotations

import argparse
import os
import sys

from gpuforge import __version__
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
    except BrokenPipeError:  # `gpuforge ... | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("gpuforge: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a file the command names (an output folder, an interpreter)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gpuforge: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - one line for the user, the traceback on request
        if os.environ.get("GPUFORGE_TRACEBACK"):
            raise
        print(f"gpuforge: internal error (a bug, please report it): {type(exc).__name__}: {exc} "
              "(GPUFORGE_TRACEBACK=1 shows the traceback)", file=sys.stderr)
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
    never_unencodable()
    code = main()
    if "rattler" not in sys.modules:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a closed stream
            pass
    os._exit(code)

"""Command-line values checked at the door: every numeric option and every output folder is
validated when the arguments are parsed, so a bad one is a usage error (exit 2, one line naming
the option) before anything runs, never a traceback or a wrong verdict after a long run.

argparse calls these as ``type=``: a ValueError/ArgumentTypeError becomes
``gpuforge <command>: error: argument --timeout: ...``.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path


def seconds(text: str) -> float:
    """A time limit in seconds: a finite number above 0 (``nan``, ``inf``, 0 and -1 refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit is a finite number of seconds above 0")
    return value


def count(minimum: int = 1) -> Callable[[str], int]:
    """A whole number at least ``minimum`` (``--jobs``, ``--iters``, ``--steps``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r}: at least {minimum}")
        return value

    parse.__name__ = "count"  # argparse names the type in its own messages
    return parse


def output_folder(text: str) -> Path:
    """A folder to write into: made if missing, but not a file or something unwritable: refused
    when parsed, not after the run whose results it would hold."""
    path = Path(text)
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: exists and is not a folder (results would not fit there)")
    if existing is not None and existing.is_dir() and not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: {existing} is not writable")
    if existing is not None and not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {existing} is a file, not a folder")
    return path

"""The one error type the CLI turns into a one-line message (never a traceback)."""

from __future__ import annotations

import os
from pathlib import Path


class GpuforgeError(Exception):
    """A user-facing error, optionally located at ``path:line``."""

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return where + self.message


class InputError(GpuforgeError):
    """A file that cannot be used at all: not a regular file, too large, not text, not
    parsable, or of the wrong shape. Bad input (exit 2) wherever it turns up, also in the
    checkers that otherwise collect what they find (``envs check``, ``recipes lint``)."""

"""Writing user files safely: atomic replace, and a backup of what is replaced."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str, backup: bool = True) -> Path | None:
    """Write ``text`` to ``path`` atomically; keep the old file as ``<name>.bak``.

    Returns the backup's path, or None when nothing was replaced (a new file,
    or the same content). A failure leaves the old file untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = None
    if path.exists():
        if path.read_text(encoding="utf-8") == text:
            return None
        if backup:
            saved = path.with_name(path.name + ".bak")
            shutil.copy2(path, saved)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return saved

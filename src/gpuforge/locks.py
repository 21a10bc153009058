"""File locks: two gpuforge runs on one cache or one HOME take turns instead of
corrupting each other. The one that waits says so ("waiting for ..."), on stderr.

POSIX flock(2): the kernel drops the lock when its last holder ends, so a killed run
never leaves a stale lock. A lock taken with ``inherit=True`` is also held by the
children started while it is held (processes.popen passes its fd on): a rerun waits
for what a SIGKILLed run left running (pip still writing into an environment) instead
of deleting the folder under it. Where there is no flock (Windows) runs do not wait.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gpuforge import processes

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def _stderr(message: str) -> None:
    if sys.stderr is not None:
        print(message, file=sys.stderr, flush=True)


class FileLock:
    """An flock on ``path``: a lock file (made if missing), or a folder."""

    def __init__(
        self,
        path: Path,
        what: str,
        say: Callable[[str], None] = _stderr,
        inherit: bool = False,
        folder: bool = False,
    ) -> None:
        self.path, self.what, self.say, self.inherit = Path(path), what, say, inherit
        self.folder = folder  # lock a folder (made if missing), not a lock file
        self.fd: int | None = None
        self.shared: bool | None = None

    def acquire(self, shared: bool = False) -> FileLock:
        """Take (or convert to) a shared or exclusive lock; wait with a message if taken."""
        if fcntl is None or self.shared == shared:
            return self
        if self.fd is None:
            try:
                if self.folder:
                    self.path.mkdir(parents=True, exist_ok=True)
                    self.fd = os.open(self.path, os.O_RDONLY)
                else:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:  # a read-only folder: nothing can be written there anyway
                return self
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(self.fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            self.say(
                f"waiting for {self.what} (another gpuforge run, or what a stopped one left "
                f"running, holds {self.path})"
            )
            while True:  # polled: an interrupted run stops waiting at once
                processes.check_stop()
                try:
                    fcntl.flock(self.fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(0.2)
        self.shared = shared
        if self.inherit:
            fds = getattr(processes._INHERIT, "fds", ())
            processes._INHERIT.fds = tuple(dict.fromkeys((*fds, self.fd)))
        return self

    def release(self) -> None:
        """Close the fd (children that inherited it keep the lock until they end)."""
        if self.fd is not None:
            fds = getattr(processes._INHERIT, "fds", ())
            processes._INHERIT.fds = tuple(f for f in fds if f != self.fd)
            os.close(self.fd)
            self.fd, self.shared = None, None

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

"""Child processes and interruption: every program gpuforge starts goes through here.

A child runs in its own process group, so that a timeout or an interruption ends it and
everything it started (pip's builds, g++, Wine's helpers), not just the direct child.
On SIGINT (Ctrl-C), SIGTERM or SIGHUP the main thread gets ``Interrupted``; ``stop()``
then kills the running groups and refuses new children, so worker threads end at once
instead of finishing their targets. SIGKILL cannot be caught: what a killed run made
half-way is never trusted by the next run (completion marks written last), and a
child holding a build lock (``pass_fds``) keeps it until it ends, so a rerun waits for it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

_RUNNING: set[subprocess.Popen] = set()
_GUARD = threading.Lock()
STOPPING = threading.Event()
_INHERIT = threading.local()  # lock fds the current thread's children keep (locks.py)
POSIX = os.name == "posix"


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP: the run stops; the exit status is 128 + the signal."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum

    @property
    def message(self) -> str:
        return (
            "interrupted"
            if self.signum == signal.SIGINT
            else f"stopped by {signal.Signals(self.signum).name}"
        )


def _on_signal(signum: int, frame: Any) -> None:
    stop()
    raise Interrupted(signum)


def install_signal_handlers() -> None:
    """SIGINT, SIGTERM and SIGHUP raise Interrupted in the main thread (after stop())."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _on_signal)
    if sys.unraisablehook is not _unraisable:
        _unraisable.default = sys.unraisablehook  # type: ignore[attr-defined]
        sys.unraisablehook = _unraisable


def _unraisable(args: Any) -> None:
    """Python drops an exception raised where it cannot propagate (a weakref callback of
    the import system, a __del__) and prints "Exception ignored": a signal that landed
    there is delivered again, to be raised where it can."""
    signum = getattr(args.exc_value, "signum", None)
    if isinstance(args.exc_value, (KeyboardInterrupt, SystemExit)) and signum:
        timer = threading.Timer(0.01, os.kill, (os.getpid(), signum))  # not here: this hook is
        timer.daemon = True  # still inside the callback
        timer.start()
        return
    _unraisable.default(args)  # type: ignore[attr-defined]


_unraisable.default = sys.__unraisablehook__  # type: ignore[attr-defined]


def ignore_signals() -> None:
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait (blocked) until the block ends: for writes that
    belong together. SIGKILL cannot wait."""
    held = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def stop() -> None:
    """Kill every running child's process group; no new child starts after this."""
    STOPPING.set()
    with _GUARD:
        running = list(_RUNNING)
    for proc in running:
        kill(proc)


def check_stop() -> None:
    """In a worker thread: end its work when the run is being stopped."""
    if STOPPING.is_set():
        raise Interrupted()


def kill(proc: subprocess.Popen) -> None:
    """Kill ``proc`` and its process group (everything it started)."""
    try:
        if POSIX:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def inherited_fds() -> tuple[int, ...]:
    return tuple(getattr(_INHERIT, "fds", ()))


def popen(cmd: list[str], **kwargs: Any) -> subprocess.Popen:
    """Start ``cmd`` in its own process group (registered: ``stop()`` kills it)."""
    check_stop()
    if POSIX:
        kwargs.setdefault("start_new_session", True)
        fds = inherited_fds()
        if fds:
            kwargs.setdefault("pass_fds", fds)
    proc = subprocess.Popen(cmd, **kwargs)
    with _GUARD:
        _RUNNING.add(proc)
    if STOPPING.is_set():  # stop() ran while it started
        kill(proc)
    return proc


def forget(proc: subprocess.Popen) -> None:
    with _GUARD:
        _RUNNING.discard(proc)


def run(
    cmd: list[str],
    *,
    timeout: float | None = None,
    capture_output: bool = False,
    input: str | bytes | None = None,
    **kwargs: Any,
) -> subprocess.CompletedProcess:
    """``subprocess.run`` in its own process group: a timeout kills the whole group
    (then TimeoutExpired, as subprocess.run), an interruption too (then Interrupted)."""
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    proc = popen(cmd, **kwargs)
    try:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            kill(proc)
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(cmd, exc.timeout, out, err) from None
        except BaseException:
            kill(proc)
            proc.wait()
            raise
    finally:
        forget(proc)
    check_stop()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

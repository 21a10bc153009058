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
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gpuforge.errors import GpuforgeError
from gpuforge.inside import proctree

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
    """Kill ``proc`` and its process group (everything it started), and let the kill land."""
    proctree.kill_group(proc)


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


CHILD_TIMEOUT_ENV = "GPUFORGE_CHILD_TIMEOUT"  # seconds: caps every child's own time limit


def time_limit(timeout: float) -> float:
    """``timeout``, capped by $GPUFORGE_CHILD_TIMEOUT (a CI job's or a test's shorter patience)."""
    text = os.environ.get(CHILD_TIMEOUT_ENV)
    if not text:
        return timeout
    try:
        cap = float(text)
    except ValueError:
        cap = float("nan")
    if not (0 < cap < float("inf")):
        raise GpuforgeError(f"{CHILD_TIMEOUT_ENV}={text!r}: a number of seconds above 0")
    return min(timeout, cap)


class TimedOut(subprocess.TimeoutExpired):
    """A child past its time limit, killed with its whole process group; ``waiting_on`` names
    the programs it was waiting on when it was stopped (empty: the child itself hung)."""

    def __init__(self, cmd: list[str], timeout: float, output: Any, stderr: Any, waiting: list[str]):
        super().__init__(cmd, timeout, output, stderr)
        self.waiting_on = waiting

    @property
    def hung(self) -> str:
        """What hung, for one line: ``g++ -dumpversion (run by python -m ...)``."""
        words = [str(w) for w in self.cmd]
        own = " ".join([Path(words[0]).name, *words[1:3]])[:120] + (" ..." if len(words) > 3 else "")
        if self.waiting_on:  # the child is the messenger: its program and script are enough
            own = " ".join(Path(w).name for w in words[:2]) + (" ..." if len(words) > 2 else "")
        if not self.waiting_on:
            return own
        return f"{' -> '.join(self.waiting_on)} (started by {own})"

    def line(self) -> str:
        return (
            f"{self.hung} did not finish in {self.timeout:.0f} s and was stopped with everything it started"
        )


@contextlib.contextmanager
def deadline(proc: subprocess.Popen, timeout: float) -> Iterator[None]:
    """For a child read as it runs (``popen``): past ``timeout`` (capped as in ``run``) its group
    is killed, so the reading ends, and TimedOut is raised when the block ends."""
    limit = time_limit(timeout)
    fired: list[list[str]] = []

    def expire() -> None:
        fired.append(proctree.waiting_on(proc.pid) if POSIX else [])
        kill(proc)

    timer = threading.Timer(limit, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
    if fired:
        raise TimedOut([str(a) for a in proc.args], limit, None, None, fired[0])  # type: ignore[union-attr]


def run(
    cmd: list[str],
    *,
    timeout: float,
    capture_output: bool = False,
    input: str | bytes | None = None,
    progress: Callable[[float], None] | None = None,
    progress_every: float = 30.0,
    **kwargs: Any,
) -> subprocess.CompletedProcess:
    """``subprocess.run`` in its own process group, with a time limit every caller states
    (capped by $GPUFORGE_CHILD_TIMEOUT): past it, the whole group is killed and TimedOut names
    what it was waiting on; an interruption kills it too (then Interrupted). ``progress(seconds)``
    is called every ``progress_every`` seconds while the child runs (a long step is never
    silent)."""
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    limit = time_limit(timeout)
    start = time.monotonic()
    proc = popen(cmd, **kwargs)
    try:
        while True:
            left = limit - (time.monotonic() - start)
            try:
                out, err = proc.communicate(input, timeout=min(left, progress_every) if progress else left)
                break
            except subprocess.TimeoutExpired:
                if progress is not None and time.monotonic() - start < limit:
                    progress(time.monotonic() - start)
                    continue
                waiting = proctree.waiting_on(proc.pid) if POSIX else []
                kill(proc)
                out, err = proc.communicate()
                raise TimedOut(cmd, limit, out, err, waiting) from None
    except BaseException:
        kill(proc)
        proc.wait()
        raise
    finally:
        forget(proc)
    check_stop()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

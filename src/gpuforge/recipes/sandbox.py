"""Recipe Jinja as foreign data: rendered in Jinja's sandbox, with its time and size bounded
while it renders.

A meta.yaml may come from anyone (a pull request, a feedstock fork, an artifact), and `recipes
render`, `recipes lint` and `ci matrix` render it. Jinja's SandboxedEnvironment refuses the
attributes that reach Python's internals (``lipsum.__globals__``, ``__class__.__mro__``) and
ranges over MAX_RANGE (100,000) items; on top of it:

- ``os`` in the template is a stand-in with what recipes use (``os.environ``, ``os.path.join``,
  ``os.sep`` ...), not the os module (``os.system`` is undefined);
- arithmetic and repetition that would build a value over MAX_VALUE_CHARS (``"x" * 10**9``,
  ``10**10**10``) are refused before they are computed;
- the output is counted as it is produced and refused past MAX_OUTPUT_CHARS;
- the whole render ends after RENDER_SECONDS (a timer signal in the main thread; elsewhere
  every call, operator and output chunk checks the clock).
"""

from __future__ import annotations

import math
import os
import posixpath
import signal
import threading
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jinja2.sandbox import SandboxedEnvironment

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import MAX_INPUT_BYTES

MAX_OUTPUT_CHARS = MAX_INPUT_BYTES  # a rendering is no larger than the input limit
MAX_VALUE_CHARS = MAX_INPUT_BYTES  # nor is one value built while rendering
RENDER_SECONDS = 10.0  # our recipes render in milliseconds


class RenderLimit(GpuforgeError):
    """A recipe's Jinja went past a bound (time, output, a value's size)."""


def safe_os(environ: dict[str, str]) -> types.SimpleNamespace:
    """What conda-build recipes use of ``os`` in Jinja, and nothing that runs anything."""
    path = types.SimpleNamespace(
        join=posixpath.join, basename=posixpath.basename, dirname=posixpath.dirname,
        splitext=posixpath.splitext, sep=os.sep,
    )
    return types.SimpleNamespace(environ=dict(environ), getenv=environ.get, path=path, sep=os.sep,
                                 pathsep=os.pathsep, linesep=os.linesep, name=os.name)


def _size(value: Any) -> int:
    if isinstance(value, (str, bytes, list, tuple)):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() // 3  # about its decimal digits
    return 0


class RecipeSandbox(SandboxedEnvironment):
    """Jinja's sandbox with a deadline and size bounds (see the module's docstring)."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.deadline = float("inf")

    def _check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise RenderLimit(f"its Jinja ran past {RENDER_SECONDS:g} s: refused (a loop too long?)")

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        self._check_time()
        if operator == "**" and isinstance(left, (int, float)) and isinstance(right, (int, float)):
            if abs(left) > 1 and right * math.log10(abs(left)) > MAX_VALUE_CHARS:  # its digits
                raise RenderLimit(f"its Jinja computes {left!r} ** {right!r}: too large, refused")
        elif operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(n, int) and _size(seq) * max(n, 0) > MAX_VALUE_CHARS and not isinstance(seq, int):
                    raise RenderLimit(f"its Jinja repeats a value {n} times: over {MAX_VALUE_CHARS} characters, refused")
            if isinstance(left, int) and isinstance(right, int) and _size(left) + _size(right) > MAX_VALUE_CHARS:
                raise RenderLimit("its Jinja multiplies numbers too large: refused")
        elif operator == "+" and _size(left) + _size(right) > MAX_VALUE_CHARS:
            raise RenderLimit(f"its Jinja builds a value over {MAX_VALUE_CHARS} characters: refused")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        __self._check_time()
        for value in (*args, *kwargs.values()):  # center(10**9), "x".ljust(...), format widths
            if isinstance(value, int) and not isinstance(value, bool) and value > MAX_VALUE_CHARS:
                raise RenderLimit(f"its Jinja calls {getattr(__obj, '__name__', 'a function')} with {value}: "
                                  "too large, refused")
        return super().call(__context, __obj, *args, **kwargs)

    def render_bounded(self, source: str, context: dict[str, Any]) -> str:
        """``source`` rendered with ``context`` within the bounds."""
        self.deadline = time.monotonic() + RENDER_SECONDS
        template = self.from_string(source)
        parts, size = [], 0
        with _alarm(RENDER_SECONDS):
            for chunk in template.generate(context):
                size += len(chunk)
                if size > MAX_OUTPUT_CHARS:
                    raise RenderLimit(f"its Jinja output is over {MAX_OUTPUT_CHARS} characters: refused")
                self._check_time()
                parts.append(chunk)
        return "".join(parts)


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """RenderLimit raised in the main thread after ``seconds`` (POSIX), whatever the template is
    doing; a no-op elsewhere (the sandbox's own clock checks still hold)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise RenderLimit(f"its Jinja ran past {seconds:g} s: refused (a loop too long?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

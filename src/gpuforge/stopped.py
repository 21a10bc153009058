"""The one line a stopped run prints (`gpuforge: stopped by SIGTERM`), said once.

A signal can reach more than one handler in one run: the early handler of ``__main__`` says
it, and where it landed in a place Python cannot raise from (an import's weakref callback) it
is delivered again, to whichever handler is in place by then (processes' ``Interrupted``, the
CLI's own). Each of them says it through here, so the user reads it once. Imported by
``__main__`` before its handlers are installed: nothing but ``sys``.
"""

import sys

_said = False


def say(message: str) -> None:
    """Print ``gpuforge: MESSAGE`` on stderr, the first time only."""
    global _said
    if _said:
        return
    _said = True
    print(f"gpuforge: {message}", file=sys.stderr)

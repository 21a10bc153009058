"""`gpuforge` and `python -m gpuforge`: signals handled before anything else is imported,
so a Ctrl-C or SIGTERM in the first moment is one line too, never a traceback. (Only the
interpreter's own start-up, before this file runs, is out of gpuforge's reach.)"""

import _signal  # the C module, at once: signal.py imports enum first, which takes a while
import sys

from gpuforge import stopped  # the package is imported already; this is one small file

EARLY = {
    getattr(_signal, name): what
    for name, what in (
        ("SIGINT", "interrupted"),
        ("SIGTERM", "stopped by SIGTERM"),
        ("SIGHUP", "stopped by SIGHUP"),
    )
    if hasattr(_signal, name)
}


class _StoppedEarly(SystemExit):
    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def _stopped_early(signum: int, frame: object) -> None:
    stopped.say(EARLY[signum])
    _signal.signal(signum, _again)  # delivered again (see below): said once
    raise _StoppedEarly(signum)


def _again(signum: int, frame: object) -> None:
    raise _StoppedEarly(signum)


def _unraisable(args: object) -> None:
    """A signal that landed where Python cannot raise (a weakref callback of the import
    system: "Exception ignored") is delivered again, to be raised where it can: the early
    handler's, and processes' Interrupted once its handlers are in place (both carry signum)."""
    signum = getattr(getattr(args, "exc_value", None), "signum", None)
    if isinstance(signum, int):
        # _thread (C), not threading: the signal may have landed while threading.py was being
        # imported, and a partly imported threading has no Timer yet (an AttributeError here)
        import _thread

        _thread.start_new_thread(_deliver_again, (signum,))  # outside the callback
        return
    sys.__unraisablehook__(args)  # type: ignore[arg-type]


def _deliver_again(signum: int) -> None:
    import os  # the interpreter's start-up imported it whole; time is built in
    import time

    time.sleep(0.01)
    os.kill(os.getpid(), signum)


def main() -> None:
    try:
        sys.unraisablehook = _unraisable
        for signum in EARLY:
            _signal.signal(signum, _stopped_early)
        from gpuforge import processes

        processes.install_signal_handlers()
        from gpuforge.cli import run

        run()
    except BaseException as exc:  # while importing, or outside main()'s own handlers
        signalled = _signal_in(exc)
        if signalled is None and type(exc) is KeyboardInterrupt:
            # Python's own SIGINT handler, before the early handler was in place (a clean-clone
            # CI run saw a Ctrl-C land in main()'s first line: a traceback and death by SIGINT)
            stopped.say(EARLY[_signal.SIGINT])
            raise SystemExit(128 + _signal.SIGINT) from None
        if signalled is None:
            raise
        message = getattr(signalled, "message", None)
        if message:  # processes' Interrupted (the early handler's has none: it said it)
            stopped.say(message)
        raise SystemExit(128 + int(getattr(signalled, "signum", 0))) from None


def _signal_in(exc: BaseException | None) -> BaseException | None:
    """The signal's exception, also where Python wrapped it (a RuntimeError "Error calling
    __set_name__" when it landed in a class body being built)."""
    for _ in range(8):
        if exc is None or getattr(exc, "signum", None):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


if __name__ == "__main__":
    main()

"""processes.py: every child has a time limit and a name; a hang ends with what it waited on."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import pytest

from gpuforge import arguments, processes
from gpuforge.errors import GpuforgeError

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc (Linux)")


@linux_only
def test_a_hang_names_what_the_child_waited_on_and_ends_its_group():
    # the child (bash) waits on the program that hangs; an odd duration, so that no other
    # `sleep` on the machine (a shell's `sleep 300` beside the tests) is taken for a leftover
    hang = "sleep 307.25"
    start = time.monotonic()
    with pytest.raises(processes.TimedOut) as caught:
        processes.run(["bash", "-c", f"{hang} & wait"], timeout=1, capture_output=True)
    assert time.monotonic() - start < 10
    assert caught.value.waiting_on == [hang]
    assert caught.value.line() == (
        f"{hang} (started by bash -c ...) did not finish in 1 s and was stopped with everything it started"
    )
    alive = subprocess.run(["pgrep", "-f", f"^{hang}$"], capture_output=True, text=True).stdout.split()
    assert alive == []


def test_the_environment_caps_every_time_limit(monkeypatch):
    monkeypatch.setenv(processes.CHILD_TIMEOUT_ENV, "0.5")
    start = time.monotonic()
    with pytest.raises(processes.TimedOut) as caught:
        processes.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=600)
    assert caught.value.timeout == 0.5 and time.monotonic() - start < 10
    assert caught.value.waiting_on == []  # the child itself hung
    for bad in ("0", "-1", "nan", "inf", "soon"):
        monkeypatch.setenv(processes.CHILD_TIMEOUT_ENV, bad)
        with pytest.raises(GpuforgeError, match=processes.CHILD_TIMEOUT_ENV):
            processes.run([sys.executable, "-c", "pass"], timeout=5)


def test_a_long_step_says_it_is_still_running():
    seen: list[float] = []
    proc = processes.run(
        [sys.executable, "-c", "import time; time.sleep(1.3)"],
        timeout=30,
        progress=seen.append,
        progress_every=0.4,
    )
    assert proc.returncode == 0
    assert len(seen) >= 2 and seen == sorted(seen)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "0", "-1", "soon", ""])
def test_seconds_refuses_what_is_no_time_limit(text):
    with pytest.raises(argparse.ArgumentTypeError):
        arguments.seconds(text)


def test_seconds_and_counts_that_are_fine():
    assert arguments.seconds("0.5") == 0.5
    assert arguments.count(1)("3") == 3
    for bad in ("0", "-3", "2.5", "many"):
        with pytest.raises(argparse.ArgumentTypeError):
            arguments.count(1)(bad)


def test_output_folder_refuses_a_file_before_the_run(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(argparse.ArgumentTypeError, match="not a folder"):
        arguments.output_folder(str(tmp_path / "a-file"))
    with pytest.raises(argparse.ArgumentTypeError, match="is a file"):
        arguments.output_folder(str(tmp_path / "a-file" / "below"))
    assert arguments.output_folder(str(tmp_path / "new" / "folder")) == tmp_path / "new" / "folder"


def delivered_again() -> list[int]:
    """The signals the entry point's unraisable hook delivered again for an Interrupted(SIGUSR1)
    it could not raise (waiting up to 5 s)."""
    import signal
    import time
    import types

    import gpuforge.__main__ as entry
    from gpuforge.processes import Interrupted

    got: list[int] = []
    before = signal.signal(signal.SIGUSR1, lambda signum, frame: got.append(signum))
    try:
        entry._unraisable(types.SimpleNamespace(exc_value=Interrupted(signal.SIGUSR1)))
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        signal.signal(signal.SIGUSR1, before)
    return got


def test_a_signal_python_could_not_raise_is_delivered_again():
    """A Ctrl-C landing in a weakref callback of the import system, once processes' handlers are
    in place, is "Exception ignored" to Python; the entry point's hook delivers it again, to be
    raised where it can (a clean-clone CI run saw `theanorc migrate` finish exit 0 after it)."""
    import signal

    assert delivered_again() == [signal.SIGUSR1]


def test_the_signal_is_delivered_again_while_threading_is_half_imported(monkeypatch):
    """The signal may land while threading.py is being imported: the hook must not need its
    names (a clean-clone CI run saw `AttributeError: partially initialized module` at
    threading.Timer, printed from the hook, and the run went on to exit 0)."""
    import signal
    import sys
    import types

    monkeypatch.setitem(sys.modules, "threading", types.ModuleType("threading"))  # no Timer yet
    assert delivered_again() == [signal.SIGUSR1]


def test_a_ctrl_c_before_the_early_handler_is_one_line(tmp_path):
    """A SIGINT that lands in main()'s first statements, while Python's own handler is still in
    place, is `interrupted` and exit 130, not a KeyboardInterrupt traceback and death by SIGINT
    (a clean-clone CI run of test_theanorc_killed_at_random_moments[migrate-SIGINT] saw that).
    The moment is made certain: the first handler installed raises what Python's would."""
    code = (
        "import _signal\n"
        "import gpuforge.__main__ as m\n"
        "real = _signal.signal\n"
        "def landed(signum, handler):\n"
        "    _signal.signal = real\n"
        "    raise KeyboardInterrupt\n"
        "_signal.signal = landed\n"
        "m.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr == "gpuforge: interrupted\n", done.stderr


def test_a_stop_is_said_once_however_many_handlers_see_it(monkeypatch, capsys):
    """The early handler's line and the line of the handler a re-delivered signal reaches
    (processes' Interrupted, the CLI's): one line (a clean-clone run's fault case saw two)."""
    from gpuforge import stopped

    monkeypatch.setattr(stopped, "_said", False)
    stopped.say("stopped by SIGTERM")
    stopped.say("stopped by SIGTERM")
    stopped.say("interrupted")
    assert capsys.readouterr().err == "gpuforge: stopped by SIGTERM\n"

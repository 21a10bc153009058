"""The fault suite's harness: gpuforge run as a real process, faults from outside.

Every case starts ``python -m gpuforge`` in its own session (so a signal can go to the
process alone, "->pid", or to its whole group, "->group", as a terminal's Ctrl-C does),
injects its fault with real files, real signals and real interpreters, and records one
row: the exit status, whether a traceback showed, the state left on disk, whether a rerun
recovered. `nox -s faults` runs every case and writes the rows as a table
(reports/faults/faults.md and .json, $GPUFORGE_FAULTS_REPORT); `nox -s tests` runs the
cases not marked ``LONG``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest
from conftest import cli_env
from faults.table import Row, table

FULL = os.environ.get("GPUFORGE_FAULTS") == "all"
REPORT = os.environ.get("GPUFORGE_FAULTS_REPORT")
TRACEBACK_MARKS = ("Traceback (most recent call last)", "internal error (a bug")


ROWS: list[Row] = []


LONG = pytest.mark.skipif(
    not FULL,
    reason="a long fault case (cold environments, real kills): `nox -s faults` runs it (GPUFORGE_FAULTS=all)",
)


def write_table() -> None:
    """reports/faults/faults.md and faults.json ($GPUFORGE_FAULTS_REPORT), when asked for."""
    if not REPORT or not ROWS:
        return
    out = Path(REPORT)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faults.json").write_text(json.dumps([asdict(r) for r in ROWS], indent=1) + "\n")
    (out / "faults.md").write_text(table(ROWS))


@pytest.fixture(scope="session")
def fault_table():
    yield ROWS
    write_table()


@pytest.fixture
def record(fault_table):
    """record(family, case, exit, output, state, rerun, seconds, ok): one row of the table;
    ``ran=`` a gpuforge run gives exit, output and seconds."""

    def add(
        family: str,
        case: str,
        *,
        state: str,
        rerun: str,
        ok: bool,
        ran: Ran | None = None,
        exit: object = None,
        output: str = "",
        seconds: float = 0.0,
    ) -> None:
        if ran is not None:
            exit, output, seconds = ran.code, ran.output, ran.seconds
        tb = any(mark in output for mark in TRACEBACK_MARKS)
        ROWS.append(Row(family, case, str(exit), tb, state, rerun, seconds, ok and not tb))

    return add


@dataclass
class Ran:
    code: int | None
    out: str
    err: str
    seconds: float

    @property
    def output(self) -> str:
        return self.out + self.err

    def ends_in_one_line(self) -> bool:
        """Its own progress lines, then gpuforge's one closing line (no traceback)."""
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        return (
            bool(lines)
            and lines[-1].startswith("gpuforge: ")
            and sum(ln.startswith("gpuforge: ") for ln in lines) == 1
        )

    def one_line(self) -> bool:
        """Exactly one line on stderr, and it is gpuforge's."""
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        return len(lines) == 1 and lines[0].startswith("gpuforge: ")


class Gpuforge:
    """A gpuforge process in its own session; its output goes to files (never blocks)."""

    def __init__(
        self,
        args: list[str],
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        folder: Path,
        stdout: object = None,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        n = len(list(folder.glob("out-*")))
        self.out_path, self.err_path = folder / f"out-{n}", folder / f"err-{n}"
        self.start = time.monotonic()
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gpuforge", *args],
                cwd=cwd,
                stdout=out if stdout is None else stdout,
                stderr=err,
                env=env or cli_env(),
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def err_text(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float) -> bool:
        """Wait until ``text`` shows in its stderr (a progress line), or it ends."""
        end = time.monotonic() + timeout

        def seen() -> bool:
            return text in self.err_text() or text in self.out_path.read_text(errors="replace")

        while time.monotonic() < end and self.proc.poll() is None:
            if seen():
                return True
            time.sleep(0.05)
        return seen()

    def signal(self, signum: int, group: bool = False) -> None:
        try:
            if group:
                os.killpg(self.pid, signum)
            else:
                os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> Ran:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL, group=True)
            self.proc.wait()
            code = None  # a hang
        return Ran(
            code, self.out_path.read_text(errors="replace"), self.err_text(), time.monotonic() - self.start
        )


def gpuforge(args: list[str], folder: Path, timeout: float = 600, **kw: object) -> Ran:
    return Gpuforge(args, folder=folder, **kw).wait(timeout)


def session_alive(pid: int) -> list[int]:
    """Processes still in the session a killed gpuforge led (its orphans)."""
    proc = subprocess.run(["ps", "-e", "-o", "pid=,sid="], capture_output=True, text=True)
    return [int(p) for p, s in (ln.split() for ln in proc.stdout.splitlines()) if int(s) == pid]

"""The test session is hermetic: a child pip reads no configuration file of this machine,
and temp folders have one length on every machine (tests/conftest.py pins both)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import BASETEMP_PREFIX, PIP_KEPT, prune_kept_basetemps


def test_a_child_pip_reads_no_configuration_file_of_this_machine(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    # every setting pip loaded, as `<origin>.<key>='value'`: `:env:` for the environment's
    # variables, `global.`/`user.`/`site.` for a configuration file's
    from_files = [ln for ln in proc.stdout.splitlines() if ln.strip() and not ln.startswith(":env:")]
    assert from_files == [], proc.stdout
    leaked = sorted(k for k in os.environ if k.startswith("PIP_") and k not in (*PIP_KEPT, "PIP_CONFIG_FILE"))
    assert leaked == []


def test_temp_folders_have_one_length_on_every_machine(tmp_path: Path, tmp_path_factory) -> None:
    base = tmp_path_factory.getbasetemp()
    assert base.name.startswith(BASETEMP_PREFIX) and len(base.name) == len(BASETEMP_PREFIX) + 8, base


def test_failed_runs_temp_folders_are_kept_three_deep(tmp_path: Path) -> None:
    """A failed run keeps its temp folder to look into; a new session removes all but the newest
    three, never one written in the last two hours (a session still running) nor another name."""
    import time

    now = time.time()
    folders = []
    for age_hours in (30, 20, 10, 5, 4, 1):
        d = tmp_path / f"{BASETEMP_PREFIX}{age_hours:08d}"
        (d / "venv").mkdir(parents=True)
        os.utime(d, (now - age_hours * 3600, now - age_hours * 3600))
        folders.append(d)
    other = tmp_path / "pytest-7"
    other.mkdir()
    os.utime(other, (now - 100 * 3600, now - 100 * 3600))
    removed = prune_kept_basetemps(tmp_path)
    assert sorted(removed) == sorted(folders[:3])  # the 30, 20 and 10 hours old
    assert [d.exists() for d in folders] == [False, False, False, True, True, True]
    assert other.exists()
    # a session still running (written in the last two hours) is never removed, however many
    fresh = [tmp_path / f"{BASETEMP_PREFIX}f{i:07d}" for i in range(5)]
    for d in fresh:
        d.mkdir()
    prune_kept_basetemps(tmp_path)
    assert all(d.exists() for d in fresh)

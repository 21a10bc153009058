"""The test session is hermetic: a child pip reads no configuration file of this machine,
and temp folders have one length on every machine (tests/conftest.py pins both)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import BASETEMP_PREFIX, PIP_KEPT


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

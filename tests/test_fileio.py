"""Atomic writes keep a backup and never leave a half-written file."""

from __future__ import annotations

import pytest

from gpuforge import fileio


def test_new_file_has_no_backup(tmp_path):
    path = tmp_path / "sub" / ".theanorc"
    assert fileio.write_atomic(path, "[global]\n") is None
    assert path.read_text() == "[global]\n"


def test_replacing_keeps_a_backup(tmp_path):
    path = tmp_path / ".theanorc"
    path.write_text("old\n")
    path.chmod(0o600)
    backup = fileio.write_atomic(path, "new\n")
    assert backup == tmp_path / ".theanorc.bak" and backup.read_text() == "old\n"
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o600


def test_same_content_is_left_alone(tmp_path):
    path = tmp_path / "f"
    path.write_text("same")
    assert fileio.write_atomic(path, "same") is None
    assert not (tmp_path / "f.bak").exists()


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "f"
    path.write_text("old")

    def boom(*_):
        raise OSError("disk full")

    monkeypatch.setattr(fileio.os, "replace", boom)
    with pytest.raises(OSError):
        fileio.write_atomic(path, "new")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "f.bak"]  # no temp file left

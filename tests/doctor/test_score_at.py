"""tools/score_at.py: reports scored on an earlier commit's rules (a git worktree of it), counted
by today's labels and by `decidable`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import score_at as tool  # tools/score_at.py

# the commit that first wrote old_check_script's "not able to tell" pattern (5cfa9b5's parent
# lacks it): the same text is caught at HEAD and missed before
CANNOT_TELL = "ERROR, not able to tell if theano used the cpu or the gpu\n"


def report(folder: Path, name: str, expected: str, decidable: str, text: str) -> None:
    (folder / name).write_text(
        f"# url: https://example.invalid/{name}\n# source: x/y\n# expected: {expected}\n# cause: c\n"
        f"# decidable: {decidable}: the words\n# ---\n{text}",
        encoding="utf-8",
    )


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    report(tmp_path, "decided.txt", "old_check_script", "yes", CANNOT_TELL)
    report(tmp_path, "prose.txt", "theano_too_old", "no", "an error relating to the version of Theano\n")
    report(tmp_path, "other.txt", "none", "yes", "my own bug\n")
    return tmp_path


def has_history() -> bool:
    """A clone with the commits these tests name (a shallow one has not)."""
    return (
        subprocess.run(
            ["git", "-C", str(tool.ROOT), "cat-file", "-e", "5cfa9b5^{commit}"], capture_output=True
        ).returncode
        == 0
    )


@pytest.mark.skipif(not has_history(), reason="needs the repository's history: run from a full `git clone`")
def test_the_same_reports_on_two_commits(reports: Path) -> None:
    now = tool.tallies("HEAD", [reports])
    before = tool.tallies("5cfa9b5^", [reports])
    assert (now["yes"].in_catalog, now["yes"].first_right, now["yes"].outside) == (1, 1, 1)
    assert (before["yes"].first_right, before["yes"].abstained) == (0, 1)
    assert now["no"].abstained == before["no"].abstained == 1
    assert now["all"].reports == 3 and now["all"].false_alarms == 0
    assert list(now) == ["yes", "no", "all"]


def test_an_unknown_commit_is_one_line(reports: Path, capsys) -> None:
    assert tool.main(["no-such-commit", str(reports)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("score_at: error: git worktree add no-such-commit") and err.count("\n") == 1

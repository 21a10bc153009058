"""README.md and docs/ cannot drift from the code: docs/generate.py re-runs every console block
and rebuilds every measured table (here, in `nox -s tests`); the README keeps its quick start on
the first screen and `.ci/run` runs its test command; the site builds with `--strict`."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
generate = importlib.util.module_from_spec(_spec)
sys.modules["docs_generate"] = generate
_spec.loader.exec_module(generate)


def test_every_block_prints_what_the_page_shows() -> None:
    """Each `command` block re-run from the repository root, each `table` rebuilt from its report."""
    drifts = generate.check()
    assert not drifts, "\n\n".join(
        [f"{d.block.where}: the page no longer shows what the code prints\n{d.diff()}" for d in drifts]
        + ["rewrite them from real runs: python3 -m nox -s docs -- --update (then review the diff)"]
    )


def _copy_with(tmp_path: Path, page: Path, edit) -> Path:
    lines = page.read_text(encoding="utf-8").split("\n")
    copy = tmp_path / page.name
    copy.write_text("\n".join(edit(lines)), encoding="utf-8")
    return copy


def test_a_changed_output_line_is_caught(tmp_path: Path) -> None:
    """The README's own first command block, one output line changed: the check names it."""
    block = next(b for b in generate.blocks(README) if b.kind == "command")
    assert generate.check_block(block) is None
    line = block.start + 1  # the first output line, after `$ command`

    def edit(lines: list[str]) -> list[str]:
        lines[line] = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), lines[line], count=1)
        return lines

    changed = generate.blocks(_copy_with(tmp_path, README, edit))
    drift = generate.check_block(next(b for b in changed if b.kind == "command"))
    assert drift is not None
    changes = [d[0] for d in drift.diff().split("\n")[2:] if d[:1] in "-+"]
    assert changes == ["-", "+"], drift.diff()  # that line, and nothing else


def test_a_changed_table_is_caught(tmp_path: Path) -> None:
    pages = [p for p in generate.pages() if any(b.kind == "table" for b in generate.blocks(p))]
    assert pages, "no measured table is marked"
    page = pages[0]
    table = next(b for b in generate.blocks(page) if b.kind == "table")
    lines = page.read_text(encoding="utf-8").split("\n")
    row = next(i for i in range(table.start, table.end) if re.search(r"\| \d", lines[i]))

    def edit(lines: list[str]) -> list[str]:
        lines[row] = re.sub(r"\| (\d)", r"| 9\1", lines[row], count=1)
        return lines

    copy = _copy_with(tmp_path, page, edit)
    drift = generate.check_block(next(b for b in generate.blocks(copy) if b.kind == "table"))
    assert drift is not None


def test_a_console_block_without_a_marker_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A page\n\nText.\n\n```console\n$ gpuforge envs check\nfine\n```\n", encoding="utf-8")
    with pytest.raises(generate.DocError, match=r"page\.md:5: a console block without"):
        generate.blocks(page)
    page.write_text("<!-- command: true -->\n\nText.\n", encoding="utf-8")
    with pytest.raises(generate.DocError, match=r"page\.md:1: a command marker must be right before a fence"):
        generate.blocks(page)


@pytest.mark.parametrize(
    "page, output, same",
    [
        (["2 known failure(s) found (0.7 s)"], "2 known failure(s) found (12.4 s)", True),
        (["==> [  0.1s] build-local theano 1.0.5"], "==> [ 10.3s] build-local theano 1.0.5", True),
        (["| all | 230 | 0.002        |"], "| all | 230 | 0.061        |", True),
        (["numpy 1.19.5"], "numpy 1.19.6", False),  # versions are what the page is about: never normalized
        (["| all | 230 | 0.002 |"], "| all | 231 | 0.002 |", False),
        (["first", "...", "last"], "first\nmiddle\nmore\nlast", True),
        (["first", "...", "last"], "first\nmiddle\nlast but not least", False),
        (["one line"], "one line\nand another", False),
    ],
)
def test_what_may_vary_and_what_may_not(page: list[str], output: str, same: bool) -> None:
    assert generate.matches(page, output) is same


def test_paths_are_shown_the_pages_way() -> None:
    text = f"{generate.ROOT}/channel {Path.home()}/.cache /scratch/tmp.AbCdEfGhIj/x.yml \n"
    assert generate.shown(text, "/scratch") == "/path/to/gpuforge/channel ~/.cache /tmp/tmp.XXXXXXXXXX/x.yml"


def test_the_quick_start_is_on_the_first_screen_and_ci_runs_its_test_command() -> None:
    lines = README.read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail into docs/"
    start = lines.index("## Quick start (a fresh Debian/Ubuntu x64 machine, as root)")
    assert start < 25, "the quick start must be on the first screen"
    fence = lines.index("```sh", start)
    install, tests = lines[fence + 1], lines[fence + 2]
    assert install.endswith("python3 -m nox -s gpu_smoke") and "ci/apt-packages.txt" in install
    assert lines[fence + 3] == "```"
    ci = [
        line for line in (ROOT / ".ci" / "run").read_text().split("\n") if line and not line.startswith("#")
    ]
    assert ci[-1] == tests, f".ci/run must end with the README's test command {tests!r}, not {ci[-1]!r}"


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """mkdocs --strict: a broken link or anchor, or a page missing from the nav, fails it."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    assert (tmp_path / "doctor" / "index.html").is_file()

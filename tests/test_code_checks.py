"""`nox -s lint`'s code checks, in `nox -s tests` too (what CI runs): ruff's rules and format,
mypy, and the import layering (no import runs back up, no circles: pyproject.toml's
[tool.importlinter]). Each prints what it found when it fails."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PYTHON = ["src", "tests", "tools", "noxfile.py", "docs"]


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", *PYTHON],
        ["ruff", "format", "--check", *PYTHON],
        ["mypy"],
        ["lint-imports"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_the_code_passes(command):
    here = Path(sys.executable).parent  # the test environment's own scripts first
    tool = shutil.which(command[0], path=str(here)) or shutil.which(command[0])
    if tool is None:
        pytest.skip(f"{command[0]} is not installed: the [lint] extra (`pip install -e .[lint]`)")
    proc = subprocess.run([tool, *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]


def test_no_module_constant_is_assigned_twice():
    """A module-level CONSTANT assigned a second time replaces the first for every reader above it
    too (a second NVIDIA_GPU_NAMED_RE in log_facts.py once changed what no_nvidia_gpu_stated
    matched): each one has one definition. Ruff's F811 covers functions and imports, not these."""
    import ast
    from collections import Counter

    twice = []
    for path in sorted((ROOT / "src" / "gpuforge").rglob("*.py")):
        assigned: Counter[str] = Counter()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                names = [node.target.id]
            else:
                names = []
            assigned.update(n for n in names if n.isupper())
        twice += [f"{path.relative_to(ROOT)}: {name}" for name, count in assigned.items() if count > 1]
    assert not twice, twice

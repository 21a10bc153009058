"""YAML reading with errors that name the file and line."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from gpuforge.errors import GpuforgeError


def load_yaml(text: str, path: Path, *, strings: bool = False) -> Any:
    """Parse YAML text read from ``path``; errors name the file and line.

    ``strings=True`` keeps every scalar as its text, as conda-build reads
    conda_build_config.yaml (so ``3.10`` stays "3.10", not the float 3.1).
    """
    yaml = YAML(typ="base" if strings else "rt", pure=True)
    try:
        return yaml.load(io.StringIO(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        started = exc.context_mark
        if exc.problem and exc.context and started is not None and started.line + 1 != line:
            problem += f" ({exc.context.removeprefix('while ')} at line {started.line + 1})"
        raise GpuforgeError(f"invalid YAML: {problem}", path, line) from None
    except YAMLError as exc:
        raise GpuforgeError(f"invalid YAML: {exc}", path) from None


def key_line(mapping: Any, key: str) -> int | None:
    """1-based line of ``key`` in a ruamel mapping, when it knows it."""
    try:
        return mapping.lc.key(key)[0] + 1
    except (AttributeError, KeyError, TypeError):
        return None


def item_line(sequence: Any, index: int) -> int | None:
    """1-based line of item ``index`` in a ruamel sequence, when it knows it."""
    try:
        return sequence.lc.item(index)[0] + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


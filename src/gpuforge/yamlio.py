"""YAML reading with limits, and errors that name the file and line.

Limits that fail fast (each a GpuforgeError at the line where it is crossed, raised
while parsing, before the rest of the file is read): nesting deeper than MAX_DEPTH,
more than MAX_NODES nodes counting every alias as the nodes it stands for (a
"billion laughs" alias bomb stops after MAX_NODES, not after 2**30), and text longer
than fileio's input limit. gpuforge's own YAML files nest 5 deep and hold a few
hundred nodes (catalog.yaml, the largest, about 5,000).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.scanner import RoundTripScanner

from gpuforge.errors import InputError
from gpuforge.fileio import MAX_INPUT_BYTES, read_text

MAX_DEPTH = 64
MAX_NODES = 20_000
# The tags plain YAML resolves to; any other (!!python/object:..., !custom) is refused.
PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
} | {"!", None}


class _LimitedComposer(Composer):
    """ruamel's composer, counting depth and nodes (aliases expanded) as it goes."""

    def _add(self, count: int, mark: Any) -> None:
        self.gpuforge_nodes = getattr(self, "gpuforge_nodes", 0) + count
        if self.gpuforge_nodes > MAX_NODES:
            raise ComposerError(
                None,
                None,
                f"more than {MAX_NODES} values (aliases counted "
                "as what they repeat): not a gpuforge input file",
                mark,
            )

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        sizes = self.__dict__.setdefault("gpuforge_sizes", {})
        if isinstance(event, AliasEvent):
            node = super().compose_node(parent, index)
            self._add(sizes.get(id(node), 1), event.start_mark)
            return node
        if getattr(event, "tag", None) not in PLAIN_TAGS:
            raise ComposerError(
                None, None, f"tag {event.tag!r}: gpuforge's inputs are plain YAML", event.start_mark
            )
        depth = self.gpuforge_depth = getattr(self, "gpuforge_depth", 0) + 1
        if depth > MAX_DEPTH:
            raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        before = getattr(self, "gpuforge_nodes", 0)
        self._add(1, event.start_mark)
        node = super().compose_node(parent, index)
        self.gpuforge_depth -= 1
        if event.anchor is not None:
            sizes[id(node)] = self.gpuforge_nodes - before
        return node


class _CommentlessScanner(RoundTripScanner):
    """The round-trip scanner (line numbers kept) without comment tokens: ruamel joins the
    comment lines of a block by repeated string concatenation (quadratic: a 4 MiB file of
    comments took minutes); readers that do not write the file back need none of them."""

    def fetch_comment(self, comment: Any) -> None:
        pass


def _yaml(strings: bool, comments: bool = False) -> YAML:
    yaml = YAML(typ="base" if strings else "rt", pure=True)
    yaml.Composer = _LimitedComposer
    if not strings and not comments:
        yaml.Scanner = _CommentlessScanner
    return yaml


def _where(exc: MarkedYAMLError) -> tuple[str, int | None]:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    problem = exc.problem or exc.context or "invalid YAML"
    started = exc.context_mark
    if exc.problem and exc.context and started is not None and started.line + 1 != line:
        problem += f" ({exc.context.removeprefix('while ')} at line {started.line + 1})"
    return problem, line


def load_yaml(text: str, path: Path, *, strings: bool = False, comments: bool = False) -> Any:
    """Parse YAML text read from ``path``; errors name the file and line.

    ``strings=True`` keeps every scalar as its text, as conda-build reads
    conda_build_config.yaml (so ``3.10`` stays "3.10", not the float 3.1).
    ``comments=True`` keeps the comments in the document, for a caller that writes it back
    (slower on long comment blocks: ruamel's own cost).
    """
    if len(text) > MAX_INPUT_BYTES:
        raise InputError(
            f"larger than the {MAX_INPUT_BYTES // 1024 // 1024} MiB limit on input files (not parsed)", path
        )
    try:
        doc = _yaml(strings, comments).load(io.StringIO(text))
    except MarkedYAMLError as exc:
        problem, line = _where(exc)
        raise InputError(f"invalid YAML: {problem}", path, line) from None
    except YAMLError as exc:  # the reader's: a character YAML does not allow, at a position
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else None
        raise InputError(f"invalid YAML: {str(exc).splitlines()[0]}", path, line) from None
    except (ValueError, OverflowError, TypeError) as exc:  # a scalar its constructor refuses
        raise InputError(f"invalid YAML value: {exc}", path) from None
    _check_keys(doc, path)
    return doc


def _check_keys(value: Any, path: Path) -> None:
    """Every mapping key is a scalar: a `? [a, b]` (complex) key is no name of anything."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, (Mapping, list, tuple)):
                line = getattr(getattr(value, "lc", None), "line", None)
                raise InputError(
                    "invalid YAML: a key that is a mapping or a list (`? ...`): keys are plain names",
                    path,
                    line + 1 if line is not None else None,
                )
            _check_keys(item, path)
    elif isinstance(value, list):
        for item in value:
            _check_keys(item, path)


def read_yaml(path: Path, *, strings: bool = False, comments: bool = False) -> Any:
    """A YAML file through the one reader (regular file, size limit, encodings) and load_yaml."""
    return load_yaml(read_text(path), Path(path), strings=strings, comments=comments)


# --- shape checks: what the code after a load may rely on ------------------------------


def expect_mapping(value: Any, path: Path, line: int | None, what: str) -> Any:
    """``value`` if it is a mapping; otherwise a located error saying what belongs there."""
    if not isinstance(value, dict):
        raise InputError(f"{what}: expected a mapping, got {_kind(value)}", path, line or 1)
    return value


def expect_list(value: Any, path: Path, line: int | None, what: str, empty: str | None = None) -> Any:
    """``value`` if it is a non-empty list; ``empty`` explains why an empty one is refused."""
    if not isinstance(value, list):
        raise InputError(f"{what}: expected a list, got {_kind(value)}", path, line or 1)
    if not value and empty:
        raise InputError(f"{what}: is empty: {empty}", path, line or 1)
    return value


def expect_strings(
    value: Any, path: Path, line: int | None, what: str, empty: str | None = None
) -> list[str]:
    """``value`` if it is a list of strings (a located error at the first item that is not)."""
    expect_list(value, path, line, what, empty)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(
                f"{what}: item {i + 1} is {_kind(item)}, expected a string",
                path,
                item_line(value, i) or line or 1,
            )
    return value


def expect_dependencies(doc: Any, path: Path) -> list[Any]:
    """An environment file's ``dependencies``: a non-empty list of conda specs (strings) and
    ``pip:`` lists of strings, as ``conda env create`` takes them."""
    line = key_line(doc, "dependencies")
    deps = expect_list(
        doc.get("dependencies"),
        path,
        line,
        "dependencies",
        empty="list the packages the environment installs (at least python)",
    )
    for i, item in enumerate(deps):
        at = item_line(deps, i) or line
        if isinstance(item, dict) and list(item) == ["pip"]:
            expect_strings(item["pip"], path, at, "pip", empty="list pip requirements or drop `pip:`")
        elif not isinstance(item, str):
            raise InputError(
                f"dependencies: item {i + 1} is {_kind(item)}: expected a conda spec "
                "(a string) or a `pip:` list",
                path,
                at,
            )
    return deps


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return f"{type(value).__name__} {str(value)[:40]}"


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

"""The variant matrix: recipes/conda_build_config.yaml, read the way conda-build reads it."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from gpuforge.errors import GpuforgeError, InputError
from gpuforge.recipes.selectors import platform_namespace, select_lines
from gpuforge.fileio import read_text
from gpuforge.yamlio import expect_mapping, load_yaml

Variant = dict[str, str]

MAX_VARIANTS = 64  # per platform; the matrix has 6 (one per Python)
VERSION_RE = re.compile(r"\d+(\.\d+)+")
KEY_LINE_RE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):")


@dataclass(frozen=True)
class VariantConfig:
    """The matrix for one platform: each key's values, and the keys zipped together."""

    path: Path
    platform: str
    values: dict[str, list[str]]
    zip_keys: list[list[str]]
    lines: dict[str, int]

    def groups(self, keys: set[str]) -> list[list[str]]:
        """The zip groups (and lone keys) that cover ``keys``."""
        groups, seen = [], set()
        for group in self.zip_keys:
            if keys & set(group):
                groups.append([k for k in group if k in self.values])
                seen.update(group)
        groups += [[k] for k in sorted(keys - seen) if k in self.values]
        return groups

    def expand(self, keys: set[str]) -> list[Variant]:
        """Every variant over ``keys`` (and their zip partners), in file order."""
        per_group = []
        for group in self.groups(keys):
            rows = zip(*(self.values[k] for k in group), strict=True)
            per_group.append([dict(zip(group, row, strict=True)) for row in rows])
        variants = []
        for combo in itertools.product(*per_group):
            merged: Variant = {}
            for part in combo:
                merged.update(part)
            variants.append(merged)
        return variants


def load_config(path: Path, platform: str) -> VariantConfig:
    """Read the variant config for ``platform``: selectors, YAML, zip_keys checked."""
    path = Path(path)
    text = read_text(path)
    data = expect_mapping(load_yaml(select_lines(text, platform_namespace(platform), path), path,
                                    strings=True), path, 1, "the variant config (keys to lists of values)")
    values: dict[str, list[str]] = {}
    lines: dict[str, int] = {}
    zip_keys: list[list[str]] = []
    key_lines = {m.group("key"): i for i, ln in enumerate(text.splitlines(), 1)
                 if (m := KEY_LINE_RE.match(ln))}
    for key, raw in data.items():
        line = key_lines.get(key)
        lines[key] = line or 1
        if raw in (None, ""):  # every value was selected away on this platform
            continue
        if key == "zip_keys":
            if not isinstance(raw, list) or not all(isinstance(g, list) for g in raw):
                raise GpuforgeError("zip_keys must be a list of lists of keys", path, line)
            zip_keys = [[str(k) for k in group] for group in raw]
            continue
        if not isinstance(raw, list):
            raise GpuforgeError(f"{key}: expected a list of values, got {raw!r}", path, line)
        if not all(isinstance(v, str) for v in raw):
            raise GpuforgeError(f"{key}: values must be plain scalars", path, line)
        if key in ("python", "numpy") and not all(VERSION_RE.fullmatch(v) for v in raw):
            raise InputError(f"{key}: values are versions like 3.7 (got {raw})", path, line)
        values[key] = list(raw)
    for group in zip_keys:
        present = [k for k in group if k in values]
        lengths = {k: len(values[k]) for k in present}
        if len(set(lengths.values())) > 1:
            detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise GpuforgeError(
                f"zip_keys group {group}: lists differ in length ({detail})",
                path,
                lines.get("zip_keys"),
            )
    config = VariantConfig(path, platform, values, zip_keys, lines)
    count = math.prod(len(values[group[0]]) for group in config.groups(set(values)) if group)
    if count > MAX_VARIANTS:
        raise InputError(f"{count} variants on {platform}: more than the {MAX_VARIANTS} gpuforge "
                         "renders (each is a CI job); is a list repeated?", path, 1)
    return config


def uncommented_keys(path: Path) -> list[tuple[int, str]]:
    """Top-level keys with no comment saying why: none just above, none on their values."""
    lines = read_text(path).splitlines()
    missing = []
    for i, line in enumerate(lines):
        m = KEY_LINE_RE.match(line)
        if not m or m.group("key") == "zip_keys":
            continue
        above = next((ln.strip() for ln in reversed(lines[:i]) if ln.strip()), "")
        if above.startswith("#") or "#" in line:
            continue
        block = itertools.takewhile(lambda ln: ln.startswith((" ", "-")) or not ln.strip(),
                                    lines[i + 1:])
        items = [ln for ln in block if ln.strip()]
        if items and all(re.search(r"#\s*[^\[\s]", ln.split("  # [")[0] + " ") for ln in items):
            continue
        missing.append((i + 1, m.group("key")))
    return missing

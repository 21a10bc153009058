"""The failure catalog (catalog.yaml) and matching error texts against it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from gpuforge.errors import GpuforgeError
from gpuforge.yamlio import load_yaml

CATALOG_PATH = Path(__file__).with_name("catalog.yaml")


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    platforms: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]
    cause: str
    fix: str
    source: str
    raw: Any = None


@dataclass(frozen=True)
class Finding:
    """A catalog entry found, with the text that identified it."""

    entry: Entry
    evidence: str

    @property
    def id(self) -> str:
        return self.entry.id

    def as_json(self) -> dict[str, str]:
        e = self.entry
        return {"id": e.id, "title": e.title, "cause": e.cause, "fix": e.fix,
                "evidence": self.evidence, "source": e.source}


@cache
def load_catalog(path: Path = CATALOG_PATH) -> tuple[Entry, ...]:
    """Read and validate the catalog; a bad entry is a located error."""
    data = load_yaml(path.read_text(encoding="utf-8"), path)
    if not isinstance(data, list):
        raise GpuforgeError("the catalog must be a list of entries", path, 1)
    entries, seen = [], set()
    for i, item in enumerate(data):
        line = data.lc.item(i)[0] + 1
        missing = [k for k in ("id", "title", "cause", "fix", "source") if not item.get(k)]
        if missing:
            raise GpuforgeError(f"entry without {', '.join(missing)}", path, line)
        if item["id"] in seen:
            raise GpuforgeError(f"duplicate id {item['id']!r}", path, line)
        seen.add(item["id"])
        try:
            patterns = tuple(re.compile(p, re.M) for p in (item.get("match") or {}).get("text", []))
        except re.error as exc:
            raise GpuforgeError(f"{item['id']}: bad pattern: {exc}", path, line) from None
        entries.append(Entry(item["id"], item["title"], tuple(item.get("platforms") or ["all"]),
                             patterns, item["cause"], item["fix"], item["source"], item))
    return tuple(entries)


def entry(entry_id: str) -> Entry:
    for e in load_catalog():
        if e.id == entry_id:
            return e
    raise GpuforgeError(f"no catalog entry {entry_id!r}")


def diagnose_text(text: str) -> list[Finding]:
    """Entries whose patterns match ``text``, the one matching latest first.

    The last match wins because a traceback ends with the real error, while
    wrappers (``Could not initialize pygpu, support disabled``) come first.
    """
    hits = []
    for e in load_catalog():
        best = None
        for pattern in e.patterns:
            for m in pattern.finditer(text):
                if best is None or m.start() > best.start():
                    best = m
        if best is not None:
            line_start = text.rfind("\n", 0, best.start()) + 1
            line_end = text.find("\n", best.end())
            evidence = text[line_start:line_end if line_end != -1 else None].strip()
            hits.append((best.start(), Finding(e, evidence[:300])))
    return [f for _, f in sorted(hits, key=lambda h: -h[0])]

"""The failure catalog (catalog.yaml) and matching error texts and probed facts against it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from gpuforge.errors import GpuforgeError
from gpuforge.yamlio import expect_list, expect_mapping, read_yaml

CATALOG_PATH = Path(__file__).with_name("catalog.yaml")
CONDITION = re.compile(
    r"^(?P<not>not\s+)?(?P<path>[\w.\-]+)(?:\s*(?P<op>==|!=|>=|<=|>|<|~)\s*(?P<value>\S.*))?$")
PLATFORMS = ("all", "linux", "win")


@dataclass(frozen=True)
class Condition:
    """One fact condition: ``path``, ``not path`` or ``path OP value``."""

    text: str
    path: str
    negate: bool = False
    op: str | None = None
    value: str = ""

    def holds(self, facts: dict[str, Any]) -> tuple[bool, Any]:
        """(whether it holds, the fact's value); a missing fact never holds."""
        found = lookup(facts, self.path)
        if self.op is None:
            return (not found) if self.negate else bool(found), found
        if found is None or isinstance(found, dict | list):
            return False, found
        result = compare(str(found), self.op, self.value)
        return (not result) if self.negate else result, found


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
    all_patterns: tuple[re.Pattern[str], ...] = ()
    facts: tuple[tuple[Condition, ...], ...] = ()  # AND of ORs
    wrapper: bool = False
    autofix: Any = None


@dataclass(frozen=True)
class Finding:
    """A catalog entry found, with the text or facts that identified it."""

    entry: Entry
    evidence: str

    @property
    def id(self) -> str:
        return self.entry.id

    def as_json(self) -> dict[str, str]:
        e = self.entry
        return {"id": e.id, "title": e.title, "cause": e.cause, "fix": e.fix,
                "evidence": self.evidence, "source": e.source}


def lookup(facts: Any, path: str) -> Any:
    """``a.b.0.c`` in nested dicts/lists; None when any step is missing."""
    node = facts
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
        if node is None:
            return None
    return node


def version_key(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text.split("+")[0])[:4])


def compare(found: str, op: str, value: str) -> bool:
    if op == "~":
        return re.search(value, found) is not None
    if op in ("==", "!="):
        return (found == value) == (op == "==")
    if not re.match(r"\d", found) or not re.match(r"\d", value):
        return False
    a, b = version_key(found), version_key(value)
    return {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]


def _condition(text: str, path: Path, line: int) -> Condition:
    m = CONDITION.match(str(text).strip())
    if not m:
        raise GpuforgeError(f"bad fact condition {text!r}", path, line)
    if m["op"] == "~":
        try:
            re.compile(m["value"])
        except re.error as exc:
            raise GpuforgeError(f"bad pattern in {text!r}: {exc}", path, line) from None
    return Condition(str(text), m["path"], bool(m["not"]), m["op"], (m["value"] or "").strip())


def _patterns(item: Any, key: str, path: Path, line: int) -> tuple[re.Pattern[str], ...]:
    try:
        return tuple(re.compile(p, re.M) for p in (item.get("match") or {}).get(key, []) or [])
    except re.error as exc:
        raise GpuforgeError(f"{item['id']}: bad pattern: {exc}", path, line) from None


@cache
def load_catalog(path: Path = CATALOG_PATH) -> tuple[Entry, ...]:
    """Read and validate the catalog; a bad entry is a located error."""
    data = expect_list(read_yaml(path), path, 1, "the catalog (a list of entries)")
    entries, seen = [], set()
    for i, item in enumerate(data):
        line = data.lc.item(i)[0] + 1
        expect_mapping(item, path, line, "a catalog entry")
        missing = [k for k in ("id", "title", "cause", "fix", "source") if not item.get(k)]
        if missing:
            raise GpuforgeError(f"entry without {', '.join(missing)}", path, line)
        if item["id"] in seen:
            raise GpuforgeError(f"duplicate id {item['id']!r}", path, line)
        seen.add(item["id"])
        platforms = tuple(item.get("platforms") or ["all"])
        if set(platforms) - set(PLATFORMS):
            raise GpuforgeError(f"{item['id']}: platforms must be among {PLATFORMS}", path, line)
        facts = tuple(
            tuple(_condition(c, path, line) for c in (group if isinstance(group, list) else [group]))
            for group in (item.get("match") or {}).get("facts", []) or [])
        entry = Entry(item["id"], item["title"], platforms, _patterns(item, "text", path, line),
                      item["cause"], item["fix"], item["source"], item,
                      all_patterns=_patterns(item, "all", path, line), facts=facts,
                      wrapper=bool(item.get("wrapper")), autofix=item.get("autofix"))
        if not (entry.patterns or entry.all_patterns or entry.facts):
            raise GpuforgeError(f"{item['id']}: no match (text, all or facts)", path, line)
        entries.append(entry)
    return tuple(entries)


def entry(entry_id: str) -> Entry:
    for e in load_catalog():
        if e.id == entry_id:
            return e
    ids = ", ".join(e.id for e in load_catalog())
    raise GpuforgeError(f"no catalog entry {entry_id!r} (known: {ids})")


def _line_of(text: str, m: re.Match[str]) -> str:
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    return text[line_start:line_end if line_end != -1 else None].strip()[:300]


def _text_match(e: Entry, text: str) -> tuple[int, str] | None:
    """(position of the last match, evidence) of an entry in ``text``, or None."""
    best = None
    for pattern in e.patterns:
        for m in pattern.finditer(text):
            if best is None or m.start() > best.start():
                best = m
    if e.all_patterns:
        last = []
        for pattern in e.all_patterns:
            hits = list(pattern.finditer(text))
            if not hits:
                break
            last.append(hits[-1])
        else:
            m = max(last, key=lambda h: h.start())
            if best is None or m.start() > best.start():
                ordered = sorted(last, key=lambda h: h.start())
                return m.start(), " ... ".join(_line_of(text, h) for h in ordered)
    return (best.start(), _line_of(text, best)) if best is not None else None


def diagnose_text(text: str) -> list[Finding]:
    """Entries whose patterns match ``text``, the one matching latest first.

    The last match wins because a traceback ends with the real error, while
    wrappers (``Could not initialize pygpu, support disabled``) come first; an
    entry marked ``wrapper`` is reported only when nothing more specific matches.
    """
    hits = []
    for e in load_catalog():
        found = _text_match(e, text)
        if found is not None:
            hits.append((found[0], Finding(e, found[1])))
    ordered = [f for _, f in sorted(hits, key=lambda h: -h[0])]
    specific = [f for f in ordered if not f.entry.wrapper]
    return specific or ordered


def diagnose_facts(facts: dict[str, Any], platform: str) -> list[Finding]:
    """Entries whose fact conditions all hold (``platform``: linux or win)."""
    findings = []
    for e in load_catalog():
        if not e.facts or not ({"all", platform} & set(e.platforms)):
            continue
        evidence = []
        for group in e.facts:
            results = [(c, *c.holds(facts)) for c in group]
            held = [(c, value) for c, ok, value in results if ok]
            if not held:
                break
            c, value = held[0]
            trivial = value is None or isinstance(value, bool) or value in ("", [], {})
            evidence.append(c.text if trivial and not c.op else f"{c.path} = {_short(value)}")
        else:
            findings.append(Finding(e, "; ".join(evidence)))
    return findings


def _short(value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(_short(v) for v in value)
    elif isinstance(value, dict):
        value = value.get("path") or value.get("value") or value
    return str(value)[:300]


def diagnose(text: str | None = None, facts: dict[str, Any] | None = None,
             platform: str = "linux") -> list[Finding]:
    """Findings from an error text and/or probed facts; text findings first, one per id."""
    found = diagnose_text(text) if text else []
    if facts is not None:
        ids = {f.id for f in found}
        specific_text = any(not f.entry.wrapper for f in found)
        found += [f for f in diagnose_facts(facts, platform)
                  if f.id not in ids and not (f.entry.wrapper and specific_text)]
    return found

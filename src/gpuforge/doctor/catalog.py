"""The failure catalog (catalog.yaml) and matching error texts and probed facts against it."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import re2

from gpuforge import locations
from gpuforge.doctor.normalize import compiler_lines, evidence_lines, normalize, unwrapped
from gpuforge.doctor.typos import Corrector, pattern_words, spelled_words
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text
from gpuforge.yamlio import expect_list, expect_mapping, load_yaml

CATALOG_PATH = locations.CATALOG
CONDITION = re.compile(
    r"^(?P<not>not\s+)?(?P<path>[\w.\-]+)(?:\s*(?P<op>==|!=|>=|<=|>|<|~)\s*(?P<value>\S.*))?$"
)
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
    patterns: tuple[re2._Regexp, ...]
    cause: str
    fix: str
    source: str
    raw: Any = None
    all_groups: tuple[tuple[re2._Regexp, ...], ...] = ()  # each group: all of its patterns
    unless: tuple[re2._Regexp, ...] = ()  # any of these in the text rules the entry out
    facts: tuple[tuple[Condition, ...], ...] = ()  # AND of ORs
    wrapper: bool = False
    autofix: Any = None
    explains: tuple[str, ...] = ()  # ids of failures this one causes: it is named before them
    candidates: tuple[str, ...] = ()  # an undecided symptom: the ids that may cause it
    # a message with many causes, this entry's only where its fact rules hold too (stated in the
    # paste, or probed): the text alone names nothing
    text_needs_facts: bool = False
    # a warning's message (Theano's `g++ not available`): it names the cause only where the
    # paste shows no exception (before or after it), or a wrapper entry's message after it says
    # the exception was its consequence (otherwise the exception is what failed)
    warning_only: bool = False
    # the same for some of its text patterns only (`warnings:` beside `text:`): a warning's
    # wording of the cause (Theano's "Your cuDNN version is more recent than ..."), which names
    # it only as warning_only does
    warning_patterns: frozenset[bytes] = frozenset()
    # where each text pattern was written from (its `from:`, else the entry's): report files,
    # thread urls, `seed NNN`, `code: FILE`, `repro: TEST`; evaluate.py's cross-validation
    # switches a pattern off for the reports of the only source it came from
    origins: dict[bytes, tuple[str, ...]] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Finding:
    """A catalog entry found, with the text or facts that identified it."""

    entry: Entry
    evidence: str

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def undecided(self) -> bool:
        """A symptom with several possible causes: the finding lists them instead of guessing."""
        return bool(self.entry.candidates)

    def as_json(self) -> dict[str, Any]:
        e = self.entry
        found: dict[str, Any] = {
            "id": e.id,
            "title": e.title,
            "cause": e.cause,
            "fix": e.fix,
            "evidence": self.evidence,
            "source": e.source,
        }
        if e.candidates:
            found["candidates"] = list(e.candidates)
        return found


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


def compile_pattern(pattern: str) -> re2._Regexp:
    """A catalog pattern (MULTILINE) on RE2: matching time is linear in the text, whatever the
    pattern, so a 10 MB single-line log cannot make a pattern backtrack (Python's `re` took
    minutes on such lines). RE2 has no backreferences or lookaround; the catalog needs neither."""
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = False
    return re2.compile(f"(?m){pattern}".encode(), options)


def last_match(pattern: re2._Regexp, data: bytes) -> re2._Match | None:
    """The match of ``pattern`` that starts last in ``data``, in time linear in its size.

    Walking every match of a pattern that matches 400,000 times in a 10 MB paste costs
    seconds in Python objects; instead search ever larger tails of the text (a search
    from a position finds the leftmost match starting there or later), then halve the
    stretch that holds the last start, and walk the matches of that stretch only.
    """
    size, window = len(data), 1 << 16
    while True:
        start = max(0, size - window)
        found = pattern.search(data, start)
        if found is not None:
            break
        if start == 0:
            return None
        window <<= 2
    # a match starts at low; none starts at or after high (the previous, shorter tail had none)
    low, high = found.start(), (size - (window >> 2)) if window > 1 << 16 else size
    while high - low > 1 << 16:
        middle = (low + high) // 2
        probe = pattern.search(data, middle)
        if probe is None:
            high = middle
        else:
            low, found = probe.start(), probe
    for m in pattern.finditer(data, low):
        found = m
    return found


def _origins(value: Any, item: Any, path: Path, line: int) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise GpuforgeError(
            f"{item['id']}: `from` must be a list of sources (report files, urls, "
            "`seed N`, `code: FILE`, `repro: TEST`)",
            path,
            line,
        )
    return tuple(v.strip() for v in value)


def _pattern_items(item: Any, values: Any, path: Path, line: int) -> list[tuple[str, tuple[str, ...]]]:
    """(regex, its sources) of a pattern list; an item is a regex, or `{re: REGEX, from: [...]}`
    when it was written from other sources than the entry's `from`."""
    default = tuple(item.get("from") or ())
    out = []
    for value in values or []:
        if isinstance(value, dict):
            if set(value) != {"re", "from"} or not isinstance(value["re"], str):
                raise GpuforgeError(
                    f"{item['id']}: a pattern is a string or `{{re: REGEX, from: [...]}}`", path, line
                )
            out.append((value["re"], _origins(value["from"], item, path, line)))
        elif isinstance(value, str):
            out.append((value, default))
        else:
            raise GpuforgeError(f"{item['id']}: a pattern must be a string", path, line)
    return out


def _patterns(
    item: Any, key: str, path: Path, line: int, origins: dict[bytes, tuple[str, ...]] | None = None
) -> tuple[re2._Regexp, ...]:
    compiled = []
    for pattern, sources in _pattern_items(item, (item.get("match") or {}).get(key, []), path, line):
        try:
            regex = compile_pattern(pattern)
        except re2.error as exc:
            reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise GpuforgeError(f"{item['id']}: bad pattern (RE2 syntax): {reason}", path, line) from None
        if origins is not None:
            origins[regex.pattern] = tuple(dict.fromkeys((*origins.get(regex.pattern, ()), *sources)))
        compiled.append(regex)
    return tuple(compiled)


def _groups(
    item: Any, path: Path, line: int, origins: dict[bytes, tuple[str, ...]]
) -> tuple[tuple[re2._Regexp, ...], ...]:
    """`all:` is one list of patterns that must all match, or a list of such lists (any one)."""
    value = (item.get("match") or {}).get("all") or []
    groups = value if value and all(isinstance(v, list) for v in value) else [value] if value else []
    return tuple(_patterns({**item, "match": {"all": g}}, "all", path, line, origins) for g in groups)


def _ids(item: Any, key: str, path: Path, line: int) -> tuple[str, ...]:
    value = item.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GpuforgeError(f"{item['id']}: `{key}` must be a list of entry ids", path, line)
    return tuple(value)


def parsed_path(path: Path) -> Path:
    """catalog.yaml's parsed form beside it (catalog.parsed.json), shipped with the package."""
    return path.with_name(path.stem + ".parsed.json")


def parsed_text(path: Path) -> str:
    """What catalog.parsed.json holds for ``path``: its entries as plain data, each one's line,
    and the sha256 of the text they were parsed from (`python -m gpuforge.doctor.catalog`
    writes it; tests/doctor/test_doctor.py fails when it is not current)."""
    text = read_text(path)
    data = expect_list(load_yaml(text, path), path, 1, "the catalog (a list of entries)")
    items = json.loads(json.dumps(data, default=str))
    lines = [data.lc.item(i)[0] + 1 for i in range(len(data))]
    doc = {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "items": items, "lines": lines}
    return json.dumps(doc, indent=0, ensure_ascii=False) + "\n"


def _catalog_items(path: Path) -> tuple[list[Any], list[int]]:
    """The catalog's entries as plain data with each one's line. Parsing catalog.yaml (pure-Python
    YAML) took most of a `doctor --log` run: the parse shipped beside it is used when it was made
    from this very text (its sha256), else the YAML is parsed."""
    text = read_text(path)
    try:
        doc = json.loads(parsed_path(path).read_text(encoding="utf-8"))
        if doc["sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest():
            return doc["items"], doc["lines"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    data = json.loads(parsed_text(path))
    return data["items"], data["lines"]


def load_catalog(path: Path = CATALOG_PATH) -> tuple[Entry, ...]:
    """Read and validate the catalog; a bad entry is a located error."""
    return _load_catalog(Path(path))


@cache
def _load_catalog(path: Path) -> tuple[Entry, ...]:
    data, lines = _catalog_items(path)
    entries, seen = [], set()
    for i, item in enumerate(data):
        line = lines[i]
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
        if "from" in item:
            _origins(item["from"], item, path, line)
        origins: dict[bytes, tuple[str, ...]] = {}
        facts = tuple(
            tuple(_condition(c, path, line) for c in (group if isinstance(group, list) else [group]))
            for group in (item.get("match") or {}).get("facts", []) or []
        )
        warnings = _patterns(item, "warnings", path, line, origins)
        entry = Entry(
            item["id"],
            item["title"],
            platforms,
            _patterns(item, "text", path, line, origins) + warnings,
            item["cause"],
            item["fix"],
            item["source"],
            item,
            all_groups=_groups(item, path, line, origins),
            facts=facts,
            unless=_patterns(item, "unless", path, line),
            wrapper=bool(item.get("wrapper")),
            autofix=item.get("autofix"),
            explains=_ids(item, "explains", path, line),
            candidates=_ids(item, "candidates", path, line),
            text_needs_facts=bool((item.get("match") or {}).get("text_needs_facts")),
            warning_only=bool((item.get("match") or {}).get("warning_only")),
            warning_patterns=frozenset(p.pattern for p in warnings),
            origins=origins,
        )
        if not (entry.patterns or entry.all_groups or entry.facts):
            raise GpuforgeError(f"{item['id']}: no match (text, all or facts)", path, line)
        if entry.text_needs_facts and not entry.facts:
            raise GpuforgeError(f"{item['id']}: text_needs_facts without facts", path, line)
        entries.append(entry)
    for e in entries:
        unknown = sorted(set(e.explains + e.candidates) - seen)
        if unknown:
            line = lines[entries.index(e)]
            raise GpuforgeError(f"{e.id}: explains/candidates name unknown ids {unknown}", path, line)
    return tuple(entries)


def entry(entry_id: str) -> Entry:
    for e in load_catalog():
        if e.id == entry_id:
            return e
    ids = ", ".join(e.id for e in load_catalog())
    raise GpuforgeError(f"no catalog entry {entry_id!r} (known: {ids})")


def _line_of(text: bytes, m: re2._Match) -> str:
    line_start = max(text.rfind(b"\n", 0, m.start()) + 1, m.start() - 300)
    line_end = text.find(b"\n", m.end(), m.end() + 300)
    line = text[line_start : line_end if line_end != -1 else m.end() + 300]
    return line.decode("utf-8", "replace").strip()[:300]


def pattern_set(path: Path = CATALOG_PATH) -> tuple[re2.Set, list[bytes]]:
    return _pattern_set(Path(path))


@cache
def _pattern_set(path: Path) -> tuple[re2.Set, list[bytes]]:
    """Every pattern of the catalog in one RE2 set: one pass over a text tells which of them
    occur at all, so only those are searched again for their last match."""
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = False
    patterns = sorted(
        {
            p.pattern
            for e in load_catalog(path)
            for p in (*e.patterns, *e.unless, *(q for g in e.all_groups for q in g))
        }
    )
    found = re2.Set.SearchSet(options)
    for pattern in patterns:
        found.Add(pattern)
    found.Compile()
    return found, patterns


def corrector(path: Path = CATALOG_PATH) -> Corrector:
    """Typos corrected toward the words of the catalog's own patterns (typos.py)."""
    return _corrector(Path(path))


@cache
def _corrector(path: Path) -> Corrector:
    patterns = [p.decode("utf-8", "replace") for p in pattern_set(path)[1]]
    return Corrector(pattern_words(patterns), spelled_words(patterns))


def _text_match(e: Entry, text: bytes, present: set[bytes]) -> tuple[int, str, bool] | None:
    """(position of the last match, evidence, whether only a warning pattern matched) of an
    entry in ``text`` (UTF-8), or None; ``present``: the patterns that occur in the text."""
    if any(p.pattern in present for p in e.unless):
        return None
    best, warned = None, None
    for pattern in e.patterns:
        m = last_match(pattern, text) if pattern.pattern in present else None
        if m is None:
            continue
        if pattern.pattern in e.warning_patterns:
            warned = m if warned is None or m.start() > warned.start() else warned
        elif best is None or m.start() > best.start():
            best = m
    only_warned = best is None and warned is not None
    best = best or warned
    evidence = _line_of(text, best) if best is not None else ""
    for group in e.all_groups:
        last = []
        for pattern in group:
            hit = last_match(pattern, text) if pattern.pattern in present else None
            if hit is None:
                break
            last.append(hit)
        else:
            m = max(last, key=lambda h: h.start())
            if best is None or only_warned or m.start() > best.start():
                best, only_warned = m, False
                lines = (_line_of(text, h) for h in sorted(last, key=lambda h: h.start()))
                evidence = " ... ".join(dict.fromkeys(lines))  # one line that holds them all: once
    return (best.start(), evidence, only_warned) if best is not None else None


def explained_last(findings: list[Finding]) -> list[Finding]:
    """``findings`` in their order, but those another one ``explains`` (its consequence: the
    BrokenPipeError after a failed bootstrapping) after every cause."""
    explained = {i for f in findings for i in f.entry.explains}
    return [f for f in findings if f.id not in explained] + [f for f in findings if f.id in explained]


def order_findings(hits: list[tuple[int, Finding]]) -> list[Finding]:
    """Findings by cause, then position: the most likely root cause first.

    - the one matching latest comes first: a traceback ends with the real error;
    - but a finding that another one found ``explains`` (its consequence: the
      BrokenPipeError after a failed bootstrapping) comes after every cause;
    - an entry marked ``wrapper`` is reported only when nothing more specific matches;
    - an undecided symptom (``candidates``) is dropped when one of its candidates was
      found itself: the evidence decided.
    """
    ordered = [f for _, f in sorted(hits, key=lambda h: -h[0])]
    found = {f.id for f in ordered}
    ordered = explained_last([f for f in ordered if not set(f.entry.candidates) & found])
    specific = [f for f in ordered if not f.entry.wrapper]
    return specific or ordered


# a failure beside a warning: a Python exception's first line (a traceback's header, or
# `SomeError: ...` / `Exception: ...`), a dotted exception quoted in a sentence ("I met a
# problem: fuel.config_parser.ConfigurationError: ..."), or the process killed by a signal as
# the shell reports it (bash's `Illegal instruction: 4`, `Segmentation fault (core dumped)`)
EXCEPTION_LINE = re2.compile(
    rb"(?m)^[ \t>]*(Traceback \(most recent call last\)|[\w.]*(Error|Exception): )"
    rb"|\b[a-z_]+\.[\w.]*(Error|Exception): |\b(Illegal instruction|Segmentation fault|Bus error)\b"
)


def _warnings_yield(
    hits: list[tuple[int, Finding]], data: bytes, warned: set[str]
) -> list[tuple[int, Finding]]:
    """Drop a warning's finding (a warning_only entry, or ``warned``: an entry only a warning
    pattern found) where the paste shows an exception, after the warning or before it (a
    report often opens with its error and pastes the log after), when nothing found after the
    warning says what the exception was (an entry marked `wrapper`, the gpu-backend's `need a
    c++ compiler`, is the warning's own consequence): the exception is what failed."""

    if EXCEPTION_LINE.search(data) is None:
        return hits  # no exception anywhere: every warning stands

    def failed_beside(pos: int) -> bool:
        return not any(later > pos and f.entry.wrapper for later, f in hits)

    return [
        (pos, f) for pos, f in hits if not ((f.entry.warning_only or f.id in warned) and failed_beside(pos))
    ]


def _matches(
    entries: list[Entry], data: bytes, off: dict[str, frozenset[bytes]] | None
) -> tuple[list[tuple[int, Finding]], list[Entry], set[str]]:
    """(the findings of ``entries`` in ``data`` with their positions, the entries not found, the
    ids found by a warning pattern only); ``off`` as diagnose_text's."""
    found_set, patterns = pattern_set()
    present = {patterns[i] for i in found_set.Match(data) or []}
    hits, missed, warned = [], [], set()
    for e in entries:
        switched_off = (off or {}).get(e.id)
        found = _text_match(e, data, present - switched_off if switched_off else present)
        if found is None:
            missed.append(e)
            continue
        hits.append((found[0], Finding(e, found[1])))
        if found[2]:
            warned.add(e.id)
    return hits, missed, warned


def diagnose_text(text: str, off: dict[str, frozenset[bytes]] | None = None) -> list[Finding]:
    """Entries whose patterns match ``text`` (normalized first), the root cause first.
    ``off``: per entry id, patterns to treat as absent (cross-validation switches off the
    patterns written only from the report's own source)."""
    text = corrector().correct(normalize(text))
    data = "\n".join([text, *evidence_lines(text), *compiler_lines(text)]).encode("utf-8", "replace")
    hits, missed, warned = _matches(list(load_catalog()), data, off)
    hits = _warnings_yield(hits, data, warned)
    # a hard-wrapped paste: the entries not found, on its lines joined, as a wrap inside a word
    # leaves them, then as one between two words does (a position there is about where it is in
    # the paste)
    for sep in ("", " "):
        joined = unwrapped(text, sep)
        if joined is None:
            break
        more, missed, _ = _matches(missed, joined[0].encode("utf-8", "replace"), off)
        hits += more
    return order_findings(hits)


def diagnose_facts(facts: dict[str, Any], platform: str, stated_only: bool = False) -> list[Finding]:
    """Entries whose fact conditions all hold (``platform``: linux or win). ``stated_only``: facts
    read from a paste are partial, so an entry is judged only when every fact its conditions
    name is stated (``not cuda.driver.loaded`` says nothing when the paste does not say)."""
    findings = []
    for e in load_catalog():
        if not e.facts or not ({"all", platform} & set(e.platforms)):
            continue
        groups = e.facts
        if stated_only:  # each group judged on its stated conditions; none stated: no judgement
            groups = tuple(tuple(c for c in g if lookup(facts, c.path) is not None) for g in e.facts)
            if not all(groups):
                continue
        evidence = []
        for group in groups:
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


def confirmed_by_facts(found: list[Finding], by_facts: list[Finding]) -> list[Finding]:
    """The text findings less those of a message with many causes (``text_needs_facts``) whose
    entry the facts do not also find."""
    held = {f.id for f in by_facts}
    return [f for f in found if not f.entry.text_needs_facts or f.id in held]


def diagnose(
    text: str | None = None, facts: dict[str, Any] | None = None, platform: str = "linux"
) -> list[Finding]:
    """Findings from an error text and/or probed facts; text findings first, one per id."""
    by_facts = diagnose_facts(facts, platform) if facts is not None else []
    found = confirmed_by_facts(diagnose_text(text) if text else [], by_facts)
    ids = {f.id for f in found}
    specific_text = any(not f.entry.wrapper for f in found)
    found += [f for f in by_facts if f.id not in ids and not (f.entry.wrapper and specific_text)]
    return found


if __name__ == "__main__":  # python -m gpuforge.doctor.catalog: write catalog.parsed.json
    from gpuforge.fileio import write_atomic

    try:
        write_atomic(parsed_path(CATALOG_PATH), parsed_text(CATALOG_PATH), backup=False)
    except GpuforgeError as exc:  # a bad catalog: one line naming the file and line
        sys.exit(f"catalog: error: {exc}")
    print(f"wrote {parsed_path(CATALOG_PATH)}", file=sys.stderr)

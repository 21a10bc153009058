"""Code written for a newer Theano: a name a paste's error says is missing that a later release added.

`cannot import name 'pool'`, `module 'theano.tensor.nnet' has no attribute 'relu'`, Python 2's
`'module' object has no attribute 'relu'` under a line calling `T.nnet.relu(x)`, `No module
named theano.gpuarray`: the missing name and the module it was asked of (from the message, or
from the paste's own lines that import or call it) are looked up in data/theano_api.json, which
tools/theano_api.py writes from Theano's release tags. A name some release added and the last
one still has was asked of a Theano older than that release (theano_too_old), unless the paste
states a Theano at least that new.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from gpuforge import locations
from gpuforge.doctor.catalog import lookup, version_key

MISSING_RE = re.compile(
    r"cannot import name '?(?P<name>\w+)'?(?: from '(?P<module>[\w.]+)')?"
    r"|module '(?P<attr_module>[\w.]+)' has no attribute '(?P<attr>\w+)'"
    r"|'module' object has no attribute '(?P<py2attr>\w+)'"
    r"|No module named '?(?P<missing_module>[\w.]+)'?"
)
ALIASES = {"T": "theano.tensor", "tt": "theano.tensor", "tensor": "theano.tensor", "theano": "theano"}


@cache
def api() -> tuple[tuple[str, ...], dict[str, int]]:
    """(release names, {module or module:name: index of the release that added it})."""
    doc = json.loads(locations.THEANO_API.read_text(encoding="utf-8"))
    return tuple(doc["releases"]), dict(doc["added"])


def _modules_asking(text: str, name: str) -> set[str]:
    """The Theano modules the paste's lines ask ``name`` of: `from theano.x import ..., name`,
    `import theano.x.name`, and attribute chains such as `T.nnet.name` or `theano.tensor.name`."""
    found = set()
    for m in re.finditer(rf"^\s*from (theano(?:\.\w+)*) import [\w\s,()]*\b{name}\b", text, re.M):
        found.add(m[1])
    for m in re.finditer(rf"\b(theano(?:\.\w+)*)\.{name}\b", text):
        found.add(m[1])
    for m in re.finditer(rf"\b(T|tt|tensor)((?:\.\w+)*)\.{name}\b", text):
        found.add(ALIASES[m[1]] + m[2])
    return found


def _asked(text: str) -> set[tuple[str, str]]:
    """(module, name) pairs the paste's errors say are missing."""
    asked = set()
    for m in MISSING_RE.finditer(text):
        if m["missing_module"]:
            parent, _, leaf = m["missing_module"].rpartition(".")
            if parent.startswith("theano"):
                asked.add((parent, leaf))
            else:
                asked.update((module, leaf) for module in _modules_asking(text, leaf))
            continue
        name = m["name"] or m["attr"] or m["py2attr"]
        module = m["module"] or m["attr_module"]
        if module and module.startswith("theano"):
            asked.add((module, name))
        elif not module:
            asked.update((found, name) for found in _modules_asking(text, name))
    return asked


def newer_theano_asked(text: str, facts: dict[str, Any]) -> str | None:
    """What the paste asks of a newer Theano, or None (nothing, or a Theano stated that new)."""
    if "theano" not in text.lower() and not re.search(r"\bT\.\w", text):
        return None
    releases, added = api()
    stated = lookup(facts, "imports.theano.version")
    for module, name in sorted(_asked(text)):
        first = added.get(f"{module}:{name}", added.get(f"{module}.{name}"))
        if first is None:
            continue
        if isinstance(stated, str) and version_key(stated) >= version_key(releases[first]):
            continue
        return f"{module}.{name} is in Theano {releases[first]} and later"
    return None

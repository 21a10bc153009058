"""Code written for a newer Theano: a name a paste's error says is missing that a later release added.

`cannot import name 'pool'`, `module 'theano.tensor.nnet' has no attribute 'relu'`, Python 2's
`'module' object has no attribute 'relu'` under a line calling `T.nnet.relu(x)`, `No module
named theano.gpuarray`, `'TheanoConfigParser' object has no attribute 'scan'` (theano.config's
attributes: each AddConfigVar's section), the same said in prose ("theano.tensor.nnet.relu
which is not exist", "an import error on the gpu_alloc_empty" of the paste's own import, "a
non-existent arg(filter_dilation)" of its own call), a keyword a signature lacks (`conv2d() got
an unexpected keyword argument 'filter_dilation'`):
the missing name and the module it was asked of (from the message, from the paste's own lines
that import or call it, or, for a bare name raised in a Theano user's own frame, from every
Theano module that has it) are looked up in data/theano_api.json, which tools/theano_api.py
writes from Theano's release tags: the first and the last release having each name (a
package's names are what it defines and imports, its sub-modules only where it imports them;
a function's keywords are names `func(keyword)`). The installed Theano lacks the name, so it
is older than the first release or newer than the last:

- a name every release since its first still has: older (theano_too_old);
- a name asked of a module that exists (`cannot import name`, `has no attribute`), dropped
  with that module (the old back-end's theano.sandbox.cuda, gone in 1.0): the module is there,
  so the Theano is not newer than the last release: older;
- a name dropped while its module stayed, or a module dropped: either, so not judged;

unless the paste states a Theano at least as new as the first release.

Lasagne's GitHub master hides the layers an older Theano cannot run (LASAGNE_HIDES): asked
for one beside a stated Lasagne master (0.2.dev) or a stated Theano older than the release
adding what it needs, the Theano is too old for it.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from typing import Any, NamedTuple

from gpuforge import locations
from gpuforge.doctor.catalog import lookup, version_key

MISSING_RE = re.compile(
    r"cannot import name '?(?P<name>\w+)'?(?: from '(?P<module>[\w.]+)')?"
    r"|module '(?P<attr_module>[\w.]+)' has no attribute '(?P<attr>\w+)'"
    r"|'module' object has no attribute '(?P<py2attr>\w+)'?"  # a paste may cut the closing quote
    r"|No module named '?(?P<missing_module>[\w.]+)'?"
    # theano.config asked for an attribute (a section or a flag) its release does not define
    # (theano/configparser.py: the config object is a TheanoConfigParser)
    r"|'TheanoConfigParser' object has no attribute '(?P<config_attr>\w+)'"
)
# the same said in prose: "theano.tensor.nnet.relu which is not exist", "T.signal.pool is
# missing", "there is no cuda under theano.sandbox", "can't find relu in theano.tensor.nnet",
# "I did not find ```dump``` defined in ```theano.misc.pkl_utils```"
_GONE = (
    r"(?:is|are)? ?not exists?|(?:does|do|dose)(?: not|n't) exists?|(?:is|are) missing|"
    r"(?:is|are)(?: not|n't) (?:there|available|defined|found)|is undefined|not found|"
    r"(?:cannot|can't|can not|could not|couldn't) be (?:found|imported)"
)
_DOTTED = r"(?:theano|T|tt)(?:\.\w+)+"
PROSE_MISSING_RE = re.compile(
    rf"\b(?P<dotted>{_DOTTED})(?:\(\))?[`'\"]?,?(?: (?:function|module|attribute|op|class))?"
    rf",? (?:(?:which|that) )?(?:{_GONE})\b"
    r"|\b(?:there is no|there's no|there isn't (?:a|an|any)|I have no|I don't have|no such "
    r"(?:module|attribute|function|submodule)|(?:cannot|can't|can not|could not|couldn't|"
    r"did not|didn't) find)"
    # a name in Markdown's code marks (`name`, ```name```), "defined in" the module
    r" (?:a |an |the |any )?[`'\"]*(?P<name>\w+)[`'\"]*(?:\(\))?"
    r"(?: (?:module|function|attribute|submodule|class|op))?(?: defined)? (?:in|under|from|inside|within) "
    rf"(?:the )?[`'\"]*(?P<module>{_DOTTED}|theano)\b",
    re.I,
)
# a call with a keyword the installed release's signature lacks (CPython's words; 3.10 and
# later qualify a method: `AbstractConv2d.__init__() got ...`)
KEYWORD_RE = re.compile(
    r"(?:(?P<cls>\w+)\.)?(?P<func>\w+)\(\) got an unexpected keyword argument '(?P<kw>\w+)'"
)
ALIASES = {"T": "theano.tensor", "tt": "theano.tensor", "tensor": "theano.tensor", "theano": "theano"}
# a traceback's frame line; a Theano user's own frame names theano in its path (Keras'
# backend/theano_backend.py, lasagne/theano_extensions/...)
FRAME_RE = re.compile(r'^[ \t]*File "(?P<path>[^"\n]+)", line \d+(?:, in (?P<func>\w+))?', re.M)


# Lasagne master (github.com/Lasagne/Lasagne) deletes these names when Theano lacks what they
# need: lasagne/layers/conv.py:789 (`if not hasattr(T.nnet, 'conv3d'): del Conv3DLayer`),
# conv.py:1180 (AbstractConv3d_gradInputs: TransposedConv3DLayer, Deconv3DLayer), pool.py:575
# (`if not hasattr(T.signal.pool, 'pool_3d')`: Pool3DLayer, MaxPool3DLayer)
LASAGNE_HIDES = {
    "Conv3DLayer": "theano.tensor.nnet:conv3d",
    "TransposedConv3DLayer": "theano.tensor.nnet.abstract_conv:AbstractConv3d_gradInputs",
    "Deconv3DLayer": "theano.tensor.nnet.abstract_conv:AbstractConv3d_gradInputs",
    "Pool3DLayer": "theano.tensor.signal.pool:pool_3d",
    "MaxPool3DLayer": "theano.tensor.signal.pool:pool_3d",
}
LASAGNE_MISSING_RE = re.compile(rf"(?:cannot import name |has no attribute )'?({'|'.join(LASAGNE_HIDES)})\b")
# the keywords Lasagne's master gave its layers and functions, which 0.1 (PyPI's only release)
# lacks: the signatures of lasagne/ at v0.1 against master 5d3c63c (a layer's **kwargs reach
# Layer.__init__, which refuses them: `__init__() got an unexpected keyword argument 'flip_filters'`
# under lasagne/layers/conv.py)
LASAGNE_MASTER_KEYWORDS = {
    "cropping": ("ConcatLayer", "ElemwiseMergeLayer", "ElemwiseSumLayer"),
    "flip_filters": ("Conv1DLayer", "Conv2DLayer"),
    "num_groups": ("Conv2DDNNLayer", "Conv2DMMLayer"),
    "only_return_final": ("CustomRecurrentLayer", "RecurrentLayer", "LSTMLayer", "GRULayer"),
    "num_leading_axes": ("DenseLayer",),
    "shared_axes": ("DropoutLayer",),
    "unwrap_shared": ("get_all_params",),
}
# ... of which these are no keyword of Theano's (data/theano_api.json) nor of Keras' (keras-team/keras
# tags 1.2.2, 2.0.0, 2.2.4, 2.4.0: flip_filters only as a local of theano_backend.py): refused with no frame
# or call shown, they are still Lasagne 0.1's refusal
LASAGNE_MASTER_ONLY = frozenset({"flip_filters", "only_return_final", "num_leading_axes", "unwrap_shared"})


class Asked(NamedTuple):
    module: str  # the Theano module the name was asked of
    name: str
    module_exists: bool  # the error is the name's (the module imported), not the module's
    # asked as an attribute (`has no attribute`, prose): only the package's own names answer (a
    # sub-module it does not import is no attribute: theano.tensor leaves slinalg to `import
    # theano.tensor.slinalg`, Theano #6211)
    attribute: bool = False


@cache
def api() -> tuple[tuple[str, ...], dict[str, tuple[int, int]]]:
    """(release names, {module or module:name: (first, last) index of the releases having it})."""
    doc = json.loads(locations.THEANO_API.read_text(encoding="utf-8"))
    return tuple(doc["releases"]), {k: (span[0], span[1]) for k, span in doc["spans"].items()}


def _modules_asking(text: str, name: str) -> set[str]:
    """The Theano modules the paste's lines ask ``name`` of: `from theano.x import ..., name`,
    `import theano.x.name`, and attribute chains such as `T.nnet.name` or `theano.tensor.name`."""
    return set(_asking_index(text).get(name, ()))


@lru_cache(maxsize=4)
def _asking_index(text: str) -> dict[str, frozenset[str]]:
    """{name: the Theano modules the paste asks it of}, read in one pass over the paste (a
    search per name made a long log's lookups quadratic): each `from theano.x import a, b`
    (its parenthesized names may run over lines), and each prefix of an attribute chain
    (`theano.tensor.nnet.relu` asks tensor of theano, nnet of theano.tensor, relu of
    theano.tensor.nnet; `T.` is theano.tensor)."""
    index: dict[str, set[str]] = {}
    for m in re.finditer(r"^[ \t]*from (theano(?:\.\w+)*) import ([\w\s,()]*)", text, re.M):
        for name in re.findall(r"\w+", m[2]):
            index.setdefault(name, set()).add(m[1])
    for m in re.finditer(r"\b(?:theano|T|tt|tensor)(?:\.\w+)+", text):
        head, *parts = m[0].split(".")
        module = head if head == "theano" else _full_module(head)
        for part in parts:
            index.setdefault(part, set()).add(module)
            module = f"{module}.{part}"
    return {name: frozenset(modules) for name, modules in index.items()}


def _full_module(dotted: str) -> str:
    """``T.nnet`` as theano.tensor.nnet: the first part through ALIASES."""
    head, dot, rest = dotted.partition(".")
    return ALIASES.get(head, head) + dot + rest


def _frame_above(text: str, at: int) -> re.Match[str] | None:
    """The traceback frame line just above the error at ``at``."""
    frames = list(FRAME_RE.finditer(text, 0, at))
    return frames[-1] if frames else None


def _raised_in_theano_user(text: str, at: int) -> bool:
    """Whether the traceback frame just above the error at ``at`` is a file of Theano's own
    users (its path names theano: Keras' backend/theano_backend.py)."""
    frame = _frame_above(text, at)
    return frame is not None and "theano" in frame["path"].lower()


def _theano_frame_function(text: str, at: int) -> str | None:
    """The function of Theano's own frame just above the error at ``at`` (`theano/tensor/nnet/
    conv.py", line 149, in conv2d`: the conv2d a newer release gave the keyword), if that frame
    is Theano's."""
    frame = _frame_above(text, at)
    if frame is None or not re.search(r"[/\\]theano[/\\]", frame["path"]):
        return None
    return frame["func"]


def _modules_having(name: str) -> set[str]:
    """The Theano modules whose name lists have ``name`` (as a name or a sub-module)."""
    _, spans = api()
    modules = {key.rpartition(":")[0] for key in spans if key.endswith(f":{name}")}
    return modules | {k.rpartition(".")[0] for k in spans if k.endswith(f".{name}") and ":" not in k}


def _asked(text: str) -> set[tuple[Asked, ...]]:
    """What the paste's errors say is missing, with the module it was asked of: each a tuple of
    the modules it may have been asked of (one, but for a bare name raised in a Theano user's
    frame: every Theano module having it)."""
    asked: set[tuple[Asked, ...]] = set()
    for m in PROSE_MISSING_RE.finditer(text):
        module, name = m["dotted"].rsplit(".", 1) if m["dotted"] else (m["module"], m["name"])
        module = _full_module(module)
        if module.startswith("theano"):
            asked.add((Asked(module, name, True, attribute=True),))
    for m in MISSING_RE.finditer(text):
        if m["missing_module"]:
            parent, _, leaf = m["missing_module"].rpartition(".")
            if parent.startswith("theano"):
                asked.add((Asked(parent, leaf, False),))
            else:
                asked.update((Asked(module, leaf, False),) for module in _modules_asking(text, leaf))
            continue
        if m["config_attr"]:
            asked.add((Asked("theano.config", m["config_attr"], True, attribute=True),))
            continue
        name = m["name"] or m["attr"] or m["py2attr"]
        module = m["module"] or m["attr_module"]
        attribute = not m["name"]
        if module and module.startswith("theano"):
            asked.add((Asked(module, name, True, attribute),))
        elif not module:
            modules = _modules_asking(text, name)
            asked.update((Asked(found, name, True, attribute),) for found in modules)
            if not modules and m["name"] and _raised_in_theano_user(text, m.start()):
                having = sorted(_modules_having(name))
                if having:
                    asked.add(tuple(Asked(found, name, True) for found in having))
    return asked


def _first_release_lacking(asked: Asked) -> int | None:
    """The release the installed Theano is older than, or None when the span cannot say."""
    releases, spans = api()
    newest = len(releases) - 1
    name, module = f"{asked.module}:{asked.name}", f"{asked.module}.{asked.name}"
    # an attribute is a name of the package (a sub-module it does not import is none); an
    # import may also reach a sub-module's file; a missing module is the module first
    keys = (name,) if asked.attribute else (name, module) if asked.module_exists else (module, name)
    span = next((spans[k] for k in keys if k in spans), None)
    if span is None or span[0] == 0:
        return None  # every release has it, or no release: not a version's name
    first, last = span
    if last == newest:
        return first
    module_span = spans.get(asked.module, (0, newest))
    if asked.module_exists and module_span[1] == last:
        return first  # the module left with the name, and it is still here: an older Theano
    return None


def _stated_as_new(facts: dict[str, Any], release: str) -> bool:
    """Whether the paste states a Theano at least as new as ``release``."""
    stated = lookup(facts, "imports.theano.version")
    return isinstance(stated, str) and version_key(stated) >= version_key(release)


def _lasagne_layer_hidden(text: str, facts: dict[str, Any]) -> str | None:
    """A layer Lasagne master hides from an older Theano, missing beside a stated Lasagne master
    or a stated Theano older than what the layer needs."""
    releases, spans = api()
    stated = lookup(facts, "imports.theano.version")
    lasagne = lookup(facts, "imports.lasagne.version")
    for m in LASAGNE_MISSING_RE.finditer(text):
        needs = LASAGNE_HIDES[m[1]]
        first = spans[needs][0]
        if _stated_as_new(facts, releases[first]):
            continue  # a Theano that new: something else hid it
        if isinstance(stated, str) or (isinstance(lasagne, str) and version_key(lasagne) >= (0, 2)):
            needed = needs.replace(":", ".")
            return f"lasagne.layers.{m[1]} needs {needed}, in Theano {releases[first]} and later"
    return None


def lasagne_keyword_added(text: str, facts: dict[str, Any]) -> str | None:
    """A keyword only Lasagne's master has, refused under one of Lasagne's frames or by a call
    of the layer having it (Lasagne 0.1 installed), unless the paste states Lasagne master."""
    lasagne = lookup(facts, "imports.lasagne.version")
    if isinstance(lasagne, str) and version_key(lasagne) >= (0, 2):
        return None
    for m in KEYWORD_RE.finditer(text):
        owners = LASAGNE_MASTER_KEYWORDS.get(m["kw"])
        if not owners:
            continue
        frame = _frame_above(text, m.start())
        in_lasagne = frame is not None and re.search(r"[/\\]lasagne[/\\]", frame["path"])
        # a layer called under its own name or another (`Conv2DLayer as ConvLayer`, Lasagne's
        # Recipes' and tutorials' alias)
        called = next((o for o in owners if re.search(rf"\b{o}\([^\n]*\b{m['kw']}\s*=", text)), None)
        aliased = re.search(rf"\b\w*Layer\([^\n]*\b{m['kw']}\s*=", text)
        unseen = frame is None and m["kw"] in LASAGNE_MASTER_ONLY  # no frame says whose code refused it
        if in_lasagne or called or aliased or unseen:
            return f"{called or ' / '.join(owners)}({m['kw']}=...) is in Lasagne's master, not in 0.1"
    return None


def _keyword_added(text: str, facts: dict[str, Any]) -> str | None:
    """A keyword a Theano function or class gained in a later release (the release tags'
    signatures), asked of it by the paste's own call (`T.nnet.conv2d(...)`) or from a frame
    of Theano's users (Lasagne, Keras' theano_backend.py)."""
    for m in KEYWORD_RE.finditer(text):
        func = m["cls"] if m["func"] == "__init__" and m["cls"] else m["func"]
        if func == "__init__":  # Python before 3.10 does not say whose: the Theano function
            func = _theano_frame_function(text, m.start())  # that passed it on (**kwargs)
            if func is None:
                continue
        elif not _modules_asking(text, func) and not _raised_in_theano_user(text, m.start()):
            continue
        added = _keyword_first_added(func, m["kw"], facts)
        if added:
            return added
    return None


def _keyword_first_added(func: str, keyword: str, facts: dict[str, Any]) -> str | None:
    """``func(keyword)`` as a later release's: the release every function of that name first
    took it in, unless a release dropped it, every release has it, or the paste states a
    Theano that new."""
    releases, spans = api()
    newest = len(releases) - 1
    found = [span for key, span in spans.items() if key.endswith(f":{func}({keyword})")]
    if not found or any(last != newest for _, last in found):
        return None  # no release has it, or one dropped it: not judged
    first = min(first for first, _ in found)
    if first == 0 or _stated_as_new(facts, releases[first]):
        return None
    return f"{func}({keyword}=...) is in Theano {releases[first]} and later"


# a Theano name said in prose to be gone: "signal.downsample.max_pool_2d do not exist", "has
# removed/renamed the max_pool_2d", "downsample.max_pool_2d() has been removed",
# "theano.sandbox.cuda.dnn is discarded in theano 1", "... import downsample 已经更改为 ..." (has
# been changed to); the line's names are looked up in the release lists
GONE_RE = re.compile(
    r"\b(?:removed|renamed|deleted|discarded|no longer (?:exists?|there|available)|"
    r"(?:do|does|did|dose)(?:n't| not) exists?|(?:is|are) (?:gone|not exists?)|"
    r"has been (?:removed|renamed|changed|replaced|moved)|(?:changed|renamed|moved) to|"
    r"replaced (?:by|with))\b|已经?(?:更改|改|变)为|被?(?:删除|移除|去掉)|不存在",
    re.I,
)
# `from theano.x import name`, or a name as code writes it: dotted, or with an underscore or
# a digit (a bare English word is no name: "use" is theano.sandbox.cuda's too)
CODE_NAME_RE = re.compile(
    r"\bfrom ((?:theano|T|tt)(?:\.\w+)*) import (\w+)"
    r"|\b([A-Za-z_]\w*(?:\.\w+)+|\w*_\w*|[A-Za-z]+\d\w*)\b"
)


@cache
def _keys_ending() -> dict[str, list[str]]:
    """The release-list keys by their last part (``max_pool_2d``: ...downsample:max_pool_2d)."""
    by_leaf: dict[str, list[str]] = {}
    for key in api()[1]:
        by_leaf.setdefault(re.split(r"[.:]", key)[-1], []).append(key)
    return by_leaf


def _dropped_keys(token: str) -> list[str] | None:
    """The release-list keys a name as written may be (``signal.downsample.max_pool_2d`` ends
    theano.tensor.signal.downsample:max_pool_2d), if it is some and every one was dropped."""
    releases, spans = api()
    newest = len(releases) - 1
    full = _full_module(token) if token.split(".")[0] in ALIASES else token
    keys = [
        k
        for k in _keys_ending().get(token.rpartition(".")[2], [])
        if (dotted := k.replace(":", ".")) == full or dotted.endswith("." + token)
    ]
    if not keys or any(spans[k][1] == newest for k in keys):
        return None
    return keys


def dropped_theano_named(text: str) -> str | None:
    """A Theano name a line of prose says is gone that a release dropped (the code was written
    for an older Theano than the one installed): the name and the last release having it."""
    releases, spans = api()
    # a paste that never names Theano: only a name Theano's own (signal.downsample.max_pool_2d)
    theano_named = "theano" in text.lower() or re.search(r"\b(?:T|tt)\.\w", text)
    for line in text.splitlines():
        if not GONE_RE.search(line):
            continue
        for m in CODE_NAME_RE.finditer(line):
            token = f"{m[1]}.{m[2]}" if m[1] else m[3]
            if not theano_named and token.count(".") < 2:
                continue
            keys = _dropped_keys(token)
            if keys:
                last = max(spans[k][1] for k in keys)
                return f"{keys[0].replace(':', '.')} (last in Theano {releases[last]})"
    return None


# other words for a name a release lacks, said before the name: "a non-existent
# arg(filter_dilation)", "an import error on the gpu_alloc_empty", "tensor.nnet will not support
# the relu() function", "没有 ..." (has no); the names within a few words after it are asked
LACKING_RE = re.compile(
    r"\bnon-?existent\b|\bnot (?:yet )?(?:support|supported|available|included|released) (?:in |by )?|"
    r"\b(?:does|do|did)(?:n't| not) (?:have|support|contain|include|recogni[sz]e|accept|know)\b|"
    r"\b(?:has|have) no\b|\blacks?\b|\bimport ?error (?:on|for|with|at|of)\b|"
    r"\b(?:cannot|can't|can not|could not|couldn't|fails? to|failed to|unable to) import\b|"
    r"\bunknown (?:keyword|argument|parameter|attribute|function)\b|\bno such\b|"
    r"没有|不存在|找不到|不支持",
    re.I,
)
# a name as the prose writes it: code-like (CODE_NAME_RE's), quoted, or called (`relu()`)
PROSE_NAME_RE = re.compile(r"[`'\"](\w+)[`'\"]|\b(\w+)\(\)|" + CODE_NAME_RE.pattern)


def _prose_names(text: str) -> list[tuple[str, set[str]]]:
    """(name as written, the Theano modules its line names) for each name within a few words
    after a LACKING_RE phrase, once each; error and code lines are MISSING_RE's."""
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.lstrip().startswith(("File ", "from ", "import ")) or MISSING_RE.search(line):
            continue  # code, tracebacks and errors: MISSING_RE and _modules_asking read them
        lacking = [m.end() for m in LACKING_RE.finditer(line)]
        if not lacking:
            continue
        line_modules = {_full_module(m[0]) for m in re.finditer(_DOTTED + r"|\btensor(?:\.\w+)+", line)}
        for end in lacking:
            for m in PROSE_NAME_RE.finditer(line[end : end + 50]):
                token = f"{m[3]}.{m[4]}" if m[3] else next(g for g in m.groups() if g)
                found.setdefault(token, set()).update(line_modules)
    return list(found.items())


def _prose_lacking(text: str, names: list[tuple[str, set[str]]]) -> set[tuple[Asked, ...]]:
    """The ``names`` the paste's prose says its Theano lacks (_prose_names), asked of the Theano
    module the name is dotted with, the paste's own code asks it of, or the line names."""
    asked: set[tuple[Asked, ...]] = set()
    leaves = _keys_ending()
    for token, line_modules in names:
        module, _, name = _full_module(token).rpartition(".")
        if name not in leaves:
            continue  # no release has such a name: nothing to look up
        modules = {module} if module.startswith("theano") else set()
        modules |= _modules_asking(text, name) or {
            found for found in line_modules if found != f"{module}.{name}"
        }
        asked.update((Asked(found, name, True),) for found in modules)
    return asked


@cache
def _keywords() -> frozenset[str]:
    """Every keyword some release's function or class takes (the release lists' `f(keyword)`)."""
    return frozenset(key[key.rindex("(") + 1 : -1] for key in api()[1] if key.endswith(")"))


def _prose_keyword(text: str, names: list[tuple[str, set[str]]], facts: dict[str, Any]) -> str | None:
    """A keyword the prose says is lacking (`a non-existent arg(filter_dilation)`, one of
    ``names``) that the paste's own call passes to a Theano function (`T.nnet.conv2d(...,
    filter_dilation=...)`) a later release gave it."""
    keywords = {token for token, _ in names if "_" in token and token in _keywords()}
    for keyword in sorted(keywords):
        for call in re.finditer(rf"\b(\w+)\([^\n]*\b{keyword}\s*=", text):
            added = _keyword_first_added(call[1], keyword, facts) if _modules_asking(text, call[1]) else None
            if added:
                return added
    return None


def newer_theano_asked(text: str, facts: dict[str, Any]) -> str | None:
    """What the paste asks of a newer Theano, or None (nothing, or a Theano stated that new)."""
    if "theano" not in text.lower() and not re.search(r"\bT\.\w", text):
        return None
    # Theano-PyMC 1.0.12 renamed theano.config's attributes with double underscores
    # (`gcc__cxxflags`, configdefaults.py; rel-1.1.0 configparser.py:160 "Dot-based sections were
    # removed. Use double underscores!"), names no Theano release (to 1.0.5) has: code asking for
    # one (PyMC3 3.11's __set_compiler_flags) needs a newer Theano(-PyMC) than the one imported
    asked_of_config = (m["config_attr"] for m in MISSING_RE.finditer(text) if m["config_attr"])
    doubled = next((name for name in asked_of_config if "__" in name), None)
    if doubled:
        return f"theano.config.{doubled} is named so from Theano-PyMC 1.0.12 on (no Theano release has it)"
    hidden = _lasagne_layer_hidden(text, facts) or _keyword_added(text, facts)
    if hidden:
        return hidden
    releases, _ = api()
    names = _prose_names(text)
    for alternatives in sorted(_asked(text)) + sorted(_prose_lacking(text, names)):
        firsts = [_first_release_lacking(asked) for asked in alternatives]
        if None in firsts:
            continue  # some module it may have been asked of cannot say
        first = min(f for f in firsts if f is not None)
        if _stated_as_new(facts, releases[first]):
            continue
        name = alternatives[0].name
        where = " or ".join(f"{asked.module}.{name}" for asked in alternatives)
        return f"{where} is in Theano {releases[first]} and later"
    return _prose_keyword(text, names, facts)

"""Write src/gpuforge/data/theano_api.json: which Theano releases have each public name.

    python tools/theano_api.py PATH-TO-A-THEANO-GIT-CLONE

For every release tag below, every module under theano/ (tests left out) and its public
top-level names (def, class, assignment, import) are read from the tag's tree with `git show`;
the attributes of theano.config (the first part of each AddConfigVar name: `scan` of
scan.allow_gc) are read as the names of a module theano.config. The file keeps, for every name
that says something of a version (one a release added, or one a release dropped), the first and
the last release that has it. The doctor reads it to tell code
written for a newer Theano (`cannot import name`, `has no attribute`, `No module named`) from
other errors.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

# a config variable's definition (theano/configparser.py AddConfigVar(name, doc, param, ...)):
# the first part of its dotted name is the attribute of theano.config it adds
CONFIG_VAR_RE = re.compile(r"\bAddConfigVar\(\s*['\"]([A-Za-z_]\w*)")
RELEASES = ["rel-0.6", "rel-0.7", "rel-0.8.0", "rel-0.8.2", "rel-0.9.0", "rel-1.0.0", "rel-1.0.5"]
OUT = Path(__file__).resolve().parents[1] / "src" / "gpuforge" / "data" / "theano_api.json"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def public_names(source: str, package: bool) -> set[str]:
    """Top-level public names; a package's imports too (what it re-exports: nnet's relu)."""
    try:
        with warnings.catch_warnings():  # old releases' regexes in plain strings ("\(")
            warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
            tree = ast.parse(source)
    except (SyntaxError, ValueError):  # Python 2 only syntax (print, `except E, e`) in an old release
        return _public_names_by_line(source, package)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            names.update(f"{node.name}({p})" for p in parameters(node))
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif package and isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
            # `from .abstract_conv import conv2d` imports the sub-module too: Python binds it
            # as the package's attribute (T.nnet.abstract_conv works after `import theano`)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if not n.startswith("_")}


def parameters(node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The keyword parameters a function, or a class's __init__, accepts (none for **kwargs
    alone): `max_pool_2d() got an unexpected keyword argument 'mode'` is a release's signature."""
    if isinstance(node, ast.ClassDef):
        init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if init is None:
            return []
        node = init
    args = [*node.args.args, *node.args.kwonlyargs]
    return [a.arg for a in args if a.arg not in ("self", "cls")]


def _parameters_by_text(source: str, start: int) -> list[str]:
    """The keyword parameters of the signature whose "(" is at ``start``, read from the text
    (a module Python 3 cannot parse): each top-level comma's name, less *args, **kwargs and
    Python 2's tuple parameters."""
    depth, end = 0, start
    for end in range(start, len(source)):
        depth += {"(": 1, ")": -1}.get(source[end], 0)
        if depth == 0:
            break
    params, part, depth = [], "", 0
    for ch in source[start + 1 : end] + ",":
        if ch == "," and depth == 0:
            name = re.match(r"\s*([A-Za-z_]\w*)\s*(?:=|$)", part)
            if name and name[1] not in ("self", "cls"):
                params.append(name[1])
            part = ""
            continue
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        part += ch
    return params


def _public_names_by_line(source: str, package: bool) -> set[str]:
    """The same names read line by line, for a module Python 3 cannot parse, with the keyword
    parameters of its functions and of its classes' __init__."""
    names = set(re.findall(r"^(?:def|class) (\w+)", source, re.M))
    for m in re.finditer(r"^def (\w+)\s*\(", source, re.M):
        names.update(f"{m[1]}({p})" for p in _parameters_by_text(source, m.end() - 1))
    for m in re.finditer(r"^class (\w+)\b.*?:\s*$", source, re.M):
        body = re.search(r"^(?=\S)|^[ \t]+def __init__\s*\(", source[m.end() :], re.M)
        if body and body[0].strip():
            start = m.end() + body.end() - 1
            names.update(f"{m[1]}({p})" for p in _parameters_by_text(source, start))
    names.update(re.findall(r"^(\w+)\s*=", source, re.M))
    if package:
        for imported in re.findall(r"^from \S+ import \(?([\w ,\\\n]+)\)?", source, re.M):
            names.update(n.split(" as ")[-1].strip() for n in imported.replace("\\", ",").split(","))
        names.update(re.findall(r"^from \.(\w+)[\w.]* import ", source, re.M))
        names.update(m.split(".")[0] for m in re.findall(r"^import ([\w.]+)", source, re.M))
    return {n for n in names if n and not n.startswith("_")}


def release_api(repo: Path, tag: str) -> dict[str, set[str]]:
    """module path -> its public names: what it defines, and a package's imports (the
    sub-modules its __init__ imports among them; one it does not import is no attribute of it
    until imported: theano.tensor leaves slinalg to `import theano.tensor.slinalg`, Theano
    #6211). Each module path is a key of its own."""
    api: dict[str, set[str]] = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", tag, "theano").split():
        if not path.endswith(".py") or "/tests/" in path:
            continue
        module = path[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        source = git(repo, "show", f"{tag}:{path}")
        names = public_names(source, path.endswith("__init__.py"))
        api.setdefault(module, set()).update(names)
        # theano.config's attributes: each AddConfigVar('section.option', ...) makes `section`
        # (or the option itself) an attribute of the config object, wherever it is called
        api.setdefault("theano.config", set()).update(CONFIG_VAR_RE.findall(source))
    return api


def main(argv: list[str] | None = None, out: Path = OUT) -> int:
    argv = sys.argv[1:] if argv is None else argv
    repo = Path(argv[0]) if len(argv) == 1 else Path()
    missing = [
        t
        for t in RELEASES
        if subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "-q", "--verify", t], capture_output=True
        ).returncode
        != 0
    ]
    if len(argv) != 1 or missing:
        print(
            f"usage: python tools/theano_api.py THEANO-GIT-CLONE (with the tags {', '.join(RELEASES)})",
            file=sys.stderr,
        )
        return 2
    apis = [release_api(repo, tag) for tag in RELEASES]
    spans: dict[str, list[int]] = {}
    for i, api in enumerate(apis):
        for module, names in api.items():
            for key in [module, *(f"{module}:{n}" for n in names)]:
                spans.setdefault(key, [i, i])[1] = i
    # a name every release has says nothing of a version: kept are the names some release added
    # or dropped, with the first and the last release that has them
    newest = len(RELEASES) - 1
    kept = {k: span for k, span in sorted(spans.items()) if span != [0, newest]}
    commits = {tag: git(repo, "rev-list", "-n1", tag).strip() for tag in RELEASES}
    doc = {
        "about": "Theano's public modules (theano.x.y) and names (theano.x.y:name) that a release "
        "added or dropped: the indexes of the first and the last release that has them. Written "
        "by tools/theano_api.py from the release tags of github.com/Theano/Theano.",
        "releases": [tag.removeprefix("rel-") for tag in RELEASES],
        "commits": commits,
        "spans": kept,
    }
    out.write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(kept)} names of {len(spans)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""conda-build's line selectors (``  # [win]``) and the names they may use."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from gpuforge.errors import GpuforgeError, InputError

PLATFORMS = ("linux-64", "win-64")

# conda-build's selector pattern (conda_build/metadata.py `sel_pat`, 26.7.1), on an rstripped line
# that is not a comment: `- x  # [win]`, `- x  # any text [win]`, `- x  # [win] more words` and a
# bare `- x [win]` (no `#`: the `]` must end the line) are all selector lines.
SELECTOR_RE = re.compile(r"(?P<content>.+?)\s*(?P<comment>#.*)?\[(?P<expr>[^\[\]]+)\](?(comment)[^\(\)]*)$")
# The one form conda-smithy accepts: content, two spaces, `# [expr]` ending the line.
SELECTOR_FORMAT_RE = re.compile(r"^(?P<content>.*?)(?P<space>\s*)#(?P<inner>\s*)\[(?P<expr>[^\[\]]+)\]\s*$")
NAME_ERROR_RE = re.compile(r"'(.+?)'")


def selector_of(line: str) -> re.Match[str] | None:
    """The selector match of a meta.yaml line, as conda-build finds it (comment lines have none)."""
    line = line.rstrip()
    if line.lstrip().startswith("#") or "[" not in line or "]" not in line:
        return None
    return SELECTOR_RE.match(line)


def eval_selector(expr: str, namespace: Mapping[str, object]) -> bool:
    """conda-build's evaluation: a name the namespace lacks is False (metadata.eval_selector)."""
    try:
        return bool(eval(expr.lstrip(), {"__builtins__": {}}, dict(namespace)))  # noqa: S307
    except NameError as exc:
        missing = NAME_ERROR_RE.search(str(exc))
        if missing is None:
            raise
        return eval_selector(expr.replace(missing.group(1), "False"), namespace)


def platform_namespace(platform: str) -> dict[str, object]:
    """Names conda-build defines for a target platform (``linux``, ``win64``, ...)."""
    if platform not in PLATFORMS:
        raise GpuforgeError(f"unknown platform {platform!r}: use one of {', '.join(PLATFORMS)}")
    is_win = platform.startswith("win")
    return {
        "linux": not is_win,
        "linux64": not is_win,
        "linux32": False,
        "unix": not is_win,
        "osx": False,
        "win": is_win,
        "win64": is_win,
        "win32": False,
        "x86": False,
        "x86_64": True,
        "aarch64": False,
        "arm64": False,
        "ppc64le": False,
        "target_platform": platform,
        "build_platform": platform,
        "os": os,
        "environ": os.environ,
        "nomkl": False,
    }


def _as_int_version(value: str, parts: int = 2) -> int:
    return int("".join(str(value).split(".")[:parts]))


def variant_namespace(platform: str, variant: Mapping[str, str]) -> dict[str, object]:
    """Platform names plus the variant's keys, with conda-build's ``py``/``np``/``vc`` ints."""
    ns = platform_namespace(platform)
    ns.update(variant)
    if "python" in variant:
        py = _as_int_version(variant["python"])
        ns.update(py=py, py3k=py >= 30, py2k=py < 30, py27=py == 27, py36=py == 36)
    if "numpy" in variant:
        ns["np"] = _as_int_version(variant["numpy"])
    if "vc" in variant:
        ns["vc"] = int(variant["vc"])
    return ns


def select_lines(text: str, namespace: Mapping[str, object], path: Path) -> str:
    """Blank the lines whose selector is false, strip the selector from the rest.

    Lines are blanked, not dropped, so YAML errors keep the source's line numbers.
    """
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = selector_of(line)
        if not m:
            out.append(line)
            continue
        expr = m.group("expr")
        try:
            keep = eval_selector(expr, namespace)
        except Exception as exc:  # noqa: BLE001 - any error in a selector is the user's
            raise InputError(f"selector [{expr}]: {exc}", path, lineno) from None  # cannot render: bad input
        quote = line.rstrip()[-1] if line.rstrip()[-1] in "'\"" else ""  # conda-build keeps it
        out.append((m.group("content") + quote).rstrip() if keep else "")
    return "\n".join(out) + "\n"


def selector_format_problems(text: str) -> list[tuple[int, str]]:
    """Lines whose selector is not written ``<content>  # [expr]`` (conda-smithy's rule)."""
    problems = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = SELECTOR_FORMAT_RE.match(line)
        if not m or not m.group("content").strip():
            continue
        if m.group("space") != "  " or m.group("inner") != " ":
            problems.append((lineno, f"selector should read `  # [{m.group('expr')}]`"))
    return problems

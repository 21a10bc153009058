"""conda-build's line selectors (``  # [win]``) and the names they may use."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from gpuforge.errors import GpuforgeError

PLATFORMS = ("linux-64", "win-64")

# content, then `# [expr]` at the end of the line (conda-build's rule).
SELECTOR_RE = re.compile(r"^(?P<content>.*?)(?P<space>\s*)#(?P<inner>\s*)\[(?P<expr>[^\[\]]+)\]\s*$")


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
        m = SELECTOR_RE.match(line)
        if not m:
            out.append(line)
            continue
        expr = m.group("expr")
        try:
            keep = eval(expr, {"__builtins__": {}}, dict(namespace))  # noqa: S307 - conda's rule
        except Exception as exc:  # noqa: BLE001 - any error in a selector is the user's
            raise GpuforgeError(f"selector [{expr}]: {exc}", path, lineno) from None
        out.append(m.group("content") if keep else "")
    return "\n".join(out) + "\n"


def selector_format_problems(text: str) -> list[tuple[int, str]]:
    """Lines whose selector is not written ``<content>  # [expr]`` (conda-smithy's rule)."""
    problems = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = SELECTOR_RE.match(line)
        if not m or not m.group("content").strip():
            continue
        if m.group("space") != "  " or m.group("inner") != " ":
            problems.append((lineno, f"selector should read `  # [{m.group('expr')}]`"))
    return problems

"""Mirrors: data/mirrors.yaml (package data), the one definition of where conda packages come from.

Each mirror becomes a generated ``envs/mirrors/<mirror>.condarc`` (``default_channels``
and ``custom_channels``); the env files name channels, never URLs, so an environment
exported behind one mirror installs behind any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text
from gpuforge.yamlio import expect_mapping, item_line, key_line, read_yaml

GENERATED_DIR = "mirrors"
THIRTY_TWO_BIT_RE = re.compile(r"(^|/)(win|linux)-32(/|$)")
# FACTS.md (mirror docs): these paths must not come back.
REMOVED_CHANNELS = {
    "free": "pkgs/free is frozen and left out of defaults since conda 4.7",
}
NOT_CLOUD = {
    "msys2": "cloud/msys2 was removed from the mirrors (2024-09): msys2 is pkgs/msys2, list it under defaults"
}


@dataclass(frozen=True)
class Mirror:
    name: str
    pkgs: str  # <pkgs>/<default channel>
    cloud: str  # <cloud>/<anaconda.org channel>


@dataclass(frozen=True)
class Mirrors:
    """The mirrors (data/mirrors.yaml), checked."""

    path: Path
    defaults: list[str]
    windows_only: list[str]
    custom: list[str]
    unmirrored: list[str]
    mirrors: dict[str, Mirror]

    def channel_names(self) -> set[str]:
        """Every channel name an env file may use."""
        return {"defaults", *self.defaults, *self.custom, *self.unmirrored}

    def default_names(self, platform: str) -> list[str]:
        win = platform.startswith("win")
        return [d for d in self.defaults if win or d not in self.windows_only]

    def channel_urls(self, name: str, mirror: str, platform: str) -> list[str]:
        """The URLs conda uses for channel ``name`` behind ``mirror`` on ``platform``."""
        m = self.mirrors[mirror]
        if name == "defaults":
            return [f"{m.pkgs}/{d}" for d in self.default_names(platform)]
        if name in self.defaults:
            return [f"{m.pkgs}/{name}"]
        if name in self.custom:
            return [f"{m.cloud}/{name}"]
        if name in self.unmirrored:
            return [f"{self.mirrors['official'].cloud}/{name}"]
        raise GpuforgeError(f"channel {name!r} is not defined in {self.path}")

    def generated_path(self, envs_dir: Path, mirror: str) -> Path:
        return Path(envs_dir) / GENERATED_DIR / f"{mirror}.condarc"


def _names(doc: dict, key: str, path: Path) -> list[str]:
    value = doc.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GpuforgeError(f"{key}: expected a list of channel names", path, key_line(doc, key))
    return [str(v) for v in value]


def _check_url(url: object, path: Path, line: int | None, what: str) -> str:
    if not isinstance(url, str) or not url.startswith("https://"):
        raise GpuforgeError(f"{what}: {url!r} is not an https URL", path, line)
    if THIRTY_TWO_BIT_RE.search(url):
        raise GpuforgeError(f"{what}: {url} is a 32-bit subdir (not supported)", path, line)
    return url.rstrip("/")


def load_mirrors(path: Path) -> Mirrors:
    """Read and check the mirrors (data/mirrors.yaml); a problem raises one located GpuforgeError."""
    path = Path(path)
    doc = expect_mapping(read_yaml(path), path, 1, "mirrors.yaml (defaults, custom_channels, mirrors ...)")
    known = ("defaults", "windows_only", "custom_channels", "unmirrored", "mirrors")
    for key in doc:
        if key not in known:
            raise GpuforgeError(f"unknown key {key!r} (known: {', '.join(known)})", path, key_line(doc, key))
    defaults = _names(doc, "defaults", path)
    windows_only = _names(doc, "windows_only", path)
    custom = _names(doc, "custom_channels", path)
    unmirrored = _names(doc, "unmirrored", path)
    for key, names in (("defaults", defaults), ("custom_channels", custom)):
        for i, name in enumerate(names):
            why = REMOVED_CHANNELS.get(name) or (NOT_CLOUD.get(name) if key != "defaults" else None)
            if why:
                raise GpuforgeError(f"{key}: {name}: {why}", path, item_line(doc[key], i))
    for name in windows_only:
        if name not in defaults:
            raise GpuforgeError(
                f"windows_only: {name} is not in defaults", path, key_line(doc, "windows_only")
            )
    seen: set[str] = set()
    for name in defaults + custom + unmirrored:
        if name in seen or name == "defaults":
            raise GpuforgeError(f"channel name {name!r} is defined twice", path)
        seen.add(name)
    raw = doc.get("mirrors")
    if not isinstance(raw, dict) or "official" not in raw:
        raise GpuforgeError(
            "mirrors: needs a mapping with at least `official`", path, key_line(doc, "mirrors") or 1
        )
    mirrors: dict[str, Mirror] = {}
    for name, entry in raw.items():
        line = key_line(raw, name)
        if not re.fullmatch(r"[a-z][a-z0-9-]*", str(name)):
            raise GpuforgeError(f"mirror name {name!r}: use lowercase letters, digits, -", path, line)
        if not isinstance(entry, dict) or set(entry) != {"pkgs", "cloud"}:
            raise GpuforgeError(f"mirror {name}: needs exactly `pkgs` and `cloud` URLs", path, line)
        urls = {
            k: _check_url(entry[k], path, key_line(entry, k) or line, f"{name}.{k}")
            for k in ("pkgs", "cloud")
        }
        mirrors[str(name)] = Mirror(str(name), urls["pkgs"], urls["cloud"])
    return Mirrors(path, defaults, windows_only, custom, unmirrored, mirrors)


def render_condarc(mirrors: Mirrors, mirror: str) -> str:
    """The text of envs/mirrors/<mirror>.condarc."""
    m = mirrors.mirrors[mirror]
    lines = [
        f"# Generated by `gpuforge envs render --mirror {mirror}` from gpuforge's data/mirrors.yaml:",
        "# do not edit (a test fails when this file and its source disagree).",
        f"# Use it for one command: CONDARC=envs/mirrors/{mirror}.condarc conda env create "
        "-f envs/gpu-win64.yml",
        f"# (Windows cmd: set CONDARC=envs\\mirrors\\{mirror}.condarc), or copy it to ~/.condarc;",
        "# after switching mirrors run `conda clean -i` so no other mirror's index is reused.",
        "channels:",
        "  - defaults",
        "show_channel_urls: true",
        "default_channels:",
        *(f"  - {m.pkgs}/{name}" for name in mirrors.defaults),
        "custom_channels:",
        *(f"  {name}: {m.cloud}" for name in mirrors.custom),
        *(f"  {name}: {mirrors.mirrors['official'].cloud}  # on no mirror" for name in mirrors.unmirrored),
    ]
    return "\n".join(lines) + "\n"


def drift_problems(mirrors: Mirrors, envs_dir: Path) -> list[tuple[Path, int, str]]:
    """Generated files that differ from what `gpuforge envs render` writes, or have no source."""
    problems = []
    for name in mirrors.mirrors:
        path = mirrors.generated_path(envs_dir, name)
        want = render_condarc(mirrors, name)
        fix = f"run `gpuforge envs render --mirror {name}`"
        if not path.is_file():
            problems.append((path, 0, f"missing: {fix}"))
            continue
        have = read_text(path)
        if have != want:
            a, b = have.splitlines(), want.splitlines()
            pairs = enumerate(zip(a, b, strict=False), 1)
            line = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)) + 1)
            problems.append((path, line, f"differs from what {mirrors.path} generates: {fix}"))
    for path in sorted((Path(envs_dir) / GENERATED_DIR).glob("*.condarc")):
        if path.stem not in mirrors.mirrors:
            problems.append(
                (path, 0, f"no mirror {path.stem!r} in {mirrors.path}: delete it or define the mirror")
            )
    return problems

"""data/records.yaml (package data): the real package records of the public channels, as data.

Each record is one published build (name, version, build, subdir, channel, the depends
and constrains the evidence shows) with the evidence it comes from. ``gpuforge envs
check`` matches every conda spec of an env file against them; ``gpuforge envs solve``
solves against them (py-rattler), with a stand-in only for a package they lack.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path

from rattler import BuildString, MatchSpec, PackageName, PackageRecord, Version
from rattler.exceptions import InvalidMatchSpecError, InvalidVersionError

from gpuforge.errors import GpuforgeError
from gpuforge.yamlio import item_line, key_line, load_yaml

RECORD_KEYS = {"name", "version", "build", "subdir", "channel", "depends", "constrains", "evidence"}
REQUIRED_KEYS = ("name", "version", "build", "subdir", "channel", "evidence")
# conda's `defaults` channel: pkgs/main and pkgs/r, plus pkgs/msys2 on Windows
DEFAULTS = {"win-64": ("pkgs/main", "pkgs/r", "pkgs/msys2"), "linux-64": ("pkgs/main", "pkgs/r")}
UNRECORDED_BUILD = "unrecorded"  # a record whose evidence names no build string
STALE_YEARS = 2  # evidence older than this does not show that a package is still published
CHECKED_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


@dataclass(frozen=True)
class Record:
    name: str
    version: str
    build: str | None
    subdir: str
    channel: str
    evidence: str
    line: int
    depends: tuple[str, ...] = ()
    constrains: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.channel}/{self.subdir}::{self.name}-{self.version}-{self.build or '?'}"

    def matches(self, spec: MatchSpec) -> bool:
        """Whether ``spec`` (name, version, build) admits this record."""
        record = PackageRecord(
            PackageName(self.name), self.version, BuildString(self.build or UNRECORDED_BUILD), 0, self.subdir
        )
        if self.build is None and spec.build is not None:
            return False  # the build is unknown: a build pin cannot be proven
        return spec.matches(record)


@dataclass(frozen=True)
class Evidence:
    source: str
    checked: str  # YYYY, YYYY-MM or YYYY-MM-DD: when the source was read


@dataclass
class Records:
    path: Path
    records: list[Record] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def not_rechecked(self, today: datetime.date, years: int = STALE_YEARS) -> list[Record]:
        """Records whose evidence was last checked more than ``years`` before ``today``."""
        limit = f"{today.year - years:04d}-{today.month:02d}"
        return [r for r in self.records if self.evidence[r.evidence].checked < limit]

    def names(self) -> set[str]:
        return {r.name for r in self.records}

    def published_channels(self) -> set[str]:
        """Env file channel names with records: `defaults` and anaconda.org channels."""
        names = {r.channel.removeprefix("pkgs/") for r in self.records}
        return names | ({"defaults"} if any(r.channel.startswith("pkgs/") for r in self.records) else set())

    def expand(self, channel: str, subdir: str) -> tuple[str, ...]:
        """The record channels an env file channel name stands for on ``subdir``."""
        if channel == "defaults":
            return DEFAULTS.get(subdir, ("pkgs/main", "pkgs/r"))
        if channel in ("main", "r", "msys2"):
            return (f"pkgs/{channel}",)
        return (channel,)

    def for_channels(self, channels: list[str], subdir: str) -> list[Record]:
        """The records of ``subdir`` (and noarch) that the env file channel names reach."""
        reach = {c for name in channels for c in self.expand(name, subdir)}
        return [r for r in self.records if r.subdir in (subdir, "noarch") and r.channel in reach]

    def matching(self, spec: MatchSpec, channels: list[str], subdir: str) -> list[Record]:
        return [
            r
            for r in self.for_channels(channels, subdir)
            if r.name == spec.name.normalized and r.matches(spec)
        ]


def _strings(value: object, what: str, path: Path, line: int | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GpuforgeError(f"{what}: expected a list of conda specs", path, line)
    for text in value:
        try:
            MatchSpec(text)  # repodata style: `libgpuarray 0.7.6` is exact
        except InvalidMatchSpecError as exc:
            raise GpuforgeError(
                f"{what}: {text!r} is not a valid conda MatchSpec: {exc}", path, line
            ) from None
    return tuple(value)


def load_records(path: Path) -> Records:
    """Read the records (data/records.yaml); a malformed record is one error naming its line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GpuforgeError(f"cannot read the package records: {exc.strerror}", path) from None
    doc = load_yaml(text, path)
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list):
        raise GpuforgeError("expected `evidence:` and a `records:` list", path, 1)
    evidence = {}
    for key, value in (doc.get("evidence") or {}).items():
        checked = str(value.get("checked", "")) if isinstance(value, dict) else ""
        if not isinstance(value, dict) or not value.get("source") or not CHECKED_RE.match(checked):
            raise GpuforgeError(
                f"evidence {key}: expected `source:` and `checked:` (YYYY[-MM[-DD]], "
                "when the source was read)",
                path,
                key_line(doc["evidence"], key),
            )
        evidence[str(key)] = Evidence(str(value["source"]), checked)
    out = Records(path, evidence=evidence)
    for i, raw in enumerate(doc["records"]):
        line = item_line(doc["records"], i)
        if not isinstance(raw, dict):
            raise GpuforgeError(
                "a record is a mapping (name, version, build, subdir, channel, evidence)", path, line
            )
        unknown = set(raw) - RECORD_KEYS
        missing = [k for k in REQUIRED_KEYS if k not in raw]
        if unknown or missing:
            what = (
                f"unknown key(s) {', '.join(sorted(unknown))}" if unknown else f"missing {', '.join(missing)}"
            )
            raise GpuforgeError(f"record: {what}", path, line)
        if str(raw["evidence"]) not in evidence:
            raise GpuforgeError(
                f"record {raw['name']}: evidence {raw['evidence']!r} is not under `evidence:`", path, line
            )
        try:
            Version(str(raw["version"]))
        except InvalidVersionError as exc:
            raise GpuforgeError(f"record {raw['name']}: {exc}", path, line) from None
        out.records.append(
            Record(
                str(raw["name"]),
                str(raw["version"]),
                None if raw["build"] is None else str(raw["build"]),
                str(raw["subdir"]),
                str(raw["channel"]),
                str(raw["evidence"]),
                line or 0,
                _strings(raw.get("depends"), f"record {raw['name']} depends", path, line),
                _strings(raw.get("constrains"), f"record {raw['name']} constrains", path, line),
            )
        )
    return out

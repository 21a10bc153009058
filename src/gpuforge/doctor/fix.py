"""`gpuforge doctor --fix`: plan the catalog's safe fixes, show each as a diff, write it (atomic,
with a backup): a .theanorc key, or a pin in an environment file."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuforge.doctor.catalog import Finding, lookup
from gpuforge.doctor.facts import derive
from gpuforge.doctor.theanorc import comment_out, parse, set_option
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import home, read_text, write_file
from gpuforge.inside import probe as inside_probe
from gpuforge.interpreters import linux_path
from gpuforge.locks import FileLock


@dataclass
class Change:
    """A file to write, or (path None) an instruction for what cannot be written safely."""

    entry_id: str
    path: Path | None
    old: str
    new: str
    note: str = ""


def _rc_target(config: dict[str, Any]) -> Path:
    """The .theanorc to add keys to: the last existing config file (it wins), else the first."""
    files = config.get("files") or []
    existing = [f["path"] for f in files if f.get("exists")]
    if existing:
        return Path(existing[-1])
    return Path(files[0]["path"]) if files else home() / ".theanorc"


def _flags_with(flags: str, key: str, value: str | None) -> str:
    parts = [p for p in flags.split(",") if p and p.split("=", 1)[0].lower() != key.lower()]
    if value is not None:
        parts.append(f"{key}={value}")
    return ",".join(parts)


def _fill(template: str, facts: dict[str, Any]) -> str | None:
    """``{fact.path}`` replaced by the fact; None when a fact is missing."""
    missing = []

    def sub(m: re.Match[str]) -> str:
        value = lookup(facts, m.group(1))
        if value in (None, ""):
            missing.append(m.group(1))
            return ""
        return str(value)

    out = re.sub(r"\{([\w.]+)\}", sub, str(template))
    return None if missing else out


class Fixer:
    """Plans the catalog's safe fixes for some findings; writes them (atomic, with a backup)."""

    def __init__(self, facts: dict[str, Any], config: dict[str, Any], env_file: Path | None):
        self.facts, self.config, self.env_file = facts, config, env_file
        self.texts: dict[Path, str] = {}
        self.changes: list[Change] = []

    def _text(self, path: Path) -> str:
        if path not in self.texts:
            self.texts[path] = read_text(path) if path.exists() or path.is_symlink() else ""
        return self.texts[path]

    def _settings(self) -> dict[str, Any]:
        return self.config.get("settings") or {}

    def _note(self, entry_id: str, note: str) -> None:
        self.changes.append(Change(entry_id, None, "", "", note))

    def _edit(self, entry_id: str, path: Path, new: str) -> None:
        old = self._text(path)
        if new != old:
            self.texts[path] = new
            self.changes.append(Change(entry_id, path, old, new))

    def set_key(self, entry_id: str, key: str, value: str) -> None:
        current = self._settings().get(key.lower())
        if current and current["value"] == value:
            return
        if current and current["source"] == "THEANO_FLAGS":
            flags = _flags_with(self.config.get("theano_flags", ""), current.get("key", key), value)
            self._note(
                entry_id,
                f"THEANO_FLAGS sets {key}={current['value']} and overrides .theanorc: "
                f'set THEANO_FLAGS="{flags}"',
            )
            return
        path = Path(current["file"]) if current else _rc_target(self.config)
        new = set_option(self._text(path), path, key, value)
        self._edit(entry_id, path, new)

    def rename_key(self, entry_id: str, old_key: str, new_key: str | None) -> None:
        current = self._settings().get(old_key.lower())
        if not current:
            return
        if current["source"] == "THEANO_FLAGS":
            flags = _flags_with(self.config.get("theano_flags", ""), current.get("key", old_key), None)
            if new_key:
                flags = _flags_with(flags, new_key, current["value"])
            self._note(entry_id, f'remove {old_key} from THEANO_FLAGS: set THEANO_FLAGS="{flags}"')
            return
        path = Path(current["file"])
        what = (
            f"gpuforge: old backend key, now {new_key}"
            if new_key
            else "gpuforge: old backend key, ignored by Theano 1.0"
        )
        text = comment_out(self._text(path), path, old_key, what)
        if new_key and new_key.lower() not in self._settings():
            text = set_option(text, path, new_key, current["value"])
        self._edit(entry_id, path, text)

    def pin(self, entry_id: str, package: str, spec: str) -> None:
        if self.env_file is None:
            self._note(
                entry_id,
                f"pin `{package}{spec}` in your environment file and recreate the "
                f"environment (`gpuforge doctor --fix --env-file FILE` writes the pin)",
            )
            return
        path = self.env_file
        if not path.is_file():
            raise GpuforgeError("no such environment file", path)
        new = pin_in_env_file(self._text(path), path, package, spec)
        if new is None:
            self._note(entry_id, f"{path}: pin `{package}{spec}` by hand (not a pip requirement)")
        else:
            self._edit(entry_id, path, new)

    def plan(self, findings: list[Finding]) -> list[Change]:
        for f in findings:
            autofix = f.entry.autofix or {}
            for key, value in (autofix.get("theanorc") or {}).items():
                filled = _fill(value, self.facts)
                if filled is None:
                    self._note(f.id, f"no safe value for {key} here: {f.entry.fix}")
                else:
                    self.set_key(f.id, key, filled)
            for old, new in (autofix.get("theanorc_rename") or {}).items():
                self.rename_key(f.id, old, new)
            for package, spec in (autofix.get("pin") or {}).items():
                self.pin(f.id, package, spec)
            if not autofix:
                self._note(f.id, f"no safe automatic fix; by hand: {f.entry.fix}")
        return self.changes

    def validate(self) -> None:
        """Every .theanorc about to be written must still parse."""
        for change in self.changes:
            if change.path is not None and change.path != self.env_file:
                try:
                    parse(self.texts[change.path], change.path)
                except GpuforgeError as exc:
                    message = f"the fixed file would not parse: {exc.message}"
                    raise GpuforgeError(message, change.path, exc.line) from None


def pin_in_env_file(text: str, path: Path, package: str, spec: str) -> str | None:
    """``text`` of a requirements file or conda environment.yml with ``package`` pinned to ``spec``."""
    name_re = re.compile(r"^\s*-?\s*([A-Za-z0-9_.\-]+)")
    wanted = package.lower().replace("_", "-")
    lines = text.splitlines()
    if path.suffix in (".yml", ".yaml"):
        from gpuforge.yamlio import expect_dependencies, expect_mapping, load_yaml

        data = expect_mapping(load_yaml(text, path), path, 1, "an environment file")
        deps = expect_dependencies(data, path)
        last_line = None
        for i, dep in enumerate(deps):
            if not isinstance(dep, str):
                continue
            line = deps.lc.item(i)[0]  # type: ignore[attr-defined]  # ruamel's CommentedSeq
            last_line = line
            m = re.match(r"([A-Za-z0-9_.\-]+)", dep.split("::")[-1])
            if m and m.group(1).lower().replace("_", "-") == wanted:
                indent = lines[line][: len(lines[line]) - len(lines[line].lstrip())]
                lines[line] = f"{indent}- {package}{spec}"
                return "\n".join(lines) + "\n"
        if last_line is None:
            raise GpuforgeError("`dependencies:` has no conda packages to pin beside", path, 1)
        indent = lines[last_line][: len(lines[last_line]) - len(lines[last_line].lstrip())]
        lines.insert(last_line + 1, f"{indent}- {package}{spec}")
        return "\n".join(lines) + "\n"
    if package == "python":
        return None
    for i, line in enumerate(lines):
        m = name_re.match(line)
        if m and not line.lstrip().startswith("#") and m.group(1).lower().replace("_", "-") == wanted:
            lines[i] = f"{package}{spec}"
            return "\n".join(lines) + "\n"
    lines.append(f"{package}{spec}")
    return "\n".join(lines) + "\n"


FOREIGN_NOTE = (
    "nothing written: --facts reads a report made by another gpuforge, maybe on another machine; "
    "the files and values above are that report's, not this machine's: make these changes there "
    "(or run `gpuforge doctor --fix` there)"
)


def show_foreign_fixes(
    findings: list[Finding], facts: dict[str, Any], out: Callable[[str], None] = print
) -> None:
    """``--fix`` with ``--facts``: the report is foreign data, so its paths and values are shown
    as what to change on the machine that made it, never written (nor read) here: a report
    naming any file as its Theano config file, or any program as its g++, changes nothing."""
    config = facts.get("config") or {}
    settings = config.get("settings") or {}

    def where(key: str) -> str:
        current = settings.get(key.lower()) or {}
        if current.get("source") == "THEANO_FLAGS":
            return "THEANO_FLAGS"
        return str(current.get("file") or _rc_target_name(config))

    for f in findings:
        autofix = f.entry.autofix or {}
        for key, value in (autofix.get("theanorc") or {}).items():
            filled = _fill(value, facts)
            if filled is None:
                out(f"[{f.id}] no value for {key} in the report: {f.entry.fix}")
            else:
                out(f"[{f.id}] there: set {key} = {filled!r} in {where(key)}")
        for old, new in (autofix.get("theanorc_rename") or {}).items():
            if old.lower() in settings:
                now = f"move its value to {new}" if new else "comment it out"
                out(f"[{f.id}] there: {old} in {where(old)}: {now}")
        for package, spec in (autofix.get("pin") or {}).items():
            out(f"[{f.id}] there: pin `{package}{spec}` in the environment file and recreate the environment")
        if not autofix:
            out(f"[{f.id}] no safe automatic fix; by hand: {f.entry.fix}")
    out(FOREIGN_NOTE)


def _rc_target_name(config: dict[str, Any]) -> str:
    files = config.get("files") or []
    existing = [f["path"] for f in files if f.get("exists")]
    return str(existing[-1] if existing else files[0]["path"] if files else "~/.theanorc")


def on_this_host(config: dict[str, Any], prefix: Path) -> dict[str, Any]:
    """A Windows probe's config facts with each file named by its Linux path under Wine."""
    files = [dict(f, path=str(linux_path(f["path"], prefix))) for f in config.get("files") or []]
    settings = {
        k: dict(v, file=str(linux_path(v["file"], prefix))) if v.get("file") else v
        for k, v in (config.get("settings") or {}).items()
    }
    return dict(config, files=files, settings=settings)


def apply_fixes(
    findings: list[Finding],
    facts: dict[str, Any] | None,
    env_file: Path | None,
    out: Callable[[str], None] = print,
) -> list[Path]:
    """Show each safe change as a diff, then write it (atomic, .bak backup). Returns files written."""
    config = (facts or {}).get("config") or inside_probe.config_facts()
    if "probe_error" in config:
        config = inside_probe.config_facts()
    for entry in config.get("files") or []:
        if entry.get("error"):
            err = entry["error"]
            raise GpuforgeError(f"cannot fix: {err['message']}", entry["path"], err["line"])
    wine_prefix = (facts or {}).get("wine_prefix")
    if wine_prefix:  # a Windows Python under Wine: its files are here
        config = on_this_host(config, Path(wine_prefix))
    facts = dict(facts or {}, config=config)
    if "derived" not in facts:  # a pasted log: the local config is all there is
        derive(facts)
    fixer = Fixer(facts, config, env_file)
    changes = fixer.plan(findings)
    fixer.validate()
    written: list[Path] = []
    for change in changes:
        if change.path is None:
            out(f"[{change.entry_id}] {change.note}")
    for path in dict.fromkeys(c.path for c in changes if c.path is not None):
        ids = ", ".join(dict.fromkeys(c.entry_id for c in changes if c.path == path))
        first = next(c for c in changes if c.path == path)
        diff = difflib.unified_diff(
            first.old.splitlines(),
            fixer.texts[path].splitlines(),
            f"{path} (before)",
            f"{path} (after: {ids})",
            lineterm="",
        )
        for line in diff:
            out(line)
        with FileLock(path.parent, f"another write of {path}", folder=True):
            now = read_text(path) if path.exists() or path.is_symlink() else ""
            if now != first.old:
                raise GpuforgeError(
                    "changed while gpuforge planned this fix (another program wrote "
                    "it): nothing written; run `gpuforge doctor --fix` again",
                    path,
                )
            written_file = write_file(path, fixer.texts[path])
        out(written_file.said(backup=" (backup: {})", new=" (new file)"))
        written.append(path)
    return written

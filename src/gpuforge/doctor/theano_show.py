"""`gpuforge theanorc show`: Theano's effective configuration and where each value came from.

The values come from real Theano in the target interpreter (inside/theano_config.py);
the host works out each one's source with Theano's precedence (seed 003):
``theano.config.X = ...`` > THEANO_FLAGS > the config files (THEANORC's list, later
files winning; unset: ~/.theanorc, and on Windows ~/.theanorc.txt) > the default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gpuforge import interpreters, locations
from gpuforge.errors import GpuforgeError

HELPER = locations.inside_script("theano_config.py")
RESULT_MARK = "GPUFORGE_RESULT "
# Shown even at their defaults: the options this stack's failures turn on.
KEY_OPTIONS = (
    "device",
    "floatX",
    "cxx",
    "mode",
    "linker",
    "contexts",
    "gpuarray.preallocate",
    "dnn.enabled",
    "dnn.include_path",
    "dnn.library_path",
    "dnn.bin_path",
    "cuda.root",
    "gcc.cxxflags",
    "blas.ldflags",
    "base_compiledir",
)
OLD_BACKEND_HINT = "Theano 1.0 removed the old CUDA backend: `gpuforge theanorc migrate` converts it"


@dataclass(frozen=True)
class Source:
    kind: str  # "assignment", "THEANO_FLAGS", "file" or "default"
    path: str = ""
    line: int = 0
    raw: str = ""
    key: str = ""  # as the file writes it: "[global] floatX"

    def __str__(self) -> str:
        if self.kind == "file":
            return f"{self.path}:{self.line}"
        if self.kind == "assignment":
            return "theano.config assignment"
        return self.kind


@dataclass(frozen=True)
class Option:
    name: str
    value: str | None
    source: Source
    error: str = ""


@dataclass(frozen=True)
class Ignored:
    """A config file entry (or THEANO_FLAGS key) that no Theano option reads."""

    where: str
    key: str
    reason: str


def run_probe(python: str, code: str | None = None, timeout: int = 600) -> dict[str, Any]:
    """Run inside/theano_config.py under ``python`` (under Wine for a python.exe) and return its
    JSON result."""
    proc = interpreters.run_python(
        python,
        ["--exec", code] if code else [],
        script=HELPER,
        timeout=timeout,
        what="importing theano",
    )
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_MARK):
            try:
                return json.loads(line[len(RESULT_MARK) :])
            except json.JSONDecodeError as exc:
                raise GpuforgeError(f"unreadable probe output ({exc})", python) from None
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    raise GpuforgeError(f"the Theano probe printed no result (exit {proc.returncode}): {tail}", python)


def option_key(name: str) -> tuple[str, str]:
    """Where Theano looks for option ``name`` in a config file: (section, option)."""
    section, _, option = name.rpartition(".")
    return (section or "global", option.lower())


def file_source(result: dict[str, Any], name: str) -> Source | None:
    """The config file line that sets ``name``: the last file wins, then the last line."""
    section, option = option_key(name)
    for file in reversed(result["files"]):
        for wanted in (section, "DEFAULT"):
            hits = [e for e in file["entries"] if e["section"] == wanted and e["option"] == option]
            if hits:
                hit = hits[-1]
                return Source(
                    "file", file["path"], hit["line"], hit["value"], f"[{wanted}] {hit.get('key', option)}"
                )
    return None


def source_of(result: dict[str, Any], name: str) -> Source:
    if name in result.get("assigned", []):
        return Source("assignment")
    flags = dict(result["flags"])
    if name in flags:
        return Source("THEANO_FLAGS", raw=flags[name])
    return file_source(result, name) or Source("default")


def resolve(result: dict[str, Any]) -> list[Option]:
    """Every option with its value and source, in name order."""
    out = []
    for name, data in sorted(result["options"].items(), key=lambda kv: kv[0].lower()):
        out.append(Option(name, data.get("value"), source_of(result, name), data.get("error", "")))
    return out


def ignored(result: dict[str, Any]) -> list[Ignored]:
    """Config file entries and THEANO_FLAGS keys that Theano never reads, with the reason."""
    names = list(result["options"])
    known = {option_key(n): n for n in names}
    by_lower = {n.lower(): n for n in names}
    out = []
    for file in result["files"]:
        for e in file["entries"]:
            if e["section"] == "DEFAULT" or (e["section"], e["option"]) in known:
                continue
            dotted = e["option"] if e["section"] == "global" else f"{e['section']}.{e['option']}"
            where = f"{file['path']}:{e['line']}"
            key = f"[{e['section']}] {e.get('key', e['option'])}"
            if e["section"] == "nvcc" or (e["section"], e["option"]) == ("lib", "cnmem"):
                reason = f"an old-backend option; {OLD_BACKEND_HINT}"
            elif dotted.lower() in by_lower:
                section, option = option_key(by_lower[dotted.lower()])
                reason = f"Theano reads {by_lower[dotted.lower()]} from [{section}] {option}"
            else:
                reason = f"Theano {result.get('theano', '')} has no option {dotted}".replace("  ", " ")
            out.append(Ignored(where, key, reason))
    for key, _ in result["flags"]:
        if key not in result["options"]:
            out.append(Ignored("THEANO_FLAGS", key, "not a Theano option (Theano warns and ignores it)"))
    return out


def _one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def raise_for_error(result: dict[str, Any], python: str) -> None:
    """A failed import or --exec as one located line."""
    error = result.get("error")
    if not error:
        return
    message = _one_line(f"{error['type']}: {error['message']}")
    if "file" in error and error["file"] != "THEANO_FLAGS":
        raise GpuforgeError(
            f"Theano cannot read this config file: {error.get('detail', message)}",
            error["file"],
            error.get("line"),
        )
    if error.get("file") == "THEANO_FLAGS":
        raise GpuforgeError(f"THEANO_FLAGS: {message}")
    option = error.get("option")
    if option:
        source = source_of(result, option)
        old = "old GPU back-end" in message
        hint = f" (`gpuforge theanorc migrate --path {source.path}` converts it)" if old else ""
        if source.kind == "file":
            raise GpuforgeError(f"{source.key} = {source.raw}: {message}{hint}", source.path, source.line)
        if source.kind == "THEANO_FLAGS":
            raise GpuforgeError(f"THEANO_FLAGS {option}={source.raw}: {message}")
    what = "running --exec" if error.get("phase") == "exec" else "importing theano"
    raise GpuforgeError(f"{what} failed: {message}", python)


def show(python: str, code: str | None = None) -> dict[str, Any]:
    result = run_probe(python, code)
    raise_for_error(result, python)
    return result


def as_json(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "python": result["executable"],
        "python_version": result["python"],
        "theano": result.get("theano"),
        "theano_dir": result.get("theano_file"),
        "theanorc": result["theanorc_env"],
        "theano_flags": result["theano_flags"],
        "files": [{"path": f["path"], "exists": f["exists"]} for f in result["files"]],
        "options": [
            {
                "name": o.name,
                "value": o.value,
                "source": o.source.kind,
                "path": o.source.path or None,
                "line": o.source.line or None,
                **({"error": o.error} if o.error else {}),
            }
            for o in resolve(result)
        ],
        "ignored": [{"where": i.where, "key": i.key, "reason": i.reason} for i in ignored(result)],
    }


def format_text(result: dict[str, Any], show_all: bool = False) -> str:
    options = resolve(result)
    shown = [o for o in options if show_all or o.source.kind != "default" or o.name in KEY_OPTIONS]
    lines = [
        f"Theano {result.get('theano')} in {result['theano_file']} "
        f"(Python {result['python']}, {result['executable']})"
    ]
    origin = "THEANORC" if result["theanorc_env"] is not None else "default list, THEANORC unset"
    lines.append(f"config files ({origin}; later files win):")
    for i, f in enumerate(result["files"], 1):
        lines.append(f"  {i}. {f['path']}" + ("" if f["exists"] else "  (missing)"))
    lines.append(f"THEANO_FLAGS: {result['theano_flags'] or '(unset)'}")
    width = max(len(o.name) for o in shown) if shown else 10
    vwidth = min(max((len(str(o.value)) for o in shown), default=5), 60)
    lines.append("")
    lines.append(f"{'option':{width}}  {'value':{vwidth}}  from")
    for o in shown:
        value = o.value if o.value is not None else f"<error: {o.error}>"
        lines.append(f"{o.name:{width}}  {value:{vwidth}}  {o.source}".rstrip())
    hidden = len(options) - len(shown)
    if hidden:
        lines.append(f"({hidden} more options at their defaults: --all lists them)")
    skipped = ignored(result)
    if skipped:
        lines.append("")
        lines.append("ignored by Theano:")
        lines += [f"  {i.where}: {i.key}: {i.reason}" for i in skipped]
    return "\n".join(lines)

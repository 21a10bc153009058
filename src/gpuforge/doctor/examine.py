"""`gpuforge doctor`: probe an interpreter (or read a log), name known failures and their fixes.

The probe (inside/probe.py) runs under the interpreter being diagnosed and
prints facts as JSON; here they are completed with a few derived facts and
matched against the catalog (catalog.yaml). ``--fix`` applies the catalog's
safe fixes: a .theanorc key, or a pin in an environment file.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuforge import processes
from gpuforge.doctor import gpu_fit
from gpuforge.doctor.catalog import Entry, Finding, diagnose, lookup
from gpuforge.doctor.normalize import last_frames_of_cut_traceback
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.fileio import BOMS, home, read_bytes, read_text, write_atomic
from gpuforge.inside import probe as probe_mod
from gpuforge.locks import FileLock

PROBE = Path(probe_mod.__file__).resolve()
# the probe's facts that are mappings (inside/probe.py): anything else is not its report
REPORT_MAPPINGS = (
    "python",
    "platform",
    "path",
    "config",
    "compiledir",
    "compiler",
    "cwd",
    "installs",
    "cuda",
    "imports",
)
PROBE_GRACE_S = 1.0  # after --timeout: the probe writes its report of what finished
OLD_BACKEND_KEY = re.compile(r"^(lib\.cnmem|nvcc\..+)$")


# --- probing ------------------------------------------------------------------


def parse_report(text: str, where: str) -> dict[str, Any]:
    """The probe's JSON from its output (a marked line) or a saved report."""
    payload = None
    for line in text.splitlines():
        if line.startswith(probe_mod.PROBE_MARK):
            payload = line[len(probe_mod.PROBE_MARK) :]
    if payload is None:
        payload = text.strip()
    if not payload:
        raise GpuforgeError("no probe report (empty output)", where)
    try:
        facts = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise GpuforgeError(f"not a probe report: {exc.msg}", where, exc.lineno) from None
    except (RecursionError, ValueError) as exc:  # nested too deep; an integer of 5,000 digits
        raise GpuforgeError(f"not a probe report: {str(exc).splitlines()[0][:120]}", where) from None
    if not isinstance(facts, dict) or "python" not in facts:
        if isinstance(facts, dict) and "probe_error" in facts:
            err = facts["probe_error"]
            raise GpuforgeError(f"the probe failed: {err.get('type')}: {err.get('message')}", where)
        raise GpuforgeError("not a probe report (no `python` facts)", where)
    python = facts["python"] if isinstance(facts["python"], dict) else {}
    missing = [k for k in ("executable", "version", "bits") if k not in python]
    if missing:
        raise GpuforgeError(f"not a probe report: `python` facts lack {', '.join(missing)}", where)
    wrong = [k for k in REPORT_MAPPINGS if k in facts and not isinstance(facts[k], dict)]
    if wrong:
        raise GpuforgeError(f"not a probe report: `{wrong[0]}` is not a mapping", where)
    return facts


def run_probe(
    python: str, timeout: float = 180, cwd: Path | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run the probe under ``python`` (in ``cwd``, with ``env``) and return its facts.

    A Windows python.exe runs under Wine (its report comes back through a pipe: Wine's
    Python cannot start with its stdout redirected into a file); the facts then say
    which Wine prefix holds its drive C: (``wine_prefix``), for --fix to write there.
    """
    from gpuforge.smoke.targets import is_windows_python, python_command, script_path, wine_env, wine_prefix

    try:
        start = python_command(python)
    except GpuforgeError as exc:
        raise GpuforgeError(str(exc), python) from None
    self_cmd = script_path(python, Path(python)) if is_windows_python(python) else python
    if os.path.isdir(python):
        raise GpuforgeError("a directory, not an interpreter", python)
    # ``timeout`` bounds the whole probe: its imports stop at the deadline, and the probe
    # (with everything it started) is killed a second after it
    deadline = time.time() + timeout
    cmd = [
        *start,
        script_path(python, PROBE),
        "--self",
        self_cmd,
        "--timeout",
        str(timeout),
        "--deadline",
        f"{deadline:.3f}",
    ]
    try:
        proc = processes.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            cwd=cwd,
            env=wine_env(python, env),
            timeout=timeout + PROBE_GRACE_S,
        )
    except FileNotFoundError:
        raise GpuforgeError("no such interpreter", python) from None
    except (PermissionError, OSError) as exc:
        raise GpuforgeError(f"cannot run it: {exc.strerror or exc}", python) from None
    except subprocess.TimeoutExpired:
        raise GpuforgeError(
            f"the probe did not finish in {timeout:g} s (--timeout): the interpreter "
            "hangs, or its imports take longer",
            python,
        ) from None
    if probe_mod.PROBE_MARK not in proc.stdout:
        tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise GpuforgeError(f"the probe printed no report (exit {proc.returncode}): {tail[:200]}", python)
    facts = parse_report(proc.stdout, python)
    if is_windows_python(python):
        facts["wine_prefix"] = str(wine_prefix(python, env))
    return facts


def default_python() -> str:
    """The interpreter a user would run: the first python on PATH (the activated environment's)."""
    return shutil.which("python") or shutil.which("python3") or sys.executable


def derive(facts: dict[str, Any]) -> dict[str, Any]:
    """Facts the catalog's conditions need that take more than one probed value."""
    settings = lookup(facts, "config.settings") or {}
    theano = lookup(facts, "imports.theano") or {}
    effective = theano.get("config") or {}

    def explicit(key: str) -> str | None:
        entry = settings.get(key.lower())
        return entry["value"] if entry else None

    device = effective.get("device") or explicit("device") or "cpu"
    floatx = effective.get("floatX") or explicit("floatX") or "float64"
    derived: dict[str, Any] = {
        "device": device,
        "floatX": floatx,
        "gpu_device": device.startswith(("cuda", "opencl")),
        "cuda_device": device.startswith("cuda"),
        "device_as_cuda": re.sub(r"^gpu", "cuda", device),
        "old_backend_keys": sorted(k for k in settings if OLD_BACKEND_KEY.match(k)),
    }
    compiler = facts.get("compiler") or {}
    cxx_set = explicit("cxx")
    if theano.get("found") and cxx_set is None:
        cxx_effective = effective.get("cxx")
        derived["gxx_missing"] = (
            cxx_effective == "" if cxx_effective is not None else not compiler.get("gxx_on_path")
        )
    first = compiler.get("gxx_on_path")
    if (
        first
        and cxx_set
        and compiler.get("cxx_realpath")
        and compiler.get("cxx_realpath") != compiler.get("gxx_on_path_realpath")
    ):
        source = settings["cxx"]["source"]
        derived["foreign_gxx"] = f"cxx = {cxx_set} ({source}) but the first g++ on PATH is {first}"
    elif (
        first
        and not cxx_set
        and compiler.get("env_gxx")
        and os.path.realpath(compiler["env_gxx"]) != compiler.get("gxx_on_path_realpath")
    ):
        derived["foreign_gxx"] = (
            f"the first g++ on PATH is {first}, not this environment's {compiler['env_gxx']}"
        )
    held = [lk for lk in lookup(facts, "compiledir.locks") or [] if lk.get("alive") is not False]
    if held:
        lk = held[0]
        derived["lock_held"] = f"{lk['lock_dir']} is held by process {lk.get('pid')} on {lk.get('host')}" + (
            "" if lk.get("alive") else " (liveness unknown)"
        )
    derived["env_mismatch"] = env_mismatch(lookup(facts, "path") or {})
    if host_platform(facts) == "win":
        derived["path_spaces_nonascii"] = odd_windows_path(facts, effective)
    theano_copies = lookup(facts, "installs.theano") or {}
    for kind in ("packages", "records"):
        if len(theano_copies.get(kind) or []) > 1:
            derived["two_theano_installs"] = f"Theano {kind}: " + "; ".join(theano_copies[kind])
            break
    shadows = lookup(facts, "cwd.shadows") or {}
    derived["shadow_other"] = [p for name, p in sorted(shadows.items()) if name != "torch"]
    derived.update(gpu_fit.derive_gpu(facts))
    derived["nvrtc_unfindable"] = gpu_fit.unfindable_nvrtc(facts)
    derived["dnn_not_disabled"] = gpu_fit.dnn_not_disabled(facts)
    facts["derived"] = derived
    return derived


def odd_windows_path(facts: dict[str, Any], effective: dict[str, Any]) -> str | None:
    """The first folder Theano compiles in (compiledir, TEMP, the user folder) whose Windows
    path has a space or a non-ASCII character, and which characters."""
    windows = facts.get("windows") or {}
    folders = [
        ("Theano's compiledir", effective.get("compiledir")),
        ("base_compiledir", effective.get("base_compiledir") or lookup(facts, "compiledir.base")),
        ("TEMP", windows.get("temp")),
        ("TMP", windows.get("tmp")),
        ("the user folder (USERPROFILE)", windows.get("userprofile")),
    ]
    for label, path in folders:
        odd = sorted({c for c in path or "" if c == " " or ord(c) > 127})
        if odd:
            shown = ", ".join("a space" if c == " " else f"non-ASCII {c!r}" for c in odd)
            return f"{label} is {path} ({shown})"
    return None


def env_mismatch(path: dict[str, Any]) -> str | None:
    """Which tools on PATH belong to another environment than the python on PATH."""
    tools = path.get("tools") or {}
    for py, pip in (("python", "pip"), ("python3", "pip3")):
        a, b = tools.get(py) or {}, tools.get(pip) or {}
        if a.get("env") and b.get("env") and os.path.normcase(a["env"]) != os.path.normcase(b["env"]):
            runs = f" (it runs {b['runs_python']})" if b.get("runs_python") else ""
            return f"{py} is {a['first']} but {pip} is {b['first']}{runs}"
    conda_prefix = path.get("conda_prefix")
    python = (tools.get("python") or tools.get("python3") or {}).get("env")
    if conda_prefix and python and os.path.normcase(conda_prefix) != os.path.normcase(python):
        return f"conda installs into {conda_prefix} (CONDA_PREFIX) but python on PATH is from {python}"
    return None


def error_text(facts: dict[str, Any]) -> str:
    """What the imports printed and raised, module by module (modules that are not installed say nothing)."""
    parts = []
    for name, info in (lookup(facts, "imports") or {}).items():
        if not isinstance(info, dict) or not info.get("found"):
            continue
        err = info.get("error") or {}
        chunk = "\n".join([info.get("log") or "", *(err.get("traceback") or [])]).strip()
        if chunk:
            parts.append(f"--- import {name} ---\n{chunk}")
    return "\n".join(parts)


def host_platform(facts: dict[str, Any]) -> str:
    return "win" if lookup(facts, "platform.sys_platform") == "win32" else "linux"


@dataclass
class Report:
    """What one doctor run found, and what it looked at."""

    findings: list[Finding]
    facts: dict[str, Any] | None
    seconds: float
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"findings": [f.as_json() for f in self.findings]}
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def diagnose_facts_report(facts: dict[str, Any], start: float) -> Report:
    for rc in lookup(facts, "config.files") or []:
        if rc.get("error"):  # Theano itself cannot read it: fix the file first
            err = rc["error"]
            raise GpuforgeError(f"invalid Theano config file: {err['message']}", rc["path"], err["line"])
    derive(facts)
    findings = diagnose(error_text(facts), facts, host_platform(facts))
    return Report(findings, facts, time.monotonic() - start)


def doctor_python(
    python: str, timeout: float = 180, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Report:
    start = time.monotonic()
    return diagnose_facts_report(run_probe(python, timeout, cwd, env), start)


def doctor_log(text: str) -> Report:
    start = time.monotonic()
    notes = (CUT_NOTE,) if looks_cut(text) else ()
    return Report(diagnose(text=text), None, time.monotonic() - start, notes)


CUT_NOTE = (
    "the paste looks cut: it ends inside a traceback, before the exception line; "
    "paste the whole output for a surer answer"
)


def looks_cut(text: str) -> bool:
    return last_frames_of_cut_traceback(text) is not None


# A pasted log may be far larger than an input file (a long build log): matching is linear (RE2).
MAX_LOG_BYTES = 64 * 2**20


def read_log(name: str) -> str:
    """A log file's text ('-': standard input); unreadable or binary -> one-line error."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_LOG_BYTES + 1)
        if len(data) > MAX_LOG_BYTES:
            raise InputError(f"larger than {MAX_LOG_BYTES // 2**20} MiB: paste the part with the error", "-")
    else:  # the one reader: a regular file (no FIFO or folder), within the limit
        data = read_bytes(name, limit=MAX_LOG_BYTES)
    text = decode_log(data)
    if text is None:
        raise GpuforgeError("not a text log (binary data)", name)
    return text.replace("\r\n", "\n")


def decode_log(data: bytes) -> str | None:
    """A log's text: UTF-8 (with or without a BOM), UTF-16 with a BOM (PowerShell's `>`, Notepad)
    or without one (NUL bytes at every other offset); None for binary data. Undecodable bytes
    (a latin-1 or GBK console) become U+FFFD: the error numbers and shapes still match."""
    for bom, codec in BOMS:  # the one reader's table (fileio): "utf-16" reads its own BOM
        if data.startswith(bom):
            return data[0 if codec == "utf-16" else len(bom) :].decode(codec, "replace")
    head = data[:65536]
    if b"\0" not in head:
        return data.decode("utf-8", "replace")
    even, odd = head[0::2], head[1::2]
    for zeros, codec in ((odd, "utf-16-le"), (even, "utf-16-be")):
        other = even if zeros is odd else odd
        if zeros.count(0) > 0.4 * len(zeros) and other.count(0) < 0.05 * len(other):
            return data[: len(data) // 2 * 2].decode(codec, "replace")
    return None


def time_doctor(python: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    """Seconds a full `gpuforge doctor --python PYTHON` takes (probe, imports, matching): for benches."""
    start = time.monotonic()
    doctor_python(python, cwd=cwd, env=env)
    return time.monotonic() - start


# --- output ---------------------------------------------------------------------


def _ver(facts: dict[str, Any], name: str) -> str:
    info = lookup(facts, f"imports.{name}") or {}
    if info.get("version"):
        api = f" (API {info['api_version'][0]})" if info.get("api_version") else ""
        return f"{name} {info['version']}{api}"
    if info.get("skipped"):
        return f"{name} (not imported)"
    if info.get("found"):
        return f"{name} FAILS ({(info.get('error') or {}).get('type', 'error')})"
    return f"{name} -"


def summary(facts: dict[str, Any]) -> list[str]:
    """A few lines on what was probed."""
    py = facts["python"]
    lines = [
        f"python   {py['executable']}: Python {py['version']} {py['bits']}-bit "
        f"({lookup(facts, 'platform.sys_platform')} {lookup(facts, 'platform.machine')})"
    ]
    lines.append("imports  " + " | ".join(_ver(facts, n) for n in probe_mod.MODULES))
    settings = lookup(facts, "config.settings") or {}
    effective = lookup(facts, "imports.theano.config") or {}
    shown = []
    for key in ("device", "floatX", "cxx", "blas.ldflags"):
        value = effective.get(key, settings.get(key.lower(), {}).get("value"))
        if value is None:
            continue
        src = settings.get(key.lower(), {}).get("source", "default")
        shown.append(f"{key}={value!s} ({src})")
    if shown:
        lines.append("theano   " + ", ".join(shown))
    comp = facts.get("compiler") or {}
    lines.append(
        f"g++      first on PATH: {comp.get('gxx_on_path') or '-'}; Theano's cxx: "
        f"{comp.get('cxx_resolved') or '-'}"
    )
    drv = lookup(facts, "cuda.driver") or {}
    smi = lookup(facts, "cuda.nvidia_smi") or {}
    nvcc = lookup(facts, "cuda.nvcc") or {}
    cudnn = lookup(facts, "cuda.cudnn") or {}
    lines.append(
        "cuda     driver "
        + (f"{drv.get('version')} ({drv.get('loaded')})" if drv.get("loaded") else "not loadable")
        + f"; nvidia-smi {smi.get('driver_version') or '-'}; nvcc {nvcc.get('release') or '-'}"
        f"; cuDNN {cudnn.get('version') or ('found' if cudnn.get('library') else '-')}"
    )
    gpu = lookup(facts, "derived.gpu") or {}
    nvrtc = lookup(facts, "cuda.nvrtc")
    nvrtc = nvrtc if isinstance(nvrtc, dict) else {}
    if gpu:
        lines.append(
            f"gpu      {gpu.get('name') or '-'}: cc {gpu['cc']}, "
            f"driver CUDA {gpu.get('driver_cuda') or '-'}; NVRTC {nvrtc.get('version') or '-'} "
            f"({nvrtc.get('loaded') or 'not found'}"
            f"{', shim' if nvrtc.get('shim') else ''})"
        )
        if "can_compile" in gpu:
            verdict = "can" if gpu["can_compile"] else "CANNOT"
            lines.append(f"         {verdict} compile for it: {gpu['compile']}")
        lines.append(f"         env file for this GPU and driver: {gpu['pick']}")
    cdir = facts.get("compiledir") or {}
    locks = cdir.get("locks") or []
    lines.append(
        f"compile  {(cdir.get('dirs') or [cdir.get('base')])[-1]}"
        + (f" (lock: {locks[0].get('owner')})" if locks else " (no lock)")
    )
    return lines


def format_finding(f: Finding) -> list[str]:
    e = f.entry
    return [
        f"[{e.id}] {e.title}",
        f"  evidence: {f.evidence}",
        f"  cause:    {e.cause}",
        f"  fix:      {e.fix}",
        f"  source:   {e.source}",
    ]


def print_report(report: Report, out: Callable[[str], None] = print) -> None:
    if report.facts is not None:
        for line in summary(report.facts):
            out(line)
        out("")
    for f in report.findings:
        for line in format_finding(f):
            out(line)
        out("")
    for note in report.notes:
        out(f"note: {note}")
    n = len(report.findings)
    out(
        f"{n} known failure(s) found ({report.seconds:.1f} s); `gpuforge doctor --explain ID` shows an entry"
        if n
        else f"no known failure found ({report.seconds:.1f} s)"
    )


def explain(e: Entry) -> list[str]:
    match = e.raw.get("match") or {}
    lines = [f"{e.id}: {e.title}", f"platforms: {', '.join(e.platforms)}"]
    for key, label in (
        ("text", "matches text"),
        ("all", "matches text (all of)"),
        ("facts", "matches facts (all of)"),
    ):
        for item in match.get(key) or []:
            items = item if isinstance(item, list) else [item]
            shown = [p["re"] if isinstance(p, dict) else p for p in items]
            lines.append(f"{label}: {' | '.join(map(str, shown))}")
    if e.wrapper:
        lines.append("wrapper: reported only when nothing more specific matches")
    lines += [f"cause: {e.cause}", f"fix: {e.fix}"]
    if e.autofix:
        lines.append(f"--fix applies: {json.dumps(e.autofix, default=str)}")
    lines.append(f"source: {e.source}")
    return lines


# --- fixes ------------------------------------------------------------------------------


@dataclass
class Change:
    """A file to write, or (path None) an instruction for what cannot be written safely."""

    entry_id: str
    path: Path | None
    old: str
    new: str
    note: str = ""


def _split_key(key: str) -> tuple[str, str]:
    section, _, option = key.rpartition(".")
    return section or "global", option


def ini_set(text: str, key: str, value: str, line: int | None = None) -> str:
    """``text`` (a .theanorc) with ``key`` set; replaces its line when known."""
    section, option = _split_key(key)
    lines = text.splitlines()
    new_line = f"{option} = {value}".rstrip()
    if line:
        lines[line - 1] = new_line
        return "\n".join(lines) + "\n"
    header = next((i for i, ln in enumerate(lines) if ln.strip() == f"[{section}]"), None)
    if header is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [f"[{section}]", new_line]
        return "\n".join(lines) + "\n"
    end = header + 1
    while end < len(lines) and not lines[end].lstrip().startswith("["):
        end += 1
    while end > header + 1 and not lines[end - 1].strip():
        end -= 1
    lines.insert(end, new_line)
    return "\n".join(lines) + "\n"


def ini_comment(text: str, line: int, note: str) -> str:
    lines = text.splitlines()
    lines[line - 1] = f"# {lines[line - 1].strip()}    # {note}"
    return "\n".join(lines) + "\n"


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
        new = ini_set(self._text(path), key, value, current["line"] if current else None)
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
        text = ini_comment(self._text(path), current["line"], what)
        if new_key and new_key.lower() not in self._settings():
            text = ini_set(text, new_key, current["value"])
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
                _, error = probe_mod.parse_rc_lines(self.texts[change.path].splitlines(), str(change.path))
                if error:
                    raise GpuforgeError(
                        f"the fixed file would not parse: {error['message']}", change.path, error["line"]
                    )


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
            line = deps.lc.item(i)[0]
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


def on_this_host(config: dict[str, Any], prefix: Path) -> dict[str, Any]:
    """A Windows probe's config facts with each file named by its Linux path under Wine."""
    from gpuforge.smoke.targets import linux_path

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
    config = (facts or {}).get("config") or probe_mod.config_facts()
    if "probe_error" in config:
        config = probe_mod.config_facts()
    for entry in config.get("files") or []:
        if entry.get("error"):
            err = entry["error"]
            raise GpuforgeError(f"cannot fix: {err['message']}", entry["path"], err["line"])
    if (facts or {}).get("wine_prefix"):  # a Windows Python under Wine: its files are here
        config = on_this_host(config, Path(facts["wine_prefix"]))
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
            backup = write_atomic(path, fixer.texts[path])
        out(f"wrote {path}" + (f" (backup: {backup})" if backup else " (new file)"))
        written.append(path)
    return written

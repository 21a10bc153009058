"""One doctor run: probe or read, diagnose, and the report a user reads."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuforge.doctor.catalog import Entry, Finding, diagnose, lookup
from gpuforge.doctor.facts import derive, error_text, host_platform
from gpuforge.doctor.log_facts import diagnose_log
from gpuforge.doctor.logs import CUT_NOTE, looks_cut
from gpuforge.doctor.probe import run_probe
from gpuforge.errors import GpuforgeError
from gpuforge.inside import probe as inside_probe


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
    return Report(findings, facts, time.monotonic() - start, tuple(missing_stack(facts)))


def doctor_python(
    python: str, timeout: float = 180, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Report:
    start = time.monotonic()
    return diagnose_facts_report(run_probe(python, timeout, cwd, env), start)


def doctor_log(text: str) -> Report:
    start = time.monotonic()
    notes = (CUT_NOTE,) if looks_cut(text) else ()
    return Report(diagnose_log(text), None, time.monotonic() - start, notes)


# --- output ---------------------------------------------------------------------


def _ver(facts: dict[str, Any], name: str) -> str:
    info = lookup(facts, f"imports.{name}") or {}
    if info.get("version"):
        api = f" (API {info['api_version'][0]})" if info.get("api_version") else ""
        return f"{name} {info['version']}{api}"
    if info.get("skipped"):
        return f"{name} (not imported)"
    if info.get("timed_out"):
        return f"{name} (import stopped at the deadline)"
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
    lines.append("imports  " + " | ".join(_ver(facts, n) for n in inside_probe.MODULES))
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


def missing_stack(facts: dict[str, Any] | None) -> list[str]:
    """What a probe of an interpreter without Theano could not check, and where to point it."""
    if facts is None or lookup(facts, "imports.theano.found"):
        return []
    python = lookup(facts, "python.executable") or "this interpreter"
    absent = [name for name in inside_probe.MODULES if not lookup(facts, f"imports.{name}.found")]
    return [
        f"{python} has no Theano ({', '.join(absent)} not installed): checked were the interpreter, "
        "PATH, the compiler, the CUDA driver and libraries and the .theanorc files, not the stack "
        "itself; run the doctor on the environment's interpreter (activate it, or --python PATH)"
    ]


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

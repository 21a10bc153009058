"""Run the probe (inside/probe.py) under an interpreter and read its report.

The probe runs under the interpreter being diagnosed (Python 2.7 ... 3.13, Linux or a Windows
python.exe under Wine) and prints its facts as one marked JSON line; a saved report (``doctor
--facts``) is the same JSON.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from gpuforge import interpreters, locations
from gpuforge.errors import GpuforgeError
from gpuforge.inside import probe as inside_probe

PROBE = locations.inside_script("probe.py")
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


def parse_report(text: str, where: str) -> dict[str, Any]:
    """The probe's JSON from its output (a marked line) or a saved report."""
    payload = None
    for line in text.splitlines():
        if line.startswith(inside_probe.PROBE_MARK):
            payload = line[len(inside_probe.PROBE_MARK) :]
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
    ``timeout`` bounds the whole probe: its imports stop at the deadline, and the probe
    (with everything it started) is killed a second after it.
    """
    windows = interpreters.is_windows_python(python)
    self_cmd = interpreters.script_path(python, Path(python)) if windows else python
    deadline = time.time() + timeout
    args = ["--self", self_cmd, "--timeout", str(timeout), "--deadline", f"{deadline:.3f}"]
    proc = interpreters.run_python(
        python,
        args,
        script=PROBE,
        timeout=timeout + PROBE_GRACE_S,
        limit=f"{timeout:g} s (--timeout)",
        what="the probe",
        cwd=cwd,
        env=env,
    )
    if inside_probe.PROBE_MARK not in proc.stdout:
        tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise GpuforgeError(f"the probe printed no report (exit {proc.returncode}): {tail[:200]}", python)
    facts = parse_report(proc.stdout, python)
    if windows:
        facts["wine_prefix"] = str(interpreters.wine_prefix(python, env))
    return facts

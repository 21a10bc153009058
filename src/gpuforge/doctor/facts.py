"""Facts the catalog's conditions need that take more than one probed value (``derived.*``)."""

from __future__ import annotations

import os
import re
from typing import Any

from gpuforge.doctor import gpu_fit, nvcc_host
from gpuforge.doctor.catalog import lookup

OLD_BACKEND_KEY = re.compile(r"^(lib\.cnmem|nvcc\..+)$")


def hung_programs(facts: dict[str, Any]) -> list[str]:
    """What the probe found hanging: its own children past their time, and imports stopped while
    waiting on a program (Theano's g++); an import that is only slow names no program."""
    said = []
    for h in facts.get("hung") or []:
        waited = " -> ".join(h.get("waiting_on") or [])
        said.append(
            f"`{h['command']}` did not finish in {h['seconds']:.1f} s"
            + (f" (waiting on {waited})" if waited else "")
        )
    for name, info in sorted((facts.get("imports") or {}).items()):
        if isinstance(info, dict) and info.get("timed_out") and info.get("waiting_on"):
            chain = " -> ".join(info["waiting_on"])
            said.append(
                f"`import {name}` did not finish in {info['timed_out']:.1f} s: it was waiting on {chain}"
            )
    return said


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
    hung = hung_programs(facts)
    if hung:
        derived["hung_program"] = "; ".join(hung)
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
    if device.startswith("gpu") and host_platform(facts) != "win":  # the old back-end's nvcc and gcc
        derived["nvcc_refuses_gcc"] = nvcc_host.refused_gcc(facts)
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

"""gpu_smoke: make each target environment, run the GPU checks and the import tests in it.

Every target ends as pass, fail or skip. A skip names what is missing and the
command that provides it; a fail names the failure mode (catalog id) and its fix.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuforge import locations, processes
from gpuforge.doctor import catalog
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import process_alive, write_atomic
from gpuforge.interpreters import Interpreter, python_command, script_path, wine_env
from gpuforge.smoke.targets import NEEDS, Target, TargetEnv, ensure_env, missing_needs

CHECKS_SCRIPT = Path(__file__).parent.parent / "inside" / "gpu_checks.py"
RESULT_MARK = "GPUFORGE_RESULT "
CHECKS = (
    "exp",
    "reduce",
    "gemm",
    "conv",
    "float16",
    "topk",
    "transfer",
    "logreg",
    "compiler",
    "driver",
    "pygpu",
    "cudnn",
    "torch",
    "mxnet",
)
# A user script called torch.py, and a PyTorch source checkout (seed 001's two cases).
TORCH_PY = "import torch\nprint(torch.rand(2))\n"
TORCH_SOURCE_INIT = "from torch._C import *  # noqa: the first line of torch/__init__.py\n"


@dataclass
class TargetResult:
    name: str
    description: str
    status: str = "skip"  # pass | fail | skip
    reason: str = ""
    python: str | None = None
    env_created: bool = False
    env_seconds: float = 0.0
    seconds: float = 0.0
    checks: list[dict[str, Any]] = field(default_factory=list)
    import_tests: list[dict[str, Any]] = field(default_factory=list)
    findings: list[dict[str, str]] = field(default_factory=list)
    hint: str = ""  # what to try when a reused environment fails (it may be damaged)
    note: str = ""  # what holds for every check of the target (said once)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def name_failure(text: str) -> list[dict[str, str]]:
    """The catalog entries an error text shows, the real (last) error first."""
    return [f.as_json() for f in catalog.diagnose_text(text)]


HUNG_MARK = "hung: "  # a check process stopped past its time (what it waited on follows)
MAX_HANGS = 2  # check processes that may hang before the checks left fail unrun


def run_checks(
    python: str,
    env: dict[str, str] | None,
    checks: tuple[str, ...],
    args: list[str],
    cwd: Path,
    timeout: float = 600,
    progress: Callable[[float], None] | None = None,
) -> list[dict[str, Any]]:
    """Run the checks in one process of ``python``; a crash fails the checks it left. A hang
    (past ``timeout``: killed with what it started) fails the check it stopped in, naming what
    it waited on, and the checks after it run on in a new process: one kernel that never ends
    (GpuTopKOp's on an H200, docs/silicon.md) must not take the other checks' results with it.
    ``progress(seconds)`` is called every 30 s while they run."""
    results: list[dict[str, Any]] = []
    left = tuple(checks)
    hangs = 0
    while left:
        got, stderr, code = _run_check_process(python, env, left, args, cwd, timeout, progress)
        results += got
        done = {r.get("check") for r in got}
        missing = [name for name in left if name not in done]
        if not missing:
            break
        if not stderr.startswith(HUNG_MARK):  # a crash: the checks it left fail with it
            results += [
                _not_run(name, f"the check process ended (exit {code}) before this check", stderr)
                for name in missing
            ]
            break
        hangs += 1
        stuck, left = missing[0], tuple(missing[1:])
        last = hangs == MAX_HANGS  # the machine, not one check: the rest would hang too
        after = "; the checks after it ran in a new process" if left and not last else ""
        results.append(_not_run(stuck, f"{stderr} (in the {stuck} check{after})", stderr))
        if last:
            not_run = f"not run: {MAX_HANGS} check processes hung before it"
            results += [_not_run(name, not_run, stderr) for name in left]
            break
    return results


def _not_run(name: str, reason: str, stderr: str) -> dict[str, Any]:
    return {
        "check": name,
        "status": "fail",
        "reason": reason,
        "error": {"message": stderr[-2000:]},
        "stderr_tail": stderr.strip().splitlines()[-20:],
    }


def _run_check_process(
    python: str,
    env: dict[str, str] | None,
    checks: tuple[str, ...],
    args: list[str],
    cwd: Path,
    timeout: float,
    progress: Callable[[float], None] | None,
) -> tuple[list[dict[str, Any]], str, int]:
    """One process of the checks script: the results it printed, its stderr (HUNG_MARK first
    when it was stopped past ``timeout``) and its exit code."""
    cmd = [*python_command(python), script_path(python, CHECKS_SCRIPT), *checks, *args]
    try:
        proc = processes.run(
            cmd,
            capture_output=True,
            text=True,
            env=wine_env(python, env),
            cwd=cwd,
            timeout=timeout,
            errors="replace",
            progress=progress,
        )
        stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
    except processes.TimedOut as exc:
        stdout = exc.stdout if isinstance(exc.stdout, str) else ""
        stderr, code = HUNG_MARK + exc.line(), -1
    results = []
    for line in stdout.splitlines():
        if line.startswith(RESULT_MARK):
            try:
                results.append(json.loads(line[len(RESULT_MARK) :]))
            except json.JSONDecodeError as exc:
                raise GpuforgeError(f"unreadable check output from {python}: {exc}") from None
    stderr_tail = stderr.strip().splitlines()[-20:]
    for r in results:
        r["stderr_tail"] = stderr_tail
    return results, stderr, code


def failure_text(result: dict[str, Any]) -> str:
    error = result.get("error") or {}
    parts = [
        result.get("reason", ""),
        error.get("message", ""),
        "\n".join(error.get("traceback_tail") or []),
        "\n".join(result.get("stderr_tail") or []),
    ]
    return "\n".join(p for p in parts if p)


def _check_args(target: Target, settings: Settings) -> list[str]:
    args = [
        "--device",
        target.device,
        "--iters",
        str(target.iters or settings.iters),
        "--steps",
        str(target.steps or settings.steps),
    ]
    return args + (["--require-cuda"] if target.require_cuda else [])


def import_tests(tenv: TargetEnv, scratch: Path) -> list[dict[str, Any]]:
    """The known failure modes, provoked for real in a scratch directory and named."""
    tests = []
    python, env = str(tenv.python), tenv.env()
    cases = (
        ("torch.py shadows torch", {"torch.py": TORCH_PY}),
        ("torch/ source tree shadows torch", {"torch/__init__.py": TORCH_SOURCE_INIT}),
    )
    jobs = []
    for case, files in cases:
        folder = scratch / case.split()[0].replace("/", "-dir").replace(".", "-")
        if folder.exists():
            shutil.rmtree(folder)
        for rel, text in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text, encoding="utf-8")
        jobs.append((("shadow",), ["--module", "torch"], folder))
    if not tenv.target.require_cuda:
        jobs.append((("pygpu",), ["--device", "cuda"], scratch))
    # at once: each is a process start (seconds under Wine), not CPU work
    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(lambda job: run_checks(python, env, *job)[0], jobs))
    for (case, _), result in zip(cases, results[: len(cases)], strict=True):
        text = failure_text(result)
        named = [f["id"] for f in name_failure(text)] if result.get("error") else []
        detected = bool(result.get("shadowed"))
        tests.append(
            {
                "name": case,
                "expect": "torch_C_shadow",
                "shadowed": detected,
                "module_file": result.get("module_file"),
                "error": (result.get("error") or {}).get("message"),
                "named": named,
                "status": "pass" if detected else "fail",
                "reason": "shadow found and named torch_C_shadow"
                if detected
                else "the shadowing module was not detected",
                "finding": catalog.entry("torch_C_shadow").fix if detected else None,
            }
        )
    if tenv.target.require_cuda:
        tests.append(
            {
                "name": "pygpu init without a driver",
                "status": "skip",
                "reason": "this target has an NVIDIA driver: nothing to provoke",
            }
        )
    else:
        result = results[-1]
        if result["status"] == "skip":
            tests.append(
                {"name": "pygpu init without a driver", "status": "skip", "reason": result.get("reason", "")}
            )
        else:
            named = [f["id"] for f in name_failure(failure_text(result))]
            ok = result["status"] == "fail" and named[:1] == ["pygpu_load_lib"]
            tests.append(
                {
                    "name": "pygpu init without a driver",
                    "expect": "pygpu_load_lib",
                    "error": (result.get("error") or {}).get("message"),
                    "named": named,
                    "status": "pass" if ok else "fail",
                    "reason": "init failed and was named pygpu_load_lib"
                    if ok
                    else f"expected pygpu_load_lib, got {result['status']} {named}",
                }
            )
    return tests


@dataclass
class Settings:
    cache_dir: Path | None = None
    channel: Path | None = None
    fresh: bool = False
    iters: int = 1000
    steps: int = 300
    check_timeout: float = 600  # seconds a process of checks may run before it is stopped as hung


def refuse_32bit(result: TargetResult, python: str) -> bool:
    """Fail the target, naming python_32bit, when ``python`` is a 32-bit interpreter."""
    found = Interpreter.probe(python)
    bits, version = found.bits, found.version
    if bits == 64:
        return False
    result.status = "fail"
    result.reason = (
        f"{python} is a 32-bit Python {version} (pointer size {bits // 8}): "
        "gpu_smoke refuses it; the stack (Theano's g++, pygpu, CUDA, PyTorch) is 64-bit only"
    )
    result.findings = name_failure(result.reason)
    return True


def run_target(target: Target, settings: Settings, say: Callable[[str], None]) -> TargetResult:
    result = TargetResult(target.name, target.description)
    start = time.monotonic()
    missing = missing_needs(target)
    if missing:
        result.reason = "; ".join(missing)
        return result
    if target.python == "mockgpu":
        return run_mockgpu(target, settings, say, result, start)
    note = ""
    if target.env_file and target.require_cuda and not NEEDS["nvidia-driver"][0]():
        # a GPU env file on a GPU-less machine (hosted CI): still make it and prove
        # it on the CPU, and say the GPU half was not run
        target = replace(target, device="cpu", require_cuda=False)
        note = "no NVIDIA driver here: made and checked on device=cpu; GPU checks need a GPU machine"
    base = target.python
    if base.startswith("/") and refuse_32bit(result, base):
        return result
    say(f"[{target.name}] environment")
    try:
        tenv = ensure_env(
            target,
            settings.cache_dir,
            settings.channel,
            settings.fresh,
            say=lambda m: say(f"[{target.name}]   {m}"),
        )
    except GpuforgeError as exc:  # e.g. a conda solve that fails: the target fails, others run
        result.status, result.reason = "fail", f"the environment could not be made: {exc}"
        result.findings = name_failure(str(exc))
        return result
    try:
        return _check_env(tenv, result, settings, say, start, note)
    except OSError as exc:  # its scratch files: a read-only or full cache
        result.status = "fail"
        result.reason = (
            f"{exc.filename or tenv.root}: {exc.strerror or exc} (a read-only or full cache? "
            "set GPUFORGE_CACHE to a writable folder)"
        )
        return result
    finally:
        tenv.release()


def _check_env(
    tenv: TargetEnv,
    result: TargetResult,
    settings: Settings,
    say: Callable[[str], None],
    start: float,
    note: str,
) -> TargetResult:
    target = tenv.target
    result.python, result.env_created, result.env_seconds = str(tenv.python), tenv.created, tenv.seconds
    if refuse_32bit(result, str(tenv.python)):
        return result
    scratch = own_scratch(tenv.root / "scratch")
    say(
        f"[{target.name}] checks: {', '.join(CHECKS)}, and the import tests beside them"
        + (" (first run: Theano compiles its ops)" if tenv.created else "")
    )
    # beside the checks: each is mostly a process start (seconds under Wine), not CPU work
    with ThreadPoolExecutor(1) as pool:
        imports = pool.submit(import_tests, tenv, scratch)
        result.checks = run_checks(
            str(tenv.python),
            tenv.env(),
            CHECKS,
            _check_args(target, settings),
            cwd=scratch,
            timeout=settings.check_timeout,
            progress=lambda s: say(f"[{target.name}] checks still running ({s:.0f} s)"),
        )
        result.import_tests = imports.result()
    result = conclude(result, start, note)
    hung = any(str(c.get("reason", "")).startswith(HUNG_MARK) for c in result.checks)
    if result.status == "fail" and not tenv.created and not hung:
        result.hint = (
            f"{tenv.root} was made by an earlier run: if it is damaged, "
            f"`gpuforge smoke --target {target.name} --fresh` remakes it"
        )
    return result


def own_scratch(folder: Path) -> Path:
    """This run's scratch folder: runs at once on one environment each write their own
    import-test files; the folders of runs that ended are removed."""
    if folder.is_file() or folder.is_symlink():
        folder.unlink()
    for other in folder.glob("run-*"):
        pid = other.name[len("run-") :]
        if not pid.isdigit() or not process_alive(int(pid)):
            shutil.rmtree(other, ignore_errors=True)
    own = folder / f"run-{os.getpid()}"
    own.mkdir(parents=True, exist_ok=True)
    return own


def run_mockgpu(
    target: Target, settings: Settings, say: Callable[[str], None], result: TargetResult, start: float
) -> TargetResult:
    """The mock GPU tier's cases as checks (smoke/mockgpu): no GPU runs, and the report says so."""
    from gpuforge.smoke.mockgpu.cases import NOT_A_GPU, run_tier

    work = Path(settings.cache_dir or locations.cache_dir()) / "targets" / "mockgpu-work"
    say(f"[{target.name}] cases against the mock driver ({NOT_A_GPU})")
    result.checks = run_tier(work, settings.cache_dir, say=lambda m: say(f"[{target.name}]   {m}"))
    return conclude(result, start, NOT_A_GPU)


def conclude(result: TargetResult, start: float, note: str = "") -> TargetResult:
    """Name each failed check's failure mode; the target fails when any check or test did."""
    failed = [c for c in result.checks + result.import_tests if c["status"] == "fail"]
    for c in result.checks:
        if c["status"] == "fail":
            c["findings"] = name_failure(failure_text(c))
            result.findings += [f for f in c["findings"] if f not in result.findings]
    result.status = "fail" if failed else "pass"
    result.note = note
    result.reason = "; ".join(
        [note] * bool(note) + [f"{c.get('check') or c.get('name')}: {c.get('reason', '')}" for c in failed]
    )
    result.seconds = time.monotonic() - start
    return result


def run_python(python: str, settings: Settings, say: Callable[[str], None]) -> TargetResult:
    """An interpreter the user names (`--python PATH`): checks run in it as it is."""
    result = TargetResult(f"python:{python}", f"the interpreter {python}, as it is")
    start = time.monotonic()
    if refuse_32bit(result, python):
        return result
    scratch = Path.cwd()
    say(f"[{result.name}] checks: {', '.join(CHECKS)}")
    result.python = python
    result.checks = run_checks(
        python,
        None,
        CHECKS,
        ["--iters", str(settings.iters), "--steps", str(settings.steps)],
        cwd=scratch,
        timeout=settings.check_timeout,
        progress=lambda s: say(f"[{result.name}] checks still running ({s:.0f} s)"),
    )
    return conclude(result, start)


def default_jobs() -> int:
    """Targets run at once: one per core (each target is mostly one busy process)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


DURATIONS = "durations.json"  # under the cache's targets/: each target's last check time, for scheduling


def _last_durations(settings: Settings) -> tuple[Path, dict[str, float]]:
    path = Path(settings.cache_dir or locations.cache_dir()) / "targets" / DURATIONS
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return path, {str(k): float(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):  # none yet, or unreadable: declared order
        return path, {}


def run_all(
    targets: list[Target],
    pythons: list[str],
    settings: Settings,
    say: Callable[[str], None],
    jobs: int | None = None,
) -> list[TargetResult]:
    """Run every target and interpreter, ``jobs`` at a time; results come back in the given order.

    Targets are independent (each has its own environment, scratch folder and compile
    cache), so they run concurrently, the longest first (by each target's last run here,
    so the slowest does not start last); progress lines are whole lines, each naming its target.
    """
    lock = threading.Lock()

    def say_line(message: str) -> None:
        with lock:
            say(message)

    def run_one(target: Target) -> TargetResult:
        result = run_target(target, settings, say_line)
        say_line(
            f"[{target.name}] {result.status} ({result.seconds:.1f} s)"
            + (f"; {result.hint}" if result.hint else "")
        )
        return result

    path, last = _last_durations(settings)
    order = sorted(range(len(targets)), key=lambda i: -last.get(targets[i].name, 0.0))  # stable
    pool = ThreadPoolExecutor(max_workers=jobs or default_jobs())
    try:
        started = {i: pool.submit(run_one, targets[i]) for i in order}
        futures = [started[i] for i in range(len(targets))]
        futures += [pool.submit(run_python, p, settings, say_line) for p in pythons]
        results = [f.result() for f in futures]
    except BaseException:  # Ctrl-C, SIGTERM, an error: stop the running targets, start no other
        processes.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        processes.STOPPING.clear()  # stopped: a later run in this process may start children
        raise
    pool.shutdown()
    ran = {r.name: r.seconds - r.env_seconds for r in results[: len(targets)] if r.status != "skip"}
    if ran:
        try:
            write_atomic(path, json.dumps({**last, **ran}, indent=1, sort_keys=True) + "\n", backup=False)
        except (OSError, GpuforgeError):
            pass  # scheduling hint only: a read-only cache runs in declared order next time
    return results

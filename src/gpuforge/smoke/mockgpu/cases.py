"""The mock tier's cases: a GPU (compute capability, driver), an NVRTC, a libgpuarray build and a
fix; each run against the mock driver, its PTX assembled for the real architecture with ptxas.

A case is a failure of the published stack and the fixes for it: the failing configuration
must fail with its real error text, and each fix must compile every kernel, with PTX that
NVIDIA's ptxas assembles for the GPU (what the driver's JIT would do). Nothing runs on a GPU:
the mock driver executes no kernel and results through it are meaningless.

Linux runs Debian's libgpuarray3 (the published, unpatched 0.7.6 binary) through
python3-pygpu, or the patched build ($GPUFORGE_LIBGPUARRAY_SOURCE); Windows runs the harness
that replays 0.7.6's Windows loader order (winloader.c) under Wine with NVIDIA's DLLs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuforge import locations, processes
from gpuforge.smoke.mockgpu import build, nvidia
from gpuforge.smoke.mockgpu.build import Unavailable

INSIDE = Path(__file__).resolve().parents[2] / "inside" / "gpu_compile.py"
MARK = "GPUFORGE_COMPILE "
SYSTEM_PYTHON = "/usr/bin/python3"
NOT_A_GPU = "mock driver: nothing ran on a GPU, results are meaningless"
PTXAS_MAX_ISA = 88  # ptxas 12.9 reads PTX ISA <= 8.8


@dataclass(frozen=True)
class Config:
    """One configuration to run."""

    system: str  # linux | windows
    cc: str  # the mock GPU's compute capability, "8.6"
    nvrtc: str  # NVIDIA's NVRTC release, "12.9"
    driver: int = 13000  # what the mock driver reports (cuDriverGetVersion)
    nvrtc_name: str = "nvidia"  # linux: libnvrtc.so is NVIDIA's library | "shim" | "none" (SONAME only)
    library: str = "published"  # linux: Debian's libgpuarray3 0.7.6 | "patched" (recipe patches)
    what: str = "pygpu"  # pygpu | theano | theano-ops (every op family) (linux); windows: the harness
    topk_fix: bool = False  # theano-gpu-config's theano_gpu_config_topk.py imported first

    def label(self) -> str:
        fix = {"nvidia": "", "shim": " + NVRTC shim", "none": " (no libnvrtc.so)"}[self.nvrtc_name]
        fix += " + theano-gpu-config's top-k fix" if self.topk_fix else ""
        lib = {"linux": f"libgpuarray 0.7.6 {self.library}", "windows": "0.7.6 loader harness"}[self.system]
        return (
            f"{self.system} {self.what if self.system == 'linux' else 'harness'}, cc {self.cc}, "
            f"NVRTC {self.nvrtc}{fix}, driver {self.driver // 1000}.{self.driver % 1000 // 10}, {lib}"
        )


@dataclass(frozen=True)
class Case:
    """A failure of the published stack (``broken``, which must show ``error``) and its fixes."""

    name: str
    broken: Config
    error: str
    fixes: tuple[Config, ...]
    in_tests: bool = True


@dataclass
class Outcome:
    config: Config
    status: str  # ok | fail | skip
    reason: str = ""
    error: str = ""
    bin_id: str | None = None
    modules: list[dict[str, str]] = field(default_factory=list)
    ptxas: dict[str, Any] = field(default_factory=dict)
    ops: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["config"] = self.config.label()
        return data


# cuLinkAddData module 3: PTX .version 8.8 .target sm_90 for mock cc 12.0, driver 13000: accepted ...
MODULE_RE = re.compile(r"cuLinkAddData module \d+: PTX \.version (\S+) \.target sm_(\S+) .*?: (accepted|\w+)")


# ptxas 12.9 on PTX ISA >= 6.4 for sm_70 and newer (PTX ISA: vote without .sync is sm_6x only)
VOTE_WITHOUT_SYNC = "Instruction 'vote' without '.sync' is not supported on .target sm_70 and higher"
ENTRY_RE = re.compile(r"^\.(?:visible )?\.entry (\w+)", re.M)  # a kernel of a PTX module


def _parse_log(path: Path) -> list[dict[str, str]]:
    text = path.read_text(errors="replace") if path.exists() else ""
    return [{"version": m[1], "target": f"sm_{m[2]}", "driver": m[3]} for m in MODULE_RE.finditer(text)]


def assemble(ptx_dir: Path, cc: str, cache_dir: Path, say: Callable[[str], None]) -> dict[str, Any]:
    """ptxas every PTX module the driver was handed, for the GPU's real sm_XY."""
    arch = "sm_" + cc.replace(".", "")
    ptxas = nvidia.ptxas(cache_dir, say=say)
    done: dict[str, Any] = {
        "arch": arch,
        "ptxas": nvidia.PTXAS_VERSION,
        "assembled": 0,
        "failed": [],
        "not_assembled": [],
    }
    for ptx in sorted(ptx_dir.glob("*.ptx")):
        m = re.search(r"^\.version (\d+)\.(\d+)", ptx.read_text(errors="replace"), re.M)
        if m and int(m[1]) * 10 + int(m[2]) > PTXAS_MAX_ISA:
            done["not_assembled"].append(
                f"{ptx.name}: PTX ISA {m[1]}.{m[2]} is newer than ptxas {nvidia.PTXAS_VERSION} reads"
            )
            continue
        proc = processes.run(
            [str(ptxas), f"-arch={arch}", str(ptx), "-o", os.devnull],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode == 0:
            done["assembled"] += 1
        else:
            kernels = (
                ", ".join(dict.fromkeys(ENTRY_RE.findall(ptx.read_text(errors="replace")))) or "no entry"
            )
            said = (proc.stderr or proc.stdout).strip().splitlines()
            first = next((ln for ln in said if "error" in ln), said[-1] if said else "no output")
            done["failed"].append(f"{ptx.name} ({kernels}): {first.strip()[-300:]}")
    return done


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "ptx").mkdir(parents=True)
    return folder


def _theano_python(cache_dir: Path) -> str:
    from gpuforge.errors import GpuforgeError
    from gpuforge.smoke.targets import OPENCL, ensure_env, missing_needs

    missing = [m for m in missing_needs(OPENCL) if "OpenCL" not in m]
    if missing:
        raise Unavailable(missing[0])
    try:
        return str(ensure_env(OPENCL, cache_dir, say=lambda _m: None).python)
    except GpuforgeError as exc:
        raise Unavailable(
            f"the opencl target's environment (Theano 1.0.5) could not be made: {exc}"
        ) from None


def run_linux(config: Config, work: Path, cache_dir: Path, say: Callable[[str], None]) -> Outcome:
    if (
        not Path(SYSTEM_PYTHON).exists()
        or processes.run([SYSTEM_PYTHON, "-c", "import pygpu"], capture_output=True, timeout=60).returncode
        != 0
    ):
        raise Unavailable(
            "Debian's python3-pygpu (libgpuarray3 0.7.6) is not importable by "
            "/usr/bin/python3: `apt-get install -y $(grep -v '^#' ci/apt-packages.txt)`"
        )
    folder = _fresh(work)
    mocks = build.linux_mocks(cache_dir)
    for name in ("libcuda.so", "libcuda.so.1", "libcublas.so"):
        os.symlink(mocks / name, folder / name)
    real = nvidia.linux_nvrtc(config.nvrtc, cache_dir, say=say)
    if config.nvrtc_name == "nvidia":  # the unversioned name, as cudatoolkit 11.8 ships it
        os.symlink(real / nvidia.nvrtc(config.nvrtc).soname, folder / "libnvrtc.so")
    elif config.nvrtc_name == "shim":  # theano-gpu-config's shim and forwarder, the mock as libcublas.so.12
        shims = build.shims(cache_dir)["linux"]
        os.symlink(shims / "libnvrtc.so", folder / "libnvrtc.so")
        os.replace(folder / "libcublas.so", folder / "libcublas.so.12")
        os.symlink(shims / "libcublas.so", folder / "libcublas.so")
    path = [str(folder), str(real)]
    if config.library == "patched":
        path.insert(0, str(build.patched_libgpuarray(cache_dir, say)))
    env = dict(
        os.environ,
        LD_LIBRARY_PATH=":".join(path),
        MOCK_CC=config.cc,
        MOCK_DRIVER=str(config.driver),
        MOCK_LOG=str(folder / "mock.log"),
        MOCK_PTX_DIR=str(folder / "ptx"),
    )
    env.pop("GPUARRAY_CACHE_PATH", None)  # a kernel cache would skip NVRTC and the driver
    python = SYSTEM_PYTHON
    args = [config.what]
    if config.topk_fix:
        args += ["--topk-fix", str(build.recipe_folder("theano-gpu-config"))]
    if config.what.startswith("theano"):
        python = _theano_python(cache_dir)
        compiledir = cache_dir / "mockgpu" / "theano-compiledir"
        # a fresh kernel cache per run: libgpuarray keys its cubins by (cc, bin_id, source), so a
        # shared one would serve a fixed run's kernels to the published one (no NVRTC call at all)
        env.update(
            THEANO_FLAGS=f"device=cuda0,floatX=float32,dnn.enabled=False,blas.ldflags=,"
            f"base_compiledir={compiledir},gpuarray.cache_path={folder / 'kernels'}",
            THEANORC=str(folder / "theanorc"),
        )
        (folder / "theanorc").write_text("", encoding="utf-8")
    proc = processes.run(
        [python, str(INSIDE), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=900,
        errors="replace",
    )
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith(MARK)), None)
    if line is None:
        return Outcome(config, "fail", error=f"exit {proc.returncode}: {proc.stderr.strip()[-1500:]}")
    data = json.loads(line[len(MARK) :])
    outcome = Outcome(
        config,
        "ok",
        bin_id=data.get("bin_id"),
        modules=_parse_log(folder / "mock.log"),
        ops=data.get("ops") or [],
    )
    errors = []
    if data.get("error"):
        errors.append(data["error"]["message"])
    if data.get("nvrtc"):
        log = data["nvrtc"].get("log") or data["nvrtc"]
        errors.append(f"NVRTC's log for -arch {data.get('bin_id')}: {log}")
    for family, found in (data.get("families") or {}).items():
        if found.get("error"):
            errors.append(f"{family}: {found['error']['type']}: {found['error']['message'][-600:]}")
    if config.what.startswith("theano"):
        errors += [
            ln
            for ln in proc.stderr.splitlines()
            if "Could not initialize pygpu" in ln or "GpuArrayException" in ln
        ]
        if not any(op.startswith("Gpu") for op in outcome.ops):
            errors.append(f"no GPU op in the compiled function: {', '.join(outcome.ops)}")
    if errors:
        outcome.status, outcome.error = "fail", "\n".join(errors)
    if not outcome.modules and outcome.status == "ok":
        outcome.status, outcome.error = "fail", "no PTX module reached the driver"
    return outcome


def _wine_prefix(cache_dir: Path, wine: Path) -> Path:
    """The tier's own Wine prefix, made once (wineboot) before the first harness runs in it."""
    prefix = cache_dir / "mockgpu" / "wineprefix"
    if not (prefix / "system.reg").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all")
        processes.run([str(wine), "wineboot", "--init"], capture_output=True, env=env, timeout=600)
        server = wine.with_name("wineserver64") if wine.with_name("wineserver64").exists() else None
        if server:  # wait until the prefix is written
            processes.run([str(server), "-w"], env=env, timeout=600)
    return prefix


def run_windows(config: Config, work: Path, cache_dir: Path, say: Callable[[str], None]) -> Outcome:
    from gpuforge.interpreters import WINE, WINE_INSTALL, windows_path

    if not WINE.is_file():
        raise Unavailable(f"no Wine: {WINE_INSTALL}")
    folder = _fresh(work)
    mocks = build.windows_mocks(cache_dir)
    for name in ("winloader.exe", "nvcuda.dll", *build.CUBLAS_DLLS):
        shutil.copy(mocks / name, folder / name)
    for dll in nvidia.windows_nvrtc(config.nvrtc, cache_dir, say=say).glob("*.dll"):
        shutil.copy(dll, folder / dll.name)
    if config.nvrtc_name == "shim":
        shims = build.shims(cache_dir)["windows"]
        for dll in shims.glob("*.dll"):
            shutil.copy(dll, folder / dll.name)
    env = dict(
        os.environ,
        WINEPREFIX=str(_wine_prefix(cache_dir, WINE)),
        WINEDEBUG="-all",
        MOCK_CC=config.cc,
        MOCK_DRIVER=str(config.driver),
        MOCK_LOG=windows_path(folder / "mock.log"),
        MOCK_PTX_DIR=windows_path(folder / "ptx"),
    )
    for attempt in (1, 2):
        proc = processes.run(
            [str(WINE), str(folder / "winloader.exe")],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            timeout=300,
            errors="replace",
        )
        # the harness prints from its first line on: a run that printed nothing failed to start
        # under Wine (a wineserver of the previous case still shutting down), not in the harness
        if proc.returncode == 0 or proc.stdout.strip() or attempt == 2:
            break
        say(f"Wine started nothing (exit {proc.returncode}): running the harness once more")
    lines = [ln.rstrip("\r") for ln in proc.stdout.splitlines()]
    result = next((ln for ln in reversed(lines) if ln.startswith("RESULT ")), None)
    found = (re.search(r'detect_arch "([^"]+)"', ln) for ln in lines)
    arch = next((m[1] for m in found if m), None)
    outcome = Outcome(config, "ok", bin_id=arch, modules=_parse_log(folder / "mock.log"))
    if result is None:
        outcome.status = "fail"
        outcome.error = (
            f"the harness ended (exit {proc.returncode}) without a result: {proc.stderr.strip()[-800:]}"
        )
    elif result != "RESULT ok":
        outcome.status, outcome.error = (
            "fail",
            "\n".join([result[len("RESULT fail ") :], *(ln for ln in lines if "NVRTC log" in ln)]),
        )
    return outcome


def run_config(
    config: Config, work: Path, cache_dir: Path | None = None, say: Callable[[str], None] = print
) -> Outcome:
    """Run one configuration; a missing part is a skip naming it."""
    cache_dir = Path(cache_dir or locations.cache_dir())
    start = time.monotonic()
    try:
        runner = run_windows if config.system == "windows" else run_linux
        outcome = runner(config, work, cache_dir, say)
        if outcome.modules:  # whatever reached the driver, refused or not, is ptxas's to judge
            outcome.ptxas = assemble(work / "ptx", config.cc, cache_dir, say)
            done = outcome.ptxas
            if done["failed"] or not (done["assembled"] or done["not_assembled"]):
                failed = "ptxas: " + "; ".join(done["failed"] or ["no module assembled"])
                outcome.status = "fail"
                outcome.error = "\n".join(e for e in (outcome.error, failed) if e)
    except Unavailable as exc:
        outcome = Outcome(config, "skip", reason=str(exc))
    outcome.seconds = time.monotonic() - start
    return outcome


@dataclass
class CaseResult:
    case: Case
    status: str  # pass | fail | skip
    reason: str
    outcomes: list[Outcome]

    def as_json(self) -> dict[str, Any]:
        return {
            "case": self.case.name,
            "status": self.status,
            "reason": self.reason,
            "expected_error": self.case.error,
            "outcomes": [o.as_json() for o in self.outcomes],
        }


def check_case(
    case: Case, work: Path, cache_dir: Path | None = None, say: Callable[[str], None] = print
) -> CaseResult:
    """The broken configuration must fail with the case's error and every fix must compile and
    assemble; a case without an error is one configuration that must compile and assemble."""
    configs = (case.broken, *case.fixes)
    if any(c.library == "patched" for c in configs) and not os.environ.get(build.SOURCE_ENV):
        return CaseResult(case, "skip", build.NEEDS_SOURCE, [])
    first = run_config(case.broken, work / "broken", cache_dir, say)
    outcomes, problems, skipped = [first], [], []
    if first.status == "skip":
        return CaseResult(case, "skip", first.reason, outcomes)
    arch = "sm_" + case.broken.cc.replace(".", "")
    if not case.error:
        if first.status != "ok":
            return CaseResult(case, "fail", first.error[-600:], outcomes)
        targets = ", ".join(sorted({m["target"] for m in first.modules}))
        return CaseResult(
            case,
            "pass",
            f"{len(first.modules)} module(s) {first.bin_id} -> PTX {targets}, assembled for {arch}",
            outcomes,
        )
    if first.status != "fail" or case.error not in first.error:
        problems.append(f"without a fix expected {case.error!r}, got {first.status}: {first.error[-300:]}")
    for i, fix in enumerate(case.fixes):
        got = run_config(fix, work / f"fix{i}", cache_dir, say)
        outcomes.append(got)
        if got.status == "skip":
            skipped.append(f"{fix.label()}: {got.reason}")
        elif got.status != "ok":
            problems.append(f"{fix.label()}: {got.error[-400:]}")
    if problems:
        return CaseResult(case, "fail", "; ".join(problems), outcomes)
    fixed = len(case.fixes) - len(skipped)
    reason = f"fails as published ({case.error}); {fixed} fix(es) compile and assemble for {arch}"
    if skipped:
        reason += "; not run: " + "; ".join(skipped)
    return CaseResult(case, "pass" if fixed else "skip", reason, outcomes)


def tier(long: bool = False) -> tuple[Case, ...]:
    """The cases of `nox -s tests` (and of the smoke target); ``long``: `nox -s mockgpu`'s too."""
    return tuple(
        c
        for c in (*CASES, *compile_matrix(True), *(compile_matrix(False) if long else ()))
        if long or c.in_tests
    )


def run_tier(
    work: Path, cache_dir: Path | None = None, long: bool = False, say: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Every case of the tier, as gpu_smoke checks (one per case)."""
    checks = []
    for i, case in enumerate(tier(long)):
        start = time.monotonic()
        result = check_case(case, work / f"case{i:02d}", cache_dir, say)
        say(f"{result.status}: {case.name}")
        checks.append({"check": case.name, **result.as_json(), "seconds": time.monotonic() - start})
    return checks


def _linux(cc: str, nvrtc: str, **kw: Any) -> Config:
    return Config("linux", cc, nvrtc, **kw)


def _windows(cc: str, nvrtc: str, **kw: Any) -> Config:
    return Config("windows", cc, nvrtc, **kw)


def _cases() -> tuple[Case, ...]:
    cases = [
        Case(
            "linux: NVRTC only by its SONAME (conda-forge cuda-nvrtc, PyPI wheels)",
            _linux("8.6", "12.9", nvrtc_name="none"),
            'Could not load "libnvrtc.so"',
            (_linux("8.6", "12.9"), _linux("8.6", "12.9", nvrtc_name="none", library="patched")),
        ),
        Case(
            "linux: an NVRTC without the GPU's arch (NVRTC 11.7 on a Hopper)",
            _linux("9.0", "11.7"),
            "NVRTC_ERROR_INVALID_OPTION",
            (
                _linux("9.0", "11.8"),
                _linux("9.0", "11.7", nvrtc_name="shim"),
                _linux("9.0", "11.7", library="patched"),
            ),
        ),
        Case(
            "linux: PTX newer than the driver (NVRTC 12.9 under a CUDA 12.6 driver)",
            _linux("8.6", "12.9", driver=12060),
            "the provided PTX was compiled with an unsupported toolchain",
            (_linux("8.6", "11.8", driver=12060), _linux("8.6", "12.9", driver=12090)),
        ),
        Case(
            "windows: a CUDA >= 10 NVRTC is never found (0.7.6's nvrtc64_%d%d.dll names)",
            _windows("8.6", "11.8", driver=12060),
            'Could not load "nvrtc64_70.dll"',
            (_windows("8.6", "11.8", driver=12060, nvrtc_name="shim"),),
        ),
    ]
    for cc in ("10.0", "12.0"):
        cases.append(
            Case(
                f"linux: Blackwell cc {cc} truncated to compute_{cc.split('.')[0]}",
                _linux(cc, "12.9"),
                "NVRTC_ERROR_INVALID_OPTION",
                (_linux(cc, "12.9", nvrtc_name="shim"), _linux(cc, "12.9", library="patched")),
            )
        )
        cases.append(
            Case(
                f"windows: Blackwell cc {cc} (no NVRTC found, then the truncation)",
                _windows(cc, "12.9"),
                'Could not load "nvrtc64_70.dll"',
                (_windows(cc, "12.9", nvrtc_name="shim"),),
            )
        )
    cases.append(
        Case(
            "theano: Blackwell cc 12.0 at Theano's start-up (device=cuda0)",
            _linux("12.0", "12.9", what="theano"),
            "Could not initialize pygpu, support disabled",
            (
                _linux("12.0", "12.9", nvrtc_name="shim", what="theano"),
                _linux("12.0", "12.9", library="patched", what="theano"),
            ),
        )
    )
    # Theano's own kernels, every op family the env files promise, assembled for the real GPU:
    # GpuTopKOp's __ballot (vote without .sync) is refused from sm_70 on; theano-gpu-config fixes it
    for cc, in_tests in (("9.0", True), ("7.0", False), ("8.6", False), ("8.9", False)):
        cases.append(
            Case(
                f"theano: every op family's kernels on cc {cc} (NVRTC 11.8): GpuTopKOp's warp vote",
                _linux(cc, "11.8", driver=12060, what="theano-ops"),
                VOTE_WITHOUT_SYNC,
                (_linux(cc, "11.8", driver=12060, what="theano-ops", topk_fix=True),),
                in_tests=in_tests,
            )
        )
    # CUDA 13's NVRTC starts at compute_75: a Pascal needs NVRTC <= 12.9; the patched build says so
    cases.append(
        Case(
            "linux: Pascal cc 6.1 on NVRTC 13.0",
            _linux("6.1", "13.0"),
            "NVRTC_ERROR_INVALID_OPTION",
            (_linux("6.1", "12.9"),),
            in_tests=False,
        )
    )
    cases.append(
        Case(
            "linux: Pascal cc 6.1 on NVRTC 13.0, patched build",
            _linux("6.1", "13.0", library="patched"),
            "supports no architecture up to compute_61",
            (_linux("6.1", "12.9", library="patched"),),
            in_tests=False,
        )
    )
    # the patched build's fixes as cases of their own: a skip (no source) is then a skip
    split = []
    for case in cases:
        patched = tuple(f for f in case.fixes if f.library == "patched" and case.broken.library != "patched")
        if patched and len(patched) < len(case.fixes):
            split.append(replace(case, fixes=tuple(f for f in case.fixes if f not in patched)))
            split.append(replace(case, name=f"{case.name}, patched build", fixes=patched))
        else:
            split.append(case)
    return tuple(split)


CASES = _cases()


def compile_matrix(in_tests: bool) -> tuple[Case, ...]:
    """Every cc of the tier on the CUDA 11.8 env's NVRTC compiles: as published on Linux, through
    the shim on Windows (``in_tests``); the long run adds Theano per cc, NVRTC 12.0 and 13.0."""
    ccs = ("6.1", "7.5", "8.6", "8.9", "9.0")
    if in_tests:
        rows = [Config("linux", cc, "11.8", driver=12060) for cc in ccs]
        rows += [Config("windows", cc, "11.8", driver=12060, nvrtc_name="shim") for cc in ccs]
    else:
        rows = [Config("linux", cc, "11.8", driver=12060, what="theano-ops", topk_fix=True) for cc in ccs]
        rows += [Config("linux", "10.0", "12.9", nvrtc_name="shim", what="theano-ops", topk_fix=True)]
        rows += [Config("linux", cc, "12.0", driver=12060) for cc in ccs]
        # NVRTC 13 knows compute_75 and newer; its PTX (ISA 9.0) is newer than ptxas 12.9 reads
        rows += [Config("linux", cc, "13.0", nvrtc_name="shim") for cc in (*ccs[1:], "10.0", "12.0")]
        rows += [Config("windows", cc, "12.9", nvrtc_name="shim") for cc in (*ccs, "10.0", "12.0")]
        rows += [Config("windows", cc, "13.0", nvrtc_name="shim") for cc in ("7.5", "9.0", "12.0")]
    return tuple(Case(f"compiles: {r.label()}", r, "", (), in_tests) for r in rows)

"""The silicon tier's runner: gpuforge's proof of the GPU env, on a machine with an NVIDIA GPU.

    python3 silicon_runner.py OUT [--tests-budget SECONDS] [--mock DIR]

Runs from the unpacked bundle (tools/silicon.py builds it: `nox -s silicon`), with the machine's
own Python 3.10+ and nothing from the network. Every step is time-boxed and recorded, whatever it
does; a step that fails is data, and the next step runs. Writes OUT/silicon.json and
OUT/silicon.md, and OUT/run.log with everything the steps printed:

1. the machine: nvidia-smi's GPU, compute capability and driver; the kernel; the Python;
2. gpuforge from the bundle's wheels into a venv of the machine's Python (no index);
3. the environment (``env/``: envs/gpu-linux64.yml's, made from parts) activated as conda
   would: theano-gpu-config's activate.sh writes its theanorc; the machine's cuBLAS is linked
   as the env's libcublas.so (the bundle carries none: cudatoolkit 11.8's is 400 MB);
4. `gpuforge doctor --python env/bin/python` and `gpuforge smoke --python env/bin/python`, twice:
   with an empty Theano compile cache (cold) and again (warm);
5. libgpuarray's variants (silicon_variants.py under the env's Python): the published build,
   the recipe's patched build, patched with GPUARRAY_CUDA_ARCH=80 and =52: kernels and cuBLAS
   against numpy, first call and cached;
6. Theano with cuDNN turned on (`dnn.enabled=True`, whatever cuDNN the machine has): a conv2d,
   its output kept (OUT/cudnn-on.txt), then `gpuforge doctor --log` on that output: the doctor
   on Theano's own words with today's cuDNN;
7. Theano 1.0.5's own gpuarray test modules (nose), each time-boxed, within --tests-budget.

``--mock DIR`` (tools/silicon.py's dry run): gpuforge's mock CUDA driver and mock cuBLAS from DIR
stand in for the machine's; NOTHING runs on a GPU and every number is meaningless: the report
says so on its first line. It proves the runner and the bundle, not the stack.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENV = HERE / "env"
WHEELS = HERE / "wheels"
NOT_A_GPU = "DRY RUN against gpuforge's mock CUDA driver: nothing ran on a GPU, every number is meaningless"
# Theano 1.0.5's gpuarray test modules, the quick ones first (test_sort: GpuTopKOp)
TEST_MODULES = (
    "test_sort",
    "test_basic_ops",
    "test_elemwise",
    "test_blas",
    "test_reduction",
    "test_subtensor",
    "test_nnet",
    "test_abstractconv",
    "test_pool",
    "test_opt",
    "test_linalg",
)
MARK = "--- gpuforge: the activated environment ---"
# smoke's limit for a process of checks: Theano compiles every check's ops in about 60 s on an
# H200 with an empty cache; a check past it (a kernel that never ends) fails alone as hung
CHECK_TIMEOUT = 180
# a convolution Theano gives to cuDNN when dnn.enabled=True (GpuDnnConv), checked against numpy
CUDNN_ON = """
import numpy, theano, theano.tensor as T
from theano.tensor.nnet import conv2d
x, w = T.tensor4("x"), T.tensor4("w")
f = theano.function([x, w], conv2d(x, w))
print([type(n.op).__name__ for n in f.maker.fgraph.toposort()])
image, kernel = numpy.ones((1, 1, 8, 8), "float32"), numpy.ones((1, 1, 3, 3), "float32")
print("conv2d of ones, 9 expected:", float(f(image, kernel)[0, 0, 0, 0]))
"""
NOSE_TALLY = re.compile(r"^Ran (\d+) tests? in", re.M)
NOSE_OUTCOME = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$", re.M)


class Run:
    """The report being written: each step's command, status, seconds and what it found."""

    def __init__(self, out: Path, mock: Path | None) -> None:
        self.out, self.mock = out, mock
        self.log = open(out / "run.log", "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.report: dict = {"mock": bool(mock), "note": NOT_A_GPU if mock else "", "steps": []}
        self.started = time.time()

    def say(self, line: str) -> None:
        stamped = f"{time.time() - self.started:7.1f}s {line}"
        print(stamped, flush=True)
        self.log.write(stamped + "\n")
        self.log.flush()

    def step(
        self,
        name: str,
        cmd: list[str],
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> tuple[dict, str]:
        """Run ``cmd`` in its own process group (in OUT unless ``cwd``), killed with its children
        at ``timeout``: its report entry (the output's tail) and its whole output."""
        self.say(f"[{name}] {' '.join(cmd)}")
        start = time.time()
        entry: dict = {"step": name, "command": cmd}
        try:
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=cwd or self.out,
                text=True,
                errors="replace",
                start_new_session=True,
            )
            try:
                output, _ = proc.communicate(timeout=timeout)
                entry.update(exit=proc.returncode, status="done" if proc.returncode == 0 else "failed")
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                output, _ = proc.communicate()
                entry.update(exit=None, status="timed out", timeout=timeout)
        except OSError as exc:
            output = f"cannot run {cmd[0]}: {exc}"
            entry.update(exit=None, status="failed")
        entry["seconds"] = round(time.time() - start, 2)
        entry["output_tail"] = output[-4000:]
        self.log.write(output + "\n")
        self.say(f"[{name}] {entry['status']} ({entry['seconds']} s)")
        self.report["steps"].append(entry)
        self.write()
        return entry, output

    def write(self) -> None:
        self.report["seconds"] = round(time.time() - self.started, 1)
        (self.out / "silicon.json").write_text(json.dumps(self.report, indent=1) + "\n", encoding="utf-8")
        (self.out / "silicon.md").write_text(markdown(self.report), encoding="utf-8")


def machine(run: Run) -> None:
    facts: dict = {"kernel": platform.release(), "python": sys.version.split()[0], "host": platform.node()}
    smi = shutil.which("nvidia-smi")
    if run.mock:
        facts.update(
            gpu="gpuforge mock cc 9.0 (not a GPU)", compute_capability="9.0", driver="mock, CUDA 13.0"
        )
    elif smi:
        entry, output = run.step(
            "nvidia-smi",
            [smi, "--query-gpu=name,compute_cap,driver_version,memory.total", "--format=csv,noheader"],
            timeout=60,
        )
        said = output.strip().splitlines() if entry["exit"] == 0 else []
        fields = [f.strip() for f in said[0].split(",")] if said else []
        if len(fields) == 4:
            facts.update(gpu=fields[0], compute_capability=fields[1], driver=fields[2], memory=fields[3])
    run.report["machine"] = facts
    run.report["date"] = time.strftime("%Y-%m-%d")


def install_gpuforge(run: Run) -> Path | None:
    """A venv of the machine's Python with gpuforge from the bundle's wheels (no index)."""
    venv = run.out / "host-venv"
    made, _ = run.step(
        "venv", [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], timeout=300
    )
    if made["exit"] != 0:
        return None
    # every project the bundle carries a wheel of, by name (pip picks the one for this Python);
    # --no-deps: py-rattler (`envs solve|lock`) is not carried, doctor and smoke do not import it
    names = sorted({w.name.split("-")[0].replace("_", "-").lower() for w in WHEELS.glob("*.whl")})
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--no-index",
        "--no-deps",
        "--find-links",
        str(WHEELS),
        *names,
    ]
    installed, _ = run.step("install gpuforge", pip, timeout=600)
    return venv / "bin" / "gpuforge" if installed["exit"] == 0 else None


def find_cublas() -> Path | None:
    """The machine's cuBLAS (any CUDA >= 11's libcublas.so.N)."""
    roots = [
        Path(p)
        for p in (
            "/usr/local/cuda/lib64",
            "/usr/local/cuda/targets/x86_64-linux/lib",
            "/usr/lib/x86_64-linux-gnu",
        )
    ]
    roots += sorted(Path("/usr/local").glob("cuda-*/lib64"), reverse=True)
    for root in roots:
        found = sorted(root.glob("libcublas.so.1[0-9]*"), reverse=True)
        if found:
            return found[0]
    return None


def environment(run: Run) -> dict[str, str] | None:
    """The env activated as `conda activate` would, with the machine's (or the mock's) libraries."""
    lib = ENV / "lib"
    cublas = run.mock / "libcublas.so" if run.mock else find_cublas()
    if cublas is None:
        run.say(
            "no libcublas.so.N on this machine (/usr/local/cuda/lib64, /usr/lib/x86_64-linux-gnu): "
            "GEMM checks will fail"
        )
    else:
        for link, target in (
            ("libcublas.so", cublas),
            *((f.name.split(".so")[0] + ".so", f) for f in cublas.parent.glob("libcublasLt.so.1[0-9]*")),
        ):
            (lib / link).unlink(missing_ok=True)
            (lib / link).symlink_to(target)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("THEANO_FLAGS", "THEANORC", "PYTHONPATH", "PYTHONHOME")
    }
    env.update(
        CONDA_PREFIX=str(ENV),
        PATH=f"{ENV / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        LD_LIBRARY_PATH=os.pathsep.join(
            [*([str(run.mock)] if run.mock else []), str(lib), env.get("LD_LIBRARY_PATH", "")]
        ),
        HOME=str(run.out / "home"),
        PYTHONUTF8="1",
    )
    if run.mock:
        env.update(MOCK_CC="9.0", MOCK_DRIVER="13000", MOCK_LOG=str(run.out / "mock.log"))
    (run.out / "home").mkdir(exist_ok=True)
    # theano-gpu-config's activation, as conda runs it: writes env/etc/theano/theanorc, sets
    # THEANORC and MKL_THREADING_LAYER; read back what it exported
    script = ENV / "etc" / "conda" / "activate.d" / "theano-gpu-config_activate.sh"
    entry, output = run.step(
        "activate", ["sh", "-c", f'. "{script}" && echo "{MARK}" && env -0'], timeout=60, env=env
    )
    if entry["exit"] != 0 or MARK not in output:
        return None
    dump = output.split(MARK, 1)[1]
    activated = dict(item.strip("\n").split("=", 1) for item in dump.split("\0") if "=" in item)
    rc = ENV / "etc" / "theano" / "theanorc"
    run.report["theanorc"] = rc.read_text(encoding="utf-8") if rc.is_file() else None
    return activated


def doctor_and_smoke(run: Run, gpuforge: Path, env: dict[str, str]) -> None:
    python = str(ENV / "bin" / "python")
    entry, output = run.step("doctor", [str(gpuforge), "doctor", "--python", python], timeout=600, env=env)
    entry["verdict"] = output.strip().splitlines()[-1] if output.strip() else ""
    cache = run.out / "theano-cache"
    for label in ("cold", "warm"):
        if label == "cold":
            shutil.rmtree(cache, ignore_errors=True)
        smoke_env = dict(env, THEANO_FLAGS=f"base_compiledir={cache}")
        entry, _ = run.step(
            f"smoke {label}",
            [str(gpuforge), "smoke", "--python", python, "--check-timeout", str(CHECK_TIMEOUT)]
            + ["--report-dir", str(run.out / f"smoke-{label}")],
            timeout=1800,
            env=smoke_env,
        )
        report = run.out / f"smoke-{label}" / "gpu_smoke.json"
        if report.is_file():
            target = json.loads(report.read_text(encoding="utf-8"))["targets"][0]
            entry["verdict"] = target["status"]
            entry["checks"] = {c["check"]: [c["status"], c.get("reason", "")] for c in target["checks"]}


def cudnn_on(run: Run, gpuforge: Path, env: dict[str, str]) -> None:
    """Theano with the machine's cuDNN turned on, and the doctor on what Theano printed."""
    python = str(ENV / "bin" / "python")
    flags = f"dnn.enabled=True,base_compiledir={run.out / 'theano-cache-dnn'}"
    entry, output = run.step(
        "theano cudnn on", [python, "-c", CUDNN_ON], timeout=600, env=dict(env, THEANO_FLAGS=flags)
    )
    said = run.out / "cudnn-on.txt"
    said.write_text(output, encoding="utf-8")
    entry["verdict"] = output.strip().splitlines()[-1][:200] if output.strip() else ""
    entry, output = run.step(
        "doctor --log cudnn-on.txt", [str(gpuforge), "doctor", "--log", str(said)], timeout=120, env=env
    )
    entry["verdict"] = " / ".join(ln.strip() for ln in output.strip().splitlines()[:2])[:300]
    if entry["exit"] == 1:  # the doctor's exit 1: it named a cause
        entry["status"] = "done"


def variants(run: Run, env: dict[str, str]) -> None:
    python = str(ENV / "bin" / "python")
    patched = str(ENV / "lib" / "gpuarray-patched")
    cases = [
        ("published", {}),
        ("patched", {"LD_LIBRARY_PATH": patched}),
        ("patched, GPUARRAY_CUDA_ARCH=80", {"LD_LIBRARY_PATH": patched, "GPUARRAY_CUDA_ARCH": "80"}),
        ("patched, GPUARRAY_CUDA_ARCH=52", {"LD_LIBRARY_PATH": patched, "GPUARRAY_CUDA_ARCH": "52"}),
    ]
    for label, extra in cases:
        case_env = dict(env, GPUARRAY_CACHE_PATH=str(run.out / "kernels" / label.replace(" ", "_")))
        if "LD_LIBRARY_PATH" in extra:  # the patched build first, the env's libraries after it
            extra = dict(
                extra, LD_LIBRARY_PATH=f"{extra['LD_LIBRARY_PATH']}{os.pathsep}{env['LD_LIBRARY_PATH']}"
            )
        case_env.update(extra)
        entry, output = run.step(
            f"libgpuarray {label}", [python, str(HERE / "silicon_variants.py")], timeout=600, env=case_env
        )
        line = next((ln for ln in reversed(output.splitlines()) if ln.startswith("{")), None)
        entry["result"] = json.loads(line) if line else None


def theano_tests(run: Run, env: dict[str, str], budget: float) -> None:
    python = str(ENV / "bin" / "python")
    left = budget
    tally: dict = {"modules": {}}
    for module in TEST_MODULES:
        if left < 30:
            tally["modules"][module] = "not run: the --tests-budget was spent"
            continue
        entry, output = run.step(
            f"theano {module}",
            [python, "-m", "nose", "-v", f"theano.gpuarray.tests.{module}"],
            timeout=min(left, 900),
            env=env,
        )
        left -= entry["seconds"]
        out = output if entry["status"] != "timed out" else ""
        ran, outcome = NOSE_TALLY.search(out), NOSE_OUTCOME.search(out)
        tally["modules"][module] = (
            f"timed out after {entry['seconds']} s"
            if entry["status"] == "timed out"
            else f"{ran.group(1) if ran else '?'} tests: {outcome.group(0) if outcome else 'no verdict'}"
        )
    run.report["theano_tests"] = tally


def markdown(report: dict) -> str:
    m = report.get("machine", {})
    lines = []
    if report.get("note"):
        lines += [f"**{report['note']}**", ""]
    lines += [
        f"gpuforge silicon tier, {report.get('date', '')}: {m.get('gpu', '?')} "
        f"(cc {m.get('compute_capability', '?')}), driver {m.get('driver', '?')}, "
        f"kernel {m.get('kernel', '?')}, Python {m.get('python', '?')}",
        "",
        "| step | status | seconds | what it found |",
        "|---|---|---|---|",
    ]
    for s in report["steps"]:
        found = s.get("verdict") or ""
        if s.get("checks"):
            found += ": " + ", ".join(f"{k} {v[0]}" for k, v in s["checks"].items())
        if s.get("result"):
            r = s["result"]
            found = r.get("summary", "") if isinstance(r, dict) else ""
        lines.append(f"| {s['step']} | {s['status']} | {s['seconds']} | {found} |")
    if report.get("theano_tests"):
        lines += ["", "Theano 1.0.5's own gpuarray tests:", ""]
        lines += [f"- {k}: {v}" for k, v in report["theano_tests"]["modules"].items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tests-budget", type=float, default=600, help="seconds for Theano's own tests")
    parser.add_argument("--mock", type=Path, help="a folder with the mock libcuda.so.1 and libcublas.so")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    run = Run(args.out.resolve(), args.mock.resolve() if args.mock else None)
    if run.mock:
        run.say(NOT_A_GPU)
    machine(run)
    gpuforge = install_gpuforge(run)
    env = environment(run)
    if gpuforge is not None and env is not None:
        doctor_and_smoke(run, gpuforge, env)
        cudnn_on(run, gpuforge, env)
    if env is not None:
        variants(run, env)
        theano_tests(run, env, args.tests_budget)
    run.write()
    run.say(f"report: {run.out / 'silicon.json'} {run.out / 'silicon.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`gpuforge doctor` on real broken environments, and the fix that makes it pass again.

Each test breaks a real environment the way users did (the local targets'
venvs from gpuforge.smoke.targets, real interpreters, real files, the real OpenCL
device), runs the doctor on it, applies the fix it names, and runs it again.
Failures that need Windows or an NVIDIA driver are replayed from recorded texts
in test_doctor.py.
"""

from __future__ import annotations

import bz2
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from gpuforge import locations
from gpuforge.smoke.targets import LOCAL_TARGETS, TargetEnv, ensure_env, missing_needs

pytestmark = pytest.mark.slow

# Catalog entries reproduced for real here (test_doctor checks every entry has a test).
REPRODUCED = {
    "numpy_aliases",
    "blas_opt_info",
    "old_device_flag",
    "old_backend_keys",
    "gxx_missing",
    "gpuarray_needs_cxx",
    "foreign_gxx",
    "pygpu_import",
    "pygpu_load_lib",
    "compile_lock",
    "torch_C_shadow",
    "module_shadow",
    "env_mismatch",
    "conda_eof",
    "mp_spawn",
    "float64_gpu",
    "old_check_script",
    "python_32bit",
    "gpuarray_headers",
    "opencl_gemv_beta0",
    "opencl_blas_missing",
    "two_theano_installs",
}
GPU_CHECKS = str(ROOT / "src" / "gpuforge" / "inside" / "gpu_checks.py")
PYTHON32 = locations.cache_dir() / "python32" / "python3"  # made by ci/python32.sh


def _target(name: str) -> TargetEnv:
    target = next(t for t in LOCAL_TARGETS if t.name == name)
    missing = missing_needs(target)
    if missing:
        pytest.skip(f"target {name} cannot be made here: {'; '.join(missing)}")
    return ensure_env(target, say=lambda _: None)


@pytest.fixture(scope="session")
def opencl() -> TargetEnv:
    return _target("opencl")


@pytest.fixture(scope="session")
def cpu() -> TargetEnv:
    return _target("cpu")


def env_for(
    target: TargetEnv,
    *,
    flags: tuple[str, ...] = (),
    drop: tuple[str, ...] = (),
    theanorc: Path | None = None,
    path: str | None = None,
    **extra: str,
) -> dict[str, str]:
    """The target's environment as if activated, with Theano flags changed."""
    env = target.env()
    kept = [f for f in env["THEANO_FLAGS"].split(",") if f.split("=", 1)[0] not in drop]
    env["THEANO_FLAGS"] = ",".join([*kept, *flags])
    if theanorc is not None:
        env["THEANORC"] = str(theanorc)
    env["PATH"] = path if path is not None else f"{target.root / 'bin'}{os.pathsep}{os.environ['PATH']}"
    env.update(extra)
    return env


def doctor(python: Path | str, env: dict[str, str], cwd: Path, *args: str) -> tuple[list[str], dict]:
    """Run `gpuforge doctor --python PYTHON --json` for real: (ids found, the JSON)."""
    proc = run_cli("doctor", "--python", str(python), "--json", *args, cwd=cwd, **env)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    ids = [f["id"] for f in data["findings"]]
    assert proc.returncode == (1 if ids else 0)
    return ids, data


def log_ids(log: Path) -> list[str]:
    """The ids `gpuforge doctor --log LOG` names, first the last error."""
    proc = run_cli("doctor", "--log", str(log), "--json")
    return [f["id"] for f in json.loads(proc.stdout)["findings"]]


def evidence(data: dict, entry_id: str) -> str:
    return next(f["evidence"] for f in data["findings"] if f["id"] == entry_id)


# --- healthy ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cpu", "opencl"])
def test_healthy_targets_find_nothing(name: str, tmp_path: Path) -> None:
    target = _target(name)
    start = time.monotonic()
    ids, _ = doctor(target.python, env_for(target), tmp_path)
    seconds = time.monotonic() - start
    assert ids == []
    assert seconds < 30, f"doctor on the healthy {name} target took {seconds:.1f} s"


# --- Theano configuration -------------------------------------------------------------------------


def test_old_device_flag_then_no_driver_then_opencl(opencl: TargetEnv, tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    rc.write_text("[global]\ndevice = gpu0\n", encoding="utf-8")
    env = env_for(opencl, drop=("device",), theanorc=rc)
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["old_device_flag"]
    assert "You are tring to use the old GPU back-end" in evidence(data, "old_device_flag")
    ids, data = doctor(opencl.python, env, tmp_path, "--fix")  # device = cuda0, then probed again
    assert rc.read_text(encoding="utf-8") == "[global]\ndevice = cuda0\n"
    # no NVIDIA driver here: the doctor now names that, with the OpenCL way out
    assert ids == ["pygpu_load_lib"] and 'Could not load "libcuda.so"' in evidence(data, "pygpu_load_lib")
    assert "device=opencl0:0" in data["findings"][0]["fix"]
    rc.write_text("[global]\ndevice = opencl0:0\n", encoding="utf-8")
    assert doctor(opencl.python, env, tmp_path)[0] == []


def test_pygpu_load_lib_without_a_driver(opencl: TargetEnv, tmp_path: Path) -> None:
    ids, data = doctor(opencl.python, env_for(opencl, flags=("device=cuda",)), tmp_path)
    assert ids == ["pygpu_load_lib"]
    assert evidence(data, "pygpu_load_lib").startswith("pygpu.gpuarray.GpuArrayException: b'Could not load")


def test_old_backend_keys_are_moved(opencl: TargetEnv, tmp_path: Path) -> None:
    """Seeds 002/003: `lib.cnmem` and `[nvcc] fastmath` from the old backend."""
    rc = tmp_path / "theanorc"
    rc.write_text(
        "[global]\nfloatX = float32\n\n[lib]\ncnmem = 64\n\n[nvcc]\nfastmath = True\n", encoding="utf-8"
    )
    env = env_for(opencl, theanorc=rc)
    ids, data = doctor(opencl.python, env, tmp_path)
    assert (
        ids == ["old_backend_keys"]
        and evidence(data, "old_backend_keys") == "derived.old_backend_keys = lib.cnmem, nvcc.fastmath"
    )
    ids, _ = doctor(opencl.python, env, tmp_path, "--fix")
    assert ids == []
    assert rc.read_text(encoding="utf-8") == (
        "[global]\nfloatX = float32\n\n[lib]\n"
        "# cnmem = 64    # gpuforge: old backend key, now gpuarray.preallocate\n\n[nvcc]\n"
        "# fastmath = True    # gpuforge: old backend key, ignored by Theano 1.0\n\n"
        "[gpuarray]\npreallocate = 64\n"
    )
    assert (tmp_path / "theanorc.bak").read_text(encoding="utf-8").count("cnmem = 64") == 1


def test_blas_opt_info_fixed_in_theanorc(opencl: TargetEnv, tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    env = env_for(opencl, drop=("blas.ldflags",), theanorc=rc)
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["blas_opt_info"]
    ids, _ = doctor(opencl.python, env, tmp_path, "--fix")
    assert ids == [] and rc.read_text(encoding="utf-8") == "[blas]\nldflags =\n"


def test_float64_on_the_gpu(opencl: TargetEnv, tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    rc.write_text("[global]\nfloatX = float64\nwarn_float64 = warn\n", encoding="utf-8")
    env = env_for(opencl, drop=("floatX",), theanorc=rc)
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["float64_gpu"] and "derived.floatX = float64" in evidence(data, "float64_gpu")
    # Theano's own warning, from a real graph: the text names the same failure
    script = "import theano.tensor as T\nT.dvector('x')\n"
    out = subprocess.run(
        [str(opencl.python), "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    log = tmp_path / "run.log"
    log.write_text(out.stdout + out.stderr, encoding="utf-8")
    assert log_ids(log)[0] == "float64_gpu"
    ids, _ = doctor(opencl.python, env, tmp_path, "--fix")
    assert ids == [] and "floatX = float32" in rc.read_text(encoding="utf-8")


def test_a_float64_update_of_a_float32_shared_variable(cpu: TargetEnv, tmp_path: Path) -> None:
    """Theano #4297's TypeError for real: floatX=float64 makes `0.1 * w` float64 for a float32 w."""
    script = (
        "import numpy, theano\nw = theano.shared(numpy.zeros(3, dtype='float32'))\n"
        "theano.function([], [], updates=[(w, w - 0.1 * w)])\nprint('compiled')\n"
    )
    runs = {}
    for floatx in ("float64", "float32"):
        env = env_for(cpu, drop=("floatX",), flags=(f"floatX={floatx}",))
        runs[floatx] = subprocess.run(
            [str(cpu.python), "-c", script],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
        )
    log = tmp_path / "run.log"
    log.write_text(runs["float64"].stdout + runs["float64"].stderr, encoding="utf-8")
    assert "An update must have the same type as the original shared variable" in log.read_text()
    assert log_ids(log) == ["float64_gpu"]
    assert runs["float32"].returncode == 0 and "compiled" in runs["float32"].stdout  # the fix


def test_opencl_gemv_needs_the_exclusion(opencl: TargetEnv, tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    env = env_for(opencl, drop=("optimizer_excluding",), theanorc=rc)
    assert doctor(opencl.python, env, tmp_path)[0] == ["opencl_gemv_beta0"]
    ids, _ = doctor(opencl.python, env, tmp_path, "--fix")
    assert ids == [] and rc.read_text(encoding="utf-8") == "[global]\noptimizer_excluding = local_gpua_gemv\n"


# --- compilers ----------------------------------------------------------------------------


def test_gxx_missing_from_path(opencl: TargetEnv, tmp_path: Path) -> None:
    if not Path("/usr/bin/g++").exists():
        pytest.skip("needs /usr/bin/g++: `sudo apt-get install -y g++`")
    rc = tmp_path / "theanorc"
    env = env_for(opencl, theanorc=rc, path=str(opencl.root / "bin"))  # PATH without /usr/bin
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["gxx_missing"]
    assert "g++ not detected" in evidence(data, "gxx_missing")
    proc = run_cli("doctor", "--python", str(opencl.python), cwd=tmp_path, **env)
    assert "The new gpu-backend need a c++ compiler" not in proc.stdout  # the wrapper yields
    facts_log = subprocess.run(
        [str(opencl.python), "-c", "import theano"], capture_output=True, text=True, env=env, cwd=tmp_path
    ).stderr
    assert "The new gpu-backend need a c++ compiler" in facts_log  # ... although Theano printed it
    ids, _ = doctor(opencl.python, env, tmp_path, "--fix")
    assert rc.read_text(encoding="utf-8") == "[global]\ncxx = /usr/bin/g++\n"
    assert ids == []


def test_foreign_gxx_first_on_path(opencl: TargetEnv, tmp_path: Path) -> None:
    """Seed 000's Jupyter case: cxx names one g++, PATH finds another first."""
    clang = shutil.which("clang++") or next(iter(sorted(Path("/usr/bin").glob("clang++-*"))), None)
    if clang is None:
        pytest.skip("needs a second C++ compiler (clang++): `sudo apt-get install -y clang`")
    foreign = tmp_path / "othertools" / "bin"
    foreign.mkdir(parents=True)
    (foreign / "g++").symlink_to(clang)
    rc = tmp_path / "theanorc"
    rc.write_text("[global]\ncxx = /usr/bin/g++\n", encoding="utf-8")
    env = env_for(opencl, theanorc=rc, path=f"{opencl.root / 'bin'}:{foreign}:{os.environ['PATH']}")
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["foreign_gxx"]
    assert evidence(data, "foreign_gxx").endswith(f"the first g++ on PATH is {foreign / 'g++'}")
    path = f"{opencl.root / 'bin'}:/usr/bin:{foreign}:{os.environ['PATH']}"  # cxx's folder first
    fixed = env_for(opencl, theanorc=rc, path=path)
    assert doctor(opencl.python, fixed, tmp_path)[0] == []


def _unshare_ok() -> bool:
    return (
        shutil.which("unshare") is not None
        and subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0
    )


def test_opencl_blas_missing_without_clblast(opencl: TargetEnv, tmp_path: Path) -> None:
    """libclblast hidden from the process (a mount namespace): GpuGemv has no BLAS."""
    libs = sorted(Path("/usr/lib/x86_64-linux-gnu").glob("libclblast.so*"))
    if not libs or not _unshare_ok():
        pytest.skip("needs libclblast (ci/apt-packages.txt: libclblast-dev) and `unshare -m` (root)")
    empty = tmp_path / "empty.so"
    empty.write_bytes(b"")
    hide = "".join(f"mount --bind {empty} {lib} && " for lib in libs) + 'exec "$@"'
    env = env_for(opencl, drop=("optimizer_excluding",))
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", hide, "sh", str(opencl.python), GPU_CHECKS, "logreg", "--steps", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert "Missing Blas library" in run.stdout, run.stderr
    log = tmp_path / "logreg.log"
    log.write_text(run.stdout, encoding="utf-8")
    assert log_ids(log)[:1] == ["opencl_blas_missing"]
    fixed = env_for(opencl)  # the fix without CLBlast: Gemv stays on the CPU
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", hide, "sh", str(opencl.python), GPU_CHECKS, "logreg", "--steps", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=fixed,
    )
    assert "Missing Blas library" not in run.stdout and '"gemv_on": "cpu"' in run.stdout, run.stdout[-2000:]


def test_gpuarray_headers_outside_the_prefix(opencl: TargetEnv, tmp_path: Path) -> None:
    """libgpuarray's headers hidden from g++ (a mount namespace), then found through gcc.cxxflags."""
    if not Path("/usr/include/gpuarray/array.h").exists() or not _unshare_ok():
        pytest.skip("needs libgpuarray-dev's headers (/usr/include/gpuarray) and `unshare -m` (root)")
    headers = tmp_path / "prefix" / "include"
    shutil.copytree("/usr/include/gpuarray", headers / "gpuarray")
    (tmp_path / "empty").mkdir()
    env = env_for(opencl, flags=(f"base_compiledir={tmp_path / 'compiledir'}",))
    hide = f'mount --bind {tmp_path / "empty"} /usr/include/gpuarray && exec "$@"'
    host = [sys.executable, "-m", "gpuforge", "doctor", "--python", str(opencl.python), "--json"]
    from conftest import cli_env

    def hidden(cmd: list[str], flags: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["unshare", "-m", "sh", "-c", hide, "sh", *cmd],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=cli_env(**dict(env, THEANO_FLAGS=flags)),
        )

    broken = hidden(host, env["THEANO_FLAGS"])
    assert [f["id"] for f in json.loads(broken.stdout)["findings"]] == ["gpuarray_headers"], broken.stderr
    compile_ = hidden([str(opencl.python), GPU_CHECKS, "exp", "--iters", "2"], env["THEANO_FLAGS"])
    assert "fatal error: gpuarray/array.h: No such file or directory" in compile_.stdout
    log = tmp_path / "compile.log"
    log.write_text(compile_.stdout, encoding="utf-8")
    assert log_ids(log)[0] == "gpuarray_headers"
    fixed_flags = env["THEANO_FLAGS"] + f",gcc.cxxflags=-I{headers}"
    fixed = hidden(host, fixed_flags)
    assert json.loads(fixed.stdout)["findings"] == [], fixed.stderr
    works = hidden([str(opencl.python), GPU_CHECKS, "exp", "--iters", "2"], fixed_flags)
    assert '"status": "pass"' in works.stdout


# --- pygpu and packages --------------------------------------------------------------------------------


def test_pygpu_import_when_pygpu_is_not_in_the_env(opencl: TargetEnv, tmp_path: Path) -> None:
    """A venv without the system site packages, where Debian's pygpu lives."""
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    target_site = next(opencl.root.glob("lib/python3*/site-packages"))
    (site / "a_target.pth").write_text(f"{target_site}\n", encoding="utf-8")  # numpy, scipy, Theano
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "six==1.16.0"],
        check=True,
        capture_output=True,
    )
    python = venv / "bin" / "python"
    env = env_for(opencl, path=f"{venv / 'bin'}:{os.environ['PATH']}")
    ids, data = doctor(python, env, tmp_path)
    assert ids == ["pygpu_import"]
    assert "pygpu was configured but could not be imported" in evidence(data, "pygpu_import")
    cfg = venv / "pyvenv.cfg"  # the fix: make Debian's python3-pygpu visible
    cfg.write_text(
        cfg.read_text().replace("include-system-site-packages = false", "include-system-site-packages = true")
    )
    assert doctor(python, env, tmp_path)[0] == []


def test_numpy_124_then_blas_then_healthy(tmp_path: Path) -> None:
    """Debian's numpy 1.24 under Theano: pin it in requirements.txt, reinstall, fix BLAS, done."""
    if not Path("/usr/bin/python3").exists():
        pytest.skip("needs the system python3 (/usr/bin/python3)")
    check = subprocess.run(
        ["/usr/bin/python3", "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True
    )
    if check.returncode != 0 or not check.stdout.startswith("1.24"):
        pytest.skip("needs Debian 12's python3-numpy 1.24: `sudo apt-get install -y python3-numpy`")
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    reqs = tmp_path / "requirements.txt"
    reqs.write_text("Theano==1.0.5\nscipy==1.10.1\nsix==1.16.0\n", encoding="utf-8")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(reqs)], check=True, capture_output=True)
    rc = tmp_path / "theanorc"
    env = dict(
        os.environ,
        THEANORC=str(rc),
        PATH=f"{venv / 'bin'}:{os.environ['PATH']}",
        THEANO_FLAGS=f"base_compiledir={tmp_path / 'compiledir'}",
    )
    python = venv / "bin" / "python"
    ids, data = doctor(python, env, tmp_path)
    assert ids == ["numpy_aliases"]
    assert "module 'numpy' has no attribute" in evidence(data, "numpy_aliases")
    doctor(python, env, tmp_path, "--fix", "--env-file", str(reqs))
    assert reqs.read_text(encoding="utf-8") == "Theano==1.0.5\nscipy==1.10.1\nsix==1.16.0\nnumpy<1.24\n"
    subprocess.run([*pip, "-r", str(reqs)], check=True, capture_output=True)
    ids, _ = doctor(python, env, tmp_path)
    assert ids == ["blas_opt_info"]  # numpy 1.23 on Python 3.11: the next known failure
    ids, _ = doctor(python, env, tmp_path, "--fix")
    assert ids == [] and rc.read_text(encoding="utf-8") == "[blas]\nldflags =\n"


# --- processes, files, PATH --------------------------------------------------------------------------------


def test_compile_lock_held_by_another_process(cpu: TargetEnv, tmp_path: Path) -> None:
    env = env_for(cpu, flags=(f"base_compiledir={tmp_path / 'compiledir'}",))
    holder = subprocess.Popen(
        [
            str(cpu.python),
            "-c",
            "import sys, time, theano.gof.compilelock as c; c.get_lock(); "
            "print('locked', flush=True); time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        ids, data = doctor(cpu.python, env, tmp_path)
        assert ids == ["compile_lock"]
        assert f"is held by process {holder.pid}" in evidence(data, "compile_lock")
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=30)
    assert doctor(cpu.python, env, tmp_path)[0] == []  # a dead owner's lock: Theano takes it over


def test_torch_py_and_theano_py_shadow_packages(tmp_path: Path) -> None:
    """Seed 001: a torch.py beside the script hides the installed PyTorch (real torch 2.13 CPU)."""
    torch = _target("torch")
    env = env_for(torch)
    script = tmp_path / "train.py"
    script.write_text("import torch\nprint(torch.rand(2).shape)\n", encoding="utf-8")
    (tmp_path / "torch.py").write_text("# my notes on torch\nimport torch\n", encoding="utf-8")
    run = subprocess.run(
        [str(torch.python), str(script)], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert run.returncode == 1 and "module 'torch' has no attribute 'rand'" in run.stderr
    (tmp_path / "theano.py").write_text("print('my theano notes')\n", encoding="utf-8")
    ids, data = doctor(torch.python, env, tmp_path)
    assert ids == ["torch_C_shadow", "module_shadow"]
    assert evidence(data, "torch_C_shadow") == f"cwd.shadows.torch = {tmp_path / 'torch.py'}"
    assert evidence(data, "module_shadow").endswith(str(tmp_path / "theano.py"))
    (tmp_path / "torch.py").rename(tmp_path / "torch_notes.py")  # the fix: rename them
    (tmp_path / "theano.py").rename(tmp_path / "theano_notes.py")
    assert doctor(torch.python, env, tmp_path)[0] == []
    run = subprocess.run(
        [str(torch.python), str(script)], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert run.returncode == 0 and "torch.Size([2])" in run.stdout, run.stderr


def test_torch_py_run_as_a_script_names_the_shadow(opencl: TargetEnv, tmp_path: Path) -> None:
    """`python torch.py` imports itself as torch: the traceback alone names the failure."""
    (tmp_path / "torch.py").write_text("import torch\nprint(torch.rand(2))\n", encoding="utf-8")
    run = subprocess.run(
        [str(opencl.python), "torch.py"], capture_output=True, text=True, cwd=tmp_path, env=env_for(opencl)
    )
    assert "partially initialized module 'torch' has no attribute 'rand'" in run.stderr
    log = tmp_path / "run.log"
    log.write_text(run.stderr, encoding="utf-8")
    assert log_ids(log) == ["torch_C_shadow"]


def test_env_mismatch_python_and_pip_from_two_envs(opencl: TargetEnv, tmp_path: Path) -> None:
    """Seed 001: `where python` and `where pip` must point at one environment."""
    lone = tmp_path / "lone"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(lone)], check=True)
    env = env_for(opencl, path=f"{lone / 'bin'}:{opencl.root / 'bin'}:{os.environ['PATH']}")
    python = lone / "bin" / "python"
    ids, data = doctor(python, env, tmp_path)
    assert ids == ["env_mismatch"]
    assert evidence(data, "env_mismatch").startswith(
        f"derived.env_mismatch = python is {python} but pip is {opencl.root / 'bin' / 'pip'}"
    )
    subprocess.run([str(python), "-m", "ensurepip", "--default-pip"], check=True, capture_output=True)
    assert doctor(python, env, tmp_path)[0] == []


def _tar_bz2(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return bz2.compress(raw.getvalue())


def test_conda_eof_a_cut_package_in_pkgs(opencl: TargetEnv, tmp_path: Path) -> None:
    pkgs = tmp_path / "pkgs"
    pkgs.mkdir()
    payload = {
        "info/index.json": b'{"name": "pytorch", "version": "0.4.0"}',
        "Lib/site-packages/torch/lib/torch.dll": os.urandom(3_000_000),
    }
    whole = _tar_bz2(payload)
    (pkgs / "six-1.16.0-py_0.tar.bz2").write_bytes(_tar_bz2({"info/index.json": b'{"name": "six"}'}))
    cut = pkgs / "pytorch-0.4.0-py36_cuda91_cudnn7he774522_1.tar.bz2"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    with zipfile.ZipFile(pkgs / "numpy-1.23.5-py311.conda", "w") as zf:
        zf.writestr("metadata.json", "{}")
        zf.writestr("info-numpy-1.23.5.tar.zst", os.urandom(5000))
        zf.writestr("pkg-numpy-1.23.5.tar.zst", os.urandom(50_000))
    cut_conda = pkgs / "scipy-1.10.1-py311.conda"
    cut_conda.write_bytes((pkgs / "numpy-1.23.5-py311.conda").read_bytes()[:30_000])
    with pytest.raises(EOFError, match="end-of-stream marker"), tarfile.open(cut, "r:bz2") as tar:
        tar.extractall(tmp_path / "extracted", filter="data")  # what conda hits extracting it
    env = env_for(opencl, CONDA_PKGS_DIRS=str(pkgs))
    ids, data = doctor(opencl.python, env, tmp_path)
    assert ids == ["conda_eof"]
    assert evidence(data, "conda_eof") == f"conda_pkgs.corrupt = {cut}, {cut_conda}"
    cut.unlink()  # the fix, done by the user: delete it and install again
    cut_conda.unlink()
    assert doctor(opencl.python, env, tmp_path)[0] == []


def test_mp_spawn_without_the_main_guard(tmp_path: Path) -> None:
    """Windows' start method (spawn) re-imports a script that starts a process at module level."""
    script = tmp_path / "train.py"
    start = (
        "mp.set_start_method('spawn', force=True)\np = mp.Process(target=work, args=(3,))\n"
        "p.start()\np.join()\n"
    )
    head = "import multiprocessing as mp\n\n\ndef work(i):\n    print(i * i)\n\n\n"
    script.write_text(head + start, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    log = tmp_path / "run.log"
    log.write_text(run.stdout + run.stderr, encoding="utf-8")
    assert log_ids(log) == ["mp_spawn"]
    # an excerpt of it (fastbook's paste): from get_preparation_data's frame, cut before the
    # RuntimeError, without the frames that show the child re-running the script
    text = log.read_text(encoding="utf-8")
    frame = text.rindex("  File", 0, text.index("in get_preparation_data"))
    cut = tmp_path / "cut.log"
    cut.write_text(text[frame : text.index("raise RuntimeError")], encoding="utf-8")
    excerpt = cut.read_text(encoding="utf-8")
    assert "_check_not_importing_main" in excerpt and "_fixup_main" not in excerpt
    assert "bootstrapping" not in excerpt
    assert log_ids(cut) == ["mp_spawn"]
    # the RuntimeError's first words as an issue's title ends them (best #5: "...")
    first = next(line for line in text.splitlines() if "An attempt has been made" in line).strip()
    cut.write_text(f"Problems on Windows -- RuntimeError: {first[: first.index(' before')]}...\n")
    assert log_ids(cut) == ["mp_spawn"]
    guarded = "def main():\n" + "".join(f"    {line}\n" for line in start.splitlines())
    script.write_text(head + guarded + "\n\nif __name__ == '__main__':\n    main()\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert run.returncode == 0 and run.stdout.strip() == "9", run.stderr
    log.write_text(run.stdout + run.stderr, encoding="utf-8")
    assert run_cli("doctor", "--log", str(log)).returncode == 0


SEED_CHECK = """from theano import function, config, shared, tensor
import numpy
import time
vlen = 10 * 30 * 768
iters = 10
rng = numpy.random.RandomState(22)
x = shared(numpy.asarray(rng.rand(vlen), config.floatX))
f = function([], tensor.exp(x))
print(f.maker.fgraph.toposort())
for i in range(iters):
    r = f()
if numpy.any([isinstance(x.op, tensor.Elemwise){fixed} for x in f.maker.fgraph.toposort()]):
    print('Used the cpu')
else:
    print('Used the gpu')
"""


def check_on_the_device(opencl: TargetEnv, tmp_path: Path, source: str, env: dict[str, str]) -> Path:
    """A GPU check script run on the real OpenCL device; the log of what it printed."""
    script, log = tmp_path / "check.py", tmp_path / "check.log"
    script.write_text(source, encoding="utf-8")
    run = subprocess.run(
        [str(opencl.python), str(script)], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    verdicts = ("Used the cpu", "Used the gpu", "not able to tell")
    assert any(v in run.stdout for v in verdicts), run.stdout + run.stderr  # it ran to its verdict
    log.write_text(run.stdout, encoding="utf-8")
    return log


def test_old_check_script_says_cpu_on_the_gpu(opencl: TargetEnv, tmp_path: Path) -> None:
    """Seed 002's check (xrange -> range) on the real OpenCL device, then Theano's fixed check."""
    for fixed, expected in (("", ["old_check_script"]), (" and ('Gpu' not in type(x.op).__name__)", [])):
        log = check_on_the_device(opencl, tmp_path, SEED_CHECK.replace("{fixed}", fixed), env_for(opencl))
        assert "GpuElemwise{exp,no_inplace}" in log.read_text(encoding="utf-8")
        assert log_ids(log) == expected
    assert "Used the gpu" in log.read_text(encoding="utf-8")


# Theano's tutorial logistic regression (doc/tutorial/using_gpu.txt, rel-0.6 to rel-1.0.0)
# trained on the device, then a check by BLAS op names; {gpu_ops} is the names the check takes
# for the GPU's: ['GpuGemm', 'GpuGemv'] in using_gpu.txt's exercise, 'GpuGemm' alone in
# printing_drawing.txt's (rel-0.6:67, rel-0.7:77), as Theano #2793 ran it
TUTORIAL_CHECK = """import numpy
import theano
import theano.tensor as T
rng = numpy.random.RandomState(22)
N, feats = 400, 784
data = (rng.randn(N, feats).astype(theano.config.floatX),
        rng.randint(size=N, low=0, high=2).astype(theano.config.floatX))
x, y = T.matrix("x"), T.vector("y")
w = theano.shared(rng.randn(feats).astype(theano.config.floatX), name="w")
b = theano.shared(numpy.asarray(0.0, dtype=theano.config.floatX), name="b")
p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
cost = T.cast(xent.mean(), theano.config.floatX) + 0.01 * (w ** 2).sum()
gw, gb = T.grad(cost, [w, b])
train = theano.function([x, y], [p_1 > 0.5, xent], updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
train(*data)
nodes = train.maker.fgraph.toposort()
if any(n.op.__class__.__name__ in ["Gemv", "CGemv", "Gemm", "CGemm"] for n in nodes):
    print("Used the cpu")
elif any(n.op.__class__.__name__ in {gpu_ops} for n in nodes):
    print("Used the gpu")
else:
    print("ERROR, not able to tell if theano used the cpu or the gpu")
    print(nodes)
"""


def test_tutorial_check_cannot_tell_on_the_gpu(opencl: TargetEnv, tmp_path: Path) -> None:
    """The tutorials' check on the real OpenCL device (float32, GpuGemv allowed: the
    target's opencl_gemv_beta0 workaround dropped, the values do not matter here): looking for
    GpuGemm only (printing_drawing.txt's), it cannot tell (the graph's product is a GpuGemv);
    with using_gpu.txt's names it says the GPU."""
    env = env_for(opencl, drop=("optimizer_excluding",), flags=("floatX=float32",))
    for gpu_ops, expected in (("['GpuGemm']", ["old_check_script"]), ("['GpuGemm', 'GpuGemv']", [])):
        log = check_on_the_device(opencl, tmp_path, TUTORIAL_CHECK.replace("{gpu_ops}", gpu_ops), env)
        assert log_ids(log) == expected
    assert "Used the gpu" in log.read_text(encoding="utf-8")


def test_python_32bit(tmp_path: Path) -> None:
    if not PYTHON32.exists():
        pytest.skip(f"no 32-bit CPython at {PYTHON32}: run `bash ci/python32.sh` (Debian i386 packages)")
    ids, data = doctor(PYTHON32, dict(os.environ, THEANORC=str(tmp_path / "rc")), tmp_path)
    assert ids == ["python_32bit"] and evidence(data, "python_32bit") == "python.bits = 32"
    ids, _ = doctor("/usr/bin/python3", dict(os.environ, THEANORC=str(tmp_path / "rc")), tmp_path)
    assert "python_32bit" not in ids  # the fix: a 64-bit Python


def test_two_theano_installs_side_by_side(cpu: TargetEnv, tmp_path: Path) -> None:
    """A second real copy of the target's Theano (package and dist-info, as `pip install --target`
    leaves it) on PYTHONPATH: two installs, found from the probe's facts."""
    site = Path(
        subprocess.run(
            [
                str(cpu.python),
                "-c",
                "import theano, os; print(os.path.dirname(os.path.dirname(theano.__file__)))",
            ],
            capture_output=True,
            text=True,
            env=env_for(cpu),
            cwd=tmp_path,
            check=True,
        ).stdout.strip()
    )
    second = tmp_path / "user-site"
    shutil.copytree(site / "theano", second / "theano")
    for record in site.glob("[Tt]heano-*-info"):
        shutil.copytree(record, second / record.name)
    ids, data = doctor(cpu.python, env_for(cpu, PYTHONPATH=str(second)), tmp_path)
    assert ids[0] == "two_theano_installs", ids
    assert str(second / "theano") in evidence(data, "two_theano_installs")
    assert "two_theano_installs" not in doctor(cpu.python, env_for(cpu), tmp_path)[0]

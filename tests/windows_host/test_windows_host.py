"""gpuforge itself on Windows: pip-installed into python.org's Windows CPython 3.12 (under Wine),
run as `gpuforge ...` from PATH by a Windows user whose folder has a space and non-ASCII letters
(C:\\users\\José Núñez), on a conda-like env whose python.exe lives under that folder (the windows
target's CPython 3.8 with Theano 1.0.5).

Every command runs in one Wine session (a Windows Python runs them one after another, as a
shell would: a Wine start costs seconds); each test below reads its command's result.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import ROOT
from windows_host.host import ensure_host, install_gpuforge, locked, missing

from gpuforge.envs.envfile import env_platform
from gpuforge.errors import GpuforgeError
from gpuforge.interpreters import windows_path
from gpuforge.smoke.targets import LINUX_HOST_ONLY, LOCAL_TARGETS

USER = "José Núñez"
PROJECT = "theano 模型"  # a folder name outside the ANSI code page (cp1252) Windows writes pipes in
HOME = f"C:\\users\\{USER}"
ENV = f"{HOME}\\miniforge3\\envs\\theano"
# What a Windows host runs: an env: target per win-64 env file in envs/, variants included.
WIN64_ENV_TARGETS = [
    f"env:{path.stem}" for path in sorted((ROOT / "envs").glob("*.yml")) if env_platform(path)[0] == "win-64"
]

# Run by the Windows CPython 3.12: each command as a Windows shell starts it (PATH, the
# user's TEMP), its output decoded as gpuforge wrote it (the ANSI code page), results as JSON.
SESSION = r"""
import json, locale, os, shutil, subprocess, sys, threading, time

spec = json.load(open(sys.argv[1], encoding="utf-8"))
home = os.environ["USERPROFILE"]
os.environ["TEMP"] = os.environ["TMP"] = home + "\\AppData\\Local\\Temp"  # Wine sets root's
os.environ["PATH"] = ";".join(spec["path"] + [os.environ["PATH"]])  # `conda activate theano`
for name in ("THEANO_FLAGS", "THEANORC", "PYTHONDONTWRITEBYTECODE"):
    os.environ.pop(name, None)
os.chdir(spec["project"])
code_page = locale.getpreferredencoding(False)
results = {"code_page": code_page, "userprofile": home}

def run(name, *args):
    start = time.time()
    proc = subprocess.run(list(args), capture_output=True)
    results[name] = {"rc": proc.returncode, "seconds": round(time.time() - start, 1),
                     "stdout": proc.stdout.decode(code_page, "replace"),
                     "stderr": proc.stderr.decode(code_page, "replace")}
    return proc

results["gpuforge"] = shutil.which("gpuforge")

# a script that fails as torch's DLL loading does; its output saved the way PowerShell's
# Out-File (and `>`) saves it: UTF-16 LE with a BOM, CRLF lines
# (by its path: Windows looks for a bare `python` beside this process's python.exe first;
# in UTF-8, for the text the console shows: a pipe would get `\\u6a21` for 模)
os.environ["PYTHONIOENCODING"] = "utf-8"
train = run("train", spec["env_python"], "train.py")
del os.environ["PYTHONIOENCODING"]
shown = (train.stdout + train.stderr).decode("utf-8")
results["train"]["stderr"] = shown
with open("ps.log", "wb") as log:
    log.write(b"\xff\xfe" + shown.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-16-le"))
run("doctor_log", "gpuforge", "doctor", "--log", "ps.log")

# the two probes of `doctor --fix` beside the short commands below (none touches its files)
fix = threading.Thread(target=run, args=("doctor_fix", "gpuforge", "doctor", "--fix"))
fix.start()

# temporary files left beside the file written next by a writer that was killed (its
# process is gone) and by one still writing (alive)
dead = subprocess.Popen([spec["env_python"], "-c", "pass"])
dead.wait()
sleeper = subprocess.Popen([spec["env_python"], "-c", "import time; time.sleep(300)"])
leftovers = {name: os.path.join(home, ".fast.theanorc.gpuforge-%d.tmp" % proc.pid)
             for name, proc in (("dead", dead), ("alive", sleeper))}
for path in leftovers.values():
    open(path, "w").close()
run("theanorc_write", "gpuforge", "theanorc", "write", "--profile", "fast", "--path", "~\\fast.theanorc")
results["leftovers"] = {name: os.path.exists(path) for name, path in leftovers.items()}
results["sleeper_alive"] = sleeper.poll() is None
sleeper.kill()

run("theanorc_migrate", "gpuforge", "theanorc", "migrate", "--path", "~\\old.theanorc", "--yes")
run("envs_check", "gpuforge", "envs", "check")
run("smoke_list", "gpuforge", "smoke", "--list")
run("smoke_windows", "gpuforge", "smoke", "--target", "windows")
run("build_local", "gpuforge", "recipes", "build-local", "theano", "--python", spec["env_python"])
run("smoke_all", "gpuforge", "smoke", "--report-dir", "reports\\all")  # `nox -s gpu_smoke`, no conda here
fix.join()
run("smoke", "gpuforge", "smoke", "--python", spec["env_python"], "--iters", "100", "--steps", "60",
    "--report-dir", "reports\\python")

# installed = checkout: from an empty folder, what needs package data works, what needs the
# checkout's envs/ or recipes/ names its flag
os.makedirs(spec["empty"])
os.chdir(spec["empty"])
run("empty_gpus", "gpuforge", "envs", "gpus", "--cc", "8.6", "--driver-cuda", "12.6")
run("empty_facts", "gpuforge", "doctor", "--facts", spec["probe"])
run("empty_check", "gpuforge", "envs", "check")
run("empty_lint", "gpuforge", "recipes", "lint", "--conda-smithy", "skip")
results["empty_left"] = os.listdir(spec["empty"])

with open(spec["results"], "w", encoding="utf-8") as out:
    json.dump(results, out)
"""

TRAIN = """\
import ctypes, os

# torch >= 1.5 loads each DLL of torch\\lib itself, as here (a copy of torch beside the
# script, whose torch_cpu.dll is missing)
here = os.path.dirname(os.path.abspath(__file__))
ctypes.WinDLL(os.path.join(here, "torch", "lib", "torch_cpu.dll"))
"""


@pytest.fixture(scope="module")
def session(windows_env):
    """The Windows host (made once, cached), this checkout's gpuforge pip-installed into it,
    the user's profile made afresh, and every command's result."""
    if problems := missing():
        pytest.skip(problems[0])
    try:
        host = ensure_host(say=lambda _message: None)
    except GpuforgeError as exc:
        pytest.skip(
            f"the Windows host could not be made here ({exc}); its files come from "
            "files.pythonhosted.org: run where PyPI is reachable"
        )
    with locked(host.root.with_suffix(".lock")):  # the cache's host is shared by every checkout
        install_gpuforge(host, ROOT, say=lambda _message: None)
        home = host.user_folder(USER)
        if home.exists():
            shutil.rmtree(home)
        project = home / "Documents" / PROJECT
        project.mkdir(parents=True)
        (home / "AppData" / "Local" / "Temp").mkdir(parents=True)
        for folder in ("envs", "recipes"):
            shutil.copytree(ROOT / folder, project / folder)
        (project / "train.py").write_text(TRAIN, encoding="utf-8")
        (home / "miniforge3" / "envs").mkdir(parents=True)
        (home / "miniforge3" / "envs" / "theano").symlink_to(windows_env.root, target_is_directory=True)
        (home / ".theanorc.txt").write_text("[lib]\ncnmem = 0.8\n", encoding="utf-8")  # Windows only
        (home / "fast.theanorc").write_text("[global]\nfloatX = float64\n", encoding="utf-8")
        (home / "old.theanorc").write_text(
            "[global]\ndevice = gpu0\n\n[lib]\ncnmem = 0.5\n\n[nvcc]\nfastmath = True\n", encoding="utf-8"
        )
        spec = {
            "path": [ENV, f"{ENV}\\Scripts", windows_path(host.scripts)],
            "project": f"{HOME}\\Documents\\{PROJECT}",
            "env_python": f"{ENV}\\python.exe",
            "results": f"{HOME}\\results.json",
            "empty": f"{HOME}\\empty",
            "probe": windows_path(ROOT / "tests" / "data" / "probes" / "win64-cc86-driver560-cuda90.json"),
        }
        (home / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        (home / "session.py").write_text(SESSION, encoding="utf-8")
        proc = host.run([f"{HOME}\\session.py", f"{HOME}\\spec.json"], user=USER, timeout=900)
        assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-3000:]
        results = json.loads((home / "results.json").read_text(encoding="utf-8"))
    return host, home, results


def _ok(result: dict, rc: int = 0) -> str:
    assert result["rc"] == rc, result
    return result["stdout"]


def test_gpuforge_is_the_pip_installed_launcher(session):
    """`gpuforge` on PATH is the Scripts\\gpuforge.exe pip made; Wine's user is José Núñez."""
    host, _home, results = session
    assert results["gpuforge"] == windows_path(host.scripts / "gpuforge.exe")
    assert results["userprofile"] == HOME


def test_doctor_log_reads_a_utf16_powershell_paste(session):
    """The real error of a script under the user's folder, saved as UTF-16 LE with a BOM; the
    path in the evidence is outside the code page the output is written in (cp1252 here):
    it comes out as \\u escapes instead of stopping the doctor (exit 70, UnicodeEncodeError)."""
    _host, home, results = session
    assert results["code_page"] == "cp1252"
    assert f"Could not find module '{HOME}\\Documents\\{PROJECT}\\torch" in results["train"]["stderr"]
    assert (home / "Documents" / PROJECT / "ps.log").read_bytes()[:2] == b"\xff\xfe"
    out = _ok(results["doctor_log"], 1)
    assert out.startswith("[dll_missing] torch cannot load its DLLs (error 126)")
    assert f"{HOME}\\Documents\\theano \\u6a21\\u578b\\torch\\lib\\torch_cpu.dll" in out


def test_doctor_fix_probes_the_env_and_fixes_the_windows_theanorc_txt(session):
    """Bare `gpuforge doctor --fix` with the env first on PATH: the live probe of its python.exe
    (a space and non-ASCII letters in its path), the fix written into ~\\.theanorc.txt (only
    Windows reads it), and the re-probe shows the Windows Theano reading the fixed file."""
    _host, home, results = session
    out = _ok(results["doctor_fix"], 1)
    assert f"python   {ENV}\\python.exe: Python 3.8.10 64-bit (win32 AMD64)" in out
    assert "theano 1.0.5" in out
    before, after = out.split("after the fixes:")
    assert "[old_backend_keys]" in before and "[path_spaces_nonascii]" in before
    assert f"wrote {HOME}\\.theanorc.txt (backup: {HOME}\\.theanorc.txt.bak)" in before
    assert "[old_backend_keys]" not in after
    assert "compile  C:\\theano_cache" in after  # read by Windows Theano (its base_compiledir)
    fixed = (home / ".theanorc.txt").read_text(encoding="utf-8")
    assert "[gpuarray]\npreallocate = 0.8" in fixed and "base_compiledir = C:\\theano_cache" in fixed
    assert (home / ".theanorc.txt.bak").read_text(encoding="utf-8") == "[lib]\ncnmem = 0.8\n"


def test_theanorc_write_removes_only_a_dead_writers_temporary_file(session):
    """`theanorc write` meets temporary files named with a process id: a dead writer's goes,
    a live one's stays and its process runs on (Windows has no os.kill(pid, 0) probe)."""
    _host, home, results = session
    out = _ok(results["theanorc_write"])
    assert out.strip() == (
        f"wrote {HOME}\\fast.theanorc (profile fast); the previous file is {HOME}\\fast.theanorc.bak"
    )
    assert (home / "fast.theanorc").read_text(encoding="utf-8").startswith("# gpuforge theanorc write")
    assert results["leftovers"] == {"dead": False, "alive": True} and results["sleeper_alive"]


def test_theanorc_migrate_rewrites_a_file_in_the_windows_home(session):
    _host, home, results = session
    out = _ok(results["theanorc_migrate"])
    assert f"wrote {HOME}\\old.theanorc; the previous file is {HOME}\\old.theanorc.bak" in out
    text = (home / "old.theanorc").read_text(encoding="utf-8")
    assert "device = cuda0" in text and "[gpuarray]\n" in text and "fastmath" not in text


def test_envs_check_solves_with_py_rattler_on_windows(session):
    """py-rattler's Rust extension and RE2 run on the Windows CPython: every env file solved."""
    out = _ok(session[2]["envs_check"])
    # notes (records whose evidence is old, build needs no record shows) come before the summary
    summary = [line for line in out.splitlines() if line.startswith("envs check: ")]
    assert len(summary) == 1 and " env files clean, every conda spec on a real record" in summary[0], out


def test_smoke_python_runs_the_checks_in_the_env(session):
    _host, home, results = session
    _ok(results["smoke"])
    report = json.loads((home / "Documents" / PROJECT / "reports" / "python" / "gpu_smoke.json").read_text())
    target = report["targets"][0]
    assert target["name"] == f"python:{ENV}\\python.exe" and target["status"] == "pass"
    checks = {c["check"]: c for c in target["checks"]}
    assert checks["exp"]["status"] == "pass" and checks["exp"]["used"] == "cpu"
    assert checks["logreg"]["status"] == "pass"


def test_what_needs_a_linux_host_says_so_in_one_line(session):
    """The local targets (pyenv, Debian's pygpu and pocl, Wine) and build-local (build.sh) are
    Linux-only: a Windows host lists only the env: targets and refuses the rest with exit 2."""
    results = session[2]
    listed = [line.split()[0] for line in _ok(results["smoke_list"]).splitlines()]
    assert listed == WIN64_ENV_TARGETS and "env:gpu-win64" in listed
    refused = results["smoke_windows"]
    assert refused["rc"] == 2 and refused["stdout"] == ""
    assert refused["stderr"].strip() == f"gpuforge: error: target windows {LINUX_HOST_ONLY}"
    build = results["build_local"]
    assert build["rc"] == 2 and len(build["stderr"].strip().splitlines()) == 1
    assert "build-local runs a recipe's build.sh on a Linux host only" in build["stderr"]


def test_gpu_smoke_on_windows_runs_the_env_targets_only(session):
    """`gpuforge smoke` (what `nox -s gpu_smoke` runs) on a Windows host: one line says the local
    targets are not run; the env: targets need conda (none here: each skips, saying so)."""
    _host, home, results = session
    result = results["smoke_all"]
    assert result["rc"] == 0, result
    local = ", ".join(t.name for t in LOCAL_TARGETS)  # cpu, opencl, torch, cuda, windows, mockgpu
    assert (
        f"the local targets ({local}) run on a Linux host only "
        "(pyenv, Debian's pygpu and pocl, Wine): not run here" in result["stderr"]
    )
    report = json.loads((home / "Documents" / PROJECT / "reports" / "all" / "gpu_smoke.json").read_text())
    assert [t["name"] for t in report["targets"]] == WIN64_ENV_TARGETS
    assert all(
        t["status"] == "skip" and t["reason"].startswith("no conda, mamba or micromamba on PATH")
        for t in report["targets"]
    )


def test_from_an_empty_folder_package_data_serves_and_the_checkout_is_named(session):
    """The wheel pip installed, run where there is no checkout: the GPU table and the doctor's
    env pick come from the package (this host's platform: win-64), and a command that needs
    envs/ or recipes/ says which flag names them, in one line, writing nothing."""
    _host, _home, results = session
    gpus = _ok(results["empty_gpus"])
    assert "envs/gpu-win64.yml" in gpus.splitlines()[0]
    assert "env file for this GPU and driver: envs/gpu-win64.yml" in results["empty_facts"]["stdout"]
    for name, flag in (("empty_check", "--envs-dir"), ("empty_lint", "--recipes-dir")):
        result = results[name]
        lines = result["stderr"].strip().splitlines()
        assert result["rc"] == 2 and len(lines) == 1 and flag in lines[0], result
    assert results["empty_left"] == []

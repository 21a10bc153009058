"""Windows failure modes reproduced on a real Windows CPython 3.8 (python.org's, under Wine),
each diagnosed by `gpuforge doctor` from the real output or the real probe.

What still cannot run here (CUDA, MSVC, a Windows g++) keeps its recorded texts elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import pyenv_or_skip, run_cli, run_windows

from gpuforge.doctor.probe import parse_report
from gpuforge.doctor.report import doctor_python
from gpuforge.inside import probe as probe_mod
from gpuforge.interpreters import linux_path, windows_path

# reproduced here on the Windows CPython, each diagnosed by the doctor
REPRODUCED_ON_WINDOWS = {
    "gxx_missing",
    "nvcuda_missing",
    "old_backend_keys",
    "old_device_flag",
    "mp_spawn",
    "torch_C_shadow",
    "dll_missing",
    "path_spaces_nonascii",
    "msvc_build_tools_missing",
}
MINGW = "x86_64-w64-mingw32-gcc"
NO_MINGW = (
    f"no {MINGW} to cross-compile a Windows DLL: `apt-get install -y --no-install-recommends "
    "gcc-mingw-w64-x86-64-win32` (ci/apt-packages.txt)"
)


def _with(extra: dict[str, str]) -> dict[str, str]:
    return dict(os.environ, **extra)


def doctor_ids(*args: str, **env: str) -> tuple[list[str], subprocess.CompletedProcess]:
    proc = run_cli("doctor", *args, "--json", **env)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return [f["id"] for f in json.loads(proc.stdout)["findings"]], proc


@pytest.fixture(scope="module")
def wine_home(windows_env, tmp_path_factory):
    """A Wine prefix of the tests' own (GPUFORGE_WINEPREFIX), so the Windows home they write
    .theanorc files into is not the windows target's; yields its C:\\users\\<name> folder."""
    prefix = tmp_path_factory.mktemp("wineprefix")
    env = {"GPUFORGE_WINEPREFIX": str(prefix)}
    proc = run_windows(windows_env.python, "-c", "import os; print(os.path.expanduser('~'))", env=_with(env))
    home = proc.stdout.strip()
    assert proc.returncode == 0 and home.startswith("C:\\users\\"), proc.stderr[-2000:]
    yield str(windows_env.python), prefix, linux_path(home, prefix), env


def test_doctor_probes_the_windows_python_through_wine(windows_env):
    """`gpuforge doctor --python python.exe`: the probe runs in Windows and its JSON comes back
    through a pipe; Theano's real Windows warning names gxx_missing."""
    report = doctor_python(str(windows_env.python))
    facts = report.facts
    assert facts["platform"]["sys_platform"] == "win32" and facts["python"]["bits"] == 64
    assert facts["compiledir"]["base"].endswith("\\AppData\\Local\\Theano")
    assert [Path(f["path"].replace("\\", "/")).name for f in facts["config"]["files"]] == [
        ".theanorc",
        ".theanorc.txt",
    ]  # Windows reads both
    assert (
        "g++ not available, if using conda: `conda install m2w64-toolchain`"
        in facts["imports"]["theano"]["log"]
    )
    assert facts["cuda"]["driver"]["loaded"] is None
    assert [f.id for f in report.findings] == ["gxx_missing"]
    assert facts["derived"]["path_spaces_nonascii"] is None  # C:\users\root: nothing to name


def test_missing_nvcuda_dll_is_named(windows_env, tmp_path):
    """ctypes' real error for a missing NVIDIA driver on Windows, and the probe's fact."""
    proc = run_windows(windows_env.python, "-c", "import ctypes; ctypes.CDLL('nvcuda.dll')")
    assert proc.returncode == 1
    assert "FileNotFoundError: Could not find module 'nvcuda.dll' (or one of its dependencies)" in proc.stderr
    log = tmp_path / "driver.log"
    log.write_text(proc.stderr)
    assert doctor_ids("--log", str(log))[0] == ["nvcuda_missing"]


@pytest.mark.slow
def test_fix_writes_a_windows_theanorc_that_windows_theano_reads(wine_home):
    """--fix on a Windows Python writes the .theanorc in its Windows home (a file in the Wine
    prefix here), and the Windows Theano then reads the fixed key."""
    python, _prefix, home, env = wine_home
    rc = home / ".theanorc"
    rc.write_text("[lib]\ncnmem = 0.8\n")
    try:
        proc = run_cli("doctor", "--python", python, "--fix", **env)
        assert "[old_backend_keys]" in proc.stdout and f"wrote {rc}" in proc.stdout, proc.stdout
        assert "[gpuarray]\npreallocate = 0.8" in rc.read_text()
        assert (home / ".theanorc.bak").read_text() == "[lib]\ncnmem = 0.8\n"
        after = proc.stdout.split("after the fixes:")[1]
        assert "[old_backend_keys]" not in after
        check = run_windows(
            python, "-c", "import theano; print(theano.config.gpuarray.preallocate)", env=_with(env)
        )
        assert check.stdout.strip().splitlines()[-1] == "0.8", check.stderr[-2000:]
    finally:
        for name in (".theanorc", ".theanorc.bak"):
            (home / name).unlink(missing_ok=True)


def test_theanorc_txt_that_only_windows_reads_is_named(wine_home):
    """~/.theanorc.txt: read by Theano on Windows only. Its old `device = gpu` stops the real
    Windows Theano, and the doctor names the file and the line."""
    python, _prefix, home, env = wine_home
    rc = home / ".theanorc.txt"
    rc.write_text("[global]\nfloatX = float32\ndevice = gpu\n")
    try:
        report = doctor_python(python, env=_with(env))
        assert "old_device_flag" in [f.id for f in report.findings]
        facts = report.facts
        theano = facts["imports"]["theano"]
        assert "You are tring to use the old GPU back-end" in theano["error"]["message"]
        assert facts["config"]["settings"]["device"]["source"].endswith(".theanorc.txt:3")
    finally:
        rc.unlink(missing_ok=True)


MP_SCRIPT = """\
import multiprocessing

def square(x):
    return x * x

# no `if __name__ == '__main__':` guard: spawn re-imports this module in the worker
worker = multiprocessing.Process(target=square, args=(3,))
worker.start()
worker.join()
print("exit code of the worker:", worker.exitcode)
"""


def test_mp_spawn_without_a_main_guard_is_named(windows_env, tmp_path):
    """Windows starts workers by spawn: a script that starts them at module level fails in
    the worker with multiprocessing's real bootstrapping error."""
    (tmp_path / "train.py").write_text(MP_SCRIPT)
    proc = run_windows(windows_env.python, "train.py", cwd=tmp_path, timeout=120)
    out = proc.stdout + proc.stderr
    assert "An attempt has been made to start a new process before the" in out, out[-2000:]
    log = tmp_path / "train.log"
    log.write_text(out)
    assert doctor_ids("--log", str(log))[0][0] == "mp_spawn"


def test_torch_py_shadow_on_windows_paths(windows_env, tmp_path):
    """Seed 001's torch.py in the working directory, seen by the Windows probe (the torch\\
    folder case runs in the windows target's import tests)."""
    (tmp_path / "torch.py").write_text("import torch\nprint(torch.rand(2))\n")
    report = doctor_python(str(windows_env.python), cwd=tmp_path)
    assert report.facts["cwd"]["shadows"]["torch"] == windows_path(tmp_path / "torch.py")
    assert "torch_C_shadow" in [f.id for f in report.findings]


def _cross_compile(tmp_path: Path) -> Path:
    """A stand-in torch package whose real extension _C.pyd depends on a DLL (helper.dll)."""
    if shutil.which(MINGW) is None:
        pytest.skip(NO_MINGW)
    src = tmp_path / "src"
    src.mkdir()
    (src / "helper.c").write_text("__declspec(dllexport) int helper_answer(void) { return 42; }\n")
    (src / "ext.c").write_text(
        "__declspec(dllimport) int helper_answer(void);\n"
        "__declspec(dllexport) void *PyInit__C(void) { return helper_answer() == 42 ? 0 : 0; }\n"
    )
    pkg = tmp_path / "site" / "torch"
    pkg.mkdir(parents=True)
    for cmd in (
        [MINGW, "-shared", "-o", str(pkg / "helper.dll"), str(src / "helper.c")],
        [MINGW, "-shared", "-o", str(pkg / "_C.pyd"), str(src / "ext.c"), "-L", str(pkg), "-lhelper"],
    ):
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    # what torch/__init__.py does first (seed 001's traceback); the DLL folder is added as
    # torch 1.x does on Windows
    (pkg / "__init__.py").write_text(
        "import os\nos.add_dll_directory(os.path.dirname(__file__))\nfrom torch._C import *\n"
    )
    return tmp_path / "site"


def test_dll_load_failed_from_a_removed_dependent_dll_is_named(windows_env, tmp_path):
    """A real extension (cross-compiled with mingw-w64) whose dependent DLL is removed: the
    loader refuses it, and Python 3.8 says `DLL load failed while importing _C` (3.7 said
    `DLL load failed:`, the only wording the catalog knew)."""
    site = _cross_compile(tmp_path)
    code = f"import sys; sys.path.insert(0, {windows_path(site)!r}); import torch"
    loaded = run_windows(windows_env.python, "-c", code)
    # with helper.dll present the DLL loads and only our PyInit's NULL return fails
    assert "initialization of _C failed without raising an exception" in loaded.stderr, loaded.stderr
    (site / "torch" / "helper.dll").unlink()
    proc = run_windows(windows_env.python, "-c", code)
    # Windows' loader fails with error 126; the message is the system's text for it, which
    # under Wine reads `Module not found.` (Windows: `The specified module could not be found.`)
    assert "ImportError: DLL load failed while importing _C: Module not found." in proc.stderr, proc.stderr[
        -2000:
    ]
    log = tmp_path / "import.log"
    log.write_text(proc.stderr)
    # the bare message names no DLL: the doctor lists the candidates instead of guessing
    # (the fake torch outside site-packages is also, rightly, a shadow)
    found = json.loads(run_cli("doctor", "--log", str(log), "--json").stdout)["findings"]
    assert found[0]["id"] == "dll_load_failed" and "dll_missing" in found[0]["candidates"]
    # torch >= 1.5 loads each DLL of torch\lib itself (ctypes, as torch/__init__.py does):
    # Python 3.8 then names the DLL that fails, and the doctor names dll_missing
    (site / "torch" / "lib").mkdir()
    shutil.copy(site / "torch" / "_C.pyd", site / "torch" / "lib" / "torch_cpu.dll")  # needs helper.dll
    load = f"import ctypes; ctypes.WinDLL({windows_path(site / 'torch' / 'lib' / 'torch_cpu.dll')!r})"
    proc = run_windows(windows_env.python, "-c", load)
    assert "Could not find module" in proc.stderr and "torch_cpu.dll" in proc.stderr, proc.stderr[-2000:]
    log.write_text(proc.stderr)
    assert doctor_ids("--log", str(log))[0][0] == "dll_missing"
    # the same failure where ZLUDA (CUDA on AMD GPUs) put its own DLLs in torch\lib: not a
    # cause of NVIDIA's or Microsoft's, so the doctor names none
    zluda = tmp_path / "ComfyUI-Zluda"
    shutil.copytree(site, zluda / "venv")
    dll = zluda / "venv" / "torch" / "lib" / "torch_cpu.dll"
    load = f"import ctypes; ctypes.WinDLL({windows_path(dll)!r})"
    proc = run_windows(windows_env.python, "-c", load)
    assert "Could not find module" in proc.stderr and "ComfyUI-Zluda" in proc.stderr, proc.stderr[-2000:]
    log.write_text(proc.stderr)
    assert doctor_ids("--log", str(log))[0] == []


def test_spaces_and_non_ascii_in_the_windows_user_folder_are_named(windows_env, tmp_path):
    """A Windows user folder and TEMP with a space and non-ASCII characters (real Windows
    paths, set inside Windows): the real Theano puts its compiledir there, the probe reports
    it, and the doctor names path_spaces_nonascii."""
    home = tmp_path / "Jürgen Müller"
    (home / "AppData" / "Local" / "Temp").mkdir(parents=True)
    winhome = windows_path(home)
    folders = {
        "USERPROFILE": winhome,
        "LOCALAPPDATA": winhome + "\\AppData\\Local",
        "TEMP": winhome + "\\AppData\\Local\\Temp",
        "TMP": winhome + "\\AppData\\Local\\Temp",
    }
    python = str(windows_env.python)
    proc = run_windows(
        python,
        windows_path(Path(probe_mod.__file__)),
        "--self",
        windows_path(python),
        cwd=tmp_path,
        windows_env=folders,
    )
    facts_file = tmp_path / "facts.json"
    facts_file.write_text(proc.stdout)
    facts = parse_report(proc.stdout, "probe")
    assert facts["windows"]["userprofile"] == winhome
    assert facts["imports"]["theano"]["config"]["base_compiledir"] == winhome + "\\AppData\\Local\\Theano"
    ids, done = doctor_ids("--facts", str(facts_file))
    assert set(ids) == {"path_spaces_nonascii", "gxx_missing"}
    text = run_cli("doctor", "--facts", str(facts_file)).stdout
    assert "a space" in text and "non-ASCII 'ü'" in text
    assert (home / "AppData" / "Local" / "Theano").is_dir()  # Theano really made its compiledir there


TINY_EXTENSION = (
    "from {module} import setup, Extension\n"
    "setup(name='tinyext', version='0.1', ext_modules=[Extension('tinyext', ['tinyext.c'])])\n"
)
BUILD_EXT = "import sys; sys.argv = ['setup.py', 'build_ext']; exec(open('setup.py').read())"


def build_without_msvc(windows_env, tmp_path: Path, module: str, prelude: str = "") -> str:
    """What `setup.py build_ext` of a one-file C extension prints on the Windows CPython, where no
    Visual C++ is installed (as under Wine), with ``module``'s setup (distutils or setuptools)."""
    (tmp_path / "tinyext.c").write_text("int tinyext_marker;\n")
    (tmp_path / "setup.py").write_text(TINY_EXTENSION.format(module=module))
    proc = run_windows(windows_env.python, "-c", prelude + BUILD_EXT, cwd=tmp_path, timeout=200)
    out = proc.stdout + proc.stderr
    (tmp_path / "build.log").write_text(out)
    return out


def test_an_extension_built_without_msvc_is_named(windows_env, tmp_path):
    """distutils' own refusal on the Windows CPython without Visual C++: `Unable to find
    vcvarsall.bat` names msvc_build_tools_missing."""
    out = build_without_msvc(windows_env, tmp_path, "distutils.core")
    assert "Unable to find vcvarsall.bat" in out, out[-2000:]
    assert doctor_ids("--log", str(tmp_path / "build.log"))[0][0] == "msvc_build_tools_missing"


def test_setuptools_words_for_an_extension_built_without_msvc(windows_env, tmp_path):
    """setuptools' rewording of it ("Microsoft Visual C++ 14.0 or greater is required"), from the
    setuptools of pyenv's Python 3.8 (pure Python, of the Windows CPython's own minor) put on the
    Windows sys.path (the embeddable CPython ignores PYTHONPATH)."""
    python38 = pyenv_or_skip("3.8")
    found = subprocess.run(
        [
            python38,
            "-c",
            "import setuptools, os; print(os.path.dirname(os.path.dirname(setuptools.__file__)))",
        ],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        pytest.skip(f"pyenv's Python 3.8 has no setuptools ({python38} -m ensurepip installs it)")
    site = tmp_path / "site"
    for name in ("setuptools", "pkg_resources", "_distutils_hack"):
        if (Path(found.stdout.strip()) / name).is_dir():
            shutil.copytree(Path(found.stdout.strip()) / name, site / name)
    prelude = f"import sys; sys.path.insert(0, {windows_path(site)!r}); "
    out = build_without_msvc(windows_env, tmp_path, "setuptools", prelude)
    assert "Microsoft Visual C++ 14.0" in out, out[-2000:]
    assert doctor_ids("--log", str(tmp_path / "build.log"))[0][0] == "msvc_build_tools_missing"

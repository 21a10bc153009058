"""recipes/theano-gpu-config: its build.sh run for real into a conda-like prefix, its
wheel (setup.py) pip-installed into a real prefix, its activation scripts sourced in
real shells and read back by real Theano 1.0.5, its Windows scripts checked
statically and run under Wine's cmd when Wine is installed."""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli, theano_env

RECIPE = RECIPES / "theano-gpu-config"
PKG = "theano-gpu-config"
SCRIPTS = RECIPE / "etc" / "conda"  # the one copy: conda package and wheel install these
# The file name of gxx_linux-64 7.3.0's g++ (the cxx compiler of conda_build_config.yaml).
GXX_NAME = "x86_64-conda_cos6-linux-gnu-g++"
SAVED = ("_THEANO_GPU_CONFIG_THEANORC", "_THEANO_GPU_CONFIG_MKL_THREADING_LAYER")
WINE = Path("/usr/lib/wine/wine64")
NO_WINE = ("Wine's cmd is not installed: `apt-get install -y --no-install-recommends wine64` "
           "(Debian; ci/apt-packages.txt lists it), then run again")

COMPILE_EXP = """
import json, sys, numpy, theano, theano.tensor as T
x = theano.shared(numpy.linspace(0, 1, 1000).astype(theano.config.floatX))
f = theano.function([], T.exp(x))
print(json.dumps({"cxx": theano.config.cxx, "linker": theano.config.linker,
                  "c_thunks": [hasattr(t, "cthunk") for t in f.fn.thunks],
                  "ops": [str(n) for n in f.maker.fgraph.toposort()],
                  "matches_numpy": bool(numpy.allclose(f(), numpy.exp(x.get_value())))}))
"""


def add_gxx(prefix: Path, compiler_log: Path | None = None) -> None:
    """A working g++ in prefix/bin under gxx_linux-64's name, as that package installs it
    (it runs this machine's g++ and logs each call)."""
    gxx = prefix / "bin" / GXX_NAME
    gxx.parent.mkdir(parents=True, exist_ok=True)
    log = compiler_log or prefix / "cxx.log"
    gxx.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {shutil.which("g++")} "$@"\n')
    gxx.chmod(0o755)


def install(prefix: Path, compiler_log: Path | None = None) -> Path:
    """Run the recipe's build.sh with conda-build's variables into ``prefix`` (no compiler
    at build time), plus gxx_linux-64's g++ in prefix/bin."""
    add_gxx(prefix, compiler_log)
    env = dict(os.environ, PREFIX=str(prefix), RECIPE_DIR=str(RECIPE), PKG_NAME=PKG)
    for name in ("GXX", "CXX"):
        env.pop(name, None)
    subprocess.run(["bash", str(RECIPE / "build.sh")], cwd=RECIPE, env=env, check=True,
                   capture_output=True, text=True)
    return prefix


def gxx_activation(prefix: Path) -> dict[str, str]:
    """What gxx_linux-64's activation exports (it runs before ours: sorted activate.d)."""
    return {"GXX": str(prefix / "bin" / GXX_NAME), "CXX": str(prefix / "bin" / GXX_NAME[:-3]) + "c++"}


@pytest.fixture
def prefix(tmp_path) -> Path:
    return install(tmp_path / "env")


@pytest.fixture
def failing_gxx(tmp_path) -> Path:
    """A folder whose g++ exits 1: the foreign g++ earlier on PATH of seed 000."""
    folder = tmp_path / "foreign"
    folder.mkdir()
    (folder / "g++").write_text("#!/bin/sh\necho 'foreign g++: broken' >&2\nexit 1\n")
    (folder / "g++").chmod(0o755)
    return folder


def activation(prefix: Path, change: str, ext: str = "sh") -> Path:
    return prefix / "etc" / "conda" / f"{change}.d" / f"{PKG}_{change}.{ext}"


def shell_env(shell: str, script: str, env: dict[str, str]) -> list[dict[str, str]]:
    """Run ``script`` in ``shell``; each `snap` in it records the environment."""
    script = "snap() { env -0; printf '\\001'; }\n" + script
    proc = subprocess.run([shell, "-c", script], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    snaps = proc.stdout.split(b"\x01")[:-1]
    return [dict(item.decode().split("=", 1) for item in snap.split(b"\0") if b"=" in item)
            for snap in snaps]


SHELLS = [s for s in ("bash", "sh", "zsh") if shutil.which(s)]
STATES = {
    "unset": {},
    "set": {"THEANORC": "/site/theanorc:/home/u/.theanorc", "MKL_THREADING_LAYER": "INTEL"},
    "empty": {"THEANORC": "", "MKL_THREADING_LAYER": ""},
}


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("state", STATES)
def test_sh_activation_sets_and_deactivation_restores(prefix, shell, state, tmp_path):
    env = dict(theano_env(tmp_path / "home"), CONDA_PREFIX=str(prefix), **STATES[state],
               **gxx_activation(prefix))
    before, active, again, after = shell_env(shell, f"""
        snap
        . "{activation(prefix, 'activate')}"; snap
        . "{activation(prefix, 'deactivate')}"; . "{activation(prefix, 'activate')}"; snap
        . "{activation(prefix, 'deactivate')}"; snap
    """, env)
    ours = f"{prefix}/etc/theano/theanorc"
    base = STATES[state].get("THEANORC", "~/.theanorc")
    assert active["THEANORC"] == f"{base}:{ours}"
    assert active["MKL_THREADING_LAYER"] == "GNU"
    assert again["THEANORC"] == active["THEANORC"]  # re-activation does not stack
    for key in ("THEANORC", "MKL_THREADING_LAYER", *SAVED):
        assert after.get(key) == before.get(key), key  # set, empty or unset: as before
    assert not {k for k in after if k.startswith("_theano_gpu_config")}  # no temporaries left


def activate(prefix: Path, tmp_path: Path, **extra: str) -> subprocess.CompletedProcess:
    env = dict(theano_env(tmp_path / "home"), CONDA_PREFIX=str(prefix), **extra)
    return subprocess.run(["bash", "-c", f'. "{activation(prefix, "activate")}"'], env=env,
                          capture_output=True, text=True, timeout=60)


def test_build_installs_only_the_scripts(prefix):
    """No compiler at build time, nothing prefix-specific: build.sh copies the scripts."""
    for change in ("activate", "deactivate"):
        assert activation(prefix, change).read_bytes() == \
            (SCRIPTS / f"{change}.d" / f"{PKG}_{change}.sh").read_bytes()
    assert not (prefix / "etc" / "theano").exists()


def test_activation_writes_the_environment_config_and_kernel_spec(prefix, tmp_path):
    touch_cudnn(prefix / "include", "cudnn.h")  # cuDNN 7's header: its paths are named
    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0
    rc = configparser.ConfigParser()
    rc.read(prefix / "etc" / "theano" / "theanorc")
    assert dict(rc["global"]) == {"cxx": f"{prefix}/bin/{GXX_NAME}", "device": "cuda",
                                  "floatx": "float32"}
    assert dict(rc["dnn"]) == {"include_path": f"{prefix}/include",
                               "library_path": f"{prefix}/lib", "bin_path": f"{prefix}/lib"}
    kernel = json.loads((prefix / "share/jupyter/kernels/theano-gpu/kernel.json").read_text())
    assert kernel["argv"][0] == f"{prefix}/bin/python"
    assert kernel["argv"][1:] == ["-m", "ipykernel_launcher", "-f", "{connection_file}"]
    assert kernel["env"] == {"THEANORC": f"~/.theanorc:{prefix}/etc/theano/theanorc",
                             "MKL_THREADING_LAYER": "GNU", "PATH": f"{prefix}/bin:${{PATH}}"}
    before = (prefix / "etc" / "theano" / "theanorc").stat().st_mtime_ns
    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0
    assert (prefix / "etc" / "theano" / "theanorc").stat().st_mtime_ns == before  # unchanged


def touch_cudnn(include: Path, *headers: str) -> None:
    include.mkdir(parents=True, exist_ok=True)
    for header in headers:
        (include / header).write_text("/* cuDNN header stand-in: only its presence is looked at */\n")


@pytest.mark.parametrize("headers, says", [
    ((), "# No cuDNN in this environment, and Theano 1.0.5 can use only cuDNN 5.1 ... 7:"),
    (("cudnn.h", "cudnn_version.h"), "# cuDNN 8 or newer in this environment (include/cudnn_version.h)"),
])
def test_activation_turns_cudnn_off_without_a_cudnn_theano_can_use(prefix, tmp_path, headers, says):
    """The modern env files install no cuDNN (and cuDNN 8/9 break every Theano 1.0.5 conv,
    Theano #6791): dnn.enabled = False, and the config file says why."""
    touch_cudnn(prefix / "include", *headers)
    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0
    text = (prefix / "etc" / "theano" / "theanorc").read_text()
    rc = configparser.ConfigParser()
    rc.read_string(text)
    assert dict(rc["dnn"]) == {"enabled": "False"}
    assert says in text and "GpuCorrMM does the convolutions" in text


# Where activation finds the compiler, in order: GXX's file name in the env, GXX itself,
# the env's g++; none: no cxx line (Theano's own choice) and a one-line note.
def test_activation_finds_the_compiler_at_activation_time(tmp_path):
    prefix = tmp_path / "env"
    install(prefix)
    (prefix / "bin" / GXX_NAME).unlink()

    def cxx(**extra: str) -> tuple[str | None, str]:
        proc = activate(prefix, tmp_path, **extra)
        assert proc.returncode == 0, proc.stderr
        rc = configparser.ConfigParser()
        rc.read(prefix / "etc" / "theano" / "theanorc")
        return rc["global"].get("cxx"), proc.stderr

    assert cxx() == (None, f"theano-gpu-config: no g++ in {prefix} (conda install gxx_linux-64): "
                           "Theano will use the first g++ on PATH\n")
    assert cxx(GXX=shutil.which("g++")) == (shutil.which("g++"), "")
    (prefix / "bin" / "g++").symlink_to(shutil.which("g++"))
    assert cxx() == (str(prefix / "bin" / "g++"), "")
    add_gxx(prefix)
    assert cxx(**gxx_activation(prefix)) == (str(prefix / "bin" / GXX_NAME), "")


def test_an_unwritable_config_is_one_line_and_activation_goes_on(prefix, tmp_path):
    (prefix / "etc" / "theano").write_text("a file where the folder goes: nothing can be written")
    proc = activate(prefix, tmp_path, **gxx_activation(prefix))
    assert proc.returncode == 0
    assert proc.stderr == (f"theano-gpu-config: cannot write {prefix}/etc/theano/theanorc: "
                           "Theano keeps its old settings\n")


def test_recipe_test_commands_pass_on_the_installed_prefix(prefix, tmp_path):
    """The rendered linux-64 test section's `test -f` commands, run for real."""
    from gpuforge.recipes.render import Recipe, render_variants
    from gpuforge.recipes.variants import load_config

    rendered = render_variants(Recipe.load(RECIPE),
                               load_config(RECIPES / "conda_build_config.yaml", "linux-64"))
    assert len(rendered) == 1
    commands = [c for c in rendered[0].meta["test"]["commands"] if c.startswith("test ")]
    assert len(commands) == 3
    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0  # as conda-build
    for command in commands:
        subprocess.run(["bash", "-c", command], env=dict(os.environ, PREFIX=str(prefix)),
                       check=True)


@pytest.mark.slow
def test_theano_reads_the_activated_settings(theano_python, prefix, theano_cache, tmp_path):
    """The recipe's own test_config.py, in an activated shell; the user's ~/.theanorc
    still counts for what the environment does not set, and loses where it does."""
    home = tmp_path / "home"
    env = theano_env(home, theano_cache, CONDA_PREFIX=str(prefix), **gxx_activation(prefix))
    (home / ".theanorc").write_text("[global]\ndevice = cpu\nmode = FAST_COMPILE\n")
    proc = subprocess.run(["bash", "-c", f'. "{activation(prefix, "activate")}" && '
                           f'"{theano_python}" "{RECIPE / "test_config.py"}"'],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"cxx = {prefix}/bin/{GXX_NAME}" in proc.stdout
    assert "Theano uses this environment's settings" in proc.stdout
    shown = run_cli("theanorc", "show", "--python", theano_python, "--json",
                    **dict(env, THEANORC=f"~/.theanorc:{prefix}/etc/theano/theanorc"))
    assert shown.returncode == 0, shown.stderr
    options = {o["name"]: o for o in json.loads(shown.stdout)["options"]}
    ours = str(prefix / "etc" / "theano" / "theanorc")
    assert (options["device"]["value"], options["device"]["path"]) == ("cuda", ours)
    cxx_line = next(i for i, line in enumerate(Path(ours).read_text().splitlines(), 1)
                    if line.startswith("cxx = "))
    assert (options["cxx"]["path"], options["cxx"]["line"]) == (ours, cxx_line)
    assert (options["mode"]["value"], options["mode"]["path"]) == ("FAST_COMPILE",
                                                                   str(home / ".theanorc"))


@pytest.fixture(scope="module")
def wheel(python37, tmp_path_factory) -> Path:
    """The wheel of setup.py, built the way `pip install ../recipes/theano-gpu-config` does."""
    out = tmp_path_factory.mktemp("wheel")
    work = tmp_path_factory.mktemp("wheel-src") / PKG
    shutil.copytree(RECIPE, work)  # pip builds in place: keep build/ out of the checkout
    proc = subprocess.run([python37, "-m", "pip", "wheel", "-q", "--no-deps",
                           "--disable-pip-version-check", "-w", str(out), str(work)],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.skip("needs setuptools and wheel from PyPI to build the wheel (pip's isolated "
                    f"build): {(proc.stderr.strip().splitlines() or [''])[-1]}")
    [built] = out.glob("*.whl")
    return built


def test_wheel_carries_the_same_scripts_as_data_files(wheel):
    import zipfile

    data = "theano_gpu_config-0.1.0.data/data/"
    with zipfile.ZipFile(wheel) as whl:
        files = {n[len(data):]: whl.read(n) for n in whl.namelist() if n.startswith(data)}
    assert files == {str(p.relative_to(RECIPE)): p.read_bytes()
                     for p in sorted(SCRIPTS.rglob("*")) if p.is_file()}
    assert wheel.name == "theano_gpu_config-0.1.0-py3-none-any.whl"  # meta.yaml's version


@pytest.mark.slow
def test_pip_installed_package_configures_real_theano(theano_python, wheel, theano_cache,
                                                       tmp_path):
    """Done-criterion: the wheel pip-installed into a real prefix (the Theano venv, as the
    env files' pip: section does in a conda env) lands where conda activate runs it, and
    real Theano 1.0.5 then reads the environment's cxx, cuDNN paths, device and floatX."""
    prefix = Path(theano_python).parent.parent
    proc = subprocess.run([theano_python, "-m", "pip", "install", "-q", "--no-deps",
                           "--disable-pip-version-check", "--force-reinstall", str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for change in ("activate", "deactivate"):
        for ext in ("sh", "bat"):
            assert activation(prefix, change, ext).read_bytes() == \
                (SCRIPTS / f"{change}.d" / f"{PKG}_{change}.{ext}").read_bytes()
    add_gxx(prefix, tmp_path / "gxx.log")
    env = theano_env(tmp_path / "home", theano_cache, CONDA_PREFIX=str(prefix),
                     **gxx_activation(prefix))
    proc = subprocess.run(["bash", "-c", f'. "{activation(prefix, "activate")}" && '
                           f'"{theano_python}" "{RECIPE / "test_config.py"}"'],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"cxx = {prefix}/bin/{GXX_NAME}" in proc.stdout
    assert "dnn.enabled = False" in proc.stdout  # no cuDNN in that prefix
    assert "Theano uses this environment's settings" in proc.stdout


@pytest.mark.slow
def test_failing_gxx_first_on_path_theano_compiles_with_the_environment_compiler(
        theano_python, failing_gxx, tmp_path):
    """Done-criterion: a broken g++ first on PATH, the Linux activation sourced: Theano
    still compiles exp() in C, with the environment's compiler (its log shows the build)."""
    log = tmp_path / "env-gxx.log"
    prefix = install(tmp_path / "env", compiler_log=log)
    path = f"{failing_gxx}:{os.environ['PATH']}"
    script = tmp_path / "compile_exp.py"
    script.write_text(COMPILE_EXP)

    def compile_exp(activate: bool, home: Path) -> dict:
        source = f'. "{activation(prefix, "activate")}" && ' if activate else ""
        proc = subprocess.run(["bash", "-c", f'{source}"{theano_python}" "{script}"'],
                              env=theano_env(home, CONDA_PREFIX=str(prefix), PATH=path,
                                             **gxx_activation(prefix)),
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1]) | {"stderr": proc.stderr}

    without = compile_exp(False, tmp_path / "home-plain")
    assert without["cxx"] == ""  # Theano's own probe ran the broken g++: no C at all
    assert "g++ not detected" in without["stderr"]
    assert without["c_thunks"] == [False]
    assert not log.exists()

    active = compile_exp(True, tmp_path / "home-active")
    assert active["cxx"] == str(prefix / "bin" / GXX_NAME)
    assert active["c_thunks"] == [True] and active["matches_numpy"]
    assert active["ops"] == ["Elemwise{exp,no_inplace}(<TensorType(float32, vector)>)"]
    builds = [line for line in log.read_text().splitlines()
              if "-shared" in line and str(tmp_path / "home-active" / ".theano") in line]
    assert builds, "the environment's g++ built no module"
    assert "g++ not detected" not in active["stderr"]


@pytest.fixture(scope="module")
def kernel_python(theano_python) -> str:
    proc = subprocess.run([theano_python, "-m", "pip", "install", "-q",
                           "--disable-pip-version-check", "ipykernel"],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.skip("needs ipykernel from PyPI for Python 3.7, which pip could not install: "
                    + (proc.stderr.strip().splitlines() or [""])[-1])
    return theano_python


KERNEL_CLIENT = """
import json, sys
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="theano-gpu", startup_timeout=120)
out = []
try:
    kc.execute_interactive(sys.argv[1], timeout=300,
                           output_hook=lambda m: out.append(m["content"].get("text", "")))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print(json.dumps({"argv": km.kernel_spec.argv, "out": "".join(out)}))
"""


@pytest.mark.slow
def test_jupyter_kernel_spec_carries_the_settings(kernel_python, failing_gxx, tmp_path):
    """A real kernel started by jupyter_client from the spec, without activation and with
    the broken g++ first on PATH (Jupyter's case in seed 000), compiles with the
    environment's g++."""
    venv = Path(kernel_python).parent.parent  # the venv is the prefix: bin/python is its own
    install(venv, compiler_log=tmp_path / "gxx.log")
    assert activate(venv, tmp_path, **gxx_activation(venv)).returncode == 0  # writes the spec
    code = COMPILE_EXP + "import os; print(os.environ['MKL_THREADING_LAYER'])\n"
    env = theano_env(tmp_path / "home", PATH=f"{failing_gxx}:{os.environ['PATH']}")
    proc = subprocess.run([kernel_python, "-c", KERNEL_CLIENT, code], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["argv"][0] == f"{venv}/bin/python"
    printed, mkl = result["out"].strip().splitlines()[-2:]
    compiled = json.loads(printed)
    assert compiled["cxx"] == f"{venv}/bin/{GXX_NAME}"
    assert compiled["c_thunks"] == [True] and compiled["matches_numpy"]
    assert mkl == "GNU"
    assert any("-shared" in line for line in (tmp_path / "gxx.log").read_text().splitlines())


# --- Windows scripts -------------------------------------------------------------------

BAT_ACTIVATE = SCRIPTS / "activate.d" / f"{PKG}_activate.bat"
BAT_DEACTIVATE = SCRIPTS / "deactivate.d" / f"{PKG}_deactivate.bat"


def test_bat_activation_scripts_statically():
    """What cmd.exe needs from sourced scripts: no echo, no setlocal (it would drop the
    variables), quoted sets, every variable set is saved first and restored after, and
    its own temporaries cleared."""
    activate = BAT_ACTIVATE.read_text().splitlines()
    deactivate = BAT_DEACTIVATE.read_text().splitlines()
    for line in activate + deactivate:
        assert line.startswith("@"), line
        assert not re.search(r"\b(setlocal|endlocal|goto|exit)\b", line, re.I), line
        if re.search(r"\bset\b", line, re.I):
            assert re.search(r'\bset "[A-Z_]+=', line), f"unquoted set: {line}"
    assigned = {m for line in activate for m in re.findall(r'set "([A-Z_]+)=', line)}
    changed = {v for v in assigned if not v.startswith("_THEANO_GPU_CONFIG_")}
    assert changed == {"THEANORC", "MKL_THREADING_LAYER"}
    text = "\n".join(activate)
    for var in changed:
        save = f'@if defined {var} set "_THEANO_GPU_CONFIG_{var}=%{var}%"'
        assert text.index(save) < text.index(f'@set "{var}='), var
        restore = f'@if defined _THEANO_GPU_CONFIG_{var} set "{var}=%_THEANO_GPU_CONFIG_{var}%"'
        assert restore in deactivate and f'@set "_THEANO_GPU_CONFIG_{var}="' in deactivate
    for temp in assigned - changed - {f"_THEANO_GPU_CONFIG_{v}" for v in changed}:
        assert activate[-4:].count(f'@set "{temp}="') == 1, temp


def test_sh_and_bat_write_the_same_settings(prefix, tmp_path):
    """The .sh activation (run) and the .bat one (read) write the same sections, keys and
    values (paths aside). The Wine test below runs the .bat for real."""
    def keys(text: str, dnn: str = "7") -> list[tuple[str, str, str]]:
        out, section = [], None
        for line in text.splitlines():
            branch = re.match(r'^@if (not )?"%_THEANO_GPU_CONFIG_DNN%"=="(\w+)" ', line.strip())
            if branch and (branch.group(2) == dnn) == bool(branch.group(1)):
                continue  # the bat's other cuDNN case
            line = re.sub(r'^@(if (not )?exist "[^"]+" |if (not )?"%_THEANO_GPU_CONFIG_DNN%"=="\w+" )?'
                          r'(> *|>>)"%_THEANO_GPU_CONFIG_RC%" echo ?', "", line.strip())
            line = line.rstrip('"')
            if m := re.fullmatch(r"\[(\w+)\]", line):
                section = m.group(1)
            elif section and (m := re.fullmatch(r"(\w+) = (\S+)", line)):
                out.append((section, m.group(1), "PATH" if re.search(r"[/$%]", m.group(2)) else m.group(2)))
        return out

    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0
    sh = keys((prefix / "etc" / "theano" / "theanorc").read_text())
    assert sh == keys(BAT_ACTIVATE.read_text(), dnn="none") and len(sh) == 4  # dnn.enabled = False
    touch_cudnn(prefix / "include", "cudnn.h")
    assert activate(prefix, tmp_path, **gxx_activation(prefix)).returncode == 0
    sh = keys((prefix / "etc" / "theano" / "theanorc").read_text())
    assert sh == keys(BAT_ACTIVATE.read_text(), dnn="7") and len(sh) == 6


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    if not WINE.exists():
        pytest.skip(NO_WINE)
    prefix = tmp_path_factory.mktemp("wineprefix")

    def run(bat: Path) -> str:
        proc = subprocess.run([str(WINE), "cmd", "/c", "Z:" + str(bat).replace("/", "\\")],
                              env=dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(prefix)),
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout.replace("\r\n", "\n")
    return run


def win(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")


@pytest.mark.slow
def test_bld_bat_under_wine_installs_the_scripts(wine, tmp_path):
    prefix = tmp_path / "winenv"
    driver = tmp_path / "build.bat"
    driver.write_text(f'@set "PREFIX={win(prefix)}"\n@set "RECIPE_DIR={win(RECIPE)}"\n'
                      f'@set "PKG_NAME={PKG}"\n@call "{win(RECIPE / "bld.bat")}"\n'
                      "@if errorlevel 1 exit 1\n")
    wine(driver)
    for change in ("activate", "deactivate"):
        assert activation(prefix, change, "bat").read_bytes() == \
            (SCRIPTS / f"{change}.d" / f"{PKG}_{change}.bat").read_bytes()
    assert not (prefix / "etc" / "theano").exists()  # written at activation, not at build


WIN_STATES = {"unset": {}, "set": {"THEANORC": "C:\\site\\theanorc;~/.theanorc",
                                   "MKL_THREADING_LAYER": "INTEL"}}


def run_bat_activation(wine, tmp_path: Path, prefix: Path, preset: dict[str, str]
                       ) -> dict[str, dict[str, str]]:
    """activate.bat then deactivate.bat under Wine's cmd; the variables at each step."""
    sets = "".join(f'@set "{k}={v}"\n' for k, v in preset.items())
    driver = tmp_path / "driver.bat"
    driver.write_text(f'@set "CONDA_PREFIX={win(prefix)}"\n@set "THEANORC="\n'
                      f'@set "MKL_THREADING_LAYER="\n{sets}'
                      f'@echo ---before\n@set\n@call "{win(BAT_ACTIVATE)}"\n@echo ---active\n@set\n'
                      f'@call "{win(BAT_DEACTIVATE)}"\n@echo ---after\n@set\n')
    snaps = {}
    for block in wine(driver).split("---")[1:]:
        name, *lines = block.splitlines()
        snaps[name] = dict(line.split("=", 1) for line in lines if "=" in line)
    return snaps


@pytest.mark.slow
@pytest.mark.parametrize("state", WIN_STATES)
def test_bat_activation_under_wine(wine, tmp_path, state):
    prefix = tmp_path / "winenv"
    snaps = run_bat_activation(wine, tmp_path, prefix, WIN_STATES[state])
    base = WIN_STATES[state].get("THEANORC", "~/.theanorc;~/.theanorc.txt")
    assert snaps["active"]["THEANORC"] == f"{base};{win(prefix)}\\etc\\theano\\theanorc"
    assert snaps["active"]["MKL_THREADING_LAYER"] == "GNU"
    for key in ("THEANORC", "MKL_THREADING_LAYER", *SAVED):
        assert snaps["after"].get(key) == snaps["before"].get(key), key
    assert not [k for k in snaps["after"] if k.startswith("_THEANO_GPU_CONFIG_")]
    rc = (prefix / "etc" / "theano" / "theanorc").read_text()  # no cuDNN in this prefix
    assert "\n[dnn]\n# No cuDNN in this environment" in rc.replace("\r\n", "\n")
    assert rc.replace("\r\n", "\n").endswith("\nenabled = False\n")


@pytest.mark.slow
def test_bat_activation_under_wine_configures_real_theano(wine, tmp_path, theano_python,
                                                           theano_cache):
    """Done-criterion: activate.bat run by Wine's cmd in an environment with m2w64's g++
    writes the config file; real Theano 1.0.5 reads its cxx, cuDNN paths, device, floatX."""
    prefix = tmp_path / "winenv"
    gxx = prefix / "Library" / "mingw-w64" / "bin" / "g++.exe"
    gxx.parent.mkdir(parents=True)
    gxx.write_bytes(b"")  # m2w64-toolchain's file: only its presence is looked at
    touch_cudnn(prefix / "Library" / "include", "cudnn.h")  # cuDNN 7: its paths
    run_bat_activation(wine, tmp_path, prefix, {})
    p = f"Z:{prefix}"  # the prefix as activate.bat writes it: forward slashes
    kernel = json.loads((prefix / "share/jupyter/kernels/theano-gpu/kernel.json").read_text())
    assert kernel["argv"] == [f"{p}/python.exe", "-m", "ipykernel_launcher", "-f",
                              "{connection_file}"]
    assert kernel["env"]["THEANORC"] == f"~/.theanorc;~/.theanorc.txt;{p}/etc/theano/theanorc"
    assert kernel["env"]["PATH"].startswith(f"{p}/Library/mingw-w64/bin;")
    assert kernel["env"]["PATH"].endswith(";${PATH}")
    rc = prefix / "etc" / "theano" / "theanorc"
    read = subprocess.run([theano_python, "-c", "import theano, json; c = theano.config; "
                           "print(json.dumps([c.cxx, c.device, c.floatX, c.dnn.include_path, "
                           "c.dnn.library_path, c.dnn.bin_path]))"],
                          env=theano_env(tmp_path / "home", theano_cache, THEANORC=str(rc)),
                          capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout.splitlines()[-1]) == [
        f"{p}/Library/mingw-w64/bin/g++.exe", "cuda", "float32", f"{p}/Library/include",
        f"{p}/Library/lib", f"{p}/Library/bin"]
    # the rendered win-64 test commands, run by cmd after activation (as conda-build does)
    from gpuforge.recipes.render import Recipe, render_variants
    from gpuforge.recipes.variants import load_config
    rendered = render_variants(Recipe.load(RECIPE),
                               load_config(RECIPES / "conda_build_config.yaml", "win-64"))[0]
    checks = [c for c in rendered.meta["test"]["commands"] if c.startswith("if not exist")]
    assert len(checks) == 3
    activation(prefix, "activate", "bat").parent.mkdir(parents=True)
    shutil.copy(BAT_ACTIVATE, activation(prefix, "activate", "bat"))
    tester = tmp_path / "test.bat"
    tester.write_text(f'@set "PREFIX={win(prefix)}"\n' + "".join(f"@{c}\n" for c in checks)
                      + "@echo all exist\n")
    assert "all exist" in wine(tester)


@pytest.mark.slow
def test_build_local_runs_build_sh_and_the_activated_test_section(python37, tmp_path):
    """`gpuforge recipes build-local theano-gpu-config`: the recipe's own files as source,
    GXX/CXX as the compiler activation sets them, and the test section run with the
    prefix's activate.d scripts sourced, as conda-build does."""
    from gpuforge.smoke.targets import CPU

    prefix = tmp_path / "prefix"
    subprocess.run([python37, "-m", "venv", str(prefix)], check=True, timeout=300)
    pip = subprocess.run([str(prefix / "bin" / "python"), "-m", "pip", "install", "-q",
                          "--disable-pip-version-check", *CPU.pip],
                         capture_output=True, text=True, timeout=900)
    if pip.returncode != 0:
        pytest.skip(f"needs {' '.join(CPU.pip)} from PyPI: {pip.stderr.strip()[-200:]}")
    proc = run_cli("recipes", "build-local", PKG, "--python", python37, "--prefix", str(prefix),
                   "--work-dir", str(tmp_path / "work"), **theano_env(tmp_path / "home"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"source: {RECIPE} (the recipe's own files)" in out
    assert "activation: theano-gpu-config_activate.sh" in out
    assert f"cxx = {prefix}/bin/g++" in out  # GXX: this machine's g++, linked into the prefix
    assert "theano-gpu-config: Theano uses this environment's settings" in out
    assert "theano-gpu-config 0.1.0: build and test passed" in out


@pytest.mark.slow
def test_conda_build_without_a_channel_then_installed_by_py_rattler(conda_tools, theano_python,
                                                                     theano_cache, tmp_path):
    """The real conda-build makes the .conda with no channel at all (nothing to build with:
    no compiler, no host Python); py-rattler installs it into a fresh prefix; the recipe's
    test section then runs there after the real conda's activation of that prefix
    (`conda shell.bash activate`, which sources its activate.d), as conda-build's test
    phase does, Theano being the cpu target's (the run requirements come from no channel)."""
    import asyncio

    import rattler

    out = tmp_path / "channel"
    proc = subprocess.run([str(conda_tools.build), str(RECIPE), "-m",
                           str(ROOT / "ci" / "variants" / "linux-64_python3.7_numpy1.16.yaml"),
                           "--output-folder", str(out), "--no-anaconda-upload",
                           "--override-channels", "--no-test", "--package-format", "conda"],
                          env=conda_tools.env(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [built] = (out / "linux-64").glob("theano-gpu-config-0.1.0-*.conda")
    records = asyncio.run(rattler.Gateway(cache_dir=tmp_path / "gateway").query(
        [rattler.Channel(out.as_uri())], [rattler.Subdir("linux-64")], ["theano-gpu-config"],
        recursive=False))
    [record] = [r for per_channel in records for r in per_channel]
    assert sorted(record.depends) == ["gxx_linux-64 7.3.0.*", "theano >=1.0.5,<1.1"]
    assert sorted(record.constrains) == ["cudatoolkit >=8.0,<12", "cudnn >=5.1,<8"]
    prefix = tmp_path / "prefix"
    asyncio.run(rattler.install([record], prefix, cache_dir=tmp_path / "pkgs", show_progress=False))
    for change in ("activate", "deactivate"):
        assert activation(prefix, change).read_bytes() == \
            (SCRIPTS / f"{change}.d" / f"{PKG}_{change}.sh").read_bytes()
    assert (prefix / "conda-meta" / f"{built.name[:-len('.conda')]}.json").is_file()
    add_gxx(prefix)
    from gpuforge.recipes.render import Recipe, render_variants
    from gpuforge.recipes.variants import load_config

    rendered = render_variants(Recipe.load(RECIPE),
                               load_config(RECIPES / "conda_build_config.yaml", "linux-64"))[0]
    commands = rendered.meta["test"]["commands"]
    assert commands[-1] == "python test_config.py"
    conda = conda_tools.build.parent / "conda"
    script = "\n".join([f'eval "$("{conda}" shell.bash activate "{prefix}")"',
                        'test "$CONDA_PREFIX" = "$PREFIX"', *commands[:-1],
                        f'"{theano_python}" "{RECIPE / "test_config.py"}"'])
    env = theano_env(tmp_path / "home", theano_cache, PREFIX=str(prefix), **gxx_activation(prefix),
                     **{k: v for k, v in conda_tools.env(tmp_path).items() if k == "CONDARC"})
    proc = subprocess.run(["bash", "-euc", script], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "theano-gpu-config: Theano uses this environment's settings" in proc.stdout


def test_wheel_carries_the_topk_fix_and_its_pth(wheel):
    import zipfile

    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        assert whl.read("theano-gpu-config.pth") == b"import theano_gpu_config_topk\n"
    assert "theano_gpu_config_topk.py" in names


@pytest.mark.slow
def test_the_wheel_fixes_theano_topk_kernels_at_import(theano_python, wheel, tmp_path):
    """Theano 1.0.5 from PyPI in a prefix where the wheel is installed: at start-up the .pth
    imports the fix, and GpuTopKOp's kernels (Theano's own files, read as sort.py reads them)
    vote with __ballot_sync, the lanes still in count_radix_masked's loop voting, take a barrier
    after each carry and run whole rounds, and its cache version carries the fix's mark; the
    rewrite is idempotent and gives what recipes/theano's patch gives (the mock tier compiles
    and assembles the kernels: tests/smoke/test_mockgpu.py)."""
    proc = subprocess.run([theano_python, "-m", "pip", "install", "-q", "--no-deps",
                           "--disable-pip-version-check", "--force-reinstall", str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # recipes/theano's patch, applied as conda-build applies it, to Theano's own files
    show = "import os, theano; print(os.path.dirname(theano.__file__))"
    where = subprocess.run([theano_python, "-c", show], capture_output=True, text=True, timeout=300,
                           env=theano_env(tmp_path / "home"), cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    tree = tmp_path / "tree"
    shutil.copytree(Path(where.stdout.strip()) / "gpuarray", tree / "theano" / "gpuarray")
    patch = RECIPES / "theano" / "patches" / "0001-topk-ballot-sync.patch"
    applied = subprocess.run(["patch", "-p1", "-i", str(patch)], cwd=tree, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    code = (
        "import glob, json, os, sys\n"
        "import theano.gpuarray.sort as sort\n"
        "import theano_gpu_config_topk as fix\n"
        "folder = os.path.join(os.path.dirname(sort.__file__), 'c_code')\n"
        "files = sorted(glob.glob(os.path.join(folder, 'topk_*')))\n"
        "texts = [open(f).read() for f in files]\n"
        "fixed = [fix.fixed_source(t) for t in texts]\n"
        "print(json.dumps({'fixed': sort.GpuTopKOp._theano_gpu_config_fixed,\n"
        "  'version': repr(sort.GpuTopKOp(axis=-1, sorted=False).c_code_cache_version()),\n"
        "  'legacy_in_files': sum(t.count('__ballot(') for t in texts),\n"
        "  'legacy_after': sum(t.count('__ballot(') for t in fixed),\n"
        "  'whole_warp': sum(t.count('__ballot_sync(0xffffffffu, ') for t in fixed),\n"
        "  'lanes_in_loop': sum(t.count('__ballot_sync(lanes, ') for t in fixed),\n"
        "  'barriers_added': sum(f.count('local_barrier();') - t.count('local_barrier();')\n"
        "                        for t, f in zip(texts, fixed)),\n"
        "  'partial_rounds': sum(t.count('blockDim.x-1') for t in fixed),\n"
        "  'idempotent': all(fix.fixed_source(f) == f for f in fixed),\n"
        "  'as_the_patch': [open(os.path.join(sys.argv[1], os.path.basename(f))).read() == g\n"
        "                   for f, g in zip(files, fixed)]}))\n"
    )
    patched = str(tree / "theano" / "gpuarray" / "c_code")
    proc = subprocess.run([theano_python, "-c", code, patched], capture_output=True, text=True, timeout=300,
                          env=theano_env(tmp_path / "home"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["fixed"] is True
    assert "theano-gpu-config: top-k for sm_70+" in found["version"]
    assert found["legacy_in_files"] == 4 and found["legacy_after"] == 0
    # binary_cumsum, binary_cumsum_exclusive, topk_dense.cu's count and the loop's first mask
    assert found["whole_warp"] == 4 and found["lanes_in_loop"] == 2
    assert found["barriers_added"] == 2 and found["partial_rounds"] == 0 and found["idempotent"]
    assert found["as_the_patch"] == [True, True, True]

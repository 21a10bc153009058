"""`gpuforge theanorc show|write|migrate`: every file written is loaded by real Theano
1.0.5 and its values read back; broken input is one located line."""

from __future__ import annotations

import configparser
import json
import subprocess
from pathlib import Path

import pytest
from conftest import pyenv_or_skip, run_cli, theano_env

from gpuforge.doctor.theanorc import PROFILES, migrate_text
from gpuforge.errors import GpuforgeError

READ = (
    "import json, sys, theano\n"
    "print(json.dumps({n: str(eval('theano.config.' + n)) for n in sys.argv[1:]}))\n"
)
OLD_BACKEND_ERROR = "You are tring to use the old GPU back-end"  # (sic) Theano 1.0.5
# Seed 002's ~/.theanorc (trailing blanks as in the post) with seed 003's `lib.cnmem=1.0`.
SEED_002 = "[global] \ndevice = gpu\nfloatX = float32\n[nvcc] \nfastmath = True\n[lib]\ncnmem = 1.0\n"
# Seed 003's "fastest" and multi-GPU settings as the post writes them, plus the old name
# of an algorithm flag Theano 1.0.5 refuses at import.
SEED_003 = """\
[global]
floatX = float32
device = cuda
mode = FAST_RUN

[nvcc]
# costs precision: set False if NaNs appear
fastmath = True

[dnn]
conv.algo_fwd = time_once

[dnn.conv]
workmem_bwd = deterministic

[gcc]
cxxflags = -O3 -ffast-math -ftree-loop-distribution -funroll-loops -ftracer

[gpuarray]
preallocate = 1.0
"""


def read_theano(python: str, env: dict[str, str], names: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-c", READ, *names], env=env, capture_output=True, text=True, timeout=300)


def values(proc: subprocess.CompletedProcess) -> dict[str, str]:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def settings(text: str) -> dict[str, str]:
    """A .theanorc's settings under the names theano.config gives them."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keep floatX's case: it is an attribute name
    parser.read_string(text)
    return {(k if s == "global" else f"{s}.{k}"): v for s in parser.sections() for k, v in parser[s].items()}


@pytest.fixture
def env(tmp_path, theano_cache):
    return theano_env(tmp_path / "home", theano_cache)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr.strip()


# --- write -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_each_profile_is_written_and_theano_reads_it_back(profile, theano_python, env, tmp_path):
    path = tmp_path / "theanorc"
    proc = run_cli("theanorc", "write", "--profile", profile, "--path", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote {path} (profile {profile})"
    assert path.read_text() == PROFILES[profile]
    wanted = settings(PROFILES[profile])
    assert len(wanted) >= 3
    got = values(read_theano(theano_python, dict(env, THEANORC=str(path)), sorted(wanted)))
    assert got == wanted


def test_seed_003_profiles_keep_their_intent():
    fast, multi = settings(PROFILES["fast"]), settings(PROFILES["multi-gpu"])
    assert fast["dnn.conv.algo_fwd"] == "time_once"  # seed: `[dnn] conv.algo_fwd`, never read
    assert "-ffast-math" in fast["gcc.cxxflags"] and not any(k.startswith("nvcc") for k in fast)
    assert "fastmath" in PROFILES["fast"]  # says where seed 003's [nvcc] fastmath went
    assert multi["contexts"] == "dev0->cuda0;dev1->cuda1"
    assert multi["dnn.conv.algo_bwd_filter"] == multi["dnn.conv.algo_bwd_data"] == "deterministic"
    assert settings(PROFILES["dev"])["mode"] == "DebugMode"
    assert settings(PROFILES["profile"]) == {
        "profile": "True",
        "profile_memory": "True",
        "profile_optimizer": "True",
    }


@pytest.mark.slow
def test_fast_profile_compiles_with_its_gcc_flags(theano_python, env, tmp_path):
    path = tmp_path / "theanorc"
    path.write_text(PROFILES["fast"])
    code = (
        "import numpy, theano, theano.tensor as T\n"
        "x = theano.shared(numpy.ones(8, dtype='float32'))\n"
        "f = theano.function([], T.exp(x))\n"
        "print(theano.config.gcc.cxxflags, [hasattr(t, 'cthunk') for t in f.fn.thunks], "
        "numpy.allclose(f(), numpy.e))\n"
    )
    proc = subprocess.run(
        [theano_python, "-c", code],
        capture_output=True,
        text=True,
        env=dict(env, THEANORC=str(path)),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("-funroll-loops -ftracer [True] True")


def test_write_replaces_atomically_with_a_backup(tmp_path):
    home = tmp_path / "home"
    env = theano_env(home)
    assert run_cli("theanorc", "write", "--profile", "dev", **env).returncode == 0
    rc = home / ".theanorc"  # the default: the file Theano reads when THEANORC is unset
    assert rc.read_text() == PROFILES["dev"]
    rc.write_text("# my own settings\n[global]\nfloatX = float32\n")
    proc = run_cli("theanorc", "write", "--profile", "fast", **env)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"wrote {rc} (profile fast); the previous file is {rc}.bak"
    assert rc.read_text() == PROFILES["fast"]
    assert (home / ".theanorc.bak").read_text() == "# my own settings\n[global]\nfloatX = float32\n"
    # a profile replaced by a profile is no backup: the user's own file stays in .bak
    proc = run_cli("theanorc", "write", "--profile", "dev", **env)
    assert proc.stdout.strip() == f"wrote {rc} (profile dev)"
    assert (home / ".theanorc.bak").read_text().startswith("# my own settings")
    assert sorted(p.name for p in home.iterdir()) == [".theanorc", ".theanorc.bak"]


# --- show --------------------------------------------------------------------------------


@pytest.mark.slow
def test_show_names_the_source_of_each_value(theano_python, env, tmp_path):
    """theano.config assignment > THEANO_FLAGS > config files (later wins) > default."""
    home = Path(env["HOME"])
    (home / ".theanorc").write_text(
        "[global]\nfloatX = float64\ndevice = cpu\nmode = FAST_COMPILE\n[nvcc]\nfastmath = True\n"
    )
    site = tmp_path / "site.rc"
    site.write_text("# site\n[global]\nfloatX = float32\n[dnn]\nconv.algo_fwd = time_once\n")
    env = dict(env, THEANORC=f"~/.theanorc:{site}", THEANO_FLAGS="mode=FAST_RUN,optimzer=None")

    def show(*args: str) -> dict:
        proc = run_cli("theanorc", "show", "--python", theano_python, "--json", *args, **env)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        data["by_name"] = {o["name"]: o for o in data["options"]}
        return data

    data = show()
    opt = data["by_name"]
    assert data["theano"] == "1.0.5" and data["python_version"].startswith("3.7")
    assert [f["path"] for f in data["files"]] == [str(home / ".theanorc"), str(site)]
    assert (opt["floatX"]["value"], opt["floatX"]["path"], opt["floatX"]["line"]) == (
        "float32",
        str(site),
        3,
    )  # the later file wins
    assert (opt["device"]["value"], opt["device"]["path"], opt["device"]["line"]) == (
        "cpu",
        str(home / ".theanorc"),
        3,
    )
    assert (opt["mode"]["value"], opt["mode"]["source"]) == ("FAST_RUN", "THEANO_FLAGS")
    assert (opt["optimizer"]["value"], opt["optimizer"]["source"]) == ("o4", "default")
    ignored = {i["key"]: i for i in data["ignored"]}
    assert "theanorc migrate" in ignored["[nvcc] fastmath"]["reason"]
    assert (
        ignored["[dnn] conv.algo_fwd"]["reason"] == "Theano reads dnn.conv.algo_fwd from [dnn.conv] algo_fwd"
    )
    assert ignored["optimzer"]["where"] == "THEANO_FLAGS"

    assigned = show("--exec", "theano.config.floatX = 'float16'")["by_name"]["floatX"]
    assert (assigned["value"], assigned["source"]) == ("float16", "assignment")

    text = run_cli("theanorc", "show", "--python", theano_python, **env)
    assert text.returncode == 0, text.stderr
    row = next(line.split() for line in text.stdout.splitlines() if line.startswith("floatX "))
    assert row == ["floatX", "float32", f"{site}:3"]
    assert "ignored by Theano:" in text.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "flags", "line", "message"),
    [
        (SEED_002, "", 2, "[global] device = gpu: ValueError: " + OLD_BACKEND_ERROR),
        (
            "[global]\nfloatX = float32\ndevice\n",
            "",
            3,
            "Theano cannot read this config file: neither [section] nor `key = value`: 'device'",
        ),
        (
            "floatX = float32\n",
            "",
            1,
            "Theano cannot read this config file: 'floatX = float32' comes before any [section] header",
        ),
        (
            "[global]\nfloatX = float32\nfloatx = float64\n",
            "",
            3,
            "Theano cannot read this config file: [global] floatx is set twice in this file",
        ),
        (
            "[global]\nfloatX = float32\n",
            "device=gpu0",
            None,
            "THEANO_FLAGS device=gpu0: ValueError: " + OLD_BACKEND_ERROR,
        ),
        ("[global]\nfloatX = float23\n", "", 2, "[global] floatX = float23: ValueError: Invalid value"),
    ],
    ids=["old-device", "no-equals", "no-section", "duplicate", "flags", "bad-value"],
)
def test_show_turns_a_broken_configuration_into_one_located_line(
    theano_python, env, tmp_path, text, flags, line, message
):
    rc = tmp_path / "theanorc"
    rc.write_text(text)
    proc = run_cli(
        "theanorc", "show", "--python", theano_python, **dict(env, THEANORC=str(rc), THEANO_FLAGS=flags)
    )
    error = one_line_error(proc)
    where = f"{rc}:{line}: " if line else ""
    assert error.startswith(f"gpuforge: error: {where}{message}"), error


@pytest.mark.parametrize("minor", ["2.7", "3.6"])
def test_show_probe_runs_on_old_interpreters(minor, tmp_path):
    """The probe is Python 2.7/3.6 code: without Theano it reports the real ImportError."""
    python = pyenv_or_skip(minor)
    proc = run_cli("theanorc", "show", "--python", python, **theano_env(tmp_path / "home"))
    error = one_line_error(proc)
    assert error.startswith(f"gpuforge: error: {python}: importing theano failed: ")
    assert "No module named" in error and "theano" in error


def test_show_unknown_interpreter(tmp_path):
    proc = run_cli("theanorc", "show", "--python", str(tmp_path / "nope"))
    assert one_line_error(proc) == f"gpuforge: error: {tmp_path / 'nope'}: no such interpreter"


# --- migrate -----------------------------------------------------------------------------


@pytest.mark.slow
def test_seed_002_theanorc_migrates_to_one_theano_105_accepts(theano_python, env, tmp_path):
    """Done-criterion: before, Theano 1.0.5 raises its real old-backend error; after, it
    imports and reads the same intent back."""
    rc = tmp_path / ".theanorc"
    rc.write_text(SEED_002)
    env = dict(env, THEANORC=str(rc))
    before = read_theano(theano_python, env, ["device"])
    assert before.returncode != 0 and OLD_BACKEND_ERROR in before.stderr

    shown = run_cli("theanorc", "migrate", "--path", str(rc))
    assert shown.returncode == 1  # not a terminal, no --yes: nothing written
    assert "-device = gpu\n+device = cuda\n" in shown.stdout
    assert "[nvcc] fastmath = True dropped" in shown.stdout
    assert "[lib] cnmem = 1.0 -> [gpuarray] preallocate = 1.0" in shown.stdout
    assert shown.stdout.strip().endswith(f"not written: run again with --yes to write {rc}")
    assert rc.read_text() == SEED_002 and not (tmp_path / ".theanorc.bak").exists()

    written = run_cli("theanorc", "migrate", "--path", str(rc), "--yes")
    assert written.returncode == 0, written.stderr
    assert written.stdout.strip().endswith(f"wrote {rc}; the previous file is {rc}.bak")
    assert (tmp_path / ".theanorc.bak").read_text() == SEED_002
    assert rc.read_text() == (
        "[global] \ndevice = cuda\nfloatX = float32\n\n[gpuarray]\n"
        "# was [lib] cnmem = 1.0 (gpuforge theanorc migrate)\n"
        "preallocate = 1.0\n"
    )
    after = values(read_theano(theano_python, env, ["device", "floatX", "gpuarray.preallocate"]))
    assert after == {"device": "cuda", "floatX": "float32", "gpuarray.preallocate": "1.0"}
    shown = run_cli("theanorc", "show", "--python", theano_python, "--json", **env)
    assert json.loads(shown.stdout)["ignored"] == []
    again = run_cli("theanorc", "migrate", "--path", str(rc))
    assert (again.returncode, again.stdout.strip()) == (
        0,
        f"{rc}: nothing to migrate (no old-backend settings)",
    )


@pytest.mark.slow
def test_seed_003_settings_migrate_to_what_theano_105_reads(theano_python, env, tmp_path):
    rc = tmp_path / "theanorc"
    rc.write_text(SEED_003)
    env = dict(env, THEANORC=str(rc))
    before = read_theano(theano_python, env, ["floatX"])
    assert before.returncode != 0 and "dnn.conv.workmem_bwd` has been removed" in before.stderr
    assert run_cli("theanorc", "migrate", "--path", str(rc), "--yes").returncode == 0
    wanted = {
        "floatX": "float32",
        "device": "cuda",
        "mode": "FAST_RUN",
        "dnn.conv.algo_fwd": "time_once",
        "dnn.conv.algo_bwd_data": "deterministic",
        "dnn.conv.algo_bwd_filter": "deterministic",
        "gpuarray.preallocate": "1.0",
        "gcc.cxxflags": "-O3 -ffast-math -ftree-loop-distribution -funroll-loops -ftracer",
    }
    assert values(read_theano(theano_python, env, sorted(wanted))) == wanted
    assert settings(rc.read_text()) == wanted


def test_migrate_keeps_comments_and_order_and_says_what_it_did(tmp_path):
    text = (
        "# my settings\n[global]\n# the GPU\ndevice = gpu1\ninit_gpu_device = gpu0\n"
        "floatX = float32\n\n[lib]\ncnmem = 0.8\n\n[gpuarray]\npreallocate = 2048\n\n"
        "[nvcc]\nflags = -D_FORCE_INLINES\n  -arch=sm_30\n\n[dnn]\nenabled = True\n"
        "conv.algo_fwd = deterministic\n"
    )
    m = migrate_text(text, tmp_path / "rc")
    assert m.new == (
        "# my settings\n[global]\n# the GPU\ndevice = cuda1\ninit_gpu_device = cuda0\n"
        "floatX = float32\n\n[gpuarray]\npreallocate = 2048\n\n[dnn]\n"
        "enabled = True\n\n[dnn.conv]\n"
        "# was [dnn] conv.algo_fwd = deterministic (gpuforge theanorc migrate)\n"
        "algo_bwd_data = deterministic\n"
        "# was [dnn] conv.algo_fwd = deterministic (gpuforge theanorc migrate)\n"
        "algo_bwd_filter = deterministic\n"
    )
    assert [n.split(":")[0] for n in m.notes] == [
        "line 4",
        "line 5",
        "line 9",
        "line 15",
        "line 20",
        "line 20",
    ]
    assert "[gpuarray] preallocate is already set (line 12)" in m.notes[2]
    assert m.diff(tmp_path / "rc").startswith(f"--- {tmp_path / 'rc'}\n+++ {tmp_path / 'rc'} (migrated)\n")
    zero = migrate_text("[lib]\ncnmem = 0\n", tmp_path / "rc")
    assert zero.new == "" and "CNMeM off" in zero.notes[0]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("device = gpu\n", 1, "`device = gpu` comes before any [section] header"),
        ("[global]\ndevice\n", 2, "neither [section], `key = value` nor a comment: 'device'"),
        ("[global]\ndevice = gpu\nDevice = cpu\n", 3, "[global] device repeats line 2"),
        ("[global]\n[lib]\ncnmem = lots\n", 3, "[lib] cnmem = 'lots' is not a number"),
    ],
)
def test_migrate_a_broken_file_is_one_located_line_and_changes_nothing(tmp_path, text, line, message):
    rc = tmp_path / "theanorc"
    rc.write_text(text)
    with pytest.raises(GpuforgeError) as err:
        migrate_text(text, rc)
    assert str(err.value).startswith(f"{rc}:{line}: {message}")
    proc = run_cli("theanorc", "migrate", "--path", str(rc), "--yes")
    assert one_line_error(proc).startswith(f"gpuforge: error: {rc}:{line}: {message}")
    assert rc.read_text() == text and sorted(p.name for p in tmp_path.iterdir()) == ["theanorc"]


def test_migrate_missing_file(tmp_path):
    proc = run_cli("theanorc", "migrate", "--path", str(tmp_path / "none"))
    assert one_line_error(proc) == f"gpuforge: error: {tmp_path / 'none'}: no such file"

"""envs/: the env files pass every check, and each check fires on a real broken copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT, run_cli

from gpuforge import locations
from gpuforge.envs.check import check_all
from gpuforge.envs.envfile import escapes, load_env
from gpuforge.errors import GpuforgeError

ENVS = ROOT / "envs"
ENV_FILES = sorted(p.name for p in ENVS.glob("*.yml"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A writable copy of envs/ and recipes/ (the layout `gpuforge envs check` reads)."""
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    return tmp_path


def edit(path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))
    return path


def line_of(path: Path, fragment: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if fragment in ln)


def test_the_env_files_exist():
    # pytorch04-win64.yml is gone: pytorch 0.4.0 was deleted from the pytorch channel (pytorch
    # #104754, 2023-07-07: nothing older than 1.5.1 is left), which is deprecated (#138506).
    assert ENV_FILES == [
        "cpu-linux64.yml",
        "cpu-win64.yml",
        "gpu-linux64-blackwell.yml",
        "gpu-linux64-legacy-cuda10.yml",
        "gpu-linux64.yml",
        "gpu-win64-blackwell.yml",
        "gpu-win64-legacy-cuda9.yml",
        "gpu-win64.yml",
    ]


def test_repository_envs_are_clean_and_solve_on_real_records():
    """Done-criterion: no env file names an unpublished channel, every conda spec matches a
    real record of data/records.yaml, and each solves on those records with no stand-in."""
    result = check_all(ENVS, RECIPES)
    assert [str(p) for p in result.problems] == []
    assert result.env_files == len(ENV_FILES)
    assert result.solved == len(ENV_FILES)
    assert result.generated == 4
    assert result.stand_ins == {str(ENVS / name): [] for name in ENV_FILES}


@pytest.mark.parametrize("name", ENV_FILES)
def test_every_conda_spec_matches_a_real_record(name):
    from gpuforge.envs.records import load_records

    records = load_records(locations.RECORDS)
    env = load_env(ENVS / name)
    assert env.channel_names and "gpuforge" not in env.channel_names
    assert env.channels[-1][0] == "nodefaults"
    for dep in env.conda_deps:
        if dep.name.startswith("__"):  # the driver floor: a virtual package, the machine's
            continue
        channels = [dep.channel] if dep.channel else env.channel_names
        found = records.matching(dep.match_spec, channels, env.platform)
        assert found, f"{name}:{dep.line}: {dep.text}"
        assert all(r.evidence in records.evidence for r in found)


def test_cli_check_prints_a_summary():
    proc = run_cli("envs", "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    *notes, summary = proc.stdout.splitlines()
    assert summary == (
        "envs check: 8 env files clean, every conda spec on a real record, 8 solved offline on "
        "them (each at its driver floor), 6 refused one CUDA release below their floor, 4 mirror "
        "files up to date"
    )
    # what the records do not prove is named: the build needs that no record shows published
    assert [line.split(" (not proven)")[0] for line in notes] == [
        "gpuforge's data/records.yaml: the recipes' linux-64 build needs no record shows published on "
        "pkgs/main or "
        "pkgs/msys2",
        "gpuforge's data/records.yaml: the recipes' win-64 build needs no record shows published on "
        "pkgs/main or pkgs/msys2",
    ]


def test_records_on_evidence_older_than_two_years_are_named(tmp_path):
    shutil.copytree(ENVS, tmp_path / "envs")
    shutil.copytree(RECIPES, tmp_path / "recipes")
    records = tmp_path / "records.yaml"
    text = locations.RECORDS.read_text()
    at = text.index("  conda-test-linux:")
    records.write_text(text[:at] + text[at:].replace("    checked: 2026-05-08", "    checked: 2018", 1))
    proc = run_cli("envs", "check", "--records", "records.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "records.yaml: not re-checked within 2 years (not proven still published): "
        "pygpu-0.7.6-py37h035aef0_0 (conda-test-linux)\n"
    ) in proc.stdout


def test_records_evidence_needs_a_source_and_a_checked_date(tmp_path):
    from gpuforge.envs.records import load_records

    path = tmp_path / "records.yaml"
    text = (locations.RECORDS).read_text()
    path.write_text(text.replace("    checked: 2026-05-08\n", "", 1))
    with pytest.raises(
        GpuforgeError,
        match=r"records.yaml:\d+: evidence conda-test-linux: expected "
        r"`source:` and `checked:`",
    ):
        load_records(path)


def test_headline_pins():
    env = load_env(ENVS / "gpu-win64-legacy-cuda9.yml")
    pins = {d.name: (d.channel, d.version, str(d.spec.build or "")) for d in env.conda_deps}
    assert pins["python"][1] == "3.6.*" and pins["vc"][1] == "14.*"
    assert pins["cudatoolkit"][1] == "9.0.*"
    assert pins["cudnn"][1:] == ("7.1.*", "cuda9.0*")
    assert pins["numpy"][1] == ">=1.16,<1.20"
    assert pins["pygpu"][:2] == pins["libgpuarray"][:2] == (None, "0.7.6.*")  # pkgs/main's
    assert {"m2w64-toolchain", "libpython", "mkl-service", "nose", "pip"} <= set(pins)
    pip = {d.name: d for d in env.pip_deps}
    assert str(pip["theano"].requirement) == "Theano==1.0.5"
    assert pip["theano-gpu-config"].project == RECIPES / "theano-gpu-config"
    assert env.platform == "win-64"


# (file, old, new, line fragment, expected message fragment)
PIN_CASES = [
    (
        "gpu-win64-legacy-cuda9.yml",
        "python=3.6 ",
        "python=3.5 ",
        "python=3.5",
        "is not in the recipes' matrix",
    ),
    ("gpu-win64-legacy-cuda9.yml", "python=3.6 ", "python>=3.6 ", "python>=3.6", "admits several Pythons"),
    (
        "gpu-win64-legacy-cuda9.yml",
        "numpy>=1.16,<1.20",
        "numpy>=1.16,<1.25",
        "numpy>=1.16,<1.25",
        "pin numpy below 1.24",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "numpy>=1.16,<1.20",
        "numpy>=1.16,<1.21",
        "numpy>=1.16,<1.21",
        "admits 1.20, which has no builds for python 3.6",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "numpy>=1.16,<1.20",
        "numpy>=1.14,<1.16",
        "numpy>=1.14",
        "excludes numpy 1.16, which pygpu for python 3.6 is built against",
    ),
    ("cpu-win64.yml", "vc=14 ", "vc=15 ", "vc=15", "pin vc=14"),
    ("cpu-linux64.yml", "  - nose ", "  - vc=14  # no\n  - nose ", "vc=14", "vc is the Windows runtime pin"),
    (
        "gpu-win64-legacy-cuda9.yml",
        "cudatoolkit=9.0 ",
        "cudatoolkit=10.0 ",
        "cudatoolkit=10.0",
        "cannot load CUDA 10's nvrtc64_10x_0.dll",
    ),
    (
        "gpu-win64.yml",
        "cudatoolkit=11.8.0 ",
        "cudatoolkit>=11.8 ",
        "cudatoolkit>=11.8",
        "admits 12, outside the recipes' win-64 range >=8.0,<12",
    ),
    (
        "gpu-linux64-legacy-cuda10.yml",
        "cudatoolkit=10.2 ",
        "cudatoolkit=12.0 ",
        "cudatoolkit=12.0",
        "admits 12.0, outside the recipes' linux-64 range >=8.0,<12",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "cudnn=7.1[build=cuda9.0*]",
        "cudnn=8.0[build=cuda9.0*]",
        "cudnn=8.0",
        "Theano 1.0.5 loads cuDNN 5.1 to 7 only",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "cudnn=7.1[build=cuda9.0*]",
        "cudnn=7.1[build=cuda8.0*]",
        "cudnn=7.1",
        "cudnn build cuda8.0* is for CUDA 8.0, but cudatoolkit is 9.0.*",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "cudatoolkit=9.0 ",
        "cudatoolkit ",
        "cudatoolkit ",
        "pin cudatoolkit within",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "pygpu=0.7.6",
        "pygpu=0.7.5",
        "pygpu=0.7.5",
        "pygpu 0.7.5.* excludes 0.7.6, the version recipes/pygpu builds",
    ),
    (
        "gpu-linux64-legacy-cuda10.yml",
        "libgpuarray=0.7.6",
        "libgpuarray>=0.7",
        "libgpuarray>=0.7",
        "pin both to the same version",
    ),
    (
        "cpu-linux64.yml",
        "Theano==1.0.5",
        "Theano==1.0.4",
        "Theano==1.0.4",
        "pip: Theano==1.0.4 excludes 1.0.5, the version recipes/theano builds",
    ),
    (
        "cpu-win64.yml",
        "  - m2w64-toolchain",
        "  # - m2w64-toolchain",
        "dependencies:",
        "add m2w64-toolchain (conda-forge's theano does not bring it)",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "      - ../recipes/theano-gpu-config",
        "      # - theano-gpu-config",
        "dependencies:",
        "needs theano-gpu-config",
    ),
    (
        "gpu-linux64-legacy-cuda10.yml",
        "  - nose  # theano.test() and theano-nose run on it",
        "  - nose",
        "- nose",
        "every pin needs a comment saying why",
    ),
    ("cpu-linux64.yml", "  - scipy  #", "  - scipy>=>1  #", "scipy>=>1", "is not a valid conda MatchSpec"),
    (
        "cpu-linux64.yml",
        "  - defaults  #",
        "  - http://repo.anaconda.com/pkgs/main  #",
        "http://repo",
        "is not https",
    ),
    (
        "cpu-linux64.yml",
        "  - defaults  #",
        "  - https://mirrors.tuna.tsinghua.edu.cn/anaconda/pkgs/main  #",
        "https://mirrors",
        "use a channel name from",
    ),
    (
        "cpu-linux64.yml",
        "  - defaults  #",
        "  - conda-forgee  #",
        "conda-forgee",
        "channel 'conda-forgee' is not defined in",
    ),
    (
        "cpu-linux64.yml",
        "  - nose  #",
        "  - nose[subdir=linux-32]  #",
        "nose[subdir",
        "subdir linux-32 is 32-bit",
    ),
    ("cpu-win64.yml", "scipy==1.5.4", "scipy>=1.5", "scipy>=1.5", "pin it with =="),
    (
        "cpu-win64.yml",
        "name: gpuforge-cpu",
        "name: gpuforge-cpu\nplatforms: [win-64]",
        "platforms:",
        "unknown key 'platforms'",
    ),
    (
        "cpu-win64.yml",
        "  - nose  #",
        "  - conda-forge::nose  #",
        "conda-forge::nose",
        "list channel conda-forge under channels: too",
    ),
    # issue 10: the channel nobody publishes, by name or as a spec's channel
    (
        "gpu-win64-legacy-cuda9.yml",
        "  - defaults  #",
        "  - gpuforge  # ours\n  - defaults  #",
        "- gpuforge",
        "channel 'gpuforge' is published nowhere",
    ),
    (
        "gpu-win64-legacy-cuda9.yml",
        "  - pygpu=0.7.6",
        "  - gpuforge::pygpu=0.7.6",
        "gpuforge::pygpu",
        "pygpu: channel 'gpuforge' is published nowhere",
    ),
    (
        "cpu-linux64.yml",
        "  - nodefaults  #",
        "  # nodefaults  #",
        "- defaults",
        "end channels: with `- nodefaults`",
    ),
    # every conda spec on a real record
    (
        "gpu-win64-legacy-cuda9.yml",
        "cudnn=7.1[build=cuda9.0*]",
        "cudnn=7.3[build=cuda9.0*]",
        "cudnn=7.3",
        "no real record in",
    ),
    (
        "cpu-linux64.yml",
        "gxx_linux-64=7.3.0",
        "gxx_linux-64=9.3.0",
        "gxx_linux-64=9.3.0",
        "gxx_linux-64=9.3.0: no real record in",
    ),
    (
        "gpu-linux64-legacy-cuda10.yml",
        "      - ../recipes/theano-gpu-config",
        "      - ../recipes/nothing-here",
        "nothing-here",
        "pip: ../recipes/nothing-here: no project there",
    ),
    # the records exist one by one but not together: the solve says so
    (
        "cpu-linux64.yml",
        "  - nose  #",
        "  - pygpu[build=py36*]  # again\n  - nose  #",
        "pygpu=0.7.6",
        "the pins do not solve against the real linux-64 records (offline)",
    ),
]


@pytest.mark.parametrize("case", PIN_CASES, ids=lambda c: f"{c[0]}:{c[4][:40]}")
def test_each_check_fires_on_a_broken_copy(tree, case):
    name, old, new, fragment, message = case
    path = edit(tree / "envs" / name, old, new)
    result = check_all(tree / "envs", tree / "recipes", [path])
    line = line_of(path, fragment)
    shown = [str(p) for p in result.problems]
    assert any(p.startswith(f"{path}:{line}: ") and message in p for p in shown), shown


def test_a_32bit_env_file_is_refused(tree):
    path = tree / "envs" / "gpu-win32.yml"
    (tree / "envs" / "gpu-win64-legacy-cuda9.yml").rename(path)
    result = check_all(tree / "envs", tree / "recipes", [path])
    assert [str(p) for p in result.problems] == [
        f"{path}:1: win-32 is a 32-bit platform: Theano's g++ and PyTorch need 64-bit Python "
        "(no win-32 builds, seed 001); use -win64/-linux64"
    ]


def test_broken_yaml_is_one_line_from_the_cli(tree):
    path = edit(tree / "envs" / "gpu-win64-legacy-cuda9.yml", "name: gpuforge-gpu", "name: gpuforge-gpu: x")
    proc = run_cli("envs", "check", "envs/gpu-win64-legacy-cuda9.yml", cwd=tree)
    assert proc.returncode == 2  # bad input, not a finding
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr == (
        f"gpuforge: error: envs/gpu-win64-legacy-cuda9.yml:{line_of(path, 'name:')}: "
        "invalid YAML: "
        "mapping values are not allowed here\n"
    )


# The matrix moves, the env files stay: the check names the drift.
MATRIX_DRIFT = [
    (
        "  - 3.6\n",
        "",
        "gpu-win64-legacy-cuda9.yml",
        "python=3.6",
        "python 3.6.* is not in the recipes' matrix",
    ),
    (
        "  - 1.16  # python 3.6\n",
        "  - 1.20  # python 3.6\n",
        "cpu-win64.yml",
        "numpy>=",
        "excludes numpy 1.20, which pygpu for python 3.6 is built against",
    ),
    (
        "  - '>=8.0,<12'\n",
        "  - '>=8.0,<9.0'\n",
        "gpu-win64-legacy-cuda9.yml",
        "cudatoolkit=9.0",
        "admits 9.0, outside the recipes' win-64 range >=8.0,<9.0",
    ),
    (
        "  - '>=5.1,<8'",
        "  - '>=5.1,<7.5'",
        "gpu-linux64-legacy-cuda10.yml",
        "cudnn=7.6",
        "admits 7.6, outside the recipes' linux-64 range >=5.1,<7.5",
    ),
    ("  - 14  # [win]", "  - 15  # [win]", "cpu-win64.yml", "vc=14", "pin vc=15"),
]


@pytest.mark.parametrize("case", MATRIX_DRIFT, ids=lambda c: c[2] + ":" + c[3])
def test_env_pins_follow_the_recipes_matrix(tree, case):
    old, new, name, fragment, message = case
    config = edit(tree / "recipes" / "conda_build_config.yaml", old, new)
    if old == "  - 3.6\n":  # python and numpy are zipped: drop 3.6's numpy too
        edit(config, "  - 1.16  # python 3.6\n", "")
    path = tree / "envs" / name
    result = check_all(tree / "envs", tree / "recipes", [path])
    shown = [str(p) for p in result.problems]
    assert any(p.startswith(f"{path}:{line_of(path, fragment)}: ") and message in p for p in shown), shown


def test_escapes_probes_every_named_version():
    assert escapes("9.0.*", ">=8.0,<9.2") is None
    assert escapes(">=9.0", ">=8.0,<9.2") == "9.2"
    assert escapes("<10", ">=8.0,<9.2") == "0"
    assert escapes("9.*", ">=8.0,<9.2") == "9.2"
    assert escapes(">=9.1.5", ">=8.0,<9.2") == "9.2"


@pytest.mark.slow
def test_conda_runs_the_pip_section_in_the_env_files_folder(conda_tools, theano_python, tmp_path):
    """The real conda's installer for a `pip:` section (conda/env/installers/pip.py, what
    `conda env create -f` runs) on gpu-linux64-legacy-cuda10.yml's own pip entries, started from another
    folder: `../recipes/theano-gpu-config` resolves from the env file's folder, and the
    wheel puts the activation scripts in the prefix's etc/conda/activate.d."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    tree = tmp_path / "repo"  # pip builds in the project folder: not in this checkout
    shutil.copytree(ENVS, tree / "envs")
    shutil.copytree(RECIPES / "theano-gpu-config", tree / "recipes" / "theano-gpu-config")
    env = load_env(tree / "envs" / "gpu-linux64-legacy-cuda10.yml")
    specs = [d.text for d in env.pip_deps]
    assert specs == ["Theano==1.0.5", "../recipes/theano-gpu-config"]
    prefix = Path(theano_python).parent.parent  # a real prefix with python and Theano
    code = (
        "import json, sys; from types import SimpleNamespace; "
        "from conda.env.installers import pip; "
        "print(json.dumps(pip.install(sys.argv[1], json.loads(sys.argv[2]), "
        "SimpleNamespace(file=sys.argv[3]))))"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run(
        [str(conda_tools.python), "-c", code, str(prefix), json.dumps(specs), str(env.path)],
        cwd=elsewhere,
        env=conda_tools.env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "theano-gpu-config-0.1.0" in json.loads(proc.stdout.strip().splitlines()[-1])
    scripts = RECIPES / "theano-gpu-config" / "etc" / "conda"
    for change in ("activate", "deactivate"):
        for ext in ("sh", "bat"):
            name = f"{change}.d/theano-gpu-config_{change}.{ext}"
            assert (prefix / "etc" / "conda" / name).read_bytes() == (scripts / name).read_bytes()


def test_build_needs_without_a_record_are_named_and_a_record_clears_one(tmp_path):
    """What the CI's conda builds need from pkgs/main and pkgs/msys2 is checked against the
    records too: a need no record shows published is named (not proven), a recorded one is not."""
    result = check_all(ENVS, RECIPES)
    assert "vs2019_win-64" in result.build_needs["win-64"]
    assert "vc 14.*" not in result.build_needs["win-64"]  # vc 14 h0510ff6_3 (facts)
    assert "gcc_linux-64 7.3.0.*" not in result.build_needs["linux-64"]
    records = tmp_path / "records.yaml"
    records.write_text(
        locations.RECORDS.read_text().replace(
            "records:\n",
            "records:\n  - {name: vs2019_win-64, "
            "version: 19.29.30133, build: h7dcff83_7, subdir: win-64, channel: pkgs/main, "
            "evidence: facts}\n",
            1,
        )
    )
    assert "vs2019_win-64" not in check_all(ENVS, RECIPES, records_path=records).build_needs["win-64"]

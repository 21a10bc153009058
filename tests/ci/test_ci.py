"""CI: the matrix generated from the variant config, the workflow linted by the real linters,
and the ci/ scripts run for real up to their first step that needs conda."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cli_env, run_cli

from gpuforge.ci.workflow import RUNNERS, make_plan
from gpuforge.recipes.selectors import PLATFORMS
from gpuforge.recipes.variants import load_config

WORKFLOW = ROOT / ".github" / "workflows" / "build.yml"
CONFIG = ROOT / "recipes" / "conda_build_config.yaml"
SCRIPTS = sorted(ROOT.glob("ci/*.sh"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of what the CI files are generated from and run with."""
    dest = tmp_path / "repo"
    for part in ("recipes", "ci", ".github", "src"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed: `pip install -e .[ci-lint]` (or run `nox -s tests`)")
    return found


def run(*cmd: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=cli_env(**env))


def run_script(script: str, *args: str, root: Path = ROOT, **env: str) -> subprocess.CompletedProcess:
    """Run ci/<script> with bash, with this interpreter as the scripts' host Python."""
    if shutil.which("conda"):
        pytest.skip("conda is installed here: the scripts would go on to build (CI runs them there)")
    return run("bash", str(root / "ci" / script), *args, cwd=root, PYTHON=sys.executable, **env)


# --- the matrix comes from recipes/conda_build_config.yaml -------------------------------------


def test_committed_ci_files_match_the_variant_config():
    proc = run_cli("ci", "render", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "generated files match recipes/conda_build_config.yaml" in proc.stdout


@pytest.mark.parametrize("platform", PLATFORMS)
def test_matrix_is_the_python_numpy_zip_and_one_libgpuarray_build(platform):
    jobs = json.loads(run_cli("ci", "matrix", "--json").stdout)
    mine = [j for j in jobs if j["platform"] == platform]
    base = [j for j in mine if j["stage"] == "base"]
    assert [(j["name"], j["recipes"]) for j in base] == [(platform, ["libgpuarray"])]
    values = load_config(CONFIG, platform).values
    zipped = list(zip(values["python"], values["numpy"], strict=True))
    variants = [j for j in mine if j["stage"] == "variant"]
    assert [(j["pins"]["python"], j["pins"]["numpy"]) for j in variants] == zipped
    # theano-gpu-config is the same file for every Python: built by the first variant job only
    assert [j["recipes"] for j in variants] == [["pygpu", "theano", "theano-gpu-config"]] + [
        ["pygpu", "theano"]
    ] * (len(variants) - 1)
    assert all(j["runner"] == ("windows-2022" if platform == "win-64" else "ubuntu-24.04") for j in mine)


def test_each_job_config_reads_back_as_that_job_of_the_matrix():
    for job in make_plan(ROOT).jobs:
        path = ROOT / job.config_path
        narrowed = load_config(path, job.platform).values
        full = load_config(CONFIG, job.platform).values
        for key, values in full.items():
            assert narrowed[key] == ([job.pins[key]] if key in job.pins else values), (path, key)
        assert narrowed["target_platform"] == [job.platform]


def workflow_jobs(path: Path = WORKFLOW) -> dict:
    from gpuforge.yamlio import load_yaml

    return load_yaml(path.read_text(), path)["jobs"]


def needs(job: dict) -> list[str]:
    value = job.get("needs", [])
    return [value] if isinstance(value, str) else list(value)


def test_workflow_matrix_rows_name_every_job_config():
    jobs = workflow_jobs()
    named = {jobs[f"libgpuarray-{p}"]["env"]["VARIANT"] for p in PLATFORMS}
    for platform in PLATFORMS:
        rows = jobs[f"packages-{platform}"]["strategy"]["matrix"]["include"]
        assert all(row["variant"].startswith(f"{platform}_python") for row in rows)
        named |= {row["variant"] for row in rows}
    assert named == {p.stem for p in (ROOT / "ci" / "variants").glob("*.yaml")}
    assert len(named) == 14


def test_each_platform_is_its_own_chain_of_jobs():
    jobs = workflow_jobs()
    for platform in PLATFORMS:
        chain = [f"libgpuarray-{platform}", f"packages-{platform}", f"smoke-{platform}"]
        assert [needs(jobs[name]) for name in chain] == [[], chain[:1], chain[1:2]]
        assert {jobs[name]["runs-on"] for name in chain} == {RUNNERS[platform]}
    # no job but publish waits on another platform's job, even through its needs
    for name, job in jobs.items():
        if name in ("lint", "publish"):
            continue
        platform = next(p for p in PLATFORMS if name.endswith(f"-{p}"))
        ancestors, todo = set(), needs(job)
        while todo:
            parent = todo.pop()
            ancestors.add(parent)
            todo += needs(jobs[parent])
        assert all(a.endswith(f"-{platform}") for a in ancestors), (name, ancestors)
    assert sorted(needs(jobs["publish"])) == [
        "packages-linux-64",
        "packages-win-64",
        "smoke-linux-64",
        "smoke-win-64",
    ]
    # a failed build does not skip its platform's smoke (as published, locks); publish needs every build
    assert all(jobs[f"smoke-{p}"]["if"] == "${{ !cancelled() }}" for p in PLATFORMS)
    assert "if" not in jobs["packages-linux-64"] and jobs["publish"]["if"].startswith("startsWith(")


def test_windows_builds_load_msvc_and_linux_builds_do_not():
    jobs = workflow_jobs()
    for platform in PLATFORMS:
        for name in (f"libgpuarray-{platform}", f"packages-{platform}"):
            runs = [step.get("run", "") for step in jobs[name]["steps"]]
            build = runs.index('ci/build.sh "$VARIANT"')
            if platform == "win-64":
                assert runs.index("ci/msvc.sh") < build, name
            else:
                assert "ci/msvc.sh" not in runs, name


def test_every_tool_the_workflow_installs_has_an_exact_version_and_its_source():
    text = WORKFLOW.read_text()
    from gpuforge.yamlio import load_yaml

    env = load_yaml(text, WORKFLOW)["env"]
    assert sorted(env) == [
        "CONDA_BUILD_VERSION",
        "CONDA_SMITHY_VERSION",
        "HOST_PYTHON",
        "MINIFORGE_VERSION",
        "NOX_VERSION",
    ]
    lines = text.splitlines()
    for key, value in env.items():
        assert re.fullmatch(r"\d+(\.\d+)+(-\d+)?", value), (key, value)
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  {key}:"))
        assert lines[at - 1].strip().startswith("#"), f"{key}: no comment saying where the version is from"
        comment = []
        for line in reversed(lines[:at]):
            if not line.strip().startswith("#") or line.strip() == "#":
                break
            comment.insert(0, line.strip("# "))
        assert re.search(r"checked 20\d\d-\d\d-\d\d", " ".join(comment)), f"{key}: evidence has no date"
        assert value in " ".join(comment), f"{key}: the evidence does not name {value}"
    for action, sha, tag in set(re.findall(r"uses: ([\w./-]+)@([0-9a-f]{40}) # (v[\d.]+)", text)):
        assert f"#   {action} {sha} = {tag} (" in text, f"{action}@{sha}: no evidence that it is {tag}"
    assert "checked 2026-11-24" in text.split("name: build")[0]
    for job in workflow_jobs().values():
        for step in job["steps"]:
            inputs = step.get("with", {})
            for key in ("python-version", "miniforge-version", "conda-build-version"):
                assert inputs.get(key, "${{ env.").startswith("${{ env."), (key, inputs[key])
            assert "conda install" not in step.get("run", "")  # only through ci/*.sh's channel_retry
            if "pip install" in step.get("run", ""):
                packages = step["run"].split("pip install", 1)[1].split()
                assert [p for p in packages if not p.startswith("-")] == [".", '"nox==$NOX_VERSION"']


def test_conda_installs_go_through_channel_retry():
    """Every conda command that fetches from a channel in ci/*.sh is retried (channel_retry)."""
    for script in SCRIPTS:
        bare = re.findall(
            r"^\s*(?:if !\s+)?conda (?:install|build(?! --version)|create|env create)\b.*$",
            script.read_text(),
            re.M,
        )
        assert bare == [], f"{script.name}: conda fetching without channel_retry"
    assert "channel_retry conda build" in (ROOT / "ci" / "build.sh").read_text()
    assert "channel_retry conda env create" in (ROOT / "ci" / "smoke.sh").read_text()
    assert (
        'channel_retry conda install -n base --yes "conda-smithy==$CONDA_SMITHY_VERSION"'
        in (ROOT / "ci" / "lint.sh").read_text()
    )


def test_a_changed_config_is_drift_until_rerendered(repo):
    config = repo / "recipes" / "conda_build_config.yaml"
    text = config.read_text()
    text = text.replace("  - 3.11\n", "").replace("  - 1.23  # python 3.11: first numpy built for 3.11\n", "")
    text = text.replace("  - 1.21  # python 3.10", "  - 1.22  # python 3.10")
    config.write_text(text)
    before = (repo / ".github/workflows/build.yml").read_text()

    check = run_cli("ci", "render", "--check", "--root", str(repo))
    assert check.returncode == 1
    for line in (
        ".github/workflows/build.yml: out of date",
        "ci/variants/linux-64_python3.11_numpy1.23.yaml: stale",
        "ci/variants/win-64_python3.10_numpy1.21.yaml: stale",
        "ci/variants/win-64_python3.10_numpy1.22.yaml: missing",
        "ci/variants/linux-64.yaml: out of date",
    ):  # its numpy list changed too
        assert line in check.stdout
    assert "run `gpuforge ci render`" in check.stdout
    assert (repo / ".github/workflows/build.yml").read_text() == before  # --check writes nothing

    rendered = run_cli("ci", "render", "--root", str(repo))
    assert rendered.returncode == 0, rendered.stderr
    assert "removed ci/variants/linux-64_python3.11_numpy1.23.yaml" in rendered.stdout
    assert (repo / ".github/workflows/build.yml.bak").read_text() == before
    workflow = (repo / ".github/workflows/build.yml").read_text()
    assert len(re.findall(r'variant: "[^"]+_python', workflow)) == 10
    assert 'variant: "win-64_python3.10_numpy1.22"' in workflow
    assert run_cli("ci", "render", "--check", "--root", str(repo)).returncode == 0
    actionlint = run(tool("actionlint"), str(repo / ".github/workflows/build.yml"))
    assert actionlint.returncode == 0, actionlint.stdout


def test_a_hand_edited_job_config_is_drift(repo):
    path = repo / "ci/variants/linux-64_python3.8_numpy1.17.yaml"
    path.write_text(path.read_text().replace('"1.17"', '"1.18"'))
    check = run_cli("ci", "render", "--check", "--root", str(repo))
    assert check.returncode == 1
    assert check.stdout.splitlines()[0] == "ci/variants/linux-64_python3.8_numpy1.17.yaml: out of date"


def test_workflow_without_its_end_marker_is_one_located_error(repo):
    workflow = repo / ".github/workflows/build.yml"
    lines = workflow.read_text().splitlines(keepends=True)
    end = next(i for i, ln in enumerate(lines) if "# end generated: variants:win-64" in ln)
    begin = next(i for i, ln in enumerate(lines) if "render`: variants:win-64" in ln)
    workflow.write_text("".join(lines[:end] + lines[end + 1 :]))
    proc = run_cli("ci", "render", "--root", str(repo))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"gpuforge: error: {workflow}:{begin + 1}: generated block 'variants:win-64' "
        "has no `# end generated: variants:win-64` line\n"
    )
    assert not (repo / ".github/workflows/build.yml.bak").exists()


def test_broken_variant_config_is_one_located_error_and_nothing_written(repo):
    config = repo / "recipes" / "conda_build_config.yaml"
    config.write_text(config.read_text().replace("numpy:\n", "numpy: [\n", 1))
    variants = {p.name: p.read_text() for p in (repo / "ci/variants").glob("*")}
    proc = run_cli("ci", "render", "--root", str(repo))
    assert proc.returncode == 2
    assert re.fullmatch(rf"gpuforge: error: {re.escape(str(config))}:\d+: invalid YAML: .*\n", proc.stderr)
    assert {p.name: p.read_text() for p in (repo / "ci/variants").glob("*")} == variants


def test_a_recipe_needing_theano_builds_per_variant_and_a_python_free_one_once(repo):
    for name, run_dep in (("theano-plugin", "theano"), ("gpuarray-headers", "libgpuarray")):
        (repo / "recipes" / name).mkdir()
        (repo / "recipes" / name / "meta.yaml").write_text(
            f"package:\n  name: {name}\n  version: 1.0\n\nbuild:\n  number: 0\n\n"
            f"requirements:\n  run:\n    - {run_dep}\n"
        )
    plan = make_plan(repo)
    linux = [j for j in plan.jobs if j.platform == "linux-64"]
    assert [r.name for r in linux[0].recipes] == ["libgpuarray", "gpuarray-headers"]
    assert [r.name for r in linux[1].recipes] == ["pygpu", "theano", "theano-gpu-config", "theano-plugin"]


def test_build_args_name_the_job_config_and_only_local_or_https_channels():
    proc = run_cli(
        "ci",
        "build-args",
        "win-64_python3.6_numpy1.16",
        "--channel",
        "channel",
        "--output",
        "build/conda-out",
    )
    assert proc.returncode == 0, proc.stderr
    args = proc.stdout.splitlines()
    assert args[:5] == [
        "recipes/pygpu",
        "recipes/theano",
        "recipes/theano-gpu-config",
        "-m",
        "ci/variants/win-64_python3.6_numpy1.16.yaml",
    ]
    channels = [args[i + 1] for i, a in enumerate(args) if a == "-c"]
    assert channels == [
        (ROOT / "build/conda-out").as_uri(),
        (ROOT / "channel").as_uri(),
        "https://repo.anaconda.com/pkgs/main",
        "https://repo.anaconda.com/pkgs/msys2",
    ]
    assert "--override-channels" in args and "--no-anaconda-upload" in args
    assert args[args.index("--output-folder") + 1] == str(ROOT / "build/conda-out")
    base = run_cli("ci", "build-args", "linux-64").stdout.splitlines()  # nothing to read locally
    assert [base[i + 1] for i, a in enumerate(base) if a == "-c"] == [
        (ROOT / "build/conda-out").as_uri(),
        "https://repo.anaconda.com/pkgs/main",
    ]


# --- environment files against the local channel -------------------------------------------------

ENV = """\
# The headline environment (a test copy).
name: gpu-linux64
channels:
  - https://repo.anaconda.com/pkgs/main  # Anaconda's main channel
  - conda-forge
dependencies:
  - python 3.7.*
  - theano 1.0.5
"""


def test_env_file_puts_the_local_channel_first_and_keeps_the_rest(tmp_path):
    env, channel, out = tmp_path / "gpu-linux64.yml", tmp_path / "channel", tmp_path / "out" / "gpu.yml"
    env.write_text(ENV)
    channel.mkdir()
    for _ in range(2):  # twice: the channel is not added again
        proc = run_cli("ci", "env-file", str(env), "--channel", str(channel), "--output", str(out))
        assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "# Anaconda's main channel" in text
    from gpuforge.yamlio import load_yaml

    doc = load_yaml(text, out)
    assert list(doc["channels"]) == [
        channel.resolve().as_uri(),
        "https://repo.anaconda.com/pkgs/main",
        "conda-forge",
        "nodefaults",
    ]
    assert list(doc["dependencies"]) == ["python 3.7.*", f"{channel.resolve().as_uri()}::theano 1.0.5"]


def test_broken_env_file_is_one_located_error_and_nothing_written(tmp_path):
    env, channel, out = tmp_path / "gpu-linux64.yml", tmp_path / "channel", tmp_path / "gpu.yml"
    env.write_text(ENV.replace("  - conda-forge\n", "  - conda-forge\n  - [\n"))
    channel.mkdir()
    proc = run_cli("ci", "env-file", str(env), "--channel", str(channel), "--output", str(out))
    assert proc.returncode == 2
    assert re.fullmatch(rf"gpuforge: error: {re.escape(str(env))}:\d+: invalid YAML: .*\n", proc.stderr)
    assert not out.exists()
    env.write_text(ENV.replace("channels:\n", "channels: conda-forge\nx:\n"))
    proc = run_cli("ci", "env-file", str(env), "--channel", str(channel), "--output", str(out))
    assert proc.stderr == f"gpuforge: error: {env}:3: channels: expected a list of channel names or URLs\n"


# --- the real linters ----------------------------------------------------------------------------


def test_workflow_passes_actionlint_zizmor_and_the_workflow_schema():
    for cmd in (
        [tool("actionlint"), str(WORKFLOW)],
        [tool("zizmor"), "--offline", str(WORKFLOW.parent)],
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
    ):
        proc = run(*cmd)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ci_scripts_pass_shellcheck():
    proc = run(tool("shellcheck"), "-x", *map(str, SCRIPTS))
    assert proc.returncode == 0, proc.stdout


@pytest.mark.parametrize(
    ("linter", "change", "finding"),
    [
        (
            "zizmor",
            (
                "uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
                "uses: actions/checkout@v7",
            ),
            "unpinned-uses",
        ),
        ("zizmor", ("permissions:\n  contents: read", "permissions: write-all"), "excessive-permissions"),
        (
            "zizmor",
            ('ci/index-channel.sh "$PLATFORM"', 'ci/index-channel.sh "${{ github.head_ref }}"'),
            "template-injection",
        ),
        (
            "actionlint",
            ('run: ci/build.sh "$VARIANT"', 'run: echo "${{ github.event.pull_request.title }}"'),
            "potentially untrusted",
        ),
        ("actionlint", ("needs: libgpuarray", "needs: libgpuarry"), "libgpuarry"),
        ("check-jsonschema", ("timeout-minutes: 90", "timeout-minutes: [90]"), "timeout-minutes"),
    ],
)
def test_linters_catch_a_broken_copy_of_the_workflow(tmp_path, linter, change, finding):
    workflow = tmp_path / ".github" / "workflows" / "build.yml"
    workflow.parent.mkdir(parents=True)
    old, new = change
    assert old in WORKFLOW.read_text()
    workflow.write_text(WORKFLOW.read_text().replace(old, new, 1))
    args = {
        "zizmor": ["--offline", str(workflow.parent)],
        "check-jsonschema": ["--builtin-schema", "vendor.github-workflows", str(workflow)],
    }
    proc = run(tool(linter), *args.get(linter, [str(workflow)]))
    assert proc.returncode != 0
    assert finding in proc.stdout + proc.stderr


# --- ci/*.sh, run for real up to the first step that needs conda -------------------------------


def test_build_runs_up_to_conda_and_says_how_to_get_it():
    proc = run_script("build.sh", "linux-64_python3.7_numpy1.16")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    steps = re.findall(r"^==> \[\d\] (.*)$", proc.stdout, re.M)
    assert steps == [
        "generated CI files match recipes/conda_build_config.yaml",
        "conda build arguments for linux-64_python3.7_numpy1.16",
        "host is linux-64",
        "conda and conda-build",
    ]
    assert (
        "conda build recipes/pygpu recipes/theano "
        "-m ci/variants/linux-64_python3.7_numpy1.16.yaml" in proc.stdout
    )
    assert proc.stderr.splitlines() == [
        "build.sh: error: conda is not installed: conda build needs it. Install Miniforge "
        "(https://github.com/conda-forge/miniforge), then `conda install -n base conda-build`, and run "
        f"{ROOT / 'ci/build.sh'} again (in CI, conda-incubator/setup-miniconda does this)."
    ]


def test_build_refuses_an_unknown_job_and_another_platform():
    unknown = run_script("build.sh", "linux-64_python2.7")
    assert unknown.returncode == 2
    assert "no CI job 'linux-64_python2.7'" in unknown.stderr
    other = "win-64" if sys.platform.startswith("linux") else "linux-64"
    proc = run_script("build.sh", other)
    assert proc.returncode == 2
    assert f"job {other} builds for {other}, this machine is" in proc.stderr


def test_build_stops_before_conda_when_the_matrix_drifted(repo):
    config = repo / "recipes" / "conda_build_config.yaml"
    config.write_text(config.read_text().replace("  - 3.11\n", "  - 3.12\n"))
    proc = run_script("build.sh", "linux-64", root=repo)
    assert proc.returncode == 1
    assert "ci/variants/ or the workflow drifted: run `gpuforge ci render` and commit" in proc.stderr


def test_smoke_lists_the_platforms_env_files_then_stops_at_conda(repo):
    (repo / "envs").mkdir()
    (repo / "envs" / "gpu-linux64.yml").write_text(ENV)
    (repo / "envs" / "gpu-linux64-blackwell.yml").write_text(ENV)
    (repo / "envs" / "gpu-win64.yml").write_text(ENV.replace("linux64", "win64"))
    (repo / "envs" / "gpu-win64-blackwell.yml").write_text(ENV.replace("linux64", "win64"))
    (repo / "channel").mkdir()
    proc = run_script("smoke.sh", "linux-64", root=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "    envs/gpu-linux64-blackwell.yml\n    envs/gpu-linux64.yml\n" in proc.stdout
    assert "gpu-win64" not in proc.stdout
    assert "creating the environments needs it" in proc.stderr


def test_smoke_without_env_files_or_channel_says_so(repo):
    proc = run_script("smoke.sh", "win-64", root=repo)
    assert proc.returncode == 2
    assert "no environment files for win-64 (envs/*-win64[-<variant>].yml)" in proc.stderr
    (repo / "envs").mkdir()
    (repo / "envs" / "cpu-win64.yml").write_text(ENV)
    proc = run_script("smoke.sh", "win-64", "channel", root=repo)  # the local channel pass
    assert proc.returncode == 2
    assert "no such channel folder: build the packages first" in proc.stderr
    proc = run_script("smoke.sh", "win-64", root=repo)  # as published: conda is all it needs
    assert proc.returncode == 3
    assert "conda is not installed: creating the environments needs it" in proc.stderr


def test_index_channel_lists_the_packages_then_stops_at_conda(repo):
    proc = run_script("index-channel.sh", "linux-64", root=repo)
    assert proc.returncode == 2
    assert "no packages in channel/linux-64 or channel/noarch" in proc.stderr
    (repo / "channel" / "linux-64").mkdir(parents=True)
    # The script only lists the files before conda indexes them: a name is all it reads.
    (repo / "channel" / "linux-64" / "libgpuarray-0.7.6-h0_0.conda").write_bytes(b"")
    proc = run_script("index-channel.sh", "linux-64", root=repo)
    assert proc.returncode == 3
    assert "channel/linux-64/libgpuarray-0.7.6-h0_0.conda" in proc.stdout
    assert "conda is not installed: indexing the channel needs it" in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checks the non-Windows branch")
def test_msvc_has_nothing_to_do_off_windows():
    proc = run_script("msvc.sh")
    assert proc.returncode == 0
    assert "msvc: nothing to do on linux-64" in proc.stdout


WINE = Path("/usr/lib/wine/wine64")


@pytest.mark.skipif(
    not WINE.exists(),
    reason="Wine's cmd is not installed: `apt-get install -y "
    "--no-install-recommends wine64` (ci/apt-packages.txt lists it), then run again",
)
def test_msvc_hands_on_what_a_vcvars_script_changed_in_real_cmd_set_output(tmp_path):
    # A batch file doing what vcvarsall.bat does to the environment (a banner, PATH entries in
    # front, new variables, its own __VSCMD_ bookkeeping), run by Wine's cmd around `set`.
    vcvars = tmp_path / "vcvars.bat"
    vcvars.write_text(
        "@echo ** Visual Studio 2022 Developer Command Prompt\r\n"
        "@echo [vcvarsall.bat] Environment initialized for: 'x64'\r\n"
        '@set "__VSCMD_PREINIT_PATH=%PATH%"\r\n'
        '@set "PATH=C:\\VS\\bin\\HostX64\\x64;C:\\Kits\\bin;%PATH%"\r\n'
        '@set "INCLUDE=C:\\VS\\include;C:\\Kits\\ucrt"\r\n'
        '@set "VCToolsVersion=14.29.30133"\r\n@set\r\n'
    )
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(tmp_path / "wineprefix"))
    for name, command in (("before", "set"), ("after", "Z:" + str(vcvars).replace("/", "\\"))):
        proc = subprocess.run(
            [str(WINE), "cmd", "/d", "/c", command], capture_output=True, env=env, timeout=300
        )
        assert proc.returncode == 0, proc.stderr
        assert b"\r\n" in proc.stdout  # cmd's own line ends, as on Windows
        (tmp_path / f"{name}.txt").write_bytes(proc.stdout)
    script = 'source ci/common.sh; msvc_env_changes "$1/before.txt" "$1/after.txt" "$1/env.txt" "$1/path.txt"'
    proc = run("bash", "-c", script, "bash", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "path.txt").read_text().splitlines() == ["C:\\VS\\bin\\HostX64\\x64", "C:\\Kits\\bin"]
    assert sorted((tmp_path / "env.txt").read_text().splitlines()) == [
        "INCLUDE=C:\\VS\\include;C:\\Kits\\ucrt",
        "VCToolsVersion=14.29.30133",
    ]


def test_publish_needs_a_tag_and_a_token_and_never_prints_it(repo):
    assert run_script("publish.sh", "channel", root=repo).returncode == 2
    proc = run_script(
        "publish.sh", "channel", root=repo, GITHUB_REF="refs/tags/v1.0.0", ANACONDA_API_TOKEN=""
    )
    assert proc.returncode == 2
    assert "ANACONDA_API_TOKEN is not set" in proc.stderr
    token = "tok-" + os.urandom(8).hex()
    proc = run_script(
        "publish.sh", "channel", root=repo, GITHUB_REF="refs/tags/v1.0.0", ANACONDA_API_TOKEN=token
    )
    assert proc.returncode == 2
    assert "no packages in channel/*/" in proc.stderr
    assert token not in proc.stdout + proc.stderr

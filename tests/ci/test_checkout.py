"""A Windows runner's checkout: Git for Windows has core.autocrlf=true and actions/checkout
keeps it. A clone made that way must pass the CI's own first checks (`gpuforge ci render
--check`, `bash -n` and shellcheck on the scripts, ci/build.sh up to conda); the same clone
without .gitattributes must not (the control: it shows autocrlf really rewrote the files)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

GIT = shutil.which("git")
SHELLCHECK = shutil.which("shellcheck") or shutil.which("shellcheck", path=str(Path(sys.executable).parent))


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="ci",
        GIT_AUTHOR_EMAIL="ci@localhost",
        GIT_COMMITTER_NAME="ci",
        GIT_COMMITTER_EMAIL="ci@localhost",
    )
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env, check=True
    )


def tree_files() -> list[str]:
    """What a commit of this working tree holds: tracked and untracked-but-not-ignored files."""
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: the test commits its working tree and clones it")
    out = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).stdout
    return sorted({name for name in out.split("\0") if name and (ROOT / name).is_file()})


def crlf_clone(tmp_path: Path, attributes: bool) -> Path:
    """This working tree committed to a scratch repository, cloned with core.autocrlf=true."""
    src, clone = tmp_path / "src", tmp_path / "clone"
    for name in tree_files():
        if name == ".gitattributes" and not attributes:
            continue
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    git("init", "-q", cwd=src)
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "snapshot", cwd=src)
    git("-c", "core.autocrlf=true", "clone", "-q", str(src), str(clone), cwd=tmp_path)
    return clone


def run(*cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(cwd / "src"), PYTHON=sys.executable)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.skipif(GIT is None, reason="git is not installed: `apt-get install -y git`, then run again")
@pytest.mark.skipif(
    SHELLCHECK is None,
    reason="shellcheck is not installed: `pip install -e .[ci-lint]` (or run `nox -s tests`)",
)
@pytest.mark.parametrize("attributes", [True, False], ids=["with-gitattributes", "control-without"])
def test_a_core_autocrlf_clone_passes_the_ci_checks(tmp_path, attributes):
    clone = crlf_clone(tmp_path, attributes)
    ci_scripts = sorted(str(p.relative_to(clone)) for p in clone.glob("ci/*.sh"))
    recipe_scripts = sorted(str(p.relative_to(clone)) for p in clone.glob("recipes/*/*.sh"))
    render = run(sys.executable, "-m", "gpuforge", "ci", "render", "--check", cwd=clone)
    syntax = [run("bash", "-n", script, cwd=clone) for script in ci_scripts + recipe_scripts]
    # What `nox -s lint` runs (ci/lint.sh): shellcheck on the recipes' scripts, -x on ci/*.sh.
    lint = [run(SHELLCHECK, *recipe_scripts, cwd=clone), run(SHELLCHECK, "-x", *ci_scripts, cwd=clone)]
    bat = (clone / "recipes/theano/bld.bat").read_bytes()
    assert bat.count(b"\n") == bat.count(b"\r\n")  # batch files CRLF either way
    if not attributes:  # the control: autocrlf rewrote every script, and the checks say so
        assert b"\r\n" in (clone / "ci/build.sh").read_bytes()
        assert render.returncode == 1
        assert "ci/build.sh: CRLF line endings: bash reads the CR as part of each command" in render.stdout
        assert all(proc.returncode != 0 for proc in lint)
        assert "SC1017" in lint[1].stdout  # shellcheck: literal carriage return
        return
    assert all(b"\r" not in (clone / name).read_bytes() for name in ci_scripts + recipe_scripts)
    assert render.returncode == 0, render.stdout + render.stderr
    assert render.stdout == "ci: generated files match recipes/conda_build_config.yaml\n"
    assert [(p.args, p.returncode, p.stderr) for p in syntax if p.returncode] == []
    assert [(p.returncode, p.stdout) for p in lint] == [(0, ""), (0, "")]
    if shutil.which("conda") is None:  # ci/build.sh's own steps, up to the first that needs conda
        build = run("bash", "ci/build.sh", "linux-64_python3.7_numpy1.16", cwd=clone)
        assert build.returncode == 3, build.stdout + build.stderr
        assert "==> [4] conda and conda-build" in build.stdout


def test_render_check_ignores_crlf_in_generated_files_but_not_a_changed_line(tmp_path):
    """Either way: a CRLF copy of a generated file is not drift; a changed line still is."""
    repo = tmp_path / "repo"
    for part in ("recipes", "ci", ".github", "src"):
        shutil.copytree(ROOT / part, repo / part, ignore=shutil.ignore_patterns("__pycache__"))
    variant = repo / "ci/variants/linux-64.yaml"
    workflow = repo / ".github/workflows/build.yml"
    for path in (variant, workflow):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert run(sys.executable, "-m", "gpuforge", "ci", "render", "--check", cwd=repo).returncode == 0
    variant.write_bytes(variant.read_bytes().replace(b'"7.3.0"', b'"7.5.0"', 1))
    proc = run(sys.executable, "-m", "gpuforge", "ci", "render", "--check", cwd=repo)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "ci/variants/linux-64.yaml: out of date"

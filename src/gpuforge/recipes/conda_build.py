"""Build recipes with the real conda-build, install what it built with py-rattler, run its tests.

Offline is a first-class mode: the channels are probed first (a short HTTPS request each), and
a step that needs packages from an unreachable channel is not started; it says what it could
not do instead. A recipe with nothing to solve for its build (no build/host requirements) is
built with no channel; one whose run requirements are all in the output channel is installed
into a fresh prefix by py-rattler and its packaged test (info/test/run_test.sh) run there.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import rattler
from rattler.exceptions import SolverError
from rattler.package_streaming import extract

from gpuforge import processes
from gpuforge.channels import INFRA_STATUSES, ChannelFailure
from gpuforge.errors import GpuforgeError
from gpuforge.recipes.conda_tools import CondaTools
from gpuforge.recipes.render import find_recipes, render_variants
from gpuforge.recipes.variants import load_config

BUILD_TIMEOUT_S = 3 * 3600  # one `conda build` of one recipe (libgpuarray: minutes)

HOST_SUBDIR = "win-64" if sys.platform == "win32" else "linux-64"
PROBE_TIMEOUT_S = 10


@dataclass
class Outcome:
    """What happened to one recipe; ``notes`` say what could not be done, and why."""

    recipe: str
    packages: list[Path] = field(default_factory=list)
    tested: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False


def unreachable(channels: list[str], subdir: str = "noarch") -> dict[str, str]:
    """The channels whose repodata cannot be fetched now, with the reason (noarch: every channel
    has it, while pkgs/msys2, for one, has no linux-64)."""
    out = {}
    for channel in channels:
        url = f"{channel.rstrip('/')}/{subdir}/repodata.json"
        request = urllib.request.Request(url, method="HEAD")
        try:
            urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S).close()  # noqa: S310 - https
        except urllib.error.HTTPError as exc:  # the server answered: say which status
            failure = ChannelFailure(urllib.parse.urlparse(url).netloc, exc.code, url)
            out[channel] = (f"infrastructure failure, not a package problem: {failure}"
                            if exc.code in INFRA_STATUSES else f"HTTP {exc.code} {exc.reason}")
        except (urllib.error.URLError, OSError) as exc:
            out[channel] = str(getattr(exc, "reason", exc))
    return out


def _empty_channel(folder: Path) -> None:
    """An indexed (empty) local channel, so conda-build and py-rattler can read it before a build."""
    for subdir in (HOST_SUBDIR, "noarch"):
        repodata = folder / subdir / "repodata.json"
        if not repodata.exists():
            repodata.parent.mkdir(parents=True, exist_ok=True)
            repodata.write_text(json.dumps({"info": {"subdir": subdir}, "packages": {},
                                            "packages.conda": {}}))


def _built_packages(output: Path) -> set[Path]:
    return {p for subdir in (HOST_SUBDIR, "noarch") for pattern in ("*.conda", "*.tar.bz2")
            for p in (output / subdir).glob(pattern)}


def install_and_test(package: Path, output: Path, prefix: Path, say: Callable[[str], None],
                     channels: list[str] | None = None) -> None:
    """Install ``package`` (in the channel ``output``, its run requirements from there and
    ``channels``) into ``prefix`` with py-rattler, then run the test the package carries
    (info/test/run_test.sh, written by conda-build) in that prefix."""
    index = json.loads(_package_info(package, "index.json"))
    spec = f"{index['name']} =={index['version']} {index['build']}"
    sources = [rattler.Channel(output.resolve().as_uri()), *(rattler.Channel(c) for c in channels or [])]
    records = asyncio.run(rattler.solve(sources, [spec], platforms=[rattler.Platform(HOST_SUBDIR), rattler.Platform("noarch")],
                                        virtual_packages=rattler.VirtualPackage.detect()))
    asyncio.run(rattler.install(records, prefix, show_progress=False))
    say(f"  installed {', '.join(str(r.file_name) for r in records)} into {prefix} (py-rattler)")
    with tempfile.TemporaryDirectory(prefix="gpuforge-test-") as tmp:
        extract(package, Path(tmp))
        test_dir = Path(tmp) / "info" / "test"
        script = test_dir / "run_test.sh"
        if not script.is_file():
            say(f"  {package.name} carries no test commands")
            return
        env = {**os.environ, "PREFIX": str(prefix), "CONDA_PREFIX": str(prefix),
               "PATH": os.pathsep.join([str(prefix / "bin"), os.environ.get("PATH", "")])}
        proc = processes.run(
            ["bash", "-e", str(script)], cwd=test_dir, env=env, capture_output=True, text=True, timeout=600
        )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise GpuforgeError(f"{package.name}: its test failed in {prefix}: {tail[0]}")
    say(f"  {package.name}: its test section passed in {prefix}")


def _package_info(package: Path, name: str) -> str:
    with tempfile.TemporaryDirectory(prefix="gpuforge-info-") as tmp:
        extract(package, Path(tmp))
        return (Path(tmp) / "info" / name).read_text(encoding="utf-8")


def build(recipes_dir: Path, names: list[str] | None, output: Path, tools: CondaTools,
          channels: list[str], say: Callable[[str], None] = print, test_prefixes: Path | None = None,
          extra_args: list[str] | None = None, config_path: Path | None = None) -> list[Outcome]:
    """Build each recipe with the real `conda build` into the channel ``output``, as far as the
    reachable channels allow; install and test what it can in prefixes under ``test_prefixes``."""
    recipes_dir, output = Path(recipes_dir), Path(output).resolve()
    config_path = config_path or recipes_dir / "conda_build_config.yaml"
    config = load_config(config_path, HOST_SUBDIR)
    down = unreachable(channels)
    for channel, reason in down.items():
        say(f"channel {channel}: unreachable ({reason})")
    usable = [c for c in channels if c not in down]
    _empty_channel(output)
    outcomes = []
    for recipe in find_recipes(recipes_dir, names):
        outcome = Outcome(recipe.name)
        outcomes.append(outcome)
        renders = render_variants(recipe, config)
        needs = sorted({spec.split()[0] for r in renders for section in ("build", "host")
                        for spec in r.requirements.get(section, [])})
        built_here = {o.recipe for o in outcomes if o.packages}
        missing = [n for n in needs if n not in built_here]
        if missing and not usable:
            outcome.notes.append(f"not built: its build/host environments need {', '.join(missing)} "
                                 "from a channel, and none is reachable")
            continue
        run = sorted({spec.split()[0] for r in renders for spec in r.run_as_built()} - built_here)
        args = [str(tools.build), str(recipe.path), "-m", str(config_path), "--output-folder",
                str(output), "--override-channels", "-c", output.as_uri(),
                *(a for c in usable for a in ("-c", c)), *(extra_args or [])]
        if run and not usable:
            args.append("--no-test")
            outcome.notes.append(f"not tested by conda-build: its test environment needs "
                                 f"{', '.join(run)} from a channel, and none is reachable")
        say(f"==> conda build {recipe.name}")
        before = _built_packages(output)
        with tempfile.TemporaryDirectory(prefix="gpuforge-conda-build-") as work:
            proc = processes.run(
                args,
                env=tools.env(Path(work)),
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT_S,
                progress=lambda s: say(f"  conda build {recipe.name}: still running ({s / 60:.0f} min)"),
                progress_every=60,
            )
        log = output / f"{recipe.name}.build.log"
        log.write_text(proc.stdout + proc.stderr, encoding="utf-8")
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            outcome.failed = True
            outcome.notes.append(f"conda build failed (exit {proc.returncode}; log: {log}): {last}")
            continue
        outcome.packages = sorted(_built_packages(output) - before)
        say(f"  built {', '.join(p.name for p in outcome.packages)} (log: {log})")
        if test_prefixes is None:
            continue
        for package in outcome.packages:
            if run and not usable:
                outcome.notes.append(f"{package.name}: not installed by py-rattler: it needs "
                                     f"{', '.join(run)} from a channel, and none is reachable")
                continue
            try:
                install_and_test(package, output, test_prefixes / package.name.split(".")[0], say,
                                 usable)
                outcome.tested.append(package.name)
            except (GpuforgeError, SolverError) as exc:
                outcome.failed = True
                outcome.notes.append(str(exc))
    return outcomes

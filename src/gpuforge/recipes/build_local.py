"""Run a recipe's own build.sh and test section for real, without conda.

conda-build's contract, reproduced on a plain Linux machine:
- PREFIX is a scratch environment: a venv of the interpreter given with
  ``--python`` (so ``$PYTHON -m pip install .`` lands in it);
- the recipe is rendered for the variant whose python matches that
  interpreter; its host and run requirements that exist on PyPI are
  installed with pip under the rendered version ranges, the build tools and
  compilers must be on PATH (cmake at the version the recipe asks for: the
  one on PATH if it matches, else PyPI's cmake in the prefix), and libgpuarray/pygpu come from earlier
  build-local runs into the same ``--prefix``; conda-only packages (MKL's
  service module, the Windows toolchain, CUDA) are listed as not installed;
- build.sh runs in the unpacked source with conda-build's variables
  (PREFIX, SRC_DIR, RECIPE_DIR, PYTHON, PY_VER, NPY_VER, CPU_COUNT,
  PKG_NAME, PKG_VERSION, PKG_BUILDNUM, SHLIB_EXT, SP_DIR ...);
- then the recipe's test section: its files copied to a test folder, each
  import, each command.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rattler import Version, VersionSpec

from gpuforge import processes
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import write_atomic
from gpuforge.recipes.render import Rendered, find_recipes, render_variants
from gpuforge.downloads import Source, fetch, unpack
from gpuforge.recipes.patches import apply_patches
from gpuforge.recipes.variants import load_config
from gpuforge.interpreters import Interpreter
from gpuforge.fileio import remove_tree

STEP_TIMEOUT_S = 3600  # one step of a build (a pip install, cmake, the build script); past an hour it hangs
PLATFORM = "linux-64"
# conda names that are the same project on PyPI.
PYPI_NAMES = {"numpy", "scipy", "six", "cython", "mako", "setuptools", "pip", "nose", "wheel"}
# conda packages this machine provides as programs on PATH.
HOST_TOOLS = {"cmake": "cmake", "make": "make", "gcc_linux-64": "gcc", "gxx_linux-64": "g++"}
# Build tools whose version spec build-local honours: the one on PATH when its version
# matches, else the same-named PyPI project (Kitware's cmake wheels) installed into the prefix.
# The compilers stay stand-ins: gcc 7.3.0 is conda's, not this machine's.
PYPI_TOOLS = {"cmake"}
TOOL_VERSION_RE = re.compile(r"version (\d[^\s]*)")
# What the compilers' activation exports in conda-build's build env (ctng-compiler-activation).
COMPILER_VARS = {"gcc_linux-64": ("CC",), "gxx_linux-64": ("CXX", "GXX")}
# conda packages that an earlier build-local run put into the same prefix.
LOCAL_BUILDS = {"libgpuarray": "lib/libgpuarray.so", "pygpu": None, "theano": None}
APT_HINT = "apt-get install -y cmake make gcc g++"


@dataclass
class Plan:
    """What to pip-install, what must be on PATH, what is left to conda."""

    pip: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    pinned_tools: dict[str, str] = field(default_factory=dict)  # program -> conda version spec
    local: list[str] = field(default_factory=list)
    conda_only: list[str] = field(default_factory=list)


def pip_requirement(spec: str) -> str:
    """A conda MatchSpec as a pip requirement: ``numpy 1.16.*`` -> ``numpy==1.16.*``."""
    name, _, version = spec.partition(" ")
    version = version.strip()
    if not version:
        return name
    if "|" in version or " " in version:
        raise GpuforgeError(f"cannot express conda spec {spec!r} for pip")
    parts = []
    for part in version.split(","):
        if part[0].isdigit():
            part = "==" + (part if part.endswith("*") or part.count(".") >= 2 else part + ".*")
        parts.append(part)
    return name + ",".join(parts)


def tool_version(program: str) -> str | None:
    """The version ``program --version`` reports (``cmake version 3.25.1`` -> ``3.25.1``)."""
    try:
        proc = processes.run([program, "--version"], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = TOOL_VERSION_RE.search(proc.stdout)
    return found.group(1) if proc.returncode == 0 and found else None


def version_matches(version: str, spec: str) -> bool:
    """Does ``version`` satisfy the conda version ``spec`` (conda's own ordering, via py-rattler)?"""
    return VersionSpec(spec).matches(Version(version))


def plan_requirements(specs: list[str]) -> Plan:
    plan = Plan()
    for spec in specs:
        name = spec.split()[0]
        if name == "python":
            continue  # the interpreter itself, checked against the variant
        if name in PYPI_NAMES:
            plan.pip.append(pip_requirement(spec))
        elif name in PYPI_TOOLS and spec.strip() != name:
            plan.pinned_tools[HOST_TOOLS[name]] = spec.split(None, 1)[1].strip()
        elif name in HOST_TOOLS:
            plan.tools.append(HOST_TOOLS[name])
        elif name in LOCAL_BUILDS:
            plan.local.append(name)
        else:
            plan.conda_only.append(spec)
    return plan


class BuildLocal:
    """One build-local run: render, source, prefix, build.sh, test section."""

    def __init__(self, recipe_name: str, python: str, *, recipes_dir: Path, work_dir: Path,
                 cache_dir: Path, source: Path | None = None, prefix: Path | None = None,
                 say: Callable[[str], None] = print):
        if not sys.platform.startswith("linux"):
            raise GpuforgeError("build-local runs build.sh and works on Linux only; "
                                "on Windows use `nox -s build` (conda-build runs bld.bat)")
        self.recipe = find_recipes(Path(recipes_dir), [recipe_name])[0]
        self.config = load_config(Path(recipes_dir) / "conda_build_config.yaml", PLATFORM)
        self.interpreter = Interpreter.probe(python)
        self.work = Path(work_dir).resolve() / self.recipe.name
        self.prefix = Path(prefix).resolve() if prefix else self.work / "prefix"
        self.cache_dir = Path(cache_dir)
        self.source_path = Path(source).resolve() if source else None
        self.say = say
        self.started = time.monotonic()
        self.rendered = self._pick_variant()

    # -- steps -----------------------------------------------------------------------

    def _step(self, text: str) -> None:
        self.say(f"==> [{time.monotonic() - self.started:5.1f}s] {text}")

    def _pick_variant(self) -> Rendered:
        if self.interpreter.bits != 64:
            raise GpuforgeError(f"{self.interpreter.path} is a {self.interpreter.bits}-bit Python: "
                                "the stack is 64-bit only (win-64, linux-64)")
        renders = render_variants(self.recipe, self.config)
        uses_python = any("python" in r.variant for r in renders)
        if not uses_python:
            return renders[0]
        for r in renders:
            if r.variant.get("python") == self.interpreter.version:
                return r
        known = ", ".join(r.variant["python"] for r in renders)
        raise GpuforgeError(
            f"python {self.interpreter.version} ({self.interpreter.path}) is not in the variant "
            f"matrix ({known}): see recipes/conda_build_config.yaml")

    def _source_tree(self) -> Path:
        src = self.rendered.meta.get("source") or {}
        extra = self.rendered.meta.get("extra") or {}
        alternates = tuple(v for k, v in extra.items() if k.endswith("sha256"))
        if self.source_path is None and "url" not in src and "path" in src:
            tree = (self.recipe.path / str(src["path"])).resolve()
            self.say(f"source: {tree} (the recipe's own files)")
            return unpack(tree, self.work / "src")
        try:
            source = Source(str(src.get("url", "")), str(src.get("sha256", "")), alternates)
        except GpuforgeError as exc:
            raise GpuforgeError(exc.message, self.recipe.meta_path) from None
        if self.source_path is None:
            tarball = fetch(source, self.cache_dir, say=self.say)
        elif self.source_path.is_dir():
            self.say(f"source: {self.source_path} (a tree: not verified, no hash to check)")
            tarball = self.source_path
        elif self.source_path.is_file():
            self.say(f"source: {self.source_path}: {source.check(self.source_path)}")
            tarball = self.source_path
        else:
            raise GpuforgeError("no such file or directory", self.source_path)
        tree = unpack(tarball, self.work / "src")
        apply_patches(tree, self.recipe.path, [str(p) for p in src.get("patches") or []], say=self.say)
        return tree

    def _ensure_prefix(self) -> Path:
        python = self.prefix / "bin" / "python"
        if python.exists() and not (self.prefix / "bin" / "pip").exists():
            # `python -m venv` writes pip last: an interrupted one left this, with nothing in it
            self.say(f"    {self.prefix} is a half-made venv (no pip; an interrupted run): making it again")
            remove_tree(self.prefix)
        if python.exists():
            found = Interpreter.probe(str(python))
            if found.version != self.interpreter.version:
                raise GpuforgeError(f"--prefix holds python {found.version}, not "
                                    f"{self.interpreter.version}: use another --prefix", self.prefix)
            return python
        self._step(f"creating prefix {self.prefix} (venv of python {self.interpreter.version})")
        self._run([self.interpreter.path, "-m", "venv", str(self.prefix)], cwd=self.work)
        return python

    def _provide(self, specs: list[str], what: str) -> None:
        plan = plan_requirements(specs)
        missing = [t for t in plan.tools if shutil.which(t) is None]
        if missing:
            raise GpuforgeError(f"{what} needs {', '.join(missing)} on PATH: {APT_HINT}")
        for program, spec in plan.pinned_tools.items():
            self._provide_tool(program, spec)
        for name in plan.local:
            self._check_local(name)
        if plan.conda_only:
            self.say(f"    not installed (conda-only): {', '.join(plan.conda_only)}")
        if plan.pip:
            self._step(f"pip install ({what}): {' '.join(plan.pip)}")
            self._run([str(self.prefix / "bin" / "python"), "-m", "pip", "install",
                       "--disable-pip-version-check", "-q", *plan.pip], cwd=self.work)

    def _provide_tool(self, program: str, spec: str) -> None:
        """``program`` at a version in ``spec``: the one on PATH, or PyPI's into the prefix."""
        found = shutil.which(program, path=self.env()["PATH"])
        version = tool_version(found) if found else None
        if version and version_matches(version, spec):
            self.say(f"    {program} {version} ({found}) matches the recipe's {program} {spec}")
            return
        on_path = f"{program} on PATH is {version} ({found})" if version else f"no {program} on PATH"
        requirement = pip_requirement(f"{program} {spec}")
        self._step(f"pip install (build tool): {requirement} ({on_path}; the recipe asks for "
                   f"{program} {spec})")
        try:
            self._run([str(self.prefix / "bin" / "python"), "-m", "pip", "install",
                       "--disable-pip-version-check", "-q", requirement], cwd=self.work)
        except GpuforgeError as exc:
            raise GpuforgeError(f"the recipe asks for {program} {spec} and {on_path}; installing "
                                f"{requirement} from PyPI into the prefix failed: put a matching "
                                f"{program} first on PATH.\n{exc}") from None
        installed = self.prefix / "bin" / program
        version = tool_version(str(installed))
        if not version or not version_matches(version, spec):
            raise GpuforgeError(f"pip installed {program} {version} into {installed}, which does "
                                f"not match the recipe's {program} {spec}")
        self.say(f"    {program} {version} ({installed}) matches the recipe's {program} {spec}")

    def _check_local(self, name: str) -> None:
        marker = LOCAL_BUILDS[name]
        if marker and (self.prefix / marker).exists():
            return
        if marker is None:
            code = f"import {name}"
            proc = processes.run(
                [str(self.prefix / "bin" / "python"), "-c", code], capture_output=True, env=self.env(), timeout=300
            )
            if proc.returncode == 0:
                return
            self.say(f"    not installed: {name} (not on PyPI; to test with it, build it first: "
                     f"`gpuforge recipes build-local {name} --python {self.interpreter.path} "
                     f"--prefix {self.prefix} --source ...`)")
            return
        raise GpuforgeError(f"{self.recipe.name} needs {name} in the prefix: first run "
                            f"`gpuforge recipes build-local {name} --python "
                            f"{self.interpreter.path} --prefix {self.prefix} --source ...`")

    def env(self) -> dict[str, str]:
        """conda-build's build/test variables for this prefix and variant."""
        meta = self.rendered.meta
        py = self.interpreter.version
        env = dict(os.environ)
        env.update(
            PREFIX=str(self.prefix),
            BUILD_PREFIX=str(self.prefix),
            SRC_DIR=str(self.work / "src"),
            RECIPE_DIR=str(self.recipe.path.resolve()),
            PYTHON=str(self.prefix / "bin" / "python"),
            PY_VER=py,
            PY3K="1",
            NPY_VER=self.rendered.variant.get("numpy", ""),
            SP_DIR=str(self.prefix / "lib" / f"python{py}" / "site-packages"),
            STDLIB_DIR=str(self.prefix / "lib" / f"python{py}"),
            PKG_NAME=str(meta["package"]["name"]),
            PKG_VERSION=str(meta["package"]["version"]),
            PKG_BUILDNUM=str((meta.get("build") or {}).get("number", 0)),
            CPU_COUNT=str(os.cpu_count() or 1),
            SHLIB_EXT=".so",
            target_platform=PLATFORM,
            build_platform=PLATFORM,
            CONDA_BUILD="1",
            CMAKE_ARGS=f"-DCMAKE_PREFIX_PATH={self.prefix}",
            PATH=f"{self.prefix / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            LD_LIBRARY_PATH=os.pathsep.join(
                p for p in (str(self.prefix / "lib"), os.environ.get("LD_LIBRARY_PATH")) if p),
            PIP_NO_INDEX=os.environ.get("PIP_NO_INDEX", ""),
        )
        build = {s.split()[0] for s in self.rendered.requirements.get("build", [])}
        for package, names in COMPILER_VARS.items():
            tool = shutil.which(HOST_TOOLS[package]) if package in build else None
            env.update(dict.fromkeys(names, tool) if tool else {})
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONHOME", None)
        env.pop("PYTHONPATH", None)
        if not env["PIP_NO_INDEX"]:
            env.pop("PIP_NO_INDEX")
        return env

    def _compiler_stand_in(self, package: str) -> Path:
        """The machine's compiler standing in for conda's compiler package in the test prefix.

        conda-build's test environment has the package itself: its compiler under the prefix,
        its conda-meta record, and the variables its activation exports (CXX, GXX). A recipe's
        test may check all three (theano's test_exp.py does), so the stand-in is a wrapper under
        the prefix (not a link that resolves outside it) with a record that names it a stand-in
        and carries the machine compiler's real version: the test then reports that version,
        never conda's.
        """
        tool = Path(shutil.which(HOST_TOOLS[package]) or HOST_TOOLS[package])
        wrapper = self.prefix / "bin" / tool.name
        if wrapper.is_symlink():  # a stand-in of an earlier build-local
            wrapper.unlink()
        if not wrapper.exists():
            write_atomic(wrapper, f'#!/bin/sh\nexec "{tool}" "$@"\n', backup=False)
            wrapper.chmod(0o755)
        version = (
            processes.run([str(tool), "-dumpversion"], capture_output=True, text=True, timeout=60).stdout.strip()
            or "0"
        )
        meta = self.prefix / "conda-meta"
        meta.mkdir(exist_ok=True)
        for old in meta.glob(f"{package}-*.json"):
            old.unlink()
        record = {"name": package, "version": version, "build": "gpuforge_stand_in",
                  "stand_in_for": f"conda's {package}; this is the machine's {tool}"}
        write_atomic(meta / f"{package}-{version}-gpuforge_stand_in.json",
                     json.dumps(record, indent=1) + "\n", backup=False)
        self.say(f"    stand-in for {package}: {wrapper} runs {tool} (g++ {version}, not conda's)")
        return wrapper

    def _run(self, cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
             echo: bool = False) -> None:
        log = self.work / "build.log"
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"\n$ {' '.join(cmd)}\n")
            fh.flush()
            proc = processes.popen(cmd, cwd=cwd, env=env or self.env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
            tail: list[str] = []
            assert proc.stdout is not None
            try:
                with processes.deadline(proc, STEP_TIMEOUT_S):
                    for line in proc.stdout:
                        fh.write(line)
                        if echo:
                            self.say("    " + line.rstrip())
                        tail = (tail + [line.rstrip()])[-15:]
                    code = proc.wait()
            except processes.TimedOut as exc:
                proc.wait()
                raise GpuforgeError(f"{exc.line()}; full log: {log}") from None
            finally:
                processes.forget(proc)
            processes.check_stop()
        if code != 0:
            shown = "\n".join("    | " + ln for ln in tail)
            raise GpuforgeError(f"`{' '.join(cmd)}` failed (exit {code}); last lines:\n{shown}\n"
                                f"    full log: {log}")

    def build(self) -> None:
        r = self.rendered
        self._step(f"build-local {r.label()} with {self.interpreter.path}")
        self.work.mkdir(parents=True, exist_ok=True)
        (self.work / "build.log").write_text("", encoding="utf-8")
        src = self._source_tree()
        self._ensure_prefix()
        reqs = r.requirements
        self._provide(reqs.get("build", []) + reqs.get("host", []), "build/host")
        self._step(f"running {self.recipe.path / 'build.sh'} (log: {self.work / 'build.log'})")
        self._run(["bash", str(self.recipe.path.resolve() / "build.sh")], cwd=src)
        license_file = (r.meta.get("about") or {}).get("license_file")
        if license_file and not (src / str(license_file)).is_file():
            raise GpuforgeError(f"about/license_file {license_file!r} is not in the source "
                                "(conda-build fails on packaging here)", self.recipe.meta_path)
        self._step("build.sh done")

    def test(self) -> None:
        r = self.rendered
        test = r.meta.get("test") or {}
        self._provide(r.requirements.get("run", []) + [" ".join(str(s).split())
                                                      for s in test.get("requires") or []],
                      "run/test")
        test_dir = self.work / "test"
        if test_dir.exists():
            shutil.rmtree(test_dir)
        test_dir.mkdir(parents=True)
        for name in test.get("files") or []:
            shutil.copy2(self.recipe.path / name, test_dir / Path(name).name)
        env = self.env()
        env.setdefault("THEANO_FLAGS", f"base_compiledir={self.work / 'theano-compiledir'}")
        run = {s.split()[0] for s in r.requirements.get("run", [])}
        for package in sorted(run & COMPILER_VARS.keys()):  # the compiler package's binary
            env.update(dict.fromkeys(COMPILER_VARS[package], str(self._compiler_stand_in(package))))
        # conda-build activates the test environment: the prefix's activate.d scripts run.
        activate = sorted((self.prefix / "etc" / "conda" / "activate.d").glob("*.sh"))
        if activate:
            env["CONDA_PREFIX"] = str(self.prefix)
            self.say(f"    activation: {', '.join(p.name for p in activate)}")
        prelude = "".join(f'. "{p}"\n' for p in activate)
        python = str(self.prefix / "bin" / "python")
        for module in test.get("imports") or []:
            self._step(f"test: import {module}")
            self._run(["bash", "-e", "-c", f'{prelude}"{python}" -c "import {module}"'],
                      cwd=test_dir, env=env, echo=True)
        for command in test.get("commands") or []:
            self._step(f"test: {command}")
            self._run(["bash", "-e", "-c", prelude + command], cwd=test_dir, env=env, echo=True)
        self._step(f"{r.name} {r.version}: build and test passed (prefix {self.prefix})")

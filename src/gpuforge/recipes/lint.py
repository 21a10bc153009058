"""Recipe lint: the real conda-smithy where it can run, gpuforge's own rules always.

Each problem is one line, ``path:line: message``. The real `conda-smithy recipe-lint`
(conda_smithy_lint, through gpuforge.recipes.conda_tools) is the authority on conda-smithy's
rules; where it cannot be installed, gpuforge checks the subset that matters most itself
(``smithy_subset``): section order, sha256 on url sources (https only), a build number, a
test section, license and license_file, a valid version, the selector format
``  # [win]``, no selectors in noarch recipes. gpuforge's own: every
requirement parses as a conda MatchSpec (py-rattler), bld.bat checks
errorlevel after each command, pygpu and libgpuarray pinned together, theano's
pygpu and numpy ranges admit the matrix, the Windows toolchain of theano,
the Windows CUDA/cuDNN limits, and a comment on every key of the matrix.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rattler import MatchSpec, Version, VersionSpec
from rattler.exceptions import InvalidMatchSpecError, InvalidVersionError

from gpuforge import processes
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.fileio import read_text
from gpuforge.recipes.conda_tools import CondaTools
from gpuforge.recipes.render import REQUIREMENT_SECTIONS, Recipe, Rendered, find_recipes, render_variants
from gpuforge.recipes.selectors import PLATFORMS, selector_format_problems, selector_of
from gpuforge.recipes.variants import VariantConfig, load_config, uncommented_keys
from gpuforge.yamlio import item_line, key_line

SECTION_ORDER = ("package", "source", "build", "requirements", "test", "app", "outputs",
                 "about", "extra")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
LEADING_REDIRECT_RE = re.compile(r'^\d?>>?\s*("[^"]*"|\S+)\s*')
# Windows-only facts the recipes must respect (FACTS.md, libgpuarray's loader, Theano's dnn.py).
# nvrtc64_100_0.dll ... nvrtc64_102_0.dll: unpatched libgpuarray 0.7.6 never finds them, and
# theano-gpu-config's nvrtc64_91.dll shim loads CUDA >= 11's (nvrtc64_110_0.dll and newer).
WIN_CUDA_UNLOADABLE = ("10.0", "10.1", "10.2")
# recipes/libgpuarray's patch that teaches 0.7.6 the CUDA >= 10 library names (both platforms).
CUDA_NAMES_PATCH = "0003-cuda-10-library-names.patch"
CUDNN_UNLOADABLE = ("5.0", "8.0")  # Theano 1.0.5 refuses < 5000 and knows no cudnn64_8.dll
THEANO_WIN_TOOLCHAIN = ("m2w64-toolchain", "libpython", "mkl-service")
LAST_PYTHON_WITH_DISTUTILS = "3.11"


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else \
            f"{self.path}: {self.message}"


class _Collector:
    def __init__(self) -> None:
        self.problems: set[Problem] = set()

    def add(self, path: Path | str, line: int | None, message: str) -> None:
        self.problems.add(Problem(str(path), line or 0, message))

    def error(self, exc: GpuforgeError) -> None:
        if isinstance(exc, InputError):  # a file that cannot be read or parsed: bad input, exit 2
            raise exc
        self.add(exc.path or "", exc.line, exc.message)


def _spec(text: str) -> MatchSpec | None:
    try:
        return MatchSpec(text)
    except InvalidMatchSpecError:
        return None


def _requirement(r: Rendered, section: str, name: str) -> tuple[str, int | None] | None:
    """The rendered spec for ``name`` in a requirements section, and its line."""
    reqs = (r.doc.get("requirements") or {}).get(section) or []
    for i, spec in enumerate(r.requirements.get(section, [])):
        if spec.split()[0] == name:
            return spec, item_line(reqs, i)
    return None


def lint_text(recipe: Recipe, out: _Collector, smithy_subset: bool = True) -> None:
    """Rules on the recipe's own text (before rendering)."""
    if smithy_subset:
        for number, message in selector_format_problems(recipe.text):
            out.add(recipe.meta_path, number, message)
        if re.search(r"^\s*noarch:", recipe.text, re.M):
            for lineno, line in enumerate(recipe.text.splitlines(), 1):
                if selector_of(line):
                    out.add(recipe.meta_path, lineno, "noarch recipes cannot use selectors")
    for script in ("build.sh", "bld.bat"):
        if not (recipe.path / script).is_file():
            out.add(recipe.path, None, f"missing {script}")
    bld = recipe.path / "bld.bat"
    if bld.is_file():
        lint_bld_bat(bld, out)


def lint_bld_bat(path: Path, out: _Collector) -> None:
    """cmd.exe carries on after a failed command: each must check errorlevel."""
    lines = read_text(path).splitlines()
    i = 0
    while i < len(lines):
        start, command = i, lines[i].strip()
        while command.endswith("^") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        command = LEADING_REDIRECT_RE.sub("", command)  # `>>"%F%" echo ...` is an echo
        word = command.split()[0].strip('"').lower() if command else ""
        if not word or word.startswith(("::", "rem", "@rem", "set", "if", "cd", "mkdir", "md",
                                         "echo", "exit", "goto", ":")):
            continue
        following = next((ln.strip().lower() for ln in lines[i:] if ln.strip()), "")
        if not following.startswith("if errorlevel 1 exit 1"):
            out.add(path, start + 1, f"`{word}` is not followed by `if errorlevel 1 exit 1` "
                                     "(cmd.exe carries on after a failed command)")


def lint_rendered(r: Rendered, out: _Collector, smithy_subset: bool = True) -> None:
    """conda-smithy's rules (the subset, unless the real linter runs) and valid specs, on one rendering."""
    _lint_requirement_specs(r, out)
    if not smithy_subset:
        return
    path, doc, meta = r.recipe.meta_path, r.doc, r.meta
    order = [k for k in doc if k in SECTION_ORDER]
    for key in doc:
        if key not in SECTION_ORDER:
            out.add(path, key_line(doc, key), f"unknown section {key!r}")
    if order != sorted(order, key=SECTION_ORDER.index):
        out.add(path, 1, "sections out of order: expected " +
                ", ".join(k for k in SECTION_ORDER if k in order))
    package = meta.get("package") or {}
    for key in ("name", "version"):
        if not package.get(key):
            out.add(path, key_line(doc, "package"), f"package has no {key}")
    if package.get("version"):
        try:
            Version(str(package["version"]))
        except InvalidVersionError:
            out.add(path, key_line(doc.get("package"), "version"),
                    f"invalid version {package['version']!r}")
    _lint_sources(r, out)
    build = meta.get("build") or {}
    if "number" not in build or not isinstance(build["number"], int):
        out.add(path, key_line(doc, "build") or 1, "build: no build number")
    test = meta.get("test") or {}
    if not any(test.get(k) for k in ("imports", "commands", "requires", "script")):
        out.add(path, key_line(doc, "test") or 1, "no test section: add imports or commands")
    about = meta.get("about") or {}
    for key in ("home", "license", "license_file", "summary"):
        if not about.get(key):
            out.add(path, key_line(doc, "about") or 1, f"about: no {key}")


def _lint_sources(r: Rendered, out: _Collector) -> None:
    path, doc = r.recipe.meta_path, r.doc
    sources = r.meta.get("source")
    if sources is None:
        out.add(path, 1, "no source section")
        return
    docs = doc["source"] if isinstance(doc["source"], list) else [doc["source"]]
    for src, src_doc in zip(sources if isinstance(sources, list) else [sources], docs,
                            strict=True):
        line = key_line(src_doc, "url") or key_line(doc, "source")
        if "url" not in src:
            continue
        urls = src["url"] if isinstance(src["url"], list) else [src["url"]]
        for url in urls:
            if not str(url).startswith("https://"):
                out.add(path, line, f"source url is not https: {url}")
        sha = str(src.get("sha256", ""))
        if not sha:
            out.add(path, line, "url source without sha256")
        elif not SHA256_RE.match(sha):
            out.add(path, key_line(src_doc, "sha256") or line,
                    "sha256 must be 64 lowercase hex digits")


def _lint_requirement_specs(r: Rendered, out: _Collector) -> None:
    reqs_doc = r.doc.get("requirements") or {}
    for section in REQUIREMENT_SECTIONS:
        for i, spec in enumerate(r.requirements.get(section, [])):
            if _spec(spec) is None:
                out.add(r.recipe.meta_path, item_line(reqs_doc.get(section), i),
                        f"requirements/{section}: {spec!r} is not a valid conda MatchSpec")


def lint_cross(rendered: list[Rendered], configs: dict[str, VariantConfig], out: _Collector
               ) -> None:
    """Pins that must agree between recipes and with the variant matrix."""
    by_name: dict[str, list[Rendered]] = {}
    for r in rendered:
        by_name.setdefault(r.recipe.name, []).append(r)
    versions = {name: rs[0].version for name, rs in by_name.items()}
    for r in by_name.get("pygpu", []):
        for section in ("host", "run"):
            found = _requirement(r, section, "libgpuarray")
            want = f"libgpuarray =={r.version}"
            if found is None or found[0] != want:
                line = found[1] if found else key_line(r.doc, "requirements")
                out.add(r.recipe.meta_path, line,
                        f"requirements/{section} ({r.platform}): needs exactly `{want}`")
        if "libgpuarray" in versions and versions["libgpuarray"] != r.version:
            out.add(r.recipe.meta_path, key_line(r.doc.get("package"), "version"),
                    f"pygpu {r.version} and libgpuarray {versions['libgpuarray']} "
                    "are one source: versions must match")
    for r in by_name.get("theano", []):
        _lint_theano(r, versions, configs[r.platform], out)
    for r in by_name.get("theano-gpu-config", []):
        _lint_theano_gpu_config(r, versions, by_name.get("theano", []), configs[r.platform], out)
    for r in by_name.get("libgpuarray", []):
        found = _requirement(r, "run_constrained", "cudatoolkit")
        patches = (r.doc.get("source") or {}).get("patches") or []
        if r.platform == "win-64" and CUDA_NAMES_PATCH not in [str(p).split("/")[-1] for p in patches]:
            spec = _spec(found[0]) if found else None
            if spec is None or spec.version is None or any(
                    VersionSpec(str(spec.version)).matches(Version(v)) for v in WIN_CUDA_UNLOADABLE):
                out.add(r.recipe.meta_path, found[1] if found else None,
                        "win-64: libgpuarray 0.7.6 cannot load CUDA 10's nvrtc64_10x_0.dll; "
                        f"run_constrained needs `cudatoolkit <9.2`, or apply {CUDA_NAMES_PATCH}")


def _lint_theano(r: Rendered, versions: dict[str, str], config: VariantConfig, out: _Collector
                 ) -> None:
    path = r.recipe.meta_path
    pygpu = _requirement(r, "run", "pygpu")
    spec = _spec(pygpu[0]) if pygpu else None
    if "pygpu" in versions and (spec is None or not spec.version or not VersionSpec(
            str(spec.version)).matches(Version(versions["pygpu"]))):
        out.add(path, pygpu[1] if pygpu else None,
                f"theano's pygpu range must admit pygpu {versions['pygpu']}")
    numpy = _requirement(r, "run", "numpy")
    spec = _spec(numpy[0]) if numpy else None
    if spec is None or spec.version is None or VersionSpec(str(spec.version)).matches(
            Version("1.24")):
        out.add(path, numpy[1] if numpy else None,
                "theano needs `numpy <1.24` in run (np.bool and friends are gone in 1.24)")
    else:  # theano does not use the numpy key (conda-build: not in its variant): its zip partner
        for v in config.expand({"python", "numpy"}):
            if v.get("python") == r.variant.get("python") and "numpy" in v and not VersionSpec(
                    str(spec.version)).matches(Version(v["numpy"])):
                out.add(config.path, config.lines.get("numpy"),
                        f"numpy {v['numpy']} (python {v['python']}) is outside theano's `{numpy[0] if numpy else spec}`")
    python = r.variant.get("python")
    if python and Version(python) > Version(LAST_PYTHON_WITH_DISTUTILS):
        out.add(config.path, config.lines.get("python"),
                f"python {python}: Theano 1.0.5 imports distutils, gone after 3.11")
    if r.platform == "win-64":
        names = {s.split()[0] for s in r.requirements.get("run", [])}
        for need in THEANO_WIN_TOOLCHAIN:
            if need not in names:
                out.add(path, key_line(r.doc.get("requirements"), "run"),
                        f"win-64: theano runs g++ from m2w64: run needs {need}  # [win]")
    cudnn = _requirement(r, "run_constrained", "cudnn")
    spec = _spec(cudnn[0]) if cudnn else None
    if spec is None or spec.version is None or any(
            VersionSpec(str(spec.version)).matches(Version(v)) for v in CUDNN_UNLOADABLE):
        out.add(path, cudnn[1] if cudnn else None,
                "theano's run_constrained needs `cudnn >=5.1,<8` (the cuDNNs Theano 1.0.5 loads)")


def _lint_theano_gpu_config(r: Rendered, versions: dict[str, str], theanos: list[Rendered],
                            config: VariantConfig, out: _Collector) -> None:
    """The config package names the environment's cudnn and g++: they must be the stack's."""
    path = r.recipe.meta_path
    theano = _requirement(r, "run", "theano")
    spec = _spec(theano[0]) if theano else None
    try:  # an invalid theano version is reported on theano's own recipe
        version = Version(versions["theano"]) if "theano" in versions else None
    except InvalidVersionError:
        version = None
    if version and (spec is None or not spec.version or not VersionSpec(
            str(spec.version)).matches(version)):
        out.add(path, theano[1] if theano else None,
                f"theano-gpu-config's theano range must admit theano {versions['theano']}")
    for section, name in (("run_constrained", "cudnn"), ("run_constrained", "cudatoolkit")):
        found = _requirement(r, section, name)
        want = f"{name} {config.values[name][0]}" if name in config.values else None
        if want and (found is None or found[0] != want):
            out.add(path, found[1] if found else key_line(r.doc, "requirements"),
                    f"requirements/{section} ({r.platform}): needs `{want}` "
                    "(conda_build_config.yaml)")
    run = r.requirements.get("run", [])
    if r.platform == "win-64":
        if "m2w64-toolchain" not in {s.split()[0] for s in run}:
            out.add(path, key_line(r.doc.get("requirements"), "run"),
                    "win-64: cxx is m2w64's g++: run needs m2w64-toolchain  # [win]")
    else:
        compilers = {s for t in theanos if t.platform == r.platform
                     for s in t.requirements.get("run", []) if s.startswith("gxx_")}
        if compilers and not compilers & set(run):
            out.add(path, key_line(r.doc.get("requirements"), "run"),
                    f"{r.platform}: run needs theano's compiler ({', '.join(sorted(compilers))})")


def lint(recipes_dir: Path, names: list[str] | None = None, config_path: Path | None = None,
         smithy_subset: bool = True) -> list[Problem]:
    """Lint the recipes and the variant matrix; an empty list means clean.

    ``smithy_subset=False`` leaves conda-smithy's rules to the real linter (conda_smithy_lint).
    """
    recipes_dir = Path(recipes_dir)
    config_path = config_path or recipes_dir / "conda_build_config.yaml"
    out = _Collector()
    configs: dict[str, VariantConfig] = {}
    try:
        for platform in PLATFORMS:
            configs[platform] = load_config(config_path, platform)
        for line, key in uncommented_keys(config_path):
            out.add(config_path, line, f"{key}: every pin needs a comment saying why")
    except GpuforgeError as exc:
        out.error(exc)
        return sorted(out.problems)
    rendered: list[Rendered] = []
    for recipe in find_recipes(recipes_dir, names):
        lint_text(recipe, out, smithy_subset)
        try:
            for platform in PLATFORMS:
                rendered.extend(render_variants(recipe, configs[platform]))
        except GpuforgeError as exc:
            out.error(exc)
    for r in rendered:
        lint_rendered(r, out, smithy_subset)
    lint_cross(rendered, configs, out)
    return sorted(out.problems)


SMITHY_TIMEOUT_S = 300  # conda-smithy's lint of every recipe takes ~20 s here; past 5 min it hangs
SMITHY_HEADER_RE = re.compile(r"^(?P<path>\S.*) (?:has some (?P<kind>lint|suggestions):|is in fine form)$")


def _smithy_run(tools: CondaTools, recipe_files: list[Path], work: Path) -> tuple[list[Problem], set[str]]:
    """One `conda-smithy recipe-lint` of these recipes: the problems, and the folders it reported."""
    folders = {str(f.parent): f for f in recipe_files}
    try:
        proc = processes.run(
            [str(tools.smithy), "recipe-lint", *folders],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=SMITHY_TIMEOUT_S,
            env=tools.env(work),
            progress=lambda s: print(f"conda-smithy recipe-lint: still running ({s:.0f} s)", file=sys.stderr),
        )
    except processes.TimedOut as exc:
        raise GpuforgeError(
            f"{exc.line()}: run `{tools.smithy} recipe-lint RECIPE` by hand to see where it waits, or "
            "lint without it (--conda-smithy skip)"
        ) from None
    problems, reported, current, kind = [], set(), None, None
    for line in proc.stdout.splitlines():
        if m := SMITHY_HEADER_RE.match(line):
            current, kind = m.group("path"), m.group("kind")
            reported.add(current)
        elif line.startswith("  ") and kind and current in folders:
            label = "conda-smithy" if kind == "lint" else "conda-smithy hint"
            problems.append(Problem(str(folders[current]), 0, f"{label}: {line.strip()}"))
    if len(recipe_files) == 1 and not reported:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1].strip()
        problems.append(Problem(str(recipe_files[0]), 0,
                                f"conda-smithy recipe-lint failed (exit {proc.returncode}): {last}"))
    return problems, reported


def conda_smithy_lint(recipes_dir: Path, tools: CondaTools, names: list[str] | None = None
                      ) -> list[Problem]:
    """The real `conda-smithy recipe-lint` of each recipe (meta.yaml, and recipes/v1/*/recipe.yaml):
    one Problem per lint or suggestion.

    A rule that does not fit these recipes is switched off in recipes/conda-forge.yml, with why.
    """
    recipe_files = [r.meta_path for r in find_recipes(recipes_dir, names)]
    recipe_files += [p for p in sorted(Path(recipes_dir).glob("v1/*/recipe.yaml"))
                     if not names or p.parent.name in names]  # rattler-build's format
    with tempfile.TemporaryDirectory(prefix="gpuforge-smithy-") as work:
        problems, reported = _smithy_run(tools, recipe_files, Path(work))
        for recipe_file in recipe_files:  # it stops at a recipe it cannot read: that one alone
            if str(recipe_file.parent) not in reported:
                problems += _smithy_run(tools, [recipe_file], Path(work))[0]
    return problems


def summarize(problems: list[Problem]) -> dict[str, Any]:
    return {"problems": [{"path": p.path, "line": p.line, "message": p.message}
                         for p in problems]}

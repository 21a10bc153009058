"""Render conda-build recipes (meta.yaml) for each variant, the way conda-build does.

Order as in conda-build: Jinja2 first (in a sandbox with bounded time and size: recipes/sandbox.py) (with ``compiler()``, ``stdlib()``, ``pin_compatible()``,
``environ``, ``PY_VER`` ... and the variant's keys), then line selectors, then
YAML. Bare build/host requirements named like a variant key get that key's
value (``numpy`` -> ``numpy 1.16.*``). ``requirements`` is what conda-build renders
with no channel (tests/recipes/test_render_fidelity.py holds it to conda-build's own render):
``pin_compatible('numpy')`` and a run ``python`` stay bare there, because conda-build pins them
from the versions solved into the host environment at build time; ``run_as_built()`` applies
those pins. Requirements added from the channel at build time (compilers' run_exports)
are not known without a solver and are not shown.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.sandbox import RecipeSandbox, safe_os
from gpuforge.recipes.selectors import platform_namespace, select_lines, selector_of, variant_namespace
from gpuforge.recipes.variants import Variant, VariantConfig, load_config
from gpuforge.fileio import read_text
from gpuforge.yamlio import expect_mapping, expect_strings, key_line, load_yaml

RECIPE_NAMES = ("libgpuarray", "pygpu", "theano", "theano-gpu-config")  # dependency (build) order
REQUIREMENT_SECTIONS = ("build", "host", "run", "run_constrained")
DEFAULT_COMPILERS = {
    ("c", "linux-64"): "gcc",
    ("cxx", "linux-64"): "gxx",
    ("c", "win-64"): "vs2017",
    ("cxx", "win-64"): "vs2017",
}
PLAIN_VERSION_RE = re.compile(r"^[0-9][0-9A-Za-z._]*$")
BARE_REQUIREMENT_RE = re.compile(r"^\s*-\s*(?P<name>[A-Za-z0-9_.-]+)\s*(#.*)?$", re.M)
JINJA_CALL_RE = re.compile(r"(?P<func>compiler|stdlib|pin_compatible)\(\s*['\"](?P<arg>[\w.-]+)['\"]")
# conda-build's default pin_run_as_build for python (conda_build/variants.py DEFAULT_VARIANTS).
PYTHON_RUN_PIN = ("x.x", "x.x")
IDENTIFIER_RE = re.compile(r"[A-Za-z_]\w*")
UNDEFINED_MARK_RE = re.compile(r"\x00undefined:(?P<name>[^\x00]*)\x00")


class _MarkUndefined(jinja2.Undefined):
    """Renders as a marker, like conda-build's lenient Undefined, so a name that
    is undefined only on lines a selector drops is no error (``{{ vc }}  # [win]``
    on Linux), while one on a kept line is reported with its line."""

    def __str__(self) -> str:
        return f"\x00undefined:{self._undefined_name}\x00"


@dataclass(frozen=True)
class Recipe:
    """A recipe directory with its meta.yaml text."""

    path: Path
    text: str

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def meta_path(self) -> Path:
        return self.path / "meta.yaml"

    @classmethod
    def load(cls, path: Path) -> Recipe:
        path = Path(path)
        meta = path / "meta.yaml"
        if not meta.exists() and not meta.is_symlink():
            raise GpuforgeError("no meta.yaml: not a conda-build recipe", path)
        return cls(path, read_text(meta))


@dataclass
class Rendered:
    """One recipe rendered for one platform and variant."""

    recipe: Recipe
    platform: str
    variant: Variant  # the keys this recipe uses (conda-build's used variables)
    doc: Any  # the ruamel mapping, for line numbers
    meta: dict[str, Any]
    requirements: dict[str, list[str]] = field(default_factory=dict)
    # pin_compatible(name, min_pin=..., ...) calls: their keyword arguments, by name
    compatible_pins: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.meta.get("package", {}).get("name", self.recipe.name))

    def run_as_built(self, solved: dict[str, str] | None = None) -> list[str]:
        """The run requirements with the pins conda-build adds from the solved host environment.

        A run ``python`` gets pin_run_as_build's ``x.x`` bounds (the variant's python is the
        solved one's x.x); a ``pin_compatible(name)`` gets ``>=<solved version>``, the variant's
        version where ``solved`` does not say (conda-build: the newest build of it on the channel).
        """
        solved = solved or {}
        out = []
        for spec in self.requirements.get("run", []):
            version = solved.get(spec) or self.variant.get(spec)
            if spec == "python" and version:
                spec = f"python {pin_expression(version, *PYTHON_RUN_PIN)}"
            elif spec in self.compatible_pins and version:
                pin = dict(self.compatible_pins[spec])
                spec = f"{spec} {version}" if pin.pop("exact") else f"{spec} {pin_expression(version, **pin)}"
            out.append(spec)
        return out

    @property
    def version(self) -> str:
        return str(self.meta.get("package", {}).get("version", ""))

    def label(self) -> str:
        keys = " ".join(f"{k}={v}" for k, v in sorted(self.variant.items()))
        return f"{self.name} {self.version} {self.platform} {keys}".rstrip()

    def as_json(self) -> dict[str, Any]:
        return {
            "recipe": str(self.recipe.path),
            "name": self.name,
            "version": self.version,
            "platform": self.platform,
            "variant": self.variant,
            "requirements": self.requirements,
            "run_as_built": self.run_as_built(),
            "test": self.meta.get("test", {}),
        }


def _selected_on(expr: str, platform_ns: dict[str, Any]) -> bool:
    """False only when the selector is false from the platform alone."""
    try:
        return bool(eval(expr, {"__builtins__": {}}, dict(platform_ns)))  # noqa: S307
    except Exception:  # noqa: BLE001 - depends on variant keys: may be selected
        return True


def _drop_unselected(text: str, platform_ns: dict[str, Any]) -> str:
    lines = []
    for line in text.splitlines():
        sel = selector_of(line)
        lines.append("" if sel and not _selected_on(sel.group("expr"), platform_ns) else line)
    return "\n".join(lines)


def used_keys(recipe: Recipe, config: VariantConfig) -> set[str]:
    """Variant keys the recipe refers to (conda-build's "used variables")."""
    keys = set(config.values)
    used: set[str] = set()
    env = RecipeSandbox()
    try:
        names = jinja2.meta.find_undeclared_variables(env.parse(recipe.text))
    except jinja2.TemplateSyntaxError as exc:
        raise GpuforgeError(f"Jinja2: {exc.message}", recipe.meta_path, exc.lineno) from None
    used |= names & keys
    platform_ns = platform_namespace(config.platform)
    for m in JINJA_CALL_RE.finditer(_drop_unselected(recipe.text, platform_ns)):
        if m.group("func") in ("compiler", "stdlib"):
            component = f"{m.group('arg')}_{m.group('func')}"
            used |= {component, f"{component}_version"} & keys
        else:
            used |= {m.group("arg")} & keys
    for line in recipe.text.splitlines():
        sel = selector_of(line)
        if sel and not _selected_on(sel.group("expr"), platform_ns):
            continue  # e.g. `{{ compiler('cxx') }}  # [linux]` uses nothing on win-64
        if sel:
            idents = set(IDENTIFIER_RE.findall(sel.group("expr")))
            idents |= {"python"} if "py" in idents else set()
            idents |= {"numpy"} if "np" in idents else set()
            used |= idents & keys
    used |= {m.group("name") for m in BARE_REQUIREMENT_RE.finditer(recipe.text)} & keys
    return used


def _jinja_context(platform: str, variant: Variant, pins: dict[str, dict[str, Any]]) -> dict[str, Any]:
    def target(language: str, component: str, default: str) -> str:
        """conda-build's jinja_context._target: ``<name>_<platform> <version>.*``."""
        name = variant.get(f"{language}_{component}") or default
        version = variant.get(f"{language}_{component}_version")
        if version and PLAIN_VERSION_RE.match(version):
            version += ".*"  # conda-build's ensure_valid_spec
        return f"{name}_{platform}" + (f" {version}" if version else "")

    def compiler(language: str) -> str:
        return target(language, "compiler", DEFAULT_COMPILERS.get((language, platform), language))

    def stdlib(language: str) -> str:
        return target(language, "stdlib", language)

    def pin_compatible(name: str, lower_bound: str | None = None, upper_bound: str | None = None,
                       min_pin: str = "x.x.x.x.x.x", max_pin: str = "x", exact: bool = False) -> str:
        pins[name] = dict(min_pin=min_pin, max_pin=max_pin, upper_bound=upper_bound, exact=exact,
                          lower_bound=lower_bound)
        return name  # bounds come from the solved host environment: run_as_built()

    python = variant.get("python", "")
    ctx: dict[str, Any] = dict(variant)
    ctx.update(
        compiler=compiler,
        stdlib=stdlib,
        pin_compatible=pin_compatible,
        environ=dict(os.environ),
        os=safe_os(dict(os.environ)),
        target_platform=platform,
        build_platform=platform,
        CPU_COUNT=str(os.cpu_count() or 1),
        PY_VER=python,
        PY3K="1" if python.startswith("3") else "0",
        NPY_VER=variant.get("numpy", ""),
        PYTHON="%PYTHON%" if platform.startswith("win") else "$PYTHON",
    )
    return ctx


def pin_expression(version: str, min_pin: str | None = "x.x.x.x.x.x", max_pin: str | None = "x",
                   lower_bound: str | None = None, upper_bound: str | None = None) -> str:
    """conda-build's pin arithmetic: ``1.16`` with max_pin ``x`` -> ``>=1.16,<2.0a0``."""
    parts = version.split(".")
    lower = lower_bound or (".".join(parts[: len(min_pin.split("."))]) if min_pin else "")
    if upper_bound:
        upper = upper_bound
    elif max_pin:
        n = min(len(max_pin.split(".")), len(parts))
        bumped = parts[: n - 1] + [str(int(parts[n - 1]) + 1)]
        upper = ".".join(bumped) + ".0a0"
    else:
        upper = ""
    return ",".join(x for x in (f">={lower}" if lower else "", f"<{upper}" if upper else "") if x)


def _jinja_error_line(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _pin_requirements(meta: dict[str, Any], variant: Variant) -> dict[str, list[str]]:
    reqs = meta.get("requirements") or {}
    if not isinstance(reqs, dict):
        return {}
    out: dict[str, list[str]] = {}
    for section in REQUIREMENT_SECTIONS:
        specs = []
        for item in reqs.get(section) or []:
            spec = " ".join(str(item).split())
            value = variant.get(spec)
            if section in ("build", "host") and value is not None:
                spec = f"{spec} {value}.*" if PLAIN_VERSION_RE.match(value) else f"{spec} {value}"
            specs.append(spec)
        if specs:
            out[section] = specs
    return out


def render(recipe: Recipe, platform: str, variant: Variant, full_variant: Variant | None = None
           ) -> Rendered:
    """Render ``recipe`` for one platform and variant."""
    full = dict(full_variant or variant)
    env = RecipeSandbox(undefined=_MarkUndefined, keep_trailing_newline=True)
    pins: dict[str, dict[str, Any]] = {}
    try:
        text = env.render_bounded(recipe.text, _jinja_context(platform, full, pins))
    except jinja2.TemplateSyntaxError as exc:
        raise GpuforgeError(f"Jinja2: {exc.message}", recipe.meta_path, exc.lineno) from None
    except jinja2.exceptions.SecurityError as exc:
        raise GpuforgeError(
            f"Jinja2 sandbox: {str(exc).rstrip('.')}: refused", recipe.meta_path, _jinja_error_line(exc)
        ) from None
    except GpuforgeError as exc:
        raise GpuforgeError(exc.message, recipe.meta_path, _jinja_error_line(exc)) from None
    except Exception as exc:  # noqa: BLE001 - undefined names, bad filters: the recipe's error
        raise GpuforgeError(f"Jinja2: {exc}", recipe.meta_path, _jinja_error_line(exc)) from None
    if text.count("\n") != recipe.text.count("\n"):
        raise GpuforgeError("Jinja2 output changed the line count: keep {% %} blocks on one line",
                            recipe.meta_path)
    selected = select_lines(text, variant_namespace(platform, full), recipe.meta_path)
    for lineno, line in enumerate(selected.splitlines(), start=1):
        if m := UNDEFINED_MARK_RE.search(line):
            raise GpuforgeError(f"Jinja2: {m.group('name')!r} is undefined on {platform}",
                                recipe.meta_path, lineno)
    doc = expect_mapping(load_yaml(selected, recipe.meta_path), recipe.meta_path, 1,
                         "meta.yaml (package, source, requirements ...)")
    for section in ("package", "requirements", "test"):
        if doc.get(section) is not None:
            expect_mapping(doc[section], recipe.meta_path, key_line(doc, section), section)
    for section in REQUIREMENT_SECTIONS:
        specs = (doc.get("requirements") or {}).get(section)
        if specs is not None:
            expect_strings(specs, recipe.meta_path, key_line(doc["requirements"], section),
                           f"requirements/{section}")
    meta = _plain(doc)
    return Rendered(recipe, platform, variant, doc, meta, _pin_requirements(meta, full), pins)


def render_variants(recipe: Recipe, config: VariantConfig) -> list[Rendered]:
    """Every distinct rendering of ``recipe`` on ``config``'s platform."""
    keys = used_keys(recipe, config)
    results, seen = [], set()
    for variant in config.expand(keys):
        defaults = {k: v[0] for k, v in config.values.items() if len(v) == 1}
        full = {**defaults, **variant}
        shown = {k: v for k, v in full.items() if k in keys}
        rendered = render(recipe, config.platform, shown, full)
        fingerprint = repr((rendered.meta, rendered.requirements))
        if fingerprint not in seen:
            seen.add(fingerprint)
            results.append(rendered)
    return results


def find_recipes(recipes_dir: Path, names: list[str] | None = None) -> list[Recipe]:
    """The named recipes (or all, in build order) under ``recipes_dir``."""
    recipes_dir = Path(recipes_dir)
    if not recipes_dir.is_dir():
        raise GpuforgeError("no such recipes directory (run from the repository root "
                            "or pass --recipes-dir)", recipes_dir)
    wanted = names or [n for n in RECIPE_NAMES if (recipes_dir / n).is_dir()]
    recipes = []
    for name in wanted:
        path = Path(name) if Path(name).is_dir() and "/" in name else recipes_dir / name
        if not path.is_dir():
            known = ", ".join(RECIPE_NAMES)
            raise GpuforgeError(f"no recipe named {name!r} (known: {known})", recipes_dir)
        recipes.append(Recipe.load(path))
    return recipes


def render_all(recipes_dir: Path, platforms: list[str], names: list[str] | None = None,
               config_path: Path | None = None) -> list[Rendered]:
    """Render the recipes for every variant on each platform."""
    recipes_dir = Path(recipes_dir)
    config_path = config_path or recipes_dir / "conda_build_config.yaml"
    recipes = find_recipes(recipes_dir, names)
    out = []
    for platform in platforms:
        config = load_config(config_path, platform)
        for recipe in recipes:
            out.extend(render_variants(recipe, config))
    return out


"""`gpuforge recipes`: render, lint and build the conda recipes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpuforge.arguments import output_folder
from gpuforge.channels import channel_argument

from gpuforge import locations
from gpuforge.errors import GpuforgeError
from gpuforge.recipes.selectors import PLATFORMS

# The vc14-era packages these recipes build against are on the defaults channels (FACTS.md:
# vs2015_win-64, gcc_linux-64 7.3.0, vc 14 on pkgs/main; m2w64-toolchain on pkgs/msys2 only).
DEFAULT_CHANNELS = ("https://repo.anaconda.com/pkgs/main", "https://repo.anaconda.com/pkgs/msys2")


def _recipes_dir(args: argparse.Namespace) -> Path:
    """--recipes-dir, else ./recipes (a one-line error naming the flag without either)."""
    found = locations.repository_dir(args.recipes_dir, locations.RECIPES_DIR)
    assert found is not None
    return found


def _platforms(value: str) -> list[str]:
    return list(PLATFORMS) if value == "all" else [value]


def cmd_recipes_render(args: argparse.Namespace) -> int:
    from gpuforge.recipes.render import render_all

    rendered = render_all(_recipes_dir(args), _platforms(args.platform), args.recipe or None)
    if args.json:
        print(json.dumps([r.as_json() for r in rendered], indent=2))
        return 0
    pinned_at_build = False
    for r in rendered:
        print(r.label())
        for section, specs in r.requirements.items():
            print(f"  {section + ':':17}" + ", ".join(specs))
        if (built := r.run_as_built()) != r.requirements.get("run", []):
            pinned_at_build = True
            print(f"  {'run as built:':17}" + ", ".join(built))
    print(f"{len(rendered)} renderings")
    if pinned_at_build:
        print("run as built: the pins conda-build adds from the host environment it solves; a "
              "pin_compatible lower bound is the solved version (shown: the variant's)")
    return 0


def cmd_recipes_lint(args: argparse.Namespace) -> int:
    from gpuforge.recipes.conda_tools import conda_tools
    from gpuforge.recipes.lint import conda_smithy_lint, lint, summarize

    recipes_dir = _recipes_dir(args)
    tools = None
    if args.conda_smithy != "skip":
        try:
            tools = conda_tools()
        except GpuforgeError as exc:
            if args.conda_smithy == "require":
                raise
            print(f"conda-smithy recipe-lint not run ({exc}): gpuforge checked its main rules",
                  file=sys.stderr)
    problems = lint(recipes_dir, args.recipe or None, smithy_subset=tools is None)
    if tools is not None:
        problems += conda_smithy_lint(recipes_dir, tools, args.recipe or None)
    if args.json:
        print(json.dumps(summarize(problems), indent=2))
    else:
        for problem in problems:
            print(problem)
        names = ", ".join(args.recipe) if args.recipe else "all recipes"
        print(f"{len(problems)} problem(s) in {names}" if problems else f"lint: {names} clean")
    return 1 if problems else 0


def cmd_recipes_build(args: argparse.Namespace) -> int:
    from gpuforge.recipes.conda_build import build
    from gpuforge.recipes.conda_tools import conda_tools

    recipes_dir = _recipes_dir(args)
    tools = conda_tools()
    prefixes = None if args.no_install_test else args.output_folder / "test-prefixes"
    outcomes = build(recipes_dir, args.recipe or None, args.output_folder, tools,
                     args.channel or list(DEFAULT_CHANNELS), test_prefixes=prefixes)
    for outcome in outcomes:
        for note in outcome.notes:
            print(f"{outcome.recipe}: {note}")
    built = sum(len(o.packages) for o in outcomes)
    tested = sum(len(o.tested) for o in outcomes)
    failed = [o.recipe for o in outcomes if o.failed]
    print(f"{built} package(s) built into {args.output_folder}, {tested} installed and tested; "
          + (f"failed: {', '.join(failed)}" if failed else "no failures"))
    return 1 if failed else 0


def cmd_recipes_build_local(args: argparse.Namespace) -> int:
    if sys.platform == "win32":
        raise GpuforgeError("build-local runs a recipe's build.sh on a Linux host only; on Windows "
                            "`gpuforge recipes build` runs the real conda-build (bld.bat)")
    from gpuforge.recipes.build_local import BuildLocal

    job = BuildLocal(args.recipe, args.python, recipes_dir=_recipes_dir(args),
                     work_dir=args.work_dir, cache_dir=args.cache_dir or locations.cache_dir(),
                     source=args.source, prefix=args.prefix)
    job.build()
    if not args.no_test:
        job.test()
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add `gpuforge recipes` to the top-level parser."""
    recipes_cmds = commands.add_parser(
        "recipes", help="render, lint and build the conda recipes"
    ).add_subparsers(dest="recipes_command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--recipes-dir", type=Path,
                        help="the checkout's recipes and conda_build_config.yaml (default: ./recipes)")

    render = recipes_cmds.add_parser("render", parents=[common],
                                     help="render every variant's requirements")
    render.add_argument("recipe", nargs="*", help="recipe names (default: all)")
    render.add_argument("--platform", choices=[*PLATFORMS, "all"], default="all")
    render.add_argument("--json", action="store_true", help="print JSON")
    render.set_defaults(func=cmd_recipes_render)

    lint = recipes_cmds.add_parser("lint", parents=[common],
                                   help="conda-smithy rules and cross-recipe pin checks")
    lint.add_argument("recipe", nargs="*", help="recipe names (default: all)")
    lint.add_argument("--json", action="store_true", help="print JSON")
    lint.add_argument("--conda-smithy", choices=("auto", "require", "skip"), default="auto",
                      help="run the real `conda-smithy recipe-lint` too (auto: where it can be "
                           "installed, gpuforge.recipes.conda_tools; require: fail without it)")
    lint.set_defaults(func=cmd_recipes_lint)

    conda_build = recipes_cmds.add_parser(
        "build", parents=[common],
        help="build with the real conda-build; install and test the packages with py-rattler")
    conda_build.add_argument("recipe", nargs="*", help="recipe names or folders (default: all)")
    conda_build.add_argument("--output-folder", type=output_folder, default=Path("channel"),
                             help="the local channel built into (default: channel)")
    conda_build.add_argument("--channel", action="append", type=channel_argument,
                             help="channel for build/host/run requirements (repeatable; default: "
                                  + ", ".join(DEFAULT_CHANNELS) + "); an unreachable one is "
                                  "skipped, and what needs it is not done, saying so")
    conda_build.add_argument("--no-install-test", action="store_true",
                             help="do not install the built packages into test prefixes")
    conda_build.set_defaults(func=cmd_recipes_build)

    build = recipes_cmds.add_parser(
        "build-local", parents=[common],
        help="run a recipe's build.sh and test section for real, without conda")
    build.add_argument("recipe", help="libgpuarray, pygpu or theano")
    build.add_argument("--python", required=True,
                       help="interpreter to build for (its version picks the variant)")
    build.add_argument("--source", type=Path,
                       help="local source tarball or tree instead of downloading")
    build.add_argument("--prefix", type=Path,
                       help="scratch prefix (a venv); reuse one to build pygpu on libgpuarray")
    build.add_argument("--work-dir", type=output_folder, default=Path("build/local"),
                       help="where sources, logs and the default prefix go (default: build/local)")
    build.add_argument("--cache-dir", type=Path,
                       help="download cache (default: $GPUFORGE_CACHE or ~/.cache/gpuforge)")
    build.add_argument("--no-test", action="store_true", help="skip the recipe's test section")
    build.set_defaults(func=cmd_recipes_build_local)

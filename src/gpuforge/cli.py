"""The gpuforge command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpuforge import __version__
from gpuforge.errors import GpuforgeError
from gpuforge.selectors import PLATFORMS


def _platforms(value: str) -> list[str]:
    return list(PLATFORMS) if value == "all" else [value]


def cmd_recipes_render(args: argparse.Namespace) -> int:
    from gpuforge.render import render_all

    rendered = render_all(args.recipes_dir, _platforms(args.platform), args.recipe or None)
    if args.json:
        print(json.dumps([r.as_json() for r in rendered], indent=2))
        return 0
    for r in rendered:
        print(r.label())
        for section, specs in r.requirements.items():
            print(f"  {section + ':':17}" + ", ".join(specs))
    print(f"{len(rendered)} renderings")
    return 0


def cmd_recipes_lint(args: argparse.Namespace) -> int:
    from gpuforge.lint import lint, summarize

    problems = lint(args.recipes_dir, args.recipe or None)
    if args.json:
        print(json.dumps(summarize(problems), indent=2))
    else:
        for problem in problems:
            print(problem)
        names = ", ".join(args.recipe) if args.recipe else "all recipes"
        print(f"{len(problems)} problem(s) in {names}" if problems else f"lint: {names} clean")
    return 1 if problems else 0


def cmd_recipes_build_local(args: argparse.Namespace) -> int:
    from gpuforge.build_local import BuildLocal
    from gpuforge.sources import default_cache_dir

    job = BuildLocal(args.recipe, args.python, recipes_dir=args.recipes_dir,
                     work_dir=args.work_dir, cache_dir=args.cache_dir or default_cache_dir(),
                     source=args.source, prefix=args.prefix)
    job.build()
    if not args.no_test:
        job.test()
    return 0


def cmd_ci_render(args: argparse.Namespace) -> int:
    from gpuforge.ci import CONFIG, render

    changes = render(args.root, check=args.check)
    for line in changes:
        print(line)
    if args.check and changes:
        print(f"{len(changes)} generated file(s) differ from {CONFIG.as_posix()}: "
              "run `gpuforge ci render`")
        return 1
    if args.check:
        print(f"ci: generated files match {CONFIG.as_posix()}")
    else:
        print(f"ci: {len(changes)} file(s) updated" if changes else "ci: nothing to update")
    return 0


def cmd_ci_matrix(args: argparse.Namespace) -> int:
    from gpuforge.ci import RUNNERS, make_plan

    plan = make_plan(args.root)
    jobs = [{"name": j.name, "platform": j.platform, "runner": RUNNERS[j.platform],
             "stage": "variant" if j.pins else "base", "pins": j.pins,
             "config": j.config_path.as_posix(), "recipes": [r.name for r in j.recipes]}
            for j in plan.jobs]
    if args.json:
        print(json.dumps(jobs, indent=2))
        return 0
    for job in jobs:
        print(f"{job['name']:34} {job['runner']:13} {job['stage']:8} {' '.join(job['recipes'])}")
    print(f"{len(jobs)} build jobs")
    return 0


def cmd_ci_build_args(args: argparse.Namespace) -> int:
    from gpuforge.ci import build_args

    print("\n".join(build_args(args.root, args.job, args.channel)))
    return 0


def cmd_ci_envs(args: argparse.Namespace) -> int:
    from gpuforge.ci import env_files

    for path in env_files(args.root, args.platform):
        print(path.relative_to(args.root).as_posix())
    return 0


def cmd_ci_env_file(args: argparse.Namespace) -> int:
    from gpuforge.ci import local_env_file

    print(local_env_file(args.env_file, args.channel, args.output))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuforge", description=__doc__)
    parser.add_argument("--version", action="version", version=f"gpuforge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    recipes = commands.add_parser("recipes", help="render, lint and build the conda recipes")
    recipes_cmds = recipes.add_subparsers(dest="recipes_command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--recipes-dir", type=Path, default=Path("recipes"),
                        help="folder with the recipes and conda_build_config.yaml (default: recipes)")

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
    lint.set_defaults(func=cmd_recipes_lint)

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
    build.add_argument("--work-dir", type=Path, default=Path("build/local"),
                       help="where sources, logs and the default prefix go (default: build/local)")
    build.add_argument("--cache-dir", type=Path,
                       help="download cache (default: $GPUFORGE_CACHE or ~/.cache/gpuforge)")
    build.add_argument("--no-test", action="store_true", help="skip the recipe's test section")
    build.set_defaults(func=cmd_recipes_build_local)

    ci = commands.add_parser("ci", help="CI generated from the variant matrix, and its build steps")
    ci_cmds = ci.add_subparsers(dest="ci_command", required=True)
    ci_common = argparse.ArgumentParser(add_help=False)
    ci_common.add_argument("--root", type=Path, default=Path("."),
                           help="repository root (default: the current folder)")
    ci_render = ci_cmds.add_parser(
        "render", parents=[ci_common],
        help="write ci/variants/*.yaml and the workflow's matrix from recipes/conda_build_config.yaml")
    ci_render.add_argument("--check", action="store_true",
                           help="change nothing; exit 1 when a generated file differs")
    ci_render.set_defaults(func=cmd_ci_render)
    ci_matrix = ci_cmds.add_parser("matrix", parents=[ci_common], help="print the CI build jobs")
    ci_matrix.add_argument("--json", action="store_true", help="print JSON")
    ci_matrix.set_defaults(func=cmd_ci_matrix)
    ci_args = ci_cmds.add_parser("build-args", parents=[ci_common],
                                 help="the `conda build` arguments of one job, one per line")
    ci_args.add_argument("job", help="a job name from `gpuforge ci matrix` (e.g. linux-64)")
    ci_args.add_argument("--channel", type=Path, default=Path("channel"),
                         help="the local channel to build into (default: channel)")
    ci_args.set_defaults(func=cmd_ci_build_args)
    ci_envs = ci_cmds.add_parser("envs", parents=[ci_common],
                                 help="a platform's environment files (envs/*-<platform>.yml)")
    ci_envs.add_argument("platform", choices=list(PLATFORMS))
    ci_envs.set_defaults(func=cmd_ci_envs)
    ci_env = ci_cmds.add_parser("env-file", help="an environment file with the local channel first")
    ci_env.add_argument("env_file", type=Path, help="envs/NAME.yml")
    ci_env.add_argument("--channel", type=Path, required=True, help="the local channel folder")
    ci_env.add_argument("--output", type=Path, required=True, help="where to write the result")
    ci_env.set_defaults(func=cmd_ci_env_file)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GpuforgeError as exc:
        print(f"gpuforge: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `gpuforge ... | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("gpuforge: interrupted", file=sys.stderr)
        return 130

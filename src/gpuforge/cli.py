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


def cmd_smoke(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console
    from rich.markup import escape

    from gpuforge.report import build_report, print_table, write_reports
    from gpuforge.smoke import Settings, run_python, run_target
    from gpuforge.targets import all_targets

    console = Console(stderr=True)
    targets = all_targets(args.envs_dir)
    if args.list:
        for t in targets:
            print(f"{t.name:24} {t.description}")
        return 0
    known = {t.name: t for t in targets}
    unknown = [n for n in args.target if n not in known]
    if unknown:
        raise GpuforgeError(f"unknown target {', '.join(unknown)}: known are {', '.join(known)}")
    chosen = [known[n] for n in args.target] if args.target else ([] if args.python else targets)
    settings = Settings(cache_dir=args.cache_dir, channel=args.channel, fresh=args.fresh,
                        iters=args.iters, steps=args.steps)
    started = time.time()

    def say(message: str) -> None:
        console.print(f"[dim]{time.time() - started:6.1f}s[/] {escape(message)}", highlight=False)

    results = [run_target(t, settings, say) for t in chosen]
    results += [run_python(p, settings, say) for p in args.python]
    report = build_report(results, started)
    out = Console()
    print_table(results, out if out.is_terminal else Console(width=140))
    json_path, xml_path = write_reports(report, args.report_dir)
    print(f"reports: {json_path} {xml_path}")
    return 1 if report["status"] == "fail" else 0


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

    smoke = commands.add_parser("smoke", help="prove each target environment runs on the GPU "
                                "(what `nox -s gpu_smoke` runs)")
    smoke.add_argument("--target", action="append", default=[],
                       help="a target to run (repeatable; default: all; see --list)")
    smoke.add_argument("--python", action="append", default=[],
                       help="also check this interpreter as it is (repeatable)")
    smoke.add_argument("--list", action="store_true", help="list the targets and exit")
    smoke.add_argument("--report-dir", type=Path, default=Path("reports"),
                       help="where gpu_smoke.json and gpu_smoke.junit.xml go (default: reports)")
    smoke.add_argument("--channel", type=Path,
                       help="a local channel of freshly built packages for the conda targets")
    smoke.add_argument("--envs-dir", type=Path, default=Path("envs"),
                       help="environment files for the conda targets (default: envs)")
    smoke.add_argument("--cache-dir", type=Path,
                       help="where target environments live (default: $GPUFORGE_CACHE or ~/.cache/gpuforge)")
    smoke.add_argument("--fresh", action="store_true",
                       help="recreate the target environments and Theano's compile cache")
    smoke.add_argument("--iters", type=int, default=1000, help="exp() loop length (default 1000)")
    smoke.add_argument("--steps", type=int, default=300,
                       help="logistic regression training steps (default 300)")
    smoke.set_defaults(func=cmd_smoke)
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

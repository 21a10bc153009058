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


def cmd_doctor(args: argparse.Namespace) -> int:
    from gpuforge import doctor
    from gpuforge.catalog import entry

    if args.explain:
        e = entry(args.explain)
        if args.json:
            print(json.dumps(dict(e.raw), indent=2, default=str))
        else:
            print("\n".join(doctor.explain(e)))
        return 0
    if args.log:
        report = doctor.doctor_log(doctor.read_log(args.log))
    elif args.facts:
        text = doctor.read_log(args.facts)
        report = doctor.diagnose_facts_report(doctor.parse_report(text, args.facts), 0.0)
    else:
        report = doctor.doctor_python(args.python or doctor.default_python(), timeout=args.timeout)
    say = (lambda line: print(line, file=sys.stderr)) if args.json else print
    if args.fix and report.findings:
        if not args.json:
            doctor.print_report(report)
        written = doctor.apply_fixes(report.findings, report.facts, args.env_file, out=say)
        if written and not (args.log or args.facts):
            say("\nafter the fixes:")
            report = doctor.doctor_python(args.python or doctor.default_python(), timeout=args.timeout)
            if not args.json:
                doctor.print_report(report)
    elif not args.json:
        doctor.print_report(report)
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    return 1 if report.findings else 0


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

    doctor = commands.add_parser(
        "doctor", help="name the known failures of an environment (or of a log) and their fixes")
    doctor.add_argument("--python", help="interpreter to probe (default: the first python on PATH, "
                                         "i.e. the activated environment's)")
    source = doctor.add_mutually_exclusive_group()
    source.add_argument("--log", metavar="FILE",
                        help="diagnose a pasted traceback or console log ('-': stdin)")
    source.add_argument("--facts", metavar="FILE",
                        help="diagnose a saved probe report (inside/probe.py's output, e.g. from Windows)")
    source.add_argument("--explain", metavar="ID", help="print a catalog entry in full")
    doctor.add_argument("--json", action="store_true",
                        help='print {"findings": [{"id", "title", "cause", "fix", "evidence", "source"}]}')
    doctor.add_argument("--fix", action="store_true",
                        help="apply the safe fixes (a .theanorc key, a pin in --env-file): diff, then an "
                             "atomic write with a .bak backup")
    doctor.add_argument("--env-file", type=Path,
                        help="environment.yml or requirements.txt that --fix may pin packages in")
    doctor.add_argument("--timeout", type=float, default=180,
                        help="seconds the probe's imports may take (default: 180)")
    doctor.set_defaults(func=cmd_doctor)
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

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
def cmd_envs_check(args: argparse.Namespace) -> int:
    from gpuforge.env_check import check_all

    result = check_all(args.envs_dir, args.recipes_dir, args.files or None, args.cuda)
    for warning in result.warnings:
        print(warning)
    for problem in result.problems:
        print(problem)
    if result.problems:
        print(f"{len(result.problems)} problem(s) in {args.envs_dir}")
        return 1
    print(f"envs check: {result.env_files} env files clean, {result.solved} solved offline "
          f"against the recipes (__cuda={result.cuda}), {result.generated} mirror files up to date")
    return 0


def cmd_envs_render(args: argparse.Namespace) -> int:
    from gpuforge.fileio import write_atomic
    from gpuforge.mirrors import MIRRORS_FILE, load_mirrors, render_condarc

    mirrors = load_mirrors(args.envs_dir / MIRRORS_FILE)
    names = list(mirrors.mirrors) if args.mirror == "all" else [args.mirror]
    for name in names:
        if name not in mirrors.mirrors:
            raise GpuforgeError(f"no mirror {name!r} (known: {', '.join(mirrors.mirrors)})",
                                mirrors.path)
        path = mirrors.generated_path(args.envs_dir, name)
        text = render_condarc(mirrors, name)
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        write_atomic(path, text)
        print(f"{path}: {'unchanged' if same else 'written'}")
    return 0


def cmd_envs_solve(args: argparse.Namespace) -> int:
    from rattler.exceptions import SolverError

    from gpuforge.env_check import Platforms
    from gpuforge.env_solve import solve_offline, solver_message
    from gpuforge.envs import load_env

    env = load_env(args.file)
    if not env.platform.endswith("-64"):
        raise GpuforgeError(env.problems[0].message, env.path, 1)
    _, outputs = Platforms(args.recipes_dir).get(env.platform)
    try:
        solved = solve_offline(env, outputs, args.cuda)
    except SolverError as exc:
        raise GpuforgeError(f"no solution ({env.platform}, __cuda={args.cuda or 'default'}): "
                            f"{solver_message(exc, keep=20)}", env.path) from None
    for pkg in solved:
        print(f"  {pkg.name:20} {pkg.version:10} {pkg.build:16} {pkg.origin}")
    print(f"{env.path}: {len(solved)} packages solve for {env.platform} against the recipes' "
          "outputs (stand-ins: versions the specs name, not what the channels carry)")
    return 0


def cmd_envs_lock(args: argparse.Namespace) -> int:
    from gpuforge.env_check import check_all, env_files
    from gpuforge.env_lock import LOCK_DIR, lock_envs
    from gpuforge.envs import load_env
    from gpuforge.mirrors import MIRRORS_FILE, load_mirrors

    files = args.files or env_files(args.envs_dir)
    checked = check_all(args.envs_dir, args.recipes_dir, files, args.cuda)
    if checked.problems:
        raise GpuforgeError(f"{checked.problems[0]} (fix what `gpuforge envs check` reports "
                            "before locking)")
    mirrors = load_mirrors(args.envs_dir / MIRRORS_FILE)
    out_dir = args.output_dir or args.envs_dir / LOCK_DIR
    for path in lock_envs([load_env(f) for f in files], mirrors, args.mirror, out_dir, args.cuda):
        print(f"wrote {path}")
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


def cmd_theanorc_show(args: argparse.Namespace) -> int:
    from gpuforge.theano_show import as_json, default_python, format_text, show

    result = show(args.python or default_python(), args.exec_code)
    print(json.dumps(as_json(result), indent=2) if args.json else format_text(result, args.all))
    return 0


def cmd_theanorc_write(args: argparse.Namespace) -> int:
    from gpuforge.theanorc import default_path, expand, write_profile

    path = expand(args.path) if args.path else default_path()
    backup = write_profile(args.profile, path)
    print(f"wrote {path} (profile {args.profile})" + (f"; the previous file is {backup}"
                                                       if backup else ""))
    return 0


def cmd_theanorc_migrate(args: argparse.Namespace) -> int:
    from gpuforge.fileio import write_atomic
    from gpuforge.theanorc import ask, default_path, expand, migrate_text, read_theanorc

    path = expand(args.path) if args.path else default_path()
    migration = migrate_text(read_theanorc(path), path)
    if not migration.notes:
        print(f"{path}: nothing to migrate (no old-backend settings)")
        return 0
    print(migration.diff(path), end="")
    print("changes:")
    for note in migration.notes:
        print(f"  {note}")
    if not (args.yes or ask(f"write {path} (the old file is kept as {path.name}.bak)? [y/N] ")):
        print(f"not written: run again with --yes to write {path}")
        return 1
    backup = write_atomic(path, migration.new)
    print(f"wrote {path}" + (f"; the previous file is {backup}" if backup else ""))
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
    envs = commands.add_parser("envs", help="check, render (mirrors), solve and lock envs/")
    envs_cmds = envs.add_subparsers(dest="envs_command", required=True)
    envs_common = argparse.ArgumentParser(add_help=False)
    envs_common.add_argument("--envs-dir", type=Path, default=Path("envs"),
                             help="folder with the env files and mirrors.yaml (default: envs)")
    envs_common.add_argument("--recipes-dir", type=Path, default=Path("recipes"),
                             help="the recipes the pins must agree with (default: recipes)")
    envs_common.add_argument("--cuda", help="CUDA version of the driver (__cuda) to solve "
                             "CUDA envs with (default: 12.0, a current driver)")
    check = envs_cmds.add_parser("check", parents=[envs_common],
                                 help="validate env files, mirrors.yaml and the generated .condarc")
    check.add_argument("files", nargs="*", type=Path, help="env files (default: envs/*.yml)")
    check.set_defaults(func=cmd_envs_check)
    env_render = envs_cmds.add_parser("render", parents=[envs_common],
                                      help="write envs/mirrors/<mirror>.condarc from mirrors.yaml")
    env_render.add_argument("--mirror", default="all", help="mirror name, or all (default)")
    env_render.set_defaults(func=cmd_envs_render)
    solve = envs_cmds.add_parser("solve", parents=[envs_common],
                                 help="solve one env file offline against the recipes' outputs")
    solve.add_argument("file", type=Path)
    solve.set_defaults(func=cmd_envs_solve)
    lock = envs_cmds.add_parser("lock", parents=[envs_common],
                                help="solve on the real channels and write envs/locks/")
    lock.add_argument("files", nargs="*", type=Path, help="env files (default: envs/*.yml)")
    lock.add_argument("--mirror", default="official", help="mirror to solve on (default: official)")
    lock.add_argument("--output-dir", type=Path, help="default: envs/locks")
    lock.set_defaults(func=cmd_envs_lock)
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

    theanorc = commands.add_parser("theanorc", help="show, write and migrate Theano's configuration")
    theanorc_cmds = theanorc.add_subparsers(dest="theanorc_command", required=True)
    show = theanorc_cmds.add_parser(
        "show", help="the effective Theano configuration and where each value came from")
    show.add_argument("--python", help="interpreter whose Theano to ask (default: `python` on PATH)")
    show.add_argument("--exec", dest="exec_code", metavar="CODE",
                      help="run CODE after importing theano (e.g. 'import myproject'): its "
                           "theano.config assignments are shown as such")
    show.add_argument("--all", action="store_true", help="list every option, defaults included")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(func=cmd_theanorc_show)
    write = theanorc_cmds.add_parser("write", help="write one of seed 003's profiles "
                                     "(atomically, keeping the old file as .bak)")
    write.add_argument("--profile", required=True, choices=["fast", "dev", "multi-gpu", "profile"])
    write.add_argument("--path", help="file to write (default: ~/.theanorc)")
    write.set_defaults(func=cmd_theanorc_write)
    migrate = theanorc_cmds.add_parser(
        "migrate", help="convert old-backend settings (device=gpu, lib.cnmem, nvcc.*) for Theano 1.0")
    migrate.add_argument("--path", help="file to migrate (default: ~/.theanorc)")
    migrate.add_argument("--yes", action="store_true", help="write without asking")
    migrate.set_defaults(func=cmd_theanorc_migrate)

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

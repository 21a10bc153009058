"""`gpuforge ci`: the CI workflow generated from the variant matrix, and its build steps."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpuforge.arguments import output_folder
from gpuforge.errors import GpuforgeError
from gpuforge.recipes.selectors import PLATFORMS


def _root(args: argparse.Namespace) -> Path:
    """--root, else the working folder: a checkout of gpuforge (its variant matrix), or one line
    naming the flag."""
    from gpuforge.ci.workflow import CONFIG

    if not (args.root / CONFIG).is_file():
        where = "the working folder" if args.root == Path(".") else f"--root {args.root}"
        raise GpuforgeError(
            f"{where} is not a gpuforge checkout (no {CONFIG.as_posix()}): run from one or pass --root DIR"
        )
    return Path(args.root)


def cmd_ci_render(args: argparse.Namespace) -> int:
    from gpuforge.ci.workflow import CONFIG, line_ending_problems, render

    _root(args)
    changes = render(args.root, check=args.check)
    for line in changes:
        print(line)
    endings = line_ending_problems(args.root)
    for line in endings:
        print(line)
    if args.check and changes:
        print(f"{len(changes)} generated file(s) differ from {CONFIG.as_posix()}: run `gpuforge ci render`")
        return 1
    if endings:
        print(f"{len(endings)} script(s) with line endings their interpreter misreads")
        return 1
    if args.check:
        print(f"ci: generated files match {CONFIG.as_posix()}")
    else:
        print(f"ci: {len(changes)} file(s) updated" if changes else "ci: nothing to update")
    return 0


def cmd_ci_matrix(args: argparse.Namespace) -> int:
    from gpuforge.ci.workflow import RUNNERS, make_plan

    plan = make_plan(_root(args))
    jobs = [
        {
            "name": j.name,
            "platform": j.platform,
            "runner": RUNNERS[j.platform],
            "stage": "variant" if j.pins else "base",
            "pins": j.pins,
            "config": j.config_path.as_posix(),
            "recipes": [r.name for r in j.recipes],
        }
        for j in plan.jobs
    ]
    if args.json:
        print(json.dumps(jobs, indent=2))
        return 0
    for job in jobs:
        print(f"{job['name']:34} {job['runner']:13} {job['stage']:8} {' '.join(job['recipes'])}")
    print(f"{len(jobs)} build jobs")
    return 0


def cmd_ci_build_args(args: argparse.Namespace) -> int:
    from gpuforge.ci.workflow import build_args

    print("\n".join(build_args(_root(args), args.job, args.channel, args.output)))
    return 0


def cmd_ci_outputs(args: argparse.Namespace) -> int:
    from gpuforge.ci.artifacts import MANIFEST, write_outputs

    rels = write_outputs(args.job, args.source, args.dest)
    for rel in rels:
        print(f"    {rel}")
    print(f"ci: {len(rels)} package(s) of {args.job} in {args.dest}, sha256 in {args.dest / MANIFEST}")
    return 0


def cmd_ci_collect(args: argparse.Namespace) -> int:
    from gpuforge.ci.artifacts import collect

    taken = collect(args.artifacts, args.channel)
    for package in taken:
        print(f"    {package.rel}  {package.sha256[:16]}...  from {package.origin}")
    print(f"ci: {len(taken)} verified package(s) in {args.channel}")
    return 0


def cmd_ci_channel_failure(args: argparse.Namespace) -> int:
    from gpuforge.channels import classify
    from gpuforge.fileio import decode_text, read_bytes

    data = read_bytes(args.log, limit=64 * 1024 * 1024)
    failure = classify(decode_text(data[-4 * 1024 * 1024 :], args.log))
    if failure is None:
        return 1
    print(failure)
    return 0


def cmd_ci_envs(args: argparse.Namespace) -> int:
    from gpuforge.ci.workflow import env_files

    for path in env_files(_root(args), args.platform):
        print(path.relative_to(args.root).as_posix())
    return 0


def cmd_ci_env_file(args: argparse.Namespace) -> int:
    from gpuforge.envs.variant import write_variant

    print(write_variant(args.env_file, args.channel, args.output))
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add `gpuforge ci` to the top-level parser."""
    ci_cmds = commands.add_parser(
        "ci", help="CI generated from the variant matrix, and its build steps"
    ).add_subparsers(dest="ci_command", required=True)
    ci_common = argparse.ArgumentParser(add_help=False)
    ci_common.add_argument(
        "--root", type=Path, default=Path("."), help="repository root (default: the current folder)"
    )
    ci_render = ci_cmds.add_parser(
        "render",
        parents=[ci_common],
        help="write ci/variants/*.yaml and the workflow's matrix from recipes/conda_build_config.yaml",
    )
    ci_render.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 when a generated file differs"
    )
    ci_render.set_defaults(func=cmd_ci_render)
    ci_matrix = ci_cmds.add_parser("matrix", parents=[ci_common], help="print the CI build jobs")
    ci_matrix.add_argument("--json", action="store_true", help="print JSON")
    ci_matrix.set_defaults(func=cmd_ci_matrix)
    ci_args = ci_cmds.add_parser(
        "build-args", parents=[ci_common], help="the `conda build` arguments of one job, one per line"
    )
    ci_args.add_argument("job", help="a job name from `gpuforge ci matrix` (e.g. linux-64)")
    ci_args.add_argument(
        "--channel",
        type=Path,
        default=Path("channel"),
        help="the local channel with what the job builds on (default: channel)",
    )
    ci_args.add_argument(
        "--output",
        type=Path,
        default=Path("build/conda-out"),
        help="conda-build's output folder (default: build/conda-out)",
    )
    ci_args.set_defaults(func=cmd_ci_build_args)
    ci_out = ci_cmds.add_parser(
        "outputs", help="a build job's packages and their sha256 (manifest.json), for its artifact"
    )
    ci_out.add_argument("job", help="the job that built them")
    ci_out.add_argument("--from", dest="source", type=Path, required=True, help="conda-build's output folder")
    ci_out.add_argument("--to", dest="dest", type=output_folder, required=True, help="the artifact folder")
    ci_out.set_defaults(func=cmd_ci_outputs)
    ci_collect = ci_cmds.add_parser(
        "collect",
        help="verify downloaded artifacts (one folder each) "
        "against their manifests and copy their packages into a channel",
    )
    ci_collect.add_argument("artifacts", type=Path, help="the folder holding one folder per artifact")
    ci_collect.add_argument("--channel", type=Path, required=True, help="the channel folder to fill")
    ci_collect.set_defaults(func=cmd_ci_collect)
    ci_fail = ci_cmds.add_parser(
        "channel-failure",
        help="the channel failure (host, HTTP status) a log reports; exit 1 when it reports none",
    )
    ci_fail.add_argument("log", type=Path, help="a command's output")
    ci_fail.set_defaults(func=cmd_ci_channel_failure)
    ci_envs = ci_cmds.add_parser(
        "envs", parents=[ci_common], help="a platform's environment files (envs/*-<platform>.yml)"
    )
    ci_envs.add_argument("platform", choices=list(PLATFORMS))
    ci_envs.set_defaults(func=cmd_ci_envs)
    ci_env = ci_cmds.add_parser("env-file", help="an environment file with the local channel first")
    ci_env.add_argument("env_file", type=Path, help="envs/NAME.yml")
    ci_env.add_argument("--channel", type=Path, required=True, help="the local channel folder")
    ci_env.add_argument("--output", type=Path, required=True, help="where to write the result")
    ci_env.set_defaults(func=cmd_ci_env_file)

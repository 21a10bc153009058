"""`gpuforge envs`: check, render, solve and lock the environment files."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from gpuforge import locations
from gpuforge.arguments import output_folder
from gpuforge.errors import GpuforgeError
from gpuforge.interpreters import host_platform


def _envs_dir(args: argparse.Namespace) -> Path:
    found = locations.repository_dir(args.envs_dir, locations.ENVS_DIR)
    assert found is not None
    return found


def _recipes_dir(args: argparse.Namespace) -> Path:
    found = locations.repository_dir(args.recipes_dir, locations.RECIPES_DIR)
    assert found is not None
    return found


def cmd_envs_check(args: argparse.Namespace) -> int:
    from gpuforge.envs.check import check_all

    args.envs_dir = _envs_dir(args)
    result = check_all(
        args.envs_dir, _recipes_dir(args), args.files or None, args.cuda, args.mirrors, args.records
    )
    for problem in result.problems:
        print(problem)
    for error in result.errors:  # unreadable or malformed files: bad input, after what the others showed
        print(f"gpuforge: error: {error}", file=sys.stderr)
    if result.errors:
        return 2
    if result.problems:
        print(f"{len(result.problems)} problem(s) in {args.envs_dir}")
        return 1
    for path, names in result.stand_ins.items():
        if names:
            print(f"{path}: stand-ins for what {locations.shown(args.records)} lacks: {', '.join(names)}")
    from gpuforge.envs.records import STALE_YEARS, load_records

    for platform, needs in result.build_needs.items():
        if needs:
            print(
                f"{locations.shown(args.records)}: the recipes' {platform} build needs no record shows "
                f"published on pkgs/main or pkgs/msys2 (not proven): {', '.join(needs)}"
            )

    stale = load_records(args.records).not_rechecked(datetime.date.today())
    if stale:
        listed = ", ".join(f"{r.name}-{r.version}-{r.build} ({r.evidence})" for r in stale)
        print(
            f"{locations.shown(args.records)}: not re-checked within {STALE_YEARS} years "
            f"(not proven still published): {listed}"
        )
    at = f"__cuda={result.cuda}" if result.cuda else "each at its driver floor"
    print(
        f"envs check: {result.env_files} env files clean, every conda spec on a real record, "
        f"{result.solved} solved offline on them ({at}), {result.floors} refused one CUDA release "
        f"below their floor, {result.generated} mirror files up to date"
    )
    return 0


def cmd_envs_render(args: argparse.Namespace) -> int:
    from gpuforge.envs.mirrors import load_mirrors, render_condarc
    from gpuforge.fileio import read_bytes, write_atomic

    envs_dir = _envs_dir(args)
    mirrors = load_mirrors(args.mirrors)
    names = list(mirrors.mirrors) if args.mirror == "all" else [args.mirror]
    for name in names:
        if name not in mirrors.mirrors:
            raise GpuforgeError(f"no mirror {name!r} (known: {', '.join(mirrors.mirrors)})", mirrors.path)
        path = mirrors.generated_path(envs_dir, name)
        text = render_condarc(mirrors, name)
        same = path.is_file() and read_bytes(path) == text.encode("utf-8")
        write_atomic(path, text)
        print(f"{path}: {'unchanged' if same else 'written'}")
    return 0


def cmd_envs_solve(args: argparse.Namespace) -> int:
    from rattler import Version
    from rattler.exceptions import SolverError

    from gpuforge.envs.envfile import load_env
    from gpuforge.envs.records import load_records
    from gpuforge.envs.solve import solve_offline, solver_message

    env = load_env(args.file)
    if not env.platform.endswith("-64"):
        raise GpuforgeError(env.problems[0].message, env.path, 1)
    if env.unparsed:
        raise GpuforgeError(f"{env.unparsed[0]} (nothing solved)")
    records = load_records(args.records)
    try:
        solved = solve_offline(env, records, args.cuda)
    except SolverError as exc:
        floor = env.driver_floor
        if floor and args.cuda and Version(args.cuda) < Version(floor):
            line = env.get("__cuda").line  # type: ignore[union-attr]
            raise GpuforgeError(
                f"needs a driver that reports CUDA >= {floor} (its `__cuda>={floor}` line); a driver "
                f"reporting CUDA {args.cuda} is older: update the NVIDIA driver (nvidia-smi shows the "
                f"CUDA it reports), or take the env file `gpuforge envs gpus --driver-cuda {args.cuda} "
                f"--cc X.Y` names (the solver: {solver_message(exc)})",
                env.path,
                line,
            ) from None
        raise GpuforgeError(
            f"no solution ({env.platform}, __cuda={args.cuda or env.driver_floor or 'default'}): "
            f"{solver_message(exc, keep=20)}",
            env.path,
        ) from None
    for pkg in solved:
        print(f"  {pkg.name:20} {pkg.version:10} {pkg.build:32} {pkg.origin}")
    stand_ins = [p.name for p in solved if p.origin == "stand-in"]
    print(
        f"{env.path}: {len(solved)} packages solve for {env.platform} on the real records of "
        f"{locations.shown(records.path)}"
        + (f"; stand-ins (not in the table): {', '.join(stand_ins)}" if stand_ins else "; no stand-ins")
    )
    pip = [d.text for d in env.pip_deps]
    if pip:
        print(f"  pip installs after the solve (not solved here): {', '.join(pip)}")
    return 0


def cmd_envs_lock(args: argparse.Namespace) -> int:
    from gpuforge.envs.check import check_all, env_files
    from gpuforge.envs.envfile import load_env
    from gpuforge.envs.lock import LOCK_DIR, lock_envs
    from gpuforge.envs.mirrors import load_mirrors

    envs_dir = _envs_dir(args)
    files = args.files or env_files(envs_dir)
    checked = check_all(envs_dir, _recipes_dir(args), files, args.cuda, args.mirrors, args.records)
    found = checked.errors + checked.problems
    refused: dict[str, str] = {}
    for problem in found:  # each env file that fails the check is not locked; the others are
        message = f"{problem} (fix what `gpuforge envs check` reports before locking)"
        if problem.path not in {str(f) for f in files}:  # mirrors.yaml, records.yaml: all envs
            raise GpuforgeError(message)
        refused.setdefault(problem.path, message)
    mirrors = load_mirrors(args.mirrors)
    out_dir = args.output_dir or envs_dir / LOCK_DIR
    envs = [load_env(f) for f in files if str(f) not in refused]
    result = lock_envs(
        envs, mirrors, args.mirror, out_dir, args.cuda, say=lambda line: print(line, file=sys.stderr)
    )
    for path in result.written:
        print(f"wrote {path}")
    failed = list(refused.values()) + list(result.failed.values())
    for message in failed:
        print(f"gpuforge: error: {message}", file=sys.stderr)
    if failed:
        names = [Path(p).name for p in refused] + [p.name for p in result.failed]
        print(
            f"envs lock: {len(files) - len(failed)} of {len(files)} env file(s) locked; "
            f"not locked: {', '.join(names)}",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_envs_gpus(args: argparse.Namespace) -> int:
    """The GPU env files (the GPU table), or the one that fits a GPU and driver."""
    from gpuforge.envs.gpu_envs import can_compile, load, pick, table

    entries = load(args.gpu_envs)
    if args.cc is None:
        print(table(entries))
        return 0
    try:
        choice = pick(args.platform, args.cc, args.driver_cuda, entries)
    except ValueError as exc:
        raise GpuforgeError(str(exc)) from None
    if choice.entry is None:
        print(f"no env file fits: {choice.reason}")
        return 1
    print(choice.reason)
    print(can_compile(choice.entry, args.cc)[1])
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add `gpuforge envs` to the top-level parser."""
    envs_cmds = commands.add_parser(
        "envs", help="check, render (mirrors), solve and lock envs/"
    ).add_subparsers(dest="envs_command", required=True)
    envs_common = argparse.ArgumentParser(add_help=False)
    envs_common.add_argument(
        "--envs-dir",
        type=Path,
        help="the checkout's folder of env files (default: ./envs)",
    )
    envs_common.add_argument(
        "--recipes-dir",
        type=Path,
        help="the recipes the pins must agree with (default: ./recipes)",
    )
    envs_common.add_argument(
        "--mirrors",
        type=Path,
        default=locations.MIRRORS,
        help="the mirror definitions (default: gpuforge's own, data/mirrors.yaml)",
    )
    envs_common.add_argument(
        "--records",
        type=Path,
        default=locations.RECORDS,
        help="the published records to solve on (default: gpuforge's own, data/records.yaml)",
    )
    envs_common.add_argument(
        "--cuda",
        help="solve as on a machine whose driver reports this CUDA (__cuda), e.g. 11.4; default: each "
        "GPU env file's own floor (its __cuda>=X.Y line), else 12.0, a current driver",
    )
    check = envs_cmds.add_parser(
        "check", parents=[envs_common], help="validate env files, the mirrors and the generated .condarc"
    )
    check.add_argument("files", nargs="*", type=Path, help="env files (default: envs/*.yml)")
    check.set_defaults(func=cmd_envs_check)
    env_render = envs_cmds.add_parser(
        "render", parents=[envs_common], help="write envs/mirrors/<mirror>.condarc from mirrors.yaml"
    )
    env_render.add_argument("--mirror", default="all", help="mirror name, or all (default)")
    env_render.set_defaults(func=cmd_envs_render)
    solve = envs_cmds.add_parser(
        "solve",
        parents=[envs_common],
        help="solve one env file offline on the real published records",
    )
    solve.add_argument("file", type=Path)
    solve.set_defaults(func=cmd_envs_solve)
    lock = envs_cmds.add_parser(
        "lock", parents=[envs_common], help="solve on the real channels and write envs/locks/"
    )
    lock.add_argument("files", nargs="*", type=Path, help="env files (default: envs/*.yml)")
    lock.add_argument("--mirror", default="official", help="mirror to solve on (default: official)")
    lock.add_argument("--output-dir", type=output_folder, help="default: envs/locks")
    lock.set_defaults(func=cmd_envs_lock)
    gpus = envs_cmds.add_parser("gpus", help="which GPU env file for which GPU and driver")
    gpus.add_argument(
        "--gpu-envs", type=Path, default=locations.GPU_ENVS, help="the GPU table (default: gpuforge's own)"
    )
    gpus.add_argument(
        "--platform",
        choices=("linux-64", "win-64"),
        default=host_platform(),
        help=f"the platform of the env files (default: this host's, {host_platform()})",
    )
    gpus.add_argument(
        "--cc",
        help="the GPU's compute capability, e.g. 8.6 (nvidia-smi --query-gpu=compute_cap --format=csv)",
    )
    gpus.add_argument("--driver-cuda", help="the CUDA version the driver reports (nvidia-smi), e.g. 12.6")
    gpus.set_defaults(func=cmd_envs_gpus)

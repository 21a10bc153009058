"""`gpuforge smoke`: prove each target environment (what `nox -s gpu_smoke` runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gpuforge import locations
from gpuforge.arguments import count, output_folder
from gpuforge.errors import GpuforgeError

NO_ENVS_DIR = (
    "the conda targets, one per env file: no envs/ folder here (run from a gpuforge checkout or pass "
    "--envs-dir)"
)


def cmd_smoke(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console
    from rich.markup import escape

    from gpuforge.interpreters import host_platform
    from gpuforge.smoke.report import build_report, print_table, summary_line, write_reports
    from gpuforge.smoke.run import Settings, run_all
    from gpuforge.smoke.targets import LINUX_HOST_NEEDS, LINUX_HOST_ONLY, LOCAL_TARGETS, all_targets

    console = Console(stderr=True, soft_wrap=True)  # progress lines stay whole lines in logs
    envs_dir = locations.repository_dir(args.envs_dir, locations.ENVS_DIR, needed=False)
    targets = all_targets(envs_dir)
    if args.list:
        for t in targets:
            print(f"{t.name:24} {t.description}")
        if envs_dir is None:
            print(f"{'env:*':24} {NO_ENVS_DIR}")
        return 0
    known = {t.name: t for t in targets}
    unknown = [n for n in args.target if n not in known]
    linux_only = [n for n in unknown if n in {t.name for t in LOCAL_TARGETS}]
    if linux_only:
        raise GpuforgeError(f"target {', '.join(linux_only)} {LINUX_HOST_ONLY}")
    if unknown:
        more = f" ({NO_ENVS_DIR})" if envs_dir is None and any(n.startswith("env:") for n in unknown) else ""
        raise GpuforgeError(f"unknown target {', '.join(unknown)}: known are {', '.join(known)}{more}")
    chosen = [known[n] for n in args.target] if args.target else ([] if args.python else targets)
    settings = Settings(
        cache_dir=args.cache_dir,
        channel=args.channel,
        fresh=args.fresh,
        iters=args.iters,
        steps=args.steps,
        check_timeout=args.check_timeout,
    )
    started = time.time()

    def say(message: str) -> None:
        console.print(f"[dim]{time.time() - started:6.1f}s[/] {escape(message)}", highlight=False)

    if host_platform() != "linux-64" and not args.target:
        say(
            f"the local targets ({', '.join(t.name for t in LOCAL_TARGETS)}) run on a Linux host "
            f"only ({LINUX_HOST_NEEDS}): not run here"
        )

    results = run_all(chosen, args.python, settings, say, args.jobs)
    report = build_report(results, started)
    out = Console()
    print_table(results, out if out.is_terminal else Console(width=140))
    json_path, xml_path = write_reports(report, args.report_dir)
    print(f"reports: {json_path} {xml_path}")
    print(summary_line(results))
    return 1 if report["status"] == "fail" else 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add `gpuforge smoke` to the top-level parser."""
    smoke = commands.add_parser(
        "smoke", help="prove each target environment runs on the GPU (what `nox -s gpu_smoke` runs)"
    )
    smoke.add_argument(
        "--target", action="append", default=[], help="a target to run (repeatable; default: all; see --list)"
    )
    smoke.add_argument(
        "--python", action="append", default=[], help="also check this interpreter as it is (repeatable)"
    )
    smoke.add_argument("--list", action="store_true", help="list the targets and exit")
    smoke.add_argument(
        "--jobs",
        type=count(1),
        metavar="N",
        help="targets run at once (default: one per core; 1 runs them one after another)",
    )
    smoke.add_argument(
        "--report-dir",
        type=output_folder,
        default=Path("reports"),
        help="where gpu_smoke.json and gpu_smoke.junit.xml go (default: reports)",
    )
    smoke.add_argument(
        "--channel", type=Path, help="a local channel of freshly built packages for the conda targets"
    )
    smoke.add_argument(
        "--envs-dir",
        type=Path,
        help="the checkout's env files, one conda target each (default: ./envs)",
    )
    smoke.add_argument(
        "--cache-dir",
        type=Path,
        help="where target environments live (default: $GPUFORGE_CACHE or ~/.cache/gpuforge)",
    )
    smoke.add_argument(
        "--fresh", action="store_true", help="recreate the target environments and Theano's compile cache"
    )
    smoke.add_argument("--iters", type=count(1), default=1000, help="exp() loop length (default 1000)")
    smoke.add_argument(
        "--steps", type=count(1), default=300, help="logistic regression training steps (default 300)"
    )
    smoke.add_argument(
        "--check-timeout",
        type=count(1),
        default=600,
        help="seconds a process of checks may run; past it the check it is in fails as hung and the "
        "checks after it run in a new process (default 600)",
    )
    smoke.set_defaults(func=cmd_smoke)

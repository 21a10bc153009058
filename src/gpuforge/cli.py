"""The gpuforge command line."""

from __future__ import annotations

import argparse
import sys

from gpuforge import __version__
from gpuforge.ci import cli as ci_cli
from gpuforge.doctor import cli as doctor_cli
from gpuforge.envs import cli as envs_cli
from gpuforge.errors import GpuforgeError
from gpuforge.recipes import cli as recipes_cli
from gpuforge.smoke import cli as smoke_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuforge", description=__doc__)
    parser.add_argument("--version", action="version", version=f"gpuforge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for concern in (recipes_cli, smoke_cli, envs_cli, ci_cli, doctor_cli):
        concern.add_commands(commands)
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

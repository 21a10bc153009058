"""`gpuforge doctor` and `gpuforge theanorc`: name known failures, show and fix Theano's configuration."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpuforge.arguments import seconds


def cmd_theanorc_show(args: argparse.Namespace) -> int:
    from gpuforge.doctor.theano_show import as_json, format_text, show
    from gpuforge.interpreters import default_python

    result = show(args.python or default_python(), args.exec_code)
    print(json.dumps(as_json(result), indent=2) if args.json else format_text(result, args.all))
    return 0


def cmd_theanorc_write(args: argparse.Namespace) -> int:
    from gpuforge.doctor.theanorc import default_path, expand, write_profile
    from gpuforge.locks import FileLock

    path = expand(args.path) if args.path else default_path()
    with FileLock(path.parent, f"another write of {path}", folder=True):
        written = write_profile(args.profile, path)
    print(
        written.said(
            backup=f" (profile {args.profile}); the previous file is {{}}", new=f" (profile {args.profile})"
        )
    )
    return 0


def cmd_theanorc_migrate(args: argparse.Namespace) -> int:
    from gpuforge.doctor.theanorc import default_path, expand
    from gpuforge.locks import FileLock

    path = expand(args.path) if args.path else default_path()
    with FileLock(path.parent, f"another write of {path}", folder=True):  # read, ask and write as one step
        return migrate(path, args.yes)


def migrate(path: Path, yes: bool) -> int:
    from gpuforge.doctor.theanorc import ask, migrate_text, read_theanorc
    from gpuforge.fileio import write_file

    migration = migrate_text(read_theanorc(path), path)
    if not migration.notes:
        print(f"{path}: nothing to migrate (no old-backend settings)")
        return 0
    print(migration.diff(path), end="")
    print("changes:")
    for note in migration.notes:
        print(f"  {note}")
    if not (yes or ask(f"write {path} (the old file is kept as {path.name}.bak)? [y/N] ")):
        print(f"not written: run again with --yes to write {path}")
        return 1
    print(write_file(path, migration.new).said())
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from gpuforge.doctor.catalog import entry
    from gpuforge.doctor.fix import apply_fixes, show_foreign_fixes
    from gpuforge.doctor.logs import read_log
    from gpuforge.doctor.probe import parse_report
    from gpuforge.doctor.report import diagnose_facts_report, doctor_log, doctor_python, explain, print_report
    from gpuforge.fileio import read_text
    from gpuforge.interpreters import default_python

    if args.explain:
        e = entry(args.explain)
        if args.json:
            print(json.dumps(dict(e.raw), indent=2, default=str))
        else:
            print("\n".join(explain(e)))
        return 0
    if args.log:
        report = doctor_log(read_log(args.log))
    elif args.facts:
        start = time.monotonic()
        text = read_log("-") if args.facts == "-" else read_text(args.facts)
        report = diagnose_facts_report(parse_report(text, args.facts), start)
    else:
        report = doctor_python(args.python or default_python(), timeout=args.timeout)
    say = (lambda line: print(line, file=sys.stderr)) if args.json else print
    if args.fix and report.findings and args.facts:  # foreign data: shown, never applied here
        if not args.json:
            print_report(report)
        show_foreign_fixes(report.findings, report.facts or {}, out=say)
    elif args.fix and report.findings:
        if not args.json:
            print_report(report)
        written = apply_fixes(report.findings, report.facts, args.env_file, out=say)
        if written and not (args.log or args.facts):
            say("\nafter the fixes:")
            report = doctor_python(args.python or default_python(), timeout=args.timeout)
            if not args.json:
                print_report(report)
    elif not args.json:
        print_report(report)
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    return 1 if report.findings else 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add `gpuforge theanorc / doctor` to the top-level parser."""
    theanorc_cmds = commands.add_parser(
        "theanorc", help="show, write and migrate Theano's configuration"
    ).add_subparsers(dest="theanorc_command", required=True)
    show = theanorc_cmds.add_parser(
        "show", help="the effective Theano configuration and where each value came from"
    )
    show.add_argument("--python", help="interpreter whose Theano to ask (default: `python` on PATH)")
    show.add_argument(
        "--exec",
        dest="exec_code",
        metavar="CODE",
        help="run CODE after importing theano (e.g. 'import myproject'): its "
        "theano.config assignments are shown as such",
    )
    show.add_argument("--all", action="store_true", help="list every option, defaults included")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(func=cmd_theanorc_show)
    write = theanorc_cmds.add_parser(
        "write", help="write one of seed 003's profiles (atomically, keeping the old file as .bak)"
    )
    write.add_argument("--profile", required=True, choices=["fast", "dev", "multi-gpu", "profile"])
    write.add_argument("--path", help="file to write (default: ~/.theanorc)")
    write.set_defaults(func=cmd_theanorc_write)
    migrate = theanorc_cmds.add_parser(
        "migrate", help="convert old-backend settings (device=gpu, lib.cnmem, nvcc.*) for Theano 1.0"
    )
    migrate.add_argument("--path", help="file to migrate (default: ~/.theanorc)")
    migrate.add_argument("--yes", action="store_true", help="write without asking")
    migrate.set_defaults(func=cmd_theanorc_migrate)

    doctor = commands.add_parser(
        "doctor", help="name the known failures of an environment (or of a log) and their fixes"
    )
    doctor.add_argument(
        "--python",
        help="interpreter to probe (default: the first python on PATH, i.e. the activated environment's)",
    )
    source = doctor.add_mutually_exclusive_group()
    source.add_argument(
        "--log", metavar="FILE", help="diagnose a pasted traceback or console log ('-': stdin)"
    )
    source.add_argument(
        "--facts",
        metavar="FILE",
        help="diagnose a saved probe report (inside/probe.py's output, e.g. from Windows)",
    )
    source.add_argument("--explain", metavar="ID", help="print a catalog entry in full")
    doctor.add_argument(
        "--json",
        action="store_true",
        help='print {"findings": [{"id", "title", "cause", "fix", "evidence", "source"}]}',
    )
    doctor.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes (a .theanorc key, a pin in --env-file): diff, then an "
        "atomic write with a .bak backup; with --facts, show them for the machine that made the "
        "report (nothing is written here)",
    )
    doctor.add_argument(
        "--env-file", type=Path, help="environment.yml or requirements.txt that --fix may pin packages in"
    )
    doctor.add_argument(
        "--timeout",
        type=seconds,
        default=180,
        help="seconds the whole probe may take, the imports included (default: 180)",
    )
    doctor.set_defaults(func=cmd_doctor)

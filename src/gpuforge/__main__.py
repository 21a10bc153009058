"""`gpuforge` and `python -m gpuforge`: signals handled before anything heavy is imported,
so a Ctrl-C or SIGTERM in the first moment is one line too, never a traceback."""

import sys


def main() -> None:
    from gpuforge import processes

    processes.install_signal_handlers()
    try:
        from gpuforge.cli import run
    except KeyboardInterrupt as exc:  # while importing
        print(f"gpuforge: {getattr(exc, 'message', 'interrupted')}", file=sys.stderr)
        raise SystemExit(getattr(exc, "exit_status", 130)) from None
    run()


if __name__ == "__main__":
    main()

"""`nox -s bench_limits`: the commands that read a user's file, at fileio's input limit (4 MiB)
and at an eighth of it, each as one real CLI process: `theanorc migrate`, `recipes lint`,
`recipes render` and `doctor --log`. Linear time is a ratio near 8 between the two; a quadratic
step shows as about 64.

    python tools/bench_limits.py [--out-dir reports/bench]

Writes limits.json and prints one table. Every number comes from this one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gpuforge.fileio import MAX_INPUT_BYTES, write_atomic

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"1/8 of the limit": MAX_INPUT_BYTES // 8, "the limit": MAX_INPUT_BYTES - 4096}


def fill(head: str, line: Callable[[int], str], size: int) -> str:
    """``head`` then numbered lines up to ``size`` bytes (whole lines)."""
    parts, n, total = [head], 0, len(head)
    while True:
        text = line(n)
        if total + len(text) > size:
            return "".join(parts)
        parts.append(text)
        total += len(text)
        n += 1


def theanorc(size: int) -> str:
    """An old-backend .theanorc: every key is one migrate rewrites (the [nvcc] keys are dropped)."""
    return fill("[global]\ndevice = gpu\n[nvcc]\n", lambda n: f"flag{n} = -O2\n", size)


def meta_yaml(size: int) -> str:
    """pygpu's recipe with a long comment block (YAML's node limit bounds everything else)."""
    own = (ROOT / "recipes" / "pygpu" / "meta.yaml").read_text()
    return fill(own, lambda n: f"# note {n}: " + "x" * 60 + "\n", size)


def log(size: int) -> str:
    """Real logs of tests/data/logs, repeated."""
    folder = ROOT / "tests" / "data" / "logs"
    blob = "\n".join(p.read_text(errors="replace") for p in sorted(folder.glob("*.txt")))
    return fill("", lambda n: blob.splitlines(keepends=True)[n % len(blob.splitlines())], size)


def blank_log(size: int) -> str:
    """A log of empty lines after its first: the shape on which a `^\\s*` pattern (it runs over
    every line break after it) turns quadratic."""
    return fill("import theano\n", lambda n: "\n", size)


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"bench_limits: gpuforge {' '.join(args)} exit {proc.returncode}: {proc.stderr[-800:]}"
        )
    return seconds, proc.returncode


def table(results: dict[str, dict[str, float]]) -> list[str]:
    """The Markdown table of one run (docs/performance.md shows it from docs/data/limits.json)."""
    lines = [
        "| command | 1/8 of the limit (s) | the limit, 4 MiB (s) | ratio (linear: 8) |",
        "|---|---|---|---|",
    ]
    for name, t in results.items():
        lines.append(f"| {name} | {t['1/8 of the limit']:.2f} | {t['the limit']:.2f} | {t['ratio']:.1f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("reports/bench"))
    args = parser.parse_args(argv)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="gpuforge-limits-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, HOME=str(work))
        shutil.copytree(ROOT / "recipes", work / "recipes")
        for label, size in SIZES.items():
            (work / ".theanorc").write_text(theanorc(size))
            (work / "recipes" / "pygpu" / "meta.yaml").write_text(meta_yaml(size))
            (work / "doctor.log").write_text(log(size))
            (work / "blank.log").write_text(blank_log(size))
            cases = {
                "theanorc migrate": ["theanorc", "migrate", "--path", str(work / ".theanorc"), "--yes"],
                "recipes lint": [
                    "recipes",
                    "lint",
                    "pygpu",
                    "--recipes-dir",
                    "recipes",
                    "--conda-smithy",
                    "skip",
                ],
                "recipes render": ["recipes", "render", "pygpu", "--recipes-dir", "recipes"],
                "doctor --log": ["doctor", "--log", "doctor.log"],
                "doctor --log (empty lines)": ["doctor", "--log", "blank.log"],
            }
            for name, case in cases.items():
                seconds, _ = run(case, work, env)
                results.setdefault(name, {})[label] = round(seconds, 2)
                print(f"  {name} at {label} ({size / 1024 / 1024:.2f} MiB): {seconds:.2f} s", file=sys.stderr)
    for times in results.values():
        small, big = times["1/8 of the limit"], times["the limit"]
        times["ratio"] = round(big / small, 1) if small else float("nan")
    print("\n".join(table(results)))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out_dir / "limits.json", json.dumps(results, indent=2) + "\n", backup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`nox -s bench`: cold and warm gpu_smoke per local target, each check against numpy,
and the doctor's own time in each target.

    python -m gpuforge.smoke.bench [--out-dir reports/bench] [--target NAME ...]

Cold: a fresh cache folder, so the environment is made and Theano compiles
everything. Warm: the same command again. Every number comes from one run
and is written to bench.json, with a chart in bench.png.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gpuforge.fileio import write_atomic
from gpuforge.smoke.targets import LOCAL_TARGETS, ensure_env, missing_needs

# check -> (its time field, the numpy baseline field) in the check's JSON
TIMED = {"exp": ("loop_seconds", "numpy_seconds"),
         "transfer": ("kept_on_device_seconds", "copied_back_seconds"),
         "logreg": ("seconds", "numpy_seconds"),
         "pygpu": ("seconds_on_device", "numpy_seconds")}


def time_smoke(target: str, cache: Path, report_dir: Path) -> tuple[float, dict[str, Any]]:
    """Wall time of one real `gpuforge smoke --target TARGET`, and its report."""
    cmd = [sys.executable, "-m", "gpuforge", "smoke", "--target", target, "--cache-dir", str(cache),
           "--report-dir", str(report_dir)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    report = json.loads((report_dir / "gpu_smoke.json").read_text())
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n", file=sys.stderr)
    return seconds, report


def check_ratios(report: dict[str, Any]) -> dict[str, dict[str, float]]:
    out = {}
    for check in report["targets"][0]["checks"]:
        fields = TIMED.get(check["check"])
        if not fields or check["status"] != "pass":
            continue
        mine, base = (check.get(f) for f in fields)
        if mine and base:
            out[check["check"]] = {"seconds": mine, "baseline_seconds": base,
                                   "baseline": "numpy" if fields[1] == "numpy_seconds" else "copied back",
                                   "ratio": mine / base}
    return out


def doctor_seconds(target: str, cache: Path) -> float:
    """The doctor's own time (probe, Theano's import, matching) in a made target env."""
    from gpuforge.doctor.examine import time_doctor

    tenv = ensure_env(next(t for t in LOCAL_TARGETS if t.name == target), cache, say=lambda _: None)
    return time_doctor(str(tenv.python), cwd=tenv.root, env=tenv.env())


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    targets = list(result["targets"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    ys = range(len(targets))
    left.barh([y + 0.2 for y in ys], [result["targets"][t]["cold_seconds"] for t in targets],
              height=0.4, label="cold")
    left.barh([y - 0.2 for y in ys], [result["targets"][t]["warm_seconds"] for t in targets],
              height=0.4, label="warm")
    left.set_yticks(list(ys), targets)
    left.set_xlabel("gpuforge smoke, seconds")
    left.legend()
    rows = [(f"{t}:{c}", v["ratio"]) for t in targets
            for c, v in result["targets"][t]["checks"].items()]
    right.barh([r[0] for r in rows], [r[1] for r in rows])
    right.axvline(1.0, color="grey", linewidth=0.8)
    right.set_xscale("log")
    right.set_xlabel("check time / baseline time (numpy; transfer: copied back)")
    fig.suptitle(f"gpuforge bench {result['date']} ({os.cpu_count()} cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuforge.smoke.bench", description=__doc__)
    parser.add_argument("--out-dir", type=Path, default=Path("reports/bench"))
    parser.add_argument("--target", action="append", default=[])
    args = parser.parse_args(argv)
    names = args.target or [t.name for t in LOCAL_TARGETS if not missing_needs(t)]
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(),
                              "targets": {}}
    for name in names:
        with tempfile.TemporaryDirectory(prefix="gpuforge-bench-") as cache:
            print(f"bench: {name} cold ...", flush=True)
            cold, _ = time_smoke(name, Path(cache), args.out_dir / f"{name}-cold")
            print(f"bench: {name} warm ...", flush=True)
            warm, report = time_smoke(name, Path(cache), args.out_dir / f"{name}-warm")
            doctor = doctor_seconds(name, Path(cache))
        result["targets"][name] = {"status": report["targets"][0]["status"], "cold_seconds": cold,
                                   "warm_seconds": warm, "doctor_seconds": doctor,
                                   "checks": check_ratios(report)}
        print(f"bench: {name}: cold {cold:.1f}s, warm {warm:.1f}s, doctor {doctor:.1f}s", flush=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out_dir / "bench.json", json.dumps(result, indent=2) + "\n", backup=False)
    chart(result, args.out_dir / "bench.png")
    for name, t in result["targets"].items():
        ratios = ", ".join(f"{c} {v['ratio']:.1f}x {v['baseline']}" for c, v in t["checks"].items())
        print(f"{name:8} {t['status']:5} cold {t['cold_seconds']:6.1f}s warm {t['warm_seconds']:5.1f}s"
              f" doctor {t['doctor_seconds']:4.1f}s  {ratios}")
    print(f"wrote {args.out_dir / 'bench.json'} and {args.out_dir / 'bench.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

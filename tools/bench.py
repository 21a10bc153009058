"""`nox -s bench`: gpu_smoke cold and warm over every local target (run as users run it:
targets concurrently), each target's time and checks against numpy, the doctor's own time,
and, with `--baseline REF`, the same runs by an earlier commit's code, as ratios.

    python tools/bench.py [--out-dir reports/bench] [--target NAME ...] [--baseline REF]

Cold: a fresh cache folder, so every environment is made and Theano compiles everything.
Warm: the same command again. The baseline runs the code of REF (`git archive REF src`)
with this interpreter, each with its own fresh cache, in the same run. Every number comes
from one run and is written to bench.json, with a chart in bench.png.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from gpuforge.fileio import write_atomic
from gpuforge.smoke.targets import LOCAL_TARGETS, ensure_env, missing_needs

# check -> (its time field, the numpy baseline field) in the check's JSON
TIMED = {
    "exp": ("loop_seconds", "numpy_seconds"),
    "transfer": ("kept_on_device_seconds", "copied_back_seconds"),
    "logreg": ("train_seconds", "numpy_seconds"),
    "pygpu": ("seconds_on_device", "numpy_seconds"),
}


def time_smoke(
    targets: list[str], cache: Path, report_dir: Path, src: Path | None = None
) -> tuple[float, dict[str, Any]]:
    """Wall time and report of one real `gpuforge smoke --target ...` (``src``: another checkout's code)."""
    cmd = [
        sys.executable,
        "-m",
        "gpuforge",
        "smoke",
        "--cache-dir",
        str(cache),
        "--report-dir",
        str(report_dir),
    ]
    for name in targets:
        cmd += ["--target", name]
    env = dict(os.environ, PYTHONPATH=str(src)) if src else None
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if not (report_dir / "gpu_smoke.json").is_file():
        raise SystemExit(f"bench: {' '.join(cmd)} wrote no report:\n{proc.stderr[-3000:]}")
    report = json.loads((report_dir / "gpu_smoke.json").read_text())
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n", file=sys.stderr)
    return seconds, report


def baseline_src(ref: str, into: Path) -> Path:
    """``ref``'s src/ folder, unpacked from git (the code an earlier layout ran)."""
    proc = subprocess.run(["git", "archive", ref, "src"], capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: --baseline {ref}: {proc.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def facts_seconds(out_dir: Path) -> dict[str, float]:
    """`gpuforge doctor --facts FILE`: the time it prints and the wall time of the whole command."""
    from gpuforge.doctor.probe import run_probe

    facts = out_dir / "probe.json"
    facts.write_text(json.dumps(run_probe(sys.executable, timeout=120, cwd=out_dir)), encoding="utf-8")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", "doctor", "--facts", str(facts)], capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    printed = re.search(r"\((\d+\.\d+) s\)", proc.stdout)
    return {"printed_seconds": float(printed.group(1)) if printed else -1.0, "wall_seconds": wall}


def check_ratios(target: dict[str, Any]) -> dict[str, dict[str, float]]:
    out = {}
    for check in target["checks"]:
        fields = TIMED.get(check["check"])
        if not fields or check["status"] != "pass":
            continue
        mine, base = (check.get(f) for f in fields)
        if mine and base:
            out[check["check"]] = {
                "seconds": mine,
                "baseline_seconds": base,
                "baseline": "numpy" if fields[1] == "numpy_seconds" else "copied back",
                "ratio": mine / base,
            }
    return out


def doctor_seconds(target: str, cache: Path) -> float:
    """The doctor's own time (probe, Theano's import, matching) in a made target env."""
    from gpuforge.doctor.report import doctor_python

    tenv = ensure_env(next(t for t in LOCAL_TARGETS if t.name == target), cache, say=lambda _: None)
    start = time.monotonic()  # a full `gpuforge doctor --python`: probe, imports, matching
    doctor_python(str(tenv.python), cwd=tenv.root, env=tenv.env())
    return time.monotonic() - start


GOALS = {"warm": 10.0, "warm_with_windows": 15.0, "cold": 90.0}  # seconds (the layout-and-speed issue)


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    runs = result["runs"]
    labels = list(runs)
    ys = range(len(labels))
    left.barh([y + 0.2 for y in ys], [runs[k]["seconds"] for k in labels], height=0.4, label="this code")
    if any("baseline_seconds" in runs[k] for k in labels):
        left.barh(
            [y - 0.2 for y in ys],
            [runs[k].get("baseline_seconds", 0.0) for k in labels],
            height=0.4,
            label=f"baseline {result['baseline']}",
        )
    left.set_yticks(list(ys), labels)
    left.set_xlabel("gpuforge smoke, seconds")
    left.legend()
    rows = [(f"{t}:{c}", v["ratio"]) for t, tv in result["targets"].items() for c, v in tv["checks"].items()]
    right.barh([r[0] for r in rows], [r[1] for r in rows])
    right.axvline(1.0, color="grey", linewidth=0.8)
    right.set_xscale("log")
    right.set_xlabel("check time / baseline time (numpy; transfer: copied back)")
    fig.suptitle(f"gpuforge bench {result['date']} ({result['cores']} cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bench.py", description=__doc__)
    parser.add_argument("--out-dir", type=Path, default=Path("reports/bench"))
    parser.add_argument("--target", action="append", default=[])
    parser.add_argument(
        "--baseline",
        metavar="REF",
        help="also run REF's code (a git commit of this repository) on the Linux targets and report ratios",
    )
    args = parser.parse_args(argv)
    # mockgpu proves compiling against a mock driver, not performance: not benched
    names = args.target or [t.name for t in LOCAL_TARGETS if not missing_needs(t) and t.name != "mockgpu"]
    linux = [n for n in names if n != "windows"]
    # what is timed: every target (the windows goal), and the Linux ones alone (their goal, and
    # what an earlier layout, which had no windows target, can be compared on)
    sets = {f"all {len(names)} targets": names}
    if linux != names:
        sets[f"{len(linux)} Linux targets"] = linux
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "cores": os.cpu_count(),
        "targets_run": names,
        "baseline": args.baseline,
        "runs": {},
        "targets": {},
    }
    with tempfile.TemporaryDirectory(prefix="gpuforge-bench-") as tmp:
        old_src = baseline_src(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        plan: list[tuple[str, str, list[str], Path | None]] = [
            ("this code", label, chosen, None) for label, chosen in sets.items()
        ]
        if old_src:
            plan.append(("baseline", list(sets)[-1], linux, old_src))
        for who, label, chosen, src in plan:
            cache = Path(tmp) / f"cache-{who}-{label}".replace(" ", "-")
            for run in ("cold", "warm"):
                key = f"{run}, {label}"
                print(f"bench: {who}, {key}: gpuforge smoke {' '.join(chosen)} ...", flush=True)
                folder = out / f"{who}-{run}-{len(chosen)}".replace(" ", "-")
                seconds, report = time_smoke(chosen, cache, folder, src)
                entry = result["runs"].setdefault(key, {"targets": chosen})
                entry["seconds" if src is None else "baseline_seconds"] = seconds
                print(f"bench: {who}, {key}: {seconds:.1f}s ({report['status']})", flush=True)
                if src is None and run == "warm" and chosen == names:
                    for t in report["targets"]:
                        result["targets"][t["name"]] = {
                            "status": t["status"],
                            "warm_seconds": t["seconds"],
                            "doctor_seconds": doctor_seconds(t["name"], cache)
                            if t["status"] != "skip"
                            else 0.0,
                            "checks": check_ratios(t),
                        }
    for key, run in result["runs"].items():
        if "baseline_seconds" in run:
            run["ratio"] = run["seconds"] / run["baseline_seconds"]
        if key.startswith("cold"):
            run["goal_seconds"] = GOALS["cold"]
        else:
            run["goal_seconds"] = GOALS["warm_with_windows"] if "windows" in run["targets"] else GOALS["warm"]
        run["goal_met"] = run["seconds"] <= run["goal_seconds"]
    result["doctor_facts"] = facts_seconds(out)
    write_atomic(out / "bench.json", json.dumps(result, indent=2) + "\n", backup=False)
    chart(result, out / "bench.png")
    print_tables(result)
    print(f"wrote {out / 'bench.json'} and {out / 'bench.png'}")
    return 0


def print_tables(result: dict[str, Any]) -> None:
    """The tables of docs/performance.md, as Markdown (docs/generate.py rebuilds them from bench.json)."""
    base = result["baseline"]
    old = "baseline " + base if base else "baseline"
    print(f"\n| gpuforge smoke | targets | this code | {old} | ratio | goal |")
    print("|---|---|---|---|---|---|")
    for run, v in result["runs"].items():
        met = "met" if v["goal_met"] else "missed"
        then = f"{v['baseline_seconds']:.1f} s" if "baseline_seconds" in v else "-"
        ratio = f"{v['ratio']:.2f}x" if "ratio" in v else "-"
        print(
            f"| {run} | {', '.join(v['targets'])} | {v['seconds']:.1f} s | {then} | {ratio} "
            f"| <= {v['goal_seconds']:.0f} s: {met} |"
        )
    facts = result["doctor_facts"]
    print(
        f"\n`gpuforge doctor --facts FILE`: prints {facts['printed_seconds']:.1f} s; "
        f"the whole command took {facts['wall_seconds']:.1f} s\n"
    )
    print(
        "| target | warm (in the concurrent run) | doctor | exp vs numpy | logreg vs numpy | "
        "transfer: kept on device / copied back |"
    )
    print("|---|---|---|---|---|---|")
    for name, t in result["targets"].items():
        cells = []
        for check in ("exp", "logreg", "transfer"):
            c = t["checks"].get(check)
            cells.append(
                f"{c['seconds']:.2f} s / {c['baseline_seconds']:.3f} s = {c['ratio']:.2g}x" if c else "-"
            )
        print(f"| {name} | {t['warm_seconds']:.1f} s | {t['doctor_seconds']:.1f} s | {' | '.join(cells)} |")


if __name__ == "__main__":
    raise SystemExit(main())

"""Score reports on the rules of an earlier commit: a sealed round as it was scored, counted
with today's labels (the relabels since) and by `decidable`.

    python tools/score_at.py COMMIT FOLDER [FOLDER ...]

The commit's tree is checked out with `git worktree` into a temporary folder (removed after);
its doctor reads each report's text (today's reader parses the headers, which an older reader
may refuse), and today's tally counts the outcomes: a round's frozen rules against what the
text decides (docs/doctor-evaluation.md, "What the text decides").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from doctor_eval import Tally, count, read_report, report_files, side_by_side, verdict_of

from gpuforge.doctor.catalog import load_catalog
from gpuforge.errors import GpuforgeError

ROOT = Path(__file__).resolve().parents[1]
# run in the commit's tree: its catalog's ids, and its doctor's findings for each text as (id,
# candidates if undecided)
FINDINGS_AT = """
import json, sys
sys.path.insert(0, "src")
from gpuforge.doctor.catalog import load_catalog
from gpuforge.doctor.log_facts import diagnose_log
texts = json.load(sys.stdin)
found = [[[f.id, list(f.entry.candidates) if f.undecided else []] for f in diagnose_log(t)] for t in texts]
json.dump({"ids": [e.id for e in load_catalog()], "found": found}, sys.stdout)
"""
ORDER = ("yes", "partly", "no", "(not judged)", "all")


def findings_at(commit: str, texts: list[str]) -> tuple[set[str], list[list[tuple[str, list[str]]]]]:
    """The commit's catalog ids, and each text's findings on its rules."""
    with tempfile.TemporaryDirectory(prefix="gpuforge-score-at-") as tmp:
        tree = Path(tmp) / "tree"
        added = subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit],
            capture_output=True,
            text=True,
        )
        if added.returncode:
            raise GpuforgeError(f"git worktree add {commit}: {added.stderr.strip().splitlines()[-1]}")
        try:
            run = subprocess.run(
                [sys.executable, "-c", FINDINGS_AT],
                cwd=tree,
                input=json.dumps(texts),
                capture_output=True,
                text=True,
            )
            if run.returncode:
                raise GpuforgeError(f"the doctor at {commit}: {run.stderr.strip().splitlines()[-1]}")
            answer = json.loads(run.stdout)
            return set(answer["ids"]), [[(i, c) for i, c in found] for found in answer["found"]]
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True
            )


def tallies(commit: str, folders: list[Path]) -> dict[str, Tally]:
    """Per `decidable` class (and all), the reports' outcomes on the commit's rules; a report
    is in the catalog where its label is an id of both catalogs (today's and the commit's)."""
    reports = [read_report(p) for p in report_files(folders)]
    then, answers = findings_at(commit, [r.text for r in reports])
    ids = then & {e.id for e in load_catalog()}
    rows: dict[str, Tally] = {}
    for report, found in zip(reports, answers, strict=True):
        first = (found[0][0], tuple(found[0][1])) if found else None
        verdict = verdict_of(report.expected, ids, first)
        named = report.expected in [i for f, candidates in found for i in (f, *candidates)]
        for key in (report.decidable or "(not judged)", "all"):
            count(rows.setdefault(key, Tally()), report.expected in ids, verdict, named)
    return {k: rows[k] for k in ORDER if k in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="score_at", description=__doc__.split("\n\n")[0])
    parser.add_argument("commit")
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args(argv)
    try:
        rows = tallies(args.commit, args.folders)
    except GpuforgeError as exc:
        print(f"score_at: error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(side_by_side({f"{args.commit}, decidable {k}": t for k, t in rows.items()})))
    return 0


if __name__ == "__main__":
    sys.exit(main())

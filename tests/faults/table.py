"""The fault suite's table: one Row a case, and the Markdown table `nox -s faults` writes.

Kept apart from the harness (no pytest) so that docs/generate.py rebuilds the docs' table from
the committed faults.json with this same code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Row:
    family: str
    case: str
    exit: str
    traceback: bool
    state: str  # what was left on disk, checked
    rerun: str  # "recovered", "not needed", or what went wrong
    seconds: float
    ok: bool


def table(rows: list[Row]) -> str:
    lines = [
        "| family | case | exit | traceback | state on disk | rerun | s | result |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.family} | {r.case.replace('|', '/')} | {r.exit} | {'yes' if r.traceback else 'no'} | "
            f"{r.state} | {r.rerun} | {r.seconds:.1f} | {'ok' if r.ok else '**FAIL**'} |"
        )
    families = sorted({r.family for r in rows}, key=[r.family for r in rows].index)
    lines += ["", "| family | cases | ok | tracebacks | failed |", "|---|---|---|---|---|"]
    for fam in [*families, "all"]:
        rs = [r for r in rows if fam in ("all", r.family)]
        lines.append(
            f"| {fam} | {len(rs)} | {sum(r.ok for r in rs)} | {sum(r.traceback for r in rs)} "
            f"| {sum(not r.ok for r in rs)} |"
        )
    return "\n".join(lines) + "\n"

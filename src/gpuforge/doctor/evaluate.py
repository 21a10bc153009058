"""Score the doctor on real user reports: `nox -s doctor_eval` (python -m gpuforge.doctor.evaluate).

A report (tests/data/reports/*/*.txt) is one user's text exactly as posted, under
a header written by whoever collected it:

    # url: <where it was posted>
    # source: <theano | libgpuarray | pytorch | mxnet | qa ...>
    # expected: <the catalog id the thread established, or none>
    # cause: <what the thread established, and who said so>
    # ---
    <the user's text>

Measures, per source and in all (``in catalog``: reports whose expected id is a catalog id):
  first right  the first finding is the expected id (share of in-catalog reports);
  recall       the expected id is among the findings or the candidates (same share);
  undecided    the first finding is a list of candidates (an honest "one of these");
  abstained    no finding at all;
  false alarm  a finding on a report whose expected id is not in the catalog (none or a
               cause it lacks), or a first finding that is wrong (an undecided one counts
               only when its candidates miss the expected id).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuforge.doctor.catalog import Finding, diagnose_text, load_catalog, pattern_set
from gpuforge.errors import GpuforgeError

REPORTS = Path(__file__).resolve().parents[3] / "tests" / "data" / "reports"
HEADER = re.compile(r"# (url|source|expected|cause): ?(.*)$")
REQUIRED = ("url", "source", "expected", "cause")


@dataclass
class UserReport:
    path: Path
    url: str
    source: str
    expected: str
    cause: str
    text: str


@dataclass
class Outcome:
    report: UserReport
    findings: list[Finding]
    seconds: float
    verdict: str = ""  # right | wrong | undecided | abstained | quiet (expected none, nothing found)

    @property
    def first(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def named(self) -> list[str]:
        return [i for f in self.findings for i in (f.id, *f.entry.candidates)]


@dataclass
class Tally:
    reports: int = 0
    in_catalog: int = 0
    first_right: int = 0
    recalled: int = 0
    undecided: int = 0
    abstained: int = 0
    false_alarms: int = 0
    seconds: list[float] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def share(n: int) -> float | None:
            return round(n / self.in_catalog, 3) if self.in_catalog else None

        return {"reports": self.reports, "in_catalog": self.in_catalog,
                "first_right": self.first_right, "accuracy": share(self.first_right),
                "recalled": self.recalled, "recall": share(self.recalled),
                "undecided": self.undecided, "abstained": self.abstained,
                "false_alarms": self.false_alarms,
                "max_seconds": round(max(self.seconds, default=0.0), 4),
                "mean_seconds": round(sum(self.seconds) / len(self.seconds), 4) if self.seconds else 0.0}


def read_report(path: Path) -> UserReport:
    """One corpus file: its header (located errors) and the user's text after `# ---`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GpuforgeError(f"cannot read the report: {exc}", path) from None
    header: dict[str, str] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if line.rstrip() == "# ---":
            missing = [k for k in REQUIRED if not header.get(k)]
            if missing:
                raise GpuforgeError(f"report header without {', '.join(missing)}", path, number)
            return UserReport(path, header["url"], header["source"], header["expected"].split()[0],
                              header["cause"], "\n".join(lines[number:]))
        m = HEADER.match(line)
        if not m:
            raise GpuforgeError("not a report header line (`# key: value` until `# ---`)", path, number)
        header[m.group(1)] = m.group(2).strip()
    raise GpuforgeError("no `# ---` line ends the report header", path)


def judge(report: UserReport, ids: set[str]) -> Outcome:
    start = time.perf_counter()
    findings = diagnose_text(report.text)
    outcome = Outcome(report, findings, time.perf_counter() - start)
    first = outcome.first
    if report.expected not in ids:
        outcome.verdict = "quiet" if first is None else "wrong"
    elif first is None:
        outcome.verdict = "abstained"
    elif first.id == report.expected:
        outcome.verdict = "right"
    elif first.undecided:
        outcome.verdict = "undecided" if report.expected in first.entry.candidates else "wrong"
    else:
        outcome.verdict = "wrong"
    return outcome


def tally(outcomes: list[Outcome], ids: set[str]) -> Tally:
    t = Tally()
    for o in outcomes:
        t.reports += 1
        t.seconds.append(o.seconds)
        if o.report.expected in ids:
            t.in_catalog += 1
            t.first_right += o.verdict == "right"
            t.recalled += o.report.expected in o.named()
            t.undecided += o.verdict == "undecided"
            t.abstained += o.verdict == "abstained"
        t.false_alarms += o.verdict == "wrong"
    return t


def report_files(folders: list[Path]) -> list[Path]:
    files = []
    for folder in folders:
        if folder.is_file():
            files.append(folder)
        elif folder.is_dir():
            files += sorted(folder.rglob("*.txt"))
        else:
            raise GpuforgeError("no such report folder", folder)
    if not files:
        raise GpuforgeError("no reports (*.txt) found", ", ".join(map(str, folders)))
    return files


def evaluate(folders: list[Path]) -> tuple[list[Outcome], dict[str, Tally]]:
    ids = {e.id for e in load_catalog()}
    pattern_set()  # compiled once per process: not part of any report's time
    outcomes = [judge(read_report(p), ids) for p in report_files(folders)]
    by_source: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_source[o.report.source].append(o)
    tallies = {source: tally(items, ids) for source, items in sorted(by_source.items())}
    tallies["all"] = tally(outcomes, ids)
    return outcomes, tallies


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"


def table(tallies: dict[str, Tally]) -> list[str]:
    rows = [("source", "reports", "in catalog", "first right", "recall", "undecided", "abstained",
             "false alarms", "max s/report")]
    for source, t in tallies.items():
        rows.append((source, str(t.reports), str(t.in_catalog), _pct(t.first_right, t.in_catalog),
                     _pct(t.recalled, t.in_catalog), str(t.undecided), str(t.abstained),
                     str(t.false_alarms), f"{max(t.seconds, default=0):.3f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def misses(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        if o.verdict in ("right", "quiet"):
            continue
        got = ", ".join(f.id + (f"{{{'|'.join(f.entry.candidates)}}}" if f.undecided else "")
                        for f in o.findings) or "nothing"
        lines.append(f"{o.verdict:9} {o.report.path.name}: expected {o.report.expected}, got {got}")
    return lines


def adversarial_lines(size: int) -> dict[str, str]:
    """Per catalog entry, one line of ``size`` characters built from its own patterns' literal
    fragments, repeated without a newline: the input that makes a backtracking engine blow up."""
    lines = {}
    for e in load_catalog():
        sources = [p.pattern.decode() for p in (*e.patterns, *(p for g in e.all_groups for p in g))]
        fragments = [f for src in sources for f in re.findall(r"[A-Za-z0-9_'.:%<>\[\]-]{2,}|\\\\", src)]
        if fragments:
            unit = " ".join(fragments) + " "
            lines[e.id] = (unit * (size // len(unit) + 1))[:size]
    return lines


def time_adversarial(sizes: tuple[int, ...] = (1_000_000, 10_000_000)) -> dict[str, dict[str, float]]:
    """Seconds `doctor --log` matching takes on each entry's adversarial single line, per size."""
    timings: dict[str, dict[str, float]] = {}
    for size in sizes:
        for entry_id, line in adversarial_lines(size).items():
            start = time.perf_counter()
            diagnose_text(line)
            seconds = round(time.perf_counter() - start, 3)
            timings.setdefault(entry_id, {})[f"{size // 1_000_000} MB"] = seconds
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="doctor_eval", description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[REPORTS])
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list every report not named right")
    parser.add_argument("--adversarial", action="store_true",
                        help="also time matching on 1 MB and 10 MB single lines built from each pattern")
    args = parser.parse_args(argv)
    try:
        outcomes, tallies = evaluate(args.folders)
    except GpuforgeError as exc:
        print(f"doctor_eval: error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(table(tallies)))
    if args.misses:
        print("\n".join(["", *misses(outcomes)]))
    figures = {"tallies": {s: t.as_json() for s, t in tallies.items()},
               "reports": [{"file": o.report.path.name, "source": o.report.source,
                            "expected": o.report.expected, "verdict": o.verdict,
                            "findings": [f.id for f in o.findings], "seconds": round(o.seconds, 4)}
                           for o in outcomes]}
    if args.adversarial:
        timings = time_adversarial()
        figures["adversarial_seconds"] = timings
        for size in ("1 MB", "10 MB"):
            worst = max(timings, key=lambda i: timings[i][size])
            print(f"adversarial {size} single line: slowest entry {worst} "
                  f"{timings[worst][size]:.3f} s (of {len(timings)} entries)")
    print(json.dumps({"tallies": figures["tallies"]}, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

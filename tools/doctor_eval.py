"""Score the doctor on real user reports: `nox -s doctor_eval` (python tools/doctor_eval.py).

A report (tests/data/reports/*/*.txt) is one user's text exactly as posted, under
a header written by whoever collected it:

    # url: <where it was posted>
    # source: <theano | libgpuarray | pytorch | mxnet | qa | owner/repo ...>
    # kind: <upstream | downstream | qa>   (optional: else from the url)
    # expected: <the catalog id the thread established, or none>
    # cause: <what the thread established, and who said so>
    # proposed: <a slug for a cause the catalog lacks>   (optional)
    # relabel: <why `expected` was corrected, citing the thread>   (optional)
    # ---
    <the user's text>

Every report is scored twice: on the whole catalog, and cross-validated by source. A
report's group is its repository (github owner/repo) or its site (the url's host); every
catalog pattern records where it was written from (`from:` in catalog.yaml), and when a
report is scored cross-validated, the patterns written only from its own group are
switched off: the rule must catch it from what other threads taught it.

Measures, per kind (upstream trackers, downstream projects, Q&A sites), per source and
per entry (``in catalog``: reports whose expected id is a catalog id):
  first right  the first finding is the expected id (share of in-catalog reports);
  recall       the expected id is among the findings or the candidates (same share);
  undecided    the first finding is a list of candidates holding the expected id;
  abstained    no finding at all;
  wrong        an in-catalog report whose first finding names another cause (an undecided
               one counts only when its candidates miss the expected id);
  false alarm  any finding on a report whose cause the catalog does not have (none, or a
               `proposed` cause).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from gpuforge import locations
from gpuforge.doctor.catalog import Finding, diagnose_text, load_catalog, pattern_set
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text

REPORTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "reports"  # this checkout's corpus
HEADER = re.compile(r"# (url|source|kind|expected|cause|proposed|relabel): ?(.*)$")
REQUIRED = ("url", "source", "expected", "cause")
KINDS = ("upstream", "downstream", "qa")
# the projects' own trackers; any other GitHub repository is a downstream project
UPSTREAM = frozenset({"theano/theano", "theano/libgpuarray", "pytorch/pytorch", "apache/mxnet"})
RENAMED = {"apache/incubator-mxnet": "apache/mxnet"}
GITHUB = re.compile(r"https?://(?:www\.)?github\.com/([^/\s#?]+)/([^/\s#?]+)", re.I)
HOST = re.compile(r"https?://(?:www\.)?([^/\s:?#]+)", re.I)


def group_of(url: str) -> str:
    """A thread's source for cross-validation: its GitHub repository, else its site."""
    m = GITHUB.match(url)
    if m:
        repo = f"{m.group(1)}/{m.group(2)}".lower()
        return RENAMED.get(repo, repo)
    m = HOST.match(url)
    return m.group(1).lower() if m else url


def kind_of(url: str) -> str:
    group = group_of(url)
    return "upstream" if group in UPSTREAM else "downstream" if GITHUB.match(url) else "qa"


@dataclass
class UserReport:
    path: Path
    url: str
    source: str
    expected: str
    cause: str
    text: str
    kind: str = ""
    proposed: str = ""

    @property
    def group(self) -> str:
        return group_of(self.url)


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
    wrong: int = 0
    outside: int = 0  # reports whose cause the catalog lacks
    false_alarms: int = 0
    seconds: list[float] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def share(n: int) -> float | None:
            return round(n / self.in_catalog, 3) if self.in_catalog else None

        return {
            "reports": self.reports,
            "in_catalog": self.in_catalog,
            "first_right": self.first_right,
            "accuracy": share(self.first_right),
            "recalled": self.recalled,
            "recall": share(self.recalled),
            "undecided": self.undecided,
            "abstained": self.abstained,
            "wrong": self.wrong,
            "outside_catalog": self.outside,
            "false_alarms": self.false_alarms,
            "max_seconds": round(max(self.seconds, default=0.0), 4),
            "mean_seconds": round(sum(self.seconds) / len(self.seconds), 4) if self.seconds else 0.0,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        """A tally as `--json` wrote it (its times: the max only)."""
        names = (
            "reports",
            "in_catalog",
            "first_right",
            "recalled",
            "undecided",
            "abstained",
            "wrong",
            "false_alarms",
        )
        return cls(
            **{n: data[n] for n in names}, outside=data["outside_catalog"], seconds=[data["max_seconds"]]
        )


def read_report(path: Path) -> UserReport:
    """One corpus file (through the one reader): its header (located errors) and the user's
    text after `# ---`."""
    text = read_text(path)
    header: dict[str, str] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if line.rstrip() == "# ---":
            missing = [k for k in REQUIRED if not header.get(k)]
            if missing:
                raise GpuforgeError(f"report header without {', '.join(missing)}", path, number)
            kind = header.get("kind") or kind_of(header["url"])
            if kind not in KINDS:
                raise GpuforgeError(f"kind must be one of {', '.join(KINDS)}", path, number)
            return UserReport(
                path,
                header["url"],
                header["source"],
                header["expected"].split()[0],
                header["cause"],
                "\n".join(lines[number:]),
                kind,
                header.get("proposed", ""),
            )
        m = HEADER.match(line)
        if not m:
            raise GpuforgeError("not a report header line (`# key: value` until `# ---`)", path, number)
        header[m.group(1)] = m.group(2).strip()
    raise GpuforgeError("no `# ---` line ends the report header", path)


@cache
def origin_group(origin: str) -> str | None:
    """The group of one `from:` item: a corpus report's (by its url) or a thread url's; None for
    what is no thread of a group (a seed, upstream code, a failure made here)."""
    if origin.endswith(".txt") and not origin.startswith(("http", "logs/")):
        path = REPORTS / origin
        if not path.is_file():
            raise GpuforgeError(
                f"`from:` names a report that is not in the corpus: {origin}",
                locations.CATALOG,
            )
        return read_report(path).group
    return group_of(origin) if origin.startswith("http") else None


def switched_off(group: str) -> dict[str, frozenset[bytes]]:
    """Per entry, the patterns written only from ``group``'s threads."""
    off = {}
    for e in load_catalog():
        patterns = frozenset(
            p for p, origins in e.origins.items() if origins and {origin_group(o) for o in origins} == {group}
        )
        if patterns:
            off[e.id] = patterns
    return off


def judge(report: UserReport, ids: set[str], off: dict[str, frozenset[bytes]] | None = None) -> Outcome:
    start = time.perf_counter()
    findings = diagnose_text(report.text, off)
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


def tally(outcomes: Iterable[Outcome], ids: set[str]) -> Tally:
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
            t.wrong += o.verdict == "wrong"
        else:
            t.outside += 1
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


@dataclass
class Evaluation:
    """Each report's outcome on the whole catalog and cross-validated by source."""

    whole: list[Outcome]
    cross: list[Outcome]
    ids: set[str]

    def tallies(self, key: Callable[[UserReport], str]) -> dict[str, tuple[Tally, Tally]]:
        """(whole, cross-validated) tallies per ``key`` of the report, and `all`."""
        keys = sorted({key(o.report) for o in self.whole})
        rows = {
            k: (
                tally((o for o in self.whole if key(o.report) == k), self.ids),
                tally((o for o in self.cross if key(o.report) == k), self.ids),
            )
            for k in keys
        }
        rows["all"] = (tally(self.whole, self.ids), tally(self.cross, self.ids))
        return rows


def evaluate(folders: list[Path]) -> Evaluation:
    ids = {e.id for e in load_catalog()}
    pattern_set()  # compiled once per process: not part of any report's time
    reports = [read_report(p) for p in report_files(folders)]
    offs = {group: switched_off(group) for group in sorted({r.group for r in reports})}
    whole = [judge(r, ids) for r in reports]
    cross = [judge(r, ids, offs[r.group]) for r in reports]
    return Evaluation(whole, cross, ids)


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"


def _grid(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def table(tallies: dict[str, tuple[Tally, Tally]], label: str = "kind") -> list[str]:
    """Whole-corpus and cross-validated figures side by side (`whole / cross`)."""
    rows = [
        (
            label,
            "reports",
            "in catalog",
            "first right (whole)",
            "first right (cross)",
            "recall (whole / cross)",
            "undecided",
            "abstained",
            "wrong",
            "none",
            "false alarms",
        )
    ]
    for name, (w, c) in tallies.items():
        rows.append(
            (
                name,
                str(w.reports),
                str(w.in_catalog),
                _pct(w.first_right, w.in_catalog),
                _pct(c.first_right, c.in_catalog),
                f"{w.recalled} / {c.recalled}",
                f"{w.undecided} / {c.undecided}",
                f"{w.abstained} / {c.abstained}",
                f"{w.wrong} / {c.wrong}",
                str(w.outside),
                f"{w.false_alarms} / {c.false_alarms}",
            )
        )
    return _grid(rows)


def timing(evaluation: Evaluation) -> str:
    seconds = [o.seconds for o in (*evaluation.whole, *evaluation.cross)]
    return (
        f"time per report: max {max(seconds):.3f} s, mean {sum(seconds) / len(seconds):.4f} s "
        f"({len(seconds)} diagnoses)"
    )


def summary(figures: dict[str, Any]) -> list[str]:
    """The table by kind and what the cross-validated run still misses, by kind, from the figures
    `--json` wrote (the README's evaluation section, docs/generate.py's `doctor-eval` table)."""
    tallies = {
        kind: (Tally.from_json(v["whole"]), Tally.from_json(v["cross"]))
        for kind, v in figures["kind"].items()
    }
    lines = table(tallies, "kind")
    worst = max(t.seconds[0] for pair in tallies.values() for t in pair)
    lines += ["", f"At most {worst:.3f} s per report. Not named right (cross-validated), by kind:", ""]
    for kind in sorted({r["kind"] for r in figures["reports"]}):
        missed: dict[str, list[str]] = {}
        for r in figures["reports"]:
            if r["kind"] == kind and r["cross_verdict"] not in ("right", "quiet"):
                verdict = (
                    "false alarm"
                    if r["cross_verdict"] == "wrong" and r["expected"] == "none"
                    else r["cross_verdict"]
                )
                missed.setdefault(verdict, []).append(
                    f"named {r['cross_findings'][0]}" if verdict == "false alarm" else r["expected"]
                )
        parts = [f"{verdict} {len(ids)}: {', '.join(sorted(ids))}" for verdict, ids in sorted(missed.items())]
        lines.append(f"- **{kind}**: " + ("; ".join(parts) if parts else "nothing"))
    return lines


def misses(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        if o.verdict in ("right", "quiet"):
            continue
        got = (
            ", ".join(
                f.id + (f"{{{'|'.join(f.entry.candidates)}}}" if f.undecided else "") for f in o.findings
            )
            or "nothing"
        )
        where = f"{o.report.path.parent.name}/{o.report.path.name}"
        lines.append(f"{o.verdict:9} {o.report.kind:10} {where}: expected {o.report.expected}, got {got}")
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
    parser.add_argument(
        "--misses", action="store_true", help="list every report not named right (cross-validated)"
    )
    parser.add_argument(
        "--by",
        choices=("kind", "source", "entry"),
        action="append",
        help="tables to print (default: kind, source and entry)",
    )
    parser.add_argument(
        "--no-times",
        action="store_true",
        help="leave out the time line (output that does not vary between runs)",
    )
    parser.add_argument(
        "--adversarial",
        action="store_true",
        help="also time matching on 1 MB and 10 MB single lines built from each pattern",
    )
    args = parser.parse_args(argv)
    try:
        evaluation = evaluate(args.folders)
    except GpuforgeError as exc:
        print(f"doctor_eval: error: {exc}", file=sys.stderr)
        return 2
    keys: dict[str, Callable[[UserReport], str]] = {
        "kind": lambda r: r.kind,
        "source": lambda r: r.group if r.kind == "upstream" else f"({r.kind})",
        "entry": lambda r: r.expected if r.expected in evaluation.ids else "(outside the catalog)",
    }
    figures: dict[str, Any] = {}
    for by in args.by or ["kind", "source", "entry"]:
        tallies = evaluation.tallies(keys[by])
        figures[by] = {k: {"whole": w.as_json(), "cross": c.as_json()} for k, (w, c) in tallies.items()}
        print("\n".join(table(tallies, by)))
        print()
    if not args.no_times:
        print(timing(evaluation))
    if args.misses:
        print("\n".join(["", *misses(evaluation.cross)]))
    figures["reports"] = [
        {
            "file": f"{w.report.path.parent.name}/{w.report.path.name}",
            "group": w.report.group,
            "kind": w.report.kind,
            "expected": w.report.expected,
            "verdict": w.verdict,
            "cross_verdict": c.verdict,
            "findings": [f.id for f in w.findings],
            "cross_findings": [f.id for f in c.findings],
            "seconds": round(w.seconds, 4),
        }
        for w, c in zip(evaluation.whole, evaluation.cross, strict=True)
    ]
    if args.adversarial:
        timings = time_adversarial()
        figures["adversarial_seconds"] = timings
        for size in ("1 MB", "10 MB"):
            worst = max(timings, key=lambda i: timings[i][size])
            print(
                f"adversarial {size} single line: slowest entry {worst} "
                f"{timings[worst][size]:.3f} s (of {len(timings)} entries)"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

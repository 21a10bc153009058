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
    # decidable: <yes | partly | no>: <what in the text decides it, or what it lacks>   (optional)
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

`decidable` is a reader's judgement, made without the doctor's answer: whether the user's text
alone (not the thread's answers, not a linked file) lets someone who knows every catalog cause
name the expected one first (yes), among two or three (partly), or not at all (no). `--by
decidable` tallies by it: what the rules miss where the text decides, apart from what no rule
over the text can reach.
"""

from __future__ import annotations

import argparse
import json
import os
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
from gpuforge.doctor.log_facts import diagnose_log
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text

REPORTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "reports"  # this checkout's corpus
# reports set aside before the rules were written and read by no one who wrote them, scored on the
# whole catalog (no rule came from them): the figure that predicts unseen reports
SEALED = Path(__file__).resolve().parents[1] / "tests" / "data" / "sealed"
HEADER = re.compile(r"# (url|source|kind|stack|expected|cause|proposed|relabel|decidable): ?(.*)$")
DECIDABLE = ("yes", "partly", "no")
REQUIRED = ("url", "source", "expected", "cause")
KINDS = ("upstream", "downstream", "qa")
STACKS = ("theano", "pytorch", "mxnet", "conda")
# a corpus report without a `stack:` line: its stack from its thread's words (the sealed reports
# carry the line, written when they were labelled)
STACK_WORDS = (
    ("theano", re.compile(r"theano|pygpu|libgpuarray|aesara|pymc|lasagne", re.I)),
    ("mxnet", re.compile(r"mxnet|gluon", re.I)),
    ("pytorch", re.compile(r"torch", re.I)),
    ("conda", re.compile(r"conda", re.I)),
)
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


def stack_of(words: str) -> str:
    return next((stack for stack, pattern in STACK_WORDS if pattern.search(words)), "other")


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
    stack: str = ""
    decidable: str = ""  # yes | partly | no, where a reader judged it (else empty)

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
            stack = header.get("stack") or stack_of(
                " ".join([header["url"], header["source"], header["cause"]])
            )
            if stack not in (*STACKS, "other"):
                raise GpuforgeError(f"stack must be one of {', '.join(STACKS)}", path, number)
            decidable = header.get("decidable", "").split(":")[0].strip()
            if "decidable" in header and decidable not in DECIDABLE:
                raise GpuforgeError(f"decidable must start with one of {', '.join(DECIDABLE)}", path, number)
            return UserReport(
                path,
                header["url"],
                header["source"],
                header["expected"].split()[0],
                header["cause"],
                "\n".join(lines[number:]),
                kind,
                header.get("proposed", ""),
                stack,
                decidable,
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


def verdict_of(expected: str, ids: set[str], first: tuple[str, tuple[str, ...]] | None) -> str:
    """right | wrong | undecided | abstained | quiet, of a first finding (its id, and its candidates
    where it is undecided) for a report expecting ``expected``."""
    if expected not in ids:
        return "quiet" if first is None else "wrong"
    if first is None:
        return "abstained"
    if first[0] == expected:
        return "right"
    return "undecided" if expected in first[1] else "wrong"


def judge(report: UserReport, ids: set[str], off: dict[str, frozenset[bytes]] | None = None) -> Outcome:
    start = time.perf_counter()
    findings = diagnose_log(report.text, off)
    outcome = Outcome(report, findings, time.perf_counter() - start)
    first = outcome.first
    outcome.verdict = verdict_of(
        report.expected,
        ids,
        None if first is None else (first.id, first.entry.candidates if first.undecided else ()),
    )
    return outcome


def count(t: Tally, in_catalog: bool, verdict: str, recalled: bool) -> None:
    """One report's outcome added to ``t``."""
    t.reports += 1
    if in_catalog:
        t.in_catalog += 1
        t.first_right += verdict == "right"
        t.recalled += recalled
        t.undecided += verdict == "undecided"
        t.abstained += verdict == "abstained"
        t.wrong += verdict == "wrong"
    else:
        t.outside += 1
        t.false_alarms += verdict == "wrong"


def tally(outcomes: Iterable[Outcome], ids: set[str]) -> Tally:
    t = Tally()
    for o in outcomes:
        t.seconds.append(o.seconds)
        count(t, o.report.expected in ids, o.verdict, o.report.expected in o.named())
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
    """The README's evaluation section (docs/generate.py's `doctor-eval` table), from the figures
    `--json` wrote: the sealed, cross-validated and whole-corpus figures side by side, then by
    stack, then the times."""
    rows = {}
    if "sealed" in figures:
        rows["sealed"] = Tally.from_json(figures["sealed"]["kind"]["all"])
        decides = figures["sealed"].get("decidable", {}).get("yes")
        if decides:
            rows["sealed, where the text decides"] = Tally.from_json(decides)
    rows["corpus, cross-validated"] = Tally.from_json(figures["kind"]["all"]["cross"])
    rows["corpus, whole"] = Tally.from_json(figures["kind"]["all"]["whole"])
    lines = side_by_side(rows)
    names = [n for n in ("sealed", "corpus, cross-validated") if n in figures["stack"]]
    stacks = sorted({k for n in names for k in figures["stack"][n] if k != "all"}) + ["all"]
    grid = [("stack", *(f"{n}: first right" for n in names), *(f"{n}: false alarms" for n in names))]
    for stack in stacks:
        tallies = [
            Tally.from_json(figures["stack"][n][stack]) if stack in figures["stack"][n] else Tally()
            for n in names
        ]
        grid.append(
            (
                stack,
                *(_pct(t.first_right, t.in_catalog) for t in tallies),
                *(f"{t.false_alarms} of {t.outside}" for t in tallies),
            )
        )
    lines += ["", *_grid(grid), ""]
    worst = max(
        figures["kind"]["all"]["whole"]["max_seconds"], figures["kind"]["all"]["cross"]["max_seconds"]
    )
    said = f"Matching takes at most {worst:.3f} s a report"
    if "cli_seconds" in figures:
        t = figures["cli_seconds"]
        said += (
            f"; `gpuforge doctor --log FILE` as one process (start-up included) at most {t['max']:.2f} s, "
            f"{t['mean']:.2f} s on average over {t['reports']} reports of the {t.get('set', 'sealed')} set"
        )
    return [*lines, said + "."]


def misses_by_kind(figures: dict[str, Any]) -> list[str]:
    """The corpus by kind and what each run still misses, by kind (docs/doctor-evaluation.md's
    `doctor-eval-misses` table): cross-validated for the corpus, whole catalog for the sealed."""
    tallies = {
        kind: (Tally.from_json(v["whole"]), Tally.from_json(v["cross"]))
        for kind, v in figures["kind"].items()
    }
    lines = [*table(tallies, "kind"), "", "Not named right, by kind (the corpus cross-validated):", ""]
    lines += _missed(figures["reports"], "cross_verdict", "cross_findings")
    if "sealed_reports" in figures:
        lines += ["", "Not named right, by kind (the sealed reports):", ""]
        lines += _missed(figures["sealed_reports"], "verdict", "findings")
    return lines


def _missed(reports: list[dict[str, Any]], verdict_key: str, findings_key: str) -> list[str]:
    lines = []
    for kind in sorted({r["kind"] for r in reports}):
        missed: dict[str, list[str]] = {}
        for r in reports:
            if r["kind"] == kind and r[verdict_key] not in ("right", "quiet"):
                verdict = (
                    "false alarm" if r[verdict_key] == "wrong" and r["expected"] == "none" else r[verdict_key]
                )
                missed.setdefault(verdict, []).append(
                    f"named {r[findings_key][0]}" if verdict == "false alarm" else r["expected"]
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


def sealed_outcomes(folder: Path, ids: set[str]) -> list[Outcome]:
    """The sealed reports, each judged once on the whole catalog."""
    return [judge(read_report(p), ids) for p in report_files([folder])]


SIDE_BY_SIDE_HEAD = (
    "set",
    "reports",
    "in catalog",
    "first right",
    "recall",
    "undecided",
    "abstained",
    "wrong",
    "none",
    "false alarms",
)


def side_by_side(rows: dict[str, Tally]) -> list[str]:
    """The sealed, cross-validated and whole-corpus figures in one table."""
    lines = [SIDE_BY_SIDE_HEAD]
    for name, t in rows.items():
        lines.append(
            (
                name,
                str(t.reports),
                str(t.in_catalog),
                _pct(t.first_right, t.in_catalog),
                str(t.recalled),
                str(t.undecided),
                str(t.abstained),
                str(t.wrong),
                str(t.outside),
                f"{t.false_alarms} of {t.outside}",
            )
        )
    return _grid(lines)


def by_stack(sets: dict[str, list[Outcome]], ids: set[str]) -> list[str]:
    """First right and false alarms per stack, for each set of outcomes side by side."""
    stacks = sorted({o.report.stack for outcomes in sets.values() for o in outcomes})
    head = ("stack", *(f"{name}: first right" for name in sets), *(f"{name}: false alarms" for name in sets))
    lines = [head]
    for stack in [*stacks, "all"]:
        tallies = [
            tally((o for o in outs if stack in ("all", o.report.stack)), ids) for outs in sets.values()
        ]
        lines.append(
            (
                stack,
                *(_pct(t.first_right, t.in_catalog) for t in tallies),
                *(f"{t.false_alarms} of {t.outside}" for t in tallies),
            )
        )
    return _grid(lines)


def time_cli(files: list[Path]) -> dict[str, float]:
    """`gpuforge doctor --log FILE` as users run it, one process per report (Python's start-up
    included), with the bytecode an install compiles (a warm-up run writes it where the machine
    forbids it by default, PYTHONDONTWRITEBYTECODE)."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-m", "gpuforge", "doctor", "--log"]
    subprocess.run([*cmd, str(files[0])], capture_output=True, env=env, timeout=120)  # warm-up
    seconds = []
    for f in files:
        start = time.perf_counter()
        subprocess.run([*cmd, str(f)], capture_output=True, env=env, timeout=120)
        seconds.append(time.perf_counter() - start)
    ordered = sorted(seconds)
    return {
        "reports": len(seconds),
        "max": round(ordered[-1], 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
        "mean": round(sum(seconds) / len(seconds), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="doctor_eval", description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[REPORTS])
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--misses", action="store_true", help="list every report not named right (cross-validated)"
    )
    parser.add_argument(
        "--by",
        choices=("kind", "source", "entry", "decidable"),
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
    parser.add_argument(
        "--sealed",
        type=Path,
        default=SEALED,
        metavar="DIR",
        help="the sealed reports, scored on the whole catalog beside the corpus (default: tests/data/sealed)",
    )
    parser.add_argument(
        "--cli",
        action="store_true",
        help="also time `gpuforge doctor --log FILE`, one process per sealed report (start-up included)",
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
        "decidable": lambda r: r.decidable or "(not judged)",
    }
    figures: dict[str, Any] = {}
    for by in args.by or ["kind", "source", "entry"]:
        tallies = evaluation.tallies(keys[by])
        figures[by] = {k: {"whole": w.as_json(), "cross": c.as_json()} for k, (w, c) in tallies.items()}
        print("\n".join(table(tallies, by)))
        print()
    sealed = sealed_outcomes(args.sealed, evaluation.ids) if args.sealed.is_dir() else []
    sets = {"corpus, cross-validated": evaluation.cross, "corpus, whole": evaluation.whole}
    if sealed:
        sets = {"sealed": sealed, **sets}
        print("\n".join(side_by_side({name: tally(outs, evaluation.ids) for name, outs in sets.items()})))
        print()
        sealed_kinds = {
            k: tally((o for o in sealed if k in ("all", o.report.kind)), evaluation.ids)
            for k in [*sorted({o.report.kind for o in sealed}), "all"]
        }
        print("\n".join(side_by_side({f"sealed, {k}": t for k, t in sealed_kinds.items()})))
        print()
        # where the text decides the cause, apart from where no rule over the text can reach
        sealed_decidable = {
            k: tally((o for o in sealed if (o.report.decidable or "(not judged)") == k), evaluation.ids)
            for k in sorted({o.report.decidable or "(not judged)" for o in sealed})
        }
        print("\n".join(side_by_side({f"sealed, decidable {k}": t for k, t in sealed_decidable.items()})))
        print()
        figures["sealed"] = {
            "kind": {k: t.as_json() for k, t in sealed_kinds.items()},
            "stack": {
                k: tally((o for o in sealed if k in ("all", o.report.stack)), evaluation.ids).as_json()
                for k in [*sorted({o.report.stack for o in sealed}), "all"]
            },
            "decidable": {k: t.as_json() for k, t in sealed_decidable.items()},
        }
        figures["sealed_reports"] = [
            {
                "file": f"{o.report.path.parent.name}/{o.report.path.name}",
                "kind": o.report.kind,
                "stack": o.report.stack,
                "expected": o.report.expected,
                "verdict": o.verdict,
                "findings": [f.id for f in o.findings],
            }
            for o in sealed
        ]
    print("\n".join(by_stack(sets, evaluation.ids)))
    print()
    figures["stack"] = {
        name: {
            k: tally((o for o in outs if k in ("all", o.report.stack)), evaluation.ids).as_json()
            for k in [*sorted({o.report.stack for o in outs}), "all"]
        }
        for name, outs in sets.items()
    }
    if args.cli:
        files = [o.report.path for o in sealed] or [o.report.path for o in evaluation.whole][:100]
        figures["cli_seconds"] = {**time_cli(files), "set": "sealed" if sealed else "corpus (its first 100)"}
        t = figures["cli_seconds"]
        print(
            f"gpuforge doctor --log as one process per report: max {t['max']:.2f} s, 95th percentile "
            f"{t['p95']:.2f} s, mean {t['mean']:.2f} s over {t['reports']} reports"
        )
    if not args.no_times:
        print(timing(evaluation))
    if args.misses:
        print("\n".join(["", *misses(evaluation.cross)]))
        if sealed:
            print("\n".join(["", "sealed:", *misses(sealed)]))
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

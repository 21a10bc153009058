"""The corpus evaluator (`nox -s doctor_eval`): its reading of reports and its arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest
from doctor_eval import (
    REPORTS,
    SEALED,
    evaluate,
    main,
    origin_group,
    read_report,
    report_files,
    sealed_outcomes,
)

from gpuforge.doctor.catalog import diagnose_text, load_catalog
from gpuforge.errors import GpuforgeError

HEADER = "# url: https://example.invalid/1\n# source: {source}\n# expected: {expected}\n# cause: c\n# ---\n"


def write(folder: Path, name: str, source: str, expected: str, text: str) -> None:
    (folder / name).write_text(HEADER.format(source=source, expected=expected) + text, encoding="utf-8")


def test_every_corpus_report_has_a_complete_header() -> None:
    for path in report_files([REPORTS]):
        report = read_report(path)
        assert report.url.startswith("http") and report.text.strip(), path


def test_a_bad_header_is_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "r.txt"
    bad.write_text("# url: u\n# source: s\nno header line\n# ---\ntext\n", encoding="utf-8")
    with pytest.raises(GpuforgeError, match="not a report header line") as err:
        read_report(bad)
    assert err.value.line == 3
    bad.write_text("# url: u\n# source: s\n# ---\ntext\n", encoding="utf-8")
    with pytest.raises(GpuforgeError, match="without expected, cause"):
        read_report(bad)
    header = "# url: https://x/1\n# source: s\n# expected: none\n# cause: c\n"
    bad.write_text(header + "# decidable: maybe: the words\n# ---\ntext\n", encoding="utf-8")
    with pytest.raises(GpuforgeError, match="decidable must start with one of yes, partly, no") as err:
        read_report(bad)
    assert err.value.line == 6
    bad.write_text(header + "# decidable: partly: two causes fit\n# ---\ntext\n", encoding="utf-8")
    assert read_report(bad).decidable == "partly"


def test_the_tallies(tmp_path: Path) -> None:
    mingw32 = "cc1.exe: sorry, unimplemented: 64-bit mode not compiled in\n"
    write(tmp_path, "right.txt", "x", "mingw_32bit", mingw32)
    write(tmp_path, "wrong.txt", "x", "mingw_hypot", mingw32)
    write(tmp_path, "silent.txt", "x", "mingw_hypot", "something else\n")
    write(tmp_path, "quiet.txt", "y", "none", "all good\n")
    write(tmp_path, "alarm.txt", "y", "none", "error: '::hypot' has not been declared\n")
    write(tmp_path, "unknown.txt", "y", "not_a_catalog_id", "nothing here\n")
    evaluation = evaluate([tmp_path])
    verdicts = {o.report.path.name: o.verdict for o in evaluation.whole}
    assert verdicts == {
        "right.txt": "right",
        "wrong.txt": "wrong",
        "silent.txt": "abstained",
        "quiet.txt": "quiet",
        "alarm.txt": "wrong",
        "unknown.txt": "quiet",
    }
    tallies = evaluation.tallies(lambda r: r.source)
    everything = tallies["all"][0].as_json()
    assert (
        everything["reports"],
        everything["in_catalog"],
        everything["first_right"],
        everything["abstained"],
        everything["wrong"],
        everything["false_alarms"],
    ) == (6, 3, 1, 1, 1, 1)
    assert tallies["y"][0].in_catalog == 0 and tallies["y"][0].false_alarms == 1


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cross_validation_switches_off_the_patterns_of_the_reports_own_source(tmp_path: Path) -> None:
    """path_spaces_nonascii's g++ wording of a user name cut at its space was written from
    Theano's threads alone: scored cross-validated, a report posted on Theano's tracker is not
    caught by it, while the same text posted on another site is."""
    text = "g++.exe: error: C:\\Users\\Dat: No such file or directory\n"
    for name, url in (
        ("own.txt", "https://github.com/Theano/Theano/issues/1"),
        ("elsewhere.txt", "https://stackoverflow.com/questions/1"),
    ):
        (tmp_path / name).write_text(
            f"# url: {url}\n# source: s\n# expected: path_spaces_nonascii\n# cause: c\n# ---\n" + text,
            encoding="utf-8",
        )
    evaluation = evaluate([tmp_path / "own.txt", tmp_path / "elsewhere.txt"])
    own = evaluation.whole[0].report
    assert own.group == "theano/theano" and own.kind == "upstream"
    assert [o.verdict for o in evaluation.whole] == ["right", "right"]
    assert [o.verdict for o in evaluation.cross] == ["abstained", "right"]
    assert evaluation.cross[1].report.kind == "qa"


def test_every_pattern_says_where_it_was_written_from() -> None:
    for e in load_catalog():
        for pattern, origins in e.origins.items():
            assert origins, f"{e.id}: pattern {pattern!r} has no `from:`"
            for origin in origins:
                origin_group(origin)  # a report named must be in the corpus
                if origin.startswith("repro: "):  # a reproduction named must be a test here
                    path, _, name = origin[len("repro: ") :].partition("::")
                    assert f"def {name}(" in (REPORTS.parents[2] / path).read_text(encoding="utf-8"), origin


# Entries that came before patterns recorded their sources, each written from one repository's
# threads with no text from elsewhere yet: cross-validation shows their own reports uncaught. The
# list may only shrink (a text from another source, a reproduction, or the upstream code that
# prints the message, named in `from:`).
ONE_SOURCE_BEFORE_PROVENANCE = frozenset({"python_too_old_for_wheel"})


def test_a_rule_from_one_source_lands_only_with_a_text_from_another_or_a_reproduction() -> None:
    """An entry whose every pattern was written from one repository's or site's threads needs a
    labelled report from another source that it catches, or a reproduction test."""
    from test_catalog_repro import REPRODUCED_HERE
    from test_doctor_live import REPRODUCED
    from test_windows_doctor import REPRODUCED_ON_WINDOWS

    reproduced = REPRODUCED_HERE | set(REPRODUCED) | REPRODUCED_ON_WINDOWS
    reports = [read_report(p) for p in report_files([REPORTS])]
    lonely = []
    for e in load_catalog():
        groups = {origin_group(o) for origins in e.origins.values() for o in origins}
        if len(groups) != 1 or None in groups or e.id in reproduced:
            continue
        others = [
            r
            for r in reports
            if r.expected == e.id and r.group not in groups and e.id in {f.id for f in diagnose_text(r.text)}
        ]
        if not others:
            lonely.append(f"{e.id} (only from {groups.pop()})")
    new = [x for x in lonely if x.split()[0] not in ONE_SOURCE_BEFORE_PROVENANCE]
    assert not new, f"entries written from one source, caught in no other: {new}"
    settled = ONE_SOURCE_BEFORE_PROVENANCE - {x.split()[0] for x in lonely}
    assert not settled, f"now caught from another source: drop from the list {sorted(settled)}"


FIGURES = REPORTS.parents[2] / "docs" / "data" / "doctor_eval.json"
TIMES = ("max_seconds", "mean_seconds")


def test_the_readmes_figures_are_a_run_of_this_catalog_on_this_corpus() -> None:
    """docs/data/doctor_eval.json (the README's table, docs/generate.py) holds what a fresh run
    gives: the same counts by kind and the same verdict for every report (times aside)."""
    import json

    figures = json.loads(FIGURES.read_text(encoding="utf-8"))
    evaluation = evaluate([REPORTS])
    redo = "python tools/doctor_eval.py --adversarial --json docs/data/doctor_eval.json"
    for kind, (whole, cross) in evaluation.tallies(lambda r: r.kind).items():
        for column, tally in (("whole", whole), ("cross", cross)):
            fresh = {k: v for k, v in tally.as_json().items() if k not in TIMES}
            saved = {k: v for k, v in figures["kind"][kind][column].items() if k not in TIMES}
            assert fresh == saved, f"{kind} {column}: run `{redo}`, then `python docs/generate.py --update`"
    fresh_verdicts = {
        f"{w.report.path.parent.name}/{w.report.path.name}": (w.verdict, c.verdict)
        for w, c in zip(evaluation.whole, evaluation.cross, strict=True)
    }
    saved_verdicts = {r["file"]: (r["verdict"], r["cross_verdict"]) for r in figures["reports"]}
    assert fresh_verdicts == saved_verdicts, f"run `{redo}`"
    if SEALED.is_dir():  # the sealed reports' verdicts too (scored once, on the whole catalog)
        sealed = {
            f"{o.report.path.parent.name}/{o.report.path.name}": o.verdict
            for o in sealed_outcomes(SEALED, evaluation.ids)
        }
        assert sealed == {r["file"]: r["verdict"] for r in figures["sealed_reports"]}, f"run `{redo}`"

"""The corpus evaluator (`nox -s doctor_eval`): its reading of reports and its arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuforge.doctor.evaluate import REPORTS, evaluate, main, read_report, report_files
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


def test_the_tallies(tmp_path: Path) -> None:
    mingw32 = "cc1.exe: sorry, unimplemented: 64-bit mode not compiled in\n"
    write(tmp_path, "right.txt", "x", "mingw_32bit", mingw32)
    write(tmp_path, "wrong.txt", "x", "mingw_hypot", mingw32)
    write(tmp_path, "silent.txt", "x", "mingw_hypot", "something else\n")
    write(tmp_path, "quiet.txt", "y", "none", "all good\n")
    write(tmp_path, "alarm.txt", "y", "none", "error: '::hypot' has not been declared\n")
    write(tmp_path, "unknown.txt", "y", "not_a_catalog_id", "nothing here\n")
    outcomes, tallies = evaluate([tmp_path])
    verdicts = {o.report.path.name: o.verdict for o in outcomes}
    assert verdicts == {"right.txt": "right", "wrong.txt": "wrong", "silent.txt": "abstained",
                        "quiet.txt": "quiet", "alarm.txt": "wrong", "unknown.txt": "quiet"}
    everything = tallies["all"].as_json()
    assert (everything["reports"], everything["in_catalog"], everything["first_right"],
            everything["abstained"], everything["false_alarms"]) == (6, 3, 1, 1, 2)
    assert tallies["y"].in_catalog == 0 and tallies["y"].false_alarms == 1


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1

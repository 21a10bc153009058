"""tools/seal_round.py: a round's helper folders merged into tests/data/sealed/ by their headers and
INDEX.tsv alone, the Theano family kept at least half by a seeded draw of file names."""

from __future__ import annotations

from pathlib import Path

import pytest
import seal_round as tool  # tools/seal_round.py


def report(folder: Path, name: str, url: str, stack: str, expected: str = "none") -> str:
    """One report file (a header and a line of text); its INDEX.tsv line."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"# url: {url}\n# source: x/y\n# kind: downstream\n# stack: {stack}\n# expected: {expected}\n"
        "# cause: the thread said so\n# ---\nan error\n",
        encoding="utf-8",
    )
    return f"{name}\t{stack}\tdownstream\t{expected}\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A corpus of one report, one helper's folder: 2 Theano reports (one already in the corpus)
    and 4 of other stacks."""
    report(tmp_path / "reports" / "a", "t0.txt", "https://github.com/o/r/issues/1", "theano")
    helper = tmp_path / "sealed-next-a"
    lines = [
        report(helper, "theano/t1.txt", "https://github.com/o/r/issues/2", "theano", "pygpu_import"),
        report(helper, "theano/t2.txt", "http://github.com/o/r/issues/1/", "theano"),  # the corpus has it
        *(report(helper, f"pytorch/p{i}.txt", f"https://x.org/q/{i}", "pytorch") for i in range(4)),
    ]
    (helper / "INDEX.tsv").write_text("".join(lines), encoding="utf-8")
    return tmp_path


def indexed(folder: Path) -> list[list[str]]:
    return [line.split("\t") for line in (folder / "INDEX.tsv").read_text(encoding="utf-8").splitlines()]


def test_the_round_keeps_the_theano_family_half_and_reserves_the_rest(data: Path, capsys) -> None:
    assert tool.main(["--dry-run"], data) == 0
    assert "dropped: {'url already in the corpus': 1}" in capsys.readouterr().out
    assert (data / "sealed-next-a").is_dir() and not (data / "sealed").exists()

    assert tool.main([], data) == 0
    sealed = indexed(data / "sealed")
    assert sorted(row[1] for row in sealed) == ["pytorch", "theano"]
    assert ["theano/t1.txt", "theano", "downstream", "pygpu_import"] in sealed
    reserve = indexed(data / "sealed-reserve")
    assert len(reserve) == 3 and {row[1] for row in reserve} == {"pytorch"}
    for folder, rows in ((data / "sealed", sealed), (data / "sealed-reserve", reserve)):
        assert all((folder / row[0]).is_file() for row in rows)
    assert not (data / "sealed-next-a").exists()
    out = capsys.readouterr().out
    assert "an error" not in out  # counts only: nothing of a report's text

    # the next round: the reserve joins the new helpers' reports
    report(data / "sealed-next-b", "theano/t3.txt", "https://github.com/o/r/issues/3", "theano")
    line = "theano/t3.txt\ttheano\tdownstream\tnone\n"
    (data / "sealed-next-b" / "INDEX.tsv").write_text(line, encoding="utf-8")
    assert tool.main([], data) == 2  # round 1 is still open
    assert "a round is open" in capsys.readouterr().err
    (data / "sealed").rename(data / "reports" / "b")
    assert tool.main([], data) == 0
    assert len(indexed(data / "sealed")) == 2 and len(indexed(data / "sealed-reserve")) == 2


def test_a_seeded_draw_is_the_same_draw(data: Path) -> None:
    entries = tool.read_index(data / "sealed-next-a")
    first = tool.plan(entries, tool.corpus_urls(data / "reports"), seed=7)[1]
    assert first == tool.plan(entries, tool.corpus_urls(data / "reports"), seed=7)[1]


@pytest.mark.parametrize(
    ("index", "says"),
    [
        ("theano/t1.txt\ttheano\tdownstream\n", "sealed-next-a/INDEX.tsv:1: an INDEX.tsv line is"),
        ("theano/t1.txt\ttheano\tdownstream\tnone\n", "sealed-next-a/INDEX.tsv:1: its stack, kind"),
        ("theano/t9.txt\ttheano\tdownstream\tnone\n", "sealed-next-a/INDEX.tsv:1: lists theano/t9.txt"),
    ],
)
def test_a_bad_index_is_one_line_naming_the_file_and_line(data: Path, capsys, index: str, says: str) -> None:
    (data / "sealed-next-a" / "INDEX.tsv").write_text(index, encoding="utf-8")
    assert tool.main([], data) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err
    assert (data / "sealed-next-a" / "theano" / "t1.txt").is_file()  # nothing moved


def test_urls_the_rule_writer_read_are_dropped(data: Path, capsys) -> None:
    assert tool.main(["--seen", str(data / "missing.txt")], data) == 2
    assert "missing.txt" in capsys.readouterr().err
    seen = data / "seen.txt"
    seen.write_text("https://github.com/o/r/issues/2/\n\n", encoding="utf-8")
    assert tool.main(["--seen", str(seen)], data) == 0
    assert "'url the rule writer read': 1" in capsys.readouterr().out
    assert not any(row[0] == "theano/t1.txt" for row in indexed(data / "sealed"))


def test_too_few_for_a_round_are_parked_unread_in_the_reserve(data: Path, capsys) -> None:
    assert tool.main(["--park"], data) == 0
    out = capsys.readouterr().out
    assert "parked unread: 5" in out and "an error" not in out
    assert not (data / "sealed").exists() and not (data / "sealed-next-a").exists()
    reserve = indexed(data / "sealed-reserve")
    assert len(reserve) == 5 and all((data / "sealed-reserve" / row[0]).is_file() for row in reserve)
    # the next round opens from the reserve alone
    assert tool.main([], data) == 0
    assert len(indexed(data / "sealed")) == 2


def test_all_stacks_keeps_every_report_in_the_round(data: Path, capsys) -> None:
    """Too few of the Theano family for half of a round: --all-stacks seals every report (the
    figures stand per stack), and reserves none."""
    assert tool.main(["--all-stacks"], data) == 0
    assert "the round: 5 (pytorch 4, theano 1)" in capsys.readouterr().out
    assert len(indexed(data / "sealed")) == 5 and indexed(data / "sealed-reserve") == []
    assert tool.main(["--park", "--all-stacks"], data) == 2
    assert "choose one" in capsys.readouterr().err

"""tools/labeller_prompt.py: a sealed round's helper prompts, filled from the catalog and the folders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import labeller_prompt as tool  # tools/labeller_prompt.py
import pytest

PLACEHOLDERS = re.compile(r"\{(?:root|letter|scratch|causes|area|folders|notes|round|changes)\}")


def test_a_collectors_prompt_lists_every_cause_by_its_title(tmp_path: Path, capsys) -> None:
    area = tmp_path / "area.txt"
    area.write_text("GitHub issues found by Theano's own words. Stack theano.\n", encoding="utf-8")
    assert tool.main(["collect", "ea", str(area)]) == 0
    prompt = capsys.readouterr().out
    parsed = tool.ROOT / "src" / "gpuforge" / "doctor" / "catalog.parsed.json"
    items = json.loads(parsed.read_text(encoding="utf-8"))["items"]
    listed = re.findall(r"^- (\w+): (.+)$", prompt, re.M)
    assert dict(listed) == {item["id"]: item["title"] for item in items}
    assert f"{tool.ROOT}/tests/data/sealed-next-ea/INDEX.tsv" in prompt
    assert prompt.rstrip().endswith("Stack theano.") and not PLACEHOLDERS.search(prompt)
    assert "Settled means confirmed" in prompt  # the check that follows is announced


def test_the_check_and_the_relabel_are_filled(tmp_path: Path, capsys) -> None:
    assert tool.main(["check", "ea", "eb"]) == 0
    prompt = capsys.readouterr().out
    assert "sealed-next-ea, " in prompt and "scratch_eb.txt" in prompt and not PLACEHOLDERS.search(prompt)
    assert "# decidable: <yes | partly | no>" in prompt and "- theano_too_old: " in prompt
    assert tool.main(["check", "reserve"]) == 0  # the reserve: no labellers' notes left
    prompt = capsys.readouterr().out
    assert "sealed-reserve" in prompt and "scratch_" not in prompt and not PLACEHOLDERS.search(prompt)
    changes = tmp_path / "changes.md"
    changes.write_text("1. `channel_missing` now also names platforms.\n", encoding="utf-8")
    assert tool.main(["relabel", "round 17", str(changes)]) == 0
    prompt = capsys.readouterr().out
    assert "title of round 17's freeze" in prompt and "now also names platforms" in prompt
    assert not PLACEHOLDERS.search(prompt)


@pytest.mark.parametrize("missing", [False, True])
def test_an_empty_or_missing_area_is_one_line(tmp_path: Path, capsys, missing: bool) -> None:
    area = tmp_path / "area.txt"
    if not missing:
        area.write_text("\n", encoding="utf-8")
    assert tool.main(["collect", "ea", str(area)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and str(area) in captured.err

"""The prompts of a sealed round's helpers: the collectors, the settledness check, the relabel.

    python tools/labeller_prompt.py collect LETTER AREA_FILE   # one collector's prompt
    python tools/labeller_prompt.py check LETTER [LETTER ...]  # the check of those folders (or `reserve`)
    python tools/labeller_prompt.py relabel ROUND CHANGES_FILE # the header-only relabel

Each prints its template from tools/labeller_prompts/ filled in: the repository's root, the
helper's folder (tests/data/sealed-next-LETTER/) and notes file, and for a collector the
catalog's causes as labellers see them (`- id: title`, from the parsed catalog) and its area (the
file's text: where to search, which words, which stack). The collectors' and the check's answers
are counts only, and the relabel reads headers only, so that whoever writes rules reads nothing
of the round (docs/doctor-evaluation.md, "The sealed reports").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from seal_round import DATA

from gpuforge.doctor.catalog import load_catalog
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text

ROOT = DATA.parents[1]
TEMPLATES = Path(__file__).resolve().parent / "labeller_prompts"
NOTES = Path("/tmp/labellers")  # each helper's notes of the threads it looked at (not committed)


def fill(template: str, **values: str) -> str:
    """The template with each `{name}` replaced (str.format would trip on the prompts' braces)."""
    text = read_text(TEMPLATES / f"{template}.md")
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def causes() -> str:
    """The catalog's causes as labellers see them: titles only, never patterns."""
    return "\n".join(f"- {entry.id}: {entry.title}" for entry in load_catalog())


def collect(letter: str, area: Path) -> str:
    text = read_text(area).strip()
    if not text:
        raise GpuforgeError("the area file is empty (where to search, which words, which stack)", area)
    scratch = str(NOTES / f"scratch_{letter}.txt")
    return fill("collect", root=str(ROOT), letter=letter, scratch=scratch, causes=causes(), area=text)


def check(letters: list[str]) -> str:
    """The check of helpers' folders (`reserve`: the reports an earlier round set aside, whose
    labellers' notes are gone): settledness, then whether each text decides its cause."""
    folders = ", ".join(
        str(DATA / ("sealed-reserve" if x == "reserve" else f"sealed-next-{x}")) for x in letters
    )
    noted = [str(NOTES / f"scratch_{x}.txt") for x in letters if x != "reserve"]
    notes = f"The labellers' notes: {', '.join(noted)}." if noted else ""
    return fill("check", folders=folders, notes=notes, causes=causes())


def relabel(round_: str, changes: Path) -> str:
    text = read_text(changes).strip()
    if not text:
        raise GpuforgeError("the changes file is empty (each id, its old and new title, what moves)", changes)
    return fill("relabel", root=str(ROOT), round=round_, changes=text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="labeller_prompt", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="prompt", required=True)
    one = sub.add_parser("collect", help="one collector's prompt")
    one.add_argument("letter")
    one.add_argument("area", type=Path)
    many = sub.add_parser("check", help="the settledness check of helpers' folders")
    many.add_argument("letters", nargs="+")
    headers = sub.add_parser("relabel", help="the header-only relabel of the sealed set")
    headers.add_argument("round", help="the round, as the relabel line names it (`round 17`)")
    headers.add_argument("changes", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.prompt == "collect":
            text = collect(args.letter, args.area)
        elif args.prompt == "check":
            text = check(args.letters)
        else:
            text = relabel(args.round, args.changes)
    except GpuforgeError as exc:
        print(f"labeller_prompt: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

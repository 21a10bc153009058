"""Open a sealed round: merge the helpers' folders into tests/data/sealed/ without reading a report.

    python tools/seal_round.py [--dry-run] [--seed N] [--seen FILE] [--park | --all-stacks]

Helpers write the reports they collect to tests/data/sealed-next-*/ (one folder each, with an
INDEX.tsv of `<stack>/<file>\\t<stack>\\t<kind>\\t<expected>` lines); reports set aside unread by
an earlier round wait in tests/data/sealed-reserve/ with the same INDEX.tsv. This tool:

- reads every report's header through doctor_eval's one reader (a bad header is a one-line
  error naming the file and line) and checks it against its INDEX.tsv line;
- drops a report whose url the corpus (tests/data/reports/) already has, or another report of
  the round has, or the rule writer has read (`--seen FILE`: one url a line, the threads a
  rule was written from while the round was collected), and counts it;
- keeps the Theano family at least half of the round, as issue 30 asks: when the other stacks
  outnumber it, a seeded draw over file names (never their text) sets the surplus aside in
  tests/data/sealed-reserve/ for a later round (`--all-stacks` keeps them all: the stored threads
  hold too few of the Theano family for half of any round, and the figures are per stack too);
- moves the reports into tests/data/sealed/<stack>/ and writes one INDEX.tsv there and one in
  the reserve.

It prints counts only, so whoever runs it has read nothing of the round. It refuses while a
round is open (tests/data/sealed/ exists): score it and move it into the corpus first.
`--park` moves the helpers' reports into the reserve instead, unread, when they are too few
for a round: they join the next one.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from doctor_eval import read_report

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import read_text, write_atomic

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


@dataclass(frozen=True)
class Entry:
    folder: Path  # the folder whose INDEX.tsv lists it
    name: str  # <stack>/<file>, relative to that folder
    stack: str
    kind: str
    expected: str
    url: str  # its header's, read with the rest of it


def read_index(folder: Path) -> list[Entry]:
    """The reports one folder's INDEX.tsv lists, each checked against its own header."""
    index = folder / "INDEX.tsv"
    if not index.is_file():
        raise GpuforgeError("no INDEX.tsv (a helper's folder lists its reports there)", folder)
    entries = []
    for number, line in enumerate(read_text(index).splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 4:
            shape = "`<stack>/<file>\\t<stack>\\t<kind>\\t<expected>`"
            raise GpuforgeError(f"an INDEX.tsv line is {shape}", index, number)
        name, stack, kind, expected = fields
        path = folder / name
        if not path.is_file():
            raise GpuforgeError(f"lists {name}, which is not there", index, number)
        report = read_report(path)
        if (report.stack, report.kind, report.expected) != (stack, kind, expected):
            raise GpuforgeError("its stack, kind or expected differs from the report's header", index, number)
        entries.append(Entry(folder, name, stack, kind, expected, report.url))
    return entries


def url_key(url: str) -> str:
    return url.strip().rstrip("/").replace("http://", "https://", 1)


def corpus_urls(reports: Path) -> set[str]:
    return {url_key(read_report(p).url) for p in sorted(reports.rglob("*.txt"))}


def read_urls(path: Path) -> set[str]:
    return {url_key(line) for line in read_text(path).splitlines() if line.strip()}


def plan(
    entries: list[Entry],
    known: set[str],
    seed: int,
    read: frozenset[str] = frozenset(),
    balanced: bool = True,
) -> tuple[list[Entry], list[Entry], Counter[str]]:
    """(the round, the reserve, what was dropped and why); ``read``: urls the rule writer read;
    ``balanced``: the other stacks no more than the Theano family, the surplus reserved."""
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    kept = []
    for entry in entries:
        url = url_key(entry.url)
        if url in known:
            dropped["url already in the corpus"] += 1
        elif url in read:
            dropped["url the rule writer read"] += 1
        elif url in seen:
            dropped["url twice in the round"] += 1
        else:
            seen.add(url)
            kept.append(entry)
    theano = [e for e in kept if e.stack == "theano"]
    others = sorted((e for e in kept if e.stack != "theano"), key=lambda e: (e.folder.name, e.name))
    surplus = max(0, len(others) - len(theano)) if balanced else 0
    reserve = random.Random(seed).sample(others, surplus)
    return [e for e in kept if e not in reserve], reserve, dropped


def place(entries: list[Entry], dest: Path) -> None:
    """Move ``entries`` into ``dest`` (a name taken there gets its folder's letter) and write
    dest/INDEX.tsv."""
    lines = []
    for entry in entries:
        source = entry.folder / entry.name
        target = dest / entry.name
        if source.resolve() != target.resolve():
            if target.exists():
                target = target.with_name(f"{entry.folder.name.rsplit('-', 1)[-1]}_{target.name}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(source), target)
        name = target.relative_to(dest).as_posix()
        lines.append("\t".join([name, entry.stack, entry.kind, entry.expected]))
    dest.mkdir(parents=True, exist_ok=True)
    write_atomic(dest / "INDEX.tsv", "".join(f"{line}\n" for line in sorted(lines)), backup=False)


def main(argv: list[str] | None = None, data: Path = DATA) -> int:
    parser = argparse.ArgumentParser(prog="seal_round", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="count and check, move nothing")
    parser.add_argument("--seed", type=int, default=0, help="the draw that sets other stacks aside")
    parser.add_argument("--seen", type=Path, help="urls the rule writer read (one a line): dropped")
    parser.add_argument("--park", action="store_true", help="too few for a round: all into the reserve")
    parser.add_argument(
        "--all-stacks", action="store_true", help="every report into the round, the Theano family however few"
    )
    args = parser.parse_args(argv)
    if args.park and args.all_stacks:
        print("seal_round: error: --park and --all-stacks: choose one", file=sys.stderr)
        return 2
    sealed, reserve_dir = data / "sealed", data / "sealed-reserve"
    try:
        if sealed.exists() and not args.park:
            raise GpuforgeError("a round is open: score it, then move it into the corpus", sealed)
        folders = sorted(data.glob("sealed-next-*")) + ([reserve_dir] if reserve_dir.is_dir() else [])
        if not folders:
            raise GpuforgeError("no helper folders (tests/data/sealed-next-*/) to merge", data)
        entries = [e for folder in folders for e in read_index(folder)]
        read = frozenset(read_urls(args.seen)) if args.seen else frozenset()
        known = corpus_urls(data / "reports")
        round_, reserve, dropped = plan(entries, known, args.seed, read, balanced=not args.all_stacks)
    except GpuforgeError as exc:
        print(f"seal_round: error: {exc}", file=sys.stderr)
        return 2
    if args.park:  # no round: every report kept waits in the reserve
        round_, reserve = [], round_ + reserve
    shown = reserve if args.park else round_
    by_stack = ", ".join(f"{k} {v}" for k, v in sorted(Counter(e.stack for e in shown).items()))
    print(f"{len(entries)} reports in {len(folders)} folders; dropped: {dict(dropped) or 'none'}")
    print(
        f"{'parked unread' if args.park else 'the round'}: {len(shown)} ({by_stack}), "
        f"{sum(e.expected == 'none' for e in shown)} outside the catalog"
        + ("" if args.park else f"; set aside unread: {len(reserve)}")
    )
    if args.dry_run:
        return 0
    if not args.park:
        place(round_, sealed)
    place(reserve, reserve_dir)
    for folder in folders:
        if folder != reserve_dir:
            shutil.rmtree(folder)
    print(f"wrote {reserve_dir}/INDEX.tsv" + ("" if args.park else f" and {sealed}/INDEX.tsv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

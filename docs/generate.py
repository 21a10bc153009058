"""Keep README.md and docs/ true to what the code prints: every console block is re-run and
every measured table rebuilt from its committed report, and compared.

    python docs/generate.py            # check: names each block that drifted, with a diff; exit 1
    python docs/generate.py --update   # rewrite drifted blocks and tables from real runs

`nox -s docs -- --update` runs the second; `tests/docs/test_docs.py` runs the first in
`nox -s tests`. Run from anywhere: commands run from the repository root.

Markers, each on the line right before what it marks:

  <!-- command: CMD -->
      before a fence whose first line is `$ CMD` and the rest CMD's output (stdout and
      stderr as a terminal shows them). CMD runs with bash from the repository root.
  <!-- recorded: WHERE, DATE -->
      before a fence recorded where it cannot run here or in `nox -s tests` (a GPU, a hosted
      runner, Windows, or a run of minutes): kept as it is, and says where and when.
  <!-- table: NAME FILE -->  ...  <!-- end table -->
      around a table that generator NAME (TABLES below) rebuilds from FILE: a measured table
      from the JSON report a nox session wrote (committed under docs/data/), or a table of
      the repository's own data (the GPU table, data/gpu-envs.yaml), or the architecture map
      from the package's own modules (`<!-- table: modules src/gpuforge -->`).

Any ```console fence, and any fence whose first line starts with `$ `, must carry a command or
recorded marker.

What is normalized before comparing (it varies between runs and machines, nothing else):
durations (`0.7 s`, `13 seconds`, `4 minutes`, `[  0.1s]`, `12.3s`, the seconds cell that ends
a table row); the repository's folder (written as /path/to/gpuforge), $HOME (~) and mktemp's
names (/tmp/tmp.XXXXXXXXXX: commands run with TMPDIR set to a scratch folder, removed
after); trailing spaces. A line that is just `...` stands for any number
of output lines the page leaves out; --update keeps as many lines before the first and after
the last `...` as the page had.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import write_atomic

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))  # the benchmark and the evaluation: repository tools
DOCS = ROOT / "docs"
# seconds a command may take: a block's command takes seconds, but its first run on a fresh
# machine may make a cache first (the conda tools' venv: "about a minute")
TIMEOUT = 300
MARKER = re.compile(r"^<!-- (command|recorded|table): (.*) -->$")
END_TABLE = "<!-- end table -->"
ELLIPSIS = "..."
# the environment every command runs in: a fixed terminal width for rich's tables, no colour,
# stdout and stderr in the order they were written, UTF-8
RUN_ENV = {
    "COLUMNS": "120",
    "NO_COLOR": "1",
    "TERM": "dumb",
    "PYTHONUNBUFFERED": "1",
    "PYTHONIOENCODING": "utf-8",
    "LC_ALL": "C.UTF-8",
}

DURATION = [
    (re.compile(r"\[ *\d+\.\d+s\]"), "[<T>]"),  # build-local's step clock, padded
    (re.compile(r"\b\d+(?:\.\d+)?(?: ?s| seconds?| minutes?)\b"), "<T>"),  # 0.7 s, 12.3s, 13 seconds
    (re.compile(r"(?<=\| )\d+\.\d+(?= *\|$)"), "<T>"),  # a table row ending in seconds (doctor_eval)
    (re.compile(r"\(\d+:\d\d:\d\d\)"), "(<T>)"),  # pytest's (0:03:57)
]


def places() -> list[tuple[re.Pattern[str], str]]:
    """Where this machine's paths differ from the page's: written the page's way."""
    subs = [(str(ROOT), "/path/to/gpuforge"), (str(Path.home()), "~")]
    return [(re.compile(re.escape(path) + r"(?![\w.-])"), shown) for path, shown in subs] + [
        (re.compile(r"/tmp/tmp\.\w{10}"), "/tmp/tmp.XXXXXXXXXX"),
        (re.compile(r"/tmp/tmp\w{8}"), "/tmp/tmp.XXXXXXXXXX"),
    ]


def shown(text: str, scratch: str | None = None) -> str:
    """Output as a page shows it: this machine's paths in the page's form, no trailing spaces
    (``scratch``: the TMPDIR the command ran with, shown as /tmp)."""
    if scratch:
        text = text.replace(scratch, "/tmp")
    for pattern, repl in places():
        text = pattern.sub(repl, text)
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def normalized(line: str) -> str:
    for pattern, repl in DURATION:
        line = pattern.sub(repl, line)
    return line.rstrip()


@dataclass
class Block:
    """One marked fence or table of a page."""

    path: Path
    line: int  # 1-based line of the marker
    kind: str  # command | recorded | table
    arg: str  # the command, where/when, or "NAME FILE"
    start: int  # index of the first content line
    end: int  # index one past the last content line
    body: list[str]

    @property
    def where(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}"


class DocError(Exception):
    """A page whose markers or fences are malformed: one line naming file and line."""


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def blocks(path: Path, lines: list[str] | None = None) -> list[Block]:
    """Every marked block of a page; a console fence without a marker is an error."""
    lines = path.read_text(encoding="utf-8").split("\n") if lines is None else lines
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found, i = [], 0
    while i < len(lines):
        marker = MARKER.match(lines[i].strip())
        fence = lines[i].lstrip()
        if marker and marker.group(1) == "table":
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == END_TABLE), None)
            if end is None:
                raise DocError(f"{rel}:{i + 1}: a table marker without `{END_TABLE}`")
            found.append(Block(path, i + 1, "table", marker.group(2).strip(), i + 1, end, lines[i + 1 : end]))
            i = end + 1
            continue
        if marker:
            if i + 1 >= len(lines) or not lines[i + 1].lstrip().startswith("```"):
                raise DocError(f"{rel}:{i + 1}: a {marker.group(1)} marker must be right before a fence")
            start, end = fenced(lines, i + 1, rel)
            found.append(
                Block(path, i + 1, marker.group(1), marker.group(2).strip(), start, end, lines[start:end])
            )
            i = end + 1
            continue
        if fence.startswith("```"):
            start, end = fenced(lines, i, rel)
            body = lines[start:end]
            if fence.rstrip() == "```console" or (body and body[0].lstrip().startswith("$ ")):
                raise DocError(
                    f"{rel}:{i + 1}: a console block without a `<!-- command: ... -->` or "
                    "`<!-- recorded: where, date -->` marker on the line before it"
                )
            i = end + 1
            continue
        i += 1
    return found


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def fenced(lines: list[str], at: int, rel: Path) -> tuple[int, int]:
    """(first content line, closing fence line) of the fence opened at ``at``."""
    indent = indent_of(lines[at])
    for j in range(at + 1, len(lines)):
        if lines[j].strip() == "```" and lines[j].startswith(indent):
            return at + 1, j
    raise DocError(f"{rel}:{at + 1}: a fence that is never closed")


def run(command: str) -> str:
    """``command``'s output, run with bash from the repository root, as the page shows it."""
    with tempfile.TemporaryDirectory(prefix="gpuforge-docs-") as scratch:  # mktemp's TMPDIR, removed after
        # this interpreter's scripts (gpuforge, python) first on PATH, as in its venv or nox session
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {**os.environ, **RUN_ENV, "TMPDIR": scratch, "PATH": path}
        try:
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return f"(docs/generate.py: still running after {TIMEOUT} s: make it a recorded block)"
        return shown(proc.stdout.decode("utf-8", "replace"), scratch)


def matches(expected: list[str], actual: str) -> bool:
    """Whether the output matches the page's lines (`...`: any lines; durations normalized)."""
    parts = []
    for line in expected:
        parts.append(r"(?:[^\n]*\n)*?" if line.strip() == ELLIPSIS else re.escape(normalized(line)) + r"\n")
    lines = [normalized(line) for line in actual.split("\n")] if actual else []
    return re.fullmatch("".join(parts), "".join(f"{line}\n" for line in lines)) is not None


def elided_like(old: list[str], actual: str) -> list[str]:
    """The new output, cut where the page cut the old one."""
    new = actual.split("\n") if actual else []
    cuts = [i for i, line in enumerate(old) if line.strip() == ELLIPSIS]
    if not cuts:
        return new
    head, tail = cuts[0], len(old) - cuts[-1] - 1
    if len(new) <= head + tail:
        return new
    return new[:head] + [ELLIPSIS] + (new[len(new) - tail :] if tail else [])


# --- tables: NAME -> function(the file it is built from) -> the table's lines -----------------


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def bench_table(path: Path) -> list[str]:
    """`nox -s bench`'s own tables (tools/bench.py print_tables) from its bench.json."""
    from bench import print_tables

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_tables(read_json(path))
    return out.getvalue().strip("\n").split("\n")


def fuzz_table(path: Path) -> list[str]:
    """`nox -s fuzz`'s figures (reports/fuzz/summary.json): runs, exit statuses, slowest run."""
    report = read_json(path)
    rows = ["| input kind \\| command | runs | exit 0 / 1 / 2 | slowest (CPU s) |", "|---|---|---|---|"]
    total = 0
    for label, f in report["commands"].items():
        exits = " / ".join(str(f["exit"].get(code, 0)) for code in ("0", "1", "2"))
        other = sum(n for code, n in f["exit"].items() if code not in ("0", "1", "2"))
        total += f["runs"]
        rows.append(
            f"| {label.replace('|', chr(92) + '|')} | {f['runs']} | {exits}"
            f"{f' (+{other} other)' if other else ''} | {f['slowest_cpu_s']:.2f} |"
        )
    slowest = max(report["commands"].values(), key=lambda f: f["slowest_cpu_s"])
    rows += [
        "",
        f"{total:,} runs ({report['examples_per_kind']} random mutations per input kind plus the "
        f"hand-made cases); the slowest took {slowest['slowest_cpu_s']:.2f} s of CPU "
        f"({max(f['slowest_wall_s'] for f in report['commands'].values()):.2f} s wall at most).",
    ]
    return rows


def gpu_envs_table(path: Path) -> list[str]:
    """Which GPU env file for which GPU: envs/gpu-envs.yaml as `gpuforge envs gpus` prints it."""
    from gpuforge.envs.gpu_envs import load, table

    return table(load(path)).split("\n")


def faults_table(path: Path) -> list[str]:
    """`nox -s faults`'s table (reports/faults/faults.json) by the suite's own tests/faults/table.py."""
    spec = importlib.util.spec_from_file_location("faults_table", ROOT / "tests" / "faults" / "table.py")
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)  # a dataclass needs its module in sys.modules
    rows = [module.Row(**row) for row in json.loads(path.read_text(encoding="utf-8"))]
    return module.table(rows).rstrip("\n").split("\n")


def limits_table(path: Path) -> list[str]:
    """`nox -s bench_limits`'s table (tools/bench_limits.py) from its limits.json."""
    from bench_limits import table

    return table(read_json(path))


def doctor_eval_table(path: Path) -> list[str]:
    """`nox -s doctor_eval`'s sealed, cross-validated and whole-corpus figures side by side, by
    stack, and its times (reports/doctor_eval.json)."""
    from doctor_eval import summary

    return summary(read_json(path))


def doctor_eval_misses_table(path: Path) -> list[str]:
    """`nox -s doctor_eval`'s corpus table by kind and what each run misses, by kind."""
    from doctor_eval import misses_by_kind

    return misses_by_kind(read_json(path))


def modules_table(path: Path) -> list[str]:
    """The architecture map: every module of the package (a folder), in the layers of its import
    contract (pyproject.toml's [tool.importlinter], run by `nox -s lint`), with the first line of
    its docstring."""
    import ast

    # the layers contract's list (no TOML reader in Python 3.10's standard library)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r'type = "layers"\nlayers = \[\n(.*?)\n\]', pyproject, re.S)
    if listed is None:
        raise DocError("pyproject.toml: no import-linter layers contract to draw the map from")
    names = re.findall(r'"([^"]+)"', listed.group(1))
    layers = [[name.strip() for name in layer.split("|")] for layer in names]

    def layer_of(module: str) -> int:
        return next(
            (i for i, names in enumerate(layers) for n in names if module == n or module.startswith(n + ".")),
            len(layers),
        )

    rows = []
    for file in sorted(path.rglob("*.py")):
        parts = file.relative_to(path.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        doc = ast.get_docstring(ast.parse(file.read_text(encoding="utf-8"))) or ""
        if parts[-1] == "__init__" and not doc:
            continue  # a package with nothing to say: its modules say it
        first = " ".join(doc.split("\n\n")[0].split())
        if len(first) > 160 and ". " in first:  # a long paragraph: its first sentence
            first = first.split(". ")[0] + "."
        first = first.replace("|", "\\|")
        rel = file.relative_to(ROOT).as_posix()
        rows.append((layer_of(module), rel, first))
    out = ["| layer | module | what it is |", "|---|---|---|"]
    for layer, rel, first in sorted(rows):
        name = " \\| ".join(layers[layer]).replace("gpuforge.", "") if layer < len(layers) else "package"
        out.append(f"| {layer + 1}. {name} | `{rel}` | {first} |")
    return out


TABLES: dict[str, Callable[[Path], list[str]]] = {
    "modules": modules_table,
    "bench": bench_table,
    "fuzz": fuzz_table,
    "gpu-envs": gpu_envs_table,
    "faults": faults_table,
    "doctor-eval": doctor_eval_table,
    "doctor-eval-misses": doctor_eval_misses_table,
    "limits": limits_table,
}


def table_lines(block: Block) -> list[str]:
    name, _, file = block.arg.partition(" ")
    if name not in TABLES:
        raise DocError(f"{block.where}: no table generator {name!r} (there are: {', '.join(TABLES)})")
    source = ROOT / file.strip()
    if not (source.is_file() or (name == "modules" and source.is_dir())):
        raise DocError(f"{block.where}: {file.strip() or 'no file named'}: no such file")
    return TABLES[name](source)


# --- checking and updating --------------------------------------------------------------------


@dataclass
class Drift:
    block: Block
    new: list[str]  # what the block should hold now

    def diff(self) -> str:
        return "\n".join(
            difflib.unified_diff(
                self.block.body,
                self.new,
                f"{self.block.where} (page)",
                "(what it prints now)",
                lineterm="",
                n=1,
            )
        )


def check_block(block: Block) -> Drift | None:
    if block.kind == "recorded":
        return None
    if block.kind == "table":
        new = table_lines(block)
        return None if block.body == new else Drift(block, new)
    prompt = f"$ {block.arg}"
    if not block.body or block.body[0].strip() != prompt:
        return Drift(block, [prompt, *elided_like(block.body[1:], run(block.arg))])
    indent = indent_of(block.body[0])
    body = [line[len(indent) :] if line.startswith(indent) else line for line in block.body[1:]]
    actual = run(block.arg)
    if matches(body, actual):
        return None
    return Drift(block, [prompt, *elided_like(body, actual)])


def check(paths: list[Path] | None = None, jobs: int = 4) -> list[Drift]:
    found = [b for p in (paths or pages()) for b in blocks(p)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return [d for d in pool.map(check_block, found) if d is not None]


def update(drifts: list[Drift]) -> None:
    """Rewrite each drifted block in place (bottom up, so earlier indices stay right)."""
    by_page: dict[Path, list[Drift]] = {}
    for d in drifts:
        by_page.setdefault(d.block.path, []).append(d)
    for path, ds in by_page.items():
        lines = path.read_text(encoding="utf-8").split("\n")
        for d in sorted(ds, key=lambda d: d.block.start, reverse=True):
            indent = "" if d.block.kind == "table" else indent_of(lines[d.block.start - 1])
            lines[d.block.start : d.block.end] = [indent + line if line else line for line in d.new]
        write_atomic(path, "\n".join(lines))  # the old page kept as <name>.bak (ignored by git)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="docs/generate.py", description=__doc__.split("\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the blocks that drifted")
    parser.add_argument("pages", nargs="*", type=Path, help="default: README.md and docs/**/*.md")
    args = parser.parse_args(argv)
    try:
        drifts = check([p.resolve() for p in args.pages] or None)
    except (DocError, GpuforgeError) as exc:
        print(f"docs: error: {exc}", file=sys.stderr)
        return 2
    if args.update:
        try:
            update(drifts)
        except GpuforgeError as exc:
            print(f"docs: error: {exc}", file=sys.stderr)
            return 2
        for d in drifts:
            print(f"{d.block.where}: rewritten ({d.block.kind} {d.block.arg})")
        print(f"{len(drifts)} block(s) rewritten")
        return 0
    for d in drifts:
        print(f"{d.block.where}: drifted ({d.block.kind} {d.block.arg})\n{d.diff()}\n")
    print(f"{len(drifts)} block(s) drifted" if drifts else "docs: every block matches what the code prints")
    return 1 if drifts else 0


if __name__ == "__main__":
    sys.exit(main())

"""Bad input never crashes: every command that reads a file, fed mutations of the
repository's own inputs (Hypothesis) and the hand-made cases of issue 15.

The contract checked for every run (in-process: gpuforge.cli.main with argv):
exit status 0, 1 or 2 and no exception; status 2 is one line naming the file; a file that
does not decode (or, for env files and mirrors.yaml, does not parse as YAML) is never
status 0; every run ends within 5 s; no temporary file is left and, on status 2,
nothing in the workspace changed.

`nox -s tests` runs a few derandomized examples per input kind (seconds);
`nox -s fuzz` runs many random ones (GPUFORGE_FUZZ_EXAMPLES) and writes the figures
to GPUFORGE_FUZZ_REPORT.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from gpuforge import locations
from gpuforge.cli import main

EXAMPLES = int(os.environ.get("GPUFORGE_FUZZ_EXAMPLES", "6"))  # per input kind
RANDOM = "GPUFORGE_FUZZ_EXAMPLES" in os.environ  # nox -s fuzz: random; nox -s tests: fixed examples
# "No hang past 5 s": the CPU time of a run (all its threads) stays under TIME_LIMIT, which
# other processes' load cannot inflate; a run blocked on something (a FIFO) is stopped by
# the wall-clock watchdog instead, at HANG_WATCHDOG.
TIME_LIMIT = 5.0
HANG_WATCHDOG = 30.0
OLD_THEANORC = "[global] \ndevice = gpu\nfloatX = float32\n[nvcc] \nfastmath = True\n[lib]\ncnmem = 1.0\n"
NUMPY_LOG = "AttributeError: module 'numpy' has no attribute 'bool'.\n"  # catalog: pins numpy<1.24


@dataclass(frozen=True)
class Kind:
    """An input kind: a file in the workspace and the commands that read it."""

    name: str
    path: str
    commands: tuple[tuple[str, ...], ...]
    yaml: bool = False  # must parse as YAML (as written, no selectors/Jinja) to exit 0
    replaced: tuple[str, ...] = ()  # commands that replace the file without reading it as input


ENV = "envs/gpu-win64.yml"
THEANORC = "home/.theanorc"
# `recipes lint` with gpuforge's own reading only: conda-smithy (`--conda-smithy auto`) is a
# separate program that reads the recipes again; tests/recipes/test_lint.py runs it.
KINDS = [
    Kind(
        "env file",
        ENV,
        (
            ("envs", "check", ENV),
            ("envs", "solve", ENV),
            ("ci", "env-file", ENV, "--channel", "channel", "--output", "out/env.yml"),
            ("doctor", "--log", "numpy.log", "--fix", "--env-file", ENV),
        ),
        yaml=True,
    ),
    Kind(
        "mirrors.yaml",
        "mirrors.yaml",
        (
            ("envs", "check", "envs/cpu-linux64.yml", "--mirrors", "mirrors.yaml"),
            ("envs", "render", "--mirrors", "mirrors.yaml"),
        ),
        yaml=True,
    ),
    Kind(
        "meta.yaml",
        "recipes/theano/meta.yaml",
        (
            ("recipes", "render", "theano"),
            ("recipes", "lint", "theano", "--conda-smithy", "skip"),
            ("ci", "matrix"),
            ("ci", "render"),
        ),
    ),
    Kind(
        "conda_build_config.yaml",
        "recipes/conda_build_config.yaml",
        (
            ("recipes", "render", "libgpuarray"),
            ("recipes", "lint", "libgpuarray", "--conda-smithy", "skip"),
            ("ci", "matrix"),
            ("ci", "render"),
            ("envs", "check", "envs/cpu-linux64.yml"),
        ),
    ),
    Kind(
        "workflow", ".github/workflows/build.yml", (("ci", "render"), ("ci", "render", "--check")), yaml=True
    ),
    Kind(
        ".theanorc",
        THEANORC,
        (
            ("theanorc", "migrate", "--path", THEANORC, "--yes"),
            ("theanorc", "write", "--profile", "fast", "--path", THEANORC),
        ),
        replaced=("write",),
    ),
    Kind("probe report", "report.json", (("doctor", "--facts", "report.json"),)),
]

STATS: dict[str, Counter] = defaultdict(Counter)  # "kind | command" -> exit statuses
SLOWEST: dict[str, float] = defaultdict(float)  # CPU seconds
SLOWEST_WALL: dict[str, float] = defaultdict(float)


# --- the workspace: a copy of the repository's inputs, reset after every run ---------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("fuzz")
    for folder in ("envs", "recipes", "ci/variants", ".github/workflows"):
        shutil.copytree(ROOT / folder, ws / folder)
    shutil.copy(locations.MIRRORS, ws / "mirrors.yaml")  # a copy of gpuforge's own to break
    (ws / "channel").mkdir()
    (ws / "home").mkdir()
    (ws / THEANORC).write_text(OLD_THEANORC)
    (ws / "numpy.log").write_text(NUMPY_LOG)
    probe = ROOT / "src" / "gpuforge" / "inside" / "probe.py"  # a real report of this interpreter
    proc = subprocess.run(
        [sys.executable, str(probe), "--self", sys.executable, "--timeout", "30"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (ws / "report.json").write_text(proc.stdout)
    return ws


def snapshot(ws: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.is_symlink()}


def restore(ws: Path, saved: dict[Path, bytes]) -> None:
    for p in sorted(ws.rglob("*"), reverse=True):
        if p not in saved and (p.is_symlink() or not p.is_dir()):
            p.unlink()
        elif (
            p.is_dir()
            and not p.is_symlink()
            and p != ws
            and not any(p.iterdir())
            and not any(s.is_relative_to(p) for s in saved)
            and p.name not in ("channel", "home")
        ):
            p.rmdir()
    for p, data in saved.items():
        if p.is_symlink() or p.is_fifo() or p.is_dir():
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
        if not p.is_file() or p.read_bytes() != data:
            p.write_bytes(data)
        p.chmod(0o644)


@contextlib.contextmanager
def hermetic(ws: Path):
    """cwd, HOME (no ~/.theanorc of this machine) and tracebacks for bugs, for one run."""
    saved_env = {k: os.environ.get(k) for k in ("HOME", "THEANORC", "THEANO_FLAGS", "GPUFORGE_TRACEBACK")}
    cwd = os.getcwd()
    os.environ.update(HOME=str(ws / "home"), GPUFORGE_TRACEBACK="1")
    os.environ.pop("THEANORC", None)
    os.environ.pop("THEANO_FLAGS", None)
    os.chdir(ws)
    try:
        yield
    finally:
        os.chdir(cwd)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _timeout(*_):
    raise TimeoutError(f"a run hung: no exit after {HANG_WATCHDOG:.0f} s")


def run(ws: Path, argv: tuple[str, ...]) -> tuple[int, str, str, float, float]:
    """(status, stdout, stderr, CPU seconds, wall seconds) of ``gpuforge ARGV`` in-process."""
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _timeout)
    signal.setitimer(signal.ITIMER_REAL, HANG_WATCHDOG)  # a hang fails the example, not the suite
    cpu, wall = time.process_time(), time.monotonic()
    try:
        with hermetic(ws), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(argv))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return rc, out.getvalue(), err.getvalue(), time.process_time() - cpu, time.monotonic() - wall


# --- the contract --------------------------------------------------------------------------


def reference_text(data: bytes) -> str | None:
    """A reference decoder, independent of fileio: UTF-8 (BOM or not), UTF-16 with a BOM."""
    try:
        text = (
            data.decode("utf-16")
            if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
            else data.decode("utf-8-sig")
        )
    except UnicodeDecodeError:
        return None
    return None if "\0" in text else text.lstrip("\ufeff")


def decodes(data: bytes) -> bool:
    return reference_text(data) is not None


REFERENCE_LIMIT = 256 * 1024  # larger cases (100,000 dependencies) state their expected status


@functools.lru_cache(maxsize=64)
def parses(data: bytes) -> bool:
    """ruamel's safe loader as the reference: does this YAML parse at all?"""
    text = reference_text(data)
    if text is None:
        return False
    try:
        YAML(typ="safe", pure=True).load(text)
    except RecursionError:
        return False
    except Exception:  # noqa: BLE001 - any refusal counts as "does not parse"
        return False
    return True


def check(
    ws: Path, kind: Kind, argv: tuple[str, ...], data: bytes | None, before: dict[Path, bytes], case: str
) -> int:
    rc, out, err, cpu, wall = run(ws, argv)
    label = f"{kind.name} | {' '.join(argv)}"
    STATS[label][rc] += 1
    SLOWEST[label] = max(SLOWEST[label], cpu)
    SLOWEST_WALL[label] = max(SLOWEST_WALL[label], wall)
    where = f"[{case}] gpuforge {' '.join(argv)} -> {rc}\nstderr: {err[-2000:]}"
    assert rc in (0, 1, 2), where
    assert cpu < TIME_LIMIT, f"{where}\ntook {cpu:.1f} s of CPU"
    leftovers = [p for p in ws.rglob("*.tmp") if ".gpuforge-" in p.name]
    assert not leftovers, f"{where}\ntemporary files left: {leftovers}"
    reads = argv[0] != "theanorc" or argv[1] not in kind.replaced
    if rc == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("gpuforge: error: "), where
        assert Path(kind.path).name in lines[0] or "/" in lines[0], where
        changed = [p for p, b in snapshot(ws).items() if before.get(p) != b]
        assert not changed, f"{where}\nchanged on bad input: {changed}"
    if data is not None and reads and not decodes(data):
        assert rc == 2, f"{where}\nundecodable input accepted"
    if data is not None and kind.yaml and len(data) < REFERENCE_LIMIT and not parses(data):
        assert rc == 2, f"{where}\nYAML that does not parse accepted"
    for p, b in snapshot(ws).items():  # what was written is whole: it decodes (and parses)
        if before.get(p) != b and p.suffix in (".yml", ".yaml"):
            assert parses(b), f"{where}\nwrote unparsable {p}"
    return rc


def feed(ws: Path, kind: Kind, data: bytes | None, case: str, prepare=None) -> list[int]:
    """Put ``data`` (or ``prepare(path)``'s doing) at the kind's path; run every command."""
    base = snapshot(ws)
    statuses = []
    try:
        for argv in kind.commands:
            target = ws / kind.path
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
            if prepare is not None:
                prepare(target)
            else:
                target.write_bytes(data)
            statuses.append(check(ws, kind, argv, data, snapshot(ws), case))
            restore(ws, base)
    finally:
        restore(ws, base)
    return statuses


# --- Hypothesis: mutations of the real files ------------------------------------------------

TOKENS = [
    b"[",
    b"]",
    b"{",
    b"}",
    b":",
    b": ",
    b"- ",
    b"&a ",
    b"*a",
    b"!!python/object:os.system ",
    b"!!binary ",
    b"\t",
    b"\x00",
    b"\xff\xfe",
    b"\xe9",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n",
    b"? ",
    b"|\n",
    b">-\n",
    b"'",
    b'"',
    b"#",
    b"  # [win]",
    b"  # [linux and py<30]",
    b"{{ ",
    b"{% ",
    b" }}",
    b"\n",
    b"\r\n",
    b"    ",
    b"null",
    b"~",
    b"2001-13-14",
    b"9" * 5000,
    b"=",
    b"::",
    b"<<: *a\n",
    b"\xef\xbb\xbf",
    "é".encode(),
    "é".encode("latin-1"),
    b"dependencies:\n",
    b"pip:\n",
]


@st.composite
def mutations(draw, original: bytes) -> bytes:
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["token", "delete", "duplicate", "byte", "truncate", "indent", "reencode"]))
        if op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS)) * draw(st.sampled_from([1, 1, 2, 100]))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif op == "duplicate":
            data[at:at] = data[at : at + draw(st.integers(1, 400))] * draw(st.integers(1, 50))
        elif op == "byte" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif op == "truncate":
            del data[at:]
        elif op == "indent":
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] = b" " * draw(st.integers(0, 12)) + lines[i].lstrip()
            data = bytearray(b"\n".join(lines))
        elif op == "reencode":
            text = bytes(data).decode("utf-8", "replace")
            encoding = draw(st.sampled_from(["utf-16", "utf-8-sig", "latin-1", "utf-16-le"]))
            data = bytearray(text.encode(encoding, "replace"))
    return bytes(data)


# No "explain" phase: it traces every line, which makes runs many times slower than they are.
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_mutations_of_the_real_inputs_keep_the_contract(workspace, kind):
    original = (workspace / kind.path).read_bytes()

    @FUZZ_SETTINGS
    @given(mutations(original))
    def one(data: bytes) -> None:
        feed(workspace, kind, data, "mutation")

    one()


def test_the_real_inputs_pass(workspace):
    """The unmutated inputs: 0 (or 1 where the command reports findings, doctor --fix)."""
    for kind in KINDS:
        statuses = feed(workspace, kind, (workspace / kind.path).read_bytes(), "original")
        expected = [1 if argv[0] == "doctor" and "--log" in argv else 0 for argv in kind.commands]
        assert statuses == expected, kind.name


# --- the hand-made cases of issue 15 --------------------------------------------------------


def _deep_flow(n: int) -> bytes:
    return b"name: x\ndependencies: " + b"[" * n + b"python" + b"]" * n + b"\n"


def _deep_block(n: int) -> bytes:
    items = b"".join(b"  " * i + b"- \n" for i in range(1, n))
    return b"name: x\ndependencies:\n" + items + b"  " * n + b"- x\n"


BOMB = b"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + b"".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n".encode() for i in range(8)
)
LATIN1_COMMENT = "# Windows user's note: café\n".encode("latin-1")


def hand_made(original: bytes) -> dict[str, bytes]:
    return {
        "latin-1 comment": LATIN1_COMMENT + original,
        "binary garbage": bytes(range(256)) * 8,
        "deep flow nesting": _deep_flow(5000),
        "deep block nesting": _deep_block(3000),
        "alias bomb": BOMB,
        "unclosed flow sequence": b"name: x\ndependencies: [python=3.7, numpy\n",
        "truncated": original[: len(original) // 2 - 7],
        "empty": b"",
    }


SAME_TEXT = {  # what Windows tools write: the same text, so the same status as the original
    "UTF-16 LE with BOM (PowerShell >)": lambda b: b.decode().encode("utf-16"),
    "UTF-16 BE with BOM": lambda b: codecs.BOM_UTF16_BE + b.decode().encode("utf-16-be"),
    "UTF-8 with BOM (Notepad)": lambda b: codecs.BOM_UTF8 + b,
    "CRLF line ends": lambda b: b.replace(b"\n", b"\r\n"),
}
if not RANDOM:  # nox -s tests: the two Windows defaults (the fuzz session runs all four)
    SAME_TEXT = {k: v for k, v in SAME_TEXT.items() if "PowerShell" in k or "Notepad" in k}


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _unreadable(path: Path) -> None:
    path.write_text("name: x\n")
    path.chmod(0)  # as root this stays readable: then the contract holds as for any file


def _fifty_mb(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)


NOT_FILES = {"FIFO": _fifo, "directory": _directory, "unreadable": _unreadable, "50 MB file": _fifty_mb}


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_hand_made_cases_keep_the_contract(workspace, kind):
    original = (workspace / kind.path).read_bytes()
    reference = feed(workspace, kind, original, "original")
    for case, convert in SAME_TEXT.items():
        statuses = feed(workspace, kind, convert(original), case)
        if kind.name == "workflow":  # also an output, compared byte for byte: --check sees it differ
            reference = [1 if "--check" in argv else 0 for argv in kind.commands]
        assert statuses == reference, case
    for case, data in hand_made(original).items():
        statuses = feed(workspace, kind, data, case)
        for argv, rc in zip(kind.commands, statuses, strict=True):
            if argv[1] not in kind.replaced and case != "truncated":  # a truncated file may still be valid
                assert rc == 2 or (kind.name in ("workflow", ".theanorc") and case == "empty"), (case, argv)
    for case, prepare in NOT_FILES.items():
        statuses = feed(workspace, kind, None, case, prepare)
        if case not in ("unreadable", "50 MB file") or (case == "unreadable" and os.geteuid() != 0):
            assert all(rc == 2 for rc in statuses), (case, statuses)
        if case == "50 MB file":
            assert all(
                rc == 2
                for argv, rc in zip(kind.commands, statuses, strict=True)
                if argv[1] not in kind.replaced
            ), (case, statuses)


@pytest.mark.parametrize(
    "deps",
    [
        b"dependencies:\n",
        b"dependencies: {python: '3.7'}\n",
        b"dependencies: python=3.7\n",
        b"dependencies: []\n",
        b"dependencies:\n  - python=3.7  # why\n  - [numpy]\n",
    ],
    ids=["empty", "mapping", "string", "empty list", "nested item"],
)
def test_dependencies_of_the_wrong_shape_are_refused(workspace, deps):
    kind = KINDS[0]
    text = b"name: x\nchannels:\n  - defaults\n" + deps
    statuses = feed(workspace, kind, text, "dependencies shape")
    assert statuses == [2, 2, 2, 2]


def test_a_hundred_thousand_dependencies_fail_fast(workspace):
    text = b"name: x\nchannels:\n  - defaults\ndependencies:\n" + b"".join(
        b"  - pkg%d  # why\n" % i for i in range(100_000)
    )
    assert feed(workspace, KINDS[0], text, "100,000 dependencies") == [2, 2, 2, 2]


def test_a_recipe_nested_three_thousand_levels_fails_fast(workspace):
    kind = next(k for k in KINDS if k.name == "meta.yaml")
    nested = (
        b"package:\n  name: theano\n  version: 1.0.5\nextra:\n"
        + b"".join(b" " * i + b"k:\n" for i in range(1, 3000))
        + b" " * 3000
        + b"k: v\n"
    )
    assert feed(workspace, kind, nested, "3,000-level nesting") == [2, 2, 2, 2]


def test_zz_write_the_figures():
    """The figures for docs/reliability.md (nox -s fuzz): runs per command, exit statuses, slowest run."""
    report = os.environ.get("GPUFORGE_FUZZ_REPORT")
    if not report:
        pytest.skip("set GPUFORGE_FUZZ_REPORT=FILE (nox -s fuzz does) to write the figures")
    figures = {
        label: {
            "runs": sum(c.values()),
            "exit": dict(sorted(c.items())),
            "slowest_cpu_s": round(SLOWEST[label], 3),
            "slowest_wall_s": round(SLOWEST_WALL[label], 3),
        }
        for label, c in sorted(STATS.items())
    }
    Path(report).parent.mkdir(parents=True, exist_ok=True)
    Path(report).write_text(
        json.dumps({"examples_per_kind": EXAMPLES, "random": RANDOM, "commands": figures}, indent=2) + "\n"
    )

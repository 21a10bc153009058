"""gpuforge's one reading of .theanorc (inside/theanorc_lines.py) against the real configparser
that Theano reads it with, in Python 2.7, 3.7, 3.11 (this process) and 3.13: the same settings
and the same refusal, on the line shapes users write and on a thousand seeded random files."""

from __future__ import annotations

import json
import random
import subprocess

import pytest
from conftest import pyenv_or_skip

from gpuforge.inside import theanorc_lines

# One file per line of text the interpreter under test reads it with: what configparser says.
READER = r"""
import json, sys
try:
    import configparser
    Parser, py2 = configparser.RawConfigParser, False
except ImportError:
    import ConfigParser as configparser
    Parser, py2 = configparser.RawConfigParser, True
import io
out = []
for text in json.load(open(sys.argv[1])):
    parser = Parser()
    try:
        if py2:
            parser.readfp(io.BytesIO(text.encode("utf-8")), "rc")
        else:
            parser.read_string(text, "rc")
    except configparser.Error as exc:
        line = getattr(exc, "lineno", None)
        if line is None and getattr(exc, "errors", None):
            line = exc.errors[0][0]
        out.append({"error": line})
        continue
    sections = dict((name, dict(parser._sections[name])) for name in parser._sections)
    for values in sections.values():
        values.pop("__name__", None)
    if parser._defaults:
        sections["DEFAULT"] = dict(parser._defaults)
    out.append({"sections": sections})
print(json.dumps(out))
"""

SHAPES = [
    "[global]",
    "[global] # my GPU box",
    "[global]  ; note",
    "[dnn.conv]",
    "[a]b]",
    "  [gpuarray]",
    "[DEFAULT]",
    "device = cuda",
    "Device: cpu",
    "floatX=float32",
    "cxxflags = -O3 -ffast-math",
    "  -funroll-loops",
    "\t-march=native",
    "    # an indented comment",
    "# a comment",
    "; a comment",
    "rem old style",
    "REM old style",
    "",
    "   ",
    "x = a ; b",
    "x = a;b",
    'y = ""',
    "= value",
    "just a word",
    "key:value=2",
    "z =",
    "  device = cpu",
    "preallocate = 0.8",
]


def reading_of(text: str, version: tuple[int, int]) -> dict:
    reading = theanorc_lines.read(text, version)
    if reading.error:
        return {"error": reading.error["line"]}
    sections: dict[str, dict[str, str]] = {}
    for line in reading.lines:
        if line.kind == theanorc_lines.HEADER and line.section != "DEFAULT":  # configparser's defaults
            sections.setdefault(line.section, {})
        elif line.kind == theanorc_lines.OPTION:
            sections.setdefault(line.section, {})[line.option] = line.value
    return {"sections": sections}


def texts() -> list[str]:
    """The shapes one by one under a header, then seeded random files of them."""
    found = [f"[global]\n{shape}\n" for shape in SHAPES] + [f"{shape}\n[global]\nx = 1\n" for shape in SHAPES]
    rng = random.Random(20261127)
    for _ in range(1000):
        lines = [rng.choice(SHAPES) for _ in range(rng.randint(1, 9))]
        if rng.random() < 0.8:
            lines.insert(0, "[global]")
        found.append("\n".join(lines) + "\n")
    return found


def configparser_of(python: str, items: list[str], tmp_path) -> list[dict]:
    data = tmp_path / "texts.json"
    data.write_text(json.dumps(items), encoding="utf-8")
    proc = subprocess.run([python, "-c", READER, str(data)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("minor", ["2.7", "3.7", "3.11", "3.13"])
def test_the_reading_is_configparsers(minor, tmp_path):
    python = pyenv_or_skip(minor)
    items = texts()
    version = tuple(int(x) for x in minor.split("."))
    theirs = configparser_of(python, items, tmp_path)
    differ = [
        (text, mine, real)
        for text, real in zip(items, theirs, strict=True)
        if (mine := reading_of(text, version)) != real
    ]
    assert differ == [], f"{len(differ)} of {len(items)} differ: {differ[:3]}"


def test_a_header_with_a_comment_is_the_section():
    reading = theanorc_lines.read("[global] # my GPU box\ndevice = cuda\n")
    assert reading.error is None
    (device,) = reading.options()
    assert (device.section, device.option, device.value, device.number) == ("global", "device", "cuda", 2)


def test_a_refused_file_names_the_line():
    assert theanorc_lines.read("[global]\ndevice = cuda\nDevice = cpu\n").error == {
        "line": 3,
        "message": "[global] device repeats line 2 (Python 3's configparser refuses the file)",
    }
    assert theanorc_lines.read("[global]\nx = 1\n[global]\n", (2, 7)).error is None  # Python 2: no error

""".theanorc files: seed 003's profiles (`theanorc write`) and the old-backend migration
(`theanorc migrate`).

Files are read the way Theano's ConfigParser reads them (inside/theanorc_lines.py, the one
reading of .theanorc that the probe shares) and rewritten line by line, so comments and
order survive; `gpuforge doctor --fix` edits them through the same model (``set_option``).
Every profile and migration result is checked by loading it in real Theano 1.0.5
(tests/doctor/test_theanorc.py).
"""

from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gpuforge.errors import GpuforgeError
from gpuforge.fileio import Written, read_text, write_file
from gpuforge.fileio import home as fileio_home
from gpuforge.inside import theanorc_lines

# The configparser rules the host reads a user's file by (theanorc_lines): those of the Python 3
# that Theano 1.0.5 runs on in gpuforge's environments.
RULES = (3, 7)

# Seed 003's profiles, as Theano 1.0.5 reads them. Where the seed's own text would
# not work in 1.0.5 the file says so.
PROFILES = {
    "fast": """\
# gpuforge theanorc write --profile fast: seed 003's fastest-run settings.
# Seed 003 also had `[nvcc] fastmath = True`: Theano 1.0.5 has no [nvcc] section
# (the gpuarray backend compiles GPU kernels with NVRTC, which it gives no
# fast-math switch), so the fast math is the CPU side's -ffast-math below.
[global]
floatX = float32
device = cuda
# Every optimization (and the worst error messages).
mode = FAST_RUN

# Seed 003 wrote `[dnn] conv.algo_fwd`, which Theano never reads: it looks in [dnn.conv].
[dnn.conv]
# Time the algorithms on the first call (guess_once: a heuristic instead).
algo_fwd = time_once

[gcc]
cxxflags = -O3 -ffast-math -ftree-loop-distribution -funroll-loops -ftracer

[gpuarray]
# GPU allocation is slow: reserve memory up front (0..1: a fraction, capped at
# 0.95; above 1: megabytes).
preallocate = 1.0
""",
    "dev": """\
# gpuforge theanorc write --profile dev: seed 003's development settings.
[global]
floatX = float32
# DebugMode is safest on the CPU.
device = cpu
# No optimizations; Python tracebacks work. To try things fast: mode = FAST_COMPILE
mode = DebugMode
""",
    "multi-gpu": """\
# gpuforge theanorc write --profile multi-gpu: seed 003's two-GPU settings.
[global]
# Context names for real devices: theano.shared(..., target='dev0').
contexts = dev0->cuda0;dev1->cuda1
# Avoid AtomicAdd on the GPU where a deterministic version exists.
deterministic = more

# Seed 003 wrote `[dnn] conv.algo_fwd = deterministic`: Theano reads [dnn.conv],
# and `deterministic` is no forward algorithm in 1.0.5 (import fails with it).
# cuDNN's forward algorithms are deterministic; the backward ones are set here.
[dnn.conv]
algo_bwd_data = deterministic
algo_bwd_filter = deterministic
""",
    "profile": """\
# gpuforge theanorc write --profile profile: seed 003's profiling flags (a summary
# of time, memory and optimizer passes is printed when the process exits).
[global]
profile = True
profile_memory = True
profile_optimizer = True
""",
}


# dnn.conv options Theano 1.0.5 removed, and what its error message says to use instead.
DNN_CONV_RENAMES = {
    "workmem": ["algo_fwd"],
    "workmem_bwd": ["algo_bwd_data", "algo_bwd_filter"],
    "algo_bwd": ["algo_bwd_data", "algo_bwd_filter"],
}


@dataclass
class Entry:
    """One ``key = value`` (with its continuation lines and the comments just above)."""

    key: str  # as written
    value: str
    line: int
    text: list[str]
    comments: list[str] = field(default_factory=list)

    @property
    def option(self) -> str:
        return self.key.lower()

    def render(self) -> list[str]:
        return self.comments + self.text


@dataclass
class Section:
    name: str | None  # None: what comes before the first header
    header: str
    line: int
    items: list[Entry | str] = field(default_factory=list)  # str: a comment or blank line

    @property
    def entries(self) -> list[Entry]:
        return [i for i in self.items if isinstance(i, Entry)]

    def find(self, option: str) -> Entry | None:
        return next((e for e in self.entries if e.option == option.lower()), None)

    @staticmethod
    def _blank(item: Entry | str) -> bool:
        return isinstance(item, str) and not item.strip()

    def add(self, entry: Entry) -> None:
        """``entry`` after the section's last entry or comment (before its trailing blank lines)."""
        end = len(self.items)
        while end and self._blank(self.items[end - 1]):
            end -= 1
        self.items.insert(end, entry)

    def render(self) -> list[str]:
        head = [self.header] if self.name is not None else []
        return head + [
            line for item in self.items for line in (item.render() if isinstance(item, Entry) else [item])
        ]


def parse(text: str, path: Path) -> list[Section]:
    """Sections of a .theanorc as Theano reads it (inside/theanorc_lines.py: configparser's
    rules), keeping every line; what configparser would refuse is a located error."""
    reading = theanorc_lines.read(text, RULES)
    if reading.error:
        raise GpuforgeError(reading.error["message"], path, reading.error["line"])
    lines = reading.lines
    ends = _value_ends(lines)
    sections = [Section(None, "", 0)]
    pending: list[str] = []  # comment lines just above the next entry
    at = 0
    while at < len(lines):
        line, current = lines[at], sections[-1]
        if line.kind in (theanorc_lines.BLANK, theanorc_lines.COMMENT):
            if line.kind == theanorc_lines.COMMENT and line.text.strip():
                pending.append(line.text)
            else:
                current.items += [*pending, line.text]
                pending = []
        elif line.kind == theanorc_lines.HEADER:
            current.items += pending
            pending = []
            sections.append(Section(line.section, line.text, line.number))
        else:  # an option, with every line up to the end of its value
            end = ends[at]
            value_lines = [ln.text for ln in lines[at : end + 1]]
            current.items.append(Entry(line.key or "", line.value or "", line.number, value_lines, pending))
            pending = []
            at = end
        at += 1
    sections[-1].items += pending
    return sections


def _value_ends(lines: list[theanorc_lines.Line]) -> dict[int, int]:
    """For each option line's index, the index of its value's last line (its last continuation:
    the blank and comment lines between belong to the value, those after it do not)."""
    ends: dict[int, int] = {}
    option = None
    for i, line in enumerate(lines):
        if line.kind == theanorc_lines.OPTION:
            option = i
            ends[i] = i
        elif line.kind == theanorc_lines.CONTINUATION and option is not None:
            ends[option] = i
        elif line.kind == theanorc_lines.HEADER:
            option = None
    return ends


def split_key(key: str) -> tuple[str, str]:
    """A Theano option's (section, option) in a config file: ``blas.ldflags`` -> (blas, ldflags),
    ``device`` -> (global, device)."""
    section, _, option = key.rpartition(".")
    return section or "global", option


def set_option(text: str, path: Path, key: str, value: str) -> str:
    """``text`` (a .theanorc) with Theano option ``key`` set to ``value``: its line replaced where
    it is set (the comments above it stay), else added at the end of its section (made at the
    end of the file when missing)."""
    sections = parse(text, path)
    name, option = split_key(key)
    section = next((s for s in sections if s.name == name), None)
    if section is None:
        section = Section(name, f"[{name}]", 0)
        sections.append(section)
    entry = section.find(option)
    if entry is not None:  # its own spelling of the name stays
        entry.value, entry.text = value, [f"{entry.key} = {value}".rstrip()]
    else:
        section.add(Entry(option, value, 0, [f"{option} = {value}".rstrip()]))
    return render(sections)


def comment_out(text: str, path: Path, key: str, note: str) -> str:
    """``text`` with the lines that set ``key`` turned into comments, the first ending in ``note``."""
    sections = parse(text, path)
    name, option = split_key(key)
    for section in sections:
        entry = section.find(option) if section.name == name else None
        if entry is not None:
            entry.text = [f"# {entry.text[0].strip()}    # {note}"] + [
                f"# {t.strip()}" for t in entry.text[1:]
            ]
            section.items[section.items.index(entry)] = entry
    return render(sections)


def render(sections: list[Section]) -> str:
    lines: list[str] = []
    for section in sections:
        if section.line == 0 and section.name is not None and lines and lines[-1].strip():
            lines.append("")  # a blank line before a section the migration added
        lines += section.render()
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def default_path() -> Path:
    """~/.theanorc (on Windows ~/.theanorc.txt when only that exists), as Theano reads them."""
    home = fileio_home()
    if sys.platform == "win32" and not (home / ".theanorc").exists() and (home / ".theanorc.txt").exists():
        return home / ".theanorc.txt"
    return home / ".theanorc"


def write_profile(name: str, path: Path) -> Written:
    """Write profile ``name`` to ``path`` atomically; returns where it landed and its backup.

    A file that is one of the profiles is replaced without a backup (`theanorc write` makes
    it again), so the .bak keeps the user's own file through any number of profile writes."""
    try:
        old = read_text(path) if path.is_file() else None
    except GpuforgeError:
        old = None
    return write_file(path, PROFILES[name], backup=old not in PROFILES.values())


@dataclass
class Migration:
    old: str
    new: str
    notes: list[str]

    def diff(self, path: Path) -> str:
        return "".join(
            difflib.unified_diff(
                self.old.splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile=str(path),
                tofile=f"{path} (migrated)",
            )
        )


class _Migrator:
    """Rewrites old-backend entries in place; every change leaves a note.

    Linear in the file's size: entries taken out are marked and each section's items rebuilt
    once at the end, and the options of a section are found through an index, not a scan."""

    def __init__(self, sections: list[Section], path: Path) -> None:
        self.sections = sections
        self.path = path
        self.notes: list[str] = []
        self.by_name: dict[str | None, Section] = {}
        for section in sections:
            self.by_name.setdefault(section.name, section)
        self.taken: set[int] = set()  # id() of the entries taken out
        self.options: dict[int, dict[str, list[Entry]]] = {}  # id(section) -> option -> entries

    def section(self, name: str) -> Section:
        found = self.by_name.get(name)
        if found is None:
            found = Section(name, f"[{name}]", 0)
            self.sections.append(found)
            self.by_name[name] = found
        return found

    def _index(self, section: Section) -> dict[str, list[Entry]]:
        if id(section) not in self.options:
            index: dict[str, list[Entry]] = {}
            for e in section.entries:
                index.setdefault(e.option, []).append(e)
            self.options[id(section)] = index
        return self.options[id(section)]

    def find(self, section: Section, option: str) -> Entry | None:
        """``Section.find``, without the entries taken out."""
        return next(
            (e for e in self._index(section).get(option.lower(), []) if id(e) not in self.taken), None
        )

    def take_out(self, entry: Entry) -> None:
        """Remove ``entry``'s own lines (when the sections are rebuilt); the comments above it
        stay where the user wrote them."""
        self.taken.add(id(entry))

    def move(self, entry: Entry, source: Section, target: str, options: list[str], why: str) -> None:
        """Take ``entry`` out of ``source``; set [target] option = its value for each option."""
        self.take_out(entry)
        old = f"[{source.name}] {entry.key} = {entry.value}"
        dest = self.section(target)
        for option in options:
            if (existing := self.find(dest, option)) is not None:
                self.notes.append(
                    f"line {entry.line}: {old} dropped: [{target}] {option} is "
                    f"already set" + (f" (line {existing.line})" if existing.line else "")
                )
                continue
            comments = [f"# was {old} (gpuforge theanorc migrate)"]
            added = Entry(option, entry.value, 0, [f"{option} = {entry.value}"], comments)
            dest.items.append(added)
            self._index(dest).setdefault(option, []).append(added)
            self.notes.append(f"line {entry.line}: {old} -> [{target}] {option} = {entry.value}: {why}")

    def drop(self, entry: Entry, source: Section, why: str) -> None:
        self.take_out(entry)
        self.notes.append(f"line {entry.line}: [{source.name}] {entry.key} = {entry.value} dropped: {why}")

    def run(self) -> list[Section]:
        had_entries = {id(s) for s in self.sections if s.entries}
        for section in list(self.sections):
            for entry in section.entries:  # a new list: entries added meanwhile are not migrated
                self.entry(section, entry)
        for section in self.sections:  # the taken-out entries leave only their comments
            items: list[Entry | str] = []
            for item in section.items:
                if isinstance(item, Entry) and id(item) in self.taken:
                    items += item.comments
                else:
                    items.append(item)
            section.items = items
        # a section left with neither entries nor the user's comments goes (its header line)
        return [
            s
            for s in self.sections
            if s.entries
            or s.name is None
            or id(s) not in had_entries
            or any(isinstance(i, str) and i.strip() for i in s.items)
        ]

    def entry(self, section: Section, e: Entry) -> None:
        name, option, value = section.name, e.option, e.value
        if name == "global" and option in ("device", "init_gpu_device") and value.startswith("gpu"):
            new = "cuda" + value[len("gpu") :]
            line = e.text[0]
            at = line.rfind(value) if len(e.text) == 1 else -1
            e.value = new  # only the value changes: the line's spacing stays
            e.text = [line[:at] + new + line[at + len(value) :]] if at >= 0 else [f"{e.key} = {new}"]
            self.notes.append(
                f"line {e.line}: {e.key} = {value} -> {new}: Theano 1.0 removed the "
                "old CUDA backend (gpu*); cuda* is the gpuarray backend"
            )
        elif name == "lib" and option == "cnmem":
            try:
                amount = float(value)
            except ValueError:
                raise GpuforgeError(f"[lib] cnmem = {value!r} is not a number", self.path, e.line) from None
            if amount <= 0:
                self.drop(
                    e,
                    section,
                    "CNMeM off (the old default); gpuarray.preallocate's default "
                    "0 keeps an allocation cache and preallocates nothing",
                )
            else:
                self.move(
                    e,
                    section,
                    "gpuarray",
                    ["preallocate"],
                    "the same meaning (0..1: a fraction of GPU memory, above 1: megabytes)",
                )
        elif name == "nvcc":
            why = "Theano 1.0 has no [nvcc] section: the gpuarray backend compiles GPU kernels with NVRTC"
            if option == "fastmath":
                why += (
                    ", which it gives no fast-math switch (the CPU side's is -ffast-math in [gcc] cxxflags)"
                )
            self.drop(e, section, why)
        elif name == "dnn" and option.startswith("conv."):
            self.dnn_conv(
                e,
                section,
                option[len("conv.") :],
                f"Theano reads dnn.{option} from [dnn.conv]; under [dnn] it was never read",
            )
        elif name == "dnn.conv" and (
            option in DNN_CONV_RENAMES or (option, value) == ("algo_fwd", "deterministic")
        ):
            self.dnn_conv(e, section, option, "")

    def dnn_conv(self, e: Entry, section: Section, option: str, why: str) -> None:
        """A [dnn.conv] option, renamed the way Theano 1.0.5's own errors say."""
        reasons = [why] if why else []
        targets = DNN_CONV_RENAMES.get(option, [option])
        if option in DNN_CONV_RENAMES:
            reasons.append(
                f"Theano 1.0.5 replaced dnn.conv.{option} with "
                + " and ".join(f"dnn.conv.{t}" for t in targets)
            )
        elif option == "algo_fwd" and e.value == "deterministic":
            targets = ["algo_bwd_data", "algo_bwd_filter"]
            reasons.append(
                "`deterministic` is no forward algorithm in 1.0.5 (its import fails; "
                "cuDNN's forward algorithms are deterministic): set for the backward ones"
            )
        self.move(e, section, "dnn.conv", targets, "; ".join(reasons))


def migrate_text(text: str, path: Path) -> Migration:
    """The old-backend .theanorc ``text`` converted for Theano 1.0.5, with a note per change."""
    sections = parse(text, path)
    migrator = _Migrator(sections, path)
    new = render(migrator.run())
    return Migration(text, new if migrator.notes else text, migrator.notes)


def read_theanorc(path: Path) -> str:
    return read_text(path)


def ask(prompt: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input(prompt).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def expand(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(str(path)))

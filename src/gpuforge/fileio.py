"""Every file gpuforge reads or writes goes through here.

Reading: only regular files (a FIFO, a directory or a device is refused at once, never
waited on), no larger than a stated limit, decoded as UTF-8, UTF-8 with a BOM or
UTF-16 with a BOM (what Windows Notepad and PowerShell's ``>`` write); anything else
is one GpuforgeError naming the file and the byte offset. ``decode_text`` is the
bytes -> text half, for text that does not come from a file (standard input).

Writing: atomic (the new text in a temporary file beside the target, created exclusively under
an unpredictable name and fsync'ed, then the old file kept as ``<name>.bak`` and the temporary
file renamed over the target); a failing write leaves the old file, the previous backup and no
temporary file. Writes through a symbolic link say so; a home-folder dotfile linked out of the
home folder is refused. A process killed mid-write (SIGKILL) cannot clean up after itself: its
temporary file keeps the writer's process id in its name and the next write of the same file
removes it.
"""

from __future__ import annotations

import codecs
import glob
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from gpuforge.errors import GpuforgeError, InputError

# The stated limit on any file gpuforge reads: its inputs (env files, recipes, the
# variant matrix, .theanorc, probe reports) are a few kB; 4 MiB is 1000 times that.
MAX_INPUT_BYTES = 4 * 1024 * 1024
BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
TEMP_SUFFIX = ".tmp"


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _kind(mode: int) -> str | None:
    """What a non-regular file is (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in NOT_REGULAR if test(mode)), "not a regular file")


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file no larger than ``limit``; anything else is one located error.

    Opened with O_NONBLOCK and checked with fstat before the first read, so a FIFO or a
    device named as the file is refused at once instead of blocking.
    """
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        kind = _kind(os.stat(path).st_mode)  # Windows cannot open a directory: ask first
        if kind:
            raise InputError(f"{kind}, not a file: nothing read", path)
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)  # it may have been swapped since the stat
        if kind:
            raise InputError(f"{kind}, not a file: nothing read", path)
        if info.st_size > limit:
            raise InputError(
                f"{_size(info.st_size)}: larger than the {_size(limit)} limit on input files (not read)", path
            )
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    if len(data) > limit:  # it grew while read
        raise InputError(f"larger than the {_size(limit)} limit on input files (not read)", path)
    return data


def decode_text(data: bytes, where: str | os.PathLike[str]) -> str:
    """Text from bytes: UTF-8, UTF-8 with a BOM, UTF-16 LE/BE with a BOM; newlines made \\n.

    Anything else (latin-1, binary data, a NUL byte) is a GpuforgeError naming ``where``
    and the byte offset (and line) of the first bad byte.
    """
    encoding, start = "utf-8", 0
    for bom, name in BOMS:
        if data.startswith(bom):
            encoding, start = name, 0 if name == "utf-16" else len(bom)
            break
    try:
        text = data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        what = "UTF-16" if encoding == "utf-16" else "UTF-8"
        line = data[:offset].count(b"\n") + 1 if encoding != "utf-16" else None
        raise InputError(
            f"not {what} text: byte 0x{data[offset]:02x} at offset {offset} (save the file as UTF-8)",
            where,
            line,
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputError(
            f"binary data, not text: a NUL character at offset "
            f"{len(text[:nul].encode('utf-8')) + start} (save the file as UTF-8)",
            where,
            line,
        )
    text = text.lstrip("\ufeff")  # a second BOM (UTF-8 saved again as UTF-16) is no text either
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as open()'s universal newlines


def read_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> str:
    """A text file's text: ``read_bytes`` then ``decode_text``."""
    return decode_text(read_bytes(path, limit), path)


def home() -> Path:
    """The user's home folder ($HOME, else the password database's entry), or one clear error:
    a container run as a user id with no entry and no HOME has none."""
    try:
        found = Path.home()
    except RuntimeError:
        found = Path("~")
    if str(found) == "~":
        uid = getattr(os, "getuid", lambda: "?")()
        raise GpuforgeError(
            f"no home folder: HOME is not set and user id {uid} has no entry in the "
            "password database: set HOME (or GPUFORGE_CACHE and --path)"
        )
    return found


# --- writing ------------------------------------------------------------------------


TEMP_RE = r"(\d+)(?:-\w+)?"  # the writer's pid, then (since 0.1) mkstemp's random part


def _remove_dead_writers_temps(path: Path) -> None:
    """Temporary files of ``path`` left by a writer that was killed (its pid is gone)."""
    pattern = re.compile(re.escape(f".{path.name}.gpuforge-") + TEMP_RE + re.escape(TEMP_SUFFIX))
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.gpuforge-*{TEMP_SUFFIX}"):
        m = pattern.fullmatch(leftover.name)
        if m and not process_alive(int(m.group(1))) and not leftover.is_symlink():
            leftover.unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill(pid, 0) is no probe there: the probe's check says why
        from gpuforge.inside.probe import pid_alive

        return pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # someone else's process: assume alive
        return True
    return True


def _temp_beside(path: Path, data: bytes, mode: int | None) -> Path:
    """``data`` in a new temporary file beside ``path``, fsync'ed: created exclusively under an
    unpredictable name (mkstemp: O_CREAT | O_EXCL, O_NOFOLLOW where the system has it), so
    nothing planted in the folder (a symbolic link at a guessed name) can redirect the write."""
    fd, name = tempfile.mkstemp(
        prefix=f".{path.name}.gpuforge-{os.getpid()}-", suffix=TEMP_SUFFIX, dir=path.parent
    )
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o644)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _keep_backup(path: Path, old: bytes, mode: int) -> Path:
    """``path``'s current file as ``<name>.bak``: a hard link made under a temporary name and
    renamed over the previous backup (no data written, so a full disk cannot cost the previous
    backup); a copy where the file system has no hard links."""
    saved = path.with_name(path.name + ".bak")
    _remove_dead_writers_temps(saved)
    link = saved.with_name(f".{saved.name}.gpuforge-{os.getpid()}-{os.urandom(6).hex()}{TEMP_SUFFIX}")
    try:
        os.link(path, link, follow_symlinks=False)
    except OSError:  # no hard links here (FAT, some network shares): a copy, written first
        link = _temp_beside(saved, old, mode)
    try:
        os.replace(link, saved)
    except BaseException:
        link.unlink(missing_ok=True)
        raise
    return saved


class Written:
    """Where a write landed: the file, its backup (None: nothing replaced) and the link written
    through (None: ``path`` itself)."""

    def __init__(self, path: Path, backup: Path | None, through: Path | None) -> None:
        self.path, self.backup, self.through = path, backup, through

    def said(self, backup: str = "; the previous file is {}", new: str = "") -> str:
        """One line for the user: what was written, through which link, and the backup."""
        where = f"{self.through}, a link: the file written is {self.path}" if self.through else str(self.path)
        return f"wrote {where}" + (backup.format(self.backup) if self.backup else new)


def resolve_for_writing(path: Path) -> tuple[Path, Path | None]:
    """The file a write of ``path`` replaces, and the link it goes through (or None). A dotfile
    in the home folder linked to a file outside it (a dotfiles repository elsewhere, a shared
    file) is refused: the write, its temporary file and its backup would land there; naming
    that file itself (--path) is the way to write it."""
    if not path.is_symlink():
        return path, None
    target = Path(os.path.realpath(path))
    try:
        owner = home().resolve()
    except GpuforgeError:
        owner = None
    if owner is not None and path.parent.resolve() == owner and not target.is_relative_to(owner):
        raise GpuforgeError(
            f"a symbolic link to {target}, outside your home folder: nothing written (to write that "
            f"file, with its backup beside it, name it: --path {target})",
            path,
        )
    return target, path


def write_atomic(path: str | os.PathLike[str], text: str, backup: bool = True) -> Path | None:
    """``write_file``, for callers that want only the backup's path (None: nothing replaced)."""
    return write_file(path, text, backup).backup


def write_file(path: str | os.PathLike[str], text: str, backup: bool = True) -> Written:
    """Write ``text`` to ``path`` atomically; keep the old file as ``<name>.bak``.

    The new text goes to a temporary file beside it first (created exclusively, fsync'ed); only
    then is the old file linked as the new backup and the temporary file renamed over it. A
    failure at any step (a full disk, a file size limit, no permission) is a GpuforgeError and
    leaves the old file, the previous backup and no temporary file. A symbolic link stays: the
    file it points to is replaced, the backup beside that file, and the result says so
    (``Written.through``); a link out of the home folder is refused (``resolve_for_writing``).
    """
    path, through = resolve_for_writing(Path(path))
    data = text.encode("utf-8", "backslashreplace")  # a lone surrogate (undecodable input) escaped
    saved = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_dead_writers_temps(path)
        mode, old = None, None
        if path.exists() or path.is_symlink():
            info = os.stat(path)
            kind = _kind(info.st_mode)
            if kind:
                raise GpuforgeError(f"{kind}, not a file: not replaced", path)
            mode = info.st_mode
            old = read_bytes(path, limit=max(MAX_INPUT_BYTES, info.st_size))
            if old == data:
                return Written(path, None, through)
        tmp = _temp_beside(path, data, mode)
        try:
            if backup and old is not None and mode is not None:
                saved = _keep_backup(path, old, mode)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        where = exc.filename or path
        raise GpuforgeError(
            f"cannot write: {exc.strerror or exc} (the old file is unchanged)", where
        ) from None
    return Written(path, saved, through)


def remove_tree(path: Path) -> None:
    """Delete ``path`` (a folder, or a file in its place); a folder is first renamed away
    in one step, so what is left of an interrupted delete is never taken for it."""
    if not (path.exists() or path.is_symlink()):
        return
    try:
        if not path.is_dir() or path.is_symlink():
            path.unlink()
            return
        victim = path if ".trash-" in path.name else path.with_name(f"{path.name}.trash-{os.getpid()}")
        if victim != path:
            os.replace(path, victim)
    except OSError as exc:
        raise GpuforgeError(f"cannot remove it ({exc.strerror}): delete it", path) from None
    shutil.rmtree(victim, ignore_errors=True)
    if victim.exists():
        raise GpuforgeError("cannot delete this leftover (read-only? in use?): delete it", victim)

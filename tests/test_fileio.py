"""The one reader (regular files, a size limit, UTF-8/UTF-16 with offsets) and atomic writes
that a failing or killed process cannot leave half-done."""

from __future__ import annotations

import codecs
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env

from gpuforge import fileio
from gpuforge.errors import GpuforgeError

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason=("uses Linux's /proc and RLIMIT_FSIZE to fault a real write; run on Linux"),
)


# --- reading ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        "name: é\n".encode(),
        codecs.BOM_UTF8 + "name: é\n".encode(),
        codecs.BOM_UTF16_LE + "name: é\n".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "name: é\n".encode("utf-16-be"),
        "name: é\r\n".encode(),
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "crlf"],
)
def test_windows_encodings_read_as_the_same_text(tmp_path, data):
    path = tmp_path / "env.yml"
    path.write_bytes(data)
    assert fileio.read_text(path) == "name: é\n"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"a: 1\n# caf\xe9\n",
            r"env.yml:2: not UTF-8 text: byte 0xe9 at offset 10 \(save the file as UTF-8\)",
        ),
        (b"\x89PNG\r\n\x1a\n", r"env.yml:1: not UTF-8 text: byte 0x89 at offset 0"),
        (b"a: 1\n\x00\x01\x02", r"env.yml:2: binary data, not text: a NUL character at offset 5"),
        (codecs.BOM_UTF16_LE + b"a\x00\x00\xdc", r"env.yml: not UTF-16 text: byte 0x00 at offset 4"),
    ],
)
def test_undecodable_bytes_are_named_with_their_offset(tmp_path, data, message):
    path = tmp_path / "env.yml"
    path.write_bytes(data)
    with pytest.raises(GpuforgeError, match=message):
        fileio.read_text(path)


def test_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "env.yml"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(GpuforgeError, match=r"env.yml: a FIFO \(named pipe\), not a file: nothing read"):
        fileio.read_text(fifo)
    assert time.monotonic() - start < 1  # no writer ever opens it: a blocking open would hang


@pytest.mark.parametrize(("path", "kind"), [("dir", "a directory"), ("/dev/zero", "a character device")])
def test_what_is_not_a_regular_file_is_refused(tmp_path, path, kind):
    target = tmp_path / path if path == "dir" else Path(path)
    target.mkdir(exist_ok=True) if path == "dir" else None
    with pytest.raises(GpuforgeError, match=f"{kind}, not a file"):
        fileio.read_bytes(target)


def test_the_size_limit_is_stated_and_nothing_is_read(tmp_path):
    path = tmp_path / "big.yml"
    with open(path, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # 50 MB, sparse: costs no disk
    with pytest.raises(GpuforgeError, match=r"big.yml: 50.0 MiB: larger than the 4.0 MiB limit"):
        fileio.read_text(path)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(GpuforgeError, match="nope.yml: no such file"):
        fileio.read_text(tmp_path / "nope.yml")
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.yml"
        locked.write_text("a: 1\n")
        locked.chmod(0)
        with pytest.raises(GpuforgeError, match="locked.yml: cannot read: Permission denied"):
            fileio.read_text(locked)


# --- writing ---------------------------------------------------------------------------


def test_new_file_has_no_backup(tmp_path):
    path = tmp_path / "sub" / ".theanorc"
    assert fileio.write_atomic(path, "[global]\n") is None
    assert path.read_text() == "[global]\n"


def test_replacing_keeps_a_backup(tmp_path):
    path = tmp_path / ".theanorc"
    path.write_text("old\n")
    path.chmod(0o600)
    backup = fileio.write_atomic(path, "new\n")
    assert backup == tmp_path / ".theanorc.bak" and backup.read_text() == "old\n"
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o600


def test_same_content_is_left_alone(tmp_path):
    path = tmp_path / "f"
    path.write_text("same")
    assert fileio.write_atomic(path, "same") is None
    assert not (tmp_path / "f.bak").exists()


def test_a_fifo_is_not_replaced(tmp_path):
    fifo = tmp_path / "out.yml"
    os.mkfifo(fifo)
    with pytest.raises(GpuforgeError, match="a FIFO"):
        fileio.write_atomic(fifo, "x")
    assert fifo.is_fifo()


WRITER = """
import resource, sys
from gpuforge.fileio import write_atomic
limit = int(sys.argv[3])
if limit:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
print("writing", flush=True)
write_atomic(sys.argv[1], "x" * int(sys.argv[2]))
"""


def _writer(path: Path, size: int, fsize_limit: int = 0) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(size), str(fsize_limit)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(PYTHONDONTWRITEBYTECODE="1"),
    )


@linux_only
def test_a_write_the_os_refuses_leaves_the_original_and_no_temp_file(tmp_path):
    """RLIMIT_FSIZE makes the kernel fail write(2) with EFBIG half-way through the file."""
    path = tmp_path / "env.yml"
    path.write_text("old\n")
    proc = _writer(path, 1_000_000, fsize_limit=65536)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "cannot write: File too large (the old file is unchanged)" in err
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.yml"]  # nothing new, nothing lost


@linux_only
def test_a_full_disk_keeps_the_previous_backup(tmp_path):
    """The new text is written before the backup is touched: a write the OS refuses leaves the
    file and the previous backup generation as they were."""
    path = tmp_path / "env.yml"
    path.write_text("old\n")
    (tmp_path / "env.yml.bak").write_text("older\n")
    proc = _writer(path, 1_000_000, fsize_limit=65536)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "File too large" in err
    assert path.read_text() == "old\n"
    assert (tmp_path / "env.yml.bak").read_text() == "older\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.yml", "env.yml.bak"]


@linux_only
def test_a_writer_killed_mid_write_leaves_the_original_and_its_temp_is_swept(tmp_path):
    path = tmp_path / "env.yml"
    path.write_text("old\n")
    proc = _writer(path, 300_000_000)
    assert proc.stdout.readline() == "writing\n"
    deadline = time.monotonic() + 30
    temps: list[Path] = []
    while not (temps and temps[0].stat().st_size > 0) and time.monotonic() < deadline:
        time.sleep(0.01)  # wait until the data is going into the temporary file
        temps = list(tmp_path.glob(f".env.yml.gpuforge-{proc.pid}-*.tmp"))
    [temp] = temps
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert 0 < temp.stat().st_size < 300_000_000, "killed before or after the write, not during it"
    assert path.read_text() == "old\n"  # the original is intact
    assert fileio.write_atomic(path, "new\n") == tmp_path / "env.yml.bak"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.yml", "env.yml.bak"]  # swept


def test_a_live_writers_temp_is_left_alone(tmp_path):
    path = tmp_path / "f"
    live = tmp_path / f".f.gpuforge-{os.getppid()}-k2j4x9.tmp"
    live.write_text("another gpuforge is writing this")
    fileio.write_atomic(path, "mine")
    assert live.exists()


# --- every command that writes, with the kernel refusing the write half-way ---------------


def _stale(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


OLD_BACKEND_RC = "[global]\ndevice = gpu\n[lib]\ncnmem = 1.0\n"  # migrates to a longer text
WRITE_COMMANDS = {  # name -> (argv, the file it replaces, prepared by)
    "theanorc write": (
        ["theanorc", "write", "--profile", "fast", "--path", "home/.theanorc"],
        "home/.theanorc",
        lambda ws: _stale(ws / "home/.theanorc", "[global]\n"),
    ),
    "theanorc migrate": (
        ["theanorc", "migrate", "--path", "home/.theanorc", "--yes"],
        "home/.theanorc",
        lambda ws: _stale(ws / "home/.theanorc", OLD_BACKEND_RC),
    ),
    "doctor --fix": (
        ["doctor", "--log", "numpy.log", "--fix", "--env-file", "env.yml"],
        "env.yml",
        lambda ws: _stale(ws / "env.yml", "name: x\ndependencies:\n  - numpy\n"),
    ),
    "envs render": (
        ["envs", "render", "--mirror", "tuna"],
        "envs/mirrors/tuna.condarc",
        lambda ws: _stale(ws / "envs/mirrors/tuna.condarc", "# stale\n"),
    ),
    "ci render": (
        ["ci", "render"],
        "ci/variants/linux-64.yaml",
        lambda ws: _stale(ws / "ci/variants/linux-64.yaml", "# stale\n"),
    ),
}


@linux_only
@pytest.mark.parametrize("name", list(WRITE_COMMANDS))
def test_a_command_whose_write_fails_leaves_the_original_and_no_temp_file(tmp_path, name):
    """The real CLI under RLIMIT_FSIZE: the new text (longer than the old) does not fit, so
    write(2) fails with EFBIG in the middle of writing it, before the backup is touched."""
    from conftest import ROOT

    for folder in ("envs", "recipes", "ci/variants", ".github/workflows"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "home").mkdir()
    (tmp_path / "numpy.log").write_text("AttributeError: module 'numpy' has no attribute 'bool'.\n")
    argv, target, prepare = WRITE_COMMANDS[name]
    old = prepare(tmp_path).read_bytes()
    limit = len(old) + 1
    env = cli_env(HOME=str(tmp_path / "home"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("THEANORC", None)
    env.pop("THEANO_FLAGS", None)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line == f"gpuforge: error: {target}: cannot write: File too large (the old file is unchanged)"
    assert (tmp_path / target).read_bytes() == old
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    new = sorted(str(p.relative_to(tmp_path)) for p in set(after) - set(before))
    assert new == []  # no temporary file, no backup of a file that was not replaced
    assert all(after[p] == b for p, b in before.items())

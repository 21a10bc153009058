"""A pasted log: read from a file or standard input, decoded whatever wrote it."""

from __future__ import annotations

import sys

from gpuforge.doctor.normalize import last_frames_of_cut_traceback
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.fileio import BOMS, read_bytes

CUT_NOTE = (
    "the paste looks cut: it ends inside a traceback, before the exception line; "
    "paste the whole output for a surer answer"
)


def looks_cut(text: str) -> bool:
    return last_frames_of_cut_traceback(text) is not None


# A pasted log may be far larger than an input file (a long build log): matching is linear (RE2).
MAX_LOG_BYTES = 64 * 2**20


def read_log(name: str) -> str:
    """A log file's text ('-': standard input); unreadable or binary -> one-line error."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_LOG_BYTES + 1)
        if len(data) > MAX_LOG_BYTES:
            raise InputError(f"larger than {MAX_LOG_BYTES // 2**20} MiB: paste the part with the error", "-")
    else:  # the one reader: a regular file (no FIFO or folder), within the limit
        data = read_bytes(name, limit=MAX_LOG_BYTES)
    text = decode_log(data)
    if text is None:
        raise GpuforgeError("not a text log (binary data)", name)
    return text.replace("\r\n", "\n")


def decode_log(data: bytes) -> str | None:
    """A log's text: UTF-8 (with or without a BOM), UTF-16 with a BOM (PowerShell's `>`, Notepad)
    or without one (NUL bytes at every other offset); None for binary data. Undecodable bytes
    (a latin-1 or GBK console) become U+FFFD: the error numbers and shapes still match."""
    for bom, codec in BOMS:  # the one reader's table (fileio): "utf-16" reads its own BOM
        if data.startswith(bom):
            return data[0 if codec == "utf-16" else len(bom) :].decode(codec, "replace")
    head = data[:65536]
    if b"\0" not in head:
        return data.decode("utf-8", "replace")
    even, odd = head[0::2], head[1::2]
    for zeros, codec in ((odd, "utf-16-le"), (even, "utf-16-be")):
        other = even if zeros is odd else odd
        if zeros.count(0) > 0.4 * len(zeros) and other.count(0) < 0.05 * len(other):
            return data[: len(data) // 2 * 2].decode(codec, "replace")
    return None

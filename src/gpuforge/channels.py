"""Channel failures: what a conda channel's server (not a package) did wrong, retried with
backoff and, when it persists, reported as an infrastructure failure naming host and status.

A channel that answers 403 (repo.anaconda.com refusing hosted CI runners: clio-core #806,
py4vasp #314, rez-pip #214), 408/429, a 5xx, or not at all in time is not a package
problem: the same request may work minutes later, and a solver's "package not found" or a
build's failure would send the reader to the wrong place. A 404 is not in this set: a
missing file is the package's problem.

The texts recognized are the real ones of the clients that fetch from channels:
conda's ``CondaHTTPError: HTTP 403 Forbidden for url <URL>`` (clio-core #806), rattler's
(py-rattler, pixi, conda-rattler-solver) ``HTTP status client error (403 Forbidden) for url
(URL)`` (rez-pip #214), Python's ``HTTP Error 503: Service Unavailable`` and curl's
``The requested URL returned error: 503``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlparse

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def secure_url(url: str) -> bool:
    """The https rule for every channel, index and download gpuforge names: https, or http to this
    machine itself (a local test server); nothing crosses a network in the clear."""
    parsed = urlparse(url)
    return parsed.scheme == "https" or (parsed.scheme == "http" and parsed.hostname in LOOPBACK)


def channel_argument(text: str) -> str:
    """``--channel``: a name (conda-forge), a local folder, a file:// URL, or an https URL; plain
    http is refused when the arguments are parsed (argparse's ``type=``)."""
    import argparse

    if "://" in text and not (text.startswith("file://") or secure_url(text)):
        raise argparse.ArgumentTypeError(
            f"{text}: not https: packages fetched in the clear can be swapped on the way (use https://)"
        )
    return text


# Statuses that say the server (or what is in front of it) refused or failed, not the package.
INFRA_STATUSES = frozenset({403, 408, 429, 500, 502, 503, 504, 520, 521, 522, 524})
# Seconds to wait before each retry; GPUFORGE_CHANNEL_RETRY_DELAYS="0 0" (tests) overrides.
DEFAULT_DELAYS = (5.0, 20.0, 60.0)
URL = r"(?P<url>(?:https?|file)://[^\s>)'\"]+)"
STATUS_PATTERNS = (
    re.compile(r"CondaHTTPError: HTTP (?P<status>\d{3})(?: [A-Za-z ]+?)? for url\s*<" + URL + ">"),
    re.compile(r"HTTP status (?:client|server) error \((?P<status>\d{3})[^)]*\) for url \(" + URL + r"\)"),
    re.compile(r"HTTP Error (?P<status>\d{3}):[^\n]*"),
    re.compile(r"The requested URL returned error: (?P<status>\d{3})"),
    re.compile(r"\b(?P<status>\d{3}) (?:Client|Server) Error: [^\n]*? for url: " + URL),
)
TIMEOUT_RE = re.compile(
    r"timed? ?out|ConnectTimeout|ReadTimeout|Connection reset|connection closed before", re.I
)
ANY_URL_RE = re.compile(URL)
REASONS = {
    403: "Forbidden",
    408: "Request Timeout",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass(frozen=True)
class ChannelFailure:
    """The server's failure: its host, the HTTP status (None for a timeout), the URL if known."""

    host: str
    status: int | None
    url: str = ""

    def __str__(self) -> str:
        what = (
            f"HTTP {self.status} {REASONS.get(self.status, '')}".rstrip()
            if self.status
            else "no answer in time"
        )
        return f"{self.host} answered {what}" + (f" for {self.url}" if self.url else "")


def _host(url: str) -> str:
    return urlparse(url).netloc or url


def classify(text: str, url: str = "") -> ChannelFailure | None:
    """The channel failure ``text`` (a client's error or log) reports, or None when it is not
    one (a 404, a solver's conflict, a build error). The last failure in a log wins."""
    found: ChannelFailure | None = None
    at = -1
    for pattern in STATUS_PATTERNS:
        for m in pattern.finditer(text):
            status = int(m.group("status"))
            if status not in INFRA_STATUSES or m.start() < at:
                continue
            where = m.groupdict().get("url") or url or _near_url(text, m.start())
            host = _host(where) if where else "the channel"
            found, at = ChannelFailure(host, status, where or ""), m.start()
    if found is None:
        timed_out = TIMEOUT_RE.search(text)
        if timed_out:
            where = url or _near_url(text, timed_out.start())
            if where:
                found = ChannelFailure(_host(where), None, where)
    return found


def _near_url(text: str, at: int) -> str:
    """The URL closest to ``at`` in ``text`` (errors name it before or after the status)."""
    urls = [(abs(m.start() - at), m.group("url")) for m in ANY_URL_RE.finditer(text)]
    return min(urls)[1] if urls else ""


def delays() -> tuple[float, ...]:
    """The waits before each retry (GPUFORGE_CHANNEL_RETRY_DELAYS overrides DEFAULT_DELAYS)."""
    env = os.environ.get("GPUFORGE_CHANNEL_RETRY_DELAYS")
    if env is None:
        return DEFAULT_DELAYS
    try:
        return tuple(float(v) for v in env.split())
    except ValueError:
        return DEFAULT_DELAYS


def attempts(
    say: Callable[[str], None] = print, sleep: Callable[[float], None] = time.sleep
) -> Iterator[Callable[[ChannelFailure], None]]:
    """Drive a retry loop: each item is a ``failed(failure)`` callback; calling it waits before
    the next attempt, or raises InfrastructureError when no retries are left.

        for failed in attempts():
            try:
                return fetch()
            except SomeError as exc:
                failed(classify(str(exc)) or raise_it)
    """
    waits = delays()
    count = len(waits) + 1
    for attempt in range(count):

        def failed(failure: ChannelFailure, attempt: int = attempt) -> None:
            if attempt == count - 1:
                raise InfrastructureError(failure, count)
            say(
                f"channel failure: {failure}; trying again in {waits[attempt]:g} s "
                f"(attempt {attempt + 2} of {count})"
            )
            sleep(waits[attempt])

        yield failed


class InfrastructureError(Exception):
    """A channel failure that persisted through every retry."""

    def __init__(self, failure: ChannelFailure, tries: int):
        self.failure = failure
        self.tries = tries
        super().__init__(
            f"infrastructure failure, not a package problem: {failure} ({tries} "
            "attempts); run again later, or behind a mirror"
        )

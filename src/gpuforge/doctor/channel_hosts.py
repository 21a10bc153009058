"""Which host a failed conda download asked: a real channel host, or a misspelling of one.

`CondaHTTPError: HTTP 000 CONNECTION FAILED` means no HTTP answer at all. From a host that
exists (Anaconda's, or a mirror of gpuforge's data/mirrors.yaml) that is the network: a wrong channel
path there answers 404. From a host one or two letters away from a real mirror's
(`mirrors.tua.tsinghua.edu.cn`, `nanomirrors.tuna.tsinghua.edu.cn`) it is the .condarc: that
host does not exist. The real hosts are data/mirrors.yaml's, the one list gpuforge renders
its .condarc files from, plus Anaconda's own.
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from gpuforge import locations
from gpuforge.envs.mirrors import load_mirrors

# conda's own hosts, whatever mirrors.yaml says (conda/base/constants.py DEFAULT_CHANNELS_UNIX,
# conda/models/channel.py: conda.anaconda.org; repo.continuum.io before 2017)
ANACONDA_HOSTS = ("repo.anaconda.com", "conda.anaconda.org", "repo.continuum.io")
# conda's message (conda/exceptions.py CondaHTTPError: `HTTP %s %s for url <%s>`)
NO_ANSWER = re.compile(r"HTTP 000 CONNECTION FAILED for url <?(https?://[^\s<>'\"]+)")
# how close a host must be to a real one of the same organisation (its domain) to be read as
# its misspelling (difflib's ratio): a letter dropped or doubled (0.98), a word stuck in front
# (nanomirrors.tuna..., 0.93); another host of that university (mirrors.sjtug.sjtu.edu.cn
# beside mirror.sjtu.edu.cn, 0.84) is not one
MISSPELLED = 0.9


@cache
def real_hosts(path: Path = locations.MIRRORS) -> tuple[str, ...]:
    """Anaconda's hosts and every mirror's of data/mirrors.yaml."""
    hosts = dict.fromkeys(ANACONDA_HOSTS)
    mirrors = load_mirrors(path)
    for mirror in mirrors.mirrors.values():
        for url in (mirror.pkgs, mirror.cloud):
            hosts[urlsplit(url).hostname or ""] = None
    return tuple(h for h in hosts if h)


def domain(host: str) -> str:
    """The organisation's part of a host: tsinghua.edu.cn, anaconda.org."""
    labels = host.split(".")
    second_level = len(labels) > 2 and len(labels[-1]) == 2 and len(labels[-2]) <= 3  # edu.cn, ac.uk
    return ".".join(labels[-3:] if second_level else labels[-2:])


def host_evidence(text: str) -> list[str]:
    """One `gpuforge-evidence:` line per host conda got no answer from, saying whether it is a
    real channel host or one it looks like a misspelling of."""
    found: dict[str, None] = {}
    for url in NO_ANSWER.findall(text):  # mirrors.yaml is read only once a text has one
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
        if not host:
            continue
        hosts = real_hosts()
        if host in hosts:
            found[f"gpuforge-evidence: no HTTP answer from {host}, a real channel host"] = None
            continue
        ratio, near = max(
            ((difflib.SequenceMatcher(None, host, h).ratio(), h) for h in hosts if domain(h) == domain(host)),
            default=(0.0, ""),
        )
        if ratio >= MISSPELLED:
            found[f"gpuforge-evidence: channel host {host} does not exist: a misspelling of {near}"] = None
    return list(found)

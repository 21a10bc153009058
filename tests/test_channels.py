"""Channel failures against a real local HTTP server: refused (403) or failing (503) first, then
serving; or refusing for good. gpuforge's own lock (py-rattler) and source download retry and
then succeed, or stop with an infrastructure failure naming the host and the status; ci/*.sh's
channel_retry does the same around a command (curl here, conda in CI)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import rattler
from conftest import ROOT, cli_env

from gpuforge import locations
from gpuforge.channels import classify
from gpuforge.downloads import Source, fetch
from gpuforge.envs.envfile import load_env
from gpuforge.envs.lock import solve_locked
from gpuforge.envs.records import load_records
from gpuforge.envs.solve import write_channel
from gpuforge.errors import GpuforgeError

ENVS = ROOT / "envs"


class FlakyChannel(ThreadingHTTPServer):
    """Serves ``root``; answers the first ``failures`` requests with ``status`` instead."""

    def __init__(self, root: Path, status: int, failures: int):
        self.root, self.status, self.failures, self.hits = root, status, failures, []
        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(SimpleHTTPRequestHandler):
    server: FlakyChannel

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(args[2].root), **kwargs)

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if not self.failed():
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self.failed():
            super().do_HEAD()

    def failed(self) -> bool:
        self.server.hits.append(self.path)
        if self.server.failures <= 0:
            return False
        self.server.failures -= 1
        self.send_response(self.server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True


@pytest.fixture
def serve(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUFORGE_CHANNEL_RETRY_DELAYS", "0 0 0")
    servers = []

    def start(status: int, failures: int) -> FlakyChannel:
        server = FlakyChannel(tmp_path / "www", status, failures)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    (tmp_path / "www").mkdir()
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def lock_once(tmp_path: Path, server: FlakyChannel):
    env = load_env(ENVS / "cpu-linux64.yml")
    write_channel(env, load_records(locations.RECORDS), server.root / "main")
    lines: list[str] = []
    locked = solve_locked(
        env,
        {"defaults": [f"{server.url}/main"]},
        gateway=rattler.Gateway(cache_dir=tmp_path / "cache"),
        say=lines.append,
    )
    return locked, lines


@pytest.mark.parametrize("status", [403, 503])
def test_lock_retries_a_refusing_channel_then_solves(tmp_path, serve, status):
    server = serve(status, failures=2)
    locked, lines = lock_once(tmp_path, server)
    assert "pygpu" in {r.name.normalized for r in locked.records}
    assert server.failures == 0  # both refusals were met (the two subdirs are fetched at once)
    assert lines and all(
        f"127.0.0.1:{server.server_address[1]} answered HTTP {status}" in line for line in lines
    ), lines


def test_lock_reports_a_channel_that_keeps_refusing_as_infrastructure(tmp_path, serve):
    server = serve(403, failures=10**6)
    with pytest.raises(GpuforgeError) as info:
        lock_once(tmp_path, server)
    message = str(info.value)
    assert message.startswith(
        f"{ENVS / 'cpu-linux64.yml'}: infrastructure failure, not a package "
        f"problem: 127.0.0.1:{server.server_address[1]} answered HTTP 403 Forbidden"
    )
    assert "(4 attempts)" in message
    assert "no solution" not in message


def test_source_download_retries_then_verifies_or_names_the_host(tmp_path, serve):
    payload = b"libgpuarray source" * 100
    server = serve(503, failures=1)
    (server.root / "src.tar.gz").write_bytes(payload)
    source = Source(f"{server.url}/src.tar.gz", hashlib.sha256(payload).hexdigest())
    lines: list[str] = []
    path = fetch(source, tmp_path / "cache", say=lines.append)
    assert path.read_bytes() == payload
    assert any("answered HTTP 503 Service Unavailable" in line for line in lines), lines
    server.failures, server.status = 10**6, 403
    shutil.rmtree(tmp_path / "cache")
    with pytest.raises(
        GpuforgeError,
        match=rf"cannot download {server.url}/src.tar.gz: infrastructure "
        rf"failure, not a package problem: 127\.0\.0\.1:\d+ answered HTTP 403 Forbidden",
    ):
        fetch(source, tmp_path / "cache", say=lines.append)


CURL = shutil.which("curl")


@pytest.mark.skipif(CURL is None, reason="curl is not installed: `apt-get install -y curl`")
def test_ci_channel_retry_retries_then_stops_with_exit_4(serve):
    server = serve(503, failures=2)
    (server.root / "repodata.json").write_text("{}")
    script = 'source ci/common.sh; channel_retry curl -fsS "$1"'
    env = cli_env(PYTHON=sys.executable, CHANNEL_RETRY_DELAYS="0 0 0")
    proc = subprocess.run(
        ["bash", "-c", script, "bash", f"{server.url}/repodata.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("channel failure: 127.0.0.1") == 2 and proc.stdout.endswith("{}")
    server.failures, server.status = 10**6, 403
    proc = subprocess.run(
        ["bash", "-c", script, "bash", f"{server.url}/repodata.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 4
    assert proc.stderr.splitlines()[-1] == (
        f"bash: error: infrastructure failure, not a package problem: 127.0.0.1:{server.server_address[1]} "
        f"answered HTTP 403 Forbidden for {server.url}/repodata.json (4 attempts of: curl -fsS "
        f"{server.url}/repodata.json)"
    )
    server.failures, server.status = 10**6, 404  # a missing file: the package's problem, no retry
    proc = subprocess.run(
        ["bash", "-c", script, "bash", f"{server.url}/repodata.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 22 and "channel failure" not in proc.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # clio-core #806 (2026-07-22), conda on a hosted runner
        (
            "CondaHTTPError: HTTP 403 Forbidden for url\n  <https://repo.anaconda.com/pkgs/main/noarch/"
            "repodata.json>\n- The channel requires authentication.",
            "repo.anaconda.com answered HTTP 403 Forbidden for https://repo.anaconda.com/pkgs/main/noarch/"
            "repodata.json",
        ),
        # rez-pip #214 (2025-10-25), rattler
        (
            "Caused by: HTTP status client error (403 Forbidden) for url (https://repo.anaconda.com/pkgs/main/"
            "win-64/zlib-1.3.1-h02ab6af_0.conda)",
            "repo.anaconda.com answered HTTP 403 Forbidden for https://repo.anaconda.com/pkgs/main/win-64/"
            "zlib-1.3.1-h02ab6af_0.conda",
        ),
        (
            "CondaHTTPError: HTTP 404 NOT FOUND for url <https://conda.anaconda.org/gpuforge/noarch/"
            "repodata.json>",
            None,
        ),
        ("PackagesNotFoundError: The following packages are not available from current channels:", None),
    ],
)
def test_classify_real_client_texts(text, expected):
    failure = classify(text)
    assert (str(failure) if failure else None) == expected


def test_the_build_probe_names_a_refusing_channel_as_infrastructure(serve):
    from gpuforge.recipes.conda_build import unreachable

    server = serve(403, failures=10**6)
    [(channel, reason)] = unreachable([f"{server.url}/main"]).items()
    assert reason == (
        f"infrastructure failure, not a package problem: 127.0.0.1:{server.server_address[1]} "
        f"answered HTTP 403 Forbidden for {server.url}/main/noarch/repodata.json"
    )

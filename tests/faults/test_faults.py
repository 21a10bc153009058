"""Faults from outside: a closed or broken output, hostile interpreters, odd surroundings,
damaged caches, two runs at once, and interruption (SIGINT, SIGTERM, SIGKILL) at chosen
moments. Each case checks the exit status, that no traceback shows, the state left on
disk, and that a rerun recovers; each records one row of the fault table (conftest.py).
"""

from __future__ import annotations

import json
import os
import pty
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, cli_env, pyenv_python
from faults.harness import LONG, Gpuforge, gpuforge, session_alive

from gpuforge.doctor.theanorc import PROFILES
from gpuforge.smoke.targets import CPU, WINDOWS, missing_needs

USER_RC = "# my notes: the lab's GPU box\n[global]\ndevice = gpu\n# keep float32\nfloatX = float32\n"
RUNS = 8  # kills per signal, spread over one whole run of the command
# Theano 1.0's own words for device=gpu (theano/configdefaults.py): a finding whatever else the
# paste says (device=gpu alone was every older Theano's setting, and names nothing)
LOG_WITH_FINDINGS = (
    "ImportError: cannot import name 'cuda' from 'theano.sandbox'\ndevice=gpu\n"
    "ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n"
)


def env_with(**extra: str) -> dict[str, str]:
    env = cli_env(**extra)
    for key in ("THEANORC", "THEANO_FLAGS"):
        env.pop(key, None)
    return env


# --- 1. the three defects of the issue --------------------------------------------------------


def test_stdout_closed_is_no_traceback(tmp_path, record):
    """`gpuforge doctor --explain compile_lock >&-`: was AttributeError on flush, exit 1."""
    cases = [
        ("doctor --explain compile_lock", ["doctor", "--explain", "compile_lock"], 0),
        ("theanorc write", ["theanorc", "write", "--profile", "dev", "--path", str(tmp_path / "rc")], 0),
        ("smoke --list", ["smoke", "--list"], 0),
    ]
    for label, args, want in cases:
        proc = subprocess.run(
            ["bash", "-c", 'exec "$@" >&-', "_", sys.executable, "-m", "gpuforge", *args],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=120,
        )
        state = "ok"
        if label == "theanorc write":
            state = "file written" if (tmp_path / "rc").read_text() == PROFILES["dev"] else "NOT written"
        ok = proc.returncode == want and state != "NOT written"
        record(
            "output",
            f"stdout closed (>&-): {label}",
            exit=proc.returncode,
            output=proc.stderr,
            state=state,
            rerun="not needed",
            seconds=0,
            ok=ok,
        )
        assert ok and "Traceback" not in proc.stderr, proc.stderr


def test_stderr_closed_keeps_the_exit_status(tmp_path, record):
    proc = subprocess.run(
        [
            "bash",
            "-c",
            'exec "$@" 2>&-',
            "_",
            sys.executable,
            "-m",
            "gpuforge",
            "doctor",
            "--explain",
            "no_such_entry",
        ],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    ok = proc.returncode == 2 and "Traceback" not in proc.stdout
    record(
        "output",
        "stderr closed (2>&-): a bad --explain",
        exit=proc.returncode,
        output=proc.stdout,
        state="ok",
        rerun="not needed",
        seconds=0,
        ok=ok,
    )
    assert ok, proc.stdout


def test_a_reader_gone_keeps_the_commands_exit_status(tmp_path, record):
    """`gpuforge doctor --log FILE | head -1`: the pipe closes before gpuforge writes;
    the command still exits with its own status (1: findings), not 0, and no traceback."""
    log = tmp_path / "log.txt"
    log.write_text(LOG_WITH_FINDINGS)
    for label, args, want in (
        ("doctor --log (findings)", ["doctor", "--log", str(log)], 1),
        ("smoke --list", ["smoke", "--list"], 0),
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "gpuforge", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env(),
        )
        proc.stdout.close()  # the reader went away before the first line
        err = proc.stderr.read().decode()
        code = proc.wait(120)
        ok = code == want and not err.strip()
        record(
            "output",
            f"broken pipe (the reader gone, as head -1): {label}",
            exit=code,
            output=err,
            state="ok",
            rerun="not needed",
            seconds=0,
            ok=ok,
        )
        assert ok, (code, err)


def hostile(tmp_path: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Interpreters that are not: each a real executable file (or folder) that misbehaves."""
    cases: dict[str, tuple[Path, dict[str, str]]] = {}

    def script(name: str, body: str, mode: int = 0o755) -> None:
        path = tmp_path / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(mode)
        cases[name] = (path, {})

    script("prints-garbage", "head -c 4096 /dev/urandom; echo 'GPUFORGE_PROBE {not json'\n")
    script("prints-100MB", "head -c 100000000 /dev/zero | tr '\\0' A\n")
    script("never-answers", "sleep 1000\n")
    script("exits-1", "echo 'something went wrong' >&2; exit 1\n")
    script("not-executable", "exit 0\n", mode=0o644)
    (tmp_path / "a-directory").mkdir()
    cases["a-directory"] = (tmp_path / "a-directory", {})
    script(
        "wrong-shapes",
        'echo \'GPUFORGE_PROBE {"python": {"executable": "x", "version": "3.7", '
        '"bits": 64}, "imports": "zz"}\'\n',
    )
    return cases


def test_hostile_interpreter_is_one_line_exit_2_within_the_timeout(tmp_path, record):
    """`doctor --python X --timeout 3`: was 63 s for one that never answers (the timeout +60)."""
    timeout = 3
    for name, (python, extra) in hostile(tmp_path).items():
        ran = gpuforge(
            ["doctor", "--python", str(python), "--timeout", str(timeout)],
            tmp_path / "runs",
            timeout=60,
            env=cli_env(**extra),
        )
        time.sleep(0.2)
        left = subprocess.run(["pgrep", "-f", "sleep 1000"], capture_output=True, text=True).stdout.split()
        ours = (
            [
                p
                for p in left
                if f"{tmp_path}" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")
                or name == "never-answers"
            ]
            if name == "never-answers"
            else []
        )
        ok = ran.code == 2 and ran.one_line() and ran.seconds < timeout + 2.5 and not ours
        record(
            "hostile interpreter",
            f"doctor --python <{name}> --timeout {timeout}",
            exit=ran.code,
            output=ran.output,
            state="no process left" if not ours else f"left running: {ours}",
            rerun="not needed",
            seconds=ran.seconds,
            ok=ok,
        )
        assert ok, (name, ran)


def test_an_interpreter_whose_sitecustomize_prints_is_probed(tmp_path, record):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("print('hello from sitecustomize')\nprint('GPUFORGE_PROBE {}')\n")
    env = cli_env()
    env["PYTHONPATH"] = f"{site}{os.pathsep}{env['PYTHONPATH']}"
    ran = gpuforge(["doctor", "--python", sys.executable, "--timeout", "30"], tmp_path / "runs", env=env)
    ok = ran.code in (0, 1) and "python   " in ran.out
    record(
        "hostile interpreter",
        "doctor --python <a python whose sitecustomize prints>",
        ran=ran,
        state="report shown" if ok else "no report",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran


def test_migrate_keeps_the_users_comments_and_layout(tmp_path, record):
    """Was: every comment of a dropped section lost, `device=gpu0` rewritten `device = cuda0`."""
    rc = tmp_path / ".theanorc"
    text = (
        "# my notes\n[global]\ndevice=gpu0\n# after device\nfloatX = float32\n\n"
        "[nvcc]\n# fast math for speed\nfastmath = True\n\n[lib]\ncnmem=.5\n# trailing note\n"
    )
    rc.write_text(text)
    ran = gpuforge(["theanorc", "migrate", "--path", str(rc), "--yes"], tmp_path / "runs")
    new = rc.read_text()
    old_lines, new_lines = text.splitlines(), new.splitlines()
    comments_kept = all(ln in new_lines for ln in old_lines if ln.startswith("#"))
    changed = [ln for ln in old_lines if ln not in new_lines]
    ok = (
        ran.code == 0
        and comments_kept
        and "device=cuda0" in new_lines
        and changed == ["device=gpu0", "fastmath = True", "cnmem=.5"]
    )
    record(
        "theanorc",
        "migrate keeps comments and layout",
        ran=ran,
        state=f"only {len(changed)} changed lines" if ok else f"changed: {changed}",
        rerun="not needed",
        ok=ok,
    )
    assert ok, new


# --- 2. odd surroundings --------------------------------------------------------------------


def test_non_ascii_home_and_repository_under_c_and_posix_locales(tmp_path, record):
    """HOME and the code under `José Núñez` (spaces, non-ASCII), with LANG/LC_ALL C or POSIX."""
    where = tmp_path / "José Núñez"
    shutil.copytree(ROOT / "src", where / "repo" / "src", ignore=shutil.ignore_patterns("__pycache__"))
    home = where / "home"
    home.mkdir()
    for locale in ("C", "POSIX"):
        env = env_with(HOME=str(home), LANG=locale, LC_ALL=locale, PYTHONPATH=str(where / "repo" / "src"))
        rc = home / ".theanorc"
        rc.write_text(USER_RC)
        runs = [
            gpuforge(["theanorc", "migrate", "--yes"], tmp_path / "runs", env=env),
            gpuforge(["theanorc", "write", "--profile", "fast"], tmp_path / "runs", env=env),
            gpuforge(["doctor", "--python", sys.executable, "--timeout", "60"], tmp_path / "runs", env=env),
        ]
        codes = [r.code for r in runs]
        ok = (
            codes[:2] == [0, 0]
            and codes[2] in (0, 1)
            and rc.read_text() == PROFILES["fast"]
            and "# my notes" in (home / ".theanorc.bak").read_text()
        )
        record(
            "surroundings",
            f"HOME and code under 'José Núñez', LC_ALL={locale}: migrate, write, doctor",
            exit=codes,
            output="".join(r.output for r in runs),
            state="files as expected" if ok else "wrong",
            rerun="not needed",
            seconds=sum(r.seconds for r in runs),
            ok=ok,
        )
        assert ok, [r.output for r in runs]


def test_home_unset_and_tmpdir_unusable(tmp_path, record):
    env = env_with(TMPDIR=str(tmp_path / "no-such-tmp"))
    env.pop("HOME")
    runs = [
        gpuforge(
            ["theanorc", "write", "--profile", "dev", "--path", str(tmp_path / "rc")], tmp_path / "r", env=env
        ),
        gpuforge(["doctor", "--python", sys.executable, "--timeout", "60"], tmp_path / "r", env=env),
    ]
    ok = runs[0].code == 0 and runs[1].code in (0, 1)
    record(
        "surroundings",
        "HOME unset (a passwd entry), TMPDIR missing: theanorc write, doctor",
        exit=[r.code for r in runs],
        output="".join(r.output for r in runs),
        state="ok",
        rerun="not needed",
        seconds=sum(r.seconds for r in runs),
        ok=ok,
    )
    assert ok, [r.output for r in runs]


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs root and setpriv to run as a user id with no passwd entry: run as root",
)
def test_home_unset_for_an_unknown_user_id(tmp_path, record):
    """A container run as `docker run -u 12345`: no HOME, no passwd entry: one line, exit 2."""
    tmp_path.chmod(0o777)
    env = env_with()
    env.pop("HOME")
    proc = subprocess.run(
        [
            "setpriv",
            "--reuid=12345",
            "--regid=12345",
            "--clear-groups",
            sys.executable,
            "-m",
            "gpuforge",
            "theanorc",
            "write",
            "--profile",
            "dev",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    ok = proc.returncode == 2 and "HOME is not set" in proc.stderr and proc.stderr.count("\n") == 1
    record(
        "surroundings",
        "HOME unset, user id not in /etc/passwd: theanorc write",
        exit=proc.returncode,
        output=proc.stderr,
        state="nothing written",
        rerun="not needed",
        seconds=0,
        ok=ok,
    )
    assert ok, proc.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare"),
    reason="needs root and unshare for a read-only bind mount (root ignores chmod)",
)
def test_read_only_home(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".theanorc").write_text(USER_RC)
    script = (
        f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && '
        f'exec "{sys.executable}" -m gpuforge theanorc migrate --yes'
    )
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=env_with(HOME=str(home)),
        timeout=120,
    )
    err = [ln for ln in proc.stderr.splitlines() if ln.startswith("gpuforge:")]
    ok = (
        proc.returncode == 2
        and len(err) == 1
        and "Read-only" in err[0]
        and (home / ".theanorc").read_text() == USER_RC
    )
    record(
        "surroundings",
        "HOME read-only: theanorc migrate --yes",
        exit=proc.returncode,
        output=proc.stderr,
        state="original untouched" if ok else "changed",
        rerun="not needed",
        seconds=0,
        ok=ok,
    )
    assert ok, proc.stderr


def test_deleted_working_directory(tmp_path, record):
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f'cd "{gone}" && rmdir "{gone}" && exec "$@"',
            "_",
            sys.executable,
            "-m",
            "gpuforge",
            "doctor",
            "--explain",
            "compile_lock",
        ],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    ok = proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no longer exists" in proc.stderr
    record(
        "surroundings",
        "working directory deleted",
        exit=proc.returncode,
        output=proc.stderr,
        state="ok",
        rerun="not needed",
        seconds=0,
        ok=ok,
    )
    assert ok, proc.stderr


def run_in_pty(args: list[str], env: dict[str, str], timeout: float = 300) -> tuple[int, str]:
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuforge", *args],
        stdout=child,
        stderr=child,
        stdin=child,
        env=env,
        close_fds=True,
    )
    os.close(child)
    chunks = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    code = proc.wait(10)
    os.close(main)
    return code, b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize(
    "term",
    [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"COLUMNS": "20"}],
    ids=["NO_COLOR", "TERM=dumb", "COLUMNS=20"],
)
def test_tables_in_odd_terminals(tmp_path, record, term):
    """The smoke table in a terminal (a pty): no colour under NO_COLOR, 20 columns readable."""
    env = env_with(GPUFORGE_CACHE=str(tmp_path / "cache"), **term)
    code, out = run_in_pty(["smoke", "--target", "cuda", "--report-dir", str(tmp_path / "r")], env)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    ok = code == 0 and "skip" in out
    if "NO_COLOR" in term or term.get("TERM") == "dumb":
        ok = ok and not re.search(r"\x1b\[(3[0-8]|9[0-7])[;m]", out)  # no foreground colour
    if "COLUMNS" in term:
        ok = ok and len(lines) < 40 and max(len(ln.rstrip("\r")) for ln in lines) <= 200
    record(
        "surroundings",
        f"smoke table in a pty, {' '.join(f'{k}={v}' for k, v in term.items())}",
        exit=code,
        output=out,
        state=f"{len(lines)} lines",
        rerun="not needed",
        seconds=0,
        ok=ok,
    )
    assert ok, out


# --- 3. a damaged cache ---------------------------------------------------------------------

SMALL = WINDOWS.downloads[3]  # six's wheel (11 kB): a pinned, sha256-checked source
FETCH = (
    "import sys; from pathlib import Path; from gpuforge.downloads import fetch; "
    "from gpuforge.smoke.targets import WINDOWS; print(fetch(WINDOWS.downloads[3], Path(sys.argv[1])))"
)


def fetch_run(cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", FETCH, str(cache)], capture_output=True, text=True, env=cli_env(), timeout=300
    )


def damage(kind: str, cache: Path) -> Path:
    path = cache / "sources" / SMALL.sha256[:16] / SMALL.filename
    if kind == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    elif kind == "byte-flipped":
        data = bytearray(path.read_bytes())
        for at in (100, 2000, 5000, 9000):
            data[at] ^= 0xFF
        path.write_bytes(bytes(data))
    elif kind == "emptied":
        path.write_bytes(b"")
    elif kind == "a half download left by a killed run":  # killed before it was in place
        path.unlink()
        half = path.parent / f".download-{_dead_pid()}-x1y2"
        half.mkdir()
        (half / SMALL.filename).write_bytes(b"PK\x03\x04half")
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture(scope="module")
def warm_sources(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("sources-cache")
    proc = fetch_run(cache)
    if proc.returncode != 0:
        pytest.skip(f"cannot download {SMALL.url} ({proc.stderr.strip()[-200:]}): needs PyPI")
    return cache


@pytest.mark.parametrize(
    "kind", ["truncated", "byte-flipped", "emptied", "a half download left by a killed run"]
)
def test_a_damaged_download_is_downloaded_again(warm_sources, tmp_path, record, kind):
    cache = tmp_path / "cache"
    shutil.copytree(warm_sources, cache)
    path = damage(kind, cache)
    proc = fetch_run(cache)
    again = fetch_run(cache)
    from gpuforge.downloads import sha256_of

    leftovers = list(path.parent.glob(".download-*"))
    ok = proc.returncode == 0 and sha256_of(path) == SMALL.sha256 and not leftovers and again.returncode == 0
    record(
        "damaged cache",
        f"source {SMALL.filename} {kind}",
        exit=proc.returncode,
        output=proc.stderr,
        state="re-downloaded, sha256 ok" if ok else f"bad; leftovers {leftovers}",
        rerun="recovered" if again.returncode == 0 else "failed",
        seconds=0,
        ok=ok,
    )
    assert ok, proc.stdout + proc.stderr


@pytest.mark.parametrize("kind", ["a folder at the file's path", "a file at the source folder's path"])
def test_something_in_the_way_of_a_download_is_named(tmp_path, record, kind):
    cache = tmp_path / "cache"
    folder = cache / "sources" / SMALL.sha256[:16]
    if kind.startswith("a folder"):
        (folder / SMALL.filename).mkdir(parents=True)
        in_way = folder / SMALL.filename
    else:
        folder.parent.mkdir(parents=True)
        folder.write_text("")
        in_way = folder
    proc = fetch_run(cache)
    ok = proc.returncode != 0 and f"{in_way}: " in proc.stderr and "delete it" in proc.stderr
    for p in (in_way,):
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    again = fetch_run(cache)
    record(
        "damaged cache",
        f"source cache: {kind}",
        exit=proc.returncode,
        output="",
        state="named: delete it" if ok else proc.stderr[-200:],
        rerun="recovered after deleting it" if again.returncode == 0 else "failed",
        seconds=0,
        ok=ok and again.returncode == 0,
    )
    assert ok and again.returncode == 0, proc.stderr


@pytest.mark.skipif(missing_needs(CPU) != [], reason="the cpu target needs pyenv's Python 3.7 and g++")
def test_a_file_where_the_targets_folder_belongs(tmp_path, record):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "targets").write_text("")
    ran = gpuforge(
        ["smoke", "--target", "cpu", "--report-dir", str(tmp_path / "r")],
        tmp_path / "runs",
        env=env_with(GPUFORGE_CACHE=str(cache)),
    )
    # the report's JSON, not the table: the table folds a long path at any width
    report = tmp_path / "r" / "gpu_smoke.json"
    reasons = [t["reason"] for t in json.loads(report.read_text())["targets"]] if report.is_file() else []
    ok = ran.code == 1 and any(f"{cache / 'targets'}: a file where" in r for r in reasons)
    record(
        "damaged cache",
        "a file where the cache's targets/ folder belongs (smoke --target cpu)",
        ran=ran,
        state="named in the report" if ok else "not named",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran


# --- 4. two runs at once --------------------------------------------------------------------


def test_two_theanorc_writes_at_once_keep_the_users_file(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".theanorc"
    bad = []
    start = time.monotonic()
    for pair in range(8):
        rc.write_text(USER_RC)
        (home / ".theanorc.bak").unlink(missing_ok=True)
        runs = [
            Gpuforge(
                ["theanorc", "write", "--profile", p], folder=tmp_path / "runs", env=env_with(HOME=str(home))
            )
            for p in ("dev", "fast")
        ]
        codes = [r.wait(120).code for r in runs]
        if (
            codes != [0, 0]
            or rc.read_text() not in (PROFILES["dev"], PROFILES["fast"])
            or (home / ".theanorc.bak").read_text() != USER_RC
        ):
            bad.append(pair)
    ok = not bad
    record(
        "two at once",
        "two `theanorc write` on one HOME, 8 pairs",
        exit="0 (all)" if ok else bad,
        output="",
        state="a whole profile; .bak is the user's file" if ok else f"lost in pairs {bad}",
        rerun="not needed",
        seconds=time.monotonic() - start,
        ok=ok,
    )
    assert ok


def test_migrate_and_write_at_once(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".theanorc"
    bad = []
    start = time.monotonic()
    for pair in range(6):
        rc.write_text(USER_RC)
        (home / ".theanorc.bak").unlink(missing_ok=True)
        runs = [
            Gpuforge(args, folder=tmp_path / "runs", env=env_with(HOME=str(home)))
            for args in (["theanorc", "migrate", "--yes"], ["theanorc", "write", "--profile", "fast"])
        ]
        ran = [r.wait(120) for r in runs]
        text, bak = rc.read_text(), (home / ".theanorc.bak").read_text()
        # whichever ran second saw the first one's file: the user's notes survive in one of the two
        if [r.code for r in ran] != [0, 0] or text != PROFILES["fast"] or "# my notes" not in bak:
            bad.append((pair, [r.code for r in ran]))
    ok = not bad
    record(
        "two at once",
        "`theanorc migrate --yes` and `write` at once, 6 pairs",
        exit="0 (all)" if ok else bad,
        output="",
        state="last writer's whole file; user's notes in .bak" if ok else f"{bad}",
        rerun="not needed",
        seconds=time.monotonic() - start,
        ok=ok,
    )
    assert ok


# --- 5. interruption of the quick writers ---------------------------------------------------


GPUFORGE_FRAME = re.compile(r'File "[^"]*gpuforge[/\\]([^"]*\.py)", line \d+, in (\S+)')


def before_the_handlers(err: str) -> bool:
    """A traceback whose gpuforge frames are all module level in the package's __init__.py
    (runpy imports it before __main__.py runs) or __main__.py (its imports, before main()
    installs the handlers): the signal came before gpuforge could answer it."""
    return all(
        path in ("__init__.py", "__main__.py") and where in ("<module>", "<dictcomp>")
        for path, where in GPUFORGE_FRAME.findall(err)
    )


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
@pytest.mark.parametrize("command", ["write", "migrate"])
def test_theanorc_killed_at_random_moments(tmp_path, record, signum, command):
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".theanorc"
    rng = random.Random(23)
    env = env_with(HOME=str(home))
    args = (
        ["theanorc", "write", "--profile", "fast"] if command == "write" else ["theanorc", "migrate", "--yes"]
    )
    problems, codes = [], set()
    start = time.monotonic()
    rc.write_text(USER_RC)
    whole = gpuforge(args, tmp_path / "runs", env=env).seconds  # the moments: spread over a whole run
    moments = [whole * (i + rng.random()) / RUNS for i in range(RUNS)]
    stopped = early = 0
    for moment in moments:
        rc.write_text(USER_RC)
        (home / ".theanorc.bak").unlink(missing_ok=True)
        run = Gpuforge(args, folder=tmp_path / "runs", env=env)
        time.sleep(moment)
        run.signal(signum)
        ran = run.wait(60)
        codes.add(ran.code)
        stopped += ran.code != 0
        text = rc.read_text()
        if text != USER_RC and ("# my notes" not in (home / ".theanorc.bak").read_text()):
            problems.append("backup lost")
        if text not in (USER_RC, PROFILES["fast"]) and not text.startswith("# my notes"):
            problems.append(f"half file: {text[:40]!r}")
        # the signal came in the interpreter's own start-up (runpy importing the package, or
        # __main__.py's first lines), before gpuforge's handlers: Python's own KeyboardInterrupt
        # traceback or death by the signal; nothing is written
        startup = ran.code in (1, -2, -15) and before_the_handlers(ran.err)
        early += startup
        if not startup and (ran.code not in (0, -9, 143, 130) or "Traceback" in ran.err):
            problems.append(f"exit {ran.code}: {ran.err[-200:]}")
        if signum != signal.SIGKILL and ran.code in (130, 143) and not ran.one_line():
            problems.append(f"not one line: {ran.err!r}")
    rerun = gpuforge(args, tmp_path / "runs", env=env)
    leftovers = [p.name for p in home.iterdir() if p.name.endswith(".tmp")]
    ok = not problems and rerun.code == 0 and not leftovers and stopped > 0
    record(
        "interruption",
        f"theanorc {command} +{signum.name}->pid at {RUNS} moments over its {whole:.2f} s",
        exit=sorted(c for c in codes if c is not None),
        output=rerun.output,
        state=f"{stopped}/{RUNS} stopped ({early} in Python's own start-up); original or whole new file"
        if not problems
        else "; ".join(problems),
        rerun="recovered, no temp left" if rerun.code == 0 and not leftovers else f"{rerun.code} {leftovers}",
        seconds=time.monotonic() - start,
        ok=ok,
    )
    assert ok, (problems, rerun, leftovers)


def test_doctor_fix_killed_at_random_moments(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".theanorc"
    env = env_with(HOME=str(home))
    rng = random.Random(5)
    problems, codes = [], set()
    start = time.monotonic()
    args = ["doctor", "--fix", "--python", sys.executable, "--timeout", "60"]
    rc.write_text(USER_RC)
    whole = gpuforge(args, tmp_path / "r", env=env).seconds
    signals = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT) * 2
    stopped = 0
    for i, signum in enumerate(signals):
        rc.write_text(USER_RC)
        run = Gpuforge(args, folder=tmp_path / "r", env=env)
        time.sleep(whole * (i + rng.random()) / len(signals))
        run.signal(signum)
        ran = run.wait(120)
        codes.add(ran.code)
        stopped += ran.code not in (0, 1)
        if not rc.read_text().startswith("# my notes"):
            problems.append("file damaged")
        if "Traceback" in ran.err:
            problems.append("traceback")
    rerun = gpuforge(
        ["doctor", "--fix", "--python", sys.executable, "--timeout", "60"], tmp_path / "r", env=env
    )
    ok = not problems and rerun.code in (0, 1) and stopped > 0
    record(
        "interruption",
        f"doctor --fix +SIGKILL/SIGTERM/SIGINT->pid at 6 moments over its {whole:.2f} s",
        exit=sorted(c for c in codes if c is not None),
        output=rerun.output,
        state=f"{stopped}/6 stopped; user's file or its fixed version"
        if not problems
        else "; ".join(problems),
        rerun="recovered" if rerun.code in (0, 1) else str(rerun.code),
        seconds=time.monotonic() - start,
        ok=ok,
    )
    assert ok, problems


# --- 6. long cases: cold environments interrupted (nox -s faults) ---------------------------


def need(target) -> None:
    missing = missing_needs(target)
    if missing:
        pytest.skip(missing[0])


def smoke(target: str, cache: Path, folder: Path, *extra: str) -> Gpuforge:
    return Gpuforge(
        ["smoke", "--target", target, "--report-dir", str(folder / f"r{time.monotonic_ns()}"), *extra],
        folder=folder,
        env=env_with(GPUFORGE_CACHE=str(cache)),
    )


EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGKILL: -9}


def env_state(cache: Path) -> str:
    roots = [p for p in (cache / "targets").glob("*-*") if p.is_dir() and "." not in p.name]
    ready = [p for p in roots if (p / ".gpuforge-ready").exists()]
    trusted_bad = [p for p in ready if not ((p / "pyvenv.cfg").exists() or (p / "python.exe").exists())]
    if trusted_bad:
        return f"DAMAGED but marked ready: {trusted_bad[0].name}"
    return f"{len(ready)} ready, {len(roots) - len(ready)} half-made (unmarked)"


@LONG
@pytest.mark.parametrize(
    ("target", "moment", "signum", "group"),
    [
        ("cpu", "creating venv", signal.SIGINT, False),
        ("cpu", "pip install", signal.SIGINT, False),
        ("cpu", "pip install", signal.SIGTERM, False),
        ("cpu", "pip install", signal.SIGKILL, False),
        ("cpu", "checks:", signal.SIGKILL, True),
        ("windows", "source:", signal.SIGINT, True),
        ("windows", "building a wheel", signal.SIGKILL, False),
        ("windows", "Wine prefix", signal.SIGTERM, False),
    ],
    ids=lambda v: v.name if isinstance(v, signal.Signals) else str(v),
)
def test_cold_smoke_interrupted_then_rerun(tmp_path, record, target, moment, signum, group):
    """Kill a cold `smoke --target T` after a progress line; rerun at once (orphans alive)."""
    need({"cpu": CPU, "windows": WINDOWS}[target])
    cache = tmp_path / "cache"
    run = smoke(target, cache, tmp_path)
    seen = run.wait_for(moment, 600)
    time.sleep(1.0)
    run.signal(signum, group=group)
    ran = run.wait(60)
    state = env_state(cache)
    left = session_alive(run.pid)
    rerun = smoke(target, cache, tmp_path).wait(900)
    want = EXIT[signum]
    ok = (
        seen
        and ran.code == want
        and "DAMAGED" not in state
        and rerun.code == 0
        and (signum == signal.SIGKILL or ran.ends_in_one_line())
        and f"[{target}] fail" not in ran.err
    )
    record(
        "interruption",
        f"cold smoke --target {target}, +{signum.name}->{'group' if group else 'pid'} during '{moment}'",
        exit=ran.code,
        output=ran.output + rerun.output,
        state=state + (f"; {len(left)} orphans then" if left else ""),
        rerun="recovered (pass)" if rerun.code == 0 else f"exit {rerun.code}",
        seconds=ran.seconds + rerun.seconds,
        ok=ok,
    )
    assert ok, (ran, rerun.err[-2000:])


@LONG
def test_fresh_killed_while_it_deletes(tmp_path, record):
    """Was: `--fresh` killed in its first second left a ready mark on a half-deleted venv, forever."""
    need(CPU)
    cache = tmp_path / "cache"
    first = smoke("cpu", cache, tmp_path).wait(900)
    assert first.code == 0, first.err[-2000:]
    codes = []
    for delay in (0.35, 0.5, 0.7):
        run = smoke("cpu", cache, tmp_path, "--fresh")
        time.sleep(delay)
        run.signal(signal.SIGKILL)
        codes.append(run.wait(60).code)
    state = env_state(cache)
    rerun = smoke("cpu", cache, tmp_path).wait(900)
    ok = "DAMAGED" not in state and rerun.code == 0
    record(
        "interruption",
        "smoke --target cpu --fresh +SIGKILL->pid at 0.35/0.5/0.7 s (deleting)",
        exit=codes,
        output=rerun.output,
        state=state,
        rerun="recovered (pass)" if rerun.code == 0 else f"exit {rerun.code}",
        seconds=first.seconds + rerun.seconds,
        ok=ok,
    )
    assert ok, rerun.err[-2000:]


@LONG
def test_two_cold_smoke_runs_on_one_cache(tmp_path, record):
    """Was: B started 8 s after A poisoned the environment for good. Now B waits for A."""
    need(CPU)
    cache = tmp_path / "cache"
    a = smoke("cpu", cache, tmp_path)
    a.wait_for("pip install", 600)
    time.sleep(2)
    b = smoke("cpu", cache, tmp_path)
    ra, rb = a.wait(900), b.wait(900)
    state = env_state(cache)
    ok = ra.code == 0 and rb.code == 0 and "waiting for the environment" in rb.err and "DAMAGED" not in state
    record(
        "two at once",
        "two cold smoke --target cpu on one cache, B during A's pip install",
        exit=[ra.code, rb.code],
        output=ra.output + rb.output,
        state=state + "; B waited" if ok else state,
        rerun="not needed",
        seconds=max(ra.seconds, rb.seconds),
        ok=ok,
    )
    assert ok, (ra.err[-1500:], rb.err[-1500:])


@LONG
def test_doctor_while_smoke_compiles(tmp_path, record):
    need(CPU)
    cache = tmp_path / "cache"
    a = smoke("cpu", cache, tmp_path)
    a.wait_for("checks:", 900)
    python = next((cache / "targets").glob("cpu-*/bin/python"))
    d = gpuforge(["doctor", "--python", str(python), "--timeout", "120"], tmp_path / "d")
    ra = a.wait(900)
    ok = ra.code == 0 and d.code in (0, 1)
    record(
        "two at once",
        "doctor --python <the target's> while a cold smoke compiles",
        exit=[ra.code, d.code],
        output=ra.output + d.output,
        state="both finished",
        rerun="not needed",
        seconds=ra.seconds,
        ok=ok,
    )
    assert ok, (ra.err[-1500:], d.output[-1500:])


@LONG
@pytest.mark.parametrize(
    "damage_kind",
    ["python deleted", "pyvenv.cfg deleted", "durations.json a folder", "a numpy .so truncated"],
)
def test_a_damaged_environment_is_remade_or_named(tmp_path, record, damage_kind):
    need(CPU)
    cache = tmp_path / "cache"
    first = smoke("cpu", cache, tmp_path).wait(900)
    assert first.code == 0, first.err[-2000:]
    root = next(p for p in (cache / "targets").glob("cpu-*") if p.is_dir() and "." not in p.name)
    if damage_kind == "python deleted":
        (root / "bin" / "python").unlink()
    elif damage_kind == "pyvenv.cfg deleted":
        (root / "pyvenv.cfg").unlink()
    elif damage_kind == "durations.json a folder":
        (cache / "targets" / "durations.json").unlink(missing_ok=True)
        (cache / "targets" / "durations.json").mkdir()
    else:
        so = next(root.glob("lib/python3.7/site-packages/numpy/core/_multiarray_umath*.so"))
        so.write_bytes(so.read_bytes()[:4096])
    ran = smoke("cpu", cache, tmp_path).wait(900)
    if damage_kind == "a numpy .so truncated":  # not detectable before use: named, --fresh remakes it
        ok = ran.code == 1 and "--fresh` remakes it" in ran.err and "--fresh` remakes it" in ran.out
        rerun = smoke("cpu", cache, tmp_path, "--fresh").wait(900)
        ok = ok and rerun.code == 0
        state = "named: --fresh remakes it"
    else:
        ok, rerun, state = ran.code == 0, ran, "remade" if "creating venv" in ran.err else "reused"
    record(
        "damaged cache",
        f"cpu environment: {damage_kind}",
        ran=ran,
        state=state,
        rerun="recovered (pass)" if rerun.code == 0 else f"exit {rerun.code}",
        ok=ok,
    )
    assert ok, ran.err[-2000:] + ran.out[-2000:]


@LONG
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_build_local_interrupted_then_rerun(tmp_path, record, signum):
    """`recipes build-local theano` killed while it makes its prefix or installs; rerun."""
    python = pyenv_python("3.7")
    if python is None:
        pytest.skip("needs pyenv's Python 3.7: `pyenv install 3.7`")
    env = env_with(GPUFORGE_CACHE=str(tmp_path / "cache"))
    args = [
        "recipes",
        "build-local",
        "theano",
        "--python",
        python,
        "--prefix",
        str(tmp_path / "prefix"),
        "--work-dir",
        str(tmp_path / "work"),
    ]
    run = Gpuforge(args, folder=tmp_path / "runs", env=env, cwd=ROOT)
    run.wait_for("creating prefix", 300)
    time.sleep(1.5)
    run.signal(signum)
    ran = run.wait(60)
    rerun = gpuforge(args, tmp_path / "runs", env=env, timeout=1200, cwd=ROOT)
    ok = ran.code == EXIT[signum] and rerun.code == 0 and (signum == signal.SIGKILL or ran.ends_in_one_line())
    record(
        "interruption",
        f"recipes build-local theano +{signum.name}->pid while making its prefix",
        exit=ran.code,
        output=ran.output + rerun.output,
        state="half-made prefix remade" if ok else "?",
        rerun="recovered (built, tested)" if rerun.code == 0 else f"exit {rerun.code}",
        seconds=ran.seconds + rerun.seconds,
        ok=ok,
    )
    assert ok, (ran.err[-1000:], rerun.output[-3000:])


def test_a_symlinked_theanorc_stays_a_link(tmp_path, record):
    """A ~/.theanorc linked from a dotfiles folder in the home folder: the dotfile is migrated, the
    link stays. (A link out of the home folder is refused: test_trust.py's redirection family.)"""
    home = tmp_path / "home"
    dotfiles = home / "dotfiles"
    dotfiles.mkdir(parents=True)
    (dotfiles / "theanorc").write_text(USER_RC)
    (home / ".theanorc").symlink_to(dotfiles / "theanorc")
    ran = gpuforge(["theanorc", "migrate", "--yes"], tmp_path / "runs", env=env_with(HOME=str(home)))
    ok = (
        ran.code == 0
        and (home / ".theanorc").is_symlink()
        and "device = cuda" in (dotfiles / "theanorc").read_text()
        and (dotfiles / "theanorc.bak").read_text() == USER_RC
    )
    record(
        "surroundings",
        "~/.theanorc a symlink into a dotfiles folder: migrate --yes",
        ran=ran,
        state="link kept, dotfile migrated, .bak beside it" if ok else "link replaced",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran


def test_an_ascii_console_with_a_non_ascii_home(tmp_path, record):
    """LC_ALL=C with UTF-8 mode and locale coercion off: stdout is ASCII; paths are escaped."""
    home = tmp_path / "José Núñez"
    home.mkdir()
    (home / ".theanorc").write_text(USER_RC)
    env = env_with(HOME=str(home), LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    ran = gpuforge(["theanorc", "migrate", "--yes"], tmp_path / "runs", env=env)
    ok = ran.code == 0 and "device = cuda" in (home / ".theanorc").read_text()
    record(
        "surroundings",
        "LC_ALL=C, PYTHONUTF8=0, PYTHONCOERCECLOCALE=0, HOME 'José Núñez': migrate --yes",
        ran=ran,
        state="migrated" if ok else "not migrated",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran


def test_theanorc_write_into_a_new_folder(tmp_path, record):
    """The write's lock is on the file's folder: a folder not made yet is made, not a lock file."""
    rc = tmp_path / "new" / "sub" / "theanorc"
    ran = gpuforge(["theanorc", "write", "--profile", "dev", "--path", str(rc)], tmp_path / "runs")
    ok = ran.code == 0 and rc.read_text() == PROFILES["dev"]
    record(
        "theanorc",
        "theanorc write --path into a folder not made yet",
        ran=ran,
        state="written" if ok else "not written",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran

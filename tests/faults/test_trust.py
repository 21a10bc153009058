"""Trust boundaries and a hostile machine (issue 29): foreign input, redirected writes,
misbehaving tools, argument edges and scaling. Each case runs the real CLI as a process (the
fault harness), checks the exit status, that no traceback shows and what was left on disk, and
records one row of the fault table. Every case failed on main before these fixes (checked once
against 3f0dd2c; see the closing note of issue 29).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, cli_env, pyenv_or_skip
from faults.harness import LONG, Ran, gpuforge

PROBE = ROOT / "tests" / "data" / "probes" / "win64-cc86-driver560-cuda90.json"
HANG = "#!/bin/sh\nsleep 1000\n"


def env_with(home: Path | None = None, **extra: str) -> dict[str, str]:
    env = cli_env()
    for key in ("THEANORC", "THEANO_FLAGS"):
        env.pop(key, None)
    env.update(extra)
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        env["HOME"] = str(home)
    return env


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def sleepers() -> list[str]:
    """`sleep 1000` processes still running (what a hung fake tool left behind)."""
    proc = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True)
    return [ln for ln in proc.stdout.splitlines() if ln.split(None, 1)[-1] == "sleep 1000"]


def hanging(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(HANG)
        (folder / name).chmod(0o755)
    return folder


def no_traceback(ran: Ran) -> bool:
    return "Traceback (most recent call last)" not in ran.output and "internal error" not in ran.output


# --- foreign input: a report, a recipe, an artifact made elsewhere is data -----------------


def foreign_report(tmp_path: Path, **config: object) -> Path:
    facts = json.loads(PROBE.read_text())
    facts["compiler"]["off_path_gxx"] = str(tmp_path / "not-a-compiler.sh")
    if config:
        facts["config"] = config
    facts.pop("wine_prefix", None)
    report = tmp_path / "report.json"
    report.write_text(json.dumps(facts))
    return report


def test_a_reports_fix_is_shown_never_written_here(tmp_path, record):
    """`doctor --facts REPORT --fix`: the report's off-PATH g++ (any program) and the report's
    config files (any file) are that machine's; nothing here is written."""
    home = tmp_path / "home"
    victim = tmp_path / "victim.ini"
    victim.write_text("[global]\ndevice = gpu\n")
    report = foreign_report(
        tmp_path,
        files=[{"path": str(victim), "exists": True}],
        settings={
            "device": {
                "value": "gpu",
                "source": f"{victim}:2",
                "file": str(victim),
                "line": 2,
                "section": "global",
                "option": "device",
            }
        },
    )
    before = files_under(tmp_path)
    ran = gpuforge(["doctor", "--facts", str(report), "--fix"], tmp_path / "run", env=env_with(home))
    after = {k: v for k, v in files_under(tmp_path).items() if not k.startswith("run/")}
    untouched = after == before
    shown = "not-a-compiler.sh" in ran.out and "nothing written" in ran.out
    ok = ran.code == 1 and untouched and shown and no_traceback(ran)
    record(
        "foreign input",
        "doctor --facts REPORT --fix: a report's g++ path and config file",
        ran=ran,
        state="nothing written, the fix shown" if untouched else "FILES WRITTEN",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


JINJA = {
    "a Python escape (lipsum.__globals__)": '{{ lipsum.__globals__["os"].system("touch PWNED") }}',
    "os.system": '{{ os.system("touch PWNED") }}',
    "range(10**10)": "{% for i in range(10**10) %}{% endfor %}",
    "a huge {% set %}": '{% set x = "a" * 10**9 %}',
    "nested loops": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
}


@pytest.mark.parametrize("case", list(JINJA))
@pytest.mark.parametrize("command", ["render", "lint"])
def test_recipe_jinja_renders_in_a_bounded_sandbox(tmp_path, record, recipes_copy, case, command):
    meta = recipes_copy / "pygpu" / "meta.yaml"
    lines = meta.read_text().splitlines(keepends=True)
    meta.write_text("".join([*lines[:3], JINJA[case] + "\n", *lines[3:]]))
    args = ["recipes", command, "pygpu", "--recipes-dir", str(recipes_copy)]
    ran = gpuforge(
        [*args, "--conda-smithy", "skip"] if command == "lint" else args,
        tmp_path / "run",
        cwd=tmp_path,
        env=env_with(tmp_path / "home"),
        timeout=120,
    )
    ran_nothing = not (tmp_path / "PWNED").exists() and not (tmp_path / "run" / "PWNED").exists()
    if command == "render":  # one error line
        said = ran.code == 2 and ran.one_line() and "meta.yaml:" in ran.err
    else:  # a problem of the recipe, in lint's list
        said = ran.code == 1 and "meta.yaml:" in ran.out and no_traceback(ran)
    ok = said and ran_nothing and ran.seconds < 60
    record(
        "foreign input",
        f"recipes {command}: recipe Jinja with {case}",
        ran=ran,
        state="nothing ran" if ran_nothing else "A COMMAND RAN",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


def test_an_artifact_manifest_naming_a_path_outside_is_refused(tmp_path, record):
    artifacts = tmp_path / "artifacts"
    job = artifacts / "build-linux"
    (job / "linux-64").mkdir(parents=True)
    package = job / "linux-64" / "pygpu-0.7.6-py37_0.conda"
    package.write_bytes(b"a package")
    script = job / "x.sh"  # `../build-linux/x.sh` from the artifact folder build-linux: itself
    script.write_text("echo planted\n")
    import hashlib

    manifest = {
        "job": "linux-64",
        "packages": {
            "linux-64/pygpu-0.7.6-py37_0.conda": {"sha256": hashlib.sha256(b"a package").hexdigest()},
            "../build-linux/x.sh": {"sha256": hashlib.sha256(script.read_bytes()).hexdigest()},
        },
    }
    (job / "manifest.json").write_text(json.dumps(manifest))
    channel = tmp_path / "channel"
    ran = gpuforge(["ci", "collect", str(artifacts), "--channel", str(channel)], tmp_path / "run")
    outside = [p for p in tmp_path.rglob("x.sh") if p != script]
    ok = ran.code == 2 and ran.one_line() and not outside and not (channel / "manifest.json").exists()
    record(
        "foreign input",
        "ci collect: a manifest naming ../build-linux/x.sh",
        ran=ran,
        state="refused, nothing copied" if not outside else f"COPIED: {outside}",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


def test_a_recipe_sha256_written_as_a_path_is_refused(tmp_path, record, recipes_copy):
    meta = recipes_copy / "libgpuarray" / "meta.yaml"
    text = meta.read_text()
    sha = text.split('{% set sha256 = "', 1)[1].split('"', 1)[0]
    meta.write_text(text.replace(sha, "../../x"))
    cache = tmp_path / "cache"
    ran = gpuforge(
        [
            "recipes",
            "build-local",
            "libgpuarray",
            "--recipes-dir",
            str(recipes_copy),
            "--python",
            sys.executable,
            "--cache-dir",
            str(cache),
            "--work-dir",
            str(tmp_path / "work"),
            "--prefix",
            str(tmp_path / "prefix"),
        ],
        tmp_path / "run",
        cwd=tmp_path,
        timeout=300,
    )
    outside = [p for p in tmp_path.rglob("*.tar.gz") if cache not in p.parents]
    ok = ran.code == 2 and "meta.yaml" in ran.err and "sha256" in ran.err and not outside
    record(
        "foreign input",
        "recipes build-local: source sha256 written as ../../x",
        ran=ran,
        state="refused before any download" if not outside else f"WRITTEN OUTSIDE THE CACHE: {outside}",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok and no_traceback(ran), ran.output


def test_plain_http_channels_and_indexes_are_refused(tmp_path, record):
    ran = gpuforge(
        ["recipes", "build", "pygpu", "--channel", "http://conda.example.org/main"],
        tmp_path / "run",
        cwd=tmp_path,
    )
    ok = ran.code == 2 and "not https" in ran.err and no_traceback(ran)
    record(
        "foreign input",
        "recipes build --channel http://...",
        ran=ran,
        state="refused when parsed",
        rerun="not needed",
        ok=ok,
    )
    env_file = (ROOT / "envs" / "gpu-linux64.yml").read_text()
    env_file = env_file.replace(
        "  - nodefaults", "  - http://conda.example.org/main  # mirror\n  - nodefaults", 1
    )
    env_file = env_file.replace(
        "      - Theano==1.0.5",
        "      - --index-url http://pypi.example.org/simple  # mirror\n"
        "      - --trusted-host pypi.example.org  # mirror\n"
        "      - https://example.org/x-1.0-py3-none-any.whl  # x\n"
        "      - Theano==1.0.5",
        1,
    )
    envs = tmp_path / "envs"
    shutil.copytree(ROOT / "envs", envs)
    (envs / "gpu-linux64.yml").write_text(env_file)
    checked = gpuforge(
        [
            "envs",
            "check",
            str(envs / "gpu-linux64.yml"),
            "--envs-dir",
            str(envs),
            "--recipes-dir",
            str(ROOT / "recipes"),
        ],
        tmp_path / "run2",
        cwd=tmp_path,
    )
    wanted = (
        "channel http://conda.example.org/main is not https",
        "--index-url http://pypi.example.org/simple: not https",
        "--trusted-host pypi.example.org: --trusted-host turns off",
        "x-1.0-py3-none-any.whl: a URL needs its content pinned",
    )
    named = [w for w in wanted if w in checked.out]
    ok2 = checked.code == 1 and len(named) == len(wanted) and no_traceback(checked)
    record(
        "foreign input",
        "envs check: http channel, http index, --trusted-host, a wheel URL without its hash",
        ran=checked,
        state=f"{len(named)} of {len(wanted)} named",
        rerun="not needed",
        ok=ok2,
    )
    assert ok and ok2, (ran.output, checked.output)


# --- redirection: writes that cannot land elsewhere, backups never lost ---------------------


def test_a_symlink_planted_at_the_temp_name_redirects_nothing(tmp_path, record):
    """The writer's old temp name was `.NAME.gpuforge-<pid>.tmp`: with `exec`, the planting shell's
    pid is the writer's, so the link sits exactly there."""
    victim = tmp_path / "elsewhere" / "victim"
    victim.parent.mkdir()
    victim.write_text("not yours\n")
    folder = tmp_path / "shared"
    folder.mkdir()
    rc = folder / "rc"
    script = (
        'ln -s "$1" ".rc.gpuforge-$$.tmp"; ln -s "$1" ".rc.bak.gpuforge-$$.tmp"; '
        'exec "$2" -m gpuforge theanorc write --profile fast --path rc'
    )
    start = time.monotonic()
    proc = subprocess.run(
        ["bash", "-c", script, "_", str(victim), sys.executable],
        cwd=folder,
        env=env_with(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    ran = Ran(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
    kept = victim.read_text() == "not yours\n"
    ok = proc.returncode == 0 and kept and rc.is_file() and not rc.is_symlink() and no_traceback(ran)
    record(
        "redirection",
        "theanorc write: a symlink planted at the temp file's name",
        ran=ran,
        state="the link's target untouched" if kept else "LINK TARGET OVERWRITTEN",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


def test_a_full_disk_keeps_the_previous_backup(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".theanorc"
    old = "[global]\ndevice = gpu\n[lib]\ncnmem = 1.0\n"
    rc.write_text(old)
    (home / ".theanorc.bak").write_text("the previous generation\n")
    limit = len(old) + 1
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", "theanorc", "migrate", "--yes"],
        env=env_with(home),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    ran = Ran(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
    kept = (home / ".theanorc.bak").read_text() == "the previous generation\n" and rc.read_text() == old
    leftovers = [p.name for p in home.iterdir() if p.name not in (".theanorc", ".theanorc.bak")]
    ok = proc.returncode == 2 and ran.one_line() and kept and not leftovers
    record(
        "redirection",
        "theanorc migrate on a full disk: the previous .bak",
        ran=ran,
        state="file and previous backup kept" if kept else "BACKUP LOST",
        rerun="not needed",
        ok=ok,
    )
    assert ok, (ran.output, leftovers)


def test_a_dotfile_linked_out_of_home_is_not_written_through(tmp_path, record):
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "dotfiles" / "theanorc"
    outside.parent.mkdir()
    outside.write_text("[global]\nfloatX = float32\n")
    (home / ".theanorc").symlink_to(outside)
    ran = gpuforge(["theanorc", "write", "--profile", "fast"], tmp_path / "run", env=env_with(home))
    untouched = outside.read_text() == "[global]\nfloatX = float32\n" and sorted(
        p.name for p in outside.parent.iterdir()
    ) == ["theanorc"]
    ok = ran.code == 2 and ran.one_line() and "outside your home folder" in ran.err and untouched
    record(
        "redirection",
        "theanorc write: ~/.theanorc linked to a file outside HOME",
        ran=ran,
        state="refused, nothing created outside HOME" if untouched else "WRITTEN OUTSIDE HOME",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


# --- misbehaving tools: every child has a deadline and a name -----------------------------


@pytest.mark.parametrize("tool", ["g++", "nvidia-smi"])
def test_a_hanging_tool_on_path_is_named_and_ended(tmp_path, record, tool):
    python = pyenv_or_skip("3.7")
    fake = hanging(tmp_path / "bin", tool)
    before = len(sleepers())
    env = env_with(tmp_path / "home", PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    ran = gpuforge(["doctor", "--python", python, "--timeout", "30"], tmp_path / "run", env=env, timeout=120)
    time.sleep(0.5)
    left = len(sleepers()) - before
    named = "[program_hangs]" in ran.out and f"{fake / tool}" in ran.out
    ok = ran.code == 1 and named and left <= 0 and ran.seconds < 60 and no_traceback(ran)
    record(
        "misbehaving tools",
        f"doctor: a {tool} on PATH that hangs",
        ran=ran,
        state="named, nothing left running" if left <= 0 else f"{left} PROCESSES LEFT",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


def test_a_short_probe_timeout_blames_the_hanging_compiler_not_the_interpreter(
    tmp_path, record, theano_python
):
    fake = hanging(tmp_path / "bin", "g++")
    env = env_with(tmp_path / "home", PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    ran = gpuforge(
        ["doctor", "--python", theano_python, "--timeout", "10"], tmp_path / "run", env=env, timeout=120
    )
    ok = (
        ran.code == 1
        and "[program_hangs]" in ran.out
        and "import theano" in ran.out
        and "the interpreter hangs" not in ran.output
        and ran.seconds < 30
    )
    record(
        "misbehaving tools",
        "doctor --timeout 10: a g++ that hangs under `import theano`",
        ran=ran,
        state="g++ named" if ok else "blamed elsewhere",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok and no_traceback(ran), ran.output


def test_a_hanging_conda_smithy_is_named_in_one_line(tmp_path, record):
    fake = hanging(tmp_path / "bin", "conda-smithy", "conda-render", "conda-build")
    env = env_with(
        tmp_path / "home",
        PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
        GPUFORGE_CONDA_TOOLS="",
        GPUFORGE_CHILD_TIMEOUT="10",
    )
    before = len(sleepers())
    ran = gpuforge(
        ["recipes", "lint", "pygpu", "--recipes-dir", str(ROOT / "recipes"), "--conda-smithy", "require"],
        tmp_path / "run",
        env=env,
        timeout=120,
    )
    time.sleep(0.5)
    left = len(sleepers()) - before
    ok = (
        ran.code == 2
        and ran.ends_in_one_line()
        and "conda-smithy" in ran.err
        and left <= 0
        and ran.seconds < 60
    )
    record(
        "misbehaving tools",
        "recipes lint: a conda-smithy that hangs (GPUFORGE_CHILD_TIMEOUT=10)",
        ran=ran,
        state="named, nothing left running" if left <= 0 else f"{left} PROCESSES LEFT",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok and no_traceback(ran), ran.output


def test_a_hanging_conda_ends_the_environment_step_with_its_name(tmp_path, record):
    fake = hanging(tmp_path / "bin", "conda")
    env = env_with(
        tmp_path / "home",
        PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
        GPUFORGE_CHILD_TIMEOUT="10",
        GPUFORGE_CACHE=str(tmp_path / "cache"),
    )
    before = len(sleepers())
    ran = gpuforge(
        [
            "smoke",
            "--target",
            "env:gpu-linux64",
            "--envs-dir",
            str(ROOT / "envs"),
            "--report-dir",
            str(tmp_path),
        ],
        tmp_path / "run",
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    time.sleep(0.5)
    left = len(sleepers()) - before
    report = (
        json.loads((tmp_path / "gpu_smoke.json").read_text())
        if (tmp_path / "gpu_smoke.json").exists()
        else {}
    )
    reason = " ".join(t.get("reason", "") for t in report.get("targets", []))
    ok = ran.code == 1 and "conda" in reason and "did not finish in 10 s" in reason and left <= 0
    record(
        "misbehaving tools",
        "smoke env:*: a conda that hangs while creating the environment",
        ran=ran,
        state="named, nothing left running" if left <= 0 else f"{left} PROCESSES LEFT",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok and no_traceback(ran), (ran.output, reason)


@LONG
def test_a_warm_smoke_with_a_hanging_compiler_names_it(tmp_path, record):
    """The cpu target made (or reused) in the machine's cache, then checked with a g++ that hangs."""
    fake = hanging(tmp_path / "bin", "g++")
    warm = gpuforge(["smoke", "--target", "cpu", "--report-dir", str(tmp_path / "warm")], tmp_path / "run")
    assert warm.code == 0, warm.output
    env = env_with(PATH=f"{fake}{os.pathsep}{os.environ['PATH']}", GPUFORGE_CHILD_TIMEOUT="30")
    before = len(sleepers())
    ran = gpuforge(["smoke", "--target", "cpu", "--report-dir", str(tmp_path)], tmp_path / "run", env=env)
    time.sleep(0.5)
    left = len(sleepers()) - before
    report = json.loads((tmp_path / "gpu_smoke.json").read_text())
    reason = report["targets"][0]["reason"]
    hint = report["targets"][0].get("hint", "")
    ok = ran.code == 1 and "g++" in reason and "damaged" not in hint and left <= 0 and ran.seconds < 120
    record(
        "misbehaving tools",
        "smoke --target cpu (warm): a g++ that hangs",
        ran=ran,
        state="named, nothing left running" if left <= 0 else f"{left} PROCESSES LEFT",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok, (ran.output, reason, hint)


# --- argument edges: checked at the door ---------------------------------------------------


ARGUMENTS = {
    "doctor --timeout nan": ["doctor", "--timeout", "nan"],
    "doctor --timeout inf": ["doctor", "--timeout", "inf"],
    "doctor --timeout 0": ["doctor", "--timeout", "0"],
    "doctor --timeout -1": ["doctor", "--timeout", "-1"],
    "smoke --jobs -3": ["smoke", "--jobs", "-3", "--target", "cpu"],
    "smoke --jobs 0": ["smoke", "--jobs", "0", "--target", "cpu"],
    "smoke --iters 0": ["smoke", "--iters", "0", "--target", "cpu"],
    "smoke --steps 0": ["smoke", "--steps", "0", "--target", "cpu"],
    "smoke --report-dir FILE": ["smoke", "--report-dir", "a-file", "--target", "cpu"],
}


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_numeric_options_and_output_folders_are_checked_when_parsed(tmp_path, record, case):
    (tmp_path / "a-file").write_text("not a folder\n")
    ran = gpuforge(
        ARGUMENTS[case], tmp_path / "run", cwd=tmp_path, env=env_with(tmp_path / "home"), timeout=120
    )
    ok = ran.code == 2 and "usage:" in ran.err and ran.seconds < 20 and no_traceback(ran)
    record("argument edges", case, ran=ran, state="usage error, nothing ran", rerun="not needed", ok=ok)
    assert ok, ran.output


def test_undecodable_text_in_a_report_is_printed_escaped(tmp_path, record):
    facts = json.loads(PROBE.read_text())
    facts["python"]["executable"] = "C:\\Users\\\udcff\udcfe\\python.exe"
    facts["imports"]["theano"]["error"] = {
        "type": "ImportError",
        "message": "bad \udcff",
        "traceback": ["\udcff"],
    }
    report = tmp_path / "report.json"
    report.write_text(json.dumps(facts))  # JSON's \udcff escape: a lone surrogate when read
    ran = gpuforge(["doctor", "--facts", str(report)], tmp_path / "run")
    ok = ran.code == 1 and "\\udcff" in ran.out and no_traceback(ran)
    record(
        "argument edges",
        "doctor --facts: a \\udcff escape in the report",
        ran=ran,
        state="printed escaped",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


@pytest.mark.parametrize("command", ["doctor", "smoke"])
def test_non_utf8_bytes_in_theano_flags_are_printed_escaped(tmp_path, record, theano_python, command):
    """Theano reads THEANO_FLAGS as text: bytes that are no UTF-8 reach its error message, the
    probe's report and the smoke's reports as lone surrogates."""
    env = env_with(tmp_path / "home")
    env_bytes = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    env_bytes[b"THEANO_FLAGS"] = b"device=\xff\xfe,floatX=float32"
    args = {
        "doctor": ["doctor", "--python", theano_python],
        "smoke": [
            "smoke",
            "--python",
            theano_python,
            "--iters",
            "5",
            "--steps",
            "5",
            "--report-dir",
            str(tmp_path / "reports"),
        ],
    }[command]
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", *args],
        env=env_bytes,  # type: ignore[arg-type]
        capture_output=True,
        timeout=600,
    )
    ran = Ran(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
        time.monotonic() - start,
    )
    ok = proc.returncode == 1 and no_traceback(ran) and "\\udcff" in ran.output + _reports(tmp_path)
    record(
        "argument edges",
        f"{command} --python: non-UTF-8 bytes in THEANO_FLAGS",
        ran=ran,
        state="printed escaped",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output[-2000:]


def _reports(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in (folder / "reports").glob("*") if p.is_file())


def test_a_theano_import_refusing_a_flag_is_a_finding(tmp_path, record, theano_python):
    env = env_with(tmp_path / "home", THEANO_FLAGS="floatX=float23")
    ran = gpuforge(["doctor", "--python", theano_python], tmp_path / "run", env=env, timeout=300)
    ok = ran.code == 1 and "[theano_flag_invalid]" in ran.out and no_traceback(ran)
    record(
        "argument edges",
        "doctor: THEANO_FLAGS=floatX=float23 (Theano's import fails)",
        ran=ran,
        state="named theano_flag_invalid" if ok else "not named",
        rerun="not needed",
        ok=ok,
    )
    assert ok, ran.output


def test_a_full_disk_while_making_an_environment_is_named(tmp_path, record):
    pyenv_or_skip("3.7")
    cache = tmp_path / "cache"
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuforge",
            "smoke",
            "--target",
            "cpu",
            "--report-dir",
            str(tmp_path / "reports"),
        ],
        cwd=tmp_path,
        env=env_with(tmp_path / "home", GPUFORGE_CACHE=str(cache)),
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (2_000_000, 2_000_000)),
    )
    ran = Ran(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
    report = json.loads((tmp_path / "reports" / "gpu_smoke.json").read_text())
    reason = report["targets"][0]["reason"]
    ok = proc.returncode == 1 and "the disk is full" in reason and "ensurepip failed" not in reason
    record(
        "argument edges",
        "smoke: a full disk while the environment is made",
        ran=ran,
        state="named: the disk is full" if ok else "misnamed",
        rerun="not needed",
        ok=ok and no_traceback(ran),
    )
    assert ok and no_traceback(ran), reason


# --- scaling: linear up to the input limits (the times themselves: `nox -s bench_limits`) ----


def at_the_limit(head: str, line: str) -> str:
    from gpuforge.fileio import MAX_INPUT_BYTES

    n = (MAX_INPUT_BYTES - len(head) - 4096) // len(line)
    return head + line * n


@LONG
def test_inputs_at_the_limit_end_in_minutes_not_hours(tmp_path, record, recipes_copy):
    home = tmp_path / "home"
    home.mkdir()
    rc = "[global]\ndevice = gpu\n[nvcc]\n" + "".join(f"flag{i} = -O2\n" for i in range(400_000))
    from gpuforge.fileio import MAX_INPUT_BYTES

    (home / ".theanorc").write_text(rc[: rc.rfind("\n", 0, MAX_INPUT_BYTES - 4096) + 1])
    meta = recipes_copy / "pygpu" / "meta.yaml"
    meta.write_text(at_the_limit(meta.read_text(), "# a note " + "x" * 60 + "\n"))
    log = tmp_path / "doctor.log"
    log.write_text(at_the_limit("", "ERROR (theano.gof.cmodule): [Errno 12] Cannot allocate memory\n"))
    cases = {
        "theanorc migrate at 4 MiB (32,000 keys took 104 s before)": ["theanorc", "migrate", "--yes"],
        "recipes lint at 4 MiB": [
            "recipes",
            "lint",
            "pygpu",
            "--recipes-dir",
            str(recipes_copy),
            "--conda-smithy",
            "skip",
        ],
        "doctor --log at 4 MiB": ["doctor", "--log", str(log)],
    }
    failed = []
    for case, args in cases.items():
        ran = gpuforge(args, tmp_path / "run", env=env_with(home), timeout=600)
        ok = ran.code in (0, 1) and ran.seconds < 300 and no_traceback(ran)
        record("scaling", case, ran=ran, state=f"done in {ran.seconds:.0f} s", rerun="not needed", ok=ok)
        if not ok:
            failed.append((case, ran.code, ran.seconds, ran.err[-300:]))
    assert not failed, failed

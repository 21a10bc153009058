"""The doctor's catalog and matching, on recorded real error texts, and its CLI contract.

Every log under tests/data/logs/ is a real error text, named by its source
(a seed, FAILURE_MODES.md, or an upstream issue); `# expect:` is the id the
doctor must name first. The live reproductions are in test_doctor_live.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, pyenv_or_skip, run_cli

from gpuforge.doctor.catalog import Condition, diagnose, diagnose_text, load_catalog
from gpuforge.doctor.fix import pin_in_env_file
from gpuforge.doctor.logs import CUT_NOTE, looks_cut
from gpuforge.doctor.normalize import WINDOWS_MESSAGES
from gpuforge.doctor.probe import run_probe
from gpuforge.doctor.report import doctor_log
from gpuforge.doctor.theanorc import comment_out, set_option
from gpuforge.errors import GpuforgeError

LOGS = ROOT / "tests" / "data" / "logs"


def read_case(path: Path) -> tuple[dict[str, str], str]:
    """A recorded log: its `# key: value` header and the text after it."""
    header, body = {}, []
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines and (m := re.match(r"# (source|expect|fix-mentions): (.*)$", lines[0])):
        header[m.group(1)] = m.group(2)
        lines.pop(0)
    body = "\n".join(lines)
    return header, body


CASES = sorted(LOGS.glob("*.txt"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_recorded_log_names_its_failure_first(path: Path) -> None:
    header, text = read_case(path)
    assert header.get("source"), f"{path.name}: a recorded text must name its source"
    findings = diagnose_text(text)
    assert findings, f"{path.name}: nothing found"
    assert findings[0].id == header["expect"], [f.id for f in findings]
    if "fix-mentions" in header:  # a seed's own error text gets the seed's fix
        assert header["fix-mentions"] in findings[0].entry.fix


def test_every_catalog_entry_has_a_test() -> None:
    """An entry is covered by a recorded log here or by a live reproduction (test_doctor_live,
    test_catalog_repro, test_windows_doctor), or by its source's own text (test_log_facts)."""
    from test_catalog_repro import REPRODUCED_HERE
    from test_doctor_live import REPRODUCED
    from test_log_facts import FROM_THE_PROGRAMS_SOURCE
    from test_paste_damage import PROVEN_ON_REPORTS
    from test_windows_doctor import REPRODUCED_ON_WINDOWS

    covered = (
        {read_case(p)[0]["expect"] for p in CASES}
        | set(REPRODUCED)
        | REPRODUCED_HERE
        | REPRODUCED_ON_WINDOWS
        | PROVEN_ON_REPORTS
        | FROM_THE_PROGRAMS_SOURCE
    )
    missing = sorted(e.id for e in load_catalog() if e.id not in covered)
    assert not missing, f"catalog entries without a test: {missing}"


def test_failure_modes_ids_are_all_in_the_catalog() -> None:
    modes = Path("/work/shared/FAILURE_MODES.md")
    if not modes.exists():
        pytest.skip("shared/FAILURE_MODES.md is not beside this checkout (/work/shared)")
    ids = set(re.findall(r"^\| (\w+) \|", modes.read_text(encoding="utf-8"), re.M)) - {"id"}
    assert ids <= {e.id for e in load_catalog()}, sorted(ids - {e.id for e in load_catalog()})


def test_the_wrapper_line_is_not_the_answer() -> None:
    """Seed 000: `Could not initialize pygpu` wraps the real error, which comes last."""
    _, text = read_case(LOGS / "seed000_pygpu_load_lib.txt")
    assert "Could not initialize pygpu, support disabled" in text
    assert [f.id for f in diagnose_text(text)] == ["pygpu_load_lib"]


def test_a_wrapper_entry_yields_to_the_specific_error() -> None:
    text = (
        "ERROR (theano.gpuarray): pygpu was configured but could not be imported or is too old "
        "(version 0.7 or higher required)\n"
    )
    _, abi = read_case(LOGS / "upstream_pygpu_numpy_abi_6099.txt")
    assert [f.id for f in diagnose_text(text)] == ["pygpu_import"]
    found = [f.id for f in diagnose_text(abi + "\n" + text)]
    assert found[0] == "pygpu_numpy_abi" and "pygpu_import" not in found, found


def test_the_last_error_comes_first() -> None:
    _, first = read_case(LOGS / "seed000_pygpu_load_lib.txt")
    _, second = read_case(LOGS / "seed000_cudnn_wrong_format.txt")
    assert [f.id for f in diagnose_text(first + "\n" + second)] == ["cudnn_wrong_format", "pygpu_load_lib"]


def test_healthy_output_matches_nothing() -> None:
    """What the healthy targets print on import and in the checks."""
    text = (
        "WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions.\n"
        "Mapped name None to device opencl0:0: pthread-skylake-avx512-AMD EPYC\n"
        "[GpuElemwise{exp,no_inplace}(<GpuArrayType<None>(float32, vector)>), "
        "HostFromGpu(gpuarray)(GpuElemwise{exp,no_inplace}.0)]\nUsed the gpu\n"
    )
    assert diagnose_text(text) == []


@pytest.mark.parametrize(
    "condition, facts, holds",
    [
        ("python.bits == 32", {"python": {"bits": 32}}, True),
        ("python.bits == 32", {"python": {"bits": 64}}, False),
        ("imports.numpy.version >= 1.24", {"imports": {"numpy": {"version": "1.24.2"}}}, True),
        ("imports.numpy.version >= 1.24", {"imports": {"numpy": {"version": "1.9.3"}}}, False),
        ("imports.numpy.version >= 1.24", {"imports": {"numpy": {}}}, False),
        ("not cuda.driver.loaded", {"cuda": {"driver": {"loaded": None}}}, True),
        (
            "config.settings.device.value ~ ^gpu\\d*$",
            {"config": {"settings": {"device": {"value": "gpu1"}}}},
            True,
        ),
        ("imports.pygpu.api_version.0 != 2", {"imports": {"pygpu": {"api_version": [1, 0]}}}, True),
    ],
)
def test_fact_conditions(condition: str, facts: dict, holds: bool) -> None:
    from gpuforge.doctor.catalog import CONDITION

    m = CONDITION.match(condition)
    c = Condition(condition, m["path"], bool(m["not"]), m["op"], (m["value"] or "").strip())
    assert c.holds(facts)[0] is holds


def test_fact_entries_fire_from_facts_alone() -> None:
    facts = {"python": {"bits": 32}, "derived": {}}
    assert "python_32bit" in [f.id for f in diagnose(facts=facts, platform="linux")]


def test_a_bad_catalog_is_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "catalog.yaml"
    bad.write_text(
        "- id: x\n  title: t\n  cause: c\n  fix: f\n  source: s\n  match:\n    facts: ['python.bits ==']\n",
        encoding="utf-8",
    )
    with pytest.raises(GpuforgeError, match="bad fact condition") as err:
        load_catalog(bad)
    assert err.value.line == 1


# --- CLI ----------------------------------------------------------------------------


def test_log_json_contract(tmp_path: Path) -> None:
    _, text = read_case(LOGS / "seed001_torch_C_shadow.txt")
    log = tmp_path / "log.txt"
    log.write_text(text, encoding="utf-8")
    proc = run_cli("doctor", "--log", str(log), "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["findings"]
    assert data["findings"][0]["id"] == "torch_C_shadow"
    assert set(data["findings"][0]) == {"id", "title", "cause", "fix", "evidence", "source"}


def test_log_from_stdin_and_nothing_found() -> None:
    import subprocess
    import sys

    from conftest import cli_env

    proc = subprocess.run(
        [sys.executable, "-m", "gpuforge", "doctor", "--log", "-"],
        input="all good\n",
        text=True,
        capture_output=True,
        env=cli_env(),
        cwd=ROOT,
    )
    assert proc.returncode == 0
    assert "no known failure found" in proc.stdout


def test_explain_prints_the_whole_entry() -> None:
    proc = run_cli("doctor", "--explain", "numpy_aliases")
    assert proc.returncode == 0
    for part in (
        "numpy_aliases:",
        "matches text (all of):",
        "matches facts (all of): imports.numpy.version >= 1.24",
        "fix: Pin numpy<1.24",
        "--fix applies:",
        "source: seen here",
    ):
        assert part in proc.stdout
    bad = run_cli("doctor", "--explain", "nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no catalog entry 'nope'" in bad.stderr


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        (b"\x00\x01binary", "not a text log"),
    ],
)
def test_bad_log_is_one_line(tmp_path: Path, content: bytes | None, message: str) -> None:
    log = tmp_path / "log.bin"
    if content is not None:
        log.write_bytes(content)
    proc = run_cli("doctor", "--log", str(log))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"gpuforge: error: {log}") and message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"python": ', "not a probe report"),
        ('{"no": 1}', "no `python` facts"),
        ("", "empty output"),
    ],
)
def test_bad_probe_report_is_one_line(tmp_path: Path, content: str, message: str) -> None:
    report = tmp_path / "probe.json"
    report.write_text(content, encoding="utf-8")
    proc = run_cli("doctor", "--facts", str(report))
    assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1


def test_facts_report_prints_the_time_it_took(tmp_path: Path) -> None:
    """The time printed is the run's own (it once printed seconds since the epoch's start)."""
    import re
    import time

    report = tmp_path / "probe.json"
    report.write_text(
        json.dumps({"python": {"version": "3.7.16", "bits": 64, "executable": "/x/python"}}), encoding="utf-8"
    )
    start = time.monotonic()
    proc = run_cli("doctor", "--facts", str(report))
    wall = time.monotonic() - start
    printed = re.search(r"\((\d+\.\d) s\)", proc.stdout)
    assert printed, proc.stdout
    assert float(printed.group(1)) <= wall


def test_an_interpreter_that_prints_no_report_is_one_line(tmp_path: Path) -> None:
    for python, message in (("/bin/false", "printed no report"), (str(tmp_path / "nope"), "no such")):
        proc = run_cli("doctor", "--python", python)
        assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1


# --- the probe under old interpreters ------------------------------------------------------


@pytest.mark.parametrize("minor", ["2.7", "3.6"])
def test_probe_runs_under_old_pythons(minor: str, tmp_path: Path) -> None:
    python = pyenv_or_skip(minor)
    facts = run_probe(python, timeout=60, cwd=tmp_path)
    assert facts["python"]["version"].startswith(minor) and facts["python"]["bits"] == 64
    assert "probe_error" not in json.dumps(facts)
    assert facts["imports"]["theano"]["found"] is None


def test_probe_reports_a_broken_theanorc_as_file_and_line(tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    rc.write_text("[global]\nfloatX = float32\nthis is not a key\n", encoding="utf-8")
    proc = run_cli("doctor", cwd=tmp_path, THEANORC=str(rc))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"gpuforge: error: {rc}:3: invalid Theano config file: "
        "neither [section], `key = value` nor a comment: 'this is not a key'"
    )


# --- safe fixes, on files -----------------------------------------------------------------


def test_theanorc_edits_keep_everything_else(tmp_path) -> None:
    rc = tmp_path / ".theanorc"
    text = "# mine\n[global] # my GPU box\ndevice = gpu\n\n[nvcc]\nfastmath = True\n  False\n"
    assert (
        set_option(text, rc, "device", "cuda") == "# mine\n[global] # my GPU box\ndevice = cuda\n\n"
        "[nvcc]\nfastmath = True\n  False\n"
    )
    assert set_option(text, rc, "floatX", "float32").splitlines()[2:4] == ["device = gpu", "floatX = float32"]
    assert set_option(text, rc, "blas.ldflags", "").endswith("[blas]\nldflags =\n")
    assert comment_out(text, rc, "nvcc.fastmath", "gone").splitlines()[-2:] == [
        "# fastmath = True    # gone",
        "# False",
    ]


@pytest.mark.parametrize(
    "name, text, expected",
    [
        (
            "requirements.txt",
            "Theano==1.0.5\nnumpy==1.24.4  # newest\nscipy\n",
            "Theano==1.0.5\nnumpy<1.24\nscipy\n",
        ),
        ("requirements.txt", "Theano==1.0.5\n", "Theano==1.0.5\nnumpy<1.24\n"),
        (
            "environment.yml",
            "name: t\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - numpy=1.24\n  - theano\n",
            "name: t\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - numpy<1.24\n  - theano\n",
        ),
        (
            "environment.yml",
            "dependencies:\n  - python=3.11\n  - pip:\n    - Theano==1.0.5\n",
            "dependencies:\n  - python=3.11\n  - numpy<1.24\n  - pip:\n    - Theano==1.0.5\n",
        ),
    ],
)
def test_pin_in_env_file(name: str, text: str, expected: str) -> None:
    assert pin_in_env_file(text, Path(name), "numpy", "<1.24") == expected


def test_a_broken_env_file_is_a_located_error(tmp_path: Path) -> None:
    env = tmp_path / "environment.yml"
    env.write_text("dependencies:\n  - numpy=1.24\n - bad\n", encoding="utf-8")
    log = tmp_path / "log.txt"
    log.write_text("AttributeError: module 'numpy' has no attribute 'bool'.\n", encoding="utf-8")
    proc = run_cli(
        "doctor", "--log", str(log), "--fix", "--env-file", str(env), THEANORC=str(tmp_path / "rc")
    )
    assert proc.returncode == 2 and proc.stderr.startswith(f"gpuforge: error: {env}:")
    assert env.read_text(encoding="utf-8").endswith(" - bad\n")
    assert not (tmp_path / "environment.yml.bak").exists()


def test_fix_from_a_pasted_log_writes_theanorc_with_a_backup(tmp_path: Path) -> None:
    rc = tmp_path / "theanorc"
    rc.write_text("[global]\ndevice = gpu0\nfloatX = float32\n", encoding="utf-8")
    log = tmp_path / "log.txt"
    log.write_text(
        "ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n",
        encoding="utf-8",
    )
    proc = run_cli("doctor", "--log", str(log), "--fix", THEANORC=str(rc), THEANO_FLAGS="")
    assert proc.returncode == 1, proc.stderr
    assert f"+++ {rc} (after: old_device_flag)" in proc.stdout and "+device = cuda0" in proc.stdout
    assert rc.read_text(encoding="utf-8") == "[global]\ndevice = cuda0\nfloatX = float32\n"
    assert (tmp_path / "theanorc.bak").read_text(encoding="utf-8").startswith("[global]\ndevice = gpu0")


def test_fix_never_writes_over_theano_flags(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("ValueError: You are tring to use the old GPU back-end.\n", encoding="utf-8")
    proc = run_cli(
        "doctor",
        "--log",
        str(log),
        "--fix",
        THEANORC=str(tmp_path / "rc"),
        THEANO_FLAGS="floatX=float32,device=gpu",
    )
    assert 'set THEANO_FLAGS="floatX=float32,device=cuda"' in proc.stdout
    assert not (tmp_path / "rc").exists()


def test_catalog_text_is_not_cut_by_yaml_comments() -> None:
    """A bare ` #123` in YAML starts a comment: sources must keep their issue numbers."""
    for e in load_catalog():
        assert not re.search(r"\b(Theano|libgpuarray|mxnet|pymc|numpy)$", e.source), (e.id, e.source)


@pytest.mark.parametrize(
    "encoding, bom",
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""), ("utf-8", b"\xef\xbb\xbf")],
)
def test_logs_saved_by_windows_tools_are_text(tmp_path: Path, encoding: str, bom: bytes) -> None:
    """PowerShell's `>` writes UTF-16 LE with a BOM; other tools UTF-16 without one or UTF-8 with a BOM."""
    _, text = read_case(LOGS / "fm_mx_winerror126.txt")
    log = tmp_path / "log.txt"
    log.write_bytes(bom + text.replace("\n", "\r\n").encode(encoding))
    proc = run_cli("doctor", "--log", str(log), "--json")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["findings"][0]["id"] == "mx_winerror126"


def test_localized_windows_messages_match_by_number_and_shape() -> None:
    """The error number and the exception's shape do not change with the language."""
    from gpuforge.doctor.normalize import normalize

    assert (
        normalize('OSError: [WinError 126] 找不到指定的模块。 Error loading "x.dll"')
        == 'OSError: [WinError 126] The specified module could not be found. Error loading "x.dll"'
    )
    assert (
        normalize("WindowsError: [Error 193] %1 n'est pas une application Win32 valide.")
        == "OSError: [WinError 193] %1 is not a valid Win32 application."
    )
    german = "ImportError: DLL load failed while importing _C: Die angegebene Prozedur wurde nicht gefunden."
    assert normalize(german) == (
        "ImportError: DLL load failed: The specified procedure could not be found. (importing _C)"
    )
    py3 = "ModuleNotFoundError: No module named 'torch._C'"
    assert normalize(py3) == "ImportError: No module named 'torch._C'"
    # GCC in French (glibc's strerror and GCC's own words), Python 3.8's ctypes form of error 126
    french = "cudnn.h:63:26: erreur fatale: driver_types.h : Aucun fichier ou dossier de ce type"
    assert normalize(french) == "cudnn.h:63:26: fatal error: driver_types.h: No such file or directory"
    # g++ 12 in Chinese and Russian (gcc-12-locales 12.2.0's gcc-12.mo; recorded here from g++ under
    # LANGUAGE, which test_catalog_repro reproduces where that package is installed)
    chinese_gxx = "m.cpp:1:25: 错误：‘cudnnSetFilterNdDescriptor_v4’在此作用域中尚未声明"
    russian_gxx = (
        "m.cpp:1:25: ошибка: нет декларации «cudnnSetFilterNdDescriptor_v4» в этой области видимости"
    )
    english_gxx = "m.cpp:1:25: error: 'cudnnSetFilterNdDescriptor_v4' was not declared in this scope"
    assert normalize(chinese_gxx) == english_gxx
    assert normalize(russian_gxx) == english_gxx
    # GNU ld before binutils 2.40 in Chinese (zh_CN ld.mo's msgid "%X%C: undefined reference to
    # `%T'"; 2.40 no longer prints that msgid, so it cannot be reproduced here)
    chinese_ld = "mod.cpp:(.text+0x5)：对‘__imp_PyExc_TypeError’未定义的引用"
    assert normalize(chinese_ld) == "mod.cpp:(.text+0x5): undefined reference to '__imp_PyExc_TypeError'"
    ctypes_38 = "FileNotFoundError: Could not find module 'C:\\t\\c10.dll' (or one of its dependencies)"
    assert normalize(ctypes_38) == (
        "FileNotFoundError: [WinError 126] The specified module could not be "
        'found. Error loading "C:\\t\\c10.dll" or one of its dependencies'
    )


def test_a_cause_is_named_before_its_consequence() -> None:
    """`explains`: the bootstrapping RuntimeError comes before the BrokenPipeError it causes."""
    _, spawn = read_case(LOGS / "seed001_mp_spawn.txt")
    _, pipe = read_case(LOGS / "seed001_broken_pipe.txt")
    assert [f.id for f in diagnose_text(spawn + "\n" + pipe)][:2] == ["mp_spawn", "broken_pipe"]
    assert [f.id for f in diagnose_text(pipe + "\n" + spawn)][:2] == ["mp_spawn", "broken_pipe"]


def test_a_spawned_childs_frames_are_the_page_files_context() -> None:
    """A spawned child re-importing the main module (spawn.py's prepare, _fixup_main_from_path)
    where Windows' commit limit runs out: error 1455 is the cause, the frames its context."""
    frames = (
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        '  File "C:\\py\\lib\\multiprocessing\\spawn.py", line 236, in prepare\n'
        "    _fixup_main_from_path(data['init_main_from_path'])\n"
        '  File "C:\\py\\lib\\multiprocessing\\spawn.py", line 287, in _fixup_main_from_path\n'
    )
    error = "OSError: [WinError 1455] The paging file is too small for this operation to complete\n"
    assert [f.id for f in diagnose_text(frames)] == ["mp_spawn"]
    assert [f.id for f in diagnose_text(error + frames)][:1] == ["file_mapping_1455"]
    assert [f.id for f in diagnose_text(frames + error)][:1] == ["file_mapping_1455"]


def test_an_undecided_dll_failure_lists_its_candidates() -> None:
    _, text = read_case(LOGS / "upstream_torch_procedure_574.txt")
    first = diagnose_text(text)[0]
    assert first.undecided and "python_too_old_for_wheel" in first.as_json()["candidates"]


def test_a_cut_paste_is_said_to_be_cut() -> None:
    _, whole = read_case(LOGS / "upstream_pygpu_import_6429.txt")
    assert "Traceback (most recent call last)" in whole
    assert doctor_log(whole).notes == ()
    cut = whole[: whole.rindex('  File "')] + '  File "/usr/lib/python3/dist-packages/pygpu/x.py", line 7\n'
    assert doctor_log(cut).notes == (CUT_NOTE,)
    stdin = (
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "ImportError: No module named x\n"
    )
    assert doctor_log(stdin).notes == ()


def test_a_paste_cut_where_torch_loads_its_dlls_lists_the_candidates() -> None:
    """pytorch #28363's frame as Python prints it, the paste cut before the exception line."""
    text = (
        'Traceback (most recent call last):\n  File "C:\\Users\\me\\.conda\\envs\\py3\\lib\\site-packages'
        '\\torch\\__init__.py", line 81, in <module>\n    from torch._C import *\n'
    )
    first = diagnose_text(text)[0]
    assert looks_cut(text) and first.id == "dll_load_failed" and first.undecided


def test_only_the_placeholders_mean_no_wheel_for_this_python() -> None:
    """pip listing real torch versions besides 0.1.2 is another failure (yuzhimanhua/Multi-BioNER #21)."""
    real = (
        "ERROR: Could not find a version that satisfies the requirement torch==0.3.1 (from versions: "
        "0.1.2, 0.1.2.post1, 0.1.2.post2, 1.7.0, 1.7.1, 1.8.0, 1.8.1, 1.9.0, 1.9.1, 1.10.0)"
    )
    assert diagnose_text(real) == []
    _, placeholders = read_case(LOGS / "upstream_win32_placeholders_alphapose_543.txt")
    assert diagnose_text(placeholders)[0].id == "win32"


def test_a_known_64_bit_dll_refused_as_win32_means_a_32_bit_python() -> None:
    """libgpuarray's loader message (src/loaders/dyn_load.c: `Could not load "%s": %s`) filled with
    Windows' error 193 text (normalize.WINDOWS_MESSAGES), for a CUDA DLL whose name says x64."""
    message = 'Could not load "{}": ' + WINDOWS_MESSAGES[193]
    assert diagnose_text(message.format("cublas64_80.dll"))[0].id == "python_32bit"
    assert diagnose_text(message.format("libgpuarray.dll"))[0].id == "mx_bitness"  # no bitness in the name


def test_the_parsed_catalog_shipped_beside_it_is_current() -> None:
    """catalog.parsed.json is catalog.yaml parsed (what `doctor --log` reads instead of parsing
    the YAML at every start): regenerate it with `python -m gpuforge.doctor.catalog`."""
    from gpuforge.doctor.catalog import CATALOG_PATH, parsed_path, parsed_text

    assert parsed_path(CATALOG_PATH).read_text(encoding="utf-8") == parsed_text(CATALOG_PATH), (
        "run `python -m gpuforge.doctor.catalog`"
    )

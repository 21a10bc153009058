"""gpu_smoke for real: the local targets, their reports, and real broken setups."""

from __future__ import annotations

import dataclasses
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from gpuforge.smoke.run import Settings, failure_text, name_failure, run_checks, run_target
from gpuforge.smoke.targets import LOCAL_TARGETS, NEEDS, ensure_env, missing_needs

TARGETS = {t.name: t for t in LOCAL_TARGETS}


def _need(name):
    missing = missing_needs(TARGETS[name])
    if missing:
        pytest.skip(f"target {name} cannot run here: {'; '.join(missing)}")
    return TARGETS[name]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """One real `gpuforge smoke` over the local targets (cpu, opencl, torch, cuda)."""
    report_dir = tmp_path_factory.mktemp("reports")
    proc = run_cli(
        "smoke",
        "--target",
        "cpu",
        "--target",
        "opencl",
        "--target",
        "torch",
        "--target",
        "cuda",
        "--report-dir",
        str(report_dir),
        timeout=1200,
    )
    report = json.loads((report_dir / "gpu_smoke.json").read_text())
    return proc, report, report_dir


def _target(report, name):
    return next(t for t in report["targets"] if t["name"] == name)


def _check(target, name):
    return next(c for c in target["checks"] if c["check"] == name)


def test_local_targets_pass_and_the_report_matches_the_table(smoke_run):
    proc, report, _ = smoke_run
    statuses = {t["name"]: t["status"] for t in report["targets"]}
    for name, status in statuses.items():
        missing = missing_needs(TARGETS[name])
        assert status == ("skip" if missing else "pass"), (name, _target(report, name)["reason"])
        row = next(ln for ln in proc.stdout.splitlines() if ln.startswith(f"│ {name} "))
        assert f"│ {status} " in row  # the table shows what the JSON says
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_targets_run_concurrently_and_report_in_declared_order(smoke_run):
    """With two cores, a second target starts before the first ends; the report keeps the order asked."""
    from gpuforge.smoke.run import default_jobs

    proc, report, _ = smoke_run
    assert [t["name"] for t in report["targets"]] == ["cpu", "opencl", "torch", "cuda"]
    if default_jobs() < 2 or missing_needs(TARGETS["cpu"]) or missing_needs(TARGETS["opencl"]):
        pytest.skip("needs two cores and the cpu and opencl targets")
    lines = [ln.split("s ", 1)[-1].strip() for ln in proc.stderr.splitlines()]
    first_done = next(i for i, ln in enumerate(lines) if ln.endswith(" s)"))
    assert len([ln for ln in lines[:first_done] if ln.endswith("] environment")]) >= 2, proc.stderr


def test_cpu_target_runs_exp_and_trains_on_the_cpu(smoke_run):
    _need("cpu")
    cpu = _target(smoke_run[1], "cpu")
    exp = _check(cpu, "exp")
    assert exp["used"] == "cpu" and exp["matches_numpy"] and exp["python"].startswith("3.7.")
    assert exp["graph"] == ["Elemwise{exp,no_inplace}(<TensorType(float32, vector)>)"]
    logreg = _check(cpu, "logreg")
    assert logreg["gemv_on"] == "cpu" and logreg["accuracy"] >= 0.9
    assert logreg["last_loss"] < logreg["first_loss"]
    assert _check(cpu, "pygpu")["reason"] == "pygpu not installed"
    # real mxnet 1.9.1 (CPU wheel): mx.gpu() is refused, which is a skip where no GPU is wanted
    mxnet = _check(cpu, "mxnet")
    assert mxnet["status"] == "skip"
    assert mxnet["reason"] == "no GPU for mxnet here: MXNetError: Operator _ones is not implemented for GPU."


def test_mxnet_cpu_build_on_a_cuda_target_is_named_with_its_fix():
    """Real: the cpu target's mxnet (a CPU build) where CUDA is required."""
    tenv = ensure_env(_need("cpu"), say=lambda _: None)
    result = run_checks(str(tenv.python), tenv.env(), ("mxnet",), ["--require-cuda"], cwd=tenv.root)[0]
    assert result["status"] == "fail"
    assert [f["id"] for f in name_failure(failure_text(result))][:1] == ["mx_cpu_build"]


def test_opencl_target_runs_on_the_opencl_device(smoke_run):
    _need("opencl")
    ocl = _target(smoke_run[1], "opencl")
    exp = _check(ocl, "exp")
    assert exp["used"] == "gpu" and exp["context_kind"] == "opencl" and exp["devname"]
    assert exp["ops"] == ["GpuElemwise", "HostFromGpu"]
    # the seeds' own check is fooled: GpuElemwise subclasses Elemwise (old_check_script)
    assert exp["seed_check_says"] == "Used the cpu"
    transfer = _check(ocl, "transfer")
    assert transfer["output_type"] == "GpuArray" and transfer["matches"]
    assert _check(ocl, "logreg")["gemv_on"] == "cpu"  # local_gpua_gemv excluded
    assert _check(ocl, "pygpu")["status"] == "pass"
    assert _check(ocl, "cudnn")["status"] == "skip"
    named = {t["name"]: t for t in ocl["import_tests"]}
    assert named["pygpu init without a driver"]["status"] == "pass"
    assert 'Could not load "libcuda.so"' in named["pygpu init without a driver"]["error"]


def test_import_tests_find_the_torch_shadows(smoke_run):
    ran = [t for t in smoke_run[1]["targets"] if t["status"] != "skip"]
    if not ran:
        pytest.skip("no local target can run here (see test_local_targets_pass...)")
    for target in ran:
        tests = {t["name"]: t for t in target["import_tests"]}
        tree = tests["torch/ source tree shadows torch"]
        assert tree["status"] == "pass" and tree["named"] == ["torch_C_shadow"]
        assert "No module named 'torch._C'" in tree["error"]
        assert tests["torch.py shadows torch"]["module_file"].endswith("/torch.py")


def test_torch_check_with_real_torch(smoke_run):
    _need("torch")
    torch = _check(_target(smoke_run[1], "torch"), "torch")
    assert torch["status"] == "pass" and torch["torch"].startswith("2.13.0")
    assert torch["cuda_available"] is False and "site-packages" in torch["torch_file"]


def test_cuda_target_skips_with_what_is_missing(smoke_run):
    cuda = _target(smoke_run[1], "cuda")
    if not missing_needs(TARGETS["cuda"]):
        pytest.skip("an NVIDIA driver is present: the cuda target runs here")
    assert cuda["status"] == "skip" and "no NVIDIA driver" in cuda["reason"]


def test_junit_xml_mirrors_the_json(smoke_run):
    _, report, report_dir = smoke_run
    root = ET.parse(report_dir / "gpu_smoke.junit.xml").getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {t["name"] for t in report["targets"]}
    for target in report["targets"]:
        failures = int(suites[target["name"]].get("failures"))
        assert (failures > 0) == (target["status"] == "fail")


def test_conda_targets_skip_without_conda(tmp_path, monkeypatch):
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "gpu-linux64.yml").write_text("name: x\ndependencies:\n  - python=3.6\n")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no conda, mamba or micromamba here
    proc = run_cli(
        "smoke",
        "--envs-dir",
        str(envs),
        "--target",
        "env:gpu-linux64",
        "--report-dir",
        str(tmp_path / "r"),
        PATH="/usr/bin:/bin",
    )
    report = json.loads((tmp_path / "r" / "gpu_smoke.json").read_text())
    target = _target(report, "env:gpu-linux64")
    assert target["status"] == "skip" and "no conda, mamba or micromamba" in target["reason"]
    assert proc.returncode == 0


def test_opencl_gemv_without_the_fix_is_named_with_its_fix():
    """Real: GpuGemv through CLBlast on pocl leaks NaN unless local_gpua_gemv is excluded."""
    target = _need("opencl")
    clblast = any(Path(d).glob("libclblast.so") for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib"))
    broken = dataclasses.replace(target, theano_flags=("blas.ldflags=",))
    result = run_target(broken, Settings(steps=300), say=lambda _: None)
    logreg = next(c for c in result.checks if c["check"] == "logreg")
    assert logreg["status"] == "fail" and logreg["gemv_on"] == "gpu"
    ids = [f["id"] for f in logreg["findings"]]
    # with CLBlast (ci/apt-packages.txt) the NaN leak; without it, no BLAS at all
    assert ids[:1] == (["opencl_gemv_beta0"] if clblast else ["opencl_blas_missing"]), logreg["reason"]
    assert "optimizer_excluding=local_gpua_gemv" in logreg["findings"][0]["fix"]
    assert result.status == "fail"


def test_cuda_device_without_a_driver_fails_named_with_its_fix():
    """Real: device=cuda in the opencl environment, on a machine with no NVIDIA driver."""
    target = _need("opencl")
    if NEEDS["nvidia-driver"][0]():
        pytest.skip("an NVIDIA driver is present: device=cuda would work here")
    tenv = ensure_env(target, say=lambda _: None)
    env = tenv.env()
    env["THEANO_FLAGS"] = env["THEANO_FLAGS"].replace("device=opencl0:0", "device=cuda")
    exp = run_checks(str(tenv.python), env, ("exp",), [], cwd=tenv.root)[0]
    assert exp["status"] == "fail" and exp["used"] == "cpu"
    assert exp["reason"] == "device=cuda was requested but exp() ran on the CPU"
    assert any("Could not initialize pygpu" in ln for ln in exp["stderr_tail"])
    assert [f["id"] for f in name_failure(failure_text(exp))][:1] == ["pygpu_load_lib"]


def test_env_file_for_a_local_channel_takes_gpuforge_packages_from_it(tmp_path):
    from rattler import MatchSpec
    from ruamel.yaml import YAML

    from gpuforge.envs.variant import write_variant

    channel = tmp_path / "channel"
    channel.mkdir()
    out = write_variant(ROOT / "envs" / "gpu-win64.yml", channel, tmp_path / "env.yml")
    data = YAML(typ="safe").load(out.read_text())
    assert data["channels"][0] == channel.as_uri() and "defaults" in data["channels"]
    deps = [d for d in data["dependencies"] if isinstance(d, str)]
    assert f"{channel.as_uri()}::theano=1.0.5" in deps
    assert not any(d.startswith("gpuforge::") for d in deps)
    assert "cudatoolkit=11.8.0" in deps
    for dep in deps:
        MatchSpec(dep)  # still valid conda specs


def test_an_environment_that_cannot_be_made_is_a_failed_target(tmp_path):
    """Real pip, a pin that does not exist: the target fails with pip's words, nothing raises."""
    target = dataclasses.replace(_need("cpu"), name="cpu-broken", pip=("numpy==0.0.1",))
    result = run_target(target, Settings(cache_dir=tmp_path), say=lambda _: None)
    assert result.status == "fail"
    assert result.reason.startswith("the environment could not be made: `")
    assert "numpy==0.0.1" in result.reason
    assert not list(tmp_path.glob("targets/*/.gpuforge-ready"))


def test_a_32bit_interpreter_is_refused_with_its_failure_mode(tmp_path):
    """Real: Debian's i386 CPython, unpacked by ci/python32.sh (.ci/run prepares it)."""
    from gpuforge import locations

    python32 = locations.cache_dir() / "python32" / "python3"
    if not python32.exists():
        pytest.skip(f"no 32-bit CPython at {python32}: run `bash ci/python32.sh` (Debian i386 packages)")
    proc = run_cli("smoke", "--python", str(python32), "--report-dir", str(tmp_path))
    assert proc.returncode == 1
    target = json.loads((tmp_path / "gpu_smoke.json").read_text())["targets"][0]
    assert target["status"] == "fail" and target["checks"] == []
    assert "is a 32-bit Python 3.11" in target["reason"] and "(pointer size 4)" in target["reason"]
    assert [f["id"] for f in target["findings"]] == ["python_32bit"]


THEANO_CHECKS = ("exp", "transfer", "logreg", "cudnn")


def test_theano_checks_skip_where_theano_is_not_installed(tmp_path):
    """issue 13 item 5: env:pytorch04-win64 has numpy and no Theano; the Theano checks said
    `fail: ModuleNotFoundError` there. Debian's python3 is such an interpreter (numpy from
    python3-numpy, no Theano): each Theano check is a skip that says why."""
    python = "/usr/bin/python3"
    probe = run_checks(python, None, ("shadow",), ["--module", "theano"], cwd=tmp_path)[0]
    if not Path(python).exists() or probe.get("module_file"):
        pytest.skip(f"needs {python} without Theano (Debian's python3; ci/apt-packages.txt)")
    results = run_checks(python, None, THEANO_CHECKS, ["--device", "cpu"], cwd=tmp_path)
    assert [(r["check"], r["status"], r.get("reason")) for r in results] == [
        (name, "skip", "Theano not installed") for name in THEANO_CHECKS
    ]


def test_a_check_that_hangs_fails_alone_and_the_checks_after_it_still_run(tmp_path):
    """On an H200 the topk check's kernel never ended and took every check after it down with
    it (docs/silicon.md). Here the real checks script hangs in the shadow check (it imports
    `hangs` from the working folder, a module that sleeps): that check alone fails, named as
    stopped at the time limit, and the check after it runs in a new process and reports."""
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(300)\n")
    python = sys.executable
    results = run_checks(
        python, None, ("driver", "shadow", "compiler"), ["--module", "hangs"], cwd=tmp_path, timeout=10
    )
    assert [r["check"] for r in results] == ["driver", "shadow", "compiler"]
    shadow = results[1]
    assert shadow["status"] == "fail" and shadow["reason"].startswith("hung: ")
    assert "did not finish in 10 s" in shadow["reason"]
    assert shadow["reason"].endswith("(in the shadow check; the checks after it ran in a new process)")
    for ran in (results[0], results[2]):
        assert not ran.get("reason", "").startswith("hung"), ran
        assert "python" in ran, ran  # printed by the checks script itself, not made up here


def test_checks_stop_after_two_hangs(tmp_path):
    """Two check processes hung is the machine, not one check: the checks after the second fail
    as not run, rather than each waiting out its own time limit (the real checks script, made to
    hang in its shadow check as above)."""
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(300)\n")
    checks = ("shadow", "shadow", "shadow", "driver")
    results = run_checks(sys.executable, None, checks, ["--module", "hangs"], cwd=tmp_path, timeout=5)
    assert [r["check"] for r in results] == list(checks)
    assert [r["reason"].startswith("hung: ") for r in results] == [True, True, False, False]
    assert results[1]["reason"].endswith("(in the shadow check)")
    assert all(r["reason"].startswith("not run: 2 check processes hung") for r in results[2:])

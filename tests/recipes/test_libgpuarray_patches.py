"""recipes/libgpuarray/patches: pinned by sha256, listed alike by meta.yaml and the v1 recipe,
applied in order to the real 0.7.6 source, and the result built for Linux (cmake, gcc) and
for Windows (cmake, mingw-w64) and loaded under Wine."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import RECIPES, ROOT

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.patches import PATCH_SUMS, apply_patches, patch_sums
from gpuforge import locations
from gpuforge.downloads import sha256_of, unpack
from gpuforge.interpreters import WINE, WINE_INSTALL
from gpuforge.yamlio import read_yaml

PATCHES = RECIPES / "libgpuarray" / "patches"
SOURCE = os.environ.get("GPUFORGE_LIBGPUARRAY_SOURCE")
NEEDS_SOURCE = ("needs libgpuarray 0.7.6's source, which this machine cannot download: set "
                "GPUFORGE_LIBGPUARRAY_SOURCE to the release tarball or a `git archive "
                "--format=tar --prefix=libgpuarray-0.7.6/ v0.7.6 | gzip -n` of the tag")


def test_every_patch_is_pinned_and_both_recipes_apply_them_in_that_order():
    sums = patch_sums(PATCHES)
    assert sorted(sums) == sorted(p.name for p in PATCHES.glob("*.patch")) == list(sums)
    assert all(sha256_of(PATCHES / name) == digest for name, digest in sums.items())
    meta = (RECIPES / "libgpuarray" / "meta.yaml").read_text()
    listed = [ln.split("#")[0].strip()[2:] for ln in meta.splitlines() if "- patches/" in ln]
    assert listed == [f"patches/{name}" for name in sums]
    v1 = read_yaml(RECIPES / "v1" / "libgpuarray" / "recipe.yaml")
    assert v1["source"]["patches"] == [f"../../libgpuarray/patches/{name}" for name in sums]


def test_a_patch_that_is_not_the_pinned_one_is_refused(tmp_path):
    recipe = tmp_path / "libgpuarray"
    shutil.copytree(RECIPES / "libgpuarray", recipe)
    patch = recipe / "patches" / "0002-arch-clamp-to-nvrtc.patch"
    patch.write_text(patch.read_text().replace("#define ARCH_CAP 90", "#define ARCH_CAP 120"))
    tree = tmp_path / "src"
    tree.mkdir()
    with pytest.raises(GpuforgeError) as info:
        apply_patches(tree, recipe, ["patches/0002-arch-clamp-to-nvrtc.patch"], say=lambda _: None)
    assert info.value.path == patch and f"is not the one {PATCH_SUMS} pins" in info.value.message


def test_a_bad_sums_line_is_one_located_error(tmp_path):
    (tmp_path / PATCH_SUMS).write_text("abc  0001.patch\n")
    with pytest.raises(GpuforgeError) as info:
        patch_sums(tmp_path)
    assert (info.value.path, info.value.line) == (tmp_path / PATCH_SUMS, 1)


@pytest.fixture(scope="module")
def patched(tmp_path_factory) -> Path:
    if not SOURCE:
        pytest.skip(NEEDS_SOURCE)
    tree = unpack(Path(SOURCE), tmp_path_factory.mktemp("src") / "libgpuarray-0.7.6")
    said = []
    apply_patches(tree, RECIPES / "libgpuarray", [f"patches/{n}" for n in patch_sums(PATCHES)], say=said.append)
    assert len(said) == 5
    return tree


@pytest.mark.slow
def test_patched_source_says_what_it_fixes(patched):
    cuda = (patched / "src" / "gpuarray_buffer_cuda.c").read_text()
    assert 'snprintf(ret, ARCH_ID_SIZE, "%s%d", prefix, arch)' in cuda  # was strlen(prefix) + 3
    assert "nvrtcGetSupportedArchs(archs)" in cuda and 'getenv("GPUARRAY_CUDA_ARCH")' in cuda
    assert '"nvrtc64_%d%d_0.dll"' in (patched / "src" / "loaders" / "libnvrtc.c").read_text()


@pytest.mark.slow
def test_patched_source_builds_with_mingw_and_loads_under_wine(patched, tmp_path):
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if not mingw or not shutil.which("cmake"):
        pytest.skip("needs cmake and mingw-w64 (ci/apt-packages.txt)")
    if not WINE.is_file():
        pytest.skip(f"needs Wine: {WINE_INSTALL}")
    tree = tmp_path / "src"
    shutil.copytree(patched, tree)
    # mingw-w64's headers are lower case; 0.7.6 includes <Windows.h> (MSVC's file system ignores case)
    case = tmp_path / "case"
    case.mkdir()
    (case / "Windows.h").write_text("#include <windows.h>\n")
    build = tmp_path / "build"
    env = dict(os.environ, CMAKE_POLICY_VERSION_MINIMUM="3.5")
    subprocess.run(["cmake", "-S", str(tree), "-B", str(build), "-DCMAKE_SYSTEM_NAME=Windows",
                    f"-DCMAKE_C_COMPILER={mingw}", f"-DCMAKE_C_FLAGS=-I{case}", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True, env=env)
    proc = subprocess.run(["cmake", "--build", str(build), "--target", "gpuarray", "--", "-j2"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    dll = tree / "lib" / "libgpuarray.dll"
    subprocess.run([mingw, "-O2", "-o", str(dll.parent / "gpuarray_init.exe"),
                    str(ROOT / "tests" / "data" / "shims" / "gpuarray_init.c")], check=True)
    wineprefix = locations.cache_dir() / "wine" / "prefix"
    wineprefix.parent.mkdir(parents=True, exist_ok=True)
    out = subprocess.run([str(WINE), "gpuarray_init.exe", "libgpuarray.dll"], cwd=dll.parent,
                         env=dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(wineprefix)),
                         capture_output=True, text=True, timeout=300).stdout
    # the DLL runs its CUDA path; no driver under Wine: it names the one it looked for
    assert out.strip() == 'gpucontext_init=18: Could not load "nvcuda.dll": Module not found.', out

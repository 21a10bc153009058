"""Catalog entries proven on failures made here for real: the real compiler, loader or conda
prints the error, and the doctor must name it first.

What cannot fail here (a Windows DLL, Anaconda's terms plugin) is a recorded text in
tests/data/logs instead (test_doctor.py).
"""

from __future__ import annotations

import ast
import ctypes
import json
import os
import platform
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import conda_create_dry_run, pyenv_or_skip

from gpuforge.doctor.catalog import diagnose_text
from gpuforge.doctor.log_facts import diagnose_log

REPRODUCED_HERE = {
    "c_compiler_missing",
    "conda_solver_plugin_broken",
    "pixi_cuda_not_in_system_requirements",
    "build_isolation_no_torch",
    "torch_not_installed_before_build",
    "nccl_not_in_build",
    "torch_cudnn_other_runtime",
    "mkl_cannot_load_its_libraries",
    "conda_env_create_with_specs",
    "cpu_lacks_instructions",
    "env_file_exported_builds",
    "libstdcxx_too_old",
    "theano_recursion_limit",
    "theano_gpu_pickle_on_cpu",
    "torch_extension_no_cuda_home",
    "theano080_mac_native_flags",
    "torch_extension_other_torch",
    "torch_extension_removed_api",
    "torch_extension_ninja_missing",
    "conda_shell_not_initialized",
    "conda_not_writable",
    "system_graphics_library_missing",
    "libgpuarray_not_on_loader_path",
    "mkl_2024_ijit",
    "theano_before_python310",
    "theano_old_backend_removed",
    "gpu_out_of_memory",
    "gpu_index_missing",
    "python_ssl_unavailable",
    "lasagne_too_old",
    "theano_too_old",
    "theano_downsample_removed",
    "nvcc_arch_unsupported",
    "old_gpu",
    "driver_below_env_floor",
    "theano_flag_invalid",
    "program_hangs",
    "mingw_32bit",
    "mingw_hypot",
    "path_spaces_nonascii",
    "runtime_dll_beside_wheel",
    "glibc_too_old",
    "libgpuarray_source_checkout",
    "channel_missing",
    "windows_path_too_long",
    "gpu_preallocate_oom",
    "module_shadow",
    "torch_C_shadow",
    "mx_cudart",
    "libpython_missing",
    "driver_types_h",
    "cuda_ipc",
    "conda_network_unreachable",
    "conda_connection_failed",
    "package_not_installed",
    "module_not_found",
    "theano_compile_unicode",
    "float64_gpu",
    "blas_opt_info",
    "compile_lock",
    "binary_for_other_cpu",
    "disk_full",
    "torch_libraries_not_on_loader_path",
}


def first_id(text: str) -> str | None:
    found = diagnose_text(text)
    return found[0].id if found else None


def tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"needs {name}: `apt-get install {package}` (Debian)")
    return path


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, **kw: object) -> str:
    """What ``cmd`` prints in ``cwd``, in the C locale, with ``env`` over this environment."""
    env = dict(os.environ, LC_ALL="C.UTF-8", **(env or {}))
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, **kw)
    return proc.stdout + proc.stderr


def built_library(gcc: str, cwd: Path, out: str, source: str, *link: str) -> Path:
    """A shared library gcc builds in ``cwd`` from ``source`` (C), linked with ``link``."""
    (cwd / f"{Path(out).name}.c").write_text(source, encoding="utf-8")
    said = run([gcc, "-shared", "-fPIC", f"{Path(out).name}.c", "-o", out, *link], cwd)
    assert (cwd / out).exists(), said
    return cwd / out


def built_extension(gcc: str, cwd: Path, module: str, *link: str) -> Path:
    """An empty Python extension module ``module`` for this interpreter, linked with ``link`` as
    a package's compiled ops are linked against torch's libraries."""
    import sysconfig

    source = (
        "#include <Python.h>\n"
        f'static struct PyModuleDef m = {{PyModuleDef_HEAD_INIT, "{module}", NULL, -1, NULL}};\n'
        f"PyMODINIT_FUNC PyInit_{module}(void) {{ return PyModule_Create(&m); }}\n"
    )
    include = f"-I{sysconfig.get_paths()['include']}"
    return built_library(gcc, cwd, module + sysconfig.get_config_var("EXT_SUFFIX"), source, include, *link)


def test_mingw_32bit_compiler_for_64bit_python(tmp_path: Path) -> None:
    """A 32-bit MinGW asked for -m64 (what Theano passes for a 64-bit Python)."""
    gcc = tool("i686-w64-mingw32-gcc", "gcc-mingw-w64-i686-win32")
    (tmp_path / "mod.c").write_text("int main(void) { return 0; }\n", encoding="utf-8")
    out = run([gcc, "-m64", "-DMS_WIN64", "-c", "mod.c"], tmp_path)
    assert "64-bit mode not compiled in" in out, out
    assert first_id(out) == "mingw_32bit"


def test_mingw_hypot_with_pythons_pyconfig(tmp_path: Path) -> None:
    """CPython's PC/pyconfig.h says `#define hypot _hypot`; MinGW-w64's <cmath> then breaks."""
    gxx = tool("x86_64-w64-mingw32-g++", "g++-mingw-w64-x86-64-win32")
    (tmp_path / "mod.cpp").write_text(
        "#define hypot _hypot\n#include <cmath>\nint main() { return 0; }\n", encoding="utf-8"
    )
    out = run([gxx, "-c", "mod.cpp"], tmp_path)
    assert "hypot" in out and "has not been declared" in out, out
    assert first_id(out) == "mingw_hypot"


def test_a_compile_error_as_theano_raises_it_under_python2(tmp_path: Path) -> None:
    """Theano 0.9 on Python 2 raises g++'s stderr as bytes, its newlines made '. '
    (rel-0.9.0 theano/gof/cmodule.py:2315-2316), and adds the graph to the exception's args
    (gof/cc.py:1491): Python 2 prints that tuple's repr, so GCC's UTF-8 quotes read
    `\\xe2\\x80\\x98hypot\\xe2\\x80\\x99`."""
    gxx = tool("x86_64-w64-mingw32-g++", "g++-mingw-w64-x86-64-win32")
    python = pyenv_or_skip("2.7")
    (tmp_path / "mod.cpp").write_text(
        "#define hypot _hypot\n#include <cmath>\nint main() { return 0; }\n", encoding="utf-8"
    )
    (tmp_path / "stderr.txt").write_text(run([gxx, "-c", "mod.cpp"], tmp_path), encoding="utf-8")
    raise_as_theano = (
        "compile_stderr, status = open('stderr.txt').read(), 1\n"
        "try:\n"
        "    raise Exception('Compilation failed (return status=%s): %s' %\n"
        "                    (status, compile_stderr.replace('\\n', '. ')))\n"
        "except Exception as e:\n"
        "    e.args += ('[Elemwise{add,no_inplace}(x, y)]',)\n"
        "    raise\n"
    )
    (tmp_path / "cmodule.py").write_text(raise_as_theano, encoding="utf-8")
    out = run([python, "cmodule.py"], tmp_path)
    assert "hypot\\xe2\\x80\\x99 has not been declared" in out, out  # GCC >= 10: "in '::'"
    assert first_id(out.strip().splitlines()[-1]) == "mingw_hypot"


def test_an_extension_linked_without_libpython(tmp_path: Path) -> None:
    """MinGW links a module that calls the Python API without -lpythonXY (the import library
    Theano could not find): the linker's own words for each `__imp_` symbol."""
    gcc = tool("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64-win32")
    (tmp_path / "mod.c").write_text(
        "__declspec(dllimport) extern int PyArg_ParseTuple(void *args, const char *format, ...);\n"
        'int call(void *args) { return PyArg_ParseTuple(args, ""); }\n',
        encoding="utf-8",
    )
    out = run([gcc, "-shared", "-o", "mod.pyd", "mod.c"], tmp_path)
    assert "undefined reference to `__imp_PyArg_ParseTuple'" in out, out
    assert first_id(out) == "libpython_missing"


def test_a_cuda_header_without_cudas_include_folder(tmp_path: Path) -> None:
    """g++ on a module that includes CUDA's driver_types.h (cudnn.h does) without CUDA's include
    folder on the command line."""
    gxx = tool("g++", "g++")
    (tmp_path / "mod.cpp").write_text(
        "#include <driver_types.h>\nint main() { return 0; }\n", encoding="utf-8"
    )
    out = run([gxx, "-c", "mod.cpp"], tmp_path)
    if (tmp_path / "mod.o").exists():
        pytest.skip("CUDA's headers are on this g++'s default include path: nothing to reproduce")
    assert "driver_types.h: No such file or directory" in out, out
    assert first_id(out) == "driver_types_h"


def test_a_cuda_build_on_a_machine_without_the_driver(tmp_path: Path) -> None:
    """A library linked against the NVIDIA driver's libcuda.so.1 (as a CUDA build of mxnet links
    libmxnet.so, or a CUDA torch its libraries) loaded where no driver is installed, as on this
    machine: the loader refuses the driver's library itself."""
    gcc = tool("gcc", "gcc")
    driver = built_library(
        gcc, tmp_path, "libcuda.so", "int cuInit(unsigned int f) { return 0; }\n", "-Wl,-soname,libcuda.so.1"
    )
    uses = "int cuInit(unsigned int); int start(void) { return cuInit(0); }\n"
    built_library(gcc, tmp_path, "libgpubuild.so", uses, "-L.", "-lcuda")
    driver.unlink()  # the driver's library: not installed here
    loaded = run([sys.executable, "-c", "import ctypes; ctypes.CDLL('./libgpubuild.so')"], tmp_path)
    if "cannot open shared object file" not in loaded:
        pytest.skip(
            f"an NVIDIA driver's libcuda.so.1 is installed here: nothing to reproduce ({loaded[-200:]})"
        )
    assert "libcuda.so.1: cannot open shared object file" in loaded, loaded
    assert first_id(loaded) == "no_nvidia_gpu", loaded


def test_a_cuda_runtime_the_binary_was_built_for_is_missing(tmp_path: Path) -> None:
    """The loader's own words for a libcudart of a CUDA that is not installed (an mxnet-cu92
    wheel under CUDA 10): ctypes loads it by the soname such a wheel records."""
    proc = subprocess.run(
        [sys.executable, "-c", "import ctypes; ctypes.CDLL('libcudart.so.9.2')"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    if proc.returncode == 0:
        pytest.skip("this machine has CUDA 9.2's libcudart: nothing to reproduce")
    assert "libcudart.so.9.2: cannot open shared object file" in proc.stderr, proc.stderr
    assert first_id(proc.stderr) == "mx_cudart"


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("ldd") is None, reason="needs gcc and ldd")
def test_ldd_on_a_library_whose_cuda_runtime_is_missing(tmp_path: Path) -> None:
    """ldd on a library linked against CUDA 10.0's runtime (an mxnet-cu100 libmxnet.so) where
    that runtime is not installed: the loader's trace says `libcudart.so.10.0 => not found`."""
    runtime = tmp_path / "libcudart.so.10.0"
    (tmp_path / "rt.c").write_text("int cudaRuntimeGetVersion(int *v) { *v = 10000; return 0; }\n")
    (tmp_path / "mx.c").write_text(
        "int cudaRuntimeGetVersion(int *);\nint mx(void) { int v; return cudaRuntimeGetVersion(&v); }\n"
    )
    run(["gcc", "-shared", "-fPIC", "-Wl,-soname,libcudart.so.10.0", "-o", str(runtime), "rt.c"], tmp_path)
    run(["gcc", "-shared", "-fPIC", "-o", "libmxnet.so", "mx.c", str(runtime)], tmp_path)
    runtime.unlink()
    out = run(["ldd", str(tmp_path / "libmxnet.so")], tmp_path)
    assert "libcudart.so.10.0 => not found" in out, out
    assert first_id(out) == "mx_cudart", out


def test_space_in_the_user_name_splits_the_compiledir(tmp_path: Path) -> None:
    """g++ given the compiledir of `C:\\Users\\Chris Pikula` unquoted, as Theano 0.9 passed it."""
    gxx = tool("g++", "g++")
    compiledir = r"C:\Users\Chris Pikula\AppData\Local\Theano\compiledir_Windows-7-64\lazylinker_ext"
    out = run([gxx, "-shared", "-o", "lazylinker_ext.pyd", *(compiledir + r"\mod.cpp").split(" ")], tmp_path)
    assert r"error: Pikula\AppData\Local\Theano" in out, out
    assert first_id(out) == "path_spaces_nonascii"


@pytest.mark.parametrize(
    "soname", ["libcudnn.so.5", "libiomp5.so", "libcudnn_adv.so.9", "libnvJitLink.so.12"]
)
def test_a_library_the_wheel_does_not_ship(tmp_path: Path, soname: str) -> None:
    """An extension linked against libcudnn.so.5 (as mxnet-cu80 was), Intel's OpenMP runtime
    libiomp5.so (as torch 0.1.10's wheel was: pytorch #936), one of cuDNN 9's own libraries (as
    onnxruntime-gpu's CUDA provider is) or nvJitLink (as cuSPARSE 12 is) on a machine without it."""
    gcc = tool("gcc", "gcc")
    (tmp_path / "dep.c").write_text("int dep_init(void) { return 0; }\n", encoding="utf-8")
    (tmp_path / "wheel.c").write_text(
        "int dep_init(void);\nint f(void) { return dep_init(); }\n", encoding="utf-8"
    )
    run([gcc, "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", soname, "dep.c"], tmp_path)
    run([gcc, "-shared", "-fPIC", "-o", "libwheel.so", "wheel.c", "-L.", f"-l:{soname}"], tmp_path)
    (tmp_path / soname).unlink()
    out = run([sys.executable, "-c", "import ctypes; ctypes.CDLL('./libwheel.so')"], tmp_path)
    assert f"{soname}: cannot open shared object file" in out, out
    assert first_id(out) == "runtime_dll_beside_wheel"


def test_the_linker_on_a_library_that_wants_a_newer_glibc(tmp_path: Path) -> None:
    """The real linker (binutils ld) linking a program against a prebuilt library that needs a
    symbol version this machine's libm lacks (built here against a stand-in libm.so.6 exporting
    powf@GLIBC_2.99, as a libtorch_cpu.so built on a newer system wants powf@GLIBC_2.27)."""
    gcc = tool("gcc", "gcc")
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "m.c").write_text("float powf(float a, float b) { return a; }\n", encoding="utf-8")
    (stub / "v.map").write_text("GLIBC_2.99 { global: powf; };\n", encoding="utf-8")
    run(
        [
            gcc,
            "-shared",
            "-fPIC",
            "-Wl,--version-script=v.map",
            "-Wl,-soname,libm.so.6",
            "-o",
            "libm.so",
            "m.c",
        ],
        stub,
    )
    (tmp_path / "lib.c").write_text("float powf(float, float);\nfloat f(float a) { return powf(a, 2.0f); }\n")
    run([gcc, "-shared", "-fPIC", "-o", "libold.so", "lib.c", "-Lstub", "-lm"], tmp_path)
    (tmp_path / "main.c").write_text("float f(float);\nint main(void) { return (int)f(2.0f); }\n")
    out = run([gcc, "main.c", "-L.", "-lold", "-lm", "-o", "main"], tmp_path)
    assert "undefined reference to `powf@GLIBC_2.99'" in out, out
    assert first_id(out) == "glibc_too_old"


def test_an_extension_built_against_another_torchs_symbols(tmp_path: Path) -> None:
    """Real C++ extension modules built against declarations of PyTorch's namespaces (a c10
    function, a const member of at::Tensor) that the loaded libraries do not define, as an
    extension built for another torch release finds: Python's import fails with the loader's
    `undefined symbol: _ZN3c10...` (the compiler's Itanium mangling). The same refusal from
    torch's own libtorch_python.so is a broken torch install, not an extension's."""
    gxx = tool("g++", "g++")
    modules = {
        "ext_c10": (
            "namespace c10 { void removed_in_this_release(int); }\n"
            'extern "C" void* PyInit_ext_c10() { c10::removed_in_this_release(1); return nullptr; }\n',
            "_ZN3c1023removed_in_this_releaseEi",
        ),
        "ext_at": (
            "namespace at { struct Tensor { long dim_of_another_release() const; }; }\n"
            'extern "C" long PyInit_ext_at(const at::Tensor& t) { return t.dim_of_another_release(); }\n',
            "_ZNK2at6Tensor22dim_of_another_releaseEv",
        ),
    }
    for name, (source, symbol) in modules.items():
        (tmp_path / f"{name}.cpp").write_text(source, encoding="utf-8")
        run([gxx, "-shared", "-fPIC", "-o", f"{name}.so", f"{name}.cpp"], tmp_path)
        out = run([sys.executable, "-c", f"import {name}"], tmp_path)
        assert f"{name}.so: undefined symbol: {symbol}" in out, out
        assert first_id(out) == "torch_extension_other_torch", out
    own = out.replace("ext_at.so", "site-packages/torch/lib/libtorch_python.so")
    assert first_id(own) != "torch_extension_other_torch", own
    # the loader's words with the library's path cut from the paste
    refused = next(line for line in out.splitlines() if "undefined symbol" in line)
    cut = refused[refused.index("undefined symbol") :]
    assert first_id(cut + "\n") == "torch_extension_other_torch"
    assert first_id(f"I encountered a problem: {cut}\n") == "torch_extension_other_torch"


def test_an_extension_built_against_a_split_cuda_torch(tmp_path: Path) -> None:
    """A real extension module linked against libtorch_cuda_cu.so (PyTorch 1.8-1.13's CUDA
    wheels split libtorch_cuda in two, pytorch#49050; 2.0 has no such library, pytorch#87502),
    imported where that library is not: the loader's own refusal."""
    gxx = tool("g++", "g++")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "cuda_cu.cpp").write_text("int torch_cuda_cu_marker() { return 1; }\n", encoding="utf-8")
    run([gxx, "-shared", "-fPIC", "-o", "lib/libtorch_cuda_cu.so", "lib/cuda_cu.cpp"], tmp_path)
    (tmp_path / "ext_split.cpp").write_text(
        "int torch_cuda_cu_marker();\n"
        'extern "C" void* PyInit_ext_split() { return torch_cuda_cu_marker() ? nullptr : nullptr; }\n',
        encoding="utf-8",
    )
    link = ["-Llib", "-ltorch_cuda_cu", "-Wl,-rpath,$ORIGIN/lib"]  # found beside it, as torch/lib is
    run([gxx, "-shared", "-fPIC", "-o", "ext_split.so", "ext_split.cpp", *link], tmp_path)
    loaded = run([sys.executable, "-c", "import ext_split"], tmp_path)
    assert "cannot open shared object file" not in loaded, loaded  # the split torch's library loads
    (lib / "libtorch_cuda_cu.so").unlink()  # the torch of 2.0 and later, or a CPU build
    out = run([sys.executable, "-c", "import ext_split"], tmp_path)
    assert "libtorch_cuda_cu.so: cannot open shared object file" in out, out
    assert first_id(out) == "torch_extension_other_torch", out


def absent_here(*sonames: str) -> str:
    """The first of ``sonames`` this machine's loader does not find (a test skips without one)."""
    for soname in sonames:
        try:
            ctypes.CDLL(soname)
        except OSError:
            return soname
    pytest.skip(f"this machine's loader finds every one of {', '.join(sonames)}")


def import_refused(tmp_path: Path, soname: str, module: str) -> str:
    """What Python prints importing a real extension module ``module`` linked against a stub
    library ``soname`` (found beside it, as an rpath finds a package's own), once the stub is
    gone: the loader's own refusal."""
    gxx = tool("g++", "g++")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "stub.cpp").write_text("int stub_marker() { return 1; }\n", encoding="utf-8")
    run([gxx, "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", f"lib/{soname}", "lib/stub.cpp"], tmp_path)
    (tmp_path / f"{module}.cpp").write_text(
        "int stub_marker();\n"
        f'extern "C" void* PyInit_{module}() {{ return stub_marker() ? nullptr : nullptr; }}\n',
        encoding="utf-8",
    )
    link = [f"lib/{soname}", "-Wl,-rpath,$ORIGIN/lib"]
    run([gxx, "-shared", "-fPIC", "-o", f"{module}.so", f"{module}.cpp", *link], tmp_path)
    loaded = run([sys.executable, "-c", f"import {module}"], tmp_path)
    assert "cannot open shared object file" not in loaded and "undefined symbol" not in loaded, loaded
    (lib / soname).unlink()
    return run([sys.executable, "-c", f"import {module}"], tmp_path)


def test_a_wheel_whose_distributions_graphics_library_is_missing(tmp_path: Path) -> None:
    """A real extension module linked against a distribution's graphics library (as OpenCV's cv2
    links libGL, and renderers libEGL or libOSMesa), imported where the machine has none (a slim
    image): the loader's own refusal, read as the distribution's library."""
    soname = absent_here("libOSMesa.so.8", "libEGL.so.1", "libGL.so.1", "libSM.so.6")
    out = import_refused(tmp_path, soname, "cv_stub")
    assert f"{soname}: cannot open shared object file" in out, out
    assert first_id(out) == "system_graphics_library_missing", out


def test_pygpu_without_its_libgpuarray(tmp_path: Path) -> None:
    """A real extension module linked against libgpuarray's shared library (as pygpu's gpuarray
    module is), imported where the loader does not find it (built into a prefix the loader was
    not told of): the loader's own refusal names libgpuarray_not_on_loader_path."""
    soname = absent_here("libgpuarray.so.2", "libgpuarray.so.3")
    out = import_refused(tmp_path, soname, "gpuarray")
    assert f"{soname}: cannot open shared object file" in out, out
    assert first_id(out) == "libgpuarray_not_on_loader_path", out


def torch_wheel() -> Path:
    """The real torch wheel the torch target installs (PIP_FIND_LINKS)."""
    from gpuforge.smoke import targets

    wheels = targets.local_wheels(targets.TORCH_WHEEL)
    if not wheels:
        pytest.skip(targets.NEEDS["torch-wheel"][1])
    return wheels[-1]


def torch_wheel_file(path: str) -> bytes:
    """A file of the real torch wheel."""
    import zipfile

    with zipfile.ZipFile(torch_wheel()) as wheel:
        return wheel.read(path)


def torch_wheel_source(path: str) -> str:
    """A source file of the real torch wheel."""
    return torch_wheel_file(path).decode("utf-8")


def torch_wheel_function(path: str, name: str) -> str:
    """The source of one module-level function of the real torch wheel's ``path``."""
    source = torch_wheel_source(path)
    [function] = [
        node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    segment = ast.get_source_segment(source, function)
    assert segment is not None
    return segment


def test_torchs_own_words_for_an_nvcc_of_another_cuda(tmp_path: Path) -> None:
    """torch.utils.cpp_extension's CUDA_MISMATCH_MESSAGE, read from the real torch wheel the torch
    target installs (PIP_FIND_LINKS): torch 2.13.0 raises it as RuntimeError(message, nvcc's,
    torch's), which prints as a tuple; earlier releases formatted it. Both name
    extension_nvcc_not_torch_cuda."""
    source = torch_wheel_source("torch/utils/cpp_extension.py")
    tree = ast.parse(source)
    [message] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CUDA_MISMATCH_MESSAGE"
    ]
    script = tmp_path / "raise.py"
    script.write_text(f"raise RuntimeError({message!r}, '12.4', '11.8')\n", encoding="utf-8")
    raised = run([sys.executable, str(script)], tmp_path)
    assert "mismatches the version that was used to compile" in raised, raised
    formatted = "RuntimeError:\n" + message.replace("%s", "{}").format("12.4", "11.8")
    for printed in (raised, formatted):
        assert first_id(printed) == "extension_nvcc_not_torch_cuda", printed


def test_torchs_own_words_for_nccl_missing_from_its_build(tmp_path: Path) -> None:
    """torch.distributed's refusal of the nccl backend in a build without NCCL, its message read
    from the real torch wheel's distributed_c10d.py (that wheel, a CPU build, is one such build)
    and raised as the library raises it."""
    source = torch_wheel_source("torch/distributed/distributed_c10d.py")
    [message] = re.findall(r'raise RuntimeError\("(Distributed package[^"]*NCCL[^"]*)"\)', source)
    script = tmp_path / "raise.py"
    script.write_text(f"raise RuntimeError({message!r})\n", encoding="utf-8")
    raised = run([sys.executable, str(script)], tmp_path)
    assert first_id(raised) == "nccl_not_in_build", raised
    assert first_id(raised.replace("NCCL", "MPI")) != "nccl_not_in_build"


def test_torchs_own_check_for_ninja(tmp_path: Path) -> None:
    """torch.utils.cpp_extension's is_ninja_available and verify_ninja_availability, the functions
    themselves from the real torch wheel, run where PATH has no ninja (an environment without it,
    or not activated): their RuntimeError names torch_extension_ninja_missing."""
    tree = ast.parse(torch_wheel_source("torch/utils/cpp_extension.py"))
    wanted = {"is_ninja_available", "verify_ninja_availability"}
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    assert {f.name for f in functions} == wanted
    module = ast.Module(body=[ast.Import(names=[ast.alias(name="subprocess")]), *functions], type_ignores=[])
    script = tmp_path / "check.py"
    script.write_text(ast.unparse(module) + "\nverify_ninja_availability()\n", encoding="utf-8")
    bare = tmp_path / "bin"
    bare.mkdir()
    env = dict(os.environ, PATH=str(bare), LC_ALL="C.UTF-8")
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    out = proc.stdout + proc.stderr
    assert "RuntimeError: Ninja is required" in out, out
    assert first_id(out) == "torch_extension_ninja_missing", out


def test_torchs_own_check_of_the_cudnn_it_loaded(monkeypatch) -> None:
    """torch.backends.cudnn._init, the function itself from the real torch wheel, run where the
    cuDNN loaded (a system one LD_LIBRARY_PATH names) is older than the one torch was built with:
    its own RuntimeError names torch_cudnn_other_runtime, as torch 1.11-1.12's wording did."""
    source = torch_wheel_source("torch/backends/cudnn/__init__.py")
    [function] = [
        node
        for block in ast.parse(source).body
        if isinstance(block, ast.If)
        for node in block.body
        if isinstance(node, ast.FunctionDef) and node.name == "_init"
    ]

    class Cudnn:  # the loaded cuDNN 9.0 against the 9.1 torch was built with
        is_cuda = True

        @staticmethod
        def getVersionInt():
            return 90000

        @staticmethod
        def getRuntimeVersion():
            return (9, 0, 0)

        @staticmethod
        def getCompileVersion():
            return (9, 1, 0)

    namespace = {"os": os, "_cudnn": Cudnn, "__cudnn_version": None}
    exec(compile(ast.Module(body=[function], type_ignores=[]), "cudnn/__init__.py", "exec"), namespace)
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/local/cuda/lib64")
    with pytest.raises(RuntimeError) as raised:
        namespace["_init"]()
    printed = f"RuntimeError: {raised.value}\n"
    assert "cuDNN version incompatibility" in printed, printed
    assert first_id(printed) == "torch_cudnn_other_runtime", printed
    older = (
        "cuDNN version incompatibility: PyTorch was compiled against (8, 4, 0) but linked against (8, 3, 3)\n"
    )
    assert first_id(older) == "torch_cudnn_other_runtime"


def test_torchs_own_words_for_no_cuda_toolkit(tmp_path: Path) -> None:
    """torch.utils.cpp_extension._join_cuda_home, the function itself from the real torch wheel,
    run as torch runs it where it found no CUDA toolkit (its module-level CUDA_HOME is None)."""
    function = torch_wheel_function("torch/utils/cpp_extension.py", "_join_cuda_home")
    script = tmp_path / "build.py"
    script.write_text(
        f"import os\nCUDA_HOME = None\n{function}\n_join_cuda_home('bin')\n",
        encoding="utf-8",
    )
    out = run([sys.executable, str(script)], tmp_path)
    assert "OSError: CUDA_HOME environment variable is not set." in out, out
    assert first_id(out) == "torch_extension_no_cuda_home", out


def test_a_library_that_needs_mkl_2024_0s_itt_symbol(tmp_path: Path) -> None:
    """A real shared library that takes iJIT_NotifyEvent from elsewhere (as a PyTorch linked
    against MKL 2024.0's libmkl_core.so.2 does) loaded where nothing defines it (MKL 2024.1 and
    later): the loader's own words name mkl_2024_ijit."""
    gcc = tool("gcc", "gcc")
    (tmp_path / "cpu.c").write_text(
        "int iJIT_NotifyEvent(int, void*);\nint torch_cpu_init(void) { return iJIT_NotifyEvent(0, 0); }\n",
        encoding="utf-8",
    )
    run([gcc, "-shared", "-fPIC", "-o", "libtorch_cpu.so", "cpu.c"], tmp_path)
    out = run([sys.executable, "-c", "import ctypes; ctypes.CDLL('./libtorch_cpu.so')"], tmp_path)
    assert "libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent" in out, out
    assert first_id(out) == "mkl_2024_ijit", out


MKL_WHEEL = "mkl-2024.0.0-py2.py3-none-manylinux1_x86_64.whl"


def test_an_mkl_without_its_cpu_libraries(tmp_path: Path) -> None:
    """PyPI's MKL 2024.0.0 (libmkl_rt, its core, sequential layer and LP64 interface) without its
    CPU-specific libraries, as an environment with a partial or mixed MKL has it: the first dgemm
    makes MKL's dispatcher say what it cannot load."""
    import zipfile

    from gpuforge.smoke import targets

    wheels = targets.local_wheels(MKL_WHEEL)
    if not wheels:
        pytest.skip(
            f"no {MKL_WHEEL} in $PIP_FIND_LINKS: `pip download mkl==2024.0.0 --no-deps -d DIR`, "
            "then PIP_FIND_LINKS=DIR"
        )
    keep = ("libmkl_rt.so.2", "libmkl_core.so.2", "libmkl_sequential.so.2", "libmkl_intel_lp64.so.2")
    with zipfile.ZipFile(wheels[-1]) as wheel:
        for name in keep:
            (tmp_path / name).write_bytes(wheel.read(f"mkl-2024.0.0.data/data/lib/{name}"))
    call = (
        "import ctypes\n"
        "rt = ctypes.CDLL('./libmkl_rt.so.2')\n"
        "n, one, zero, t = ctypes.c_int(2), ctypes.c_double(1), ctypes.c_double(0), ctypes.c_char(b'N')\n"
        "a, c = (ctypes.c_double * 4)(1, 2, 3, 4), (ctypes.c_double * 4)()\n"
        "r = ctypes.byref\n"
        "rt.dgemm(r(t), r(t), r(n), r(n), r(n), r(one), a, r(n), a, r(n), r(zero), c, r(n))\n"
    )
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path), MKL_THREADING_LAYER="SEQUENTIAL")
    proc = subprocess.run([sys.executable, "-c", call], cwd=tmp_path, capture_output=True, text=True, env=env)
    out = proc.stdout + proc.stderr
    assert "Intel MKL FATAL ERROR: Cannot load libmkl_" in out, out
    assert first_id(out) == "mkl_cannot_load_its_libraries", out


def test_clangs_own_refusal_of_the_native_flags_old_theano_copied(tmp_path: Path) -> None:
    """Theano 0.6 to 0.8.0 copied the `-target-feature +x` flags of `clang -march=native -E -v -`
    (clang's compiler proper's options) onto its compile line; the real clang driver refuses them
    as Theano 0.8.0's compile_str reports it (rel-0.8.0 cmodule.py: `Compilation failed (return
    status=%s): %s` with the output's newlines as '. '). A Theano of 0.8.1 or later stated beside
    it means an older copy is the one imported."""
    clang = tool("clang", "clang")
    cc1 = run([clang, "-march=native", "-E", "-v", "-"], tmp_path, input="")
    features = re.findall(r"-target-feature [+-][\w.]+", cc1)
    if not features:
        pytest.skip(f"this clang shows no -target-feature for -march=native: {cc1[-300:]}")
    (tmp_path / "mod.cpp").write_text("int f() { return 0; }\n", encoding="utf-8")
    proc = subprocess.run(
        [clang, *" ".join(features[:3]).split(), "-c", "mod.cpp"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "unknown argument: '-target-feature'" in proc.stderr, proc.stderr
    printed = f"Exception: Compilation failed (return status={proc.returncode}): " + proc.stderr.replace(
        "\n", ". "
    )
    assert first_id(printed) == "theano080_mac_native_flags", printed
    assert first_id(proc.stderr) is None  # clang's words alone, nothing of Theano's
    assert diagnose_log(f"I have Theano 0.9.0 installed\n{printed}")[0].id == "two_theano_installs"


def cudart() -> tuple[ctypes.CDLL, str]:
    """The real libcudart of $CUDA_HOME or /usr/local/cuda (its error names and strings need no
    driver), and the same toolkit's driver_types.h."""
    roots = [Path(r) for r in (os.environ.get("CUDA_HOME"), "/usr/local/cuda") if r]
    found = [
        (lib, root / "include" / "driver_types.h")
        for root in roots
        for lib in sorted((root / "lib64").glob("libcudart.so.*"))
        if (root / "include" / "driver_types.h").is_file()
    ]
    if not found:
        pytest.skip("needs a CUDA toolkit (libcudart.so and driver_types.h) in $CUDA_HOME or /usr/local/cuda")
    library = ctypes.CDLL(str(found[0][0]))
    library.cudaGetErrorString.restype = ctypes.c_char_p
    library.cudaGetErrorName.restype = ctypes.c_char_p
    return library, found[0][1].read_text(encoding="utf-8")


def cuda_runtime_words(error: str) -> tuple[int, str]:
    """(number, message) of a cudaError_t as the real libcudart names it (cudaGetErrorString
    needs no driver); its number read from the same toolkit's driver_types.h."""
    library, header = cudart()
    code = int(re.search(rf"{error}\s*=\s*(\d+)", header).group(1))
    assert library.cudaGetErrorName(code) == error.encode()
    return code, library.cudaGetErrorString(code).decode()


def test_the_cuda_runtime_without_any_nvidia_driver_says_the_driver_is_too_old() -> None:
    """On a machine with no NVIDIA driver (this one) the real runtime answers cudaGetDeviceCount
    with cudaErrorInsufficientDriver and cudaDriverGetVersion with 0: pasted beside a machine
    whose only GPU is Intel's or AMD's, the cause is no NVIDIA GPU, not an old driver."""
    library, _ = cudart()
    version = ctypes.c_int(-1)
    library.cudaDriverGetVersion(ctypes.byref(version))
    if version.value != 0:
        pytest.skip(f"an NVIDIA driver is here (CUDA {version.value}): run it on a machine without one")
    count = ctypes.c_int(-1)
    code = library.cudaGetDeviceCount(ctypes.byref(count))
    assert library.cudaGetErrorName(code) == b"cudaErrorInsufficientDriver"
    message = library.cudaGetErrorString(code).decode()
    printed = f"RuntimeError: CUDA error: {message}\n"

    def first_of_paste(text: str) -> str:  # the paste's facts judged too (log_facts)
        return diagnose_log(text)[0].id

    assert first_of_paste(f"{printed}My laptop has Intel(R) Iris Xe Graphics only.\n") == "no_nvidia_gpu"
    assert first_of_paste(f"{printed}I only have an integrated GPU (AMD Radeon Vega 8)\n") == "no_nvidia_gpu"
    # an NVIDIA GPU named beside it: the driver may be there and old
    assert first_of_paste(f"{printed}Intel UHD Graphics 630 and a GeForce GTX 1060\n") == "mx_driver"
    assert first_of_paste(printed) == "mx_driver"


def test_the_cuda_runtimes_words_for_a_driver_older_than_it_needs() -> None:
    """cudaErrorCallRequiresNewerDriver, cudaErrorSystemDriverMismatch and
    cudaErrorCompatNotSupportedOnDevice in the runtime's own words, as PyTorch's
    cudaGetDeviceCount warning prints them: the driver is older than the CUDA the build needs
    (forward compatibility tried in its place), or only part of it was upgraded. The runtime's
    words for a machine without any GPU are not read so."""
    for error in (
        "cudaErrorCallRequiresNewerDriver",
        "cudaErrorSystemDriverMismatch",
        "cudaErrorCompatNotSupportedOnDevice",
    ):
        code, message = cuda_runtime_words(error)
        printed = (
            "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run"
            " some cuda functions before calling NumCudaDevices() that might have already set an error?"
            f" Error {code}: {message}"
        )
        assert first_id(printed) == "mx_driver", printed
    code, message = cuda_runtime_words("cudaErrorNoDevice")
    assert first_id(f"RuntimeError: CUDA error: {message}") != "mx_driver", message


def test_the_cuda_runtime_without_a_driver() -> None:
    """The real libcudart on a machine without the NVIDIA driver (this one, or a container given
    no driver): it calls the missing driver too old. Inside a Singularity or Apptainer container
    whose command shows no --nv that is the GPU not given; with --nv, a driver too old."""
    library, _ = cudart()
    count = ctypes.c_int()
    error = library.cudaGetDeviceCount(ctypes.byref(count))
    if error != 35:
        pytest.skip(f"an NVIDIA driver answers here (cudaGetDeviceCount gave {error}): run it without one")
    message = library.cudaGetErrorString(error).decode()
    assert message == "CUDA driver version is insufficient for CUDA runtime version", message
    paste = f"singularity exec dorado.sif dorado basecaller model pod5/\n[error] CUDA error: {message}\n"
    assert diagnose_log(paste)[0].id == "no_nvidia_gpu", paste
    assert diagnose_log(paste.replace("exec ", "exec --nv "))[0].id == "mx_driver"


def test_the_cuda_runtimes_words_for_a_failed_os_call() -> None:
    """The CUDA runtime's own message for cudaErrorOperatingSystem (error 63 before CUDA 10.1,
    304 since: driver_types.h), what torch prints when Windows refuses CUDA IPC."""
    code, message = cuda_runtime_words("cudaErrorOperatingSystem")
    assert first_id(f"RuntimeError: cuda runtime error ({code}) : {message}") == "cuda_ipc", message


def test_the_cuda_runtimes_words_for_a_kernel_without_this_gpus_code() -> None:
    """cudaErrorInvalidDeviceFunction ("not compiled for the proper device architecture",
    driver_types.h), as mxnet's and Caffe's CUDA checks print it: a build without the GPU's
    architecture."""
    code, message = cuda_runtime_words("cudaErrorInvalidDeviceFunction")
    assert message == "invalid device function"
    for printed in (
        f"Check failed: error == cudaSuccess ({code} vs. 0) {message}",
        f"Cuda kernel failed. Error: {message}",
    ):
        assert first_id(printed) == "old_gpu", printed


def test_the_cuda_runtimes_out_of_memory_as_programs_print_it() -> None:
    """cudaErrorMemoryAllocation's own words, as PyTorch (C10_CUDA_CHECK, THC's __THCudaCheck)
    and mxnet's storage managers print them: the GPU ran out of memory."""
    code, message = cuda_runtime_words("cudaErrorMemoryAllocation")
    assert message == "out of memory"
    for printed in (
        f"RuntimeError: CUDA error: {message}",
        f"THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCStorage.cu line=58 error={code} : {message}",
        f"RuntimeError: cuda runtime error ({code}) : {message} at /pytorch/aten/src/THC/THCStorage.cu:58",
        f"src/storage/./pooled_storage_manager.h:157: cudaMalloc failed: {message}",
        # glog's CHECK_EQ (mshadow's tensor_gpu-inl.cuh) cut before the string: the number alone
        f"tensor_gpu-inl.cuh:110: Check failed: err == cudaSuccess ({code} vs. 0) Name: MapPlanKernel Err",
    ):
        assert first_id(printed) == "gpu_out_of_memory", printed


def test_the_cuda_runtimes_invalid_device_as_programs_print_it() -> None:
    """cudaErrorInvalidDevice's own words (10 before CUDA 10.1, 101 since), as PyTorch and
    mxnet print them: a GPU number this machine does not have."""
    code, message = cuda_runtime_words("cudaErrorInvalidDevice")
    assert message == "invalid device ordinal"
    for printed in (
        f"RuntimeError: CUDA error: {message}",
        f"THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=59 error={code} : {message}",
        f"src/storage/storage.cc:59: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading"
        f" CUDA: {message}",
    ):
        assert first_id(printed) == "gpu_index_missing", printed


def test_the_cuda_runtimes_set_on_active_process_beside_device_gpu() -> None:
    """cudaErrorSetOnActiveProcess's own words (36 before CUDA 10.1, 708 since), as pygpu raises
    them where Theano's old back-end (device=gpu) already took the device and the gpuarray
    back-end's contexts init it again; without device=gpu they say nothing of the cause."""
    _, message = cuda_runtime_words("cudaErrorSetOnActiveProcess")
    assert message == "cannot set while device is active in this process"
    paste = (
        "[global]\ndevice = gpu\ncontexts=dev0->cuda0;dev1->cuda1\n"
        "ERROR (theano.sandbox.gpuarray): Could not initialize pygpu, support disabled\n"
        f"GpuArrayException: {message}: 0\n"
    )
    assert first_id(paste) == "old_device_flag"
    assert first_id(paste.replace("device = gpu\n", "")) != "old_device_flag"


def test_a_build_that_imports_torch_in_pips_isolated_environment(tmp_path: Path) -> None:
    """The real pip building a package whose setup.py imports torch (as flash-attn's does) where
    torch is importable (a stand-in on PYTHONPATH): pip's isolated build environment does not
    see it; the doctor names that, and `--no-build-isolation`, its fix, gets past the import."""
    package = tmp_path / "needs_torch"
    package.mkdir()
    # setup.py records the torch it imported (a file, as pip shows a build's output on failure only)
    (package / "setup.py").write_text(
        "import os, torch\nfrom setuptools import setup\n"
        "open(os.environ['TORCH_SEEN'], 'w').write(torch.__version__)\n"
        'setup(name="needs_torch", version="0.1")\n'
    )
    (package / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    (tmp_path / "installed" / "torch").mkdir(parents=True)
    (tmp_path / "installed" / "torch" / "__init__.py").write_text('__version__ = "2.5.1"\n')
    seen = tmp_path / "torch-seen"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "installed"), TORCH_SEEN=str(seen))
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", "out", str(package)]
    proc = subprocess.run(pip, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    if "to install build dependencies did not run successfully" in out:  # pip's own words for it
        pytest.skip("pip could not install setuptools into its build environment: run where an index is")
    assert "Getting requirements to build wheel did not run successfully" in out, out[-2000:]
    assert "ModuleNotFoundError: No module named 'torch'" in out, out[-2000:]
    assert first_id(out) == "build_isolation_no_torch" and not seen.exists()
    subprocess.run(
        [*pip[:3], "wheel", "--no-build-isolation", *pip[4:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # (the build may stop later, at bdist_wheel where the wheel package is not installed)
    assert seen.read_text() == "2.5.1"  # setup.py imported the torch installed


def test_a_requirements_file_that_installs_torch_beside_a_package_that_builds_against_it(
    tmp_path: Path,
) -> None:
    """The real pip 24.2 of a fresh venv (with setuptools and the wheel package, with which pip
    builds a package without pyproject.toml the legacy way) installing
    one requirements file that names torch (a stand-in package) and a package whose setup.py
    imports torch: pip runs that setup.py in the venv before it installs torch. The doctor names
    it; installing torch first, its fix, gets the package installed."""
    import venv

    setup = "from setuptools import setup\nsetup(name={!r}, version='0.1', packages={})\n"
    for name, body in (
        ("torch", setup.format("torch", ["torch"])),
        ("needs_torch", "import torch\n" + setup.format("needs_torch", [])),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "setup.py").write_text(body)
    (tmp_path / "torch" / "torch").mkdir()
    (tmp_path / "torch" / "torch" / "__init__.py").write_text("")
    (tmp_path / "requirements.txt").write_text("./torch\n./needs_torch\n")
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)

    def pip(*args: str) -> subprocess.CompletedProcess[str]:
        command = [python, "-m", "pip", "install", *args]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)

    # Python 3.12's ensurepip no longer brings setuptools: a venv as users had it has both, and a
    # pip of the releases that still build such a package the legacy way (to 25.2)
    if pip("pip==24.2", "wheel==0.45.1", "setuptools>=65,<76").returncode:
        pytest.skip("pip could not install wheel and setuptools (no index reachable): run where PyPI is")
    env["PIP_NO_INDEX"] = "1"

    proc = pip("-r", "requirements.txt")
    out = proc.stdout + proc.stderr
    assert proc.returncode and "No module named 'torch'" in out, out[-2000:]
    assert first_id(out) == "torch_not_installed_before_build", out[-2000:]
    assert pip("./torch").returncode == 0
    assert pip("./needs_torch").returncode == 0  # torch first, then the package: it builds


def test_pip_in_a_python_that_cannot_load_ssl(tmp_path: Path) -> None:
    """The real pip of this interpreter where `import ssl` fails (a stand-in ssl.py first on the
    path, as a Windows Python without OpenSSL's DLLs on PATH fails to import _ssl): its refusal
    of an https index (the tests' venv has pip 26.3, the dev venv 23.2.1: both wordings ran)."""
    (tmp_path / "nossl").mkdir()
    (tmp_path / "nossl" / "ssl.py").write_text('raise ImportError("DLL load failed while importing _ssl")\n')
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(tmp_path / "nossl")}
    env["PIP_CONFIG_FILE"] = os.devnull
    args = ["download", "--no-deps", "-d", "dl", "--retries", "0", "--index-url", "https://127.0.0.1:9/"]
    pip = [sys.executable, "-m", "pip", *args, "six"]
    proc = subprocess.run(pip, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    # urllib3's words (pip up to 26.1), or pip's own SSLMissingError (26.2 and later)
    said = ("because the SSL module is not available", "The 'ssl' module is unavailable but required")
    assert any(words in out for words in said), out[-1500:]
    assert first_id(out) == "python_ssl_unavailable", out[-1500:]


@pytest.mark.parametrize(
    "arch, said",
    [
        ("-arch=compute_999", "Unsupported gpu architecture"),
        ("-gencode=arch=compute_20,code=sm_20", "Unsupported gpu architecture"),
        ("--gpu-code=sm_35", "Value 'sm_35' is not defined for option 'gpu-code'"),
    ],
)
def test_nvcc_asked_for_an_architecture_it_does_not_know(tmp_path: Path, arch: str, said: str) -> None:
    """nvcc given an architecture newer than any release knows, and Fermi's, which every CUDA
    since 9.0 dropped: an extension build's arch list this nvcc cannot serve. A code (sm_35,
    which CUDA 12 dropped) it refuses in its generic words, `Value 'sm_35' is not defined for
    option 'gpu-code'`, as CUDA 7.5's nvcc refused a -arch=sm_61 it did not know yet."""
    nvcc = shutil.which("nvcc") or next(
        (
            str(p)
            for p in [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvcc"]
            if p.is_file()
        ),
        None,
    )
    if nvcc is None:
        pytest.skip("needs nvcc (a CUDA toolkit) on PATH or in $CUDA_HOME/bin")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n", encoding="utf-8")
    out = run([nvcc, arch, "-c", "k.cu", "-o", "k.o"], tmp_path, timeout=300)
    assert said in out, out
    assert first_id(out) == "nvcc_arch_unsupported", out
    cut = out.replace("'\n", "\n")  # a paste that lost the closing quote (round 4's sealed set had one)
    assert first_id(cut) == "nvcc_arch_unsupported", cut


def torch_wheel_headers(into: Path) -> Path:
    """The include folder of the real torch wheel the torch target installs (PIP_FIND_LINKS)."""
    import zipfile

    with zipfile.ZipFile(torch_wheel()) as wheel:
        headers = [n for n in wheel.namelist() if n.startswith("torch/include/")]
        wheel.extractall(into, members=headers)
    return into / "torch" / "include"


@pytest.mark.parametrize("compiler", ["g++", "nvcc"])
def test_an_extension_written_for_a_torch_before_its_api_was_removed(tmp_path: Path, compiler: str) -> None:
    """An extension's source of the THC era (`#include <THC/THC.h>`, removed in PyTorch 1.11) and
    of AT_CHECK (TORCH_CHECK since 1.5), compiled by the real g++ and nvcc against the headers of
    the real torch wheel, as an extension build passes them (-isystem torch/include): the
    compilers' own refusals name torch_extension_removed_api."""
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"needs {compiler} on PATH")
    include = torch_wheel_headers(tmp_path / "wheel")
    assert (include / "c10" / "util" / "Exception.h").is_file()
    assert not (include / "THC").exists()  # the wheel has no THC headers
    suffix = ".cu" if compiler == "nvcc" else ".cpp"
    flags = ["-std=c++17", "-isystem", str(include), "-c", "-o", "ext.o"]
    (tmp_path / f"thc{suffix}").write_text(
        "#include <THC/THC.h>\nextern THCState *state;\n", encoding="utf-8"
    )
    out = run([path, *flags, f"thc{suffix}"], tmp_path, timeout=300)
    assert "THC/THC.h" in out, out
    assert first_id(out) == "torch_extension_removed_api", out
    (tmp_path / f"check{suffix}").write_text(
        "#include <c10/util/Exception.h>\n"
        'void check(bool ok) { AT_CHECK(ok, "the input must be contiguous"); }\n',
        encoding="utf-8",
    )
    out = run([path, *flags, f"check{suffix}"], tmp_path, timeout=300)
    assert "AT_CHECK" in out and "error" in out, out
    assert first_id(out) == "torch_extension_removed_api", out


@pytest.mark.parametrize("compiler", ["nvcc", "g++"])
def test_a_cudnn_function_of_an_older_generation(tmp_path: Path, compiler: str) -> None:
    """nvcc and g++ on a call of cuDNN 5's cudnnSetFilterNdDescriptor_v4 (Theano 0.9's old
    back-end, dnn_base.c:57) where no header declares it, as cuDNN 6's cudnn.h no longer does:
    the compilers' own words for it."""
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"needs {compiler} on PATH")
    suffix = ".cu" if compiler == "nvcc" else ".cpp"
    (tmp_path / f"mod{suffix}").write_text(
        "int f(void *desc) { return cudnnSetFilterNdDescriptor_v4(desc, 0, 0, 4, 0); }\n", encoding="utf-8"
    )
    out = run([path, "-c", f"mod{suffix}", "-o", "mod.o"], tmp_path, timeout=300)
    assert "cudnnSetFilterNdDescriptor_v4" in out, out
    assert first_id(out) == "cudnn_version", out


@pytest.mark.parametrize("compiler", ["nvcc", "g++"])
def test_an_argument_the_cudnn_signature_no_longer_takes(tmp_path: Path, compiler: str) -> None:
    """nvcc and g++ on a call written for an older cuDNN signature (Theano 0.7's
    cudnnConvolutionBackwardData call against cuDNN v4's, which takes an algo there): the
    compilers' own words for an argument that does not fit a cuDNN type."""
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"needs {compiler} on PATH")
    suffix = ".cu" if compiler == "nvcc" else ".cpp"
    (tmp_path / f"mod{suffix}").write_text(
        "typedef enum { CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0 } cudnnConvolutionBwdDataAlgo_t;\n"
        "int bwd(void *h, cudnnConvolutionBwdDataAlgo_t algo, unsigned long n);\n"
        "int f(void *h, void *out) { return bwd(h, out, 0); }\n",
        encoding="utf-8",
    )
    out = run([path, "-c", f"mod{suffix}", "-o", "mod.o"], tmp_path, timeout=300)
    assert "cudnnConvolutionBwdDataAlgo_t" in out, out
    assert first_id(out) == "cudnn_version", out


def in_language(cmd: list[str], cwd: Path, language: str, english: str, package: str) -> str:
    """``cmd``'s output with its messages in ``language`` (gettext's LANGUAGE); a skip where this
    machine has no catalog for it and the program spoke ``english`` words still."""
    env = {**os.environ, "LANGUAGE": language, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    out = done.stdout + done.stderr
    if english in out:
        pytest.skip(f"no {language} catalog for it here (`apt-get install {package}` brings it)")
    return out


def load_in_language(path: str, cwd: Path, language: str, english: str) -> str:
    """A Python that set its locale (so glibc's dlerror and strerror speak ``language``) loading
    the shared object ``path``."""
    code = f"import ctypes, locale\nlocale.setlocale(locale.LC_ALL, '')\nctypes.CDLL({path!r})\n"
    out = in_language([sys.executable, "-c", code], cwd, language, english, "libc-l10n")
    assert path in out, out
    return out


@pytest.mark.parametrize("language", ["zh_CN", "zh_TW", "ja", "fi", "fr", "es", "ru", "pt_BR", "vi"])
def test_the_linker_in_the_users_language(tmp_path: Path, language: str) -> None:
    """GNU ld's own translation of `cannot find -lcudnn` (binutils' ld.mo, LANGUAGE=...) reads
    as its English words: a library the linker cannot find is named in any language."""
    ld = shutil.which("ld")
    if ld is None:
        pytest.skip("needs GNU ld on PATH (binutils)")
    out = in_language([ld, "-lcudnn_gpuforge_absent"], tmp_path, language, "cannot find", "binutils")
    paste = f"{out}ImportError: cuDNN not available: Can not compile with cuDNN.\n".replace(
        "-lcudnn_gpuforge_absent", "-lcudnn"
    )
    assert first_id(paste) == "cudnn_lib_missing", paste


@pytest.mark.parametrize(
    "language", ["zh_CN", "zh_TW", "ja", "ko", "de", "fr", "es", "it", "ru", "uk", "pt_BR", "pl"]
)
def test_the_loader_in_the_users_language(tmp_path: Path, language: str) -> None:
    """glibc's dlerror() and strerror() in the user's language (libc.mo, LANGUAGE=...), as a
    Python that set its locale prints them: `libcudnn.so.7: 无法打开共享对象文件: 没有那个文件或目录`
    reads as the English loader message."""
    out = load_in_language("libcudnn.so.7", tmp_path, language, "cannot open shared object file")
    assert first_id(out) == "runtime_dll_beside_wheel", out


@pytest.mark.parametrize("language", ["es", "ru", "uk", "fr", "pt_BR"])
def test_an_undefined_python_symbol_in_the_users_language(tmp_path: Path, language: str) -> None:
    """GNU ld's own translation of `undefined reference to `__imp_Py...'` (binutils' ld.mo, through
    gcc with LANGUAGE=...): MinGW's link of a Theano module without libpython's import library,
    whichever language ld speaks."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc and GNU ld on PATH")
    (tmp_path / "mod.c").write_text(
        "int __imp_PyExc_TypeError(void);\nint main(void) { return __imp_PyExc_TypeError(); }\n",
        encoding="utf-8",
    )
    subprocess.run([gcc, "-c", "mod.c", "-o", "mod.o"], cwd=tmp_path, check=True, capture_output=True)
    out = in_language([gcc, "mod.o", "-o", "mod"], tmp_path, language, "undefined reference to", "binutils")
    assert "__imp_PyExc_TypeError" in out, out
    assert first_id(out) == "libpython_missing", out


@pytest.mark.parametrize("language", ["zh_CN", "zh_TW", "de", "es", "fr", "ru"])
def test_an_undeclared_cudnn_function_in_the_users_language(tmp_path: Path, language: str) -> None:
    """g++'s own `%qD was not declared in this scope` and `error` in the user's language
    (gcc-12-locales' gcc-12.mo) on Theano 0.9's call of cuDNN 5's cudnnSetFilterNdDescriptor_v4."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("needs g++ on PATH")
    (tmp_path / "mod.cpp").write_text(
        "int f(void *desc) { return cudnnSetFilterNdDescriptor_v4(desc, 0, 0, 4, 0); }\n", encoding="utf-8"
    )
    out = in_language(
        [gxx, "-c", "mod.cpp", "-o", "mod.o"], tmp_path, language, "was not declared", "gcc-12-locales"
    )
    assert "cudnnSetFilterNdDescriptor_v4" in out, out
    assert first_id(out) == "cudnn_version", out


@pytest.mark.parametrize("language", ["zh_CN", "ja", "de", "fr", "ru"])
def test_a_cut_compile_cache_module_in_the_users_language(tmp_path: Path, language: str) -> None:
    """glibc's dlerror() for an empty shared object ("file too short") in the user's language:
    a compile cache's module cut short is cache_corrupt whichever language the loader speaks."""
    module = tmp_path / "compiledir_Linux-6.1--x86_64-with-glibc2.36-x86_64-3.7.17-64" / "lazylinker_ext"
    module.mkdir(parents=True)
    (module / "lazylinker_ext.so").write_bytes(b"")
    out = load_in_language(str(module / "lazylinker_ext.so"), tmp_path, language, "file too short")
    assert first_id(out) == "cache_corrupt", out


def test_a_name_numpy_2_removed_under_theanos_frame(tmp_path: Path) -> None:
    """numpy 2's own AttributeError for np.cast (from a real numpy 2.x: pyenv's Python 3.11 with
    numpy installed), under the Theano 1.0.5 frame that calls it (theano/scalar/basic.py:2977,
    exp2's gradient): Theano with a numpy too new for it, as its other removed names are."""
    python = pyenv_or_skip("3.11")
    out = run(
        [python, "-c", "import numpy\nif int(numpy.__version__.split('.')[0]) >= 2: numpy.cast"], tmp_path
    )
    if "No module named 'numpy'" in out or "was removed" not in out:
        pytest.skip(f"needs numpy 2.0 or later in {python} (`{python} -m pip install 'numpy>=2'`)")
    error = out.strip().splitlines()[-1]
    paste = (
        '  File "/home/u/env/lib/python3.11/site-packages/theano/scalar/basic.py", line 2977, in grad\n'
        f"    return gz * exp2(x) * log(np.cast[x.type](2)),\n{error}\n"
    )
    assert first_id(paste) == "numpy_aliases", paste
    assert first_id(paste.replace("theano/scalar", "myproject/scalar")) != "numpy_aliases"


def debian_pygpu() -> str:
    """The Python that imports Debian's real pygpu (libgpuarray 0.7.6), or a skip."""
    python = "/usr/bin/python3"
    probe = subprocess.run([python, "-c", "import pygpu"], capture_output=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip("needs Debian's pygpu: `apt-get install python3-pygpu`")
    return python


def pygpu_init(tmp_path: Path, device: str, **env: str) -> str:
    """What Debian's pygpu prints initialising ``device`` (``env``: LD_LIBRARY_PATH, the mock's)."""
    cmd = [debian_pygpu(), "-c", f"import pygpu; pygpu.init({device!r})"]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=dict(os.environ, **env), timeout=120, cwd=tmp_path
    )
    return proc.stdout + proc.stderr


def test_pygpu_given_a_device_name_it_cannot_parse(tmp_path: Path) -> None:
    """Debian's real pygpu (libgpuarray 0.7.6) given the device `cuda*` (Theano accepts any
    cuda... value and hands it on): its pygpu_init parses the number with int()."""
    out = pygpu_init(tmp_path, "cuda*", LC_ALL="C.UTF-8")
    assert "ValueError: invalid literal for int() with base 10: '*'" in out, out
    assert first_id(out) == "theano_flag_invalid", out


def test_pygpu_with_a_driver_and_no_nvrtc(tmp_path: Path) -> None:
    """Debian's real pygpu (libgpuarray 0.7.6) initialising CUDA where the driver loads (gpuforge's
    mock driver as libcuda.so) and no libnvrtc.so is on the loader's path: libgpuarray's own loader
    words it, not a wheel's missing library."""
    from gpuforge.smoke.mockgpu import build

    debian_pygpu()
    lib = tmp_path / "lib"
    lib.mkdir()
    mocks = build.linux_mocks()
    for name in ("libcuda.so", "libcuda.so.1"):
        os.symlink(mocks / name, lib / name)
    out = pygpu_init(tmp_path, "cuda0", LD_LIBRARY_PATH=str(lib), MOCK_CC="8.6", MOCK_DRIVER="12020")
    assert 'Could not load "libnvrtc.so": libnvrtc.so: cannot open shared object file' in out, out
    assert first_id(out) == "nvrtc_missing", out


def test_pygpu_with_a_driver_older_than_libgpuarray_needs(tmp_path: Path) -> None:
    """Debian's real pygpu (libgpuarray 0.7.6) loading a libcuda.so that has cuInit and
    cuDriverGetVersion but none of the later driver API (a CUDA 6.5 driver's set, built here):
    libgpuarray's loader names the first function it cannot find."""
    gcc = tool("gcc", "gcc")
    debian_pygpu()
    (tmp_path / "cuda.c").write_text(
        "int cuInit(unsigned int flags) { return 0; }\n"
        "int cuDriverGetVersion(int *version) { *version = 6050; return 0; }\n",
        encoding="utf-8",
    )
    run([gcc, "-shared", "-fPIC", "-o", "libcuda.so", "cuda.c"], tmp_path)
    os.symlink(tmp_path / "libcuda.so", tmp_path / "libcuda.so.1")
    out = pygpu_init(tmp_path, "cuda0", LD_LIBRARY_PATH=str(tmp_path))
    assert re.search(r'Could not find symbol "cu\w+": \S*libcuda\.so: undefined symbol', out), out
    assert first_id(out) == "pygpu_load_lib", out


def _elf_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def require_future_glibc(binary: Path, old: bytes, new: bytes) -> bool:
    """Rewrite the binary's need for glibc version ``old`` into ``new`` (same length):
    the name in .dynstr and its hash in .gnu.version_r, as a build on a newer glibc has them."""
    data = bytearray(binary.read_bytes())
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for _name, kind, _flags, _addr, offset, _size, link, info, _align, _entsize in sections:
        if kind != 0x6FFFFFFE:  # SHT_GNU_verneed
            continue
        strtab = sections[link][4]
        need = offset
        for _ in range(info):
            _version, count, _file, aux, nxt = struct.unpack_from("<HHIII", data, need)
            entry = need + aux
            for _ in range(count):
                _hash, _flags2, _other, name, nxt_aux = struct.unpack_from("<IHHII", data, entry)
                start = strtab + name
                if data[start : start + len(old) + 1] == old + b"\0":
                    data[start : start + len(old)] = new
                    struct.pack_into("<I", data, entry, _elf_hash(new))
                    binary.write_bytes(bytes(data))
                    return True
                entry += nxt_aux
            need += nxt
    return False


def run_needing_a_future_version(
    tmp_path: Path, compiler: str, source: str, need: bytes, future: bytes
) -> str:
    """Build ``source`` (prog.c or prog.cc) here, rewrite its need for the version ``need`` matches
    into ``future``, as a build on a newer system has it, and run it: the real loader's words."""
    suffix = ".cc" if compiler == "g++" else ".c"
    (tmp_path / f"prog{suffix}").write_text(source, encoding="utf-8")
    run([tool(compiler, compiler), "-o", "prog", f"prog{suffix}"], tmp_path)
    found = re.search(need, (tmp_path / "prog").read_bytes())
    if not found:
        pytest.skip(f"{compiler} here links no version need matching {need.decode()} to rewrite")
    assert require_future_glibc(tmp_path / "prog", found.group(0), future)
    out = run([str(tmp_path / "prog")], tmp_path)
    assert f"version `{future.decode()}' not found" in out, out
    return out


def test_glibc_older_than_the_binary_needs(tmp_path: Path) -> None:
    """A program that needs a glibc version newer than this machine's, as a binary built on a newer
    system does: the real loader refuses it."""
    out = run_needing_a_future_version(
        tmp_path, "gcc", "int main(void) { return 0; }\n", rb"GLIBC_2\.\d\d", b"GLIBC_2.99"
    )
    assert first_id(out) == "glibc_too_old"


def test_libstdcxx_older_than_the_library_needs(tmp_path: Path) -> None:
    """A C++ program that needs a libstdc++ version newer than this machine's, as one built with a
    newer GCC does: the real loader refuses it, and glibc's own refusal beside it comes first."""
    source = (
        "#include <string>\n#include <iostream>\n"
        "int main(int argc, char**) { std::cout << std::string(argc, 'x') << std::endl; return 0; }\n"
    )
    out = run_needing_a_future_version(tmp_path, "g++", source, rb"GLIBCXX_3\.4\.\d\d", b"GLIBCXX_3.4.99")
    assert first_id(out) == "libstdcxx_too_old"
    glibc_too = out.replace("GLIBCXX_3.4.99", "GLIBC_2.99", 1).replace("libstdc++.so.6", "libc.so.6", 1)
    assert first_id(glibc_too + out) == "glibc_too_old"
    # a Python extension calling a std:: function this libstdc++ does not define (as one built by
    # a newer GCC calls std::__throw_bad_array_new_length): the loader's undefined symbol
    (tmp_path / "ext_std.cpp").write_text(
        "namespace std { void __added_by_a_newer_gcc(); }\n"
        'extern "C" void* PyInit_ext_std() { std::__added_by_a_newer_gcc(); return nullptr; }\n',
        encoding="utf-8",
    )
    run([tool("g++", "g++"), "-shared", "-fPIC", "-o", "ext_std.so", "ext_std.cpp"], tmp_path)
    imported = run([sys.executable, "-c", "import ext_std"], tmp_path)
    assert "ext_std.so: undefined symbol: _ZSt22__added_by_a_newer_gccv" in imported, imported
    assert first_id(imported) == "libstdcxx_too_old", imported


# x86 instruction sets some CPUs have and others lack: each a /proc/cpuinfo flag, GCC's switch
# and a function using one of its instructions (SSE4a's EXTRQ, AVX512-FP16's VADDSH); the test
# takes the first this CPU's flags do not list
INSTRUCTION_SETS = (
    (
        "sse4a",
        "-msse4a",
        "#include <x86intrin.h>\n"
        "int f(void) { volatile __m128i a = _mm_set1_epi32(7);"
        " return _mm_cvtsi128_si32(_mm_extracti_si64(a, 8, 0)); }\n",
    ),
    (
        "avx512_fp16",
        "-mavx512fp16",
        "#include <immintrin.h>\n"
        "int f(void) { volatile __m128h a = _mm_set_sh((_Float16)1.0f);"
        " return (int)_mm_cvtsh_h(_mm_add_sh(a, a)); }\n",
    ),
)


def a_call_this_cpu_cannot_run(tmp_path: Path) -> str:
    """Python code calling, through ctypes, a library built here for an instruction set this CPU
    lacks (libill.so in ``tmp_path``)."""
    cpuinfo = Path("/proc/cpuinfo")
    if platform.machine() != "x86_64" or not cpuinfo.is_file():
        pytest.skip("the sets tried are x86's, read from Linux's /proc/cpuinfo: run it on Linux x86_64")
    flags = set(cpuinfo.read_text(encoding="utf-8").split())
    lacking = [(flag, switch, code) for flag, switch, code in INSTRUCTION_SETS if flag not in flags]
    if not lacking:
        pytest.skip(f"this CPU has every set tried ({', '.join(s[0] for s in INSTRUCTION_SETS)})")
    flag, switch, code = lacking[0]
    (tmp_path / "ill.c").write_text(code, encoding="utf-8")
    built = run([tool("gcc", "gcc"), "-O0", switch, "-shared", "-fPIC", "-o", "libill.so", "ill.c"], tmp_path)
    if not (tmp_path / "libill.so").exists():
        pytest.skip(f"this gcc cannot build for {flag} ({switch}): {built.strip()[:200]}")
    return "import ctypes; ctypes.CDLL('./libill.so').f()"


def test_an_instruction_this_cpu_lacks(tmp_path: Path) -> None:
    """A library built for an instruction set this CPU lacks, as a wheel built for AVX2 is on an
    older CPU: Python importing it through ctypes dies of SIGILL, and the words bash, Python's
    faulthandler and the exit status give for it are read as the cause."""
    call = a_call_this_cpu_cannot_run(tmp_path)
    direct = subprocess.run([sys.executable, "-c", call], cwd=tmp_path, capture_output=True)
    assert direct.returncode == -signal.SIGILL, direct

    shell = run(["bash", "-c", f'{shlex.quote(sys.executable)} -c "{call}"; echo "exit $?"'], tmp_path)
    assert "Illegal instruction" in shell and "exit 132" in shell, shell
    assert first_id(shell) == "cpu_lacks_instructions", shell

    faulthandler = run([sys.executable, "-X", "faulthandler", "-c", call], tmp_path)
    assert "Fatal Python error: Illegal instruction" in faulthandler, faulthandler
    assert first_id(faulthandler) == "cpu_lacks_instructions", faulthandler


def test_an_instruction_this_cpu_lacks_under_gdb(tmp_path: Path) -> None:
    """The same SIGILL as gdb reports it (`Program received signal SIGILL, Illegal instruction.`)."""
    gdb = tool("gdb", "gdb")
    call = a_call_this_cpu_cannot_run(tmp_path)
    debugged = run([gdb, "-batch", "-ex", "run", "--args", sys.executable, "-c", call], tmp_path)
    assert "Program received signal SIGILL" in debugged, debugged[-2000:]
    assert first_id(debugged) == "cpu_lacks_instructions", debugged[-2000:]


def test_uv_refusing_a_wheel_for_a_newer_glibc(tmp_path: Path) -> None:
    """The real uv resolving, for a manylinux_2_17 machine (glibc 2.17), a release whose only
    wheel is manylinux_2_28 (torch 2.7's Linux wheels): its refusal and its hint name both tags."""
    import zipfile

    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("needs uv: `pip install uv` (the [test] extra has it)")
    links = tmp_path / "wheels"
    links.mkdir()
    dist_info = "demo-2.7.0.dist-info"
    with zipfile.ZipFile(links / "demo-2.7.0-py3-none-manylinux_2_28_x86_64.whl", "w") as wheel:
        wheel.writestr(f"{dist_info}/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 2.7.0\n")
        wheel.writestr(
            f"{dist_info}/WHEEL",
            "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n",
        )
        wheel.writestr(f"{dist_info}/RECORD", "")
    (tmp_path / "requirements.in").write_text("demo==2.7.0\n", encoding="utf-8")
    proc = subprocess.run(
        [uv, "pip", "compile", "requirements.in", "--python-platform", "x86_64-manylinux_2_17"]
        + ["--python-version", "3.11", "--find-links", str(links), "--no-index", "--offline"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "UV_CACHE_DIR": str(tmp_path / "cache")},
    )
    out = proc.stdout + proc.stderr
    assert "has no wheels with a matching platform tag" in out, out
    assert "manylinux_2_28_x86_64" in out, out
    assert first_id(out) == "glibc_too_old", out


def test_pygpu_imported_from_its_source_folder(tmp_path: Path) -> None:
    """pygpu's Python files without the compiled modules, as a libgpuarray checkout has them."""
    installed = Path("/usr/lib/python3/dist-packages/pygpu")
    python = shutil.which("python3.11") or "/usr/bin/python3"
    if not installed.is_dir():
        pytest.skip("needs Debian's python3-pygpu: `apt-get install python3-pygpu`")
    checkout = tmp_path / "libgpuarray" / "pygpu"
    checkout.mkdir(parents=True)
    for source in installed.glob("*.py"):
        shutil.copy(source, checkout)
    out = run([python, "-c", "import pygpu"], checkout.parent)
    assert "Error" in out, out
    assert first_id(out) == "libgpuarray_source_checkout", out


def test_pip_long_path_hint_is_windows_path_too_long() -> None:
    """pip's own hint for an ENOENT on a path over 260 characters, read from the installed pip."""
    import pip._internal.commands.install as pip_install

    source = Path(pip_install.__file__).read_text(encoding="utf-8")
    pieces = re.search(r'"(HINT: This error might have occurred since )"\s*"([^"]*)"\s*"([^"]*)"', source)
    assert pieces, "pip's Long Path hint moved: update windows_path_too_long"
    assert first_id("".join(pieces.groups())) == "windows_path_too_long"


def test_theanos_preallocate_warning_is_gpu_preallocate_oom() -> None:
    """Theano's own words (theano/gpuarray/__init__.py, init_dev), checked in the installed Theano if any."""
    text = "WARNING: Preallocating too much memory can prevent cudnn and cublas from working properly"
    try:
        import theano  # noqa: F401 - only its source file is read
    except Exception:
        source = None
    else:
        source = (Path(theano.__file__).parent / "gpuarray" / "__init__.py").read_text(encoding="utf-8")
    if source is not None:
        assert text.split(": ", 1)[1] in source
    assert first_id(text + "\nRuntimeError: Error creating cudnn handle\n") == "gpu_preallocate_oom"


def empty_channel(channel: Path) -> Path:
    """A conda channel with an index for noarch and linux-64 and no package in it."""
    for subdir in ("noarch", "linux-64"):
        (channel / subdir).mkdir(parents=True)
        empty = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": {}}
        (channel / subdir / "repodata.json").write_text(json.dumps(empty), encoding="utf-8")
    return channel


def rattler_alone(tmp_path: Path) -> dict[str, str]:
    """conda's environment for a test: the rattler solver, no default channels, its own cache."""
    condarc = tmp_path / "condarc.yml"
    condarc.write_text("solver: rattler\nchannels: []\n", encoding="utf-8")
    return dict(os.environ, CONDARC=str(condarc), CONDA_PKGS_DIRS=str(tmp_path / "pkgs"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "make_channel, expected",
    [
        (False, "UnavailableInvalidChannel"),
        (True, "The following packages are not available from current channels"),
    ],
)
def test_conda_on_a_channel_nobody_publishes(
    conda_tools, tmp_path: Path, make_channel: bool, expected: str
) -> None:
    """The real conda on a gpuforge channel that was never built (no folder), or built empty."""
    channel = empty_channel(tmp_path / "gpuforge-channel") if make_channel else tmp_path / "gpuforge-channel"
    proc = conda_create_dry_run(
        conda_tools, tmp_path / "env", channel, "theano-gpu-config", env=rattler_alone(tmp_path), timeout=300
    )
    out = proc.stdout + proc.stderr
    assert expected in out, out
    assert first_id(out) == "channel_missing"
    if not make_channel:  # conda >= 4.14's first line alone, as pasted without the class name
        line = re.search(r"HTTP 404 [A-Z ]+ for channel \S+ <[^>]+>", out)
        assert line, out
        assert first_id(line.group(0)) == "channel_missing", line.group(0)


@pytest.mark.slow
def test_conda_on_an_env_files_exported_builds(conda_tools, tmp_path: Path) -> None:
    """The real conda creating what `conda env export` wrote on Linux (exact builds, the Linux
    compilers' runtime) from a channel that has none of those builds: conda's refusal lists them."""
    channel = empty_channel(tmp_path / "channel")
    env = rattler_alone(tmp_path)
    specs = ("numpy=1.24.3=py310h5f9d8c6_1", "libstdcxx-ng=8.2.0")
    proc = conda_create_dry_run(conda_tools, tmp_path / "env", channel, *specs, env=env, timeout=300)
    out = proc.stdout + proc.stderr
    assert "The following packages are not available from current channels" in out, out
    assert "numpy==1.24.3=py310h5f9d8c6_1" in out, out
    assert first_id(out) == "env_file_exported_builds", out
    # the platform's own package alone, without a build string
    only_linux = conda_create_dry_run(conda_tools, tmp_path / "env", channel, specs[1], env=env, timeout=300)
    assert first_id(only_linux.stdout + only_linux.stderr) == "env_file_exported_builds"


def conda_says(conda_tools, tmp_path: Path, *args: str) -> str:
    """What the real conda's Python prints for ``args`` (stdout and stderr)."""
    proc = subprocess.run(
        [str(conda_tools.python), *args],
        capture_output=True,
        text=True,
        env=rattler_alone(tmp_path),
        timeout=300,
    )
    return proc.stdout + proc.stderr


@pytest.mark.slow
def test_conda_with_a_libmamba_plugin_it_cannot_import(conda_tools, tmp_path: Path) -> None:
    """The real conda asked for the libmamba solver (CONDA_SOLVER=libmamba) where the
    conda-libmamba-solver plugin's import fails as a base environment without its libarchive
    makes it fail (a stand-in plugin distribution on PYTHONPATH whose import raises that
    loader's ImportError): conda's own two messages name conda_solver_plugin_broken."""
    plugins = tmp_path / "plugins"
    info = plugins / "conda_libmamba_solver-24.9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: conda-libmamba-solver\nVersion: 24.9.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[conda]\nconda-libmamba-solver = conda_libmamba_solver.plugin\n", encoding="utf-8"
    )
    (plugins / "conda_libmamba_solver").mkdir()
    (plugins / "conda_libmamba_solver" / "__init__.py").write_text(
        'raise ImportError("libarchive.so.19: cannot open shared object file: No such file or directory")\n',
        encoding="utf-8",
    )
    env = dict(rattler_alone(tmp_path), CONDA_SOLVER="libmamba", PYTHONPATH=str(plugins))
    proc = conda_create_dry_run(
        conda_tools, tmp_path / "env", empty_channel(tmp_path / "channel"), "python", env=env, timeout=300
    )
    out = proc.stdout + proc.stderr
    assert "Error while loading conda entry point: conda-libmamba-solver (libarchive.so.19" in out, out
    assert "non-default solver backend (libmamba) but it was not recognized" in out, out
    assert first_id(out) == "conda_solver_plugin_broken", out


def test_condas_own_words_for_a_shell_it_was_not_set_up_in(conda_tools, tmp_path: Path) -> None:
    """The real conda's `activate` run as a program, as a shell without conda's function (no
    `conda init`, a script's shell) runs it: conda 23.11 and later refuse it in their own words;
    conda 4.4-23.10's CommandNotFoundError, the real class formatted by the real conda."""
    out = conda_says(conda_tools, tmp_path, "-m", "conda", "activate", "myenv")
    assert "Run 'conda init' before 'conda activate'" in out, out
    assert first_id(out) == "conda_shell_not_initialized", out
    older = conda_says(
        conda_tools,
        tmp_path,
        "-c",
        "from conda.exceptions import CommandNotFoundError; print(CommandNotFoundError('activate'))",
    )
    assert "Your shell has not been properly configured to use 'conda activate'" in older, older
    assert first_id(older) == "conda_shell_not_initialized", older


def test_condas_own_words_for_a_path_it_cannot_write(conda_tools, tmp_path: Path) -> None:
    """The real conda's NotWritableError and EnvironmentNotWritableError, the classes themselves
    formatted by the real conda (as root here, a read-only folder does not stop conda's writes)."""
    script = (
        "from conda.exceptions import NotWritableError, EnvironmentNotWritableError\n"
        "print(NotWritableError('/opt/anaconda3/pkgs/urls.txt', 13))\n"
        "print(EnvironmentNotWritableError('/opt/anaconda3'))\n"
    )
    out = conda_says(conda_tools, tmp_path, "-c", script)
    first = out.split("environment location:")[0]
    assert "does not have write permissions to a required path" in first, out
    assert first_id(first) == "conda_not_writable", first
    assert "does not have write permissions to the target environment" in out, out
    assert first_id(out) == "conda_not_writable", out


def test_conda_env_create_given_package_specs(conda_tools, tmp_path: Path) -> None:
    """The real conda's `env create` given a package spec, as a user pastes it (the command, then
    conda's answer)."""
    command = [str(conda_tools.python), "-m", "conda", "env", "create", "-n", "x", "python=3.8"]
    proc = subprocess.run(command, capture_output=True, text=True, env=rattler_alone(tmp_path), timeout=300)
    paste = f"$ python -m conda env create -n x python=3.8\n{proc.stdout}{proc.stderr}"
    assert proc.returncode != 0 and "python=3.8" in proc.stderr, paste
    assert first_id(paste) == "conda_env_create_with_specs", paste


@pytest.mark.parametrize("solver", ["classic", "rattler"])
@pytest.mark.parametrize("cuda", ["11.4", ""])
def test_conda_on_a_driver_below_the_env_files_floor(
    conda_tools, tmp_path: Path, solver: str, cuda: str
) -> None:
    """The real conda creating envs/gpu-linux64.yml's specs (its `__cuda>=11.8` floor) on a driver
    reporting CUDA 11.4, and with no driver: its words name a package no channel has, but the
    cause is the driver (not channel_missing)."""
    from gpuforge import locations
    from gpuforge.envs.envfile import load_env
    from gpuforge.envs.records import load_records
    from gpuforge.envs.solve import solve_specs, write_channel

    env_file = load_env(Path(__file__).resolve().parents[2] / "envs" / "gpu-linux64.yml")
    channel = write_channel(env_file, load_records(locations.RECORDS), tmp_path / "channel")
    proc = conda_create_dry_run(
        conda_tools,
        tmp_path / "env",
        channel,
        "--offline",
        "--solver",
        solver,
        *solve_specs(env_file),
        env=dict(conda_tools.env(tmp_path), CONDA_OVERRIDE_CUDA=cuda),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "__cuda" in out, out[-2000:]
    assert first_id(out) == "driver_below_env_floor", out[-2000:]


@pytest.mark.parametrize("driver", ["11.4", None])
@pytest.mark.parametrize("asked", ["pytorch", "__cuda >=11.8"])
def test_rattlers_solver_on_a_driver_below_a_cuda_builds_floor(
    tmp_path: Path, driver: str | None, asked: str
) -> None:
    """py-rattler's solver (resolvo: what pixi and rattler-based tools print) on a channel whose
    CUDA build of pytorch depends on `__cuda >=11.8`, asked for that build or for the floor itself,
    with a driver reporting CUDA 11.4 and with none: its words name no candidates for __cuda."""
    import asyncio

    import rattler
    from rattler.exceptions import SolverError
    from rattler.package.build_string import BuildString

    channel = tmp_path / "channel"
    build = {
        "name": "pytorch",
        "version": "2.1.0",
        "build": "cuda118_py310h0000000_0",
        "build_number": 0,
        "depends": ["__cuda >=11.8"],
        "subdir": "linux-64",
        "md5": "0" * 32,
        "sha256": "0" * 64,
        "size": 1,
    }
    for subdir, packages in (
        ("linux-64", {"pytorch-2.1.0-cuda118_py310h0000000_0.conda": build}),
        ("noarch", {}),
    ):
        (channel / subdir).mkdir(parents=True)
        repodata = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": packages}
        (channel / subdir / "repodata.json").write_text(json.dumps(repodata), encoding="utf-8")
    virtual = (
        []
        if driver is None
        else [
            rattler.GenericVirtualPackage(
                rattler.PackageName("__cuda"), rattler.Version(driver), BuildString("0")
            )
        ]
    )
    with pytest.raises(SolverError) as refused:
        asyncio.run(
            rattler.solve(
                [rattler.Channel(channel.as_uri())],
                [asked],
                gateway=rattler.Gateway(cache_dir=tmp_path / "cache"),
                platforms=[rattler.Platform("linux-64"), rattler.Platform("noarch")],
                virtual_packages=virtual,
            )
        )
    said = str(refused.value)
    assert "__cuda >=11.8" in said and "o candidates were found" in said, said
    assert first_id(said) == "driver_below_env_floor", said
    # pixi's wrapper of the same error (v0.40.0 src/lock_file/update.rs): pixi solved with the
    # manifest's [system-requirements], not this machine's driver
    pixi = f"  x failed to solve the conda requirements of 'default' 'linux-64'\n  `-> {said}"
    assert first_id(pixi) == "pixi_cuda_not_in_system_requirements", pixi


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs root and setpriv to write as another user: run as root",
)
def test_libmambas_filesystem_error_in_a_prefix_another_user_owns(tmp_path: Path) -> None:
    """libmamba creates an environment's folders with std::filesystem and logs the exception
    under its logger's name (mamba 2.8.1 libmamba/include/mamba/core/logging.hpp:173, "libmamba"):
    a program doing the same as a user who does not own the install (a devcontainer's user, an
    install made by root) gets libstdc++'s own words for it."""
    gxx = tool("g++", "g++")
    (tmp_path / "mkenv.cpp").write_text(
        "#include <filesystem>\n#include <iostream>\n"
        "int main(int argc, char** argv) {\n"
        "  try { std::filesystem::create_directories(argv[1]); }\n"
        "  catch (const std::exception& e) {\n"
        '    std::cerr << "critical libmamba " << e.what() << "\\n";\n'
        "    return 1;\n  }\n"
        "  return 0;\n}\n",
        encoding="utf-8",
    )
    built = run([gxx, "-std=c++17", "mkenv.cpp", "-o", "mkenv"], tmp_path)
    assert (tmp_path / "mkenv").exists(), built
    install = tmp_path / "opt" / "conda"
    (install / "envs").mkdir(parents=True)
    for folder in (tmp_path, tmp_path / "opt", install):
        folder.chmod(0o755)
    target = install / "envs" / "research" / "conda-meta"
    as_user = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        str(tmp_path / "mkenv"),
        str(target),
    ]
    said = run(as_user, tmp_path)
    assert said.startswith(
        "critical libmamba filesystem error: cannot create directories: Permission denied ["
    ), said
    assert first_id(said) == "conda_not_writable", said
    assert run([str(tmp_path / "mkenv"), str(target)], tmp_path) == ""  # its owner can


def test_conda_info_without_a_driver_beside_a_cuda_build(conda_tools, tmp_path: Path) -> None:
    """The real `conda info` on this machine, which has no NVIDIA driver: its virtual packages
    have no __cuda, so a CUDA build of PyTorch asked beside it (conda-forge's depend on __cuda) is
    the driver's cause even when the solver's own error was cut from the paste."""
    env = {k: v for k, v in conda_tools.env(tmp_path).items() if k != "CONDA_OVERRIDE_CUDA"}
    proc = subprocess.run(
        [str(conda_tools.python), "-m", "conda", "info"], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    listing = re.search(r"virtual packages : [^\n]*(?:\n +__[^\n]*)*", proc.stdout)
    assert listing and "__linux" in listing.group(0), proc.stdout
    if "__cuda" in listing.group(0):
        pytest.skip(f"an NVIDIA driver is here ({listing.group(0)}): run it on a machine without one")
    asked = "$ mamba create -n ml -c conda-forge python=3.10 pytorch=*=cuda*\n"
    assert diagnose_log(asked + proc.stdout)[0].id == "driver_below_env_floor"
    assert not [f.id for f in diagnose_log(proc.stdout)]  # nothing asked: nothing to judge


def test_a_program_on_path_that_hangs(tmp_path: Path) -> None:
    """An nvidia-smi that never ends (a driver stuck in the kernel does this): the probe stops it
    with what it started, records what it waited on, and the doctor names it."""
    from gpuforge.doctor.report import doctor_python

    python = pyenv_or_skip("3.7")
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nsleep 1000\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake.parent}{os.pathsep}{os.environ['PATH']}", HOME=str(tmp_path))
    report = doctor_python(python, timeout=20, env=env)
    [hung] = [f for f in report.findings if f.id == "program_hangs"]
    assert f"`{fake}` did not finish" in hung.evidence and "sleep 1000" in hung.evidence, hung.evidence
    left = subprocess.run(["pgrep", "-f", "^sleep 1000$"], capture_output=True, text=True).stdout.split()
    assert not [pid for pid in left if Path(f"/proc/{pid}").exists() and _started_by(pid, fake)]


def _started_by(pid: str, fake: Path) -> bool:
    """Whether a `sleep 1000` is a child of ``fake``'s shell (another test's sleep is not)."""
    try:
        parent = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1]
        return str(fake) in Path(f"/proc/{parent}/cmdline").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("minor", ["2.7", "3.7"])
def test_a_script_named_like_the_package_has_none_of_its_attributes(minor: str, tmp_path: Path) -> None:
    """mxnet.py / numpy.py imported instead of the package: Python 2 says `'module' object has no
    attribute 'nd'` (no module named), 3.7 `module 'mxnet' has no attribute 'nd'`; the traceback
    shows the file, the error line alone must be enough."""
    python = pyenv_or_skip(minor)
    for name, use in (("mxnet", "mx.nd.ones((2, 3))"), ("numpy", "mx.array([1])")):
        (tmp_path / f"{name}.py").write_text(f"import {name} as mx\nprint({use})\n", encoding="utf-8")
        out = run([python, f"{name}.py"], tmp_path)
        assert "has no attribute" in out and "partially initialized" not in out, out
        last = out.strip().splitlines()[-1]  # pasted alone, the line names no file
        assert first_id(out) == first_id(last) == "module_shadow", (name, out)
        (tmp_path / f"{name}.py").unlink()


def test_cudas_initialization_error_beside_a_fork() -> None:
    """cudaErrorInitializationError (3) as Theano's old back-end, mxnet and PyTorch print it: a
    process forked after its parent initialized CUDA where the paste names the fork; without one
    (a container runtime's own `initialization error`, a memory limit) it names nothing."""
    _, words = cuda_runtime_words("cudaErrorInitializationError")
    assert words == "initialization error"
    theano = (  # rel-0.8.2 theano/sandbox/cuda/cuda_ndarray.cu:166-173
        f"Error when trying to find the memory information on the GPU: {words}\n"
        f"Error allocating 18432 bytes of device memory ({words})."
        " Driver report 0 bytes free and 0 bytes total\n"
    )
    mxnet = f"Check failed: e == cudaSuccess CUDA: {words}\n"  # include/mxnet/base.h:452
    fork = "[2016-05-13 16:03:08,025: INFO/MainProcess] celery worker received task\n"
    for failure in (theano, mxnet, f"RuntimeError: CUDA error: {words}\n"):
        assert first_id("from multiprocessing import Pool\n" + failure) == "cuda_reinit_forked"
        assert first_id(fork + failure) == "cuda_reinit_forked"
        assert first_id(failure) is None
    container = f"nvidia-container-cli: {words}: driver error: failed to process request\n"
    assert first_id("from multiprocessing import Pool\n" + container) is None


def test_torch_py_and_a_torch_checkout_under_python2(tmp_path: Path) -> None:
    """Seed 001's two shadows as Python 2 prints them: `'module' object has no attribute 'rand'`
    and `ImportError: No module named _C` (no `torch.` before it)."""
    python = pyenv_or_skip("2.7")
    (tmp_path / "torch.py").write_text("import torch\nprint(torch.rand(2))\n", encoding="utf-8")
    out = run([python, "torch.py"], tmp_path)
    assert "'module' object has no attribute 'rand'" in out, out
    assert first_id(out) == first_id(out.strip().splitlines()[-1]) == "torch_C_shadow"
    (tmp_path / "torch.py").unlink()
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("from torch._C import *\n", encoding="utf-8")
    out = run([python, "-c", "import torch"], tmp_path)
    assert "ImportError: No module named _C" in out, out
    assert first_id(out) == first_id(out.strip().splitlines()[-1]) == "torch_C_shadow"


def test_a_missing_cuda_attribute_of_another_package_is_no_torch_shadow(tmp_path: Path) -> None:
    """Python 2 names no module in `'module' object has no attribute 'cuda'`: beside Lasagne and
    Theano (`lasagne.utils.theano.sandbox.cuda`, a sub-module never imported) it is not torch's
    core attribute missing (k/theano/SurfaceNet_code-uses-removed-sandbox-cuda_7.txt)."""
    python = pyenv_or_skip("2.7")
    pkg = tmp_path / "theano" / "sandbox"
    pkg.mkdir(parents=True)
    (tmp_path / "theano" / "__init__.py").write_text("import theano.sandbox\n", encoding="utf-8")
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "cuda.py").write_text("def dnn_available():\n    return False\n", encoding="utf-8")
    (tmp_path / "net.py").write_text("import theano\ntheano.sandbox.cuda.dnn_available()\n", encoding="utf-8")
    out = run([python, "net.py"], tmp_path)
    assert "'module' object has no attribute 'cuda'" in out, out
    assert first_id(out) != "torch_C_shadow"
    assert first_id(out.strip().splitlines()[-1]) == "torch_C_shadow"  # alone it names torch's


def test_a_shadow_the_user_names_in_prose(tmp_path: Path) -> None:
    """Python 2's `cannot import name Model`, pasted alone, shows no path; the user's own sentence
    that the script was named pymc3.py is the evidence (m/theano/pymc_local-file-shadows-pymc3_2072.txt)."""
    python = pyenv_or_skip("2.7")
    (tmp_path / "pymc3.py").write_text("from pymc3 import Model\n", encoding="utf-8")
    out = run([python, "pymc3.py"], tmp_path)
    assert first_id(out) == "module_shadow", out  # its frames name ./pymc3.py (PACKAGES)
    last = out.strip().splitlines()[-1]
    assert last == "ImportError: cannot import name Model" and first_id(last) is None, out
    said = 'Sorry, my mistake: I named the .py file with "pymc3.py", so it was imported.\n'
    assert first_id(said + last) == "module_shadow"
    assert first_id(said) is None  # no import failed: the sentence alone names nothing


@pytest.mark.parametrize("minor", ["3.7", "3.12"])
def test_a_script_named_like_the_package_it_imports_from(minor: str, tmp_path: Path) -> None:
    """A script named triton.py that imports triton.language: Python imports the script itself as
    `triton`, a module, and refuses `triton.language` (`'triton' is not a package`); the paste's
    frames name the file. The same words where no frame and no known package name the file: nothing."""
    python = pyenv_or_skip(minor)
    (tmp_path / "triton.py").write_text("import triton\nimport triton.language as tl\n", encoding="utf-8")
    out = run([python, "triton.py"], tmp_path)
    assert "No module named 'triton.language'; 'triton' is not a package" in out, out
    assert first_id(out) == "module_shadow", out
    assert first_id(out.strip().splitlines()[-1]) is None


@pytest.mark.parametrize("minor", ["3.7", "3.12"])
def test_a_package_printed_from_a_folder(minor: str, tmp_path: Path) -> None:
    """The user prints the module that lacks an attribute (t/theano/pymc-devs-pymc_no-attribute-
    math_2095.txt): a clone's folder with no __init__.py on sys.path is a namespace package
    (`<module 'pymc3' (namespace)>`, 3.11 on adds `from [...]`), a clone's package folder shows its
    path; the installed package's repr is no evidence."""
    python = pyenv_or_skip(minor)
    (tmp_path / "pymc3").mkdir()  # the repository's root, cloned into the working directory
    script = "import pymc3\nprint(pymc3)\npymc3.math\n"
    out = run([python, "-c", script], tmp_path)
    assert "<module 'pymc3' (namespace)" in out and "has no attribute 'math'" in out, out
    assert first_id(out) == "module_shadow", out
    package = tmp_path / "clone" / "pymc3"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    out = run([python, "-c", script], tmp_path / "clone")
    assert f"from '{package / '__init__.py'}'" in out and "has no attribute 'math'" in out, out
    assert first_id(out) == "module_shadow", out
    assert first_id(out.replace(str(tmp_path / "clone"), "/usr/lib/python3/dist-packages")) is None


@pytest.mark.parametrize("minor", ["2.7", "3.7"])
def test_a_script_named_like_a_standard_library_module(minor: str, tmp_path: Path) -> None:
    """`python select.py` (pytorch #71): the script's folder is first on sys.path, so the standard
    library's own `import select` (subprocess) gets the script. Pasted cut before the exception
    line, the frames alone must name it."""
    python = pyenv_or_skip(minor)
    (tmp_path / "select.py").write_text("import subprocess\nprint(subprocess.call)\n", encoding="utf-8")
    out = run([python, "select.py"], tmp_path)
    lines = out.strip().splitlines()
    assert lines[0].startswith("Traceback") and 'File "select.py", line 1' in out, out
    cut = "\n".join(lines[:-1])  # the paste ends inside the traceback
    assert first_id(cut) == "module_shadow", out
    (tmp_path / "select.py").rename(tmp_path / "selector_demo.py")  # the same script, another name
    assert run([python, "selector_demo.py"], tmp_path).startswith("<"), "a script that runs"


@pytest.mark.slow
def test_conda_on_a_misspelled_mirror_host(conda_tools, tmp_path: Path) -> None:
    """The real conda with .condarc naming TUNA's mirror misspelled (mirrors.tua..., the CSDN
    report), spelled right, and USTC's real mirror that data/mirrors.yaml does not list. Offline,
    all get no HTTP answer (HTTP 000): only the host tells them apart, and of a host gpuforge
    does not know the doctor says it cannot tell."""
    condarc = tmp_path / "condarc.yml"
    env = dict(
        os.environ,
        CONDARC=str(condarc),
        CONDA_PKGS_DIRS=str(tmp_path / "pkgs"),
        CONDA_REMOTE_MAX_RETRIES="1",
        CONDA_REMOTE_CONNECT_TIMEOUT_SECS="3",
    )
    for host, expected in (
        ("mirrors.tua.tsinghua.edu.cn", "channel_missing"),
        ("mirrors.tuna.tsinghua.edu.cn", "conda_network_unreachable"),
        ("mirrors.ustc.edu.cn", "conda_connection_failed"),
    ):
        condarc.write_text(
            f"solver: rattler\nchannels:\n  - https://{host}/anaconda/cloud/conda-forge\n", encoding="utf-8"
        )
        proc = subprocess.run(
            [
                str(conda_tools.python),
                "-m",
                "conda",
                "create",
                "--dry-run",
                "-p",
                str(tmp_path / "env"),
                "python",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        out = proc.stdout + proc.stderr
        if "HTTP 000 CONNECTION FAILED" not in out and host != "mirrors.tua.tsinghua.edu.cn":
            pytest.skip(f"this machine reaches {host}: no HTTP 000 to reproduce ({out[-300:]})")
        assert f"HTTP 000 CONNECTION FAILED for url <https://{host}/" in out, out
        assert first_id(out) == expected, (host, out)


def test_import_after_an_install_that_found_nothing(tmp_path: Path) -> None:
    """pip finding no torch for this Python (offline: no index at all, as for a Python no torch
    release has a wheel for), then the import: the two together say torch was never installed
    here; the import error alone cannot tell that from torch installed in another env."""
    python = pyenv_or_skip("3.7")
    install = run(
        [python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "torch"], tmp_path
    )
    assert "No matching distribution found for torch" in install, install
    imported = run([python, "-c", "import torch"], tmp_path)
    assert "No module named 'torch'" in imported, imported
    assert first_id(install + imported) == "package_not_installed"
    alone = diagnose_text(imported)
    assert alone[0].id == "module_not_found"
    assert set(alone[0].entry.candidates) == {"env_mismatch", "package_not_installed"}


@pytest.mark.parametrize(
    "flags",
    ["floatX=float23", "device=tpu", "mode=FAST", "compute_test_value=yes"],
)
def test_a_theano_flag_with_a_value_theano_refuses(theano_python, tmp_path: Path, flags: str) -> None:
    """Real Theano 1.0.5 importing with a THEANO_FLAGS value outside the setting's options: the
    import stops with ValueError; the doctor names it from the output alone."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "THEANO_FLAGS": flags}
    proc = subprocess.run(
        [theano_python, "-c", "import theano"], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode != 0 and "ValueError" in proc.stderr, proc.stderr[-500:]
    assert first_id(proc.stderr) == "theano_flag_invalid", proc.stderr[-500:]


def test_theanos_mkl_check_as_pytest_prints_it(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5's check_mkl_openmp where mkl-service is not installed: its RuntimeError
    as pytest shows it (`E   ` before each line), and its first line alone (an issue title)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    code = "import theano.configdefaults as c; c.check_mkl_openmp()"
    proc = subprocess.run([theano_python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert "Could not import 'mkl'." in proc.stderr, proc.stderr[-500:]
    message = proc.stderr[proc.stderr.index("RuntimeError") :]
    as_pytest = "".join(f"E   {line}\n" for line in message.splitlines())
    assert first_id(as_pytest) == "mkl_threading", as_pytest
    assert first_id(message.splitlines()[1]) == "mkl_threading", message
    title = 'To use MKL 2018 with Theano you MUST set "MKL_THREADING_LAYER=GNU"'  # rel-1.0.0:1252
    assert first_id(title) == "mkl_threading"


def test_theano_compile_error_report_in_an_ascii_locale(theano_python, tmp_path: Path) -> None:
    """Theano 1.0.5 reporting a failed compile: Python in an ASCII locale (what a C or missing
    locale gives Python 3.7), g++ in a UTF-8 one (its quotes become U+2018), so compile_str's
    temporary file cannot take g++'s message. The H100 run printed the same with cuDNN 9."""
    gxx = tmp_path / "g++-utf8"
    gxx.write_text('#!/bin/sh\nLC_ALL=C.UTF-8 exec g++ "$@"\n', encoding="utf-8")
    gxx.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "LC_ALL": "C",
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONUTF8": "0",
        "THEANO_FLAGS": f"base_compiledir={tmp_path / 'compiledir'},cxx={gxx}",
    }
    code = (
        "from theano.gof import cmodule\n"
        "cmodule.GCC_compiler.compile_str('m', 'int f() { return undeclared_name; }', "
        f"location={str(tmp_path)!r}, include_dirs=[], lib_dirs=[], libs=[], preargs=[])\n"
    )
    proc = subprocess.run(
        [theano_python, "-c", code], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path
    )
    out = proc.stdout + proc.stderr
    assert "UnicodeEncodeError: 'ascii' codec can't encode character '\\u2018'" in out, out[-2000:]
    assert "tf.write(compile_stderr)" in out
    assert first_id(out) == "theano_compile_unicode"


def test_theanos_compile_error_joins_the_linkers_lines(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 linking a module against a libpython the machine does not have (the
    linker's words, `cannot find -lpython3.9`): compile_str raises `Compilation failed` with the
    compiler's lines joined by `. ` (cmodule.py:2410-2411), and the doctor reads them as lines."""
    code = (
        "from theano.gof import cmodule\n"
        "cmodule.GCC_compiler.compile_str('m', 'int f() { return 0; }', "
        f"location={str(tmp_path)!r}, include_dirs=[], lib_dirs=[], libs=['python3.9'], preargs=[])\n"
    )
    proc = run_in_theano(theano_python, tmp_path, code)
    out = proc.stdout + proc.stderr
    # (binutils 2.38 and later add `: No such file or directory` to the linker's line)
    assert re.search(r"Compilation failed \(return status=1\): [^\n]*cannot find -lpython3\.9[.:] ", out), (
        out[-2000:]
    )
    assert first_id(out) == "libpython_missing"


def run_in_theano(python: str, tmp_path: Path, code: str, flags: str = "") -> subprocess.CompletedProcess:
    """``code`` as a script (its traceback shows the line, as a user's does) under ``python``, with
    its own home and compiledir in ``tmp_path`` (``flags``: more THEANO_FLAGS)."""
    (tmp_path / "script.py").write_text(code + "\n", encoding="utf-8")
    theano_flags = ",".join(f for f in (f"base_compiledir={tmp_path / 'compiledir'}", flags) if f)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "THEANO_FLAGS": theano_flags}
    return subprocess.run(
        [python, "script.py"], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path
    )


def test_a_compiler_message_in_another_code_page(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 compiling with a compiler that prints its error in GBK, as MinGW's g++
    or cl does on a Chinese Windows (the compiler is a stand-in printing those bytes: no
    localized compiler runs here); compile_str reads the output as UTF-8."""
    message = "mod.cpp:1: 错误: “undeclared_name” 未声明\n".encode("gbk")
    cxx = tmp_path / "cxx-gbk"
    cxx.write_text(
        "#!/bin/sh\nprintf '" + "".join(f"\\{c:03o}" for c in message) + "' >&2\nexit 1\n",
        encoding="ascii",
    )
    cxx.chmod(0o755)
    proc = run_in_theano(theano_python, tmp_path, "import theano", f"cxx={cxx}")
    out = proc.stdout + proc.stderr
    assert "UnicodeDecodeError: 'utf-8' codec can't decode byte" in out, out[-2000:]
    assert "compile_stderr = decode(p_out[1])" in out, out[-2000:]
    assert first_id(out) == "theano_compile_unicode"


def test_code_for_an_older_theano(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 importing what Lasagne 0.1's pool layers import (removed in 0.9), and
    asking for it as an attribute."""
    proc = run_in_theano(theano_python, tmp_path, "from theano.tensor.signal import downsample")
    assert "ImportError: cannot import name 'downsample'" in proc.stderr, proc.stderr[-2000:]
    assert first_id(proc.stderr) == "theano_downsample_removed"
    asked = run_in_theano(
        theano_python, tmp_path, "import theano.tensor.signal as S\nS.downsample.max_pool_2d"
    )
    assert "has no attribute 'downsample'" in asked.stderr, asked.stderr[-2000:]
    assert first_id(asked.stderr) == "theano_downsample_removed"
    py2 = asked.stderr.replace("module 'theano.tensor.signal' has", "'module' object has")
    assert first_id(py2) == "theano_downsample_removed"


def test_code_for_the_old_gpu_backend(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 importing the old back-end's cuDNN module, as code for Theano 0.9 does:
    the stub left of theano.sandbox.cuda raises nose's SkipTest, and without nose (this
    environment, most today) fails at its first line."""
    proc = run_in_theano(theano_python, tmp_path, "from theano.sandbox.cuda import dnn")
    assert "from nose.plugins.skip import SkipTest" in proc.stderr, proc.stderr[-2000:]
    assert first_id(proc.stderr) == "theano_old_backend_removed"
    # with nose, the stub's own message (its text from the same file)
    skipped = "unittest.case.SkipTest: You are importing theano.sandbox.cuda. This is the old GPU back-end"
    assert first_id(skipped + " and is removed from Theano.") == "theano_old_backend_removed"
    # code calling the old back-end without importing it (`theano.sandbox.cuda.use('gpu0')`):
    # Theano 1.0's theano.sandbox has no cuda (and `import theano` imports no theano.sandbox),
    # whatever the device flag says
    call = "theano.sandbox.cuda.use('gpu0')"
    for imports, missing in [
        ("import theano.sandbox", "module 'theano.sandbox' has no attribute 'cuda'"),
        ("import theano", "module 'theano' has no attribute 'sandbox'"),
    ]:
        called = run_in_theano(theano_python, tmp_path, f"{imports}\n{call}")
        assert missing in called.stderr, called.stderr[-2000:]
        assert first_id(called.stderr) == "theano_old_backend_removed"
        tried = "I also tried THEANO_FLAGS=device=gpu and got the same error:\n" + called.stderr
        assert first_id(tried) == "theano_old_backend_removed"


def test_a_theano_graph_deeper_than_the_recursion_limit(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 compiling a graph 400 ops deep under a recursion limit of 300 (a deep
    model under the default 1000): Python's RecursionError from Theano's graph walk. Theano's
    optimizer adds its own words to the same error: read from the installed toolbox.py."""
    proc = run_in_theano(
        theano_python,
        tmp_path,
        "import sys\nimport theano\nimport theano.tensor as T\nx = T.vector('x')\ny = x\n"
        "for i in range(400):\n    y = T.tanh(y * 1.01 + 0.5)\nsys.setrecursionlimit(300)\n"
        "theano.function([x], y)",
    )
    assert "RecursionError: maximum recursion depth exceeded" in proc.stderr, proc.stderr[-2000:]
    assert first_id(proc.stderr) == "theano_recursion_limit"
    toolbox = subprocess.run(
        [theano_python, "-c", "import theano.gof.toolbox as t; print(open(t.__file__).read())"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
    ).stdout
    pieces = re.search(r'e\.args \+= \(\s*((?:"[^"]*"\s*)+),\)', toolbox)
    assert pieces, "Theano's toolbox.py no longer adds its words to a RecursionError"
    added = "".join(re.findall(r'"([^"]*)"', pieces.group(1)))
    printed = f"RuntimeError: ('maximum recursion depth exceeded while calling a Python object', '{added}')"
    assert first_id(printed) == "theano_recursion_limit"
    # Theano's words alone, where a paste keeps only its last line
    assert first_id(f"RuntimeError: ('{added}',)") == "theano_recursion_limit"


def test_a_gpu_array_unpickled_without_pygpu(theano_python, tmp_path: Path) -> None:
    """Real Theano 1.0.5 without pygpu unpickling what a GpuArray pickles to (theano.gpuarray.type's
    copyreg constructor, GpuArray_unpickler, with the array's values and context name)."""
    proc = run_in_theano(
        theano_python,
        tmp_path,
        "import pickle\nimport numpy\nimport theano.gpuarray.type as gpu_type\n\n"
        "class Saved:\n    def __reduce__(self):\n"
        "        return gpu_type.GpuArray_unpickler, (numpy.zeros(3, 'float32'), None)\n\n"
        "pickle.loads(pickle.dumps(Saved()))",
    )
    assert "ImportError: pygpu not found. Cannot unpickle GpuArray" in proc.stderr, proc.stderr[-2000:]
    assert first_id(proc.stderr) == "theano_gpu_pickle_on_cpu"


@pytest.mark.slow
def test_theano_104_on_python_310(tmp_path: Path) -> None:
    """Real Theano 1.0.4 (PyPI) imported on Python 3.10: its theano/compat imports MutableMapping
    from collections, which 3.10 no longer has."""
    python = pypi_venv("3.10", tmp_path / "venv", ["Theano==1.0.4", "numpy<1.24", "scipy<1.12"])
    out = run([python, "-c", "import theano"], tmp_path)
    assert "cannot import name 'MutableMapping' from 'collections'" in out, out[-2000:]
    assert first_id(out) == "theano_before_python310", out[-2000:]


def test_theano_09_configured_for_the_gpu_without_pygpu(tmp_path: Path) -> None:
    """Real Theano 0.9.0 (PyPI, Python 3.6) with device=cuda and no pygpu: it prints one line
    for a pygpu missing and one too new (rel-0.9.0 theano/gpuarray/__init__.py); alone it reads
    as the version mismatch the threads of its day found, beside the paste's own `No module
    named 'pygpu'` as pygpu missing."""
    python = pypi_venv("3.6", tmp_path / "venv", ["Theano==0.9.0", "numpy==1.13.3", "scipy==1.0.0"])
    proc = run_in_theano(python, tmp_path, "import theano", "device=cuda")
    assert "pygpu was configured but could not be imported or is too old" in proc.stderr, proc.stderr
    assert first_id(proc.stderr) == "pygpu_version"
    missing = ">>> import pygpu\nModuleNotFoundError: No module named 'pygpu'\n" + proc.stderr
    assert first_id(missing) == "pygpu_import"


FLOAT_MIXES = {
    # TensorType.filter_variable (theano/tensor/type.py): a float64 input given for a float32 one
    "givens": (
        "x = T.matrix('x')\ny = T.dmatrix('y')\ntheano.function([y], (x * 2).sum(), givens={x: y})",
        "TypeError: Cannot convert Type TensorType(float64, matrix)",
    ),
    # ConvOp.make_node (theano/tensor/nnet/conv.py): a float32 image with float64 kernels
    "conv": (
        "from theano.tensor.nnet import conv\n"
        "conv.conv2d(T.tensor4('image', dtype='float32'), T.tensor4('kernel', dtype='float64'))",
        "The image and the kernel must have the same type.inputs(float32), kerns(float64)",
    ),
    # rebuild_collect_shared (theano/compile/pfunc.py): a float32 weight updated with a float64 rate
    "update": (
        "w = theano.shared(np.ones(3, dtype='float32'), name='w')\nlr = T.dscalar('lr')\n"
        "theano.function([lr], updates=[(w, w - lr * w)])",
        "update_val.type=TensorType(float64, vector)",
    ),
}


@pytest.mark.parametrize("case", sorted(FLOAT_MIXES))
def test_float32_and_float64_mixed_in_one_theano_graph(theano_python, tmp_path: Path, case: str) -> None:
    """Real Theano 1.0.5 with floatX=float32 (what GPU users set) meeting a float64 variable:
    each of its three wordings, and the same text cut after the error line, is float64_gpu."""
    code, said = FLOAT_MIXES[case]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "THEANO_FLAGS": "floatX=float32"}
    proc = subprocess.run(
        [theano_python, "-c", f"import numpy as np\nimport theano\nimport theano.tensor as T\n{code}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert said in proc.stderr, proc.stderr[-1500:]
    assert first_id(proc.stderr) == "float64_gpu", proc.stderr[-1500:]
    last_line = proc.stderr.strip().splitlines()[-1]
    assert first_id(last_line) == "float64_gpu", last_line


@pytest.mark.slow
def pypi_venv(minor: str, venv: Path, pins: list[str]) -> str:
    """A venv of pyenv's Python ``minor`` with ``pins`` from PyPI: its python (the test skips,
    naming what it needs, where PyPI cannot give them)."""
    subprocess.run([pyenv_or_skip(minor), "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
    )
    if pip.returncode != 0:
        pytest.skip(f"needs {', '.join(pins)} from PyPI: {pip.stderr.strip()[-200:]}")
    return str(venv / "bin" / "python")


def test_theanos_blas_probe_on_a_numpy_without_blas_opt_info(tmp_path: Path) -> None:
    """Theano 1.0.5 on Python 3.10 with numpy 1.23.5 (PyPI): numpy no longer writes
    numpy.distutils.__config__.blas_opt_info there, and Theano's BLAS probe reads it when blas.ldflags
    is unset. The whole traceback, and pastes cut before its last line or where the chain begins,
    name blas_opt_info."""
    python = pypi_venv("3.10", tmp_path / "venv", ["Theano==1.0.5", "numpy==1.23.5", "scipy==1.11.4"])
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    proc = subprocess.run(
        [python, "-W", "ignore", "-c", "import theano"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "has no attribute 'blas_opt_info'" in proc.stderr, proc.stderr[-1500:]
    assert first_id(proc.stderr) == "blas_opt_info"
    cut = proc.stderr.strip().rsplit("\n", 1)[0]
    assert "blas_info = np.distutils.__config__.blas_opt_info" in cut
    assert first_id(cut) == "blas_opt_info", cut[-800:]
    # cut where the chain begins: the config parser's errors before the probe ran
    head = proc.stderr[: proc.stderr.index("KeyError: 'blas.ldflags'") + len("KeyError: 'blas.ldflags'")]
    assert "NoSectionError: No section: 'blas'" in head
    assert first_id(head) == "blas_opt_info", head[-800:]


@pytest.fixture(scope="module")
def theano07_python(tmp_path_factory) -> str:
    """Theano 0.7.0, the release of 2015 the 'bleeding-edge' threads were about, with Lasagne 0.1
    (the only Lasagne on PyPI), on Python 3.6 with numpy 1.13.3 and scipy 1.0.0 from PyPI."""
    venv = tmp_path_factory.mktemp("theano07")
    return pypi_venv("3.6", venv, ["Theano==0.7.0", "Lasagne==0.1", "numpy==1.13.3", "scipy==1.0.0"])


# what code of 2015-2017 asked of Theano's development version and Lasagne's GitHub master (Keras
# 0.x's activations.relu and pooling with mode=, Blocks' imports, batch normalization layers)
NEWER_RELEASE_CALLS = {
    "relu": ("import theano.tensor as T\nT.nnet.relu", "has no attribute 'relu'", "theano_too_old"),
    "pool mode": (
        "import theano.tensor as T\nfrom theano.tensor.signal import downsample\n"
        "downsample.max_pool_2d(T.tensor4(), (2, 2), mode='average_exc_pad')",
        "max_pool_2d() got an unexpected keyword argument 'mode'",
        "theano_too_old",
    ),
    "bn": ("from theano.tensor.nnet import bn", "cannot import name 'bn'", "theano_too_old"),
    # the deeplearning.net tutorials' In() inputs with updates: 0.7 keeps them to the old semantics
    "In with updates": (
        "import theano, theano.tensor as T\nx = T.scalar()\ns = theano.shared(0.0)\n"
        "theano.function([theano.In(x, value=1.0)], x, updates=[(s, s + x)])",
        "In() instances and tuple inputs trigger the old semantics",
        "theano_too_old",
    ),
    # no pattern names it: the release that added theano.tensor.signal.pool (data/theano_api.json)
    "pool": ("from theano.tensor.signal import pool", "cannot import name 'pool'", "theano_too_old"),
    # the old back-end's module imports (0.7 has it), the name it gained in 0.8 does not: 1.0's
    # theano.sandbox.cuda raises on import, so the name's error says older (data/theano_api.json)
    "old back-end": (
        "from theano.sandbox.cuda.basic_ops import gpu_alloc_empty",
        "cannot import name 'gpu_alloc_empty'",
        "theano_too_old",
    ),
    "pkl_utils": (
        "from theano.misc.pkl_utils import PersistentCudaNdarrayID",
        "PersistentCudaNdarrayID",
        "theano_too_old",
    ),
    "lasagne import": (
        "import lasagne\nfrom lasagne.layers import BatchNormLayer",
        "cannot import name 'BatchNormLayer'",
        "lasagne_too_old",
    ),
    "lasagne attribute": (
        "import lasagne\nlasagne.objectives.categorical_accuracy",
        "has no attribute 'categorical_accuracy'",
        "lasagne_too_old",
    ),
}


@pytest.mark.parametrize("call", sorted(NEWER_RELEASE_CALLS))
def test_code_for_newer_releases_on_theano_07_and_lasagne_01(
    theano07_python, tmp_path: Path, call: str
) -> None:
    """Real Theano 0.7.0 and Lasagne 0.1 asked for what only later Theano (0.8) or Lasagne's
    master has."""
    code, words, expected = NEWER_RELEASE_CALLS[call]
    proc = run_in_theano(theano07_python, tmp_path, code)
    assert words in proc.stderr, proc.stderr[-2000:]
    found = diagnose_log(proc.stderr)  # `gpuforge doctor --log`: the patterns, then the facts
    assert found and found[0].id == expected, proc.stderr[-2000:]


def test_a_compiledir_lock_another_process_holds(tmp_path: Path) -> None:
    """Aesara's compile lock (aesara/compile/compilelock.py: filelock.FileLock on
    <compiledir>/.lock) held by another process: the real filelock's Timeout."""
    filelock = pytest.importorskip("filelock", reason="needs filelock: `pip install filelock`")
    lock = tmp_path / "compiledir_Linux-5.10-x86_64-with-glibc2.31-x86_64-3.11.4-64" / ".lock"
    lock.parent.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import filelock, sys; held = filelock.FileLock({str(lock)!r}); held.acquire(); "
            "print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(filelock.Timeout) as raised:
            filelock.FileLock(str(lock)).acquire(timeout=0.2)
    finally:
        holder.kill()
        holder.wait()
    assert first_id(f"filelock._error.Timeout: {raised.value}") == "compile_lock"


def test_a_library_or_program_built_for_another_cpu(tmp_path: Path) -> None:
    """This machine's own loaders refuse files of another architecture: glibc's dlopen a 32-bit
    ELF library in this 64-bit Python, and bash an AArch64 ELF program (the kernel's ENOEXEC).
    The files are bare ELF headers written here; the refusals are the real loader's and bash's."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("needs x86_64 Linux (glibc and bash refuse the i386 and AArch64 files)")
    elf32 = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
    elf32 += struct.pack("<HHIIIIIHHHHHH", 3, 3, 1, 0, 52, 0, 0, 52, 32, 0, 40, 0, 0)
    (tmp_path / "lib32.so").write_bytes(elf32 + bytes(64))
    out = run([sys.executable, "-c", "import ctypes; ctypes.CDLL('./lib32.so')"], tmp_path)
    assert "wrong ELF class: ELFCLASS32" in out, out[-2000:]
    assert first_id(out) == "binary_for_other_cpu"

    elf64 = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    elf64 += struct.pack("<HHIQQQIHHHHHH", 2, 183, 1, 0x400000, 64, 0, 0, 64, 56, 0, 64, 0, 0)
    program = tmp_path / "aarch64-program"
    program.write_bytes(elf64 + bytes(64))
    program.chmod(0o755)
    out = run([tool("bash", "bash"), "-c", str(program)], tmp_path)
    assert "cannot execute binary file: Exec format error" in out, out[-2000:]
    assert first_id(out) == "binary_for_other_cpu"


def test_a_write_to_a_full_device(tmp_path: Path) -> None:
    """The kernel's ENOSPC for real: Linux's /dev/full refuses every write as a full disk does,
    and Python says so as pip and the other programs do, [Errno 28]."""
    if not Path("/dev/full").exists():
        pytest.skip("needs Linux's /dev/full (a device that is always full)")
    out = run([sys.executable, "-c", "open('/dev/full', 'wb', buffering=0).write(b'x')"], tmp_path)
    assert "OSError: [Errno 28] No space left on device" in out, out[-2000:]
    assert first_id(out) == "disk_full"
    # ... the same errno from /dev/shm is shared memory, another entry's
    assert (
        first_id(
            out + "ERROR: Unexpected bus error encountered in worker. This might be caused by "
            "insufficient shared memory (shm).\n"
        )
        != "disk_full"
    )


def test_an_extension_linked_against_torchs_libraries(tmp_path: Path) -> None:
    """The torch 2.13.0 wheel's libc10.so, and a Python extension and a program linked against it
    as a package's compiled _C and a LibTorch program are: without torch's libraries loaded (as
    `import torch` loads them from torch/lib) or on the loader's path, the loader refuses both."""
    gcc = tool("gcc", "gcc")
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    (lib / "libc10.so").write_bytes(torch_wheel_file("torch/lib/libc10.so"))
    (tmp_path / "program.c").write_text("int main(void) { return 0; }\n", encoding="utf-8")
    link = ["-Wl,--no-as-needed", "-Ltorch/lib", "-lc10"]
    built_extension(gcc, tmp_path, "trilinear", *link)
    built = run([gcc, "program.c", "-o", "program", *link], tmp_path)
    assert (tmp_path / "program").exists(), built

    imported = run([sys.executable, "-c", "import trilinear"], tmp_path)
    assert "libc10.so: cannot open shared object file" in imported, imported
    assert first_id(imported) == "torch_libraries_not_on_loader_path"
    loaded_first = "import ctypes; ctypes.CDLL('./torch/lib/libc10.so', ctypes.RTLD_GLOBAL); import trilinear"
    assert run([sys.executable, "-c", loaded_first], tmp_path) == ""

    program = run(["./program"], tmp_path)
    assert "error while loading shared libraries: libc10.so: cannot open shared object file" in program
    assert first_id(program) == "torch_libraries_not_on_loader_path"
    env = dict(os.environ, LD_LIBRARY_PATH=str(lib))
    assert subprocess.run(["./program"], cwd=tmp_path, env=env).returncode == 0


def test_a_cuda_builds_extension_under_a_cpu_torch(tmp_path: Path) -> None:
    """An extension built against a CUDA build of PyTorch (linked against libc10 and
    libtorch_cuda) imported after a CPU build's libraries are loaded (as `import torch` of the torch
    2.13.0+cpu wheel loads libc10.so): the CPU build has no libtorch_cuda.so, so the loader refuses
    that one library: the extension is for another torch, not off the loader's path."""
    gcc = tool("gcc", "gcc")
    lib = tmp_path / "torch" / "lib"
    lib.mkdir(parents=True)
    (lib / "libc10.so").write_bytes(torch_wheel_file("torch/lib/libc10.so"))
    torch_cuda = built_library(gcc, tmp_path, "torch/lib/libtorch_cuda.so", "void stub(void) {}\n")
    built_extension(gcc, tmp_path, "cudaext", "-Wl,--no-as-needed", "-Ltorch/lib", "-lc10", "-ltorch_cuda")
    torch_cuda.unlink()  # the CPU build's torch/lib has none

    torch_loaded = "import ctypes; ctypes.CDLL('./torch/lib/libc10.so', ctypes.RTLD_GLOBAL); import cudaext"
    imported = run([sys.executable, "-c", torch_loaded], tmp_path)
    assert "libtorch_cuda.so: cannot open shared object file" in imported, imported
    assert first_id(f">>> import torch\n>>> import cudaext\n{imported}") == "torch_extension_other_torch"
    assert first_id(imported) == "torch_libraries_not_on_loader_path"  # torch not shown imported first


def build_ext_says(python: str, cwd: Path, setup: str, env: dict[str, str] | None = None) -> str:
    """What `python setup.py build_ext` prints in ``cwd`` for the setup script ``setup``, whose
    extension's one source is mod.c (an empty C function)."""
    (cwd / "mod.c").write_text("int f(void) { return 0; }\n", encoding="utf-8")
    (cwd / "setup.py").write_text(setup, encoding="utf-8")
    return run([python, "setup.py", "build_ext"], cwd, env=env)


# setuptools' wording of a compiler that is not there, by release: 65.5's spawn translates the
# OSError ("command 'X' failed: ..."), 84's compilers raise it as it is ("[Errno 2] ...: 'X'")
SETUPTOOLS_NOT_THERE = ("command '{}' failed: No such file or directory", "No such file or directory: '{}'")


@pytest.mark.parametrize(
    "minor, said",
    [
        ("3.7", ("unable to execute 'gcc': No such file or directory",)),
        ("this venv", tuple(w.format("gcc") for w in SETUPTOOLS_NOT_THERE)),
    ],
)
def test_an_extension_built_where_no_c_compiler_is_on_path(
    tmp_path: Path, minor: str, said: tuple[str, ...]
) -> None:
    """setup.py build_ext with the compiler missing from PATH (CC=gcc, PATH without it): CPython
    3.7's distutils says "unable to execute 'gcc'" from its forked child, setuptools (this
    venv's) in its release's words."""
    python = sys.executable if minor == "this venv" else pyenv_or_skip(minor)
    builder = "setuptools" if minor == "this venv" else "distutils.core"
    (tmp_path / "bin").mkdir()
    setup = f"from {builder} import setup, Extension\nsetup(ext_modules=[Extension('mod', ['mod.c'])])\n"
    out = build_ext_says(python, tmp_path, setup, env={"CC": "gcc", "PATH": str(tmp_path / "bin")})
    assert any(wording in out for wording in said), out
    assert first_id(out) == "c_compiler_missing", out


def test_an_nvcc_that_cuda_home_does_not_have(tmp_path: Path) -> None:
    """CUDA_HOME set to a folder without bin/nvcc (a conda environment with cudatoolkit): torch
    2.13.0's own _check_cuda_version (the function from the real torch wheel) refuses it, and
    setuptools' spawn of <CUDA_HOME>/bin/nvcc, as torch's BuildExtension compiles a .cu file,
    finds no such file; both name torch_extension_no_cuda_home."""
    function = torch_wheel_function("torch/utils/cpp_extension.py", "_check_cuda_version")
    cuda_home = tmp_path / "env"
    (cuda_home / "lib").mkdir(parents=True)
    script = tmp_path / "check.py"
    script.write_text(
        f"import os\nCUDA_HOME = {str(cuda_home)!r}\nIS_WINDOWS = False\nTorchVersion = str\n"
        f"{function}\n_check_cuda_version('c++', '13.2')\n",
        encoding="utf-8",
    )
    checked = run([sys.executable, str(script)], tmp_path)
    assert "FileNotFoundError: nvcc not found at" in checked, checked
    setup = (
        "from setuptools import setup, Extension\nfrom setuptools.command.build_ext import build_ext\n"
        "class BuildExtension(build_ext):  # torch's: the compiler of a CUDA source is nvcc\n"
        "    def build_extensions(self):\n"
        f"        self.compiler.set_executable('compiler_so', [{str(cuda_home / 'bin' / 'nvcc')!r}])\n"
        "        super().build_extensions()\n"
        "setup(ext_modules=[Extension('mod', ['mod.c'])], cmdclass={'build_ext': BuildExtension})\n"
    )
    built = build_ext_says(sys.executable, tmp_path, setup)
    nvcc = str(cuda_home / "bin" / "nvcc")
    assert any(w.format(nvcc) in built for w in SETUPTOOLS_NOT_THERE), built
    for out in (checked, built):
        assert first_id(out) == "torch_extension_no_cuda_home", out


def test_a_link_against_the_drivers_libcuda_where_it_is_not(tmp_path: Path) -> None:
    """gcc linking -lcuda (as Triton's launcher stub and CUDA bindings do) on this driverless
    machine, whose linker finds no libcuda.so: GNU ld's own words name
    libcuda_unversioned_missing, and -lcudart's do not."""
    gcc = tool("gcc", "gcc")
    (tmp_path / "stub.c").write_text("int launch(void) { return 0; }\n", encoding="utf-8")
    out = run([gcc, "-shared", "-fPIC", "stub.c", "-o", "stub.so", "-lcuda"], tmp_path)
    assert "cannot find -lcuda" in out, out
    assert first_id(out) == "libcuda_unversioned_missing", out
    assert first_id(out.replace("-lcuda", "-lcudart")) != "libcuda_unversioned_missing"

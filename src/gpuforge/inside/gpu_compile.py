"""Compile GPU kernels the way pygpu and Theano do, and say what happened (Python 2.7+).

    python gpu_compile.py pygpu|theano

Run by the mock GPU tier (gpuforge.smoke.mockgpu) under the interpreter that has pygpu (and
Theano), against whatever CUDA driver the environment makes libgpuarray load: there, a mock
driver, so nothing runs and no number is checked. ``pygpu``: init cuda0, a GEMM (libgpuarray's
BLAS helper kernels, as Theano's init does) and an elemwise kernel. ``theano``: Theano's
device=cuda0 start-up and one function with GPU ops. When NVRTC refuses, its own log for the
same ``-arch`` is read through ctypes. Prints one JSON object on a line starting with MARK.
"""
from __future__ import print_function

import ctypes
import json
import sys
import traceback

MARK = "GPUFORGE_COMPILE "


def nvrtc_log(arch):
    """NVRTC's log and result for a one-line kernel compiled with ``-arch <arch>``."""
    lib = ctypes.CDLL("libnvrtc.so")
    prog = ctypes.c_void_p()
    src = b'extern "C" __global__ void k(float *a) { a[0] = 1.0f; }'
    lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"k.cu", 0, None, None)
    opts = (ctypes.c_char_p * 2)(b"-arch", arch.encode())
    code = lib.nvrtcCompileProgram(prog, 2, opts)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value + 1)
    lib.nvrtcGetProgramLog(prog, buf)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return {"result": lib.nvrtcGetErrorString(code).decode(),
            "log": buf.value.decode("utf-8", "replace").strip()}


def error_of(exc):
    return {"type": type(exc).__name__, "message": str(exc),
            "traceback": traceback.format_exc().strip().splitlines()[-6:]}


def run_pygpu(out):
    import pygpu
    from pygpu import blas, elemwise
    ctx = pygpu.init("cuda0")
    out["bin_id"] = ctx.bin_id.decode() if isinstance(ctx.bin_id, bytes) else ctx.bin_id
    out["devname"] = ctx.devname
    a = pygpu.gpuarray.zeros((8, 8), dtype="float32", context=ctx)
    blas.gemm(1.0, a, a, 0.0, a)
    out["gemm"] = True
    elemwise.elemwise2(a, "+", a, a)
    out["elemwise"] = True


def run_theano(out):
    import numpy
    import theano
    import theano.tensor as T
    x = T.fmatrix("x")
    f = theano.function([x], [T.exp(x) + 1, T.dot(x, x)])
    out["ops"] = sorted(set(type(n.op).__name__ for n in f.maker.fgraph.toposort()))
    f(numpy.ones((4, 4), dtype="float32"))
    out["ran"] = True


def main(argv):
    what = argv[0] if argv else "pygpu"
    out = {"what": what}
    try:
        (run_theano if what == "theano" else run_pygpu)(out)
    except Exception as exc:
        out["error"] = error_of(exc)
    if "bin_id" not in out:
        try:
            import pygpu
            ctx = pygpu.init("cuda0")
            out["bin_id"] = ctx.bin_id.decode() if isinstance(ctx.bin_id, bytes) else ctx.bin_id
        except Exception as exc:
            out.setdefault("error", error_of(exc))
    if out.get("error") and out.get("bin_id") and "NVRTC" in out["error"]["message"]:
        try:
            out["nvrtc"] = nvrtc_log(out["bin_id"])
        except Exception as exc:
            out["nvrtc"] = {"error": str(exc)}
    sys.stdout.write("\n" + MARK + json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

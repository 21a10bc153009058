"""Compile GPU kernels the way pygpu and Theano do, and say what happened (Python 2.7+).

    python gpu_compile.py pygpu|theano|theano-ops [--topk-fix DIR]

Run by the mock GPU tier (gpuforge.smoke.mockgpu) under the interpreter that has pygpu (and
Theano), against whatever CUDA driver the environment makes libgpuarray load: there, a mock
driver, so nothing runs and no number is checked. ``pygpu``: init cuda0, a GEMM (libgpuarray's
BLAS helper kernels, as Theano's init does) and an elemwise kernel. ``theano``: Theano's
device=cuda0 start-up and one function with GPU ops. ``theano-ops``: one function per op family
the env files promise (elementwise, reductions, GEMM and GEMV, GpuCorrMM convolutions, float16,
softmax, top-k), each compiled and called, so that every kernel Theano builds reaches NVRTC and
the driver. ``--topk-fix DIR`` imports theano-gpu-config's theano_gpu_config_topk.py from DIR
first, as its .pth does in an environment. When NVRTC refuses, its own log for the same
``-arch`` is read through ctypes. Prints one JSON object on a line starting with MARK.
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


def op_families():
    """(family, build): build() returns (theano function, its arguments) for one op family."""
    import numpy
    import theano
    import theano.tensor as T
    rng = numpy.random.RandomState(0)
    m = rng.rand(16, 16).astype("float32")
    v = rng.rand(16).astype("float32")

    def elementwise():
        x = T.fmatrix()
        return theano.function([x], T.exp(x) * 2 + 1), [m]

    def reduction():
        x = T.fmatrix()
        return theano.function([x], [x.sum(axis=0), x.max(axis=1), x.mean()]), [m]

    def gemm_gemv():
        x, y = T.fmatrix(), T.fvector()
        return theano.function([x, y], [T.dot(x, x) + x, T.dot(x, y)]), [m, v]

    def conv():
        img, kern = T.ftensor4(), T.ftensor4()
        out = T.nnet.conv2d(img, kern)
        return theano.function([img, kern], out), [rng.rand(2, 3, 8, 8).astype("float32"),
                                                   rng.rand(4, 3, 3, 3).astype("float32")]

    def float16():
        x = T.matrix(dtype="float16")
        return theano.function([x], [T.dot(x, x), x * 2 + 1]), [m.astype("float16")]

    def softmax():
        x = T.fmatrix()
        return theano.function([x], T.nnet.softmax(x)), [m]

    def topk():
        x = T.fvector()
        return theano.function([x], [T.topk(x, 3, sorted=False), T.argtopk(x, 3, sorted=False)]), [v]

    return [("elementwise", elementwise), ("reduction", reduction), ("gemm_gemv", gemm_gemv),
            ("conv", conv), ("float16", float16), ("softmax", softmax), ("topk", topk)]


def run_theano_ops(out):
    """Every op family once; one family's failure is its own entry, the others still run."""
    families = {}
    for name, build in op_families():
        family = {}
        try:
            fn, args = build()
            family["ops"] = sorted(set(type(n.op).__name__ for n in fn.maker.fgraph.toposort()))
            fn(*args)
            family["ran"] = True
        except Exception as exc:
            family["error"] = error_of(exc)
        families[name] = family
    out["families"] = families
    out["ops"] = sorted(set(op for f in families.values() for op in f.get("ops", [])))


RUNS = {"pygpu": run_pygpu, "theano": run_theano, "theano-ops": run_theano_ops}


def main(argv):
    args = list(argv)
    if "--topk-fix" in args:  # theano-gpu-config's fix, as its .pth imports it
        at = args.index("--topk-fix")
        sys.path.insert(0, args[at + 1])
        import theano_gpu_config_topk  # noqa: F401
        del args[at:at + 2]
    what = args[0] if args else "pygpu"
    out = {"what": what}
    try:
        RUNS[what](out)
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

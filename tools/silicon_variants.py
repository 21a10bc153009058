"""One libgpuarray build on the device: run by the silicon tier's runner under the bundle's
Python 3.7 (whichever libgpuarray.so.3 LD_LIBRARY_PATH finds first, GPUARRAY_CUDA_ARCH as set).

pygpu's elementwise kernel, a reduction and cuBLAS's sgemm and dgemm against numpy in float64,
the first call (NVRTC and the driver's JIT) and a cached one; the arch libgpuarray compiled for.
Prints one JSON line: the figures and a one-line summary.
"""

import json
import sys
import time


def rel(a, b):
    import numpy

    return float(numpy.max(numpy.abs(a - b)) / max(float(numpy.max(numpy.abs(b))), 1e-30))


def main():
    out = {}
    try:
        import numpy
        import pygpu
        from pygpu import blas

        start = time.time()
        ctx = pygpu.init("cuda0")
        out["init_seconds"] = round(time.time() - start, 3)
        out["devname"] = ctx.devname
        out["bin_id"] = ctx.bin_id.decode() if isinstance(ctx.bin_id, bytes) else ctx.bin_id
        rng = numpy.random.RandomState(0)
        host = rng.rand(2048, 2048).astype("float32")
        a = pygpu.gpuarray.array(host, context=ctx, cls=pygpu.ndgpuarray)
        start = time.time()
        first = numpy.asarray(a * 2 + 1)
        out["elementwise_first_seconds"] = round(time.time() - start, 4)
        start = time.time()
        numpy.asarray(a * 2 + 1)
        out["elementwise_cached_seconds"] = round(time.time() - start, 4)
        out["elementwise_rel_error"] = rel(first.astype("float64"), host.astype("float64") * 2 + 1)
        out["reduction_rel_error"] = abs(
            float(numpy.asarray(a.sum())) - host.sum(dtype="float64")
        ) / host.sum(dtype="float64")
        for dtype in ("float32", "float64"):
            m = rng.rand(2048, 2048).astype(dtype)
            g = pygpu.gpuarray.array(m, context=ctx)
            c = pygpu.gpuarray.zeros((2048, 2048), dtype=dtype, context=ctx)
            # overwrite_c: without it pygpu's gemm computes into a copy of c and returns that
            # (pygpu/blas.pyx 0.7.6), and c stays zeros: an H200 run read that as a wrong sgemm
            start = time.time()
            blas.gemm(1.0, g, g, 0.0, c, overwrite_c=True)
            got = numpy.asarray(c)
            out[dtype + "_gemm_first_seconds"] = round(time.time() - start, 4)
            start = time.time()
            for _ in range(10):
                blas.gemm(1.0, g, g, 0.0, c, overwrite_c=True)
            ctx.synchronize() if hasattr(ctx, "synchronize") else numpy.asarray(c)
            per = (time.time() - start) / 10
            out[dtype + "_gemm_tflops"] = round(2 * 2048**3 / per / 1e12, 1)
            out[dtype + "_gemm_rel_error"] = rel(got.astype("float64"), m.astype("float64").dot(m))
        ok = (
            out["elementwise_rel_error"] < 1e-6
            and out["reduction_rel_error"] < 1e-4
            and out["float32_gemm_rel_error"] < 1e-5
            and out["float64_gemm_rel_error"] < 1e-12
        )
        out["matches_numpy"] = ok
        out["summary"] = "%s, PTX for %s: %s (elementwise %.0e, sgemm %.0e, dgemm %.0e)" % (
            out["devname"],
            out["bin_id"],
            "matches numpy" if ok else "DIFFERS from numpy",
            out["elementwise_rel_error"],
            out["float32_gemm_rel_error"],
            out["float64_gemm_rel_error"],
        )
    except Exception as exc:
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
        out["summary"] = "failed: " + out["error"][:200]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

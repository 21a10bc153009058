"""GPU checks, run by the interpreter under test (Python 2.7 and 3.6+, stdlib only).

    python gpu_checks.py CHECK [CHECK ...] [--device DEV] [--iters N] [--steps N]
                         [--require-cuda] [--module NAME]

CHECK is one of exp, reduce, gemm, conv, float16, topk, transfer, logreg, compiler, driver,
pygpu, cudnn, torch, mxnet, shadow; several run in one process (Theano is imported once).
exp and reduce ... topk are the op families the GPU env files promise: each must run as its
GPU op on the device and match numpy. Without --device, the device is the one Theano is
configured for (THEANO_FLAGS, then its config files), and a cuda device means --require-cuda.
Each prints its result
as one JSON object on a line starting with RESULT_MARK, whatever happens: a
failure is data (exception type, message, traceback tail), never a crash.
Status: "pass", "fail" or "skip" (with a reason).
"""
from __future__ import division, print_function

import json
import os
import struct
import sys
import time
import traceback

if __package__:  # imported by gpuforge on the host
    from gpuforge.inside import theanorc_lines
else:  # run as a script by the interpreter under test: its sibling, whatever sys.path holds
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import theanorc_lines

RESULT_MARK = "GPUFORGE_RESULT "
CPU_BLAS = ("Gemv", "CGemv", "Gemm", "CGemm")
# Seed 004's exercise trains at 0.01 for 10000 steps. At 0.5 its predictions are 95% right
# after about 40 steps (0.1 needs about 200): training stops there, at most --steps.
LEARNING_RATE = 0.5
TRAINED = 0.95  # the share of right predictions that ends training early
GPU_BLAS = ("GpuGemv", "GpuGemm")


class Skip(Exception):
    """The check does not apply here (reason in the message)."""


def error_data(exc):
    tb = traceback.format_exc().strip().splitlines()
    return {"type": type(exc).__name__, "module": type(exc).__module__,
            "message": str(exc)[-4000:], "traceback_tail": tb[-15:]}


def op_names(fn):
    return [type(node.op).__name__ for node in fn.maker.fgraph.toposort()]


def graph_text(fn):
    return [str(node) for node in fn.maker.fgraph.toposort()]


def cpu_elemwise(fn):
    """Theano's fixed check: an Elemwise that is not a Gpu op ran on the CPU."""
    from theano import tensor
    return [str(n) for n in fn.maker.fgraph.toposort()
            if isinstance(n.op, tensor.Elemwise) and "Gpu" not in type(n.op).__name__]


def theano_device():
    import theano
    info = {"theano": theano.__version__, "requested_device": theano.config.device,
            "floatX": theano.config.floatX, "cxx": theano.config.cxx, "devname": None,
            "context_kind": None, "platform": sys.platform, "compiledir": theano.config.compiledir,
            # the files Theano reads (~/.theanorc, and ~/.theanorc.txt on Windows) or THEANORC's
            "config_files": list(getattr(theano.configparser, "config_files", []))}
    try:
        import theano.gpuarray
        if theano.gpuarray.pygpu_activated:
            from theano.gpuarray.type import get_context
            ctx = get_context(None)
            info["devname"] = ctx.devname.strip()
            kind = ctx.kind
            info["context_kind"] = kind.decode() if isinstance(kind, bytes) else kind
    except Exception as exc:  # the device facts are optional: never fail on them
        info["device_error"] = error_data(exc)
    return info


def theano_flags():
    """THEANO_FLAGS as Theano reads it: comma-separated key=value, a later key wins."""
    found = {}
    for item in os.environ.get("THEANO_FLAGS", "").split(","):
        key, sep, value = item.partition("=")
        if sep:
            found[key.strip()] = value.strip()
    return found


def config_files():
    """Theano's config files in its order (a later file wins): THEANORC, else ~/.theanorc and,
    on Windows, ~/.theanorc.txt."""
    if os.environ.get("THEANORC") is not None:
        return [os.path.expanduser(f) for f in os.environ["THEANORC"].split(os.pathsep) if f]
    files = [os.path.expanduser("~/.theanorc")]
    if sys.platform == "win32":
        files.append(os.path.expanduser("~/.theanorc.txt"))
    return files


def setting_source(key):
    """(value, where, why) of Theano option ``key`` (``device``, ``dnn.enabled``) as Theano reads
    it without importing it: THEANO_FLAGS, else the last config file that sets it, with the
    comment lines written just above it (why); (None, None, "") when nothing sets it."""
    flags = theano_flags()
    if key in flags:
        return flags[key], "THEANO_FLAGS", ""
    section, _, option = key.rpartition(".")
    found = (None, None, "")
    for path in config_files():
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as fh:
            lines = fh.read().decode("utf-8", "replace").splitlines()
        reading = theanorc_lines.read_lines(lines, sys.version_info[:2])
        line = reading.settings().get((section or "global", option.lower()))
        if line is None:
            continue
        comments, at = [], line.number - 2
        while at >= 0 and reading.lines[at].kind == theanorc_lines.COMMENT and lines[at].strip():
            comments.insert(0, lines[at].strip().lstrip("#;").strip())
            at -= 1
        found = (line.value, "%s:%d" % (path, line.number), " ".join(comments))
    return found


def wants_gpu(device):
    return device.startswith(("cuda", "opencl", "gpu"))


def shared_vector(seed=22, size=10 * 30 * 768):
    import numpy
    from theano import config, shared
    rng = numpy.random.RandomState(seed)
    return shared(numpy.asarray(rng.rand(size), config.floatX))


def timed_loop(fn, iters):
    start = time.time()
    for _ in range(iters):
        out = fn()
    return time.time() - start, out


def check_exp(opts):
    """Seed 002/004's check, corrected: which device ran exp(), how fast, how right."""
    import numpy
    from theano import function, tensor
    info = theano_device()
    x = shared_vector()
    f = function([], tensor.exp(x))
    iters = opts["iters"]
    loop_s, out = timed_loop(f, iters)
    host = x.get_value()
    numpy_s, expected = timed_loop(lambda: numpy.exp(host), iters)
    result = numpy.asarray(out)
    ops = op_names(f)
    on_cpu = cpu_elemwise(f)
    used = "cpu" if on_cpu or not any(op.startswith("Gpu") for op in ops) else "gpu"
    # what the seeds' own check prints: isinstance(op, Elemwise), which GpuElemwise passes
    from theano import tensor as T
    seed_says = "Used the cpu" if any(isinstance(n.op, T.Elemwise)
                                      for n in f.maker.fgraph.toposort()) else "Used the gpu"
    matches = bool(numpy.allclose(result, expected, rtol=1e-5, atol=1e-6))
    info.update(graph=graph_text(f), ops=ops, used=used, seed_check_says=seed_says,
                iters=iters, loop_seconds=loop_s, numpy_seconds=numpy_s,
                matches_numpy=matches, max_abs_error=float(numpy.max(numpy.abs(result - expected))))
    if not matches:
        info.update(status="fail", reason="exp() differs from numpy.exp beyond float32 tolerance")
    elif wants_gpu(info["requested_device"]) and used != "gpu":
        info.update(status="fail", reason="device=%s was requested but exp() ran on the CPU"
                    % info["requested_device"])
    else:
        info["status"] = "pass"
    return info


# --- the op families the GPU env files promise: each on the device, each against numpy ------

def gpu_context_or_skip():
    info = theano_device()
    if not info["devname"]:
        raise Skip("device=%s: no GPU context, no GPU op to check" % info["requested_device"])
    return info


def family_result(info, fn, needed, matches, what):
    """pass when a GPU op of ``needed`` is in the graph and the results match numpy."""
    ops = op_names(fn)
    on_device = sorted(set(op for op in ops if op.startswith(needed)))
    info.update(ops=sorted(set(ops)), gpu_ops=on_device, matches_numpy=bool(matches))
    if not on_device:
        info.update(status="fail", reason="%s ran on the CPU: no %s in the graph (%s)"
                    % (what, " or ".join(needed), ", ".join(sorted(set(ops)))))
    elif not matches:
        info.update(status="fail", reason="%s on the device (%s) differs from numpy"
                    % (what, ", ".join(on_device)))
    else:
        info.update(status="pass", reason="%s: %s match numpy" % (what, ", ".join(on_device)))
    return info


def check_reduce(opts):
    """Reductions (sum, max, mean) as GpuCAReduce* on the device."""
    import numpy
    from theano import function
    from theano import tensor as T
    info = gpu_context_or_skip()
    m = numpy.random.RandomState(3).rand(300, 200).astype("float32")
    x = T.fmatrix()
    f = function([x], [x.sum(axis=0), x.max(axis=1), x.mean()])
    total, top, mean = [numpy.asarray(o) for o in f(m)]
    ok = (numpy.allclose(total, m.sum(axis=0, dtype="float64"), rtol=1e-4) and
          numpy.allclose(top, m.max(axis=1)) and numpy.isclose(mean, m.mean(dtype="float64"), rtol=1e-4))
    return family_result(info, f, ("GpuCAReduce",), ok, "sum, max and mean")


def check_gemm(opts):
    """Matrix products: GEMM (GpuDot22/GpuGemm) and GEMV (GpuGemv unless the env excludes it)."""
    import numpy
    from theano import function
    from theano import tensor as T
    info = gpu_context_or_skip()
    rng = numpy.random.RandomState(4)
    a, b = rng.rand(200, 300).astype("float32"), rng.rand(300, 100).astype("float32")
    v = rng.rand(300).astype("float32")
    x, y, z = T.fmatrix(), T.fmatrix(), T.fvector()
    f = function([x, y, z], [T.dot(x, y), T.dot(x, z)])
    mm, mv = [numpy.asarray(o) for o in f(a, b, v)]
    ok = (numpy.allclose(mm, a.astype("float64").dot(b), rtol=1e-4) and
          numpy.allclose(mv, a.astype("float64").dot(v), rtol=1e-4))
    ops = op_names(f)
    info["gemv_on"] = ("gpu" if "GpuGemv" in ops else
                       "cpu" if any(o in CPU_BLAS for o in ops) else "gpu (GEMM)")
    return family_result(info, f, ("GpuDot22", "GpuGemm"), ok, "GEMM and GEMV")


def numpy_conv2d(img, kern):
    """conv2d's default (a true convolution: the filters flipped), 'valid', stride 1."""
    import numpy
    n, _, h, w = img.shape
    k, _, kh, kw = kern.shape
    flipped = kern[:, :, ::-1, ::-1].astype("float64")
    out = numpy.zeros((n, k, h - kh + 1, w - kw + 1))
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[:, :, i, j] = numpy.tensordot(img[:, :, i:i + kh, j:j + kw], flipped,
                                              axes=([1, 2, 3], [1, 2, 3]))
    return out


def check_conv(opts):
    """conv2d on the device: GpuCorrMM (cuDNN off) or a cuDNN op."""
    import numpy
    from theano import function
    from theano import tensor as T
    info = gpu_context_or_skip()
    rng = numpy.random.RandomState(5)
    img, kern = rng.rand(2, 3, 16, 16).astype("float32"), rng.rand(4, 3, 3, 3).astype("float32")
    x, w = T.ftensor4(), T.ftensor4()
    f = function([x, w], T.nnet.conv2d(x, w))
    ok = numpy.allclose(numpy.asarray(f(img, kern)), numpy_conv2d(img, kern), rtol=1e-4, atol=1e-4)
    return family_result(info, f, ("GpuCorrMM", "GpuDnnConv"), ok, "conv2d")


def check_float16(opts):
    """float16 on the device: a matrix product and an elementwise op (numpy in float32 as the
    reference, at float16's precision)."""
    import numpy
    from theano import function
    from theano import tensor as T
    info = gpu_context_or_skip()
    m = numpy.random.RandomState(6).rand(64, 64).astype("float16")
    x = T.matrix(dtype="float16")
    f = function([x], [T.dot(x, x), x * 2 + 1])
    try:
        outputs = f(m)
    except Exception as exc:  # pocl's CPU device: CLBlast has no half precision there
        if info["context_kind"] == "opencl" and "float16 is not supported on this device" in str(exc):
            raise Skip("this OpenCL device has no float16 (CLBlast: float16 is not supported on this "
                       "device); the CUDA env files' GPUs have it")
        raise
    mm, el = [numpy.asarray(o).astype("float32") for o in outputs]
    ref = m.astype("float32")
    ok = (numpy.allclose(mm, ref.dot(ref), rtol=2e-2, atol=1e-1) and
          numpy.allclose(el, ref * 2 + 1, rtol=2e-3, atol=1e-2))
    return family_result(info, f, ("GpuDot22", "GpuGemm", "GpuElemwise"), ok, "float16 dot and elementwise")


def check_topk(opts):
    """T.topk and T.argtopk (GpuTopKOp: CUDA kernels only in Theano 1.0.5)."""
    import numpy
    from theano import function
    from theano import tensor as T
    info = gpu_context_or_skip()
    if info["context_kind"] != "cuda":
        raise Skip("GpuTopKOp has CUDA kernels only (Theano 1.0.5's sort.py): device=%s"
                   % info["requested_device"])
    v = numpy.random.RandomState(7).permutation(2000).astype("float32")
    x = T.fvector()
    f = function([x], [T.topk(x, 10, sorted=False), T.argtopk(x, 10, sorted=False)])
    values, indices = [numpy.asarray(o) for o in f(v)]
    want = numpy.sort(v)[-10:]
    ok = (numpy.array_equal(numpy.sort(values), want) and
          numpy.array_equal(numpy.sort(v[indices.astype("int64")]), want))
    return family_result(info, f, ("GpuTopKOp",), ok, "topk and argtopk")


def check_transfer(opts):
    """Seed 004 1.2: the same exp() with its output kept on the device vs copied back."""
    import numpy
    from theano import function, tensor
    info = theano_device()
    if not info["devname"]:
        raise Skip("no GPU context (device=%s): nothing to keep on a device"
                   % info["requested_device"])
    x = shared_vector()
    back = function([], tensor.exp(x))
    kept = function([], tensor.exp(x).transfer(None))
    iters = opts["iters"]
    back_s, back_out = timed_loop(back, iters)
    kept_s, kept_out = timed_loop(kept, iters)
    kept_host = numpy.asarray(kept_out)  # synchronises the queue
    matches = bool(numpy.allclose(kept_host, numpy.asarray(back_out), rtol=1e-5, atol=1e-6))
    info.update(iters=iters, copied_back_seconds=back_s, kept_on_device_seconds=kept_s,
                kept_graph=graph_text(kept), output_type=type(kept_out).__name__,
                matches=matches, status="pass" if matches else "fail")
    if not matches:
        info["reason"] = "the device-resident result differs from the copied-back one"
    return info


def stable_loss(data_x, data_y, w, b):
    """Mean cross-entropy computed on the host in float64, without log(0)."""
    import numpy
    z = data_x.astype("float64").dot(w.astype("float64")) + float(b)
    return float(numpy.mean(numpy.logaddexp(0, z) - data_y * z))


def numpy_logreg_seconds(data_x, data_y, rng, steps, lr=LEARNING_RATE):
    """The same training in plain numpy: the baseline for the same work."""
    import numpy
    w = rng.randn(data_x.shape[1]).astype(data_x.dtype)
    b = 0.0
    start = time.time()
    for _ in range(steps):
        p_1 = 1 / (1 + numpy.exp(-data_x.dot(w) - b))
        delta = (p_1 - data_y) / len(data_y)
        w = w - lr * (data_x.T.dot(delta) + 0.02 * w)
        b = b - lr * delta.sum()
    return time.time() - start


def check_logreg(opts):
    """Seed 004's exercise: logistic regression must train, and say where Gemv ran."""
    import numpy
    import theano
    import theano.tensor as tt
    info = theano_device()
    floatx = theano.config.floatX
    rng = numpy.random.RandomState(0)
    n, feats = 400, 784
    data_x = rng.randn(n, feats).astype(floatx)
    data_y = rng.randint(size=n, low=0, high=2).astype(floatx)
    x = theano.shared(data_x, name="x")
    y = theano.shared(data_y, name="y")
    w = theano.shared(rng.randn(feats).astype(floatx), name="w")
    b = theano.shared(numpy.asarray(0., dtype=floatx), name="b")
    p_1 = 1 / (1 + tt.exp(-tt.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * tt.log(p_1) - (1 - y) * tt.log(1 - p_1)
    cost = tt.cast(xent.mean(), floatx) + 0.01 * (w ** 2).sum()
    gw, gb = tt.grad(cost, [w, b])
    train = theano.function([], [prediction, xent],
                            updates=[(w, w - LEARNING_RATE * gw), (b, b - LEARNING_RATE * gb)],
                            name="train")
    predict = theano.function([], prediction, name="predict")
    ops = op_names(train)
    gemv = "gpu" if any(o in GPU_BLAS for o in ops) else \
        "cpu" if any(o in CPU_BLAS for o in ops) else "unknown"
    start_loss = stable_loss(data_x, data_y, w.get_value(), b.get_value())
    start = time.time()
    steps = 0
    while steps < opts["steps"]:
        steps += 1
        before = train()[0]  # the predictions of the weights this step started from
        if numpy.mean(numpy.asarray(before) == data_y) >= TRAINED:
            break
    seconds = time.time() - start
    end_loss = stable_loss(data_x, data_y, w.get_value(), b.get_value())
    info["numpy_seconds"] = numpy_logreg_seconds(data_x, data_y, rng, steps)
    losses = [start_loss, end_loss]
    accuracy = float(numpy.mean(numpy.asarray(predict()) == data_y))
    finite = all(numpy.isfinite(v) for v in losses)
    # train_seconds: the training loop alone (run_check's `seconds` is the whole check, compile included)
    info.update(ops=sorted(set(ops)), gemv_on=gemv, steps=steps, max_steps=opts["steps"],
                train_seconds=seconds,
                first_loss=losses[0], last_loss=losses[-1], accuracy=accuracy,
                w_finite=bool(numpy.all(numpy.isfinite(w.get_value()))))
    where = "with %s on %s" % ("GpuGemv" if gemv == "gpu" else "Gemv", info["requested_device"])
    if not finite or not info["w_finite"]:
        info.update(status="fail", reason="training produced NaN/inf %s (loss %r, accuracy %.3f)"
                    % (where, losses, accuracy))
    elif not (losses[-1] < losses[0] and accuracy >= 0.9):
        info.update(status="fail", reason="did not train %s: loss %.3f -> %.3f, accuracy %.3f"
                    % (where, losses[0], losses[-1], accuracy))
    else:
        info["status"] = "pass"
    return info


def check_pygpu(opts):
    """pygpu alone: init the device, an elementwise op and a reduction vs numpy."""
    try:
        import pygpu
    except ImportError as exc:
        if "No module named" in str(exc) and "pygpu" in str(exc):
            raise Skip("pygpu not installed")
        raise
    import numpy  # after pygpu: where there is none, numpy's import (seconds under Wine) is saved
    device = opts["device"]
    info = {"pygpu": pygpu.__version__, "api_version": list(pygpu.gpuarray.api_version()),
            "device": device}
    if not wants_gpu(device or ""):
        raise Skip("device=%s: pygpu needs a cuda or opencl device" % device)
    ctx = pygpu.init(device)
    info["devname"] = ctx.devname.strip()
    host = numpy.random.RandomState(1).rand(1000, 100).astype("float32")
    a = pygpu.gpuarray.array(host, context=ctx, cls=pygpu.ndgpuarray)
    start = time.time()
    elementwise = numpy.asarray(a * 2 + 1)
    total = float(numpy.asarray(a.sum()))
    info["seconds_on_device"] = time.time() - start
    start = time.time()
    host * 2 + 1, host.sum()
    info["numpy_seconds"] = time.time() - start
    ok_elem = bool(numpy.allclose(elementwise, host * 2 + 1, rtol=1e-6))
    ok_sum = bool(numpy.isclose(total, float(host.sum(dtype="float64")), rtol=1e-4))
    info.update(elementwise_matches=ok_elem, reduction_matches=ok_sum, reduction=total)
    info["status"] = "pass" if ok_elem and ok_sum else "fail"
    if info["status"] == "fail":
        info["reason"] = "pygpu results differ from numpy"
    return info


def check_cudnn(opts):
    """cuDNN through Theano: availability, version, a convolution, RNNBlock GRU and LSTM."""
    import numpy
    import theano
    info = theano_device()
    if info["context_kind"] != "cuda":
        raise Skip("cuDNN needs a CUDA context (device=%s)" % info["requested_device"])
    from theano.gpuarray import dnn
    from theano.gpuarray.type import gpuarray_shared_constructor
    available = dnn.dnn_available(None)
    info["dnn_available"] = bool(available)
    if not available:
        enabled = str(theano.config.dnn.enabled)
        info["dnn_enabled"] = enabled
        if enabled == "False":  # off on purpose: the convolutions are the conv check's
            _, where, why = setting_source("dnn.enabled")
            raise Skip("cuDNN is off by the environment: dnn.enabled = False (%s)%s; convolutions "
                       "run as GpuCorrMM (the conv check)" % (where or "Theano's configuration",
                                                             ": " + why if why else ""))
        info.update(status="fail", reason="cuDNN not usable: %s" % dnn.dnn_available.msg)
        return info
    info["cudnn_version"] = dnn.version()
    floatx = theano.config.floatX
    img = theano.tensor.tensor4("img")
    kern = theano.tensor.tensor4("kern")
    conv = theano.function([img, kern], dnn.dnn_conv(img, kern))
    rng = numpy.random.RandomState(2)
    iv = rng.rand(2, 3, 8, 8).astype(floatx)
    kv = rng.rand(4, 3, 3, 3).astype(floatx)
    out = numpy.asarray(conv(iv, kv))
    # dnn_conv is a cross-correlation by default ('conv' mode flips): compare with numpy
    ref = numpy.zeros((2, 4, 6, 6), dtype="float64")
    flipped = kv[:, :, ::-1, ::-1]
    for i in range(6):
        for j in range(6):
            ref[:, :, i, j] = numpy.tensordot(iv[:, :, i:i + 3, j:j + 3], flipped,
                                              axes=([1, 2, 3], [1, 2, 3]))
    info["conv_matches"] = bool(numpy.allclose(out, ref, rtol=1e-3, atol=1e-3))
    rnn = {}
    for mode in ("gru", "lstm"):
        hidden, depth, batch, steps, inp = 8, 1, 2, 5, 4
        block = dnn.RNNBlock(floatx, hidden, depth, mode)
        psize = block.get_param_size([batch, inp])
        params = gpuarray_shared_constructor(numpy.zeros((psize,), dtype=floatx))
        X = theano.tensor.tensor3("X")
        h0 = theano.tensor.tensor3("h0")
        outputs = [X, h0] + ([theano.tensor.tensor3("c0")] if mode == "lstm" else [])
        y = block.apply(params, *outputs)[0]
        fn = theano.function(outputs, y)
        args = [rng.rand(steps, batch, inp).astype(floatx),
                numpy.zeros((depth, batch, hidden), dtype=floatx)]
        if mode == "lstm":
            args.append(numpy.zeros((depth, batch, hidden), dtype=floatx))
        rnn[mode] = list(numpy.asarray(fn(*args)).shape)
    info["rnn_output_shapes"] = rnn
    ok = info["conv_matches"] and all(s == [5, 2, 8] for s in rnn.values())
    info["status"] = "pass" if ok else "fail"
    if not ok:
        info["reason"] = "cuDNN results are wrong (conv %s, rnn %s)" % (info["conv_matches"], rnn)
    return info


def check_compiler(opts):
    """Theano's C++ compiler: without one Theano runs its Python implementations (and no
    GPU op can be built)."""
    import theano
    info = {"cxx": theano.config.cxx, "platform": sys.platform}
    if theano.config.cxx:
        return dict(info, status="pass", reason="Theano compiles with %s" % theano.config.cxx)
    if wants_gpu(opts["device"] or ""):
        return dict(info, status="fail", reason="device=%s needs a C++ compiler for its GPU ops and "
                    "Theano found none (cxx is empty)" % opts["device"])
    where = "on this Windows" if sys.platform == "win32" else "here"
    raise Skip("no g++ %s: Theano runs its Python implementations (cxx is empty)" % where)


def check_driver(opts):
    """The NVIDIA driver as libgpuarray loads it (nvcuda.dll / libcuda.so.1), through ctypes."""
    import ctypes
    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        if opts["require_cuda"]:
            return {"library": name, "status": "fail", "reason": "%s does not load: %s" % (name, exc)}
        raise Skip("no NVIDIA driver: %s" % exc)
    version = ctypes.c_int(0)
    lib.cuDriverGetVersion(ctypes.byref(version))
    return {"library": name, "status": "pass",
            "cuda_version": "%d.%d" % (version.value // 1000, version.value % 1000 // 10)}


def check_torch(opts):
    """PyTorch: import, CUDA availability, a matmul on the GPU vs the CPU."""
    try:
        import torch
    except ImportError as exc:
        if str(exc) in ("No module named torch", "No module named 'torch'"):
            raise Skip("torch not installed")
        raise
    info = {"torch": torch.__version__, "torch_file": torch.__file__,
            "cuda_available": bool(torch.cuda.is_available()),
            "cuda_build": getattr(torch.version, "cuda", None)}
    torch.manual_seed(0)
    a = torch.rand(512, 512)
    b = torch.rand(512, 512)
    start = time.time()
    cpu = a.mm(b)
    info["cpu_seconds"] = time.time() - start
    if info["cuda_available"]:
        ga, gb = a.cuda(), b.cuda()
        ga.mm(gb)
        torch.cuda.synchronize()
        start = time.time()
        gpu = ga.mm(gb)
        torch.cuda.synchronize()
        info["gpu_seconds"] = time.time() - start
        info["device_name"] = torch.cuda.get_device_name(0)
        info["matches"] = bool(torch.allclose(gpu.cpu(), cpu, rtol=1e-3, atol=1e-3))
        info["status"] = "pass" if info["matches"] else "fail"
        if not info["matches"]:
            info["reason"] = "GPU matmul differs from the CPU's"
    elif opts["require_cuda"]:
        info.update(status="fail", reason="torch.cuda.is_available() is False on a CUDA target")
    else:
        info.update(status="pass", reason="no CUDA here: matmul ran on the CPU only")
    return info


def check_mxnet(opts):
    """mxnet: an op on mx.gpu()."""
    try:
        import mxnet as mx
    except ImportError as exc:
        if str(exc) in ("No module named mxnet", "No module named 'mxnet'"):
            raise Skip("mxnet not installed")
        raise
    info = {"mxnet": mx.__version__}
    try:
        a = mx.nd.ones((2, 3), ctx=mx.gpu())
        out = (a + a).asnumpy()
    except Exception as exc:
        if not opts["require_cuda"]:
            lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
            raise Skip("no GPU for mxnet here: %s" % (lines[-1] if lines else type(exc).__name__))
        raise
    info["matches"] = bool((out == 2).all())
    info["status"] = "pass" if info["matches"] else "fail"
    return info


def find_module_file(name, path):
    """Where ``import name`` would load from on ``path``, without running it."""
    try:
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec(name, path)
        return spec.origin if spec is not None else None
    except ImportError:  # Python 2
        import imp
        try:
            found = imp.find_module(name, path)
        except ImportError:
            return None
        if found[0] is not None:
            found[0].close()
        return found[1]


def check_shadow(opts):
    """Which file `import NAME` loads from the working directory (the torch.py case)."""
    name = opts["module"]
    cwd = os.getcwd()
    sys.path.insert(0, cwd)  # as `python script.py` run from here, or the REPL
    origin = find_module_file(name, sys.path)
    info = {"module": name, "cwd": cwd, "module_file": origin,
            "shadowed": bool(origin) and os.path.abspath(origin).startswith(cwd + os.sep)}
    try:
        module = __import__(name)
        getattr(module, "rand" if name == "torch" else "__name__")
    except Exception as exc:
        info["error"] = error_data(exc)
    info["status"] = "pass"
    return info


def require_theano():
    """Theano itself missing (env:pytorch04-win64 has none): a skip, not a failure."""
    try:
        import theano  # noqa: F401
    except ImportError as exc:
        if str(exc) in ("No module named theano", "No module named 'theano'"):
            raise Skip("Theano not installed")
        raise


THEANO_CHECKS = ("exp", "reduce", "gemm", "conv", "float16", "topk", "transfer", "logreg", "cudnn")
CHECKS = {"exp": check_exp, "reduce": check_reduce, "gemm": check_gemm, "conv": check_conv,
          "float16": check_float16, "topk": check_topk, "transfer": check_transfer, "logreg": check_logreg,
          "compiler": check_compiler, "driver": check_driver,
          "pygpu": check_pygpu, "cudnn": check_cudnn, "torch": check_torch,
          "mxnet": check_mxnet, "shadow": check_shadow}


def parse(argv):
    opts = {"checks": [], "device": None, "iters": 1000, "steps": 300,
            "require_cuda": False, "module": "torch"}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--require-cuda":
            opts["require_cuda"] = True
        elif arg in ("--device", "--iters", "--steps", "--module"):
            value = args.pop(0)
            key = arg[2:]
            opts[key] = int(value) if key in ("iters", "steps") else value
        else:
            opts["checks"].append(arg)
    return opts


def run_check(name, opts):
    result = {"check": name, "status": "error", "python": sys.version.split()[0],
              "executable": sys.executable, "bits": struct.calcsize("P") * 8}
    start = time.time()
    try:
        if name not in CHECKS:
            raise ValueError("unknown check %r: use one of %s" % (name, ", ".join(sorted(CHECKS))))
        if name in THEANO_CHECKS:
            require_theano()
        result.update(CHECKS[name](opts))
    except Skip as skip:
        result.update(status="skip", reason=str(skip))
    except BaseException as exc:  # a failure is data, even SystemExit from a broken import
        result.update(status="fail", reason="%s: %s" % (type(exc).__name__, str(exc)[:300]),
                      error=error_data(exc))
    result["seconds"] = time.time() - start
    sys.stdout.flush()
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(result, default=repr) + "\n")
    sys.stdout.flush()


def main(argv):
    opts = parse(argv)
    if opts["device"] is None:  # `gpuforge smoke --python`: the device Theano is configured for
        device, where, _ = setting_source("device")
        if device:
            opts["device"], opts["device_from"] = device, where
            opts["require_cuda"] = opts["require_cuda"] or device.startswith(("cuda", "gpu"))
    for name in opts["checks"]:
        run_check(name, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

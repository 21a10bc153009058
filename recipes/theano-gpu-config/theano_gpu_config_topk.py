"""theano-gpu-config: Theano 1.0.5's top-k kernels on GPUs since Volta (compute capability 7.0+).

Theano's GpuTopKOp (T.topk, T.argtopk, T.topk_and_argtopk on the gpuarray backend) compiles
theano/gpuarray/c_code/topk_common.cuh, topk_dense.cu and topk_dense_large.cu with NVRTC. They
call ``__ballot(vote)``, the warp vote CUDA 9 deprecated: NVRTC emits ``vote.ballot.b32`` without
``.sync``, which PTX ISA 6.4 and later forbids for ``.target sm_70`` and newer, so the driver
refuses the module (``GpuKernel_init error 3: cuLinkAddData: CUDA_ERROR_INVALID_PTX``) on every
Volta ... Blackwell GPU, measured on an H100 (gpuforge's SILICON notes). The fix is CUDA 9's own
migration, ``__ballot_sync(__activemask(), vote)``: the same vote over the threads that reach it,
as PyTorch's THC radix select (where Theano's kernels come from) made it (aten/src/THC/
THCTensorTopK.cuh, countRadixUsingMask: ``__popc(WARP_BALLOT(vote, ACTIVE_MASK()))``). Every GPU env file's NVRTC (CUDA 9.0 ... 12.x) has both.

The env files install Theano from PyPI, so the fix cannot be in Theano's files: this module,
imported at start-up by theano-gpu-config.pth in the environment's site-packages, rewrites the
kernels' source when theano.gpuarray.sort is imported, and adds a mark to GpuTopKOp's
c_code_cache_version so a module Theano compiled before the fix is not reused. gpuforge's own
conda build of Theano carries the same change as a patch (recipes/theano/patches/); there this
finds nothing to rewrite. Nothing here may stop Python from starting: any failure leaves Theano
as it is.
"""

import re
import sys

MODULE = "theano.gpuarray.sort"
BALLOT = re.compile(r"\b__ballot\s*\(")
FIXED = "__ballot_sync(__activemask(), "
CACHE_MARK = ("theano-gpu-config: __ballot_sync", 1)


def fixed_source(code):
    """Kernel source with every legacy ``__ballot(x)`` made ``__ballot_sync(__activemask(), x)``."""
    return BALLOT.sub(FIXED, code)


def fix(sort_module):
    """Rewrite GpuTopKOp's kernels as Theano builds them; idempotent."""
    op = getattr(sort_module, "GpuTopKOp", None)
    if op is None or getattr(op, "_theano_gpu_config_fixed", False):
        return
    kernels_of, version_of = op.gpu_kernels, op.c_code_cache_version

    def gpu_kernels(self, node, nodename):
        kernels = kernels_of(self, node, nodename)
        for kernel in kernels:
            kernel.code = fixed_source(kernel.code)
        return kernels

    def c_code_cache_version(self):
        version = version_of(self)
        return tuple(version) + (CACHE_MARK,) if version else version

    op.gpu_kernels = gpu_kernels
    op.c_code_cache_version = c_code_cache_version
    op._theano_gpu_config_fixed = True


class _AfterImport(object):
    """A meta path finder that runs ``fix`` right after theano.gpuarray.sort is executed."""

    def find_spec(self, name, path=None, target=None):
        if name != MODULE:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            try:
                fix(module)
            except Exception as exc:  # never break Theano's import
                sys.stderr.write("theano-gpu-config: GpuTopKOp left as it is (%s)\n" % exc)

        spec.loader.exec_module = exec_module
        return spec


def install():
    """Fix GpuTopKOp now if Theano's module is loaded, else when it is imported."""
    if MODULE in sys.modules:
        fix(sys.modules[MODULE])
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


try:
    if sys.version_info >= (3, 4):  # importlib's find_spec; Theano's env files use 3.6+
        install()
except Exception:  # start-up must go on
    pass

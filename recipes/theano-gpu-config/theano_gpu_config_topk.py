"""theano-gpu-config: Theano 1.0.5's top-k kernels on GPUs since Volta (compute capability 7.0+).

Theano's GpuTopKOp (T.topk, T.argtopk, T.topk_and_argtopk on the gpuarray backend) compiles
theano/gpuarray/c_code/topk_common.cuh, topk_dense.cu and topk_dense_large.cu with NVRTC. They
were written for warps that run in lockstep (before Volta), and fail two ways since:

- They call ``__ballot(vote)``, the warp vote CUDA 9 deprecated: NVRTC emits ``vote.ballot.b32``
  without ``.sync``, which PTX ISA 6.4 and later forbids for ``.target sm_70`` and newer, so the
  driver refuses the module (``GpuKernel_init error 3: cuLinkAddData: CUDA_ERROR_INVALID_PTX``),
  measured on an H100 (2026-11-27).
- With the vote made ``__ballot_sync(__activemask(), vote)`` (this module's first fix), the
  driver takes the module and the kernel never ends: T.topk of 2000 floats ran past 120 s at
  100 % GPU on an H200 (2026-11-28, faulthandler's stack in Theano's function call), where every
  other op family passed. Lanes of a warp no longer run in step: ``__activemask()`` names the
  lanes that happen to be together, not the ones that vote, and topk_dense_large.cu reads the
  scan's carry from shared memory that the next round's scan overwrites (a write-after-read
  race) before its ``if (carry >= topk_remaining) break;``, so threads leave the loop apart and
  the rest wait at a barrier for ever. Worse, its loops "in which all threads participate"
  (find_pattern and both write loops) run while ``i < size + blockDim.x - 1``: thread 0 of a
  1024-thread block takes three rounds over 2000 values, thread 1000 two, so part of a warp
  calls the scan's barriers and votes a round more than the rest.

The fix is what PyTorch's radix select, where these kernels come from, does today:
- the votes every lane of the warp reaches (the block-wide scans binary_cumsum and
  binary_cumsum_exclusive, whose loops run to a multiple of the block size, and topk_dense.cu's
  radix count) take the whole warp: ``__ballot_sync(0xffffffffu, vote)`` (PyTorch's WARP_BALLOT,
  c10/macros/Macros.h, whose mask defaults to all 32 lanes, in
  aten/src/ATen/cuda/ScanUtils.cuh inclusiveBinaryPrefixScan);
- count_radix_masked's scan, a loop lanes leave at different rounds, votes among the lanes
  still in it, a mask carried from round to round (aten/src/ATen/native/cuda/
  SortingRadixSelect.cuh countRadixUsingMask: ``unsigned mask = WARP_BALLOT(threadIdx.x <
  sliceSize)`` before the loop, ``WARP_BALLOT(vote, mask)``, ``mask = WARP_BALLOT(i <
  sliceSize, mask)`` at its end);
- a barrier after each read of the carry (ScanUtils.cuh exclusiveBinaryPrefixScan with
  KillWARDependency, as TensorTopK.cu's gatherTopK calls it);
- the loops all threads take run to the slice's size rounded up to a multiple of the block
  (aten/src/ATen/native/cuda/TensorTopK.cu gatherTopK: ``numIterations =
  round_up(inputSliceSize, (IndexType) blockDim.x)``; findPattern likewise).
Every GPU env file's NVRTC (CUDA 9.0 ... 12.x) has ``__ballot_sync``.

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
# count_radix_masked (topk_dense_large.cu): the scan loop lanes leave at different rounds
SCAN_LOOP = re.compile(r"for \(CountType i = threadIdx\.x; i < slice_size; i \+= blockDim\.x\) \{")
SCAN_LOOP_FIXED = (
    "unsigned int lanes = __ballot_sync(0xffffffffu, threadIdx.x < slice_size);\n"
    "    for (CountType i = threadIdx.x; i < slice_size; ) {"
)
SCAN_VOTE = re.compile(r"counts\[j\] \+= __popc\(__ballot\(vote\)\);(\s*\})(\s*\})")
SCAN_VOTE_FIXED = (
    r"counts[j] += __popc(__ballot_sync(lanes, vote));\1"
    "\n        i += blockDim.x;\n        lanes = __ballot_sync(lanes, i < slice_size);"
    r"\2"
)
# topk_dense_large.cu: the carry is read before the next scan overwrites it
CARRY = re.compile(r"(int carry = smem\[blockDim\.x / 32 - 1\];)(?!\s*local_barrier\(\);)")
CARRY_FIXED = r"\1\n        local_barrier();"
# find_pattern and the write loops: every thread takes the same number of rounds
PATTERN_BOUND = re.compile(r"i < \(slice_size \+ \(CountType\)blockDim\.x-1\)")
PATTERN_BOUND_FIXED = "i < ((slice_size + (CountType)blockDim.x - 1) / blockDim.x) * blockDim.x"
WRITE_BOUND = re.compile(r"COUNT_TYPE iter_bound = size \+ blockDim\.x-1;")
WRITE_BOUND_FIXED = "COUNT_TYPE iter_bound = ((size + blockDim.x - 1) / blockDim.x) * blockDim.x;"
# every other vote is reached by all 32 lanes of the warp
BALLOT = re.compile(r"\b__ballot\s*\(")
FIXED = "__ballot_sync(0xffffffffu, "
CACHE_MARK = ("theano-gpu-config: top-k for sm_70+", 2)


def fixed_source(code):
    """Kernel source whose warp votes, barriers and loop bounds hold on sm_70 and newer."""
    code = SCAN_LOOP.sub(SCAN_LOOP_FIXED, code)
    code = SCAN_VOTE.sub(SCAN_VOTE_FIXED, code)
    code = CARRY.sub(CARRY_FIXED, code)
    code = PATTERN_BOUND.sub(PATTERN_BOUND_FIXED, code)
    code = WRITE_BOUND.sub(WRITE_BOUND_FIXED, code)
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
        if not version or CACHE_MARK in tuple(version):  # gpuforge's patched Theano has it
            return version
        return tuple(version) + (CACHE_MARK,)

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
